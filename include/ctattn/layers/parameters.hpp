// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_LAYERS_PARAMETERS_HPP
#define CTATTN_LAYERS_PARAMETERS_HPP

/// \file
/// A model's parameters by PyTorch's `state_dict` names: every layer lists its parameters and its sublayers as a
/// Boost.Hana tuple (`ctattn::parameters(layer)`), and `ctattn::for_each_parameter` walks them depth first, in
/// the order PyTorch's `state_dict()` lists them, building names such as `layers.0.self_attn.in_proj_weight`.
/// Each parameter is a tensor view in PyTorch's shape over ctattn's storage:
///
/// | view                       | PyTorch shape | over                                                        |
/// |----------------------------|---------------|-------------------------------------------------------------|
/// | `matrix_tensor<M, false>`  | [rows, cols]  | a matrix stored as PyTorch stores it (out x in)             |
/// | `matrix_tensor<M, true>`   | [cols, rows]  | a matrix stored transposed (ctattn::in_by_out weights)      |
/// | `vector_tensor<M>`         | [cols]        | a 1 x cols matrix (a bias, a norm's weight)                 |
/// | `stacked_tensor<P...>`     | [rows..., cols] | views stacked on dimension 0 (in_proj_weight)               |
/// | `reshaped_tensor<M, D...>` | [D...]        | a matrix in its own row-major order: [1, 1, d], [out, in, k] |
///
/// Every view has `rank`, `shape`, `size` and `operator[](i)`, the i-th element in PyTorch's row-major order.
/// Everything is constexpr and allocates nothing.

#include <array>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <tuple>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/tuple.hpp>

#include "ctattn/layers/rules.hpp"
#include "ctattn/matrix/matrix.hpp"

namespace ctattn {

/// A matrix as a PyTorch tensor of rank 2: as stored (`Transposed` false), or transposed.
///
/// | member        | value                                            |
/// |---------------|--------------------------------------------------|
/// | `shape`       | {rows, cols}, or {cols, rows} when `Transposed`  |
/// | `operator[]`  | element i in PyTorch's row-major order           |
///
/// Example:
/// \code
///   ctattn::matrix<float, 2, 3> m{};
///   ctattn::matrix_tensor<ctattn::matrix<float, 2, 3>, true> t{&m};   // shape {3, 2}; t[1] is m(1, 0)
/// \endcode
template <typename M, bool Transposed>
struct matrix_tensor {
  using value_type = typename std::remove_const_t<M>::value_type;
  static constexpr std::size_t rank = 2;
  static constexpr std::size_t rows = Transposed ? std::remove_const_t<M>::cols : std::remove_const_t<M>::rows;
  static constexpr std::size_t cols = Transposed ? std::remove_const_t<M>::rows : std::remove_const_t<M>::cols;
  static constexpr std::array<std::size_t, 2> shape{rows, cols};
  static constexpr std::size_t size = rows * cols;
  M* matrix;
  [[nodiscard]] constexpr auto& operator[](std::size_t i) const noexcept {
    if constexpr (Transposed) {
      return matrix->elements[i % cols][i / cols];
    } else {
      return matrix->elements[i / cols][i % cols];
    }
  }
};

/// A 1 x N matrix as a PyTorch tensor of rank 1, shape {N}: biases, norm weights.
///
/// Example:
/// \code
///   ctattn::matrix<float, 1, 4> b{};
///   ctattn::vector_tensor<ctattn::matrix<float, 1, 4>> t{&b};   // shape {4}
/// \endcode
template <typename M>
struct vector_tensor {
  using value_type = typename std::remove_const_t<M>::value_type;
  static constexpr std::size_t rank = 1;
  static constexpr std::size_t rows = 1;
  static constexpr std::size_t cols = std::remove_const_t<M>::cols;
  static constexpr std::array<std::size_t, 2> shape{cols, 0};
  static constexpr std::size_t size = cols;
  M* matrix;
  [[nodiscard]] constexpr auto& operator[](std::size_t i) const noexcept { return matrix->elements[0][i]; }
};

/// Views of one rank and one trailing width stacked on PyTorch's dimension 0: nn.MultiheadAttention's
/// `in_proj_weight` (W_Q, W_K, W_V, 3E x E) and `in_proj_bias` (3E).
///
/// Example:
/// \code
///   ctattn::stacked_tensor<Q, K, V> in_proj{{q, k, v}};   // shape {3E, E}
/// \endcode
template <typename... Parts>
struct stacked_tensor {
  static_assert(sizeof...(Parts) > 0);
  using first = std::tuple_element_t<0, std::tuple<Parts...>>;
  using value_type = typename first::value_type;
  static constexpr std::size_t rank = first::rank;
  static_assert(((Parts::rank == rank) && ...), "ctattn: stacked tensors have one rank");
  static_assert(rank == 1 || ((Parts::cols == first::cols) && ...), "ctattn: stacked matrices have one width");
  static constexpr std::size_t size = (Parts::size + ...);
  static constexpr std::array<std::size_t, 2> shape =
      rank == 1 ? std::array<std::size_t, 2>{size, 0} : std::array<std::size_t, 2>{size / first::cols, first::cols};
  std::tuple<Parts...> parts;
  [[nodiscard]] constexpr auto& operator[](std::size_t i) const noexcept { return element<0>(i); }

