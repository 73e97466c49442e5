#include "lint/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace parity::lint {
namespace {

using model::Attribute;
using model::FactNode;
using model::GraphFacts;

int64_t int_attr(const FactNode& n, const std::string& name, int64_t fallback) {
  const auto it = n.attributes.find(name);
  return it != n.attributes.end() && it->second.kind == Attribute::Kind::integer ? it->second.i : fallback;
}

std::vector<int64_t> ints_attr(const FactNode& n, const std::string& name) {
  const auto it = n.attributes.find(name);
  return it != n.attributes.end() && it->second.kind == Attribute::Kind::integers ? it->second.ints
                                                                                  : std::vector<int64_t>{};
}

// Top-level nodes, then those inside If/Loop/Scan bodies: a trap inside control flow is still a trap.
std::vector<std::reference_wrapper<const FactNode>> all_nodes(const GraphFacts& f) {
  std::vector<std::reference_wrapper<const FactNode>> out(f.nodes.begin(), f.nodes.end());
  out.insert(out.end(), f.inner_nodes.begin(), f.inner_nodes.end());
  return out;
}

bool is_op(const FactNode& n, std::string_view op) { return n.domain.empty() && n.op_type == op; }

// The integer values of a constant input ("" or not constant: nullopt).
std::optional<std::vector<int64_t>> constant_ints(const GraphFacts& f, const std::string& value) {
  const Tensor* t = value.empty() ? nullptr : f.constant_value(value);
  if (!t || !dtype_is_integer(t->dtype())) return std::nullopt;
  std::vector<int64_t> out;
  for (double d : t->to_doubles()) out.push_back(static_cast<int64_t>(d));
  return out;
}

std::string joined(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

// --- matchers ----------------------------------------------------------------------------------

std::vector<Match> dq_blocked_1d(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    const int64_t block = int_attr(n, "block_size", 0);
    if (!is_op(n, "DequantizeLinear") || block <= 0) continue;
    const auto shape = f.shape_of(n.input(0));
    if (!shape || shape->size() != 1) continue;
    const auto scale = f.shape_of(n.input(1));
    out.push_back({{n.name},
                   fmt::format("block_size {} over {} elements ({} scales)", block, (*shape)[0],
                               scale && !scale->empty() ? std::to_string((*scale)[0]) : "?")});
  }
  return out;
}

// Slices with a constant negative step. `start_minus_one_ok`: the WebGPU EP starts such a slice at
// dim-1 whatever `starts` says, so a start of -1 (or at/after the end) is right there by luck; JSEP
// returns one element too few whatever the start (Silero v4's Slice_130 starts at -1).
std::vector<Match> negative_step_slices(const GraphFacts& f, bool start_minus_one_ok) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!is_op(n, "Slice") || n.inputs.size() < 5) continue;  // steps are an input from opset 10
    const auto steps = constant_ints(f, n.input(4));
    if (!steps || std::none_of(steps->begin(), steps->end(), [](int64_t s) { return s < 0; })) continue;
    const auto starts = constant_ints(f, n.input(1));
    const auto axes = constant_ints(f, n.input(3));
    const auto shape = f.shape_of(n.input(0));
    std::string why;
    for (std::size_t k = 0; k < steps->size(); ++k) {
      if ((*steps)[k] >= 0) continue;
      const int64_t rank = shape ? static_cast<int64_t>(shape->size()) : -1;
      int64_t axis = axes && k < axes->size() ? (*axes)[k] : static_cast<int64_t>(k);
      if (axis < 0 && rank > 0) axis += rank;
      const int64_t dim = shape && axis >= 0 && axis < rank ? (*shape)[static_cast<std::size_t>(axis)] : -1;
      if (!starts || k >= starts->size()) {
        why = fmt::format("step {} on axis {} from a start only known at run time", (*steps)[k], axis);
        break;
      }
      const int64_t start = (*starts)[k];
      if (start_minus_one_ok && (start == -1 || (dim > 0 && start >= dim - 1))) continue;
      why = fmt::format("step {} on axis {} from start {}{}", (*steps)[k], axis, start,
                        dim > 0 ? fmt::format(" (dim {})", dim) : "");
      break;
    }
    if (!why.empty()) out.push_back({{n.name}, why});
  }
  return out;
}

