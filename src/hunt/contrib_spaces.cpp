// hunt/contrib_spaces.cpp: spaces over ONNX Runtime's own ops (domain com.microsoft) that the WebGPU
// EP implements for transformer exports (transformers.js, onnxruntime-genai): 4-bit MatMulNBits,
// SkipLayerNormalization and its simplified (RMS) form, the Gelu family and RotaryEmbedding. ONNX's
// checker does not know these schemas, so their outputs are typed by hand and ONNX Runtime's loader
// is the checker; the CPU EP has a kernel for each, so the reference is the same as for ONNX ops.
#include "hunt/contrib_spaces.h"

#include <fmt/format.h>

#include <cmath>

namespace parity::hunt {
namespace {

using model::int_attribute;
using model::OpInput;
using model::OpModel;

constexpr const char* kMsDomain = "com.microsoft";

OpModel contrib_op(const std::string& op_type) {
  OpModel op;
  op.op_type = op_type;
  op.domain = kMsDomain;
  return op;
}

// MatMulNBits: A [M, K] times a 4-bit B stored as [N, K/block, block/2] bytes with a scale per block
// (and optionally packed 4-bit zero points). Decoding (M = 1), tiled and DP4A (accuracy_level 4) are
// separate WebGPU kernels.
OpSpace matmul_nbits() {
  OpSpace s;
  s.name = "MatMulNBits";
  s.op_type = "MatMulNBits";
  // accuracy_level stays 0: at 4 both the CPU and WebGPU quantize A to int8, each its own way, and
  // differ by that rounding (max_abs ~3e-3 at cosine 1.0) with no bug.
  s.summary = "MatMulNBits (com.microsoft, 4-bit weights): M (1 decodes), K, N, block size, zero points";
  s.params = {{"M", "rows of A (1: the decoding kernel)", {1, 2, 3, 4, 8, 16, 17, 33}, 1, 40},
              {"K", "inner size", {16, 32, 48, 64, 96, 128, 256, 512}, 16, 512},
              {"N", "output columns", {1, 2, 3, 4, 8, 16, 17, 32, 33, 64, 65}, 1, 96},
              {"block", "block size", {16, 32, 64, 128}, 16, 128},
              {"zp", "zero points input", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t m = p.at("M"), k = p.at("K"), n = p.at("N"), block = p.at("block");
    if ((block & (block - 1)) != 0) return bad_point("block size not a power of two");
    if (k % block != 0) return bad_point("K not a multiple of the block size");
    const int64_t blocks = k / block;
    OpModel op = contrib_op("MatMulNBits");
    op.inputs.push_back(data("a", {m, k}));
    PARITY_ASSIGN_OR_RETURN(b, weight("b", {n, blocks, block / 2}, seed, 0, 255, DType::uint8));
    op.inputs.push_back(std::move(b));
    // Scales about 1/sqrt(K) / 8 keep the products near 1 (4-bit values are 0..15, centred at 8).
    const double sc = 1.0 / (8.0 * std::sqrt(static_cast<double>(k)));
    PARITY_ASSIGN_OR_RETURN(scales, weight("scales", {n * blocks}, seed, 0.5 * sc, 1.5 * sc));
    op.inputs.push_back(std::move(scales));
    if (p.at("zp")) {
      PARITY_ASSIGN_OR_RETURN(zp,
                              weight("zero_points", {n * ((blocks + 1) / 2)}, seed, 0, 255, DType::uint8));
      op.inputs.push_back(std::move(zp));
    }
    op.attributes = {{"K", int_attribute(k)},
                     {"N", int_attribute(n)},
                     {"bits", int_attribute(4)},
                     {"block_size", int_attribute(block)},
                     {"accuracy_level", int_attribute(0)}};
    op.output_types = {{DType::float32, {m, n}}};
    return op;
  };
  return s;
}

// SkipLayerNormalization and SkipSimplifiedLayerNormalization: LayerNorm (RMSNorm) of input + skip
// (+ bias), hidden size H; the skip may broadcast over the batch.
OpSpace skip_layer_norm() {
  OpSpace s;
  s.name = "SkipLayerNorm";
  s.op_type = "SkipLayerNormalization|SkipSimplifiedLayerNormalization";
  s.summary =
      "SkipLayerNormalization and SkipSimplifiedLayerNormalization (com.microsoft): hidden size, "
      "sequence, batch, beta, bias, a broadcast skip, the input+skip sum output";
  s.params = {{"simplified", "RMS form (no mean, no beta)", kSwitch, 0, 1},
              {"H", "hidden size", {4, 7, 8, 16, 31, 32, 33, 64, 65, 128, 256, 768, 769, 1024}, 4, 1100},
              {"S", "sequence length", {1, 2, 3, 7, 16}, 1, 20},
              {"B", "batch", {1, 2, 3}, 1, 3},
              {"beta", "beta input", kSwitch, 0, 1},
              {"bias", "bias input", kSwitch, 0, 1},
              {"skip2d", "skip is [S, H] (broadcast over the batch)", kSwitch, 0, 1},
              {"sum", "also output input+skip+bias", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t h = p.at("H"), sq = p.at("S"), b = p.at("B");
    const bool simplified = p.at("simplified");
    if (simplified && p.at("beta")) return bad_point("the simplified form has no beta");
    OpModel op = contrib_op(simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization");
    const Shape x{b, sq, h};
    op.inputs.push_back(data("input", x));
    op.inputs.push_back(data("skip", p.at("skip2d") ? Shape{sq, h} : x));
    PARITY_ASSIGN_OR_RETURN(gamma, weight("gamma", {h}, seed, 0.5, 1.5));
    op.inputs.push_back(std::move(gamma));
    if (p.at("beta")) {
      PARITY_ASSIGN_OR_RETURN(beta, weight("beta", {h}, seed));
      op.inputs.push_back(std::move(beta));
    } else if (!simplified && p.at("bias")) {
      op.inputs.push_back({"", DType::float32, {}, std::nullopt, std::nullopt});  // beta left out
    }
    if (p.at("bias")) {
      PARITY_ASSIGN_OR_RETURN(bias, weight("bias", {h}, seed));
      op.inputs.push_back(std::move(bias));
    }
    op.attributes = {{"epsilon", model::float_attribute(1e-5)}};
    op.outputs = {"y"};
    op.output_types = {{DType::float32, x}};
    if (p.at("sum")) {
      // Outputs 1 and 2 (mean, inverse std) are left out by name; output 3 is the sum.
      op.outputs = {"y", "", "", "input_skip_bias_sum"};
      op.output_types = {{DType::float32, x}, {}, {}, {DType::float32, x}};
    }
    return op;
  };
  return s;
}

// Gelu, FastGelu (tanh approximation, optional bias), QuickGelu (x * sigmoid(alpha x)), BiasGelu.
OpSpace gelu_family() {
  static const char* kOps[] = {"Gelu", "FastGelu", "QuickGelu", "BiasGelu"};
  OpSpace s;
  s.name = "Gelu";
  s.op_type = "Gelu|FastGelu|QuickGelu|BiasGelu";
  s.summary =
      "the com.microsoft Gelu family: Gelu, FastGelu (with a bias), QuickGelu (alpha), BiasGelu; "
      "rank, last-axis length, magnitudes";
  s.params = {{"op", "op (0 Gelu, 1 FastGelu, 2 QuickGelu, 3 BiasGelu)", {0, 1, 2, 3}, 0, 3},
              {"R", "rank", {1, 2, 3}, 1, 4},
              {"D", "last-axis length", {1, 3, 4, 5, 8, 16, 31, 32, 33, 64, 128, 129}, 1, 300},
              {"bias", "bias input (FastGelu, BiasGelu)", kSwitch, 0, 1},
              {"scale", "input magnitude, 2^scale", {0, 2, 4}, 0, 4}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t which = p.at("op"), r = p.at("R"), d = p.at("D");
    const bool bias = p.at("bias");
    if (bias && which != 1 && which != 3) return bad_point("only FastGelu and BiasGelu take a bias");
    if (which == 3 && !bias) return bad_point("BiasGelu needs its bias");
    OpModel op = contrib_op(kOps[which]);
    Shape x(static_cast<std::size_t>(r), 3);
    x.back() = d;
    const double mag = std::ldexp(1.0, static_cast<int>(p.at("scale")));
    op.inputs.push_back(data("x", x, DType::float32, std::make_pair(-mag, mag)));
    if (bias) {
      PARITY_ASSIGN_OR_RETURN(b, weight("bias", {d}, seed));
      op.inputs.push_back(std::move(b));
    }
    if (which == 2) op.attributes = {{"alpha", model::float_attribute(1.702)}};
    op.output_types = {{DType::float32, x}};
    return op;
  };
  return s;
}

// RotaryEmbedding: rotates pairs of a [B, S, N*H] (or [B, N, S, H]) input by position, from cos/sin
// caches; interleaved or half-split pairs, partial rotary dimension, position ids per token or one
// offset.
OpSpace rotary_embedding() {
  OpSpace s;
  s.name = "RotaryEmbedding";
  s.op_type = "RotaryEmbedding";
  s.summary =
      "RotaryEmbedding (com.microsoft): head size, heads, sequence, interleaved pairs, partial "
      "rotary dimension, 3-D or 4-D input, position ids or one offset";
  s.params = {{"Hd", "head size", {2, 4, 8, 16, 32, 64, 80, 128}, 2, 128},
              {"N", "heads", {1, 2, 3, 4, 8}, 1, 8},
              {"S", "sequence length", {1, 2, 3, 7, 16, 33}, 1, 40},
              {"B", "batch", {1, 2}, 1, 2},
              {"interleaved", "interleaved pairs (else the two halves)", kSwitch, 0, 1},
              {"partial", "rotary dimension (0: the head size; else this many)", {0, 2, 4, 8, 16, 32}, 0, 64},
              {"rank4", "input [B, N, S, H] (else [B, S, N*H])", kSwitch, 0, 1},
              {"offset", "position ids: one offset (else one per token)", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t hd = p.at("Hd"), n = p.at("N"), sq = p.at("S"), b = p.at("B"), partial = p.at("partial");
    if (hd % 2) return bad_point("odd head size");
    if (partial % 2 || partial > hd) return bad_point("rotary dimension odd or over the head size");
    const int64_t rot = partial ? partial : hd;
    const int64_t max_pos = sq + 8;
    OpModel op = contrib_op("RotaryEmbedding");
    const Shape x = p.at("rank4") ? Shape{b, n, sq, hd} : Shape{b, sq, n * hd};
    op.inputs.push_back(data("input", x));
    if (p.at("offset")) {
      op.inputs.push_back(int64s("position_ids", {3}, Shape{1}));
    } else {
      std::vector<int64_t> ids;
      for (int64_t i = 0; i < b * sq; ++i) ids.push_back((i % sq) + (i / sq) * 2);  // a per-batch offset
      op.inputs.push_back(int64s("position_ids", ids, Shape{b, sq}));
    }
    // Real caches: cos/sin of position * 10000^(-2i/rot), so rotated vectors keep their length.
    std::vector<float> cos_v, sin_v;
    for (int64_t pos = 0; pos < max_pos; ++pos)
      for (int64_t i = 0; i < rot / 2; ++i) {
        const double angle = static_cast<double>(pos) *
                             std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(rot));
        cos_v.push_back(static_cast<float>(std::cos(angle)));
        sin_v.push_back(static_cast<float>(std::sin(angle)));
      }
    const Shape cache{max_pos, rot / 2};
    op.inputs.push_back(
        {"cos_cache", DType::float32, cache, Tensor::from_floats(cache, cos_v), std::nullopt});
    op.inputs.push_back(
        {"sin_cache", DType::float32, cache, Tensor::from_floats(cache, sin_v), std::nullopt});
    // num_heads always: the CPU kernel wants it with a partial rotary dimension, even for 4-D input.
    op.attributes = {{"interleaved", int_attribute(p.at("interleaved"))}, {"num_heads", int_attribute(n)}};
    if (partial) op.attributes.push_back({"rotary_embedding_dim", int_attribute(partial)});
    (void)seed;  // no random weights: the caches are the real ones
    op.output_types = {{DType::float32, x}};
    return op;
  };
  return s;
}

}  // namespace

std::vector<OpSpace> contrib_spaces() {
  return {matmul_nbits(), skip_layer_norm(), gelu_family(), rotary_embedding()};
}

}  // namespace parity::hunt
