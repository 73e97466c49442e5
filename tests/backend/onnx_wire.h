// tests/backend/onnx_wire.h: just enough of ONNX's protobuf wire format for the backend tests:
// writing tiny single-node models (every element type, strings, a sequence output) and reading
// the initializers of the generated test models, so expected outputs are computed here, in plain
// C++, independently of ONNX Runtime. Not a general protobuf library; protobuf proper belongs to
// src/model.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::backend::testing {

// --- writing -----------------------------------------------------------------------------------

class ProtoWriter {
 public:
  ProtoWriter& varint(int field, uint64_t v) {
    key(field, 0);
    put_varint(v);
    return *this;
  }
  ProtoWriter& bytes(int field, const std::string& s) {
    key(field, 2);
    put_varint(s.size());
    out_ += s;
    return *this;
  }
  ProtoWriter& message(int field, const ProtoWriter& m) { return bytes(field, m.out_); }
  const std::string& str() const { return out_; }

 private:
  void key(int field, int wire) {
    put_varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire));
  }
  void put_varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  std::string out_;
};

// A value declaration: a tensor of `elem_type` (ONNX TensorProto.DataType) with symbolic dims,
// or, with `sequence`, a sequence of such tensors.
struct ValueDecl {
  std::string name;
  int elem_type = 1;
  std::vector<std::string> dims;  // dim_param names; "" = unknown
  bool sequence = false;
};

inline ProtoWriter value_info(const ValueDecl& v) {
  ProtoWriter shape;
  for (const auto& d : v.dims) {
    ProtoWriter dim;
    if (!d.empty()) dim.bytes(2, d);
    shape.message(1, dim);
  }
  ProtoWriter tensor_type;
  tensor_type.varint(1, static_cast<uint64_t>(v.elem_type)).message(2, shape);
  ProtoWriter type;
  type.message(1, tensor_type);
  if (v.sequence) {
    ProtoWriter seq;
    seq.message(1, type);
    type = ProtoWriter();
    type.message(4, seq);
  }
  ProtoWriter info;
  info.bytes(1, v.name).message(2, type);
  return info;
}

struct NodeDecl {
  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::pair<std::string, int64_t>> int_attributes = {};  // e.g. {"to", 3} for Cast
};

// Serialized ModelProto: one graph of `nodes`, default domain at `opset`.
inline std::string make_model(const std::vector<NodeDecl>& nodes, const std::vector<ValueDecl>& inputs,
                              const std::vector<ValueDecl>& outputs, int opset = 21, int ir_version = 10) {
  ProtoWriter graph;
  int n = 0;
  for (const auto& node : nodes) {
    ProtoWriter w;
    for (const auto& i : node.inputs) w.bytes(1, i);
    for (const auto& o : node.outputs) w.bytes(2, o);
    w.bytes(3, node.op_type + "_" + std::to_string(n++)).bytes(4, node.op_type);
    for (const auto& [name, value] : node.int_attributes) {
      ProtoWriter attribute;  // AttributeProto: name = 1, i = 3, type = 20 (INT = 2)
      attribute.bytes(1, name).varint(3, static_cast<uint64_t>(value)).varint(20, 2);
      w.message(5, attribute);
    }
    graph.message(1, w);
  }
  graph.bytes(2, "parity_backend_test");
  for (const auto& i : inputs) graph.message(11, value_info(i));
  for (const auto& o : outputs) graph.message(12, value_info(o));
  ProtoWriter opset_id;
  opset_id.bytes(1, "").varint(2, static_cast<uint64_t>(opset));
  ProtoWriter model;
  model.varint(1, static_cast<uint64_t>(ir_version))
      .bytes(2, "parity-tests")
      .message(7, graph)
      .message(8, opset_id);
  return model.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// --- reading -----------------------------------------------------------------------------------

struct Initializer {
  std::vector<int64_t> dims;
  int data_type = 0;
  std::string raw;  // raw_data as stored (numpy_helper.from_array always writes raw_data)
  std::vector<float> floats() const {
    std::vector<float> v(raw.size() / sizeof(float));
    if (!v.empty()) std::memcpy(v.data(), raw.data(), raw.size());
    return v;
  }
};

class ProtoReader {
 public:
  explicit ProtoReader(std::string_view data) : data_(data) {}
  bool next(int& field, int& wire) {
    if (pos_ >= data_.size()) return false;
    const uint64_t k = varint();
    field = static_cast<int>(k >> 3);
    wire = static_cast<int>(k & 7);
    return true;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; pos_ < data_.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  }
  std::string_view bytes() {
    const auto n = static_cast<std::size_t>(varint());
    const auto s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ >= data_.size(); }
  void skip(int wire) {
    if (wire == 0)
      varint();
    else if (wire == 1)
      pos_ += 8;
    else if (wire == 2)
      bytes();
    else if (wire == 5)
      pos_ += 4;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

inline Initializer parse_initializer(std::string_view tensor, std::string& name) {
  Initializer init;
  ProtoReader r(tensor);
  int field = 0, wire = 0;
  while (r.next(field, wire)) {
    if (field == 1 && wire == 0) {
      init.dims.push_back(static_cast<int64_t>(r.varint()));
    } else if (field == 1 && wire == 2) {  // packed dims: varints without keys
      ProtoReader packed(r.bytes());
      while (!packed.at_end()) init.dims.push_back(static_cast<int64_t>(packed.varint()));
    } else if (field == 2 && wire == 0) {
      init.data_type = static_cast<int>(r.varint());
    } else if (field == 8 && wire == 2) {
      name = std::string(r.bytes());
    } else if (field == 9 && wire == 2) {
      init.raw = std::string(r.bytes());
    } else {
      r.skip(wire);
    }
  }
  return init;
}

// Initializers of the model at `path`, by name (ModelProto.graph = 7, GraphProto.initializer = 5).
inline std::map<std::string, Initializer> read_initializers(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string model = text.str();
  std::map<std::string, Initializer> out;
  ProtoReader r(model);
  int field = 0, wire = 0;
  while (r.next(field, wire)) {
    if (field != 7 || wire != 2) {
      r.skip(wire);
      continue;
    }
    ProtoReader graph(r.bytes());
    while (graph.next(field, wire)) {
      if (field != 5 || wire != 2) {
        graph.skip(wire);
        continue;
      }
      std::string name;
      Initializer init = parse_initializer(graph.bytes(), name);
      out[name] = std::move(init);
    }
  }
  return out;
}

}  // namespace parity::backend::testing
