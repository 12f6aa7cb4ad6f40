// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_KERNELS_DETAIL_SIMD_HPP
#define CTATTN_KERNELS_DETAIL_SIMD_HPP

/// \file
/// The fast kernels, written once for every SIMD backend. `V` is a backend's operations (kernels/avx512.hpp,
/// avx2.hpp, neon.hpp, helium.hpp): a register type of `V::lanes` floats, loads and stores (whole and partial),
/// add, mul, fma, max, exp and reductions across lanes, plus the backend's tile sizes. Only float.
///
/// Two operations are optional, because they are shuffles some cores do cheaply and others (Helium) have no
/// instructions for: `transpose_sum(x)` (a register of sums of `lanes` registers at once; without it, one
/// reduction per register) and `transpose(x)` (a lanes x lanes block transposed in registers, for packing keys;
/// without it, the keys are packed one float at a time). Each is declared with its default in
/// kernels/detail/ops_defaults.hpp (`has_transpose_sum`, `has_transpose`) and read in one place below.
///
/// | kernel                                  | computes                                                  |
/// |-----------------------------------------|-----------------------------------------------------------|
/// | `product<V, M, N, Acc>(a, ..., c, ...)` | C (+)= A B, A read with any strides (so A^T B too)        |
/// | `product_transposed<V, M, N, K>(...)`   | C = A B^T, B given by rows (nn.Linear weights, keys)       |
/// | `softmax_row<V>(x, w, begin, end)`      | the softmax of x[begin, end) into w                        |
/// | `attend<V, W, DK, DV, NQ, NKV>(...)`    | fused attention: out += softmax(Q K^T / s + mask) V        |
///
/// Results differ from the exact kernels (kernels/scalar.hpp) by reassociated sums, fused multiply-adds and the
/// vector exp; docs/kernels.md gives the bounds that tests/backend/ checks. Non-finite inputs keep the exact
/// kernels' meaning: a row with NaN or +inf scores is handed back to the exact kernel.

#include <cstddef>
#include <limits>
#include <type_traits>

#include "ctattn/kernels/activation.hpp"
#include "ctattn/kernels/softmax_row.hpp"

namespace ctattn::detail::simd {

inline constexpr float infinity = std::numeric_limits<float>::infinity();

constexpr std::size_t round_up(std::size_t n, std::size_t step) noexcept { return (n + step - 1) / step * step; }
constexpr std::size_t round_down(std::size_t n, std::size_t step) noexcept { return n / step * step; }
constexpr std::size_t smaller(std::size_t a, std::size_t b) noexcept { return a < b ? a : b; }
constexpr std::size_t larger(std::size_t a, std::size_t b) noexcept { return a > b ? a : b; }

/// One tile of a product: C[MR][NV vectors] (+)= A[MR][depth] B[depth][NV vectors], with a(i, k) at
/// a[i * a_row + k * a_col]. The last vector has `Tail` valid lanes (0: all), for B's loads and C's loads and
/// stores; the lanes past it are neither read nor written.
// Rationale: MR x NV accumulators stay in registers for the whole depth; each step loads NV vectors of B once
// and uses each MR times, with one broadcast of A per row.
template <typename V, std::size_t MR, std::size_t NV, std::size_t Tail, bool Accumulate>
inline void product_tile(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb,
                         float* c, std::size_t ldc, std::size_t depth) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  constexpr auto is_tail = [](std::size_t vector_index) { return Tail != 0 && vector_index == NV - 1; };
  reg acc[MR][NV];
  for (std::size_t i = 0; i < MR; ++i) {
    for (std::size_t j = 0; j < NV; ++j) {
      if constexpr (Accumulate) {
        const float* c_ij = c + i * ldc + j * lanes;
        acc[i][j] = is_tail(j) ? V::load_partial(c_ij, Tail, 0.0f) : V::load(c_ij);
      } else {
        acc[i][j] = V::zero();
      }
    }
  }
  for (std::size_t k = 0; k < depth; ++k) {
    const float* b_row = b + k * ldb;
    reg b_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) {
      b_vectors[j] = is_tail(j) ? V::load_partial(b_row + j * lanes, Tail, 0.0f) : V::load(b_row + j * lanes);
    }
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_ik = V::broadcast(a[i * a_row + k * a_col]);
      for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::fma(a_ik, b_vectors[j], acc[i][j]);
    }
  }
  for (std::size_t i = 0; i < MR; ++i) {
    for (std::size_t j = 0; j < NV; ++j) {
      if (is_tail(j)) {
        V::store_partial(c + i * ldc + j * lanes, acc[i][j], Tail);
      } else {
        V::store(c + i * ldc + j * lanes, acc[i][j]);
      }
    }
  }
}

