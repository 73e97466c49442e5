// Replays a seed corpus through the fuzz targets' checks (fuzz/fuzz_checks.h), so every build
// exercises the readers on damaged input even without clang and libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../fuzz/fuzz_checks.h"
#include "../../fuzz/model_path_checks.h"
#include "model/tensor_proto.h"
#include "wire_writer.h"

namespace parity::model {
namespace {

namespace fs = std::filesystem;
using testing::WireWriter;
namespace f = testing::field;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Deterministic damage: every prefix, every byte flipped, and 64 random runs spliced in (the model
// paths' sparse_mutations at its densest).
std::vector<std::string> mutations(const std::string& seed, uint32_t rng_seed) {
  return fuzz::sparse_mutations(seed, rng_seed, 1, 64);
}

std::vector<std::string> model_seeds() {
  std::vector<std::string> seeds;
  for (const char* name :
       {"matmul_add_relu.onnx", "unnamed_dims.onnx", "mixed_types.onnx", "not_onnx.onnx", "truncated.onnx"})
    seeds.push_back(read_file(fs::path(PARITY_TEST_MODELS) / name));
  // A hand-built model with control flow, a custom domain and a nested graph attribute.
  WireWriter graph;
  graph.message(f::node, WireWriter().bytes(f::op_type, "If").bytes(f::node_input, "c"));
  graph.message(f::node, WireWriter().bytes(f::op_type, "Gelu").bytes(f::node_domain, "com.microsoft"));
  graph.message(f::output, WireWriter().bytes(f::vi_name, "y"));
  seeds.push_back(WireWriter().varint(f::ir_version, 8).message(f::graph, graph).str());
  seeds.push_back(std::string(100, '\xff'));
  seeds.push_back("\x3a\xff\xff\xff\xff\x0f");  // graph field claiming 4 GiB
  return seeds;
}

std::vector<std::string> tensor_seeds() {
  std::vector<std::string> seeds;
  const float floats[] = {1.0f, -2.0f, 0.5f};
  seeds.push_back(serialize_tensor_proto({"x", Tensor::from_floats({3}, floats)}));
  seeds.push_back(serialize_tensor_proto({"s", Tensor::from_strings({2}, {"ab", "c"})}));
  WireWriter int4;
  int4.packed_varints(f::dims, {3}).varint(f::data_type, 22).packed_varints(f::int32_data, {0xf1, 0x08});
  seeds.push_back(int4.str());
  WireWriter half;
  half.packed_varints(f::dims, {2}).varint(f::data_type, 10).packed_varints(f::int32_data, {0x3c00, 0x7e00});
  seeds.push_back(half.str());
  WireWriter forged;
  forged.packed_varints(f::dims, {int64_t{1} << 40, 3}).varint(f::data_type, 1).bytes(f::raw_data, "abcd");
  seeds.push_back(forged.str());
  const fs::path add = "/usr/share/libonnx-testdata/data/node/test_add/test_data_set_0/input_0.pb";
  if (fs::exists(add)) seeds.push_back(read_file(add));
  return seeds;
}

TEST(FuzzCorpus, ModelReaderKeepsItsContract) {
  std::size_t inputs = 0;
  uint32_t rng_seed = 1;
  for (const std::string& seed : model_seeds()) {
    ASSERT_FALSE(seed.empty());
    for (const std::string& input : mutations(seed, rng_seed++)) {
      const std::string problem = fuzz::check_model_reader(input);
      ASSERT_TRUE(problem.empty()) << problem << " (input of " << input.size() << " bytes)";
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 1000u);
}

TEST(FuzzCorpus, TensorReaderKeepsItsContract) {
  std::size_t inputs = 0;
  uint32_t rng_seed = 100;
  for (const std::string& seed : tensor_seeds()) {
    // Each input under no declared type and under a 16-bit one, as the fuzzer's first byte chooses.
    for (const char selector : {'\xff', static_cast<char>(DType::bfloat16)}) {
      for (const std::string& input : mutations(seed, rng_seed++)) {
        const std::string problem = fuzz::check_tensor_reader(selector + input);
        ASSERT_TRUE(problem.empty()) << problem << " (input of " << input.size() << " bytes)";
        ++inputs;
      }
    }
  }
  EXPECT_GT(inputs, 1000u);
}

// bisect's and the fp16 converter's model paths over the crafted files (tests/models/models_crafted.py)
// and their damaged copies: a typed error or a model that reads back, never a crash of this process.
TEST(FuzzCorpus, SurgeryKeepsItsContract) {
  std::size_t inputs = 0;
  uint32_t rng_seed = 200;
  for (const std::string& seed : fuzz::model_path_seeds(PARITY_TEST_MODELS)) {
    ASSERT_FALSE(seed.empty());
    for (const std::string& input : fuzz::sparse_mutations(seed, rng_seed++)) {
      const std::string problem = fuzz::check_surgery(input);
      ASSERT_TRUE(problem.empty()) << problem << " (input of " << input.size() << " bytes)";
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 300u);
}

TEST(FuzzCorpus, Fp16ConverterKeepsItsContract) {
  std::size_t inputs = 0;
  uint32_t rng_seed = 300;
  for (const std::string& seed : fuzz::model_path_seeds(PARITY_TEST_MODELS)) {
    for (const std::string& input : fuzz::sparse_mutations(seed, rng_seed++)) {
      const std::string problem = fuzz::check_fp16(input);
      ASSERT_TRUE(problem.empty()) << problem << " (input of " << input.size() << " bytes)";
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 300u);
}

}  // namespace
}  // namespace parity::model
