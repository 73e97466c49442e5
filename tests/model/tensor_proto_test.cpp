#include "model/tensor_proto.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/requirements.h"
#include "support/temp_dir.h"
#include "wire_writer.h"

namespace parity::model {
namespace {

namespace fs = std::filesystem;
using parity::testing::TempDir;
using testing::WireWriter;
namespace f = testing::field;

const fs::path kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node";

fs::path node_test_file(const std::string& test, const std::string& file) {
  return kOnnxNodeTests / test / "test_data_set_0" / file;
}

// A TensorProto header: name, element type, dims (packed, as protobuf 3 writes them).
WireWriter header(DType dtype, std::initializer_list<int64_t> dims, const std::string& name = "t") {
  WireWriter w;
  w.packed_varints(f::dims, dims).varint(f::data_type, static_cast<uint64_t>(dtype)).bytes(f::name, name);
  return w;
}

NamedTensor parse_ok(const std::string& bytes, std::optional<DType> declared = std::nullopt) {
  auto r = parse_tensor_proto(bytes, "mem", declared);
  EXPECT_TRUE(r.ok()) << r.error().describe();
  return r.ok() ? *r : NamedTensor{};
}

void expect_bad(const std::string& bytes, const std::string& in_message) {
  auto r = parse_tensor_proto(bytes, "mem");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::prepare_inputs);
  EXPECT_EQ(r.error().message.rfind("mem: ", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(in_message), std::string::npos) << r.error().message;
  EXPECT_FALSE(r.error().hint.empty()) << r.error().describe();
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  auto v = t.view<T>();
  return {v.begin(), v.end()};
}

// --- real files from ONNX's own test suite -------------------------------------------------------

TEST(TensorProto, ReadsFloatTestData) {
  PARITY_REQUIRE("onnx-testdata");
  auto r = read_tensor_proto(node_test_file("test_add", "input_0.pb"));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->name, "x");
  EXPECT_EQ(r->tensor.dtype(), DType::float32);
  EXPECT_EQ(r->tensor.shape(), (Shape{3, 4, 5}));
  const auto v = values_of<float>(r->tensor);
  ASSERT_EQ(v.size(), 60u);
  EXPECT_FLOAT_EQ(v[0], 1.7640524f);
  EXPECT_FLOAT_EQ(v[1], 0.4001572f);
  EXPECT_FLOAT_EQ(v[3], 2.2408931f);
}

TEST(TensorProto, ReadsIntegerTestData) {
  PARITY_REQUIRE("onnx-testdata");
  auto u8 = read_tensor_proto(node_test_file("test_add_uint8", "input_0.pb"));
  ASSERT_TRUE(u8.ok()) << u8.error().describe();
  EXPECT_EQ(u8->tensor.dtype(), DType::uint8);
  EXPECT_EQ(u8->tensor.shape(), (Shape{3, 4, 5}));
  auto u64 = read_tensor_proto(node_test_file("test_bitshift_left_uint64", "input_0.pb"));
  ASSERT_TRUE(u64.ok()) << u64.error().describe();
  EXPECT_EQ(u64->tensor.dtype(), DType::uint64);
  EXPECT_EQ(u64->tensor.byte_size(), static_cast<std::size_t>(u64->tensor.numel()) * 8);
}

TEST(TensorProto, BFloat16SavedAsUint16IsReinterpretedWhenDeclared) {
  PARITY_REQUIRE("onnx-testdata");
  const fs::path in = node_test_file("test_cast_BFLOAT16_to_FLOAT", "input_0.pb");
  auto as_saved = read_tensor_proto(in);
  ASSERT_TRUE(as_saved.ok()) << as_saved.error().describe();
  EXPECT_EQ(as_saved->tensor.dtype(), DType::uint16);  // what ONNX 1.12's suite wrote

  auto declared = read_tensor_proto(in, DType::bfloat16);
  ASSERT_TRUE(declared.ok()) << declared.error().describe();
  EXPECT_EQ(declared->tensor.dtype(), DType::bfloat16);
  EXPECT_EQ(declared->tensor.shape(), (Shape{3, 4}));
  EXPECT_TRUE(std::equal(declared->tensor.bytes().begin(), declared->tensor.bytes().end(),
                         as_saved->tensor.bytes().begin()));

  // Casting bfloat16 to float is exact: the reference floats are the input bits shifted up (this
  // compares bits because the data holds NaN).
  auto expected = read_tensor_proto(node_test_file("test_cast_BFLOAT16_to_FLOAT", "output_0.pb"));
  ASSERT_TRUE(expected.ok());
  const auto widened = values_of<float>(expected->tensor);
  const auto narrow = values_of<uint16_t>(declared->tensor);
  ASSERT_EQ(widened.size(), narrow.size());
  for (std::size_t i = 0; i < narrow.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &widened[i], 4);
    EXPECT_EQ(bits, uint32_t{narrow[i]} << 16) << i;
  }
  EXPECT_DOUBLE_EQ(declared->tensor.element_as_double(0), 0.478515625);