// Every row of C for one panel of NV vectors: tiles of V::tile_rows rows; where rows are left over, the last whole
// tile and the rest as two tiles of nearly equal height.
// Rationale: a tile of r rows keeps r x NV sums in flight; a short last tile (7 rows on AVX2: 6 + 1) waits on the
// FMA latency with 2 of them, and cost as much as the 6-row tile (7 x 512 x 512 at 65% of the FMA peak, measured on
// Zen 4 with AVX2). Split as 4 + 3, both tiles keep 6 or more in flight for the same loads of B. Each sum still
// adds its terms in the order of k: the same bits.
template <typename V, std::size_t M, std::size_t NV, std::size_t Tail, bool Accumulate>
inline void product_panel(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t depth) noexcept {
  constexpr std::size_t rows = V::tile_rows;
  constexpr std::size_t left = M % rows;
  constexpr std::size_t whole = left != 0 && M > rows ? M - rows - left : M - left;
  for (std::size_t i = 0; i + rows <= whole; i += rows) {
    product_tile<V, rows, NV, Tail, Accumulate>(a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, depth);
  }
  if constexpr (left != 0 && M > rows) {
    constexpr std::size_t upper = (rows + left + 1) / 2;
    constexpr std::size_t lower = rows + left - upper;
    product_tile<V, upper, NV, Tail, Accumulate>(a + whole * a_row, a_row, a_col, b, ldb, c + whole * ldc, ldc, depth);
    product_tile<V, lower, NV, Tail, Accumulate>(a + (whole + upper) * a_row, a_row, a_col, b, ldb,
                                                 c + (whole + upper) * ldc, ldc, depth);
  } else if constexpr (left != 0) {
    product_tile<V, left, NV, Tail, Accumulate>(a, a_row, a_col, b, ldb, c, ldc, depth);
  }
}

/// Vectors of B per panel for a product of M rows: the backend's tile, or, for fewer rows than a tile holds, as many
/// as fit the backend's panel registers with their sums and loaded vectors (`panel_registers`: M NV + NV of them),
/// else as many as the tile's sums allow; at most half the tile's sums in vectors.
// Rationale: a product of one or two rows (a decoding step's projection) with the tile's 2 vectors has 2 or 4
// independent sums, each waiting on the latency of the one before it, and reads B in short pieces of many rows;
// wider panels keep enough sums in flight and read B in longer runs.
template <typename V, std::size_t M>
inline constexpr std::size_t panel_vectors =
    M >= V::tile_rows ? V::tile_vectors
                      : larger(V::tile_vectors, smaller(V::panel_registers != 0 ? V::panel_registers / (M + 1)
                                                                                : V::tile_rows * V::tile_vectors / M,
                                                        V::tile_rows* V::tile_vectors / 2));

/// c (+)= a B for one row: B streamed row after row, `Rows` rows of B at a time added into c, which stays in L1.
// Rationale: one row of A (a decoding step's projection) does one multiply-add per weight, so its speed is the
// speed of reading B; reading B in its stored order, a few whole rows at a time, keeps that read one sequential
// stream, where a panel of columns jumps from row to row.
template <typename V, std::size_t N, bool Accumulate>
inline void product_row(const float* a, std::size_t a_col, const float* b, std::size_t ldb, float* c,
                        std::size_t depth) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  constexpr std::size_t rows = 4;
  constexpr std::size_t full = N / lanes * lanes;
  if constexpr (!Accumulate) {
    for (std::size_t j = 0; j < full; j += lanes) V::store(c + j, V::zero());
    if constexpr (N % lanes != 0) V::store_partial(c + full, V::zero(), N % lanes);
  }
  // Rows of B from `from` (a's entries from `a_from`) added into c, `count` of them.
  const auto add_rows = [&](const float* a_from, const float* from, auto count) {
    constexpr std::size_t r_count = decltype(count)::value;
    reg a_k[r_count];
    for (std::size_t r = 0; r < r_count; ++r) a_k[r] = V::broadcast(a_from[r * a_col]);
    for (std::size_t j = 0; j < full; j += lanes) {
      reg sum = V::load(c + j);
      for (std::size_t r = 0; r < r_count; ++r) sum = V::fma(a_k[r], V::load(from + r * ldb + j), sum);
      V::store(c + j, sum);
    }
    if constexpr (N % lanes != 0) {
      reg sum = V::load_partial(c + full, N % lanes, 0.0f);
      for (std::size_t r = 0; r < r_count; ++r) {
        sum = V::fma(a_k[r], V::load_partial(from + r * ldb + full, N % lanes, 0.0f), sum);
      }
      V::store_partial(c + full, sum, N % lanes);
    }
  };
  // Rationale: pointers that advance, not indices times strides: GCC 12 reports the index form's products as
  // overflowing at an iteration no call reaches (-Waggressive-loop-optimizations).
  const float* a_k = a;
  const float* b_k = b;
  for (std::size_t left = depth; left >= rows; left -= rows) {
    add_rows(a_k, b_k, std::integral_constant<std::size_t, rows>{});
    a_k += rows * a_col;
    b_k += rows * ldb;
  }
  for (std::size_t left = depth % rows; left > 0; --left) {
    add_rows(a_k, b_k, std::integral_constant<std::size_t, 1>{});
    a_k += a_col;
    b_k += ldb;
  }
}

