// tests/model/wire_writer.h: a tiny protobuf wire-format writer. Tests build TensorProtos with typed
// fields and damaged models byte by byte with it, since only src/model may include protobuf.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace parity::model::testing {

class WireWriter {
 public:
  static std::string varint_bytes(uint64_t v) {
    std::string out;
    do {
      const auto low = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      out += static_cast<char>(v ? low | 0x80 : low);
    } while (v);
    return out;
  }

  WireWriter& varint(int field, uint64_t v) { return tag(field, 0).raw(varint_bytes(v)); }
  WireWriter& bytes(int field, std::string_view b) {
    return tag(field, 2).raw(varint_bytes(b.size())).raw(b);
  }
  WireWriter& message(int field, const WireWriter& m) { return bytes(field, m.str()); }
  WireWriter& fixed32(int field, uint32_t v) { return tag(field, 5).raw(little_endian(v)); }
  WireWriter& fixed64(int field, uint64_t v) { return tag(field, 1).raw(little_endian(v)); }
  WireWriter& float32(int field, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return fixed32(field, bits);
  }
  WireWriter& float64(int field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return fixed64(field, bits);
  }
  // A packed repeated varint field (how protobuf 3 writes repeated scalars by default).
  WireWriter& packed_varints(int field, std::initializer_list<int64_t> values) {
    std::string payload;
    for (const int64_t v : values) payload += varint_bytes(static_cast<uint64_t>(v));
    return bytes(field, payload);
  }
  // Appends bytes verbatim, for deliberately malformed input.
  WireWriter& raw(std::string_view b) {
    out_.append(b);
    return *this;
  }

  const std::string& str() const { return out_; }

 private:
  WireWriter& tag(int field, int wire) { return raw(varint_bytes(static_cast<uint64_t>(field) << 3 | wire)); }
  template <class T>
  static std::string little_endian(T v) {
    std::string s(sizeof(T), '\0');
    for (std::size_t i = 0; i < sizeof(T); ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  }

  std::string out_;
};

// Field numbers from onnx.proto, for readable test code.
namespace field {
// ModelProto
inline constexpr int ir_version = 1, producer_name = 2, producer_version = 3, graph = 7, opset_import = 8;
// OperatorSetIdProto
inline constexpr int opset_domain = 1, opset_version = 2;
// GraphProto
inline constexpr int node = 1, graph_name = 2, initializer = 5, input = 11, output = 12,
                     sparse_initializer = 15;
// NodeProto
inline constexpr int node_input = 1, node_output = 2, node_name = 3, op_type = 4, node_domain = 7;
// ValueInfoProto, TypeProto, TypeProto.Tensor, TensorShapeProto(.Dimension)
inline constexpr int vi_name = 1, vi_type = 2;
inline constexpr int tensor_type = 1, sequence_type = 4;
inline constexpr int elem_type = 1, shape = 2;
inline constexpr int dim = 1, dim_value = 1, dim_param = 2;
// TensorProto
inline constexpr int dims = 1, data_type = 2, segment = 3, float_data = 4, int32_data = 5, string_data = 6,
                     int64_data = 7, name = 8, raw_data = 9, double_data = 10, uint64_data = 11,
                     external_data = 13, data_location = 14;
// SparseTensorProto
inline constexpr int sparse_values = 1;
// StringStringEntryProto
inline constexpr int key = 1, value = 2;
}  // namespace field

}  // namespace parity::model::testing
