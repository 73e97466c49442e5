#include "model/fp16_convert.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/file_io.h"
#include "model/guarded_inference.h"
#include "model/onnx_model.h"
#include "model/proto_io.h"
#include "parity/dtype.h"

namespace parity::model {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kHalf = onnx::TensorProto::FLOAT16;
constexpr int32_t kUntyped = 0;     // nothing says what the value is
constexpr int32_t kNotTensor = -1;  // a sequence, map or optional: never converted

// A float32 value's precision after conversion; also an index into per-precision arrays.
enum Prec : int8_t { kNone = -1, kFp32 = 0, kFp16 = 1 };
constexpr std::array<const char*, 2> kSuffix = {"_fp32", "_fp16"};
constexpr std::array<int32_t, 2> kElemType = {kFloat, kHalf};

// The oldest opset whose Cast takes `to` as a number (Cast-6) and whose ops mostly list float16.
constexpr int64_t kMinOpset = 7;

Error bad(std::string message, std::string hint) {
  return make_error(ErrorKind::bad_input, Stage::load_model, std::move(message), std::move(hint));
}

std::string node_op(const onnx::NodeProto& n) {
  const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
  return default_domain ? n.op_type() : n.domain() + ":" + n.op_type();
}

std::string node_label(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

bool has_graph_attribute(const onnx::NodeProto& n) {
  return std::any_of(n.attribute().begin(), n.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Element types of every top-level value of the float32 model.

using ElemTypes = std::unordered_map<std::string, int32_t>;  // name -> ONNX elem type or kNotTensor

int32_t elem_type_of(const onnx::TypeProto& t) {
  if (t.has_tensor_type()) return t.tensor_type().elem_type();
  return t.value_case() == onnx::TypeProto::VALUE_NOT_SET ? kUntyped : kNotTensor;
}

void note_value(ElemTypes& types, const onnx::ValueInfoProto& v) {
  if (!v.has_type()) return;
  if (const int32_t t = elem_type_of(v.type()); t != kUntyped) types.emplace(v.name(), t);
}

// The element types of one scope's values: what the enclosing scopes have (`types`, for the values
// a subgraph reads from outside), then what the scope declares, then what ONNX shape inference
// found in it (`inferred`, the same scope of the inferred copy; null when inference threw on the
// model: the values it would have typed stay untyped, and the nodes touching them stay float32).
ElemTypes scope_types(const onnx::GraphProto& g, const onnx::GraphProto* inferred, ElemTypes types) {
  ElemTypes local;
  for (const auto& init : g.initializer()) local[init.name()] = init.data_type();
  for (const auto& s : g.sparse_initializer()) local[s.values().name()] = s.values().data_type();
  for (const auto& v : g.input()) note_value(local, v);
  for (const auto& v : g.output()) note_value(local, v);
  for (const auto& v : g.value_info()) note_value(local, v);
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      if (const auto* value = find_attribute(n, "value"); value && value->has_t())
        local.emplace(n.output(0), value->t().data_type());
  if (inferred) {
    for (const auto& v : inferred->value_info()) note_value(local, v);
    for (const auto& v : inferred->output()) note_value(local, v);
  }
  for (auto& [name, t] : local) types[name] = t;
  return types;
}

// Why a model fails ONNX's strict type check, or nullopt when it passes; an Error when the check
// crashes.
Result<std::optional<std::string>> type_check_failure(const onnx::ModelProto& m, const std::string& origin) {
  PARITY_ASSIGN_OR_RETURN(inferred, detail::infer_shapes_guarded(m, origin, /*strict=*/true));
  return inferred.failure;
}

// ---------------------------------------------------------------------------------------------
// Names a subgraph reads from the enclosing scopes, and renaming them.

void scan_outer_reads(const onnx::GraphProto& g, std::unordered_set<std::string> defined,
                      std::vector<std::string>& reads) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& n : g.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in)) reads.push_back(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) scan_outer_reads(a.g(), defined, reads);
      for (const auto& sg : a.graphs()) scan_outer_reads(sg, defined, reads);
    }
    for (const auto& out : n.output()) defined.insert(out);
  }
  for (const auto& o : g.output())  // a branch may return an outer value as it is
    if (!defined.count(o.name())) reads.push_back(o.name());
}

std::vector<std::string> outer_reads(const onnx::NodeProto& n) {
  std::vector<std::string> reads;
  for (const auto& a : n.attribute()) {
    if (a.has_g()) scan_outer_reads(a.g(), {}, reads);
    for (const auto& sg : a.graphs()) scan_outer_reads(sg, {}, reads);
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  return reads;
}

using Renames = std::unordered_map<std::string, std::string>;

void rename_outer_reads(onnx::GraphProto& g, const Renames& renames,
                        std::unordered_set<std::string> defined) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (auto& n : *g.mutable_node()) {
    for (int j = 0; j < n.input_size(); ++j)
      if (auto it = renames.find(n.input(j)); it != renames.end() && !defined.count(n.input(j)))
        n.set_input(j, it->second);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_outer_reads(*a.mutable_g(), renames, defined);
      for (auto& sg : *a.mutable_graphs()) rename_outer_reads(sg, renames, defined);
    }
    for (const auto& out : n.output()) defined.insert(out);
  }
  for (auto& o : *g.mutable_output())
    if (auto it = renames.find(o.name()); it != renames.end() && !defined.count(o.name()))
      o.set_name(it->second);
}