std::vector<Match> slice_negative_step(const GraphFacts& f) { return negative_step_slices(f, true); }
std::vector<Match> slice_negative_step_jsep(const GraphFacts& f) { return negative_step_slices(f, false); }

// Found by parity hunt (docs/hunt.md): after a Conv, an activation and then a second one from
// these pairs come out wrong on the WebGPU EP, while the Conv with one activation is right.
std::vector<Match> conv_two_activations(const GraphFacts& f) {
  static const std::set<std::pair<std::string_view, std::string_view>> kFailing = {
      {"Relu", "Sigmoid"},  {"Relu", "Tanh"},       {"Relu", "HardSwish"},    {"Relu", "Erf"},
      {"Sigmoid", "Relu"},  {"Sigmoid", "Sigmoid"}, {"Sigmoid", "LeakyRelu"}, {"Tanh", "Relu"},
      {"Tanh", "Sigmoid"},  {"Tanh", "LeakyRelu"},  {"Erf", "Relu"},          {"Erf", "Sigmoid"},
      {"Erf", "LeakyRelu"}, {"HardSwish", "Relu"},  {"HardSwish", "Sigmoid"}};
  std::vector<Match> out;
  for (const FactNode& second : all_nodes(f)) {
    if (second.inputs.empty()) continue;
    const FactNode* first = f.producer(second.input(0));
    if (!first || first->inputs.empty() || !kFailing.count({first->op_type, second.op_type})) continue;
    const FactNode* conv = f.producer(first->input(0));
    if (!conv || !is_op(*conv, "Conv")) continue;
    out.push_back({{conv->name, first->name, second.name},
                   fmt::format("Conv {} -> {} -> {}", conv->name, first->op_type, second.op_type)});
  }
  return out;
}

bool is_ms_op(const FactNode& n, std::string_view op) {
  return n.domain == "com.microsoft" && n.op_type == op;
}

// Found by parity hunt on onnxruntime-web's JSEP path (docs/hunt.md): 4-bit MatMulNBits with blocks of
// 64 or more values is wrong there (16 and 32 are right).
std::vector<Match> matmulnbits_large_block(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    const int64_t block = int_attr(n, "block_size", 0);
    if (is_ms_op(n, "MatMulNBits") && block >= 64)
      out.push_back({{n.name},
                     fmt::format("MatMulNBits with block_size {} ({} bits, K {}, N {})", block,
                                 int_attr(n, "bits", 4), int_attr(n, "K", 0), int_attr(n, "N", 0))});
  }
  return out;
}

std::vector<Match> cumsum_reverse(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f))
    if (is_op(n, "CumSum") && int_attr(n, "reverse", 0) == 1)
      out.push_back(
          {{n.name},
           fmt::format("CumSum with reverse=1{}", int_attr(n, "exclusive", 0) ? " (exclusive)" : "")});
  return out;
}

// SkipLayerNormalization's inputs: input, skip, gamma, beta, bias.
std::vector<Match> skiplayernorm_bias_without_beta(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f))
    if (is_ms_op(n, "SkipLayerNormalization") && n.input(3).empty() && !n.input(4).empty())
      out.push_back({{n.name}, "SkipLayerNormalization with a bias and no beta"});
  return out;
}

std::vector<Match> skiplayernorm_broadcast_skip(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!is_ms_op(n, "SkipLayerNormalization") && !is_ms_op(n, "SkipSimplifiedLayerNormalization")) continue;
    const auto input = f.shape_of(n.input(0));
    const auto skip = f.shape_of(n.input(1));
    if (!input || !skip || skip->size() >= input->size()) continue;
    // Batch 1 is right: a known batch of 1 is no trap.
    if (!input->empty() && (*input)[0] == 1) continue;
    out.push_back(
        {{n.name},
         fmt::format("{} with skip {} broadcast over input {}", n.op_type, joined(*skip), joined(*input))});
  }
  return out;
}

