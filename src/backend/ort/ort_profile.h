// backend/ort/ort_profile.h: which execution provider really ran each node, read from the JSON
// trace ONNX Runtime writes when profiling is on.
//
// The node-assignment query of ORT 1.30 lists only CPU nodes, but every kernel event in the
// profile ("cat": "Node") names its provider in args.provider, so the profile is the reliable
// source. Nodes folded away at session creation run no kernel and are not counted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "parity/result.h"

namespace parity::backend::ort {

// Provider name ("WebGpuExecutionProvider") -> number of distinct nodes that ran on it.
using NodeCounts = std::map<std::string, int64_t>;

// Provider name -> node name -> op type: which nodes ran where (the names the CPU fallback ran are
// what `parity lint` reports as nodes the EP did not take).
using NodePlacement = std::map<std::string, std::map<std::string, std::string>>;

// Parses a profile's text. Event names are "<node>_kernel_time" (and, in older releases,
// "<node>_fence_before/after"); the suffix is removed before counting distinct nodes.
// A malformed document is an Error of kind error (stage read_output).
Result<NodeCounts> count_profiled_nodes(std::string_view json_text);
Result<NodePlacement> profiled_placement(std::string_view json_text);
Result<NodePlacement> read_profile_file(const std::filesystem::path& path);
NodeCounts count_nodes(const NodePlacement& placement);

}  // namespace parity::backend::ort
