// Run-time speed of attention on one core, float32: ctattn's public API (writing into caller storage) against a
// naive triple loop in plain C++ and against Eigen 3.4 fixed-size matrices, all three doing the same work on the
// same numbers. The core's FP32 FMA peak and its read bandwidth are measured in the same run, so that every time
// reads as a fraction of what the machine can do.
//
//   single-head attention softmax(Q K^T / sqrt(d)) V, n_q = n_kv = n, d_k = d_v = d    4 n^2 d flops
//   multi-head self-attention x, x, x with biases, PyTorch layout (y = x W^T + b)      8 n d_model^2 + 4 n^2 d_model
//
// The flops are the multiplies and adds of the matrix products (softmax, scaling and biases not counted), the same
// nominal figure for the three implementations. After Google Benchmark's own output the program prints a Markdown
// table of medians (11 repetitions unless --benchmark_repetitions says otherwise). benchmarks/attention_speed.sh
// builds and runs it; CTATTN_BENCH_ARCH_FLAGS (default -march=native) picks the target.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "ctattn/ctattn.hpp"

namespace {
using ctattn_bench::fill;
using ctattn_bench::float_vector;
using ctattn_bench::fma_chains;
using ctattn_bench::fma_flops_per_iteration;
using ctattn_bench::fma_peak;
using ctattn_bench::format_number;
using ctattn_bench::format_time;
using ctattn_bench::instance;
using ctattn_bench::median_times;
using ctattn_bench::register_kernel;
using ctattn_bench::vector_lanes;
using ctattn_bench::vector_name;

// ---------------------------------------------------------------------------------------------------------------
// Operands

// Every implementation fills its own copy of an operand from the operand's seed, in row-major order, so the three
// compute on the same numbers.

// Eigen refuses a fixed-size object above EIGEN_STACK_ALLOCATION_LIMIT bytes (128 KiB by default), even one in
// static storage. Such an operand is a dynamic matrix here, sized once before timing (see `shape`), so that the
// timed loop allocates nothing for it: the 256 x 256 scores and the 512 x 512 weights.
template <std::size_t Rows, std::size_t Cols>
using eigen_matrix =
    std::conditional_t<Rows * Cols * sizeof(float) <= EIGEN_STACK_ALLOCATION_LIMIT,
                       Eigen::Matrix<float, static_cast<int>(Rows), static_cast<int>(Cols), Eigen::RowMajor>,
                       Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

template <typename M>
inline constexpr bool is_dynamic = M::SizeAtCompileTime == Eigen::Dynamic;

template <typename M>
void shape(M& m, std::size_t rows, std::size_t cols) {
  if constexpr (is_dynamic<M>) m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
}

// ---------------------------------------------------------------------------------------------------------------
// The naive implementation: loops as a textbook writes them

// softmax(Q K^T / sqrt(D)) V for one head: a row of scores, its stable softmax with std::exp, then the weighted sum
// of the value rows. The strides let multi-head attention pass one head's columns.
template <std::size_t NQ, std::size_t NKV, std::size_t D>
void naive_attention(const float* q, std::size_t q_stride, const float* k, std::size_t k_stride, const float* v,
                     std::size_t v_stride, float* out, std::size_t out_stride) {
  const float divisor = std::sqrt(static_cast<float>(D));
  float weights[NKV];
  for (std::size_t i = 0; i < NQ; ++i) {
    const float* q_row = q + i * q_stride;
    float row_max = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < NKV; ++j) {
      const float* k_row = k + j * k_stride;
      float dot = 0.0f;
      for (std::size_t c = 0; c < D; ++c) dot += q_row[c] * k_row[c];
      weights[j] = dot / divisor;
      row_max = std::max(row_max, weights[j]);
    }
    float total = 0.0f;
    for (std::size_t j = 0; j < NKV; ++j) {
      weights[j] = std::exp(weights[j] - row_max);
      total += weights[j];
    }
    float* out_row = out + i * out_stride;
    for (std::size_t c = 0; c < D; ++c) out_row[c] = 0.0f;
    for (std::size_t j = 0; j < NKV; ++j) {
      const float p = weights[j] / total;
      const float* v_row = v + j * v_stride;
      for (std::size_t c = 0; c < D; ++c) out_row[c] += p * v_row[c];
    }
  }
}

