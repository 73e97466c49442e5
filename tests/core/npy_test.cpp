#include "core/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "support/requirements.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

using parity::testing::TempDir;
using ::testing::HasSubstr;

// A tensor of `dtype` with a byte pattern that differs per element (and is a valid bool).
Tensor patterned(DType dtype, Shape shape) {
  auto t = Tensor::zeros(dtype, std::move(shape)).value();
  auto bytes = t.mutable_bytes();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = dtype == DType::boolean ? std::byte(i % 3 == 0) : std::byte((i * 37 + 11) & 0xff);
  return t;
}

void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string valid_file() {
  return serialize_npy(Tensor::from_floats({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// Runs /usr/bin/python3 on `script` with the temp dir as argv[1]; returns the exit status.
int run_python(const TempDir& dir, const std::string& script) {
  write_file(dir / "script.py", script);
  const std::string cmd = "/usr/bin/python3 " + (dir / "script.py").string() + " " + dir.path().string();
  return std::system(cmd.c_str());
}

// Values both sides generate for element i: small, exactly representable in every dtype.
double expected_value(DType t, std::size_t i) {
  if (t == DType::boolean) return i % 3 == 0 ? 1 : 0;
  if (dtype_is_float(t)) return (static_cast<double>(i % 7) - 3) * 0.5;
  const bool is_unsigned =
      t == DType::uint8 || t == DType::uint16 || t == DType::uint32 || t == DType::uint64;
  return is_unsigned ? static_cast<double>(i % 7) : static_cast<double>(i % 7) - 3;
}

constexpr const char* kNumpyValues = R"(
import sys, numpy as np
d = sys.argv[1]
def vals(code, n):
    i = np.arange(n)
    if code == 'b1': return (i % 3 == 0)
    if code[0] == 'f': return (i % 7 - 3) * 0.5
    if code[0] == 'u': return i % 7
    return i % 7 - 3
)";

const std::vector<std::pair<std::string, DType>>& numpy_codes() {
  static const std::vector<std::pair<std::string, DType>> codes{
      {"f2", DType::float16}, {"f4", DType::float32}, {"f8", DType::float64}, {"i1", DType::int8},
      {"i2", DType::int16},   {"i4", DType::int32},   {"i8", DType::int64},   {"u1", DType::uint8},
      {"u2", DType::uint16},  {"u4", DType::uint32},  {"u8", DType::uint64},  {"b1", DType::boolean}};
  return codes;
}

TEST(Npy, RoundTripsEveryWritableDtype) {
  for (DType t : {DType::float16, DType::float32, DType::float64, DType::int8, DType::int16, DType::int32,
                  DType::int64, DType::uint8, DType::uint16, DType::uint32, DType::uint64, DType::boolean,
                  DType::complex64, DType::complex128}) {
    for (const Shape& shape : {Shape{2, 3, 4}, Shape{5}, Shape{}, Shape{0, 3}}) {
      const Tensor in = patterned(t, shape);
      const std::string bytes = serialize_npy(in);
      ASSERT_FALSE(bytes.empty()) << dtype_name(t);
      // numpy aligns the data to 64 bytes; so do we
      const std::size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
      EXPECT_EQ((10 + header_len) % 64, 0u);
      auto out = parse_npy(bytes, "mem");
      ASSERT_TRUE(out.ok()) << dtype_name(t) << shape_to_string(shape) << ": " << out.error().describe();
      EXPECT_EQ(*out, in) << dtype_name(t) << shape_to_string(shape);
    }
  }
}

TEST(Npy, FileRoundTrip) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const Tensor in = patterned(DType::int32, {3, 2});
  ASSERT_TRUE(write_npy(dir / "a.npy", in).ok());
  auto out = read_npy(dir / "a.npy");
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_EQ(*out, in);
}

TEST(Npy, Bfloat16IsWidenedToFloat32) {
  auto t = Tensor::zeros(DType::bfloat16, {3}).value();
  const float values[] = {1.5f, -0.0078125f, 3.0e38f};
  for (int i = 0; i < 3; ++i) t.mutable_view<uint16_t>()[i] = float_to_bfloat16(values[i]);
  auto out = parse_npy(serialize_npy(t), "mem");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->dtype(), DType::float32);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out->view<float>()[i], bfloat16_to_float(t.view<uint16_t>()[i]));
}

