#ifndef CTATTN_FIRMWARE_RUNTIME_REPORT_HPP
#define CTATTN_FIRMWARE_RUNTIME_REPORT_HPP

/// \file
/// A line of text built in a fixed buffer and printed through semihosting: strings, decimal and hex numbers.
/// No stdio, no heap, no floating point.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctattn_firmware {

/// Hex digits of a value, for bit patterns: `out << hex{bits, 8}`.
struct hex {
  std::uint32_t value;
  unsigned digits = 8;
};

/// Builds one line; `end()` (or a full buffer) prints it.
class report_line {
 public:
  report_line& operator<<(std::string_view text) noexcept;
  report_line& operator<<(const char* text) noexcept { return *this << std::string_view{text}; }
  report_line& operator<<(std::uint32_t value) noexcept;
  report_line& operator<<(std::uint64_t value) noexcept;
  report_line& operator<<(hex value) noexcept;
  /// Prints the line followed by a newline.
  void end() noexcept;

 private:
  void put(char c) noexcept;
  void flush() noexcept;

  static constexpr std::size_t capacity = 120;
  char buffer_[capacity + 1]{};
  std::size_t length_ = 0;
};

}  // namespace ctattn_firmware

#endif  // CTATTN_FIRMWARE_RUNTIME_REPORT_HPP
