// Run-time tests of the safetensors reader (ctattn/host/safetensors.hpp): the PyTorch fixture read with every
// value compared bit for bit (tests/fixtures/safetensors/make_fixtures.py wrote it and its expected values), the
// F16 and BF16 decoders against an independent formula for all 65,536 bit patterns, the double-to-float rounding at
// the edge of float's range, and one test per rule for malformed files, each built here byte by byte and checked
// for the error's offset and reason.
#include "catch.hpp"

#include <ctattn/host/safetensors.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace host = ctattn::host;

// The fixture directory, found from this file's path (CMake passes absolute source paths), so the test runs from
// any directory and under an emulator.
std::string fixture(std::string_view file) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/') + 1);
  return here + "../fixtures/safetensors/" + std::string(file);
}

// A file: the header's length (8 bytes, little-endian), the header, then the data.
std::vector<unsigned char> file_bytes(std::string_view header, const std::vector<unsigned char>& data = {}) {
  std::vector<unsigned char> bytes;
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(n >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::vector<unsigned char> zeros(std::size_t n) { return std::vector<unsigned char>(n, 0); }

std::vector<unsigned char> f64_bytes(std::initializer_list<double> values) {
  std::vector<unsigned char> bytes;
  for (const double v : values) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(bits >> (8 * i)));
  }
  return bytes;
}

// The offset in a file made by file_bytes(header) of the n-th occurrence (from 0) of `text` in the header.
std::uint64_t at(std::string_view header, std::string_view text, int n = 0) {
  std::size_t position = header.find(text);
  for (int i = 0; i < n; ++i) position = header.find(text, position + 1);
  REQUIRE(position != std::string_view::npos);
  return 8 + position;
}

host::load_error read_error(const std::vector<unsigned char>& bytes) {
  const host::read_result r = host::read_safetensors_bytes("bad.safetensors", bytes);
  REQUIRE_FALSE(r);
  REQUIRE_FALSE(r.file);
  REQUIRE(r.error);
  CHECK(r.error->file == "bad.safetensors");
  return *r.error;
}

host::safetensors_file read_ok(const std::vector<unsigned char>& bytes) {
  host::read_result r = host::read_safetensors_bytes("good.safetensors", bytes);
  if (!r) FAIL(r.error->message());
  REQUIRE_FALSE(r.error);
  return std::move(*r.file);
}

// An expected value from expected.json: a hexadecimal float (exact), "inf", "-inf" or "nan".
double parse_exact(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

template <typename T>
bool same_value(T actual, double expected) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(actual) ==
         std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(static_cast<T>(expected));
}

// A one-tensor file `{"t": {"dtype": ..., "shape": ..., "data_offsets": ...}}` holding `data`.
std::string entry(std::string_view dtype, std::string_view shape, std::string_view offsets) {
  return R"({"t":{"dtype":")" + std::string(dtype) + R"(","shape":)" + std::string(shape) + R"(,"data_offsets":)" +
         std::string(offsets) + "}}";
}

}  // namespace

// --- the PyTorch fixture ---------------------------------------------------------------------------------------

TEST_CASE("the PyTorch fixture: tensors in header order, metadata, every value exact as float and as double",
          "[safetensors]") {
  const host::read_result r = host::read_safetensors(fixture("mixed.safetensors"));
  if (!r) FAIL(r.error->message());
  const host::safetensors_file& file = *r.file;
  CHECK(file.name() == fixture("mixed.safetensors"));

  std::vector<std::string> names;
  for (const auto& t : file.tensors()) names.push_back(t.name);
  CHECK(names == std::vector<std::string>{"empty", "encoder.linear.bias", "encoder.linear.weight", "norm.bias",
                                          "norm.weight", "position_ids", "scale"});
  REQUIRE(file.metadata().size() == 2);
  CHECK(file.metadata()[0].first == "format");
  const std::string* format = file.find_metadata("format");
  const std::string* source = file.find_metadata("source");
  REQUIRE(format != nullptr);
  REQUIRE(source != nullptr);
  CHECK(*format == "pt");
  CHECK(*source == "tests/fixtures/safetensors/make_fixtures.py");
  CHECK(file.find_metadata("missing") == nullptr);
  CHECK(file.header_size() % 8 == 0);  // padded with spaces, as the safetensors writer does
  CHECK(file.data_offset() == 8 + file.header_size());

  std::ifstream in(fixture("expected.json"));
  const nlohmann::json expected = nlohmann::json::parse(in);
  REQUIRE(expected.size() == 6);
  std::size_t values = 0;
  for (const auto& [name, e] : expected.items()) {
    INFO("tensor " << name);
    const host::tensor_info* t = file.find(name);
    REQUIRE(t != nullptr);
    CHECK(std::string(host::dtype_name(t->type)) == e["dtype"].get<std::string>());
    const auto shape = e["shape"].get<std::vector<std::size_t>>();
    CHECK(std::vector<std::size_t>(t->shape.begin(), t->shape.end()) == shape);
    std::vector<float> as_float(static_cast<std::size_t>(t->element_count()), -1.0f);
    std::vector<double> as_double(as_float.size(), -1.0);
    const auto float_error = host::copy_tensor(file, name, shape, std::span<float>(as_float));
    const auto double_error = host::copy_tensor(file, name, shape, std::span<double>(as_double));
    REQUIRE_FALSE(float_error);
    REQUIRE_FALSE(double_error);
    const auto expected_double = e["as_double"].get<std::vector<std::string>>();
    const auto expected_float = e["as_float"].get<std::vector<std::string>>();
    REQUIRE(expected_double.size() == as_double.size());
    REQUIRE(expected_float.size() == as_float.size());
    for (std::size_t i = 0; i < as_double.size(); ++i) {
      INFO("element " << i << ": " << expected_double[i] << " / " << expected_float[i]);
      CHECK(same_value(as_double[i], parse_exact(expected_double[i])));
      CHECK(same_value(as_float[i], parse_exact(expected_float[i])));
      ++values;
    }
  }
  CHECK(values == 12 + 10 + 20 + 16 + 1);

  const host::tensor_info* scale = file.find("scale");
  REQUIRE(scale != nullptr);
  CHECK(scale->shape.empty());
  CHECK(scale->element_count() == 1);
  const host::tensor_info* empty = file.find("empty");
  REQUIRE(empty != nullptr);
  CHECK(empty->element_count() == 0);
  CHECK(empty->begin == empty->end);
  CHECK(file.data(*empty).empty());
}