// y = x W^T + b with W stored out x in (PyTorch's nn.Linear).
template <std::size_t N, std::size_t In, std::size_t Out>
void naive_linear(const float (&x)[N][In], const float (&w)[Out][In], const float (&b)[Out], float (&y)[N][Out]) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t o = 0; o < Out; ++o) {
      float acc = 0.0f;
      for (std::size_t c = 0; c < In; ++c) acc += x[i][c] * w[o][c];
      y[i][o] = acc + b[o];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The Eigen implementation

// One head on Eigen expressions (matrices or column blocks of them): scores = Q K^T / sqrt(d), softmax by rows
// with the row maximum subtracted, out = weights V. Each row's maximum and sum go to a vector first: a partial
// reduction is lazy in Eigen, and reading it while `scores` changes would read changed values.
template <typename Q, typename K, typename V, typename Scores, typename Out>
void eigen_attention(const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v,
                     Scores& scores, Out&& out) {
  using column = Eigen::Matrix<float, Q::RowsAtCompileTime, 1>;
  const float divisor = std::sqrt(static_cast<float>(Q::ColsAtCompileTime));
  scores.noalias() = q * k.transpose();
  scores /= divisor;
  const column row_max = scores.rowwise().maxCoeff();
  scores.array() = (scores.colwise() - row_max).array().exp();
  const column row_sum = scores.rowwise().sum();
  scores.array().colwise() /= row_sum.array();
  out.noalias() = scores * v;
}

// ---------------------------------------------------------------------------------------------------------------
// The cases: each holds the operands of all three implementations

// Single-head attention at n x d.
template <std::size_t N, std::size_t D>
struct attention_case {
  static constexpr double flops = 4.0 * static_cast<double>(N * N * D);
  static constexpr std::size_t output_size = N * D;
  static constexpr const char* eigen_note = is_dynamic<eigen_matrix<N, N>> ? "Eigen: dynamic scores" : "";

  ctattn::matrix<float, N, D> q, k, v, out;

  struct plain_storage {
    float q[N][D], k[N][D], v[N][D], out[N][D];
  } plain;

  eigen_matrix<N, D> eigen_q, eigen_k, eigen_v, eigen_out;
  eigen_matrix<N, N> eigen_scores;

  void prepare() {
    shape(eigen_scores, N, N);
    for (auto [seed, a, b, c] : {std::tuple{11u, q.data(), &plain.q[0][0], eigen_q.data()},
                                 std::tuple{12u, k.data(), &plain.k[0][0], eigen_k.data()},
                                 std::tuple{13u, v.data(), &plain.v[0][0], eigen_v.data()}}) {
      fill(a, N * D, seed, 1.0f);
      fill(b, N * D, seed, 1.0f);
      fill(c, N * D, seed, 1.0f);
    }
  }
  void run_ctattn() { ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(out)); }
  void run_exact() { ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(out), ctattn::exact_arithmetic); }

  // The same attention in int8: Q, K, V (uniform in [-1, 1)) quantized over [-1, 1]; the scores Q K^T / sqrt(d),
  // of standard deviation 1/3 here, over [-2, 2]; the output, an average of values, over [-1, 1].
  static constexpr ctattn::quantization int8_input = ctattn::quantization_for_range(-1.0, 1.0);
  static constexpr ctattn::quantization int8_scores = ctattn::quantization_for_range(-2.0, 2.0);
  static constexpr ctattn::quantization int8_output = ctattn::quantization_for_range(-1.0, 1.0);
  ctattn::qmatrix<N, D, int8_input> q8, k8, v8;
  ctattn::qmatrix<N, D, int8_output> out8;
  void prepare_int8() {
    q8 = ctattn::quantize<int8_input>(q);
    k8 = ctattn::quantize<int8_input>(k);
    v8 = ctattn::quantize<int8_input>(v);
  }
  void run_int8() { out8 = ctattn::scaled_dot_product_attention<int8_scores, int8_output>(q8, k8, v8); }
  // The largest |dequantized int8 output - float output| (the float output must be computed first).
  float int8_difference() const {
    float worst = 0.0f;
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < D; ++j) {
        worst = std::fmax(worst, std::fabs(static_cast<float>(out8.real(i, j)) - out(i, j)));
      }
    }
    return worst;
  }

  void run_naive() {
    naive_attention<N, N, D>(&plain.q[0][0], D, &plain.k[0][0], D, &plain.v[0][0], D, &plain.out[0][0], D);
  }
  void run_eigen() { eigen_attention(eigen_q, eigen_k, eigen_v, eigen_scores, eigen_out); }

  const float* ctattn_output() const { return out.data(); }
  const float* naive_output() const { return &plain.out[0][0]; }
  const float* eigen_output() const { return eigen_out.data(); }
};

