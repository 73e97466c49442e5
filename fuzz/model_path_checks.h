// fuzz/model_path_checks.h: what the model paths of `parity lint`, `parity bisect` and the fp16
// converter guarantee for ANY file: a typed Error or a consistent result, never a crash of Parity
// (ONNX shape inference runs in a guarded child, model/guarded_inference.h). Shared by the
// libFuzzer targets (fuzz_lint_model, fuzz_bisect_model, fuzz_fp16_model) and the replay tests
// (tests/model/fuzz_corpus_test.cpp, tests/lint/fuzz_lint_corpus_test.cpp).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "lint/rules.h"
#include "model/fp16_convert.h"
#include "model/graph_facts.h"
#include "model/model_surgery.h"
#include "model/onnx_model.h"

namespace parity::fuzz {

// The paths read files: one scratch folder per input, removed with it.
class InputFile {
 public:
  explicit InputFile(std::string_view bytes) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "parity-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    std::ofstream(path(), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ~InputFile() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::filesystem::path dir() const { return dir_; }
  std::filesystem::path path() const { return dir_ / "model.onnx"; }

 private:
  std::filesystem::path dir_;
};

// A refusal of the model file must be typed: the model's fault (bad_input), memory (oom), a file
// it names (io), or shape inference dying in its child (crashed); named after the file, one-line hint.
inline std::string check_path_error(const Error& e, const std::filesystem::path& file) {
  if (e.kind != ErrorKind::bad_input && e.kind != ErrorKind::oom && e.kind != ErrorKind::io &&
      e.kind != ErrorKind::crashed)
    return "unexpected kind: " + e.describe();
  if (e.stage != Stage::load_model) return "unexpected stage: " + e.describe();
  if (e.message.rfind(file.string() + ": ", 0) != 0) return "message does not name the file: " + e.message;
  if (e.hint.find('\n') != std::string::npos) return "hint is not one line: " + e.describe();
  return {};
}

// lint's path: the graph facts its static rules read.
inline std::string check_graph_facts(std::string_view data) {
  InputFile in(data);
  const Result<model::GraphFacts> r = model::read_graph_facts(in.path());
  if (!r.ok()) return check_path_error(r.error(), in.path());
  for (const std::string& node : model::constant_nodes(*r)) {
    bool known = false;
    for (const auto& n : r->nodes) known = known || n.name == node;
    if (!known) return "constant_nodes names a node that is not in the graph: " + node;
  }
  return {};
}

// lint's whole static pass: the facts, then every rule's matcher over them.
inline std::string check_lint_model(std::string_view data) {
  InputFile in(data);
  const Result<model::GraphFacts> r = model::read_graph_facts(in.path());
  if (!r.ok()) return check_path_error(r.error(), in.path());
  for (const lint::Rule& rule : lint::rules())
    if (rule.match) (void)rule.match(*r);
  return {};
}

// bisect's path: the outline, a copy exposing every typed value, and a cut of each of the first
// nodes; whatever is written must read back as a model.
inline std::string check_surgery(std::string_view data) {
  InputFile in(data);
  Result<model::ModelSurgery> s = model::ModelSurgery::open(in.path());
  if (!s.ok()) return check_path_error(s.error(), in.path());
  const model::GraphOutline& o = s->outline();
  std::vector<std::string> typed;
  for (const auto& t : o.tensors) {
    if (t.order < 0 || static_cast<std::size_t>(t.order) >= o.nodes.size())
      return "tensor order out of range";
    if (t.dtype != DType::undefined) typed.push_back(t.tensor);
  }
  const auto exposed = in.dir() / "exposed.onnx";
  if (const Status w = s->write_exposed(exposed, typed); w.ok()) {
    if (const auto back = model::inspect_model(exposed); !back.ok())
      return "the exposed model does not read back: " + back.error().describe();
  } else if (w.error().kind != ErrorKind::bad_input && w.error().kind != ErrorKind::io) {
    return "write_exposed: unexpected kind: " + w.error().describe();
  }
  for (int i = 0; i < static_cast<int>(o.nodes.size()) && i < 4; ++i) {
    std::vector<std::string> outputs;
    for (const auto& out : o.nodes[i].outputs)
      if (const auto* t = o.find_tensor(out); t && t->dtype != DType::undefined) outputs.push_back(out);
    if (outputs.empty()) continue;
    const auto cut = in.dir() / "cut.onnx";
    const auto w = s->write_subgraph(cut, {i}, outputs, {});
    if (!w.ok()) {
      if (w.error().kind != ErrorKind::bad_input && w.error().kind != ErrorKind::io)
        return "write_subgraph: unexpected kind: " + w.error().describe();
      continue;
    }
    if (const auto back = model::inspect_model(cut); !back.ok() && back.error().kind != ErrorKind::bad_input)
      return "the cut does not read back: " + back.error().describe();
  }
  return {};
}

// The fp16 converter's path: a typed refusal, or a written model that reads back.
inline std::string check_fp16(std::string_view data) {
  InputFile in(data);
  const auto out = in.dir() / "fp16.onnx";
  const Result<model::Fp16Report> r = model::convert_to_fp16(in.path(), out);
  if (!r.ok()) {
    // internal means the converter produced a graph ONNX rejects: a bug to report, not a crash.
    if (r.error().kind == ErrorKind::internal) return {};
    if (r.error().stage == Stage::write_output) return {};
    return check_path_error(r.error(), in.path());
  }
  if (const auto back = model::inspect_model(out); !back.ok())
    return "the fp16 model does not read back: " + back.error().describe();
  return {};
}

// The replay tests' deterministic damage for these slower paths (each input is a file, and shape
// inference a fork): the seed, every `step`-th prefix and flipped byte, and `splices` random runs.
inline std::vector<std::string> sparse_mutations(const std::string& seed, uint32_t rng_seed,
                                                 std::size_t step = 15, int splices = 16) {
  std::vector<std::string> out{seed};
  for (std::size_t n = 0; n < seed.size(); n += step) out.push_back(seed.substr(0, n));
  for (std::size_t i = rng_seed % step; i < seed.size(); i += step) {
    std::string flipped = seed;
    flipped[i] = static_cast<char>(~flipped[i]);
    out.push_back(std::move(flipped));
  }
  std::mt19937 rng(rng_seed);
  for (int k = 0; k < splices && !seed.empty(); ++k) {
    std::string spliced = seed;
    const std::size_t at = rng() % seed.size();
    for (std::size_t j = at; j < std::min(seed.size(), at + 1 + rng() % 8); ++j)
      spliced[j] = static_cast<char>(rng());
    out.push_back(std::move(spliced));
  }
  return out;
}

// Seeds from tests/models: the crafted files, a clean model, control flow and external data.
inline std::vector<std::string> model_path_seeds(const std::filesystem::path& models) {
  std::vector<std::string> seeds;
  for (const char* name : {"crafted_conv_stride0", "crafted_maxpool_stride0", "crafted_split_no_outputs",
                           "crafted_scan_body_arity", "crafted_function_pool_stride0", "matmul_add_relu",
                           "conv_image", "mixed_types", "external_matmul_add_relu"}) {
    std::ifstream f(models / (std::string(name) + ".onnx"), std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  return seeds;
}

}  // namespace parity::fuzz
