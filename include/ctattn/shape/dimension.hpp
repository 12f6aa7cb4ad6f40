// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_SHAPE_DIMENSION_HPP
#define CTATTN_SHAPE_DIMENSION_HPP

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "ctattn/shape/fixed_string.hpp"
#include "ctattn/shape/rule.hpp"

/// Strict names (opt-in): with `CTATTN_STRICT_NAMES` defined to 1, a plain size no longer matches a named
/// extent (`16` against `d_model{16}`), so every axis that meets a named one must be named too. Define it the
/// same way in every translation unit of a program (the CMake option `CTATTN_STRICT_NAMES` does that for
/// `ctattn::ctattn`'s users).
#ifndef CTATTN_STRICT_NAMES
#define CTATTN_STRICT_NAMES 0
#endif

namespace ctattn {

/// Base of a named dimension: derive a tag type from it to give an axis a name of its own.
///
/// A named dimension is a type (its name) plus a size (its value). Two named dimensions are the same axis only
/// when their types are the same; `d_k{64}` and `d_v{64}` have equal sizes but are different axes, so a product
/// that contracts one against the other does not compile.
///
/// | expression            | meaning                                     |
/// |-----------------------|---------------------------------------------|
/// | `struct seq : ctattn::dimension<"seq"> {};` | declares the axis `seq`  |
/// | `seq{6}`              | the axis `seq` with 6 entries (an extent)   |
/// | `seq::name.view()`    | `"seq"`, for printing                       |
///
/// Example:
/// \code
///   struct seq : ctattn::dimension<"seq"> {};
///   struct d_model : ctattn::dimension<"d_model"> {};
///   ctattn::matrix<float, seq{6}, d_model{16}> x{};   // 6 tokens of width 16
/// \endcode
template <fixed_string Name>
struct dimension {
  using ctattn_dimension_tag = void;
  static constexpr auto name = Name;

