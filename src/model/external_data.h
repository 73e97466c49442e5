// model/external_data.h: weights kept beside a model in external data files (onnx.save with
// save_as_external_data). Runtimes resolve each tensor's `location` against the model's folder, so
// a copy of the model written elsewhere (bisect's exposed models and cuts) must bring the files
// along, and a browser must be handed them by name. A location comes from an untrusted file: one
// that is absolute or climbs out of the model's folder is refused before Parity reads, links or
// serves anything through it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "parity/result.h"

namespace parity::model {

// The file `location` names for the model at `model`: bad_input at Stage::load_model when the
// location is empty, absolute or holds "..", io when the file is missing.
Result<std::filesystem::path> external_file_path(const std::filesystem::path& model,
                                                 const std::string& location);

// Makes each of `locations` (ModelInfo::external_files of the model at `model`) readable from
// `dir` under the same relative name: a hard link, or a copy where linking fails (another file
// system). A name already there is left alone. Errors as external_file_path, io when writing fails.
Status provide_external_files(const std::filesystem::path& model, const std::vector<std::string>& locations,
                              const std::filesystem::path& dir);

}  // namespace parity::model