/// C (+)= A B for C M x N (row stride ldc), B depth x N (row stride ldb), a(i, k) = a[i * a_row + k * a_col].
template <typename V, std::size_t M, std::size_t N, bool Accumulate>
inline void product(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, std::size_t depth) noexcept {
  if constexpr (M == 1 && N > 2 * V::tile_vectors * V::lanes) {
    product_row<V, N, Accumulate>(a, a_col, b, ldb, c, depth);
    return;
  }
  constexpr std::size_t lanes = V::lanes;
  constexpr std::size_t vectors = panel_vectors<V, M>;
  constexpr std::size_t panel = vectors * lanes;
  constexpr std::size_t full = N / panel * panel;
  for (std::size_t j = 0; j < full; j += panel) {
    product_panel<V, M, vectors, 0, Accumulate>(a, a_row, a_col, b + j, ldb, c + j, ldc, depth);
  }
  if constexpr (N % panel != 0) {
    constexpr std::size_t rest = N % panel;
    product_panel<V, M, (rest + lanes - 1) / lanes, rest % lanes, Accumulate>(a, a_row, a_col, b + full, ldb, c + full,
                                                                              ldc, depth);
  }
}

/// sums[l] = the sum of the lanes of x[l], for `lanes` registers at once: the backend's `transpose_sum` (a tree of
/// shuffles and adds, a few operations per sum) where it has one, else one reduction per register.
template <typename V>
inline typename V::reg transpose_sum(const typename V::reg (&x)[V::lanes]) noexcept {
  if constexpr (V::has_transpose_sum) {
    return V::transpose_sum(x);
  } else {
    float sums[V::lanes];
    for (std::size_t l = 0; l < V::lanes; ++l) sums[l] = V::reduce_add(x[l]);
    return V::load(sums);
  }
}

/// One tile of C = A B^T: MR rows of A against NR rows of B, each a dot product over K summed in vectors and
/// reduced across lanes at the end: when MR x NR is a multiple of the lanes, `lanes` sums at a time by
/// `transpose_sum`.
template <typename V, std::size_t MR, std::size_t NR, std::size_t K>
inline void dot_tile(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                     std::size_t ldc) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  reg acc[MR * NR];
  // Rationale: the loops over the tile's registers unrolled whatever the optimization level: at -Os Clang 14 leaves
  // them rolled, and the accumulators then live in memory (zeroed by memset, loaded and stored around each
  // multiply-add): a decoding step of the tiny llama on Helium took 2.9x the instructions of -O2.
#pragma GCC unroll 32
  for (std::size_t e = 0; e < MR * NR; ++e) acc[e] = V::zero();
  constexpr std::size_t full = K / lanes * lanes;
  for (std::size_t k = 0; k < full; k += lanes) {
    reg b_vectors[NR];
#pragma GCC unroll 32
    for (std::size_t r = 0; r < NR; ++r) b_vectors[r] = V::load(b + r * ldb + k);
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_vector = V::load(a + i * lda + k);
#pragma GCC unroll 32
      for (std::size_t r = 0; r < NR; ++r) acc[i * NR + r] = V::fma(a_vector, b_vectors[r], acc[i * NR + r]);
    }
  }
  if constexpr (K % lanes != 0) {
    reg b_vectors[NR];
#pragma GCC unroll 32
    for (std::size_t r = 0; r < NR; ++r) b_vectors[r] = V::load_partial(b + r * ldb + full, K % lanes, 0.0f);
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_vector = V::load_partial(a + i * lda + full, K % lanes, 0.0f);
#pragma GCC unroll 32
      for (std::size_t r = 0; r < NR; ++r) acc[i * NR + r] = V::fma(a_vector, b_vectors[r], acc[i * NR + r]);
    }
  }
  if constexpr (MR * NR % lanes == 0) {
#pragma GCC unroll 32
    for (std::size_t group = 0; group < MR * NR; group += lanes) {
      reg part[lanes];
#pragma GCC unroll 32
      for (std::size_t l = 0; l < lanes; ++l) part[l] = acc[group + l];
      float sums[lanes];
      V::store(sums, transpose_sum<V>(part));
#pragma GCC unroll 32
      for (std::size_t l = 0; l < lanes; ++l) c[(group + l) / NR * ldc + (group + l) % NR] = sums[l];
    }
  } else {
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i) {
#pragma GCC unroll 32
      for (std::size_t r = 0; r < NR; ++r) c[i * ldc + r] = V::reduce_add(acc[i * NR + r]);
    }
  }
}

template <typename V, std::size_t MR, std::size_t NR, std::size_t N, std::size_t K>
inline void dot_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                     std::size_t ldc) noexcept {
  for (std::size_t r = 0; r + NR <= N; r += NR) dot_tile<V, MR, NR, K>(a, lda, b + r * ldb, ldb, c + r, ldc);
  if constexpr (N % NR != 0) {
    constexpr std::size_t r = N - N % NR;
    dot_tile<V, MR, N % NR, K>(a, lda, b + r * ldb, ldb, c + r, ldc);
  }
}

