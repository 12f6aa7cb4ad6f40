// What a run-time float call computes with in this build, and the tolerances the fixture checks use for it.
#ifndef CTATTN_TESTS_SUPPORT_FAST_BOUNDS_HPP
#define CTATTN_TESTS_SUPPORT_FAST_BOUNDS_HPP

#include <ctattn/kernels/backend.hpp>

#include <type_traits>

namespace ctattn_test {

/// True in the backend tests (tests/backend/): run-time float calls run the SIMD backend, not the exact loops.
inline constexpr bool fast_at_run_time = ctattn::detail::runs_simd<ctattn::default_arithmetic, float>;

/// The float tolerance against PyTorch for fast arithmetic (docs/kernels.md): the exact kernels' 5e-7 plus the
/// fast kernels' bound against exact at the fixtures' scale (inputs of magnitude 1 to 3, d <= 8).
inline constexpr float fast_float_tolerance = 2e-6f;

/// `exact` in constant evaluation and in exact builds, `fast` where run-time calls are fast.
constexpr float tolerance(float exact, float fast) noexcept {
  return !std::is_constant_evaluated() && fast_at_run_time ? fast : exact;
}

}  // namespace ctattn_test

#endif  // CTATTN_TESTS_SUPPORT_FAST_BOUNDS_HPP
