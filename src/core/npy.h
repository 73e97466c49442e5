// core/npy.h: NumPy .npy files (format versions 1.0-3.0, little-endian, C order) to and from
// parity::Tensor. Fortran-order and big-endian arrays are refused with a clear error.
#pragma once

#include <filesystem>
#include <string>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

Result<Tensor> parse_npy(const std::string& bytes, const std::string& origin);
Result<Tensor> read_npy(const std::filesystem::path& path);
std::string serialize_npy(const Tensor& t);  // version 1.0 (2.0 when the header needs it)
Status write_npy(const std::filesystem::path& path, const Tensor& t);

}  // namespace parity
