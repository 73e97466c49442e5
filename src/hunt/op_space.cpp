#include "hunt/op_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "hunt/contrib_spaces.h"
#include "hunt/random_graph.h"
#include "probe/input_plan.h"

namespace parity::hunt {
namespace {

using model::OpInput;
using model::OpModel;

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();  // "to the end", as exporters write it

// Sizes where kernels change path: 1, powers of two and their neighbours, vector widths (4), the
// common workgroup sizes (64, 128, 256).
const std::vector<int64_t> kSizes = {1,  2,  3,  4,  5,  7,  8,  9,   15,  16,
                                     17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
const std::vector<int64_t> kChannels = {1,  2,  3,  4,  7,  8,   9,   15,  16,  17,  31,  32,
                                        33, 63, 64, 65, 96, 127, 128, 129, 192, 255, 256, 257};
const std::vector<int64_t> kSmall = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17};

int64_t at(const Point& p, const std::string& name) {
  auto it = p.find(name);
  return it == p.end() ? 0 : it->second;
}

int64_t conv_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

// --- the spaces ----------------------------------------------------------------------------------

OpSpace conv(int rank) {
  OpSpace s;
  s.name = rank == 1 ? "Conv1D" : "Conv2D";
  s.op_type = "Conv";
  s.summary =
      fmt::format("{}-D convolution: channels, length, kernel, pads, strides, dilations, groups, bias", rank);
  const std::vector<int64_t>& lengths = rank == 1 ? kSizes : kSmall;
  s.params = {{"N", "batch", {1, 2}, 1, 3},
              {"C", "input channels", kChannels, 1, 257},
              {"M", "output channels", kChannels, 1, 257},
              {"L", "spatial length", lengths, 1, rank == 1 ? 129 : 17},
              {"K", "kernel size", {1, 2, 3, 4, 5, 7}, 1, 7},
              {"pad", "padding", {0, 1, 2, 3}, 0, 3},
              {"stride", "stride", {1, 2, 3}, 1, 4},
              {"dil", "dilation", {1, 2, 3}, 1, 3},
              {"G", "groups", {1, 2, 3, 4}, 1, 4},
              {"bias", "bias input", kSwitch, 0, 1}};
  s.build = [rank](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t c = at(p, "C"), m = at(p, "M"), l = at(p, "L"), k = at(p, "K"), g = at(p, "G");
    const int64_t pad = at(p, "pad"), stride = at(p, "stride"), dil = at(p, "dil");
    if (c % g || m % g) return bad_point("channels not divisible by groups");
    if (conv_out(l, k, pad, stride, dil) < 1) return bad_point("kernel larger than the padded input");
    Shape x{at(p, "N"), c}, w{m, c / g};
    for (int i = 0; i < rank; ++i) x.push_back(l), w.push_back(k);
    OpModel op;
    op.op_type = "Conv";
    op.inputs.push_back(data("x", x));
    PARITY_ASSIGN_OR_RETURN(wi, weight("w", w, seed, -0.5, 0.5));
    op.inputs.push_back(std::move(wi));
    if (at(p, "bias")) {
      PARITY_ASSIGN_OR_RETURN(b, weight("b", {m}, seed));
      op.inputs.push_back(std::move(b));
    }
    op.attributes = {{"kernel_shape", model::ints_attribute(std::vector<int64_t>(rank, k))},
                     {"pads", model::ints_attribute(std::vector<int64_t>(2 * rank, pad))},
                     {"strides", model::ints_attribute(std::vector<int64_t>(rank, stride))},
                     {"dilations", model::ints_attribute(std::vector<int64_t>(rank, dil))},
                     {"group", model::int_attribute(g)}};
    return op;
  };
  return s;
}

OpSpace conv_transpose_1d() {
  OpSpace s;
  s.name = "ConvTranspose1D";
  s.op_type = "ConvTranspose";
  s.summary = "1-D transposed convolution: channels, length, kernel, stride, pads, output padding, groups";
  s.params = {{"C", "input channels", kChannels, 1, 257},
              {"M", "output channels", kChannels, 1, 257},
              {"L", "length", kSizes, 1, 129},
              {"K", "kernel size", {1, 2, 3, 4, 5, 7}, 1, 7},
              {"pad", "padding", {0, 1, 2}, 0, 3},
              {"stride", "stride", {1, 2, 3, 4}, 1, 4},
              {"opad", "output padding", {0, 1}, 0, 1},
              {"dil", "dilation", {1, 2}, 1, 3},
              {"G", "groups", {1, 2, 4}, 1, 4}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t c = at(p, "C"), m = at(p, "M"), l = at(p, "L"), k = at(p, "K"), g = at(p, "G");
    const int64_t pad = at(p, "pad"), stride = at(p, "stride"), opad = at(p, "opad"), dil = at(p, "dil");
    if (c % g || m % g) return bad_point("channels not divisible by groups");
    if (opad >= stride && opad >= dil) return bad_point("output padding not below stride or dilation");
    if (stride * (l - 1) + opad + (k - 1) * dil + 1 - 2 * pad < 1) return bad_point("empty output");
    OpModel op;
    op.op_type = "ConvTranspose";
    op.inputs.push_back(data("x", {1, c, l}));
    PARITY_ASSIGN_OR_RETURN(wi, weight("w", {c, m / g, k}, seed, -0.5, 0.5));
    op.inputs.push_back(std::move(wi));
    op.attributes = {
        {"kernel_shape", model::ints_attribute({k})}, {"pads", model::ints_attribute({pad, pad})},
        {"strides", model::ints_attribute({stride})}, {"dilations", model::ints_attribute({dil})},
        {"group", model::int_attribute(g)},           {"output_padding", model::ints_attribute({opad})}};
    return op;
  };
  return s;
}

OpSpace slice() {
  OpSpace s;
  s.name = "Slice";
  s.op_type = "Slice";
  s.summary = "Slice on one axis: rank, length, start, end, step (negative and out-of-range ones too)";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"D", "length of the sliced axis", kSizes, 1, 129},
              {"O", "length of the other axes", {1, 2, 3, 4}, 1, 5},
              {"axis", "axis", {0, 1, 2, -1, -2}, -3, 2},
              {"start", "start", {0, 1, 2, -1, -2, -3, kBig, -kBig}, -40, 40},
              {"end", "end", {0, 1, 2, -1, -2, -3, kBig, -kBig}, -40, 40},
              {"step", "step", {-3, -2, -1, 1, 2, 3}, -4, 4}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), step = at(p, "step");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    if (step == 0) return bad_point("step 0");
    Shape x(static_cast<std::size_t>(r), at(p, "O"));
    x[static_cast<std::size_t>(axis < 0 ? axis + r : axis)] = at(p, "D");
    OpModel op;
    op.op_type = "Slice";
    op.opset = 13;
    op.inputs = {data("x", x), int64s("starts", {at(p, "start")}), int64s("ends", {at(p, "end")}),
                 int64s("axes", {axis}), int64s("steps", {step})};
    return op;
  };
  return s;
}