  std::size_t size;
};

/// An axis with a name: a class derived from `ctattn::dimension<"...">`.
template <typename T>
concept NamedExtent = std::is_class_v<T> && requires {
  typename T::ctattn_dimension_tag;
  { T::name.view() } -> std::convertible_to<std::string_view>;
  { T{}.size } -> std::convertible_to<std::size_t>;
};

/// What a matrix dimension may be: a plain size (any integer type) or a named extent such as `seq{6}`.
template <typename T>
concept Extent = std::integral<T> || NamedExtent<T>;

/// The tag of a plain (unnamed) size in diagnostics: `ctattn::dim<ctattn::unnamed, 64>`.
struct unnamed {};

/// A dimension as a type, for diagnostics: the compiler prints `ctattn::dim<d_k, 64>`.
template <typename Tag, std::size_t Size>
struct dim {
  using tag = Tag;
  static constexpr std::size_t size = Size;
};

/// The number of entries along an extent: `extent_size(6) == 6`, `extent_size(seq{6}) == 6`.
template <Extent E>
[[nodiscard]] constexpr std::size_t extent_size(E e) noexcept {
  if constexpr (NamedExtent<E>) {
    return e.size;
  } else {
    return static_cast<std::size_t>(e);
  }
}

/// The name of an extent for printing: `"seq"` for `seq{6}`, empty for a plain size.
template <Extent E>
[[nodiscard]] constexpr std::string_view extent_name(E) noexcept {
  if constexpr (NamedExtent<E>) {
    return E::name.view();
  } else {
    return {};
  }
}

/// Whether an extent carries a name.
template <Extent E>
[[nodiscard]] constexpr bool is_named(E) noexcept {
  return NamedExtent<E>;
}

namespace detail {

/// The name half of the matching rule, on the tags of two extents (`unnamed` for a plain size): the same name, or
/// (unless names are strict) a plain size on either side. `extents_match` and `dims_match` both use it.
template <typename TagA, typename TagB>
inline constexpr bool names_match =
    std::is_same_v<TagA, TagB> ||
    (!CTATTN_STRICT_NAMES && (std::is_same_v<TagA, unnamed> || std::is_same_v<TagB, unnamed>));

template <typename E>
struct dim_tag {
  using type = unnamed;
};
template <NamedExtent E>
struct dim_tag<E> {
  using type = E;
};

}  // namespace detail

/// The rule that joins two extents along one axis (inner dimensions of a product, shapes of a sum, ...):
/// the sizes are equal, and when both are named the names are the same. A plain size is a wildcard for the
/// name: `16` matches `d_model{16}` (except in strict mode, `CTATTN_STRICT_NAMES`).
///
/// | a          | b          | match |
/// |------------|------------|-------|
/// | `16`       | `16`       | yes   |
/// | `16`       | `d_k{16}`  | yes   |
/// | `d_k{16}`  | `d_k{16}`  | yes   |
/// | `d_k{16}`  | `d_v{16}`  | no    |
/// | `d_k{16}`  | `d_k{8}`   | no    |
///
/// Example:
/// \code
///   static_assert(!ctattn::extents_match(d_k{64}, d_v{64}));
/// \endcode
template <Extent A, Extent B>
[[nodiscard]] constexpr bool extents_match(A a, B b) noexcept {
  return extent_size(a) == extent_size(b) &&
         detail::names_match<typename detail::dim_tag<A>::type, typename detail::dim_tag<B>::type>;
}

namespace detail {

/// `extents_match` on the diagnostic form of two extents (`dim<Tag, Size>`): what the shape rules compare.
template <typename A, typename B>
inline constexpr bool dims_match = false;
template <typename TagA, std::size_t SizeA, typename TagB, std::size_t SizeB>
inline constexpr bool dims_match<dim<TagA, SizeA>, dim<TagB, SizeB>> = SizeA == SizeB && names_match<TagA, TagB>;

}  // namespace detail

/// The extent two matching extents stand for together: the named one when exactly one is named.
///
/// Example:
/// \code
///   static_assert(std::is_same_v<decltype(ctattn::unify_extents(std::size_t{16}, d_k{16})), d_k>);
/// \endcode
template <Extent A, Extent B>
[[nodiscard]] constexpr auto unify_extents(A a, B b) noexcept {
  if constexpr (NamedExtent<A>) {
    (void)b;
    return a;
  } else if constexpr (NamedExtent<B>) {
    (void)a;
    return b;
  } else {
    (void)b;
    return static_cast<std::size_t>(a);
  }
}

namespace shape_error {

/// A matrix dimension is an integer size or a named extent (`seq{6}`).
template <typename Operation, typename Given>
struct dimension_must_be_a_size_or_a_named_extent {
  static constexpr bool holds = Extent<Given>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a matrix dimension must be an integer size or a named extent such as seq{6}; declare "
                  "the axis as struct seq : ctattn::dimension<\"seq\"> {} and write seq{6}");
    return holds;
  }
};

/// A matrix dimension has at least one entry.
template <typename Operation, typename Dimension>
struct extent_must_have_an_entry {
  static constexpr bool holds = Dimension::size > 0;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: a matrix dimension must have at least one entry; give it a size of 1 or more");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

template <auto E>
struct normalized_extent {
  static_assert(
      (shape_error::dimension_must_be_a_size_or_a_named_extent<op::matrix, std::remove_cv_t<decltype(E)>>::check(),
       true));
  static constexpr std::size_t value = 1;
};

template <auto E>
  requires std::integral<std::remove_cv_t<decltype(E)>>
struct normalized_extent<E> {
  static_assert((shape_error::extent_must_have_an_entry<
                     op::matrix, dim<unnamed, (E > 0 ? static_cast<std::size_t>(E) : std::size_t{0})>>::check(),
                 true));
  static constexpr std::size_t value = E > 0 ? static_cast<std::size_t>(E) : 1;
};

template <auto E>
  requires NamedExtent<std::remove_cv_t<decltype(E)>>
struct normalized_extent<E> {
  using extent = std::remove_cv_t<decltype(E)>;
  static_assert((shape_error::extent_must_have_an_entry<op::matrix, dim<extent, E.size>>::check(), true));
  static constexpr extent value = E.size > 0 ? E : extent{1};
};

}  // namespace detail

/// One spelling per extent: every integer type becomes `std::size_t`, so `matrix<float, 6, 16>` and
/// `matrix<float, 6u, 16u>` are the same type.
// Rationale: the variable's type is spelled out; GCC 12 sometimes fails to deduce an `auto` variable
// template used inside another template's signature ("type 'const auto' ... is not literal").
template <auto E>
inline constexpr std::remove_cv_t<decltype(detail::normalized_extent<E>::value)> normalize_extent =
    detail::normalized_extent<E>::value;