TEST(Npy, UnwritableDtypesAreRefused) {
  EXPECT_FALSE(npy_can_write(DType::float8e4m3fn));
  EXPECT_FALSE(npy_can_write(DType::string));
  EXPECT_TRUE(serialize_npy(Tensor::from_strings({1}, {"x"})).empty());
  TempDir dir;
  auto st = write_npy(dir / "s.npy", Tensor::from_strings({1}, {"x"}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::bad_input);
}

TEST(Npy, WriteToMissingDirectoryIsIoError) {
  auto st = write_npy("/nonexistent-parity-dir/x.npy", patterned(DType::float32, {1}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::io);
}

TEST(Npy, MissingFileIsIoError) {
  auto r = read_npy("/nonexistent-parity-dir/x.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::io);
  EXPECT_EQ(r.error().stage, Stage::prepare_inputs);
}

TEST(Npy, ReadsFilesWrittenByNumpy) {
  PARITY_REQUIRE("numpy");
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(run_python(dir, std::string(kNumpyValues) + R"(
for code in ['f2','f4','f8','i1','i2','i4','i8','u1','u2','u4','u8','b1']:
    np.save(f'{d}/{code}.npy', vals(code, 24).astype(code).reshape(2, 3, 4))
np.save(f'{d}/scalar.npy', np.float32(2.5))
np.save(f'{d}/empty.npy', np.zeros((0, 3), np.float32))
for v in [(1, 0), (2, 0), (3, 0)]:
    with open(f'{d}/v{v[0]}.npy', 'wb') as f:
        np.lib.format.write_array(f, vals('f4', 6).astype('<f4').reshape(3, 2), version=v)
np.save(f'{d}/fortran.npy', np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))
np.save(f'{d}/fortran1d.npy', np.asfortranarray(np.arange(3, dtype='<f4')))
np.save(f'{d}/big.npy', np.arange(3, dtype='>f4'))
np.save(f'{d}/record.npy', np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]))
np.save(f'{d}/void.npy', np.zeros(2, dtype='V2'))
np.save(f'{d}/unicode.npy', np.array(['ab', 'c']))
)"),
            0);

  for (const auto& [code, dtype] : numpy_codes()) {
    auto t = read_npy(dir / (code + ".npy"));
    ASSERT_TRUE(t.ok()) << code << ": " << t.error().describe();
    EXPECT_EQ(t->dtype(), dtype) << code;
    EXPECT_EQ(t->shape(), (Shape{2, 3, 4})) << code;
    for (std::size_t i = 0; i < 24; ++i)
      EXPECT_EQ(t->element_as_double(i), expected_value(dtype, i)) << code << i;
  }

  auto scalar = read_npy(dir / "scalar.npy");
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->shape(), Shape{});
  EXPECT_EQ(scalar->view<float>()[0], 2.5f);

  auto empty = read_npy(dir / "empty.npy");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), (Shape{0, 3}));

  for (const char* v : {"v1.npy", "v2.npy", "v3.npy"}) {
    auto t = read_npy(dir / v);
    ASSERT_TRUE(t.ok()) << v << ": " << t.error().describe();
    EXPECT_EQ(t->shape(), (Shape{3, 2}));
    EXPECT_EQ(t->view<float>()[5], 1.0f) << v;  // (5 % 7 - 3) * 0.5
  }
  auto f1 = read_npy(dir / "fortran1d.npy");
  EXPECT_TRUE(f1.ok());

  auto fortran = read_npy(dir / "fortran.npy");
  ASSERT_FALSE(fortran.ok());
  EXPECT_EQ(fortran.error().kind, ErrorKind::bad_input);
  EXPECT_EQ(fortran.error().stage, Stage::prepare_inputs);
  EXPECT_THAT(fortran.error().message, HasSubstr("Fortran-order"));
  EXPECT_THAT(fortran.error().hint, HasSubstr("ascontiguousarray"));

  auto big = read_npy(dir / "big.npy");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().kind, ErrorKind::bad_input);
  EXPECT_THAT(big.error().message, HasSubstr("big-endian"));

  auto record = read_npy(dir / "record.npy");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(record.error().message, HasSubstr("structured"));
  auto vd = read_npy(dir / "void.npy");
  ASSERT_FALSE(vd.ok());
  EXPECT_THAT(vd.error().message, HasSubstr("bfloat16"));
  auto uni = read_npy(dir / "unicode.npy");
  ASSERT_FALSE(uni.ok());
  EXPECT_THAT(uni.error().message, HasSubstr("unsupported dtype"));
}