OpSpace dequantize_linear() {
  OpSpace s;
  s.name = "DequantizeLinear";
  s.op_type = "DequantizeLinear";
  s.summary =
      "DequantizeLinear (opset 21): per-tensor, per-axis and blocked scales, rank 1-2, int8/uint8, zero "
      "points";
  s.params = {{"R", "rank", {1, 2}, 1, 2},
              {"L", "length of the quantized axis", kSizes, 1, 129},
              {"O", "length of the other axis", {1, 2, 3, 4}, 1, 5},
              {"mode", "scale layout (0 per-tensor, 1 per-axis, 2 blocked)", {0, 1, 2}, 0, 2},
              {"B", "block size", {1, 2, 3, 4, 8, 16, 32}, 1, 64},
              {"axis", "axis", {0, 1}, 0, 1},
              {"zp", "zero point input", kSwitch, 0, 1},
              {"u8", "uint8 values (else int8)", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), l = at(p, "L"), mode = at(p, "mode"), b = at(p, "B"), axis = at(p, "axis");
    if (axis >= r) return bad_point("axis outside the rank");
    if (mode != 2 && b != 1) return bad_point("block size without blocked scales");
    if (mode == 2 && b > l) return bad_point("block larger than the axis");
    Shape x(static_cast<std::size_t>(r), at(p, "O"));
    x[static_cast<std::size_t>(axis)] = l;
    Shape scale;
    if (mode == 1) scale = {l};
    if (mode == 2) {
      scale = x;
      scale[static_cast<std::size_t>(axis)] = (l + b - 1) / b;
    }
    const DType q = at(p, "u8") ? DType::uint8 : DType::int8;
    OpModel op;
    op.op_type = "DequantizeLinear";
    op.opset = 21;
    op.inputs.push_back(data("x", x, q));
    PARITY_ASSIGN_OR_RETURN(sc, weight("scale", scale, seed, 0.01, 0.2));
    op.inputs.push_back(std::move(sc));
    if (at(p, "zp")) {
      PARITY_ASSIGN_OR_RETURN(zp, weight("zero_point", scale, seed, q == DType::uint8 ? 100 : -20,
                                         q == DType::uint8 ? 150 : 20, q));
      op.inputs.push_back(std::move(zp));
    }
    if (mode == 1 || mode == 2) op.attributes.push_back({"axis", model::int_attribute(axis)});
    if (mode == 2) op.attributes.push_back({"block_size", model::int_attribute(b)});
    op.output_types = {{DType::float32, x}};
    return op;
  };
  return s;
}

