// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_RULES_HPP
#define CTATTN_LAYERS_RULES_HPP

/// \file
/// The rules of the layers tier (ctattn/shape/rule.hpp says how a rule is defined once and used three ways):
///
/// | rule                                   | what it compares                                              |
/// |----------------------------------------|---------------------------------------------------------------|
/// | `input_width_must_match_layer`         | the input's columns, the layer's input width                   |
/// | `layer_output_must_match_next_input`   | `count<k>`, layer k, layer k + 1, k's output width, k + 1's input width |
/// | `memory_width_must_match_layer`        | the encoder output's columns, the decoder's d_model            |
/// | `sequence_must_not_be_empty`           | `count<layers>`                                                |
/// | `imported_parameters_must_match_model` | `count<values given>`, `count<parameters of the model>`        |
/// | `residual_layer_must_keep_width`       | the layer's input width, its output width                      |
/// | `decoding_layer_must_be_causal`        | the layer's mask type                                          |
/// | `layer_mask_must_hold_no_state`        | the layer's mask type                                          |
/// | `decoder_masks_must_name_their_attention` | the options of a decoder layer's call                      |
/// | `decoder_needs_its_memory`             | whether the call gives a memory (float and int8 decoders, calibration) |
/// | `parameters_need_a_model`              | the type given where a model object is expected                |
/// | `model_members_must_be_declared`       | the model type                                                 |
/// | `model_must_have_members`              | the model type, `count<members>`                               |
/// | `model_member_output_must_match_next_input` | `count<k>`, member k, the next member, both widths        |
/// | `model_must_derive_from_model_of_itself` | the model type, the type its `ctattn::model` base names (void: none) |
/// | `model_member_must_be_a_layer`         | `count<k>`, member k's type                                    |
/// | `layer_must_list_its_parameters`       | the layer's type                                               |
/// | `layer_must_declare_its_footprint`     | the layer's type, its input's type                             |
/// | `patch_must_divide_input`              | the input's side (`axis::sequence_length`, ...), the patch's  |
/// | `image_rows_must_match_patch_layer`    | the input's rows, the image's pixels (`axis::image_pixels`)    |
/// | `generated_ids_must_hold_vocabulary`   | the ids' element type, the model's vocabulary                  |

#include <cstddef>
#include <limits>
#include <type_traits>

#include "ctattn/attention/mask.hpp"
#include "ctattn/attention/options.hpp"

#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/rules.hpp"
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/rule.hpp"

