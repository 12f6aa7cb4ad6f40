// Measures the accuracy of ctattn::math against the C library's long double functions and prints a table.
//
//   float:  every float in each function's documented range (exhaustive; the sign symmetry of sin, tanh and
//           erf, and cos's evenness, are exact by construction and checked by the tests, so only x >= 0 is
//           swept for them).
//   double: a random sweep (uniform in value and uniform in exponent over the range) plus structured points
//           (near multiples of pi/2 for sin and cos, near the regime boundaries of each function).
//
// Two figures per row: "max ulp" is the distance in ulps to the reference rounded to the type (the bound that
// ctattn promises: 1 for float, 2 for double, 0 for sqrt); "max error" is |result - reference| in ulps of the
// result's binade, measured against the unrounded long double reference. For sqrt the rounded reference is
// the IEEE square root instruction of the type itself (correctly rounded, so no double rounding) (64-bit significand, so about 2^-40
// of a float ulp and 2^-11 of a double ulp of uncertainty, plus glibc's own long double error).
//
// Usage: tool_math_accuracy [function ...] [--float-only | --double-only] [--stride N] [--double-points N]
// Run it with nice on a shared machine: the float sweep evaluates about 1.4e10 functions (tens of minutes).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ctattn/math/erf.hpp"
#include "ctattn/math/exp.hpp"
#include "ctattn/math/log.hpp"
#include "ctattn/math/sin_cos.hpp"
#include "ctattn/math/sqrt.hpp"
#include "ctattn/math/tanh.hpp"