/// C = A B^T for A M x K, B N x K (rows), C M x N.
// Rationale: up to tile_rows rows of A form one tile, so that every row of B is read from memory once (a
// projection of a few tokens streams its weights, which is what limits it); its sums are reduced one at a time,
// which K long enough to be memory-bound pays for. More rows go in tiles of dot_tile_rows x dot_rows, whose sums
// transpose_sum reduces a register at a time: with a head's K of 16 or 64 the reductions would otherwise cost
// more than the multiply-adds.
template <typename V, std::size_t M, std::size_t N, std::size_t K>
inline void product_transposed(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                               std::size_t ldc) noexcept {
  if constexpr (M <= V::tile_rows) {
    // Rationale: one row (a decoding step) reads each row of B once and nothing else, so B's rows are taken a few
    // at a time (8; 4 for short rows, whose reductions weigh more), which keeps the read close to one stream; 18
    // rows at once measured 2.5x slower at 512 x 512 on AVX-512.
    constexpr std::size_t nr =
        M == 1 ? (K >= 256 ? 8 : 4) : larger(1, smaller(V::tile_rows * V::tile_vectors + V::tile_vectors, 24) / M);
    dot_rows<V, M, nr, N, K>(a, lda, b, ldb, c, ldc);
  } else {
    constexpr std::size_t mr = V::dot_tile_rows;
    constexpr std::size_t nr = V::dot_rows;
    for (std::size_t i = 0; i + mr <= M; i += mr) dot_rows<V, mr, nr, N, K>(a + i * lda, lda, b, ldb, c + i * ldc, ldc);
    if constexpr (M % mr != 0) {
      constexpr std::size_t i = M - M % mr;
      dot_rows<V, M % mr, nr, N, K>(a + i * lda, lda, b, ldb, c + i * ldc, ldc);
    }
  }
}

/// x[0, n) *= s.
template <typename V>
inline void scale(float* x, std::size_t n, float s) noexcept {
  const typename V::reg factor = V::broadcast(s);
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) V::store(x + j, V::mul(V::load(x + j), factor));
  if (j < n) V::store_partial(x + j, V::mul(V::load_partial(x + j, n - j, 0.0f), factor), n - j);
}

/// The largest of x[0, n), or -inf for n = 0 (NaN entries may or may not be seen).
template <typename V>
inline float largest(const float* x, std::size_t n) noexcept {
  typename V::reg m = V::broadcast(-infinity);
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) m = V::max(m, V::load(x + j));
  if (j < n) m = V::max(m, V::load_partial(x + j, n - j, -infinity));
  return V::reduce_max(m);
}

/// w[j] = e^(x[j] - m) for j in [0, n); returns their sum (NaN when an x is NaN).
template <typename V>
inline float exp_shifted(const float* x, float* w, std::size_t n, float m) noexcept {
  const typename V::reg minus_m = V::broadcast(-m);
  typename V::reg sum = V::zero();
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) {
    const typename V::reg e = V::exp(V::add(V::load(x + j), minus_m));
    V::store(w + j, e);
    sum = V::add(sum, e);
  }
  if (j < n) {
    const typename V::reg e = V::exp(V::add(V::load_partial(x + j, n - j, -infinity), minus_m));
    V::store_partial(w + j, e, n - j);
    sum = V::add(sum, e);
  }
  return V::reduce_add(sum);
}

/// e^x for one float, by the backend's vector exp.
template <typename V>
inline float exp_one(float x) noexcept {
  float result = 0.0f;
  V::store_partial(&result, V::exp(V::broadcast(x)), 1);
  return result;
}

/// The softmax of x[begin, end) into w[begin, end), with the meaning of kernels/softmax_row.hpp: -inf entries get
/// 0, a row with nothing above -inf gets zeros; rows with +inf or NaN go to the exact kernel.
template <typename V>
inline void softmax_row(const float* x, float* w, std::size_t begin, std::size_t end) noexcept {
  if (begin >= end) return;
  const std::size_t n = end - begin;
  const float m = largest<V>(x + begin, n);
  if (m == -infinity) {
    for (std::size_t j = begin; j < end; ++j) w[j] = 0.0f;
    return;
  }
  if (m == infinity || m != m) {
    detail::softmax_row(x, w, begin, end);
    return;
  }
  const float sum = exp_shifted<V>(x + begin, w + begin, n, m);
  if (sum != sum) {
    detail::softmax_row(x, w, begin, end);
    return;
  }
  scale<V>(w + begin, n, 1.0f / sum);
}