TEST_CASE("the fixture's I64 tensor is read and checked but not converted", "[safetensors]") {
  const host::read_result r = host::read_safetensors(fixture("mixed.safetensors"));
  REQUIRE(r);
  const host::tensor_info* ids = r.file->find("position_ids");
  REQUIRE(ids != nullptr);
  CHECK(ids->type == host::dtype::i64);
  CHECK(r.file->data(*ids).size() == 32);
  CHECK(r.file->data(*ids)[0] == 0xff);  // -1, little-endian
  std::array<float, 4> out{};
  const std::array<std::size_t, 1> shape{4};
  const auto e = host::copy_tensor(*r.file, "position_ids", shape, std::span<float>(out));
  REQUIRE(e);
  CHECK(e->offset == ids->header_offset);
  CHECK(e->reason == "tensor 'position_ids' has dtype I64, which is not read as float (F32, F64, F16 and BF16 are)");
}

TEST_CASE("copy_tensor: an unknown name, another shape or a destination of another size is an error", "[safetensors]") {
  const host::read_result r = host::read_safetensors(fixture("mixed.safetensors"));
  REQUIRE(r);
  const host::safetensors_file& file = *r.file;
  const std::uint64_t weight_offset = file.find("encoder.linear.weight")->header_offset;
  // The offset of the tensor's name in the file (its opening quote), counted from the file's start as every
  // offset is: 8 bytes of length, then the header.
  const std::string header(reinterpret_cast<const char*>(file.bytes().data()) + 8, file.header_size());
  CHECK(weight_offset == 8 + header.find("\"encoder.linear.weight\""));
  std::vector<float> out(12, 7.0f);

  const std::array<std::size_t, 2> shape{3, 4};
  auto e = host::copy_tensor(file, "encoder.linear.weights", shape, std::span<float>(out));
  REQUIRE(e);
  CHECK(e->offset == 8);
  CHECK(e->reason == "no tensor named 'encoder.linear.weights'");
  CHECK(e->message() == fixture("mixed.safetensors") + ":8: no tensor named 'encoder.linear.weights'");

  const std::array<std::size_t, 2> transposed{4, 3};
  e = host::copy_tensor(file, "encoder.linear.weight", transposed, std::span<float>(out));
  REQUIRE(e);
  CHECK(e->offset == weight_offset);
  CHECK(e->reason == "tensor 'encoder.linear.weight' has shape [3, 4], expected [4, 3]");

  const std::array<std::size_t, 1> flat{12};
  e = host::copy_tensor(file, "encoder.linear.weight", flat, std::span<float>(out));
  REQUIRE(e);
  CHECK(e->reason == "tensor 'encoder.linear.weight' has shape [3, 4], expected [12]");

  e = host::copy_tensor(file, "encoder.linear.weight", shape, std::span<float>(out).first(11));
  REQUIRE(e);
  CHECK(e->reason == "tensor 'encoder.linear.weight' has 12 elements, but the destination holds 11");
  CHECK(out[0] == 7.0f);  // nothing written on failure

  const std::array<std::size_t, 0> scalar{};
  double value = 0;
  CHECK_FALSE(host::copy_tensor(file, "scale", scalar, std::span<double>(&value, 1)));
  CHECK(value == 0.125);
}