// Multi-head self-attention of N tokens of width E with H heads, biases, PyTorch's out x in weights.
template <std::size_t N, std::size_t E, std::size_t H>
struct multi_head_case {
  static constexpr std::size_t head_dim = E / H;
  static constexpr double flops = 8.0 * static_cast<double>(N * E * E) + 4.0 * static_cast<double>(N * N * E);
  static constexpr std::size_t output_size = N * E;
  static constexpr const char* eigen_note = is_dynamic<eigen_matrix<E, E>> ? "Eigen: dynamic weights" : "";

  using tokens = ctattn::matrix<float, N, E>;
  using weights = ctattn::multi_head_attention_weights<float, H, E, ctattn::out_by_in, true>;
  tokens x, y;
  weights w;
  ctattn::multi_head_workspace<tokens, tokens, weights> workspace;
  // The same weights stored in x out (ctattn::relayout; the compiler does it for constexpr weights).
  using text_weights = ctattn::multi_head_attention_weights<float, H, E, ctattn::in_by_out, true>;
  text_weights w_text;
  ctattn::multi_head_workspace<tokens, tokens, text_weights> workspace_text;
  // Q, K and V projected by one stacked nn.Linear (3E x E, PyTorch's in_proj_weight), against the three
  // projections multi_head_attention makes: does one packed projection buy anything?
  static constexpr double projection_flops = 6.0 * static_cast<double>(N * E * E);
  ctattn::linear<float, E, 3 * E, ctattn::out_by_in, true> stacked;
  ctattn::matrix<float, N, 3 * E> stacked_out;

  struct plain_storage {
    float x[N][E];
    float w_q[E][E], w_k[E][E], w_v[E][E], w_o[E][E];
    float b_q[E], b_k[E], b_v[E], b_o[E];
    float q[N][E], k[N][E], v[N][E], concat[N][E], y[N][E];
  } plain;

  using eigen_bias = Eigen::Matrix<float, 1, static_cast<int>(E), Eigen::RowMajor>;
  eigen_matrix<N, E> eigen_x, eigen_q, eigen_k, eigen_v, eigen_concat, eigen_y;
  eigen_matrix<E, E> eigen_w_q, eigen_w_k, eigen_w_v, eigen_w_o;
  eigen_bias eigen_b_q, eigen_b_k, eigen_b_v, eigen_b_o;
  eigen_matrix<N, N> eigen_scores;

  void prepare() {
    for (auto* m : {&eigen_w_q, &eigen_w_k, &eigen_w_v, &eigen_w_o}) shape(*m, E, E);
    // Weights and biases uniform in +-1/sqrt(E), like nn.Linear's initialization: projections stay of order 1.
    const float weight_scale = 1.0f / std::sqrt(static_cast<float>(E));
    fill(x.data(), N * E, 1, 1.0f);
    fill(&plain.x[0][0], N * E, 1, 1.0f);
    fill(eigen_x.data(), N * E, 1, 1.0f);
    for (auto [seed, a, b, c] : {std::tuple{2u, w.query.weight.data(), &plain.w_q[0][0], eigen_w_q.data()},
                                 std::tuple{3u, w.key.weight.data(), &plain.w_k[0][0], eigen_w_k.data()},
                                 std::tuple{4u, w.value.weight.data(), &plain.w_v[0][0], eigen_w_v.data()},
                                 std::tuple{5u, w.output.weight.data(), &plain.w_o[0][0], eigen_w_o.data()}}) {
      fill(a, E * E, seed, weight_scale);
      fill(b, E * E, seed, weight_scale);
      fill(c, E * E, seed, weight_scale);
    }
    for (auto [seed, a, b, c] : {std::tuple{6u, w.query.bias.data(), &plain.b_q[0], eigen_b_q.data()},
                                 std::tuple{7u, w.key.bias.data(), &plain.b_k[0], eigen_b_k.data()},
                                 std::tuple{8u, w.value.bias.data(), &plain.b_v[0], eigen_b_v.data()},
                                 std::tuple{9u, w.output.bias.data(), &plain.b_o[0], eigen_b_o.data()}}) {
      fill(a, E, seed, weight_scale);
      fill(b, E, seed, weight_scale);
      fill(c, E, seed, weight_scale);
    }
    w_text = ctattn::relayout<ctattn::in_by_out>(w);
    for (std::size_t p = 0; p < 3; ++p) {
      const auto& part = p == 0 ? w.query : p == 1 ? w.key : w.value;
      for (std::size_t o = 0; o < E; ++o) {
        for (std::size_t c = 0; c < E; ++c) stacked.weight.elements[p * E + o][c] = part.weight.elements[o][c];
        stacked.bias.elements[0][p * E + o] = part.bias.elements[0][o];
      }
    }
  }