OpSpace matmul() {
  OpSpace s;
  s.name = "MatMul";
  s.op_type = "MatMul";
  s.summary = "MatMul: M, K, N, batch dims and their broadcasting, 1-D operands";
  s.params = {{"M", "rows", kSizes, 1, 129},
              {"K", "inner size", kSizes, 1, 129},
              {"N", "columns", kSizes, 1, 129},
              {"batch", "batch size (0: no batch dim)", {0, 1, 2, 3}, 0, 4},
              {"bcast", "batch layout (0 both, 1 only A, 2 only B, 3 B's batch is 1)", {0, 1, 2, 3}, 0, 3},
              {"vecA", "A is 1-D", kSwitch, 0, 1},
              {"constB", "B is an initializer", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t m = at(p, "M"), k = at(p, "K"), n = at(p, "N"), batch = at(p, "batch"), bc = at(p, "bcast");
    Shape a = at(p, "vecA") ? Shape{k} : Shape{m, k}, b{k, n};
    if (batch > 0 && !at(p, "vecA")) {
      if (bc != 2) a.insert(a.begin(), batch);
      if (bc == 0) b.insert(b.begin(), batch);
      if (bc == 3) b.insert(b.begin(), 1);
    } else if (batch > 0 || bc != 0) {
      return bad_point("batch layout without a batch");
    }
    OpModel op;
    op.op_type = "MatMul";
    op.inputs.push_back(data("a", a));
    if (at(p, "constB")) {
      PARITY_ASSIGN_OR_RETURN(w, weight("b", b, seed));
      op.inputs.push_back(std::move(w));
    } else {
      op.inputs.push_back(data("b", b));
    }
    return op;
  };
  return s;
}

OpSpace gemm() {
  OpSpace s;
  s.name = "Gemm";
  s.op_type = "Gemm";
  s.summary = "Gemm: M, K, N, transA/transB, alpha, beta, bias shapes";
  s.params = {{"M", "rows", kSizes, 1, 129},
              {"K", "inner size", kSizes, 1, 129},
              {"N", "columns", kSizes, 1, 129},
              {"tA", "transA", kSwitch, 0, 1},
              {"tB", "transB", kSwitch, 0, 1},
              {"alpha4", "alpha x 4", {4, 2, 1, 8, -4}, -8, 8},
              {"beta4", "beta x 4", {4, 0, 2, -4}, -8, 8},
              {"C", "bias (0 none, 1 scalar, 2 [N], 3 [M,N], 4 [M,1], 5 [1,N])", {0, 1, 2, 3, 4, 5}, 0, 5}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t m = at(p, "M"), k = at(p, "K"), n = at(p, "N"), c = at(p, "C");
    OpModel op;
    op.op_type = "Gemm";
    op.inputs.push_back(data("a", at(p, "tA") ? Shape{k, m} : Shape{m, k}));
    PARITY_ASSIGN_OR_RETURN(w, weight("b", at(p, "tB") ? Shape{n, k} : Shape{k, n}, seed));
    op.inputs.push_back(std::move(w));
    const Shape bias[] = {{}, {1}, {n}, {m, n}, {m, 1}, {1, n}};
    if (c > 0) {
      PARITY_ASSIGN_OR_RETURN(bi, weight("c", bias[c], seed));
      op.inputs.push_back(std::move(bi));
    }
    op.attributes = {{"transA", model::int_attribute(at(p, "tA"))},
                     {"transB", model::int_attribute(at(p, "tB"))},
                     {"alpha", model::float_attribute(static_cast<double>(at(p, "alpha4")) / 4)},
                     {"beta", model::float_attribute(static_cast<double>(at(p, "beta4")) / 4)}};
    return op;
  };
  return s;
}

// Shape of rank R whose axis `axis` has length `len` and the others `other`.
Shape shape_with_axis(int64_t rank, int64_t axis, int64_t len, int64_t other) {
  Shape x(static_cast<std::size_t>(rank), other);
  x[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = len;
  return x;
}

OpSpace softmax() {
  OpSpace s;
  s.name = "Softmax";
  s.op_type = "Softmax";
  s.summary = "Softmax / LogSoftmax: rank, axis (negative too), reduced length up to 1025";
  s.params = {{"R", "rank", {1, 2, 3, 4}, 1, 4},
              {"D",
               "length of the axis",
               {1, 2, 3, 4, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025},
               1,
               1100},
              {"O", "length of the other axes", {1, 2, 3, 5}, 1, 6},
              {"axis", "axis", {-1, 0, 1, -2}, -4, 3},
              {"log", "LogSoftmax", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    OpModel op;
    op.op_type = at(p, "log") ? "LogSoftmax" : "Softmax";
    op.inputs.push_back(data("x", shape_with_axis(r, axis, at(p, "D"), at(p, "O"))));
    op.attributes = {{"axis", model::int_attribute(axis)}};
    return op;
  };
  return s;
}

OpSpace reduce() {
  static const char* kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceProd"};
  OpSpace s;
  s.name = "Reduce";
  s.op_type = "Reduce*";
  s.summary = "ReduceSum/Mean/Max/Min/L2/Prod (opset 13): rank, axes subset, keepdims, reduced lengths";
  s.params = {{"op", "which reduction (0 Sum, 1 Mean, 2 Max, 3 Min, 4 L2, 5 Prod)", {0, 1, 2, 3, 4, 5}, 0, 5},
              {"R", "rank", {1, 2, 3, 4}, 1, 4},
              {"D", "length of the reduced axes", kSizes, 1, 129},
              {"O", "length of the other axes", {1, 2, 3, 4}, 1, 5},
              {"axes", "reduced axes as a bit mask (0: all)", {0, 1, 2, 3, 4, 8, 12, 6}, 0, 15},
              {"keep", "keepdims", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), mask = at(p, "axes"), opi = at(p, "op");
    if (mask >= (int64_t{1} << r)) return bad_point("axes outside the rank");
    if (opi == 5 && at(p, "D") > 16) return bad_point("a product of many values overflows");
    Shape x(static_cast<std::size_t>(r), at(p, "O"));
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < r; ++i)
      if (mask == 0 || (mask >> i) & 1) {
        axes.push_back(i);
        x[static_cast<std::size_t>(i)] = at(p, "D");
      }
    OpModel op;
    op.op_type = kOps[opi];
    op.opset = 13;  // ReduceSum takes its axes as an input there, the others as an attribute
    op.inputs.push_back(data("x", x));
    if (mask != 0 && opi == 0) op.inputs.push_back(int64s("axes", axes));
    if (mask != 0 && opi != 0) op.attributes.push_back({"axes", model::ints_attribute(axes)});
    op.attributes.push_back({"keepdims", model::int_attribute(at(p, "keep"))});
    return op;
  };
  return s;
}

OpSpace pad() {
  static const char* kModes[] = {"constant", "reflect", "edge"};
  OpSpace s;
  s.name = "Pad";
  s.op_type = "Pad";
  s.summary = "Pad (opset 13): constant/reflect/edge, pads on the last two axes, negative pads (crops)";
  s.params = {{"mode", "mode (0 constant, 1 reflect, 2 edge)", {0, 1, 2}, 0, 2},
              {"R", "rank", {2, 3, 4}, 2, 4},
              {"H", "length of the second-last axis", kSmall, 1, 17},
              {"W", "length of the last axis", kSizes, 1, 129},
              {"pb", "pad before", {0, 1, 2, 3, -1}, -2, 4},
              {"pa", "pad after", {0, 1, 2, 3, -1}, -2, 4},
              {"both", "pad both axes (else the last only)", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), h = at(p, "H"), w = at(p, "W"), pb = at(p, "pb"), pa = at(p, "pa");
    const int64_t mode = at(p, "mode");
    if (mode == 1 && (pb >= w || pa >= w || (at(p, "both") && (pb >= h || pa >= h))))
      return bad_point("reflect pads must be shorter than the axis");
    if (w + pb + pa < 1 || (at(p, "both") && h + pb + pa < 1)) return bad_point("empty output");
    Shape x(static_cast<std::size_t>(r), 2);
    x[x.size() - 2] = h;
    x[x.size() - 1] = w;
    std::vector<int64_t> pads(static_cast<std::size_t>(2 * r), 0);
    pads[static_cast<std::size_t>(r - 1)] = pb;
    pads[static_cast<std::size_t>(2 * r - 1)] = pa;
    if (at(p, "both")) {
      pads[static_cast<std::size_t>(r - 2)] = pb;
      pads[static_cast<std::size_t>(2 * r - 2)] = pa;
    }
    OpModel op;
    op.op_type = "Pad";
    op.opset = 13;
    op.inputs = {data("x", x), int64s("pads", pads)};
    op.attributes = {{"mode", model::text_attribute(kModes[mode])}};
    return op;
  };
  return s;
}

OpSpace pool() {
  OpSpace s;
  s.name = "Pool2D";
  s.op_type = "MaxPool|AveragePool";
  s.summary = "MaxPool / AveragePool 2-D: kernel, strides, pads, dilations, ceil_mode, count_include_pad";
  s.params = {{"max", "MaxPool (else AveragePool)", kSwitch, 0, 1},
              {"C", "channels", {1, 3, 4, 8, 16, 17}, 1, 17},
              {"H", "height", kSmall, 1, 17},
              {"W", "width", kSizes, 1, 65},
              {"K", "kernel size", {1, 2, 3, 4, 5}, 1, 5},
              {"stride", "stride", {1, 2, 3}, 1, 3},
              {"pad", "padding", {0, 1, 2}, 0, 2},
              {"dil", "dilation (MaxPool)", {1, 2}, 1, 2},
              {"ceil", "ceil_mode", kSwitch, 0, 1},
              {"cip", "count_include_pad (AveragePool)", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t k = at(p, "K"), pad = at(p, "pad"), stride = at(p, "stride"), dil = at(p, "dil");
    const bool is_max = at(p, "max");
    if (pad >= k) return bad_point("padding not below the kernel");
    if (!is_max && dil != 1) return bad_point("AveragePool-17 has no dilations on every EP");
    if (is_max && at(p, "cip")) return bad_point("count_include_pad is AveragePool's");
    if (conv_out(at(p, "H"), k, pad, stride, dil) < 1 || conv_out(at(p, "W"), k, pad, stride, dil) < 1)
      return bad_point("kernel larger than the padded input");
    OpModel op;
    op.op_type = is_max ? "MaxPool" : "AveragePool";
    op.inputs.push_back(data("x", {1, at(p, "C"), at(p, "H"), at(p, "W")}));
    op.attributes = {{"kernel_shape", model::ints_attribute({k, k})},
                     {"strides", model::ints_attribute({stride, stride})},
                     {"pads", model::ints_attribute({pad, pad, pad, pad})},
                     {"ceil_mode", model::int_attribute(at(p, "ceil"))}};
    if (is_max) op.attributes.push_back({"dilations", model::ints_attribute({dil, dil})});
    if (!is_max) op.attributes.push_back({"count_include_pad", model::int_attribute(at(p, "cip"))});
    return op;
  };
  return s;
}

OpSpace resize() {
  static const char* kModes[] = {"nearest", "linear", "cubic"};
  static const char* kCoords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                  "tf_crop_and_resize"};
  static const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  OpSpace s;
  s.name = "Resize";
  s.op_type = "Resize";
  s.summary = "Resize 2-D (opset 13): nearest/linear/cubic, coordinate modes, rounding, up- and downscaling";
  s.params = {
      {"mode", "mode (0 nearest, 1 linear, 2 cubic)", {0, 1, 2}, 0, 2},
      {"coord",
       "coordinate transformation (0 half_pixel, 1 asymmetric, 2 align_corners, 3 pytorch_half_pixel)",
       {0, 1, 2, 3},
       0,
       3},
      {"round", "nearest rounding (0 prefer_floor, 1 prefer_ceil, 2 floor, 3 ceil)", {0, 1, 2, 3}, 0, 3},
      {"H", "input height", {1, 2, 3, 4, 5, 7, 8, 16}, 1, 17},
      {"W", "input width", {1, 2, 3, 4, 5, 7, 8, 16, 17, 33}, 1, 40},
      {"OH", "output height", {1, 2, 3, 4, 6, 8, 9, 16, 32}, 1, 40},
      {"OW", "output width", {1, 2, 3, 4, 6, 8, 9, 16, 32, 33, 64, 65}, 1, 70}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t mode = at(p, "mode");
    if (mode != 0 && at(p, "round") != 0) return bad_point("nearest rounding on a non-nearest mode");
    OpModel op;
    op.op_type = "Resize";
    op.opset = 13;
    op.inputs = {data("x", {1, 2, at(p, "H"), at(p, "W")}),
                 {"", DType::float32, {}, std::nullopt, std::nullopt},
                 {"", DType::float32, {}, std::nullopt, std::nullopt},
                 int64s("sizes", {1, 2, at(p, "OH"), at(p, "OW")})};
    op.attributes = {{"mode", model::text_attribute(kModes[mode])},
                     {"coordinate_transformation_mode", model::text_attribute(kCoords[at(p, "coord")])},
                     {"nearest_mode", model::text_attribute(kNearest[at(p, "round")])}};
    return op;
  };
  return s;
}

OpSpace transpose() {
  OpSpace s;
  s.name = "Transpose";
  s.op_type = "Transpose";
  s.summary = "Transpose: rank 2-5, every permutation, odd and power-of-two lengths";
  s.params = {{"R", "rank", {2, 3, 4, 5}, 2, 5},
              {"perm", "permutation index (lexicographic)", {0, 1, 2, 5, 23, 119}, 0, 119},
              {"A", "length of the first axis", {1, 2, 3, 4, 5, 8, 9, 16, 17, 33}, 1, 40},
              {"B", "length of the last axis", {1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 64, 65}, 1, 70},
              {"O", "length of the middle axes", {1, 2, 3, 4}, 1, 5}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R");
    std::vector<int64_t> perm(static_cast<std::size_t>(r));
    for (int64_t i = 0; i < r; ++i) perm[static_cast<std::size_t>(i)] = i;
    int64_t count = 1;
    for (int64_t i = 2; i <= r; ++i) count *= i;
    if (at(p, "perm") >= count) return bad_point("permutation index past the rank's count");
    for (int64_t i = 0; i < at(p, "perm"); ++i) std::next_permutation(perm.begin(), perm.end());
    Shape x(static_cast<std::size_t>(r), at(p, "O"));
    x.front() = at(p, "A");
    x.back() = at(p, "B");
    OpModel op;
    op.op_type = "Transpose";
    op.inputs.push_back(data("x", x));
    op.attributes = {{"perm", model::ints_attribute(perm)}};
    return op;
  };
  return s;
}

OpSpace gather() {
  OpSpace s;
  s.name = "Gather";
  s.op_type = "Gather";
  s.summary = "Gather: data rank, axis (negative too), index rank, negative indices";
  s.params = {{"R", "data rank", {1, 2, 3}, 1, 3},
              {"D", "length of the gathered axis", kSizes, 1, 129},
              {"O", "length of the other axes", {1, 2, 3, 4}, 1, 5},
              {"axis", "axis", {0, 1, -1, 2}, -3, 2},
              {"I", "index count", {1, 2, 3, 4, 8, 9}, 1, 10},
              {"IR", "index rank (0 scalar)", {0, 1, 2}, 0, 2},
              {"neg", "negative indices", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), d = at(p, "D"), n = at(p, "I"), ir = at(p, "IR");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    if (ir == 0 && n != 1) return bad_point("a scalar index is one index");
    std::vector<int64_t> idx(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<int64_t>(((seed >> (i % 32)) + static_cast<uint64_t>(i) * 7) %
                                          static_cast<uint64_t>(d));
      idx[static_cast<std::size_t>(i)] = at(p, "neg") ? v - d : v;
    }
    OpModel op;
    op.op_type = "Gather";
    op.inputs = {data("x", shape_with_axis(r, axis, d, at(p, "O"))), int64s("indices", idx,
                                                                            ir == 0   ? Shape{}
                                                                            : ir == 1 ? Shape{n}
                                                                                      : Shape{1, n})};
    op.attributes = {{"axis", model::int_attribute(axis)}};
    return op;
  };
  return s;
}

OpSpace cumsum() {
  OpSpace s;
  s.name = "CumSum";
  s.op_type = "CumSum";
  s.summary = "CumSum: rank, axis (negative too), exclusive, reverse, lengths past a workgroup";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"D", "length of the axis", {1, 2, 3, 4, 7, 8, 9, 63, 64, 65, 255, 256, 257}, 1, 300},
              {"O", "length of the other axes", {1, 2, 3}, 1, 4},
              {"axis", "axis", {0, -1, 1}, -3, 2},
              {"excl", "exclusive", kSwitch, 0, 1},
              {"rev", "reverse", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    OpModel op;
    op.op_type = "CumSum";
    op.inputs = {data("x", shape_with_axis(r, axis, at(p, "D"), at(p, "O"))),
                 int64s("axis", {axis}, Shape{})};
    op.attributes = {{"exclusive", model::int_attribute(at(p, "excl"))},
                     {"reverse", model::int_attribute(at(p, "rev"))}};
    return op;
  };
  return s;
}

OpSpace layer_norm() {
  OpSpace s;
  s.name = "LayerNormalization";
  s.op_type = "LayerNormalization";
  s.summary = "LayerNormalization: rank, axis (negative too), normalized length, bias, epsilon";
  s.params = {
      {"R", "rank", {2, 3, 4}, 1, 4},
      // No 2: two values normalize to +-d/sqrt(d^2 + eps), as ill-conditioned as d is small, so
      // the CPU and a GPU differ legitimately where nearly equal pairs are drawn.
      {"D", "normalized length", {1, 3, 4, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 768, 769}, 1, 800},
      {"O", "length of the other axes", {1, 2, 3}, 1, 4},
      {"axis", "axis", {-1, 1, 2, -2}, -4, 3},
      {"bias", "bias input", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), d = at(p, "D");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    if (d == 2) return bad_point("two normalized values are ill-conditioned (see D)");
    Shape x(static_cast<std::size_t>(r), at(p, "O"));
    const std::size_t first = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    for (std::size_t i = first; i < x.size(); ++i) x[i] = i + 1 == x.size() ? d : at(p, "O");
    const Shape norm(x.begin() + static_cast<std::ptrdiff_t>(first), x.end());
    OpModel op;
    op.op_type = "LayerNormalization";
    op.inputs.push_back(data("x", x));
    PARITY_ASSIGN_OR_RETURN(scale, weight("scale", norm, seed, 0.5, 1.5));
    op.inputs.push_back(std::move(scale));
    if (at(p, "bias")) {
      PARITY_ASSIGN_OR_RETURN(b, weight("bias", norm, seed));
      op.inputs.push_back(std::move(b));
    }
    op.attributes = {{"axis", model::int_attribute(axis)}};
    return op;
  };
  return s;
}

OpSpace binary() {
  static const char* kOps[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  OpSpace s;
  s.name = "Binary";
  s.op_type = "Add|Sub|Mul|Div|Max|Min";
  s.summary = "Elementwise binary ops with broadcasting: which side broadcasts, ranks 1-4, scalar operands";
  s.params = {{"op", "op (0 Add, 1 Sub, 2 Mul, 3 Div, 4 Max, 5 Min)", {0, 1, 2, 3, 4, 5}, 0, 5},
              {"R", "rank of A", {1, 2, 3, 4}, 1, 4},
              {"D", "length of A's last axis", kSizes, 1, 129},
              {"O", "length of A's other axes", {1, 2, 3, 4}, 1, 5},
              {"bshape",
               "B's shape (0 same, 1 scalar, 2 last axis, 3 first axis 1, 4 rank+1)",
               {0, 1, 2, 3, 4},
               0,
               4}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), bs = at(p, "bshape");
    Shape a(static_cast<std::size_t>(r), at(p, "O"));
    a.back() = at(p, "D");
    Shape b = a;
    if (bs == 1) b = {};
    if (bs == 2) b = {a.back()};
    if (bs == 3) b.front() = 1;
    if (bs == 4) b.insert(b.begin(), 2);
    OpModel op;
    op.op_type = kOps[at(p, "op")];
    op.inputs.push_back(data("a", a));
    // Divisors kept away from 0, so the result stays finite and well-conditioned.
    const bool divisor = at(p, "op") == 3;
    PARITY_ASSIGN_OR_RETURN(w, weight("b", b, seed, divisor ? 0.5 : -1, divisor ? 2 : 1));
    op.inputs.push_back(std::move(w));
    return op;
  };
  return s;
}

OpSpace unary() {
  struct Unary {
    const char* op;
    double lo, hi;  // the domain at magnitude 1 (scaled by `mag`)
  };
  static const Unary kOps[] = {
      {"Sigmoid", -1, 1},     {"Tanh", -1, 1},      {"Erf", -1, 1},         {"Exp", -1, 1},
      {"Log", 0.01, 1},       {"Sqrt", 0, 1},       {"Reciprocal", 0.1, 1}, {"Softplus", -1, 1},
      {"HardSigmoid", -1, 1}, {"HardSwish", -1, 1}, {"Elu", -1, 1},         {"Selu", -1, 1},
      {"LeakyRelu", -1, 1},   {"Abs", -1, 1},       {"Neg", -1, 1},         {"Sin", -1, 1},
      {"Cos", -1, 1},         {"Atan", -1, 1},      {"Sign", -1, 1},        {"Relu", -1, 1}};
  OpSpace s;
  s.name = "Unary";
  s.op_type = "Sigmoid|Tanh|Erf|Exp|Log|Sqrt|...";
  s.summary = "Elementwise unary ops at growing magnitudes (1 to 1000: where exp-based kernels overflow)";
  s.params = {{"op",
               "op (0 Sigmoid, 1 Tanh, 2 Erf, 3 Exp, 4 Log, 5 Sqrt, 6 Reciprocal, 7 Softplus, 8 HardSigmoid, "
               "9 HardSwish, 10 Elu, 11 Selu, 12 LeakyRelu, 13 Abs, 14 Neg, 15 Sin, 16 Cos, 17 Atan, 18 "
               "Sign, 19 Relu)",
               {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
               0,
               19},
              {"mag", "magnitude of the inputs", {1, 10, 50, 100, 1000}, 1, 1000},
              {"D", "length", {1, 3, 4, 5, 64, 65, 257}, 1, 300}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const Unary& u = kOps[at(p, "op")];
    const double mag = static_cast<double>(at(p, "mag"));
    if (std::string(u.op) == "Exp" && mag > 50) return bad_point("exp past float32's range");
    OpModel op;
    op.op_type = u.op;
    op.inputs.push_back(data("x", {2, at(p, "D")}, DType::float32, std::pair{u.lo * mag, u.hi * mag}));
    return op;
  };
  return s;
}

OpSpace top_k() {
  OpSpace s;
  s.name = "TopK";
  s.op_type = "TopK";
  s.summary = "TopK: k, axis (negative too), largest, sorted; values and indices";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"D", "length of the axis", {1, 2, 3, 4, 8, 9, 16, 17, 64, 65, 255, 256, 257}, 1, 300},
              {"O", "length of the other axes", {1, 2, 3}, 1, 4},
              {"axis", "axis", {-1, 0, 1}, -3, 2},
              {"k", "k", {1, 2, 3, 4, 5, 8, 16, 64}, 1, 300},
              {"largest", "largest", {1, 0}, 0, 1},
              {"sorted", "sorted", {1, 0}, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    if (at(p, "k") > at(p, "D")) return bad_point("k past the axis");
    if (!at(p, "sorted")) return bad_point("unsorted TopK has no defined order to compare");
    OpModel op;
    op.op_type = "TopK";
    op.inputs = {data("x", shape_with_axis(r, axis, at(p, "D"), at(p, "O"))), int64s("k", {at(p, "k")})};
    op.attributes = {{"axis", model::int_attribute(axis)},
                     {"largest", model::int_attribute(at(p, "largest"))},
                     {"sorted", model::int_attribute(at(p, "sorted"))}};
    op.outputs = {"values", "indices"};
    return op;
  };
  return s;
}

OpSpace quantize_linear() {
  OpSpace s;
  s.name = "QuantizeLinear";
  s.op_type = "QuantizeLinear";
  s.summary =
      "QuantizeLinear (opset 13): per-tensor and per-axis scales, int8/uint8, zero points, saturation";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"L", "length of the quantized axis", kSizes, 1, 129},
              {"O", "length of the other axes", {1, 2, 3}, 1, 4},
              {"axis", "axis (per-axis scales)", {0, 1, -1}, -3, 2},
              {"perAxis", "per-axis scales", kSwitch, 0, 1},
              {"zp", "zero point input", kSwitch, 0, 1},
              {"u8", "uint8 (else int8)", kSwitch, 0, 1},
              {"mag", "magnitude of the inputs (past 127 x scale saturates)", {1, 4, 100}, 1, 100}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), l = at(p, "L");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    const DType q = at(p, "u8") ? DType::uint8 : DType::int8;
    const double mag = static_cast<double>(at(p, "mag"));
    OpModel op;
    op.op_type = "QuantizeLinear";
    op.opset = 13;
    op.inputs.push_back(
        data("x", shape_with_axis(r, axis, l, at(p, "O")), DType::float32, std::pair{-mag, mag}));
    const Shape scale = at(p, "perAxis") ? Shape{l} : Shape{};
    PARITY_ASSIGN_OR_RETURN(sc, weight("scale", scale, seed, 0.005, 0.05));
    op.inputs.push_back(std::move(sc));
    if (at(p, "zp")) {
      PARITY_ASSIGN_OR_RETURN(zp, weight("zero_point", scale, seed, q == DType::uint8 ? 100 : -20,
                                         q == DType::uint8 ? 150 : 20, q));
      op.inputs.push_back(std::move(zp));
    } else if (q == DType::uint8) {
      return bad_point("without a zero point the output is int8");
    }
    if (at(p, "perAxis")) op.attributes.push_back({"axis", model::int_attribute(axis)});
    return op;
  };
  return s;
}