/// Fused attention of one head: out[i][0, DV) += softmax_j(q_i . k_j / scale + mask(i, j)) v_j for every query i,
/// without the n_q x n_kv score matrix. Q is NQ x DK (row stride ldq), K NKV x DK, V NKV x DV, out NQ x DV; the
/// output must hold +0. `weights` (NQ x NKV, contiguous) receives the weights when KeepWeights. `redo_row(i)`
/// recomputes row i with the exact kernel (for NaN and +inf scores).
// Rationale: keys are taken in chunks whose transposed copy (DK x chunk floats) fits the backend's key buffer;
// each chunk is packed once, so that a score tile is a plain product (queries broadcast, keys in vectors). For each
// block of tile_rows queries the kernel scores only the keys the block's mask ranges reach (a sliding window
// costs O(r N)), takes e^(s - running max), rescales the output row when the max rises (online softmax), and adds
// P V with the product tile. At the end each row is divided by its sum. One chunk covers n_kv up to 256 at
// d_k = 64, so the common case never rescales.
template <typename V, bool KeepWeights, std::size_t DK, std::size_t DV, std::size_t NQ, std::size_t NKV>
struct attention_kernel {
  static constexpr std::size_t lanes = V::lanes;
  static constexpr std::size_t block = V::tile_rows;
  // At most 512 keys, so that the score block stays small when d_k is.
  static constexpr std::size_t chunk =
      smaller(round_up(NKV, lanes), larger(lanes, round_down(smaller(512, V::key_buffer_floats / DK), lanes)));

  const float* q;
  std::size_t ldq;
  const float* k;
  std::size_t ldk;
  const float* v;
  std::size_t ldv;
  float* out;
  std::size_t ldo;
  float* weights;
  float inv_scale;

  float packed_keys[DK * chunk];
  float query_block[block * DK];
  float scores[block * chunk];
  float row_max[NQ];
  float row_sum[NQ];
  bool special[NQ];

