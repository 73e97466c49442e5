#include "probe/manifest_setup.h"

namespace parity::probe {
namespace {

backend::KeyValues as_key_values(const std::map<std::string, std::string>& m) { return {m.begin(), m.end()}; }

void apply_runtime(const manifest::Runtime& r, backend::BackendSpec& s) {
  s.ort_lib = r.ort_lib;
  s.ort_web = r.ort_web;
  s.allow_fallback = r.fallback;
  s.webgpu_adapter = r.adapter;
  s.intra_op_threads = r.threads;
  s.max_memory_bytes = r.max_memory_bytes;
  s.count_nodes = r.count_nodes;
  s.browser = r.browser;
  s.browser_args = r.browser_args;
  s.vulkan_faults = r.vulkan_faults;
  s.log_level = r.log_level;
  s.check_features = r.check_features;
}

}  // namespace

backend::BackendSpec spec_of(const manifest::Declaration& d, const std::string& opt_level) {
  backend::BackendSpec s;
  s.label = d.backend;
  s.ep = d.ep;
  s.opt_level = opt_level;
  s.provider_options = as_key_values(d.provider_options);
  s.session_config = as_key_values(d.session_options);
  apply_runtime(d.runtime, s);
  return s;
}

backend::BackendSpec spec_of(const manifest::Reference& r) {
  backend::BackendSpec s;
  s.label = "reference";
  s.ep = r.ep;
  s.opt_level = r.graph_optimization;
  s.provider_options = as_key_values(r.provider_options);
  s.session_config = as_key_values(r.session_options);
  apply_runtime(r.runtime, s);
  return s;
}

probe::InputSettings settings_of(const manifest::Inputs& in,
                                 const std::function<std::filesystem::path(const std::string&)>& resolve) {
  probe::InputSettings s;
  s.seed = in.seed;
  s.samples = in.samples;
  s.dims = in.dims;
  for (const auto& [name, dims] : in.shapes) s.shapes[name] = Shape(dims.begin(), dims.end());
  for (const auto& [name, r] : in.ranges) s.ranges[name] = {r.first, r.second};
  for (const auto& [name, path] : in.files) s.files[name] = resolve(path);
  s.resize = in.resize;
  if (!in.load_io.empty()) s.load_io = resolve(in.load_io);
  if (in.max_input_bytes) s.max_input_bytes = in.max_input_bytes;
  return s;
}

}  // namespace parity::probe
