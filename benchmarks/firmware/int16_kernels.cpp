/// \file
/// Firmware benchmark of ctattn's int16 kernels (TFLite's 16x8 mode): the fully-connected, batch-matmul, softmax,
/// ADD and MUL workloads, each computed on the target through ctattn's public API, compared bit for bit with the
/// compiler's evaluation of the same call embedded in the image, and timed in instructions per call (measure.hpp).
///
/// Built with CTATTN_BENCHMARK_CMSIS_NN=1 (CMake: -DCTATTN_CMSIS_NN_DIR=<a CMSIS-NN source tree>), the image also
/// runs Arm's CMSIS-NN s16 kernels on the same inputs, requires their outputs to equal ctattn's bit for bit, and
/// prints their instructions per call and the ratio ctattn / CMSIS-NN.
///
/// | workload            | ctattn call                                    | CMSIS-NN call             |
/// |---------------------|------------------------------------------------|---------------------------|
/// | fc16 rows x in x out| `ctattn::project(x16, q16linear<..., per_tensor>)` | `arm_fully_connected_s16` |
/// | bmm16 M x K x N     | `ctattn::multiply<Out>(a16, transpose(b16))`   | `arm_batch_matmul_s16`    |
/// | softmax16 16x16     | `ctattn::softmax_rows(x16)`                    | `arm_softmax_s16` (ctattn's tables) |
/// | add16 6x32          | `ctattn::add<Out>(a16, b16)`                   | `arm_elementwise_add_s16` |
/// | mul16 6x32          | `ctattn::hadamard<Out>(a16, b16)`              | `arm_elementwise_mul_s16` |
///
/// The inputs stay where CMSIS-NN's kernels agree with TensorFlow Lite Micro's reference (docs/quantized.md, "16x8:
/// int16 activations": no softmax row of one entry, no requantized product beyond 2^30). Each result line also starts
/// with `result:` and key=value pairs, which benchmarks/firmware_int8_kernels.sh reads. Exit code 0 when every check
/// passes.

#include <cstddef>
#include <cstdint>
#include <new>

#include <ctattn/kernels/detail/int16_softmax_tables.hpp>
#include <ctattn/math/fixed_point.hpp>
#include <ctattn/quantized/int16.hpp>
#include <ctattn/quantized/q16linear.hpp>
#include <ctattn/quantized/q16matrix.hpp>

#include "../../firmware/runtime/check_model.hpp"
#include "../../firmware/runtime/report.hpp"
#include "measure.hpp"

#ifndef CTATTN_BENCHMARK_CMSIS_NN
#define CTATTN_BENCHMARK_CMSIS_NN 0  // benchmarks/firmware/CMakeLists.txt sets it with CTATTN_CMSIS_NN_DIR
#endif

namespace {

using ctattn_benchmark::measure_ctattn;
using ctattn_benchmark::measured;
using ctattn_benchmark::print_result;
using ctattn_firmware::opaque;
using ctattn_firmware::report_line;
#if CTATTN_BENCHMARK_CMSIS_NN
using ctattn_benchmark::measure_cmsis_nn;
#endif

/// Deterministic pseudo-random values (Numerical Recipes' linear congruential constants), made by the compiler.
struct random_values {
  std::uint32_t state;
  constexpr std::uint32_t step() noexcept { return state = state * 1664525u + 1013904223u; }
  constexpr std::int16_t next16() noexcept {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(step() >> 16));
  }
  /// A symmetric weight in [-127, 127].
  constexpr std::int8_t next_weight() noexcept {
    const auto v = static_cast<std::int8_t>(static_cast<std::uint8_t>(step() >> 24));
    return v == -128 ? std::int8_t{-127} : v;
  }
};

template <std::size_t R, std::size_t C, ctattn::quantization Q>
constexpr ctattn::q16matrix<R, C, Q> random_q16matrix(std::uint32_t seed) noexcept {
  random_values g{seed};
  ctattn::q16matrix<R, C, Q> m{};
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) m.elements[r][c] = g.next16();
  }
  return m;
}

/// FC 16x8: y = x W^T + b, int16 rows, int8 weights with one scale (CMSIS-NN's s16 FC is per tensor), int64 bias.
// Rationale: the output scale grows with the square root of the depth, so that the outputs spread over the int16
// range rather than saturate.
template <std::size_t Rows, std::size_t In, std::size_t Out, ctattn::quantization QOut, std::uint32_t Seed>
struct fc16_workload {
  static constexpr ctattn::quantization q_in{0.0005};
  using layer_type = ctattn::q16linear<In, Out, q_in, QOut, ctattn::weight_granularity::per_tensor>;
  using input_type = ctattn::q16matrix<Rows, In, q_in>;
  using output_type = ctattn::q16matrix<Rows, Out, QOut>;
  static constexpr std::uint32_t macs = Rows * In * Out;