OpSpace depth_to_space() {
  OpSpace s;
  s.name = "DepthToSpace";
  s.op_type = "DepthToSpace|SpaceToDepth";
  s.summary = "DepthToSpace (DCR, CRD) and SpaceToDepth: block size, channels, height, width";
  s.params = {{"op", "0 DepthToSpace DCR, 1 DepthToSpace CRD, 2 SpaceToDepth", {0, 1, 2}, 0, 2},
              {"B", "block size", {1, 2, 3, 4}, 1, 4},
              {"C", "channels (per block cell)", {1, 2, 3, 4, 5, 8, 16}, 1, 17},
              {"H", "height (in blocks)", {1, 2, 3, 4, 7, 8}, 1, 9},
              {"W", "width (in blocks)", {1, 2, 3, 4, 7, 8, 16, 17}, 1, 17}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t b = at(p, "B"), c = at(p, "C"), h = at(p, "H"), w = at(p, "W"), which = at(p, "op");
    OpModel op;
    if (which == 2) {
      op.op_type = "SpaceToDepth";
      op.inputs.push_back(data("x", {1, c, h * b, w * b}));
    } else {
      op.op_type = "DepthToSpace";
      op.inputs.push_back(data("x", {1, c * b * b, h, w}));
      op.attributes.push_back({"mode", model::text_attribute(which == 0 ? "DCR" : "CRD")});
    }
    op.attributes.push_back({"blocksize", model::int_attribute(b)});
    return op;
  };
  return s;
}