  // packed_keys[c][j] = k[kc + j][c] for j < len; the columns up to the next whole vector are 0.
  // Rationale: where the backend transposes a lanes x lanes block in registers, whole blocks go that way (about a
  // tenth of the cost of moving the floats one by one); the rest, and backends without `transpose`, one by one.
  void pack(std::size_t kc, std::size_t len) noexcept {
    if (len % lanes != 0) {
      for (std::size_t c = 0; c < DK; ++c) V::store(packed_keys + c * chunk + round_down(len, lanes), V::zero());
    }
    std::size_t whole_keys = 0;
    constexpr std::size_t whole_columns = round_down(DK, lanes);
    if constexpr (V::has_transpose) {
      whole_keys = round_down(len, lanes);
      typename V::reg square[lanes];
      for (std::size_t j = 0; j < whole_keys; j += lanes) {
        for (std::size_t c = 0; c < whole_columns; c += lanes) {
          for (std::size_t r = 0; r < lanes; ++r) square[r] = V::load(k + (kc + j + r) * ldk + c);
          V::transpose(square);
          for (std::size_t r = 0; r < lanes; ++r) V::store(packed_keys + (c + r) * chunk + j, square[r]);
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      const float* key = k + (kc + j) * ldk;
      const std::size_t first_column = j < whole_keys ? whole_columns : 0;
      for (std::size_t c = first_column; c < DK; ++c) packed_keys[c * chunk + j] = key[c];
    }
  }

  // scores[r][cs, ce) = (q_(r0 + r) / scale) . packed_keys[.][cs, ce) for Rows rows; ce - cs is a multiple of
  // lanes.
  // Rationale: the block's queries are copied, divided by the scale, into query_block, whose row stride is a
  // constant. The tile then broadcasts from one pointer at fixed offsets; with Q's run-time stride GCC kept the
  // eight row offsets in vector registers and moved one back for every broadcast, and the scores took a pass of
  // their own for the scale. Together: 5-9% of attention's time at (128, 128) and (256, 64) on Zen 4.
  template <std::size_t Rows>
  void score(std::size_t r0, std::size_t cs, std::size_t ce) noexcept {
    constexpr std::size_t panel = V::tile_vectors * lanes;
    const typename V::reg factor = V::broadcast(inv_scale);
    for (std::size_t r = 0; r < Rows; ++r) {
      const float* from = q + (r0 + r) * ldq;
      float* to = query_block + r * DK;
      std::size_t c = 0;
      for (; c + lanes <= DK; c += lanes) V::store(to + c, V::mul(V::load(from + c), factor));
      if (c < DK) V::store_partial(to + c, V::mul(V::load_partial(from + c, DK - c, 0.0f), factor), DK - c);
    }
    const float* a = query_block;
    std::size_t j = cs;
    for (; j + panel <= ce; j += panel) {
      product_tile<V, Rows, V::tile_vectors, 0, false>(a, DK, 1, packed_keys + j, chunk, scores + j, chunk, DK);
    }
    score_rest<Rows, V::tile_vectors - 1>(a, j, (ce - j) / lanes);
  }
  template <std::size_t Rows, std::size_t NV>
  void score_rest(const float* a, std::size_t j, std::size_t vectors) noexcept {
    if constexpr (NV > 0) {
      if (vectors == NV) {
        product_tile<V, Rows, NV, 0, false>(a, DK, 1, packed_keys + j, chunk, scores + j, chunk, DK);
      } else {
        score_rest<Rows, NV - 1>(a, j, vectors);
      }
    }
  }

  template <typename Mask>
  void run(const Mask& mask) noexcept {
    for (std::size_t i = 0; i < NQ; ++i) {
      row_max[i] = -infinity;
      row_sum[i] = 0.0f;
      special[i] = false;
    }
    if constexpr (KeepWeights) {
      for (std::size_t e = 0; e < NQ * NKV; ++e) weights[e] = -infinity;
    }
    for (std::size_t kc = 0; kc < NKV; kc += chunk) {
      const std::size_t len = smaller(chunk, NKV - kc);
      pack(kc, len);
      if constexpr (NQ >= block) {
        for (std::size_t r0 = 0; r0 + block <= NQ; r0 += block) run_block<block>(mask, r0, kc, len);
      }
      if constexpr (NQ % block != 0) run_block<NQ % block>(mask, NQ - NQ % block, kc, len);
    }
    if constexpr (KeepWeights) {
      for (std::size_t i = 0; i < NQ; ++i) softmax_row<V>(weights + i * NKV, weights + i * NKV, 0, NKV);
      product<V, NQ, DV, true>(weights, NKV, 1, v, ldv, out, ldo, NKV);
    }
  }

  template <std::size_t Rows, typename Mask>
  void run_block(const Mask& mask, std::size_t r0, std::size_t kc, std::size_t len) noexcept {
    // The keys of this chunk that any query of the block may see.
    std::size_t lo = kc + len;
    std::size_t hi = kc;
    for (std::size_t r = 0; r < Rows; ++r) {
      const auto range = mask.keys(r0 + r, NQ, NKV);
      if (range.begin >= range.end) continue;
      lo = smaller(lo, larger(range.begin, kc));
      hi = larger(hi, smaller(range.end, kc + len));
    }
    if (lo >= hi) return;
    const std::size_t cs = round_down(lo - kc, lanes);
    const std::size_t ce = round_up(hi - kc, lanes);
    score<Rows>(r0, cs, ce);
    // Rationale: each step runs over the block's rows before the next step starts, so that the rows' independent
    // chains of reductions and exps overlap in the core instead of waiting for one another.
    float chunk_max[Rows];
    for (std::size_t r = 0; r < Rows; ++r) {
      chunk_max[r] = mask_scores(mask, r0 + r, scores + r * chunk, kc, cs, ce, len);
    }
    if constexpr (!KeepWeights) {
      float sums[Rows];
      float new_max[Rows];
      for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t i = r0 + r;
        new_max[r] = chunk_max[r] > row_max[i] ? chunk_max[r] : row_max[i];
        // A +inf or NaN score makes the sum NaN: the row is then the exact kernel's (finish). A row that sees no
        // key of this chunk (max -inf) gets weights 0.
        sums[r] = chunk_max[r] == -infinity ? 0.0f : std::numeric_limits<float>::quiet_NaN();
        if (chunk_max[r] != -infinity && new_max[r] != infinity && chunk_max[r] == chunk_max[r]) {
          sums[r] = exp_shifted<V>(scores + r * chunk + cs, scores + r * chunk + cs, ce - cs, new_max[r]);
        }
      }
      for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t i = r0 + r;
        float* row = scores + r * chunk;
        if (chunk_max[r] == -infinity || sums[r] != sums[r]) {
          if (sums[r] != sums[r]) special[i] = true;
          for (std::size_t j = cs; j < ce; ++j) row[j] = 0.0f;
          continue;
        }
        if (new_max[r] > row_max[i] && row_max[i] != -infinity) {
          const float alpha = exp_one<V>(row_max[i] - new_max[r]);
          scale<V>(out + i * ldo, DV, alpha);
          row_sum[i] *= alpha;
        }
        row_max[i] = new_max[r];
        row_sum[i] += sums[r];
      }
      product<V, Rows, DV, true>(scores + cs, chunk, 1, v + (kc + cs) * ldv, ldv, out + r0 * ldo, ldo,
                                 smaller(ce, len) - cs);
    }
  }

  // Row i's scores in [cs, ce), already divided by the scale (score): masked (-inf where the row does not look);
  // with KeepWeights also copied into the weights. Returns their largest, -inf for a row that sees no key here or
  // was handed to the exact kernel.
  template <typename Mask>
  float mask_scores(const Mask& mask, std::size_t i, float* row, std::size_t kc, std::size_t cs, std::size_t ce,
                    std::size_t len) noexcept {
    const auto range = mask.keys(i, NQ, NKV);
    const std::size_t begin = larger(range.begin, kc + cs) - kc;
    const std::size_t end = range.end > kc ? smaller(range.end - kc, smaller(ce, len)) : 0;
    if (begin >= end || special[i]) return -infinity;
    for (std::size_t j = cs; j < begin; ++j) row[j] = -infinity;
    for (std::size_t j = end; j < ce; ++j) row[j] = -infinity;
    if constexpr (Mask::checks_each_key || Mask::adds_bias) {
      for (std::size_t j = begin; j < end; ++j) {
        if constexpr (Mask::checks_each_key) {
          if (!mask.allowed(i, kc + j)) {
            row[j] = -infinity;
            continue;
          }
        }
        if constexpr (Mask::adds_bias) row[j] += mask.template bias<float>(i, kc + j);
      }
    }
    if constexpr (KeepWeights) {
      for (std::size_t j = begin; j < end; ++j) weights[i * NKV + kc + j] = row[j];
      return -infinity;
    } else {
      return largest<V>(row + cs, ce - cs);
    }
  }