void collect_names(const onnx::GraphProto& g, std::unordered_set<std::string>& names) {
  for (const auto& v : g.input()) names.insert(v.name());
  for (const auto& v : g.output()) names.insert(v.name());
  for (const auto& v : g.value_info()) names.insert(v.name());
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& n : g.node()) {
    names.insert(n.name());
    for (const auto& o : n.output()) names.insert(o);
    for (const auto& i : n.input()) names.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_names(a.g(), names);
      for (const auto& sg : a.graphs()) collect_names(sg, names);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Per node: which precision each float32 input must arrive in and each float32 output leaves in.

struct NodePlan {
  bool blocked = false;  // stays float32 as a whole
  std::string reason;
  std::vector<Prec> in_want;     // per input: kNone (not float32), kFp32 or kFp16
  std::vector<Prec> out_home;    // per output: idem; kNone also for a Constant source (decided later)
  bool rewrite_cast = false;     // Cast: its `to` FLOAT becomes FLOAT16
  bool convert_value = false;    // ConstantOfShape: its float32 `value` becomes float16
  bool constant_source = false;  // Constant of a float32 tensor: precision set by its readers
  std::vector<std::string> subgraph_reads;  // top-level values its subgraphs read
};

// Float32 weights with a finite magnitude beyond float16's range: value name (initializer, Constant or
// ConstantOfShape output) -> the largest such magnitude.
using WideWeights = std::map<std::string, double>;

std::string wide_reason(const std::string& name, double max_abs) {
  char magnitude[32];
  std::snprintf(magnitude, sizeof magnitude, "%.3g", max_abs);
  return "reads '" + detail::printable(name) + "', a weight beyond float16's range (|x| up to " + magnitude +
         ")";
}

class Planner {
 public:
  Planner(const ElemTypes& types, const std::set<std::string>& block_ops,
          const std::set<std::string>& failed_functions, const std::map<std::string, int64_t>& opsets,
          const WideWeights& wide)
      : types_(types),
        block_ops_(block_ops),
        failed_functions_(failed_functions),
        opsets_(opsets),
        wide_(wide) {}

  NodePlan plan(const onnx::NodeProto& n) const {
    NodePlan p;
    p.in_want.assign(static_cast<std::size_t>(n.input_size()), kNone);
    p.out_home.assign(static_cast<std::size_t>(n.output_size()), kNone);
    if (has_graph_attribute(n)) p.subgraph_reads = outer_reads(n);

    bool touches_float = false, untyped = false;
    auto look = [&](const std::string& name) {
      if (name.empty()) return;
      const int32_t t = type_of(name);
      touches_float |= t == kFloat;
      untyped |= t == kUntyped || t == kNotTensor;
    };
    for (const auto& i : n.input()) look(i);
    for (const auto& o : n.output()) look(o);
    for (const auto& r : p.subgraph_reads) touches_float |= type_of(r) == kFloat;
    if (!touches_float && !untyped) return p;  // nothing of it changes

    if (n.op_type() == "Constant" && is_default_domain(n.domain()) && n.output_size() == 1) {
      const auto* value = find_attribute(n, "value");
      if (value && value->has_t() && value->t().data_type() == kFloat)
        p.constant_source = true;
      else if (type_of(n.output(0)) == kFloat)
        p.out_home[0] = kFp32;  // value_float(s) or sparse_value: readers get a Cast
      return p;
    }
    if (!p.subgraph_reads.empty() || has_graph_attribute(n))
      return block(n, std::move(p),
                   "has a subgraph (float32 at its borders; its body is converted on its own)");
    if (block_ops_.count(n.op_type())) return block(n, std::move(p), "in the block list");
    if (failed_functions_.count(n.op_type()))
      return block(n, std::move(p), "its ONNX function body does not type-check in float16");
    if (n.op_type() == "ScatterElements" || n.op_type() == "ScatterND")
      if (const auto* r = find_attribute(n, "reduction"); r && !r->s().empty() && r->s() != "none")
        return block(n, std::move(p),
                     "ORT 1.30's CPU EP has no float16 kernel for reduction '" + r->s() + "'");
    for (const auto& in : n.input())
      if (auto w = wide_.find(in); w != wide_.end())
        return block(n, std::move(p), wide_reason(in, w->second));
    if (n.op_type() == "ConstantOfShape" && n.output_size() == 1)
      if (auto w = wide_.find(n.output(0)); w != wide_.end())
        return block(n, std::move(p), wide_reason(n.output(0), w->second));
    if (untyped) return block(n, std::move(p), "reads or writes a value of unknown or non-tensor type");

    const std::string domain = is_default_domain(n.domain()) ? std::string() : n.domain();
    const auto opset = opsets_.find(domain);
    const std::string opset_name =
        (domain.empty() ? "ai.onnx" : domain) + " opset " +
        (opset == opsets_.end() ? std::string("?") : std::to_string(opset->second));
    const onnx::OpSchema* schema =
        opset == opsets_.end()
            ? nullptr
            : onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset->second), domain);
    if (!schema) return block(n, std::move(p), "no ONNX schema for it in " + opset_name);

    for (int j = 0; j < n.input_size(); ++j) {
      if (n.input(j).empty() || type_of(n.input(j)) != kFloat) continue;
      const auto* formal = formal_at(schema->inputs(), j);
      if (!formal)
        return block(n, std::move(p),
                     "input " + std::to_string(j) + " is not in its " + opset_name + " schema");
      const std::string& ts = formal->GetTypeStr();
      if (!is_constraint(*schema, ts)) {
        p.in_want[j] = kFp32;  // a fixed tensor(float) input: Resize's scales, Upsample's scales
      } else if (allows_half(*schema, ts)) {
        p.in_want[j] = kFp16;
      } else {
        return block(n, std::move(p), "type " + ts + " has no float16 in " + opset_name);
      }
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k).empty() || type_of(n.output(k)) != kFloat) continue;
      const auto* formal = formal_at(schema->outputs(), k);
      if (!formal)
        return block(n, std::move(p),
                     "output " + std::to_string(k) + " is not in its " + opset_name + " schema");
      const std::string& ts = formal->GetTypeStr();
      if (!is_constraint(*schema, ts)) {
        p.out_home[k] = kFp32;  // a fixed tensor(float) output: DequantizeLinear-13's y
        continue;
      }
      if (!allows_half(*schema, ts))
        return block(n, std::move(p), "type " + ts + " has no float16 in " + opset_name);
      if (bound_to_input(n, *schema, ts)) {
        p.out_home[k] = kFp16;
        continue;
      }
      // The output's type is set by an attribute. Cast(to=FLOAT) becomes FLOAT16, as in the
      // converters; a `dtype` (RandomNormal, EyeLike) stays: ORT 1.30's CPU EP has no float16 EyeLike.
      const auto* to = n.op_type() == "Cast" ? find_attribute(n, "to") : nullptr;
      if (to && to->type() == onnx::AttributeProto::INT && to->i() == kFloat) {
        p.rewrite_cast = true;
        p.out_home[k] = kFp16;
      } else if (const auto* value = find_attribute(n, "value"); n.op_type() == "ConstantOfShape" && value &&
                                                                 value->has_t() &&
                                                                 value->t().data_type() == kFloat) {
        p.convert_value = true;
        p.out_home[k] = kFp16;
      } else {
        return block(n, std::move(p), "its float32 output type is set by an attribute, not by an input");
      }
    }
    return p;
  }

 private:
  static bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

  int32_t type_of(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? kUntyped : it->second;
  }

  static const onnx::OpSchema::FormalParameter* formal_at(
      const std::vector<onnx::OpSchema::FormalParameter>& fs, int index) {
    if (static_cast<std::size_t>(index) < fs.size()) return &fs[static_cast<std::size_t>(index)];
    if (!fs.empty() && fs.back().GetOption() == onnx::OpSchema::Variadic) return &fs.back();
    return nullptr;
  }

  static const onnx::OpSchema::TypeConstraintParam* constraint(const onnx::OpSchema& s,
                                                               const std::string& ts) {
    for (const auto& c : s.typeConstraintParams())
      if (c.type_param_str == ts) return &c;
    return nullptr;
  }
  static bool is_constraint(const onnx::OpSchema& s, const std::string& ts) {
    return constraint(s, ts) != nullptr;
  }
  static bool allows_half(const onnx::OpSchema& s, const std::string& ts) {
    const auto* c = constraint(s, ts);
    return c && std::find(c->allowed_type_strs.begin(), c->allowed_type_strs.end(), "tensor(float16)") !=
                    c->allowed_type_strs.end();
  }
  // Whether some present input shares the type parameter `ts` (then the output follows it).
  static bool bound_to_input(const onnx::NodeProto& n, const onnx::OpSchema& s, const std::string& ts) {
    for (int j = 0; j < n.input_size(); ++j) {
      if (n.input(j).empty()) continue;
      const auto* formal = formal_at(s.inputs(), j);
      if (formal && formal->GetTypeStr() == ts) return true;
    }
    return false;
  }

  NodePlan block(const onnx::NodeProto& n, NodePlan p, std::string reason) const {
    p.blocked = true;
    p.reason = std::move(reason);
    p.rewrite_cast = p.convert_value = false;
    for (int j = 0; j < n.input_size(); ++j)
      p.in_want[static_cast<std::size_t>(j)] =
          !n.input(j).empty() && type_of(n.input(j)) == kFloat ? kFp32 : kNone;
    for (int k = 0; k < n.output_size(); ++k)
      p.out_home[static_cast<std::size_t>(k)] =
          !n.output(k).empty() && type_of(n.output(k)) == kFloat ? kFp32 : kNone;
    return p;
  }

  const ElemTypes& types_;
  const std::set<std::string>& block_ops_;
  const std::set<std::string>& failed_functions_;
  const std::map<std::string, int64_t>& opsets_;
  const WideWeights& wide_;
};