TEST(Npy, NumpyReadsFilesWeWrite) {
  PARITY_REQUIRE("numpy");
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (const auto& [code, dtype] : numpy_codes()) {
    auto t = Tensor::zeros(dtype, {4, 6}).value();
    for (std::size_t i = 0; i < 24; ++i) {
      const double v = expected_value(dtype, i);
      std::byte* p = t.mutable_bytes().data() + i * dtype_size(dtype);
      auto store = [p]<class T>(T x) { std::memcpy(p, &x, sizeof(T)); };
      switch (dtype) {
        case DType::float16: store(float_to_half(static_cast<float>(v))); break;
        case DType::float32: store(static_cast<float>(v)); break;
        case DType::float64: store(v); break;
        case DType::int8: store(static_cast<int8_t>(v)); break;
        case DType::int16: store(static_cast<int16_t>(v)); break;
        case DType::int32: store(static_cast<int32_t>(v)); break;
        case DType::int64: store(static_cast<int64_t>(v)); break;
        case DType::uint8:
        case DType::boolean: store(static_cast<uint8_t>(v)); break;
        case DType::uint16: store(static_cast<uint16_t>(v)); break;
        case DType::uint32: store(static_cast<uint32_t>(v)); break;
        case DType::uint64: store(static_cast<uint64_t>(v)); break;
        default: FAIL() << "unexpected dtype";
      }
    }
    ASSERT_TRUE(write_npy(dir / (code + ".npy"), t).ok());
  }
  auto scalar = Tensor::from_floats({}, std::vector<float>{7.0f});
  ASSERT_TRUE(write_npy(dir / "scalar.npy", scalar).ok());
  EXPECT_EQ(run_python(dir, std::string(kNumpyValues) + R"(
bad = 0
for code in ['f2','f4','f8','i1','i2','i4','i8','u1','u2','u4','u8','b1']:
    a = np.load(f'{d}/{code}.npy')
    want = vals(code, 24).astype(code).reshape(4, 6)
    if a.dtype != want.dtype or a.shape != want.shape or not np.array_equal(a, want):
        print('mismatch', code, a.dtype, a.shape, a.ravel()[:8]); bad += 1
s = np.load(f'{d}/scalar.npy')
if s.shape != () or s != 7.0: print('scalar', s); bad += 1
sys.exit(bad)
)"),
            0);
}

TEST(Npy, LongHeaderUsesVersion2) {
  // 25000 dimensions of 1 make a header over 64 KiB: past numpy's 64 dims, but it exercises the
  // writer's switch to 2.0. The reader refuses more than 64 dims, so only the preamble is checked.
  Shape shape(25000, 1);
  const std::string bytes = serialize_npy(patterned(DType::uint8, shape));
  EXPECT_EQ(bytes[6], '\x02');
  const std::size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8 |
                                 static_cast<std::size_t>(static_cast<uint8_t>(bytes[10])) << 16;
  EXPECT_EQ((12 + header_len) % 64, 0u);
  auto r = parse_npy(bytes, "mem");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("more than 64 dimensions"));
}

