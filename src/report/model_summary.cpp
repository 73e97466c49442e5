#include "report/model_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "report/probe_json.h"

namespace parity::report {
namespace {

using nlohmann::json;

std::string dim_to_string(const model::Dim& d) {
  if (d.is_fixed()) return std::to_string(d.value);
  return d.symbol.empty() ? "?" : d.symbol;
}

std::string opset_name(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

// Op types by count, most frequent first (ties by name), so the shape of a network reads at once.
std::vector<std::pair<std::string, int>> op_histogram(const model::ModelInfo& m) {
  std::vector<std::pair<std::string, int>> ops(m.op_counts.begin(), m.op_counts.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return ops;
}

std::string value_rows(const char* title, const std::vector<model::ValueInfo>& values) {
  std::size_t width = 4;
  for (const auto& v : values) width = std::max(width, v.name.size());
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    const std::string dtype = v.dtype == DType::undefined ? "?" : std::string(dtype_name(v.dtype));
    out +=
        fmt::format("{:<11}{:<{}}  {:<8} {}\n", i == 0 ? title : "", v.name, width, dtype, dims_to_string(v));
  }
  if (values.empty()) out += fmt::format("{:<11}none\n", title);
  return out;
}

// The op histogram wrapped at ~100 columns under its label.
std::string op_rows(const model::ModelInfo& m) {
  std::string out, line;
  for (const auto& [op, count] : op_histogram(m)) {
    std::string item = fmt::format("{} {}", op, count);
    if (!line.empty() && line.size() + item.size() + 2 > 88) {
      out += fmt::format("{:<11}{}\n", out.empty() ? "ops" : "", line);
      line.clear();
    }
    line += (line.empty() ? "" : ", ") + item;
  }
  if (!line.empty() || out.empty()) out += fmt::format("{:<11}{}\n", out.empty() ? "ops" : "", line);
  return out;
}

json value_to_json(const model::ValueInfo& v) {
  return {{"name", v.name},
          {"dtype", v.dtype == DType::undefined ? json(nullptr) : json(std::string(dtype_name(v.dtype)))},
          {"shape", dims_to_json(v)}};
}

}  // namespace

std::string dims_to_string(const model::ValueInfo& v) {
  if (!v.has_shape) return "unknown rank";
  std::string s = "[";
  for (std::size_t i = 0; i < v.dims.size(); ++i) s += (i ? ", " : "") + dim_to_string(v.dims[i]);
  return s + "]";
}

std::string model_summary(const model::ModelInfo& m, const probe::MissingShapes& missing) {
  std::string out =
      fmt::format("{:<11}{} ({}, IR {}{})\n", "model", m.path.string(), probe::describe_bytes(m.file_bytes),
                  m.ir_version, m.producer.empty() ? "" : ", " + m.producer);
  std::string opsets;
  for (const auto& [domain, version] : m.opsets)
    opsets += fmt::format("{}{} {}", opsets.empty() ? "" : ", ", opset_name(domain), version);
  out += fmt::format("{:<11}{}\n", "opsets", opsets.empty() ? "none declared" : opsets);
  out += value_rows("inputs", m.inputs);
  out += value_rows("outputs", m.outputs);
  out += fmt::format("{:<11}{} at the top level, {} op types; {}\n", "nodes", m.node_count,
                     m.op_counts.size(), m.control_flow.empty() ? "no control flow" : "control flow:");
  for (const auto& cf : m.control_flow)
    out += fmt::format("{:<11}{} '{}' runs {} nodes in its subgraphs ({})\n", "", cf.op_type, cf.name,
                       cf.subgraph_nodes,
                       cf.op_type == "If" ? "bisect inlines the branch the reference takes"
                                          : "bisect unrolls it when its length is fixed");
  out += fmt::format(
      "{:<11}{} initializers, {}{}\n", "weights", m.initializer_count,
      probe::describe_bytes(m.initializer_bytes),
      m.external_initializers ? fmt::format(" ({} in external data files)", m.external_initializers) : "");
  std::string types;
  for (DType t : m.element_types) types += (types.empty() ? "" : ", ") + std::string(dtype_name(t));
  out += fmt::format("{:<11}{}\n", "types", types);
  out += op_rows(m);
  if (missing.empty() && missing.value_notes.empty()) {
    out += fmt::format("{:<11}every input shape is fixed: no --dim or --shape needed\n", "to run it");
    return out;
  }
  std::vector<std::string> lines = missing.problems;
  lines.insert(lines.end(), missing.value_notes.begin(), missing.value_notes.end());
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("{:<11}{}\n", i == 0 ? "to run it" : "", lines[i]);
  if (!missing.empty()) out += fmt::format("{:<11}{}\n", "", missing.hint());
  // One line to paste as it is after `parity probe MODEL`.
  std::string flags;
  for (const auto& f : missing.all_flags()) flags += (flags.empty() ? "" : " ") + f;
  if (!flags.empty()) out += fmt::format("{:<11}{}\n", "flags", flags);
  return out;
}

json model_summary_to_json(const model::ModelInfo& m, const probe::MissingShapes& missing) {
  json inputs = json::array(), outputs = json::array(), ops = json::array(), control = json::array();
  for (const auto& v : m.inputs) inputs.push_back(value_to_json(v));
  for (const auto& v : m.outputs) outputs.push_back(value_to_json(v));
  for (const auto& [op, count] : op_histogram(m)) ops.push_back({{"op", op}, {"count", count}});
  for (const auto& cf : m.control_flow)
    control.push_back({{"name", cf.name}, {"op", cf.op_type}, {"subgraph_nodes", cf.subgraph_nodes}});
  json opsets = json::object();
  for (const auto& [domain, version] : m.opsets) opsets[opset_name(domain)] = version;
  json types = json::array();
  for (DType t : m.element_types) types.push_back(std::string(dtype_name(t)));
  return {{"schema", kInspectSchema},
          {"model", m.path.string()},
          {"file_bytes", m.file_bytes},
          {"ir_version", m.ir_version},
          {"producer", m.producer},
          {"opsets", opsets},
          {"inputs", inputs},
          {"outputs", outputs},
          {"node_count", m.node_count},
          {"ops", ops},
          {"control_flow", control},
          {"initializers",
           {{"count", m.initializer_count},
            {"bytes", m.initializer_bytes},
            {"external", m.external_initializers}}},
          {"element_types", types},
          {"missing_shapes", missing.problems},
          {"value_notes", missing.value_notes},
          {"suggested_flags", missing.all_flags()}};
}

}  // namespace parity::report
