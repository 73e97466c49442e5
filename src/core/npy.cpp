#include "core/npy.h"

#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "core/file_io.h"

namespace parity {
namespace {

static_assert(std::endian::native == std::endian::little, "Tensor bytes are little-endian; so is .npy here");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kMaxDims = 64;  // numpy's own NPY_MAXDIMS

struct NpyType {
  std::string_view code;  // descr without the byte-order mark: "f4", "b1", ...
  DType dtype;
};

constexpr std::array<NpyType, 13> kTypes{{
    {"f2", DType::float16},
    {"f4", DType::float32},
    {"f8", DType::float64},
    {"i1", DType::int8},
    {"i2", DType::int16},
    {"i4", DType::int32},
    {"i8", DType::int64},
    {"u1", DType::uint8},
    {"u2", DType::uint16},
    {"u4", DType::uint32},
    {"u8", DType::uint64},
    {"b1", DType::boolean},
    {"c8", DType::complex64},
}};

Error bad(const std::string& origin, const std::string& what, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::prepare_inputs, origin + ": " + what, std::move(hint));
}

// The header is a Python dict literal; numpy writes exactly
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and '\n'.
// This reader accepts any key order, either quote style and optional trailing commas.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<Shape> shape;
  };

  // Returns an error message, empty on success.
  std::string parse(Fields& out) {
    skip_ws();
    if (!eat('{')) return "header is not a dict";
    skip_ws();
    while (!eat('}')) {
      std::string key;
      if (!parse_string(key)) return "expected a quoted key at header offset " + std::to_string(pos_);
      skip_ws();
      if (!eat(':')) return "expected ':' after key '" + key + "'";
      skip_ws();
      if (key == "descr") {
        std::string descr;
        if (peek() == '[') return "structured (record) dtypes are not supported";
        if (!parse_string(descr)) return "'descr' is not a string";
        out.descr = descr;
      } else if (key == "fortran_order") {
        if (match("True")) {
          out.fortran_order = true;
        } else if (match("False")) {
          out.fortran_order = false;
        } else {
          return "'fortran_order' is not True or False";
        }
      } else if (key == "shape") {
        Shape shape;
        std::string err = parse_shape(shape);
        if (!err.empty()) return err;
        out.shape = std::move(shape);
      } else {
        return "unexpected header key '" + key + "' (numpy refuses it too)";
      }
      skip_ws();
      if (eat(',')) {
        skip_ws();
      } else if (peek() != '}') {
        return "expected ',' or '}' at header offset " + std::to_string(pos_);
      }
    }
    skip_ws();
    if (pos_ != s_.size()) return "trailing characters after the header dict";
    return {};
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c || pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  bool match(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool parse_string(std::string& out) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return false;
    const std::size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    out.assign(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  std::string parse_shape(Shape& shape) {
    if (!eat('(')) return "'shape' is not a tuple";
    skip_ws();
    while (!eat(')')) {
      if (peek() < '0' || peek() > '9')
        return "'shape' holds a non-integer at header offset " + std::to_string(pos_);
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        const int digit = peek() - '0';
        if (d > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return "'shape' dimension overflows int64";
        d = d * 10 + digit;
        ++pos_;
      }
      eat('L');  // Python 2 long suffix, as old numpy wrote it
      if (shape.size() == kMaxDims) return "'shape' has more than 64 dimensions";
      shape.push_back(d);
      skip_ws();
      if (eat(',')) {
        skip_ws();
      } else if (peek() != ')') {
        return "expected ',' or ')' in 'shape'";
      }
    }
    return {};
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

// Maps a descr such as "<f4" to a dtype, or explains why it cannot.
Result<DType> dtype_from_descr(const std::string& descr, const std::string& origin) {
  if (descr.size() < 2) return bad(origin, "unknown dtype descriptor '" + descr + "'");
  const char order = descr[0];
  const std::string_view code = std::string_view(descr).substr(1);
  if (code == "c16") {
    if (order == '>')
      return bad(origin, "big-endian array ('" + descr + "')",
                 "save it as little-endian: arr.astype(arr.dtype.newbyteorder('<'))");
    return DType::complex128;
  }
  for (const auto& t : kTypes) {
    if (t.code != code) continue;
    const bool one_byte = dtype_size(t.dtype) == 1;
    if (order == '>' && !one_byte)
      return bad(origin, "big-endian array ('" + descr + "')",
                 "save it as little-endian: arr.astype(arr.dtype.newbyteorder('<'))");
    if (order != '<' && order != '|' && order != '=' && order != '>')
      return bad(origin, "unknown byte-order mark in dtype descriptor '" + descr + "'");
    return t.dtype;
  }
  if (code.starts_with("V"))
    return bad(origin,
               "dtype '" + descr + "' is raw bytes (bfloat16 and float8 from ml_dtypes are saved like this)",
               "convert to a numpy dtype first, e.g. arr.astype(numpy.float32)");
  return bad(origin, "unsupported dtype '" + descr + "'",
             "supported: f2 f4 f8, i1-i8, u1-u8, b1, c8 c16 (little-endian)");
}

uint32_t read_le(const std::string& bytes, std::size_t offset, std::size_t width) {
  uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i)
    v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return v;
}

std::string_view descr_of(DType t) {
  switch (t) {
    case DType::float16: return "<f2";
    case DType::float32:
    case DType::bfloat16: return "<f4";  // widened on write: numpy has no bfloat16
    case DType::float64: return "<f8";
    case DType::int8:
    case DType::int4: return "|i1";
    case DType::uint8:
    case DType::uint4: return "|u1";
    case DType::int16: return "<i2";
    case DType::int32: return "<i4";
    case DType::int64: return "<i8";
    case DType::uint16: return "<u2";
    case DType::uint32: return "<u4";
    case DType::uint64: return "<u8";
    case DType::boolean: return "|b1";
    case DType::complex64: return "<c8";
    case DType::complex128: return "<c16";
    default: return {};
  }
}

}  // namespace

Result<Tensor> parse_npy(const std::string& bytes, const std::string& origin) {
  if (bytes.size() < 10 || std::string_view(bytes).substr(0, kMagic.size()) != kMagic)
    return bad(origin, "not a .npy file (missing \\x93NUMPY magic)");
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return bad(origin,
               "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor),
               "versions 1.0, 2.0 and 3.0 are supported");
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const std::size_t len_width = major == 1 ? 2 : 4;
  const std::size_t preamble = 8 + len_width;
  if (bytes.size() < preamble) return bad(origin, "truncated .npy preamble");
  const std::size_t header_len = read_le(bytes, 8, len_width);
  if (header_len > bytes.size() - preamble)
    return bad(origin, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                           std::to_string(bytes.size()) + " bytes)");
  // 1.0 and 2.0 headers are latin-1, 3.0 is UTF-8; the dict's keys and values are ASCII either way.
  const std::string_view header = std::string_view(bytes).substr(preamble, header_len);

  HeaderParser::Fields fields;
  if (std::string err = HeaderParser(header).parse(fields); !err.empty())
    return bad(origin, "malformed .npy header: " + err);
  if (!fields.descr || !fields.fortran_order || !fields.shape)
    return bad(origin, "malformed .npy header: 'descr', 'fortran_order' and 'shape' are all required");
  PARITY_ASSIGN_OR_RETURN(dtype, dtype_from_descr(*fields.descr, origin));
  Shape shape = std::move(*fields.shape);
  // A 0-D or 1-D array has the same bytes in either order, so only higher ranks are refused.
  if (*fields.fortran_order && shape.size() > 1)
    return bad(origin, "Fortran-order (column-major) array of shape " + shape_to_string(shape),
               "save a C-order copy: numpy.save(path, numpy.ascontiguousarray(arr))");

  // Size the payload with overflow checks before allocating anything the header claims.
  const std::size_t payload = bytes.size() - preamble - header_len;
  std::size_t numel = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(numel, static_cast<std::size_t>(d), &numel))
      return bad(origin, "shape " + shape_to_string(shape) + " overflows");
  }
  std::size_t need = 0;
  if (__builtin_mul_overflow(numel, dtype_size(dtype), &need))
    return bad(origin, "shape " + shape_to_string(shape) + " overflows");
  if (need != payload)
    return bad(origin,
               "payload is " + std::to_string(payload) + " bytes but " + *fields.descr + " " +
                   shape_to_string(shape) + " needs " + std::to_string(need),
               "the file is truncated or corrupt");

  std::vector<std::byte> data(need);
  if (need) std::memcpy(data.data(), bytes.data() + preamble + header_len, need);
  if (dtype == DType::boolean)  // numpy writes 0/1; normalise anything else so bytes compare by value
    for (auto& b : data) b = b != std::byte{0} ? std::byte{1} : std::byte{0};
  return Tensor::from_bytes(dtype, std::move(shape), std::move(data));
}