namespace ctattn {

namespace op {
/// Calling a layer (ctattn::forward, or a layer's own call operator).
struct layer {};
/// Composing layers into ctattn::sequential.
struct sequential {};
/// A transformer decoder layer (its cross-attention reads the encoder's output).
struct transformer_decoder_layer {};
/// A residual connection around a layer.
struct residual {};
/// One token of decoding through a layer (`step`).
struct decoding_step {};
/// Walking, counting, loading or importing a model's parameters by name.
struct parameters {};
/// A model declared once (ctattn::model): its members, and its derived forward.
struct model {};
/// Cutting an input into patches and embedding them (ctattn::patch_embedding_1d, ctattn::patch_embedding_2d).
struct patch_embedding {};
/// Greedy decoding of a language model into the caller's ids (ctattn::generate_greedy).
struct generate_greedy {};
}  // namespace op

/// The names of the sides a patch embedding's rules compare, shown in their diagnostics:
/// `ctattn::dim<ctattn::axis::image_height, 30>` against `ctattn::dim<ctattn::axis::patch_height, 4>`.
namespace axis {
/// The rows of a 1-d patch embedding's input: its sequence.
struct sequence_length {};
/// The rows of one patch of a 1-d patch embedding (its kernel).
struct patch_length {};
/// An image's height, in pixels.
struct image_height {};
/// An image's width, in pixels.
struct image_width {};
/// A patch's height, in pixels.
struct patch_height {};
/// A patch's width, in pixels.
struct patch_width {};
/// An image's pixels, height x width: the rows a 2-d patch embedding takes.
struct image_pixels {};
/// The rows of the matrix given.
struct input_rows {};
}  // namespace axis

/// A mask for a decoder layer's self-attention over the target, combined with its causal mask: PyTorch's `tgt_mask`
/// (a `boolean_mask<n, n>`) and `tgt_key_padding_mask` (`key_padding_length`, `key_padding_flags<n>`).
/// Example: `layer.forward(tgt, memory, ctattn::tgt_mask(ctattn::key_padding_length{3}))`.
template <typename Mask>
struct tgt_mask_option {
  Mask mask;
};
/// \copydoc tgt_mask_option
template <AttentionMask Mask>
[[nodiscard]] constexpr tgt_mask_option<Mask> tgt_mask(const Mask& mask) noexcept {
  return {mask};
}

/// A mask for a decoder layer's attention over the memory (the encoder's output): PyTorch's `memory_mask` (a
/// `boolean_mask<n, m>`) and `memory_key_padding_mask` (`key_padding_length`, `key_padding_flags<m>`).
/// Example: `layer.forward(tgt, memory, ctattn::memory_mask(ctattn::key_padding_length{valid_source_tokens}))`.
template <typename Mask>
struct memory_mask_option {
  Mask mask;
};
/// \copydoc memory_mask_option
template <AttentionMask Mask>
[[nodiscard]] constexpr memory_mask_option<Mask> memory_mask(const Mask& mask) noexcept {
  return {mask};
}

/// The memory a decoder layer attends to (the encoder's output), given with the call's options, so that decoder
/// layers compose in `ctattn::sequential` like encoder layers: `ctattn::forward(decoder_stack, tgt,
/// ctattn::with_memory(memory))` gives every layer the same memory. It refers to `memory`, which must outlive the call.
/// Example: `auto y = ctattn::forward(layer, tgt, ctattn::with_memory(memory));`
template <typename Memory>
struct memory_option {
  const Memory* memory;
};
/// \copydoc memory_option
template <FixedMatrix Memory>
[[nodiscard]] constexpr memory_option<Memory> with_memory(const Memory& memory) noexcept {
  return {&memory};
}

namespace detail {
template <typename T>
struct is_memory_option : std::false_type {};
template <typename M>
struct is_memory_option<memory_option<M>> : std::true_type {};
template <typename T>
struct is_tgt_mask_option : std::false_type {};
template <typename M>
struct is_tgt_mask_option<tgt_mask_option<M>> : std::true_type {};
template <typename T>
struct is_memory_mask_option : std::false_type {};
template <typename M>
struct is_memory_mask_option<memory_mask_option<M>> : std::true_type {};
}  // namespace detail

namespace shape_error {

/// A layer takes inputs of the width it was made for: d_model for a norm, in_features for a linear layer.
template <typename Operation, typename InputWidth, typename LayerWidth>
struct input_width_must_match_layer {
  static constexpr bool holds = detail::dims_match<InputWidth, LayerWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer's input must have as many columns as the layer's input width (d_model, or a "
                  "linear layer's in_features); pass the activations the layer was made for");
    return holds;
  }
};

/// In a sequence of layers, layer k's output width is layer k + 1's input width (layers that keep the width, such
/// as activations, pass it through, so k + 1 is the next layer with an input width of its own).
template <typename Position, typename Layer, typename NextLayer, typename OutputWidth, typename NextInputWidth>
struct layer_output_must_match_next_input {
  static constexpr bool holds = detail::dims_match<OutputWidth, NextInputWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: in ctattn::sequential, a layer's output width must match the next layer's input width; "
                  "change one of the two widths or put a linear layer between them (the rule below names k, "
                  "layer k, layer k + 1 and both widths)");
    return holds;
  }
};