  void run_ctattn() { ctattn::multi_head_attention(x, x, x, w, ctattn::into(y, workspace)); }
  void run_exact() { ctattn::multi_head_attention(x, x, x, w, ctattn::into(y, workspace), ctattn::exact_arithmetic); }
  void run_relaid() { ctattn::multi_head_attention(x, x, x, w_text, ctattn::into(y, workspace_text)); }
  void run_projections() {
    ctattn::project_into(workspace.queries, x, w.query);
    ctattn::project_into(workspace.keys, x, w.key);
    ctattn::project_into(workspace.values, x, w.value);
  }
  void run_stacked() { ctattn::project_into(stacked_out, x, stacked); }
  // The largest difference between the two ways of projecting (they compute the same sums in the same order).
  float stacked_difference() {
    run_projections();
    run_stacked();
    float worst = 0.0f;
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t o = 0; o < E; ++o) {
        for (const auto& [p, m] :
             {std::pair{0u, &workspace.queries}, std::pair{1u, &workspace.keys}, std::pair{2u, &workspace.values}}) {
          worst = std::max(worst, std::fabs(stacked_out.elements[i][p * E + o] - m->elements[i][o]));
        }
      }
    }
    return worst;
  }

  void run_naive() {
    naive_linear(plain.x, plain.w_q, plain.b_q, plain.q);
    naive_linear(plain.x, plain.w_k, plain.b_k, plain.k);
    naive_linear(plain.x, plain.w_v, plain.b_v, plain.v);
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t c = h * head_dim;
      naive_attention<N, N, head_dim>(&plain.q[0][c], E, &plain.k[0][c], E, &plain.v[0][c], E, &plain.concat[0][c], E);
    }
    naive_linear(plain.concat, plain.w_o, plain.b_o, plain.y);
  }

  void run_eigen() {
    eigen_q.noalias() = eigen_x * eigen_w_q.transpose();
    eigen_q.rowwise() += eigen_b_q;
    eigen_k.noalias() = eigen_x * eigen_w_k.transpose();
    eigen_k.rowwise() += eigen_b_k;
    eigen_v.noalias() = eigen_x * eigen_w_v.transpose();
    eigen_v.rowwise() += eigen_b_v;
    // Heads are column blocks of Q, K and V; each writes its block of the concatenation.
    constexpr int width = static_cast<int>(head_dim);
    for (std::size_t h = 0; h < H; ++h) {
      const auto c = static_cast<Eigen::Index>(h * head_dim);
      eigen_attention(eigen_q.template middleCols<width>(c), eigen_k.template middleCols<width>(c),
                      eigen_v.template middleCols<width>(c), eigen_scores, eigen_concat.template middleCols<width>(c));
    }
    eigen_y.noalias() = eigen_concat * eigen_w_o.transpose();
    eigen_y.rowwise() += eigen_b_o;
  }

  const float* ctattn_output() const { return y.data(); }
  const float* naive_output() const { return &plain.y[0][0]; }
  const float* eigen_output() const { return eigen_y.data(); }
};

// ---------------------------------------------------------------------------------------------------------------
// The machine: read bandwidth (the FMA peak is bench_common.hpp's)

// Read bandwidth: a sum of vector loads into 8 accumulators over the first `floats` of a 32 MiB buffer.
// 4 MiB is what the 7 x 512 multi-head case reads (its weights; beyond L1 and L2, within L3 on most servers);
// 32 MiB is the whole buffer.
constexpr std::size_t stream_floats = (std::size_t{32} << 20) / sizeof(float);
alignas(64) float stream_buffer[stream_floats];

