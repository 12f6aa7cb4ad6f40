// The single header gives the same results as the multi-header library. This file is built twice: against
// include/ (ctattn/ctattn.hpp) and, with CTATTN_TEST_SINGLE_HEADER defined, with nothing on the include path but
// the directory of the generated single header (ctattn.hpp). Each build prints every value below with enough
// digits to give its bits back (float %.9g, double %.17g), and the test single_header.same_results compares the
// two outputs byte for byte. The static_asserts run the constant evaluator through whichever header was included.
#if defined(CTATTN_TEST_SINGLE_HEADER)
#if __has_include(<ctattn/ctattn.hpp>)
#error \
    "the single-header build must not see the multi-header library: only the single header's directory belongs on its include path"
#endif
#include <ctattn.hpp>
#else
#include <ctattn/ctattn.hpp>
#endif

// The committed PyTorch fixtures need only the standard library; they are found next to this file, not through
// the include path.
#include "../fixtures/attention/multihead.hpp"
#include "../fixtures/attention/worked_example.hpp"

#include <cstddef>
#include <cstdio>

namespace {

namespace data = ctattn_fixtures::worked_example;
namespace mha = ctattn_fixtures::multihead::self_attention;

struct vocab : ctattn::dimension<"vocab"> {};
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// The reference text's worked example (as examples/worked_example_model.hpp builds it).
constexpr auto embedding_table = ctattn::from_array<vocab{6}, d_model{16}>(data::embedding_table);
constexpr auto embedded_sentence = ctattn::embed_tokens<seq{6}>(embedding_table, data::token_ids);
constexpr ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in> head{
    .query = {ctattn::from_array<d_k{24}, d_model{16}>(data::w_query)},
    .key = {ctattn::from_array<d_k{24}, d_model{16}>(data::w_key)},
    .value = {ctattn::from_array<d_v{28}, d_model{16}>(data::w_value)},
};

// Compile-time evaluation through the header under test: the text's published score and weight of query 2
// (row 1) against key 5 (column 4), and the library's version.
constexpr auto compile_time = ctattn::self_attention(embedded_sentence, head, ctattn::with_weights);
constexpr float omega_2_5 = (ctattn::project(embedded_sentence, head.query) *
                             ctattn::transpose(ctattn::project(embedded_sentence, head.key)))(1, 4);
static_assert(omega_2_5 > 11.1465f && omega_2_5 < 11.1467f, "omega_24 = 11.1466, as the reference text prints");
static_assert(compile_time.weights(1, 4) > 0.4916f && compile_time.weights(1, 4) < 0.4918f);
static_assert(CTATTN_VERSION_MAJOR * 10000 + CTATTN_VERSION_MINOR * 100 + CTATTN_VERSION_PATCH == CTATTN_VERSION);

// Hides a value from the optimizer, so that what follows is computed at run time.
template <typename T>
T opaque(const T& value) noexcept {
  T copy = value;
  asm volatile("" : : "r"(&copy) : "memory");
  return copy;
}

void print(double value) { std::printf(" %.17g", value); }
void print(float value) { std::printf(" %.9g", static_cast<double>(value)); }

template <typename Matrix>
void print(const char* name, const Matrix& m) {
  std::printf("%s [%zu x %zu]\n", name, Matrix::rows, Matrix::cols);
  for (std::size_t i = 0; i < Matrix::rows; ++i) {
    for (std::size_t j = 0; j < Matrix::cols; ++j) print(m(i, j));
    std::printf("\n");
  }
}

}  // namespace

int main() {
  std::printf("ctattn %d.%d.%d\n", CTATTN_VERSION_MAJOR, CTATTN_VERSION_MINOR, CTATTN_VERSION_PATCH);

  // The worked example: evaluated by the compiler, then at run time.
  print("worked example, compile-time context", compile_time.output);
  print("worked example, compile-time weights", compile_time.weights);
  const auto x = opaque(embedded_sentence);
  const auto run_time = ctattn::self_attention(x, opaque(head), ctattn::with_weights);
  print("worked example, run-time context", run_time.output);
  print("worked example, run-time weights", run_time.weights);

  // A masked attention: the worked example, causal.
  print("worked example, causal", ctattn::self_attention(x, opaque(head), ctattn::causal));

  // Multi-head attention: PyTorch's nn.MultiheadAttention parameters (2 heads, width 8, with biases).
  const auto mha_x = opaque(ctattn::from_array(mha::x));
  const auto mha_w = opaque(ctattn::from_torch_multihead<2>(mha::in_proj_weight, mha::in_proj_bias,
                                                            mha::out_proj_weight, mha::out_proj_bias));
  const auto mha_out = ctattn::multi_head_attention(mha_x, mha_x, mha_x, mha_w, ctattn::with_weights);
  print("multi-head attention, output", mha_out.output);
  print("multi-head attention, mean weights", mha_out.mean_weights);

  // Sinusoidal position tables, in float and double.
  print("sinusoidal table, float", ctattn::sinusoidal_position_encoding<float, 6, 16>());
  print("sinusoidal table, double", ctattn::sinusoidal_position_encoding<double, 5, 8>());

  // A product in double: the embedded sentence times its transpose.
  const auto x_double = ctattn::cast<double>(x);
  print("product X X^T, double", x_double * ctattn::transpose(x_double));
  return 0;
}
