#include "model/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cstring>
#include <new>
#include <span>
#include <system_error>
#include <vector>

#include "core/file_io.h"
#include "model/proto_io.h"

namespace parity::model {
namespace {

// raw_data is little-endian by the ONNX spec and Tensor holds native bytes; we copy without swapping.
static_assert(std::endian::native == std::endian::little, "tensor_proto.cpp assumes a little-endian host");

// Tensors are read for inputs and reference outputs alike; both are prepared before a run.
constexpr Stage kStage = Stage::prepare_inputs;
constexpr std::string_view kWhat = "a TensorProto";
// Keeps element counts far from uint64 overflow when multiplied by an element size.
constexpr uint64_t kMaxElements = uint64_t{1} << 56;
constexpr const char* kDamaged = "the file is damaged or does not match its own shape: save the tensor again";

Error bad_tensor(const std::string& origin, std::string what_is_wrong, std::string hint) {
  return make_error(ErrorKind::bad_input, kStage, origin + ": " + std::move(what_is_wrong), std::move(hint));
}

bool is_4bit(DType t) { return t == DType::int4 || t == DType::uint4; }

// Element types ONNX stores one per int32_data entry, narrowed to their own width.
bool stored_in_int32_data(DType t) {
  switch (t) {
    case DType::int32:
    case DType::int16:
    case DType::uint16:
    case DType::int8:
    case DType::uint8:
    case DType::boolean:
    case DType::float16:
    case DType::bfloat16:
    case DType::float8e4m3fn:
    case DType::float8e4m3fnuz:
    case DType::float8e5m2:
    case DType::float8e5m2fnuz: return true;
    default: return false;
  }
}

// Expands packed 4-bit elements (first element in the low nibble) to one byte each, sign-extending
// int4 so that the byte holds the element's value.
std::vector<std::byte> unpack_4bit(std::span<const uint8_t> packed, uint64_t count, bool is_signed) {
  std::vector<std::byte> out(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < out.size(); ++i) {
    uint8_t nibble = (packed[i / 2] >> (4 * (i % 2))) & 0x0f;
    if (is_signed && (nibble & 0x08)) nibble |= 0xf0;
    out[i] = static_cast<std::byte>(nibble);
  }
  return out;
}

std::string pack_4bit(std::span<const std::byte> elements) {
  std::string out((elements.size() + 1) / 2, '\0');
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto nibble = static_cast<uint8_t>(static_cast<uint8_t>(elements[i]) & 0x0f);
    out[i / 2] = static_cast<char>(static_cast<uint8_t>(out[i / 2]) | (nibble << (4 * (i % 2))));
  }
  return out;
}

// Copies a typed repeated field into native bytes of `T`, converting each value with `convert`.
template <class T, class Field, class Convert>
std::vector<std::byte> narrow_to(const Field& field, Convert convert) {
  std::vector<std::byte> out(static_cast<std::size_t>(field.size()) * sizeof(T));
  for (int i = 0; i < field.size(); ++i) {
    const T v = convert(field.Get(i));
    std::memcpy(out.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
  }
  return out;
}

// Reads the payload of a numeric tensor of `count` elements as stored type `dtype`. Every count is
// compared with the payload before anything is allocated, so forged dims cannot cause a large
// allocation or a read past the payload.
Result<std::vector<std::byte>> numeric_payload(const onnx::TensorProto& p, DType dtype, uint64_t count,
                                               const std::string& origin, const std::string& described) {
  const std::size_t size = dtype_size(dtype);
  auto mismatch = [&](std::string_view field, uint64_t have, uint64_t want) {
    return bad_tensor(origin,
                      described + " needs " + std::to_string(want) + " " + std::string(field) + ", found " +
                          std::to_string(have),
                      std::string(kDamaged));
  };

  if (p.has_raw_data()) {
    const std::string& raw = p.raw_data();
    if (is_4bit(dtype)) {
      const uint64_t want = count / 2 + count % 2;
      if (raw.size() != want) return mismatch("raw_data bytes", raw.size(), want);
      return unpack_4bit({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, count,
                         dtype == DType::int4);
    }
    if (raw.size() % size != 0 || raw.size() / size != count)
      return mismatch("raw_data bytes", raw.size(), count * size);
    std::vector<std::byte> bytes(raw.size());
    if (!raw.empty()) std::memcpy(bytes.data(), raw.data(), raw.size());
    return bytes;
  }

  // The typed fields: which one holds the payload depends on the element type (onnx.proto).
  if (is_4bit(dtype)) {  // int32_data holds one packed byte (two elements) per entry
    const uint64_t want = count / 2 + count % 2;
    if (static_cast<uint64_t>(p.int32_data_size()) != want)
      return mismatch("int32_data values", p.int32_data_size(), want);
    const std::vector<std::byte> packed =
        narrow_to<uint8_t>(p.int32_data(), [](int32_t v) { return uint8_t(v); });
    return unpack_4bit({reinterpret_cast<const uint8_t*>(packed.data()), packed.size()}, count,
                       dtype == DType::int4);
  }
  if (stored_in_int32_data(dtype)) {
    if (static_cast<uint64_t>(p.int32_data_size()) != count)
      return mismatch("int32_data values", p.int32_data_size(), count);
    if (dtype == DType::int32) return narrow_to<int32_t>(p.int32_data(), [](int32_t v) { return v; });
    if (dtype == DType::boolean)
      return narrow_to<uint8_t>(p.int32_data(), [](int32_t v) { return uint8_t(v != 0); });
    // float16/bfloat16 are their bit patterns, 8-bit types their values: truncation is the decoding.
    if (size == 2) return narrow_to<uint16_t>(p.int32_data(), [](int32_t v) { return uint16_t(v); });
    return narrow_to<uint8_t>(p.int32_data(), [](int32_t v) { return uint8_t(v); });
  }
  switch (dtype) {
    case DType::float32:
    case DType::complex64: {  // complex64 is (real, imaginary) float pairs
      const uint64_t want = dtype == DType::complex64 ? 2 * count : count;
      if (static_cast<uint64_t>(p.float_data_size()) != want)
        return mismatch("float_data values", p.float_data_size(), want);
      return narrow_to<float>(p.float_data(), [](float v) { return v; });
    }
    case DType::float64:
    case DType::complex128: {
      const uint64_t want = dtype == DType::complex128 ? 2 * count : count;
      if (static_cast<uint64_t>(p.double_data_size()) != want)
        return mismatch("double_data values", p.double_data_size(), want);
      return narrow_to<double>(p.double_data(), [](double v) { return v; });
    }
    case DType::int64:
      if (static_cast<uint64_t>(p.int64_data_size()) != count)
        return mismatch("int64_data values", p.int64_data_size(), count);
      return narrow_to<int64_t>(p.int64_data(), [](int64_t v) { return v; });
    case DType::uint32:
    case DType::uint64:
      if (static_cast<uint64_t>(p.uint64_data_size()) != count)
        return mismatch("uint64_data values", p.uint64_data_size(), count);
      if (dtype == DType::uint32)
        return narrow_to<uint32_t>(p.uint64_data(), [](uint64_t v) { return uint32_t(v); });
      return narrow_to<uint64_t>(p.uint64_data(), [](uint64_t v) { return v; });
    default:
      return bad_tensor(origin, described + " has no typed field Parity can read",
                        "save the tensor with raw_data (onnx.numpy_helper.from_array)");
  }
}

Result<NamedTensor> to_named_tensor(const onnx::TensorProto& p, const std::string& origin,
                                    std::optional<DType> declared) {
  const std::string name = p.name().empty() ? "tensor" : "tensor '" + detail::printable(p.name()) + "'";
  if (p.data_location() == onnx::TensorProto::EXTERNAL || p.external_data_size() > 0) {
    std::string location;
    for (const onnx::StringStringEntryProto& e : p.external_data())
      if (e.key() == "location") location = " ('" + detail::printable(e.value()) + "')";
    return bad_tensor(
        origin, name + " keeps its data in an external file" + location + ", which Parity does not read",
        "load it with onnx.load_external_data_for_tensor and save it with the data inline");
  }
  if (p.has_segment())
    return bad_tensor(
        origin, name + " is one segment of a larger tensor; segmented tensors are not supported",
        "Parity reads single-tensor .pb files; sequence and optional .pb files are not supported");
  const std::optional<DType> stored = dtype_from_onnx(p.data_type());
  if (!stored)
    return bad_tensor(
        origin, name + " has element type " + std::to_string(p.data_type()) + ", which Parity does not know",
        p.data_type() == 0 ? "the file may hold a sequence, map or optional, or not be a TensorProto"
                           : "the tensor may need a newer Parity");

  Shape shape;
  uint64_t count = 1;
  for (const int64_t d : p.dims()) {
    if (d < 0)
      return bad_tensor(origin, name + " has a negative dimension (" + std::to_string(d) + ")", kDamaged);
    if (d != 0 && count > kMaxElements / static_cast<uint64_t>(d))
      return bad_tensor(origin, name + " has an impossibly large shape", kDamaged);
    count *= static_cast<uint64_t>(d);
    shape.push_back(d);
  }
  const std::string described = name + " of " + std::string(dtype_name(*stored)) + shape_to_string(shape);

  if (*stored == DType::string) {
    if (p.has_raw_data())
      return bad_tensor(origin, described + " stores strings in raw_data, which ONNX does not allow",
                        "save string tensors with string_data (onnx.numpy_helper.from_array does)");
    if (static_cast<uint64_t>(p.string_data_size()) != count)
      return bad_tensor(origin,
                        described + " needs " + std::to_string(count) + " string_data values, found " +
                            std::to_string(p.string_data_size()),
                        kDamaged);
    return NamedTensor{
        p.name(), Tensor::from_strings(std::move(shape), {p.string_data().begin(), p.string_data().end()})};
  }

  PARITY_ASSIGN_OR_RETURN(bytes, numeric_payload(p, *stored, count, origin, described));
  // Older test suites save bfloat16 data as uint16 (same bits); trust the graph's declared type.
  DType dtype = *stored;
  if (declared && dtype_size(*declared) == 2 && dtype_size(*stored) == 2) dtype = *declared;
  Result<Tensor> tensor = Tensor::from_bytes(dtype, std::move(shape), std::move(bytes));
  if (!tensor.ok()) return bad_tensor(origin, tensor.error().message, kDamaged);
  return NamedTensor{p.name(), std::move(tensor).value()};
}

void fill_proto(const NamedTensor& nt, onnx::TensorProto& p) {
  const Tensor& t = nt.tensor;
  p.set_name(nt.name);
  p.set_data_type(static_cast<int32_t>(t.dtype()));
  for (const int64_t d : t.shape()) p.add_dims(d);
  if (t.dtype() == DType::string) {
    for (const std::string& s : t.strings()) p.add_string_data(s);
  } else if (is_4bit(t.dtype())) {
    p.set_raw_data(pack_4bit(t.bytes()));
  } else {
    p.set_raw_data(reinterpret_cast<const char*>(t.bytes().data()), t.bytes().size());
  }
}

}  // namespace

namespace {

// An exception escaping protobuf or the allocator while reading `origin`, as an Error: nothing
// crosses the module border as an exception.
Error reading_exception(const std::string& origin, const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return make_error(ErrorKind::oom, kStage, origin + ": out of memory while reading the tensor",
                      "free memory or use a machine with more RAM");
  return make_error(ErrorKind::internal, kStage, origin + ": unexpected error: " + e.what(),
                    "this is a bug in Parity: please report it with the file");
}

}  // namespace

Result<NamedTensor> detail::tensor_from_proto(const onnx::TensorProto& p, const std::string& origin,
                                              std::optional<DType> declared) {
  try {
    return to_named_tensor(p, origin, declared);
  } catch (const std::exception& e) {
    return reading_exception(origin, e);
  }
}

Result<NamedTensor> parse_tensor_proto(const std::string& bytes, const std::string& origin,
                                       std::optional<DType> declared) {
  try {
    onnx::TensorProto p;
    if (bytes.empty() || !detail::parse_message(bytes, p))
      return detail::parse_failure(bytes, *onnx::TensorProto::descriptor(), origin, kStage, kWhat);
    return to_named_tensor(p, origin, declared);
  } catch (const std::exception& e) {
    return reading_exception(origin, e);
  }
}

Result<NamedTensor> read_tensor_proto(const std::filesystem::path& path, std::optional<DType> declared) {
  const std::string origin = path.string();
  try {
    PARITY_ASSIGN_OR_RETURN(size, detail::regular_file_size(path, kStage, "tensor file"));
    if (size > detail::kMaxProtoBytes)
      return bad_tensor(origin,
                        "the file is " + std::to_string(size) + " bytes; a TensorProto cannot exceed 2 GiB",
                        "save the tensor as .npy instead");
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, kStage, "tensor file"));
    return parse_tensor_proto(bytes, origin, declared);
  } catch (const std::exception& e) {
    return reading_exception(origin, e);
  }
}