// --- the decoders --------------------------------------------------------------------------------------------

TEST_CASE("F16: all 65,536 bit patterns decode to the value binary16 defines", "[safetensors]") {
  static_assert(host::f16_to_float(0x3c00) == 1.0f);
  static_assert(host::f16_to_float(0x0001) == 0x1p-24f);
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const std::uint32_t sign = bits >> 15;
    const int exponent = static_cast<int>((bits >> 10) & 0x1f);
    const std::uint32_t mantissa = bits & 0x3ff;
    const float decoded = host::f16_to_float(static_cast<std::uint16_t>(bits));
    INFO("bits 0x" << std::hex << bits);
    if (exponent == 31) {
      CHECK((mantissa == 0 ? std::isinf(decoded) : std::isnan(decoded)));
      CHECK(std::signbit(decoded) == (sign != 0));
      continue;
    }
    // (-1)^s x 2^(e - 15) x (1 + m / 1024) for normal numbers, (-1)^s x 2^-14 x (m / 1024) for subnormals.
    const double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -24)
                                           : std::ldexp(1024.0 + static_cast<double>(mantissa), exponent - 25);
    const double expected = sign != 0 ? -magnitude : magnitude;
    CHECK(std::bit_cast<std::uint32_t>(decoded) == std::bit_cast<std::uint32_t>(static_cast<float>(expected)));
  }
}

TEST_CASE("BF16: all 65,536 bit patterns decode to the value bfloat16 defines", "[safetensors]") {
  static_assert(host::bf16_to_float(0x3f80) == 1.0f);
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const std::uint32_t sign = bits >> 15;
    const int exponent = static_cast<int>((bits >> 7) & 0xff);
    const std::uint32_t mantissa = bits & 0x7f;
    const float decoded = host::bf16_to_float(static_cast<std::uint16_t>(bits));
    INFO("bits 0x" << std::hex << bits);
    if (exponent == 255) {
      CHECK((mantissa == 0 ? std::isinf(decoded) : std::isnan(decoded)));
      continue;
    }
    const double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -133)
                                           : std::ldexp(128.0 + static_cast<double>(mantissa), exponent - 134);
    const double expected = sign != 0 ? -magnitude : magnitude;
    CHECK(std::bit_cast<std::uint32_t>(decoded) == std::bit_cast<std::uint32_t>(static_cast<float>(expected)));
  }
}

TEST_CASE("F64 to float: nearest, ties to even; finite values beyond float's range are errors, infinities are not",
          "[safetensors]") {
  const double largest_rounding_down = std::nextafter(0x1.ffffffp+127, 0.0);  // just below the halfway point
  const auto bytes = f64_bytes({1 + 0x1p-24, 1 + 0x3p-24, largest_rounding_down, -largest_rounding_down,
                                std::numeric_limits<double>::infinity(), 0x1p-150, 0x3p-150});
  const std::string header = entry("F64", "[7]", "[0,56]");
  const host::safetensors_file file = read_ok(file_bytes(header, bytes));
  std::array<float, 7> out{};
  const std::array<std::size_t, 1> shape{7};
  REQUIRE_FALSE(host::copy_tensor(file, "t", shape, std::span<float>(out)));
  CHECK(out[0] == 1.0f);             // halfway between 1 and 1 + 2^-23: to even, 1
  CHECK(out[1] == 1.0f + 0x1p-22f);  // halfway between 1 + 2^-23 and 1 + 2^-22: to even, 1 + 2^-22
  CHECK(out[2] == std::numeric_limits<float>::max());
  CHECK(out[3] == -std::numeric_limits<float>::max());
  CHECK(out[4] == std::numeric_limits<float>::infinity());
  CHECK(out[5] == 0.0f);       // halfway between 0 and 2^-149: to even, 0
  CHECK(out[6] == 0x1p-148f);  // halfway between 2^-149 and 2^-148: to even, 2^-148

  for (const double beyond : {0x1.ffffffp+127, -0x1.ffffffp+127, 1e300}) {
    INFO(beyond);
    const host::safetensors_file big = read_ok(file_bytes(entry("F64", "[2]", "[0,16]"), f64_bytes({0.5, beyond})));
    std::array<float, 2> two{9.0f, 9.0f};
    const std::array<std::size_t, 1> two_shape{2};
    const auto e = host::copy_tensor(big, "t", two_shape, std::span<float>(two));
    REQUIRE(e);
    CHECK(e->offset == 8 + entry("F64", "[2]", "[0,16]").size() + 8);  // the second element
    CHECK(e->reason.starts_with("tensor 't': element 1 (F64 "));
    CHECK(e->reason.ends_with(") is finite but beyond float's range (its nearest float is infinite)"));
    CHECK(two[0] == 9.0f);  // nothing written
    std::array<double, 2> as_double{};
    REQUIRE_FALSE(host::copy_tensor(big, "t", two_shape, std::span<double>(as_double)));
    CHECK(as_double[1] == beyond);
  }
}

