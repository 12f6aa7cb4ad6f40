#include "report.hpp"

#include "semihosting.hpp"

namespace ctattn_firmware {

void report_line::put(char c) noexcept {
  if (length_ == capacity) flush();
  buffer_[length_++] = c;
}

void report_line::flush() noexcept {
  buffer_[length_] = '\0';
  semihosting::write0(buffer_);
  length_ = 0;
}

report_line& report_line::operator<<(std::string_view text) noexcept {
  for (const char c : text) put(c);
  return *this;
}

report_line& report_line::operator<<(std::uint32_t value) noexcept {
  char digits[10];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n != 0) put(digits[--n]);
  return *this;
}

report_line& report_line::operator<<(std::uint64_t value) noexcept {
  if (value <= 0xFFFF'FFFFu) return *this << static_cast<std::uint32_t>(value);
  // The high digits first, then the low nine with their zeros (divisions by 10^9 only: one libgcc call each).
  *this << value / 1'000'000'000u;
  auto low = static_cast<std::uint32_t>(value % 1'000'000'000u);
  char digits[9];
  for (char& digit : digits) {
    digit = static_cast<char>('0' + low % 10);
    low /= 10;
  }
  for (std::size_t n = 9; n != 0; --n) put(digits[n - 1]);
  return *this;
}

report_line& report_line::operator<<(hex value) noexcept {
  put('0');
  put('x');
  for (unsigned i = value.digits; i != 0; --i) {
    const auto nibble = (value.value >> (4 * (i - 1))) & 0xFu;
    put("0123456789abcdef"[nibble]);
  }
  return *this;
}

void report_line::end() noexcept {
  put('\n');
  flush();
}

}  // namespace ctattn_firmware
