/// \file
/// Firmware benchmark of a whole model: a keyword transformer in int8 run by ctattn, and the same model composed of
/// Arm's CMSIS-NN kernels as TFLite Micro would run it, in one image, on the same int8 input, with the same int8
/// weights, biases and quantizations (read from ctattn's quantized model). Two models, one per image:
/// KWT-Tiny's size (firmware/models/kwt_tiny.hpp: n = 50 rows, d = 16, MLP 32, one layer, 2 classes; the image
/// kwt_tiny_cmsis_nn) and KWT-1 (firmware/models/kwt1.hpp: n = 99, d = 64, MLP 256, 12 layers, 35 classes; the image
/// kwt1_cmsis_nn, built with CTATTN_KWT_BENCHMARK_KWT1=1).
///
/// | step (rows x in x out)        | ctattn                         | the CMSIS-NN composition                      |
/// |-------------------------------|--------------------------------|-----------------------------------------------|
/// | patch embedding n-1 x f x d   | `qlinear`                      | `arm_fully_connected_per_channel_s8`          |
/// | class token, positions n x d  | `qclass_token`, `qposition_embedding` | a copy (requantized), `arm_elementwise_add_s8` |
/// | per layer:                    |                                |                                               |
/// | Q, K, V, W_O n x d x d        | the int8 attention             | `arm_fully_connected_per_channel_s8` (4 calls) |
/// | Q K^T n x d x n               |                                | `arm_batch_matmul_s8` (rhs K)                 |
/// | softmax n x n                 |                                | `arm_softmax_s8`                              |
/// | P V n x n x d                 |                                | V transposed (a C loop), `arm_batch_matmul_s8` |
/// | two residual sums n x d       | `add`                          | `arm_elementwise_add_s8`                      |
/// | two LayerNorms n x d          | `normalize`                    | plain C (below)                               |
/// | n x d x MLP, GELU, n x MLP x d | `qlinear`, its table          | FC, a 256-entry table in C (TFLite's int8 GELU), FC |
/// | class row, head 1 x d x classes | `qclass_token_pool`, `qlinear` | a pointer, `arm_fully_connected_per_channel_s8` |
///
/// What is compared, per board (benchmarks/firmware_models_cmsis_nn.sh prints the table of docs/firmware.md):
///   - instructions per inference of each side (calibrated SysTick; exact under `qemu-system-arm -icount shift=0`);
///   - RAM per inference: ctattn's is the stack its forward paints (every activation lives there) plus its output;
///     the composition's is its tensor arena (the activations, laid out by hand as TFLite Micro's greedy planner
///     would: tensors whose lifetimes do not overlap share bytes), the scratch and per-layer buffers CMSIS-NN asks
///     for, and the stack its calls paint;
///   - the logits: ctattn's must equal the compiler's (KWT-1: the build machine's) bit for bit; the composition's may
///     differ by a few output steps (its softmax is TFLite's, its LayerNorm the integer one below), and must be within
///     `composition_tolerance` steps of ctattn's, which shows that both compute the same model.
///
/// The LayerNorm of the composition, in plain C as a TFLite Micro user writes it (TFLite has no int8 LayerNorm
/// kernel, and CMSIS-NN none): per row, the sum and the sum of squares of the int8 values in int32, the variance
/// times C^2 (D = C sum x^2 - (sum x)^2 + eps C^2 / s_in^2) in int64, its square root by a bit-by-bit integer
/// square root of D 2^16, one 64-bit division per row for the reciprocal, and per element two 64-bit products
/// (the normalized value in Q16, then gamma / s_out in Q16) and the rounded sum with beta / s_out + z_out in Q32.
///
/// Built only when CTATTN_CMSIS_NN_DIR names a CMSIS-NN source tree (benchmarks/firmware/CMakeLists.txt). Exit code
/// 0 when ctattn's logits are the compiler's and the composition's are within the tolerance.

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <type_traits>

#include <arm_nnfunctions.h>
#include <arm_nnsupportfunctions.h>

#ifndef CTATTN_KWT_BENCHMARK_CTATTN
#define CTATTN_KWT_BENCHMARK_CTATTN 1  // 0: the composition alone (benchmarks/firmware/CMakeLists.txt)
#endif
#ifndef CTATTN_KWT_BENCHMARK_KWT1
#define CTATTN_KWT_BENCHMARK_KWT1 0  // 1: KWT-1; 0: the KWT-Tiny-size model
#endif
#if !CTATTN_KWT_BENCHMARK_CTATTN
// Rationale: this image does not run ctattn's inference, so the model's check that its RAM fits the image's stack
// (kwt_tiny.hpp) does not apply; the kwt_tiny_int8 image, with a stack of its own, makes it.
#undef CTATTN_FIRMWARE_STACK_BYTES
#endif
#if CTATTN_KWT_BENCHMARK_KWT1
#include "../../firmware/models/kwt1_int8.hpp"
#else
#include "../../firmware/models/kwt_tiny.hpp"
#endif
#include "../../firmware/runtime/check_model.hpp"
#include "../../firmware/runtime/report.hpp"
#include "measure.hpp"