 private:
  template <std::size_t P>
  [[nodiscard]] constexpr auto& element(std::size_t i) const noexcept {
    using part = std::tuple_element_t<P, std::tuple<Parts...>>;
    if constexpr (P + 1 == sizeof...(Parts)) {
      return std::get<P>(parts)[i];
    } else {
      return i < part::size ? std::get<P>(parts)[i] : element<P + 1>(i - part::size);
    }
  }
};

/// A matrix as a PyTorch tensor of any rank whose row-major order is the matrix's: an nn.Parameter of shape
/// [1, 1, d] over a 1 x d row (a class token), [1, n, d] over n x d (learned positions), a convolution's
/// [out, in, k] or [out, in, kh, kw] over its out x (in k) or out x (in kh kw) weight.
///
/// | member        | value                                            |
/// |---------------|--------------------------------------------------|
/// | `shape`       | {Dims...}, whose product is the matrix's size     |
/// | `operator[]`  | element i in row-major order, the matrix's and PyTorch's alike |
///
/// Example:
/// \code
///   ctattn::matrix<float, 1, 8> token{};
///   ctattn::reshaped_tensor<ctattn::matrix<float, 1, 8>, 1, 1, 8> t{&token};   // shape {1, 1, 8}
/// \endcode
template <typename M, std::size_t... Dims>
struct reshaped_tensor {
  using value_type = typename std::remove_const_t<M>::value_type;
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::size_t cols = std::remove_const_t<M>::cols;
  static constexpr std::array<std::size_t, rank> shape{Dims...};
  static constexpr std::size_t size = (Dims * ...);
  static_assert(size == std::remove_const_t<M>::rows * cols, "ctattn: a reshaped tensor keeps the matrix's size");
  M* matrix;
  [[nodiscard]] constexpr auto& operator[](std::size_t i) const noexcept {
    return matrix->elements[i / cols][i % cols];
  }
};

/// Whether a layer's parameters are its module's own nn.Parameter, named by the member alone (`ctattn::class_token`,
/// `ctattn::position_parameter`): PyTorch's `state_dict()` lists a module's own parameters before its children's,
/// so a model (ctattn::model) walks such members first, in the order they are declared. A layer says so with
/// `static constexpr bool held_by_module = true;`.
///
/// Example:
/// \code
///   static_assert(ctattn::held_by_module<ctattn::class_token<float, 8>> &&
///                 !ctattn::held_by_module<ctattn::layer_norm<float, 8>>);
/// \endcode
template <typename L>
inline constexpr bool held_by_module = [] {
  if constexpr (requires { L::held_by_module; }) {
    return static_cast<bool>(L::held_by_module);
  } else {
    return false;
  }
}();

/// A named parameter of a layer: what `ctattn::parameters(layer)` lists.
template <typename Tensor>
struct parameter_entry {
  std::string_view name;
  Tensor tensor;
};

/// A named sublayer; an empty name splices the sublayer's parameters into its parent's (a feed-forward block's
/// `linear1` is the encoder layer's `linear1`).
template <typename Layer>
struct sublayer_entry {
  std::string_view name;
  Layer* layer;
};

/// `parameter("weight", m)`: m viewed as PyTorch stores it (rank 1 for a 1 x N matrix when `Vector`).
///
/// Example (a layer of one's own, with PyTorch's names for its parameters):
/// \code
///   struct my_linear {
///     ctattn::matrix<float, 8, 4> weight{};   // out x in, as PyTorch stores it
///     ctattn::matrix<float, 1, 8> bias{};
///     template <typename Self>
///       requires std::is_same_v<std::remove_const_t<Self>, my_linear>
///     friend constexpr auto parameters(Self& self) noexcept {
///       return boost::hana::make_tuple(ctattn::parameter("weight", self.weight),
///                                      ctattn::vector_parameter("bias", self.bias));
///     }
///   };
///   static_assert(ctattn::parameter_names_match<my_linear>({"weight", "bias"}));
/// \endcode
template <bool Transposed = false, typename M>
[[nodiscard]] constexpr auto parameter(std::string_view name, M& m) noexcept {
  return parameter_entry<matrix_tensor<M, Transposed>>{name, {&m}};
}

/// `vector_parameter("bias", b)`: a 1 x N matrix as a PyTorch tensor of shape {N}.
template <typename M>
[[nodiscard]] constexpr auto vector_parameter(std::string_view name, M& m) noexcept {
  return parameter_entry<vector_tensor<M>>{name, {&m}};
}

/// `reshaped_parameter<1, 1, 8>("cls_token", m)`: m in its row-major order under PyTorch's shape {Dims...}. An empty
/// name makes the parameter its layer's own name (`cls_token`, not `cls_token.weight`): an nn.Parameter held by
/// the module itself.
template <std::size_t... Dims, typename M>
[[nodiscard]] constexpr auto reshaped_parameter(std::string_view name, M& m) noexcept {
  return parameter_entry<reshaped_tensor<M, Dims...>>{name, {&m}};
}

/// `stacked_parameter("in_proj_weight", a, b, c)`: tensor views stacked on dimension 0 under one name.
template <typename... Parts>
[[nodiscard]] constexpr auto stacked_parameter(std::string_view name, const Parts&... parts) noexcept {
  return parameter_entry<stacked_tensor<Parts...>>{name, {std::tuple<Parts...>{parts...}}};
}

/// `sublayer("self_attn", layer)`: a layer inside a layer; its parameters are named `self_attn.<name>`.
template <typename Layer>
[[nodiscard]] constexpr auto sublayer(std::string_view name, Layer& layer) noexcept {
  return sublayer_entry<Layer>{name, &layer};
}

/// A layer's setting beside its tensors, under the name of PyTorch's module attribute: nn.MultiheadAttention's
/// `num_heads`, nn.LayerNorm's `eps`, nn.TransformerEncoderLayer's `norm_first` and `activation`. Nothing in a
/// tensor's shape says them, so a file of weights for 8 heads fits a model of 4: an exported `.safetensors` file
/// carries each setting in its `__metadata__` as `<path>.<name>` (ctattn/host/import.hpp writes them and checks
/// them at load; tools/ctattn_export.py writes them from the module).
///
/// | member   | meaning                                                            |
/// |----------|--------------------------------------------------------------------|
/// | `name`   | the attribute's name (`num_heads`)                                 |
/// | `kind`   | `text` ("gelu", "true"), `integer` or `real`                       |
/// | `text`   | the value, when `kind` is `text`                                   |
/// | `number` | the value, when `kind` is `integer` or `real`                      |
/// | `single` | a `real` held in float (its text is the shortest that reads back as that float) |
///
/// Example (the settings of a layer of one's own, found by argument-dependent lookup like `parameters`):
/// \code
///   struct my_norm {
///     float eps = 1e-6f;
///     friend constexpr auto settings(const my_norm& self) noexcept {
///       return std::array{ctattn::setting("eps", self.eps)};
///     }
///   };
/// \endcode
struct setting_entry {
  enum class kind_type : unsigned char { text, integer, real };
  std::string_view name;
  kind_type kind = kind_type::text;
  std::string_view text;
  double number = 0;
  bool single = false;
};

/// `setting("activation", "gelu")`: a setting given as text.
[[nodiscard]] constexpr setting_entry setting(std::string_view name, std::string_view text) noexcept {
  return {name, setting_entry::kind_type::text, text, 0, false};
}
/// `setting("num_heads", std::size_t{4})`: an integer setting.
[[nodiscard]] constexpr setting_entry setting(std::string_view name, std::size_t value) noexcept {
  return {name, setting_entry::kind_type::integer, {}, static_cast<double>(value), false};
}
/// `setting("eps", 1e-5f)`: a real setting, held in float or double.
[[nodiscard]] constexpr setting_entry setting(std::string_view name, float value) noexcept {
  return {name, setting_entry::kind_type::real, {}, static_cast<double>(value), true};
}
/// \copydoc setting(std::string_view, float)
[[nodiscard]] constexpr setting_entry setting(std::string_view name, double value) noexcept {
  return {name, setting_entry::kind_type::real, {}, value, false};
}

/// A parameter's full name, built without allocating (at most 255 characters; longer names are cut, which
/// `truncated` reports).
struct parameter_name {
  std::array<char, 256> chars{};
  std::size_t length = 0;
  bool truncated = false;