[[gnu::noinline]] float_vector sum_floats(const float* data, std::size_t count) {
  constexpr std::size_t sums = 8;
  float_vector acc[sums]{};
  for (std::size_t i = 0; i + sums * vector_lanes <= count; i += sums * vector_lanes) {
    for (std::size_t j = 0; j < sums; ++j) {
      float_vector x;
      std::memcpy(&x, data + i + j * vector_lanes, sizeof x);
      acc[j] += x;
    }
  }
  for (std::size_t j = 1; j < sums; ++j) acc[0] += acc[j];
  return acc[0];
}

void read_bandwidth(benchmark::State& state, std::size_t bytes) {
  const std::size_t count = bytes / sizeof(float);
  for (auto _ : state) {
    float_vector total = sum_floats(stream_buffer, count);
    benchmark::DoNotOptimize(total);
  }
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(bytes) * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// ---------------------------------------------------------------------------------------------------------------
// Registration, checks and the table

// The backward pass's operands, random in [-1, 1), and its result.
struct backward_case {
  using m = ctattn::matrix<float, 64, 64>;
  m q{}, k{}, v{}, g{};
  ctattn::attention_gradients<m, m, m> grad{};
  backward_case() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (m* x : {&q, &k, &v, &g}) {
      for (auto& row : x->elements) {
        for (float& e : row) e = d(rng);
      }
    }
  }
};

struct table_row {
  std::string label;
  std::string prefix;  // benchmark names are prefix + "/ctattn", "/naive", "/eigen"
  double flops;
};

float max_difference(const float* a, const float* b, std::size_t count) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < count; ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= worst)) worst = std::isnan(d) ? std::numeric_limits<float>::infinity() : d;
  }
  return worst;
}

// Runs the three implementations once and compares their outputs (all are of order 1): the table compares work
// that gives the same answer, up to rounding.
template <typename Case>
bool outputs_agree(const std::string& label, Case& c) {
  c.run_ctattn();
  c.run_naive();
  c.run_eigen();
  const float naive = max_difference(c.ctattn_output(), c.naive_output(), Case::output_size);
  const float eigen = max_difference(c.ctattn_output(), c.eigen_output(), Case::output_size);
  constexpr float tolerance = 1e-4f;
  const bool agree = naive <= tolerance && eigen <= tolerance;
  std::printf("check %s: max |ctattn - naive| %.1e, max |ctattn - Eigen| %.1e%s\n", label.c_str(),
              static_cast<double>(naive), static_cast<double>(eigen), agree ? "" : "  MISMATCH");
  return agree;
}

template <typename Case>
bool add_case(std::vector<table_row>& rows, const std::string& label, const std::string& prefix) {
  Case& c = instance<Case>();
  bool agree = outputs_agree(label, c);
  register_kernel(prefix + "/ctattn", Case::flops, [&c] { c.run_ctattn(); });
  register_kernel(prefix + "/exact", Case::flops, [&c] { c.run_exact(); });
  if constexpr (requires { c.run_relaid(); }) {
    register_kernel(prefix + "/in_by_out", Case::flops, [&c] { c.run_relaid(); });
  }
  if constexpr (requires { c.run_stacked(); }) {
    const float difference = c.stacked_difference();
    std::printf("check %s: max |stacked - separate projections| %.1e\n", label.c_str(),
                static_cast<double>(difference));
    agree &= difference == 0.0f;
    register_kernel(prefix + "/projections/separate", Case::projection_flops, [&c] { c.run_projections(); });
    register_kernel(prefix + "/projections/stacked", Case::projection_flops, [&c] { c.run_stacked(); });
  }
  if constexpr (requires { c.run_int8(); }) {
    c.prepare_int8();
    c.run_ctattn();
    c.run_int8();
    const float difference = c.int8_difference();
    std::printf("check %s: max |int8 (dequantized) - float| %.1e (the output's int8 step: %.1e)\n", label.c_str(),
                static_cast<double>(difference), Case::int8_output.scale());
    agree &= difference <= 0.05f;
    register_kernel(prefix + "/int8", Case::flops, [&c] { c.run_int8(); });
  }
  register_kernel(prefix + "/naive", Case::flops, [&c] { c.run_naive(); });
  register_kernel(prefix + "/eigen", Case::flops, [&c] { c.run_eigen(); });
  const std::string note = Case::eigen_note;
  rows.push_back({note.empty() ? label : label + " (" + note + ")", prefix, Case::flops});
  return agree;
}

