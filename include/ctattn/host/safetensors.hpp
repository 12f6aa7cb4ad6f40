// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_HOST_SAFETENSORS_HPP
#define CTATTN_HOST_SAFETENSORS_HPP

/// \file
/// Host-only: reading `.safetensors` files (the weights format of PyTorch's `safetensors` package) and converting
/// their F32, F64, F16 and BF16 tensors to `float` or `double`. Never included by the core (`ctattn/ctattn.hpp`).
///
/// Needs nlohmann/json 3.11 (Debian: `nlohmann-json3-dev`), whose SAX parser reads the JSON header. Every
/// failure is returned as a value (`load_error`: file, byte offset, reason); no exception leaves this header
/// (an allocation failure included, reported as an error). The whole file is read into memory: the files meant
/// here hold the weights of small models. docs/safetensors.md describes the format, each check and the rounding.
///
/// | step | function | result |
/// |------|----------|--------|
/// | read and check a file | `read_safetensors(path)` | `read_result`: a `safetensors_file` or a `load_error` |
/// | the same from memory | `read_safetensors_bytes(name, bytes)` | `read_result` |
/// | one tensor into caller storage | `copy_tensor(file, name, shape, out)` | `std::optional<load_error>` |
///
/// Example:
/// \code
///   const ctattn::host::read_result r = ctattn::host::read_safetensors("model.safetensors");
///   if (!r) throw std::runtime_error(r.error->message());
///   std::array<float, 16 * 4> values{};
///   const std::array<std::size_t, 2> shape{16, 4};
///   if (auto e = ctattn::host::copy_tensor(*r.file, "layers.0.linear1.weight", shape, std::span<float>{values})) {
///     throw std::runtime_error(e->message());   // model.safetensors:120: tensor 'layers.0...' has shape [4, 16] ...
///   }
///   const auto w = ctattn::from_span<ctattn::matrix<float, 16, 4>>(values);   // row-major, as stored
/// \endcode

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctattn::host {

/// Why a file could not be read, or a tensor not copied: the file's name, the byte offset in the file where the
/// problem was found, and a sentence saying what is wrong.
///
/// | member | meaning |
/// |--------|---------|
/// | `file` | the name given to `read_safetensors` (its path) or `read_safetensors_bytes` |
/// | `offset` | byte offset from the file's start (docs/safetensors.md lists which byte each check names) |
/// | `reason` | what is wrong, naming the tensor or key concerned |
///
/// Example:
/// \code
///   ctattn::host::load_error e{"w.safetensors", 8, "header is not a JSON object"};
///   const std::string text = e.message();   // "w.safetensors:8: header is not a JSON object"
/// \endcode
struct load_error {
  std::string file;
  std::uint64_t offset = 0;
  std::string reason;

  /// `file:offset: reason`, the form compilers use for a position in a file.
  [[nodiscard]] std::string message() const { return file + ':' + std::to_string(offset) + ": " + reason; }
};

/// The element types of the safetensors format. All of them are recognised, so that a file holding, say, an I64
/// buffer or an MX scale beside its weights is opened and checked; `copy_tensor` converts the four floating-point
/// ones, and refuses any other tensor it is asked for, naming it and its dtype.
///
/// | value | name in the file | bits | `copy_tensor` reads it |
/// |-------|------------------|------|------------------------|
/// | `f32`, `f64` | `F32`, `F64` | 32, 64 | yes |
/// | `f16`, `bf16` | `F16`, `BF16` | 16 | yes |
/// | `f8_e4m3`, `f8_e5m2`, `f8_e8m0` | `F8_E4M3`, `F8_E5M2`, `F8_E8M0` | 8 | no |
/// | `f6_e2m3`, `f6_e3m2`, `f4` | `F6_E2M3`, `F6_E3M2`, `F4` (packed: a tensor's bits end on a byte) | 6, 6, 4 | no |
/// | `c64` | `C64` (two F32) | 64 | no |
/// | `boolean`, `u8`, `i8` | `BOOL`, `U8`, `I8` | 8 | no |
/// | `i16`, `u16`, `i32`, `u32`, `i64`, `u64` | `I16` ... `U64` | 16, 16, 32, 32, 64, 64 | no |
///
/// Example:
/// \code
///   static_assert(ctattn::host::dtype_size(ctattn::host::dtype::bf16) == 2);
/// \endcode
enum class dtype : std::uint8_t {
  f32,
  f64,
  f16,
  bf16,
  f8_e4m3,
  f8_e5m2,
  boolean,
  u8,
  i8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f8_e8m0,
  f6_e2m3,
  f6_e3m2,
  f4,
  c64
};

namespace detail {
struct dtype_entry {
  dtype type;
  std::string_view name;
  std::uint64_t bits;
};
inline constexpr dtype_entry dtype_table[] = {
    {dtype::f64, "F64", 64},        {dtype::f32, "F32", 32},        {dtype::f16, "F16", 16},
    {dtype::bf16, "BF16", 16},      {dtype::f8_e5m2, "F8_E5M2", 8}, {dtype::f8_e4m3, "F8_E4M3", 8},
    {dtype::f8_e8m0, "F8_E8M0", 8}, {dtype::f6_e2m3, "F6_E2M3", 6}, {dtype::f6_e3m2, "F6_E3M2", 6},
    {dtype::f4, "F4", 4},           {dtype::c64, "C64", 64},        {dtype::i64, "I64", 64},
    {dtype::i32, "I32", 32},        {dtype::i16, "I16", 16},        {dtype::i8, "I8", 8},
    {dtype::u64, "U64", 64},        {dtype::u32, "U32", 32},        {dtype::u16, "U16", 16},
    {dtype::u8, "U8", 8},           {dtype::boolean, "BOOL", 8},
};

// The names of every dtype, in the table's order: "F64, F32, ..., BOOL".
inline std::string dtype_names() {
  std::string names;
  for (const auto& entry : dtype_table) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}
}  // namespace detail

/// The name a safetensors header uses for `t` (`"F32"`, `"BF16"`, ...).
///
/// | argument | result |
/// |----------|--------|
/// | `dtype::bf16` | `"BF16"` |
///
/// Example:
/// \code
///   static_assert(ctattn::host::dtype_name(ctattn::host::dtype::f16) == "F16");
/// \endcode
[[nodiscard]] constexpr std::string_view dtype_name(dtype t) noexcept {
  for (const auto& entry : detail::dtype_table) {
    if (entry.type == t) return entry.name;
  }
  return "?";
}

/// Bits per element of `t` (a tensor of a dtype narrower than a byte is packed, and its bits end on a byte).
///
/// | argument | result |
/// |----------|--------|
/// | `dtype::f64` | 64 |
/// | `dtype::f4` | 4 |
///
/// Example:
/// \code
///   static_assert(ctattn::host::dtype_bits(ctattn::host::dtype::f6_e2m3) == 6);
/// \endcode
[[nodiscard]] constexpr std::uint64_t dtype_bits(dtype t) noexcept {
  for (const auto& entry : detail::dtype_table) {
    if (entry.type == t) return entry.bits;
  }
  return 0;
}

/// Bytes per element of `t`; 0 for the dtypes narrower than a byte (`dtype_bits` gives theirs).
///
/// | argument | result |
/// |----------|--------|
/// | `dtype::f64` | 8 |
/// | `dtype::f4` | 0 |
///
/// Example:
/// \code
///   static_assert(ctattn::host::dtype_size(ctattn::host::dtype::f32) == 4);
/// \endcode
[[nodiscard]] constexpr std::uint64_t dtype_size(dtype t) noexcept {
  return dtype_bits(t) % 8 == 0 ? dtype_bits(t) / 8 : 0;
}

/// The dtype a header names `name`, or nothing when the format has no such dtype (the names are case-sensitive).
///
/// | argument | result |
/// |----------|--------|
/// | `"F32"` | `dtype::f32` |
/// | `"f32"`, `"F5"` | `std::nullopt` |
///
/// Example:
/// \code
///   static_assert(ctattn::host::dtype_from_name("BF16") == ctattn::host::dtype::bf16);
/// \endcode
[[nodiscard]] constexpr std::optional<dtype> dtype_from_name(std::string_view name) noexcept {
  for (const auto& entry : detail::dtype_table) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

/// One tensor of a file, as its header entry describes it (checked: the range lies in the data buffer and holds
/// exactly `dtype_bits(type) x element_count() / 8` bytes, a whole number).
///
/// | member | meaning |
/// |--------|---------|
/// | `name` | the header's key (a PyTorch `state_dict` name such as `layers.0.self_attn.in_proj_weight`) |
/// | `type`, `shape` | element type; extents, outermost first (row-major); `[]` is a scalar, one element |
/// | `begin`, `end` | absolute file offsets of the data, `end - begin` bytes (equal for an empty tensor) |
/// | `header_offset` | file offset of the entry's key in the JSON header (for messages) |
///
/// Example:
/// \code
///   const ctattn::host::tensor_info* t = file.find("bias");
///   if (t != nullptr && t->type == ctattn::host::dtype::f32) std::cout << t->element_count() << " floats\n";
/// \endcode
struct tensor_info {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t header_offset = 0;

  /// The product of the extents (1 for a scalar, 0 when an extent is 0). The reader has checked that it does not
  /// overflow.
  [[nodiscard]] std::uint64_t element_count() const noexcept {
    std::uint64_t count = 1;
    for (const std::uint64_t extent : shape) count *= extent;
    return count;
  }
};

/// A checked safetensors file held in memory: its bytes, its tensors in header order and its `__metadata__`.
/// Made only by `read_safetensors` and `read_safetensors_bytes`, so its tensors always lie inside its bytes.
///
/// | member | result |
/// |--------|--------|
/// | `name()` | the file name given to the reader (used in messages) |
/// | `bytes()` | the whole file |
/// | `header_size()`, `data_offset()` | N, the JSON header's length; 8 + N, where the data buffer starts |
/// | `tensors()` | every tensor, in the header's order |
/// | `metadata()` | the `__metadata__` entries (string to string), in the header's order |
/// | `find(name)`, `find_metadata(key)` | the tensor or metadata value of that name, or `nullptr` |
/// | `metadata_offset(key)` | the file offset of that metadata value (for messages), or 8 when it has none |
/// | `data(tensor)` | the tensor's raw little-endian bytes |
///
/// Example:
/// \code
///   for (const ctattn::host::tensor_info& t : file.tensors()) {
///     std::cout << t.name << ' ' << ctattn::host::dtype_name(t.type) << '\n';
///   }
/// \endcode
namespace detail {
struct file_access;
}  // namespace detail

class safetensors_file {
 public:
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::span<const unsigned char> bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::uint64_t header_size() const noexcept { return header_size_; }
  [[nodiscard]] std::uint64_t data_offset() const noexcept { return 8 + header_size_; }
  [[nodiscard]] const std::vector<tensor_info>& tensors() const noexcept { return tensors_; }
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& metadata() const noexcept { return metadata_; }

  [[nodiscard]] const tensor_info* find(std::string_view tensor_name) const noexcept {
    for (const tensor_info& t : tensors_) {
      if (t.name == tensor_name) return &t;
    }
    return nullptr;
  }

  [[nodiscard]] const std::string* find_metadata(std::string_view key) const noexcept {
    for (const auto& entry : metadata_) {
      if (entry.first == key) return &entry.second;
    }
    return nullptr;
  }

  [[nodiscard]] std::uint64_t metadata_offset(std::string_view key) const noexcept {
    for (std::size_t i = 0; i < metadata_.size() && i < metadata_offsets_.size(); ++i) {
      if (metadata_[i].first == key) return metadata_offsets_[i];
    }
    return 8;
  }

  /// The bytes of `t`, which must be one of this file's tensors; an empty span for any other range.
  [[nodiscard]] std::span<const unsigned char> data(const tensor_info& t) const noexcept {
    if (t.begin > t.end || t.end > bytes_.size()) return {};
    return std::span<const unsigned char>(bytes_).subspan(static_cast<std::size_t>(t.begin),
                                                          static_cast<std::size_t>(t.end - t.begin));
  }

 private:
  friend struct detail::file_access;
  std::string name_;
  std::vector<unsigned char> bytes_;
  std::uint64_t header_size_ = 0;
  std::vector<tensor_info> tensors_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<std::uint64_t> metadata_offsets_;
};

/// What the readers return: the checked file, or why it could not be read. Exactly one of the two is set.
///
/// | member | set when |
/// |--------|----------|
/// | `file` | the file is well-formed |
/// | `error` | it is not, or could not be read |
///
/// Example:
/// \code
///   auto r = ctattn::host::read_safetensors("w.safetensors");
///   if (!r) std::cerr << r.error->message() << '\n';
/// \endcode
struct read_result {
  std::optional<safetensors_file> file;
  std::optional<load_error> error;

  explicit operator bool() const noexcept { return file.has_value(); }
};

/// The largest JSON header the readers accept: 100,000,000 bytes (the limit of the reference implementation).
/// Larger header lengths are refused before anything is allocated for them.
inline constexpr std::uint64_t max_header_size = 100'000'000;

namespace detail {

// A name in a message: in single quotes, with bytes outside printable ASCII (and quotes and backslashes) written
// as \xHH, so a hostile name cannot break a message or a terminal.
inline std::string quote_name(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\'' && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  out += '\'';
  return out;
}

// text with every byte that is not printable ASCII (control characters, DEL, and every byte of 0x80 and above,
// which may not be valid UTF-8) written as \xNN: for text that quotes bytes of a file.
inline std::string printable(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  return out;
}

inline std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + ']';
}

inline std::string number_text(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

inline std::uint64_t load_le(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = n; i-- > 0;) value = (value << 8) | p[i];
  return value;
}

// The input iterator the JSON parser reads the header through: it records how far the parser has read, which
// gives the SAX handler the byte offsets that nlohmann's SAX events do not carry.
struct tracking_iterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  const unsigned char* at = nullptr;
  const unsigned char** furthest = nullptr;

  char operator*() const noexcept { return static_cast<char>(*at); }
  tracking_iterator& operator++() noexcept {
    ++at;
    if (at > *furthest) *furthest = at;
    return *this;
  }
  tracking_iterator operator++(int) noexcept {
    tracking_iterator before = *this;
    ++*this;
    return before;
  }
  friend bool operator==(const tracking_iterator& a, const tracking_iterator& b) noexcept { return a.at == b.at; }
};

// The SAX handler: checks the header's structure as the parser reads it and stops at the first problem. The
// header's only valid shape is
//   { "__metadata__": {"key": "value", ...}, "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]} }
// so the nesting is at most three deep and anything else is refused where it appears.
class header_handler {
 public:
  using json = nlohmann::json;

  header_handler(const unsigned char* header, std::size_t size) : header_(header), size_(size), read_(header) {}

  const unsigned char** read_position() noexcept { return &read_; }
  std::optional<load_error>& error() noexcept { return error_; }
  std::vector<tensor_info>& tensors() noexcept { return tensors_; }
  const std::vector<tensor_info>& tensors() const noexcept { return tensors_; }
  std::vector<std::pair<std::string, std::string>>& metadata() noexcept { return metadata_; }
  std::vector<std::uint64_t>& metadata_offsets() noexcept { return metadata_offsets_; }
  const std::vector<std::uint64_t>& offsets_positions() const noexcept { return offsets_positions_; }
  const std::vector<std::uint64_t>& shape_positions() const noexcept { return shape_positions_; }

  // SAX interface (nlohmann::json_sax).
  bool null() { return unexpected("null", read_offset() - 4); }
  bool boolean(bool value) { return unexpected(value ? "true" : "false", read_offset() - (value ? 4 : 5)); }
  bool number_integer(json::number_integer_t value) {
    const std::uint64_t at = number_start();
    if (state_ == state::shape || state_ == state::offsets) {
      if (value < 0) return fail(at, where() + " holds a negative number (" + std::to_string(value) + ")");
      return array_element(static_cast<std::uint64_t>(value), at);
    }
    return unexpected("a number", at);
  }
  bool number_unsigned(json::number_unsigned_t value) {
    const std::uint64_t at = number_start();
    if (state_ == state::shape || state_ == state::offsets) return array_element(value, at);
    return unexpected("a number", at);
  }
  bool number_float(json::number_float_t, const json::string_t& text) {
    const std::uint64_t at = number_start();
    if (state_ == state::shape || state_ == state::offsets) {
      return fail(at, where() + " holds " + text + ", not an integer from 0 to 2^64 - 1");
    }
    return unexpected("a number", at);
  }
  bool string(json::string_t& value) {
    const std::uint64_t at = string_start();
    if (state_ == state::metadata) {
      metadata_.emplace_back(std::move(key_), std::move(value));
      metadata_offsets_.push_back(8 + at);  // the value's, from the file's start
      return true;
    }
    if (state_ == state::tensor && field_ == field::dtype) {
      const std::optional<dtype> type = dtype_from_name(value);
      if (!type) {
        return fail(at, "tensor " + quote_name(current().name) + ": unknown dtype " + quote_name(value) +
                            " (the format's dtypes are " + dtype_names() + ")");
      }
      current().type = *type;
      return true;
    }
    return unexpected("a string", at);
  }
  bool binary(json::binary_t&) { return unexpected("binary data", read_offset()); }

  bool start_object(std::size_t) {
    const std::uint64_t at = read_offset() - 1;
    switch (state_) {
      case state::start:
        state_ = state::root;
        return true;
      case state::root_value:
        if (key_ == "__metadata__") {
          state_ = state::metadata;
          return true;
        }
        state_ = state::tensor;
        return true;
      default:
        return unexpected("an object", at);
    }
  }
  bool end_object() {
    switch (state_) {
      case state::root:
        state_ = state::done;
        return true;
      case state::metadata:
        state_ = state::root;
        return true;
      case state::tensor: {
        tensor_info& t = current();
        const char* missing = !seen_dtype_     ? "dtype"
                              : !seen_shape_   ? "shape"
                              : !seen_offsets_ ? "data_offsets"
                                               : nullptr;
        if (missing != nullptr) {
          return fail(t.header_offset - 8, "tensor " + quote_name(t.name) + ": entry has no \"" + missing + "\"");
        }
        state_ = state::root;
        return true;
      }
      default:
        return fail(read_offset() - 1, "unexpected end of object");  // unreachable: the parser pairs braces
    }
  }
  bool start_array(std::size_t) {
    const std::uint64_t at = read_offset() - 1;
    if (state_ == state::tensor && field_ == field::shape) {
      state_ = state::shape;
      shape_positions_.back() = at;
      return true;
    }
    if (state_ == state::tensor && field_ == field::offsets) {
      state_ = state::offsets;
      offsets_positions_.back() = at;
      offsets_count_ = 0;
      return true;
    }
    return unexpected("an array", at);
  }
  bool end_array() {
    if (state_ == state::shape) {
      state_ = state::tensor;
      return true;
    }
    if (state_ == state::offsets) {
      if (offsets_count_ != 2) {
        return fail(offsets_positions_.back(), "tensor " + quote_name(current().name) +
                                                   ": \"data_offsets\" must hold two integers [begin, end], not " +
                                                   std::to_string(offsets_count_));
      }
      state_ = state::tensor;
      return true;
    }
    return fail(read_offset() - 1, "unexpected end of array");  // unreachable: the parser pairs brackets
  }
  bool key(json::string_t& name) {
    const std::uint64_t at = string_start();
    switch (state_) {
      case state::root: {
        if (!root_keys_.insert(name).second) {
          return fail(at, (name == "__metadata__" ? std::string("\"__metadata__\" appears twice")
                                                  : "tensor " + quote_name(name) + " appears twice"));
        }
        key_ = name;
        if (name != "__metadata__") {
          tensor_info t;
          t.name = name;
          t.header_offset = 8 + at;  // from the file's start, as every offset a load_error carries
          tensors_.push_back(std::move(t));
          shape_positions_.push_back(at);
          offsets_positions_.push_back(at);
          seen_dtype_ = seen_shape_ = seen_offsets_ = false;
        }
        state_ = state::root_value;
        return true;
      }
      case state::metadata:
        if (!metadata_keys_.insert(name).second) {
          return fail(at, "__metadata__ key " + quote_name(name) + " appears twice");
        }
        key_ = name;
        return true;
      case state::tensor: {
        bool* seen = nullptr;
        if (name == "dtype") {
          field_ = field::dtype;
          seen = &seen_dtype_;
        } else if (name == "shape") {
          field_ = field::shape;
          seen = &seen_shape_;
        } else if (name == "data_offsets") {
          field_ = field::offsets;
          seen = &seen_offsets_;
        } else {
          return fail(at, "tensor " + quote_name(current().name) + ": unknown field " + quote_name(name) +
                              " (an entry holds \"dtype\", \"shape\" and \"data_offsets\")");
        }
        if (*seen) {
          return fail(at, "tensor " + quote_name(current().name) + ": field " + quote_name(name) + " appears twice");
        }
        *seen = true;
        return true;
      }
      default:
        return fail(at, "unexpected key");  // unreachable: keys appear only in objects
    }
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    if (error_) return false;
    // nlohmann's position counts from 1 the bytes the parser has read; its message starts with its own prefix
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ", which the offset replaces.
    // Out-of-range numbers come through here too, with "[json.exception.out_of_range.406] " alone. Both prefixes
    // go, so that every message reads as the reader's, and the bytes the parser quotes from the file (its "last
    // read" token) are escaped where they are not printable ASCII.
    std::string text = e.what();
    if (text.starts_with("[json.exception.")) {
      const std::size_t bracket = text.find("] ");
      if (bracket != std::string::npos) text.erase(0, bracket + 2);
    }
    if (text.starts_with("parse error")) {
      const std::size_t colon = text.find(": ");
      if (colon != std::string::npos) text.erase(0, colon + 2);
    }
    error_ = load_error{{}, 8 + (position > 0 ? position - 1 : 0), "header is not valid JSON: " + printable(text)};
    return false;
  }

 private:
  enum class state : std::uint8_t { start, root, root_value, metadata, tensor, shape, offsets, done };
  enum class field : std::uint8_t { dtype, shape, offsets };

  tensor_info& current() noexcept { return tensors_.back(); }
  std::uint64_t read_offset() const noexcept { return static_cast<std::uint64_t>(read_ - header_); }

  // Where the string just read starts: its closing quote is the last byte read; its opening quote is the first
  // quote before that which no odd run of backslashes escapes.
  std::uint64_t string_start() const noexcept {
    std::size_t i = static_cast<std::size_t>(read_ - header_);
    if (i < 2) return 0;
    i -= 2;
    while (i > 0) {
      if (header_[i] == '"') {
        std::size_t backslashes = 0;
        while (backslashes < i && header_[i - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return i;
      }
      --i;
    }
    return 0;
  }
  // Where the number just read starts: the parser has read one byte past it unless it ended the header.
  std::uint64_t number_start() const noexcept {
    std::size_t i = static_cast<std::size_t>(read_ - header_);
    const auto number_byte = [](unsigned char c) {
      return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    };
    if (!(i == size_ && i > 0 && header_[i - 1] >= '0' && header_[i - 1] <= '9') && i > 0) --i;
    while (i > 0 && number_byte(header_[i - 1])) --i;
    return i;
  }

  std::string where() const {
    const tensor_info& t = tensors_.back();
    return "tensor " + quote_name(t.name) + ": " + (state_ == state::shape ? "\"shape\"" : "\"data_offsets\"");
  }

  bool array_element(std::uint64_t value, std::uint64_t) {
    if (state_ == state::shape) {
      current().shape.push_back(value);
      return true;
    }
    if (offsets_count_ == 0) current().begin = value;
    if (offsets_count_ == 1) current().end = value;
    if (offsets_count_ < 2) {
      ++offsets_count_;
      return true;
    }
    return fail(offsets_positions_.back(), "tensor " + quote_name(current().name) +
                                               ": \"data_offsets\" must hold two integers [begin, end], not more");
  }

  bool unexpected(std::string_view what, std::uint64_t at) {
    switch (state_) {
      case state::start:
        return fail(at, "header is not a JSON object");
      case state::root_value:
        if (key_ == "__metadata__") {
          return fail(at, "\"__metadata__\" must be an object of strings, not " + std::string(what));
        }
        return fail(at, "tensor " + quote_name(key_) + ": entry must be an object, not " + std::string(what));
      case state::metadata:
        return fail(at, "__metadata__ key " + quote_name(key_) + ": value must be a string, not " + std::string(what));
      case state::tensor: {
        static constexpr std::string_view wanted[] = {"a string", "an array of integers", "an array of two integers"};
        static constexpr std::string_view names[] = {"\"dtype\"", "\"shape\"", "\"data_offsets\""};
        const auto i = static_cast<std::size_t>(field_);
        return fail(at, "tensor " + quote_name(current().name) + ": " + std::string(names[i]) + " must be " +
                            std::string(wanted[i]) + ", not " + std::string(what));
      }
      case state::shape:
      case state::offsets:
        return fail(at, where() + " must hold integers, not " + std::string(what));
      default:
        return fail(at, "unexpected " + std::string(what));
    }
  }

  bool fail(std::uint64_t header_position, std::string reason) {
    error_ = load_error{{}, 8 + header_position, std::move(reason)};
    return false;
  }

  const unsigned char* header_;
  std::size_t size_;
  const unsigned char* read_;
  state state_ = state::start;
  field field_ = field::dtype;
  std::string key_;
  std::unordered_set<std::string> root_keys_;
  std::unordered_set<std::string> metadata_keys_;
  bool seen_dtype_ = false;
  bool seen_shape_ = false;
  bool seen_offsets_ = false;
  std::size_t offsets_count_ = 0;
  std::vector<tensor_info> tensors_;
  std::vector<std::uint64_t> shape_positions_;    // header offset of each tensor's "shape" value
  std::vector<std::uint64_t> offsets_positions_;  // header offset of each tensor's "data_offsets" value
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<std::uint64_t> metadata_offsets_;
  std::optional<load_error> error_;
};

inline bool multiply_checked(std::uint64_t a, std::uint64_t b, std::uint64_t& product) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return false;
  product = a * b;
  return true;
}

}  // namespace detail

namespace detail {

// The readers' one way into safetensors_file's members.
struct file_access {
  static read_result parse(std::string name, std::vector<unsigned char> bytes);
};

// Where a file is malformed, and why: what the readers turn into a load_error with the file's name.
struct malformed {
  std::uint64_t offset = 0;
  std::string reason;
};

// The 8-byte header length and the header's bytes: in the file, within the limit, no 0 byte, no byte-order mark.
inline std::optional<malformed> check_header_bytes(const std::vector<unsigned char>& bytes) {
  const std::uint64_t file_size = bytes.size();
  if (file_size < 8) {
    return malformed{0, "file is " + std::to_string(file_size) +
                            " bytes long, too short for the 8-byte header length that starts a safetensors file"};
  }
  const std::uint64_t header_size = load_le(bytes.data(), 8);
  if (header_size > max_header_size) {
    return malformed{0, "header length " + std::to_string(header_size) + " is beyond the limit of " +
                            std::to_string(max_header_size) + " bytes"};
  }
  if (header_size > file_size - 8) {
    return malformed{0, "header length " + std::to_string(header_size) + " runs past the end of the file (" +
                            std::to_string(file_size - 8) + " bytes follow the length)"};
  }
  const unsigned char* header = bytes.data() + 8;
  // nlohmann's lexer takes a 0 byte for the end of the input, which would let a header end early with anything
  // after it unread. JSON allows no 0 byte anywhere (not even inside a string), so it is refused here.
  const unsigned char* zero = std::find(header, header + header_size, std::uint8_t{0});
  if (zero != header + header_size) {
    return malformed{static_cast<std::uint64_t>(zero - bytes.data()),
                     "header is not valid JSON: it holds a 0 byte (the header may be padded with spaces only)"};
  }
  // Rationale: nlohmann's parser skips a UTF-8 byte-order mark; the format's header starts with '{' (0x7B).
  if (header_size >= 3 && header[0] == 0xEF && header[1] == 0xBB && header[2] == 0xBF) {
    return malformed{8, "header starts with a UTF-8 byte-order mark (EF BB BF); a safetensors header starts with '{'"};
  }
  return std::nullopt;
}

// Tensor i's own range (relative to the data buffer, which starts at data_start): begin <= end, inside the buffer,
// and as many bytes as its shape and dtype need (bits counted overflow-checked, ending on a byte).
inline std::optional<malformed> check_tensor_range(const header_handler& handler, std::size_t i,
                                                   std::uint64_t data_start, std::uint64_t file_size) {
  const tensor_info& t = handler.tensors()[i];
  const std::uint64_t data_size = file_size - data_start;
  const std::string tensor = "tensor " + quote_name(t.name);
  const std::string range = "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
  if (t.begin > t.end) {
    return malformed{8 + handler.offsets_positions()[i], tensor + ": " + range + " end before they begin"};
  }
  if (t.end > data_size) {
    return malformed{file_size, tensor + ": " + range + " run past the end of the data buffer (" +
                                    std::to_string(data_size) + " bytes, ending at file offset " +
                                    std::to_string(file_size) + ")"};
  }
  std::uint64_t count = 1;
  bool fits = true;
  if (std::find(t.shape.begin(), t.shape.end(), std::uint64_t{0}) != t.shape.end()) {
    count = 0;
  } else {
    for (const std::uint64_t extent : t.shape) fits = fits && multiply_checked(count, extent, count);
  }
  std::uint64_t bits = 0;
  fits = fits && multiply_checked(count, dtype_bits(t.type), bits);
  const std::string shape = "shape " + shape_text(t.shape) + " of " + std::string(dtype_name(t.type));
  if (!fits) {
    return malformed{8 + handler.shape_positions()[i], tensor + ": " + shape + " has more bits than 2^64 - 1"};
  }
  if (bits % 8 != 0) {
    return malformed{8 + handler.shape_positions()[i],
                     tensor + ": " + shape + " holds " + std::to_string(bits) +
                         " bits, which do not end on a byte (a packed tensor fills whole bytes)"};
  }
  if (bits / 8 != t.end - t.begin) {
    return malformed{data_start + t.begin, tensor + ": " + range + " hold " + std::to_string(t.end - t.begin) +
                                               " bytes, but " + shape + " needs " + std::to_string(bits / 8)};
  }
  return std::nullopt;
}

// The ranges, sorted, must tile the data buffer exactly: from 0, each starting where the previous one ends, the
// last ending at the end of the file. An empty tensor (begin == end) takes no room but must sit where one range
// ends and the next begins, as the reference implementation requires and its writer does.
inline std::optional<malformed> check_tiling(const std::vector<tensor_info>& tensors, std::uint64_t data_start,
                                             std::uint64_t data_size) {
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tensors[a].begin != tensors[b].begin ? tensors[a].begin < tensors[b].begin : tensors[a].end < tensors[b].end;
  });
  std::uint64_t covered = 0;  // the data buffer is tiled up to here
  const tensor_info* previous = nullptr;
  for (const std::size_t i : order) {
    const tensor_info& t = tensors[i];
    if (t.begin < covered) {
      return malformed{data_start + t.begin,
                       "tensor " + quote_name(t.name) + ": data_offsets [" + std::to_string(t.begin) + ", " +
                           std::to_string(t.end) + "] overlap those of tensor " + quote_name(previous->name) + " [" +
                           std::to_string(previous->begin) + ", " + std::to_string(previous->end) + "]"};
    }
    if (t.begin > covered) {
      return malformed{data_start + covered,
                       std::to_string(t.begin - covered) + " bytes of the data buffer, [" + std::to_string(covered) +
                           ", " + std::to_string(t.begin) + "), belong to no tensor (a hole " +
                           (previous != nullptr ? "after tensor " + quote_name(previous->name) + ", " : "") +
                           "before tensor " + quote_name(t.name) + ")"};
    }
    covered = t.end;
    previous = &t;
  }
  if (covered != data_size) {
    return malformed{data_start + covered, std::to_string(data_size - covered) +
                                               " trailing bytes after the last tensor's data, [" +
                                               std::to_string(covered) + ", " + std::to_string(data_size) +
                                               ") of the data buffer, belong to no tensor"};
  }
  return std::nullopt;
}

