// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_CONSTANT_HPP
#define CTATTN_KERNELS_CONSTANT_HPP

/// \file
/// The constant-evaluated backend: the exact arithmetic of kernels/scalar.hpp in the form the constant evaluators
/// run fastest. It has two forms, chosen here by `evaluates_lanes<T>`:
///   - GCC, float, double and int32 (the int8 products' sums): products and attention as row updates on GCC's
///     vector types (`lane_row`, 32 lanes), which its evaluator computes lane by lane in one step;
///   - every other case (Clang, whose evaluator cannot read a vector's lane back): dot products and multiply-adds
///     over whole rows as one expression per row (a fold over a compile-time index pack) instead of a loop, on
///     local copies of the operands.
///
/// | helper                                 | operands (y, then the inputs)         | result                         |
/// |----------------------------------------|---------------------------------------|--------------------------------|
/// | `unrolled_dot(a, b)`                   | a, b: `const T (&)[N]`                | (+0 + a[0] b[0]) + a[1] b[1].. |
/// | `unrolled_axpy(y, s, x)`               | `T (&)[N]`, `T`, `const T (&)[N]`     | y[c] += s x[c], c = 0 ... N-1  |
/// | `unrolled_product(y, a, b)`            | R x C, R x K, K x C (`T (&)[.][.]`)   | y = a b                        |
/// | `unrolled_product_transposed(y, a, b)` | R x C, R x K, C x K                   | y = a b^T                      |
/// | `constant::attend<W, DK, DV>(...)`      | as `scalar::attend`                   | as `scalar::attend`            |
/// | `lanes_axpy(y, s, x)`                  | `lane_row<T, N>`, `T`, `lane_row<T, N>` | y[c] += s x[c], every lane   |
/// | `lanes_product<Transposed>(y, a, b)`   | as `unrolled_product(_transposed)`    | y = a b, or a b^T              |
/// | `lanes_exp(x)`                         | a `lane_row` chunk, x <= 0 or -inf    | x = math::exp(x), every lane   |
/// | `lanes_softmax_row(row, w, b, e)`      | `lane_row<T, N>`, `T (&)[N]`, range   | w = softmax_row of row's lanes |
///
/// All do every addition in exactly the order of the plain loops `acc += a[c] * b[c]` and
/// `y[c] += s * x[c]`, so they give the same bits as those loops: kernels/dispatch.hpp uses these when
/// constant-evaluated and the scalar loops for exact arithmetic at run time. Each lane of a row update is one
/// element's multiply and add, rounded as the scalar loop rounds them.
///
/// Rationale: both compilers evaluate constant expressions at a cost per loop iteration, per index computation,
/// per statement and per read through a reference that is larger than the cost of the arithmetic. A fold over an
/// index pack has no loop and no index computation: its indices are literals fixed at instantiation. Instructions
/// per multiply-add (`benchmarks/compile_time_forms.sh`, docs/compile_time.md): Clang 14 takes 28 thousand in a
/// plain loop, 24 thousand with eight multiply-adds per statement, 15 thousand as a fold, and 12 thousand as a fold
/// over arrays local to the evaluation; GCC 12 takes 85, 79, 34 and 27 thousand. That is why the kernels copy
/// their operands first, and why products are formed as dot products (a fold over two local rows) rather than as
/// row updates. Clang limits a fold to 256 operands (its expression nesting limit), so long rows are folded in
/// chunks of 64, one after the other, which keeps the order.
///
/// Example:
/// \code
///   constexpr float a[3]{1, 2, 3}, b[3]{4, 5, 6};
///   static_assert(ctattn::detail::unrolled_dot(a, b) == 32.0f);
/// \endcode

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "ctattn/kernels/scalar.hpp"
#include "ctattn/kernels/softmax_row.hpp"
#include "ctattn/math/detail/exp_kernel.hpp"