std::vector<Match> conv_no_kernel_shape(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f))
    if (is_op(n, "Conv") && !n.has("kernel_shape")) {
      const auto w = f.shape_of(n.input(1));
      out.push_back({{n.name},
                     w && w->size() > 2 ? fmt::format("weight {} implies kernel_shape {}", joined(*w),
                                                      joined({w->begin() + 2, w->end()}))
                                        : "kernel_shape omitted"});
    }
  return out;
}

std::vector<Match> maxpool_dilations(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    const auto d = ints_attr(n, "dilations");
    if (is_op(n, "MaxPool") && std::any_of(d.begin(), d.end(), [](int64_t v) { return v != 1; }))
      out.push_back({{n.name}, "dilations " + joined(d)});
  }
  return out;
}

std::vector<Match> pool_ceil_mode(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!(is_op(n, "MaxPool") || is_op(n, "AveragePool")) || int_attr(n, "ceil_mode", 0) == 0) continue;
    out.push_back(
        {{n.name},
         fmt::format("{} with ceil_mode 1, kernel {}", n.op_type, joined(ints_attr(n, "kernel_shape")))});
  }
  return out;
}

std::vector<Match> convtranspose_3d(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!is_op(n, "ConvTranspose")) continue;
    const auto w = f.shape_of(n.input(1));
    if (w && w->size() == 5)
      out.push_back({{n.name}, "weight " + joined(*w) + ": a 3-D transposed convolution"});
  }
  return out;
}

// Found by parity hunt (docs/hunt.md): a grouped ConvTranspose with one output channel per group is
// wrong on the WebGPU EP when each group has an even number of input channels (2, 4, 6, 8 fail; 1,
// 3, 5, 7 pass; two or more outputs per group pass).
std::vector<Match> convtranspose_grouped(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    const int64_t group = int_attr(n, "group", 1);
    if (!is_op(n, "ConvTranspose") || group <= 1) continue;
    const auto w = f.shape_of(n.input(1));  // [C, M / group, k...]
    if (!w || w->size() < 3 || (*w)[1] != 1 || (*w)[0] % group != 0) continue;
    const int64_t per_group = (*w)[0] / group;
    if (per_group % 2 == 0)
      out.push_back({{n.name},
                     fmt::format("group {}, {} input channels and 1 output channel per group (weight {})",
                                 group, per_group, joined(*w))});
  }
  return out;
}

// Found by parity hunt and scanned with --point (docs/hunt.md): a Conv with an even group count
// and more than 4 output channels per group, not a multiple of 4, is wrong on the WebGPU EP (G=2, 4:
// M/G = 5, 6, 7, 9, ... fail; M/G <= 4 and 8, 12, 16 pass; G=3 passed every M/G tried).
std::vector<Match> conv_grouped(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    const int64_t group = int_attr(n, "group", 1);
    if (!is_op(n, "Conv") || group <= 1 || group % 2 != 0) continue;
    const auto w = f.shape_of(n.input(1));  // [M, C / group, k...]
    if (!w || w->size() < 3 || (*w)[0] % group != 0) continue;
    const int64_t per_group = (*w)[0] / group;
    if (per_group > 4 && per_group % 4 != 0)
      out.push_back(
          {{n.name},
           fmt::format("group {}, {} output channels per group (weight {})", group, per_group, joined(*w))});
  }
  return out;
}

std::vector<Match> maxpool_indices(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f))
    if (is_op(n, "MaxPool") && n.outputs.size() > 1 && !n.outputs[1].empty())
      out.push_back({{n.name}, "the Indices output '" + n.outputs[1] + "' is used"});
  return out;
}

std::vector<Match> dft_accuracy(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f))
    if (is_op(n, "DFT")) out.push_back({{n.name}, "DFT"});
  return out;
}