TEST_CASE("dtype names, sizes and lookup", "[safetensors]") {
  static_assert(host::dtype_name(host::dtype::bf16) == "BF16");
  static_assert(host::dtype_size(host::dtype::f64) == 8);
  static_assert(host::dtype_from_name("F8_E4M3") == host::dtype::f8_e4m3);
  static_assert(!host::dtype_from_name("f32"));
  static_assert(host::dtype_bits(host::dtype::f4) == 4 && host::dtype_size(host::dtype::f4) == 0);
  static_assert(host::dtype_bits(host::dtype::c64) == 64 && host::dtype_size(host::dtype::c64) == 8);
  for (const auto t :
       {host::dtype::f32,     host::dtype::f64,     host::dtype::f16,     host::dtype::bf16, host::dtype::f8_e4m3,
        host::dtype::f8_e5m2, host::dtype::boolean, host::dtype::u8,      host::dtype::i8,   host::dtype::i16,
        host::dtype::u16,     host::dtype::i32,     host::dtype::u32,     host::dtype::i64,  host::dtype::u64,
        host::dtype::f8_e8m0, host::dtype::f6_e2m3, host::dtype::f6_e3m2, host::dtype::f4,   host::dtype::c64}) {
    CHECK(host::dtype_from_name(host::dtype_name(t)) == t);
    CHECK(host::dtype_bits(t) > 0);
    CHECK(host::dtype_size(t) * 8 == (host::dtype_bits(t) % 8 == 0 ? host::dtype_bits(t) : 0));
  }
}

// --- valid files the writers produce ------------------------------------------------------------------------

TEST_CASE("valid: padding after the JSON, no tensors, scalars, empty tensors at range boundaries", "[safetensors]") {
  // The safetensors writer pads the header with spaces to a multiple of 8; any JSON whitespace is accepted.
  CHECK(read_ok(file_bytes(entry("F32", "[1]", "[0,4]") + "   \t\n ", zeros(4))).tensors().size() == 1);
  CHECK(read_ok(file_bytes("{}")).tensors().empty());
  CHECK(read_ok(file_bytes(R"({"__metadata__":{}})")).metadata().empty());
  // Empty tensors take no bytes: before, between and after the others, and alone.
  const host::safetensors_file f = read_ok(file_bytes(R"({"e0":{"dtype":"F16","shape":[0],"data_offsets":[0,0]},)"
                                                      R"("a":{"dtype":"F32","shape":[],"data_offsets":[0,4]},)"
                                                      R"("e1":{"dtype":"F32","shape":[4,0,2],"data_offsets":[4,4]},)"
                                                      R"("b":{"dtype":"BF16","shape":[1,1],"data_offsets":[4,6]},)"
                                                      R"("e2":{"dtype":"U8","shape":[0],"data_offsets":[6,6]}})",
                                                      zeros(6)));
  REQUIRE(f.tensors().size() == 5);
  const host::tensor_info* e1 = f.find("e1");
  REQUIRE(e1 != nullptr);
  CHECK(e1->begin == f.data_offset() + 4);
  CHECK(e1->element_count() == 0);
  // A zero extent makes the count 0 even when the other extents' product would overflow.
  CHECK(read_ok(file_bytes(entry("F64", "[4294967296,4294967296,0]", "[0,0]"))).tensors().size() == 1);
  CHECK(read_ok(file_bytes("{}")).data_offset() == 10);
}

TEST_CASE("a file that cannot be opened, or a directory, is an error at offset 0", "[safetensors]") {
  const host::read_result r = host::read_safetensors(fixture("no-such-file.safetensors"));
  REQUIRE_FALSE(r);
  CHECK(r.error->offset == 0);
  CHECK(r.error->reason == "cannot open the file");
  const std::string directory = fixture("");
  const host::read_result d = host::read_safetensors(directory);
  REQUIRE_FALSE(d);
  CHECK(d.error->reason == "not a regular file");
}

// --- malformed files: one test per rule ---------------------------------------------------------------------

TEST_CASE("rule: a file shorter than 8 bytes", "[safetensors][malformed]") {
  for (std::size_t n = 0; n < 8; ++n) {
    const host::load_error e = read_error(zeros(n));
    CHECK(e.offset == 0);
    CHECK(e.reason == "file is " + std::to_string(n) +
                          " bytes long, too short for the 8-byte header length that starts a safetensors file");
  }
}

TEST_CASE("rule: a header length beyond the 100,000,000-byte limit", "[safetensors][malformed]") {
  for (const std::uint64_t length : {std::uint64_t{100'000'001}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    std::vector<unsigned char> bytes;
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(length >> (8 * i)));
    bytes.push_back('{');
    const host::load_error e = read_error(bytes);
    CHECK(e.offset == 0);
    CHECK(e.reason == "header length " + std::to_string(length) + " is beyond the limit of 100000000 bytes");
  }
}

