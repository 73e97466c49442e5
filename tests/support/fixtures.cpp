#include "support/fixtures.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace parity::testing {

namespace fs = std::filesystem;

std::vector<std::string> fixture_names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PARITY_FIXTURES) / folder))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json load_fixture(const std::string& folder, const std::string& name) {
  std::ifstream in(fs::path(PARITY_FIXTURES) / folder / (name + ".json"));
  return nlohmann::json::parse(in, nullptr, false);
}

std::string expand(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [key, value] : vars)
    for (auto pos = s.find(key); pos != std::string::npos; pos = s.find(key, pos + value.size()))
      s.replace(pos, key.size(), value);
  return s;
}

std::map<std::string, std::string> fixture_vars(const std::string& tmp_dir) {
  std::map<std::string, std::string> vars{{"{models}", PARITY_TEST_MODELS},
                                          {"{third_party}", PARITY_THIRD_PARTY},
                                          {"{source}", PARITY_SOURCE_DIR},
                                          {"{tmp}", tmp_dir}};
  vars["{mock_icd}"] = write_mock_icd_manifest(tmp_dir);
  return vars;
}

CommandResult run_fixture(const std::string& verb, const nlohmann::json& fx,
                          const std::map<std::string, std::string>& vars,
                          const std::vector<std::string>& extra_args) {
  std::vector<std::string> args{verb};
  for (const auto& a : fx.at("args")) args.push_back(expand(a.get<std::string>(), vars));
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<std::pair<std::string, std::string>> env;
  const nlohmann::json env_spec = fx.value("env", nlohmann::json::object());
  for (const auto& [k, v] : env_spec.items()) env.emplace_back(k, expand(v.get<std::string>(), vars));
  return run_parity(args, env);
}

std::vector<std::string> unknown_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                                      const std::string& where) {
  std::vector<std::string> out;
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end()) out.push_back(where + key);
  return out;
}

}  // namespace parity::testing