// --- corrupt input -----------------------------------------------------------------------------

void expect_bad(const std::string& bytes, const std::string& what) {
  auto r = parse_npy(bytes, "corrupt.npy");
  ASSERT_FALSE(r.ok()) << "accepted: " << what;
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input) << what;
  EXPECT_EQ(r.error().stage, Stage::prepare_inputs) << what;
  EXPECT_THAT(r.error().message, HasSubstr("corrupt.npy: ")) << what;
}

std::string with_header(const std::string& dict, std::size_t payload, int version = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t len = dict.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  if (version > 1) out += std::string(2, '\0');
  return out + dict + std::string(payload, '\0');
}

TEST(Npy, EveryTruncationIsRefused) {
  const std::string full = valid_file();
  for (std::size_t n = 0; n < full.size(); ++n) expect_bad(full.substr(0, n), "prefix " + std::to_string(n));
  ASSERT_TRUE(parse_npy(full, "ok").ok());
}

TEST(Npy, CorruptHeadersAreRefused) {
  std::string f = valid_file();
  f[0] = 'X';
  expect_bad(f, "magic");
  f = valid_file();
  f[6] = 4;
  expect_bad(f, "version 4");
  f = valid_file();
  f[8] = '\xff', f[9] = '\xff';
  expect_bad(f, "header length past EOF");
  expect_bad(valid_file() + "x", "trailing payload byte");
  expect_bad(with_header("{'descr': '<f4', 'shape': (2,), }\n", 8), "missing fortran_order");
  expect_bad(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", 8), "negative dim");
  expect_bad(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, }\n", 8), "unclosed tuple");
  expect_bad(with_header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }\n", 8), "bad bool");
  expect_bad(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", 8),
             "extra key");
  expect_bad(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk\n", 8), "junk");
  expect_bad(with_header("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }\n", 8),
             "unbalanced quote");
  expect_bad(with_header("{'descr': '<q9', 'fortran_order': False, 'shape': (2,), }\n", 8), "unknown dtype");
  expect_bad(with_header("{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }\n", 16), "big-endian");
  // A shape whose byte count overflows size_t must not allocate or read.
  expect_bad(
      with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", 8),
      "overflow");
  expect_bad(with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }\n", 8),
             "int64 overflow");
  // Claims 1000 elements, holds 8 bytes.
  expect_bad(with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }\n", 8),
             "short payload");
}

TEST(Npy, LenientButValidHeadersAreAccepted) {
  // Key order, double quotes, no trailing comma, Python 2 long suffix, '|' on a one-byte type.
  auto r = parse_npy(
      with_header("{\"shape\": (2L, 1), \"fortran_order\": False, \"descr\": \"|u1\"}\n", 2, 2), "mem");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->shape(), (Shape{2, 1}));
  EXPECT_EQ(r->dtype(), DType::uint8);
}

TEST(Npy, BoolBytesAreNormalised) {
  std::string f = with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }\n", 0);
  f += '\x00';
  f += '\x07';
  auto r = parse_npy(f, "mem");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bytes()[1], std::byte{1});
}

TEST(Npy, RandomCorruptionNeverCrashes) {
  // Deterministic byte flips over a valid file: every result is either a tensor or an error.
  const std::string base = valid_file();
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 2000; ++trial) {
    std::string f = base;
    for (int k = 0; k < 3; ++k) f[next() % f.size()] = static_cast<char>(next() & 0xff);
    f.resize(next() % (f.size() + 1));
    auto r = parse_npy(f, "fuzz");
    if (r.ok()) {
      EXPECT_EQ(r->byte_size(), static_cast<std::size_t>(r->numel()) * dtype_size(r->dtype()));
    }
  }
}

}  // namespace
}  // namespace parity
