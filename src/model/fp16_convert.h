// model/fp16_convert.h: writes a float16 copy of a float32 ONNX model, so `parity sweep` has a
// precision ladder (fp32 -> fp16) even when a model ships in fp32 only.
//
// The rules are those of onnxconverter-common's float16.convert_float_to_float16 (and ONNX
// Runtime's transformers/float16.py, which refines it): float32 weights become float16 (tiny
// nonzero magnitudes kept nonzero), Cast(to=FLOAT) inside the converted region becomes
// Cast(to=FLOAT16), graph inputs and outputs stay float32 behind Cast nodes, and ops without
// float16 kernels (the converter's block list) stay float32 with Casts around them; a weight read
// only by such ops stays float32 (Resize's `scales` stay exact). Where the converters trust a list,
// this one also asks the operator schema of the model's opset: an input that must be tensor(float)
// (Upsample's `scales`, DequantizeLinear-13's output) keeps float32, and an op whose type constraint
// has no float16 in that opset (Celu), whose output type an attribute sets (EyeLike's `dtype`), or
// whose inputs or outputs are untyped, stays float32. Nodes with subgraphs (If, Loop, Scan) stay
// float32 as a whole, subgraphs unchanged, reading outer float16 values through Casts.
//
// One rule departs from the converters on purpose: a weight beyond float16's range (PP-OCRv4 det's
// BatchNormalization variance of 9.79e7) is not clamped to 65504 (that scales a channel by 39x
// and the text map's cosine drops to 0.82); it and the nodes reading it stay float32
// (Fp16Options::clamp_wide_weights restores the converters' clamping).
//
// The result must pass ONNX's strict type check wherever the original does, or nothing is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "parity/result.h"

namespace parity::model {

// onnxconverter-common's DEFAULT_OP_BLOCK_LIST: ops ONNX Runtime has no float16 kernel for (the
// ai.onnx.ml classic-ML ops, NonMaxSuppression, TopK, RoiAlign, Resize, Range, CumSum, Min, Max,
// Upsample, ...). Matched by op type in any domain.
const std::vector<std::string>& default_fp16_block_list();

struct Fp16Options {
  std::vector<std::string> block_ops;  // op types kept in float32, in addition to the default list
  bool keep_io_types = true;           // graph inputs/outputs stay float32 (Casts at the borders)
  // Nonzero magnitudes below this become +-min_positive instead of 0 (float16's smallest subnormal,
  // ORT float16.py's default), so an epsilon of 1e-12 does not turn into a division by zero.
  float min_positive = 5.96e-8f;
  // With clamp_wide_weights, finite magnitudes above this become +-max_finite, not inf.
  float max_finite = 65504.0f;
  // A weight with a finite magnitude over max_finite (a BatchNormalization variance of 9.8e7) keeps
  // float32, and so do the nodes reading it, with Casts around them: clamping it would change the
  // model, not round it. true clamps it as onnxconverter-common does.
  bool clamp_wide_weights = false;
};

// A node left in float32, and why.
struct Fp16BlockedNode {
  std::string node;     // its name, or "<op_type>_<index>" when it has none
  std::string op_type;  // "Resize"; custom domains as "domain:Op"
  std::string reason;   // "in the block list", "type T has no float16 in ai.onnx opset 12", ...
};

struct Fp16Report {
  int converted_initializers = 0;  // float32 initializers now float16
  int converted_constants = 0;     // Constant / ConstantOfShape value tensors now float16
  int clamped_values = 0;          // weight elements moved into range (under min_positive, over max_finite)
  int rewritten_casts = 0;         // Cast(to=FLOAT) nodes now Cast(to=FLOAT16)
  int blocked_nodes = 0;           // nodes touching float values that stay float32 (== blocked.size())
  int casts_inserted = 0;          // Cast nodes added (borders of the graph and of blocked nodes)
  std::vector<std::string> blocked_op_types;  // sorted, each once
  std::vector<Fp16BlockedNode> blocked;       // graph order
  // ONNX's strict type check (check_type, error_mode 1) passed on the result. false when it could
  // not judge: the original fails it too (ops newer than the ONNX 1.12 schemas Parity links).
  bool type_checked = false;
  std::uintmax_t bytes_in = 0;  // file sizes
  std::uintmax_t bytes_out = 0;
};

// Reads the float32 model `in`, writes its float16 version to `out` (atomically: readers see the
// old file or the whole new one) and says what it did. Errors: a missing or unreadable file is io
// at load_model; a model that is not ONNX, already holds float16, keeps weights in external data or
// has no float32 value to convert is bad_input with a hint; a converted graph that fails ONNX type
// checking where the original passed is internal (a bug here: nothing is written). Thread-safe.
Result<Fp16Report> convert_to_fp16(const std::filesystem::path& in, const std::filesystem::path& out,
                                   const Fp16Options& options = {});

}  // namespace parity::model