// ---------------------------------------------------------------------------------------------
// Tensor conversion.

// Rewrites a float32 tensor as float16 in place (raw_data), clamping into range as float16.py's
// convert_np_to_float16 does: sign and finiteness are kept, NaN/inf/0 pass unchanged.
Status convert_tensor(onnx::TensorProto& p, const Fp16Options& o, const std::string& origin,
                      Fp16Report& report) {
  Result<NamedTensor> decoded = detail::tensor_from_proto(p, origin, std::nullopt);
  if (!decoded.ok()) {
    Error e = decoded.error();
    e.stage = Stage::load_model;
    return e;
  }
  const auto values = decoded->tensor.view<float>();
  std::string raw(values.size() * sizeof(uint16_t), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) {
    float x = values[i];
    if (std::isfinite(x)) {
      const float a = std::fabs(x);
      if (a > o.max_finite) {
        x = std::copysign(o.max_finite, x);
        ++report.clamped_values;
      } else if (a > 0 && a < o.min_positive) {
        x = std::copysign(o.min_positive, x);
        ++report.clamped_values;
      }
    }
    const uint16_t h = float_to_half(x);
    std::memcpy(raw.data() + i * sizeof(uint16_t), &h, sizeof(uint16_t));
  }
  p.clear_float_data();
  p.set_data_type(kHalf);
  p.set_raw_data(std::move(raw));
  return ok_status();
}