OpSpace cast() {
  struct To {
    const char* name;
    DType dtype;
    double lo, hi;  // inputs kept inside the target's range: out-of-range casts are undefined
  };
  static const To kTo[] = {{"int32", DType::int32, -1000, 1000}, {"int8", DType::int8, -127, 127},
                           {"uint8", DType::uint8, 0, 255},      {"float16", DType::float16, -1000, 1000},
                           {"bool", DType::boolean, -2, 2},      {"int64", DType::int64, -1000, 1000}};
  OpSpace s;
  s.name = "Cast";
  s.op_type = "Cast";
  s.summary = "Cast from float32 to int32/int8/uint8/float16/bool/int64 (truncation toward zero), in range";
  s.params = {
      {"to", "target (0 int32, 1 int8, 2 uint8, 3 float16, 4 bool, 5 int64)", {0, 1, 2, 3, 4, 5}, 0, 5},
      {"D", "length", {1, 3, 4, 5, 64, 65, 257}, 1, 300}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const To& to = kTo[at(p, "to")];
    OpModel op;
    op.op_type = "Cast";
    op.inputs.push_back(data("x", {2, at(p, "D")}, DType::float32, std::pair{to.lo, to.hi}));
    op.attributes = {{"to", model::int_attribute(static_cast<int64_t>(to.dtype))}};
    return op;
  };
  return s;
}