namespace {

using ctattn_firmware::opaque;
using ctattn_firmware::report_line;
#if CTATTN_KWT_BENCHMARK_KWT1
namespace kwt = ctattn_firmware::models::kwt1;
using checked_model = ctattn_firmware::models::kwt1_int8;
constexpr std::size_t layer_count = kwt::layers;
constexpr const char* model_name = "KWT-1";
constexpr const char* model_key = "kwt1_int8";
#else
namespace kwt = ctattn_firmware::models::kwt;
using checked_model = ctattn_firmware::models::kwt_tiny_int8;
constexpr std::size_t layer_count = 1;
constexpr const char* model_name = "KWT-Tiny-size";
constexpr const char* model_key = "kwt_tiny_int8";
#endif

// ---------------------------------------------------------------------------------------------------------------
// The int8 model's layers, as ctattn::quantize made them: the front end (layers 0-2), the encoder layers spliced
// from their sequential (3 to 2 + layer_count), the class token's row and the head.

constexpr const auto& model = kwt::int8_weights;
constexpr const auto& patch = model.layer<0>();
constexpr const auto& class_token = model.layer<1>();
constexpr const auto& positions = model.layer<2>();
constexpr const auto& head = model.layer<4 + layer_count>();
template <std::size_t L>
constexpr const auto& encoder = model.layer<3 + L>();
using encoder_type = std::remove_cvref_t<decltype(encoder<0>)>;
static_assert(!encoder_type::norm_first, "the composition is written for KWT's post-norm layer");

constexpr std::size_t frames = kwt::frames;
constexpr std::size_t tokens = frames + 1;
constexpr std::size_t width = kwt::width;
constexpr std::size_t hidden_width = decltype(encoder<0>.linear1)::outputs;
constexpr std::size_t classes = std::remove_cvref_t<decltype(head)>::outputs;
constexpr ctattn::quantization q_patch = std::remove_cvref_t<decltype(patch)>::output_quantization;
constexpr ctattn::quantization q_tokens = std::remove_cvref_t<decltype(class_token)>::output_quantization;
constexpr ctattn::quantization q_positions = decltype(positions.positions)::quant;
static_assert(std::remove_cvref_t<decltype(positions)>::output_quantization == encoder_type::quantizations.input);

/// The logits, and ctattn's: the compiler's (KWT-Tiny), or the build machine's (KWT-1, firmware/tools/).
using int8_logits = typename checked_model::logits;
constexpr auto example = checked_model::example();
template <typename M>
constexpr int8_logits expected_logits() noexcept {
  if constexpr (ctattn_firmware::from_build_machine<M>) {
    return M::expected().first;
  } else {
    return kwt::int8_weights.forward(M::example().frames[0]);
  }
}
constexpr int8_logits expected = expected_logits<checked_model>();

/// The last encoder layer's output (n x d), ctattn's: the composition's is compared with it too, as a few logits
/// alone (which may saturate) would show little. KWT-Tiny: from the compiler; KWT-1: computed by ctattn at run time
/// (untimed), as the compiler cannot (ctattn's logits from the same run are checked against the build machine's).
/// ctattn's encoder layers L, L + 1, ... on x (each layer's output has a quantization, and so a type, of its own).
template <std::size_t L, typename X>
constexpr auto encoder_layers_from(const X& x) noexcept {
  if constexpr (L == layer_count) {
    return x;
  } else {
    return encoder_layers_from<L + 1>(encoder<L>.forward(x));
  }
}
constexpr auto encoded_by_ctattn(const kwt::int8_input& x) noexcept {
  return encoder_layers_from<0>(positions.forward(class_token.forward(patch.forward(x))));
}
using encoded_type = decltype(encoded_by_ctattn(example.frames[0]));
#if !CTATTN_KWT_BENCHMARK_KWT1
constexpr encoded_type expected_encoded = encoded_by_ctattn(example.frames[0]);
#endif

/// How far (in output steps) the composition's logits and encoder outputs may be from ctattn's: 6 after one layer;
/// 16 after KWT-1's twelve, whose differences compound (its LayerNorm and softmax round otherwise than ctattn's:
/// measured on the M4F, 4,635 of 6,336 encoder outputs differ, by at most 10 steps, the logits by at most 12). For
/// KWT-1 the composition must also be no further than twice ctattn's distance from the float model's logits (7.9 and
/// 10.1 steps measured): both are the same model in int8.
constexpr std::int32_t composition_tolerance = CTATTN_KWT_BENCHMARK_KWT1 ? 16 : 6;

// ---------------------------------------------------------------------------------------------------------------
// What the composition reads, made once (TFLite Micro's prepare step): TFLite's biases and each FC's per-channel
// multipliers and shifts, in flash; the LayerNorms' and the attention's constants.

template <std::size_t Out>
struct fc_constants {
  std::int32_t bias[Out];
  std::int32_t multiplier[Out];
  std::int32_t shift[Out];
};
template <typename L>
constexpr fc_constants<L::outputs> fc_constants_of(const L& layer) noexcept {
  fc_constants<L::outputs> k{};
  for (std::size_t c = 0; c < L::outputs; ++c) {
    k.bias[c] = layer.bias(c);
    k.multiplier[c] = layer.multipliers[c].multiplier;
    k.shift[c] = layer.multipliers[c].shift;
  }
  return k;
}
constexpr auto patch_k = fc_constants_of(patch);
constexpr auto head_k = fc_constants_of(head);

/// The plain-C LayerNorm's constants (the file's comment): per channel gamma / s_out in Q16, beta / s_out + z_out in
/// Q32; eps C^2 / s_in^2 rounded.
struct layer_norm_constants {
  std::int64_t gain[width];
  std::int64_t offset[width];
  std::int64_t epsilon;
};
constexpr layer_norm_constants layer_norm_constants_of(std::string_view name, ctattn::quantization in,
                                                       ctattn::quantization out) noexcept {
  layer_norm_constants k{};
  double gamma[width]{};
  double beta[width]{};
  ctattn::for_each_parameter(kwt::weights, [&](std::string_view n, const auto& view) {
    if (n.starts_with(name) && n.size() == name.size() + 7 && n.ends_with(".weight")) {
      for (std::size_t j = 0; j < width; ++j) gamma[j] = static_cast<double>(view[j]);
    }
    if (n.starts_with(name) && n.size() == name.size() + 5 && n.ends_with(".bias")) {
      for (std::size_t j = 0; j < width; ++j) beta[j] = static_cast<double>(view[j]);
    }
  });
  const auto round = [](double v) { return static_cast<std::int64_t>(v < 0 ? v - 0.5 : v + 0.5); };
  for (std::size_t j = 0; j < width; ++j) {
    k.gain[j] = round(gamma[j] / out.scale() * 0x1p16);
    k.offset[j] = round((beta[j] / out.scale() + out.zero_point) * 0x1p32);
  }
  k.epsilon = round(1e-6 * width * width / (in.scale() * in.scale()));
  return k;
}
/// "layers.<L>.<norm>", the state_dict prefix of layer L's LayerNorm.
struct norm_name {
  char text[24];
  std::size_t size;
  constexpr std::string_view view() const noexcept { return {text, size}; }
};
constexpr norm_name norm_name_of(std::size_t layer, std::string_view norm) noexcept {
  norm_name n{};
  for (const char c : std::string_view{"layers."}) n.text[n.size++] = c;
  if (layer >= 10) n.text[n.size++] = static_cast<char>('0' + layer / 10);
  n.text[n.size++] = static_cast<char>('0' + layer % 10);
  n.text[n.size++] = '.';
  for (const char c : norm) n.text[n.size++] = c;
  return n;
}

/// What the composition reads for encoder layer L, made once.
template <std::size_t L>
struct layer_constants {
  static constexpr ctattn::encoder_layer_quantizations q = std::remove_cvref_t<decltype(encoder<L>)>::quantizations;
  static constexpr auto query = fc_constants_of(encoder<L>.self_attn.query);
  static constexpr auto key = fc_constants_of(encoder<L>.self_attn.key);
  static constexpr auto value = fc_constants_of(encoder<L>.self_attn.value);
  static constexpr auto output = fc_constants_of(encoder<L>.self_attn.output);
  static constexpr auto linear1 = fc_constants_of(encoder<L>.linear1);
  static constexpr auto linear2 = fc_constants_of(encoder<L>.linear2);
  static constexpr layer_norm_constants norm1 =
      layer_norm_constants_of(norm_name_of(L, "norm1").view(), q.sum1, q.norm1);
  static constexpr layer_norm_constants norm2 =
      layer_norm_constants_of(norm_name_of(L, "norm2").view(), q.sum2, q.output);
  using attention_multipliers =
      ctattn::detail::int8_attention_multipliers<q.query, q.key, q.value, q.scores, q.context, width>;
  /// TFLite's softmax prepare for beta 1 and 5 integer bits (as benchmarks/firmware/int8_kernels.cpp's): the input
  /// multiplier of scale 2^26 and the smallest difference that fits.
  static constexpr ctattn::math::quantized_multiplier softmax_multiplier =
      ctattn::math::quantize_multiplier(static_cast<double>(static_cast<float>(q.scores.scale())) * 0x1p26);
  static constexpr std::int32_t softmax_diff_min =
      -static_cast<std::int32_t>((std::int64_t{31} << 26) >> softmax_multiplier.shift);
};

// ---------------------------------------------------------------------------------------------------------------
// The composition's memory: the tensor arena and CMSIS-NN's buffers.

/// Where each activation lives in the arena (byte offsets), planned by hand from the tensors' lifetimes as TFLite
/// Micro's greedy planner places them: a tensor takes bytes whose earlier tensor is no longer read. The largest
/// live set is X, V, the scores and the softmax's output (2 m + 2 n^2 bytes), or in the feed-forward block the
/// first LayerNorm's output, the hidden layer and its activation (m + 2 h). Each layer's output lands where the
/// next layer reads its input (offset 0).
namespace at {
constexpr std::size_t m = tokens * width;         // one n x d activation
constexpr std::size_t n2 = tokens * tokens;       // one n x n matrix of scores or weights
constexpr std::size_t h = tokens * hidden_width;  // one n x MLP activation
constexpr std::size_t x = 0;                      // the layer's input: until the first sum
constexpr std::size_t patch_out = m;              // the patch embedding's 49 rows: until copied
constexpr std::size_t token_rows = 2 * m;         // the class token and the frames: until the positions are added
constexpr std::size_t value = m;                  // V: until transposed
constexpr std::size_t scores = 2 * m;             // Q K^T: until the softmax
constexpr std::size_t query = 2 * m + n2;         // Q and K: until the scores
constexpr std::size_t key = 3 * m + n2;
constexpr std::size_t weights = 2 * m + n2;  // the softmax's output, over Q and K: until P V
constexpr std::size_t value_t = 2 * m;       // V^T, over the scores
constexpr std::size_t context = 3 * m;
constexpr std::size_t attention = m;       // over V
constexpr std::size_t sum1 = 2 * m;        // over V^T
constexpr std::size_t norm1 = 0;           // over X: until the second sum
constexpr std::size_t hidden = m;          // n x MLP, over the attention and the first sum
constexpr std::size_t activation = m + h;  // n x MLP
constexpr std::size_t feed_forward = m;    // over the hidden layer
constexpr std::size_t sum2 = 2 * m;        // over the hidden layer (h >= 2 m)
constexpr std::size_t output = 0;          // over the first LayerNorm's: the next layer's input
constexpr std::size_t bytes = 2 * m + 2 * n2 > m + 2 * h ? 2 * m + 2 * n2 : m + 2 * h;
static_assert(h >= 2 * m, "the plan puts the second sum over the hidden layer");
static_assert(activation + h <= bytes && key + m <= bytes);
}  // namespace at

alignas(16) std::int8_t arena[at::bytes];

/// CMSIS-NN's buffers: the scratch it asks for per call (the rhs sums of a batch matmul on Helium), and the kernel
/// sums of each fully-connected layer, which TFLite Micro computes once per layer at prepare time and keeps (on
/// Helium; elsewhere CMSIS-NN asks for none).
constexpr bool helium_sums =
#if defined(ARM_MATH_MVEI)
    true;
#else
    false;
#endif
template <std::size_t Out>
struct kernel_sums {
  std::int32_t sums[helium_sums ? Out : 1];
};
alignas(8) std::int32_t matmul_scratch[helium_sums ? tokens : 1];
kernel_sums<width> patch_sums;
kernel_sums<classes> head_sums;
struct layer_sums {
  kernel_sums<width> query, key, value, output, linear2;
  kernel_sums<hidden_width> linear1;
};
layer_sums layer_buffers[layer_count];
constexpr std::size_t buffer_bytes =
    sizeof matmul_scratch + sizeof patch_sums + sizeof head_sums + sizeof layer_buffers;

template <typename L, std::size_t Out>
void prepare_fc(const L& layer, const fc_constants<Out>& k, kernel_sums<Out>& sums) noexcept {
  if constexpr (helium_sums) {
    arm_vector_sum_s8(sums.sums, static_cast<std::int32_t>(L::inputs), static_cast<std::int32_t>(Out),
                      &layer.weight[0][0], -L::input_quantization.zero_point, 0, k.bias);
  }
}

template <std::size_t L>
void prepare_layer() noexcept {
  using k = layer_constants<L>;
  layer_sums& sums = layer_buffers[L];
  prepare_fc(encoder<L>.self_attn.query, k::query, sums.query);
  prepare_fc(encoder<L>.self_attn.key, k::key, sums.key);
  prepare_fc(encoder<L>.self_attn.value, k::value, sums.value);
  prepare_fc(encoder<L>.self_attn.output, k::output, sums.output);
  prepare_fc(encoder<L>.linear1, k::linear1, sums.linear1);
  prepare_fc(encoder<L>.linear2, k::linear2, sums.linear2);
}

void prepare() noexcept {
  prepare_fc(patch, patch_k, patch_sums);
  [&]<std::size_t... L>(std::index_sequence<L...>) {
    (prepare_layer<L>(), ...);
  }(std::make_index_sequence<layer_count>{});
  prepare_fc(head, head_k, head_sums);
}

// ---------------------------------------------------------------------------------------------------------------
// The composition's steps.

bool failed = false;  // a CMSIS-NN call returned an error

void check(arm_cmsis_nn_status status) noexcept {
  if (status != ARM_CMSIS_NN_SUCCESS) failed = true;
}

/// rows x In -> rows x Out through `arm_fully_connected_per_channel_s8`.
template <typename L, std::size_t Out>
void fully_connected(const L& layer, const fc_constants<Out>& k, kernel_sums<Out>& sums, const std::int8_t* in,
                     std::size_t rows, std::int8_t* out) noexcept {
  const auto* weights = opaque(&layer);
  const auto* constants = opaque(&k);
  const cmsis_nn_context ctx{helium_sums ? sums.sums : nullptr,
                             helium_sums ? static_cast<std::int32_t>(sizeof sums) : 0};
  const cmsis_nn_fc_params fc{-L::input_quantization.zero_point, 0, L::output_quantization.zero_point, {-128, 127}};
  const cmsis_nn_per_channel_quant_params quant{const_cast<std::int32_t*>(constants->multiplier),
                                                const_cast<std::int32_t*>(constants->shift)};
  const auto in_n = static_cast<std::int32_t>(L::inputs);
  const auto out_n = static_cast<std::int32_t>(Out);
  const cmsis_nn_dims input_dims{static_cast<std::int32_t>(rows), 1, 1, in_n};
  const cmsis_nn_dims filter_dims{in_n, 1, 1, out_n};
  const cmsis_nn_dims bias_dims{1, 1, 1, out_n};
  const cmsis_nn_dims output_dims{static_cast<std::int32_t>(rows), 1, 1, out_n};
  check(arm_fully_connected_per_channel_s8(&ctx, &fc, &quant, &input_dims, in, &filter_dims, &weights->weight[0][0],
                                           &bias_dims, constants->bias, &output_dims, out));
}

/// lhs (m x k) times the rows of rhs (n x k), transposed: m x n, through `arm_batch_matmul_s8`.
void batch_matmul(const std::int8_t* lhs, ctattn::quantization q_lhs, const std::int8_t* rhs,
                  ctattn::quantization q_rhs, std::size_t m, std::size_t k, std::size_t n,
                  ctattn::math::quantized_multiplier multiplier, ctattn::quantization q_out,
                  std::int8_t* out) noexcept {
  const cmsis_nn_context ctx{helium_sums ? matmul_scratch : nullptr,
                             helium_sums ? static_cast<std::int32_t>(n * sizeof(std::int32_t)) : 0};
  const cmsis_nn_bmm_params bmm{false, false, {-q_lhs.zero_point, -q_rhs.zero_point, q_out.zero_point, {-128, 127}}};
  const cmsis_nn_per_tensor_quant_params quant{multiplier.multiplier, multiplier.shift};
  const cmsis_nn_dims lhs_dims{1, 1, static_cast<std::int32_t>(m), static_cast<std::int32_t>(k)};
  const cmsis_nn_dims rhs_dims{1, 1, static_cast<std::int32_t>(n), static_cast<std::int32_t>(k)};
  const cmsis_nn_dims output_dims{1, 1, static_cast<std::int32_t>(m), static_cast<std::int32_t>(n)};
  check(arm_batch_matmul_s8(&ctx, &bmm, &quant, &lhs_dims, lhs, &rhs_dims, rhs, &output_dims, out));
}

/// a + b over `count` elements (TFLite's ADD) through `arm_elementwise_add_s8`.
template <ctattn::quantization QA, ctattn::quantization QB, ctattn::quantization QOut>
void add(const std::int8_t* a, const std::int8_t* b, std::size_t count, std::int8_t* out) noexcept {
  using k = ctattn::detail::quantized_add_constants<QA, QB, QOut>;
  check(arm_elementwise_add_s8(a, b, -QA.zero_point, k::a.multiplier, k::a.shift, -QB.zero_point, k::b.multiplier,
                               k::b.shift, k::left_shift, out, QOut.zero_point, k::out.multiplier, k::out.shift, -128,
                               127, static_cast<std::int32_t>(count)));
}

/// floor(sqrt(v)), bit by bit.
std::uint64_t integer_sqrt(std::uint64_t v) noexcept {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

/// The plain-C int8 LayerNorm of `rows` rows of `width` (the file's comment).
void layer_norm(const std::int8_t* in, std::size_t rows, const layer_norm_constants& k, std::int8_t* out) noexcept {
  constexpr auto c = static_cast<std::int32_t>(width);
  for (std::size_t r = 0; r < rows; ++r, in += width, out += width) {
    std::int32_t sum = 0;
    std::int32_t squares = 0;
    for (std::size_t j = 0; j < width; ++j) {
      sum += in[j];
      squares += std::int32_t{in[j]} * in[j];
    }
    const std::int64_t d = std::int64_t{c} * squares - std::int64_t{sum} * sum + k.epsilon;
    const std::uint64_t root = integer_sqrt(static_cast<std::uint64_t>(d) << 16);  // sqrt(D) 2^8
    const std::int64_t reciprocal =
        static_cast<std::int64_t>(((std::uint64_t{1} << 40) + root / 2) / (root ? root : 1));
    for (std::size_t j = 0; j < width; ++j) {
      const std::int64_t normalized = (std::int64_t{c * in[j] - sum} * reciprocal) >> 16;  // Q16
      const std::int64_t y = (normalized * k.gain[j] + k.offset[j] + (std::int64_t{1} << 31)) >> 32;
      out[j] = static_cast<std::int8_t>(y < -128 ? -128 : (y > 127 ? 127 : y));
    }
  }
}

/// Encoder layer L of the composition: its input at offset 0 of the arena, its output written there.
// Rationale: inlined into the composition, as one layer's steps were written there before KWT-1 (a frame of its own
// would add to the composition's painted stack what the model does not need).
template <std::size_t L>
[[gnu::always_inline]] inline void encoder_layer(std::int8_t* const a) noexcept {
  using k = layer_constants<L>;
  constexpr ctattn::encoder_layer_quantizations q = k::q;
  constexpr const auto& layer = encoder<L>;
  layer_sums& sums = layer_buffers[L];
  // Self-attention (one head): Q, K, V; the scores; the softmax; V transposed; P V; W_O.
  fully_connected(layer.self_attn.value, k::value, sums.value, a + at::x, tokens, a + at::value);
  fully_connected(layer.self_attn.query, k::query, sums.query, a + at::x, tokens, a + at::query);
  fully_connected(layer.self_attn.key, k::key, sums.key, a + at::x, tokens, a + at::key);
  batch_matmul(a + at::query, q.query, a + at::key, q.key, tokens, width, tokens, k::attention_multipliers::scores,
               q.scores, a + at::scores);
  arm_softmax_s8(a + at::scores, static_cast<std::int32_t>(tokens), static_cast<std::int32_t>(tokens),
                 k::softmax_multiplier.multiplier, k::softmax_multiplier.shift, k::softmax_diff_min, a + at::weights);
  // Rationale: TFLite's BATCH_MATMUL takes V as it is (tokens x width) and TFLite Micro's CMSIS-NN kernel transposes
  // it into V's rows before calling arm_batch_matmul_s8, as this loop does.
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t j = 0; j < width; ++j) a[at::value_t + j * tokens + t] = a[at::value + t * width + j];
  }
  batch_matmul(a + at::weights, ctattn::softmax_output_quantization, a + at::value_t, q.value, tokens, tokens, width,
               k::attention_multipliers::output, q.context, a + at::context);
  fully_connected(layer.self_attn.output, k::output, sums.output, a + at::context, tokens, a + at::attention);