  static constexpr input_type input = random_q16matrix<Rows, In, q_in>(Seed);
  static constexpr layer_type layer = [] {
    random_values g{Seed * 7919u + 1u};
    std::int8_t weights[Out][In]{};
    std::int64_t biases[Out]{};
    for (std::size_t c = 0; c < Out; ++c) {
      for (std::size_t k = 0; k < In; ++k) weights[c][k] = g.next_weight();
      biases[c] = static_cast<std::int64_t>(g.next16()) * 64;
    }
    return layer_type{weights, biases, ctattn::channel_scales<1>{{0.01}}};
  }();
  static constexpr output_type expected = ctattn::project(input, layer);

  [[gnu::noinline]] static void run_ctattn(const input_type& x, const layer_type& l, output_type& y) noexcept {
    ::new (static_cast<void*>(&y)) output_type(ctattn::project(x, l));
  }
};

/// BATCH_MATMUL int16: M x K times the rows of an N x K matrix (b^T), as CMSIS-NN takes the right operand.
template <std::size_t M, std::size_t K, std::size_t N, std::uint32_t Seed>
struct bmm16_workload {
  static constexpr ctattn::quantization q_a{0.0004}, q_b{0.0006}, q_out{0.004};
  using a_type = ctattn::q16matrix<M, K, q_a>;
  using b_type = ctattn::q16matrix<N, K, q_b>;
  using output_type = ctattn::q16matrix<M, N, q_out>;
  static constexpr std::uint32_t macs = M * K * N;

  static constexpr a_type a = random_q16matrix<M, K, q_a>(Seed);
  static constexpr b_type b = random_q16matrix<N, K, q_b>(Seed + 101);
  static constexpr output_type expected = ctattn::multiply<q_out>(a, ctattn::transpose(b));

  [[gnu::noinline]] static void run_ctattn(const a_type& x, const b_type& y, output_type& out) noexcept {
    ::new (static_cast<void*>(&out)) output_type(ctattn::multiply<q_out>(x, ctattn::transpose(y)));
  }
};

/// SOFTMAX int16 of R rows of C at input scale Q.
template <ctattn::quantization Q, std::uint32_t Seed, std::size_t R = 16, std::size_t C = 16>
struct softmax16_workload {
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  using input_type = ctattn::q16matrix<R, C, Q>;
  using output_type = ctattn::q16matrix<R, C, ctattn::int16_softmax_output_quantization>;
  static constexpr std::uint32_t elements = R * C;

  static constexpr input_type input = random_q16matrix<R, C, Q>(Seed);
  static constexpr output_type expected = ctattn::softmax_rows(input);

  [[gnu::noinline]] static void run_ctattn(const input_type& x, output_type& w) noexcept {
    ::new (static_cast<void*>(&w)) output_type(ctattn::softmax_rows(x));
  }
};

/// ADD (Hadamard = false) or MUL (Hadamard = true) int16 of two R x C matrices of different scales.
template <std::size_t R, std::size_t C, bool Hadamard, std::uint32_t Seed>
struct elementwise16_workload {
  static constexpr ctattn::quantization q_a{0.0005}, q_b{0.0008};
  static constexpr ctattn::quantization q_out = Hadamard ? ctattn::quantization{0.01} : ctattn::quantization{0.0012};
  using a_type = ctattn::q16matrix<R, C, q_a>;
  using b_type = ctattn::q16matrix<R, C, q_b>;
  using output_type = ctattn::q16matrix<R, C, q_out>;
  static constexpr std::uint32_t elements = R * C;

  static constexpr a_type a = random_q16matrix<R, C, q_a>(Seed);
  static constexpr b_type b = random_q16matrix<R, C, q_b>(Seed + 101);
  static constexpr output_type compute(const a_type& x, const b_type& y) noexcept {
    if constexpr (Hadamard) {
      return ctattn::hadamard<q_out>(x, y);
    } else {
      return ctattn::add<q_out>(x, y);
    }
  }
  static constexpr output_type expected = compute(a, b);

  [[gnu::noinline]] static void run_ctattn(const a_type& x, const b_type& y, output_type& out) noexcept {
    ::new (static_cast<void*>(&out)) output_type(compute(x, y));
  }
};