namespace {

template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
long long ordinal(T v) {
  bits_t<T> b;
  std::memcpy(&b, &v, sizeof b);
  constexpr bits_t<T> sign = bits_t<T>{1} << (sizeof(T) * 8 - 1);
  return (b & sign) != 0 ? -static_cast<long long>(b & ~sign) : static_cast<long long>(b);
}

template <class T>
T from_bits(bits_t<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

struct stats {
  long long points = 0;
  long long max_ulp = 0;
  long double max_error = 0;
  double worst_x = 0;
  long long over_bound = 0;
};

// exact: the correctly rounded result when known exactly (sqrt: the IEEE instruction), else ref rounded.
template <class T>
void record(stats& s, T x, T got, long double ref, long long bound, bool exact_is_native = false) {
  ++s.points;
  const T rounded = exact_is_native ? std::sqrt(x) : static_cast<T>(ref);
  if (std::isnan(got) || std::isnan(rounded)) {
    if (std::isnan(got) != std::isnan(rounded)) {
      s.max_ulp = std::numeric_limits<long long>::max();
      s.worst_x = static_cast<double>(x);
    }
    return;
  }
  long long d = ordinal(got) - ordinal(rounded);
  d = d < 0 ? -d : d;
  if (d > bound) ++s.over_bound;
  if (std::isfinite(rounded) && rounded != 0) {
    const int e = std::max(std::ilogb(rounded), std::numeric_limits<T>::min_exponent - 1);
    const long double ulp = std::ldexp(1.0L, e - (std::numeric_limits<T>::digits - 1));
    const long double err = std::fabs(static_cast<long double>(got) - ref) / ulp;
    if (err > s.max_error) s.max_error = err;
  }
  if (d > s.max_ulp) {
    s.max_ulp = d;
    s.worst_x = static_cast<double>(x);
  }
}

struct function {
  const char* name;
  float (*f)(float);
  double (*d)(double);
  long double (*ref)(long double);
  // float sweep: bit patterns [lo, hi] of non-negative floats, and optionally the negative ones [nlo, nhi]
  float lo, hi;
  bool negative_too;
  float neg_hi;  // negative side: from -0 down to -neg_hi
  // double sweep range
  double dlo, dhi;
  long long bound_float, bound_double;
};

const function functions[] = {
    {"exp", [](float x) { return ctattn::math::exp(x); }, [](double x) { return ctattn::math::exp(x); },
     [](long double x) { return std::exp(x); }, 0.0f, 0x1.62e42ep+6f, true, 0x1.9fe368p+6f, -745.2, 709.8, 1, 2},
    {"log", [](float x) { return ctattn::math::log(x); }, [](double x) { return ctattn::math::log(x); },
     [](long double x) { return std::log(x); }, std::numeric_limits<float>::denorm_min(),
     std::numeric_limits<float>::max(), false, 0, 0x1p-1074, 0x1.fffffffffffffp+1023, 1, 2},
    // sqrt: the integer algorithm that constant evaluation runs (at run time ctattn::math::sqrt is the instruction)
    {"sqrt", [](float x) { return ctattn::math::detail::sqrt_exact(x); },
     [](double x) { return ctattn::math::detail::sqrt_exact(x); }, [](long double x) { return std::sqrt(x); }, 0.0f,
     std::numeric_limits<float>::max(), false, 0, 0x1p-1074, 0x1.fffffffffffffp+1023, 0, 0},
    {"sin", [](float x) { return ctattn::math::sin(x); }, [](double x) { return ctattn::math::sin(x); },
     [](long double x) { return std::sin(x); }, 0.0f, std::numeric_limits<float>::max(), false, 0, 0x1p-1074,
     0x1.fffffffffffffp+1023, 1, 2},
    {"cos", [](float x) { return ctattn::math::cos(x); }, [](double x) { return ctattn::math::cos(x); },
     [](long double x) { return std::cos(x); }, 0.0f, std::numeric_limits<float>::max(), false, 0, 0x1p-1074,
     0x1.fffffffffffffp+1023, 1, 2},
    {"tanh", [](float x) { return ctattn::math::tanh(x); }, [](double x) { return ctattn::math::tanh(x); },
     [](long double x) { return std::tanh(x); }, 0.0f, 0x1.205968p+3f, false, 0, 0, 19.07, 1, 2},
    {"erf", [](float x) { return ctattn::math::erf(x); }, [](double x) { return ctattn::math::erf(x); },
     [](long double x) { return std::erf(x); }, 0.0f, 0x1.f5a88ap+1f, false, 0, 0, 5.93, 1, 2},
};

stats sweep_float(const function& fn, std::uint32_t stride) {
  stats s;
  auto run = [&](float from, float to, bool negative) {
    const std::uint32_t sign = negative ? 0x80000000u : 0u;
    std::uint32_t b = 0, end = 0;
    std::memcpy(&b, &from, 4);
    std::memcpy(&end, &to, 4);
    b &= 0x7fffffffu;
    end &= 0x7fffffffu;
    for (; b <= end; b += stride) {
      const float x = from_bits<float>(b | sign);
      record(s, x, fn.f(x), fn.ref(static_cast<long double>(x)), fn.bound_float, fn.bound_float == 0);
      if (end - b < stride) break;
    }
  };
  run(fn.lo, fn.hi, false);
  if (fn.negative_too) run(0.0f, fn.neg_hi, true);
  return s;
}

stats sweep_double(const function& fn, long long count) {
  stats s;
  std::mt19937_64 rng(20240611);
  auto check = [&](double x) {
    if (!(x >= fn.dlo && x <= fn.dhi)) return;
    record(s, x, fn.d(x), fn.ref(static_cast<long double>(x)), fn.bound_double, fn.bound_double == 0);
  };
  // uniform in value over the range (for the wide ranges: over [-1000, 1000] intersected with it)
  const double ulo = std::max(fn.dlo, -1000.0), uhi = std::min(fn.dhi, 1000.0);
  std::uniform_real_distribution<double> uniform(ulo, uhi);
  for (long long i = 0; i < count / 2; ++i) check(uniform(rng));
  // uniform in exponent: random significand, exponent across the range, both signs where the range has them
  std::uniform_int_distribution<std::uint64_t> bits(0, ~std::uint64_t{0});
  for (long long i = 0; i < count / 2; ++i) {
    std::uint64_t b = bits(rng) & 0x7fffffffffffffffULL;
    if (fn.dlo < 0 && (i & 1) != 0) b |= 0x8000000000000000ULL;
    const double x = from_bits<double>(b);
    if (std::isfinite(x)) {
      // fold the exponent into the range so that the whole binade structure of the range is visited
      if (x >= fn.dlo && x <= fn.dhi) {
        check(x);
      } else {
        const double hi = std::max(std::fabs(fn.dlo), std::fabs(fn.dhi));
        int e = 0;
        const double m = std::frexp(x, &e);
        const int emax = std::ilogb(hi) + 1;
        const int emin = std::numeric_limits<double>::min_exponent - 53;
        const int span = emax - emin + 1;
        check(std::ldexp(m, emin + ((e - emin) % span + span) % span));
      }
    }
  }
  // structured points: near multiples of pi/2, near regime boundaries, each with 64 neighbours
  std::vector<double> centres = {0.5, 0.55, 0.84375, 1.0, 1.25, 2.5, 0.6931471805599453, 0.7853981633974483};
  for (int k = 1; k < 2000; ++k) centres.push_back(k * 1.5707963267948966);
  for (double k = 1e3; k < 1e300; k *= 7.3)
    centres.push_back(std::nearbyint(k / 1.5707963267948966) * 1.5707963267948966);
  centres.push_back(6381956970095103.0 * 0x1p797);
  for (double c : centres) {
    double x = c;
    for (int i = 0; i < 32; ++i) x = std::nextafter(x, 0.0);
    for (int i = 0; i < 64; ++i, x = std::nextafter(x, std::numeric_limits<double>::infinity())) {
      check(x);
      check(-x);
    }
  }
  return s;
}

void print_row(const char* name, const char* type, const char* range, const stats& s, long long bound, double secs) {
  std::printf("| %-4s | %-6s | %-34s | %13lld | %7lld | %9.4Lf | %-24a | %s | %6.0f |\n", name, type, range, s.points,
              s.max_ulp, s.max_error, s.worst_x, s.max_ulp <= bound ? "yes" : "NO ", secs);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool do_float = true, do_double = true;
  std::uint32_t stride = 1;
  long long double_points = 20'000'000;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--float-only")
      do_double = false;
    else if (a == "--double-only")
      do_float = false;
    else if (a == "--stride" && i + 1 < argc)
      stride = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--double-points" && i + 1 < argc)
      double_points = std::strtoll(argv[++i], nullptr, 10);
    else
      only.push_back(a);
  }
  std::printf(
      "| fn   | type   | range swept                        |        points | max ulp | max error | worst x                  | ok  | time s |\n");
  std::printf(
      "|------|--------|------------------------------------|---------------|---------|-----------|--------------------------|-----|--------|\n");
  for (const function& fn : functions) {
    bool wanted = only.empty();
    for (const std::string& o : only) wanted = wanted || o == fn.name;
    if (!wanted) continue;
    if (do_float) {
      char range[64];
      if (fn.negative_too)
        std::snprintf(range, sizeof range, "[%a, %a]", -static_cast<double>(fn.neg_hi), static_cast<double>(fn.hi));
      else
        std::snprintf(range, sizeof range, "[%a, %a]", static_cast<double>(fn.lo), static_cast<double>(fn.hi));
      const auto t0 = std::chrono::steady_clock::now();
      const stats s = sweep_float(fn, stride);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      print_row(fn.name, stride == 1 ? "float" : "float*", range, s, fn.bound_float, secs);
    }
    if (do_double) {
      char range[64];
      std::snprintf(range, sizeof range, "[%.4g, %.4g]", fn.dlo, fn.dhi);
      const auto t0 = std::chrono::steady_clock::now();
      const stats s = sweep_double(fn, double_points);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      print_row(fn.name, "double", range, s, fn.bound_double, secs);
    }
  }
  if (stride != 1) std::printf("(float*: every %u-th float only)\n", stride);
  return 0;
}