  // Post-norm: the first sum and LayerNorm, the feed-forward block, the second sum and LayerNorm.
  add<q.input, q.attention, q.sum1>(a + at::x, a + at::attention, tokens * width, a + at::sum1);
  layer_norm(a + at::sum1, tokens, *opaque(&k::norm1), a + at::norm1);
  fully_connected(layer.linear1, k::linear1, sums.linear1, a + at::norm1, tokens, a + at::hidden);
  const auto* table = opaque(&layer.activation.table);
  for (std::size_t i = 0; i < tokens * hidden_width; ++i) {
    a[at::activation + i] = (*table)[static_cast<std::uint8_t>(a[at::hidden + i] + 128)];
  }
  fully_connected(layer.linear2, k::linear2, sums.linear2, a + at::activation, tokens, a + at::feed_forward);
  add<q.norm1, q.feed_forward, q.sum2>(a + at::norm1, a + at::feed_forward, tokens * width, a + at::sum2);
  layer_norm(a + at::sum2, tokens, *opaque(&k::norm2), a + at::output);
}

/// Encoder layers L, L + 1, ... of the composition, inlined as `encoder_layer` is.
template <std::size_t L>
[[gnu::always_inline]] inline void encoder_layers(std::int8_t* const a) noexcept {
  if constexpr (L < layer_count) {
    encoder_layer<L>(a);
    encoder_layers<L + 1>(a);
  }
}