constexpr std::size_t small_bandwidth_bytes = std::size_t{4} << 20;
constexpr std::size_t large_bandwidth_bytes = std::size_t{32} << 20;

void print_table(const median_times& time, const std::vector<table_row>& rows, const char* repetitions,
                 double mha_weight_bytes, const std::string& mha_prefix) {
  const double peak = fma_flops_per_iteration / time("fma_peak") * 1e-9;
  const double small_bandwidth = static_cast<double>(small_bandwidth_bytes) / time("read_bandwidth/4MiB") * 1e-9;
  const double large_bandwidth = static_cast<double>(large_bandwidth_bytes) / time("read_bandwidth/32MiB") * 1e-9;

  if (std::string_view(repetitions) == "1") {
    std::printf("\nOne run each, real time per call, one thread, float32.\n\n");
  } else {
    std::printf("\nMedians of %s repetitions, real time per call, one thread, float32.\n\n", repetitions);
  }
  std::printf(
      "| case | ctattn | naive | Eigen | ctattn vs Eigen (Eigen time / ctattn time) | ctattn GFLOP/s "
      "| %% of FMA peak | ctattn exact | naive / exact |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const table_row& row : rows) {
    const double ctattn = time(row.prefix + "/ctattn");
    const double naive = time(row.prefix + "/naive");
    const double eigen = time(row.prefix + "/eigen");
    const double exact = time(row.prefix + "/exact");
    const double gflops = row.flops / ctattn * 1e-9;
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row.label.c_str(), format_time(ctattn).c_str(),
                format_time(naive).c_str(), format_time(eigen).c_str(), format_number("%.2fx", eigen / ctattn).c_str(),
                format_number("%.2f", gflops).c_str(), format_number("%.1f%%", 100.0 * gflops / peak).c_str(),
                format_time(exact).c_str(), format_number("%.2fx", naive / exact).c_str());
  }
  for (const table_row& row : rows) {
    const double relaid = time(row.prefix + "/in_by_out");
    if (row.prefix.rfind("mha/", 0) != 0 || std::isnan(relaid)) continue;
    std::printf("\n%s, weights relaid out in x out (ctattn::relayout): %s, %s Eigen's speed.", row.label.c_str(),
                format_time(relaid).c_str(), format_number("%.2fx", time(row.prefix + "/eigen") / relaid).c_str());
  }
  for (const table_row& row : rows) {
    const double separate = time(row.prefix + "/projections/separate");
    const double stacked = time(row.prefix + "/projections/stacked");
    if (std::isnan(separate) || std::isnan(stacked)) continue;
    std::printf(
        "\n%s, Q, K, V projections: three calls %s, one stacked 3E x E projection %s (separate / stacked "
        "%s).",
        row.label.c_str(), format_time(separate).c_str(), format_time(stacked).c_str(),
        format_number("%.2fx", separate / stacked).c_str());
  }
  for (const table_row& row : rows) {
    const double int8 = time(row.prefix + "/int8");
    if (std::isnan(int8)) continue;
    std::printf(
        "\n%s in int8 (ctattn::int8_backend_name \"%s\"): %s, against float %s fast (float / int8 %s) and "
        "%s exact (%s).",
        row.label.c_str(), ctattn::int8_backend_name, format_time(int8).c_str(),
        format_time(time(row.prefix + "/ctattn")).c_str(),
        format_number("%.2fx", time(row.prefix + "/ctattn") / int8).c_str(),
        format_time(time(row.prefix + "/exact")).c_str(),
        format_number("%.2fx", time(row.prefix + "/exact") / int8).c_str());
  }
  std::printf("\n");
  const double backward_fast = time("backward/n64_d64/ctattn");
  const double backward_exact = time("backward/n64_d64/exact");
  std::printf("\nBackward pass (attention_backward) at n=64, d=64: %s fast, %s exact arithmetic: %s faster.\n",
              format_time(backward_fast).c_str(), format_time(backward_exact).c_str(),
              format_number("%.2fx", backward_exact / backward_fast).c_str());
  std::printf("\nFP32 FMA peak of one core (%s vectors, %zu independent chains): %s GFLOP/s.\n", vector_name,
              fma_chains, format_number("%.1f", peak).c_str());
  std::printf("Read bandwidth of one core: %s GB/s over 4 MiB (L3 on most servers), %s GB/s over 32 MiB.\n",
              format_number("%.1f", small_bandwidth).c_str(), format_number("%.1f", large_bandwidth).c_str());
  // The 7 x 512 case reads its weights once per call, and they fit no core's L2: reading them at the measured
  // bandwidth is a floor under its time, however fast the arithmetic.
  const double ctattn = time(mha_prefix + "/ctattn");
  const double floor_small = mha_weight_bytes / (small_bandwidth * 1e9);
  const double floor_large = mha_weight_bytes / (large_bandwidth * 1e9);
  std::printf(
      "MHA 7 x 512: its weights and biases (%.2f MiB) are read once per call. Memory-bound floor: %s at the "
      "4 MiB bandwidth (ctattn reaches %s of it), %s at the 32 MiB bandwidth (%s).\n",
      mha_weight_bytes / static_cast<double>(1 << 20), format_time(floor_small).c_str(),
      format_number("%.1f%%", 100.0 * floor_small / ctattn).c_str(), format_time(floor_large).c_str(),
      format_number("%.1f%%", 100.0 * floor_large / ctattn).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string repetitions;
  if (!ctattn_bench::start_benchmarks(argc, argv, repetitions)) return 1;

  for (std::size_t i = 0; i < stream_floats; ++i) stream_buffer[i] = 1.0f;
  benchmark::RegisterBenchmark("fma_peak", fma_peak)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("read_bandwidth/4MiB", read_bandwidth, small_bandwidth_bytes)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("read_bandwidth/32MiB", read_bandwidth, large_bandwidth_bytes)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);

  using mha_large = multi_head_case<7, 512, 8>;
  const std::string mha_large_prefix = "mha/n7_dmodel512_h8";
  std::vector<table_row> rows;
  bool agree = true;
  agree &= add_case<attention_case<6, 16>>(rows, "attention n=6, d=16", "attention/n6_d16");
  agree &= add_case<attention_case<16, 64>>(rows, "attention n=16, d=64", "attention/n16_d64");
  agree &= add_case<attention_case<64, 64>>(rows, "attention n=64, d=64", "attention/n64_d64");
  agree &= add_case<attention_case<128, 128>>(rows, "attention n=128, d=128", "attention/n128_d128");
  agree &= add_case<attention_case<256, 64>>(rows, "attention n=256, d=64", "attention/n256_d64");
  agree &= add_case<multi_head_case<16, 64, 4>>(rows, "MHA 16 tokens, d_model=64, 4 heads", "mha/n16_dmodel64_h4");
  agree &= add_case<mha_large>(rows, "MHA 7 tokens, d_model=512, 8 heads", mha_large_prefix);
  // The backward pass at (64, 64): fast against exact arithmetic (dQ, dK, dV: 5 products of 2 n^2 d flops each).
  {
    static backward_case backward{};
    const auto fast = ctattn::attention_backward(backward.q, backward.k, backward.v, backward.g);
    const auto exact =
        ctattn::attention_backward(backward.q, backward.k, backward.v, backward.g, ctattn::exact_arithmetic);
    const float difference = max_difference(fast.queries.data(), exact.queries.data(), 64 * 64);
    std::printf("check backward n=64, d=64: max |fast - exact| of dQ %.1e\n", static_cast<double>(difference));
    agree &= difference <= 1e-4f;
    constexpr double flops = 5 * 2.0 * 64 * 64 * 64;
    register_kernel("backward/n64_d64/ctattn", flops,
                    [] { backward.grad = ctattn::attention_backward(backward.q, backward.k, backward.v, backward.g); });
    register_kernel("backward/n64_d64/exact", flops, [] {
      backward.grad =
          ctattn::attention_backward(backward.q, backward.k, backward.v, backward.g, ctattn::exact_arithmetic);
    });
  }
  if (!agree) {
    std::printf("the implementations disagree: no timings\n");
    return 1;
  }

  median_times reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_table(reporter, rows, repetitions.c_str(), static_cast<double>(sizeof(mha_large::weights)), mha_large_prefix);
  benchmark::Shutdown();
  return 0;
}