  constexpr void append(std::string_view text) noexcept {
    // Rationale: the room counted once, then a plain copy. Constant evaluation pays for every step, and the layers'
    // static tests build a name for each parameter of every layer they load, within Clang's default budget.
    const std::size_t room = chars.size() - 1 - length;
    const std::size_t n = text.size() < room ? text.size() : room;
    truncated = truncated || n < text.size();
    for (std::size_t i = 0; i < n; ++i) chars[length + i] = text[i];
    length += n;
  }
  constexpr void append(std::size_t index) noexcept {
    char digits[20]{};
    std::size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + index % 10);
      index /= 10;
    } while (index != 0);
    while (count != 0) append(std::string_view(&digits[--count], 1));
  }
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars.data(), length}; }
};

namespace detail {
/// `Self` is `L` or `const L`: the constraint of a layer's `parameters` friend, which serves both.
template <typename Self, typename L>
concept SameLayer = std::is_same_v<std::remove_const_t<Self>, L>;

template <typename T>
inline constexpr bool is_sublayer_entry = false;
template <typename L>
inline constexpr bool is_sublayer_entry<sublayer_entry<L>> = true;

// Appends `.name` to a path: an entry under it. An empty name leaves the path itself (a sublayer spliced into its
// parent; a parameter named by its layer alone, such as a class token); an empty path becomes the name.
// Rationale: in place. Constant evaluation copies a name (256 characters) element by element, and a walk builds
// one per entry: a name returned by value cost the layers' static tests a third more steps than Clang's default
// budget allows.
constexpr void join_name(parameter_name& path, std::string_view name) noexcept {
  if (path.length != 0 && !name.empty()) path.append(".");
  path.append(name);
}
[[nodiscard]] constexpr parameter_name joined(const parameter_name& prefix, std::string_view name) noexcept {
  parameter_name full = prefix;
  join_name(full, name);
  return full;
}

template <typename Layer, typename F>
constexpr void walk_parameters(Layer& layer, const parameter_name& prefix, F& f) noexcept {
  boost::hana::for_each(parameters(layer), [&](const auto& entry) {
    parameter_name name = prefix;
    join_name(name, entry.name);
    if constexpr (is_sublayer_entry<std::remove_cvref_t<decltype(entry)>>) {
      using sublayer_type = std::remove_reference_t<decltype(*entry.layer)>;
      if constexpr (shape_error::layer_must_list_its_parameters<op::parameters, std::remove_const_t<sublayer_type>,
                                                                requires(sublayer_type& l) {
                                                                  parameters(l);
                                                                }>::check()) {
        walk_parameters(*entry.layer, name, f);
      }
    } else {
      f(name.view(), entry.tensor);
    }
  });
}

template <typename LayerA, typename LayerB, typename F>
constexpr void walk_parameter_pairs(LayerA& a, LayerB& b, const parameter_name& prefix, F& f) noexcept {
  const auto entries_a = parameters(a);
  const auto entries_b = parameters(b);
  constexpr std::size_t count = decltype(boost::hana::length(entries_a))::value;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          const auto& entry_a = boost::hana::at_c<I>(entries_a);
          const auto& entry_b = boost::hana::at_c<I>(entries_b);
          parameter_name name = prefix;
          join_name(name, entry_a.name);
          if constexpr (is_sublayer_entry<std::remove_cvref_t<decltype(entry_a)>>) {
            walk_parameter_pairs(*entry_a.layer, *entry_b.layer, name, f);
          } else {
            f(name.view(), entry_a.tensor, entry_b.tensor);
          }
        }(),
        ...);
  }(std::make_index_sequence<count>{});
}
}  // namespace detail