/// One inference of the composition: int8 frames in, int8 logits out.
[[gnu::noinline]] void composition(const std::int8_t* frames_in, std::int8_t* logits) noexcept {
  std::int8_t* const a = arena;
  // Front end: the patch embedding, the class token before the frames, the positions added.
  fully_connected(patch, patch_k, patch_sums, frames_in, frames, a + at::patch_out);
  const auto* token = opaque(&class_token.token);
  std::int8_t* rows = a + at::token_rows;
  for (std::size_t j = 0; j < width; ++j) rows[j] = token->elements[0][j];
  if constexpr (q_patch == q_tokens) {
    for (std::size_t i = 0; i < frames * width; ++i) rows[width + i] = a[at::patch_out + i];
  } else {
    constexpr auto r = ctattn::math::quantize_multiplier(q_patch.scale() / q_tokens.scale());
    for (std::size_t i = 0; i < frames * width; ++i) {
      const std::int32_t v =
          arm_nn_requantize(a[at::patch_out + i] - q_patch.zero_point, r.multiplier, r.shift) + q_tokens.zero_point;
      rows[width + i] = static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
  }
  add<q_tokens, q_positions, encoder_type::quantizations.input>(rows, &opaque(&positions)->positions.elements[0][0],
                                                                tokens * width, a + at::x);
  encoder_layers<0>(a);

  // The class token's row and the head.
  fully_connected(head, head_k, head_sums, a + at::output, 1, logits);
}

// ---------------------------------------------------------------------------------------------------------------
// ctattn's side.

#if CTATTN_KWT_BENCHMARK_CTATTN
int8_logits ctattn_logits;

[[gnu::noinline]] void ctattn_inference(const kwt::int8_input& x) noexcept {
  ::new (static_cast<void*>(&ctattn_logits)) int8_logits(kwt::int8_weights.forward(x));
}
#endif

constexpr std::uint32_t timed_runs = CTATTN_KWT_BENCHMARK_KWT1 ? 1 : 4;

template <typename Run>
std::uint32_t instructions_per_inference(Run&& run) noexcept {
  return ctattn_benchmark::instructions_per_call(run, timed_runs);
}

/// Multiply-accumulates per inference: the patch embedding, per layer Q, K, V and W_O, Q K^T and P V and the
/// feed-forward block, and the head on the class token's row.
constexpr auto macs = static_cast<std::uint32_t>(
    frames * kwt::features * width +
    layer_count * (4 * tokens * width * width + 2 * tokens * tokens * width + 2 * tokens * width * hidden_width) +
    width * classes);

/// The last encoder layer's output, ctattn's (see `encoded_type`).
const encoded_type& reference_encoded([[maybe_unused]] const kwt::int8_input& x) noexcept {
#if CTATTN_KWT_BENCHMARK_KWT1
  static encoded_type out;
  ::new (static_cast<void*>(&out)) encoded_type(encoded_by_ctattn(x));
  return out;
#else
  return expected_encoded;
#endif
}

}  // namespace

