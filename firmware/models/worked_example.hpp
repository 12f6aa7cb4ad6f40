#ifndef CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_HPP
#define CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_HPP

/// \file
/// The reference text's worked example as a firmware model: "Life is short, eat dessert first" embedded in 16
/// dimensions (6 tokens), one attention head with d_q = d_k = 24 and d_v = 28, weights as PyTorch stores them
/// (out x in). One inference is `ctattn::self_attention(x, head, ctattn::into(context, workspace))`: the weights and the input stay in flash, Q, K, V
/// go to the workspace and the context to the output, both in .bss; the stack holds only the kernel's two row
/// buffers and the call frames.
///
/// | value       | shape          | where  |
/// |-------------|----------------|--------|
/// | `input`     | seq x d_model  | flash  |
/// | `parameters`| W_Q, W_K (d_k x d_model), W_V (d_v x d_model) | flash |
/// | `workspace` | Q, K (seq x d_k), V (seq x d_v) | .bss |
/// | `output`    | seq x d_v      | .bss   |
///
/// A firmware model that writes into storage is a type with:
///   `name`, `output_name`                    C strings for the report
///   `input`, `parameters`, `output`, `workspace`   the types of the four objects the image defines
///   `example_input()`, `example_parameters()`      constexpr, what the image runs on
///   `evaluate(output&, const input&, const parameters&, workspace&)`   constexpr, one inference
///   `footprint`                              `ctattn::footprint` of the configuration, checked against the
///                                            linker's symbol sizes by the test firmware_<image>_footprint
/// See firmware/runtime/check_model.hpp (`check_model_into`) for what the image does with it.

#include <bit>
#include <cstddef>
#include <cstdint>

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/attention/footprint.hpp>
#include <ctattn/attention/workspace.hpp>
#include <ctattn/matrix/compare.hpp>
#include <ctattn/matrix/from_array.hpp>

#include "fixtures/attention/worked_example.hpp"

namespace ctattn_firmware::models {

namespace worked_dims {
struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
}  // namespace worked_dims

struct worked_example {
  static constexpr const char* name = "worked example, self-attention (6 x 16, d_k = 24, d_v = 28), into storage";
  static constexpr const char* output_name = "context";

  using seq = worked_dims::seq;
  using d_model = worked_dims::d_model;
  using d_k = worked_dims::d_k;
  using d_v = worked_dims::d_v;

  using input = ctattn::matrix<float, seq{6}, d_model{16}>;
  using parameters = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
  using output = ctattn::matrix<float, seq{6}, d_v{28}>;
  using workspace = ctattn::self_attention_workspace<input, parameters>;

  static constexpr ctattn::footprint footprint = ctattn::self_attention_footprint<input, parameters>;

  static constexpr input example_input() noexcept {
    return ctattn::from_array<seq{6}, d_model{16}>(ctattn_fixtures::worked_example::x);
  }

  static constexpr parameters example_parameters() noexcept {
    namespace fx = ctattn_fixtures::worked_example;
    return {.query = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_query)},
            .key = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_key)},
            .value = {ctattn::from_array<d_v{28}, d_model{16}>(fx::w_value)}};
  }

  static constexpr void evaluate(output& context, const input& x, const parameters& head, workspace& ws) noexcept {
    ctattn::self_attention(x, head, ctattn::into(context, ws));
  }
};

namespace detail {

template <typename M>
constexpr bool same_bits(const M& a, const M& b) noexcept {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (std::bit_cast<std::uint32_t>(a(i, j)) != std::bit_cast<std::uint32_t>(b(i, j))) return false;
    }
  }
  return true;
}

// Checked by the compiler: the model writing into storage gives the bits of the value-returning
// `ctattn::self_attention`, and PyTorch's context within the host tests' tolerance.
constexpr bool worked_example_holds() noexcept {
  constexpr auto x = worked_example::example_input();
  constexpr auto head = worked_example::example_parameters();
  worked_example::workspace ws{};
  worked_example::output context{};
  worked_example::evaluate(context, x, head, ws);
  return same_bits(context, ctattn::self_attention(x, head)) &&
         ctattn::approx_equal(context,
                              ctattn::from_array<worked_example::seq{6}, worked_example::d_v{28}>(
                                  ctattn_fixtures::worked_example::context),
                              1e-5f, 1e-5f);
}
static_assert(worked_example_holds(),
              "the firmware model must give self_attention's bits and PyTorch's worked example context");

}  // namespace detail

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_WORKED_EXAMPLE_HPP