TEST_CASE("rule: a header length beyond the file", "[safetensors][malformed]") {
  std::vector<unsigned char> bytes = file_bytes("{}");
  bytes[0] = 3;  // one byte more than the file holds
  host::load_error e = read_error(bytes);
  CHECK(e.offset == 0);
  CHECK(e.reason == "header length 3 runs past the end of the file (2 bytes follow the length)");
  bytes[0] = 0;
  bytes[3] = 0x05;  // 83,886,080: within the limit, far beyond the file
  e = read_error(bytes);
  CHECK(e.reason == "header length 83886080 runs past the end of the file (2 bytes follow the length)");
}

TEST_CASE("rule: the header is not valid JSON", "[safetensors][malformed]") {
  // The offset is the last byte the parser read: here the 'x' after the object's value.
  std::string header = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}x})";
  host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "x"));
  CHECK(e.reason.starts_with("header is not valid JSON: syntax error while parsing object"));
  // Cut short: the offset is the end of the header.
  header = R"({"t":{"dtype":"F32")";
  e = read_error(file_bytes(header));
  CHECK(e.offset == 8 + header.size());
  CHECK(e.reason.find("unexpected end of input") != std::string::npos);
  // An empty header, bytes after the JSON value that are not whitespace (a 0 byte included), invalid UTF-8.
  CHECK(read_error(file_bytes("")).offset == 8);
  // nlohmann's lexer would stop at a 0 byte; the reader refuses one anywhere in the header.
  e = read_error(file_bytes(std::string("{}\0\0  ", 6)));
  CHECK(e.offset == 10);
  CHECK(e.reason == "header is not valid JSON: it holds a 0 byte (the header may be padded with spaces only)");
  CHECK(read_error(file_bytes(std::string("{\"a\0\":1}", 8))).offset == 11);
  CHECK(read_error(file_bytes("{} {}")).offset == 11);
  e = read_error(file_bytes("{\"\xff\":1}"));
  CHECK(e.offset == 10);
  CHECK(e.reason.find("invalid string: ill-formed UTF-8 byte") != std::string::npos);
  // The bytes the parser quotes from the file are escaped: the message is printable ASCII.
  CHECK(e.reason.find("\\xff") != std::string::npos);
  CHECK(std::all_of(e.reason.begin(), e.reason.end(), [](char c) { return c >= 0x20 && c < 0x7f; }));
  // A number too large for a double (nlohmann reports it through the same path), as a size and as an offset:
  // the message is the reader's, without the JSON library's "[json.exception...]" prefix.
  header = entry("F32", "[1e999]", "[0,4]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.reason == "header is not valid JSON: number overflow parsing '1e999'");
  header = entry("F32", "[1]", "[0,1e400]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.reason == "header is not valid JSON: number overflow parsing '1e400'");
  CHECK(e.reason.find("json.exception") == std::string::npos);
}

TEST_CASE("rule: a byte-order mark before the header", "[safetensors][malformed]") {
  const host::load_error e = read_error(file_bytes("\xEF\xBB\xBF{}"));
  CHECK(e.offset == 8);
  CHECK(e.reason == "header starts with a UTF-8 byte-order mark (EF BB BF); a safetensors header starts with '{'");
}

TEST_CASE("rule: the header is not a JSON object", "[safetensors][malformed]") {
  for (const std::string header : {"[1]", "\"t\"", "  5", "null", "true"}) {
    INFO(header);
    const host::load_error e = read_error(file_bytes(header));
    CHECK(e.offset == 8 + header.find_first_not_of(' '));
    CHECK(e.reason == "header is not a JSON object");
  }
}

TEST_CASE("rule: a tensor entry that is not an object", "[safetensors][malformed]") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b": [1]})";
  const host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "[1]}"));
  CHECK(e.reason == "tensor 'b': entry must be an object, not an array");
  CHECK(read_error(file_bytes(R"({"b":"F32"})")).reason == "tensor 'b': entry must be an object, not a string");
}

TEST_CASE("rule: an entry without dtype, shape or data_offsets", "[safetensors][malformed]") {
  const std::array<std::pair<std::string, std::string>, 3> cases{{
      {"dtype", R"({"__metadata__":{},"w":{"shape":[1],"data_offsets":[0,4]}})"},
      {"shape", R"({"__metadata__":{},"w":{"dtype":"F32","data_offsets":[0,4]}})"},
      {"data_offsets", R"({"__metadata__":{},"w":{"dtype":"F32","shape":[1]}})"},
  }};
  for (const auto& [field, header] : cases) {
    INFO(header);
    const host::load_error e = read_error(file_bytes(header, zeros(4)));
    CHECK(e.offset == at(header, "\"w\""));
    CHECK(e.reason == "tensor 'w': entry has no \"" + field + "\"");
  }
}