inline read_result file_access::parse(std::string name, std::vector<unsigned char> bytes) {
  read_result result;
  const auto failure = [&](malformed m) {
    result.error = load_error{name, m.offset, std::move(m.reason)};
    return std::move(result);
  };
  if (auto m = check_header_bytes(bytes)) return failure(std::move(*m));
  const std::uint64_t file_size = bytes.size();
  const std::uint64_t header_size = load_le(bytes.data(), 8);
  const unsigned char* header = bytes.data() + 8;
  header_handler handler(header, static_cast<std::size_t>(header_size));
  tracking_iterator first{header, handler.read_position()};
  tracking_iterator last{header + header_size, handler.read_position()};
  // Strict: the JSON value must fill the header, bar trailing whitespace (writers pad the header with spaces).
  // The SAX parser reports syntax errors to the handler (parse_error) and throws nothing itself.
  const bool parsed = nlohmann::json::sax_parse(first, last, &handler, nlohmann::json::input_format_t::json, true);
  if (handler.error()) {
    load_error e = std::move(*handler.error());
    e.file = name;
    result.error = std::move(e);
    return result;
  }
  if (!parsed) return failure({8, "header is not valid JSON"});  // unreachable: a failure always says why

  const std::uint64_t data_start = 8 + header_size;
  std::vector<tensor_info>& tensors = handler.tensors();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (auto m = check_tensor_range(handler, i, data_start, file_size)) return failure(std::move(*m));
  }
  if (auto m = check_tiling(tensors, data_start, file_size - data_start)) return failure(std::move(*m));

  for (tensor_info& t : tensors) {  // relative to the data buffer in the file; absolute from here on
    t.begin += data_start;
    t.end += data_start;
  }
  safetensors_file file;
  file.name_ = std::move(name);
  file.bytes_ = std::move(bytes);
  file.header_size_ = header_size;
  file.tensors_ = std::move(tensors);
  file.metadata_ = std::move(handler.metadata());
  file.metadata_offsets_ = std::move(handler.metadata_offsets());
  result.file = std::move(file);
  return result;
}

}  // namespace detail

