// hunt/finding_folder.h: a hunt finding as a folder: the reduced one-node model, its inputs and both
// sides' outputs in the ONNX test-data layout, repro.json (so `parity verify DIR` replays it),
// finding.json (so `parity findings verify` and `parity lint` read it) and a README stating the
// boundary and the commands that found and replay it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "hunt/hunt.h"
#include "model/op_model.h"

namespace parity::hunt {

// What the folder records about the run besides the finding itself.
struct FolderFacts {
  backend::BackendSpec reference, target;
  std::string runtime_version, adapter;  // the target's, as it reported them
  std::string command;                   // the hunt's invocation
};

Status write_finding_folder(const Finding& f, const model::OpModel& op,
                            const std::vector<NamedTensor>& inputs, const std::vector<NamedTensor>& expected,
                            const std::vector<NamedTensor>& observed, const FolderFacts& facts,
                            const std::filesystem::path& dir);

}  // namespace parity::hunt
