#include "hunt/random_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace parity::hunt {
namespace {

using model::Attribute;
using model::int_attribute;
using model::ints_attribute;
using model::OpInput;
using model::OpModel;
using model::OpNode;

constexpr int kMaxNodes = 8;
constexpr int64_t kMaxElements = int64_t{1} << 16;  // per tensor: every case stays a fast one

// One step's draws, all taken whatever the shapes turn out to be (see the header).
struct Draws {
  uint64_t op, operand, a, b, c;
};

class GraphBuilder {
 public:
  GraphBuilder(uint64_t weight_seed, const Shape& input) : seed_(weight_seed) {
    shapes_["x"] = input;  // the graph's input (model() adds it where a kept node reads it)
    values_.push_back("x");
  }

  // Appends the op `d` picks on the value it picks; one that does not fit becomes Relu.
  Status step(const Draws& d) {
    // Recent values are read most: deep chains, with some fan-in.
    const std::size_t n = values_.size();
    const std::string x = d.operand % 3 ? values_[n - 1] : values_[d.operand / 3 % n];
    const std::size_t node = nodes_.size();
    const std::string y = "t" + std::to_string(node);
    PARITY_ASSIGN_OR_RETURN(fits, add(d, x, y, node));
    if (!fits) {
      nodes_.resize(node);
      inits_.resize(node);
      add_node("Relu", {x}, y, {});
      shapes_[y] = shapes_[x];
    }
    values_.push_back(y);
    return ok_status();
  }

  // The model of the last `keep` nodes: what they read from the nodes before becomes graph inputs,
  // the values no kept node reads are its outputs.
  OpModel model(int keep) const {
    OpModel m;
    m.op_type.clear();
    m.outputs.clear();
    m.opset = 17;
    const std::size_t first =
        nodes_.size() - std::min<std::size_t>(nodes_.size(), static_cast<std::size_t>(keep));
    std::set<std::string> produced, read;
    for (std::size_t k = first; k < nodes_.size(); ++k) {
      for (const auto& i : nodes_[k].inputs) {
        if (i.empty() || produced.count(i) || read.count(i)) continue;
        read.insert(i);
        const auto init =
            std::find_if(inits_[k].begin(), inits_[k].end(), [&](const OpInput& w) { return w.name == i; });
        m.inputs.push_back(init != inits_[k].end() ? *init : data(i, shapes_.at(i)));
      }
      m.nodes.push_back(nodes_[k]);
      for (const auto& o : nodes_[k].outputs) produced.insert(o);
    }
    for (std::size_t k = first; k < nodes_.size(); ++k) {
      const std::string& out = nodes_[k].outputs[0];
      const bool consumed = std::any_of(m.nodes.begin(), m.nodes.end(), [&](const OpNode& n) {
        return std::find(n.inputs.begin(), n.inputs.end(), out) != n.inputs.end();
      });
      if (!consumed) m.outputs.push_back(out);
    }
    return m;
  }

 private:
  void add_node(const std::string& op, std::vector<std::string> in, const std::string& out,
                std::vector<std::pair<std::string, Attribute>> attributes) {
    const std::size_t k = nodes_.size();
    nodes_.push_back({fmt::format("{}_{}", op, k), op, std::move(in), {out}, std::move(attributes)});
    inits_.resize(nodes_.size());
  }
  // An initializer of node `k`, its name derived from the node's index (stable under shrinking).
  Result<std::string> constant(std::size_t k, const std::string& role, Shape shape, double scale) {
    const std::string name = fmt::format("n{}_{}", k, role);
    PARITY_ASSIGN_OR_RETURN(w, weight(name, std::move(shape), seed_, -scale, scale));
    inits_.resize(k + 1);
    inits_[k].push_back(std::move(w));
    return name;
  }
  std::string ints(std::size_t k, const std::string& role, const std::vector<int64_t>& v) {
    const std::string name = fmt::format("n{}_{}", k, role);
    inits_.resize(k + 1);
    inits_[k].push_back(int64s(name, v));
    return name;
  }
  // Whether the op `d` picks fits `x`; if so, node `k` computing `y` is added.
  Result<bool> add(const Draws& d, const std::string& x, const std::string& y, std::size_t k);