std::string serialize_tensor_proto(const NamedTensor& t) {
  try {
    onnx::TensorProto p;
    fill_proto(t, p);
    // Over 2 GiB protobuf refuses to serialize; write_tensor_proto reports that case as an Error.
    if (p.ByteSizeLong() > detail::kMaxProtoBytes) return {};
    return p.SerializeAsString();
  } catch (const std::bad_alloc&) {
    return {};  // the contract has no error channel; an empty result fails to parse as a tensor
  }
}

Status write_tensor_proto(const std::filesystem::path& path, const NamedTensor& t) {
  const std::string shown = path.string();
  try {
    onnx::TensorProto p;
    fill_proto(t, p);
    if (p.ByteSizeLong() > detail::kMaxProtoBytes)
      return make_error(ErrorKind::bad_input, Stage::write_output,
                        shown + ": tensor '" + t.name + "' needs " + std::to_string(p.ByteSizeLong()) +
                            " bytes; a TensorProto cannot exceed 2 GiB",
                        "save the tensor as .npy instead");
    // Through a temporary and a rename: a half-written .pb would later read as "truncated".
    return write_text_file(path, p.SerializeAsString());
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::write_output, shown + ": out of memory while writing the tensor",
                      "free memory or use a machine with more RAM");
  } catch (const std::exception& e) {
    return make_error(ErrorKind::internal, Stage::write_output, shown + ": unexpected error: " + e.what(),
                      "this is a bug in Parity: please report it");
  }
}

}  // namespace parity::model