/// A model object whose parameters can be walked by name: a ctattn layer, or a struct with a friend
/// `parameters(self)` (found by argument-dependent lookup) that lists its sublayers.
///
/// Example:
/// \code
///   static_assert(ctattn::HasParameters<ctattn::layer_norm<float, 8>> && !ctattn::HasParameters<int>);
/// \endcode
template <typename M>
concept HasParameters = requires(M& m) { parameters(m); };

namespace detail {
// The model a struct's ctattn::model base names (void for a type without that base).
template <typename M>
struct model_base_of {
  using type = void;
};
template <typename M>
  requires requires { typename M::ctattn_model_type; }
struct model_base_of<M> {
  using type = typename M::ctattn_model_type;
};

// Whether M is a model declared without its base: one deriving from ctattn::model of another type (`struct b :
// ctattn::model<a>`, a copy-paste, whose inherited forward would run a's members over a b), or a struct listing its
// members with BOOST_HANA_DEFINE_STRUCT and no ctattn::model base (nor parameters of its own).
template <typename M, typename Base = typename model_base_of<std::remove_cvref_t<M>>::type>
inline constexpr bool misdeclared_model =
    std::is_void_v<Base> ? boost::hana::Struct<std::remove_cvref_t<M>>::value && !HasParameters<M>
                         : !std::is_same_v<Base, std::remove_cvref_t<M>>;

// A model declared with ctattn::model names itself in its base (any other type passes).
template <typename Operation, typename M>
using model_base_rule = shape_error::model_must_derive_from_model_of_itself<
    Operation, std::remove_cvref_t<M>, typename model_base_of<std::remove_cvref_t<M>>::type, !misdeclared_model<M>>;

// The first member of a model declared with BOOST_HANA_DEFINE_STRUCT that lists no parameters (void when each
// does, or M is no such struct).
template <typename M, typename = void>
struct first_member_without_parameters {
  using type = void;
};
template <typename M>
struct first_member_without_parameters<M, std::enable_if_t<boost::hana::Struct<M>::value>> {
  template <typename... Members>
  struct first {
    using type = void;
  };
  template <typename Member, typename... Rest>
  struct first<Member, Rest...> {
    using type = std::conditional_t<HasParameters<Member>, typename first<Rest...>::type, Member>;
  };
  template <std::size_t... I>
  static auto of(std::index_sequence<I...>) -> first<std::remove_cvref_t<
      decltype(boost::hana::second(boost::hana::at_c<I>(boost::hana::accessors<M>()))(std::declval<M&>()))>...>;
  using type = typename decltype(of(
      std::make_index_sequence<decltype(boost::hana::length(boost::hana::accessors<M>()))::value>{}))::type;
};

// Every member of a model lists its parameters: checked where the walk starts, so that the sentence comes before
// the walk's own calls (a member nested deeper is checked where the walk reaches it, detail::walk_parameters).
template <typename M>
using members_list_parameters_rule = shape_error::layer_must_list_its_parameters<
    op::parameters, typename first_member_without_parameters<std::remove_cvref_t<M>>::type,
    std::is_void_v<typename first_member_without_parameters<std::remove_cvref_t<M>>::type>>;

// The rules of walking a model's parameters: its base names itself, it lists its parameters, and so do its members.
template <typename M>
using parameters_rules =
    rule_list<model_base_rule<op::parameters, M>,
              shape_error::parameters_need_a_model<op::parameters, std::remove_cvref_t<M>, HasParameters<M>>,
              members_list_parameters_rule<M>>;
}  // namespace detail