/// A decoder layer's cross-attention reads the encoder's output, which has the decoder's width d_model.
template <typename Operation, typename MemoryWidth, typename ModelWidth>
struct memory_width_must_match_layer {
  static constexpr bool holds = detail::dims_match<MemoryWidth, ModelWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the memory a decoder layer attends to (the encoder's output) must have d_model columns; "
                  "pass the encoder's output, or give the decoder's cross-attention kdim and vdim");
    return holds;
  }
};

/// Imported weights hold as many values as the model has parameters.
template <typename Given, typename Expected>
struct imported_parameters_must_match_model {
  static constexpr bool holds = Given::value == Expected::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the imported weights hold another number of values than the model has parameters; "
                  "regenerate them from the model's .safetensors file (the rule below gives both counts)");
    return holds;
  }
};

/// A residual connection adds a layer's output to its input: the layer keeps the width.
template <typename Operation, typename InputWidth, typename OutputWidth>
struct residual_layer_must_keep_width {
  static constexpr bool holds = detail::dims_match<InputWidth, OutputWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a residual connection adds a layer's output to its input, so the layer must keep the "
                  "width; wrap a layer whose output width equals its input width");
    return holds;
  }
};

/// Decoding token by token needs a causal layer, whose tokens see only the ones before them.
template <typename Operation, typename Mask>
struct decoding_layer_must_be_causal {
  static constexpr bool holds = std::is_same_v<Mask, causal_mask>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: decoding token by token needs a causal layer, whose tokens see only the ones before "
                  "them; declare the layer with Mask = ctattn::causal_mask");
    return holds;
  }
};

/// A layer's `Mask` type is made empty (`Mask{}`) at every call, so it must hold nothing: a mask with run-time
/// state (`key_padding_length`, `key_padding_flags`, `boolean_mask`) would be made with no valid key and hide them
/// all, which zeroes the attention. Such masks go to the call: `ctattn::forward(layer, x, ctattn::key_padding_length{n})`.
template <typename Operation, typename Mask>
struct layer_mask_must_hold_no_state {
  static constexpr bool holds = std::is_empty_v<Mask>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer's Mask type must hold no run-time state (it is made empty at every call, with "
                  "no valid key); pass a key padding or boolean mask to the call instead: "
                  "ctattn::forward(layer, x, mask)");
    return holds;
  }
};

/// A decoder layer has two attentions, so a mask given to its call says which it is for: `ctattn::tgt_mask(m)` for
/// the self-attention (with its causal mask; PyTorch's tgt_mask and tgt_key_padding_mask), `ctattn::memory_mask(m)`
/// for the cross-attention over the memory (memory_mask, memory_key_padding_mask). At most one of each, an
/// arithmetic, and the memory itself (`ctattn::with_memory`, for a decoder in `ctattn::sequential`); nothing else.
template <typename Operation, typename... Options>
struct decoder_masks_must_name_their_attention {
  static constexpr std::size_t targets = (std::size_t{0} + ... + (detail::is_tgt_mask_option<Options>::value ? 1 : 0));
  static constexpr std::size_t memories =
      (std::size_t{0} + ... + (detail::is_memory_mask_option<Options>::value ? 1 : 0));
  static constexpr std::size_t arithmetics = (std::size_t{0} + ... + (detail::is_arithmetic_option<Options> ? 1 : 0));
  static constexpr std::size_t memory_inputs =
      (std::size_t{0} + ... + (detail::is_memory_option<Options>::value ? 1 : 0));
  static constexpr bool holds = targets <= 1 && memories <= 1 && arithmetics <= 1 && memory_inputs <= 1 &&
                                targets + memories + arithmetics + memory_inputs == sizeof...(Options);
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a decoder layer has two attentions, so its masks say which they are for: "
                  "ctattn::tgt_mask(mask) for the self-attention (with its causal mask), ctattn::memory_mask(mask) "
                  "for the attention over the memory; at most one of each, an arithmetic, and in a sequential "
                  "model the memory (ctattn::with_memory(memory))");
    return holds;
  }
};