using fc16_16x32x32 = fc16_workload<16, 32, 32, ctattn::quantization{0.0015}, 1>;
using fc16_6x32x64 = fc16_workload<6, 32, 64, ctattn::quantization{0.0015}, 2>;
using fc16_6x64x32 = fc16_workload<6, 64, 32, ctattn::quantization{0.002}, 3>;
using bmm16_16x32x16 = bmm16_workload<16, 32, 16, 4>;
using bmm16_6x8x6 = bmm16_workload<6, 8, 6, 5>;
using softmax16_00001 = softmax16_workload<ctattn::quantization{0.0001}, 6>;
using softmax16_00003 = softmax16_workload<ctattn::quantization{0.0003}, 7>;
using add16_6x32 = elementwise16_workload<6, 32, false, 8>;
using mul16_6x32 = elementwise16_workload<6, 32, true, 9>;

template <typename W>
measured bench_fc16(const char* name) noexcept {
  static typename W::output_type ctattn_out;
  const auto* x = opaque(&W::input);
  const auto* layer = opaque(&W::layer);
  measured m{};
  measure_ctattn(m, ctattn_out, W::expected, [&](auto& out) { W::run_ctattn(*x, *layer, out); });
#if CTATTN_BENCHMARK_CMSIS_NN
  static typename W::output_type cmsis_out;
  constexpr auto In = static_cast<std::int32_t>(W::layer_type::inputs);
  constexpr auto Out = static_cast<std::int32_t>(W::layer_type::outputs);
  constexpr auto Rows = static_cast<std::int32_t>(W::input_type::rows);
  const cmsis_nn_fc_params fc{0, 0, 0, {-32768, 32767}};
  const cmsis_nn_per_tensor_quant_params quant{W::layer.multipliers[0].multiplier, W::layer.multipliers[0].shift};
  const cmsis_nn_dims input_dims{Rows, 1, 1, In};
  const cmsis_nn_dims filter_dims{In, 1, 1, Out};
  const cmsis_nn_dims bias_dims{1, 1, 1, Out};
  const cmsis_nn_dims output_dims{Rows, 1, 1, Out};
  const cmsis_nn_context ctx{nullptr, 0};  // arm_fully_connected_s16_get_buffer_size is 0 on every core
  const auto run_cmsis_nn = [&] {
    return arm_fully_connected_s16(&ctx, &fc, &quant, &input_dims, &x->elements[0][0], &filter_dims,
                                   &layer->weight[0][0], &bias_dims, layer->bias, &output_dims,
                                   &cmsis_out.elements[0][0]);
  };
  measure_cmsis_nn(m, "arm_fully_connected_s16", cmsis_out, W::expected, run_cmsis_nn);
#endif
  print_result(name, "MACs", W::macs, m);
  return m;
}

template <typename W>
measured bench_bmm16(const char* name) noexcept {
  static typename W::output_type ctattn_out;
  const auto* a = opaque(&W::a);
  const auto* b = opaque(&W::b);
  measured m{};
  measure_ctattn(m, ctattn_out, W::expected, [&](auto& out) { W::run_ctattn(*a, *b, out); });
#if CTATTN_BENCHMARK_CMSIS_NN
  static typename W::output_type cmsis_out;
  constexpr auto M = static_cast<std::int32_t>(W::a_type::rows);
  constexpr auto K = static_cast<std::int32_t>(W::a_type::cols);
  constexpr auto N = static_cast<std::int32_t>(W::b_type::rows);
  constexpr ctattn::math::quantized_multiplier multiplier = ctattn::math::quantize_multiplier(
      ctattn::detail::scale_product(W::q_a.scale(), W::q_b.scale()) / W::q_out.scale());
  const cmsis_nn_bmm_params bmm{false, false, {0, 0, 0, {-32768, 32767}}};
  const cmsis_nn_per_tensor_quant_params quant{multiplier.multiplier, multiplier.shift};
  const cmsis_nn_dims lhs_dims{1, 1, M, K};
  const cmsis_nn_dims rhs_dims{1, 1, N, K};
  const cmsis_nn_dims output_dims{1, 1, M, N};
  const cmsis_nn_context ctx{nullptr, 0};
  const auto run_cmsis_nn = [&] {
    return arm_batch_matmul_s16(&ctx, &bmm, &quant, &lhs_dims, &a->elements[0][0], &rhs_dims, &b->elements[0][0],
                                &output_dims, &cmsis_out.elements[0][0]);
  };
  measure_cmsis_nn(m, "arm_batch_matmul_s16", cmsis_out, W::expected, run_cmsis_nn);
#endif
  print_result(name, "MACs", W::macs, m);
  return m;
}