TEST_CASE("rule: dtype, shape or data_offsets of the wrong JSON type", "[safetensors][malformed]") {
  std::string header = entry("5", "[1]", "[0,4]");
  header.replace(header.find("\"5\""), 3, "5");
  host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "5"));
  CHECK(e.reason == "tensor 't': \"dtype\" must be a string, not a number");

  header = entry("F32", "\"1\"", "[0,4]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "\"1\""));
  CHECK(e.reason == "tensor 't': \"shape\" must be an array of integers, not a string");

  header = entry("F32", "[1]", "{\"begin\":0}");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "{\"begin"));
  CHECK(e.reason == "tensor 't': \"data_offsets\" must be an array of two integers, not an object");

  header = entry("F32", "[1, [2]]", "[0,4]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "[2]"));
  CHECK(e.reason == "tensor 't': \"shape\" must hold integers, not an array");

  header = entry("F32", "[1]", "[0,null]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "null"));
  CHECK(e.reason == "tensor 't': \"data_offsets\" must hold integers, not null");
}

TEST_CASE("rule: an unknown field in a tensor entry", "[safetensors][malformed]") {
  const std::string header = R"({"t":{"dtype":"F32","shape":[1],"strides":[1],"data_offsets":[0,4]}})";
  const host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "\"strides\""));
  CHECK(e.reason == "tensor 't': unknown field 'strides' (an entry holds \"dtype\", \"shape\" and \"data_offsets\")");
}

TEST_CASE("rule: an unknown dtype is named", "[safetensors][malformed]") {
  for (const std::string_view dtype : {"F33", "f32", "float32", "F5", ""}) {
    const std::string header = entry(dtype, "[1]", "[0,4]");
    const host::load_error e = read_error(file_bytes(header, zeros(4)));
    CHECK(e.offset == at(header, "\"" + std::string(dtype) + "\""));
    CHECK(e.reason == "tensor 't': unknown dtype '" + std::string(dtype) +
                          "' (the format's dtypes are F64, F32, F16, BF16, F8_E5M2, F8_E4M3, F8_E8M0, F6_E2M3, "
                          "F6_E3M2, F4, C64, I64, I32, I16, I8, U64, U32, U16, U8, BOOL)");
  }
}

TEST_CASE(
    "valid: a file holding the format's newer dtypes opens; the tensors asked for are read, the others refused "
    "by name",
    "[safetensors]") {
  // An MX-style file: F32 weights beside an E8M0 scale, packed F6 and F4 blocks and a C64 tensor. 12 F6 values are
  // 72 bits (9 bytes), 6 F4 values 3 bytes.
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("c":{"dtype":"C64","shape":[1],"data_offsets":[8,16]},)"
                             R"("s":{"dtype":"F8_E8M0","shape":[3],"data_offsets":[16,19]},)"
                             R"("a":{"dtype":"F6_E2M3","shape":[3,4],"data_offsets":[19,28]},)"
                             R"("b":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[28,31]},)"
                             R"("q":{"dtype":"F4","shape":[6],"data_offsets":[31,34]}})";
  std::vector<unsigned char> data = zeros(34);
  data[2] = 0x80;  // w[0] = 1.0f: 0x3f800000
  data[3] = 0x3f;
  const host::safetensors_file file = read_ok(file_bytes(header, data));
  REQUIRE(file.tensors().size() == 6);
  CHECK(file.find("s")->type == host::dtype::f8_e8m0);
  CHECK(file.find("a")->type == host::dtype::f6_e2m3);
  CHECK(file.find("b")->type == host::dtype::f6_e3m2);
  CHECK(file.find("q")->type == host::dtype::f4);
  CHECK(file.find("c")->type == host::dtype::c64);
  CHECK(file.data(*file.find("a")).size() == 9);
  CHECK(file.data(*file.find("q")).size() == 3);

  std::array<float, 2> w{};
  const std::array<std::size_t, 1> two{2};
  REQUIRE_FALSE(host::copy_tensor(file, "w", two, std::span<float>(w)));
  CHECK(w == std::array<float, 2>{1.0f, 0.0f});
  const std::array<std::size_t, 1> three{3};
  std::array<float, 3> out{};
  const auto e = host::copy_tensor(file, "s", three, std::span<float>(out));
  REQUIRE(e);
  CHECK(e->offset == at(header, "\"s\""));
  CHECK(e->reason == "tensor 's' has dtype F8_E8M0, which is not read as float (F32, F64, F16 and BF16 are)");
  CHECK(out == std::array<float, 3>{});
}