/// A decoder layer attends to a memory (the encoder's output), given with the call: float and int8 decoder layers,
/// the models and stacks holding them, and calibration.
template <typename Operation, bool MemoryGiven>
struct decoder_needs_its_memory {
  static constexpr bool holds = MemoryGiven;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a decoder layer attends to the encoder's memory, and the call gives none; pass it: "
                  "ctattn::with_memory(memory) after the input (record_ranges, a model's or a decoder's forward)");
    return holds;
  }
};

/// Parameters are walked, counted, loaded and imported on a model object: a ctattn layer, or a struct whose friend
/// `parameters(self)` lists its sublayers by name (docs/layers.md). `HasParameters` says which types are.
template <typename Operation, typename Given, bool IsModel>
struct parameters_need_a_model {
  static constexpr bool holds = IsModel;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: parameters are walked and loaded on a model object (a ctattn layer, or a struct whose "
                  "friend parameters(self) names its sublayers); pass the object itself, *model for a pointer or "
                  "a std::unique_ptr");
    return holds;
  }
};

/// A model declared once (ctattn::model) lists its members with BOOST_HANA_DEFINE_STRUCT, from which the library
/// derives its forward, parameters and footprint.
template <typename Operation, typename Model, bool Declared>
struct model_members_must_be_declared {
  static constexpr bool holds = Declared;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a ctattn::model lists its members with BOOST_HANA_DEFINE_STRUCT(model, (type, name)...) "
                  "inside its struct; declare the members there, not as plain data members");
    return holds;
  }
};

/// A model has at least one member.
template <typename Operation, typename Model, typename Members>
struct model_must_have_members {
  static constexpr bool holds = Members::value > 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a ctattn::model needs at least one member; list its layers in "
                  "BOOST_HANA_DEFINE_STRUCT");
    return holds;
  }
};

/// A model's derived forward runs its members in the order they are declared: member k's output width is the input
/// width of the next member that has one (activations pass the width on).
template <typename Position, typename Member, typename NextMember, typename OutputWidth, typename NextInputWidth>
struct model_member_output_must_match_next_input {
  static constexpr bool holds = detail::dims_match<OutputWidth, NextInputWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a ctattn::model runs its members in the order they are declared, so a member's output "
                  "width must match the next member's input width; reorder the members, change a width, or write "
                  "the model's own forward (the rule below names k, member k, the next member and both widths)");
    return holds;
  }
};

/// A model derives from `ctattn::model` of itself (`struct m : ctattn::model<m>`). A base naming another type (a
/// copy-paste: `struct b : ctattn::model<a>`) would give b a's forward, run over a b; a struct listing its members
/// with `BOOST_HANA_DEFINE_STRUCT` and no base has no forward. The library's functions refuse such a type wherever
/// they are given it (`ctattn::forward`, `ctattn::layer_footprint`, parameters, calibration and quantization).
/// `NamedModel` is the type the base names, void for none.
template <typename Operation, typename Model, typename NamedModel, bool Holds>
struct model_must_derive_from_model_of_itself {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a model derives from ctattn::model of itself (struct m : ctattn::model<m>), and this one "
                  "does not: its base names another model, whose members its forward would run, or it has none; "
                  "write the base with the model's own name (the rule below names the model, then the type its base "
                  "names: void for none)");
    return holds;
  }
};

/// A model's derived forward runs its members in turn, so each is a layer: a type with a `forward` (a ctattn layer,
/// an embedding, a pooling, a nested model or sequential, an int8 layer). `Position` is `count<k>` for member k.
/// A layer inside a model or a sequential lists its parameters (a friend `parameters(self)`, an empty Boost.Hana
/// tuple when it has none), so that weights can be walked, loaded and quantized by name.
template <typename Operation, typename Layer, bool Lists>
struct layer_must_list_its_parameters {
  static constexpr bool holds = Lists;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer of a model lists its parameters by name; give it a friend `parameters(self)` "
                  "returning a boost::hana tuple of its tensors and sublayers (an empty one when it has none): "
                  "docs/layers.md, \"A layer of your own\" (the rule below names the layer)");
    return holds;
  }
};

