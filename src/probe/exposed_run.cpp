#include "probe/exposed_run.h"

#include "model/model_surgery.h"

namespace parity::probe {

Result<std::vector<NamedTensor>> run_exposed(const backend::BackendSpec& spec,
                                             const std::filesystem::path& model,
                                             const std::vector<std::string>& values,
                                             const std::vector<NamedTensor>& inputs,
                                             const isolate::IsolationLimits& limits,
                                             const std::filesystem::path& scratch,
                                             const std::string& file_name, isolate::BackendRunner& runner) {
  PARITY_ASSIGN_OR_RETURN(surgery, model::ModelSurgery::open(model));
  const std::filesystem::path exposed = scratch / file_name;
  PARITY_TRY(surgery.write_exposed(exposed, values));
  backend::RunRequest request;
  request.model_path = exposed.string();
  request.inputs = inputs;
  request.output_names = values;
  backend::BackendSpec plain = spec;
  plain.count_nodes = false;
  auto run = runner.run(plain, request, limits);
  if (!run.result.ok()) return run.result.error();
  return std::move(run.result->outputs);
}

}  // namespace parity::probe