TEST_CASE("rule: a packed tensor's bits end on a byte", "[safetensors][malformed]") {
  // 3 F4 values are 12 bits, 5 F6 values 30: neither fills whole bytes.
  for (const auto& [dtype, shape, bits] : {std::tuple{"F4", "[3]", 12}, std::tuple{"F6_E2M3", "[5]", 30}}) {
    const std::string header = entry(dtype, shape, "[0,2]");
    const host::load_error e = read_error(file_bytes(header, zeros(2)));
    CHECK(e.offset == at(header, shape));
    CHECK(e.reason == "tensor 't': shape " + std::string(shape) + " of " + std::string(dtype) + " holds " +
                          std::to_string(bits) +
                          " bits, which do not end on a byte (a packed tensor fills whole bytes)");
  }
  // 4 F4 values fill 2 bytes; the range must hold exactly those.
  const std::string header = entry("F4", "[4]", "[0,3]");
  CHECK(read_error(file_bytes(header, zeros(3))).reason.ends_with("hold 3 bytes, but shape [4] of F4 needs 2"));
}

TEST_CASE("rule: shape entries that are negative or not integers", "[safetensors][malformed]") {
  std::string header = entry("F32", "[2, -1]", "[0,8]");
  host::load_error e = read_error(file_bytes(header, zeros(8)));
  CHECK(e.offset == at(header, "-1"));
  CHECK(e.reason == "tensor 't': \"shape\" holds a negative number (-1)");

  for (const std::string_view number : {"2.0", "1e3", "18446744073709551616"}) {
    header = entry("F32", "[" + std::string(number) + "]", "[0,8]");
    e = read_error(file_bytes(header, zeros(8)));
    CHECK(e.offset == at(header, number));
    CHECK(e.reason == "tensor 't': \"shape\" holds " + std::string(number) + ", not an integer from 0 to 2^64 - 1");
  }
}

TEST_CASE("rule: data_offsets that are not two non-negative integers", "[safetensors][malformed]") {
  std::string header = entry("F32", "[1]", "[4]");
  host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "[4]"));
  CHECK(e.reason == "tensor 't': \"data_offsets\" must hold two integers [begin, end], not 1");
  header = entry("F32", "[1]", "[0,4,8]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "[0,4,8]"));
  CHECK(e.reason == "tensor 't': \"data_offsets\" must hold two integers [begin, end], not more");
  header = entry("F32", "[1]", "[-4,0]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "-4"));
  CHECK(e.reason == "tensor 't': \"data_offsets\" holds a negative number (-4)");
}

TEST_CASE("rule: duplicate tensor names", "[safetensors][malformed]") {
  const std::string header = R"({"a\"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("a\u0022b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  const host::load_error e = read_error(file_bytes(header, zeros(8)));
  CHECK(e.offset == at(header, "\"a\\u0022b\""));  // the same name, escaped another way
  CHECK(e.reason == "tensor 'a\"b' appears twice");
}

TEST_CASE("rule: duplicate keys inside an entry, in __metadata__, and __metadata__ twice", "[safetensors][malformed]") {
  std::string header = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"dtype":"F16"}})";
  host::load_error e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.offset == at(header, "\"dtype\"", 1));
  CHECK(e.reason == "tensor 't': field 'dtype' appears twice");

  header = R"({"__metadata__":{"format":"pt","format":"np"}})";
  e = read_error(file_bytes(header));
  CHECK(e.offset == at(header, "\"format\"", 1));
  CHECK(e.reason == "__metadata__ key 'format' appears twice");

  header = R"({"__metadata__":{},"__metadata__":{}})";
  e = read_error(file_bytes(header));
  CHECK(e.offset == at(header, "\"__metadata__\"", 1));
  CHECK(e.reason == "\"__metadata__\" appears twice");
}

TEST_CASE("rule: __metadata__ that is not a map of strings to strings", "[safetensors][malformed]") {
  std::string header = R"({"__metadata__":["pt"]})";
  host::load_error e = read_error(file_bytes(header));
  CHECK(e.offset == at(header, "["));
  CHECK(e.reason == "\"__metadata__\" must be an object of strings, not an array");

  header = R"({"__metadata__":{"format":"pt","epochs":3}})";
  e = read_error(file_bytes(header));
  CHECK(e.offset == at(header, "3"));
  CHECK(e.reason == "__metadata__ key 'epochs': value must be a string, not a number");

  header = R"({"__metadata__":{"nested":{"a":"b"}}})";
  e = read_error(file_bytes(header));
  CHECK(e.offset == at(header, "{\"a\""));
  CHECK(e.reason == "__metadata__ key 'nested': value must be a string, not an object");
}

TEST_CASE("rule: data_offsets that end before they begin", "[safetensors][malformed]") {
  const std::string header = entry("F32", "[1]", "[8,4]");
  const host::load_error e = read_error(file_bytes(header, zeros(8)));
  CHECK(e.offset == at(header, "[8,4]"));
  CHECK(e.reason == "tensor 't': data_offsets [8, 4] end before they begin");
}