OpSpace instance_norm() {
  OpSpace s;
  s.name = "InstanceNormalization";
  s.op_type = "InstanceNormalization";
  s.summary = "InstanceNormalization: channels, spatial size (1-D and 2-D), epsilon";
  s.params = {{"C", "channels", {1, 2, 3, 4, 8, 16, 17, 64}, 1, 65},
              {"H", "height (1: 1-D)", {1, 2, 3, 8, 16}, 1, 17},
              {"W", "width", {1, 2, 3, 4, 63, 64, 65, 256, 257}, 1, 300},
              {"N", "batch", {1, 2}, 1, 3}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t c = at(p, "C");
    // Fewer than 4 values per channel: nearly equal draws make the result ill-conditioned (see
    // LayerNormalization's D), and a CPU/GPU difference there is no bug.
    if (at(p, "H") * at(p, "W") < 4)
      return bad_point("too few values per channel for a well-conditioned norm");
    OpModel op;
    op.op_type = "InstanceNormalization";
    op.inputs.push_back(data("x", {at(p, "N"), c, at(p, "H"), at(p, "W")}));
    PARITY_ASSIGN_OR_RETURN(scale, weight("scale", {c}, seed, 0.5, 1.5));
    PARITY_ASSIGN_OR_RETURN(bias, weight("bias", {c}, seed));
    op.inputs.push_back(std::move(scale));
    op.inputs.push_back(std::move(bias));
    return op;
  };
  return s;
}

OpSpace gather_elements() {
  OpSpace s;
  s.name = "GatherElements";
  s.op_type = "GatherElements";
  s.summary =
      "GatherElements: rank, axis (negative too), index shape smaller than the data, negative indices";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"D", "length of the axis", {1, 2, 3, 4, 8, 9, 64, 65}, 1, 70},
              {"O", "length of the other axes", {1, 2, 3, 4}, 1, 5},
              {"axis", "axis", {0, -1, 1}, -3, 2},
              {"I", "index length on the axis", {1, 2, 3, 4, 8}, 1, 9},
              {"neg", "negative indices", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), d = at(p, "D"), n = at(p, "I");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    const Shape idx_shape = shape_with_axis(r, axis, n, at(p, "O"));
    std::vector<int64_t> idx(static_cast<std::size_t>(shape_numel(idx_shape)));
    for (std::size_t i = 0; i < idx.size(); ++i) {
      const auto v = static_cast<int64_t>(((seed >> (i % 40)) + i * 5) % static_cast<uint64_t>(d));
      idx[i] = at(p, "neg") ? v - d : v;
    }
    OpModel op;
    op.op_type = "GatherElements";
    op.inputs = {data("x", shape_with_axis(r, axis, d, at(p, "O"))), int64s("indices", idx, idx_shape)};
    op.attributes = {{"axis", model::int_attribute(axis)}};
    return op;
  };
  return s;
}

OpSpace concat() {
  OpSpace s;
  s.name = "Concat";
  s.op_type = "Concat";
  s.summary = "Concat of 2-5 inputs of different lengths on one axis (negative too)";
  s.params = {{"n", "inputs", {2, 3, 4, 5}, 2, 5},
              {"R", "rank", {1, 2, 3, 4}, 1, 4},
              {"axis", "axis", {0, 1, -1, 2}, -4, 3},
              {"A", "length of the first input on the axis", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"B", "length of the others on the axis", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"O", "length of the other axes", {1, 2, 3, 4, 5}, 1, 6}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    OpModel op;
    op.op_type = "Concat";
    for (int64_t i = 0; i < at(p, "n"); ++i)
      op.inputs.push_back(data("x" + std::to_string(i),
                               shape_with_axis(r, axis, i == 0 ? at(p, "A") : at(p, "B"), at(p, "O"))));
    op.attributes = {{"axis", model::int_attribute(axis)}};
    return op;
  };
  return s;
}

OpSpace expand_tile() {
  OpSpace s;
  s.name = "ExpandTile";
  s.op_type = "Expand|Tile";
  s.summary = "Expand (broadcast to a shape, rank growing) and Tile (repeats per axis)";
  s.params = {{"tile", "Tile (else Expand)", kSwitch, 0, 1},
              {"R", "rank of the input", {1, 2, 3}, 1, 3},
              {"D", "length of the last axis", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"rep", "repeat / broadcast factor", {1, 2, 3, 4, 8}, 1, 9},
              {"grow", "Expand: axes added in front", {0, 1, 2}, 0, 2}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), d = at(p, "D"), rep = at(p, "rep");
    Shape x(static_cast<std::size_t>(r), 1);
    x.back() = d;
    OpModel op;
    if (at(p, "tile")) {
      if (at(p, "grow")) return bad_point("Tile keeps the rank");
      op.op_type = "Tile";
      std::vector<int64_t> reps(static_cast<std::size_t>(r), rep);
      reps.back() = rep > 1 ? rep - 1 : 1;
      op.inputs = {data("x", x), int64s("repeats", reps)};
    } else {
      op.op_type = "Expand";
      Shape to(static_cast<std::size_t>(r + at(p, "grow")), rep);
      to.back() = d;
      op.inputs = {data("x", x), int64s("shape", to)};
    }
    return op;
  };
  return s;
}