int main() {
  (report_line{} << model_name << " int8 model on " << ctattn_firmware::board_name << ": ctattn (int8 backend "
                 << ctattn::int8_backend_name << ") and the same model composed of CMSIS-NN's kernels")
      .end();
  const auto* x = opaque(&example.frames[0]);

  // ctattn: bit for bit with the compiler.
#if CTATTN_KWT_BENCHMARK_CTATTN
  const std::uint32_t ctattn_stack = ctattn_firmware::stack::peak_of([&] { ctattn_inference(*x); });
  std::uint32_t mismatches = 0;
  for (std::size_t j = 0; j < classes; ++j) mismatches += ctattn_logits.elements[0][j] != expected.elements[0][j];
  const std::uint32_t ctattn_instructions = instructions_per_inference([&] { ctattn_inference(*x); });
  const auto ctattn_ram = static_cast<std::uint32_t>(ctattn_stack + sizeof ctattn_logits);
#else
  (report_line{} << "  ctattn is not run here (the board's RAM holds one side): see the kwt_tiny_int8 image").end();
  const std::uint32_t mismatches = 0;
  const int8_logits& ctattn_logits = expected;
#endif

  // The composition: prepared once (not timed), then run.
  prepare();
  static std::int8_t composed[classes];
  const std::uint32_t composition_stack =
      ctattn_firmware::stack::peak_of([&] { composition(&x->elements[0][0], composed); });
  const encoded_type& encoded_reference = reference_encoded(*x);
  std::int32_t largest = 0;
  for (std::size_t j = 0; j < classes; ++j) {
    const std::int32_t d = std::int32_t{composed[j]} - std::int32_t{expected.elements[0][j]};
    largest = d < 0 ? (-d > largest ? -d : largest) : (d > largest ? d : largest);
  }
  std::int32_t largest_encoded = 0;
  std::uint32_t differ_encoded = 0;
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t j = 0; j < width; ++j) {
      const std::int32_t d = std::int32_t{arena[at::output + t * width + j]} - encoded_reference.elements[t][j];
      const std::int32_t magnitude = d < 0 ? -d : d;
      differ_encoded += magnitude != 0;
      largest_encoded = magnitude > largest_encoded ? magnitude : largest_encoded;
    }
  }
  const std::uint32_t composition_instructions =
      instructions_per_inference([&] { composition(&x->elements[0][0], composed); });

  const auto composition_ram =
      static_cast<std::uint32_t>(composition_stack + sizeof arena + buffer_bytes + sizeof composed);