  // The cast the other way: the stored bits are the float's upper half.
  auto cast_in = read_tensor_proto(node_test_file("test_cast_FLOAT_to_BFLOAT16", "input_0.pb"));
  auto cast_out =
      read_tensor_proto(node_test_file("test_cast_FLOAT_to_BFLOAT16", "output_0.pb"), DType::bfloat16);
  ASSERT_TRUE(cast_in.ok() && cast_out.ok());
  EXPECT_EQ(cast_out->tensor.dtype(), DType::bfloat16);
  const auto floats = values_of<float>(cast_in->tensor);
  const auto halves = values_of<uint16_t>(cast_out->tensor);
  ASSERT_EQ(floats.size(), halves.size());
  for (std::size_t i = 0; i < floats.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &floats[i], 4);
    EXPECT_EQ(halves[i], bits >> 16) << i;
  }
}

TEST(TensorProto, DeclaredTypeOfAnotherWidthIsIgnored) {
  PARITY_REQUIRE("onnx-testdata");
  auto r = read_tensor_proto(node_test_file("test_cast_BFLOAT16_to_FLOAT", "input_0.pb"), DType::float32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tensor.dtype(), DType::uint16);
}

TEST(TensorProto, ReadsStringTestData) {
  PARITY_REQUIRE("onnx-testdata");
  auto days = read_tensor_proto(
      node_test_file("test_strnormalizer_export_monday_casesensintive_lower", "input_0.pb"));
  ASSERT_TRUE(days.ok()) << days.error().describe();
  EXPECT_EQ(days->tensor.dtype(), DType::string);
  EXPECT_EQ(days->tensor.shape(), (Shape{4}));
  EXPECT_EQ(days->tensor.strings(), (std::vector<std::string>{"monday", "tuesday", "wednesday", "thursday"}));

  auto numbers = read_tensor_proto(node_test_file("test_cast_FLOAT_to_STRING", "output_0.pb"));
  ASSERT_TRUE(numbers.ok()) << numbers.error().describe();
  EXPECT_EQ(numbers->tensor.shape(), (Shape{3, 4}));
  ASSERT_EQ(numbers->tensor.strings().size(), 12u);
  EXPECT_EQ(numbers->tensor.strings()[0], "0.9767611");
}

// --- typed fields ---------------------------------------------------------------------------------

TEST(TensorProto, FloatData) {
  WireWriter w = header(DType::float32, {2});
  w.float32(f::float_data, 1.5f).float32(f::float_data, -2.0f);  // unpacked repeated floats
  const NamedTensor t = parse_ok(w.str());
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(values_of<float>(t.tensor), (std::vector<float>{1.5f, -2.0f}));
}