// ---------------------------------------------------------------------------------------------
// The conversion of one parsed model.

struct FloatValue {
  Prec home = kNone;                // precision its producer leaves it in
  std::array<bool, 2> wanted = {};  // some reader needs it in that precision
  std::array<std::string, 2> name;  // its name in each precision it exists in
  bool graph_output = false;
  bool initializer = false;
  int producer = -1;      // node index; -1 for graph inputs and initializers
  bool constant = false;  // produced by a Constant source node
};

// What every scope's converter of one model shares: the settings, the names already taken in the
// whole model (a Cast's new name must clash with none), and the report they add to.
struct Shared {
  const Fp16Options& o;
  const std::set<std::string>& failed_functions;
  std::string origin;
  std::set<std::string> block_ops;
  std::map<std::string, int64_t> opsets;
  std::unordered_set<std::string> names;
  Fp16Report report;
  int fp16_compute = 0;  // nodes computing in float16 whose op changes values (not only moves them)
};

// Ops that move or copy values without computing new ones: float16 in them alone converts nothing.
bool moves_values_only(const onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {
      "Identity", "Reshape",  "Flatten", "Squeeze",        "Unsqueeze", "Transpose", "Concat",
      "Split",    "Slice",    "Gather",  "GatherElements", "GatherND",  "Expand",    "Tile",
      "Cast",     "CastLike", "Shape",   "Size",           "Dropout",   "Constant",  "ConstantOfShape"};
  return (n.domain().empty() || n.domain() == "ai.onnx") && kOps.count(n.op_type()) > 0;
}

// The checks on the whole model before any scope is converted; fills the shared opsets.
Status check_model(const onnx::ModelProto& m, Shared& sh) {
  const onnx::GraphProto& g = m.graph();
  for (const auto& o : m.opset_import())
    sh.opsets[o.domain() == "ai.onnx" ? std::string() : o.domain()] = o.version();
  const auto onnx_opset = sh.opsets.find("");
  if (onnx_opset == sh.opsets.end() || onnx_opset->second < kMinOpset)
    return bad(
        sh.origin + ": the fp16 converter needs ai.onnx opset " + std::to_string(kMinOpset) +
            " or newer (the model has " +
            (onnx_opset == sh.opsets.end() ? std::string("none") : std::to_string(onnx_opset->second)) + ")",
        "upgrade the model with onnx.version_converter.convert_version first");
  // As float16.py's check_if_fp16_ready: converting twice would stack Casts on Casts.
  int fp16 = 0;
  for (const auto& t : g.initializer()) fp16 += t.data_type() == kHalf;
  for (const auto* vs : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *vs)
      fp16 += v.type().has_tensor_type() && v.type().tensor_type().elem_type() == kHalf;
  for (const auto& n : g.node())
    if (n.op_type() == "Cast")
      if (const auto* to = find_attribute(n, "to"); to && to->i() == kHalf) ++fp16;
  if (fp16 > 0)
    return bad(sh.origin + ": the model already holds float16 (" + std::to_string(fp16) +
                   " initializers, declared values or Casts to float16)",
               "convert the float32 original instead");
  for (const auto& t : g.initializer())
    if (t.data_type() == kFloat &&
        (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0))
      return bad(sh.origin + ": initializer '" + detail::printable(t.name()) +
                     "' keeps its data in an external file, which the fp16 converter does not read",
                 "load the model with its external data and save it with the weights inline first");
  return ok_status();
}

// Converts one scope: the top-level graph, or an If/Loop/Scan body. A body is converted as a
// model of its own whose borders stay float32 (its node stays float32 in the enclosing scope), so
// its inputs, outputs and the values it reads from outside arrive and leave as float32 through
// Casts, and its weights and arithmetic become float16 by the same rules.
class Converter {
 public:
  Converter(onnx::GraphProto& g, const onnx::GraphProto* inferred, ElemTypes outer, bool top, Shared& sh)
      : g_(g),
        inferred_(inferred),
        o_(sh.o),
        origin_(sh.origin),
        sh_(sh),
        report_(sh.report),
        names_(sh.names),
        types_(scope_types(g, inferred, std::move(outer))),
        top_(top) {}