#if CTATTN_KWT_BENCHMARK_KWT1
  // Each side's distance from the float model (the build machine's exact logits), in the head's output steps.
  constexpr ctattn::quantization q_logits = std::remove_cvref_t<decltype(head)>::output_quantization;
  float ctattn_error = 0.0f;
  float composition_error = 0.0f;
  for (std::size_t j = 0; j < classes; ++j) {
    const float steps = kwt::expected_float_logits[0][j] / static_cast<float>(q_logits.scale()) +
                        static_cast<float>(q_logits.zero_point);
    const float e1 = static_cast<float>(ctattn_logits.elements[0][j]) - steps;
    const float e2 = static_cast<float>(composed[j]) - steps;
    ctattn_error = (e1 < 0 ? -e1 : e1) > ctattn_error ? (e1 < 0 ? -e1 : e1) : ctattn_error;
    composition_error = (e2 < 0 ? -e2 : e2) > composition_error ? (e2 < 0 ? -e2 : e2) : composition_error;
  }
  (report_line{} << "  largest distance from the float model's logits, in hundredths of an output step: ctattn "
                 << static_cast<std::uint32_t>(ctattn_error * 100.0f) << ", composition "
                 << static_cast<std::uint32_t>(composition_error * 100.0f))
      .end();
#endif
  report_line logits_line;
  logits_line << "  logits: ctattn";
  for (std::size_t j = 0; j < classes; ++j) {
    logits_line << " " << static_cast<std::uint32_t>(ctattn_logits.elements[0][j] + 128);
  }
  logits_line << ", composition";
  for (std::size_t j = 0; j < classes; ++j) logits_line << " " << static_cast<std::uint32_t>(composed[j] + 128);
  logits_line << " (as unsigned, + 128); " << mismatches << " of ctattn's differ from the compiler's; the "
              << "composition's are at most " << static_cast<std::uint32_t>(largest) << " step(s) from them";
  logits_line.end();
  (report_line{} << "  encoder outputs: " << differ_encoded << " of " << static_cast<std::uint32_t>(tokens * width)
                 << " of the composition's differ from ctattn's, by at most "
                 << static_cast<std::uint32_t>(largest_encoded) << " step(s)")
      .end();
  report_line line;
