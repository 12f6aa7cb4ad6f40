// Run-time speed of ctattn against the libraries a performance user would reach for instead, one thread, the same
// binary and the same run: oneDNN (Debian's libdnnl-dev, 2.6), XNNPACK (Debian's libxnnpack-dev, a 2022-02 snapshot)
// and Eigen 3.4. Only this benchmark links them; ctattn's headers need none of them.
//
//   fp32 fully connected  y = x W^T + b, W out x in (PyTorch), rows x in x out as below    2 rows in out flops
//   int8 fully connected  the same layer quantized as TFLite does: asymmetric int8 input and output (nonzero zero
//                         points), int8 weights with one symmetric scale per output channel, int32 bias, int8 output
//   16x8, int4 weights    the same layer in TFLite's 16x8 mode (int16 activations, int8 weights, int64 bias) and with
//                         per-channel int4 weights: ctattn alone (no peer here has either), against its int8 layer
//                         and the fastest int8 peer
//   attention             softmax(Q K^T / sqrt(d)) V, one head, n_q = n_kv = n, d_k = d_v = d   4 n^2 d flops
//   fma_peak              the core's fp32 FMA rate, from a loop of register-only FMAs (zmm with AVX-512, else ymm)
//
// What each implementation is given (what a user who wants speed would do):
//   ctattn   its public calls: `project_into(y, x, layer)` with `linear<float, In, Out, out_by_in, true>` (PyTorch's
//            layout) and with the same layer relaid out in x out (`in_by_out`), both timed;
//            `project_into(y_q, x_q, layer)` with `qlinear` from `quantize_linear`;
//            `scaled_dot_product_attention(q, k, v, into(out))`.
//   Eigen    row-major matrices, fixed-size up to Eigen's stack limit (128 KiB) and dynamic above it, sized before
//            timing: `y.noalias() = x * w.transpose(); y.rowwise() += b`, and attention written out in expressions.
//            Eigen has no int8 layer: "-" in that table.
//   oneDNN   primitives created once, weights reordered once (before timing) into the layout the primitive chose
//            (format_tag::any); each call is execute + wait. fp32: matmul and inner_product, both timed, the faster
//            shown. int8: matmul with the input zero point as an attribute, and inner_product with that zero point
//            folded into the s32 bias (inner_product takes no zero points in 2.6), both timed, the faster shown.
//            Attention: matmul (with the 1/sqrt(d) as its output scale), softmax in place, matmul.
//            oneDNN runs on one thread: its OpenMP runtime is told so before the first primitive (see main).
//   XNNPACK  operators created once (weights packed then), set up once, each call is xnn_run_operator with no
//            thread pool (the caller's thread). fp32: fully_connected_nc_f32. int8: this XNNPACK has no per-channel
//            fully-connected operator, so the per-channel layer runs as a 1 x 1 convolution (convolution2d_nhwc_qc8,
//            the same GEMM kernels); the per-tensor fully_connected_nc_qs8 is timed too, on the layer quantized with
//            one weight scale, and printed below the table. XNNPACK has no attention operator: "-" there.
//
// Every implementation fills its own copy of each operand from the operand's seed, so all compute on the same
// numbers; before timing, each peer's output is checked against ctattn's (fp32 within a relative tolerance, int8
// within one quantization step, with the number of outputs one step apart printed). An fp32 disagreement stops the
// run. An int8 peer further than one step is timed but marked inexact and left out of the comparison (oneDNN's inner
// product when limited to AVX2, ONEDNN_MAX_CPU_ISA=AVX2); the run stops if no int8 peer agrees on a shape.
//
// How to read the tables printed after Google Benchmark's own output (medians of 11 repetitions, or
// --benchmark_repetitions; real time per call):
//   - ctattn / best peer: ctattn's time over the fastest peer's; below 1 ctattn is faster.
//   - % of FMA peak: the nominal flops (2 rows in out; attention 4 n^2 d) per second over the fma_peak figure of the
//     same core. For int8 the same figure reads as int8 multiply-accumulates per second over the fp32 FMA peak's
//     (both count a multiply-add as 2); an int8 dot-product instruction (AVX-512 VNNI) does 4 times the
//     multiply-adds of an fp32 FMA, so 100% there is a quarter of the int8 ceiling.
//   - int8 / fp32: ctattn's int8 layer's time over its fastest fp32 layout's, on the same shape.
// benchmarks/peer_speed.sh builds and runs it; CTATTN_BENCH_ARCH_FLAGS (default -march=native) picks the target.
#include <benchmark/benchmark.h>

#include <xnnpack.h>
#include <Eigen/Core>
#include <dnnl.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "ctattn/ctattn.hpp"

namespace {
using ctattn_bench::fill;
using ctattn_bench::fma_chains;
using ctattn_bench::fma_flops_per_iteration;
using ctattn_bench::fma_peak;
using ctattn_bench::format_number;
using ctattn_bench::format_time;
using ctattn_bench::instance;
using ctattn_bench::median_times;
using ctattn_bench::register_kernel;
using ctattn_bench::vector_name;

// ---------------------------------------------------------------------------------------------------------------
// Operands

// Row-major order, uniform in [-scale, scale): the same numbers for every copy filled from one seed.

// A zeroed array aligned to 64 bytes for the peers' operands, with XNN_EXTRA_BYTES more behind it: XNNPACK may read
// (never write) that far past an input.
template <typename T>
class buffer {
 public:
  explicit buffer(std::size_t count)
      : count_(count),
        bytes_(round_up(count * sizeof(T) + XNN_EXTRA_BYTES)),
        data_(static_cast<T*>(std::aligned_alloc(64, bytes_))) {
    if (data_ == nullptr) std::abort();
    std::memset(data_.get(), 0, bytes_);
  }
  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return count_; }
  T& operator[](std::size_t i) noexcept { return data_.get()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_.get()[i]; }

