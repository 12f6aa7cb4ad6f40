#ifndef CTATTN_FIRMWARE_MODELS_KEYWORD_SPOTTING_HPP
#define CTATTN_FIRMWARE_MODELS_KEYWORD_SPOTTING_HPP

/// \file
/// The keyword spotter of examples/keyword_spotting/ on the target: a KWT-style transformer trained in PyTorch on the
/// example's synthetic keyword task (49 frames of 10 features, a Linear(10, 16) per frame, a class token, positions,
/// 2 post-norm GELU layers, 5 classes; 5,525 parameters), exported by ctattn-export, its weights imported from the
/// committed .safetensors file when the firmware is configured. The int8 model is quantized by the compiler with the
/// ranges ctattn-export recorded; the expected logits of two held-out samples are the compiler's, and the compiler
/// checks that both models hear the keyword each sample holds.
///
/// | value           | shape                                              |
/// |-----------------|----------------------------------------------------|
/// | input           | 49 x 10 floats, or int8 in the input's quantization |
/// | output          | 1 x 5 logits (float, or int8)                      |

#include <array>
#include <cstddef>

#include <ctattn/quantized/model.hpp>

#include "keyword_data.hpp"             // examples/keyword_spotting/
#include "keyword_spotter.hpp"          // examples/keyword_spotting/ (ctattn-export's model)
#include "keyword_spotter_ranges.hpp"   // examples/keyword_spotting/ (ctattn-export's int8 ranges)
#include "keyword_spotter_weights.hpp"  // imported at configure time: inline constexpr kws::keyword_spotter ...

namespace ctattn_firmware::models {

namespace spotter {

using int8_model = ctattn::quantized_model<kws::keyword_spotter, kws::keyword_spotter_ranges>;
inline constexpr int8_model int8_weights = ctattn::quantize<kws::keyword_spotter_ranges>(keyword_spotter_weights);
inline constexpr auto input_quantization = int8_model::first_layer::input_quantization;
using input = kws::keyword_spotter_input;
using int8_input = decltype(ctattn::quantize<input_quantization>(input{}));

/// The two held-out samples the images run.
inline constexpr keyword_data::sample samples[2] = {keyword_data::sample_at(keyword_data::test_seed, 0),
                                                    keyword_data::sample_at(keyword_data::test_seed, 1)};

inline constexpr ctattn::footprint float_footprint = ctattn::layer_footprint<kws::keyword_spotter, input>;
inline constexpr ctattn::footprint int8_footprint = ctattn::layer_footprint<int8_model, int8_input>;
static_assert(int8_footprint.ram_bytes() < 64 * 1024, "one int8 inference must take under 64 KB of RAM");
#if defined(CTATTN_FIRMWARE_STACK_BYTES)
static_assert(int8_footprint.ram_bytes() <= CTATTN_FIRMWARE_STACK_BYTES,
              "one int8 inference of the keyword spotter must fit the stack this board's images reserve");
#endif

}  // namespace spotter

/// The float model on two held-out samples (boards with an FPU), bit for bit with the compiler's evaluation.
struct keyword_spotter {
  static constexpr const char* name = "keyword spotter (examples/keyword_spotting) in float: 49 frames, 2 layers";
  using logits = decltype(keyword_spotter_weights.forward(spotter::input{}));
  static constexpr ctattn::footprint footprint = spotter::float_footprint;

  struct inputs {
    std::array<spotter::input, 2> frames;
  };
  struct outputs {
    logits first, second;
  };

  static constexpr inputs example() noexcept { return {{spotter::samples[0].frames, spotter::samples[1].frames}}; }
  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {keyword_spotter_weights.forward(in.frames[0]), keyword_spotter_weights.forward(in.frames[1])};
  }
  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("float logits of held-out sample 0", &outputs::first);
    f("float logits of held-out sample 1", &outputs::second);
  }
};

/// The int8 model on the same samples, quantized by the compiler: integers only on the target.
struct keyword_spotter_int8 {
  static constexpr const char* name = "keyword spotter (examples/keyword_spotting) in int8: 49 frames, 2 layers";
  using logits = decltype(spotter::int8_weights.forward(spotter::int8_input{}));
  static constexpr ctattn::footprint footprint = spotter::int8_footprint;

  struct inputs {
    std::array<spotter::int8_input, 2> frames;
  };
  struct outputs {
    logits first, second;
  };

  static constexpr inputs example() noexcept {
    return {{ctattn::quantize<spotter::input_quantization>(spotter::samples[0].frames),
             ctattn::quantize<spotter::input_quantization>(spotter::samples[1].frames)}};
  }
  static constexpr outputs evaluate(const inputs& in) noexcept {
    return {spotter::int8_weights.forward(in.frames[0]), spotter::int8_weights.forward(in.frames[1])};
  }
  template <typename F>
  static constexpr void for_each_output(F&& f) {
    f("int8 logits of held-out sample 0", &outputs::first);
    f("int8 logits of held-out sample 1", &outputs::second);
  }
};

namespace spotter {
/// Whether model M (keyword_spotter or keyword_spotter_int8), evaluated by the compiler, hears the keyword each of
/// the two samples holds: each image `static_assert`s it for its own model.
template <typename M>
constexpr bool hears_each_keyword() noexcept {
  const auto out = M::evaluate(M::example());
  return keyword_data::keyword_of(out.first) == samples[0].label &&
         keyword_data::keyword_of(out.second) == samples[1].label;
}
}  // namespace spotter

}  // namespace ctattn_firmware::models

#endif  // CTATTN_FIRMWARE_MODELS_KEYWORD_SPOTTING_HPP
