// parity/tensor.h: an owning, dense, row-major tensor of any ONNX element type.
//
// Tensors cross every border in Parity (worker pipes, .pb/.npy files, metrics), so the type is
// deliberately plain: a dtype, a shape and contiguous bytes in native little-endian layout.
// String tensors keep their elements in `strings()` instead of the byte buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parity/dtype.h"
#include "parity/result.h"

namespace parity {

using Shape = std::vector<int64_t>;

// Number of elements of a shape (1 for a scalar); -1 if any dim is negative (unresolved) or the
// count does not fit in int64 (a shape no tensor can have).
int64_t shape_numel(const Shape& shape);
// "[1,3,224,224]"
std::string shape_to_string(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor. Fails for negative dims or string dtype.
  static Result<Tensor> zeros(DType dtype, Shape shape);
  // Takes ownership of `bytes`, which must hold exactly numel * dtype_size bytes.
  static Result<Tensor> from_bytes(DType dtype, Shape shape, std::vector<std::byte> bytes);
  static Tensor from_strings(Shape shape, std::vector<std::string> values);
  // Convenience for tests and generated data.
  static Tensor from_floats(Shape shape, std::span<const float> values);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_numel(shape_); }
  std::size_t byte_size() const { return bytes_.size(); }

  std::span<const std::byte> bytes() const { return bytes_; }
  std::span<std::byte> mutable_bytes() { return bytes_; }
  const std::vector<std::string>& strings() const { return strings_; }

  template <class T>
  std::span<const T> view() const {
    return {reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T)};
  }
  template <class T>
  std::span<T> mutable_view() {
    return {reinterpret_cast<T*>(bytes_.data()), bytes_.size() / sizeof(T)};
  }

  // Element i as double (float16/bfloat16 widened, bool as 0/1). Precondition: numeric dtype.
  double element_as_double(std::size_t i) const;
  // All elements as doubles; empty for non-numeric dtypes.
  std::vector<double> to_doubles() const;

  bool operator==(const Tensor&) const = default;

 private:
  DType dtype_ = DType::undefined;
  Shape shape_;
  std::vector<std::byte> bytes_;
  std::vector<std::string> strings_;
};

// A tensor with the name it has in the model (an input, output or intermediate value).
struct NamedTensor {
  std::string name;
  Tensor tensor;
  bool operator==(const NamedTensor&) const = default;
};

}  // namespace parity
