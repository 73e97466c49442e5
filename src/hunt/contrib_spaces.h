// hunt/contrib_spaces.h: op spaces over ONNX Runtime's com.microsoft ops that its WebGPU EP runs for
// transformer exports (MatMulNBits, SkipLayerNormalization, the Gelu family, RotaryEmbedding).
#pragma once

#include <vector>

#include "hunt/op_space.h"

namespace parity::hunt {

std::vector<OpSpace> contrib_spaces();

}  // namespace parity::hunt
