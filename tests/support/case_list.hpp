// One list of cases per case header, run by every runner: a case header (attention_cases.hpp, multihead_cases.hpp,
// int8_kernel_cases.hpp, quantized_cases.hpp, int8_decoder_cases.hpp) names each of its cases once, in `every_case`,
// with the runners that can afford it; tests/static runs the list in constant evaluation, tests/runtime and
// tests/backend at run time, and the firmware images on the boards, each taking the cases marked for it. A case is
// added in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctattn_test {

// Who runs a case.
enum runner : unsigned {
  in_constant_evaluation = 1u,  // tests/static: each case a constant expression of its own
  at_run_time = 2u,             // tests/runtime: Catch2, exact arithmetic, the host's int8 backend
  with_each_backend = 4u,       // tests/backend: Catch2, once per SIMD backend
  on_the_boards = 8u,           // firmware/images: under QEMU
};
inline constexpr unsigned every_runner = in_constant_evaluation | at_run_time | with_each_backend | on_the_boards;
inline constexpr unsigned compiled = at_run_time | with_each_backend | on_the_boards;  // every run-time runner

// One case: its name, who runs it, and `run(read)`, where `read` hides each input from the optimizer at run time (the
// identity in constant evaluation). `run` returns the count of mismatches (0 passes), or a check object whose `all()`
// says whether the case passed (its other members the differences a runner prints).
template <typename Run>
struct test_case {
  const char* name;
  unsigned runners;
  Run run;
};
template <typename Run>
test_case(const char*, unsigned, Run) -> test_case<Run>;

// The mismatches of a case's result: the count it returned, or 1 where its check object's `all()` is false.
template <typename Result>
constexpr std::size_t mismatches_of(const Result& result) {
  if constexpr (requires { result.all(); }) {
    return result.all() ? 0 : 1;
  } else {
    return static_cast<std::size_t>(result);
  }
}

// Calls `report(name, mismatches)`, or `report(name, mismatches, result)` where it takes the case's result too, for
// each case of `Cases` that `Who` runs, in the list's order; the others are not even instantiated (a board's image
// holds only its own cases).
template <runner Who, const auto& Cases, std::size_t I, typename Read, typename Report>
constexpr void run_case(Read read, Report report) {
  if constexpr ((std::get<I>(Cases).runners & Who) != 0) {
    const auto result = std::get<I>(Cases).run(read);
    if constexpr (std::is_invocable_v<Report&, const char*, std::size_t, const decltype(result)&>) {
      report(std::get<I>(Cases).name, mismatches_of(result), result);
    } else {
      report(std::get<I>(Cases).name, mismatches_of(result));
    }
  }
}
template <runner Who, const auto& Cases, typename Read, typename Report, std::size_t... I>
constexpr void for_each_case(Read read, Report report, std::index_sequence<I...>) {
  (run_case<Who, Cases, I>(read, report), ...);
}
template <runner Who, const auto& Cases, typename Read, typename Report>
constexpr void for_each_case(Read read, Report report) {
  for_each_case<Who, Cases>(read, report,
                            std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(Cases)>>>{});
}

inline constexpr auto identity = [](const auto& value) { return value; };

// The elements of a quantized matrix q (int8 or int16) that differ from the reference's integers.
template <typename Q, std::size_t R, std::size_t C>
constexpr std::size_t differing(const Q& q, const std::int32_t (&want)[R][C]) noexcept {
  static_assert(Q::rows == R && Q::cols == C);
  // Rationale: counted in 32 bits; Clang 14 with -mavx512f fails to generate code (a v8i64 compare) for this loop
  // with a 64-bit count.
  std::uint32_t bad = 0;
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) bad += std::int32_t{q(r, c)} == want[r][c] ? 0u : 1u;
  }
  return bad;
}

// Constant evaluation: case I of `Cases` (when marked `in_constant_evaluation`) as a constant expression of its own,
// with a step budget of its own (Clang counts steps per constant expression).
template <const auto& Cases, std::size_t I>
inline constexpr std::size_t constant_mismatches = [] {
  if constexpr ((std::get<I>(Cases).runners & in_constant_evaluation) != 0) {
    return mismatches_of(std::get<I>(Cases).run(identity));
  } else {
    return std::size_t{0};
  }
}();

// A case that fails names itself in the compiler's message as constant_case<..., I>: I is its place in the list,
// counted from 0.
template <const auto& Cases, std::size_t I>
struct constant_case {
  static_assert(constant_mismatches<Cases, I> == 0,
                "case I of this list (counted from 0) gives mismatches in constant evaluation");
  static constexpr bool passed = true;
};
template <const auto& Cases, std::size_t... I>
constexpr bool every_constant_case_passes(std::index_sequence<I...>) {
  return (constant_case<Cases, I>::passed && ...);
}
// Whether every case of `Cases` marked `in_constant_evaluation` gives no mismatch (a failing one stops the build
// with its index).
template <const auto& Cases>
constexpr bool every_constant_case_passes() {
  return every_constant_case_passes<Cases>(
      std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(Cases)>>>{});
}

}  // namespace ctattn_test