namespace ctattn::detail {

/// The largest number of terms folded into one expression.
inline constexpr std::size_t unrolled_chunk = 64;

template <std::size_t Offset, std::size_t... I>
constexpr std::index_sequence<(Offset + I)...> offset_indices(std::index_sequence<I...>) noexcept {
  return {};
}

/// The indices of chunk C of a row of N elements: C * 64, ..., min(N, (C + 1) * 64) - 1.
template <std::size_t C, std::size_t N>
using chunk_indices = decltype(offset_indices<C * unrolled_chunk>(
    std::make_index_sequence<(N - C * unrolled_chunk < unrolled_chunk ? N - C * unrolled_chunk : unrolled_chunk)>{}));

template <std::size_t N>
using chunk_numbers = std::make_index_sequence<(N + unrolled_chunk - 1) / unrolled_chunk>;

template <typename T, std::size_t N, std::size_t... J>
constexpr T dot_terms(T acc, const T (&a)[N], const T (&b)[N], std::index_sequence<J...>) noexcept {
  return (acc + ... + (a[J] * b[J]));
}

template <typename T, std::size_t N, std::size_t... C>
constexpr T dot_chunks(const T (&a)[N], const T (&b)[N], std::index_sequence<C...>) noexcept {
  T acc{0};
  ((acc = dot_terms(acc, a, b, chunk_indices<C, N>{})), ...);
  return acc;
}

/// a[0] b[0] + a[1] b[1] + ... + a[N-1] b[N-1], added left to right starting from +0.
template <typename T, std::size_t N>
constexpr T unrolled_dot(const T (&a)[N], const T (&b)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    return dot_terms(T{0}, a, b, std::make_index_sequence<N>{});
  } else {
    return dot_chunks(a, b, chunk_numbers<N>{});
  }
}

template <typename T, std::size_t N, std::size_t... J>
constexpr void axpy_terms(T (&y)[N], T s, const T (&x)[N], std::index_sequence<J...>) noexcept {
  ((y[J] += s * x[J]), ...);
}

template <typename T, std::size_t N, std::size_t... C>
constexpr void axpy_chunks(T (&y)[N], T s, const T (&x)[N], std::index_sequence<C...>) noexcept {
  (axpy_terms(y, s, x, chunk_indices<C, N>{}), ...);
}

/// y[c] += s x[c] for c = 0, 1, ..., N-1.
template <typename T, std::size_t N>
constexpr void unrolled_axpy(T (&y)[N], T s, const T (&x)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    axpy_terms(y, s, x, std::make_index_sequence<N>{});
  } else {
    axpy_chunks(y, s, x, chunk_numbers<N>{});
  }
}

/// Whether the constant evaluation of T's products and attention runs on the compiler's vector types (GCC) instead
/// of folds (every other compiler).
// Rationale: GCC's evaluator does arithmetic on its generic vector types (`vector_size`) lane by lane in one step,
// so a row update y += s x of 32 lanes costs it about what the 64 floating-point operations cost, while a fold
// pays as much again for each element it reads (`benchmarks/compile_time_instructions.sh`, docs/compile_time.md:
// a product takes 13.1 thousand instructions per multiply-add as folds and 5.9 thousand as lanes; attention 16.9
// and 7.9 thousand, its softmax on lanes too; the int8 products 18.9 and 7.6 thousand). Clang 14 evaluates vector
// arithmetic too but cannot read a lane back in a constant expression (a subscript or a bit_cast of a vector is not
// constant there), so Clang keeps the folds. Every lane is the scalar loop's operation in the scalar loop's order,
// so the bits are the same (tests/static/unrolled_test.cpp, tests/runtime/unrolled_kernels_test.cpp).
template <typename T>
inline constexpr bool evaluates_lanes =
#if defined(__GNUC__) && !defined(__clang__)
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>;
#else
    false;
#endif

/// The lanes of one vector for rows of N elements: 32, or the power of two that holds a shorter row.
template <std::size_t N>
inline constexpr std::size_t lane_count = N >= 32 ? 32 : std::bit_ceil(N < 2 ? std::size_t{2} : N);

/// A row of N elements of T as vectors of `lane_count<N>` lanes; the lanes past N hold +0.
template <typename T, std::size_t N>
struct lane_row {
  static constexpr std::size_t lanes = lane_count<N>;
  static constexpr std::size_t chunks = (N + lanes - 1) / lanes;
  typedef T vector __attribute__((vector_size(sizeof(T) * lanes)));
  vector chunk[chunks];
};

