#ifndef CTATTN_FIRMWARE_RUNTIME_CHECK_MODEL_HPP
#define CTATTN_FIRMWARE_RUNTIME_CHECK_MODEL_HPP

/// \file
/// The firmware images' check: evaluate a model at run time on the target and compare every output element,
/// bit for bit, with the same computation evaluated by the compiler and embedded in the image.
///
///   int main() { return ctattn_firmware::check_model<ctattn_firmware::models::matrix_chain>(); }
///
/// Models come in two kinds:
///   - by value (firmware/models/matrix_chain.hpp): `evaluate(inputs)` returns the outputs;
///   - into storage (firmware/models/worked_example.hpp): `evaluate(output, input, parameters, workspace)`
///     writes into objects the image defines as named globals (weights and input in flash, workspace and
///     output in .bss), checked by `check_model_into`. This is how ctattn's attention runs in firmware: the
///     `ctattn::into(output, workspace)` form of the attention calls, with no matrix on the stack.
///
/// What the image holds and does:
///   - `inputs`:   `Model::example()`, a constexpr table in flash (.rodata);
///   - `expected`: `Model::evaluate(inputs)` in a constexpr variable, so the compiler computed it (.rodata); or,
///     for a model too large for constant evaluation (KWT-1: 70 M multiply-adds per inference), `Model::expected()`,
///     the outputs the build machine computed with ctattn's exact arithmetic and wrote as a header (the model names
///     them in `expected_source`); such a model is run once, and timed on SysTick's 1 MHz reference clock;
///   - at run time: the inputs are read through a pointer the compiler cannot see through, so
///     `Model::evaluate` really runs on the target (the build checks the disassembly for FP multiplies);
///   - each output element's bits are compared; a mismatch prints where and both bit patterns;
///   - reports the stack one inference uses (painted) and the instructions per inference (SysTick,
///     calibrated; exact under `qemu-system-arm -icount shift=0`).
/// The model interface is described in firmware/models/matrix_chain.hpp.
///
/// How the run-time output is compared with the compiler's (`comparison`, a template argument of the checks):
///
/// | comparison       | the run time computes with              | each element must be                            |
/// |------------------|-----------------------------------------|-------------------------------------------------|
/// | `bit_for_bit`    | exact arithmetic (every board's images) | bit-identical                                   |
/// | `within_bound`   | the SIMD backend's fast arithmetic      | within 2^-17 (1 + abs(exact)), as tests/backend |
///
/// Every image that includes this header also checks, at compile time, that ctattn selected the SIMD backend the
/// board's toolchain entry names (`CTATTN_FIRMWARE_SIMD_BACKEND`: "helium" for m55-helium, else "scalar").

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

#include <ctattn/kernels/backend.hpp>
#include <ctattn/kernels/int8.hpp>
#include <ctattn/shape/dimension.hpp>

#include "board.hpp"
#include "report.hpp"

namespace ctattn_firmware {

namespace detail {
[[nodiscard]] constexpr bool same_text(const char* a, const char* b) noexcept {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
}  // namespace detail

#ifdef CTATTN_FIRMWARE_SIMD_BACKEND
static_assert(detail::same_text(ctattn::simd_backend_name, CTATTN_FIRMWARE_SIMD_BACKEND),
              "ctattn selected another SIMD backend than the board's entry in cmake/toolchains/arm-none-eabi.cmake "
              "names (kernels/backend.hpp decides from the compiler and its target macros)");
#endif
#ifdef CTATTN_FIRMWARE_INT8_BACKEND
static_assert(detail::same_text(ctattn::int8_backend_name, CTATTN_FIRMWARE_INT8_BACKEND),
              "ctattn selected another int8 backend than the board's entry in cmake/toolchains/arm-none-eabi.cmake "
              "names (the int8 table of kernels/int8.hpp chooses from the compiler and its target macros)");
#endif

/// How a check compares the run-time output with the compile-time one (the table above).
enum class comparison {
  bit_for_bit,   // exact arithmetic: static_assert's bits
  within_bound,  // fast arithmetic: |run time - compile time| <= 2^-17 (1 + |compile time|) per element
};

/// The fast arithmetic's bound per element, relative to 1 + |exact| (tests/backend/backend_test.cpp's
/// attention_bound; docs/kernels.md).
inline constexpr float fast_bound = 0x1p-17f;

/// The same pointer, but the compiler no longer knows where it points: loads through it cannot be
/// constant-folded.
template <typename T>
[[nodiscard]] const T* opaque(const T* p) noexcept {
  asm volatile("" : "+r"(p));
  return p;
}

/// One inference at run time, kept out of line so that it can be timed, measured and disassembled.
// Rationale: placement new from a prvalue constructs the result directly in `out` (guaranteed copy
// elision), so no temporary copy of the outputs lands on the stack. This is not a heap allocation.
template <typename Model>
[[gnu::noinline]] void evaluate_at_run_time(const typename Model::inputs& in, typename Model::outputs& out) noexcept {
  ::new (static_cast<void*>(&out)) typename Model::outputs(Model::evaluate(in));
}

/// One inference of a model that writes into storage, kept out of line for the same reasons.
template <typename Model>
[[gnu::noinline]] void evaluate_at_run_time(typename Model::output& output, const typename Model::input& input,
                                            const typename Model::parameters& parameters,
                                            typename Model::workspace& workspace) noexcept {
  Model::evaluate(output, input, parameters, workspace);
}

/// The output of a model that writes into storage, evaluated by the compiler: the same `Model::evaluate` with a
/// workspace and an output that live in constant evaluation.
template <typename Model>
[[nodiscard]] constexpr typename Model::output constant_evaluated() noexcept {
  typename Model::workspace workspace{};
  typename Model::output output{};
  Model::evaluate(output, Model::example_input(), Model::example_parameters(), workspace);
  return output;
}

namespace detail {

template <typename T>
[[nodiscard]] std::uint32_t low_bits(T value) noexcept {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<std::uint32_t>(static_cast<std::make_unsigned_t<T>>(value));
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(value);
  } else {
    return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(value));
  }
}

template <typename T>
[[nodiscard]] bool same_bits(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  } else {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  }
}