std::vector<Match> dq_uint8_zero_point(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!is_op(n, "DequantizeLinear") || n.input(2).empty() || f.type_of(n.input(2)) != DType::uint8)
      continue;
    const Tensor* zp = f.constant_value(n.input(2));
    const auto values = zp ? zp->to_doubles() : std::vector<double>{};
    // A zero point of 0 cannot wrap x - zero_point.
    if (zp && std::all_of(values.begin(), values.end(), [](double v) { return v == 0; })) continue;
    out.push_back(
        {{n.name},
         zp && values.size() == 1 ? fmt::format("uint8 zero point {}", values[0]) : "uint8 zero point"});
  }
  return out;
}

// One scale for the whole tensor over an input whose first dim may be above 1: JSEP indexes the
// scale by row (docs/findings/web-jsep-dq-per-tensor-scale). Rank 1 and a first dim of 1 are right.
std::vector<Match> dq_per_tensor_scale(const GraphFacts& f) {
  std::vector<Match> out;
  for (const FactNode& n : all_nodes(f)) {
    if (!is_op(n, "DequantizeLinear") || n.input(1).empty()) continue;
    const auto scale = f.shape_of(n.input(1));
    if (!scale || shape_numel(*scale) != 1) continue;
    const auto x = f.shape_of(n.input(0));
    if (x && (x->size() < 2 || (*x)[0] == 1)) continue;
    out.push_back({{n.name},
                   x ? fmt::format("one scale over a {} input", shape_to_string(*x))
                     : "one scale over an input of unknown shape"});
  }
  return out;
}

std::vector<Match> fp16_needs_shader_f16(const GraphFacts& f) {
  std::vector<std::string> nodes;
  std::size_t count = 0;
  for (const FactNode& n : all_nodes(f))
    if (std::any_of(n.outputs.begin(), n.outputs.end(),
                    [&](const auto& o) { return f.type_of(o) == DType::float16; }))
      if (++count <= 3) nodes.push_back(n.name);
  if (count == 0) return {};
  return {{nodes, fmt::format("{} nodes compute float16 values", count)}};
}

// Ops that only move or reshape data: ORT's CPU EP has them for every type, so a constant island
// of these folds whatever its element type.
bool moves_data_only(const FactNode& n) {
  static const std::set<std::string> kOps{"Reshape", "Transpose", "Unsqueeze", "Squeeze", "Concat",
                                          "Slice",   "Gather",    "Identity",  "Cast",    "Expand",
                                          "Flatten", "Shape",     "Split",     "Constant"};
  return n.domain.empty() && kOps.count(n.op_type) > 0;
}

std::vector<Match> fp16_constant_island(const GraphFacts& f) {
  const std::set<std::string> constant = model::constant_nodes(f);
  std::vector<Match> out;
  for (const auto& n : f.nodes) {
    if (!constant.count(n.name) || moves_data_only(n)) continue;
    const DType t = n.outputs.empty() ? DType::undefined : f.type_of(n.outputs[0]);
    if (t == DType::float16 || t == DType::bfloat16)
      out.push_back({{n.name}, fmt::format("{} over constants only, in {}", n.op_type, dtype_name(t))});
  }
  return out;
}

