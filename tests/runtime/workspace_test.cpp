// Run-time tests of attention into caller-provided storage: the `into` forms give, at run time, the bits
// of the value-returning functions (at run time and in constant evaluation), with the output and the workspace
// in static storage as firmware keeps them; and the footprint query states the sizes of those objects.
#include "catch.hpp"
#include "support/multihead_cases.hpp"
#include "support/test_data.hpp"
#include "support/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/footprint.hpp>
#include <ctattn/attention/multi_head.hpp>
#include <ctattn/attention/projection.hpp>
#include <ctattn/attention/scaled_dot_product.hpp>
#include <ctattn/attention/workspace.hpp>
#include <ctattn/matrix/compare.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace {

using namespace ctattn_test::worked;
using ctattn_test::bit_identical;
using ctattn_test::opaque;

using x_type = std::remove_cv_t<decltype(x)>;
using context_type = ctattn::matrix<float, seq{6}, d_v{28}>;
using workspace_type = ctattn::self_attention_workspace<x_type, head_type>;

// Static storage, as in firmware (.bss).
workspace_type workspace;
context_type context;

namespace cases = ctattn_test::multihead_cases;
using wide_x = ctattn::matrix<float, 6, 16>;
using wide_workspace_type = ctattn::cross_attention_workspace<wide_x, wide_x, cases::wide_head>;
wide_workspace_type wide_workspace;
ctattn::matrix<float, 6, 84> concat;

}  // namespace

TEST_CASE("self_attention into caller storage has the bits of the returned form", "[workspace]") {
  static constexpr auto compile_time = ctattn::self_attention(x, head);
  static constexpr auto compile_time_causal = ctattn::self_attention(x, head, ctattn::causal);
  const auto xr = opaque(x);
  const auto hr = opaque(head);

  ctattn::self_attention(xr, hr, ctattn::into(context, workspace));
  CHECK(bit_identical(context, compile_time));
  CHECK(bit_identical(context, ctattn::self_attention(xr, hr)));
  CHECK(bit_identical(workspace.queries, ctattn::project(xr, hr.query)));
  CHECK(bit_identical(workspace.keys, ctattn::project(xr, hr.key)));
  CHECK(bit_identical(workspace.values, ctattn::project(xr, hr.value)));
  // PyTorch's context, within the worked example test's tolerance.
  CHECK(ctattn::approx_equal(context, ctattn::from_array<seq{6}, d_v{28}>(fx::context), 1e-5f, 1e-5f));

  ctattn::self_attention(xr, hr, ctattn::causal, ctattn::into(context, workspace));
  CHECK(bit_identical(context, compile_time_causal));
  CHECK(bit_identical(context, ctattn::self_attention(xr, hr, ctattn::causal)));
}

TEST_CASE("the constant-evaluated into result equals the run-time one", "[workspace]") {
  static constexpr auto compile_time_into = [] {
    workspace_type ws{};
    context_type out{};
    ctattn::self_attention(x, head, ctattn::into(out, ws));
    return out;
  }();
  ctattn::self_attention(opaque(x), opaque(head), ctattn::into(context, workspace));
  CHECK(bit_identical(context, compile_time_into));
}

TEST_CASE("cross_attention and scaled_dot_product_attention into caller storage have the returned forms' bits",
          "[workspace]") {
  struct target : ctattn::dimension<"target"> {};
  using target_type = ctattn::matrix<float, target{4}, d_model{16}>;
  const auto x_q = opaque(ctattn_test::random_matrix<target_type>(21));
  const auto x_kv = opaque(x);
  static ctattn::cross_attention_workspace<target_type, x_type, head_type> cross_workspace;
  static ctattn::matrix<float, target{4}, d_v{28}> cross_context;

  // A run-time mask: the number of valid keys is not known to the compiler.
  const ctattn::key_padding_length valid{opaque(std::size_t{4})};
  ctattn::cross_attention(x_q, x_kv, head, valid, ctattn::into(cross_context, cross_workspace));
  CHECK(bit_identical(cross_context, ctattn::cross_attention(x_q, x_kv, head, valid)));
  ctattn::cross_attention(x_q, x_kv, head, ctattn::causal_bottom_right, ctattn::into(cross_context, cross_workspace));
  CHECK(bit_identical(cross_context, ctattn::cross_attention(x_q, x_kv, head, ctattn::causal_bottom_right)));

  const auto q = opaque(ctattn_test::random_matrix<ctattn::matrix<double, 5, 8>>(31));
  const auto k = opaque(ctattn_test::random_matrix<ctattn::matrix<double, 7, 8>>(32));
  const auto v = opaque(ctattn_test::random_matrix<ctattn::matrix<double, 7, 3>>(33));
  static ctattn::matrix<double, 5, 3> output;
  output(0, 0) = 9.0;  // overwritten
  ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal, ctattn::into(output));
  CHECK(bit_identical(output, ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal)));
  ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(output));
  CHECK(bit_identical(output, ctattn::scaled_dot_product_attention(q, k, v)));
}