  template <typename RedoRow>
  void finish(const RedoRow& redo_row) noexcept {
    if constexpr (!KeepWeights) {
      for (std::size_t i = 0; i < NQ; ++i) {
        if (special[i]) {
          redo_row(i);
        } else if (row_sum[i] > 0.0f) {
          scale<V>(out + i * ldo, DV, 1.0f / row_sum[i]);
        }
      }
    } else {
      (void)redo_row;
    }
  }
};

template <typename V, bool KeepWeights, std::size_t DK, std::size_t DV, std::size_t NQ, std::size_t NKV, typename Mask,
          typename RedoRow>
inline void attend(const float* q, std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                   const Mask& mask, float* out, std::size_t ldo, float* weights, float scale,
                   const RedoRow& redo_row) noexcept {
  attention_kernel<V, KeepWeights, DK, DV, NQ, NKV> kernel;
  kernel.q = q;
  kernel.ldq = ldq;
  kernel.k = k;
  kernel.ldk = ldk;
  kernel.v = v;
  kernel.ldv = ldv;
  kernel.out = out;
  kernel.ldo = ldo;
  kernel.weights = weights;
  kernel.inv_scale = 1.0f / scale;
  kernel.run(mask);
  kernel.finish(redo_row);
}

/// |x| as max(x, -x).
template <typename V>
inline typename V::reg magnitude(typename V::reg x) noexcept {
  return V::max(x, V::mul(x, V::broadcast(-1.0f)));
}

// GELU's erfc: erfc(z) = t e^(-z^2 + P(t)) with t = 1 / (1 + z / 2), for z >= 0. P is a degree-9 polynomial fitted
// by least squares in Chebyshev nodes of t in (0, 1] (z from 0 to infinity) to log(erfc(z) / t) + z^2; in exact
// arithmetic it puts GELU within 1.2e-8 (1 + |GELU|) of its true value for every x.
inline constexpr float gelu_erfc_coefficients[10] = {-1.2655117751f,  1.0000286917f,  0.37384115855f, 0.099322040125f,
                                                     -0.19842694442f, 0.31139802182f, -1.1867860905f, 1.5365931263f,
                                                     -0.84650490120f, 0.17604675225f};

/// The activation F of a register of floats, fast (kernels/activation.hpp gives the exact meaning; finite x only):
///   relu       max(x, 0)
///   gelu       max(x, 0) - a h(a) with a = min(|x|, 16) and h(a) = erfc(a / sqrt 2) / 2 (x Phi(x) for either sign;
///              beyond 16, h is below 1e-57 and GELU is max(x, 0))
///   gelu_tanh  x / (1 + e^(-2 u)), u = sqrt(2/pi) (x + 0.044715 x^3) (as (1 + tanh u) / 2 = 1 / (1 + e^(-2 u)))
///   silu       x / (1 + e^-x)
template <typename V, kernels::activation F>
inline typename V::reg activate(typename V::reg x) noexcept {
  using reg = typename V::reg;
  const reg one = V::broadcast(1.0f);
  if constexpr (F == kernels::activation::relu) {
    return V::max(x, V::zero());
  } else if constexpr (F == kernels::activation::gelu) {
    const reg minus_a = V::max(V::mul(magnitude<V>(x), V::broadcast(-1.0f)), V::broadcast(-16.0f));
    const reg z = V::mul(minus_a, V::broadcast(-0.70710678118654752f));
    const reg t = V::div(one, V::fma(z, V::broadcast(0.5f), one));
    reg p = V::broadcast(gelu_erfc_coefficients[9]);
    for (std::size_t k = 9; k-- > 0;) p = V::fma(p, t, V::broadcast(gelu_erfc_coefficients[k]));
    const reg minus_z_squared = V::mul(V::mul(z, z), V::broadcast(-1.0f));
    const reg h = V::mul(V::mul(V::broadcast(0.5f), t), V::exp(V::add(minus_z_squared, p)));
    return V::fma(minus_a, h, V::max(x, V::zero()));
  } else if constexpr (F == kernels::activation::gelu_tanh) {
    const reg x_squared = V::mul(x, x);
    const reg cubic = V::mul(x_squared, V::broadcast(0.044715f));
    const reg u = V::mul(V::broadcast(0.79788456080286535588f), V::fma(cubic, x, x));
    return V::div(x, V::add(one, V::exp(V::mul(u, V::broadcast(-2.0f)))));
  } else {
    return V::div(x, V::add(one, V::exp(V::mul(x, V::broadcast(-1.0f)))));
  }
}

