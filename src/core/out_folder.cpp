#include "core/out_folder.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "core/run_lock.h"

namespace parity {

namespace fs = std::filesystem;

namespace {

// The records Parity writes at the top of its folders, each with a "parity.*" schema.
constexpr const char* kRecords[] = {"repro.json", "finding.json", "plan.json", "io.json"};

bool holds_record(const fs::path& dir) {
  for (const char* name : kRecords) {
    std::error_code ec;
    const fs::path file = dir / name;
    if (!fs::is_regular_file(file, ec)) continue;
    std::ifstream in(file);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("schema") && j["schema"].is_string() &&
        j["schema"].get<std::string>().rfind("parity.", 0) == 0)
      return true;
  }
  return false;
}

// Another Parity process at work in the folder: a temporary of OutputFile's
// (".NAME.tmp-XXXXXXXXXX") or the folder's run lock (core/run_lock.h).
bool is_in_flight(const fs::path& entry) {
  const std::string name = entry.filename().string();
  return name == kRunLockName ||
         (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos);
}

}  // namespace

bool is_parity_folder(const fs::path& dir) {
  if (holds_record(dir)) return true;
  std::error_code ec;
  bool any = false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::error_code kind;
    if (is_in_flight(e.path())) continue;
    if (!e.is_directory(kind) || !holds_record(e.path())) return false;
    any = true;
  }
  return any && !ec;
}

Status check_out_folder(const fs::path& dir, bool force, std::string_view flag) {
  std::error_code ec;
  const auto st = fs::symlink_status(dir, ec);
  if (ec || st.type() == fs::file_type::not_found) return ok_status();
  if (!fs::is_directory(dir, ec))
    return make_error(ErrorKind::bad_input, Stage::parse_args,
                      std::string(flag) + " " + dir.string() + ": it exists and is not a folder",
                      "give a new folder's name");
  bool empty =
      true;  // but for other Parity processes' temporaries and locks (cluster jobs sharing a sweep folder)
  for (const auto& e : fs::directory_iterator(dir, ec)) empty = empty && is_in_flight(e.path());
  if (force || empty || is_parity_folder(dir)) return ok_status();
  return make_error(ErrorKind::bad_input, Stage::parse_args,
                    std::string(flag) + " " + dir.string() +
                        ": the folder holds files that Parity did not write; they could be overwritten",
                    "give a new or empty folder, or pass --force to write into it anyway");
}

}  // namespace parity