template <auto Extent>
void print_extent(report_line& line) noexcept {
  line << static_cast<std::uint32_t>(ctattn::extent_size(Extent));
  if constexpr (ctattn::is_named(Extent)) line << " " << ctattn::extent_name(Extent);
}

template <typename T>
[[nodiscard]] T magnitude(T x) noexcept {
  return x < T{0} ? -x : x;
}

// |got - want| / (1 + |want|), the fast arithmetic's measure of a difference; +inf when exactly one is NaN.
template <typename T>
[[nodiscard]] T relative_difference(T got, T want) noexcept {
  if ((got != got) || (want != want)) return (got != got) == (want != want) ? T{0} : std::numeric_limits<T>::infinity();
  return magnitude(got - want) / (T{1} + magnitude(want));
}

// Compares one output matrix; prints one line; returns the number of elements that fail the comparison: whose
// bits differ (bit_for_bit), or whose difference is above the fast bound (within_bound).
template <comparison C, typename M>
std::uint32_t compare_output(const char* name, const M& got, const M& want) noexcept {
  using T = typename M::value_type;
  std::uint32_t mismatches = 0;
  std::uint32_t identical = 0;
  T largest = T{0};
  std::size_t first_row = 0;
  std::size_t first_col = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      bool fails = !same_bits<T>(got(i, j), want(i, j));
      if constexpr (C == comparison::within_bound) {
        if (!fails) ++identical;
        const T difference = relative_difference(got(i, j), want(i, j));
        if (difference > largest) largest = difference;
        fails = !(difference <= T{fast_bound});
      }
      if (fails) {
        if (mismatches == 0) {
          first_row = i;
          first_col = j;
        }
        ++mismatches;
      }
    }
  }
  report_line line;
  line << "  " << name << " [";
  print_extent<M::row_extent>(line);
  line << " x ";
  print_extent<M::column_extent>(line);
  line << "]: " << static_cast<std::uint32_t>(M::size - mismatches) << "/" << static_cast<std::uint32_t>(M::size);
  if constexpr (C == comparison::bit_for_bit) {
    line << " elements bit-identical";
  } else {
    // The largest difference in units of 2^-24 (1 + |exact|), rounded up: the bound is 128 of them.
    const T units = largest * T{0x1p24f};
    std::uint32_t shown = 0xFFFF'FFFFu;
    if (units < T{4e9f}) {
      shown = static_cast<std::uint32_t>(units);
      if (static_cast<T>(shown) < units) ++shown;
    }
    line << " within 2^-17 (1 + |exact|), " << identical << " bit-identical";
    line.end();
    line << "    largest difference " << shown << " x 2^-24 (1 + |exact|), bound 128";
  }
  if (mismatches != 0) {
    line << "; MISMATCH first at (" << static_cast<std::uint32_t>(first_row) << ", "
         << static_cast<std::uint32_t>(first_col) << "): run time " << hex{low_bits(got(first_row, first_col))}
         << ", compile time " << hex{low_bits(want(first_row, first_col))};
  }
  line.end();
  return mismatches;
}

}  // namespace detail

