// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_BACKEND_HPP
#define CTATTN_KERNELS_BACKEND_HPP

/// \file
/// Which code computes at run time, decided once, from the target the compiler builds for and one switch.
///
/// | target macros (set by `-march` / `-mcpu`)         | backend  | file                    | float lanes |
/// |---------------------------------------------------|----------|-------------------------|-------------|
/// | `__AVX512F__`                                     | AVX-512  | kernels/avx512.hpp      | 16          |
/// | `__AVX2__` and `__FMA__`                          | AVX2+FMA | kernels/avx2.hpp        | 8           |
/// | `__aarch64__` and `__ARM_NEON`                    | NEON     | kernels/neon.hpp        | 4           |
/// | `__ARM_FEATURE_MVE` with floating point (bit 2),  | Helium   | kernels/helium.hpp      | 4           |
/// | compiled by Clang or by GCC 13 or later           |          |                         |             |
/// | anything else (also MVE with GCC 12 or older)     | scalar   | kernels/scalar.hpp      | -           |
///
/// On a Cortex-M55 (`-mcpu=cortex-m55 -mfloat-abi=hard`) Clang therefore builds Helium code and GCC 12 scalar
/// code; docs/firmware.md has a board for each.
// Rationale: GCC 12.2 (Debian's arm-none-eabi-gcc) has internal compiler errors on MVE intrinsics (CMSIS-NN
// switches its MVE code off for that version). ctattn's kernels compiled with it in a trial, but no test runs
// GCC 12's MVE code, so an M55 build with GCC 12 stays on the scalar path, which the firmware images prove.
///
/// Two kinds of arithmetic:
///   - **exact**: the scalar loops of kernels/scalar.hpp. Every sum runs in index order with every step rounded,
///     so a run-time result has the same bits as the same call evaluated inside `static_assert` (the firmware
///     guarantee). Constant evaluation always computes this way.
///   - **fast**: the SIMD backend (float only; double always runs exact). Sums are reassociated across vector
///     lanes, a*b+c is one fused multiply-add and exp is a vector polynomial, so results differ from exact in the
///     last bits: see docs/kernels.md for the bound each kernel is tested against.
///
/// Fast is the default wherever a SIMD backend exists. Define `CTATTN_EXACT_ARITHMETIC=1` (CMake option of the
/// same name) to make exact the default for a whole build; per call, pass `ctattn::exact_arithmetic` or
/// `ctattn::fast_arithmetic` (ctattn/attention/options.hpp).
// Rationale: fast by default because a user who compiles with -mavx2 or -march=native asked for vector code, and
// that user judges ctattn against Eigen; the firmware user who needs static_assert's bits names that need once.
// Targets without a backend (Cortex-M4, M7, M33; the M55 with GCC 12) compute exact either way.
///
/// Example:
/// \code
///   static_assert(ctattn::simd_backend_name[0] != '\0');   // "avx512", "avx2", "neon", "helium" or "scalar"
/// \endcode

#ifndef CTATTN_EXACT_ARITHMETIC
#define CTATTN_EXACT_ARITHMETIC 0
#endif

#include <type_traits>

// Each backend's header is empty unless the target has its instructions; where it has them, the header defines its
// row of the float table (kernels/backend_rows.hpp).
#include "ctattn/kernels/avx2.hpp"
#include "ctattn/kernels/avx512.hpp"
#include "ctattn/kernels/backend_rows.hpp"
#include "ctattn/kernels/helium.hpp"
#include "ctattn/kernels/neon.hpp"

namespace ctattn {

/// How a run-time call computes: `exact` (the scalar loops, static_assert's bits) or `fast` (the SIMD backend).
enum class arithmetic { exact, fast };

/// The arithmetic of a call that names none: fast, unless the build defines `CTATTN_EXACT_ARITHMETIC=1`.
inline constexpr arithmetic default_arithmetic = CTATTN_EXACT_ARITHMETIC ? arithmetic::exact : arithmetic::fast;

namespace detail {
/// The float table's row this build runs: the first the target defines (kernels/backend_rows.hpp), chosen here once.
using float_row = float_backend<chosen_row<float_backend_id, float_backend>()>;

/// The operations of the SIMD backend this build targets (`void` when there is none).
using simd_ops = float_row::ops;

/// Whether a run-time call on elements of type T with arithmetic A runs the SIMD backend.
template <arithmetic A, typename T>
inline constexpr bool runs_simd = A == arithmetic::fast && !std::is_void_v<simd_ops> && std::is_same_v<T, float>;
}  // namespace detail

/// The SIMD backend of this build: "avx512", "avx2", "neon", "helium", or "scalar" when there is none.
inline constexpr const char* simd_backend_name = detail::float_row::name;

}  // namespace ctattn

#endif  // CTATTN_KERNELS_BACKEND_HPP
