#include "sweep/sweep_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/file_io.h"
#include "core/json_io.h"
#include "isolate/protocol.h"

namespace parity::sweep {
namespace {

using nlohmann::json;

Error bad_file(const std::string& origin, const std::string& what) {
  return make_error(
      ErrorKind::bad_input, Stage::parse_args, origin + ": " + what,
      "write plans with 'parity sweep --write-plan' and keep results*.jsonl as sweeps wrote them");
}

json settings_to_json(const probe::InputSettings& s) {
  json files = json::object(), resize = json::object(), ranges = json::object();
  for (const auto& [name, path] : s.files) files[name] = path.string();
  for (const auto& [name, hw] : s.resize) resize[name] = {hw.first, hw.second};
  for (const auto& [name, r] : s.ranges) ranges[name] = {r.lo, r.hi};
  return {{"dims", s.dims},
          {"shapes", s.shapes},
          {"ranges", ranges},
          {"files", files},
          {"resize", resize},
          {"load_io", s.load_io ? json(s.load_io->string()) : json(nullptr)},
          {"seed", s.seed},
          {"samples", s.samples},
          {"max_input_bytes", s.max_input_bytes}};
}

// j[key] when it is an object, else an empty object (never a temporary: items() borrows it).
const json& object_at(const json& j, const char* key) {
  static const json empty = json::object();
  return j.contains(key) && j[key].is_object() ? j[key] : empty;
}

probe::InputSettings settings_from_json(const json& j) {
  probe::InputSettings s;
  s.dims = j.value("dims", std::map<std::string, int64_t>{});
  s.shapes = j.value("shapes", std::map<std::string, Shape>{});
  for (const auto& [name, r] : object_at(j, "ranges").items())
    s.ranges[name] = {r.at(0).get<double>(), r.at(1).get<double>()};
  for (const auto& [name, path] : object_at(j, "files").items()) s.files[name] = path.get<std::string>();
  for (const auto& [name, hw] : object_at(j, "resize").items())
    s.resize[name] = {hw.at(0).get<int64_t>(), hw.at(1).get<int64_t>()};
  if (j.contains("load_io") && j["load_io"].is_string()) s.load_io = j["load_io"].get<std::string>();
  s.seed = j.value("seed", uint64_t{0});
  s.samples = j.value("samples", 1);
  s.max_input_bytes = j.value("max_input_bytes", probe::InputSettings::kDefaultMaxInputBytes);
  return s;
}

json opt_number(const std::optional<double>& v) { return v ? json_number(*v) : json(nullptr); }

json size_search_to_json(const SizeSearch& s) {
  return {{"input", s.input},
          {"start", {s.start_height, s.start_width}},
          {"step", s.step},
          {"max_side", s.max_side},
          {"margin", s.margin}};
}

SizeSearch size_search_from_json(const json& j) {
  SizeSearch s;
  s.input = j.at("input").get<std::string>();
  s.start_height = j.at("start").at(0).get<int64_t>();
  s.start_width = j.at("start").at(1).get<int64_t>();
  s.step = j.at("step").get<int64_t>();
  s.max_side = j.at("max_side").get<int64_t>();
  s.margin = j.at("margin").get<double>();
  return s;
}

json search_size_to_json(const std::optional<SearchSize>& s) {
  if (!s) return nullptr;
  return {{"k", s->k}, {"height", s->height}, {"width", s->width}};
}

std::optional<SearchSize> search_size_from_json(const json& j) {
  if (!j.is_object()) return std::nullopt;
  return SearchSize{j.at("k").get<int64_t>(), j.at("height").get<int64_t>(), j.at("width").get<int64_t>()};
}

json cliff_to_json(const CliffResult& c) {
  json trials = json::array();
  for (const auto& t : c.trials)
    trials.push_back(
        {{"size", search_size_to_json(t.size)},
         {"outcome", std::string(to_string(t.outcome))},
         {"status", t.status},
         {"detail", t.detail},
         {"extent", t.extent.empty() ? json(nullptr) : json(t.extent)},
         {"max_abs", opt_number(t.max_abs)},
         {"cosine", opt_number(t.cosine)},
         {"run_ms", t.run_ms},
         {"peak_memory_bytes", t.peak_memory_bytes ? json(t.peak_memory_bytes) : json(nullptr)}});
  return {{"trials", trials},
          {"largest_correct", search_size_to_json(c.largest_correct)},
          {"first_failing", search_size_to_json(c.first_failing)},
          {"band_low", search_size_to_json(c.band_low)},
          {"band_high", search_size_to_json(c.band_high)},
          {"budget", search_size_to_json(c.budget)},
          {"reached_max", c.reached_max}};
}

CliffResult cliff_from_json(const json& j) {
  CliffResult c;
  for (const auto& t : j.at("trials")) {
    SizeTrial trial;
    trial.size = *search_size_from_json(t.at("size"));
    const auto outcome = size_outcome_from_string(t.at("outcome").get<std::string>());
    if (!outcome) throw json::other_error::create(501, "unknown size outcome " + t.at("outcome").dump(), &t);
    trial.outcome = *outcome;
    trial.status = t.value("status", "");
    trial.detail = t.value("detail", "");
    if (t.contains("extent") && t["extent"].is_string()) trial.extent = t["extent"];
    trial.max_abs = number_from_json(t.value("max_abs", json()));
    trial.cosine = number_from_json(t.value("cosine", json()));
    trial.run_ms = t.value("run_ms", 0.0);
    if (t.contains("peak_memory_bytes") && t["peak_memory_bytes"].is_number())
      trial.peak_memory_bytes = t["peak_memory_bytes"];
    c.trials.push_back(std::move(trial));
  }
  c.largest_correct = search_size_from_json(j.value("largest_correct", json()));
  c.first_failing = search_size_from_json(j.value("first_failing", json()));
  c.band_low = search_size_from_json(j.value("band_low", json()));
  c.band_high = search_size_from_json(j.value("band_high", json()));
  c.budget = search_size_from_json(j.value("budget", json()));
  c.reached_max = j.value("reached_max", false);
  return c;
}

}  // namespace

json plan_to_json(const SweepPlan& plan) {
  json backends = json::array(), variants = json::array(), sizes = json::array();
  for (const auto& b : plan.backends) backends.push_back(isolate::spec_to_json(b));
  for (const auto& v : plan.variants)
    variants.push_back({{"name", v.name}, {"path", v.path.string()}, {"precision", v.precision}});
  for (const auto& s : plan.sizes)
    sizes.push_back({{"input", s.input}, {"height", s.height}, {"width", s.width}});
  return {
      {"schema", kPlanSchema},
      {"model", plan.model.string()},
      {"reference", isolate::spec_to_json(plan.reference)},
      {"backends", backends},
      {"variants", variants},
      {"opt_levels", plan.opt_levels},
      {"sizes", sizes},
      {"size_search", plan.size_search ? size_search_to_json(*plan.size_search) : json(nullptr)},
      {"inputs", settings_to_json(plan.inputs)},
      {"limits", {{"timeout_s", plan.limits.timeout_s}, {"max_memory_bytes", plan.limits.max_memory_bytes}}},
      {"cells", plan.cell_count()}};
}

Result<SweepPlan> plan_from_json(const json& j, const std::string& origin) {
  if (!j.is_object() || j.value("schema", "") != kPlanSchema)
    return bad_file(origin, std::string("not a sweep plan (no \"schema\": \"") + kPlanSchema + "\")");
  try {
    SweepPlan plan;
    plan.model = j.at("model").get<std::string>();
    PARITY_ASSIGN_OR_RETURN(reference, isolate::spec_from_json(j.at("reference")));
    plan.reference = std::move(reference);
    for (const auto& b : j.at("backends")) {
      PARITY_ASSIGN_OR_RETURN(spec, isolate::spec_from_json(b));
      plan.backends.push_back(std::move(spec));
    }
    for (const auto& v : j.at("variants"))
      plan.variants.push_back({v.at("name").get<std::string>(), v.at("path").get<std::string>(),
                               v.at("precision").get<std::string>()});
    plan.opt_levels = j.at("opt_levels").get<std::vector<std::string>>();
    for (const auto& s : j.value("sizes", json::array()))
      plan.sizes.push_back(
          {s.at("input").get<std::string>(), s.at("height").get<int64_t>(), s.at("width").get<int64_t>()});
    if (j.contains("size_search") && j["size_search"].is_object())
      plan.size_search = size_search_from_json(j["size_search"]);
    plan.inputs = settings_from_json(object_at(j, "inputs"));
    const json& limits = object_at(j, "limits");
    plan.limits.timeout_s = limits.value("timeout_s", plan.limits.timeout_s);
    plan.limits.max_memory_bytes = limits.value("max_memory_bytes", uint64_t{0});
    if (plan.backends.empty() || plan.variants.empty() || plan.opt_levels.empty())
      return bad_file(origin, "the plan has an empty axis (backends, variants or opt_levels)");
    return plan;
  } catch (const json::exception& e) {
    return bad_file(origin, std::string("malformed plan: ") + e.what());
  }
}

json cell_to_json(const CellResult& r) {
  return {{"cell", r.index},
          {"backend", r.backend},
          {"ep", r.ep},
          {"variant", r.variant},
          {"opt_level", r.opt_level},
          {"size", r.size},
          {"status", std::string(probe::to_string(r.status))},
          {"failed_rule", r.failed_rule.empty() ? json(nullptr) : json(r.failed_rule)},
          {"worst_output", r.worst_output},
          {"max_abs", opt_number(r.max_abs)},
          {"cosine", opt_number(r.cosine)},
          {"error", r.error ? error_to_json(*r.error) : json(nullptr)},
          {"reference_failed", r.reference_failed},
          {"ort_version", r.ort_version},
          {"adapter", r.adapter},
          {"nodes_on_backend", r.nodes_on_backend},
          {"nodes_on_cpu", r.nodes_on_cpu},
          {"create_ms", r.create_ms},
          {"run_ms", r.run_ms},
          {"wall_ms", r.wall_ms},
          {"peak_memory_bytes", r.peak_memory_bytes ? json(r.peak_memory_bytes) : json(nullptr)},
          {"extent", r.extent.empty() ? json(nullptr) : json(r.extent)},
          {"wrong_box", r.wrong_box.empty() ? json(nullptr) : json(r.wrong_box)},
          {"finished_at", r.finished_at},
          {"cliff", r.cliff ? cliff_to_json(*r.cliff) : json(nullptr)}};
}

Result<CellResult> cell_from_json(const json& j) {
  try {
    CellResult r;
    r.index = j.at("cell").get<std::size_t>();
    r.backend = j.at("backend").get<std::string>();
    r.ep = j.value("ep", "");
    r.variant = j.at("variant").get<std::string>();
    r.opt_level = j.at("opt_level").get<std::string>();
    r.size = j.value("size", "");
    const auto status = probe::status_from_string(j.at("status").get<std::string>());
    if (!status) return bad_file("cell " + std::to_string(r.index), "unknown status " + j["status"].dump());
    r.status = *status;
    if (j.contains("failed_rule") && j["failed_rule"].is_string()) r.failed_rule = j["failed_rule"];
    r.worst_output = j.value("worst_output", "");
    r.max_abs = number_from_json(j.value("max_abs", json()));
    r.cosine = number_from_json(j.value("cosine", json()));
    if (j.contains("error") && j["error"].is_object()) r.error = error_from_json(j["error"]);
    r.reference_failed = j.value("reference_failed", false);
    r.ort_version = j.value("ort_version", "");
    r.adapter = j.value("adapter", "");
    r.nodes_on_backend = j.value("nodes_on_backend", int64_t{-1});
    r.nodes_on_cpu = j.value("nodes_on_cpu", int64_t{-1});
    r.create_ms = j.value("create_ms", 0.0);
    r.run_ms = j.value("run_ms", 0.0);
    r.wall_ms = j.value("wall_ms", 0.0);
    r.finished_at = j.value("finished_at", "");
    if (j.contains("peak_memory_bytes") && j["peak_memory_bytes"].is_number())
      r.peak_memory_bytes = j["peak_memory_bytes"];
    if (j.contains("extent") && j["extent"].is_string()) r.extent = j["extent"];
    if (j.contains("wrong_box") && j["wrong_box"].is_string()) r.wrong_box = j["wrong_box"];
    if (j.contains("cliff") && j["cliff"].is_object()) r.cliff = cliff_from_json(j["cliff"]);
    return r;
  } catch (const json::exception& e) {
    return bad_file("a result line", std::string("malformed: ") + e.what());
  }
}

Status write_plan(const SweepPlan& plan, const std::filesystem::path& path) {
  return write_text_file(path, plan_to_json(plan).dump(2) + "\n");
}

Result<SweepPlan> read_plan(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    return make_error(ErrorKind::io, Stage::parse_args, path.string() + ": cannot read the sweep plan",
                      "check the path (written by 'parity sweep --write-plan FILE' or into --out DIR)");
  const json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return bad_file(path.string(), "not valid JSON");
  return plan_from_json(j, path.string());
}

Status append_result(const std::filesystem::path& path, const CellResult& r) {
  const std::string line = cell_to_json(r).dump() + "\n";
  return append_text_file(path, line);
}

// Why result `r` is not the plan's cell r.index; empty when it is.
std::string outside_plan(const SweepPlan& plan, const CellResult& r) {
  if (r.index >= plan.cell_count())
    return "cell " + std::to_string(r.index) + " is not in the plan, which has " +
           std::to_string(plan.cell_count()) + " cells";
  const Cell c = cell_at(plan, r.index);
  auto differs = [&](const char* axis, const std::string& got, const std::string& planned) {
    return "cell " + std::to_string(r.index) + " has " + axis + " '" + got + "' where the plan has '" +
           planned + "'";
  };
  if (r.backend != plan.backends[c.backend].label)
    return differs("backend", r.backend, plan.backends[c.backend].label);
  if (r.variant != plan.variants[c.variant].name)
    return differs("variant", r.variant, plan.variants[c.variant].name);
  if (r.opt_level != plan.opt_levels[c.opt_level])
    return differs("opt level", r.opt_level, plan.opt_levels[c.opt_level]);
  if (!plan.sizes.empty() && r.size != plan.sizes[c.size].label())
    return differs("size", r.size, plan.sizes[c.size].label());
  return {};
}

// Reads one results file into `out`; rewrites it without a torn last line.
Status read_results_file(const std::filesystem::path& path, const SweepPlan& plan,
                         std::map<std::size_t, CellResult>& out) {
  std::ifstream in(path);
  std::string line, kept;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  const bool ends_with_newline = [&] {
    std::ifstream tail(path, std::ios::binary | std::ios::ate);
    if (tail.tellg() <= 0) return true;
    tail.seekg(-1, std::ios::end);
    return tail.get() == '\n';
  }();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const bool last = i + 1 == lines.size();
    const json j = json::parse(lines[i], nullptr, false);
    auto cell = j.is_discarded() ? Result<CellResult>(bad_file("", "")) : cell_from_json(j);
    if (!cell.ok()) {
      if (last && !ends_with_newline) {  // killed mid-write: drop it, keep the file appendable
        PARITY_TRY(write_text_file(path, kept));
        return ok_status();
      }
      return bad_file(path.string() + ":" + std::to_string(i + 1), "not a sweep result line");
    }
    if (const std::string why = outside_plan(plan, *cell); !why.empty())
      return bad_file(path.string() + ":" + std::to_string(i + 1), why + " (a result of another plan?)");
    kept += lines[i] + "\n";
    out[cell->index] = std::move(*cell);
  }
  return ok_status();
}

Result<std::map<std::size_t, CellResult>> read_results(const std::filesystem::path& dir,
                                                       const SweepPlan& plan) {
  std::map<std::size_t, CellResult> results;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("results", 0) == 0 && e.path().extension() == ".jsonl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) PARITY_TRY(read_results_file(f, plan, results));
  return results;
}

}  // namespace parity::sweep
