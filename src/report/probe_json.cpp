#include "report/probe_json.h"

#include <cmath>
#include <fstream>

#include "core/json_io.h"

namespace parity::report {
namespace {

using nlohmann::json;

json opt_number(const std::optional<double>& v) { return v ? json_number(*v) : json(nullptr); }

}  // namespace

json dims_to_json(const model::ValueInfo& v) {
  if (!v.has_shape) return nullptr;
  json dims = json::array();
  for (const auto& d : v.dims) {
    if (d.is_fixed())
      dims.push_back(d.value);
    else if (!d.symbol.empty())
      dims.push_back(d.symbol);
    else
      dims.push_back(nullptr);
  }
  return dims;
}

namespace {

json output_to_json(const probe::OutputReport& o) {
  json metrics = stats_to_json(o.stats);
  if (o.comparison) metrics.update(comparison_to_json(*o.comparison));
  return {{"name", o.name},
          {"dtype", dtype_name(o.dtype)},
          {"shape", o.shape},
          {"verdict", o.verdict == Verdict::mismatch ? "mismatch"
                      : o.inconclusive.empty()       ? "match"
                                                     : "inconclusive"},
          {"inconclusive_reason", o.inconclusive.empty() ? json(nullptr) : json(o.inconclusive)},
          {"noise_max_abs", o.noise_max_abs ? json_number(*o.noise_max_abs) : json(nullptr)},
          {"failed_rule", o.failed_rule.empty() ? json(nullptr) : json(o.failed_rule)},
          {"detail", o.detail},
          {"worst_sample", o.worst_sample},
          {"tolerance", tolerance_to_json(o.tolerance, o.comparison ? &*o.comparison : nullptr)},
          {"metrics", metrics},
          {"reference_metrics", stats_to_json(o.reference_stats)},
          {"regions", o.regions ? regions_to_json(*o.regions) : json(nullptr)},
          {"reference_spread", o.reference_spread.empty() ? json(nullptr) : json(o.reference_spread)}};
}

}  // namespace

json regions_to_json(const RegionMap& m) {
  json zero = json::array(), ref_zero = json::array();
  for (const auto& c : m.cells) {
    zero.push_back(json_number(c.zero_fraction));
    ref_zero.push_back(json_number(c.ref_zero_fraction));
  }
  return {{"grid", {m.rows, m.cols}},       {"axes", {m.height_axis, m.width_axis}},
          {"wrong_cells", m.wrong_cells()}, {"extent", std::string(to_string(m.extent()))},
          {"wrong_box", m.wrong_box()},     {"picture", m.picture()},
          {"zero_fraction", zero},          {"ref_zero_fraction", ref_zero}};
}

json stats_to_json(const TensorStats& s) {
  json channel = json::array();
  for (double c : s.channel_mean) channel.push_back(json_number(c));
  return {{"mean", json_number(s.mean)}, {"std", json_number(s.std)}, {"min", json_number(s.min)},
          {"max", json_number(s.max)},   {"channel_mean", channel},   {"zero_frac", s.zero_frac},
          {"nan_frac", s.nan_frac},      {"inf_frac", s.inf_frac}};
}

json comparison_to_json(const Comparison& c) {
  return {{"max_abs", json_number(c.max_abs)},      {"max_rel", json_number(c.max_rel)},
          {"mean_abs", json_number(c.mean_abs)},    {"cosine", opt_number(c.cosine)},
          {"pearson", opt_number(c.pearson)},       {"psnr", opt_number(c.psnr)},
          {"top1_agree", opt_number(c.top1_agree)}, {"top5_agree", opt_number(c.top5_agree)},
          {"nan_mismatch", c.nan_mismatch},         {"elements_over_tol", c.elements_over_tol},
          {"worst_index", c.worst_index},           {"ref_max_abs", json_number(c.ref_max_abs)},
          {"bound_abs", json_number(c.bound_abs)},  {"bound_used", opt_number(c.bound_used)}};
}

json tolerance_to_json(const Tolerance& t, const Comparison* c) {
  json j{{"atol", t.atol}, {"rtol", t.rtol}, {"scale_rtol", t.scale_rtol}};
  if (t.noise_abs > 0) j["noise_abs"] = t.noise_abs;
  if (c) j["bound_abs"] = json_number(c->bound_abs);
  if (t.min_cosine) j["min_cosine"] = *t.min_cosine;
  if (t.drift_cosine) j["drift_cosine"] = *t.drift_cosine;
  if (t.min_top1_agree) j["min_top1_agree"] = *t.min_top1_agree;
  return j;
}

json probe_to_json(const probe::ProbeReport& r) {
  json inputs = json::array();
  for (const auto& in : r.inputs)
    inputs.push_back({{"name", in.info.name},
                      {"dtype", dtype_name(in.info.dtype)},
                      {"shape", in.shape},
                      {"declared_shape", dims_to_json(in.info)},
                      {"source", in.source},
                      {"range", {in.range.lo, in.range.hi}}});
  json outputs = json::array();
  for (const auto& out : r.model.outputs)
    outputs.push_back(
        {{"name", out.name}, {"dtype", dtype_name(out.dtype)}, {"declared_shape", dims_to_json(out)}});
  json opsets = json::object();
  for (const auto& [domain, version] : r.model.opsets) opsets[domain.empty() ? "ai.onnx" : domain] = version;

  json backends = json::array();
  for (const auto& b : r.backends) {
    json outs = json::array();
    for (const auto& o : b.outputs) outs.push_back(output_to_json(o));
    json properties = json::object();
    for (const auto& [k, v] : b.properties) properties[k] = v;
    json jb = {
        {"name", b.name},
        {"ep", b.ep},
        {"role", b.is_reference ? "reference"
                 : b.is_noise   ? "noise"
                                : "target"},
        {"ort_version", b.ort_version},
        {"adapter", b.adapter.empty() ? json(nullptr) : json(b.adapter)},
        {"status", probe::to_string(b.status)},
        {"error", b.error ? error_to_json(*b.error) : json(nullptr)},
        {"nodes_on_backend", b.nodes_on_backend < 0 ? json(nullptr) : json(b.nodes_on_backend)},
        {"nodes_on_cpu", b.nodes_on_cpu < 0 ? json(nullptr) : json(b.nodes_on_cpu)},
        {"timing_ms",
         {{"create_session", b.create_ms}, {"run", b.run_ms}, {"wall", b.wall_ms}, {"start", b.start_ms}}},
        {"peak_memory_bytes", b.peak_rss_bytes ? json(b.peak_rss_bytes) : json(nullptr)},
        {"notes", b.notes},
        {"properties", properties},
        {"outputs", outs}};
    if (b.error && !b.worker_log.empty()) jb["worker_log"] = b.worker_log;
    backends.push_back(std::move(jb));
  }
  json j = {{"schema", kProbeSchema},
            {"parity_version", r.parity_version},
            {"model",
             {{"path", r.model.path.string()},
              {"file_bytes", r.model.file_bytes},
              {"ir_version", r.model.ir_version},
              {"opsets", opsets},
              {"producer", r.model.producer},
              {"node_count", r.model.node_count},
              {"inputs", inputs},
              {"outputs", outputs}}},
            {"reference", r.reference},
            {"reference_settings", r.reference_settings.empty() ? json(nullptr) : json(r.reference_settings)},
            {"reference_spread", r.reference_spread.empty() ? json(nullptr) : json(r.reference_spread)},
            {"noise_from", r.noise_from.empty() ? json(nullptr) : json(r.noise_from)},
            {"samples", r.samples},
            {"seed", r.seed},
            {"ok", r.all_ok()},
            {"backends", backends}};
  if (r.interrupted) {  // only then, so an uninterrupted report keeps its shape
    j["interrupted"] = true;
    j["finished"] = r.finished;
    j["unfinished"] = r.unfinished;
  }
  return j;
}

}  // namespace parity::report