TEST(TensorProto, SmallIntegersAndHalvesInInt32Data) {
  auto int32_data = [](DType dtype, std::initializer_list<int64_t> values) {
    WireWriter w = header(dtype, {static_cast<int64_t>(values.size())});
    w.packed_varints(f::int32_data, values);
    return w.str();
  };
  EXPECT_EQ(values_of<int8_t>(parse_ok(int32_data(DType::int8, {-128, -1, 127})).tensor),
            (std::vector<int8_t>{-128, -1, 127}));
  EXPECT_EQ(values_of<uint8_t>(parse_ok(int32_data(DType::uint8, {0, 200, 255})).tensor),
            (std::vector<uint8_t>{0, 200, 255}));
  EXPECT_EQ(values_of<uint8_t>(parse_ok(int32_data(DType::boolean, {0, 1, 7})).tensor),
            (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(values_of<int16_t>(parse_ok(int32_data(DType::int16, {-30000, 30000})).tensor),
            (std::vector<int16_t>{-30000, 30000}));
  EXPECT_EQ(values_of<uint16_t>(parse_ok(int32_data(DType::uint16, {65535})).tensor),
            (std::vector<uint16_t>{65535}));
  EXPECT_EQ(values_of<int32_t>(parse_ok(int32_data(DType::int32, {-5, 1 << 30})).tensor),
            (std::vector<int32_t>{-5, 1 << 30}));
  const NamedTensor half = parse_ok(int32_data(DType::float16, {0x3c00, 0xc000}));  // bit patterns
  EXPECT_EQ(half.tensor.to_doubles(), (std::vector<double>{1.0, -2.0}));
  const NamedTensor bf16 = parse_ok(int32_data(DType::bfloat16, {0x3f80}));
  EXPECT_EQ(bf16.tensor.to_doubles(), (std::vector<double>{1.0}));
  const NamedTensor f8 = parse_ok(int32_data(DType::float8e4m3fn, {0x38}));
  EXPECT_EQ(values_of<uint8_t>(f8.tensor), (std::vector<uint8_t>{0x38}));
}

TEST(TensorProto, WideTypedFields) {
  WireWriter i64 = header(DType::int64, {2});
  i64.packed_varints(f::int64_data, {-7, int64_t{1} << 40});
  EXPECT_EQ(values_of<int64_t>(parse_ok(i64.str()).tensor), (std::vector<int64_t>{-7, int64_t{1} << 40}));

  WireWriter f64 = header(DType::float64, {1});
  f64.float64(f::double_data, 0.1);
  EXPECT_EQ(values_of<double>(parse_ok(f64.str()).tensor), (std::vector<double>{0.1}));

  WireWriter u32 = header(DType::uint32, {2});
  u32.packed_varints(f::uint64_data, {4000000000, 1});
  EXPECT_EQ(values_of<uint32_t>(parse_ok(u32.str()).tensor), (std::vector<uint32_t>{4000000000u, 1}));

  WireWriter u64 = header(DType::uint64, {1});
  u64.packed_varints(f::uint64_data, {-1});  // all bits set
  EXPECT_EQ(values_of<uint64_t>(parse_ok(u64.str()).tensor), (std::vector<uint64_t>{~uint64_t{0}}));

  WireWriter c64 = header(DType::complex64, {1});
  c64.float32(f::float_data, 1.0f).float32(f::float_data, -1.0f);  // (real, imaginary)
  EXPECT_EQ(values_of<float>(parse_ok(c64.str()).tensor), (std::vector<float>{1.0f, -1.0f}));

  WireWriter c128 = header(DType::complex128, {1});
  c128.float64(f::double_data, 2.0).float64(f::double_data, 3.0);
  EXPECT_EQ(values_of<double>(parse_ok(c128.str()).tensor), (std::vector<double>{2.0, 3.0}));
}

TEST(TensorProto, FourBitTypesUnpackTwoPerByte) {
  // Elements 1, -1, 7, -8, 3 as int4: low nibble first; the odd last byte's high nibble is padding.
  const std::string packed{static_cast<char>(0xf1), static_cast<char>(0x87), static_cast<char>(0x03)};
  WireWriter raw = header(DType::int4, {5});
  raw.bytes(f::raw_data, packed);
  const NamedTensor i4 = parse_ok(raw.str());
  EXPECT_EQ(i4.tensor.dtype(), DType::int4);
  EXPECT_EQ(values_of<int8_t>(i4.tensor), (std::vector<int8_t>{1, -1, 7, -8, 3}));

  WireWriter typed = header(DType::uint4, {3});
  typed.packed_varints(f::int32_data, {0xf1, 0x07});
  EXPECT_EQ(values_of<uint8_t>(parse_ok(typed.str()).tensor), (std::vector<uint8_t>{1, 15, 7}));

  WireWriter short_raw = header(DType::int4, {5});
  short_raw.bytes(f::raw_data, packed.substr(0, 2));
  expect_bad(short_raw.str(), "needs 3 raw_data bytes, found 2");
}

TEST(TensorProto, ScalarAndEmptyTensors) {
  WireWriter scalar;
  scalar.varint(f::data_type, 1).float32(f::float_data, 4.0f);
  const NamedTensor s = parse_ok(scalar.str());
  EXPECT_TRUE(s.tensor.shape().empty());
  EXPECT_EQ(s.tensor.numel(), 1);
  EXPECT_TRUE(s.name.empty());

  const NamedTensor empty = parse_ok(header(DType::float32, {0, 3}).str());
  EXPECT_EQ(empty.tensor.shape(), (Shape{0, 3}));
  EXPECT_EQ(empty.tensor.byte_size(), 0u);
}

// --- refusals ------------------------------------------------------------------------------------

TEST(TensorProto, ExternalDataIsRefused) {
  WireWriter w = header(DType::float32, {4});
  w.message(f::external_data, WireWriter().bytes(f::key, "location").bytes(f::value, "weights.bin"));
  w.varint(f::data_location, 1);
  expect_bad(w.str(), "external file ('weights.bin')");
}

TEST(TensorProto, SegmentsAreRefused) {
  WireWriter w = header(DType::float32, {1});
  w.message(f::segment, WireWriter().varint(1, 0).varint(2, 1)).float32(f::float_data, 1.0f);
  expect_bad(w.str(), "segment");
}

TEST(TensorProto, UnknownElementTypes) {
  expect_bad(header(static_cast<DType>(99), {1}).str(), "element type 99");
  expect_bad(WireWriter().packed_varints(f::dims, {1}).str(), "element type 0");
}

TEST(TensorProto, ShapeAndPayloadMustAgree) {
  WireWriter short_raw = header(DType::float32, {2, 3});
  short_raw.bytes(f::raw_data, std::string(20, '\0'));
  expect_bad(short_raw.str(), "float32[2,3] needs 24 raw_data bytes, found 20");

  WireWriter long_raw = header(DType::int64, {1});
  long_raw.bytes(f::raw_data, std::string(9, '\0'));
  expect_bad(long_raw.str(), "needs 8 raw_data bytes, found 9");

  WireWriter few_floats = header(DType::float32, {3});
  few_floats.float32(f::float_data, 1.0f);
  expect_bad(few_floats.str(), "needs 3 float_data values, found 1");

  // A forged shape with no payload must neither allocate nor read: the counts differ first.
  expect_bad(header(DType::float32, {int64_t{1} << 40}).str(),
             "needs 1099511627776 float_data values, found 0");
  expect_bad(header(DType::float32, {int64_t{1} << 40, int64_t{1} << 40}).str(), "impossibly large shape");
  expect_bad(header(DType::float32, {-2}).str(), "negative dimension");

  WireWriter wrong_field = header(DType::int64, {2});
  wrong_field.packed_varints(f::int32_data, {1, 2});
  expect_bad(wrong_field.str(), "needs 2 int64_data values, found 0");
}

TEST(TensorProto, StringPayloads) {
  WireWriter strings = header(DType::string, {2});
  strings.bytes(f::string_data, "a").bytes(f::string_data, std::string("b\0c", 3));
  EXPECT_EQ(parse_ok(strings.str()).tensor.strings(),
            (std::vector<std::string>{"a", std::string("b\0c", 3)}));

  WireWriter too_few = header(DType::string, {2});
  too_few.bytes(f::string_data, "a");
  expect_bad(too_few.str(), "needs 2 string_data values, found 1");

  WireWriter raw = header(DType::string, {1});
  raw.bytes(f::raw_data, "abc");
  expect_bad(raw.str(), "raw_data");
}

TEST(TensorProto, MalformedBytes) {
  expect_bad("", "the file is empty");
  expect_bad("hello, world", "not a TensorProto (byte 2 (0x6c) does not start a valid field tag)");

  WireWriter w = header(DType::float32, {16});
  w.bytes(f::raw_data, std::string(64, '\x11'));
  const std::string good = w.str();
  ASSERT_TRUE(parse_tensor_proto(good, "mem").ok());
  expect_bad(good.substr(0, good.size() - 10), "truncated: field 'raw_data' at byte");
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto r = parse_tensor_proto(good.substr(0, n), "mem");
    ASSERT_FALSE(r.ok()) << n;  // every prefix misses payload bytes, whatever it parses as
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  }
}

TEST(TensorProto, FileErrorsAreIo) {
  auto missing = read_tensor_proto("/nonexistent/parity/input_0.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::io);
  EXPECT_NE(missing.error().message.find("not found"), std::string::npos);

  TempDir dir;
  auto directory = read_tensor_proto(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().kind, ErrorKind::io);
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);
}

// --- serialization --------------------------------------------------------------------------------

std::vector<NamedTensor> roundtrip_cases() {
  std::vector<NamedTensor> cases;
  const std::array<float, 6> floats{0.5f, -1.0f, 3.25f, 0.0f, -0.0f, 1e-30f};
  cases.push_back({"floats", Tensor::from_floats({2, 3}, floats)});
  auto bytes_of = [](DType dtype, Shape shape, std::initializer_list<uint8_t> raw) {
    std::vector<std::byte> b;
    for (uint8_t v : raw) b.push_back(static_cast<std::byte>(v));
    return Tensor::from_bytes(dtype, std::move(shape), std::move(b)).value();
  };
  cases.push_back({"i64", bytes_of(DType::int64, {1}, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})});
  cases.push_back({"half", bytes_of(DType::float16, {2}, {0x00, 0x3c, 0x00, 0xc0})});
  cases.push_back({"bf16", bytes_of(DType::bfloat16, {1}, {0x80, 0x3f})});
  cases.push_back({"flags", bytes_of(DType::boolean, {3}, {1, 0, 1})});
  cases.push_back({"nibbles", bytes_of(DType::int4, {3}, {0x01, 0xff, 0xf8})});  // 1, -1, -8
  cases.push_back({"unibbles", bytes_of(DType::uint4, {2}, {0x0f, 0x00})});
  cases.push_back({"scalar", bytes_of(DType::uint8, {}, {42})});
  cases.push_back({"empty", Tensor::zeros(DType::float32, {0, 4}).value()});
  cases.push_back({"words", Tensor::from_strings({2}, {"hello", ""})});
  cases.push_back({"", Tensor::from_floats({1}, std::array<float, 1>{7.0f})});
  return cases;
}

