// The reference text's worked example in int8, the model of the firmware image worked_example_int8, on the host
// compilers: its dequantized context is within the model's stated bound of the float worked example's context, of
// ctattn's float computation and of PyTorch's own results (float32 and float64), so that the int8 model is known to
// be right and not only equal to itself on every target.
#include "../../firmware/models/worked_example_int8.hpp"

#include <cstddef>
#include <type_traits>

namespace {

using model = ctattn_firmware::models::worked_example_int8;
namespace fx = ctattn_fixtures::worked_example;

constexpr auto context = model::evaluate(model::example()).context;

// The int8 context has the float context's named shape, seq x d_v, and the quantization calibrated for it.
static_assert(std::is_same_v<std::remove_cv_t<decltype(context)>,
                             ctattn::qmatrix<model::seq{6}, model::d_v{28}, model::q_context>>);

// The largest difference from a reference context, in steps of the int8 context's scale.
template <typename T>
constexpr double largest_steps_from(const T (&reference)[6][28]) noexcept {
  double largest = 0.0;
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t c = 0; c < 28; ++c) {
      const double difference = context.real(i, c) - static_cast<double>(reference[i][c]);
      const double magnitude = difference < 0 ? -difference : difference;
      largest = magnitude > largest ? magnitude : largest;
    }
  }
  return largest / model::q_context.scale();
}

// Measured: 3.32 steps (0.134) from each of the three; the bound is 4 steps.
static_assert(model::largest_context_error() <= model::context_error_bound_steps);
static_assert(largest_steps_from(fx::context) <= model::context_error_bound_steps);
static_assert(largest_steps_from(fx::f64::context) <= model::context_error_bound_steps);

}  // namespace
