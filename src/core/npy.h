// core/npy.h: NumPy .npy files (format versions 1.0-3.0, little-endian, C order) to and from
// parity::Tensor. Fortran-order and big-endian arrays are refused with a clear error.
//
// Element types: <f2 <f4 <f8, <i1..<i8, <u1..<u8, |b1, and <c8 <c16 (complex64/128). One-byte
// types accept any byte-order mark. bfloat16 and float8 are not numpy dtypes: files holding them
// (ml_dtypes writes void "V2"/"V1" descriptors) are refused on read; on write bfloat16 is widened to
// <f4 (exact, every bfloat16 is a float32), and int4/uint4 (stored one per byte) are written as
// |i1/|u1. float8 and string tensors cannot be written.
#pragma once

#include <filesystem>
#include <string>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

// Parses the bytes of an .npy file; `origin` (a path or a label) prefixes error messages. Errors
// are ErrorKind::bad_input at Stage::prepare_inputs; corrupt input never reads out of bounds.
Result<Tensor> parse_npy(const std::string& bytes, const std::string& origin);
// Reads and parses a file; an unreadable file is ErrorKind::io.
Result<Tensor> read_npy(const std::filesystem::path& path);
// Whether serialize_npy can write this dtype (see the mapping above).
bool npy_can_write(DType dtype);
// Version 1.0 (2.0 when the header needs it). Empty string when !npy_can_write(t.dtype()).
std::string serialize_npy(const Tensor& t);
// bad_input for unwritable dtypes; io (Stage::write_output) when the file cannot be written.
Status write_npy(const std::filesystem::path& path, const Tensor& t);

}  // namespace parity
