#include "parity/tensor.h"

#include <cstring>
#include <string>

namespace parity {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Result<Tensor> Tensor::zeros(DType dtype, Shape shape) {
  const int64_t n = shape_numel(shape);
  if (n < 0)
    return make_error(ErrorKind::bad_input, Stage::prepare_inputs,
                      "tensor shape " + shape_to_string(shape) + " has an unresolved (negative) dimension");
  if (dtype == DType::string) {
    return from_strings(std::move(shape), std::vector<std::string>(static_cast<std::size_t>(n)));
  }
  if (dtype_size(dtype) == 0)
    return make_error(ErrorKind::bad_input, Stage::prepare_inputs,
                      "element type " + std::string(dtype_name(dtype)) + " has no fixed size");
  return from_bytes(dtype, std::move(shape),
                    std::vector<std::byte>(static_cast<std::size_t>(n) * dtype_size(dtype)));
}

Result<Tensor> Tensor::from_bytes(DType dtype, Shape shape, std::vector<std::byte> bytes) {
  const int64_t n = shape_numel(shape);
  std::size_t expected = 0;
  const bool sized =
      n >= 0 && !__builtin_mul_overflow(static_cast<std::size_t>(n), dtype_size(dtype), &expected);
  if (!sized || dtype_size(dtype) == 0 || bytes.size() != expected)
    return make_error(ErrorKind::bad_input, Stage::prepare_inputs,
                      "tensor of " + std::string(dtype_name(dtype)) + shape_to_string(shape) + " needs " +
                          std::to_string(expected) + " bytes, got " + std::to_string(bytes.size()));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.bytes_ = std::move(bytes);
  return t;
}

Tensor Tensor::from_strings(Shape shape, std::vector<std::string> values) {
  Tensor t;
  t.dtype_ = DType::string;
  t.shape_ = std::move(shape);
  t.strings_ = std::move(values);
  return t;
}

Tensor Tensor::from_floats(Shape shape, std::span<const float> values) {
  Tensor t;
  t.dtype_ = DType::float32;
  t.shape_ = std::move(shape);
  t.bytes_.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(t.bytes_.data(), values.data(), values.size_bytes());
  return t;
}

double Tensor::element_as_double(std::size_t i) const {
  const std::byte* p = bytes_.data() + i * dtype_size(dtype_);
  auto load = [p]<class T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (dtype_) {
    case DType::float32: return load(float{});
    case DType::float64: return load(double{});
    case DType::float16: return half_to_float(load(uint16_t{}));
    case DType::bfloat16: return bfloat16_to_float(load(uint16_t{}));
    case DType::uint8:
    case DType::uint4: return load(uint8_t{});
    case DType::int8:
    case DType::int4: return load(int8_t{});
    case DType::boolean: return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    case DType::uint16: return load(uint16_t{});
    case DType::int16: return load(int16_t{});
    case DType::int32: return load(int32_t{});
    case DType::int64: return static_cast<double>(load(int64_t{}));
    case DType::uint32: return load(uint32_t{});
    case DType::uint64: return static_cast<double>(load(uint64_t{}));
    case DType::float8e4m3fn:
    case DType::float8e4m3fnuz:
    case DType::float8e5m2:
    case DType::float8e5m2fnuz: return float8_to_double(load(uint8_t{}), dtype_);
    default: return 0.0;  // complex and string are not numbers here; callers check dtype_is_numeric
  }
}

std::vector<double> Tensor::to_doubles() const {
  if (!dtype_is_numeric(dtype_)) return {};
  std::vector<double> out(bytes_.size() / dtype_size(dtype_));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = element_as_double(i);
  return out;
}

}  // namespace parity
