#include "model/smoke_model.h"

#include <onnx/onnx_pb.h>

#include "model/proto_io.h"

namespace parity::model {
namespace {

void add_value_info(onnx::ValueInfoProto* v, const char* name) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(1);
  t->mutable_shape()->add_dim()->set_dim_value(8);
}

void add_initializer(onnx::GraphProto* g, const char* name, float base) {
  auto* init = g->add_initializer();
  init->set_name(name);
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(1);
  init->add_dims(8);
  for (int i = 0; i < 8; ++i) init->add_float_data(base + 0.25f * static_cast<float>(i - 4));
}

onnx::ModelProto smoke_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("parity-smoke");
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("parity_smoke");
  add_value_info(g->add_input(), "x");
  add_value_info(g->add_output(), "y");
  add_initializer(g, "w", 1.0f);
  add_initializer(g, "b", 0.1f);
  auto add_node = [g](const char* op, std::initializer_list<const char*> in, const char* out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(std::string(op) + "_0");
    for (const char* i : in) n->add_input(i);
    n->add_output(out);
  };
  add_node("Mul", {"x", "w"}, "xw");
  add_node("Add", {"xw", "b"}, "pre");
  add_node("Relu", {"pre"}, "y");
  return m;
}

}  // namespace

std::string smoke_model_bytes() { return smoke_model().SerializeAsString(); }

Status write_smoke_model(const std::filesystem::path& path) {
  return detail::save_model(smoke_model(), path);
}

}  // namespace parity::model