 private:
  static std::size_t round_up(std::size_t bytes) noexcept { return (bytes + 63) / 64 * 64; }
  struct free_deleter {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::size_t count_;
  std::size_t bytes_;
  std::unique_ptr<T, free_deleter> data_;
};

// Eigen refuses a fixed-size matrix above EIGEN_STACK_ALLOCATION_LIMIT bytes even in static storage: such an operand
// (the 512 x 512 weights, the 256 x 256 and 128 x 128 scores) is a dynamic matrix, sized once before timing.
template <std::size_t Rows, std::size_t Cols>
using eigen_matrix =
    std::conditional_t<Rows * Cols * sizeof(float) <= EIGEN_STACK_ALLOCATION_LIMIT,
                       Eigen::Matrix<float, static_cast<int>(Rows), static_cast<int>(Cols), Eigen::RowMajor>,
                       Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

template <typename M>
void size_eigen(M& m, std::size_t rows, std::size_t cols) {
  if constexpr (M::SizeAtCompileTime == Eigen::Dynamic) {
    m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// oneDNN

// The one CPU engine and in-order stream of the whole run.
struct onednn_runtime {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

onednn_runtime& onednn() {
  static onednn_runtime runtime;
  return runtime;
}

dnnl::memory::dim dim(std::size_t n) { return static_cast<dnnl::memory::dim>(n); }

using onednn_tag = dnnl::memory::format_tag;
using onednn_type = dnnl::memory::data_type;

// A created primitive and its arguments (which own the reordered weights).
struct onednn_call {
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> args;
  std::string implementation;

  void run() { primitive.execute(onednn().stream, args); }
};

// The weights `user` (described by `user_desc`, the caller's layout) reordered once into `chosen`, the layout the
// primitive asked for.
dnnl::memory packed_weights(const dnnl::memory::desc& user_desc, void* user, const dnnl::memory::desc& chosen) {
  dnnl::memory from(user_desc, onednn().engine, user);
  dnnl::memory to(chosen, onednn().engine);
  dnnl::reorder(from, to).execute(onednn().stream, from, to);
  onednn().stream.wait();
  return to;
}

// y = x W^T + b as a matmul: x rows x in, the weights in x out for oneDNN (W out x in read as its transpose, tag
// ba), bias 1 x out. `attr` carries the int8 scales and zero points.
onednn_call onednn_matmul(std::size_t rows, std::size_t in, std::size_t out, onednn_type src_type,
                          onednn_type weight_type, onednn_type bias_type, onednn_type dst_type, void* x, void* w,
                          void* b, void* y, const dnnl::primitive_attr& attr) {
  const dnnl::memory::desc src({dim(rows), dim(in)}, src_type, onednn_tag::ab);
  const dnnl::memory::desc weights_any({dim(in), dim(out)}, weight_type, onednn_tag::any);
  const dnnl::memory::desc weights_user({dim(in), dim(out)}, weight_type, onednn_tag::ba);
  const dnnl::memory::desc bias({1, dim(out)}, bias_type, onednn_tag::ab);
  const dnnl::memory::desc dst({dim(rows), dim(out)}, dst_type, onednn_tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights_any, bias, dst), attr, onednn().engine);
  const dnnl::memory weights = packed_weights(weights_user, w, pd.weights_desc());
  auto& engine = onednn().engine;
  return {dnnl::matmul(pd),
          {{DNNL_ARG_SRC, dnnl::memory(src, engine, x)},
           {DNNL_ARG_WEIGHTS, weights},
           {DNNL_ARG_BIAS, dnnl::memory(bias, engine, b)},
           {DNNL_ARG_DST, dnnl::memory(dst, engine, y)}},
          pd.impl_info_str()};
}

// The same layer as an inner product: W out x in is its `oi` layout as it stands.
onednn_call onednn_inner_product(std::size_t rows, std::size_t in, std::size_t out, onednn_type src_type,
                                 onednn_type weight_type, onednn_type bias_type, onednn_type dst_type, void* x, void* w,
                                 void* b, void* y, const dnnl::primitive_attr& attr) {
  const dnnl::memory::desc src({dim(rows), dim(in)}, src_type, onednn_tag::nc);
  const dnnl::memory::desc weights_any({dim(out), dim(in)}, weight_type, onednn_tag::any);
  const dnnl::memory::desc weights_user({dim(out), dim(in)}, weight_type, onednn_tag::oi);
  const dnnl::memory::desc bias({dim(out)}, bias_type, onednn_tag::x);
  const dnnl::memory::desc dst({dim(rows), dim(out)}, dst_type, onednn_tag::nc);
  const dnnl::inner_product_forward::primitive_desc pd(
      dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src, weights_any, bias, dst), attr,
      onednn().engine);
  const dnnl::memory weights = packed_weights(weights_user, w, pd.weights_desc());
  auto& engine = onednn().engine;
  return {dnnl::inner_product_forward(pd),
          {{DNNL_ARG_SRC, dnnl::memory(src, engine, x)},
           {DNNL_ARG_WEIGHTS, weights},
           {DNNL_ARG_BIAS, dnnl::memory(bias, engine, b)},
           {DNNL_ARG_DST, dnnl::memory(dst, engine, y)}},
          pd.impl_info_str()};
}

// The threading runtime oneDNN was built with, and its thread count set to 1 when it is OpenMP. Rationale: the
// runtime's omp_set_num_threads is looked up in the process (libdnnl brought it in), not linked: the benchmark is
// not compiled with -fopenmp (which would also let Eigen's products spread over threads), and a runtime linked by
// name might not be the one oneDNN uses (libgomp for Debian's build, libomp for some others).
std::string limit_onednn_to_one_thread() {
  const unsigned runtime = dnnl_version()->cpu_runtime;
  if (runtime == DNNL_RUNTIME_SEQ) return "sequential (one thread by construction)";
  if (runtime == DNNL_RUNTIME_TBB) {
    return "TBB (not limited here: run with one CPU in the affinity mask, as peer_speed.sh does)";
  }
  if (runtime != DNNL_RUNTIME_OMP) return "threadpool (not limited)";
  using set_threads_function = void (*)(int);
  using get_threads_function = int (*)();
  set_threads_function set_threads = nullptr;
  get_threads_function get_threads = nullptr;
  void* set_symbol = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  void* get_symbol = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  if (set_symbol == nullptr || get_symbol == nullptr) return "OpenMP (omp_set_num_threads not found: not limited)";
  // Rationale: dlsym returns a data pointer; memcpy turns it into the function pointer it stands for.
  std::memcpy(&set_threads, &set_symbol, sizeof set_threads);
  std::memcpy(&get_threads, &get_symbol, sizeof get_threads);
  set_threads(1);
  return "OpenMP, omp_set_num_threads(1): omp_get_max_threads() = " + std::to_string(get_threads());
}

// ---------------------------------------------------------------------------------------------------------------
// XNNPACK

struct xnn_deleter {
  void operator()(xnn_operator_t op) const noexcept { xnn_delete_operator(op); }
};
using xnn_handle = std::unique_ptr<std::remove_pointer_t<xnn_operator_t>, xnn_deleter>;

void xnn_check(xnn_status status, const char* what) {
  if (status != xnn_status_success) {
    std::printf("XNNPACK: %s failed (status %d)\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

// The calls run on the caller's thread: no pthreadpool is created, and a null pool means exactly that.
void xnn_run(const xnn_handle& op) { xnn_run_operator(op.get(), nullptr); }

// ---------------------------------------------------------------------------------------------------------------
// Comparisons before timing

// The largest |a - b| over the largest |b| (at least 1): a relative tolerance for sums of In products.
float relative_difference(const float* a, const float* b, std::size_t count) {
  float worst = 0.0f;
  float largest = 1.0f;
  for (std::size_t i = 0; i < count; ++i) {
    const float d = std::fabs(a[i] - b[i]);
    worst = (d <= worst) ? worst : (std::isnan(d) ? std::numeric_limits<float>::infinity() : d);
    largest = std::fmax(largest, std::fabs(b[i]));
  }
  return worst / largest;
}

constexpr float fp32_tolerance = 1e-4f;

bool fp32_agrees(const std::string& label, const char* peer, const float* peer_output, const float* ctattn_output,
                 std::size_t count) {
  const float difference = relative_difference(peer_output, ctattn_output, count);
  const bool agree = difference <= fp32_tolerance;
  std::printf("check %s: %-22s max |peer - ctattn| / max(1, max |ctattn|) = %.1e%s\n", label.c_str(), peer,
              static_cast<double>(difference), agree ? "" : "  MISMATCH");
  return agree;
}

// The int8 peers found more than one step from ctattn (benchmark names): timed, printed apart, not compared.
std::set<std::string>& inexact_peers() {
  static std::set<std::string> names;
  return names;
}

// int8 outputs: the count one step apart is printed; any two steps apart or more is a failure.
bool int8_agrees(const std::string& label, const char* peer, const std::int8_t* peer_output,
                 const std::int8_t* ctattn_output, std::size_t count) {
  std::size_t one_step = 0;
  std::size_t more = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const int d = std::abs(int{peer_output[i]} - int{ctattn_output[i]});
    one_step += d == 1 ? 1 : 0;
    more += d > 1 ? 1 : 0;
  }
  std::printf("check %s: %-22s %zu of %zu outputs differ by 1 step, %zu by more%s\n", label.c_str(), peer, one_step,
              count, more, more == 0 ? "" : "  MISMATCH");
  return more == 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Fully connected, fp32 and int8

// x uniform in [-1, 1); W and b uniform in +-1/sqrt(In), nn.Linear's initialization: outputs of order 1/3.
constexpr std::uint32_t x_seed = 101;
constexpr std::uint32_t weight_seed = 102;
constexpr std::uint32_t bias_seed = 103;

// The int8 quantizations, TFLite's asymmetric kind with float32 scales (as a .tflite file stores them): the input
// over [-1, 1.5] (zero point -26), the output over [-1.5, 1.25] (zero point 11).
// Rationale: ranges off centre, so that both zero points are nonzero and every implementation must apply them.
constexpr ctattn::quantization float32_scaled(ctattn::quantization q) {
  return ctattn::quantization{static_cast<float>(q.scale()), q.zero_point};
}
constexpr ctattn::quantization int8_input = float32_scaled(ctattn::quantization_for_range(-1.0, 1.5));
constexpr ctattn::quantization int8_output = float32_scaled(ctattn::quantization_for_range(-1.5, 1.25));
static_assert(int8_input.zero_point != 0 && int8_output.zero_point != 0);
// The 16x8 layer's int16 activations over the same ranges (symmetric, zero point 0).
constexpr ctattn::quantization int16_input =
    float32_scaled(ctattn::quantization_for_range({-1.0, 1.5}, ctattn::activation_format::int16));
constexpr ctattn::quantization int16_output =
    float32_scaled(ctattn::quantization_for_range({-1.5, 1.25}, ctattn::activation_format::int16));

template <std::size_t Rows, std::size_t In, std::size_t Out>
struct fc_case {
  static constexpr double flops = 2.0 * static_cast<double>(Rows * In * Out);

  // ctattn, float: PyTorch's layout and the same weights relaid out in x out.
  ctattn::matrix<float, Rows, In> x;
  ctattn::matrix<float, Rows, Out> y, y_in_by_out;
  ctattn::linear<float, In, Out, ctattn::out_by_in, true> layer;
  ctattn::linear<float, In, Out, ctattn::in_by_out, true> layer_in_by_out;

  // ctattn, int8: the layer with one float32 scale per output channel (max |w_c| / 127), and with one scale for the
  // whole weight (for XNNPACK's per-tensor operator, checked only).
  using int8_layer = ctattn::qlinear<In, Out, int8_input, int8_output>;
  ctattn::qmatrix<Rows, In, int8_input> x_q;
  ctattn::qmatrix<Rows, Out, int8_output> y_q, y_q_per_tensor;
  int8_layer layer_q;
  int8_layer layer_q_per_tensor;
  float channel_scale[Out]{};
  float tensor_scale = 0.0f;

  // ctattn, the two forms no peer here has: 16x8 (int16 activations, per-channel int8 weights, int64 bias) and int4
  // weights (per channel, int8 activations), the same float layer quantized.
  using int16_layer = ctattn::q16linear<In, Out, int16_input, int16_output>;
  using int4_layer = ctattn::qlinear<In, Out, int8_input, int8_output, ctattn::weight_format::int4>;
  ctattn::q16matrix<Rows, In, int16_input> x_16;
  ctattn::q16matrix<Rows, Out, int16_output> y_16;
  int16_layer layer_16;
  ctattn::qmatrix<Rows, Out, int8_output> y_q4;
  int4_layer layer_q4;

  // Eigen.
  eigen_matrix<Rows, In> eigen_x;
  eigen_matrix<Out, In> eigen_w;
  Eigen::Matrix<float, 1, static_cast<int>(Out), Eigen::RowMajor> eigen_b;
  eigen_matrix<Rows, Out> eigen_y;

  // oneDNN and XNNPACK: their own copies of the operands.
  buffer<float> peer_x{Rows * In}, peer_w{Out * In}, peer_b{Out};
  buffer<float> onednn_matmul_y{Rows * Out}, onednn_inner_product_y{Rows * Out}, xnn_y{Rows * Out};
  buffer<std::int8_t> peer_x_q{Rows * In}, peer_w_q{Out * In}, peer_w_q_per_tensor{Out * In};
  buffer<std::int32_t> peer_bias_q{Out}, peer_folded_bias_q{Out}, peer_bias_q_per_tensor{Out};
  buffer<std::int8_t> onednn_matmul_y_q{Rows * Out}, onednn_inner_product_y_q{Rows * Out}, xnn_y_q{Rows * Out},
      xnn_y_q_per_tensor{Rows * Out};
  onednn_call onednn_matmul_fp32, onednn_inner_product_fp32, onednn_matmul_int8, onednn_inner_product_int8;
  xnn_handle xnn_fp32, xnn_qc8, xnn_qs8;

  void prepare() {
    const float weight_scale = 1.0f / std::sqrt(static_cast<float>(In));
    fill(x.data(), Rows * In, x_seed, 1.0f);
    fill(layer.weight.data(), Out * In, weight_seed, weight_scale);
    fill(layer.bias.data(), Out, bias_seed, weight_scale);
    layer_in_by_out = ctattn::relayout<ctattn::in_by_out>(layer);

    size_eigen(eigen_w, Out, In);
    fill(eigen_x.data(), Rows * In, x_seed, 1.0f);
    fill(eigen_w.data(), Out * In, weight_seed, weight_scale);
    fill(eigen_b.data(), Out, bias_seed, weight_scale);
    fill(peer_x.data(), Rows * In, x_seed, 1.0f);
    fill(peer_w.data(), Out * In, weight_seed, weight_scale);
    fill(peer_b.data(), Out, bias_seed, weight_scale);

    prepare_int8();
    prepare_onednn();
    prepare_xnnpack();
  }

  void prepare_int8() {
    const auto scales = ctattn::weight_scales(layer.weight);
    double largest = 0.0;
    for (std::size_t c = 0; c < Out; ++c) {
      channel_scale[c] = static_cast<float>(scales[c]);
      largest = std::fmax(largest, scales[c]);
    }
    tensor_scale = static_cast<float>(largest);
    float tensor_scales[Out];
    std::fill(tensor_scales, tensor_scales + Out, tensor_scale);
    layer_q = ctattn::quantize_linear<int8_input, int8_output>(layer, ctattn::channel_scales<Out>(channel_scale));
    layer_q_per_tensor =
        ctattn::quantize_linear<int8_input, int8_output>(layer, ctattn::channel_scales<Out>(tensor_scales));
    x_q = ctattn::quantize<int8_input>(x);
    layer_16 = ctattn::quantize_linear<int16_input, int16_output, std::int16_t>(layer);
    x_16 = ctattn::quantize<int16_input, std::int16_t>(x);
    layer_q4 = ctattn::quantize_linear<int8_input, int8_output, ctattn::weight_format::int4>(layer);

    std::memcpy(peer_x_q.data(), x_q.elements, Rows * In);
    std::memcpy(peer_w_q.data(), layer_q.weight, Out * In);
    std::memcpy(peer_w_q_per_tensor.data(), layer_q_per_tensor.weight, Out * In);
    for (std::size_t c = 0; c < Out; ++c) {
      peer_bias_q[c] = layer_q.bias(c);
      peer_folded_bias_q[c] = layer_q.folded_bias[c];
      peer_bias_q_per_tensor[c] = layer_q_per_tensor.bias(c);
    }
  }

  void prepare_onednn() {
    const dnnl::primitive_attr plain;
    onednn_matmul_fp32 =
        onednn_matmul(Rows, In, Out, onednn_type::f32, onednn_type::f32, onednn_type::f32, onednn_type::f32,
                      peer_x.data(), peer_w.data(), peer_b.data(), onednn_matmul_y.data(), plain);
    onednn_inner_product_fp32 =
        onednn_inner_product(Rows, In, Out, onednn_type::f32, onednn_type::f32, onednn_type::f32, onednn_type::f32,
                             peer_x.data(), peer_w.data(), peer_b.data(), onednn_inner_product_y.data(), plain);

    // Requantization: oneDNN 2.6 computes dst = output_scale_c x (sum_k (x_k - z_in) w_ck + bias_c) + z_out, rounded
    // to nearest even and saturated; output_scale_c = s_in s_c / s_out, one per output channel (mask 1 << 1: the
    // second dimension of the 2-D destination).
    std::vector<float> output_scales(Out);
    for (std::size_t c = 0; c < Out; ++c) {
      output_scales[c] =
          static_cast<float>(int8_input.scale() * static_cast<double>(channel_scale[c]) / int8_output.scale());
    }
    // matmul: the input's zero point and the output's as attributes, the int32 bias as TFLite stores it.
    dnnl::primitive_attr with_zero_points;
    with_zero_points.set_output_scales(1 << 1, output_scales);
    with_zero_points.set_zero_points(DNNL_ARG_SRC, 0, {int8_input.zero_point});
    with_zero_points.set_zero_points(DNNL_ARG_DST, 0, {int8_output.zero_point});
    onednn_matmul_int8 =
        onednn_matmul(Rows, In, Out, onednn_type::s8, onednn_type::s8, onednn_type::s32, onednn_type::s8,
                      peer_x_q.data(), peer_w_q.data(), peer_bias_q.data(), onednn_matmul_y_q.data(), with_zero_points);
    // inner_product takes no zero points in oneDNN 2.6: the input's is folded into the bias, b_c - z_in sum_k w_ck
    // (ctattn's folded_bias, which a user computes once), and the output's is added by a linear post-op
    // (1 x v + z_out, before rounding: the same as adding it after).
    dnnl::primitive_attr folded;
    folded.set_output_scales(1 << 1, output_scales);
    dnnl::post_ops add_zero_point;
    add_zero_point.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f,
                                  static_cast<float>(int8_output.zero_point));
    folded.set_post_ops(add_zero_point);
    onednn_inner_product_int8 = onednn_inner_product(
        Rows, In, Out, onednn_type::s8, onednn_type::s8, onednn_type::s32, onednn_type::s8, peer_x_q.data(),
        peer_w_q.data(), peer_folded_bias_q.data(), onednn_inner_product_y_q.data(), folded);
  }

  // Rationale: each operator is set up once, outside the timed loop, as XNNPACK's own runtime does while the tensors
  // stay where they are: setup binds the buffers and plans the tiling, which a call on the same buffers need not
  // repeat. The timed call is xnn_run_operator alone.
  void prepare_xnnpack() {
    xnn_operator_t op = nullptr;
    constexpr float unbounded = std::numeric_limits<float>::infinity();
    xnn_check(xnn_create_fully_connected_nc_f32(In, Out, In, Out, peer_w.data(), peer_b.data(), -unbounded, unbounded,
                                                0, &op),
              "xnn_create_fully_connected_nc_f32");
    xnn_fp32.reset(op);
    xnn_check(xnn_setup_fully_connected_nc_f32(op, Rows, peer_x.data(), xnn_y.data(), nullptr),
              "xnn_setup_fully_connected_nc_f32");

    // Per-channel int8: a 1 x 1 convolution over a 1 x Rows image of In channels is the fully-connected layer (its
    // kernel, out x 1 x 1 x in, is W as it stands).
    const auto zero_in = static_cast<std::int8_t>(int8_input.zero_point);
    const auto zero_out = static_cast<std::int8_t>(int8_output.zero_point);
    const auto scale_in = static_cast<float>(int8_input.scale());
    const auto scale_out = static_cast<float>(int8_output.scale());
    xnn_check(xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, In, Out, In, Out, zero_in, scale_in,
                                                channel_scale, peer_w_q.data(), peer_bias_q.data(), zero_out, scale_out,
                                                -128, 127, 0, &op),
              "xnn_create_convolution2d_nhwc_qc8");
    xnn_qc8.reset(op);
    xnn_check(xnn_setup_convolution2d_nhwc_qc8(op, 1, 1, Rows, peer_x_q.data(), xnn_y_q.data(), nullptr),
              "xnn_setup_convolution2d_nhwc_qc8");

    xnn_check(
        xnn_create_fully_connected_nc_qs8(In, Out, In, Out, zero_in, scale_in, tensor_scale, peer_w_q_per_tensor.data(),
                                          peer_bias_q_per_tensor.data(), zero_out, scale_out, -128, 127, 0, &op),
        "xnn_create_fully_connected_nc_qs8");
    xnn_qs8.reset(op);
    xnn_check(xnn_setup_fully_connected_nc_qs8(op, Rows, peer_x_q.data(), xnn_y_q_per_tensor.data(), nullptr),
              "xnn_setup_fully_connected_nc_qs8");
  }

  // Rationale: project_into, ctattn's call that writes into caller storage, as every peer here writes into its own
  // buffer; `y = project(x, layer)` would time a returned matrix and its copy as well.
  void run_ctattn() { ctattn::project_into(y, x, layer); }
  void run_ctattn_in_by_out() { ctattn::project_into(y_in_by_out, x, layer_in_by_out); }
  void run_eigen() {
    eigen_y.noalias() = eigen_x * eigen_w.transpose();
    eigen_y.rowwise() += eigen_b;
  }
  void run_ctattn_int8() { ctattn::project_into(y_q, x_q, layer_q); }
  // Rationale: `project`, as the 16x8 layer has no `project_into`: the copy of its result (at most 2 KiB here) is
  // timed with it.
  void run_ctattn_int16() { y_16 = ctattn::project(x_16, layer_16); }
  void run_ctattn_int4() { ctattn::project_into(y_q4, x_q, layer_q4); }

  // Runs every implementation once and compares the outputs with ctattn's.
  bool outputs_agree(const std::string& label) {
    run_ctattn();
    run_ctattn_in_by_out();
    run_eigen();
    onednn_matmul_fp32.run();
    onednn_inner_product_fp32.run();
    xnn_run(xnn_fp32);
    run_ctattn_int8();
    y_q_per_tensor = ctattn::project(x_q, layer_q_per_tensor);
    onednn_matmul_int8.run();
    onednn_inner_product_int8.run();
    xnn_run(xnn_qc8);
    xnn_run(xnn_qs8);
    onednn().stream.wait();

    constexpr std::size_t n = Rows * Out;
    bool agree = true;
    agree &= fp32_agrees(label, "ctattn in_by_out", y_in_by_out.data(), y.data(), n);
    agree &= fp32_agrees(label, "Eigen", eigen_y.data(), y.data(), n);
    agree &= fp32_agrees(label, "oneDNN matmul", onednn_matmul_y.data(), y.data(), n);
    agree &= fp32_agrees(label, "oneDNN inner_product", onednn_inner_product_y.data(), y.data(), n);
    agree &= fp32_agrees(label, "XNNPACK", xnn_y.data(), y.data(), n);
    const std::int8_t* ctattn_q = &y_q.elements[0][0];
    // How much the int8 check can see: the spread of ctattn's outputs, and how many sit at a bound.
    const auto [lowest, highest] = std::minmax_element(ctattn_q, ctattn_q + n);
    const auto saturated = std::count_if(ctattn_q, ctattn_q + n, [](std::int8_t v) { return v == -128 || v == 127; });
    std::printf("check %s: ctattn int8 outputs from %d to %d, %td of %zu saturated\n", label.c_str(), int{*lowest},
                int{*highest}, saturated, n);
    const std::string prefix = "fc_int8/" + label + "/";
    std::size_t exact = 0;
    const auto check = [&](const char* peer, const std::int8_t* peer_output, const std::int8_t* ctattn_output,
                           const char* name) {
      if (int8_agrees(label, peer, peer_output, ctattn_output, n)) {
        ++exact;
      } else {
        inexact_peers().insert(prefix + name);
      }
    };
    check("oneDNN matmul s8", onednn_matmul_y_q.data(), ctattn_q, "onednn_matmul");
    check("oneDNN inner_prod s8", onednn_inner_product_y_q.data(), ctattn_q, "onednn_inner_product");
    check("XNNPACK qc8 (1x1 conv)", xnn_y_q.data(), ctattn_q, "xnnpack_qc8_conv1x1");
    check("XNNPACK qs8 per-tensor", xnn_y_q_per_tensor.data(), &y_q_per_tensor.elements[0][0],
          "xnnpack_qs8_per_tensor");
    if (exact == 0) std::printf("check %s: no int8 peer agrees with ctattn\n", label.c_str());
    return agree && exact > 0;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Attention

template <std::size_t N, std::size_t D>
struct attention_case {
  static constexpr double flops = 4.0 * static_cast<double>(N * N * D);
  static constexpr std::uint32_t q_seed = 201, k_seed = 202, v_seed = 203;

  ctattn::matrix<float, N, D> q, k, v, out;

  eigen_matrix<N, D> eigen_q, eigen_k, eigen_v, eigen_out;
  eigen_matrix<N, N> eigen_scores;

  buffer<float> peer_q{N * D}, peer_k{N * D}, peer_v{N * D}, peer_scores{N * N}, peer_out{N * D};
  dnnl::primitive onednn_scores, onednn_softmax, onednn_weighted;
  std::unordered_map<int, dnnl::memory> scores_args, softmax_args, weighted_args;
  std::string onednn_implementations;

  void prepare() {
    size_eigen(eigen_scores, N, N);
    for (auto [seed, a, b, c] : {std::tuple{q_seed, q.data(), eigen_q.data(), peer_q.data()},
                                 std::tuple{k_seed, k.data(), eigen_k.data(), peer_k.data()},
                                 std::tuple{v_seed, v.data(), eigen_v.data(), peer_v.data()}}) {
      fill(a, N * D, seed, 1.0f);
      fill(b, N * D, seed, 1.0f);
      fill(c, N * D, seed, 1.0f);
    }
    prepare_onednn();
  }

  // scores = Q K^T with 1/sqrt(d) as the matmul's output scale (K read transposed in place: tag ba over its n x d
  // storage), softmax over each row in place, out = scores V.
  // Rationale: the scale rides on the first product's output (no pass of its own), and K and V, activations that
  // change each call, are read as they lie: no reorder belongs in a fair call.
  void prepare_onednn() {
    auto& engine = onednn().engine;
    const dnnl::memory::desc q_desc({dim(N), dim(D)}, onednn_type::f32, onednn_tag::ab);
    const dnnl::memory::desc k_transposed({dim(D), dim(N)}, onednn_type::f32, onednn_tag::ba);
    const dnnl::memory::desc scores_desc({dim(N), dim(N)}, onednn_type::f32, onednn_tag::ab);
    const dnnl::memory::desc v_desc({dim(N), dim(D)}, onednn_type::f32, onednn_tag::ab);
    const dnnl::memory::desc out_desc({dim(N), dim(D)}, onednn_type::f32, onednn_tag::ab);
    dnnl::primitive_attr scaled;
    scaled.set_output_scales(0, {1.0f / std::sqrt(static_cast<float>(D))});
    const dnnl::matmul::primitive_desc scores_pd(dnnl::matmul::desc(q_desc, k_transposed, scores_desc), scaled, engine);
    const dnnl::softmax_forward::primitive_desc softmax_pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, scores_desc, 1), engine);
    const dnnl::matmul::primitive_desc weighted_pd(dnnl::matmul::desc(scores_desc, v_desc, out_desc), engine);
    onednn_scores = dnnl::matmul(scores_pd);
    onednn_softmax = dnnl::softmax_forward(softmax_pd);
    onednn_weighted = dnnl::matmul(weighted_pd);
    const dnnl::memory scores(scores_desc, engine, peer_scores.data());
    scores_args = {{DNNL_ARG_SRC, dnnl::memory(q_desc, engine, peer_q.data())},
                   {DNNL_ARG_WEIGHTS, dnnl::memory(k_transposed, engine, peer_k.data())},
                   {DNNL_ARG_DST, scores}};
    softmax_args = {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, scores}};
    weighted_args = {{DNNL_ARG_SRC, scores},
                     {DNNL_ARG_WEIGHTS, dnnl::memory(v_desc, engine, peer_v.data())},
                     {DNNL_ARG_DST, dnnl::memory(out_desc, engine, peer_out.data())}};
    onednn_implementations = std::string(scores_pd.impl_info_str()) + " + " + softmax_pd.impl_info_str() + " + " +
                             weighted_pd.impl_info_str();
  }

  void run_ctattn() { ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(out)); }

  // Scores, the row maximum subtracted, exp, each row divided by its sum, then the weighted values. The maxima and
  // sums go to a vector first (a partial reduction is lazy in Eigen).
  void run_eigen() {
    using column = Eigen::Matrix<float, static_cast<int>(N), 1>;
    eigen_scores.noalias() = eigen_q * eigen_k.transpose();
    eigen_scores *= 1.0f / std::sqrt(static_cast<float>(D));
    const column largest = eigen_scores.rowwise().maxCoeff();
    eigen_scores.array() = (eigen_scores.colwise() - largest).array().exp();
    const column total = eigen_scores.rowwise().sum();
    eigen_scores.array().colwise() /= total.array();
    eigen_out.noalias() = eigen_scores * eigen_v;
  }

  void run_onednn() {
    auto& stream = onednn().stream;
    onednn_scores.execute(stream, scores_args);
    onednn_softmax.execute(stream, softmax_args);
    onednn_weighted.execute(stream, weighted_args);
    stream.wait();
  }

  bool outputs_agree(const std::string& label) {
    run_ctattn();
    run_eigen();
    run_onednn();
    bool agree = fp32_agrees(label, "Eigen", eigen_out.data(), out.data(), N * D);
    agree &= fp32_agrees(label, "oneDNN", peer_out.data(), out.data(), N * D);
    return agree;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Registration and the tables

struct table_row {
  std::string label;   // "16x64x64", "n=6, d=16"
  std::string prefix;  // benchmark names are prefix + "/ctattn", "/eigen", ...
  double flops;
  std::string notes;  // oneDNN's implementations
};

template <std::size_t Rows, std::size_t In, std::size_t Out>
bool add_fc_case(std::vector<table_row>& fp32_rows, std::vector<table_row>& int8_rows) {
  using case_type = fc_case<Rows, In, Out>;
  case_type& c = instance<case_type>();
  const std::string label = std::to_string(Rows) + "x" + std::to_string(In) + "x" + std::to_string(Out);
  const bool agree = c.outputs_agree(label);
  const std::string fp32 = "fc_fp32/" + label;
  const std::string int8 = "fc_int8/" + label;
  const double flops = case_type::flops;
  register_kernel(fp32 + "/ctattn_out_by_in", flops, [&c] { c.run_ctattn(); });
  register_kernel(fp32 + "/ctattn_in_by_out", flops, [&c] { c.run_ctattn_in_by_out(); });
  register_kernel(fp32 + "/eigen", flops, [&c] { c.run_eigen(); });
  register_kernel(fp32 + "/onednn_matmul", flops, [&c] {
    c.onednn_matmul_fp32.run();
    onednn().stream.wait();
  });
  register_kernel(fp32 + "/onednn_inner_product", flops, [&c] {
    c.onednn_inner_product_fp32.run();
    onednn().stream.wait();
  });
  register_kernel(fp32 + "/xnnpack", flops, [&c] { xnn_run(c.xnn_fp32); });
  register_kernel(int8 + "/ctattn", flops, [&c] { c.run_ctattn_int8(); });
  register_kernel(int8 + "/onednn_matmul", flops, [&c] {
    c.onednn_matmul_int8.run();
    onednn().stream.wait();
  });
  register_kernel(int8 + "/onednn_inner_product", flops, [&c] {
    c.onednn_inner_product_int8.run();
    onednn().stream.wait();
  });
  register_kernel(int8 + "/xnnpack_qc8_conv1x1", flops, [&c] { xnn_run(c.xnn_qc8); });
  register_kernel(int8 + "/xnnpack_qs8_per_tensor", flops, [&c] { xnn_run(c.xnn_qs8); });
  register_kernel(int8 + "/ctattn_16x8", flops, [&c] { c.run_ctattn_int16(); });
  register_kernel(int8 + "/ctattn_int4_weights", flops, [&c] { c.run_ctattn_int4(); });
  fp32_rows.push_back({label, fp32, flops,
                       "matmul " + c.onednn_matmul_fp32.implementation + ", inner_product " +
                           c.onednn_inner_product_fp32.implementation});
  int8_rows.push_back({label, int8, flops,
                       "matmul " + c.onednn_matmul_int8.implementation + ", inner_product " +
                           c.onednn_inner_product_int8.implementation});
  return agree;
}

template <std::size_t N, std::size_t D>
bool add_attention_case(std::vector<table_row>& rows) {
  using case_type = attention_case<N, D>;
  case_type& c = instance<case_type>();
  const std::string label = "n=" + std::to_string(N) + ", d=" + std::to_string(D);
  const bool agree = c.outputs_agree(label);
  const std::string prefix = "attention/n" + std::to_string(N) + "_d" + std::to_string(D);
  register_kernel(prefix + "/ctattn", case_type::flops, [&c] { c.run_ctattn(); });
  register_kernel(prefix + "/eigen", case_type::flops, [&c] { c.run_eigen(); });
  register_kernel(prefix + "/onednn", case_type::flops, [&c] { c.run_onednn(); });
  rows.push_back({label, prefix, case_type::flops, c.onednn_implementations});
  return agree;
}

// The smaller of two times, NaN only when both are.
double fastest(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return std::min(a, b);
}

// "time (variant)" for a column whose figure is the faster of two variants.
std::string fastest_text(double a, const char* a_name, double b, const char* b_name) {
  const double best = fastest(a, b);
  if (std::isnan(best)) return "-";
  return format_time(best) + (best == a ? std::string(" (") + a_name + ")" : std::string(" (") + b_name + ")");
}

constexpr double not_applicable = std::numeric_limits<double>::quiet_NaN();

// An int8 peer's time on a row, not_applicable where its output was inexact (timed, left out of the comparison).
double exact_int8_time(const median_times& time, const table_row& row, const char* name) {
  return inexact_peers().count(row.prefix + name) != 0 ? not_applicable : time(row.prefix + name);
}

// The fastest exact int8 peer on a row.
double best_int8_peer(const median_times& time, const table_row& row) {
  return fastest(
      fastest(exact_int8_time(time, row, "/onednn_matmul"), exact_int8_time(time, row, "/onednn_inner_product")),
      exact_int8_time(time, row, "/xnnpack_qc8_conv1x1"));
}

// Whether a run filtered with --benchmark_filter timed any of a row's implementations: rows it did not are left out
// of the tables, and tables with no such row, rather than printed as dashes.
bool timed(const median_times& time, const table_row& row, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (!std::isnan(time(row.prefix + name))) return true;
  }
  return false;
}
bool any_timed(const median_times& time, const std::vector<table_row>& rows, std::initializer_list<const char*> names) {
  for (const table_row& row : rows) {
    if (timed(time, row, names)) return true;
  }
  return false;
}

void print_tables(const median_times& time, const std::vector<table_row>& fp32_rows,
                  const std::vector<table_row>& int8_rows, const std::vector<table_row>& attention_rows,
                  const std::string& repetitions) {
  const double peak = fma_flops_per_iteration / time("fma_peak");
  std::printf("\n%s, real time per call, one thread. FP32 FMA peak of this core (%s, %zu chains): %s GFLOP/s.\n",
              repetitions == "1" ? "One run each" : ("Medians of " + repetitions + " repetitions").c_str(), vector_name,
              fma_chains, format_number("%.1f", peak * 1e-9).c_str());

  if (any_timed(time, fp32_rows, {"/ctattn_out_by_in", "/ctattn_in_by_out"})) {
    std::printf("\n### fp32 fully connected, y = x W^T + b (rows x in x out)\n\n");
    std::printf("| case | ctattn | Eigen | oneDNN | XNNPACK | ctattn / best peer | ctattn %% of FMA peak |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (const table_row& row : fp32_rows) {
      if (!timed(time, row, {"/ctattn_out_by_in", "/ctattn_in_by_out"})) continue;
      const double out_by_in = time(row.prefix + "/ctattn_out_by_in");
      const double in_by_out = time(row.prefix + "/ctattn_in_by_out");
      const double eigen = time(row.prefix + "/eigen");
      const double matmul = time(row.prefix + "/onednn_matmul");
      const double inner_product = time(row.prefix + "/onednn_inner_product");
      const double xnnpack = time(row.prefix + "/xnnpack");
      const double best_peer = fastest(fastest(eigen, fastest(matmul, inner_product)), xnnpack);
      for (const auto& [layout, ctattn] : {std::pair{"out_by_in", out_by_in}, std::pair{"in_by_out", in_by_out}}) {
        const bool faster = ctattn == fastest(out_by_in, in_by_out);
        std::printf("| %s ctattn %s%s | %s | %s | %s | %s | %s | %s |\n", row.label.c_str(), layout,
                    faster ? " (faster layout)" : "", format_time(ctattn).c_str(), format_time(eigen).c_str(),
                    fastest_text(matmul, "matmul", inner_product, "inner_product").c_str(),
                    format_time(xnnpack).c_str(), format_number("%.2f", ctattn / best_peer).c_str(),
                    format_number("%.1f%%", 100.0 * row.flops / ctattn / peak).c_str());
      }
    }
  }

  if (any_timed(time, int8_rows, {"/ctattn"})) {
    std::printf("\n### int8 fully connected, TFLite's per-channel quantization (rows x in x out)\n\n");
    std::printf(
        "| case | ctattn | Eigen | oneDNN | XNNPACK | ctattn / best peer | ctattn int8 MAC/s %% of FP32 FMA peak "
        "MAC/s | ctattn int8 / ctattn fp32 |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (std::size_t i = 0; i < int8_rows.size(); ++i) {
      const table_row& row = int8_rows[i];
      if (!timed(time, row, {"/ctattn"})) continue;
      const double ctattn = time(row.prefix + "/ctattn");
      const double matmul = exact_int8_time(time, row, "/onednn_matmul");
      const double inner_product = exact_int8_time(time, row, "/onednn_inner_product");
      const double xnnpack = exact_int8_time(time, row, "/xnnpack_qc8_conv1x1");
      const double best_peer = best_int8_peer(time, row);
      const double fp32 =
          fastest(time(fp32_rows[i].prefix + "/ctattn_out_by_in"), time(fp32_rows[i].prefix + "/ctattn_in_by_out"));
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.label.c_str(), format_time(ctattn).c_str(),
                  format_time(not_applicable).c_str(),
                  fastest_text(matmul, "matmul", inner_product, "inner_product, folded").c_str(),
                  format_time(xnnpack).c_str(), format_number("%.2f", ctattn / best_peer).c_str(),
                  format_number("%.1f%%", 100.0 * row.flops / ctattn / peak).c_str(),
                  format_number("%.2f", ctattn / fp32).c_str());
    }
    std::printf(
        "\nXNNPACK int8 is its per-channel 1 x 1 convolution (this XNNPACK has no per-channel fully-connected "
        "operator). Its per-tensor fully_connected_nc_qs8 on the same shapes:");
    for (const table_row& row : int8_rows) {
      if (!timed(time, row, {"/xnnpack_qs8_per_tensor"})) continue;
      std::printf(" %s %s;", row.label.c_str(), format_time(time(row.prefix + "/xnnpack_qs8_per_tensor")).c_str());
    }
    std::printf("\nctattn's int8 backend: %s. Eigen has no int8 layer.\n", ctattn::int8_backend_name);
    if (!inexact_peers().empty()) {
      std::printf("Inexact (more than one step from ctattn and TFLite; timed, not compared):");
      for (const std::string& name : inexact_peers())
        std::printf(" %s %s;", name.c_str(), format_time(time(name)).c_str());
      std::printf("\n");
    }
  }

  if (any_timed(time, int8_rows, {"/ctattn", "/ctattn_16x8", "/ctattn_int4_weights"})) {
    std::printf(
        "\n### 16x8 and int4 weights (ctattn only: neither oneDNN 2.6 nor XNNPACK 2022-02 has either operation)\n\n");
    std::printf(
        "| case | ctattn int8 | ctattn 16x8 | 16x8 / int8 | 16x8 MAC/s %% of FP32 FMA peak MAC/s | ctattn int4 weights | "
        "int4 / int8 | int8 best peer / ctattn 16x8 |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const table_row& row : int8_rows) {
      if (!timed(time, row, {"/ctattn", "/ctattn_16x8", "/ctattn_int4_weights"})) continue;
      const double int8 = time(row.prefix + "/ctattn");
      const double int16 = time(row.prefix + "/ctattn_16x8");
      const double int4 = time(row.prefix + "/ctattn_int4_weights");
      const double best_peer = best_int8_peer(time, row);
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.label.c_str(), format_time(int8).c_str(),
                  format_time(int16).c_str(), format_number("%.2f", int16 / int8).c_str(),
                  format_number("%.1f%%", 100.0 * row.flops / int16 / peak).c_str(), format_time(int4).c_str(),
                  format_number("%.2f", int4 / int8).c_str(), format_number("%.2f", best_peer / int16).c_str());
    }
    std::printf(
        "\n16x8: int16 activations, per-channel int8 weights, int64 bias (TFLite's 16x8); int4 weights: per channel, "
        "two a byte, int8 activations. ctattn's int16 kernels: %s.\n",
        ctattn::int8_backend_name);
  }