// Chunk `chunk` of row from a row of a source array: lane l is T(source[offset + base + l]) below N, +0 past it
// (base = chunk * lanes). GCC lets a constant expression read a lane but not write one, so a chunk is built whole.
template <typename T, std::size_t N, typename S, std::size_t C, std::size_t... L>
constexpr void load_segment_chunk(lane_row<T, N>& row, std::size_t chunk, const S (&source)[C], std::size_t offset,
                                  std::index_sequence<L...>) noexcept {
  const std::size_t base = chunk * lane_row<T, N>::lanes;
  row.chunk[chunk] =
      typename lane_row<T, N>::vector{(base + L < N ? static_cast<T>(source[offset + base + L]) : T{0})...};
}

/// Lane c of row is T(source[offset + c]), c < N.
template <typename T, std::size_t N, typename S, std::size_t C>
constexpr void load_segment(lane_row<T, N>& row, const S (&source)[C], std::size_t offset) noexcept {
  for (std::size_t chunk = 0; chunk < lane_row<T, N>::chunks; ++chunk) {
    load_segment_chunk(row, chunk, source, offset, std::make_index_sequence<lane_row<T, N>::lanes>{});
  }
}

template <typename T, std::size_t N, typename S, std::size_t R, std::size_t C, std::size_t... L>
constexpr void load_column_chunk(lane_row<T, N>& row, std::size_t chunk, const S (&source)[R][C], std::size_t first,
                                 std::size_t column, std::index_sequence<L...>) noexcept {
  const std::size_t base = chunk * lane_row<T, N>::lanes;
  row.chunk[chunk] =
      typename lane_row<T, N>::vector{(base + L < N ? static_cast<T>(source[first + base + L][column]) : T{0})...};
}

/// Lane c of row is T(source[first + c][column]), c < N: a column of a two-dimensional array as a row.
template <typename T, std::size_t N, typename S, std::size_t R, std::size_t C>
constexpr void load_column(lane_row<T, N>& row, const S (&source)[R][C], std::size_t first,
                           std::size_t column) noexcept {
  for (std::size_t chunk = 0; chunk < lane_row<T, N>::chunks; ++chunk) {
    load_column_chunk(row, chunk, source, first, column, std::make_index_sequence<lane_row<T, N>::lanes>{});
  }
}

template <typename T, std::size_t N, std::size_t... C>
constexpr void lanes_axpy_chunks(lane_row<T, N>& y, T s, const lane_row<T, N>& x, std::index_sequence<C...>) noexcept {
  ((y.chunk[C] += s * x.chunk[C]), ...);
}

/// y[c] += s x[c] for every lane: each lane's product rounded, then its sum, as the scalar loop does.
template <typename T, std::size_t N>
constexpr void lanes_axpy(lane_row<T, N>& y, T s, const lane_row<T, N>& x) noexcept {
  lanes_axpy_chunks(y, s, x, std::make_index_sequence<lane_row<T, N>::chunks>{});
}

/// Element c of row.
template <typename T, std::size_t N>
constexpr T lane(const lane_row<T, N>& row, std::size_t c) noexcept {
  return row.chunk[c / lane_row<T, N>::lanes][c % lane_row<T, N>::lanes];
}