/// y[0, n) = the activation F of x[0, n), fast. False, with nothing kept, when an x is infinite or NaN: the
/// caller then computes the exact activation, which gives those their meaning.
template <typename V, kernels::activation F>
inline bool activate_all(const float* x, float* y, std::size_t n) noexcept {
  // x * 0 is NaN exactly for infinite and NaN x; their sum finds one.
  typename V::reg finite = V::zero();
  const typename V::reg zero = V::zero();
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) {
    const typename V::reg v = V::load(x + j);
    finite = V::fma(v, zero, finite);
    V::store(y + j, activate<V, F>(v));
  }
  if (j < n) {
    const typename V::reg v = V::load_partial(x + j, n - j, 0.0f);
    finite = V::fma(v, zero, finite);
    V::store_partial(y + j, activate<V, F>(v), n - j);
  }
  return V::reduce_add(finite) == 0.0f;
}

/// The sum of x[0, n) + c: across lanes, the last n % lanes entries one by one.
template <typename V>
inline float shifted_sum(const float* x, std::size_t n, float c) noexcept {
  const typename V::reg shift = V::broadcast(c);
  typename V::reg sum = V::zero();
  // Rationale: the vector loop runs to n less its remainder, a bound of its own: with `j + lanes <= n`, GCC 12 for
  // AArch64 inlined into a row of known width warned of undefined behaviour in the tail loop that never runs.
  const std::size_t body = n - n % V::lanes;
  std::size_t j = 0;
  for (; j < body; j += V::lanes) sum = V::add(sum, V::add(V::load(x + j), shift));
  float total = V::reduce_add(sum);
  for (; j < n; ++j) total += x[j] + c;
  return total;
}

/// The sum of ((x[0, n) + c) + d)^2 (two shifts, each rounded: the offsets of LayerNorm, then their deviations).
template <typename V>
inline float shifted_squares(const float* x, std::size_t n, float c, float d) noexcept {
  const typename V::reg first = V::broadcast(c);
  const typename V::reg second = V::broadcast(d);
  typename V::reg sum = V::zero();
  const std::size_t body = n - n % V::lanes;  // as in shifted_sum
  std::size_t j = 0;
  for (; j < body; j += V::lanes) {
    const typename V::reg v = V::add(V::add(V::load(x + j), first), second);
    sum = V::fma(v, v, sum);
  }
  float total = V::reduce_add(sum);
  for (; j < n; ++j) {
    const float v = (x[j] + c) + d;
    total += v * v;
  }
  return total;
}

/// y[0, n) = ((x + c) + d) s (* weight) (+ bias).
template <typename V, bool Affine, bool Bias>
inline void shift_scale(const float* x, float* y, std::size_t n, float c, float d, float s, const float* weight,
                        const float* bias) noexcept {
  using reg = typename V::reg;
  const reg first = V::broadcast(c);
  const reg second = V::broadcast(d);
  const reg scale = V::broadcast(s);
  const std::size_t body = n - n % V::lanes;  // as in shifted_sum
  std::size_t j = 0;
  for (; j < body; j += V::lanes) {
    reg v = V::mul(V::add(V::add(V::load(x + j), first), second), scale);
    if constexpr (Affine) v = V::mul(v, V::load(weight + j));
    if constexpr (Bias) v = V::add(v, V::load(bias + j));
    V::store(y + j, v);
  }
  for (; j < n; ++j) {
    float v = ((x[j] + c) + d) * s;
    if constexpr (Affine) v = v * weight[j];
    if constexpr (Bias) v = v + bias[j];
    y[j] = v;
  }
}

/// One row of LayerNorm (kernels::layer_norm_row's steps: offsets from the first entry, their mean, the mean of
/// squared deviations, one scale per row), fast: sums across lanes, fused multiply-adds. False, with y
/// unspecified, when a sum is not finite (an infinite or NaN entry, or an overflow): the caller then computes the
/// exact row, which gives those their meaning.
template <typename V, bool Affine, bool Bias>
inline bool layer_norm_row(const float* x, float* y, std::size_t n, const float* weight, const float* bias,
                           float eps) noexcept {
  const float shift = x[0];
  const float mean = shifted_sum<V>(x, n, -shift) / static_cast<float>(n);
  const float squares = shifted_squares<V>(x, n, -shift, -mean);
  if (!(squares - squares == 0.0f)) return false;
  const float scale = 1.0f / math::sqrt(squares / static_cast<float>(n) + eps);
  shift_scale<V, Affine, Bias>(x, y, n, -shift, -mean, scale, weight, bias);
  return true;
}

/// One row of RMSNorm, fast; false when the sum of squares is not finite (as layer_norm_row).
template <typename V, bool Affine>
inline bool rms_norm_row(const float* x, float* y, std::size_t n, const float* weight, float eps) noexcept {
  const float squares = shifted_squares<V>(x, n, 0.0f, 0.0f);
  if (!(squares - squares == 0.0f)) return false;
  const float scale = 1.0f / math::sqrt(squares / static_cast<float>(n) + eps);
  shift_scale<V, Affine, false>(x, y, n, 0.0f, 0.0f, scale, weight, weight);
  return true;
}

}  // namespace ctattn::detail::simd

#endif  // CTATTN_KERNELS_DETAIL_SIMD_HPP