  if (any_timed(time, attention_rows, {"/ctattn"})) {
    std::printf("\n### attention, softmax(Q K^T / sqrt(d)) V, one head\n\n");
    std::printf("| case | ctattn | Eigen | oneDNN | XNNPACK | ctattn / best peer | ctattn %% of FMA peak |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (const table_row& row : attention_rows) {
      if (!timed(time, row, {"/ctattn"})) continue;
      const double ctattn = time(row.prefix + "/ctattn");
      const double eigen = time(row.prefix + "/eigen");
      const double onednn_time = time(row.prefix + "/onednn");
      std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", row.label.c_str(), format_time(ctattn).c_str(),
                  format_time(eigen).c_str(), format_time(onednn_time).c_str(), format_time(not_applicable).c_str(),
                  format_number("%.2f", ctattn / fastest(eigen, onednn_time)).c_str(),
                  format_number("%.1f%%", 100.0 * row.flops / ctattn / peak).c_str());
    }
    std::printf(
        "\nXNNPACK (2022-02) has no attention operator: no XNNPACK figure. oneDNN attention is matmul (scale "
        "1/sqrt(d) as its output scale) + softmax in place + matmul, three primitives per call.\n");
  }

  std::printf("\noneDNN implementations chosen:\n");
  for (const auto* rows : {&fp32_rows, &int8_rows, &attention_rows}) {
    for (const table_row& row : *rows) {
      if (timed(time, row, {"/onednn_matmul", "/onednn_inner_product", "/onednn"}))
        std::printf("  %s: %s\n", row.prefix.c_str(), row.notes.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string repetitions;
  if (!ctattn_bench::start_benchmarks(argc, argv, repetitions)) return 1;
  // One thread everywhere, before any primitive or operator exists.
  const std::string onednn_threads = limit_onednn_to_one_thread();
  xnn_check(xnn_initialize(nullptr), "xnn_initialize");
  const dnnl_version_t* version = dnnl_version();
  std::printf(
      "oneDNN %d.%d.%d, CPU runtime %s (its implementations, which name the ISA, are listed after the "
      "tables); XNNPACK without a thread pool\n",
      version->major, version->minor, version->patch, onednn_threads.c_str());

  benchmark::RegisterBenchmark("fma_peak", fma_peak)->UseRealTime()->Unit(benchmark::kMicrosecond);

  std::vector<table_row> fp32_rows;
  std::vector<table_row> int8_rows;
  std::vector<table_row> attention_rows;
  bool agree = true;
  try {
    agree &= add_fc_case<16, 64, 64>(fp32_rows, int8_rows);
    agree &= add_fc_case<64, 64, 64>(fp32_rows, int8_rows);
    agree &= add_fc_case<16, 64, 256>(fp32_rows, int8_rows);
    agree &= add_fc_case<7, 512, 512>(fp32_rows, int8_rows);
    // A few rows, a prompt's or a small batch's: below the 8-row tile, where each backend's panel width for M rows
    // decides the speed (kernels/detail/simd.hpp, `panel_vectors`).
    agree &= add_fc_case<3, 512, 512>(fp32_rows, int8_rows);
    agree &= add_fc_case<5, 512, 512>(fp32_rows, int8_rows);
    agree &= add_fc_case<1, 512, 512>(fp32_rows, int8_rows);
    agree &= add_attention_case<6, 16>(attention_rows);
    agree &= add_attention_case<16, 64>(attention_rows);
    agree &= add_attention_case<64, 64>(attention_rows);
    agree &= add_attention_case<128, 128>(attention_rows);
    agree &= add_attention_case<256, 64>(attention_rows);
  } catch (const dnnl::error& e) {
    std::printf("oneDNN refused a primitive: %s (status %d)\n", e.what(), static_cast<int>(e.status));
    return 1;
  }
  if (!agree) {
    std::printf("the implementations disagree: no timings\n");
    return 1;
  }

  median_times times;
  benchmark::RunSpecifiedBenchmarks(&times);
  print_tables(times, fp32_rows, int8_rows, attention_rows, repetitions);
  benchmark::Shutdown();
  return 0;
}
