// model/smoke_model.h: a tiny built-in model (y = Relu(x * w + b), float32 [1,8]) used to check
// that an EP can really create a session and run, without any file from the user.
#pragma once

#include <filesystem>
#include <string>

#include "parity/result.h"

namespace parity::model {

// Writes the smoke model to `path`. Its input is "x" float32[1,8], its output "y" float32[1,8].
Status write_smoke_model(const std::filesystem::path& path);
// The same model's serialized bytes (for a browser page's warm-up session).
std::string smoke_model_bytes();

}  // namespace parity::model