/// A layer whose memory is asked for (`ctattn::layer_footprint`, a model's footprint) says what one call keeps: a
/// static `footprint_of<X>()`.
template <typename Operation, typename Layer, typename Input, bool Declares>
struct layer_must_declare_its_footprint {
  static constexpr bool holds = Declares;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer's footprint is its own to say; give it `template <ctattn::FixedMatrix X> static "
                  "constexpr ctattn::footprint footprint_of()`: docs/layers.md, \"A layer of your own\" (the rule "
                  "below names the layer and its input)");
    return holds;
  }
};

template <typename Operation, typename Position, typename Member, bool IsLayer>
struct model_member_must_be_a_layer {
  static constexpr bool holds = IsLayer;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a ctattn::model runs its members in turn, and one of them is not a layer (it has no "
                  "forward); declare data that is not a layer outside BOOST_HANA_DEFINE_STRUCT, or write the "
                  "model's own forward (the rule below names k and member k's type)");
    return holds;
  }
};

/// A sequential model has at least one layer.
template <typename Operation, typename Layers>
struct sequence_must_not_be_empty {
  static constexpr bool holds = Layers::value > 0;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: ctattn::sequential needs at least one layer; pass the layers to compose");
    return holds;
  }
};

/// A patch embedding (a convolution whose stride is its kernel, with no padding) cuts its input into whole
/// patches: the patch's side divides the input's. The first dimension names the input's side
/// (`axis::sequence_length`, `axis::image_height`, `axis::image_width`), the second the patch's.
template <typename Operation, typename InputSide, typename PatchSide>
struct patch_must_divide_input {
  static constexpr bool holds = PatchSide::size != 0 && InputSide::size % PatchSide::size == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a patch embedding cuts its input into whole patches, so the patch's side must divide the "
                  "input's (the sequence's length, or the image's height and width); pad or crop the input, or "
                  "choose a patch size that divides it");
    return holds;
  }
};

/// A 2-d patch embedding takes its image as height x width rows of pixels, the channels as columns (the layout
/// of a camera's buffer; PyTorch's [1, C, H, W] input permuted to [H, W, C]).
template <typename Operation, typename InputRows, typename ImagePixels>
struct image_rows_must_match_patch_layer {
  static constexpr bool holds = InputRows::size == ImagePixels::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a 2-d patch embedding takes the image as height * width rows of pixels with the channels "
                  "as columns; pass a matrix of height * width rows (PyTorch's [C, H, W] permuted to [H, W, C]), "
                  "or declare the layer for the image's size");
    return holds;
  }
};

/// Greedy decoding writes each id it picks into the caller's ids: their element type is an integer that holds
/// every id of the vocabulary (0 to Vocabulary - 1), so that no id wraps into another.
template <typename Operation, typename Id, typename Vocabulary>
struct generated_ids_must_hold_vocabulary {
  static constexpr bool holds =
      std::is_integral_v<Id> && !std::is_same_v<Id, bool> &&
      (Vocabulary::size == 0 || static_cast<unsigned long long>(Vocabulary::size - 1) <=
                                    static_cast<unsigned long long>(std::numeric_limits<Id>::max()));
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the generated ids' element type cannot hold every id of the model's vocabulary, so an id "
                  "would wrap into another; store the ids in a wider integer type (std::uint16_t holds 65,536 ids)");
    return holds;
  }
};

}  // namespace shape_error
}  // namespace ctattn

#endif  // CTATTN_LAYERS_RULES_HPP