TEST_CASE("rule: a range past the end of the data buffer", "[safetensors][malformed]") {
  std::string header = entry("F32", "[2]", "[0,8]");
  const std::vector<unsigned char> bytes = file_bytes(header, zeros(6));  // truncated by 2 bytes
  host::load_error e = read_error(bytes);
  CHECK(e.offset == bytes.size());
  CHECK(e.reason ==
        "tensor 't': data_offsets [0, 8] run past the end of the data buffer (6 bytes, ending at file "
        "offset " +
            std::to_string(bytes.size()) + ")");
  // Offsets near 2^64 do not wrap around.
  header = entry("F32", "[1]", "[18446744073709551612,18446744073709551615]");
  e = read_error(file_bytes(header, zeros(4)));
  CHECK(e.reason.find("run past the end of the data buffer") != std::string::npos);
}

TEST_CASE("rule: a range whose size is not dtype size x element count", "[safetensors][malformed]") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"BF16","shape":[2,3],"data_offsets":[4,14]}})";
  const host::load_error e = read_error(file_bytes(header, zeros(14)));
  CHECK(e.offset == 8 + header.size() + 4);  // where b's data starts
  CHECK(e.reason == "tensor 'b': data_offsets [4, 14] hold 10 bytes, but shape [2, 3] of BF16 needs 12");
}

TEST_CASE("rule: a shape whose bit count overflows 64 bits", "[safetensors][malformed]") {
  // 2^32 x 2^32 overflows in the element count; 2^62 elements of F64 in the bit count.
  for (const std::string_view shape : {"[4294967296,4294967296]", "[4611686018427387904]"}) {
    const std::string header = entry("F64", shape, "[0,8]");
    const host::load_error e = read_error(file_bytes(header, zeros(8)));
    CHECK(e.offset == at(header, shape));
    CHECK(e.reason ==
          "tensor 't': shape " +
              std::string(shape == "[4611686018427387904]" ? "[4611686018427387904]" : "[4294967296, 4294967296]") +
              " of F64 has more bits than 2^64 - 1");
  }
  // 2^58 elements of F64 is 2^64 bits: one too many.
  const std::string header = entry("F64", "[288230376151711744]", "[0,8]");
  CHECK(read_error(file_bytes(header, zeros(8))).reason.ends_with("has more bits than 2^64 - 1"));
}

TEST_CASE("rule: ranges that overlap", "[safetensors][malformed]") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  host::load_error e = read_error(file_bytes(header, zeros(12)));
  CHECK(e.offset == 8 + header.size() + 4);
  CHECK(e.reason == "tensor 'b': data_offsets [4, 12] overlap those of tensor 'a' [0, 8]");
  // The same range twice, and an empty tensor inside another's range.
  e = read_error(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})",
                            zeros(8)));
  CHECK(e.reason.find("overlap those of tensor") != std::string::npos);
  e = read_error(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
                            zeros(8)));
  CHECK(e.reason == "tensor 'e': data_offsets [4, 4] overlap those of tensor 'a' [0, 8]");
}

TEST_CASE("rule: holes between ranges, and a first range that does not start at 0", "[safetensors][malformed]") {
  const std::string header = R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},)"
                             R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  host::load_error e = read_error(file_bytes(header, zeros(12)));
  CHECK(e.offset == 8 + header.size() + 4);
  CHECK(e.reason ==
        "4 bytes of the data buffer, [4, 8), belong to no tensor (a hole after tensor 'a', before "
        "tensor 'b')");
  const std::string late = entry("F32", "[1]", "[2,6]");
  e = read_error(file_bytes(late, zeros(6)));
  CHECK(e.offset == 8 + late.size());
  CHECK(e.reason == "2 bytes of the data buffer, [0, 2), belong to no tensor (a hole before tensor 't')");
}

TEST_CASE("rule: trailing bytes after the last tensor", "[safetensors][malformed]") {
  const std::string header = entry("F32", "[1]", "[0,4]");
  host::load_error e = read_error(file_bytes(header, zeros(5)));
  CHECK(e.offset == 8 + header.size() + 4);
  CHECK(e.reason == "1 trailing bytes after the last tensor's data, [4, 5) of the data buffer, belong to no tensor");
  e = read_error(file_bytes("{}", zeros(3)));
  CHECK(e.offset == 10);
  CHECK(e.reason == "3 trailing bytes after the last tensor's data, [0, 3) of the data buffer, belong to no tensor");
}

TEST_CASE("messages quote hostile names byte by byte", "[safetensors][malformed]") {
  const std::string header = R"({"a\u0001'\u00e9":{"dtype":"X"}})";
  const host::load_error e = read_error(file_bytes(header));
  CHECK(e.reason.starts_with("tensor 'a\\x01\\x27\\xc3\\xa9': unknown dtype 'X'"));
  CHECK(e.message().starts_with("bad.safetensors:" + std::to_string(at(header, "\"X\"")) + ": tensor 'a\\x01"));
}