/// Reads and checks a safetensors file held in memory (the bytes are copied). `name` stands for the file in
/// messages. Refuses, with the offset and a reason: fewer than 8 bytes; a header length beyond `max_header_size`
/// or the file; a header that is not one JSON object (trailing whitespace allowed); duplicate keys at any level;
/// entries that are not `{"dtype": string, "shape": [integers >= 0], "data_offsets": [begin, end]}` (unknown
/// fields included) or a `__metadata__` that is not an object of strings; unknown dtypes; ranges that end before
/// they begin, run past the end, do not hold dtype size x elements bytes (overflow-checked), overlap, or leave a
/// hole or trailing bytes.
///
/// | argument | meaning |
/// |----------|---------|
/// | `name` | the file's name, for messages |
/// | `bytes` | the whole file |
///
/// Example:
/// \code
///   const std::vector<unsigned char> bytes = download();   // any source
///   auto r = ctattn::host::read_safetensors_bytes("weights", bytes);
/// \endcode
[[nodiscard]] inline read_result read_safetensors_bytes(std::string name, std::span<const unsigned char> bytes) {
  try {
    return detail::file_access::parse(name, std::vector<unsigned char>(bytes.begin(), bytes.end()));
  } catch (const std::bad_alloc&) {
    return read_result{std::nullopt, load_error{std::move(name), 0, "out of memory"}};
  }
}

