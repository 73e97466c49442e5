#include "lint/finding_record.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/file_io.h"

namespace parity::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Error bad_record(const fs::path& file, const std::string& why) {
  return make_error(ErrorKind::bad_input, Stage::load_model, file.string() + ": " + why,
                    "a finding.json follows docs/lint.md (schema " + std::string(kFindingSchema) + ")");
}

std::vector<long> version_parts(const std::string& v, bool& prerelease) {
  std::vector<long> parts;
  prerelease = v.find('-') != std::string::npos;
  std::stringstream in(v.substr(0, v.find('-')));
  std::string piece;
  while (std::getline(in, piece, '.')) parts.push_back(std::strtol(piece.c_str(), nullptr, 10));
  return parts;
}

}  // namespace

int compare_versions(const std::string& a, const std::string& b) {
  bool pre_a = false, pre_b = false;
  auto pa = version_parts(a, pre_a), pb = version_parts(b, pre_b);
  const std::size_t n = std::max(pa.size(), pb.size());
  pa.resize(n, 0);
  pb.resize(n, 0);
  if (pa != pb) return pa < pb ? -1 : 1;
  if (pre_a != pre_b) return pre_a ? -1 : 1;
  return 0;
}

Result<FindingRecord> read_finding(const fs::path& folder) {
  const fs::path file = folder / kFindingFile;
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error(ErrorKind::io, Stage::load_model, "cannot read " + file.string());
  const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return bad_record(file, "not a JSON object");
  if (doc.value("schema", "") != kFindingSchema)
    return bad_record(file, "schema is '" + doc.value("schema", "") + "', not " + kFindingSchema);
  FindingRecord r;
  r.folder = folder;
  r.id = folder.filename().string();
  try {
    r.rule = doc.value("rule", "");
    r.title = doc.value("title", "");
    r.upstream = doc.value("upstream", "");
    r.backends = doc.value("backends", std::vector<std::string>{});
    for (const auto& run : doc.value("runs", json::array())) {
      FindingRun f;
      f.backend = run.at("backend").get<std::string>();
      f.version = run.at("version").get<std::string>();
      f.fails = run.at("fails").get<bool>();
      f.measured = run.value("measured", "");
      f.adapter = run.value("adapter", "");
      f.date = run.value("date", "");
      r.runs.push_back(std::move(f));
    }
  } catch (const json::exception& e) {
    return bad_record(file, e.what());
  }
  if (r.rule.empty()) return bad_record(file, "names no rule");
  return r;
}

Status write_finding(const FindingRecord& r) {
  json runs = json::array();
  for (const auto& f : r.runs) {
    json run = {{"backend", f.backend}, {"version", f.version}, {"fails", f.fails}, {"measured", f.measured}};
    if (!f.adapter.empty()) run["adapter"] = f.adapter;
    if (!f.date.empty()) run["date"] = f.date;
    runs.push_back(std::move(run));
  }
  json doc = {{"schema", kFindingSchema}, {"rule", r.rule},         {"title", r.title},
              {"upstream", r.upstream},   {"backends", r.backends}, {"runs", std::move(runs)}};
  return write_text_file(r.folder / kFindingFile, doc.dump(2) + "\n");
}

Result<std::vector<FindingRecord>> read_findings(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(ErrorKind::io, Stage::load_model, "no findings folder at " + dir.string(),
                      "pass --findings DIR (Parity's own are in docs/findings/ of its source tree)");
  std::vector<FindingRecord> out;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / kFindingFile)) continue;
    PARITY_ASSIGN_OR_RETURN(record, read_finding(entry.path()));
    out.push_back(std::move(record));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

VersionVerdict verdict_for(const FindingRecord& record, const std::string& backend,
                           const std::string& version) {
  // The checked version that decides: `version` itself, else the nearest below, else above.
  std::optional<std::string> exact, below, above;
  for (const auto& run : record.runs) {
    if (run.backend != backend) continue;
    const int c = version.empty() ? -1 : compare_versions(run.version, version);
    if (c == 0) exact = run.version;
    if (c < 0 && (!below || compare_versions(run.version, *below) > 0)) below = run.version;
    if (c > 0 && (!above || compare_versions(run.version, *above) < 0)) above = run.version;
  }
  VersionVerdict v;
  const std::optional<std::string> decides = exact ? exact : below ? below : above;
  if (!decides) {
    v.basis = "not checked on " + backend;
    return v;
  }
  // Runs of that version on several adapters: it fails if it fails on any of them.
  const FindingRun* failing = nullptr;
  std::size_t adapters = 0;
  for (const auto& run : record.runs)
    if (run.backend == backend && compare_versions(run.version, *decides) == 0) {
      ++adapters;
      if (run.fails && !failing) failing = &run;
    }
  v.exact = exact.has_value();
  v.state = failing ? VersionVerdict::State::fails : VersionVerdict::State::passes;
  v.basis = std::string(failing ? "reproduced on " : "passes on ") + *decides;
  if (failing && adapters > 1 && !failing->adapter.empty()) v.basis += " (" + failing->adapter + ")";
  if (!v.exact && !version.empty()) v.basis += " (" + version + " not checked)";
  return v;
}

}  // namespace parity::lint