/// Calls `f(name, tensor)` for every parameter of `layer` (a layer, a model, ctattn::sequential), in PyTorch's
/// `state_dict()` order, with PyTorch's names; `tensor` is one of this header's views (const when `layer` is).
///
/// Example:
/// \code
///   std::size_t floats = 0;
///   ctattn::for_each_parameter(model, [&](std::string_view, const auto& tensor) { floats += tensor.size; });
/// \endcode
template <typename Layer, typename F>
constexpr void for_each_parameter(Layer& layer, F&& f) noexcept {
  if constexpr (detail::first_broken<detail::parameters_rules<Layer>>::check()) {
    detail::walk_parameters(layer, parameter_name{}, f);
  }
}

/// A layer with settings beside its tensors: a friend `settings(const L&)` returning an array of `setting_entry`.
template <typename L>
concept HasSettings = requires(const L& l) { settings(l); };

namespace detail {
template <typename Layer, typename F>
constexpr void walk_settings(const Layer& layer, const parameter_name& prefix, F& f) noexcept {
  if constexpr (HasSettings<Layer>) {
    for (const setting_entry& entry : settings(layer)) f(joined(prefix, entry.name).view(), entry);
  }
  boost::hana::for_each(parameters(layer), [&](const auto& entry) {
    if constexpr (is_sublayer_entry<std::remove_cvref_t<decltype(entry)>>) {
      walk_settings(*entry.layer, joined(prefix, entry.name), f);
    }
  });
}
}  // namespace detail