TEST(TensorProto, SerializeParseRoundTrip) {
  for (const NamedTensor& t : roundtrip_cases()) {
    auto back = parse_tensor_proto(serialize_tensor_proto(t), "roundtrip");
    ASSERT_TRUE(back.ok()) << t.name << ": " << back.error().describe();
    EXPECT_EQ(*back, t) << t.name;
  }
}

TEST(TensorProto, WriteReadRoundTrip) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (const NamedTensor& t : roundtrip_cases()) {
    const fs::path path = dir / ("tensor_" + t.name + ".pb");
    ASSERT_TRUE(write_tensor_proto(path, t).ok()) << t.name;
    auto back = read_tensor_proto(path);
    ASSERT_TRUE(back.ok()) << t.name << ": " << back.error().describe();
    EXPECT_EQ(*back, t) << t.name;
  }
}

TEST(TensorProto, RealFileRoundTripsByteForByte) {
  PARITY_REQUIRE("onnx-testdata");
  // Both are raw_data with the same field order, so our serialization matches onnx.numpy_helper's.
  const fs::path path = node_test_file("test_add", "input_0.pb");
  auto t = read_tensor_proto(path);
  ASSERT_TRUE(t.ok());
  std::ifstream in(path, std::ios::binary);
  const std::string original{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(serialize_tensor_proto(*t), original);
}

TEST(TensorProto, WriteToMissingFolderIsIo) {
  const Status s =
      write_tensor_proto("/nonexistent/parity/out.pb", {"x", Tensor::from_floats({1}, std::array{1.0f})});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::io);
  EXPECT_EQ(s.error().stage, Stage::write_output);
}

}  // namespace
}  // namespace parity::model