/// x = math::exp(x) on every lane of x, a chunk of a `lane_row`, for lanes that hold x <= 0 or -inf (softmax's
/// x - max); other lanes give a value of no use and stop nothing.
// Rationale: `math::detail::exp`'s reduction and polynomial on every lane at once (exp_reduce takes lanes), then
// its scaling by 2^k as two exact powers of two: 2^max(k, 2 - bias), then 2^(k - that), which is 1 unless the
// result is subnormal, where this product is the one rounding of v 2^k, as `scale`'s is. GCC's evaluator pays
// for exp per call, statement and read about as much again as for its 30 operations; on lanes one row of scores
// takes 30 vector operations.
template <typename V>
constexpr void lanes_exp(V& x) noexcept {
  using T = math::detail::element_t<V>;
  using c = math::detail::exp_constants<T>;
  using format = math::detail::format<T>;
  using integer = std::make_signed_t<typename format::bits>;
  typedef integer integers __attribute__((vector_size(sizeof(V))));
  // Lanes below exp's underflow (-inf among them, and NaN) give +0, as exp gives them; the others stay in exp's
  // range, so that no lane's conversion to an integer overflows.
  const auto kept = x >= c::underflow;
  const V zero{};
  x = kept ? (x > T{0} ? zero : x) : zero;
  const math::detail::exp_split<V> s = math::detail::exp_reduce(x);
  const integers k = __builtin_convertvector(s.k, integers);
  const integers normal = k < integer{2 - format::bias} ? integers{} + integer{2 - format::bias} : k;
  const V scale_normal = __builtin_bit_cast(V, (normal + integer{format::bias}) << format::mantissa_bits);
  const V scale_rest = __builtin_bit_cast(V, (k - normal + integer{format::bias}) << format::mantissa_bits);
  x = kept ? (s.hi + s.lo) * scale_normal * scale_rest : zero;
}

// The chunks of a row of N lanes that hold an element of [begin, end), begin < end.
template <typename T, std::size_t N>
struct chunk_span {
  std::size_t first;
  std::size_t last;
  constexpr chunk_span(std::size_t begin, std::size_t end) noexcept
      : first(begin / lane_row<T, N>::lanes), last((end - 1) / lane_row<T, N>::lanes) {}
};

/// The softmax of the entries [begin, end) held in row's lanes, written to weights[begin, end): `softmax_row`'s
/// bits, with the exponentials and the divisions on lanes. A row that holds a NaN or +inf, or no entry above -inf,
/// is `softmax_row`'s own. row's lanes are overwritten.
template <typename T, std::size_t N>
constexpr void lanes_softmax_row(lane_row<T, N>& row, T (&weights)[N], std::size_t begin, std::size_t end) noexcept {
  constexpr T infinity = std::numeric_limits<T>::infinity();
  T largest = -infinity;
  bool special = false;
  for (std::size_t j = begin; j < end; ++j) {
    const T x = lane(row, j);
    if (x != x || x == infinity) special = true;
    if (x > largest) largest = x;
  }
  if (special || largest == -infinity) {
    for (std::size_t j = begin; j < end; ++j) weights[j] = lane(row, j);
    softmax_row(weights, weights, begin, end);  // each entry read before it is written
    return;
  }
  const chunk_span<T, N> chunks(begin, end);
  for (std::size_t chunk = chunks.first; chunk <= chunks.last; ++chunk) {
    row.chunk[chunk] -= largest;
    lanes_exp(row.chunk[chunk]);
  }
  T total{0};
  for (std::size_t j = begin; j < end; ++j) total += lane(row, j);
  for (std::size_t chunk = chunks.first; chunk <= chunks.last; ++chunk) row.chunk[chunk] /= total;
  for (std::size_t j = begin; j < end; ++j) weights[j] = lane(row, j);
}

/// y = a b, or y = a b^T for b given as C rows of K (Transposed): each row of y is the row update y_i += a[i][k] b_k
/// over k = 0, 1, ..., K-1 from +0 (b_k the k-th row of b, or of b^T), so each element is summed in the order of the
/// scalar loops.
template <bool Transposed, typename T, std::size_t R, std::size_t K, std::size_t C, typename B>
constexpr void lanes_product(T (&y)[R][C], const T (&a)[R][K], const B& b) noexcept {
  lane_row<T, C> rows[K]{};
  for (std::size_t k = 0; k < K; ++k) {
    if constexpr (Transposed) {
      load_column(rows[k], b, 0, k);
    } else {
      load_segment(rows[k], b[k], 0);
    }
  }
  for (std::size_t i = 0; i < R; ++i) {
    lane_row<T, C> sum{};
    for (std::size_t k = 0; k < K; ++k) lanes_axpy(sum, a[i][k], rows[k]);
    for (std::size_t c = 0; c < C; ++c) y[i][c] = lane(sum, c);
  }
}