/// Calls `f(name, setting)` for every setting of `layer`'s sublayers, depth first, each named by its path like a
/// parameter (`layers.0.self_attn.num_heads`, `layers.0.norm_first`, `norm.eps`).
///
/// Example:
/// \code
///   ctattn::transformer_encoder_layer<float, 32, 4, 64, ctattn::gelu, true> layer{};
///   std::size_t named = 0;
///   ctattn::for_each_setting(layer, [&](std::string_view name, const ctattn::setting_entry& s) {
///     named += name.ends_with(s.name);   // norm_first, self_attn.num_heads, activation, norm1.eps, norm2.eps
///   });
/// \endcode
template <typename Layer, typename F>
constexpr void for_each_setting(const Layer& layer, F&& f) noexcept {
  if constexpr (detail::first_broken<detail::parameters_rules<Layer>>::check()) {
    detail::walk_settings(layer, parameter_name{}, f);
  }
}

/// A layer whose real settings can be changed once it is made: a friend `adjust_setting(L&, name, value)`, found by
/// argument-dependent lookup, that sets the setting `name` to `value` and says whether the layer has it (a norm's
/// `eps`).
template <typename L>
concept HasAdjustableSettings = requires(L& l, std::string_view name, double value) {
  { adjust_setting(l, name, value) } -> std::same_as<bool>;
};

namespace detail {
// Calls f(path, layer) for `layer` and each of its sublayers, depth first, each with its path.
template <typename Layer, typename F>
constexpr void walk_layers(Layer& layer, const parameter_name& path, F& f) noexcept {
  f(path, layer);
  boost::hana::for_each(parameters(layer), [&](const auto& entry) {
    if constexpr (is_sublayer_entry<std::remove_cvref_t<decltype(entry)>>) {
      walk_layers(*entry.layer, joined(path, entry.name), f);
    }
  });
}

// Sets every adjustable setting whose name is `name` and, when `path` is given, whose path is `path`; the count.
template <typename Layer>
constexpr std::size_t adjust_settings(Layer& layer, const std::string_view* path, std::string_view name,
                                      double value) noexcept {
  std::size_t changed = 0;
  auto adjust = [&](const parameter_name& at, auto& sublayer) {
    if constexpr (HasAdjustableSettings<std::remove_cvref_t<decltype(sublayer)>>) {
      for (const setting_entry& entry : settings(std::as_const(sublayer))) {
        const bool wanted = path ? joined(at, entry.name).view() == *path : entry.name == name;
        if (wanted && adjust_setting(sublayer, entry.name, value)) ++changed;
      }
    }
  };
  walk_layers(layer, parameter_name{}, adjust);
  return changed;
}
}  // namespace detail

/// Sets the real setting at `path` (`norm.eps`, `layers.0.norm1.eps`: the names `ctattn::for_each_setting` gives)
/// to `value`, and says whether the model has it. Constexpr: a model made at compile time takes its module's
/// settings there too.
///
/// Example:
/// \code
///   ctattn::transformer_encoder_layer<float, 64, 1, 256, ctattn::gelu, false> block{};
///   const bool found = ctattn::set_setting(block, "norm1.eps", 1e-6);   // true; norm2 keeps 1e-5
/// \endcode
template <typename Layer>
constexpr bool set_setting(Layer& layer, std::string_view path, double value) noexcept {
  std::size_t changed = 0;
  if constexpr (detail::first_broken<detail::parameters_rules<Layer>>::check()) {
    const std::size_t dot = path.rfind('.');
    changed = detail::adjust_settings(layer, &path, dot == std::string_view::npos ? path : path.substr(dot + 1), value);
  }
  return changed != 0;
}