/// Reads the whole file at `path` into memory and checks it as `read_safetensors_bytes` does; a file that cannot
/// be opened or read is an error at offset 0.
///
/// | argument | meaning |
/// |----------|---------|
/// | `path` | the file; also its name in messages |
///
/// Example:
/// \code
///   auto r = ctattn::host::read_safetensors("tests/fixtures/safetensors/mixed.safetensors");
///   if (r) std::cout << r.file->tensors().size() << " tensors\n";
/// \endcode
[[nodiscard]] inline read_result read_safetensors(const std::string& path) {
  try {
    std::error_code code;
    if (!std::filesystem::is_regular_file(path, code)) {
      return read_result{std::nullopt, load_error{path, 0, code ? "cannot open the file" : "not a regular file"}};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return read_result{std::nullopt, load_error{path, 0, "cannot open the file"}};
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0 || !in || static_cast<std::uint64_t>(size) > std::vector<unsigned char>().max_size()) {
      return read_result{std::nullopt, load_error{path, 0, "cannot read the file's size"}};
    }
    std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (in.gcount() != static_cast<std::streamsize>(size)) {
      return read_result{std::nullopt, load_error{path, static_cast<std::uint64_t>(in.gcount()),
                                                  "cannot read the file (it ended or failed here)"}};
    }
    return detail::file_access::parse(path, std::move(bytes));
  } catch (const std::bad_alloc&) {
    return read_result{std::nullopt, load_error{path, 0, "out of memory reading the file"}};
  }
}