namespace detail {
// Whether an optional extent template argument was given: 0 (never a valid extent) stands for "not given".
template <auto Given>
inline constexpr bool extent_given = true;
template <auto Given>
  requires std::is_integral_v<decltype(Given)>
inline constexpr bool extent_given<Given> = Given != 0;

// An optional extent template argument: 0 (never a valid extent) stands for "not given", and then Default is
// used.
template <auto Given, std::size_t Default>
inline constexpr auto extent_or = [] {
  if constexpr (std::is_integral_v<decltype(Given)>) {
    if constexpr (Given == 0) {
      return Default;
    } else {
      return normalize_extent<Given>;
    }
  } else {
    return normalize_extent<Given>;
  }
}();
}  // namespace detail

namespace detail {

constexpr std::size_t decimal_digits(std::size_t n) noexcept {
  std::size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

// "<name>/<parts>": the name of one of `Parts` equal parts of the axis `Name`.
template <fixed_string Name, std::size_t Parts>
constexpr auto part_name() noexcept {
  constexpr std::size_t digits = decimal_digits(Parts);
  fixed_string<Name.length + 1 + digits + 1> result{};
  for (std::size_t i = 0; i < Name.length; ++i) result.chars[i] = Name.chars[i];
  result.chars[Name.length] = '/';
  std::size_t n = Parts;
  for (std::size_t i = 0; i < digits; ++i) {
    result.chars[Name.length + digits - i] = static_cast<char>('0' + n % 10);
    n /= 10;
  }
  return result;
}

}  // namespace detail

/// The axis of one of `Parts` equal parts of the named axis `Whole`: the head axis of a head split. Its name reads
/// `"d_model/4"`, and concatenating `Parts` blocks of it gives back `Whole` (see `split_columns` and
/// `concat_columns`), so a name survives a split and a join.
///
/// | expression                 | meaning                                 |
/// |----------------------------|-----------------------------------------|
/// | `part_of<d_model, 4>{4}`   | a quarter of `d_model{16}`: 4 columns   |
/// | `part_of<d_model, 4>::name`| `"d_model/4"`                           |
/// | `part_of<...>::whole`      | `d_model`                               |
///
/// Example:
/// \code
///   auto heads = ctattn::split_columns<4>(x);          // x: seq x d_model{16}
///   // heads[h]: seq x ctattn::part_of<d_model, 4>{4}
///   auto back = ctattn::concat_columns(heads);         // seq x d_model{16} again
/// \endcode
template <NamedExtent Whole, std::size_t Parts>
struct part_of : dimension<detail::part_name<Whole::name, Parts>()> {
  using whole = Whole;
  static constexpr std::size_t parts = Parts;
};

namespace detail {

// The extent of `Parts` equal parts of `E` (`Width` entries each): `part_of<E, Parts>` when E is named, else the
// plain width.
template <auto E, std::size_t Parts, std::size_t Width>
constexpr auto part_extent() noexcept {
  if constexpr (NamedExtent<std::remove_cv_t<decltype(E)>>) {
    return part_of<std::remove_cv_t<decltype(E)>, Parts>{Width};
  } else {
    return Width;
  }
}

// The extent that `Parts` blocks of extent B form side by side: the whole axis back when B is one of `Parts` parts
// of it, else a plain size.
template <auto B, std::size_t Parts>
constexpr auto joined_extent() noexcept {
  using block = std::remove_cv_t<decltype(B)>;
  if constexpr (requires {
                  typename block::whole;
                  block::parts;
                }) {
    if constexpr (block::parts == Parts) {
      return typename block::whole{Parts * extent_size(B)};
    } else {
      return Parts * extent_size(B);
    }
  } else {
    return Parts * extent_size(B);
  }
}

}  // namespace detail

/// The diagnostic type of an extent value: `dim_of<d_k{64}>` is `dim<d_k, 64>`, `dim_of<64>` is
/// `dim<unnamed, 64>`.
template <auto E>
using dim_of = dim<typename detail::dim_tag<std::remove_cv_t<decltype(E)>>::type, extent_size(E)>;

}  // namespace ctattn

#endif  // CTATTN_SHAPE_DIMENSION_HPP
