#include "parity/dtype.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace parity {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DTypeInfo, 23> kTypes{{
    {DType::undefined, "undefined", 0},
    {DType::float32, "float32", 4},
    {DType::uint8, "uint8", 1},
    {DType::int8, "int8", 1},
    {DType::uint16, "uint16", 2},
    {DType::int16, "int16", 2},
    {DType::int32, "int32", 4},
    {DType::int64, "int64", 8},
    {DType::string, "string", 0},
    {DType::boolean, "bool", 1},
    {DType::float16, "float16", 2},
    {DType::float64, "float64", 8},
    {DType::uint32, "uint32", 4},
    {DType::uint64, "uint64", 8},
    {DType::complex64, "complex64", 8},
    {DType::complex128, "complex128", 16},
    {DType::bfloat16, "bfloat16", 2},
    {DType::float8e4m3fn, "float8e4m3fn", 1},
    {DType::float8e4m3fnuz, "float8e4m3fnuz", 1},
    {DType::float8e5m2, "float8e5m2", 1},
    {DType::float8e5m2fnuz, "float8e5m2fnuz", 1},
    {DType::uint4, "uint4", 1},
    {DType::int4, "int4", 1},
}};

const DTypeInfo* info(DType t) {
  const auto index = static_cast<std::size_t>(t);
  return index < kTypes.size() ? &kTypes[index] : nullptr;
}

}  // namespace

std::size_t dtype_size(DType t) {
  const auto* i = info(t);
  return i ? i->size : 0;
}

std::string_view dtype_name(DType t) {
  const auto* i = info(t);
  return i ? i->name : "unknown";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& i : kTypes)
    if (i.name == name) return i.type;
  if (name == "float") return DType::float32;
  if (name == "double") return DType::float64;
  if (name == "half") return DType::float16;
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx(int32_t onnx_type) {
  if (onnx_type <= 0 || onnx_type >= static_cast<int32_t>(kTypes.size())) return std::nullopt;
  return static_cast<DType>(onnx_type);
}

bool dtype_is_float(DType t) {
  switch (t) {
    case DType::float16:
    case DType::float32:
    case DType::float64:
    case DType::bfloat16:
    case DType::float8e4m3fn:
    case DType::float8e4m3fnuz:
    case DType::float8e5m2:
    case DType::float8e5m2fnuz: return true;
    default: return false;
  }
}

bool dtype_is_integer(DType t) {
  switch (t) {
    case DType::uint8:
    case DType::int8:
    case DType::uint16:
    case DType::int16:
    case DType::int32:
    case DType::int64:
    case DType::uint32:
    case DType::uint64:
    case DType::uint4:
    case DType::int4: return true;
    default: return false;
  }
}

bool dtype_is_numeric(DType t) { return dtype_is_float(t) || dtype_is_integer(t) || t == DType::boolean; }

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> Inf
  if (abs < 0x38800000u) {                                               // result is subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    // round to nearest even on the bits shifted out
    const uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half_m = m >> shift;
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
    return static_cast<uint16_t>(sign | half_m);
  }
  uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15, mantissa stays in place
  const uint32_t rem = r & 0x1fffu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

double float8_to_double(uint8_t b, DType format) {
  // Formats per the ONNX spec: e4m3fn has no Inf and one NaN pattern per sign; the fnuz variants
  // have no Inf, no -0, and 0x80 is their only NaN; e5m2 follows IEEE.
  int exp_bits = 4, bias = 7;
  bool fnuz = false;
  switch (format) {
    case DType::float8e4m3fn: break;
    case DType::float8e4m3fnuz: bias = 8, fnuz = true; break;
    case DType::float8e5m2: exp_bits = 5, bias = 15; break;
    case DType::float8e5m2fnuz: exp_bits = 5, bias = 16, fnuz = true; break;
    default: return std::numeric_limits<double>::quiet_NaN();
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int mant_bits = 7 - exp_bits;
  const int sign = (b & 0x80) ? -1 : 1;
  const int exp = (b >> mant_bits) & ((1 << exp_bits) - 1);
  const int mant = b & ((1 << mant_bits) - 1);
  if (fnuz) {
    if (b == 0x80) return nan;
  } else if (exp_bits == 4) {
    if ((b & 0x7f) == 0x7f) return nan;
  } else if (exp == 0x1f) {
    return mant == 0 ? sign * std::numeric_limits<double>::infinity() : nan;
  }
  if (exp == 0) return sign * std::ldexp(mant, 1 - bias - mant_bits);
  return sign * std::ldexp(mant + (1 << mant_bits), exp - bias - mant_bits);
}

float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace parity