/// The float an IEEE 754 binary16 (F16) value stands for, from its bits: exact (every binary16 value is a float),
/// subnormals, signed zeros, infinities and NaN (payload kept) included.
///
/// | bits | result |
/// |------|--------|
/// | `0x3c00` | 1.0f |
/// | `0x0001` | 2^-24 (the smallest subnormal) |
/// | `0xfc00` | -infinity |
///
/// Example:
/// \code
///   assert(ctattn::host::f16_to_float(0xc000) == -2.0f);
/// \endcode
[[nodiscard]] constexpr float f16_to_float(std::uint16_t bits) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 15) << 31;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // infinity, NaN
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/// The float a bfloat16 (BF16) value stands for, from its bits: the upper half of a float, so exact.
///
/// | bits | result |
/// |------|--------|
/// | `0x3f80` | 1.0f |
/// | `0x7f80` | +infinity |
///
/// Example:
/// \code
///   assert(ctattn::host::bf16_to_float(0x4049) == 3.140625f);
/// \endcode
[[nodiscard]] constexpr float bf16_to_float(std::uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// Copies tensor `name` of `file` into `out` as `T` (`float` or `double`), row-major as stored, after checking that
/// the tensor exists, that its dtype is F32, F64, F16 or BF16, that its shape equals `expected_shape`, and that
/// `out` holds exactly its element count. Returns the error, naming the tensor, or nothing on success; `out` is
/// written only on success.
///
/// Rounding (docs/safetensors.md): F16 and BF16 to float or double, and F32 to double, are exact; F32 to float and
/// F64 to double copy the bits. F64 to float rounds to nearest, ties to even (the C++ conversion); a finite F64
/// whose nearest float is infinite (magnitude 2^128 - 2^103 or more) is an error at that element's offset.
/// Infinities and NaN carry over as infinities and NaN.
///
/// | argument | shape |
/// |----------|-------|
/// | `expected_shape` | the extents the caller's storage has, outermost first (`{}` for a scalar) |
/// | `out` | exactly the product of `expected_shape` elements |
///
/// Example:
/// \code
///   std::vector<double> values(4 * 16);
///   const std::array<std::size_t, 2> shape{4, 16};
///   if (auto e = ctattn::host::copy_tensor(file, "linear.weight", shape, std::span{values})) {
///     throw std::runtime_error(e->message());
///   }
/// \endcode
template <typename T>
  requires std::is_same_v<T, float> || std::is_same_v<T, double>
[[nodiscard]] std::optional<load_error> copy_tensor(const safetensors_file& file, std::string_view name,
                                                    std::span<const std::size_t> expected_shape, std::span<T> out) {
  const tensor_info* t = file.find(name);
  if (t == nullptr) {
    return load_error{file.name(), 8, "no tensor named " + detail::quote_name(name)};
  }
  const std::string tensor = "tensor " + detail::quote_name(t->name);
  const std::span<const unsigned char> data = file.data(*t);
  if (t->type != dtype::f32 && t->type != dtype::f64 && t->type != dtype::f16 && t->type != dtype::bf16) {
    return load_error{file.name(), t->header_offset,
                      tensor + " has dtype " + std::string(dtype_name(t->type)) + ", which is not read as " +
                          (std::is_same_v<T, float> ? "float" : "double") + " (F32, F64, F16 and BF16 are)"};
  }
  bool same_shape = t->shape.size() == expected_shape.size();
  for (std::size_t i = 0; same_shape && i < expected_shape.size(); ++i) {
    same_shape = t->shape[i] == expected_shape[i];
  }
  if (!same_shape) {
    std::vector<std::uint64_t> expected(expected_shape.begin(), expected_shape.end());
    return load_error{
        file.name(), t->header_offset,
        tensor + " has shape " + detail::shape_text(t->shape) + ", expected " + detail::shape_text(expected)};
  }
  const std::uint64_t count = t->element_count();
  const std::uint64_t size = dtype_size(t->type);
  if (count != out.size()) {
    return load_error{file.name(), t->header_offset,
                      tensor + " has " + std::to_string(count) + " elements, but the destination holds " +
                          std::to_string(out.size())};
  }
  if (data.size() != count * size) {  // unreachable for a file from the readers
    return load_error{file.name(), t->begin, tensor + ": data does not match its shape"};
  }
  const std::size_t n = out.size();
  const unsigned char* p = data.data();
  if (t->type == dtype::f64 && std::is_same_v<T, float>) {  // check every element before writing any
    for (std::size_t i = 0; i < n; ++i) {
      const double value = std::bit_cast<double>(detail::load_le(p + 8 * i, 8));
      if (std::isfinite(value) && std::fabs(value) >= 0x1.ffffffp+127) {
        return load_error{file.name(), t->begin + 8 * i,
                          tensor + ": element " + std::to_string(i) + " (F64 " + detail::number_text(value) +
                              ") is finite but beyond float's range (its nearest float is infinite)"};
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    switch (t->type) {
      case dtype::f32:
        out[i] = static_cast<T>(std::bit_cast<float>(static_cast<std::uint32_t>(detail::load_le(p + 4 * i, 4))));
        break;
      case dtype::f64:
        out[i] = static_cast<T>(std::bit_cast<double>(detail::load_le(p + 8 * i, 8)));
        break;
      case dtype::f16:
        out[i] = static_cast<T>(f16_to_float(static_cast<std::uint16_t>(detail::load_le(p + 2 * i, 2))));
        break;
      default:  // bf16
        out[i] = static_cast<T>(bf16_to_float(static_cast<std::uint16_t>(detail::load_le(p + 2 * i, 2))));
        break;
    }
  }
  return std::nullopt;
}

}  // namespace ctattn::host

#endif  // CTATTN_HOST_SAFETENSORS_HPP
