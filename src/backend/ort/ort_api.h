// backend/ort/ort_api.h: the one place that includes ONNX Runtime's C API header.
//
// Parity never links ONNX Runtime: the library is dlopen'ed at run time and used only through the
// OrtApi function table, so only declarations come from here.
#pragma once

#include <onnxruntime_c_api.h>

namespace parity::backend::ort {

// The API version Parity was compiled against; GetApi is asked for this first.
inline constexpr uint32_t kHeaderApiVersion = ORT_API_VERSION;
// The oldest table Parity can drive: SessionOptionsAppendExecutionProvider (the generic EP append)
// arrived in API 12 (ORT 1.12), and every other OrtApi member used here is older.
inline constexpr uint32_t kMinApiVersion = 12;

}  // namespace parity::backend::ort