  // Decides every value's precision, the bodies' first: a value of this scope read inside a body
  // reaches it in the precision the body wants it in.
  Status plan() {
    PARITY_ASSIGN_OR_RETURN(wide, wide_weights());
    const Planner planner(types_, sh_.block_ops, sh_.failed_functions, sh_.opsets, wide);
    for (int i = 0; i < g_.node_size(); ++i) plans_.push_back(planner.plan(g_.node(i)));
    for (int i = 0; i < g_.node_size(); ++i) {
      onnx::NodeProto& n = *g_.mutable_node(i);
      for (int a = 0; a < n.attribute_size(); ++a) {
        onnx::AttributeProto& attr = *n.mutable_attribute(a);
        const onnx::AttributeProto* inferred = inferred_attribute(i, a);
        if (attr.has_g())
          bodies_.push_back(
              {i, std::make_unique<Converter>(*attr.mutable_g(),
                                              inferred && inferred->has_g() ? &inferred->g() : nullptr,
                                              types_, false, sh_)});
        for (int k = 0; k < attr.graphs_size(); ++k)
          bodies_.push_back({i, std::make_unique<Converter>(
                                    *attr.mutable_graphs(k),
                                    inferred && k < inferred->graphs_size() ? &inferred->graphs(k) : nullptr,
                                    types_, false, sh_)});
      }
    }
    for (auto& [node, body] : bodies_) PARITY_TRY(body->plan());

    gather_values();
    decide_homes();
    for (int i = 0; i < g_.node_size(); ++i)
      if (!moves_values_only(g_.node(i)) && computes_fp16(g_.node(i), plans_[static_cast<std::size_t>(i)]))
        ++sh_.fp16_compute;
    name_values();
    return ok_status();
  }

  Status run() {
    PARITY_TRY(plan());
    return rewrite();
  }