/// What one check found.
struct check_result {
  std::uint32_t mismatches;    // output elements whose bits differ
  std::uint32_t stack_bytes;   // stack of one inference (painted)
  std::uint64_t instructions;  // per inference (calibrated SysTick)
  std::uint64_t ticks;         // SysTick ticks per inference (CPU cycles on hardware)
};

namespace detail {

// Instructions per inference: SysTick ticks of `timed_runs` inferences, scaled by a loop of known length. The
// ticks count the counter's wraps too (systick::ticks), so runs of any length are timed; a model of billions of
// instructions, such as KWT-1, is timed on the reference clock (1 MHz on QEMU's MPS2 machines, fewer wraps) and
// calibrated over a longer loop.
template <typename Run>
void time_inference(check_result& result, Run&& run_once, std::uint32_t timed_runs,
                    systick::clock_source source = systick::clock_source::processor) noexcept {
  const std::uint32_t calibration_iterations = source == systick::clock_source::processor ? 1'000'000u : 20'000'000u;
  systick::start(source);
  const std::uint64_t t0 = systick::ticks();
  systick::spin(calibration_iterations);
  const std::uint64_t t1 = systick::ticks();
  for (std::uint32_t r = 0; r < timed_runs; ++r) run_once();
  const std::uint64_t t2 = systick::ticks();
  const std::uint64_t calibration_ticks = t1 - t0;
  const std::uint64_t runs_ticks = t2 - t1;
  result.ticks = runs_ticks / timed_runs;
  if (calibration_ticks != 0) {
    const std::uint64_t scaled = runs_ticks * (2u * calibration_iterations);
    const std::uint64_t divisor = calibration_ticks * timed_runs;
    result.instructions = (scaled + divisor / 2) / divisor;
  }
}

inline void print_measurements(const check_result& result) noexcept {
  (report_line{} << "  stack of one inference: " << result.stack_bytes << " bytes (painted)").end();
  (report_line{} << "  instructions per inference: " << result.instructions << " (" << result.ticks
                 << " counter ticks: SysTick, minstret on RV32; exact under QEMU -icount shift=0)")
      .end();
}

}  // namespace detail

/// A model whose expected outputs the build machine computed (`Model::expected()`, see above), not the compiler.
template <typename Model>
concept from_build_machine = requires {
  { Model::expected() } -> std::same_as<typename Model::outputs>;
  { Model::expected_source } -> std::convertible_to<const char*>;
};

/// How the inputs reach the run-time evaluation.
enum class input_mode {
  as_built,          // the constexpr table in flash
  perturbed,         // a RAM copy with the lowest bit of its first byte flipped: the harness's self-test
  perturbed_coarse,  // a RAM copy with bit 16 of its first word flipped (2^-7 of a float): the bound's self-test
};

namespace detail {
// The input the run-time evaluation reads: `in` itself, or a perturbed RAM copy (input_mode).
template <input_mode Mode, typename T>
[[nodiscard]] const T* run_time_input(const T* in) noexcept {
  if constexpr (Mode == input_mode::as_built) {
    return in;
  } else {
    static T perturbed;
    perturbed = *in;
    reinterpret_cast<unsigned char*>(&perturbed)[Mode == input_mode::perturbed ? 0 : 2] ^= 1u;
    return opaque(&perturbed);
  }
}
}  // namespace detail

/// Runs `Model` at run time and compares it with its compile-time evaluation; prints a report.
/// `timed_runs` inferences are timed for the instruction count.
template <typename Model, input_mode Mode = input_mode::as_built>
check_result run_check(std::uint32_t timed_runs = 64) noexcept {
  using inputs_t = typename Model::inputs;
  using outputs_t = typename Model::outputs;
  static_assert(std::is_trivially_copyable_v<inputs_t> && std::is_trivially_copyable_v<outputs_t>,
                "a firmware model's inputs and outputs must be plain tables of numbers");

  static constexpr inputs_t inputs = Model::example();
  [[maybe_unused]] static constexpr outputs_t expected = [] {
    if constexpr (from_build_machine<Model>) {
      return Model::expected();
    } else {
      return Model::evaluate(inputs);
    }
  }();
  static outputs_t computed;

  const inputs_t* in = detail::run_time_input<Mode>(opaque(&inputs));

  (report_line{} << "ctattn firmware check on " << board_name).end();
  (report_line{} << "model: " << Model::name).end();

  check_result result{};
  if constexpr (from_build_machine<Model>) {
    // One run, painted and timed together: the stack figure includes the timer's frame (tens of bytes).
    (report_line{} << "  expected outputs: " << Model::expected_source).end();
    const std::uintptr_t top = stack::pointer();
    stack::paint();
    detail::time_inference(
        result, [&] { evaluate_at_run_time<Model>(*in, computed); }, 1, systick::clock_source::reference);
    result.stack_bytes = stack::used_below(top);
  } else {
    result.stack_bytes = stack::peak_of([&] { evaluate_at_run_time<Model>(*in, computed); });
  }
  Model::for_each_output([&](const char* name, auto member) {
    result.mismatches += detail::compare_output<comparison::bit_for_bit>(name, computed.*member, expected.*member);
  });
  if constexpr (!from_build_machine<Model>) {
    detail::time_inference(result, [&] { evaluate_at_run_time<Model>(*in, computed); }, timed_runs);
  }
  detail::print_measurements(result);
  return result;
}

