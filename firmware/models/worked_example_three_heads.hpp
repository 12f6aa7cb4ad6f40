#ifndef CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_THREE_HEADS_HPP
#define CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_THREE_HEADS_HPP

/// \file
/// The worked example with 3 wide heads as a firmware model (issue 3's definition: after
/// torch.manual_seed(123), W_Q = torch.rand(3, 24, 16), W_K likewise, W_V = torch.rand(3, 28, 16); every head
/// projects the full 16-dimensional input). One inference is `ctattn::wide_multi_head_attention(x, x, heads, ctattn::into(concat, workspace))`: the
/// heads run one after another through one head's workspace and write their contexts side by side.
///
/// | value       | shape                       | where  |
/// |-------------|-----------------------------|--------|
/// | `input`     | seq x d_model               | flash  |
/// | `parameters`| 3 heads: W_Q, W_K (d_k x d_model), W_V (d_v x d_model) | flash |
/// | `workspace` | one head's Q, K (seq x d_k), V (seq x d_v) | .bss |
/// | `output`    | seq x 84 (3 x d_v)          | .bss   |
///
/// The model interface is described in firmware/models/worked_example.hpp.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/footprint.hpp>
#include <ctattn/attention/multi_head.hpp>
#include <ctattn/attention/workspace.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/from_array.hpp>

#include "fixtures/attention/worked_example_three_heads.hpp"
#include "worked_example.hpp"

namespace ctattn_firmware::models {

struct worked_example_three_heads {
  static constexpr const char* name =
      "worked example, 3 wide heads (6 x 16, d_k = 24, d_v = 28, concatenated), into storage";
  static constexpr const char* output_name = "context of 3 heads";
  static constexpr std::size_t heads = 3;

  using seq = worked_dims::seq;
  using d_model = worked_dims::d_model;
  using d_k = worked_dims::d_k;
  using d_v = worked_dims::d_v;

  using head = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
  using input = ctattn::matrix<float, seq{6}, d_model{16}>;
  using parameters = std::array<head, heads>;
  using output = ctattn::matrix<float, seq{6}, heads * 28>;
  using workspace = ctattn::cross_attention_workspace<input, input, head>;

  static constexpr ctattn::footprint footprint = ctattn::wide_multi_head_self_attention_footprint<input, head, heads>;

  static constexpr input example_input() noexcept {
    return ctattn::from_array<seq{6}, d_model{16}>(ctattn_fixtures::worked_example_three_heads::x);
  }

  static constexpr parameters example_parameters() noexcept {
    namespace fx = ctattn_fixtures::worked_example_three_heads;
    parameters p{};
    for (std::size_t h = 0; h < heads; ++h) {
      p[h] = {.query = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_query[h])},
              .key = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_key[h])},
              .value = {ctattn::from_array<d_v{28}, d_model{16}>(fx::w_value[h])}};
    }
    return p;
  }

  static constexpr void evaluate(output& concat, const input& x, const parameters& p, workspace& ws) noexcept {
    ctattn::wide_multi_head_attention(x, x, p, ctattn::into(concat, ws));
  }
};

namespace detail {

// Checked by the compiler: the bits of the value-returning `ctattn::wide_multi_head_attention`, and PyTorch's
// concatenated context within the host tests' tolerance.
constexpr bool worked_example_three_heads_holds() noexcept {
  using m = worked_example_three_heads;
  constexpr auto x = m::example_input();
  constexpr auto p = m::example_parameters();
  m::workspace ws{};
  m::output concat{};
  m::evaluate(concat, x, p, ws);
  return same_bits(concat, ctattn::wide_multi_head_attention(x, x, p)) &&
         ctattn::approx_equal(concat,
                              ctattn::from_array<m::seq{6}, 84>(ctattn_fixtures::worked_example_three_heads::concat),
                              1e-6f, 1e-6f);
}
static_assert(worked_example_three_heads_holds(),
              "the firmware model must give wide_multi_head_attention's bits and PyTorch's concatenated context");

}  // namespace detail

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_THREE_HEADS_HPP
