#include "bisect/verify.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "bisect/tensor_check.h"
#include "isolate/protocol.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace parity::bisect {

namespace fs = std::filesystem;

Result<ReproMeta> read_repro_meta(const fs::path& dir) {
  std::ifstream f(dir / "repro.json");
  if (!f)
    return make_error(ErrorKind::bad_input, Stage::load_model, (dir / "repro.json").string() + " is missing",
                      "pass a folder written by 'parity bisect --out DIR'");
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || j.value("schema", "") != kReproSchema)
    return make_error(ErrorKind::bad_input, Stage::load_model,
                      (dir / "repro.json").string() + " is not a " + kReproSchema + " file");
  ReproMeta meta;
  meta.target = j.value("target", "");
  meta.reference = j.value("reference", "");
  meta.measured = j.value("measured", "");
  meta.ort_version = j.value("ort_version", "");
  meta.adapter = j.value("adapter", "");
  meta.command = j.value("command", "");
  // Folders from before the replay fields carry only the spec text: verify parses that instead.
  if (j.contains("target_spec") && j["target_spec"].is_object()) {
    auto spec = isolate::spec_from_json(j["target_spec"]);
    if (!spec.ok())
      return make_error(ErrorKind::bad_input, Stage::load_model,
                        (dir / "repro.json").string() + ": target_spec: " + spec.error().message);
    meta.target_spec = *spec;
  }
  if (const auto& t = j.value("tolerance", nlohmann::json()); t.is_object()) {
    if (!t.value("atol", nlohmann::json()).is_number() || !t.value("rtol", nlohmann::json()).is_number())
      return make_error(ErrorKind::bad_input, Stage::load_model,
                        (dir / "repro.json").string() + ": tolerance needs numbers atol and rtol");
    Tolerance tol = fixed_tolerance(t["atol"].get<double>(), t["rtol"].get<double>());
    if (t.value("scale_rtol", nlohmann::json()).is_number()) tol.scale_rtol = t["scale_rtol"].get<double>();
    meta.tolerance = tol;
  }
  return meta;
}

Result<VerifyReport> run_verify(const VerifyOptions& options, const ProgressSink& progress) {
  PARITY_ASSIGN_OR_RETURN(meta, read_repro_meta(options.dir));
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(options.dir / "model.onnx"));
  const fs::path set = options.dir / "test_data_set_0";
  std::vector<NamedTensor> inputs, expected;
  for (std::size_t i = 0; i < info.inputs.size(); ++i) {
    PARITY_ASSIGN_OR_RETURN(
        t, model::read_tensor_proto(set / ("input_" + std::to_string(i) + ".pb"), info.inputs[i].dtype));
    t.name = info.inputs[i].name;  // the graph's name wins over what the file says
    inputs.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < info.outputs.size(); ++i) {
    PARITY_ASSIGN_OR_RETURN(t, model::read_tensor_proto(set / ("output_" + std::to_string(i) + ".pb")));
    t.name = info.outputs[i].name;
    expected.push_back(std::move(t));
  }
  PARITY_ASSIGN_OR_RETURN(fault, isolate::test_fault_for(options.test_fault_env, options.backend.label));
  VerifyReport report;
  report.backend = options.backend.label;
  report.recorded_error = meta.measured;
  report.not_used = options.not_used;
  report.setup = options.backend.label + " (EP " + options.backend.ep + ", opt " + options.backend.opt_level +
                 ", fallback " + (options.backend.allow_fallback ? "on" : "off") + ")";
  if (!options.tolerance)
    report.tolerance = "tolerance by dtype";
  else
    report.tolerance = "tolerance " + describe_tolerance(*options.tolerance) +
                       (meta.tolerance && meta.tolerance->atol == options.tolerance->atol &&
                                meta.tolerance->rtol == options.tolerance->rtol
                            ? " (recorded)"
                            : " (given)");
  backend::RunRequest req;
  req.model_path = (options.dir / "model.onnx").string();
  req.inputs = inputs;
  backend::BackendSpec spec = options.backend;
  spec.count_nodes = false;
  if (progress) progress(spec.label + ": running " + req.model_path);
  std::unique_ptr<isolate::BackendRunner> own_runner;
  auto r = isolate::runner_or(options.runner, own_runner)
               .run(spec, req, options.limits, {options.worker_exe, fault, {}});
  if (!r.result.ok()) {
    report.error = r.result.error();
    return report;
  }
  report.ort_version = r.result->runtime_version;
  report.adapter = r.result->adapter;
  if (!meta.ort_version.empty() && meta.ort_version != report.ort_version)
    report.differences.push_back("runtime " + report.ort_version + " here, " + meta.ort_version +
                                 " when the repro was written");
  if (meta.adapter != report.adapter)
    report.differences.push_back("adapter '" + (report.adapter.empty() ? "none" : report.adapter) +
                                 "' here, '" + (meta.adapter.empty() ? "none" : meta.adapter) +
                                 "' when the repro was written");
  for (const auto& e : expected) {
    report.outputs.push_back(compare_one(find_named(r.result->outputs, e.name), e, options.tolerance,
                                         backend::reduced_arithmetic(options.backend)));
    if (report.outputs.back().verdict == Verdict::mismatch) report.still_fails = true;
  }
  return report;
}

}  // namespace parity::bisect