OpSpace arg_max() {
  OpSpace s;
  s.name = "ArgMax";
  s.op_type = "ArgMax|ArgMin";
  s.summary =
      "ArgMax / ArgMin: rank, axis (negative too), keepdims, select_last_index, lengths past a workgroup";
  s.params = {{"min", "ArgMin (else ArgMax)", kSwitch, 0, 1},
              {"R", "rank", {1, 2, 3}, 1, 3},
              {"D", "length of the axis", {1, 2, 3, 4, 7, 8, 9, 63, 64, 65, 255, 256, 257}, 1, 300},
              {"O", "length of the other axes", {1, 2, 3}, 1, 4},
              {"axis", "axis", {0, -1, 1}, -3, 2},
              {"keep", "keepdims", kSwitch, 0, 1},
              {"last", "select_last_index", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    OpModel op;
    op.op_type = at(p, "min") ? "ArgMin" : "ArgMax";
    op.inputs.push_back(data("x", shape_with_axis(r, axis, at(p, "D"), at(p, "O"))));
    op.attributes = {{"axis", model::int_attribute(axis)},
                     {"keepdims", model::int_attribute(at(p, "keep"))},
                     {"select_last_index", model::int_attribute(at(p, "last"))}};
    return op;
  };
  return s;
}

OpSpace split() {
  OpSpace s;
  s.name = "Split";
  s.op_type = "Split";
  s.summary = "Split (opset 13) into 2-3 parts of given sizes on one axis (negative too)";
  s.params = {{"R", "rank", {1, 2, 3}, 1, 3},
              {"A", "size of the first part", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"B", "size of the other parts", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"n", "parts", {2, 3}, 2, 3},
              {"O", "length of the other axes", {1, 2, 3, 4}, 1, 5},
              {"axis", "axis", {0, -1, 1}, -3, 2}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const int64_t r = at(p, "R"), axis = at(p, "axis"), n = at(p, "n");
    if (axis < -r || axis >= r) return bad_point("axis outside the rank");
    std::vector<int64_t> sizes{at(p, "A")};
    for (int64_t i = 1; i < n; ++i) sizes.push_back(at(p, "B"));
    int64_t total = 0;
    for (int64_t v : sizes) total += v;
    OpModel op;
    op.op_type = "Split";
    op.opset = 13;
    op.inputs = {data("x", shape_with_axis(r, axis, total, at(p, "O"))), int64s("split", sizes)};
    op.attributes = {{"axis", model::int_attribute(axis)}};
    op.outputs.clear();
    for (int64_t i = 0; i < n; ++i) op.outputs.push_back("y" + std::to_string(i));
    return op;
  };
  return s;
}

OpSpace where_clip() {
  OpSpace s;
  s.name = "WhereClip";
  s.op_type = "Where|Clip";
  s.summary = "Where with a broadcast condition, Clip with either bound missing";
  s.params = {
      {"clip", "Clip (else Where)", kSwitch, 0, 1},
      {"R", "rank", {1, 2, 3, 4}, 1, 4},
      {"D", "length of the last axis", kSizes, 1, 129},
      {"O", "length of the other axes", {1, 2, 3}, 1, 4},
      {"bc",
       "Where: condition shape (0 same, 1 last axis only, 2 scalar); Clip: bounds (0 both, 1 min, 2 max)",
       {0, 1, 2},
       0,
       2}};
  s.build = [](const Point& p, uint64_t seed) -> Result<OpModel> {
    Shape x(static_cast<std::size_t>(at(p, "R")), at(p, "O"));
    x.back() = at(p, "D");
    const int64_t bc = at(p, "bc");
    OpModel op;
    if (at(p, "clip")) {
      auto scalar = [](const char* name, float v) {
        return OpInput{
            name, DType::float32, {}, Tensor::from_floats({}, std::vector<float>{v}), std::nullopt};
      };
      op.op_type = "Clip";
      op.inputs.push_back(data("x", x));
      op.inputs.push_back(bc == 2 ? OpInput{"", DType::float32, {}, std::nullopt, std::nullopt}
                                  : scalar("lo", -0.3f));
      if (bc != 1) op.inputs.push_back(scalar("hi", 0.4f));
      return op;
    }
    op.op_type = "Where";
    const Shape cond = bc == 0 ? x : bc == 1 ? Shape{x.back()} : Shape{};
    op.inputs.push_back(data("c", cond, DType::boolean));
    op.inputs.push_back(data("a", x));
    PARITY_ASSIGN_OR_RETURN(b, weight("b", x, seed));
    op.inputs.push_back(std::move(b));
    return op;
  };
  return s;
}

OpSpace trilu() {
  OpSpace s;
  s.name = "Trilu";
  s.op_type = "Trilu";
  s.summary = "Trilu (opset 14): upper or lower, diagonal offset k (negative too), wide and tall matrices";
  s.params = {{"upper", "upper (else lower)", kSwitch, 0, 1},
              {"H", "rows", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"W", "columns", {1, 2, 3, 4, 5, 8, 16, 17}, 1, 20},
              {"k", "diagonal offset", {0, 1, -1, 2, -2, 5, -5}, -20, 20},
              {"batch", "leading batch", {1, 2}, 1, 3}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    OpModel op;
    op.op_type = "Trilu";
    op.opset = 14;
    op.inputs = {data("x", {at(p, "batch"), at(p, "H"), at(p, "W")}), int64s("k", {at(p, "k")}, Shape{})};
    op.attributes = {{"upper", model::int_attribute(at(p, "upper"))}};
    return op;
  };
  return s;
}

OpSpace pow_space() {
  OpSpace s;
  s.name = "Pow";
  s.op_type = "Pow";
  s.summary = "Pow of positive bases: integer, half and negative exponents, broadcast exponent";
  s.params = {{"e2", "exponent x 2", {0, 1, 2, 3, 4, 6, -2, -1, 5}, -6, 8},
              {"D", "length", {1, 3, 4, 5, 64, 65}, 1, 70},
              {"bshape", "exponent shape (0 scalar, 1 same as the base)", kSwitch, 0, 1}};
  s.build = [](const Point& p, uint64_t) -> Result<OpModel> {
    const Shape x{2, at(p, "D")};
    const float e = static_cast<float>(at(p, "e2")) / 2;
    const Shape es = at(p, "bshape") ? x : Shape{};
    OpModel op;
    op.op_type = "Pow";
    op.inputs.push_back(data("x", x, DType::float32, std::pair{0.5, 2.0}));
    op.inputs.push_back(
        {"e", DType::float32, es,
         Tensor::from_floats(es, std::vector<float>(static_cast<std::size_t>(shape_numel(es)), e)),
         std::nullopt});
    return op;
  };
  return s;
}

// Shape-keeping ops chained after a space's op: `SPACE+` draws up to two of them, so fused kernels
// (Conv+Relu, MatMul+Add, ...) and kernels reading their producer's layout are searched too.
struct TailOp {
  const char* op;
  const char* attribute;  // one float attribute, or null
  double attribute_value;
  std::vector<float> constants;  // scalar initializers after the chained input
};
const std::vector<TailOp>& tail_ops() {
  static const std::vector<TailOp> ops = {{"", nullptr, 0, {}},  // 0: none
                                          {"Relu", nullptr, 0, {}},
                                          {"Sigmoid", nullptr, 0, {}},
                                          {"Tanh", nullptr, 0, {}},
                                          {"Add", nullptr, 0, {0.5f}},
                                          {"Mul", nullptr, 0, {1.5f}},
                                          {"Clip", nullptr, 0, {0.0f, 6.0f}},
                                          {"LeakyRelu", "alpha", 0.1, {}},
                                          {"HardSwish", nullptr, 0, {}},
                                          {"Softmax", nullptr, 0, {}},
                                          {"Erf", nullptr, 0, {}},
                                          {"Neg", nullptr, 0, {}}};
  return ops;
}

OpSpace with_tail(const OpSpace& base) {
  OpSpace s = base;
  s.name = base.name + "+";
  s.summary = base.name + " followed by up to two shape-keeping ops (fusions, layouts)";
  std::string names;
  for (std::size_t i = 0; i < tail_ops().size(); ++i)
    names += fmt::format("{}{} {}", i ? ", " : "", i, i ? tail_ops()[i].op : "none");
  const int64_t last = static_cast<int64_t>(tail_ops().size()) - 1;
  std::vector<int64_t> all(tail_ops().size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  // then2 before then1: reduction shrinks parameters in order, and then2 must go first.
  s.params.push_back({"then2", "second op after it (" + names + ")", all, 0, last});
  s.params.push_back({"then1", "first op after it (" + names + ")",
                      std::vector<int64_t>(all.begin() + 1, all.end()), 0, last});
  s.build = [inner = base.build](const Point& p, uint64_t seed) -> Result<OpModel> {
    PARITY_ASSIGN_OR_RETURN(op, inner(p, seed));
    const int64_t t1 = at(p, "then1"), t2 = at(p, "then2");
    if (t1 == 0 && t2 != 0) return bad_point("then2 without then1");
    for (int64_t t : {t1, t2}) {
      if (t == 0) continue;
      const TailOp& tail = tail_ops()[static_cast<std::size_t>(t)];
      model::OpTail node{tail.op, {}, {}};
      for (float c : tail.constants)
        node.constants.push_back(
            {"", DType::float32, {}, Tensor::from_floats({}, std::vector<float>{c}), std::nullopt});
      if (tail.attribute)
        node.attributes.push_back({tail.attribute, model::float_attribute(tail.attribute_value)});
      if (std::string(tail.op) == "Softmax") node.attributes.push_back({"axis", model::int_attribute(-1)});
      if (std::string(tail.op) == "HardSwish")
        op.opset = std::max(op.opset, 14);  // HardSwish came in opset 14
      op.tail.push_back(std::move(node));
    }
    return op;
  };
  return s;
}

// Every builder first checks the point's values against each parameter's range (and the point
// names every parameter), so no builder divides by a stride of 0 a neighbour step produced.
OpSpace range_checked(OpSpace s) {
  s.build = [inner = std::move(s.build), params = s.params](const Point& p,
                                                            uint64_t seed) -> Result<OpModel> {
    for (const Param& param : params) {
      auto it = p.find(param.name);
      if (it == p.end()) return bad_point("no value for " + param.name);
      const auto [lo, hi] = std::minmax_element(param.boundary.begin(), param.boundary.end());
      const int64_t low = param.boundary.empty() ? param.lo : std::min(param.lo, *lo);
      const int64_t high = param.boundary.empty() ? param.hi : std::max(param.hi, *hi);
      if (it->second < low || it->second > high)
        return bad_point(fmt::format("{}={} outside [{}, {}]", param.name, it->second, low, high));
    }
    return inner(p, seed);
  };
  return s;
}

std::vector<OpSpace> make_spaces() {
  std::vector<OpSpace> spaces = {conv(1),
                                 conv(2),
                                 conv_transpose_1d(),
                                 slice(),
                                 dequantize_linear(),
                                 matmul(),
                                 gemm(),
                                 softmax(),
                                 reduce(),
                                 pad(),
                                 pool(),
                                 resize(),
                                 transpose(),
                                 gather(),
                                 cumsum(),
                                 layer_norm(),
                                 binary(),
                                 unary(),
                                 top_k(),
                                 quantize_linear(),
                                 depth_to_space(),
                                 cast(),
                                 instance_norm(),
                                 gather_elements(),
                                 concat(),
                                 expand_tile(),
                                 arg_max(),
                                 split(),
                                 where_clip(),
                                 trilu(),
                                 pow_space()};
  for (auto& c : contrib_spaces()) spaces.push_back(std::move(c));
  const std::size_t bases = spaces.size();
  // Chains after every op whose first output is float (QuantizeLinear's, Cast's, ArgMax's are not).
  for (std::size_t i = 0; i < bases; ++i)
    if (spaces[i].name != "QuantizeLinear" && spaces[i].name != "Cast" && spaces[i].name != "ArgMax")
      spaces.push_back(with_tail(spaces[i]));
  spaces.push_back(random_graph_space());
  for (auto& s : spaces) s = range_checked(std::move(s));
  return spaces;
}

}  // namespace

Error bad_point(const std::string& why) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, "invalid point: " + why);
}