TEST_CASE("wide_multi_head_attention into caller storage has the bits of the returned form", "[workspace]") {
  static constexpr wide_x cx = ctattn::from_array(cases::three::x);
  static constexpr auto compile_time = ctattn::wide_multi_head_attention(cx, cx, cases::three_heads());
  const auto wx = opaque(cx);
  const auto heads = opaque(cases::three_heads());
  ctattn::wide_multi_head_attention(wx, wx, heads, ctattn::into(concat, wide_workspace));
  CHECK(bit_identical(concat, compile_time));
  CHECK(bit_identical(concat, ctattn::wide_multi_head_attention(wx, wx, heads)));
  CHECK(ctattn::approx_equal(concat, ctattn::from_array(cases::three::concat), 1e-6f, 1e-6f));
  // The workspace holds the last head's projections.
  CHECK(bit_identical(wide_workspace.queries, ctattn::project(wx, heads[2].query)));
}

TEST_CASE("multi_head_attention into caller storage has the bits of the returned form", "[workspace]") {
  namespace mh = ctattn_test::multihead_cases;
  static constexpr auto weights = mh::torch_packed_weights<float, mh::self_attention_case>();
  static constexpr auto input = ctattn::from_array(ctattn_fixtures::multihead::self_attention::x);
  using input_type = std::remove_cv_t<decltype(input)>;
  static ctattn::multi_head_workspace<input_type, input_type, std::remove_cv_t<decltype(weights)>> workspace;
  static input_type output;
  const auto x_run = ctattn_test::opaque(input);
  ctattn::multi_head_attention(x_run, x_run, x_run, ctattn_test::opaque(weights), ctattn::causal,
                               ctattn::into(output, workspace));
  static constexpr auto compile_time = ctattn::multi_head_attention(input, input, input, weights, ctattn::causal);
  CHECK(ctattn_test::bit_identical(output, compile_time));
  CHECK(ctattn_test::bit_identical(output, ctattn::multi_head_attention(x_run, x_run, x_run, weights, ctattn::causal)));
}

TEST_CASE("the footprint query states the sizes of the objects", "[workspace][footprint]") {
  constexpr auto fp = ctattn::self_attention_footprint<x_type, head_type>;
  CHECK(fp.weight_bytes == sizeof(head));
  CHECK(fp.input_bytes == sizeof(x));
  CHECK(fp.output_bytes == sizeof(context));
  CHECK(fp.workspace_bytes == sizeof(workspace));
  CHECK(fp.stack_bytes == 2 * x_type::rows * sizeof(float));
  CHECK(fp.weight_bytes == 4864);
  CHECK(fp.ram_bytes() == 384 + 672 + 1824 + 48);

  constexpr auto wide = ctattn::wide_multi_head_self_attention_footprint<wide_x, cases::wide_head, 3>;
  const auto heads = cases::three_heads();
  CHECK(wide.weight_bytes == sizeof(heads));
  CHECK(wide.output_bytes == sizeof(concat));
  CHECK(wide.workspace_bytes == sizeof(wide_workspace));
  CHECK(wide.input_bytes == sizeof(wide_x));

  const auto both = fp + wide;
  CHECK(both.weight_bytes == sizeof(head) + sizeof(heads));
  CHECK(both.workspace_bytes == sizeof(workspace) + sizeof(wide_workspace));
  CHECK(both.stack_bytes == fp.stack_bytes);
}
