// parity/dtype.h: element types, numbered exactly as ONNX's TensorProto.DataType so that
// conversion from a model or a .pb tensor is a cast, not a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace parity {

enum class DType : int32_t {
  undefined = 0,
  float32 = 1,
  uint8 = 2,
  int8 = 3,
  uint16 = 4,
  int16 = 5,
  int32 = 6,
  int64 = 7,
  string = 8,
  boolean = 9,
  float16 = 10,
  float64 = 11,
  uint32 = 12,
  uint64 = 13,
  complex64 = 14,
  complex128 = 15,
  bfloat16 = 16,
  float8e4m3fn = 17,
  float8e4m3fnuz = 18,
  float8e5m2 = 19,
  float8e5m2fnuz = 20,
  uint4 = 21,
  int4 = 22,
};

// Bytes per element; 0 for string and undefined. Packed 4-bit types report 1 (one element per
// byte after unpacking; Parity unpacks them on read).
std::size_t dtype_size(DType t);

// ONNX-style lowercase name: "float32", "float16", "int64", "bool", ...
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

// Converts an ONNX TensorProto.DataType number; nullopt for numbers Parity does not know.
std::optional<DType> dtype_from_onnx(int32_t onnx_type);

bool dtype_is_float(DType t);    // float16/32/64, bfloat16, float8 variants
bool dtype_is_integer(DType t);  // signed and unsigned ints, including 4-bit
bool dtype_is_numeric(DType t);  // float, integer or bool: can be compared as numbers

// IEEE half and bfloat16 conversions (round to nearest even on narrowing).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);
// Decodes one float8 byte of `format` (one of the four float8 DTypes; NaN for any other).
double float8_to_double(uint8_t b, DType format);

}  // namespace parity