  // The precision this body wants the outer value `name` in: float16 when only float16 readers
  // read it here; nullopt when the body does not read it as a float32 value.
  std::optional<Prec> outer_want(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end() || it->second.producer >= 0 || it->second.initializer || is_input(name))
      return std::nullopt;
    return it->second.home;
  }

 private:
  bool computes_fp16(const onnx::NodeProto& n, const NodePlan& p) const {
    if (p.blocked) return false;
    for (int k = 0; k < n.output_size(); ++k)
      if (p.out_home[static_cast<std::size_t>(k)] == kFp16) return true;
    return false;
  }

  // The largest finite magnitude of a float32 weight, or an Error when it cannot be decoded.
  Result<double> max_finite_abs(const onnx::TensorProto& t, const std::string& what) const {
    Result<NamedTensor> decoded = detail::tensor_from_proto(t, origin_ + ": " + what, std::nullopt);
    if (!decoded.ok()) {
      Error e = decoded.error();
      e.stage = Stage::load_model;
      return e;
    }
    double max_abs = 0;
    for (const float x : decoded->tensor.view<float>())
      if (std::isfinite(x)) max_abs = std::max(max_abs, static_cast<double>(std::fabs(x)));
    return max_abs;
  }

  // Weights that clamping would change by more than float16's rounding: their readers stay float32
  // (unless the options ask for the converters' clamping). A BatchNormalization variance of 9.8e7
  // in PP-OCRv4 det clamped to 65504 scales its channel by 39x and the detection map goes wrong.
  Result<WideWeights> wide_weights() const {
    WideWeights wide;
    if (o_.clamp_wide_weights) return wide;
    auto check = [&](const onnx::TensorProto& t, const std::string& name, const std::string& what) -> Status {
      if (t.data_type() != kFloat) return ok_status();
      PARITY_ASSIGN_OR_RETURN(max_abs, max_finite_abs(t, what));
      if (max_abs > o_.max_finite) wide[name] = max_abs;
      return ok_status();
    };
    for (const auto& t : g_.initializer())
      PARITY_TRY(check(t, t.name(), "initializer '" + detail::printable(t.name()) + "'"));
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      if ((n.op_type() != "Constant" && n.op_type() != "ConstantOfShape") || n.output_size() != 1) continue;
      if (const auto* value = find_attribute(n, "value"); value && value->has_t())
        PARITY_TRY(check(value->t(), n.output(0), "node '" + node_label(n, i) + "'"));
    }
    return wide;
  }

  FloatValue* float_value(const std::string& name) {
    if (name.empty()) return nullptr;
    auto t = types_.find(name);
    if (t == types_.end() || t->second != kFloat) return nullptr;
    return &values_[name];
  }

  void gather_values() {
    std::unordered_set<std::string> inits;
    for (const auto& t : g_.initializer()) inits.insert(t.name());
    out_prec_ = o_.keep_io_types || !top_ ? kFp32 : kFp16;
    for (const auto& in : g_.input()) input_names_.insert(in.name());
    for (const auto& t : g_.initializer())
      if (FloatValue* v = float_value(t.name())) v->initializer = true;
    for (const auto& s : g_.sparse_initializer())
      if (FloatValue* v = float_value(s.values().name())) v->home = kFp32;
    for (const auto& in : g_.input())
      if (FloatValue* v = float_value(in.name()); v && !inits.count(in.name())) v->home = out_prec_;
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      const NodePlan& p = plans_[static_cast<std::size_t>(i)];
      for (int k = 0; k < n.output_size(); ++k)
        if (FloatValue* v = float_value(n.output(k))) {
          v->producer = i;
          v->constant = p.constant_source;
          v->home = p.out_home[static_cast<std::size_t>(k)];
        }
      for (int j = 0; j < n.input_size(); ++j)
        if (const Prec want = p.in_want[static_cast<std::size_t>(j)]; want != kNone)
          if (FloatValue* v = float_value(n.input(j))) v->wanted[want] = true;
      for (const auto& r : p.subgraph_reads)
        if (FloatValue* v = float_value(r)) {
          bool read = false;
          for (const auto& [node, body] : bodies_)
            if (node == i)
              if (const auto want = body->outer_want(r)) {
                v->wanted[*want] = true;
                read = true;
              }
          if (!read) v->wanted[kFp32] = true;
        }
    }
    for (const auto& out : g_.output())
      if (FloatValue* v = float_value(out.name())) {
        v->graph_output = true;
        v->wanted[out_prec_] = true;
      }
  }

  // Weights (initializers, Constants) take the precision their readers want, float16 first, as
  // ORT's float16.py does: one read by float32 ops only (Resize's scales) stays exact.
  void decide_homes() {
    for (auto& [name, v] : values_) {
      if (v.initializer || v.constant) {
        if (v.graph_output)
          v.home = out_prec_;
        else
          v.home = v.wanted[kFp16] ? kFp16 : kFp32;
      } else if (v.home == kNone && !top_ && !v.graph_output) {
        // A body's read of an outer value: float16 when only float16 readers read it here.
        v.home = v.wanted[kFp16] && !v.wanted[kFp32] ? kFp16 : kFp32;
      } else if (v.home == kNone) {
        v.home = kFp32;  // read but never produced: leave it as it is
      }
    }
  }

  std::string unique_name(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  void name_values() {
    for (auto& [name, v] : values_) {
      const Prec other = v.home == kFp16 ? kFp32 : kFp16;
      v.name[v.home] = name;
      if (v.graph_output && v.home != out_prec_ && v.producer >= 0 && !v.constant) {
        // The graph output keeps its name and type: the producer writes a new name, a Cast the output.
        v.name[v.home] = unique_name(name + kSuffix[v.home]);
        v.name[other] = name;
      } else if (v.wanted[other]) {
        v.name[other] = unique_name(name + kSuffix[other]);
      }
    }
  }

  // The Cast after `v`'s producer, if a reader needs it in the other precision.
  void emit_cast(const FloatValue& v, google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
    const Prec other = v.home == kFp16 ? kFp32 : kFp16;
    if (v.name[other].empty()) return;
    onnx::NodeProto* c = nodes.Add();
    c->set_op_type("Cast");
    c->set_name(v.name[other]);
    c->add_input(v.name[v.home]);
    c->add_output(v.name[other]);
    onnx::AttributeProto* to = c->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(kElemType[other]);
    ++report_.casts_inserted;
  }

  // The precision the value called `name` has in the converted graph (kNone: not a float32 value).
  Prec precision_of(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return kNone;
    const FloatValue& v = it->second;
    if (v.name[kFp32] == name) return kFp32;
    if (v.name[kFp16] == name) return kFp16;
    return v.home;
  }

  static void set_elem_type(onnx::ValueInfoProto& v, int32_t t) {
    v.mutable_type()->mutable_tensor_type()->set_elem_type(t);
  }

  Status rewrite() {
    // Weights first.
    for (auto& t : *g_.mutable_initializer()) {
      auto it = values_.find(t.name());
      if (it == values_.end() || it->second.home != kFp16) continue;
      PARITY_TRY(
          convert_tensor(t, o_, origin_ + ": initializer '" + detail::printable(t.name()) + "'", report_));
      ++report_.converted_initializers;
    }

    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (const auto& in : g_.input())
      if (auto it = values_.find(in.name()); it != values_.end() && it->second.producer < 0)
        emit_cast(it->second, nodes);
    for (const auto& t : g_.initializer())
      if (auto it = values_.find(t.name());
          it != values_.end() && it->second.producer < 0 && !is_input(t.name()))
        emit_cast(it->second, nodes);
    for (auto& [name, v] : values_)  // sparse initializers and dangling reads
      if (v.producer < 0 && !v.initializer && !is_input(name)) emit_cast(v, nodes);

    for (int i = 0; i < g_.node_size(); ++i) {
      onnx::NodeProto& n = *g_.mutable_node(i);
      const NodePlan& p = plans_[static_cast<std::size_t>(i)];
      const std::vector<std::string> outputs(n.output().begin(), n.output().end());  // before renaming
      PARITY_TRY(rewrite_node(n, i, p));
      *nodes.Add() = std::move(n);
      for (const auto& out : outputs)
        if (auto it = values_.find(out); it != values_.end() && it->second.producer == i)
          emit_cast(it->second, nodes);
    }
    g_.mutable_node()->Swap(&nodes);

    for (auto* vs : {g_.mutable_input(), g_.mutable_output(), g_.mutable_value_info()})
      for (auto& v : *vs)
        if (const Prec prec = precision_of(v.name()); prec != kNone && v.type().has_tensor_type())
          set_elem_type(v, kElemType[prec]);

    std::set<std::string> op_types;
    for (const auto& b : report_.blocked) op_types.insert(b.op_type);
    report_.blocked_op_types.assign(op_types.begin(), op_types.end());
    report_.blocked_nodes = static_cast<int>(report_.blocked.size());
    return ok_status();
  }

  bool is_input(const std::string& name) const { return input_names_.count(name) > 0; }

  void rename_outer_reads(const Renames& renames) { model::rename_outer_reads(g_, renames, {}); }

  // The inferred copy of node `index`'s attribute `a` (the copy keeps graph attributes only, in
  // their order), or null.
  const onnx::AttributeProto* inferred_attribute(int index, int a) const {
    if (!inferred_ || index >= inferred_->node_size()) return nullptr;
    const onnx::NodeProto& n = g_.node(index);
    const onnx::NodeProto& in = inferred_->node(index);
    int k = 0;  // the position of `a` among n's graph attributes
    for (int j = 0; j < a; ++j) k += n.attribute(j).has_g() || n.attribute(j).graphs_size() > 0;
    if (k >= in.attribute_size() || in.attribute(k).name() != n.attribute(a).name()) return nullptr;
    return &in.attribute(k);
  }

  Status rewrite_node(onnx::NodeProto& n, int index, const NodePlan& p) {
    if (p.blocked) report_.blocked.push_back({node_label(n, index), node_op(n), p.reason});
    // Bodies first, while their outer reads still have their original names; then each body reads
    // every outer value under its name in the precision that body wants.
    for (auto& [node, body] : bodies_)
      if (node == index) {
        PARITY_TRY(body->rewrite());
        Renames renames;
        for (const auto& r : p.subgraph_reads)
          if (auto it = values_.find(r); it != values_.end())
            if (const auto want = body->outer_want(r); want && it->second.name[*want] != r)
              renames[r] = it->second.name[*want];
        if (!renames.empty()) body->rename_outer_reads(renames);
      }
    for (int j = 0; j < n.input_size(); ++j)
      if (const Prec want = p.in_want[static_cast<std::size_t>(j)]; want != kNone)
        if (auto it = values_.find(n.input(j)); it != values_.end()) n.set_input(j, it->second.name[want]);
    for (int k = 0; k < n.output_size(); ++k)
      if (auto it = values_.find(n.output(k)); it != values_.end() && it->second.producer == index)
        n.set_output(k, it->second.name[it->second.home]);
    if (p.rewrite_cast) {
      for (auto& a : *n.mutable_attribute())
        if (a.name() == "to" && a.i() == kFloat) a.set_i(kHalf);
      ++report_.rewritten_casts;
    }
    const bool fp16_constant =
        p.constant_source && n.output_size() == 1 && precision_of(n.output(0)) == kFp16;
    if (p.convert_value || fp16_constant) {
      for (auto& a : *n.mutable_attribute())
        if (a.name() == "value" && a.has_t() && a.t().data_type() == kFloat) {
          PARITY_TRY(
              convert_tensor(*a.mutable_t(), o_, origin_ + ": node '" + node_label(n, index) + "'", report_));
          ++report_.converted_constants;
        }
    }
    return ok_status();
  }

  onnx::GraphProto& g_;
  const onnx::GraphProto* inferred_;  // this scope in the inferred copy; null when inference threw
  const Fp16Options& o_;
  const std::string& origin_;
  Shared& sh_;
  Fp16Report& report_;
  std::unordered_set<std::string>& names_;  // every name in the model, the Casts' included
  ElemTypes types_;                         // this scope's values and those of the enclosing scopes
  bool top_;
  std::vector<NodePlan> plans_;
  std::vector<std::pair<int, std::unique_ptr<Converter>>> bodies_;  // node index, one of its bodies
  std::map<std::string, FloatValue> values_;     // ordered: the Casts come out in a stable order
  std::unordered_set<std::string> input_names_;  // graph inputs (initializers listed as inputs too)
  Prec out_prec_ = kFp32;
};

