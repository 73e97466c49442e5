// bisect/repro_folder.h: the folder `parity bisect --out DIR` writes for upstream: the isolated
// model, its inputs and both sides' outputs in the ONNX test-data layout, repro.json (read back by
// `parity verify`), a README with the facts and commands, and repro.html for browser targets.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bisect/bisect.h"

namespace parity::bisect {

// The isolated case a repro folder holds.
struct ReproCase {
  std::filesystem::path model;        // the smallest reproducing subgraph, as written by bisect
  std::vector<NamedTensor> inputs;    // its inputs (captured reference values)
  std::vector<NamedTensor> expected;  // the reference's outputs on it
  std::vector<NamedTensor> observed;  // the target's outputs (empty when the target failed)
};

// The ONNX test-data layout every repro folder holds (bisect's and hunt's): DIR/test_data_set_0/
// input_K.pb and output_K.pb (the reference's), and DIR/test_data_set_0/TARGET_LABEL/output_K.pb
// (what the target returned). Creates the folders; io errors at write_output name the file.
Status write_test_data_set(const std::filesystem::path& dir, const std::string& target_label,
                           const std::vector<NamedTensor>& inputs, const std::vector<NamedTensor>& expected,
                           const std::vector<NamedTensor>& observed);

// Writes the folder; every file checked (io errors at write_output name the file).
Status write_repro_folder(const BisectOptions& options, const BisectReport& report, const ReproCase& c,
                          const std::filesystem::path& dir);

}  // namespace parity::bisect