  uint64_t seed_;
  std::map<std::string, Shape> shapes_;
  std::vector<std::string> values_;  // every value a later node may read, in creation order
  std::vector<OpNode> nodes_;
  std::vector<std::vector<OpInput>> inits_;  // per node: its initializers
};

Result<bool> GraphBuilder::add(const Draws& d, const std::string& x, const std::string& y, std::size_t k) {
  const Shape s = shapes_.at(x);
  const auto rank = static_cast<int64_t>(s.size());
  Shape out = s;
  auto emit = [&](const std::string& op, std::vector<std::string> in,
                  std::vector<std::pair<std::string, Attribute>> attrs = {}) -> Result<bool> {
    if (shape_numel(out) > kMaxElements || shape_numel(out) == 0) return false;
    add_node(op, std::move(in), y, std::move(attrs));
    shapes_[y] = out;
    return true;
  };
  static const char* const kUnary[] = {"Relu", "Sigmoid", "Tanh", "Erf", "HardSwish", "LeakyRelu", "Clip"};
  switch (d.op % 16) {
    case 0:
    case 1: {  // Conv: plain, strided, depthwise, 1x1
      if (rank != 4) return false;
      const int64_t c = s[1];
      const bool depthwise = d.c % 4 == 0;
      const int64_t m = depthwise ? c : std::vector<int64_t>{1, 3, 4, 8, 16, 32}[d.a % 6];
      const int64_t kernel = std::vector<int64_t>{1, 3, 3, 5}[d.b % 4];
      const int64_t stride = d.c / 4 % 3 == 0 ? 2 : 1, pad = d.c / 12 % 2 ? kernel / 2 : 0;
      const int64_t group = depthwise ? c : 1;
      out = {s[0], m, (s[2] + 2 * pad - kernel) / stride + 1, (s[3] + 2 * pad - kernel) / stride + 1};
      if (out[2] < 1 || out[3] < 1) return false;
      const double scale = 1.0 / std::sqrt(static_cast<double>(c / group * kernel * kernel));
      PARITY_ASSIGN_OR_RETURN(w, constant(k, "w", {m, c / group, kernel, kernel}, scale));
      std::vector<std::string> in{x, w};
      if (d.c / 24 % 2) {
        PARITY_ASSIGN_OR_RETURN(b, constant(k, "b", {m}, 0.5));
        in.push_back(b);
      }
      return emit("Conv", in,
                  {{"kernel_shape", ints_attribute({kernel, kernel})},
                   {"strides", ints_attribute({stride, stride})},
                   {"pads", ints_attribute({pad, pad, pad, pad})},
                   {"group", int_attribute(group)}});
    }
    case 2:
    case 3: {  // an activation
      const std::string op = kUnary[d.a % 7];
      if (op == "Clip") {
        const std::string lo = fmt::format("n{}_lo", k), hi = fmt::format("n{}_hi", k);
        inits_.resize(k + 1);
        inits_[k].push_back({lo, DType::float32, {}, Tensor::from_floats({}, std::vector<float>{0.0f}), {}});
        inits_[k].push_back({hi, DType::float32, {}, Tensor::from_floats({}, std::vector<float>{0.5f}), {}});
        return emit(op, {x, lo, hi});
      }
      if (op == "LeakyRelu") return emit(op, {x}, {{"alpha", model::float_attribute(0.1)}});
      return emit(op, {x});
    }
    case 4: {  // Add or Mul: of another value of the same shape, or of a per-channel constant
      const std::string op = d.a % 2 ? "Mul" : "Add";
      for (std::size_t i = values_.size(); i-- > 0;)
        if (values_[i] != x && shapes_.at(values_[i]) == s && d.b % 2) return emit(op, {x, values_[i]});
      Shape cs(s.size(), 1);
      if (rank >= 2) cs[1] = s[1];
      PARITY_ASSIGN_OR_RETURN(c, constant(k, "c", cs, 1.0));
      return emit(op, {x, c});
    }
    case 5: {  // MaxPool or AveragePool, 2x2 stride 2 (or 3x3 stride 1 with padding)
      if (rank != 4 || s[2] < 2 || s[3] < 2) return false;
      const bool big = d.b % 2;
      const int64_t kernel = big ? 3 : 2, stride = big ? 1 : 2, pad = big ? 1 : 0;
      out = {s[0], s[1], (s[2] + 2 * pad - kernel) / stride + 1, (s[3] + 2 * pad - kernel) / stride + 1};
      return emit(d.a % 2 ? "MaxPool" : "AveragePool", {x},
                  {{"kernel_shape", ints_attribute({kernel, kernel})},
                   {"strides", ints_attribute({stride, stride})},
                   {"pads", ints_attribute({pad, pad, pad, pad})}});
    }
    case 6: {  // GlobalAveragePool
      if (rank != 4) return false;
      out = {s[0], s[1], 1, 1};
      return emit("GlobalAveragePool", {x});
    }
    case 7: {  // Transpose: a random permutation
      if (rank < 2) return false;
      std::vector<int64_t> perm(s.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::mt19937_64 rng(d.a);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (std::size_t i = 0; i < perm.size(); ++i) out[i] = s[static_cast<std::size_t>(perm[i])];
      return emit("Transpose", {x}, {{"perm", ints_attribute(perm)}});
    }
    case 8: {  // Reshape: flatten after the batch, or a rank-4 value to [N, C, H*W]
      if (rank < 2) return false;
      out = rank == 4 && d.a % 2 ? Shape{s[0], s[1], s[2] * s[3]} : Shape{s[0], shape_numel(s) / s[0]};
      return emit("Reshape", {x, ints(k, "shape", out)});
    }
    case 9: {  // MatMul with a weight on the last axis
      const int64_t n = std::vector<int64_t>{1, 4, 8, 16, 33, 64}[d.a % 6];
      out.back() = n;
      PARITY_ASSIGN_OR_RETURN(
          w, constant(k, "w", {s.back(), n}, 1.0 / std::sqrt(static_cast<double>(s.back()))));
      return emit("MatMul", {x, w});
    }
    case 10: {  // Softmax on the last axis or on axis 1
      const int64_t axis = rank >= 2 && d.a % 2 ? 1 : -1;
      return emit("Softmax", {x}, {{"axis", int_attribute(axis)}});
    }
    case 11: {  // Concat on axis 1 with another value that fits there, or with itself
      if (rank < 2) return false;
      std::string other = x;
      for (std::size_t i = values_.size(); i-- > 0;) {
        const Shape& t = shapes_.at(values_[i]);
        if (values_[i] == x || t.size() != s.size() || d.b % 2 == 0) continue;
        bool fits = true;
        for (std::size_t a = 0; a < s.size(); ++a) fits = fits && (a == 1 || t[a] == s[a]);
        if (fits) {
          other = values_[i];
          break;
        }
      }
      out[1] = s[1] + shapes_.at(other)[1];
      return emit("Concat", {x, other}, {{"axis", int_attribute(1)}});
    }
    case 12: {  // ReduceMean or ReduceMax over the last axis, kept
      out.back() = 1;
      return emit(d.a % 2 ? "ReduceMax" : "ReduceMean", {x},
                  {{"axes", ints_attribute({-1})}, {"keepdims", int_attribute(1)}});
    }
    case 13: {  // Slice of the last axis: from 1, every step-th
      if (s.back() < 2) return false;
      const int64_t step = d.a % 2 ? 2 : 1;
      out.back() = (s.back() - 1 + step - 1) / step;
      return emit("Slice", {x, ints(k, "starts", {1}), ints(k, "ends", {s.back()}), ints(k, "axes", {-1}),
                            ints(k, "steps", {step})});
    }
    case 14: {  // BatchNormalization (rank 4) or LayerNormalization (last axis)
      if (rank == 4 && d.a % 2) {
        const Shape c{s[1]};
        PARITY_ASSIGN_OR_RETURN(scale, constant(k, "scale", c, 1.0));
        PARITY_ASSIGN_OR_RETURN(bias, constant(k, "bias", c, 0.5));
        PARITY_ASSIGN_OR_RETURN(mean, constant(k, "mean", c, 0.5));
        PARITY_ASSIGN_OR_RETURN(var, weight(fmt::format("n{}_var", k), c, seed_, 0.5, 1.5));
        inits_.resize(k + 1);
        inits_[k].push_back(var);
        return emit("BatchNormalization", {x, scale, bias, mean, var.name});
      }
      if (s.back() < 4) return false;  // fewer values per row are ill-conditioned (see hunt.md)
      PARITY_ASSIGN_OR_RETURN(scale, constant(k, "scale", {s.back()}, 1.0));
      PARITY_ASSIGN_OR_RETURN(bias, constant(k, "bias", {s.back()}, 0.5));
      return emit("LayerNormalization", {x, scale, bias}, {{"axis", int_attribute(-1)}});
    }
    default: {  // Resize: nearest or linear, x2 in H and W
      if (rank != 4) return false;
      out[2] *= 2;
      out[3] *= 2;
      inits_.resize(k + 1);
      const std::string scales = fmt::format("n{}_scales", k);
      inits_[k].push_back(
          {scales, DType::float32, {4}, Tensor::from_floats({4}, std::vector<float>{1, 1, 2, 2}), {}});
      return emit("Resize", {x, "", scales},
                  {{"mode", model::text_attribute(d.a % 2 ? "linear" : "nearest")}});
    }
  }
}

Result<OpModel> build_graph(const Point& p, uint64_t weight_seed) {
  const auto at = [&](const char* name) { return p.at(name); };
  GraphBuilder g(weight_seed, {1, at("C"), at("H"), at("W")});
  std::mt19937_64 rng(static_cast<uint64_t>(at("graph")));
  for (int64_t k = 0; k < at("nodes"); ++k) {
    Draws d{rng(), rng(), rng(), rng(), rng()};
    PARITY_TRY(g.step(d));
  }
  return g.model(static_cast<int>(at("keep")));
}

}  // namespace

OpSpace random_graph_space() {
  OpSpace s;
  s.name = "Graph";
  s.op_type = "graph";
  s.summary = "random graphs of up to 8 ops that change shapes (NNSmith's idea): bugs between kernels";
  s.params = {
      {"graph", "the generator's seed", {}, 0, (int64_t{1} << 31) - 1, ParamKind::seed},
      {"nodes", "ops drawn", {2, 3, 4, 5, 6, 8}, 1, kMaxNodes, ParamKind::count},
      {"keep", "of them, the last ones kept", {kMaxNodes}, 1, kMaxNodes, ParamKind::count},
      {"C", "input channels", {1, 3, 4, 8, 16, 17, 32}, 1, 64},
      {"H", "input height", {1, 2, 7, 8, 16, 31}, 1, 32},
      {"W", "input width", {1, 4, 8, 15, 16, 33}, 1, 40},
  };
  s.build = build_graph;
  return s;
}

}  // namespace parity::hunt