OpInput data(const std::string& name, Shape shape, DType dtype,
             std::optional<std::pair<double, double>> range) {
  return {name, dtype, std::move(shape), std::nullopt, range};
}

Result<OpInput> weight(const std::string& name, Shape shape, uint64_t seed, double lo, double hi,
                       DType dtype) {
  PARITY_ASSIGN_OR_RETURN(t, probe::random_tensor(dtype, shape, {lo, hi}, probe::derive_seed(seed, name, 0)));
  return OpInput{name, dtype, std::move(shape), std::move(t), std::nullopt};
}

OpInput int64s(const std::string& name, const std::vector<int64_t>& values, std::optional<Shape> shape) {
  std::vector<std::byte> bytes(values.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  Shape s = shape.value_or(Shape{static_cast<int64_t>(values.size())});
  auto t = Tensor::from_bytes(DType::int64, s, std::move(bytes));
  return {name, DType::int64, std::move(s), std::move(*t), std::nullopt};
}

const std::vector<OpSpace>& op_spaces() {
  static const std::vector<OpSpace> spaces = make_spaces();
  return spaces;
}

const OpSpace* find_space(const std::string& name) {
  for (const auto& s : op_spaces())
    if (s.name == name) return &s;
  return nullptr;
}

Point sample_point(const OpSpace& space, std::mt19937_64& rng) {
  Point p;
  std::uniform_real_distribution<double> coin(0, 1);
  for (const Param& param : space.params) {
    if (!param.boundary.empty() && coin(rng) < 0.8) {
      std::uniform_int_distribution<std::size_t> pick(0, param.boundary.size() - 1);
      p[param.name] = param.boundary[pick(rng)];
    } else {
      std::uniform_int_distribution<int64_t> pick(param.lo, param.hi);
      p[param.name] = pick(rng);
    }
  }
  return p;
}

std::string value_text(int64_t v) { return v == kBig ? "max" : v == -kBig ? "-max" : std::to_string(v); }

std::string point_text(const Point& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + value_text(v);
  return s;
}

std::string values_list(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + value_text(x);
  return s.empty() ? "-" : s;
}

std::vector<int64_t> neighbour_values(const Param& param, int64_t value) {
  std::vector<int64_t> out;
  if (param.kind == ParamKind::seed) return out;  // a seed's neighbours are unrelated draws
  auto add = [&](int64_t v) {
    if (v != value && v >= std::min(param.lo, value) && v <= std::max(param.hi, value) &&
        std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  };
  if (value != kBig && value != -kBig) {
    add(value - 1);
    add(value + 1);
  }
  // The nearest boundary values on each side: where a kernel's path would change.
  std::vector<int64_t> sorted = param.boundary;
  std::sort(sorted.begin(), sorted.end());
  auto hi = std::upper_bound(sorted.begin(), sorted.end(), value);
  if (hi != sorted.end()) add(*hi);
  auto lo = std::lower_bound(sorted.begin(), sorted.end(), value);
  if (lo != sorted.begin()) add(*(lo - 1));
  return out;
}

std::vector<int64_t> further_values(const Param& param, int64_t value, const std::vector<int64_t>& tried,
                                    std::size_t per_side) {
  if (param.kind == ParamKind::seed) return {};
  int64_t low = value, high = value;
  for (int64_t t : tried) {
    low = std::min(low, t);
    high = std::max(high, t);
  }
  std::vector<int64_t> sorted = param.boundary;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<int64_t> below, above, out;
  for (auto it = sorted.rbegin(); it != sorted.rend() && below.size() < per_side; ++it)
    if (*it < low) below.push_back(*it);
  for (auto it = sorted.begin(); it != sorted.end() && above.size() < per_side; ++it)
    if (*it > high) above.push_back(*it);
  for (std::size_t i = 0; i < per_side; ++i) {  // nearest first, the two sides taking turns
    if (i < below.size()) out.push_back(below[i]);
    if (i < above.size()) out.push_back(above[i]);
  }
  return out;
}

}  // namespace parity::hunt