/// Sets the setting `name` of every layer that has it, and gives how many it set: `set_every_setting(model, "eps",
/// 1e-6)` gives every norm the eps timm and KWT build theirs with.
///
/// Example:
/// \code
///   ctattn::transformer_encoder_layer<float, 64, 1, 256, ctattn::gelu, false> block{};
///   const std::size_t norms = ctattn::set_every_setting(block, "eps", 1e-6);   // 2: norm1 and norm2
/// \endcode
template <typename Layer>
constexpr std::size_t set_every_setting(Layer& layer, std::string_view name, double value) noexcept {
  std::size_t changed = 0;
  if constexpr (detail::first_broken<detail::parameters_rules<Layer>>::check()) {
    changed = detail::adjust_settings(layer, nullptr, name, value);
  }
  return changed;
}

/// How many scalars a layer or model holds (PyTorch's `sum(p.numel() for p in model.parameters())`).
///
/// Example:
/// \code
///   static_assert(ctattn::parameter_count(model) == 2 * 64 * 64 + 2 * 64);
/// \endcode
template <typename Layer>
[[nodiscard]] constexpr std::size_t parameter_count(const Layer& layer) noexcept {
  std::size_t total = 0;
  for_each_parameter(layer, [&](std::string_view, const auto& tensor) { total += tensor.size; });
  return total;
}

/// How many named tensors a layer or model holds (the length of PyTorch's `state_dict()`).
template <typename Layer>
[[nodiscard]] constexpr std::size_t parameter_tensor_count(const Layer& layer) noexcept {
  std::size_t total = 0;
  for_each_parameter(layer, [&](std::string_view, const auto&) { ++total; });
  return total;
}

/// The name of the `index`-th tensor of `for_each_parameter`'s walk (empty past the end).
///
/// Example:
/// \code
///   static_assert(ctattn::parameter_name_at(layer, 0).view() == "self_attn.in_proj_weight");
/// \endcode
template <typename Layer>
[[nodiscard]] constexpr parameter_name parameter_name_at(const Layer& layer, std::size_t index) noexcept {
  parameter_name found{};
  std::size_t i = 0;
  for_each_parameter(layer, [&](std::string_view name, const auto&) {
    if (i++ == index) found.append(name);
  });
  return found;
}

/// Calls `f(name, tensor_a, tensor_b)` for every parameter of two layers or models of one type, side by side:
/// comparing a model loaded at run time with the one verified at compile time, or copying one into the other.
///
/// Example:
/// \code
///   double worst = 0;
///   ctattn::for_each_parameter_pair(loaded, reference, [&](std::string_view, const auto& a, const auto& b) {
///     for (std::size_t i = 0; i < a.size; ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
///   });
/// \endcode
template <typename LayerA, typename LayerB, typename F>
  requires std::is_same_v<std::remove_const_t<LayerA>, std::remove_const_t<LayerB>>
constexpr void for_each_parameter_pair(LayerA& a, LayerB& b, F&& f) noexcept {
  detail::walk_parameter_pairs(a, b, parameter_name{}, f);
}

/// Whether a model's parameters are named `names`, in order and no more (the check an imported weights header makes,
/// ctattn/host/import.hpp).
///
/// Example:
/// \code
///   static_assert(ctattn::parameter_names_match<ctattn::layer_norm<float, 4>>({"weight", "bias"}));
/// \endcode
template <typename Model, std::size_t N>
[[nodiscard]] constexpr bool parameter_names_match(const char* const (&names)[N]) noexcept {
  const Model model{};
  bool match = true;
  std::size_t i = 0;
  for_each_parameter(model, [&](std::string_view name, const auto&) {
    match = match && i < N && name == std::string_view(names[i]);
    ++i;
  });
  return match && i == N;
}

/// A `Model` with its parameters taken from `values`, every tensor flattened in `state_dict` order (as an
/// imported weights header holds them). A count that is not the model's is a compile error.
///
/// Example:
/// \code
///   constexpr auto norm = ctattn::from_parameters<ctattn::layer_norm<float, 2>>({1.0f, 1.0f, 0.0f, 0.0f});
/// \endcode
template <typename Model, typename T, std::size_t N>
[[nodiscard]] constexpr Model from_parameters(const T (&values)[N]) noexcept {
  Model model{};
  static_assert(
      (shape_error::imported_parameters_must_match_model<count<N>, count<parameter_count(Model{})>>::check(), true));
  std::size_t offset = 0;
  for_each_parameter(model, [&](std::string_view, const auto& view) {
    for (std::size_t i = 0; i < view.size && offset < N; ++i) view[i] = values[offset++];
  });
  return model;
}

}  // namespace ctattn

#endif  // CTATTN_LAYERS_PARAMETERS_HPP
