// How much the constant evaluators charge for the forms a multiply-add can take: 64 x 64 dot products of
// 64-element rows (262,144 multiply-adds) inside static_assert, in the form chosen by -DCTATTN_FORM:
//   0  the inputs only (the baseline the others are measured against)
//   1  a loop of one multiply-add per iteration, through pointers
//   2  a loop of eight multiply-adds per statement, through pointers
//   3  one fold expression per dot product (ctattn::detail::unrolled_dot), on rows of constexpr variables
//   4  the same fold on copies of the rows in arrays local to the evaluation (the form ctattn's kernels use)
//   5  row updates y += s x as one fold each (ctattn::detail::unrolled_axpy), on local arrays
// Run by benchmarks/compile_time_forms.sh, which counts the compiler's instructions per multiply-add.
#include <ctattn/kernels/constant.hpp>

#include "compile_time_inputs.hpp"

#include <cstddef>
#include <cstdint>

#ifndef CTATTN_FORM
#define CTATTN_FORM 0
#endif

namespace {

constexpr std::size_t n = 64;
constexpr std::size_t d = 64;

struct rows {
  float elements[n][d];
};

constexpr rows a = lcg_filled<rows>(1);
constexpr rows b = lcg_filled<rows>(2);

constexpr float dot_loop(const float* x, const float* y) {
  float acc = 0.0f;
  for (std::size_t c = 0; c < d; ++c) acc += x[c] * y[c];
  return acc;
}

constexpr float dot_eight(const float* x, const float* y) {
  float acc = 0.0f;
  for (std::size_t c = 0; c < d; c += 8) {
    acc = (((((((acc + x[c] * y[c]) + x[c + 1] * y[c + 1]) + x[c + 2] * y[c + 2]) + x[c + 3] * y[c + 3]) +
             x[c + 4] * y[c + 4]) +
            x[c + 5] * y[c + 5]) +
           x[c + 6] * y[c + 6]) +
          x[c + 7] * y[c + 7];
  }
  return acc;
}

constexpr float run() {
  float total = 0.0f;
#if CTATTN_FORM == 1 || CTATTN_FORM == 2 || CTATTN_FORM == 3
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
#if CTATTN_FORM == 1
      total += dot_loop(&a.elements[i][0], &b.elements[j][0]);
#elif CTATTN_FORM == 2
      total += dot_eight(&a.elements[i][0], &b.elements[j][0]);
#else
      total += ctattn::detail::unrolled_dot(a.elements[i], b.elements[j]);
#endif
    }
  }
#elif CTATTN_FORM == 4 || CTATTN_FORM == 5
  float x[n][d]{};
  float y[n][d]{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < d; ++c) {
      x[i][c] = a.elements[i][c];
      y[i][c] = b.elements[i][c];
    }
  }
  float out[d]{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
#if CTATTN_FORM == 4
      total += ctattn::detail::unrolled_dot(x[i], y[j]);
#else
      ctattn::detail::unrolled_axpy(out, x[i][j], y[j]);
#endif
    }
  }
  total += out[0];
#else
  total = a.elements[0][0] + b.elements[0][0];
#endif
  return total;
}

static_assert(run() != 12345.0f);  // forces the evaluation

}  // namespace

int main() { return 0; }
