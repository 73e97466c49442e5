#include "backend/ort/ort_tensor.h"

#include <cstring>

namespace parity::backend::ort {
namespace {

// Parity's DType is numbered as ONNX's TensorProto.DataType, and so is ORT's element enum.
static_assert(static_cast<int>(DType::float32) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
static_assert(static_cast<int>(DType::string) == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
static_assert(static_cast<int>(DType::bfloat16) == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16);
static_assert(static_cast<int>(DType::int4) == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4);

bool is_packed4(DType t) { return t == DType::int4 || t == DType::uint4; }

// Two elements per byte, the first in the low nibble (ONNX's layout for 4-bit types).
std::vector<std::byte> pack4(std::span<const std::byte> unpacked) {
  std::vector<std::byte> packed((unpacked.size() + 1) / 2);
  for (std::size_t i = 0; i < unpacked.size(); ++i) {
    const auto nibble = static_cast<uint8_t>(static_cast<uint8_t>(unpacked[i]) & 0x0f);
    packed[i / 2] |= std::byte{static_cast<uint8_t>(i % 2 ? nibble << 4 : nibble)};
  }
  return packed;
}

std::vector<std::byte> unpack4(const std::byte* packed, std::size_t count, bool is_signed) {
  std::vector<std::byte> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    auto nibble = static_cast<uint8_t>((static_cast<uint8_t>(packed[i / 2]) >> (i % 2 ? 4 : 0)) & 0x0f);
    if (is_signed && (nibble & 0x08)) nibble |= 0xf0;  // sign-extend int4
    out[i] = std::byte{nibble};
  }
  return out;
}

std::string value_type_name(ONNXType t) {
  switch (t) {
    case ONNX_TYPE_SEQUENCE: return "a sequence";
    case ONNX_TYPE_MAP: return "a map";
    case ONNX_TYPE_OPAQUE: return "an opaque value";
    case ONNX_TYPE_SPARSETENSOR: return "a sparse tensor";
    case ONNX_TYPE_OPTIONAL: return "an optional";
    default: return "not a tensor (ONNXType " + std::to_string(static_cast<int>(t)) + ")";
  }
}

}  // namespace

Result<Owned<OrtValue>> make_input_value(OrtGuard& guard, const OrtMemoryInfo* cpu_memory,
                                         OrtAllocator* allocator, const NamedTensor& input,
                                         InputBuffers& buffers) {
  const OrtApi* api = guard.api();
  const Tensor& t = input.tensor;
  const Shape& shape = t.shape();
  const int64_t numel = shape_numel(shape);
  if (numel < 0)
    return guard.error(ErrorKind::bad_input,
                       "input '" + input.name + "' has an unresolved shape " + shape_to_string(shape),
                       "give every dynamic dimension a size");
  const auto type = static_cast<ONNXTensorElementDataType>(t.dtype());

  if (t.dtype() == DType::string) {
    if (t.strings().size() != static_cast<std::size_t>(numel))
      return guard.error(ErrorKind::bad_input, "input '" + input.name + "' has " +
                                                   std::to_string(t.strings().size()) +
                                                   " strings for shape " + shape_to_string(shape));
    PARITY_ASSIGN_OR_RETURN(value, guard.create<OrtValue>("CreateTensorAsOrtValue", [&](OrtValue** out) {
      return api->CreateTensorAsOrtValue(allocator, shape.data(), shape.size(), type, out);
    }));
    std::vector<const char*> items;
    items.reserve(t.strings().size());
    for (const std::string& s : t.strings()) items.push_back(s.c_str());
    PARITY_TRY(guard.call("FillStringTensor",
                          [&] { return api->FillStringTensor(value.get(), items.data(), items.size()); }));
    return value;
  }

  const std::size_t element_size = dtype_size(t.dtype());
  if (element_size == 0)
    return guard.error(ErrorKind::bad_input, "input '" + input.name + "' has element type " +
                                                 std::string(dtype_name(t.dtype())) +
                                                 ", which has no fixed size");
  const std::size_t expected = static_cast<std::size_t>(numel) * element_size;
  if (t.byte_size() != expected)
    return guard.error(ErrorKind::bad_input, "input '" + input.name + "' holds " +
                                                 std::to_string(t.byte_size()) + " bytes; " +
                                                 std::string(dtype_name(t.dtype())) + shape_to_string(shape) +
                                                 " needs " + std::to_string(expected));

  // ORT's C API takes void* but never writes inputs; wrapping the caller's bytes avoids a copy.
  void* data = const_cast<std::byte*>(t.bytes().data());
  std::size_t size = t.byte_size();
  if (is_packed4(t.dtype())) {
    buffers.push_back(pack4(t.bytes()));
    data = buffers.back().data();
    size = buffers.back().size();
  }
  if (data == nullptr) {  // empty tensor: ORT wants a non-null pointer even for zero bytes
    buffers.emplace_back(1);
    data = buffers.back().data();
    size = 0;
  }
  return guard.create<OrtValue>("CreateTensorWithDataAsOrtValue", [&](OrtValue** out) {
    return api->CreateTensorWithDataAsOrtValue(cpu_memory, data, size, shape.data(), shape.size(), type, out);
  });
}

Result<Tensor> read_output_value(OrtGuard& guard, const std::string& name, OrtValue* value) {
  const OrtApi* api = guard.api();
  PARITY_TRY(
      guard.require(value, "Run reported success but returned a null value for output '" + name + "'"));

  ONNXType kind = ONNX_TYPE_UNKNOWN;
  PARITY_TRY(guard.call("GetValueType", [&] { return api->GetValueType(value, &kind); }));
  if (kind != ONNX_TYPE_TENSOR)
    return guard.error(ErrorKind::bad_input,
                       "output '" + name + "' is " + value_type_name(kind) + "; Parity compares tensors only",
                       "request tensor outputs only (RunRequest::output_names)");

  PARITY_ASSIGN_OR_RETURN(info, guard.create<OrtTensorTypeAndShapeInfo>(
                                    "GetTensorTypeAndShape", [&](OrtTensorTypeAndShapeInfo** out) {
                                      return api->GetTensorTypeAndShape(value, out);
                                    }));
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  PARITY_TRY(
      guard.call("GetTensorElementType", [&] { return api->GetTensorElementType(info.get(), &element); }));
  std::size_t rank = 0;
  PARITY_TRY(guard.call("GetDimensionsCount", [&] { return api->GetDimensionsCount(info.get(), &rank); }));
  Shape shape(rank);
  PARITY_TRY(guard.call("GetDimensions", [&] { return api->GetDimensions(info.get(), shape.data(), rank); }));
  std::size_t count = 0;
  PARITY_TRY(guard.call("GetTensorShapeElementCount",
                        [&] { return api->GetTensorShapeElementCount(info.get(), &count); }));

  const auto dtype = dtype_from_onnx(static_cast<int32_t>(element));
  if (!dtype || *dtype == DType::undefined)
    return guard.error(ErrorKind::unavailable, "output '" + name + "' has ONNX element type " +
                                                   std::to_string(static_cast<int>(element)) +
                                                   ", which Parity cannot represent yet");
  const int64_t numel = shape_numel(shape);
  if (numel < 0 || static_cast<std::size_t>(numel) != count)
    return guard.error(ErrorKind::error, "output '" + name + "' has shape " + shape_to_string(shape) +
                                             " but " + std::to_string(count) + " elements");

  if (*dtype == DType::string) {
    std::vector<std::string> strings(count);
    if (count > 0) {
      std::size_t total = 0;
      PARITY_TRY(guard.call("GetStringTensorDataLength",
                            [&] { return api->GetStringTensorDataLength(value, &total); }));
      std::string content(total, '\0');
      std::vector<std::size_t> offsets(count);
      PARITY_TRY(guard.call("GetStringTensorContent", [&] {
        return api->GetStringTensorContent(value, content.data(), total, offsets.data(), count);
      }));
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t begin = offsets[i];
        const std::size_t end = i + 1 < count ? offsets[i + 1] : total;
        if (begin > end || end > total)
          return guard.error(ErrorKind::error, "output '" + name + "': ORT gave inconsistent string offsets");
        strings[i] = content.substr(begin, end - begin);
      }
    }
    return Tensor::from_strings(std::move(shape), std::move(strings));
  }

  const std::size_t element_size = dtype_size(*dtype);
  std::vector<std::byte> bytes;
  if (count > 0) {  // an empty tensor may have no data pointer at all
    PARITY_ASSIGN_OR_RETURN(data, guard.borrow<void>("GetTensorMutableData", [&](void** out) {
      return api->GetTensorMutableData(value, out);
    }));
    const auto* src = static_cast<const std::byte*>(data);
    if (is_packed4(*dtype)) {
      bytes = unpack4(src, count, *dtype == DType::int4);
    } else {
      bytes.resize(count * element_size);
      std::memcpy(bytes.data(), src, bytes.size());
    }
  }
  auto tensor = Tensor::from_bytes(*dtype, std::move(shape), std::move(bytes));
  if (!tensor.ok())
    return guard.error(ErrorKind::internal, "output '" + name + "': " + tensor.error().message);
  return std::move(tensor).value();
}

}  // namespace parity::backend::ort