// The op type a type-check failure names first ("(op_type:MeanVarianceNormalization)"), when it is
// an op of the model defined by an ONNX function body; "" otherwise.
std::string failing_function_op(const std::string& failure, const onnx::ModelProto& m) {
  const std::string marker = "(op_type:";
  const auto at = failure.find(marker);
  if (at == std::string::npos) return {};
  const auto end = failure.find(')', at);
  if (end == std::string::npos) return {};
  const std::string op = failure.substr(at + marker.size(), end - at - marker.size());
  const bool in_model = std::any_of(m.graph().node().begin(), m.graph().node().end(),
                                    [&](const onnx::NodeProto& n) { return n.op_type() == op; });
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op);
  return in_model && schema && (schema->HasFunction() || schema->HasContextDependentFunction()) ? op : "";
}

// Serializes `m` and writes it to `out` atomically; records the size written.
Result<Fp16Report> write_model(const onnx::ModelProto& m, const std::filesystem::path& out,
                               Fp16Report report) {
  std::string bytes;
  if (m.ByteSizeLong() > detail::kMaxProtoBytes || !m.SerializeToString(&bytes))
    return make_error(ErrorKind::internal, Stage::write_output,
                      "cannot serialize the float16 model for " + out.string(),
                      "the model is over protobuf's 2 GiB limit");
  PARITY_TRY(write_text_file(out, bytes));
  report.bytes_out = bytes.size();
  return report;
}

