#include "bisect/repro_folder.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/browser/repro_page.h"
#include "bisect/tensor_check.h"
#include "bisect/verify.h"
#include "core/file_io.h"
#include "core/shell_words.h"
#include "isolate/protocol.h"
#include "model/external_data.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "parity/version.h"

namespace parity::bisect {
namespace {

namespace fs = std::filesystem;

// repro.json's "tolerance": the fixed rule bisect ran with (--atol/--rtol); null = by dtype.
nlohmann::json tolerance_json(const Tolerance& t) {
  return {{"atol", t.atol}, {"rtol", t.rtol}, {"scale_rtol", t.scale_rtol}};
}

}  // namespace

Status write_test_data_set(const fs::path& dir, const std::string& target_label,
                           const std::vector<NamedTensor>& inputs, const std::vector<NamedTensor>& expected,
                           const std::vector<NamedTensor>& observed) {
  const fs::path set = dir / "test_data_set_0";
  const std::string label_dir = safe_file_name(target_label);  // a label is the user's text
  std::error_code ec;
  fs::create_directories(set / label_dir, ec);
  if (ec)
    return make_error(ErrorKind::io, Stage::write_output,
                      "cannot create " + dir.string() + ": " + ec.message());
  auto write_all = [](const fs::path& folder, const char* stem,
                      const std::vector<NamedTensor>& tensors) -> Status {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      PARITY_TRY(model::write_tensor_proto(folder / (stem + std::to_string(i) + ".pb"), tensors[i]));
    return ok_status();
  };
  PARITY_TRY(write_all(set, "input_", inputs));
  PARITY_TRY(write_all(set, "output_", expected));
  return write_all(set / label_dir, "output_", observed);
}

Status write_repro_folder(const BisectOptions& options, const BisectReport& report, const ReproCase& c,
                          const fs::path& dir) {
  PARITY_TRY(write_test_data_set(dir, options.target.label, c.inputs, c.expected, c.observed));
  PARITY_TRY(copy_file_to(c.model, dir / "model.onnx"));
  // Cuts carry their weights inline; a whole (exposed) model brings its external data files along.
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(c.model));
  PARITY_TRY(model::provide_external_files(c.model, info.external_files, dir));
  const auto& iso = report.isolation;
  const auto& fd = *report.first_divergent;
  const std::string measured = describe_error(iso.metrics, iso.note);
  nlohmann::json meta{
      {"schema", kReproSchema},
      {"parity_version", std::string(kParityVersion)},
      {"model", report.model},
      {"target", options.target_text},
      {"reference", options.reference_text},
      {"target_spec", isolate::spec_to_json(options.target)},
      {"reference_spec", isolate::spec_to_json(options.reference)},
      {"tolerance", options.tolerance ? tolerance_json(*options.tolerance) : nlohmann::json(nullptr)},
      {"command", shell_join(options.argv)},
      {"seed", report.seed},
      {"ort_version", report.ort_version},
      {"adapter", report.adapter},
      {"culprit", {{"tensor", fd.tensor}, {"node", fd.node}, {"op_type", fd.op_type}}},
      {"nodes", iso.nodes},
      {"reproduces", iso.reproduces},
      {"measured", measured}};
  PARITY_TRY(write_text_file(dir / "repro.json", meta.dump(2) + "\n"));

  const std::string cmd = shell_join(options.argv);
  std::string provider;
  for (const auto& [k, v] : options.target.provider_options)
    provider += (provider.empty() ? "" : ", ") + k + "=" + v;
  std::ostringstream md;
  md << "# " << fd.op_type << " node `" << fd.node << "` diverges on " << options.target.label << "\n\n"
     << "Found by `parity bisect` (Parity " << kParityVersion << ") on `" << report.model << "`.\n\n"
     << "- culprit: node `" << fd.node << "` (" << fd.op_type << "), tensor `" << fd.tensor
     << "`, born here: " << (fd.born_here ? "yes" : "no") << "\n"
     << "- isolated model: " << iso.nodes.size() << " node(s) (" << iso.note << ")\n"
     << "- measured error (target vs reference on model.onnx): " << measured << "\n"
     << (backend::is_web_backend(options.target.ep) ? "- onnxruntime-web: " : "- ONNX Runtime: ")
     << report.ort_version << "\n"
     << "- backend: `" << options.target_text << "` (EP " << options.target.ep << ", opt "
     << options.target.opt_level << ", fallback " << (options.target.allow_fallback ? "on" : "off") << ")\n"
     << "- provider options: " << (provider.empty() ? "none" : provider) << "\n"
     << "- adapter/driver: " << (report.adapter.empty() ? "n/a" : report.adapter) << "\n"
     << "- reference: `" << options.reference_text << "`\n"
     << "- input seed: " << report.seed << "\n\n"
     << "## Files\n\n"
     << "- `model.onnx`: the isolated model; initializers kept as in the original\n"
     << "- `test_data_set_0/input_K.pb`: its inputs (captured reference values), ONNX test-data layout\n"
     << "- `test_data_set_0/output_K.pb`: the reference backend's outputs (expected)\n"
     << "- `test_data_set_0/" << safe_file_name(options.target.label)
     << "/output_K.pb`: what the target returned\n\n"
     << "## Reproduce\n\n"
     << "```\n"
     << shell_join({"parity", "verify", dir.string()}) << "\n```\n\n"
     << "replays the recorded backend (every key, opt level and fallback) and tolerance, says what differs "
        "when this machine's ONNX Runtime or adapter is not the one above, and exits 1 while the target "
        "still diverges, 0 once it is fixed (`--backend SPEC` tries another). Found with:\n\n"
     << "```\n"
     << cmd << "\n```\n";
  if (const auto web = backend::browser::web_path_for(options.target.ep)) {
    std::string version, browser;
    for (const auto& [k, v] : report.target_properties) {
      if (k == "ort_web.version") version = v;
      if (k == "browser.version") browser = v;
    }
    backend::browser::ReproPage page{
        *web, version,
        std::string(fd.op_type) + " node `" + fd.node + "` diverges on " + options.target.label, c.inputs,
        c.expected};
    if (options.tolerance) {
      page.atol = options.tolerance->atol;
      page.rtol = options.tolerance->rtol;
    }
    const std::string html = backend::browser::render_repro_page(page);
    md << "\n## In a browser, without Parity\n\n"
       << "Measured with onnxruntime-web " << (version.empty() ? "?" : version) << " (`" << web->bundle
       << "`)" << (browser.empty() ? "" : " in " + browser) << ".\n";
    if (!html.empty()) {
      PARITY_TRY(write_text_file(dir / "repro.html", html));
      md << "`repro.html` loads the same release from jsDelivr and runs `model.onnx` on the embedded inputs "
            "(for the upstream issue): serve this folder with `python3 -m http.server` and open "
            "http://localhost:8000/repro.html; it prints STILL FAILS while the bug is there.\n";
    } else {
      md << "(no repro.html: the tensors are too large or of a type the page cannot embed)\n";
    }
  }
  PARITY_TRY(write_text_file(dir / "README.md", md.str()));
  return ok_status();
}

}  // namespace parity::bisect
