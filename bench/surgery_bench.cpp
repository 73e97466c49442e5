// bench/surgery_bench.cpp: what bisect's model surgery costs on a network the size of ViT-B/16
// (330 MB of weights): the exposed copy each round writes (every intermediate an output) and the
// one-node model isolation writes. Both should cost about one write of what they hold, not a copy
// of every weight first.
//
//   build/bin/surgery_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model/model_surgery.h"

namespace parity {
namespace {

namespace fs = std::filesystem;

constexpr int kLayers = 20;
constexpr int kWidth = 2048;  // 16 MiB of float32 weights a layer, 320 MiB in all

// x -> (MatMul W_i -> Relu) x kLayers -> y, written once to a temporary file.
struct LargeModel {
  fs::path dir = fs::temp_directory_path() / ("parity-surgery-bench-" + std::to_string(::getpid()));
  fs::path path = dir / "large.onnx";
  std::vector<std::string> intermediates;
  LargeModel() {
    fs::create_directories(dir);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    onnx::GraphProto& g = *m.mutable_graph();
    g.set_name("large");
    auto typed = [](onnx::ValueInfoProto* v, const std::string& name) {
      v->set_name(name);
      auto* t = v->mutable_type()->mutable_tensor_type();
      t->set_elem_type(onnx::TensorProto::FLOAT);
      t->mutable_shape()->add_dim()->set_dim_value(1);
      t->mutable_shape()->add_dim()->set_dim_value(kWidth);
    };
    typed(g.add_input(), "x");
    std::string prev = "x";
    const std::string weights(std::size_t{kWidth} * kWidth * 4, '\1');
    for (int i = 0; i < kLayers; ++i) {
      const std::string w = "w" + std::to_string(i), mm = "mm" + std::to_string(i),
                        r = "r" + std::to_string(i);
      auto* init = g.add_initializer();
      init->set_name(w);
      init->set_data_type(onnx::TensorProto::FLOAT);
      init->add_dims(kWidth);
      init->add_dims(kWidth);
      init->set_raw_data(weights);
      auto* n = g.add_node();
      n->set_op_type("MatMul");
      n->set_name(mm);
      n->add_input(prev);
      n->add_input(w);
      n->add_output(mm);
      auto* relu = g.add_node();
      relu->set_op_type("Relu");
      relu->set_name(r);
      relu->add_input(mm);
      relu->add_output(r);
      intermediates.push_back(mm);
      intermediates.push_back(r);
      prev = r;
    }
    typed(g.add_output(), prev);
    std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  }
  ~LargeModel() { fs::remove_all(dir); }
};

const LargeModel& large() {
  static const LargeModel m;
  return m;
}

const model::ModelSurgery& surgery() {
  static const model::ModelSurgery s = model::ModelSurgery::open(large().path).value();
  return s;
}

void BM_Surgery_WriteExposed(benchmark::State& state) {
  const auto& s = surgery();
  for (auto _ : state)
    if (!s.write_exposed(large().dir / "exposed.onnx", large().intermediates).ok())
      state.SkipWithError("write");
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(fs::file_size(large().dir / "exposed.onnx")));
}
BENCHMARK(BM_Surgery_WriteExposed)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Surgery_WriteOneNode(benchmark::State& state) {
  const auto& s = surgery();
  const int relu = s.outline().producer_of("r10");
  for (auto _ : state)
    if (!s.write_subgraph(large().dir / "one.onnx", {relu}, {"r10"}, {}).ok()) state.SkipWithError("write");
}
BENCHMARK(BM_Surgery_WriteOneNode)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace parity