// y[i][c] = unrolled_dot(a[i], columns[c]), with a's current row copied into a local array first.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void dot_rows(T (&y)[R][C], const T (&a)[R][K], const T (&columns)[C][K]) noexcept {
  T row[K]{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) row[k] = a[i][k];
    for (std::size_t c = 0; c < C; ++c) y[i][c] = unrolled_dot(row, columns[c]);
  }
}

// y = a b, or y = a b^T (Transposed, b given as C rows of K), in the form this compiler evaluates fastest: GCC's
// vector lanes, or dot products of a's rows with b's columns copied as local rows.
template <bool Transposed, typename T, std::size_t R, std::size_t K, std::size_t C, typename B>
constexpr void constant_product(T (&y)[R][C], const T (&a)[R][K], const B& b) noexcept {
  if constexpr (evaluates_lanes<T>) {
    lanes_product<Transposed>(y, a, b);
  } else {
    // Rationale: the transposition chosen outside the loops; Clang counts each statement evaluated against its
    // step limit, so a branch per element would cost the KV-cache decoding proof (examples/verified_model) its limit.
    T columns[C][K]{};
    if constexpr (Transposed) {
      for (std::size_t c = 0; c < C; ++c) {
        for (std::size_t k = 0; k < K; ++k) columns[c][k] = b[c][k];
      }
    } else {
      for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t c = 0; c < C; ++c) columns[c][k] = b[k][c];
      }
    }
    dot_rows(y, a, columns);
  }
}

/// y = a b: y[i][c] = a[i][0] b[0][c] + a[i][1] b[1][c] + ... + a[i][K-1] b[K-1][c], added left to right from
/// +0, the same order as the i-k-j loop `y[i][c] += a[i][k] * b[k][c]` over rows of b.
// Rationale: as dot products over local copies (b's columns as rows, and a's current row), every term reads two
// arrays local to the evaluation with literal indices: 14% fewer instructions than row updates on GCC 12 and 16%
// fewer on Clang 14 (`benchmarks/compile_time_forms.sh`). The copies cost one read and one write per element of
// b, against R reads of each in the product.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product(T (&y)[R][C], const T (&a)[R][K], const T (&b)[K][C]) noexcept {
  constant_product<false>(y, a, b);
}

/// y = a b^T for b given as its C rows of K elements (nn.Linear's layout): y[i][c] = unrolled_dot(a[i], b[c]).
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product_transposed(T (&y)[R][C], const T (&a)[R][K], const T (&b)[C][K]) noexcept {
  constant_product<true>(y, a, b);
}