Result<Tensor> read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(ErrorKind::io, Stage::prepare_inputs, "cannot open " + path.string() + " for reading",
                      "check that the file exists and is readable");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(ErrorKind::io, Stage::prepare_inputs, "error reading " + path.string());
  return parse_npy(bytes, path.string());
}

bool npy_can_write(DType dtype) { return !descr_of(dtype).empty(); }

std::string serialize_npy(const Tensor& t) {
  const std::string_view descr = descr_of(t.dtype());
  if (descr.empty()) return {};
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + ", ";
  if (t.shape().size() > 1) shape.resize(shape.size() - 2);  // a 1-tuple keeps its comma: "(3,)"
  if (t.shape().size() == 1) shape.pop_back();
  shape += ")";
  std::string dict =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";

  // Pad with spaces and a final '\n' so the data starts on a 64-byte boundary, as numpy does.
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const std::size_t preamble = v2 ? 12 : 10;
  const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';

  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = dict.size();
  for (std::size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;

  if (t.dtype() == DType::bfloat16) {
    const auto src = t.view<uint16_t>();
    out.reserve(out.size() + src.size() * 4);
    for (uint16_t b : src) {
      const float f = bfloat16_to_float(b);
      char raw[4];
      std::memcpy(raw, &f, 4);
      out.append(raw, 4);
    }
  } else {
    out.append(reinterpret_cast<const char*>(t.bytes().data()), t.byte_size());
  }
  return out;
}

Status write_npy(const std::filesystem::path& path, const Tensor& t) {
  if (!npy_can_write(t.dtype()))
    return make_error(ErrorKind::bad_input, Stage::write_output,
                      "cannot write " + std::string(dtype_name(t.dtype())) + " tensor to " + path.string() +
                          ": numpy has no such dtype");
  return write_text_file(path, serialize_npy(t));
}

}  // namespace parity