/// The image's main(): 0 when every output element matches bit for bit, 1 otherwise.
template <typename Model>
int check_model() noexcept {
  const check_result result = run_check<Model>();
  if constexpr (from_build_machine<Model>) {
    (report_line{} << (result.mismatches == 0 ? "PASS: run time == the build machine's exact result, bit for bit"
                                              : "FAIL: run time != the build machine's exact result"))
        .end();
  } else {
    (report_line{} << (result.mismatches == 0 ? "PASS: run time == compile time, bit for bit"
                                              : "FAIL: run time != compile time"))
        .end();
  }
  return result.mismatches == 0 ? 0 : 1;
}

/// Runs a model that writes into storage and compares its output with its compile-time evaluation (`C`); prints
/// a report. The image owns the storage (named globals, so that the linker's symbol sizes can be checked against
/// `Model::footprint`): `input` and `parameters` in flash, `output` and `workspace` in .bss.
template <typename Model, input_mode Mode = input_mode::as_built, comparison C = comparison::bit_for_bit>
check_result run_check_into(const typename Model::input& input, const typename Model::parameters& parameters,
                            typename Model::output& output, typename Model::workspace& workspace,
                            std::uint32_t timed_runs = 64) noexcept {
  using input_t = typename Model::input;
  using output_t = typename Model::output;
  static_assert(std::is_trivially_copyable_v<input_t> && std::is_trivially_copyable_v<output_t>,
                "a firmware model's input and output must be plain tables of numbers");
  static constexpr output_t expected = constant_evaluated<Model>();

  // The compiler sees the tables' initializers: launder the pointers so that it cannot fold the inference.
  const input_t* in = detail::run_time_input<Mode>(opaque(&input));
  const typename Model::parameters* weights = opaque(&parameters);

  (report_line{} << "ctattn firmware check on " << board_name).end();
  (report_line{} << "model: " << Model::name).end();
  if constexpr (C == comparison::within_bound) {
    (report_line{} << "  arithmetic: fast, SIMD backend " << ctattn::simd_backend_name << "; compile time: exact")
        .end();
  }
  constexpr auto fp = Model::footprint;
  (report_line{} << "  footprint: weights " << static_cast<std::uint32_t>(fp.weight_bytes) << " B, input "
                 << static_cast<std::uint32_t>(fp.input_bytes) << " B (flash); output "
                 << static_cast<std::uint32_t>(fp.output_bytes) << " B, workspace "
                 << static_cast<std::uint32_t>(fp.workspace_bytes) << " B (.bss); kernel stack "
                 << static_cast<std::uint32_t>(fp.stack_bytes) << " B")
      .end();

  check_result result{};
  result.stack_bytes = stack::peak_of([&] { evaluate_at_run_time<Model>(output, *in, *weights, workspace); });
  result.mismatches = detail::compare_output<C>(Model::output_name, output, expected);
  detail::time_inference(result, [&] { evaluate_at_run_time<Model>(output, *in, *weights, workspace); }, timed_runs);
  detail::print_measurements(result);
  return result;
}

/// The main() of an image of a model that writes into storage: 0 when every output element passes the
/// comparison `C` (bit for bit, or within the fast bound), 1 otherwise.
template <typename Model, comparison C = comparison::bit_for_bit>
int check_model_into(const typename Model::input& input, const typename Model::parameters& parameters,
                     typename Model::output& output, typename Model::workspace& workspace) noexcept {
  const check_result result = run_check_into<Model, input_mode::as_built, C>(input, parameters, output, workspace);
  if constexpr (C == comparison::bit_for_bit) {
    (report_line{} << (result.mismatches == 0 ? "PASS: run time == compile time, bit for bit"
                                              : "FAIL: run time != compile time"))
        .end();
  } else {
    (report_line{} << (result.mismatches == 0 ? "PASS: run time (fast) within 2^-17 (1 + |exact|) of compile time"
                                              : "FAIL: run time (fast) outside 2^-17 (1 + |exact|) of compile time"))
        .end();
  }
  return result.mismatches == 0 ? 0 : 1;
}

}  // namespace ctattn_firmware

#endif  // CTATTN_FIRMWARE_RUNTIME_CHECK_MODEL_HPP