#if CTATTN_KWT_BENCHMARK_CTATTN
  line << "  instructions per inference: ctattn " << ctattn_instructions << ", CMSIS-NN composition "
       << composition_instructions << ", ratio ";
  ctattn_benchmark::print_ratio(line, ctattn_instructions, composition_instructions);
  line << "; per multiply-accumulate (" << macs << "): ctattn ";
  ctattn_benchmark::print_ratio(line, ctattn_instructions, macs);
  line << ", composition ";
  ctattn_benchmark::print_ratio(line, composition_instructions, macs);
#else
  line << "  instructions per inference: CMSIS-NN composition " << composition_instructions;
#endif
  line.end();
  report_line ram;
  ram << "  RAM per inference (bytes):";
#if CTATTN_KWT_BENCHMARK_CTATTN
  ram << " ctattn " << ctattn_ram << " (stack " << ctattn_stack << " painted, logits "
      << static_cast<std::uint32_t>(sizeof ctattn_logits) << ");";
#endif
  ram << " composition " << composition_ram << " (arena " << static_cast<std::uint32_t>(sizeof arena)
      << ", CMSIS-NN buffers " << static_cast<std::uint32_t>(buffer_bytes) << ", stack " << composition_stack
      << " painted, logits " << static_cast<std::uint32_t>(sizeof composed) << ")";
  ram.end();
  bool pass =
      mismatches == 0 && !failed && largest <= composition_tolerance && largest_encoded <= composition_tolerance;
#if CTATTN_KWT_BENCHMARK_KWT1
  pass = pass && composition_error <= 2.0f * ctattn_error;
#endif
  report_line result;
  result << "result: model=" << model_key << " macs=" << macs
         << " encoded=" << static_cast<std::uint32_t>(tokens * width);
#if CTATTN_KWT_BENCHMARK_CTATTN
  result << " ctattn=" << ctattn_instructions << " ctattn_ram=" << ctattn_ram;
#else
  result << " ctattn=- ctattn_ram=-";
#endif
  (result << " cmsis_nn=" << composition_instructions << " cmsis_nn_ram=" << composition_ram
          << " logits_largest_difference=" << static_cast<std::uint32_t>(largest)
          << " encoded_largest_difference=" << static_cast<std::uint32_t>(largest_encoded)
          << " encoded_differ=" << differ_encoded << " pass=" << (pass ? "yes" : "no"))
      .end();
  (report_line{}
   << (pass ? "PASS: ctattn's logits are the expected ones; the composition's logits and encoder outputs within "
            : "FAIL: see above; the composition's logits and encoder outputs must be within ")
   << static_cast<std::uint32_t>(composition_tolerance) << " steps of them")
      .end();
  return pass ? 0 : 1;
}