namespace constant {

// The dot products of a query against the keys of [begin, end), as lanes: dots = +0, then dots += query[c] keys_t[c]
// for c = 0, 1, ..., DK-1 (the order of the scalar dot product), over the chunks that hold a key of the range (a
// window of r keys costs r, not n_kv, as in the scalar kernel). The other keys of those chunks are computed with
// and never read: GCC's vector arithmetic gives IEEE's infinities and NaNs where its scalar arithmetic stops the
// evaluation, so a key outside the range cannot stop it either.
template <std::size_t DK, typename T, std::size_t N>
constexpr void lanes_dots(lane_row<T, N>& dots, const lane_row<T, N> (&keys_t)[DK], const T (&query)[DK],
                          std::size_t begin, std::size_t end) noexcept {
  const chunk_span<T, N> chunks(begin, end);
  for (std::size_t chunk = chunks.first; chunk <= chunks.last; ++chunk) {
    dots.chunk[chunk] = typename lane_row<T, N>::vector{};
    for (std::size_t c = 0; c < DK; ++c) dots.chunk[chunk] += query[c] * keys_t[c].chunk[chunk];
  }
}

/// `attend` on GCC: keys as DK lane rows over the keys (K^T), values as lane rows, every score row and every
/// context row a sequence of row updates in the scalar kernel's order.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend_lanes(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                            const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  lane_row<T, n_kv> keys_t[DK]{};
  for (std::size_t c = 0; c < DK; ++c) {
    load_column(keys_t[c], k.elements, 0, columns.key_offset + c);
  }
  lane_row<T, DV> values[n_kv]{};
  for (std::size_t j = 0; j < n_kv; ++j) {
    load_segment(values[j], v.elements[j], columns.value_offset);
  }
  T query[DK]{};
  lane_row<T, n_kv> scores{};
  T score_values[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = 0; i < n_q; ++i) {
    const auto range = mask.keys(i, n_q, n_kv);
    if (range.begin < range.end) {
      // Rationale: the query row copied first: GCC reads a local array's element for fewer instructions than one
      // of the matrix behind a reference (9.4 against 11.0 thousand per multiply-add in this kernel).
      for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
      lanes_dots(scores, keys_t, query, range.begin, range.end);
      if constexpr (Mask::checks_each_key || Mask::adds_bias) {
        for (std::size_t j = range.begin; j < range.end; ++j) score_values[j] = lane(scores, j);
        score_row(mask, i, range, scale, score_values, [&](std::size_t key) { return score_values[key]; });
        load_segment(scores, score_values, 0);
      } else {
        // score_row's dot / scale for every key of the range.
        const chunk_span<T, n_kv> chunks(range.begin, range.end);
        for (std::size_t chunk = chunks.first; chunk <= chunks.last; ++chunk) scores.chunk[chunk] /= scale;
      }
      // Rationale: run-time code never comes here (kernels/dispatch.hpp), but GCC compiles the functions that a
      // run-time instance of this one calls unless the call folds away, which it does behind the builtin and not
      // behind std::is_constant_evaluated(): the exponential's helpers take vectors by value, and x86's GCC warns
      // that 32- and 64-byte vectors change the ABI with AVX (-Wpsabi, an error under -Werror).
      if (__builtin_is_constant_evaluated()) {
        lanes_softmax_row(scores, probabilities, range.begin, range.end);
      } else {
        for (std::size_t j = range.begin; j < range.end; ++j) score_values[j] = lane(scores, j);
        softmax_row(score_values, probabilities, range.begin, range.end);
      }
    }
    lane_row<T, DV> context{};
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      lanes_axpy(context, p, values[j]);
    }
    for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += lane(context, c);
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

/// The constant-evaluated form of `scalar::attend`: the same arithmetic in the same order, so the same bits.
// Rationale: the constant evaluators read an element of an array local to the evaluation faster than one of a
// constexpr variable, and fold expressions with literal indices faster than loops (see above). So this head's keys
// and values, and each query row, are first copied into exact-size local arrays (O(n d) copies against O(n^2 d)
// multiply-adds), and every score and every context row is one unrolled expression. Each context row is summed
// from +0 into a local row and then added to the output's +0, which changes no bit.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  if constexpr (evaluates_lanes<T>) {
    attend_lanes<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  } else {
    constexpr std::size_t n_q = Q::rows;
    constexpr std::size_t n_kv = K::rows;
    T keys[n_kv][DK]{};
    T values[n_kv][DV]{};
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < DK; ++c) keys[j][c] = k.elements[j][columns.key_offset + c];
      for (std::size_t c = 0; c < DV; ++c) values[j][c] = v.elements[j][columns.value_offset + c];
    }
    T query[DK]{};
    T context[DV]{};
    T scores[n_kv]{};
    T probabilities[n_kv]{};
    for (std::size_t i = 0; i < n_q; ++i) {
      for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
      const auto range = mask.keys(i, n_q, n_kv);
      score_row(mask, i, range, scale, scores, [&](std::size_t key) { return unrolled_dot(query, keys[key]); });
      softmax_row(scores, probabilities, range.begin, range.end);
      for (std::size_t c = 0; c < DV; ++c) context[c] = T{0};
      for (std::size_t j = range.begin; j < range.end; ++j) {
        const T p = probabilities[j];
        if (p == T{0}) continue;
        unrolled_axpy(context, p, values[j]);
      }
      for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += context[c];
      if constexpr (KeepWeights) {
        for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
      }
    }
  }
}

}  // namespace constant
}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_CONSTANT_HPP