template <typename W>
measured bench_softmax16(const char* name) noexcept {
  static typename W::output_type ctattn_out;
  const auto* x = opaque(&W::input);
  measured m{};
  measure_ctattn(m, ctattn_out, W::expected, [&](auto& out) { W::run_ctattn(*x, out); });
#if CTATTN_BENCHMARK_CMSIS_NN
  static typename W::output_type cmsis_out;
  constexpr ctattn::math::quantized_multiplier input =
      ctattn::math::quantize_multiplier(ctattn::detail::int16_softmax_input_real<W::input_type::quant>);
  const cmsis_nn_softmax_lut_s16 tables{ctattn::detail::int16_softmax_tables::exp,
                                        ctattn::detail::int16_softmax_tables::one_over_one_plus_x};
  const auto run_cmsis_nn = [&] {
    return arm_softmax_s16(&x->elements[0][0], static_cast<std::int32_t>(W::rows), static_cast<std::int32_t>(W::cols),
                           input.multiplier, input.shift, &tables, &cmsis_out.elements[0][0]);
  };
  measure_cmsis_nn(m, "arm_softmax_s16", cmsis_out, W::expected, run_cmsis_nn);
#endif
  print_result(name, "elements", W::elements, m);
  return m;
}

template <typename W, bool Hadamard>
measured bench_elementwise16(const char* name) noexcept {
  static typename W::output_type ctattn_out;
  const auto* a = opaque(&W::a);
  const auto* b = opaque(&W::b);
  measured m{};
  measure_ctattn(m, ctattn_out, W::expected, [&](auto& out) { W::run_ctattn(*a, *b, out); });
#if CTATTN_BENCHMARK_CMSIS_NN
  static typename W::output_type cmsis_out;
  constexpr auto n = static_cast<std::int32_t>(W::elements);
  if constexpr (Hadamard) {
    constexpr ctattn::math::quantized_multiplier out =
        ctattn::math::quantize_multiplier(W::q_a.scale() * W::q_b.scale() / W::q_out.scale());
    const auto run_cmsis_nn = [&] {
      return arm_elementwise_mul_s16(&a->elements[0][0], &b->elements[0][0], 0, 0, &cmsis_out.elements[0][0], 0,
                                     out.multiplier, out.shift, -32768, 32767, n);
    };
    measure_cmsis_nn(m, "arm_elementwise_mul_s16", cmsis_out, W::expected, run_cmsis_nn);
  } else {
    using k = ctattn::detail::int16_add_constants<W::q_a, W::q_b, W::q_out>;
    const auto run_cmsis_nn = [&] {
      return arm_elementwise_add_s16(&a->elements[0][0], &b->elements[0][0], 0, k::a.multiplier, k::a.shift, 0,
                                     k::b.multiplier, k::b.shift, 15, &cmsis_out.elements[0][0], 0, k::out.multiplier,
                                     k::out.shift, -32768, 32767, n);
    };
    measure_cmsis_nn(m, "arm_elementwise_add_s16", cmsis_out, W::expected, run_cmsis_nn);
  }
#endif
  print_result(name, "elements", W::elements, m);
  return m;
}

}  // namespace

int main() {
  (report_line{} << "ctattn int16 (16x8) kernel benchmark on " << ctattn_firmware::board_name).end();
#if CTATTN_BENCHMARK_CMSIS_NN
  (report_line{} << "beside CMSIS-NN's s16 kernels (bit for bit)").end();
#else
  (report_line{} << "ctattn alone (configure with -DCTATTN_CMSIS_NN_DIR=<CMSIS-NN source tree> for CMSIS-NN)").end();
#endif
  bool pass = true;
  pass = bench_fc16<fc16_16x32x32>("fc16_16x32x32").pass && pass;
  pass = bench_fc16<fc16_6x32x64>("fc16_6x32x64").pass && pass;
  pass = bench_fc16<fc16_6x64x32>("fc16_6x64x32").pass && pass;
  pass = bench_bmm16<bmm16_16x32x16>("bmm16_16x32x16").pass && pass;
  pass = bench_bmm16<bmm16_6x8x6>("bmm16_6x8x6").pass && pass;
  pass = bench_softmax16<softmax16_00001>("softmax16_16x16_s0.0001").pass && pass;
  pass = bench_softmax16<softmax16_00003>("softmax16_16x16_s0.0003").pass && pass;
  pass = bench_elementwise16<add16_6x32, false>("add16_6x32").pass && pass;
  pass = bench_elementwise16<mul16_6x32, true>("mul16_6x32").pass && pass;
  (report_line{} << (pass ? "PASS: every output as required" : "FAIL: see the lines above")).end();
  return pass ? 0 : 1;
}