std::vector<Match> unsorted_graph(const GraphFacts& f) {
  if (!f.first_out_of_order) return {};
  const FactNode& n = f.nodes[*f.first_out_of_order];
  const FactNode* producer = f.producer(f.out_of_order_value);
  return {{{n.name},
           fmt::format("node {} reads '{}' before node {} makes it", n.index, f.out_of_order_value,
                       producer ? std::to_string(producer->index) : "?")}};
}

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "error";
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules{
      {"dq-blocked-1d",
       Severity::error,
       "blocked 1-D DequantizeLinear",
       {"webgpu", "web-webgpu", "web-jsep"},
       "both WebGPU paths scale element i by scale[i] instead of scale[i / block_size] (then 0 or the last "
       "scale past the end): a quantized bias comes out wrong without an error",
       "--fix dq-blocked-1d expands scale and zero point per element (per-axis, no block_size), a path the "
       "kernel gets right",
       "webgpu-dq-blocked-1d",
       dq_blocked_1d},
      {"slice-negative-step",
       Severity::error,
       "Slice with a negative step",
       {"webgpu", "web-webgpu"},
       "the WebGPU EP starts a negative-step slice at the last element whatever `starts` says: x[:, 7::-1] "
       "returns x[:, 9::-1]; a start of -1 is right by luck (JSEP: slice-negative-step-jsep)",
       "--fix slice-negative-step slices forward to the start first, then reverses from -1 (WebGPU EP paths)",
       "webgpu-slice-negative-step",
       slice_negative_step},
      {"slice-negative-step-jsep",
       Severity::error,
       "Slice with a negative step (JSEP)",
       {"web-jsep"},
       "onnxruntime-web's JSEP Slice returns one element too few along a negative-step axis, whatever the "
       "start (x[:, ::-1] of 12 gives 11), 1.22.0 and 1.30.0; Silero v4's Slice_130 is one",
       "use web-webgpu or web-wasm, or reverse the axis another way (a Gather with reversed indices)",
       "webgpu-slice-negative-step",
       slice_negative_step_jsep},
      {"conv-two-activations",
       Severity::error,
       "Conv followed by two activations",
       {"webgpu", "web-webgpu", "web-jsep"},
       "a Conv followed by Relu and then Sigmoid, Tanh, HardSwish or Erf (or by Sigmoid, Tanh or Erf and "
       "then Relu, Sigmoid or LeakyRelu, or by HardSwish and then Relu or Sigmoid) comes out wrong on every "
       "WebGPU path (native 1.30.0, onnxruntime-web "
       "1.22.0 "
       "and 1.30.0, JSEP too; cosine 0.3-0.8), even a 1x1 Conv of one channel; the same Conv with one "
       "activation is right. Found by parity hunt",
       "run the two activations on another backend, or check the output with parity probe before trusting it",
       "webgpu-conv-two-activations",
       conv_two_activations},
      {"matmulnbits-large-block",
       Severity::error,
       "MatMulNBits with block_size 64 or more",
       {"web-jsep"},
       "onnxruntime-web's JSEP path computes 4-bit MatMulNBits wrong for blocks of 64 and 128 values "
       "(max_abs "
       "~0.25 on outputs ~0.3; 16 and 32 are right), 1.22.0 and 1.30.0; GPTQ/AWQ-style int4 exports use 128. "
       "Found by parity hunt",
       "use web-webgpu (onnxruntime-web/webgpu, the native WebGPU EP is right) or web-wasm, or requantize "
       "with block_size 32",
       "web-jsep-matmulnbits-block-64",
       matmulnbits_large_block},
      {"cumsum-reverse",
       Severity::error,
       "CumSum with reverse=1",
       {"web-jsep"},
       "JSEP's reverse CumSum shader does not compile (\"cannot initialize 'let' of type 'i32' with value "
       "of type 'u32'\"), 1.22.0 and 1.30.0: the session fails at run. Found by parity hunt",
       "use web-webgpu or web-wasm, or flip the axis with Slice (step -1), CumSum forward and flip back",
       "web-jsep-cumsum-rev-1",
       cumsum_reverse},
      {"skiplayernorm-bias-without-beta",
       Severity::error,
       "SkipLayerNormalization with a bias and no beta",
       {"web-jsep"},
       "JSEP's SkipLayerNormalization fails (\"Beta must be 1D\") when the optional beta is left out and "
       "the bias given, 1.22.0 and 1.30.0. Found by parity hunt",
       "give a beta of zeros, or use web-webgpu or web-wasm",
       "web-jsep-skiplayernorm-beta-0-bias-1",
       skiplayernorm_bias_without_beta},
      {"skiplayernorm-broadcast-skip",
       Severity::error,
       "SkipLayerNormalization with a skip broadcast over the batch",
       {"web-jsep"},
       "with a skip of shape [S, H] and a batch above 1, JSEP's SkipLayerNormalization is wrong (cosine "
       "~0.97), 1.22.0 and 1.30.0; batch 1 and a [B, S, H] skip are right. Found by parity hunt",
       "expand the skip to [B, S, H] (Expand before the node), or use web-webgpu or web-wasm",
       "web-jsep-skiplayernorm-b-2-bias-0-skip2d-1",
       skiplayernorm_broadcast_skip},
      {"conv-no-kernel-shape",
       Severity::error,
       "Conv without kernel_shape",
       {"web-jsep", "web-webgpu"},
       "JSEP's Conv fails when the optional kernel_shape is omitted (\"dilations should be 2D\"); exporters "
       "usually write it, hand-built and converted graphs often do not",
       "--fix conv-no-kernel-shape writes the kernel_shape the weight implies",
       "web-jsep-conv-no-kernel-shape",
       conv_no_kernel_shape},
      {"maxpool-dilations",
       Severity::error,
       "MaxPool with dilations",
       {"web-jsep", "web-webgpu"},
       "JSEP's MaxPool ignores dilations and returns the undilated maximum, silently",
       "use web-webgpu from onnxruntime-web 1.30 (the native WebGPU EP is right), or web-wasm",
       "web-jsep-test_maxpool_2d_dilations",
       maxpool_dilations},
      {"pool-ceil-mode",
       Severity::error,
       "pooling with ceil_mode",
       {"web-jsep", "web-webgpu"},
       "JSEP refuses it at run: \"ceil_mode kernel execution (padding) is not yet implemented in the WebGPU "
       "MaxPool kernel\" (1.30.0; 1.22.0: \"using ceil() in shape computation is not yet supported\"); the "
       "ISNet background-removal models are such networks",
       "use web-webgpu from onnxruntime-web 1.30 or web-wasm, or pad explicitly and use ceil_mode 0",
       "web-jsep-maxpool-ceil-mode",
       pool_ceil_mode},
      {"dq-uint8-zero-point",
       Severity::error,
       "DequantizeLinear with a uint8 zero point",
       {"web-jsep", "web-webgpu"},
       "JSEP computes x - zero_point in unsigned 32-bit arithmetic for a uint8 zero point above 0: every x "
       "below the zero point wraps (-256 comes back as 8.59e9), silently, per-tensor and per-column alike; "
       "a uint8 zero point of 0 and int8 zero points are right",
       "use web-webgpu from onnxruntime-web 1.30 or web-wasm, or requantize to int8 (x - 128 and zero point "
       "- 128: the same numbers) with one scale per output column; measured right on JSEP at opsets 13, 19 "
       "and 21 (docs/findings/web-jsep-dq-per-tensor-scale). int8 with one scale for the whole tensor is "
       "still wrong there (dq-per-tensor-scale)",
       "web-jsep-test_dequantizelinear",
       dq_uint8_zero_point},
      {"dq-per-tensor-scale",
       Severity::error,
       "DequantizeLinear with one scale for a tensor of rank 2 or more",
       {"web-jsep", "web-webgpu"},
       "JSEP reads a per-tensor scale as if it held one value per row: every row past the first takes "
       "whatever lies past the scale (max_abs 7 to 52 on weight-only QDQ MatMuls, int8 or uint8, any zero "
       "point, opsets 13 to 21; transformers.js' q8 and ORT's default weight-only quantization write this "
       "layout). Found by parity hunt and a 66-case scan",
       "--fix dq-per-tensor-scale repeats the scale (and zero point) per row on axis 0: the same numbers "
       "through JSEP's per-axis path (a weight-only q8 MatMul of real weights: mismatch -> ok on web-jsep); "
       "or use web-webgpu from onnxruntime-web 1.30 or web-wasm",
       "web-jsep-dq-per-tensor-scale",
       dq_per_tensor_scale},
      {"convtranspose-3d",
       Severity::error,
       "3-D ConvTranspose",
       {"webgpu", "web-webgpu", "web-jsep"},
       "the WebGPU EP claims the node at partitioning, then fails at run (\"Only Conv2d or Conv1d are "
       "supported\"; JSEP: \"currently only support 2-dimensional conv\"), so CPU fallback cannot help",
       "run the model on another EP, or export the 3-D transposed convolution as a Conv over an upsampled "
       "input",
       "webgpu-test_convtranspose_3d",
       convtranspose_3d},
      {"conv-grouped",
       Severity::error,
       "grouped Conv with more than 4 output channels per group",
       {"webgpu", "web-webgpu", "web-jsep"},
       "with an even group count and an output-channel count per group above 4 and not a multiple of 4, "
       "some output channels come out wrong on every WebGPU path (cosine 0.94-0.996), onnxruntime-web "
       "1.22.0 too; depthwise convolutions (one output per group) and multipliers of 8 are right. Found "
       "by parity hunt",
       "run the node on another EP, or pad the output channels per group to a multiple of 4 and slice them "
       "off after",
       "webgpu-conv-grouped",
       conv_grouped},
      {"convtranspose-grouped",
       Severity::error,
       "grouped ConvTranspose with one output channel per group",
       {"webgpu", "web-webgpu"},
       "the WebGPU EP computes a grouped ConvTranspose wrong when each group has one output channel and an "
       "even number of input channels (cosine ~0.4, even with a 1x1 kernel); a regression since "
       "onnxruntime-web 1.22.0, JSEP is right. Found by parity hunt",
       "run the node on another EP, or split it into per-group ConvTransposes and a Concat",
       "webgpu-convtranspose-grouped",
       convtranspose_grouped},
      {"maxpool-indices",
       Severity::error,
       "MaxPool with its Indices output",
       {"webgpu", "web-webgpu", "web-jsep"},
       "the WebGPU EP claims the node, then fails at run (\"The Indices output is not supported yet\"; JSEP: "
       "\"Unsupported OrtValue type\")",
       "run the model on another EP, or compute the argmax apart from the pooling",
       "webgpu-test_maxpool_with_argmax_2d_precomputed_pads",
       maxpool_indices},
      {"dft-accuracy",
       Severity::warning,
       "DFT on the WebGPU EP",
       {"webgpu", "web-webgpu"},
       "the WebGPU EP's DFT is about 40x less accurate than the CPU EP's (max_abs 0.013 against 3.4e-4 on "
       "ONNX's test_dft): within a loose tolerance, beyond ONNX's own",
       "judge outputs after a DFT with a tolerance that allows it, or run the DFT on the CPU",
       "webgpu-test_dft",
       dft_accuracy},
      {"fp16-needs-shader-f16",
       Severity::warning,
       "float16 compute needs the shader-f16 feature",
       {"webgpu", "web-webgpu", "web-jsep"},
       "on an adapter without shader-f16 (SwiftShader, some GPUs) the native EP refuses the model, and JSEP "
       "returns all zeros without an error",
       "ship an fp32 variant for such adapters (parity sweep finds which), and let the guard check the "
       "feature",
       "",
       fp16_needs_shader_f16},
      {"fp16-constant-island",
       Severity::warning,
       "float16 arithmetic over constants only",
       {},
       "ORT folds constants with CPU kernels; the CPU EP has few float16 ones, so such an island is not "
       "folded "
       "and runs on the target at every call (the first seed's colouriser: a float16 MatMul left by "
       "spectral_norm, after which a later kernel failed on the wrong node)",
       "--fix fp16-constant-island folds the island on the reference into an initializer",
       "",
       fp16_constant_island},
      {"unsorted-graph",
       Severity::warning,
       "nodes not in topological order",
       {},
       "ONNX's checker and tools built on it (onnx.utils.extract_model, converters) refuse the file; ORT "
       "sorts "
       "it itself (the ISNet fp16 file of @imgly/background-removal is such a file)",
       "--fix unsorted-graph writes the nodes in topological order",
       "",
       unsorted_graph},
      {"opset-too-new",
       Severity::error,
       "opset or IR version newer than the runtime",
       {},
       "the runtime refuses to load the model",
       "export at an opset the runtime supports, or upgrade it",
       "",
       nullptr},
      {"ep-cpu-fallback",
       Severity::warning,
       "nodes the EP does not take",
       {},
       "a real session placed them on the CPU: each one is a device round trip, and the GPU path is not "
       "what runs them",
       "check the EP's operator list; a different export of these ops may stay on the device",
       "",
       nullptr},
  };
  return kRules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& r : rules())
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace parity::lint