Result<Fp16Report> convert(const std::filesystem::path& in, const std::filesystem::path& out,
                           const Fp16Options& options) {
  const std::string origin = in.string();
  if (!(options.max_finite > 0 && options.max_finite <= 65504.0f) ||
      !(options.min_positive >= 5.96e-8f && options.min_positive < options.max_finite))
    return make_error(ErrorKind::bad_input, Stage::parse_args,
                      "fp16 clamping bounds out of range: min_positive " +
                          std::to_string(options.min_positive) + ", max_finite " +
                          std::to_string(options.max_finite),
                      "min_positive >= 5.96e-8 (float16's smallest subnormal), max_finite <= 65504");
  // inspect_model gives the precise diagnosis of unreadable or malformed files.
  PARITY_ASSIGN_OR_RETURN(info, inspect_model(in));
  onnx::ModelProto original;
  {
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(in, Stage::load_model, "model"));
    if (!detail::parse_message(bytes, original))
      return bad(origin + ": not an ONNX model", "export or save the model again");
  }
  // One forked inference gives both the strict check and the types (strict inference that passes
  // types what plain inference types); only a model that fails the strict check is inferred again,
  // plainly, for its types.
  PARITY_ASSIGN_OR_RETURN(inferred, detail::infer_shapes_guarded(original, origin, /*strict=*/true,
                                                                 /*with_subgraphs=*/true));
  const std::optional<std::string> original_failure = inferred.failure;
  if (original_failure) {
    PARITY_ASSIGN_OR_RETURN(plain, detail::infer_shapes_guarded(original, origin, /*strict=*/false,
                                                                /*with_subgraphs=*/true));
    inferred = std::move(plain);
  }
  // Inference that threw leaves nothing: the values it would have typed stay untyped.
  const onnx::GraphProto* inferred_graph = inferred.failure ? nullptr : inferred.graph.get();

  // A converted graph that ONNX's type check refuses, where the original passed, is our bug: say
  // so instead of writing a model no runtime loads. (ONNX 1.12 cannot check every opset-18+ model;
  // when the original fails too there is nothing to compare with.) One exception: ops defined by a
  // function body (MeanVarianceNormalization) whose body ONNX 1.12 cannot type in float16 (a float
  // Constant inside); those are kept float32 and the model converted again.
  std::set<std::string> failed_functions;
  for (;;) {
    onnx::ModelProto m = original;
    Shared sh{options, failed_functions, origin, {}, {}, {}, {}, 0};
    sh.block_ops.insert(default_fp16_block_list().begin(), default_fp16_block_list().end());
    sh.block_ops.insert(options.block_ops.begin(), options.block_ops.end());
    PARITY_TRY(check_model(m, sh));
    collect_names(m.graph(), sh.names);
    {
      Converter converter(*m.mutable_graph(), inferred_graph, {}, /*top=*/true, sh);
      PARITY_TRY(converter.run());
    }
    // A file called fp16 must hold some: a weight converted, or an op computing in float16 (an
    // Identity between two Casts is not a conversion).
    if (sh.report.converted_initializers + sh.report.converted_constants == 0 && sh.fp16_compute == 0)
      return bad(
          origin +
              ": nothing to convert: no float32 weight and no arithmetic of the model can become float16" +
              (sh.report.blocked_nodes > 0
                   ? " (" + std::to_string(sh.report.blocked_nodes) + " nodes must stay float32)"
                   : std::string()),
          "the model has no float32 weights or every op that reads them stays float32 (see the "
          "block list); judge the float32 file instead");
    Fp16Report report = std::move(sh.report);
    report.bytes_in = info.file_bytes;
    if (!original_failure) {
      PARITY_ASSIGN_OR_RETURN(failure, type_check_failure(m, origin));
      if (failure) {
        if (const std::string op = failing_function_op(*failure, m);
            !op.empty() && failed_functions.insert(op).second)
          continue;
        return make_error(ErrorKind::internal, Stage::write_output,
                          origin + ": the float16 graph fails ONNX type checking: " + *failure,
                          "this is a bug in Parity's fp16 converter: please report it with the model; "
                          "meanwhile add the op named above to the block list");
      }
      report.type_checked = true;
    }
    return write_model(m, out, std::move(report));
  }
}

}  // namespace

const std::vector<std::string>& default_fp16_block_list() {
  // onnxconverter-common float16.py (v1.14), DEFAULT_OP_BLOCK_LIST, in its order.
  static const std::vector<std::string> kList = {"ArrayFeatureExtractor",
                                                 "Binarizer",
                                                 "CastMap",
                                                 "CategoryMapper",
                                                 "DictVectorizer",
                                                 "FeatureVectorizer",
                                                 "Imputer",
                                                 "LabelEncoder",
                                                 "LinearClassifier",
                                                 "LinearRegressor",
                                                 "Normalizer",
                                                 "OneHotEncoder",
                                                 "RandomUniformLike",
                                                 "SVMClassifier",
                                                 "SVMRegressor",
                                                 "Scaler",
                                                 "TreeEnsembleClassifier",
                                                 "TreeEnsembleRegressor",
                                                 "ZipMap",
                                                 "NonMaxSuppression",
                                                 "TopK",
                                                 "RoiAlign",
                                                 "Resize",
                                                 "Range",
                                                 "CumSum",
                                                 "Min",
                                                 "Max",
                                                 "Upsample"};
  return kList;
}

Result<Fp16Report> convert_to_fp16(const std::filesystem::path& in, const std::filesystem::path& out,
                                   const Fp16Options& options) {
  try {
    return convert(in, out, options);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::load_model,
                      in.string() + ": out of memory while converting to float16",
                      "free memory or use a machine with more RAM");
  } catch (const std::exception& e) {
    return make_error(ErrorKind::internal, Stage::load_model, in.string() + ": unexpected error: " + e.what(),
                      "this is a bug in Parity: please report it with the file");
  }
}

}  // namespace parity::model
