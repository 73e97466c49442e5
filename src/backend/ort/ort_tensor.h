// backend/ort/ort_tensor.h: parity::Tensor <-> OrtValue.
//
// Numeric inputs are wrapped without copying (CreateTensorWithDataAsOrtValue over the caller's
// bytes), except packed 4-bit types, which Parity stores one element per byte and ORT two per
// byte. Strings are copied into an ORT-allocated tensor. Outputs are always copied out, so a
// result never points into ORT memory.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "backend/ort/ort_guard.h"
#include "parity/tensor.h"

namespace parity::backend::ort {

// Buffers that must outlive the OrtValues made from them (packed 4-bit copies, empty tensors).
using InputBuffers = std::deque<std::vector<std::byte>>;

// Makes the OrtValue for one input. `tensor` and `buffers` must outlive the returned value.
// Inconsistent tensors (byte count vs shape, negative dims) are bad_input Errors.
Result<Owned<OrtValue>> make_input_value(OrtGuard& guard, const OrtMemoryInfo* cpu_memory,
                                         OrtAllocator* allocator, const NamedTensor& tensor,
                                         InputBuffers& buffers);

// Copies one output back. Non-tensor outputs (sequences, maps, optionals, sparse tensors) are an
// Error naming the output.
Result<Tensor> read_output_value(OrtGuard& guard, const std::string& name, OrtValue* value);

}  // namespace parity::backend::ort
