// SPDX-License-Identifier: BSL-1.0
// ctattn.hpp: ctattn 0.1.0, header-only C++20 transformer attention on fixed-size matrices, as one header.
//
// GENERATED FILE, do not edit. Made by scripts/make-single-header from include/ctattn/ctattn.hpp and every
// ctattn header it includes (the core; the host-only helpers under ctattn/host/ are not in it). Regenerate with
//   scripts/make-single-header single_include/ctattn.hpp
//
// Use: #include "ctattn.hpp" and compile with -std=c++20 (GCC 12, Clang 14 or later). Add -ffp-contract=off for
// compile-time and run-time results that agree bit for bit: without it the compiler may fuse a*b+c at run time,
// which the constant evaluator never does (README.md, "Using it").
//
// Distributed under the Boost Software License, Version 1.0 (the LICENSE file of ctattn's repository).

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

// ---------------------------------------- ctattn/ctattn.hpp
#ifndef CTATTN_CTATTN_HPP
#define CTATTN_CTATTN_HPP

/// \file
/// The whole of ctattn's core: include this, or the one header you need.
/// Host-only helpers (printing) are not included here; see ctattn/host/.

// ---------------------------------------- ctattn/version.hpp
#ifndef CTATTN_VERSION_HPP
#define CTATTN_VERSION_HPP

/// \file
/// The library version, the single source that CMake's project() reads.

#define CTATTN_VERSION_MAJOR 0
#define CTATTN_VERSION_MINOR 1
#define CTATTN_VERSION_PATCH 0

/// The version as one number: major * 10000 + minor * 100 + patch.
#define CTATTN_VERSION (CTATTN_VERSION_MAJOR * 10000 + CTATTN_VERSION_MINOR * 100 + CTATTN_VERSION_PATCH)

#endif  // CTATTN_VERSION_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Shapes: dimensions, named extents, and how shape mistakes are reported.
// ---------------------------------------- ctattn/shape/dimension.hpp
#ifndef CTATTN_SHAPE_DIMENSION_HPP
#define CTATTN_SHAPE_DIMENSION_HPP


// ---------------------------------------- ctattn/shape/fixed_string.hpp
#ifndef CTATTN_SHAPE_FIXED_STRING_HPP
#define CTATTN_SHAPE_FIXED_STRING_HPP


namespace ctattn {

/// A string literal usable as a template argument: the name of a dimension.
///
/// | member   | meaning                                 |
/// |----------|-----------------------------------------|
/// | `length` | characters, without the terminating NUL |
/// | `view()` | the characters as a `std::string_view`  |
///
/// Example:
/// \code
///   static_assert(ctattn::fixed_string{"d_model"}.view() == "d_model");
/// \endcode
template <std::size_t N>
struct fixed_string {
  static_assert(N >= 1, "ctattn::fixed_string holds a NUL-terminated literal");
  static constexpr std::size_t length = N - 1;

  char chars[N]{};

  // Rationale: implicit, so that `dimension<"seq">` accepts a plain literal.
  constexpr fixed_string(const char (&literal)[N]) noexcept {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) chars[i] = literal[i];
  }

  /// An empty string of N - 1 characters to fill in (building derived names at compile time).
  constexpr fixed_string() noexcept = default;

  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, length}; }

  template <std::size_t M>
  [[nodiscard]] constexpr bool operator==(const fixed_string<M>& other) const noexcept {
    return view() == other.view();
  }
};

}  // namespace ctattn

#endif  // CTATTN_SHAPE_FIXED_STRING_HPP
// ---------------------------------------- ctattn/shape/dimension.hpp (continued)
// ---------------------------------------- ctattn/shape/rule.hpp
#ifndef CTATTN_SHAPE_RULE_HPP
#define CTATTN_SHAPE_RULE_HPP


/// \file
/// How a shape rule is defined once and used three ways.
///
/// A rule is a class template in `ctattn::shape_error` whose name says what must hold and whose template
/// arguments are the operation that was called and the dimensions (or types, or counts) it compares. It has
/// two members:
///
/// | member                     | what it is                                                                 |
/// |----------------------------|----------------------------------------------------------------------------|
/// | `static constexpr bool holds` | the predicate, computed from the template arguments                     |
/// | `static constexpr bool check()` | `static_assert(holds, "<what is wrong and what to do>")`, then `holds` |
///
/// From that one definition come:
/// - the concept: `ctattn::rules_hold<List>` is the predicate of a list of rules, usable in `requires` clauses
///   (`Multipliable`, `AttentionCompatible` and the other public concepts are defined from it);
/// - the diagnostic: `detail::first_broken<List>::check()` instantiates the `check()` of the first rule that
///   does not hold, so the first error line is that rule's sentence, and the lines next to it name the rule
///   type with its operation and both dimensions;
/// - the guard against follow-on errors: the same call is the condition of the `if constexpr` around the
///   operation's body, so nothing past a broken rule is compiled. At class scope, where nothing can be guarded,
///   `static_assert((detail::first_broken<List>::check(), true));` reports the first broken rule and asserts
///   nothing more itself (one error, and the class stays usable, so its users see no follow-on error).
///
/// What a user sees for `q * transpose(v)` with `d_k{64}` against `d_v{64}`:
///
///     error: static assertion failed: ctattn: the columns of the left operand must match the rows of the
///            right one ...                                                                   (GCC 12)
///     note: 'ctattn::shape_error::inner_dimensions_must_match<ctattn::op::multiply, ctattn::dim<d_k, 64>,
///            ctattn::dim<d_v, 64> >::holds' evaluates to false
///
///     error: static_assert failed due to requirement 'holds' "ctattn: the columns of the left operand ..."
///     note: in instantiation of member function 'ctattn::shape_error::inner_dimensions_must_match<
///            ctattn::op::multiply, ctattn::dim<d_k, 64>, ctattn::dim<d_v, 64>>::check' requested here
///                                                                                            (Clang 14)
///
/// Rationale: a `static_assert` message must be a string literal, so the sentence can only be written where the
/// assertion is; putting that assertion in a member of the rule itself keeps the sentence next to the predicate
/// (one definition), and the compilers then print the rule's full type, with its dimensions, right beside it.
/// Rules are checked in order and only the first broken one reports: a later rule computed from an earlier one
/// (a head width from a head count that does not divide d_model) never adds a false second error.

namespace ctattn {

/// A count or an index in a diagnostic: `ctattn::count<3>`.
template <std::size_t N>
struct count {
  static constexpr std::size_t value = N;
};

/// A shape rule: `R::holds` and `R::check()` as described in this header.
template <typename R>
concept ShapeRule = requires {
  { R::holds } -> std::convertible_to<bool>;
  { R::check() } -> std::same_as<bool>;
};

/// An ordered list of shape rules; an element may itself be a `rule_list` (it is spliced in place).
///
/// Example:
/// \code
///   using rules = ctattn::rule_list<ctattn::shape_error::element_types_must_match<ctattn::op::multiply, float, float>>;
///   static_assert(ctattn::rules_hold<rules>);
/// \endcode
template <typename... Rules>
struct rule_list {};

namespace detail {

// What `first_broken` names when every rule holds.
struct no_broken_rule {
  static constexpr bool holds = true;
  static constexpr bool check() noexcept { return true; }
};

template <typename List>
struct first_broken_in;

template <>
struct first_broken_in<rule_list<>> {
  using type = no_broken_rule;
};

template <typename... Inner, typename... Rest>
struct first_broken_in<rule_list<rule_list<Inner...>, Rest...>> : first_broken_in<rule_list<Inner..., Rest...>> {};

// Rationale: std::conditional_t only names the two bases; only the chosen one is instantiated, so the rules after
// a broken one are never evaluated.
template <typename Rule, typename... Rest>
struct first_broken_in<rule_list<Rule, Rest...>>
    : std::conditional_t<Rule::holds, first_broken_in<rule_list<Rest...>>, std::type_identity<Rule>> {};

/// The first rule of `List` that does not hold (`no_broken_rule` when all hold). Call `::check()` on it: the
/// diagnostic when a rule is broken, and the guard's condition.
///
/// Example (an operation guarded by its rules: a broken rule is reported once, and the operation not compiled):
/// \code
///   template <typename A, typename B>
///   constexpr void guarded_operation(const A&, const B&) {
///     if constexpr (ctattn::detail::first_broken<ctattn::detail::multiply_rules<A, B>>::check()) {
///       /* the operation */
///     }
///   }
/// \endcode
template <typename List>
using first_broken = typename first_broken_in<List>::type;

}  // namespace detail

/// Whether every rule in `List` holds: the predicate behind ctattn's concepts.
///
/// Example:
/// \code
///   template <typename A, typename B>
///   concept Multipliable = ctattn::FixedMatrix<A> && ctattn::FixedMatrix<B> &&
///                          ctattn::rules_hold<ctattn::detail::multiply_rules<A, B>>;
/// \endcode
template <typename List>
inline constexpr bool rules_hold = std::is_same_v<detail::first_broken<List>, detail::no_broken_rule>;

/// Operation tags: the first template argument of a rule names the operation that was called. Each tier
/// declares the tags of its own operations (ctattn/matrix/rules.hpp, ctattn/attention/rules.hpp, ...).
namespace op {
/// Declaring a matrix (its element type is checked).
struct matrix {};
}  // namespace op

namespace shape_error {

/// Both operands hold the same element type: no silent float/double mixing.
template <typename Operation, typename LhsElement, typename RhsElement>
struct element_types_must_match {
  static constexpr bool holds = std::is_same_v<LhsElement, RhsElement>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operands hold different element types (float and double do not mix silently); "
                  "convert one with ctattn::cast<T>(m)");
    return holds;
  }
};

/// ctattn computes in `float` or `double`: the types its constexpr math is exact for.
template <typename Operation, typename Element>
struct element_type_must_be_float_or_double {
  static constexpr bool holds = std::is_same_v<Element, float> || std::is_same_v<Element, double>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the element type must be float or double (ctattn's constexpr math is defined for those "
                  "two only); store the data as float or double, converting with ctattn::cast<T>(m) if needed");
    return holds;
  }
};

}  // namespace shape_error

/// The element types ctattn computes with: `float` and `double`. Everything else is rejected; where a type is
/// given as a template argument, with the sentence of `shape_error::element_type_must_be_float_or_double`.
///
/// Example:
/// \code
///   static_assert(ctattn::Scalar<float> && !ctattn::Scalar<long double>);
/// \endcode
template <typename T>
concept Scalar = shape_error::element_type_must_be_float_or_double<op::matrix, T>::holds;

}  // namespace ctattn

#endif  // CTATTN_SHAPE_RULE_HPP
// ---------------------------------------- ctattn/shape/dimension.hpp (continued)

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
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Matrices and their operations.
// ---------------------------------------- ctattn/matrix/batch.hpp
#ifndef CTATTN_MATRIX_BATCH_HPP
#define CTATTN_MATRIX_BATCH_HPP

/// \file
/// Batches: a fixed number of items along a batch axis that is an extent like any other (plain or named), and
/// `batch_map`, which runs any operation item by item. Batches nest: the reference text's B x h x n x d tensors
/// are a batch (axis B) of batches (axis h) of n x d matrices.


// ---------------------------------------- ctattn/matrix/matrix.hpp
#ifndef CTATTN_MATRIX_MATRIX_HPP
#define CTATTN_MATRIX_MATRIX_HPP


// ---------------------------------------- ctattn/detail/config.hpp
#ifndef CTATTN_DETAIL_CONFIG_HPP
#define CTATTN_DETAIL_CONFIG_HPP

/// \file
/// Preconditions that cannot be checked from types alone (run-time indices, lengths).
///
/// In constant evaluation a broken precondition is a compile error that names `precondition_failed`. At run
/// time it traps when `CTATTN_CHECK_PRECONDITIONS` is 1 (the default unless `NDEBUG` is defined) and is not
/// checked otherwise. No exception, no message, no iostream: fit for firmware.

#ifndef CTATTN_CHECK_PRECONDITIONS
#ifdef NDEBUG
#define CTATTN_CHECK_PRECONDITIONS 0
#else
#define CTATTN_CHECK_PRECONDITIONS 1
#endif
#endif

/// Marks the few small functions that run once per element in the int8 kernels (the fixed-point requantization):
/// inlined even where the compiler optimizes for size (-Os outlines them, and the call then costs as much as the
/// function). Empty for a compiler without the attribute.
#if defined(__GNUC__) || defined(__clang__)
#define CTATTN_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define CTATTN_ALWAYS_INLINE inline
#endif

namespace ctattn::detail {

// Not constexpr on purpose: reaching it during constant evaluation makes the expression non-constant, and the
// compiler's note names this function.
inline void precondition_failed() noexcept {
#if CTATTN_CHECK_PRECONDITIONS
  __builtin_trap();
#endif
}

constexpr void expects(bool condition) noexcept {
  if (!condition) precondition_failed();
}

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_CONFIG_HPP
// ---------------------------------------- ctattn/matrix/matrix.hpp (continued)

namespace ctattn {

/// A fixed-size, row-major, contiguous matrix whose dimensions are part of its type.
///
/// Write it as `ctattn::matrix<T, Rows, Cols>`; `basic_matrix` is the normalized form that functions deduce.
/// Each dimension is a plain size or a named extent (see `ctattn::dimension`). It is an aggregate: brace-
/// initialize it row by row or flat, use it as a `constexpr` variable, and inside `static_assert`. Every
/// element starts at zero when no initializer is given.
///
/// | member            | meaning                                                  |
/// |-------------------|----------------------------------------------------------|
/// | `value_type`      | `T`                                                      |
/// | `row_extent`      | the row dimension (`6` or `seq{6}`)                      |
/// | `column_extent`   | the column dimension                                     |
/// | `rows`, `cols`    | sizes as `std::size_t`                                   |
/// | `size`            | `rows * cols`                                            |
/// | `elements[r][c]`  | the storage, public so that the type is an aggregate     |
/// | `(r, c)`          | element access                                           |
/// | `[r]`             | row `r` as a `T[cols]` array                             |
/// | `data()`          | pointer to `rows * cols` contiguous elements (run time)  |
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}};
///   static_assert(a(1, 2) == 6.0f);
///   struct seq : ctattn::dimension<"seq"> {};
///   ctattn::matrix<float, seq{6}, 16> x{};   // rows named seq, 16 plain columns
/// \endcode
template <typename T, auto Rows, auto Cols>
struct basic_matrix {
  // Rationale: T is checked here rather than constrained, so that `matrix<long double, 2, 2>` is reported with
  // the rule's sentence instead of a bare "constraints not satisfied".
  static_assert((shape_error::element_type_must_be_float_or_double<op::matrix, T>::check(), true));
  using value_type = T;
  static constexpr auto row_extent = Rows;
  static constexpr auto column_extent = Cols;
  static constexpr std::size_t rows = extent_size(Rows);
  static constexpr std::size_t cols = extent_size(Cols);
  static constexpr std::size_t size = rows * cols;

  T elements[rows][cols]{};

  [[nodiscard]] constexpr T& operator()(std::size_t r, std::size_t c) noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr const T& operator()(std::size_t r, std::size_t c) const noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr T (&operator[](std::size_t r) noexcept)[cols] { return elements[r]; }
  [[nodiscard]] constexpr const T (&operator[](std::size_t r) const noexcept)[cols] { return elements[r]; }

  /// Run-time view of the contiguous storage, for SIMD kernels and I/O.
  // Rationale: reading past one row through this pointer is what every BLAS-like library does with a
  // contiguous 2-D array; constant-evaluated code indexes `elements[r][c]` instead.
  [[nodiscard]] T* data() noexcept { return &elements[0][0]; }
  [[nodiscard]] const T* data() const noexcept { return &elements[0][0]; }

  friend constexpr bool operator==(const basic_matrix&, const basic_matrix&) = default;
};

/// `matrix<T, Rows, Cols>`: the type users write. Dimensions are normalized (`6` and `6u` name the same type).
///
/// | parameter | meaning                                        |
/// |-----------|------------------------------------------------|
/// | `T`       | `float` or `double`                            |
/// | `Rows`    | plain size (`6`) or named extent (`seq{6}`)    |
/// | `Cols`    | plain size (`16`) or named extent (`d_model{16}`) |
///
/// Example:
/// \code
///   ctattn::matrix<float, 6, 16> x{};
/// \endcode
template <typename T, auto Rows, auto Cols>
using matrix = basic_matrix<T, normalize_extent<Rows>, normalize_extent<Cols>>;

/// A row vector: `row_vector<T, N>` is `matrix<T, 1, N>`.
template <typename T, auto N>
using row_vector = matrix<T, 1, N>;

/// A column vector: `column_vector<T, N>` is `matrix<T, N, 1>`.
template <typename T, auto N>
using column_vector = matrix<T, N, 1>;

namespace detail {
template <typename T>
struct is_basic_matrix : std::false_type {};
template <typename T, auto R, auto C>
struct is_basic_matrix<basic_matrix<T, R, C>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::matrix` (cv-qualifiers and references ignored).
template <typename M>
concept FixedMatrix = detail::is_basic_matrix<std::remove_cvref_t<M>>::value;

/// The same shape as `M` with another element type or other extents.
template <FixedMatrix M, Scalar T = typename std::remove_cvref_t<M>::value_type,
          auto Rows = std::remove_cvref_t<M>::row_extent, auto Cols = std::remove_cvref_t<M>::column_extent>
using rebind_matrix = basic_matrix<T, Rows, Cols>;

}  // namespace ctattn

#endif  // CTATTN_MATRIX_MATRIX_HPP
// ---------------------------------------- ctattn/matrix/batch.hpp (continued)

namespace ctattn {

namespace op {
struct batch_map {};
}  // namespace op

namespace shape_error {

/// Batches combined item by item have matching batch axes (equal sizes; equal names when both are named).
template <typename Operation, typename LhsAxis, typename RhsAxis>
struct batch_axes_must_match {
  static constexpr bool holds = detail::dims_match<LhsAxis, RhsAxis>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: batches combined item by item must have matching batch axes (equal sizes, and equal "
                  "names when both are named); pass batches of the same axis, e.g. the same batch and head counts");
    return holds;
  }
};

}  // namespace shape_error

/// A fixed-size batch of items along the batch axis `Axis`: usually written `ctattn::batch<Item, Axis>`.
///
/// | member          | meaning                                              |
/// |-----------------|------------------------------------------------------|
/// | `item_type`     | the items' type (a matrix, or a batch for nesting)   |
/// | `batch_extent`  | the batch axis (`2` or `batch_axis{2}`)              |
/// | `size`          | the number of items                                  |
/// | `items[b]`, `[b]` | item b                                             |
///
/// It is an aggregate like `ctattn::matrix`: usable in `static_assert`, zero when not initialized.
///
/// Example (the reference text's B x h x n x d queries, B = 2 sequences, h = 3 heads):
/// \code
///   struct batch_axis : ctattn::dimension<"batch"> {};
///   struct heads : ctattn::dimension<"heads"> {};
///   using queries = ctattn::batch<ctattn::batch<ctattn::matrix<float, seq{4}, d_k{5}>, heads{3}>, batch_axis{2}>;
/// \endcode
template <typename Item, auto Axis>
struct basic_batch {
  using item_type = Item;
  static constexpr auto batch_extent = Axis;
  static constexpr std::size_t size = extent_size(Axis);

  Item items[size]{};

  [[nodiscard]] constexpr Item& operator[](std::size_t b) noexcept { return items[b]; }
  [[nodiscard]] constexpr const Item& operator[](std::size_t b) const noexcept { return items[b]; }

  friend constexpr bool operator==(const basic_batch&, const basic_batch&) = default;
};

/// `batch<Item, Axis>`: `Axis` is normalized like a matrix dimension (`2`, `2u` and `std::size_t{2}` are one type).
template <typename Item, auto Axis>
using batch = basic_batch<Item, normalize_extent<Axis>>;

namespace detail {
template <typename T>
struct is_basic_batch : std::false_type {};
template <typename Item, auto Axis>
struct is_basic_batch<basic_batch<Item, Axis>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::batch` (cv-qualifiers and references ignored).
template <typename B>
concept Batch = detail::is_basic_batch<std::remove_cvref_t<B>>::value;

namespace detail {

template <typename A, typename... Rest>
using batch_map_rules = rule_list<
    shape_error::batch_axes_must_match<op::batch_map, dim_of<A::batch_extent>, dim_of<Rest::batch_extent>>...>;

// One position of `batch_map`: f on the items, or one axis deeper when every item is a batch itself.
template <typename F, typename... Items>
constexpr auto batch_item(F& f, const Items&... items) noexcept;

}  // namespace detail

/// Runs `f` over batches item by item: `result[b] = f(a[b], rest[b]...)`. When every argument's items are batches
/// too, it goes on to their items, down to the first level where an argument's items are not batches, so that
/// one call runs attention over B x h x n x d tensors. The result is a batch (of batches) along the arguments'
/// axes.
///
/// | operand   | shape                                  |
/// |-----------|----------------------------------------|
/// | `a`       | B x (h x ...) items                    |
/// | `rest...` | B' x (h' x ...) items                  |
/// | result    | B x (h x ...) items of f's result      |
///
/// Rule: at every level the batch axes match (`batch_axes_must_match`: equal sizes, and equal names when both
/// are named); f's own rules apply to the items.
///
/// Example (multi-head attention over a batch, B x h x n x d, as the reference text writes it):
/// \code
///   auto out = ctattn::batch_map([](const auto& q, const auto& k, const auto& v) {
///     return ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
///   }, queries, keys, values);   // batch<batch<matrix<float, seq{4}, d_v{5}>, heads{3}>, batch_axis{2}>
/// \endcode
template <typename F, Batch A, Batch... Rest>
[[nodiscard]] constexpr auto batch_map(F f, const A& a, const Rest&... rest) noexcept {
  using item = std::remove_cvref_t<decltype(detail::batch_item(f, a.items[0], rest.items[0]...))>;
  basic_batch<item, A::batch_extent> result{};
  if constexpr (detail::first_broken<detail::batch_map_rules<A, Rest...>>::check()) {
    for (std::size_t b = 0; b < A::size; ++b) result.items[b] = detail::batch_item(f, a.items[b], rest.items[b]...);
  }
  return result;
}

namespace detail {
template <typename F, typename... Items>
constexpr auto batch_item(F& f, const Items&... items) noexcept {
  if constexpr ((Batch<Items> && ...)) {
    return batch_map(f, items...);
  } else {
    return f(items...);
  }
}
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_MATRIX_BATCH_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/blocks.hpp
#ifndef CTATTN_MATRIX_BLOCKS_HPP
#define CTATTN_MATRIX_BLOCKS_HPP


// ---------------------------------------- ctattn/matrix/rules.hpp
#ifndef CTATTN_MATRIX_RULES_HPP
#define CTATTN_MATRIX_RULES_HPP

/// \file
/// The matrix tier's shape rules and operation tags. Each rule is defined once (see ctattn/shape/rule.hpp): its
/// predicate, and the sentence the user reads first when it is broken.
///
/// | rule                                      | arguments after the operation     |
/// |-------------------------------------------|-----------------------------------|
/// | `inner_dimensions_must_match`             | a's columns, b's rows             |
/// | `rows_must_match`, `columns_must_match`   | a's, b's                          |
/// | `parts_must_divide_dimension`             | `count<parts>`, the dimension     |
/// | `parts_times_block_must_equal_dimension`  | `count<parts>`, block, dimension  |
/// | `block_must_fit_dimension`                | `count<block end>`, dimension     |
/// | `index_must_be_inside_dimension`          | `count<index>`, dimension         |
/// | `relabelled_dimension_must_keep_its_size` | from, to                          |
/// | `count_must_be_positive`                  | `count<n>`                        |



namespace ctattn {

namespace op {
struct multiply {};
struct add {};
struct subtract {};
struct hadamard {};
struct zip_map {};
struct map {};
struct approx_equal {};
struct split_columns {};
struct concat_columns {};
struct column_block {};
struct row {};
struct with_extents {};
struct from_array {};
}  // namespace op

namespace shape_error {

/// A product A B contracts A's columns with B's rows: they must match (equal sizes; equal names when both are
/// named, so `d_k{64}` never meets `d_v{64}`).
template <typename Operation, typename LhsColumns, typename RhsRows>
struct inner_dimensions_must_match {
  static constexpr bool holds = detail::dims_match<LhsColumns, RhsRows>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: in a product a * b the columns of a must match the rows of b (equal sizes, and equal "
                  "names when both are named); transpose an operand, or relabel an axis with ctattn::with_extents "
                  "if the two really are one axis");
    return holds;
  }
};

/// Operands combined element by element (or stacked side by side) have matching rows.
template <typename Operation, typename LhsRows, typename RhsRows>
struct rows_must_match {
  static constexpr bool holds = detail::dims_match<LhsRows, RhsRows>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operands must have matching rows (equal sizes, and equal names when both are "
                  "named); pass matrices of the same shape, or relabel an axis with ctattn::with_extents");
    return holds;
  }
};

/// Operands combined element by element have matching columns.
template <typename Operation, typename LhsColumns, typename RhsColumns>
struct columns_must_match {
  static constexpr bool holds = detail::dims_match<LhsColumns, RhsColumns>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operands must have matching columns (equal sizes, and equal names when both are "
                  "named); pass matrices of the same width, or relabel an axis with ctattn::with_extents");
    return holds;
  }
};

/// A split into `Parts` equal blocks needs `Parts` to divide the dimension.
template <typename Operation, typename Parts, typename Dimension>
struct parts_must_divide_dimension {
  static constexpr bool holds = Parts::value != 0 && Dimension::size % Parts::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the number of parts must divide the dimension being split into equal blocks; choose a "
                  "divisor of its size");
    return holds;
  }
};

/// `Parts` blocks of the given width exactly cover the dimension they split or form.
template <typename Operation, typename Parts, typename Block, typename Dimension>
struct parts_times_block_must_equal_dimension {
  static constexpr bool holds = Parts::value * Block::size == Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the blocks together must be exactly as wide as the dimension they split or form (parts "
                  "times block width); fix the block's or the result's extent");
    return holds;
  }
};

/// A block taken from a dimension lies inside it: its end is at most the dimension's size.
template <typename Operation, typename BlockEnd, typename Dimension>
struct block_must_fit_dimension {
  static constexpr bool holds = BlockEnd::value <= Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the block reaches past the end of the dimension it is taken from; lower its start or "
                  "its width");
    return holds;
  }
};

/// A compile-time index is smaller than the size of the dimension it indexes.
template <typename Operation, typename Index, typename Dimension>
struct index_must_be_inside_dimension {
  static constexpr bool holds = Index::value < Dimension::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the index is past the end of the dimension (indices count from 0 to size - 1); use a "
                  "smaller index");
    return holds;
  }
};

/// Relabelling (or importing) a dimension keeps its size: only the name may change.
template <typename Operation, typename From, typename To>
struct relabelled_dimension_must_keep_its_size {
  static constexpr bool holds = From::size == To::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a new extent for existing data must have the data's size (only the name may change); "
                  "give the extent the size the data has");
    return holds;
  }
};

/// A count of parts, heads or tokens is at least 1.
template <typename Operation, typename Count>
struct count_must_be_positive {
  static constexpr bool holds = Count::value > 0;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: the count (parts, heads, tokens) must be at least 1; pass a positive count");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

template <typename Op, typename A, typename B>
using same_element_rule = shape_error::element_types_must_match<Op, typename A::value_type, typename B::value_type>;

template <typename Op, typename A, typename B>
using rows_rule = shape_error::rows_must_match<Op, dim_of<A::row_extent>, dim_of<B::row_extent>>;

template <typename Op, typename A, typename B>
using columns_rule = shape_error::columns_must_match<Op, dim_of<A::column_extent>, dim_of<B::column_extent>>;

/// The rules of a product a b: one element type, a's columns match b's rows.
template <typename A, typename B>
using multiply_rules =
    rule_list<same_element_rule<op::multiply, A, B>,
              shape_error::inner_dimensions_must_match<op::multiply, dim_of<A::column_extent>, dim_of<B::row_extent>>>;

/// The rules of an element-wise operation: one element type, matching rows and columns.
template <typename Op, typename A, typename B>
using same_shape_rules = rule_list<same_element_rule<Op, A, B>, rows_rule<Op, A, B>, columns_rule<Op, A, B>>;

/// The shape that two matching operands stand for together (named extents win over plain sizes).
template <typename A, typename B>
using unified_matrix = basic_matrix<typename A::value_type, unify_extents(A::row_extent, B::row_extent),
                                    unify_extents(A::column_extent, B::column_extent)>;

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_MATRIX_RULES_HPP
// ---------------------------------------- ctattn/matrix/blocks.hpp (continued)

namespace ctattn {

/// Columns `[Start, Start + Width)` as a matrix of their own.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `a`     | M x N       |
/// | result  | M x Width   |
///
/// Rule: Start + Width <= N. `Width` may be named (`d_head{8}`) to name the block's columns.
///
/// Example:
/// \code
///   constexpr auto head_1 = ctattn::column_block<8, 8>(queries);   // columns 8..15
/// \endcode
template <std::size_t Start, auto Width, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, normalize_extent<Width>> column_block(
    const basic_matrix<T, M, N>& a) noexcept {
  constexpr std::size_t end = Start + extent_size(normalize_extent<Width>);
  basic_matrix<T, M, normalize_extent<Width>> result{};
  if constexpr (shape_error::block_must_fit_dimension<op::column_block, count<end>, dim_of<N>>::check()) {
    for (std::size_t i = 0; i < extent_size(M); ++i) {
      for (std::size_t j = 0; j < extent_size(Width); ++j) result.elements[i][j] = a.elements[i][Start + j];
    }
  }
  return result;
}

/// Splits the columns into `Parts` equal blocks: the head split of multi-head attention.
///
/// | operand | shape                                      |
/// |---------|--------------------------------------------|
/// | `a`     | M x N                                      |
/// | result  | `std::array` of Parts matrices M x (N / Parts) |
///
/// Rule: Parts divides N. The blocks' columns keep a name: when N is named (`d_model{16}`), they are
/// `ctattn::part_of<d_model, Parts>` ("d_model/4"), which `concat_columns` turns back into `d_model`; `Block`
/// names them otherwise (e.g. `d_head{4}`), its size times Parts then equal to N.
///
/// Example:
/// \code
///   auto heads = ctattn::split_columns<4>(queries);             // 4 blocks of seq x part_of<d_model, 4>{4}
///   auto named = ctattn::split_columns<4, d_head{4}>(queries);  // the same, columns named d_head
/// \endcode
template <std::size_t Parts, auto Block = std::size_t{0}, typename T, auto M, auto N>
[[nodiscard]] constexpr auto split_columns(const basic_matrix<T, M, N>& a) noexcept {
  constexpr std::size_t width = extent_size(N) / (Parts == 0 ? 1 : Parts);
  constexpr auto block = [] {
    if constexpr (detail::extent_given<Block>) {
      return normalize_extent<Block>;
    } else {
      return detail::part_extent<N, (Parts == 0 ? 1 : Parts), (width == 0 ? 1 : width)>();
    }
  }();
  using rules = rule_list<
      shape_error::count_must_be_positive<op::split_columns, count<Parts>>,
      shape_error::parts_must_divide_dimension<op::split_columns, count<Parts>, dim_of<N>>,
      shape_error::parts_times_block_must_equal_dimension<op::split_columns, count<Parts>, dim_of<block>, dim_of<N>>>;
  std::array<basic_matrix<T, M, block>, Parts> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t p = 0; p < Parts; ++p) {
      for (std::size_t i = 0; i < extent_size(M); ++i) {
        for (std::size_t j = 0; j < extent_size(block); ++j) {
          result[p].elements[i][j] = a.elements[i][p * extent_size(block) + j];
        }
      }
    }
  }
  return result;
}

/// Joins equal blocks side by side: the inverse of `split_columns`, the "concat" of multi-head attention.
///
/// | operand  | shape                          |
/// |----------|--------------------------------|
/// | `blocks` | `std::array` of P matrices M x W |
/// | result   | M x (P * W)                    |
///
/// The joined columns are the whole axis again when the blocks are its P parts (`part_of<d_model, P>` gives
/// `d_model`), a plain size otherwise; `Result` names them explicitly (e.g. `d_model{16}`), its size P * W.
///
/// Example:
/// \code
///   auto joined = ctattn::concat_columns(ctattn::split_columns<4>(queries));   // seq x d_model{16} again
///   auto named = ctattn::concat_columns<d_model{16}>(d_head_blocks);
/// \endcode
template <auto Result = std::size_t{0}, typename T, auto M, auto W, std::size_t P>
[[nodiscard]] constexpr auto concat_columns(const std::array<basic_matrix<T, M, W>, P>& blocks) noexcept {
  constexpr auto joined = [] {
    if constexpr (detail::extent_given<Result>) {
      return normalize_extent<Result>;
    } else {
      return detail::joined_extent<W, P>();
    }
  }();
  basic_matrix<T, M, joined> result{};
  if constexpr (shape_error::parts_times_block_must_equal_dimension<op::concat_columns, count<P>, dim_of<W>,
                                                                    dim_of<joined>>::check()) {
    for (std::size_t p = 0; p < P; ++p) {
      for (std::size_t i = 0; i < extent_size(M); ++i) {
        for (std::size_t j = 0; j < extent_size(W); ++j) {
          result.elements[i][p * extent_size(W) + j] = blocks[p].elements[i][j];
        }
      }
    }
  }
  return result;
}

namespace detail {
// Copies `part` into `result` starting at column `offset`, then advances the offset. A function, not a lambda:
// see the rationale in ctattn/matrix/elementwise.hpp.
template <typename Result, typename Part>
constexpr void append_columns(Result& result, const Part& part, std::size_t& offset) noexcept {
  for (std::size_t i = 0; i < Result::rows; ++i) {
    for (std::size_t j = 0; j < Part::cols; ++j) result.elements[i][offset + j] = part.elements[i][j];
  }
  offset += Part::cols;
}
}  // namespace detail

/// Joins matrices of any widths side by side (their rows must match; same element type).
///
/// | operand | shape              |
/// |---------|--------------------|
/// | `a`     | M x N1             |
/// | `rest`  | M x N2, M x N3 ... |
/// | result  | M x (N1 + N2 + ...)|
///
/// Example:
/// \code
///   auto qkv = ctattn::concat_columns(q, k, v);
/// \endcode
template <FixedMatrix A, FixedMatrix... Rest>
  requires(sizeof...(Rest) >= 1)
[[nodiscard]] constexpr auto concat_columns(const A& a, const Rest&... rest) noexcept {
  constexpr std::size_t total = (A::cols + ... + Rest::cols);
  using rules = rule_list<rule_list<detail::same_element_rule<op::concat_columns, A, Rest>,
                                    detail::rows_rule<op::concat_columns, A, Rest>>...>;
  basic_matrix<typename A::value_type, A::row_extent, total> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    std::size_t offset = 0;
    detail::append_columns(result, a, offset);
    (detail::append_columns(result, rest, offset), ...);
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_BLOCKS_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/compare.hpp
#ifndef CTATTN_MATRIX_COMPARE_HPP
#define CTATTN_MATRIX_COMPARE_HPP



namespace ctattn {

/// The largest |a(i,j) - b(i,j)|; NaN if any element of either is NaN.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' |
///
/// Rule: same shape, same element type.
///
/// Example:
/// \code
///   static_assert(ctattn::max_abs_difference(a, a) == 0.0f);
/// \endcode
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto max_abs_difference(const A& a, const B& b) noexcept {
  using T = typename A::value_type;
  T largest{0};
  if constexpr (detail::first_broken<detail::same_shape_rules<op::approx_equal, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        const T d = a.elements[i][j] > b.elements[i][j] ? a.elements[i][j] - b.elements[i][j]
                                                        : b.elements[i][j] - a.elements[i][j];
        if (d != d) return d;  // a NaN in either operand makes the difference NaN
        if (!(d <= largest)) largest = d;
      }
    }
  }
  return largest;
}

/// Whether every element of `a` is within `absolute + relative * |b(i,j)|` of the same element of `b`.
/// A NaN anywhere makes the answer false; infinities compare equal only to the same infinity.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' (the reference) |
///
/// Rule: same shape, same element type.
///
/// Example:
/// \code
///   static_assert(ctattn::approx_equal(computed, expected, 1e-6f, 1e-5f));
/// \endcode
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr bool approx_equal(const A& a, const B& b, typename A::value_type absolute,
                                          typename A::value_type relative = 0) noexcept {
  using T = typename A::value_type;
  if constexpr (detail::first_broken<detail::same_shape_rules<op::approx_equal, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        const T x = a.elements[i][j];
        const T y = b.elements[i][j];
        if (x == y) continue;  // equal values, including equal infinities
        const T d = x > y ? x - y : y - x;
        const T magnitude = y < 0 ? -y : y;
        if (!(d <= absolute + relative * magnitude)) return false;  // also false for NaN and infinities
      }
    }
    return true;
  } else {
    return false;
  }
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_COMPARE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/elementwise.hpp
#ifndef CTATTN_MATRIX_ELEMENTWISE_HPP
#define CTATTN_MATRIX_ELEMENTWISE_HPP



namespace ctattn {

/// Whether `a` and `b` can be combined element by element: same element type, matching rows and columns.
/// The result takes the named extent wherever one operand names it.
///
/// Example:
/// \code
///   static_assert(ctattn::SameShape<ctattn::matrix<float, 2, 3>, ctattn::matrix<float, 2, 3>>);
/// \endcode
template <typename A, typename B>
concept SameShape = FixedMatrix<A> && FixedMatrix<B> &&
                    rules_hold<detail::same_shape_rules<op::add, std::remove_cvref_t<A>, std::remove_cvref_t<B>>>;

namespace detail {

// The shared body of every element-wise binary operation: the rules, then f applied at each position.
template <typename Op, typename A, typename B, typename F>
constexpr auto zip_elements(const A& a, const B& b, F f) noexcept {
  using value = std::remove_cvref_t<decltype(f(a.elements[0][0], a.elements[0][0]))>;
  basic_matrix<value, unify_extents(A::row_extent, B::row_extent), unify_extents(A::column_extent, B::column_extent)>
      result{};
  if constexpr (first_broken<same_shape_rules<Op, A, B>>::check()) {
    for (std::size_t i = 0; i < A::rows; ++i) {
      for (std::size_t j = 0; j < A::cols; ++j) {
        result.elements[i][j] = f(a.elements[i][j], b.elements[i][j]);
      }
    }
  }
  return result;
}

// Rationale: named function objects rather than lambdas. GCC's -Wshadow reports a lambda parameter in a header
// template as shadowing any user global of the same name (a global `x` is common in examples); member functions
// of a named class are not reported.
struct add_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs + rhs;
  }
};
struct subtract_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs - rhs;
  }
};
struct multiply_elements {
  template <typename T>
  constexpr T operator()(T lhs, T rhs) const noexcept {
    return lhs * rhs;
  }
};
struct negate_element {
  template <typename T>
  constexpr T operator()(T element) const noexcept {
    return -element;
  }
};
template <typename T>
struct multiply_by {
  T factor;
  constexpr T operator()(T element) const noexcept { return element * factor; }
};
template <typename T>
struct divide_by {
  T divisor;
  constexpr T operator()(T element) const noexcept { return element / divisor; }
};
template <typename U>
struct convert_to {
  template <typename T>
  constexpr U operator()(T element) const noexcept {
    return static_cast<U>(element);
  }
};

}  // namespace detail

/// Applies `f` to every element: `map(a, f)(i, j) == f(a(i, j))`. The result's element type is f's.
///
/// | operand | shape |
/// |---------|-------|
/// | `a`     | M x N |
/// | result  | M x N |
///
/// Example:
/// \code
///   constexpr auto doubled = ctattn::map(a, [](float x) { return 2 * x; });
/// \endcode
template <typename T, auto M, auto N, typename F>
[[nodiscard]] constexpr auto map(const basic_matrix<T, M, N>& a, F f) noexcept {
  using value = std::remove_cvref_t<decltype(f(a.elements[0][0]))>;
  if constexpr (shape_error::element_type_must_be_float_or_double<op::map, value>::check()) {
    basic_matrix<value, M, N> result{};
    for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
      for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) {
        result.elements[i][j] = f(a.elements[i][j]);
      }
    }
    return result;
  } else {
    return a;
  }
}

/// Combines two same-shaped matrices element by element: `zip_map(a, b, f)(i, j) == f(a(i, j), b(i, j))`.
///
/// | operand | shape   |
/// |---------|---------|
/// | `a`     | M x N   |
/// | `b`     | M' x N' |
/// | result  | M x N   |
///
/// Rule: M matches M' and N matches N'; same element type.
///
/// Example:
/// \code
///   auto larger = ctattn::zip_map(a, b, [](float x, float y) { return x > y ? x : y; });
/// \endcode
template <FixedMatrix A, FixedMatrix B, typename F>
[[nodiscard]] constexpr auto zip_map(const A& a, const B& b, F f) noexcept {
  return detail::zip_elements<op::zip_map>(a, b, f);
}

/// The sum `a + b`. Rule: same shape, same element type. Example: `static_assert((a + a)(0, 0) == 2 * a(0, 0));`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto add(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::add>(a, b, detail::add_elements{});
}

/// The difference `a - b`. Rule: same shape, same element type. Example: `static_assert((a - a) == zero);`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto subtract(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::subtract>(a, b, detail::subtract_elements{});
}

/// The element-wise (Hadamard) product. Rule: same shape, same element type.
/// Example: `static_assert(ctattn::hadamard(a, a)(0, 1) == a(0, 1) * a(0, 1));`
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto hadamard(const A& a, const B& b) noexcept {
  return detail::zip_elements<op::hadamard>(a, b, detail::multiply_elements{});
}

/// Every element times `s`: `scale(a, s)`, also `s * a` and `a * s`.
/// Example: `static_assert(ctattn::scale(a, 2.0f)(0, 0) == 2 * a(0, 0));`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> scale(const basic_matrix<T, M, N>& a,
                                                    std::type_identity_t<T> s) noexcept {
  return map(a, detail::multiply_by<T>{s});
}

template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator+(const A& a, const B& b) noexcept {
  return add(a, b);
}

template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator-(const A& a, const B& b) noexcept {
  return subtract(a, b);
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator-(const basic_matrix<T, M, N>& a) noexcept {
  return map(a, detail::negate_element{});
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator*(const basic_matrix<T, M, N>& a,
                                                        std::type_identity_t<T> s) noexcept {
  return scale(a, s);
}

template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator*(std::type_identity_t<T> s,
                                                        const basic_matrix<T, M, N>& a) noexcept {
  return scale(a, s);
}

/// Every element divided by `s` (a true division, not a multiplication by 1/s).
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> operator/(const basic_matrix<T, M, N>& a,
                                                        std::type_identity_t<T> s) noexcept {
  return map(a, detail::divide_by<T>{s});
}

/// The same values in another element type: `cast<double>(m)`.
template <typename U, typename T, auto M, auto N>
[[nodiscard]] constexpr auto cast(const basic_matrix<T, M, N>& a) noexcept {
  return map(a, detail::convert_to<U>{});
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_ELEMENTWISE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/from_array.hpp
#ifndef CTATTN_MATRIX_FROM_ARRAY_HPP
#define CTATTN_MATRIX_FROM_ARRAY_HPP



namespace ctattn {

/// A matrix copied from a C array `T[R][C]` (weights exported from Python, tables in flash), optionally
/// under named extents of the same sizes.
///
/// | operand | shape          |
/// |---------|----------------|
/// | `array` | `T[R][C]`      |
/// | result  | Rows x Cols (default R x C) |
///
/// Rule: the extents' sizes are R and C.
///
/// Example:
/// \code
///   constexpr float table[2][3] = {{1, 2, 3}, {4, 5, 6}};
///   constexpr auto m = ctattn::from_array(table);                        // matrix<float, 2, 3>
///   constexpr auto x = ctattn::from_array<seq{2}, d_model{3}>(table);    // named
/// \endcode
template <auto Rows = std::size_t{0}, auto Cols = std::size_t{0}, typename T, std::size_t R, std::size_t C>
[[nodiscard]] constexpr auto from_array(const T (&array)[R][C]) noexcept {
  constexpr auto rows = detail::extent_or<Rows, R>;
  constexpr auto cols = detail::extent_or<Cols, C>;
  using rules =
      rule_list<shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, R>, dim_of<rows>>,
                shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, C>, dim_of<cols>>>;
  basic_matrix<T, rows, cols> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t i = 0; i < R; ++i) {
      for (std::size_t j = 0; j < C; ++j) result.elements[i][j] = array[i][j];
    }
  }
  return result;
}

/// A 1 x N row vector copied from a C array `T[N]` (a bias, a single token), optionally under a named extent.
/// Example: `constexpr auto b = ctattn::row_from_array(bias);`
template <auto Cols = std::size_t{0}, typename T, std::size_t N>
[[nodiscard]] constexpr auto row_from_array(const T (&array)[N]) noexcept {
  constexpr auto cols = detail::extent_or<Cols, N>;
  basic_matrix<T, std::size_t{1}, cols> result{};
  if constexpr (shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, N>,
                                                                     dim_of<cols>>::check()) {
    for (std::size_t j = 0; j < N; ++j) result.elements[0][j] = array[j];
  }
  return result;
}

/// Data known only at run time (read from a file, received in a buffer) as a matrix of the type you name: the
/// values fill it row by row. The length is checked: a span of the wrong length gives `std::nullopt`, never a
/// partly filled matrix or a read past the end. A span whose length is part of its type is checked at compile
/// time instead (`relabelled_dimension_must_keep_its_size`).
///
/// | operand  | shape                                      |
/// |----------|--------------------------------------------|
/// | `values` | rows * cols elements of M's element type   |
/// | result   | `std::optional<M>`                         |
///
/// Example:
/// \code
///   std::vector<float> buffer = read_weights(file);              // host code
///   auto w = ctattn::from_span<ctattn::matrix<float, d_model{16}, d_k{24}>>(buffer);
///   if (!w) std::fputs("expected 16 x 24 floats\n", stderr);
/// \endcode
template <FixedMatrix M, std::size_t Extent>
[[nodiscard]] constexpr std::optional<M> from_span(std::span<const typename M::value_type, Extent> values) noexcept {
  if constexpr (Extent != std::dynamic_extent) {
    if constexpr (!shape_error::relabelled_dimension_must_keep_its_size<op::from_array, dim<unnamed, Extent>,
                                                                        dim<unnamed, M::size>>::check()) {
      return std::nullopt;
    }
  }
  if (values.size() != M::size) return std::nullopt;
  M result{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) result.elements[i][j] = values[i * M::cols + j];
  }
  return result;
}

/// \copydoc from_span
// Rationale: a std::vector, std::array or C array converts to a span only through this overload; the template
// above cannot deduce its element type from them.
template <FixedMatrix M, typename Range>
  requires std::is_convertible_v<const Range&, std::span<const typename M::value_type>>
[[nodiscard]] constexpr std::optional<M> from_span(const Range& values) noexcept {
  if constexpr (requires { std::span{values}; }) {
    return from_span<M>(std::span<const typename M::value_type, decltype(std::span{values})::extent>(values));
  } else {
    return from_span<M>(std::span<const typename M::value_type>(values));
  }
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_FROM_ARRAY_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/multiply.hpp
#ifndef CTATTN_MATRIX_MULTIPLY_HPP
#define CTATTN_MATRIX_MULTIPLY_HPP


// ---------------------------------------- ctattn/kernels/dispatch.hpp
#ifndef CTATTN_KERNELS_DISPATCH_HPP
#define CTATTN_KERNELS_DISPATCH_HPP

/// \file
/// The kernel tier's one interface: the few primitives every operation computes with, and the one place that
/// decides how each is computed.
///
/// | primitive                                | operands                          | result                       |
/// |------------------------------------------|-----------------------------------|------------------------------|
/// | `kernels::product<A>(c, a, b)`           | c M x N, a M x K, b K x N         | c = a b                      |
/// | `kernels::product_transposed<A>(c, a, b)`| c M x N, a M x K, b N x K         | c = a b^T                    |
/// | `kernels::product_left_transposed<A>(..)`| c M x N, a K x M, b K x N         | c = a^T b (or c += a^T b)    |
/// | `kernels::softmax_row<A>(x, w, b, e)`    | x, w: arrays; [b, e) a range      | w[b, e) = softmax(x[b, e))   |
/// | `kernels::attend<A, W, DK, DV>(...)`     | Q, K, V column windows, a mask    | out += softmax(Q K^T / s) V  |
/// | `kernels::activate<A, F>(x, y)`          | x, y: R x C arrays                | y = F(x) element by element  |
/// | `kernels::layer_norm_rows<A, W, B>(...)` | x, y: R x C arrays; weight, bias  | each row layer-normalized    |
/// | `kernels::rms_norm_rows<A, W>(...)`      | x, y: R x C arrays; weight        | each row RMS-normalized      |
///
/// The choice, made here and nowhere else:
///   1. constant evaluation: kernels/constant.hpp (the exact arithmetic in the evaluators' fast form);
///   2. run time, exact arithmetic, or double, or no SIMD backend: kernels/scalar.hpp (the same bits);
///   3. run time, fast arithmetic on float: the build's SIMD backend through kernels/detail/simd.hpp.
/// `A` is a `ctattn::arithmetic`, by default `ctattn::default_arithmetic` (kernels/backend.hpp).
///
/// Example:
/// \code
///   float c[2][2]; const float a[2][2]{{1, 2}, {3, 4}};
///   ctattn::detail::kernels::product(c, a, a);   // {{7, 10}, {15, 22}}
/// \endcode


// ---------------------------------------- ctattn/kernels/activation.hpp
#ifndef CTATTN_KERNELS_ACTIVATION_HPP
#define CTATTN_KERNELS_ACTIVATION_HPP

/// \file
/// The element-wise activations and the row normalizations of the layers tier, in their exact form: what constant
/// evaluation and the exact arithmetic compute (kernels/dispatch.hpp chooses; the fast forms are in
/// kernels/detail/simd.hpp).
///
/// | function                              | computes, per element or per row of n                          |
/// |---------------------------------------|----------------------------------------------------------------|
/// | `activate<activation::relu>(x)`       | max(x, 0)                                                      |
/// | `activate<activation::gelu>(x)`       | x Phi(x) = x (1 + erf(x / sqrt 2)) / 2 (PyTorch's exact form)  |
/// | `activate<activation::gelu_tanh>(x)`  | x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2                |
/// | `activate<activation::silu>(x)`       | x / (1 + e^-x)                                                 |
/// | `layer_norm_row<Affine, Bias>(...)`   | (x - mean) / sqrt(var + eps) (* w) (+ b), var biased           |
/// | `rms_norm_row<Affine>(...)`           | x / sqrt(mean(x^2) + eps) (* w)                                |
///
/// Example: `static_assert(ctattn::detail::kernels::activate<ctattn::detail::kernels::activation::relu>(-2.0f) == 0);`


// ---------------------------------------- ctattn/math/erf.hpp
#ifndef CTATTN_MATH_ERF_HPP
#define CTATTN_MATH_ERF_HPP

/// \file
/// ctattn::math::erf: the error function, in constant expressions and at run time with identical results.

// ---------------------------------------- ctattn/math/detail/erf_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_ERF_KERNEL_HPP
#define CTATTN_MATH_DETAIL_ERF_KERNEL_HPP

/// \file
/// The error function on three intervals: a polynomial in x^2 near 0, a polynomial around erf(1), and
/// 1 - erfc(x) with erfc(x) = e^(-x^2) F(1/x) / x beyond.

// ---------------------------------------- ctattn/math/detail/exp_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_EXP_KERNEL_HPP
#define CTATTN_MATH_DETAIL_EXP_KERNEL_HPP

/// \file
/// The reduction and polynomial behind ctattn::math::exp, shared with tanh and erf (which need exp(x) to a
/// little more than working precision, as an unevaluated sum hi + lo).

// ---------------------------------------- ctattn/math/detail/fp.hpp
#ifndef CTATTN_MATH_DETAIL_FP_HPP
#define CTATTN_MATH_DETAIL_FP_HPP

/// \file
/// Building blocks shared by ctattn's constexpr math functions: the binary layout of float and double,
/// exact power-of-two scaling, rounding to an integer, and the error-free transformations (two-sum,
/// two-product) behind the float-float and double-double steps. Everything is plain arithmetic and integer
/// bit manipulation, so it gives the same bits in constant evaluation and at run time.



// Rationale: bit-identical results need every operation rounded to its own type. x87 code (32-bit x86 without
// SSE) evaluates float and double in extended precision and would silently break that guarantee.
#if defined(__FLT_EVAL_METHOD__)
static_assert(__FLT_EVAL_METHOD__ == 0 || __FLT_EVAL_METHOD__ == -1,
              "ctattn::math needs float and double arithmetic evaluated in their own precision "
              "(FLT_EVAL_METHOD 0): on 32-bit x86 compile with -msse2 -mfpmath=sse");
#endif

namespace ctattn::math::detail {

template <Scalar T>
struct format;

template <>
struct format<float> {
  using bits = std::uint32_t;
  static constexpr int mantissa_bits = 23;  // stored fraction bits
  static constexpr int bias = 127;
};

template <>
struct format<double> {
  using bits = std::uint64_t;
  static constexpr int mantissa_bits = 52;
  static constexpr int bias = 1023;
};

template <Scalar T>
using bits_t = typename format<T>::bits;

template <Scalar T>
constexpr bits_t<T> to_bits(T x) noexcept {
  return std::bit_cast<bits_t<T>>(x);
}

template <Scalar T>
constexpr T from_bits(bits_t<T> b) noexcept {
  return std::bit_cast<T>(b);
}

template <Scalar T>
constexpr bool is_nan(T x) noexcept {
  return x != x;
}

template <Scalar T>
constexpr bool sign_bit(T x) noexcept {
  return (to_bits(x) >> (sizeof(T) * 8 - 1)) != 0;
}

template <Scalar T>
constexpr T infinity() noexcept {
  return std::numeric_limits<T>::infinity();
}

template <Scalar T>
constexpr T quiet_nan() noexcept {
  return std::numeric_limits<T>::quiet_NaN();
}

template <Scalar T>
constexpr T abs(T x) noexcept {
  return from_bits<T>(to_bits(x) & ~(bits_t<T>{1} << (sizeof(T) * 8 - 1)));
}

/// 2^k for k in the normal exponent range [1 - bias, bias].
template <Scalar T>
constexpr T pow2(int k) noexcept {
  return from_bits<T>(static_cast<bits_t<T>>(k + format<T>::bias) << format<T>::mantissa_bits);
}

/// x * 2^k for x in [0.5, 2] and any k whose result is finite, rounded once (gradual underflow included).
// Rationale: below the normal range the scaling is split into an exact step and one rounding step, so a
// subnormal result is rounded once, like the correctly rounded value would be.
template <Scalar T>
constexpr T scale(T x, int k) noexcept {
  constexpr int bias = format<T>::bias;
  if (k > bias - 1) return x * pow2<T>(k - 1) * T(2);
  if (k < 2 - bias) return x * pow2<T>(k + bias - 1) * pow2<T>(1 - bias);
  return x * pow2<T>(k);
}

/// Round to the nearest integer (ties to even) for |x| < 2^(mantissa_bits - 1), returned as T.
// Rationale: the constants of these helpers are variable templates, evaluated once per translation unit; a
// constexpr local would be evaluated again on every call by Clang's constant evaluator.
template <Scalar T>
inline constexpr T integer_shifter = T(1.5) * pow2<T>(format<T>::mantissa_bits);

template <Scalar T>
constexpr T round_to_integer(T x) noexcept {
  return x + integer_shifter<T> - integer_shifter<T>;  // (x + shifter) rounds to an integer; - shifter is exact
}

/// An unevaluated sum hi + lo with |lo| at most half an ulp of hi: a float-float or double-double value.
template <Scalar T>
struct twofold {
  T hi;
  T lo;
};

/// Exact sum of a and b when |a| >= |b| (or a == 0): a + b == hi + lo exactly.
template <Scalar T>
constexpr twofold<T> fast_two_sum(T a, T b) noexcept {
  const T s = a + b;
  return {s, b - (s - a)};
}

/// Exact product: a * b == hi + lo, barring overflow and underflow (Dekker's algorithm with Veltkamp's split;
/// no fused multiply-add, which constant evaluation does not have).
template <Scalar T>
inline constexpr T veltkamp_splitter = pow2<T>((format<T>::mantissa_bits + 2) / 2) + T(1);

template <Scalar T>
constexpr twofold<T> two_product(T a, T b) noexcept {
  const T ca = veltkamp_splitter<T> * a;
  const T a_hi = ca - (ca - a);
  const T a_lo = a - a_hi;
  const T cb = veltkamp_splitter<T> * b;
  const T b_hi = cb - (cb - b);
  const T b_lo = b - b_hi;
  const T p = a * b;
  return {p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo};
}

template <std::size_t... I>
constexpr std::index_sequence<(sizeof...(I) - 1 - I)...> reversed(std::index_sequence<I...>) noexcept {
  return {};
}

template <Scalar T, std::size_t N, std::size_t... I>
constexpr T horner_steps(const T (&c)[N], T t, std::index_sequence<I...>) noexcept {
  T acc = c[N - 1];
  ((acc = acc * t + c[I]), ...);
  return acc;
}

/// Horner evaluation of c[0] + c[1] t + ... + c[N-1] t^(N-1): acc = c[N-1], then acc = acc t + c[i] for
/// i = N-2 down to 0.
// Rationale: one call per polynomial (GCC caches every constexpr call, so fewer calls keep compile-time memory
// down), and its steps are one fold over a reversed index pack rather than a loop: the constant evaluators pay
// per loop iteration and per index computation more than for the arithmetic (Clang 14 evaluates a degree-5
// polynomial about 4 times faster this way). Run time: the same straight-line code.
template <Scalar T, std::size_t N>
constexpr T horner(const T (&c)[N], T t) noexcept {
  return horner_steps(c, t, reversed(std::make_index_sequence<N - 1>{}));
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_FP_HPP
// ---------------------------------------- ctattn/math/detail/exp_kernel.hpp (continued)

namespace ctattn::math::detail {

template <Scalar T>
struct exp_constants;

// Rationale (both types): x = k ln2 + r with |r| <= ln2/2, exp(x) = 2^k exp(r). ln2 is split Cody-Waite style
// into ln2_hi with trailing zero bits (16 significant bits for float, 42 for double) so that k * ln2_hi is
// exact for every k that reaches a finite nonzero result (|k| <= 150 for float, <= 1075 for double), and
// x - k * ln2_hi is exact by Sterbenz's lemma; ln2_lo carries the rest. The polynomial approximates
// q(r) = (e^r - 1 - r) / r^2 on |r| <= ln2/2 (plus a margin for the rounding of k): a Chebyshev fit with
// coefficients rounded to the type (generate_math_reference.py --coefficients prints the fit and its error:
// 2^-30.9 for float at degree 5, 2^-56.1 for double at degree 9, relative to exp(r)). The thresholds are the
// exact values of the type where the correctly rounded result becomes infinite or zero (same script).
template <>
struct exp_constants<float> {
  static constexpr float inv_ln2 = 0x1.715476p+0f;
  static constexpr float ln2_hi = 0x1.62e4p-1f;
  static constexpr float ln2_lo = 0x1.7f7d1cp-20f;
  static constexpr float poly[] = {0x1p-1f,       0x1.555556p-3f,  0x1.5554eap-5f,
                                   0x1.1110ep-7f, 0x1.6d4316p-10f, 0x1.a124e4p-13f};
  static constexpr float overflow = 0x1.62e42ep+6f;    // largest x with a finite result, 88.7228
  static constexpr float underflow = -0x1.9fe368p+6f;  // smallest x with a nonzero result, -103.9721
};

template <>
struct exp_constants<double> {
  static constexpr double inv_ln2 = 0x1.71547652b82fep+0;
  static constexpr double ln2_hi = 0x1.62e42fefa38p-1;
  static constexpr double ln2_lo = 0x1.ef35793c7673p-45;
  static constexpr double poly[] = {0x1.0000000000001p-1,  0x1.5555555555556p-3,  0x1.5555555553d68p-5,
                                    0x1.11111111109b5p-7,  0x1.6c16c17889f3cp-10, 0x1.a01a01a7c2f2cp-13,
                                    0x1.a019b914881bap-16, 0x1.71de0db2eb873p-19, 0x1.28917c9f3a495p-22,
                                    0x1.af389eea54156p-26};
  static constexpr double overflow = 0x1.62e42fefa39efp+9;    // 709.7827
  static constexpr double underflow = -0x1.74910d52d3051p+9;  // -745.1332
};

/// exp(x) = (hi + lo) * 2^k with hi in [0.70, 1.42] and hi + lo accurate to about 2^-(p + 4), for
/// underflow <= x <= overflow.
template <Scalar T>
struct exp_split {
  T hi;
  T lo;
  int k;
};

template <Scalar T>
constexpr exp_split<T> exp_reduce(T x) noexcept {
  using c = exp_constants<T>;
  const T kf = round_to_integer(x * c::inv_ln2);
  const T r_hi = x - kf * c::ln2_hi;  // exact
  const T k_lo = kf * c::ln2_lo;
  const T r = r_hi - k_lo;
  const T r_lo = (r_hi - r) - k_lo;  // the rounding error of r (when it matters, |r_hi| >= |k_lo|)
  // e^(r + r_lo) = 1 + r + r^2 q(r) + r_lo (1 + r) + O(r_lo^2)
  // Rationale: the last two additions are error-free (fast two-sum), so the only roundings that reach the
  // result are those of the small tail (at most 2^-5 of an ulp of the result) and the final one.
  const T tail = r * r * horner(c::poly, r) + (r_lo + r * r_lo);
  const twofold<T> u = fast_two_sum(r, tail);
  const twofold<T> e = fast_two_sum(T(1), u.hi);
  return {e.hi, e.lo + u.lo, static_cast<int>(kf)};
}

template <Scalar T>
constexpr T exp(T x) noexcept {
  using c = exp_constants<T>;
  if (is_nan(x)) return x;
  if (x > c::overflow) return infinity<T>();
  if (x < c::underflow) return T(0);
  const exp_split<T> s = exp_reduce(x);
  return scale(s.hi + s.lo, s.k);
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_EXP_KERNEL_HPP
// ---------------------------------------- ctattn/math/detail/erf_kernel.hpp (continued)

namespace ctattn::math::detail {

template <Scalar T>
struct erf_constants;

// Rationale: the coefficients are Chebyshev fits rounded to the type (generate_math_reference.py
// --coefficients prints each fit and its error after rounding):
// - |x| < 0.84375: erf x = x + x R(x^2), R(z) = erf(x)/x - 1 (2^-27.4 float degree 6, 2^-56.1 double degree 11).
//   Below `tiny` R is its constant term, and x is scaled up first so that a subnormal result is rounded once.
// - 0.84375 <= |x| < 1.25: erf x = erx + P(|x| - 1), erx = erf(1) rounded to the type, P fitted to
//   erf(1 + s) - erx, relative error 2^-28.2 float degree 7, 2^-57.4 double degree 14.
// - 1.25 <= |x| < one: erfc x = e^(-x^2) F(1/x) / x, F(u) = erfc(1/u) e^(1/u^2) / u, fitted in u - centre
//   (relative error 2^-26.5 float, degree 9 on one interval; 2^-55.9 and 2^-54.3 double, degree 16 on x in
//   [1.25, 2.5) and [2.5, one)). x^2 is split exactly (two-product) so that e^(-x^2) does not inherit the
//   rounding of x^2, which is magnified by x^2 itself.
// - |x| >= one (the smallest x whose correctly rounded erf is 1): +-1.
template <>
struct erf_constants<float> {
  static constexpr float tiny = 0x1p-14f;
  static constexpr float small_limit = 0.84375f;
  static constexpr float mid_limit = 1.25f;
  static constexpr float one = 0x1.f5a88ap+1f;  // 3.9192
  static constexpr float small_poly[] = {0x1.06eba8p-3f, -0x1.812746p-2f,  0x1.ce2eb6p-4f, -0x1.b81e9p-6f,
                                         0x1.5572acp-8f, -0x1.b0c752p-11f, 0x1.74beecp-14f};
  static constexpr float erx = 0x1.af767ap-1f;
  static constexpr float mid_poly[] = {0x1.cf1306p-27f, 0x1.a911fp-2f,   -0x1.a911eep-2f, 0x1.1b60ap-3f,
                                       0x1.1b5f86p-4f,  -0x1.1b00b8p-4f, 0x1.28a552p-8f,  0x1.adf8fap-7f};
  static constexpr float tail_split = 3.0e38f;  // one interval for float
  static constexpr float tail_centre_near = 0x1.0e1e8ep-1f;
  static constexpr float tail_poly_near[] = {0x1.0326b8p-1f,  -0x1.5a0c74p-3f, -0x1.beedf4p-6f, 0x1.b784a8p-4f,
                                             -0x1.a3dc1ep-4f, 0x1.86dc6cp-5f,  0x1.77aeb8p-6f,  -0x1.4ae26ap-4f,
                                             0x1.a361f4p-4f,  -0x1.0b99p-4f};
  static constexpr float tail_centre_far = tail_centre_near;
  static constexpr const float (&tail_poly_far)[10] = tail_poly_near;
};

template <>
struct erf_constants<double> {
  static constexpr double tiny = 0x1p-28;
  static constexpr double small_limit = 0.84375;
  static constexpr double mid_limit = 1.25;
  static constexpr double one = 0x1.7afb48dc96627p+2;  // 5.9215
  static constexpr double small_poly[] = {0x1.06eba8214db69p-3,   -0x1.812746b0379e6p-2,  0x1.ce2f21a042accp-4,
                                          -0x1.b82ce31281975p-6,  0x1.565bcd0ce826fp-8,   -0x1.c02db39f8dab6p-11,
                                          0x1.f9a3179a72999p-14,  -0x1.f4d0bf8c2a865p-17, 0x1.b9c9d17cf321fp-20,
                                          -0x1.5e1a435c34b45p-23, 0x1.e8104e5048f8ap-27,  -0x1.e8026404074f9p-31};
  static constexpr double erx = 0x1.af767a741088bp-1;
  static constexpr double mid_poly[] = {-0x1.c99a6bef27697p-56, 0x1.a911f096fbc26p-2,  -0x1.a911f096fbc25p-2,
                                        0x1.1b614b0f527f0p-3,   0x1.1b614b0f5266cp-4,  -0x1.1b614b0f4cc5fp-4,
                                        0x1.2e45a5663a0f0p-8,   0x1.f096fd59dac7ap-7,  -0x1.39114696e74a7p-8,
                                        -0x1.ee30af1146398p-10, 0x1.417655df98da9p-10, 0x1.666ba569cd698p-14,
                                        -0x1.a2ec14ff6578ep-13, 0x1.43b3789a9ac60p-16, 0x1.4160efc00cbc1p-16};
  static constexpr double tail_split = 2.5;
  static constexpr double tail_centre_near = 0x1.3333333333333p-1;
  static constexpr double tail_poly_near[] = {
      0x1.f9a9f95f6f1bdp-2, -0x1.5efce00ff7b38p-3, -0x1.caecf71ee67c4p-8, 0x1.4893856aee932p-4, -0x1.595e44b954196p-4,
      0x1.9fc00bab10726p-5, -0x1.44f82d83f71bap-8, -0x1.1afcff3c5586cp-5, 0x1.cf13a4c20d06bp-5, -0x1.d1268c7768529p-5,
      0x1.3110cdb78ab42p-5, -0x1.2bc2da570a724p-8, -0x1.039d7e9548e92p-5, 0x1.f91866cee6cd2p-5, -0x1.38d6d3e23b908p-4,
      0x1.07aac00053c7ep-4, -0x1.96286a163da45p-6};
  static constexpr double tail_centre_far = 0x1.234367f5713b6p-2;
  static constexpr double tail_poly_far[] = {
      0x1.165f1c8f67ddap-1,  -0x1.0ab5310d9e6a3p-3, -0x1.29cd2fba788c8p-3, 0x1.b3b05f279a99dp-3,  -0x1.164837ac101adp-4,
      -0x1.8875abf8ebbdfp-3, 0x1.79936ad26821fp-2,  -0x1.e250f34542c60p-3, -0x1.4079021e38a42p-2, 0x1.0e1cb4251260ap+0,
      -0x1.4fecdc3d9ce66p+0, 0x1.d50055005415fp-4,  0x1.8b7197416f4d4p+1,  -0x1.cc5f3e5f7e805p+2, 0x1.edd30a0dcebcep+2,
      0x1.8d4f37bf1df33p+2,  -0x1.06d18cc2dbb2fp+5};
};

template <Scalar T>
constexpr T erf(T x) noexcept {
  using c = erf_constants<T>;
  constexpr int up = format<T>::mantissa_bits + 2;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax >= c::one) return sign_bit(x) ? T(-1) : T(1);
  if (ax < c::tiny) {
    const T y = x * pow2<T>(up);  // exact; keeps -0
    return (y + y * c::small_poly[0]) * pow2<T>(-up);
  }
  if (ax < c::small_limit) {
    const T z = x * x;
    return x + x * horner(c::small_poly, z);
  }
  T v{};
  if (ax < c::mid_limit) {
    v = c::erx + horner(c::mid_poly, ax - T(1));
  } else {
    const T u = T(1) / ax;
    const T f = ax < c::tail_split ? horner(c::tail_poly_near, u - c::tail_centre_near)
                                   : horner(c::tail_poly_far, u - c::tail_centre_far);
    const twofold<T> x2 = two_product(ax, ax);
    const exp_split<T> e = exp_reduce(-x2.hi);  // e^(-x^2) = (hi + lo)(1 - x2.lo) 2^k
    const T g = e.hi + (e.lo - e.hi * x2.lo);
    const T erfc = g * f * u * pow2<T>(e.k);
    v = T(1) - erfc;
  }
  return sign_bit(x) ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_ERF_KERNEL_HPP
// ---------------------------------------- ctattn/math/erf.hpp (continued)

namespace ctattn::math {

/// The error function erf x = 2/sqrt(pi) * integral of e^(-t^2) from 0 to x, for float and double (GELU is
/// x/2 (1 + erf(x/sqrt 2))); the same bits in constant evaluation and at run time.
///
/// | x                                         | result                              |
/// |-------------------------------------------|-------------------------------------|
/// | NaN                                       | the same NaN                        |
/// | +-0                                       | +-0 (sign kept)                     |
/// | subnormal x                               | 2x/sqrt(pi), rounded once           |
/// | +-inf                                     | +-1                                 |
/// | abs(x) >= 3.9192 (float), 5.9215 (double) | +-1 exactly (the rounded value)     |
/// | accuracy (all x)                          | float <= 1 ulp, double <= 2 ulp     |
///
/// \code
/// static_assert(ctattn::math::erf(-0.0) == 0.0 && ctattn::math::erf(10.0f) == 1.0f);
/// constexpr double e = ctattn::math::erf(1.0);  // 0x1.af767a741088bp-1
/// \endcode
constexpr float erf(float x) noexcept { return detail::erf(x); }

/// \copydoc erf(float)
constexpr double erf(double x) noexcept { return detail::erf(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_ERF_HPP
// ---------------------------------------- ctattn/kernels/activation.hpp (continued)
// ---------------------------------------- ctattn/math/exp.hpp
#ifndef CTATTN_MATH_EXP_HPP
#define CTATTN_MATH_EXP_HPP

/// \file
/// ctattn::math::exp: the exponential, in constant expressions and at run time with identical results.


namespace ctattn::math {

/// The exponential e^x, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                                   | float                | double                |
/// |-------------------------------------|----------------------|-----------------------|
/// | NaN                                 | the same NaN         | the same NaN          |
/// | +-0                                 | 1                    | 1                     |
/// | x > 88.72283 (0x1.62e42ep+6)        | +inf                 |                       |
/// | x > 709.78271 (0x1.62e42fefa39efp+9)|                      | +inf                  |
/// | x < -103.97208 (-0x1.9fe368p+6)     | +0                   |                       |
/// | x < -745.13322                      |                      | +0                    |
/// | -inf, +inf                          | +0, +inf             | +0, +inf              |
/// | accuracy (all finite x)             | <= 1 ulp             | <= 2 ulp              |
///
/// Results below the normal range are subnormal (gradual underflow), rounded once. Accuracy is measured
/// against the correctly rounded value; docs/math.md has the measured maximum and the sweep.
///
/// \code
/// static_assert(ctattn::math::exp(0.0f) == 1.0f);
/// constexpr double e = ctattn::math::exp(1.0);  // 0x1.5bf0a8b145769p+1
/// \endcode
constexpr float exp(float x) noexcept { return detail::exp(x); }

/// \copydoc exp(float)
constexpr double exp(double x) noexcept { return detail::exp(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_EXP_HPP
// ---------------------------------------- ctattn/kernels/activation.hpp (continued)
// ---------------------------------------- ctattn/math/sqrt.hpp
#ifndef CTATTN_MATH_SQRT_HPP
#define CTATTN_MATH_SQRT_HPP

/// \file
/// ctattn::math::sqrt: the correctly rounded square root, in constant expressions and at run time.


// ---------------------------------------- ctattn/math/detail/sqrt_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP
#define CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP

/// \file
/// Correctly rounded square root by exact integer arithmetic (usable in constant evaluation).


namespace ctattn::math::detail {

// Rationale: the digit-by-digit (restoring) integer square root gives floor(sqrt(A)) and the exact remainder
// A - root^2, so rounding to nearest is exact: round up when the remainder exceeds root (a tie is impossible,
// the square of a (p+1)-bit odd number never has only p significant bits). It needs p + 1 iterations of a
// few integer operations and no wider integer than the type's own bits (a 128-bit type is not available on
// 32-bit targets).
template <Scalar T>
constexpr T sqrt_exact(T x) noexcept {
  using fmt = format<T>;
  using bits = bits_t<T>;
  constexpr int mb = fmt::mantissa_bits;
  if (is_nan(x)) return x;
  if (x == T(0)) return x;  // keeps the sign of zero
  if (x < T(0)) return quiet_nan<T>();
  if (x == infinity<T>()) return x;
  const bits b = to_bits(x);
  bits m = b & ((bits{1} << mb) - 1);
  int e = static_cast<int>(b >> mb);
  if (e == 0) {  // subnormal: normalize
    const int shift = std::countl_zero(m) - (static_cast<int>(sizeof(T)) * 8 - 1 - mb);
    m <<= shift;
    e = 1 - shift;
  } else {
    m |= bits{1} << mb;
  }
  int ue = e - fmt::bias;  // x = m 2^(ue - mb), m in [2^mb, 2^(mb+1))
  if ((ue & 1) != 0) {
    m <<= 1;
    --ue;
  }
  // sqrt(x) = sqrt(m 2^mb) 2^(ue/2 - mb); A = m 2^mb has 2 mb + 2 bits, taken two at a time from the top.
  bits root = 0;
  bits rem = 0;
  for (int shift = 2 * mb; shift >= 0; shift -= 2) {
    bits pair = 0;
    if (shift >= mb) {
      pair = (m >> (shift - mb)) & 3;
    } else if (shift == mb - 1) {
      pair = (m & 1) << 1;
    }
    rem = (rem << 2) | pair;
    root <<= 1;
    const bits trial = (root << 1) | 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1;
    }
  }
  if (rem > root) ++root;  // round to nearest; root may become 2^(mb+1): the carry reaches the exponent
  const bits exponent = static_cast<bits>(ue / 2 + fmt::bias) << mb;
  return from_bits<T>(exponent + (root - (bits{1} << mb)));
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_SQRT_KERNEL_HPP
// ---------------------------------------- ctattn/math/sqrt.hpp (continued)

namespace ctattn::math {

/// The square root, correctly rounded (round to nearest even), for float and double.
///
/// | x                     | result                                 |
/// |-----------------------|----------------------------------------|
/// | NaN                   | the same NaN                           |
/// | +-0                   | +-0                                    |
/// | x < 0, -inf           | NaN (quiet, positive)                  |
/// | +inf                  | +inf                                   |
/// | subnormal x           | correctly rounded (the result is normal) |
/// | accuracy              | 0 ulp: correctly rounded               |
///
/// \code
/// static_assert(ctattn::math::sqrt(2.0f) == 0x1.6a09e6p+0f);
/// static_assert(ctattn::math::sqrt(64.0) == 8.0);
/// \endcode
// Rationale: IEEE 754 requires the hardware square root to be correctly rounded, and so is the integer
// algorithm used in constant evaluation: both give the same bits for every x >= 0, so at run time the
// instruction (sqrtss/sqrtsd, vsqrt.f32; a correctly rounded libm call for double on a single-precision FPU)
// replaces the loop. Negative and NaN arguments stay on the portable path: hardware NaNs differ in sign and
// payload from quiet_NaN(), and the results must be the same bits in both evaluations.
constexpr float sqrt(float x) noexcept {
  if (std::is_constant_evaluated() || !(x >= 0.0f)) return detail::sqrt_exact(x);
  return __builtin_sqrtf(x);
}

/// \copydoc sqrt(float)
constexpr double sqrt(double x) noexcept {
  if (std::is_constant_evaluated() || !(x >= 0.0)) return detail::sqrt_exact(x);
  return __builtin_sqrt(x);
}

}  // namespace ctattn::math

#endif  // CTATTN_MATH_SQRT_HPP
// ---------------------------------------- ctattn/kernels/activation.hpp (continued)
// ---------------------------------------- ctattn/math/tanh.hpp
#ifndef CTATTN_MATH_TANH_HPP
#define CTATTN_MATH_TANH_HPP

/// \file
/// ctattn::math::tanh: the hyperbolic tangent, in constant expressions and at run time with identical results.

// ---------------------------------------- ctattn/math/detail/tanh_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_TANH_KERNEL_HPP
#define CTATTN_MATH_DETAIL_TANH_KERNEL_HPP

/// \file
/// The hyperbolic tangent: a polynomial near 0, 1 - 2 / (e^(2|x|) + 1) with extra precision beyond.


namespace ctattn::math::detail {

template <Scalar T>
struct tanh_constants;

// Rationale: for |x| < 0.55 (where tanh x < 1/2) tanh x = x + x^3 P(x^2), P a Chebyshev fit of
// (tanh x - x)/x^3 in z = x^2 (generate_math_reference.py --coefficients: 2^-28.0 float degree 5, 2^-57.6
// double degree 10, relative to the result). Above, tanh x = 1 - 2/(e^(2x) + 1) with e^(2x) and the quotient
// carried to about twice the working precision (the plain formula loses up to an ulp in float). `one` is the
// smallest x whose correctly rounded tanh is 1; below `tiny`, tanh x rounds to x.
template <>
struct tanh_constants<float> {
  static constexpr float tiny = 0x1p-12f;
  static constexpr float poly_limit = 0.55f;
  static constexpr float one = 0x1.205968p+3f;  // 9.0109
  static constexpr float poly[] = {-0x1.555556p-2f, 0x1.111104p-3f, -0x1.ba142ep-5f,
                                   0x1.657936p-6f,  -0x1.17641p-7f, 0x1.4b239ap-9f};
};

template <>
struct tanh_constants<double> {
  static constexpr double tiny = 0x1p-27;
  static constexpr double poly_limit = 0.55;
  static constexpr double one = 0x1.30fc1931f09cap+4;  // 19.0617
  static constexpr double poly[] = {-0x1.5555555555555p-2,  0x1.1111111111032p-3,  -0x1.ba1ba1b9fec84p-5,
                                    0x1.664f487713373p-6,   -0x1.226e32f00cf0cp-7, 0x1.d6d339333f329p-9,
                                    -0x1.7d97cfd138c28p-10, 0x1.34c5a8a996cd4p-11, -0x1.ec1091436eb2ap-13,
                                    0x1.64fd88e9900a4p-14,  -0x1.59a834187ce22p-16};
};

template <Scalar T>
constexpr T tanh(T x) noexcept {
  using c = tanh_constants<T>;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax < c::tiny) return x;  // keeps -0 and subnormals
  if (ax >= c::one) return sign_bit(x) ? T(-1) : T(1);
  if (ax < c::poly_limit) {
    const T z = x * x;
    return x + x * z * horner(c::poly, z);
  }
  const exp_split<T> e = exp_reduce(T(2) * ax);  // e^(2|x|) = (hi + lo) 2^k, 1 <= k <= 56
  const T e_hi = e.hi * pow2<T>(e.k);
  const T e_lo = e.lo * pow2<T>(e.k);
  const twofold<T> d = fast_two_sum(e_hi, T(1));  // d = e^(2|x|) + 1 >= 4
  const T d_lo = d.lo + e_lo;
  // q = 2 / d to about 2p bits: a first quotient, then the exact residual 2 - q0 d divided by d
  const T q0 = T(2) / d.hi;
  const twofold<T> p = two_product(q0, d.hi);
  const T q1 = (((T(2) - p.hi) - p.lo) - q0 * d_lo) / d.hi;
  const twofold<T> t = fast_two_sum(T(1), -q0);  // 1 - q0 exactly
  const T v = t.hi + (t.lo - q1);
  return sign_bit(x) ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_TANH_KERNEL_HPP
// ---------------------------------------- ctattn/math/tanh.hpp (continued)

namespace ctattn::math {

/// The hyperbolic tangent, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                                         | result                              |
/// |-------------------------------------------|-------------------------------------|
/// | NaN                                       | the same NaN                        |
/// | +-0                                       | +-0 (sign kept; so are subnormal x) |
/// | +-inf                                     | +-1                                 |
/// | abs(x) >= 9.0109 (float), 19.0617 (double)| +-1 exactly (the rounded value)     |
/// | accuracy (all x)                          | float <= 1 ulp, double <= 2 ulp     |
///
/// \code
/// static_assert(ctattn::math::tanh(-0.0f) == 0.0f && ctattn::math::tanh(20.0) == 1.0);
/// constexpr float t = ctattn::math::tanh(0.5f);  // 0x1.d9353ep-2f
/// \endcode
constexpr float tanh(float x) noexcept { return detail::tanh(x); }

/// \copydoc tanh(float)
constexpr double tanh(double x) noexcept { return detail::tanh(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_TANH_HPP
// ---------------------------------------- ctattn/kernels/activation.hpp (continued)

namespace ctattn::detail::kernels {

/// The activations the layers tier offers.
enum class activation { relu, gelu, gelu_tanh, silu };

/// The activation F of one element, exactly.
template <activation F, typename T>
[[nodiscard]] constexpr T activate(T x) noexcept {
  if constexpr (F == activation::relu) {
    return x < T(0) ? T(0) : x;
  } else if constexpr (F == activation::gelu) {
    constexpr T inverse_sqrt2 = T(0.70710678118654752440L);
    return T(0.5) * x * (T(1) + math::erf(x * inverse_sqrt2));
  } else if constexpr (F == activation::gelu_tanh) {
    constexpr T sqrt_2_over_pi = T(0.79788456080286535588L);
    constexpr T cubic = T(0.044715L);
    return T(0.5) * x * (T(1) + math::tanh(sqrt_2_over_pi * (x + cubic * x * x * x)));
  } else {
    return x / (T(1) + math::exp(-x));
  }
}

/// y[0, n) = the activation F of x[0, n), exactly.
template <activation F, typename T>
constexpr void activate_all(const T* x, T* y, std::size_t n) noexcept {
  for (std::size_t j = 0; j < n; ++j) y[j] = activate<F>(x[j]);
}

/// One row of LayerNorm, exactly: the row as offsets from its first entry (exact for entries near it, so a row far
/// from zero keeps its digits), their mean, the mean of squared deviations (two passes, in column order), then
/// y = (offset - mean) / sqrt(var + eps), times the weight (`Affine`), plus the bias (`Bias`).
template <bool Affine, bool Bias, typename T, std::size_t N>
constexpr void layer_norm_row(const T (&x)[N], T (&y)[N], const T* weight, const T* bias, T eps) noexcept {
  const T shift = x[0];
  T offsets[N]{};
  T sum{0};
  for (std::size_t j = 0; j < N; ++j) {
    offsets[j] = x[j] - shift;
    sum += offsets[j];
  }
  const T mean = sum / static_cast<T>(N);
  T squares{0};
  for (std::size_t j = 0; j < N; ++j) {
    const T d = offsets[j] - mean;
    squares += d * d;
  }
  const T scale = T(1) / math::sqrt(squares / static_cast<T>(N) + eps);
  for (std::size_t j = 0; j < N; ++j) {
    T value = (offsets[j] - mean) * scale;
    if constexpr (Affine) value = value * weight[j];
    if constexpr (Bias) value = value + bias[j];
    y[j] = value;
  }
}

/// One row of RMSNorm, exactly: y = x / sqrt(mean(x^2) + eps), times the weight (`Affine`).
template <bool Affine, typename T, std::size_t N>
constexpr void rms_norm_row(const T (&x)[N], T (&y)[N], const T* weight, T eps) noexcept {
  T squares{0};
  for (std::size_t j = 0; j < N; ++j) squares += x[j] * x[j];
  const T scale = T(1) / math::sqrt(squares / static_cast<T>(N) + eps);
  for (std::size_t j = 0; j < N; ++j) {
    T value = x[j] * scale;
    if constexpr (Affine) value = value * weight[j];
    y[j] = value;
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_ACTIVATION_HPP
// ---------------------------------------- ctattn/kernels/dispatch.hpp (continued)
// ---------------------------------------- ctattn/kernels/backend.hpp
#ifndef CTATTN_KERNELS_BACKEND_HPP
#define CTATTN_KERNELS_BACKEND_HPP

/// \file
/// Which code computes at run time, decided once, from the target the compiler builds for and one switch.
///
/// | target macros (set by `-march` / `-mcpu`)         | backend  | file                    | float lanes |
/// |---------------------------------------------------|----------|-------------------------|-------------|
/// | `__AVX512F__`                                     | AVX-512  | kernels/avx512.hpp      | 16          |
/// | `__AVX2__` and `__FMA__`                          | AVX2+FMA | kernels/avx2.hpp        | 8           |
/// | `__aarch64__` and `__ARM_NEON`                    | NEON     | kernels/neon.hpp        | 4           |
/// | `__ARM_FEATURE_MVE` with floating point (bit 2),  | Helium   | kernels/helium.hpp      | 4           |
/// | compiled by Clang or by GCC 13 or later           |          |                         |             |
/// | anything else (also MVE with GCC 12 or older)     | scalar   | kernels/scalar.hpp      | -           |
///
/// On a Cortex-M55 (`-mcpu=cortex-m55 -mfloat-abi=hard`) Clang therefore builds Helium code and GCC 12 scalar
/// code; docs/firmware.md has a board for each.
// Rationale: GCC 12.2 (Debian's arm-none-eabi-gcc) has internal compiler errors on MVE intrinsics (CMSIS-NN
// switches its MVE code off for that version). ctattn's kernels compiled with it in a trial, but no test runs
// GCC 12's MVE code, so an M55 build with GCC 12 stays on the scalar path, which the firmware images prove.
///
/// Two kinds of arithmetic:
///   - **exact**: the scalar loops of kernels/scalar.hpp. Every sum runs in index order with every step rounded,
///     so a run-time result has the same bits as the same call evaluated inside `static_assert` (the firmware
///     guarantee). Constant evaluation always computes this way.
///   - **fast**: the SIMD backend (float only; double always runs exact). Sums are reassociated across vector
///     lanes, a*b+c is one fused multiply-add and exp is a vector polynomial, so results differ from exact in the
///     last bits: see docs/kernels.md for the bound each kernel is tested against.
///
/// Fast is the default wherever a SIMD backend exists. Define `CTATTN_EXACT_ARITHMETIC=1` (CMake option of the
/// same name) to make exact the default for a whole build; per call, pass `ctattn::exact_arithmetic` or
/// `ctattn::fast_arithmetic` (ctattn/attention/options.hpp).
// Rationale: fast by default because a user who compiles with -mavx2 or -march=native asked for vector code, and
// that user judges ctattn against Eigen; the firmware user who needs static_assert's bits names that need once.
// Targets without a backend (Cortex-M4, M7, M33; the M55 with GCC 12) compute exact either way.
///
/// Example:
/// \code
///   static_assert(ctattn::simd_backend_name[0] != '\0');   // "avx512", "avx2", "neon", "helium" or "scalar"
/// \endcode

#ifndef CTATTN_EXACT_ARITHMETIC
#define CTATTN_EXACT_ARITHMETIC 0
#endif


// Each backend's header is empty unless the target has its instructions; where it has them, the header defines its
// row of the float table (kernels/backend_rows.hpp).
// ---------------------------------------- ctattn/kernels/avx2.hpp
#ifndef CTATTN_KERNELS_AVX2_HPP
#define CTATTN_KERNELS_AVX2_HPP

/// \file
/// The AVX2+FMA backend (x86-64): the vector operations of kernels/detail/simd.hpp on 8 float lanes in ymm
/// registers. The operations and their contracts are those of kernels/avx512.hpp; tails are `vmaskmovps`.
///
/// Example: `ctattn::detail::avx2_ops::reduce_add(ctattn::detail::avx2_ops::broadcast(1.0f)) == 8.0f`.


// ---------------------------------------- ctattn/kernels/backend_rows.hpp
#ifndef CTATTN_KERNELS_BACKEND_ROWS_HPP
#define CTATTN_KERNELS_BACKEND_ROWS_HPP

/// \file
/// The rows of the backend tables: one table per data type, each a list of backends fastest first. A backend's file
/// (kernels/avx512.hpp, ...) defines its row under the condition that makes its instructions available, the same
/// condition its operations are defined under; kernels/backend.hpp (float) and kernels/int8.hpp (int8) each choose
/// the first row the build defines, once, and every name and operation of that data type comes from the row.
///
/// | table | row members | rows, fastest first |
/// |-------|-------------|---------------------|
/// | `float_backend<float_backend_id>` | `name`, `ops` | avx512, avx2, neon, helium, scalar |
/// | `int8_backend<int8_backend_id>` | `name`, `ops` (dot products), `product_ops` (the layers' products), `packed_ops` (packed weights), `int4_ops` (int4 weights' products: kernels/int4.hpp) | avx512_vnni, avx512, avx2_vnni, avx2, neon_i8mm, neon_dotprod, neon, helium, arm_dsp, armv6m, scalar |
///
/// `void` stands for "none": the scalar row's operations are all void, and so are the packed operations of a
/// backend without a packed kernel.
///
/// Example:
/// \code
///   static_assert(ctattn::detail::chosen_row<ctattn::detail::float_backend_id, ctattn::detail::float_backend>() !=
///                 ctattn::detail::float_backend_id::count);
/// \endcode


namespace ctattn::detail {

/// The float backends, fastest first; `count` ends the list.
enum class float_backend_id : unsigned char { avx512, avx2, neon, helium, scalar, count };

/// The int8 backends, fastest first; `count` ends the list.
enum class int8_backend_id : unsigned char {
  avx512_vnni,
  avx512,
  avx2_vnni,
  avx2,
  neon_i8mm,
  neon_dotprod,
  neon,
  helium,
  arm_dsp,
  armv6m,
  scalar,
  count
};

/// A row of the float table: defined by the backend's file where the target has its instructions.
template <float_backend_id Id>
struct float_backend;

/// A row of the int8 table: defined by the backend's file where the target has its instructions.
template <int8_backend_id Id>
struct int8_backend;

/// The scalar rows, defined everywhere: the exact loops of kernels/scalar.hpp and kernels/int8.hpp.
template <>
struct float_backend<float_backend_id::scalar> {
  static constexpr const char* name = "scalar";
  using ops = void;
};
template <>
struct int8_backend<int8_backend_id::scalar> {
  static constexpr const char* name = "scalar";
  using ops = void;
  using product_ops = void;
  using packed_ops = void;
  using int4_ops = void;
};

/// The first row of a table, in the order of its ids, that the build defines.
template <typename Id, template <Id> class Row>
[[nodiscard]] consteval Id chosen_row() noexcept {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    Id chosen = Id::count;
    ((chosen == Id::count && requires { Row<static_cast<Id>(I)>::name; } ? chosen = static_cast<Id>(I) : chosen), ...);
    return chosen;
  }(std::make_index_sequence<static_cast<std::size_t>(Id::count)>{});
}

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_BACKEND_ROWS_HPP
// ---------------------------------------- ctattn/kernels/avx2.hpp (continued)

// ---------------------------------------- ctattn/kernels/detail/avx_lanes.hpp
#ifndef CTATTN_KERNELS_DETAIL_AVX_LANES_HPP
#define CTATTN_KERNELS_DETAIL_AVX_LANES_HPP

/// \file
/// Reductions across the 8 float lanes of a ymm register, shared by the AVX2 backend (kernels/avx2.hpp) and the
/// AVX-512 one (kernels/avx512.hpp, on the halves of a zmm register). Empty unless the target has AVX.
///
/// | function              | returns                                   |
/// |-----------------------|-------------------------------------------|
/// | `sum_of_lanes(x)`     | x0 + ... + x7: halves, then pairs, then the last two |
/// | `largest_of_lanes(x)` | the largest lane, in the same order       |
///
/// Example: `ctattn::detail::sum_of_lanes(_mm256_set1_ps(1.0f)) == 8.0f`.

#if defined(__AVX__)

#include <immintrin.h>

namespace ctattn::detail {

/// The sum and the largest of a ymm register's 8 lanes: halves, then pairs, then the last two.
inline float sum_of_lanes(__m256 x) noexcept {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
inline float largest_of_lanes(__m256 x) noexcept {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

}  // namespace ctattn::detail

#endif  // defined(__AVX__)

#endif  // CTATTN_KERNELS_DETAIL_AVX_LANES_HPP
// ---------------------------------------- ctattn/kernels/avx2.hpp (continued)
// ---------------------------------------- ctattn/kernels/detail/exp_constants.hpp
#ifndef CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP
#define CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP

/// \file
/// The constants of every backend's vector exp (float): e^x = 2^n e^r, n = round(x log2 e), r = x - n ln 2 with
/// ln 2 split so that n ln2_high is exact for |n| < 2^8, and e^r = 1 + r + r^2/2! + ... + r^7/7!. On
/// |r| <= ln2/2 the truncated term is below 6e-9 of the result, so the roundings decide: the result is within
/// 2 ulp of e^x (tests/backend/ checks it against e^x in double over the softmax's range).

namespace ctattn::detail::exp_constants {

inline constexpr float log2e = 1.44269504088896341f;
inline constexpr float ln2_high = 0.693359375f;    // 355/512: 9 significant bits
inline constexpr float ln2_low = -2.12194440e-4f;  // ln 2 - ln2_high
inline constexpr float c2 = 1.0f / 2.0f;
inline constexpr float c3 = 1.0f / 6.0f;
inline constexpr float c4 = 1.0f / 24.0f;
inline constexpr float c5 = 1.0f / 120.0f;
inline constexpr float c6 = 1.0f / 720.0f;
inline constexpr float c7 = 1.0f / 5040.0f;
// Below this, e^x is under the smallest normal float (2^-126): the vector exp gives 0 (the exact one a subnormal
// under 1.2e-38, which no softmax weight can tell from 0 once divided by a sum >= 1).
inline constexpr float lowest = -87.33654f;

}  // namespace ctattn::detail::exp_constants

#endif  // CTATTN_KERNELS_DETAIL_EXP_CONSTANTS_HPP
// ---------------------------------------- ctattn/kernels/avx2.hpp (continued)
// ---------------------------------------- ctattn/kernels/detail/ops_defaults.hpp
#ifndef CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP
#define CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP

/// \file
/// The optional operations of a backend, each declared here with its default. A backend's operations struct derives
/// from the defaults of its kind and sets `true` the flag of each optional operation it defines; the kernels read
/// the flag (through `declared_ops`, which gives the defaults for a row's `void`), never whether a name happens to
/// exist.
// Rationale: when the kernels asked `requires { Ops::softmax_row(...); }`, an operation misspelled, or with a
// parameter of another type, left the kernel on its loop without a word: slower, and untested where the backend's
// test expected its own code. Now a flag set for an operation that does not compile is an error at the kernel's call,
// and tests/static/backend_ops_test.cpp checks, for every row of the build, that each flag is set exactly when the
// struct defines the operation.
///
/// | defaults                   | member (default)                  | the operation, where the flag is set           | read by |
/// |----------------------------|-----------------------------------|------------------------------------------------|---------|
/// | `float_ops_defaults`       | `has_transpose_sum` (false)       | `transpose_sum(x)`: lanes of 4 (or 8) registers summed across | kernels/detail/simd.hpp |
/// |                            | `has_transpose` (false)           | `transpose(registers)`: a square of registers transposed in place | kernels/detail/simd.hpp |
/// | `int8_ops_defaults`        | `rows_per_pass` (4)               | rows of b per pass of the dot-product kernel   | kernels/detail/int8_simd.hpp |
/// |                            | `tail_ops` (void)                 | a narrower backend for the terms past the last whole step | kernels/detail/int8_simd.hpp |
/// |                            | `has_dot_rows` (false)            | `dot_rows(a, a_zero, b, b_stride, b_zero, k, n, out)`: the whole kernel | kernels/detail/int8_simd.hpp |
/// |                            | `has_totals` (false)              | `totals(sums, out)`: a pass's accumulators totalled at once | kernels/detail/int8_simd.hpp |
/// |                            | `has_requantize_row` (false)      | `requantize_row(epilogue, r, sums, y, n)`      | kernels/int8.hpp |
/// |                            | `has_product_requantized` (false) | `product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)` | kernels/int8.hpp |
/// |                            | `has_row_sum` (false)             | `row_sum<K>(p)`                                | kernels/int8.hpp |
/// |                            | `has_softmax_row` (false)         | `softmax_row(x, w, begin, end, table)` with `softmax_row_limit`, `softmax_row_shortest` | kernels/int8.hpp |
/// |                            | `has_add` (false)                 | `add<A, B, LeftShift, Out>(a, a_zero, b, b_zero, out_zero, out, n)`, for the multipliers where `add_takes(A, B, Out)` | kernels/int8.hpp |
/// |                            | `has_lookup` (false)              | `lookup(x, y, n, table)`                       | kernels/int8.hpp |
/// |                            | `has_sum_and_squares` (false)     | `sum_and_squares<C>(x, sum, squares)`          | kernels/int8.hpp |
/// |                            | `has_layer_norm_row` (false)      | `layer_norm_row<C>(x, y, sum, inverse, ...)`   | kernels/int8.hpp |
/// | `int8_packed_ops_defaults` | `has_pack_block` (false)          | `pack_block<K, WS>(block, w, sums)`: a block's rows transposed | kernels/detail/int8_packed.hpp |
/// | `int4_ops_defaults`        | `has_fully_connected` (false)     | `fully_connected<M, K, N>(x, packed, epilogue, y)` for the K where `takes<K>` | kernels/int4.hpp |
/// |                            | `has_unpack` (false)              | `unpack(packed, values, count)`: count values (even) from a byte | kernels/int4.hpp |
///
/// Example:
/// \code
///   struct my_int8_ops : ctattn::detail::int8_ops_defaults {
///     static constexpr std::size_t rows_per_pass = 2;  // a default replaced
///     // ... the required operations of kernels/detail/int8_simd.hpp, and each optional one defined with its flag
///     // set: static constexpr bool has_lookup = true; static void lookup(...) noexcept;
///   };
///   static_assert(my_int8_ops::rows_per_pass == 2 && !my_int8_ops::has_lookup);
///   static_assert(ctattn::detail::declared_ops<void, ctattn::detail::int8_ops_defaults>::rows_per_pass == 4);
/// \endcode


namespace ctattn::detail {

/// The optional operations of a float backend (kernels/detail/simd.hpp's `V`), none defined.
struct float_ops_defaults {
  static constexpr bool has_transpose_sum = false;
  static constexpr bool has_transpose = false;
};

/// The optional operations of an int8 backend (a row's `ops` and `product_ops`), none defined.
struct int8_ops_defaults {
  // Rationale: the rows of a pass share each widened step of a (one load and widening for all of them). Four rows'
  // accumulators, pointers and widened operands fit the 16 or 32 vector registers of x86 and NEON; on the Cortex-M
  // DSP extension's 13 general registers they spill, so that backend passes over two rows.
  static constexpr std::size_t rows_per_pass = 4;
  using tail_ops = void;
  static constexpr bool has_dot_rows = false;
  static constexpr bool has_totals = false;
  static constexpr bool has_requantize_row = false;
  static constexpr bool has_product_requantized = false;
  static constexpr bool has_row_sum = false;
  static constexpr bool has_softmax_row = false;
  static constexpr bool has_add = false;
  static constexpr bool has_lookup = false;
  static constexpr bool has_sum_and_squares = false;
  static constexpr bool has_layer_norm_row = false;
};

/// The optional operations of a packed int8 kernel (a row's `packed_ops`), none defined.
struct int8_packed_ops_defaults {
  static constexpr bool has_pack_block = false;
};

/// The optional operations of an int4-weight kernel (a row's `int4_ops`), none defined.
struct int4_ops_defaults {
  static constexpr bool has_fully_connected = false;
  static constexpr bool has_unpack = false;
  /// Whether `fully_connected` takes rows of K terms.
  template <std::size_t K>
  static constexpr bool takes = false;
};

/// The declared operations of a row's `Ops`: Ops itself, or `Defaults` where the row has none (`void`).
template <typename Ops, typename Defaults>
using declared_ops = std::conditional_t<std::is_void_v<Ops>, Defaults, Ops>;

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_DETAIL_OPS_DEFAULTS_HPP
// ---------------------------------------- ctattn/kernels/avx2.hpp (continued)

// Empty unless the target has AVX2 and FMA (-mavx2 -mfma, -mavx512f, -march=...): kernels/backend.hpp includes it
// then.
#if defined(__AVX2__) && defined(__FMA__)

namespace ctattn::detail {

struct avx2_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  static constexpr bool has_transpose = true;
  using reg = __m256;
  static constexpr std::size_t lanes = 8;
  // 16 registers: 6 x 2 accumulators, two loads and a broadcast.
  static constexpr std::size_t tile_rows = 6;
  static constexpr std::size_t tile_vectors = 2;
  // The transposed product's tile: 2 rows of a against 4 rows of b, 8 dot products reduced by one transpose_sum.
  static constexpr std::size_t dot_tile_rows = 2;
  static constexpr std::size_t dot_rows = 4;
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return _mm256_setzero_ps(); }
  static reg broadcast(float x) noexcept { return _mm256_set1_ps(x); }
  static reg load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, reg x) noexcept { _mm256_storeu_ps(p, x); }
  static __m256i first(std::size_t n) noexcept {
    // Lane l is selected (sign bit set) when l < n.
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    const __m256i mask = first(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, mask), _mm256_castsi256_ps(mask));
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { _mm256_maskstore_ps(p, first(n), x); }
  static reg add(reg a, reg b) noexcept { return _mm256_add_ps(a, b); }
  static reg mul(reg a, reg b) noexcept { return _mm256_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return _mm256_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) noexcept { return _mm256_div_ps(a, b); }
  static reg max(reg a, reg b) noexcept { return _mm256_max_ps(a, b); }
  static float reduce_add(reg x) noexcept { return sum_of_lanes(x); }
  static float reduce_max(reg x) noexcept { return largest_of_lanes(x); }

  // Lane l of the result is the sum of x[l]'s lanes (as avx512_ops::transpose_sum): halves, then pairs of lanes;
  // the network leaves the sum of its input m in lane 4 (m % 2) + m / 2, so input m is x[order(m)].
  static reg transpose_sum(const reg (&x)[8]) noexcept {
    reg t[4];
    for (std::size_t m = 0; m < 4; ++m) {
      const reg a = x[order(2 * m)];
      const reg b = x[order(2 * m + 1)];
      t[m] = _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
    }
    reg u[2];
    for (std::size_t m = 0; m < 2; ++m) {
      u[m] = _mm256_add_ps(_mm256_shuffle_ps(t[2 * m], t[2 * m + 1], 0x44),
                           _mm256_shuffle_ps(t[2 * m], t[2 * m + 1], 0xEE));
    }
    return _mm256_add_ps(_mm256_shuffle_ps(u[0], u[1], 0x88), _mm256_shuffle_ps(u[0], u[1], 0xDD));
  }
  static constexpr std::size_t order(std::size_t m) noexcept { return 4 * (m % 2) + m / 2; }

  // x becomes its transpose (as avx512_ops::transpose): pairs of lanes, pairs of pairs, then 128-bit halves.
  static void transpose(reg (&x)[8]) noexcept {
    reg t[8];
    for (std::size_t m = 0; m < 8; m += 2) {
      t[m] = _mm256_unpacklo_ps(x[m], x[m + 1]);
      t[m + 1] = _mm256_unpackhi_ps(x[m], x[m + 1]);
    }
    for (std::size_t m = 0; m < 8; m += 4) {
      x[m] = _mm256_shuffle_ps(t[m], t[m + 2], 0x44);
      x[m + 1] = _mm256_shuffle_ps(t[m], t[m + 2], 0xEE);
      x[m + 2] = _mm256_shuffle_ps(t[m + 1], t[m + 3], 0x44);
      x[m + 3] = _mm256_shuffle_ps(t[m + 1], t[m + 3], 0xEE);
    }
    for (std::size_t q = 0; q < 4; ++q) {
      t[q] = _mm256_permute2f128_ps(x[q], x[q + 4], 0x20);
      t[q + 4] = _mm256_permute2f128_ps(x[q], x[q + 4], 0x31);
    }
    for (std::size_t m = 0; m < 8; ++m) x[m] = t[m];
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23), valid because inputs
  // below `lowest` (n < -126) are replaced by 0 and inputs are at most 0 in every caller (clamped to 88 here).
  static reg exp(reg x) noexcept {
    // Rationale: min(88, x) with x second returns x when x is NaN, so NaN still reaches the result.
    const reg clamped = _mm256_min_ps(_mm256_set1_ps(88.0f), x);
    const reg n = _mm256_round_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(exp_constants::log2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    reg r = _mm256_fnmadd_ps(n, _mm256_set1_ps(exp_constants::ln2_high), clamped);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(exp_constants::ln2_low), r);
    reg p = _mm256_set1_ps(exp_constants::c7);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(exp_constants::c2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    const reg result = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
    const reg underflow = _mm256_cmp_ps(x, _mm256_set1_ps(exp_constants::lowest), _CMP_LT_OQ);
    return _mm256_blendv_ps(result, _mm256_setzero_ps(), underflow);
  }
};

/// The float table's avx2 row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::avx2> {
  static constexpr const char* name = "avx2";
  using ops = avx2_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__) && defined(__FMA__)

#endif  // CTATTN_KERNELS_AVX2_HPP
// ---------------------------------------- ctattn/kernels/backend.hpp (continued)
// ---------------------------------------- ctattn/kernels/avx512.hpp
#ifndef CTATTN_KERNELS_AVX512_HPP
#define CTATTN_KERNELS_AVX512_HPP

/// \file
/// The AVX-512 backend (x86-64 with AVX512F): the vector operations that kernels/detail/simd.hpp builds every
/// fast kernel from, on 16 float lanes in zmm registers. Tails are masked loads and stores.
///
/// | operation                     | meaning                                                          |
/// |-------------------------------|------------------------------------------------------------------|
/// | `load(p)`, `store(p, x)`      | 16 floats, unaligned                                             |
/// | `load_partial(p, n, fill)`    | the first n floats; the other lanes hold `fill`                  |
/// | `store_partial(p, x, n)`      | the first n lanes                                                |
/// | `fma(a, b, c)`                | a b + c, one rounding                                            |
/// | `exp(x)`                      | e^x for x <= 0 within 2 ulp; 0 below -87.33; NaN stays NaN       |
/// | `reduce_add`, `reduce_max`    | across the lanes                                                 |
/// | `div`                         | a / b (correctly rounded; Helium: within 2 ulp for b in [1, 2^126]) |
///
/// Example: `ctattn::detail::avx512_ops::reduce_add(ctattn::detail::avx512_ops::broadcast(1.0f)) == 16.0f`.




// Empty unless the target has AVX512F (-mavx512f, -mavx2 -mfma, -march=...): kernels/backend.hpp includes it then.
#if defined(__AVX512F__)

#include <immintrin.h>

namespace ctattn::detail {

struct avx512_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  static constexpr bool has_transpose = true;
  using reg = __m512;
  static constexpr std::size_t lanes = 16;
  // The product tile: rows x vectors of accumulators, with one broadcast and `tile_vectors` loads in flight, out
  // of 32 registers.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t tile_vectors = 2;
  // The transposed product's tile: 4 rows of a against 4 rows of b, 16 dot products reduced by one transpose_sum.
  static constexpr std::size_t dot_tile_rows = 4;
  static constexpr std::size_t dot_rows = 4;
  // Floats of packed keys the fused attention kernel keeps on the stack (32 KiB).
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return _mm512_setzero_ps(); }
  static reg broadcast(float x) noexcept { return _mm512_set1_ps(x); }
  static reg load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, reg x) noexcept { _mm512_storeu_ps(p, x); }
  static __mmask16 first(std::size_t n) noexcept { return static_cast<__mmask16>((1u << n) - 1u); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(n), p);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { _mm512_mask_storeu_ps(p, first(n), x); }
  static reg add(reg a, reg b) noexcept { return _mm512_add_ps(a, b); }
  static reg mul(reg a, reg b) noexcept { return _mm512_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return _mm512_fmadd_ps(a, b, c); }
  static reg div(reg a, reg b) noexcept { return _mm512_div_ps(a, b); }
  // Rationale: the zero-masking forms (all lanes selected) are the plain operations; GCC 12's plain forms start
  // from a self-initialized register that -Wmaybe-uninitialized reports in every caller.
  static constexpr __mmask16 all = 0xFFFF;
  static reg max(reg a, reg b) noexcept { return _mm512_maskz_max_ps(all, a, b); }
  static __m256 half(reg x, int which) noexcept {
    return which == 0 ? _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(x), 0))
                      : _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(x), 1));
  }
  // The two 256-bit halves combined, then the 8-lane reductions of detail/avx_lanes.hpp (an AVX-512F target has AVX).
  static float reduce_add(reg x) noexcept { return sum_of_lanes(_mm256_add_ps(half(x, 0), half(x, 1))); }
  static float reduce_max(reg x) noexcept { return largest_of_lanes(_mm256_max_ps(half(x, 0), half(x, 1))); }

  // Lane l of the result is the sum of x[l]'s lanes: pairs of registers folded by halves, then quarters, then
  // pairs of lanes (45 operations for 16 sums). The network leaves the sum of its input m in lane
  // 4 (m % 4) + m / 4, so input m is x[order(m)].
  static reg transpose_sum(const reg (&x)[16]) noexcept {
    reg t[8];
    for (std::size_t m = 0; m < 8; ++m) {
      const reg a = x[order(2 * m)];
      const reg b = x[order(2 * m + 1)];
      t[m] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all, a, b, 0x44), _mm512_maskz_shuffle_f32x4(all, a, b, 0xEE));
    }
    reg u[4];
    for (std::size_t m = 0; m < 4; ++m) {
      u[m] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all, t[2 * m], t[2 * m + 1], 0x88),
                           _mm512_maskz_shuffle_f32x4(all, t[2 * m], t[2 * m + 1], 0xDD));
    }
    reg w[2];
    for (std::size_t m = 0; m < 2; ++m) {
      w[m] = _mm512_add_ps(_mm512_maskz_shuffle_ps(all, u[2 * m], u[2 * m + 1], 0x44),
                           _mm512_maskz_shuffle_ps(all, u[2 * m], u[2 * m + 1], 0xEE));
    }
    return _mm512_add_ps(_mm512_maskz_shuffle_ps(all, w[0], w[1], 0x88),
                         _mm512_maskz_shuffle_ps(all, w[0], w[1], 0xDD));
  }
  static constexpr std::size_t order(std::size_t m) noexcept { return 4 * (m % 4) + m / 4; }

  // x becomes its transpose: lane c of x[r] goes to lane r of x[c] (pairs of lanes, then pairs of pairs, then
  // 128-bit quarters twice).
  static void transpose(reg (&x)[16]) noexcept {
    reg t[16];
    for (std::size_t m = 0; m < 16; m += 2) {
      t[m] = _mm512_maskz_unpacklo_ps(all, x[m], x[m + 1]);
      t[m + 1] = _mm512_maskz_unpackhi_ps(all, x[m], x[m + 1]);
    }
    for (std::size_t m = 0; m < 16; m += 4) {
      x[m] = _mm512_maskz_shuffle_ps(all, t[m], t[m + 2], 0x44);
      x[m + 1] = _mm512_maskz_shuffle_ps(all, t[m], t[m + 2], 0xEE);
      x[m + 2] = _mm512_maskz_shuffle_ps(all, t[m + 1], t[m + 3], 0x44);
      x[m + 3] = _mm512_maskz_shuffle_ps(all, t[m + 1], t[m + 3], 0xEE);
    }
    for (std::size_t m = 0; m < 16; m += 8) {
      for (std::size_t q = 0; q < 4; ++q) {
        t[m + q] = _mm512_maskz_shuffle_f32x4(all, x[m + q], x[m + q + 4], 0x88);
        t[m + q + 4] = _mm512_maskz_shuffle_f32x4(all, x[m + q], x[m + q + 4], 0xDD);
      }
    }
    for (std::size_t q = 0; q < 8; ++q) {
      x[q] = _mm512_maskz_shuffle_f32x4(all, t[q], t[q + 8], 0x88);
      x[q + 8] = _mm512_maskz_shuffle_f32x4(all, t[q], t[q + 8], 0xDD);
    }
  }

  // e^x = 2^n e^r with n = round(x / ln 2) and r = x - n ln 2 in [-ln2/2, ln2/2] (ln 2 split in two parts so r is
  // exact to float precision), e^r by its Taylor polynomial of degree 7 (truncation below 6e-9 relative), and
  // 2^n applied by scalef, which gives 0 for large negative n and keeps NaN.
  static reg exp(reg x) noexcept {
    // Rationale: round to nearest by adding and taking away 1.5 * 2^23 (exact for |x log2 e| < 2^22, and -inf and
    // NaN stay what they are), rather than roundscale, whose macro form (unoptimized GCC) trips -Wsign-conversion.
    const reg rounding = _mm512_set1_ps(0x1.8p23f);
    const reg scaled = _mm512_mul_ps(x, _mm512_set1_ps(exp_constants::log2e));
    const reg n = _mm512_sub_ps(_mm512_add_ps(scaled, rounding), rounding);
    reg r = _mm512_fnmadd_ps(n, _mm512_set1_ps(exp_constants::ln2_high), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(exp_constants::ln2_low), r);
    reg p = _mm512_set1_ps(exp_constants::c7);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(exp_constants::c2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const reg result = _mm512_maskz_scalef_ps(all, p, n);
    // Below the smallest normal result the answer is 0 (as for -inf, where r would be NaN).
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(exp_constants::lowest), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(underflow, result, _mm512_setzero_ps());
  }
};

/// The float table's avx512 row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::avx512> {
  static constexpr const char* name = "avx512";
  using ops = avx512_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512F__)

#endif  // CTATTN_KERNELS_AVX512_HPP
// ---------------------------------------- ctattn/kernels/backend.hpp (continued)
// ---------------------------------------- ctattn/kernels/helium.hpp
#ifndef CTATTN_KERNELS_HELIUM_HPP
#define CTATTN_KERNELS_HELIUM_HPP

/// \file
/// The Helium backend (Arm M-profile Vector Extension with floating point, e.g. Cortex-M55): the vector operations
/// of kernels/detail/simd.hpp on 4 float lanes in q registers. The operations and their contracts are those of
/// kernels/avx512.hpp. Tails are tail-predicated: `vctp32q(n)` enables the first n lanes of a load or a store, and
/// the lanes it disables are neither read nor written.
///
/// | operation                  | Helium                                                   | note                  |
/// |----------------------------|----------------------------------------------------------|-----------------------|
/// | `load_partial(p, n, fill)` | `vctp32q(n)`, `vldrwq_z_f32`, `vpselq_f32` with `fill`   | lanes past n unread   |
/// | `store_partial(p, x, n)`   | `vctp32q(n)`, `vstrwq_p_f32`                             | lanes past n kept     |
/// | `fma(a, b, c)`             | `vfmaq_f32`: a b + c, one rounding                       |                       |
/// | `max`, `reduce_max`        | `vmaxnmq_f32`, `vmaxnmvq_f32`; NaN found in the bits     | NaN wins, as in NEON  |
/// | `reduce_add`               | (x0 + x1) + (x2 + x3) on the q register's s lanes        | no float VADDV in MVE |
/// | `exp(x)`                   | avx512_ops::exp's method; NaN lanes put back at the end  | NaN stays NaN         |
///
/// Sizes for a microcontroller: 8 q registers hold a product tile of 3 rows x 2 vectors (6 accumulators and 2
/// loads; the row's factor of A is a scalar operand of `vfma`), and the fused attention kernel packs at most
/// `key_buffer_floats` = 1024 floats (4 KiB) of keys on the stack per chunk of keys.
///
/// Built only where the compiler defines `__ARM_FEATURE_MVE` with its floating-point bit (2); kernels/backend.hpp
/// selects it with Clang or GCC 13 and later (its table says why not GCC 12). Tested on the target by the
/// firmware board `m55-helium` (Clang 14, QEMU mps3-an547; docs/firmware.md).
///
/// Example: `ctattn::detail::helium_ops::reduce_add(ctattn::detail::helium_ops::broadcast(1.0f)) == 4.0f`.




// Empty unless the target has MVE with floating point (-mcpu=cortex-m55, -march=armv8.1-m.main+mve.fp) and the
// compiler is Clang or GCC 13 or later (kernels/backend.hpp says why): the operations exist exactly where the tables
// choose them.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && (defined(__clang__) || __GNUC__ >= 13)

#include <arm_mve.h>

#include <cstdint>
#include <limits>

namespace ctattn::detail {

// Rationale: the intrinsics are called by their __arm_ names, which arm_mve.h always declares; the short names
// disappear when a program defines __ARM_MVE_PRESERVE_USER_NAMESPACE.
struct helium_ops : float_ops_defaults {
  using reg = float32x4_t;
  static constexpr std::size_t lanes = 4;
  // 8 q registers: 3 x 2 accumulators and two loads; the broadcast factor stays in a core register.
  static constexpr std::size_t tile_rows = 3;
  static constexpr std::size_t tile_vectors = 2;
  // The transposed product's tile: 2 rows of a against 2 rows of b, 4 accumulators, two loads of b and one of a.
  static constexpr std::size_t dot_tile_rows = 2;
  static constexpr std::size_t dot_rows = 2;
  // Floats of packed keys the fused attention kernel keeps on the stack (4 KiB).
  static constexpr std::size_t key_buffer_floats = 1024;

  static reg zero() noexcept { return __arm_vdupq_n_f32(0.0f); }
  static reg broadcast(float x) noexcept { return __arm_vdupq_n_f32(x); }
  static reg load(const float* p) noexcept { return __arm_vld1q_f32(p); }
  static void store(float* p, reg x) noexcept { __arm_vst1q_f32(p, x); }
  static mve_pred16_t first(std::size_t n) noexcept { return __arm_vctp32q(static_cast<std::uint32_t>(n)); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    const mve_pred16_t lanes_read = first(n);
    return __arm_vpselq_f32(__arm_vldrwq_z_f32(p, lanes_read), __arm_vdupq_n_f32(fill), lanes_read);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept { __arm_vstrwq_p_f32(p, x, first(n)); }
  static reg add(reg a, reg b) noexcept { return __arm_vaddq_f32(a, b); }
  static reg mul(reg a, reg b) noexcept { return __arm_vmulq_f32(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return __arm_vfmaq_f32(c, a, b); }
  // a / b for b in [1, 2^126] (the fast activations' denominators), within 2 ulp.
  // Rationale: MVE has no float division and no reciprocal estimate. 1 / b starts from its bits subtracted from a
  // constant (the exponent negated, the mantissa's reciprocal guessed linearly: at most 10% off), then three Newton
  // steps r = r (2 - b r), each squaring the relative error (10% -> 1% -> 1e-4 -> rounding).
  static reg div(reg a, reg b) noexcept {
    const reg two = __arm_vdupq_n_f32(2.0f);
    const uint32x4_t guess = __arm_vsubq_u32(__arm_vdupq_n_u32(0x7EF3'11C3u), __arm_vreinterpretq_u32_f32(b));
    reg r = __arm_vreinterpretq_f32_u32(guess);
    for (int step = 0; step < 3; ++step) r = __arm_vmulq_f32(r, __arm_vfmsq_f32(two, b, r));
    return __arm_vmulq_f32(a, r);
  }

  // The lanes whose magnitude is above infinity's bits: NaN.
  // Rationale: NaN is found by an integer compare of the bits, not by a float compare, whose NaN lanes are not
  // portable: VCMP LT and LE hold for NaN, Clang 14 gives the intrinsics IEEE meaning instead, and with Clang 14
  // vcmpneq_f32(x, x) found no NaN lane in [1, NaN, NaN, NaN] (under QEMU).
  static uint32x4_t magnitude_bits(reg x) noexcept {
    return __arm_vandq_u32(__arm_vreinterpretq_u32_f32(x), __arm_vdupq_n_u32(0x7FFF'FFFFu));
  }
  static mve_pred16_t nan_lanes(uint32x4_t magnitude) noexcept { return __arm_vcmphiq_n_u32(magnitude, 0x7F80'0000u); }

  // Rationale: MVE's only float maximum is IEEE maxNum, which returns the number when one operand is NaN. The
  // fast softmax reads a NaN maximum as "hand the row to the exact kernel"; a row of NaN and -inf would
  // otherwise look fully masked and get zeros. So a NaN lane gives NaN (a + b), as NEON's vmaxq does.
  static reg max(reg a, reg b) noexcept {
    const mve_pred16_t either_nan = nan_lanes(__arm_vmaxq_u32(magnitude_bits(a), magnitude_bits(b)));
    return __arm_vpselq_f32(__arm_vaddq_f32(a, b), __arm_vmaxnmq_f32(a, b), either_nan);
  }
  static float reduce_add(reg x) noexcept {
    return (__arm_vgetq_lane_f32(x, 0) + __arm_vgetq_lane_f32(x, 1)) +
           (__arm_vgetq_lane_f32(x, 2) + __arm_vgetq_lane_f32(x, 3));
  }
  static float reduce_max(reg x) noexcept {
    if (nan_lanes(magnitude_bits(x)) != 0) return std::numeric_limits<float>::quiet_NaN();
    return __arm_vmaxnmvq_f32(-std::numeric_limits<float>::infinity(), x);
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23), valid because inputs
  // below `lowest` (n < -126) are replaced by 0 and inputs above 88 are clamped to 88. The Horner steps take their
  // constants as scalar operands (vfmas: p r + c), so that the polynomial needs 3 q registers. NaN lanes (which
  // vminnmq would clamp to 88 and the compare with `lowest` send to 0) are put back at the end.
  static reg exp(reg x) noexcept {
    const reg clamped = __arm_vminnmq_f32(x, __arm_vdupq_n_f32(88.0f));
    const reg n = __arm_vrndnq_f32(__arm_vmulq_n_f32(clamped, exp_constants::log2e));
    reg r = __arm_vfmaq_n_f32(clamped, n, -exp_constants::ln2_high);
    r = __arm_vfmaq_n_f32(r, n, -exp_constants::ln2_low);
    reg p = __arm_vdupq_n_f32(exp_constants::c7);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c6);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c5);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c4);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c3);
    p = __arm_vfmasq_n_f32(p, r, exp_constants::c2);
    p = __arm_vfmasq_n_f32(p, r, 1.0f);
    p = __arm_vfmasq_n_f32(p, r, 1.0f);
    const int32x4_t bits = __arm_vshlq_n_s32(__arm_vaddq_n_s32(__arm_vcvtq_s32_f32(n), 127), 23);
    const reg result = __arm_vmulq_f32(p, __arm_vreinterpretq_f32_s32(bits));
    // x >= lowest: false for -inf, and for NaN under both meanings of the compare.
    const mve_pred16_t normal = __arm_vcmpgeq_n_f32(x, exp_constants::lowest);
    const reg in_range = __arm_vpselq_f32(result, __arm_vdupq_n_f32(0.0f), normal);
    return __arm_vpselq_f32(x, in_range, nan_lanes(magnitude_bits(x)));
  }
};

/// The float table's helium row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::helium> {
  static constexpr const char* name = "helium";
  using ops = helium_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && (...)

#endif  // CTATTN_KERNELS_HELIUM_HPP
// ---------------------------------------- ctattn/kernels/backend.hpp (continued)
// ---------------------------------------- ctattn/kernels/neon.hpp
#ifndef CTATTN_KERNELS_NEON_HPP
#define CTATTN_KERNELS_NEON_HPP

/// \file
/// The AArch64 NEON backend: the vector operations of kernels/detail/simd.hpp on 4 float lanes in q registers.
/// The operations and their contracts are those of kernels/avx512.hpp. NEON has no masked loads: a partial vector
/// goes through a 4-float buffer.
///
/// Example: `ctattn::detail::neon_ops::reduce_add(ctattn::detail::neon_ops::broadcast(1.0f)) == 4.0f`.




// Empty unless the target is AArch64 with NEON: kernels/backend.hpp includes it then.
#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct neon_ops : float_ops_defaults {
  static constexpr bool has_transpose_sum = true;
  using reg = float32x4_t;
  static constexpr std::size_t lanes = 4;
  // 32 registers: 8 x 3 accumulators, three loads and a broadcast.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t tile_vectors = 3;
  // The transposed product's tile: 4 rows of a against 4 rows of b, 16 dot products in 4 transpose_sums.
  static constexpr std::size_t dot_tile_rows = 4;
  static constexpr std::size_t dot_rows = 4;
  static constexpr std::size_t key_buffer_floats = 8192;

  static reg zero() noexcept { return vdupq_n_f32(0.0f); }
  static reg broadcast(float x) noexcept { return vdupq_n_f32(x); }
  static reg load(const float* p) noexcept { return vld1q_f32(p); }
  static void store(float* p, reg x) noexcept { vst1q_f32(p, x); }
  static reg load_partial(const float* p, std::size_t n, float fill) noexcept {
    float buffer[4] = {fill, fill, fill, fill};
    for (std::size_t l = 0; l < n; ++l) buffer[l] = p[l];
    return vld1q_f32(buffer);
  }
  static void store_partial(float* p, reg x, std::size_t n) noexcept {
    float buffer[4];
    vst1q_f32(buffer, x);
    for (std::size_t l = 0; l < n; ++l) p[l] = buffer[l];
  }
  static reg add(reg a, reg b) noexcept { return vaddq_f32(a, b); }
  static reg mul(reg a, reg b) noexcept { return vmulq_f32(a, b); }
  static reg fma(reg a, reg b, reg c) noexcept { return vfmaq_f32(c, a, b); }
  static reg div(reg a, reg b) noexcept { return vdivq_f32(a, b); }
  static reg max(reg a, reg b) noexcept { return vmaxq_f32(a, b); }
  static float reduce_add(reg x) noexcept { return vaddvq_f32(x); }
  static float reduce_max(reg x) noexcept { return vmaxvq_f32(x); }

  // Lane l of the result is the sum of x[l]'s lanes: pairwise adds of pairwise adds.
  static reg transpose_sum(const reg (&x)[4]) noexcept {
    return vpaddq_f32(vpaddq_f32(x[0], x[1]), vpaddq_f32(x[2], x[3]));
  }

  // The method of avx512_ops::exp; 2^n is built in the exponent field ((n + 127) << 23). vminq keeps NaN.
  static reg exp(reg x) noexcept {
    const reg clamped = vminq_f32(x, vdupq_n_f32(88.0f));
    const reg n = vrndnq_f32(vmulq_f32(clamped, vdupq_n_f32(exp_constants::log2e)));
    reg r = vfmsq_f32(clamped, n, vdupq_n_f32(exp_constants::ln2_high));
    r = vfmsq_f32(r, n, vdupq_n_f32(exp_constants::ln2_low));
    reg p = vdupq_n_f32(exp_constants::c7);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c6), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c5), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c4), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c3), p, r);
    p = vfmaq_f32(vdupq_n_f32(exp_constants::c2), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    const int32x4_t bits = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    const reg result = vmulq_f32(p, vreinterpretq_f32_s32(bits));
    const uint32x4_t underflow = vcltq_f32(x, vdupq_n_f32(exp_constants::lowest));
    return vbslq_f32(underflow, vdupq_n_f32(0.0f), result);
  }
};

/// The float table's neon row (kernels/backend_rows.hpp).
template <>
struct float_backend<float_backend_id::neon> {
  static constexpr const char* name = "neon";
  using ops = neon_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__aarch64__) && defined(__ARM_NEON)

#endif  // CTATTN_KERNELS_NEON_HPP
// ---------------------------------------- ctattn/kernels/backend.hpp (continued)

namespace ctattn {

/// How a run-time call computes: `exact` (the scalar loops, static_assert's bits) or `fast` (the SIMD backend).
enum class arithmetic { exact, fast };

/// The arithmetic of a call that names none: fast, unless the build defines `CTATTN_EXACT_ARITHMETIC=1`.
inline constexpr arithmetic default_arithmetic = CTATTN_EXACT_ARITHMETIC ? arithmetic::exact : arithmetic::fast;

namespace detail {
/// The float table's row this build runs: the first the target defines (kernels/backend_rows.hpp), chosen here once.
using float_row = float_backend<chosen_row<float_backend_id, float_backend>()>;

/// The operations of the SIMD backend this build targets (`void` when there is none).
using simd_ops = float_row::ops;

/// Whether a run-time call on elements of type T with arithmetic A runs the SIMD backend.
template <arithmetic A, typename T>
inline constexpr bool runs_simd = A == arithmetic::fast && !std::is_void_v<simd_ops> && std::is_same_v<T, float>;
}  // namespace detail

/// The SIMD backend of this build: "avx512", "avx2", "neon", "helium", or "scalar" when there is none.
inline constexpr const char* simd_backend_name = detail::float_row::name;

}  // namespace ctattn

#endif  // CTATTN_KERNELS_BACKEND_HPP
// ---------------------------------------- ctattn/kernels/dispatch.hpp (continued)
// ---------------------------------------- ctattn/kernels/constant.hpp
#ifndef CTATTN_KERNELS_CONSTANT_HPP
#define CTATTN_KERNELS_CONSTANT_HPP

/// \file
/// The constant-evaluated backend: the exact arithmetic of kernels/scalar.hpp in the form the constant evaluators
/// run fastest. It has two forms, chosen here by `evaluates_lanes<T>`:
///   - GCC, float, double and int32 (the int8 products' sums): products and attention as row updates on GCC's
///     vector types (`lane_row`, 32 lanes), which its evaluator computes lane by lane in one step;
///   - every other case (Clang, whose evaluator cannot read a vector's lane back): dot products and multiply-adds
///     over whole rows as one expression per row (a fold over a compile-time index pack) instead of a loop, on
///     local copies of the operands.
///
/// | helper                                 | operands (y, then the inputs)         | result                         |
/// |----------------------------------------|---------------------------------------|--------------------------------|
/// | `unrolled_dot(a, b)`                   | a, b: `const T (&)[N]`                | (+0 + a[0] b[0]) + a[1] b[1].. |
/// | `unrolled_axpy(y, s, x)`               | `T (&)[N]`, `T`, `const T (&)[N]`     | y[c] += s x[c], c = 0 ... N-1  |
/// | `unrolled_product(y, a, b)`            | R x C, R x K, K x C (`T (&)[.][.]`)   | y = a b                        |
/// | `unrolled_product_transposed(y, a, b)` | R x C, R x K, C x K                   | y = a b^T                      |
/// | `constant::attend<W, DK, DV>(...)`      | as `scalar::attend`                   | as `scalar::attend`            |
/// | `lanes_axpy(y, s, x)`                  | `lane_row<T, N>`, `T`, `lane_row<T, N>` | y[c] += s x[c], every lane   |
/// | `lanes_product<Transposed>(y, a, b)`   | as `unrolled_product(_transposed)`    | y = a b, or a b^T              |
///
/// All do every addition in exactly the order of the plain loops `acc += a[c] * b[c]` and
/// `y[c] += s * x[c]`, so they give the same bits as those loops: kernels/dispatch.hpp uses these when
/// constant-evaluated and the scalar loops for exact arithmetic at run time. Each lane of a row update is one
/// element's multiply and add, rounded as the scalar loop rounds them.
///
/// Rationale: both compilers evaluate constant expressions at a cost per loop iteration, per index computation,
/// per statement and per read through a reference that is larger than the cost of the arithmetic. A fold over an
/// index pack has no loop and no index computation: its indices are literals fixed at instantiation. Instructions
/// per multiply-add (`benchmarks/compile_time_forms.sh`, docs/compile_time.md): Clang 14 takes 28 thousand in a
/// plain loop, 24 thousand with eight multiply-adds per statement, 15 thousand as a fold, and 12 thousand as a fold
/// over arrays local to the evaluation; GCC 12 takes 85, 79, 34 and 27 thousand. That is why the kernels copy
/// their operands first, and why products are formed as dot products (a fold over two local rows) rather than as
/// row updates. Clang limits a fold to 256 operands (its expression nesting limit), so long rows are folded in
/// chunks of 64, one after the other, which keeps the order.
///
/// Example:
/// \code
///   constexpr float a[3]{1, 2, 3}, b[3]{4, 5, 6};
///   static_assert(ctattn::detail::unrolled_dot(a, b) == 32.0f);
/// \endcode


// ---------------------------------------- ctattn/kernels/scalar.hpp
#ifndef CTATTN_KERNELS_SCALAR_HPP
#define CTATTN_KERNELS_SCALAR_HPP

/// \file
/// The scalar backend: the exact arithmetic. Plain loops in which every sum runs in ascending index order from +0
/// and every product and sum is rounded on its own, so that a result at run time has the bits of the same
/// computation in a constant expression (the forms in kernels/constant.hpp do the same additions in the same
/// order). These loops also serve targets without a SIMD backend, double everywhere, and any call that asks for
/// `ctattn::exact_arithmetic`.
///
/// | kernel                          | operands                              | result                       |
/// |---------------------------------|---------------------------------------|------------------------------|
/// | `product(c, a, b)`              | c M x N, a M x K, b K x N             | c = a b                      |
/// | `product_transposed(c, a, b)`   | c M x N, a M x K, b N x K             | c = a b^T                    |
/// | `product_left_transposed(c,a,b)`| c M x N, a K x M, b K x N             | c = a^T b                    |
/// | `attend<W, DK, DV>(...)`        | Q, K, V column windows, a mask        | out += softmax(Q K^T / s) V  |
///
/// Example:
/// \code
///   float c[2][2]{}; const float a[2][1]{{1}, {2}}, b[1][2]{{3, 4}};
///   ctattn::detail::scalar::product(c, a, b);   // {{3, 4}, {6, 8}}
/// \endcode


// ---------------------------------------- ctattn/kernels/softmax_row.hpp
#ifndef CTATTN_KERNELS_SOFTMAX_ROW_HPP
#define CTATTN_KERNELS_SOFTMAX_ROW_HPP



namespace ctattn::detail {

/// The softmax of `values[begin, end)` written to `weights[begin, end)`; the entries outside that range are
/// left alone. The rules, shared by `softmax_rows` and every attention kernel:
///   - -inf entries (masked) get weight 0 and are never passed to exp;
///   - a row with no entry above -inf (fully masked, or empty) gets all zeros, never NaN;
///   - +inf entries share the weight equally (the limit), every other entry gets 0;
///   - a NaN anywhere makes the whole row NaN;
///   - otherwise w_j = exp(x_j - max) / sum_k exp(x_k - max): subtracting the row maximum keeps every
///     exponent <= 0, so no row overflows, and the largest entry contributes exactly 1 to the sum.
// Rationale: one function for every caller keeps compile-time and run-time results, and every mask kind,
// on the same arithmetic. It takes raw arrays so that the kernels can hand it a row buffer.
template <typename T>
constexpr void softmax_row(const T* values, T* weights, std::size_t begin, std::size_t end) noexcept {
  constexpr T infinity = std::numeric_limits<T>::infinity();
  T largest = -infinity;
  std::size_t infinite = 0;
  for (std::size_t j = begin; j < end; ++j) {
    const T x = values[j];
    if (x != x) {  // NaN
      for (std::size_t m = begin; m < end; ++m) weights[m] = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    if (x == infinity) ++infinite;
    if (x > largest) largest = x;
  }
  if (largest == -infinity) {
    for (std::size_t j = begin; j < end; ++j) weights[j] = T{0};
    return;
  }
  if (infinite > 0) {
    const T share = T{1} / static_cast<T>(infinite);
    for (std::size_t j = begin; j < end; ++j) weights[j] = values[j] == infinity ? share : T{0};
    return;
  }
  T total{0};
  for (std::size_t j = begin; j < end; ++j) {
    const T e = values[j] == -infinity ? T{0} : math::exp(values[j] - largest);
    weights[j] = e;
    total += e;
  }
  for (std::size_t j = begin; j < end; ++j) weights[j] = weights[j] / total;
}

}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_SOFTMAX_ROW_HPP
// ---------------------------------------- ctattn/kernels/scalar.hpp (continued)

namespace ctattn::detail {

/// Where one head's columns sit inside the projected Q, K and V, and where its output goes. The head's widths
/// (d_k, d_v) are template arguments of the kernel.
struct head_columns {
  std::size_t query_offset;   // first column of this head in Q
  std::size_t key_offset;     // first column of its key/value head in K
  std::size_t value_offset;   // first column of its key/value head in V
  std::size_t output_offset;  // first column of its output
};

// The scores of query i against the keys of its range: dot(j) / scale, plus the mask's bias, or -inf for a key
// the mask hides. The exact kernels (constant-evaluated and scalar) score through here, so they apply a mask
// identically.
template <typename T, typename Mask, typename Range, typename Dot>
constexpr void score_row(const Mask& mask, std::size_t i, const Range& range, T scale, T* scores,
                         const Dot& dot) noexcept {
  for (std::size_t j = range.begin; j < range.end; ++j) {
    if constexpr (Mask::checks_each_key) {
      if (!mask.allowed(i, j)) {
        scores[j] = -std::numeric_limits<T>::infinity();
        continue;
      }
    }
    T score = dot(j) / scale;
    if constexpr (Mask::adds_bias) score += mask.template bias<T>(i, j);
    scores[j] = score;
  }
}

namespace scalar {

/// c = a b, each element summed over k = 0, 1, ..., K-1 from +0.
// Rationale: the i-k-j order streams rows of b and of c, so the innermost loop is independent across j: compilers
// vectorize it without reordering any sum, and each element still gets the textbook order's bits.
template <typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product(T (&c)[M][N], const T (&a)[M][K], const T (&b)[K][N]) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    T(&c_row)[N] = c[i];
    for (std::size_t j = 0; j < N; ++j) c_row[j] = T{0};
    for (std::size_t k = 0; k < K; ++k) {
      const T a_ik = a[i][k];
      const T(&b_row)[N] = b[k];
      for (std::size_t j = 0; j < N; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}

/// c = a b^T for b given as N rows of K (nn.Linear's layout, or keys): dot products over contiguous rows.
template <typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_transposed(T (&c)[M][N], const T (&a)[M][K], const T (&b)[N][K]) noexcept {
  // Rationale: four rows of b at a time, each dot product still summed in order (the same bits): four
  // independent chains of additions instead of one.
  for (std::size_t i = 0; i < M; ++i) {
    const T(&a_row)[K] = a[i];
    std::size_t j = 0;
    for (; j + 4 <= N; j += 4) {
      T acc0{0}, acc1{0}, acc2{0}, acc3{0};
      for (std::size_t k = 0; k < K; ++k) {
        const T a_ik = a_row[k];
        acc0 += a_ik * b[j][k];
        acc1 += a_ik * b[j + 1][k];
        acc2 += a_ik * b[j + 2][k];
        acc3 += a_ik * b[j + 3][k];
      }
      c[i][j] = acc0;
      c[i][j + 1] = acc1;
      c[i][j + 2] = acc2;
      c[i][j + 3] = acc3;
    }
    for (; j < N; ++j) {
      const T(&b_row)[K] = b[j];
      T acc{0};
      for (std::size_t k = 0; k < K; ++k) acc += a_row[k] * b_row[k];
      c[i][j] = acc;
    }
  }
}

/// c = a^T b for a given as K rows of M: c(m, n) = sum over k = 0, 1, ... of a(k, m) b(k, n), from +0; with
/// Accumulate, the sums go on from c's values (so a^T b taken in blocks of rows adds in the same order).
template <bool Accumulate = false, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_left_transposed(T (&c)[M][N], const T (&a)[K][M], const T (&b)[K][N]) noexcept {
  if constexpr (!Accumulate) {
    for (std::size_t m = 0; m < M; ++m) {
      for (std::size_t n = 0; n < N; ++n) c[m][n] = T{0};
    }
  }
  for (std::size_t k = 0; k < K; ++k) {
    const T(&b_row)[N] = b[k];
    for (std::size_t m = 0; m < M; ++m) {
      const T a_km = a[k][m];
      T(&c_row)[N] = c[m];
      for (std::size_t n = 0; n < N; ++n) c_row[n] += a_km * b_row[n];
    }
  }
}

/// Attention of the queries [row_begin, row_end) of one head: for each, the scores against the keys its mask's
/// range allows, their softmax, and the weighted sum of value rows added to the output's columns
/// [output_offset, output_offset + DV), which must hold +0. With KeepWeights, the weights are written too.
// Rationale: one query row at a time; only the keys in the mask's range are visited (a sliding window costs
// O(r N)), and a value row whose weight is 0 is never read. Heads are column windows of the projected matrices,
// so multi-head attention runs this with no copies.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale, std::size_t row_begin = 0,
                      std::size_t row_end = Q::rows) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  const std::size_t q_begin = columns.query_offset;
  const std::size_t k_begin = columns.key_offset;
  const std::size_t v_begin = columns.value_offset;
  const std::size_t o_begin = columns.output_offset;
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const T(&q_row)[Q::cols] = q.elements[i];
    T(&out_row)[Out::cols] = out.elements[i];
    const auto range = mask.keys(i, n_q, n_kv);
    // Rationale: four keys' dot products at a time, each still summed over d_k in order (the same bits as one at a
    // time): a lone sum is one chain of dependent additions, four independent chains keep the core busy. The
    // lambda's names are not the short ones users pick for globals (GCC's -Wshadow reports those); see
    // tests/static/user_names_test.cpp.
    std::size_t key = range.begin;
    for (; key + 4 <= range.end; key += 4) {
      const T(&k0)[K::cols] = k.elements[key];
      const T(&k1)[K::cols] = k.elements[key + 1];
      const T(&k2)[K::cols] = k.elements[key + 2];
      const T(&k3)[K::cols] = k.elements[key + 3];
      T d0{0}, d1{0}, d2{0}, d3{0};
      for (std::size_t column = 0; column < DK; ++column) {
        const T query = q_row[q_begin + column];
        d0 += query * k0[k_begin + column];
        d1 += query * k1[k_begin + column];
        d2 += query * k2[k_begin + column];
        d3 += query * k3[k_begin + column];
      }
      scores[key] = d0;
      scores[key + 1] = d1;
      scores[key + 2] = d2;
      scores[key + 3] = d3;
    }
    for (; key < range.end; ++key) {
      const T(&k_row)[K::cols] = k.elements[key];
      T key_dot{0};
      for (std::size_t column = 0; column < DK; ++column) key_dot += q_row[q_begin + column] * k_row[k_begin + column];
      scores[key] = key_dot;
    }
    // The dot products are in `scores`; score_row reads each before it writes the score in its place.
    score_row(mask, i, range, scale, scores, [&](std::size_t key_index) { return scores[key_index]; });
    softmax_row(scores, probabilities, range.begin, range.end);
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      const T(&v_row)[V::cols] = v.elements[j];
      for (std::size_t c = 0; c < DV; ++c) out_row[o_begin + c] += p * v_row[v_begin + c];
    }
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

}  // namespace scalar
}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_SCALAR_HPP
// ---------------------------------------- ctattn/kernels/constant.hpp (continued)

namespace ctattn::detail {

/// The largest number of terms folded into one expression.
inline constexpr std::size_t unrolled_chunk = 64;

template <std::size_t Offset, std::size_t... I>
constexpr std::index_sequence<(Offset + I)...> offset_indices(std::index_sequence<I...>) noexcept {
  return {};
}

/// The indices of chunk C of a row of N elements: C * 64, ..., min(N, (C + 1) * 64) - 1.
template <std::size_t C, std::size_t N>
using chunk_indices = decltype(offset_indices<C * unrolled_chunk>(
    std::make_index_sequence<(N - C * unrolled_chunk < unrolled_chunk ? N - C * unrolled_chunk : unrolled_chunk)>{}));

template <std::size_t N>
using chunk_numbers = std::make_index_sequence<(N + unrolled_chunk - 1) / unrolled_chunk>;

template <typename T, std::size_t N, std::size_t... J>
constexpr T dot_terms(T acc, const T (&a)[N], const T (&b)[N], std::index_sequence<J...>) noexcept {
  return (acc + ... + (a[J] * b[J]));
}

template <typename T, std::size_t N, std::size_t... C>
constexpr T dot_chunks(const T (&a)[N], const T (&b)[N], std::index_sequence<C...>) noexcept {
  T acc{0};
  ((acc = dot_terms(acc, a, b, chunk_indices<C, N>{})), ...);
  return acc;
}

/// a[0] b[0] + a[1] b[1] + ... + a[N-1] b[N-1], added left to right starting from +0.
template <typename T, std::size_t N>
constexpr T unrolled_dot(const T (&a)[N], const T (&b)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    return dot_terms(T{0}, a, b, std::make_index_sequence<N>{});
  } else {
    return dot_chunks(a, b, chunk_numbers<N>{});
  }
}

template <typename T, std::size_t N, std::size_t... J>
constexpr void axpy_terms(T (&y)[N], T s, const T (&x)[N], std::index_sequence<J...>) noexcept {
  ((y[J] += s * x[J]), ...);
}

template <typename T, std::size_t N, std::size_t... C>
constexpr void axpy_chunks(T (&y)[N], T s, const T (&x)[N], std::index_sequence<C...>) noexcept {
  (axpy_terms(y, s, x, chunk_indices<C, N>{}), ...);
}

/// y[c] += s x[c] for c = 0, 1, ..., N-1.
template <typename T, std::size_t N>
constexpr void unrolled_axpy(T (&y)[N], T s, const T (&x)[N]) noexcept {
  if constexpr (N <= unrolled_chunk) {
    axpy_terms(y, s, x, std::make_index_sequence<N>{});
  } else {
    axpy_chunks(y, s, x, chunk_numbers<N>{});
  }
}

/// Whether the constant evaluation of T's products and attention runs on the compiler's vector types (GCC) instead
/// of folds (every other compiler).
// Rationale: GCC's evaluator does arithmetic on its generic vector types (`vector_size`) lane by lane in one step,
// so a row update y += s x of 32 lanes costs it about what the 64 floating-point operations cost, while a fold
// pays as much again for each element it reads (`benchmarks/compile_time_instructions.sh`, docs/compile_time.md:
// a product takes 13.1 thousand instructions per multiply-add as folds and 6.0 thousand as lanes; attention 16.9
// and 9.4 thousand; the int8 products 18.9 and 7.6 thousand). Clang 14 evaluates vector arithmetic too but
// cannot read a lane back in a constant expression (a subscript or a bit_cast of a vector is not constant there),
// so Clang keeps the folds. Every lane is the scalar loop's operation in the scalar loop's order, so the bits are
// the same (tests/static/unrolled_test.cpp, tests/runtime/unrolled_kernels_test.cpp).
template <typename T>
inline constexpr bool evaluates_lanes =
#if defined(__GNUC__) && !defined(__clang__)
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>;
#else
    false;
#endif

/// The lanes of one vector for rows of N elements: 32, or the power of two that holds a shorter row.
template <std::size_t N>
inline constexpr std::size_t lane_count = N >= 32 ? 32 : std::bit_ceil(N < 2 ? std::size_t{2} : N);

/// A row of N elements of T as vectors of `lane_count<N>` lanes; the lanes past N hold +0.
template <typename T, std::size_t N>
struct lane_row {
  static constexpr std::size_t lanes = lane_count<N>;
  static constexpr std::size_t chunks = (N + lanes - 1) / lanes;
  typedef T vector __attribute__((vector_size(sizeof(T) * lanes)));
  vector chunk[chunks];
};

// Chunk `chunk` of row from a row of a source array: lane l is T(source[offset + base + l]) below N, +0 past it
// (base = chunk * lanes). GCC lets a constant expression read a lane but not write one, so a chunk is built whole.
template <typename T, std::size_t N, typename S, std::size_t C, std::size_t... L>
constexpr void load_segment_chunk(lane_row<T, N>& row, std::size_t chunk, const S (&source)[C], std::size_t offset,
                                  std::index_sequence<L...>) noexcept {
  const std::size_t base = chunk * lane_row<T, N>::lanes;
  row.chunk[chunk] =
      typename lane_row<T, N>::vector{(base + L < N ? static_cast<T>(source[offset + base + L]) : T{0})...};
}

/// Lane c of row is T(source[offset + c]), c < N.
template <typename T, std::size_t N, typename S, std::size_t C>
constexpr void load_segment(lane_row<T, N>& row, const S (&source)[C], std::size_t offset) noexcept {
  for (std::size_t chunk = 0; chunk < lane_row<T, N>::chunks; ++chunk) {
    load_segment_chunk(row, chunk, source, offset, std::make_index_sequence<lane_row<T, N>::lanes>{});
  }
}

template <typename T, std::size_t N, typename S, std::size_t R, std::size_t C, std::size_t... L>
constexpr void load_column_chunk(lane_row<T, N>& row, std::size_t chunk, const S (&source)[R][C], std::size_t first,
                                 std::size_t column, std::index_sequence<L...>) noexcept {
  const std::size_t base = chunk * lane_row<T, N>::lanes;
  row.chunk[chunk] =
      typename lane_row<T, N>::vector{(base + L < N ? static_cast<T>(source[first + base + L][column]) : T{0})...};
}

/// Lane c of row is T(source[first + c][column]), c < N: a column of a two-dimensional array as a row.
template <typename T, std::size_t N, typename S, std::size_t R, std::size_t C>
constexpr void load_column(lane_row<T, N>& row, const S (&source)[R][C], std::size_t first,
                           std::size_t column) noexcept {
  for (std::size_t chunk = 0; chunk < lane_row<T, N>::chunks; ++chunk) {
    load_column_chunk(row, chunk, source, first, column, std::make_index_sequence<lane_row<T, N>::lanes>{});
  }
}

template <typename T, std::size_t N, std::size_t... C>
constexpr void lanes_axpy_chunks(lane_row<T, N>& y, T s, const lane_row<T, N>& x, std::index_sequence<C...>) noexcept {
  ((y.chunk[C] += s * x.chunk[C]), ...);
}

/// y[c] += s x[c] for every lane: each lane's product rounded, then its sum, as the scalar loop does.
template <typename T, std::size_t N>
constexpr void lanes_axpy(lane_row<T, N>& y, T s, const lane_row<T, N>& x) noexcept {
  lanes_axpy_chunks(y, s, x, std::make_index_sequence<lane_row<T, N>::chunks>{});
}

/// Element c of row.
template <typename T, std::size_t N>
constexpr T lane(const lane_row<T, N>& row, std::size_t c) noexcept {
  return row.chunk[c / lane_row<T, N>::lanes][c % lane_row<T, N>::lanes];
}

/// y = a b, or y = a b^T for b given as C rows of K (Transposed): each row of y is the row update y_i += a[i][k] b_k
/// over k = 0, 1, ..., K-1 from +0 (b_k the k-th row of b, or of b^T), so each element is summed in the order of the
/// scalar loops.
template <bool Transposed, typename T, std::size_t R, std::size_t K, std::size_t C, typename B>
constexpr void lanes_product(T (&y)[R][C], const T (&a)[R][K], const B& b) noexcept {
  lane_row<T, C> rows[K]{};
  for (std::size_t k = 0; k < K; ++k) {
    if constexpr (Transposed) {
      load_column(rows[k], b, 0, k);
    } else {
      load_segment(rows[k], b[k], 0);
    }
  }
  for (std::size_t i = 0; i < R; ++i) {
    lane_row<T, C> sum{};
    for (std::size_t k = 0; k < K; ++k) lanes_axpy(sum, a[i][k], rows[k]);
    for (std::size_t c = 0; c < C; ++c) y[i][c] = lane(sum, c);
  }
}

// y[i][c] = unrolled_dot(a[i], columns[c]), with a's current row copied into a local array first.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void dot_rows(T (&y)[R][C], const T (&a)[R][K], const T (&columns)[C][K]) noexcept {
  T row[K]{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) row[k] = a[i][k];
    for (std::size_t c = 0; c < C; ++c) y[i][c] = unrolled_dot(row, columns[c]);
  }
}

// y = a b, or y = a b^T (Transposed, b given as C rows of K), in the form this compiler evaluates fastest: GCC's
// vector lanes, or dot products of a's rows with b's columns copied as local rows.
template <bool Transposed, typename T, std::size_t R, std::size_t K, std::size_t C, typename B>
constexpr void constant_product(T (&y)[R][C], const T (&a)[R][K], const B& b) noexcept {
  if constexpr (evaluates_lanes<T>) {
    lanes_product<Transposed>(y, a, b);
  } else {
    // Rationale: the transposition chosen outside the loops; Clang counts each statement evaluated against its
    // step limit, so a branch per element would cost the KV-cache decoding proof (examples/verified_model) its limit.
    T columns[C][K]{};
    if constexpr (Transposed) {
      for (std::size_t c = 0; c < C; ++c) {
        for (std::size_t k = 0; k < K; ++k) columns[c][k] = b[c][k];
      }
    } else {
      for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t c = 0; c < C; ++c) columns[c][k] = b[k][c];
      }
    }
    dot_rows(y, a, columns);
  }
}

/// y = a b: y[i][c] = a[i][0] b[0][c] + a[i][1] b[1][c] + ... + a[i][K-1] b[K-1][c], added left to right from
/// +0, the same order as the i-k-j loop `y[i][c] += a[i][k] * b[k][c]` over rows of b.
// Rationale: as dot products over local copies (b's columns as rows, and a's current row), every term reads two
// arrays local to the evaluation with literal indices: 14% fewer instructions than row updates on GCC 12 and 16%
// fewer on Clang 14 (`benchmarks/compile_time_forms.sh`). The copies cost one read and one write per element of
// b, against R reads of each in the product.
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product(T (&y)[R][C], const T (&a)[R][K], const T (&b)[K][C]) noexcept {
  constant_product<false>(y, a, b);
}

/// y = a b^T for b given as its C rows of K elements (nn.Linear's layout): y[i][c] = unrolled_dot(a[i], b[c]).
template <typename T, std::size_t R, std::size_t K, std::size_t C>
constexpr void unrolled_product_transposed(T (&y)[R][C], const T (&a)[R][K], const T (&b)[C][K]) noexcept {
  constant_product<true>(y, a, b);
}

namespace constant {

// The dot products of a query against the keys of [begin, end), as lanes: dots += query[c] keys_t[c] for c = 0, 1,
// ..., DK-1 from +0 (the order of the scalar dot product), over the chunks that hold a key of the range (a window of
// r keys costs r, not n_kv, as in the scalar kernel). The other keys of those chunks are computed with and never
// read: GCC's vector arithmetic gives IEEE's infinities and NaNs where its scalar arithmetic stops the evaluation,
// so a key outside the range cannot stop it either.
template <std::size_t DK, typename T, std::size_t N>
constexpr void lanes_dots(lane_row<T, N>& dots, const lane_row<T, N> (&keys_t)[DK], const T (&query)[DK],
                          std::size_t begin, std::size_t end) noexcept {
  const std::size_t last = (end - 1) / lane_row<T, N>::lanes;
  for (std::size_t chunk = begin / lane_row<T, N>::lanes; chunk <= last; ++chunk) {
    for (std::size_t c = 0; c < DK; ++c) dots.chunk[chunk] += query[c] * keys_t[c].chunk[chunk];
  }
}

/// `attend` on GCC: keys as DK lane rows over the keys (K^T), values as lane rows, every score row and every
/// context row a sequence of row updates in the scalar kernel's order.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend_lanes(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                            const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  lane_row<T, n_kv> keys_t[DK]{};
  for (std::size_t c = 0; c < DK; ++c) {
    load_column(keys_t[c], k.elements, 0, columns.key_offset + c);
  }
  lane_row<T, DV> values[n_kv]{};
  for (std::size_t j = 0; j < n_kv; ++j) {
    load_segment(values[j], v.elements[j], columns.value_offset);
  }
  T query[DK]{};
  T scores[n_kv]{};
  T probabilities[n_kv]{};
  for (std::size_t i = 0; i < n_q; ++i) {
    const auto range = mask.keys(i, n_q, n_kv);
    if (range.begin < range.end) {
      // Rationale: the query row copied first: GCC reads a local array's element for fewer instructions than one
      // of the matrix behind a reference (9.4 against 11.0 thousand per multiply-add in this kernel).
      for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
      lane_row<T, n_kv> dots{};
      lanes_dots(dots, keys_t, query, range.begin, range.end);
      for (std::size_t j = range.begin; j < range.end; ++j) scores[j] = lane(dots, j);
    }
    score_row(mask, i, range, scale, scores, [&](std::size_t key_index) { return scores[key_index]; });
    softmax_row(scores, probabilities, range.begin, range.end);
    lane_row<T, DV> context{};
    for (std::size_t j = range.begin; j < range.end; ++j) {
      const T p = probabilities[j];
      if (p == T{0}) continue;
      lanes_axpy(context, p, values[j]);
    }
    for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += lane(context, c);
    if constexpr (KeepWeights) {
      for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
    }
  }
}

/// The constant-evaluated form of `scalar::attend`: the same arithmetic in the same order, so the same bits.
// Rationale: the constant evaluators read an element of an array local to the evaluation faster than one of a
// constexpr variable, and fold expressions with literal indices faster than loops (see above). So this head's keys
// and values, and each query row, are first copied into exact-size local arrays (O(n d) copies against O(n^2 d)
// multiply-adds), and every score and every context row is one unrolled expression. Each context row is summed
// from +0 into a local row and then added to the output's +0, which changes no bit.
template <bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V, typename Out,
          typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  using T = typename Q::value_type;
  if constexpr (evaluates_lanes<T>) {
    attend_lanes<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  } else {
    constexpr std::size_t n_q = Q::rows;
    constexpr std::size_t n_kv = K::rows;
    T keys[n_kv][DK]{};
    T values[n_kv][DV]{};
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < DK; ++c) keys[j][c] = k.elements[j][columns.key_offset + c];
      for (std::size_t c = 0; c < DV; ++c) values[j][c] = v.elements[j][columns.value_offset + c];
    }
    T query[DK]{};
    T context[DV]{};
    T scores[n_kv]{};
    T probabilities[n_kv]{};
    for (std::size_t i = 0; i < n_q; ++i) {
      for (std::size_t c = 0; c < DK; ++c) query[c] = q.elements[i][columns.query_offset + c];
      const auto range = mask.keys(i, n_q, n_kv);
      score_row(mask, i, range, scale, scores, [&](std::size_t key) { return unrolled_dot(query, keys[key]); });
      softmax_row(scores, probabilities, range.begin, range.end);
      for (std::size_t c = 0; c < DV; ++c) context[c] = T{0};
      for (std::size_t j = range.begin; j < range.end; ++j) {
        const T p = probabilities[j];
        if (p == T{0}) continue;
        unrolled_axpy(context, p, values[j]);
      }
      for (std::size_t c = 0; c < DV; ++c) out.elements[i][columns.output_offset + c] += context[c];
      if constexpr (KeepWeights) {
        for (std::size_t j = range.begin; j < range.end; ++j) weights->elements[i][j] = probabilities[j];
      }
    }
  }
}

}  // namespace constant
}  // namespace ctattn::detail

#endif  // CTATTN_KERNELS_CONSTANT_HPP
// ---------------------------------------- ctattn/kernels/dispatch.hpp (continued)
// ---------------------------------------- ctattn/kernels/detail/simd.hpp
#ifndef CTATTN_KERNELS_DETAIL_SIMD_HPP
#define CTATTN_KERNELS_DETAIL_SIMD_HPP

/// \file
/// The fast kernels, written once for every SIMD backend. `V` is a backend's operations (kernels/avx512.hpp,
/// avx2.hpp, neon.hpp, helium.hpp): a register type of `V::lanes` floats, loads and stores (whole and partial),
/// add, mul, fma, max, exp and reductions across lanes, plus the backend's tile sizes. Only float.
///
/// Two operations are optional, because they are shuffles some cores do cheaply and others (Helium) have no
/// instructions for: `transpose_sum(x)` (a register of sums of `lanes` registers at once; without it, one
/// reduction per register) and `transpose(x)` (a lanes x lanes block transposed in registers, for packing keys;
/// without it, the keys are packed one float at a time). Each is declared with its default in
/// kernels/detail/ops_defaults.hpp (`has_transpose_sum`, `has_transpose`) and read in one place below.
///
/// | kernel                                  | computes                                                  |
/// |-----------------------------------------|-----------------------------------------------------------|
/// | `product<V, M, N, Acc>(a, ..., c, ...)` | C (+)= A B, A read with any strides (so A^T B too)        |
/// | `product_transposed<V, M, N, K>(...)`   | C = A B^T, B given by rows (nn.Linear weights, keys)       |
/// | `softmax_row<V>(x, w, begin, end)`      | the softmax of x[begin, end) into w                        |
/// | `attend<V, W, DK, DV, NQ, NKV>(...)`    | fused attention: out += softmax(Q K^T / s + mask) V        |
///
/// Results differ from the exact kernels (kernels/scalar.hpp) by reassociated sums, fused multiply-adds and the
/// vector exp; docs/kernels.md gives the bounds that tests/backend/ checks. Non-finite inputs keep the exact
/// kernels' meaning: a row with NaN or +inf scores is handed back to the exact kernel.



namespace ctattn::detail::simd {

inline constexpr float infinity = std::numeric_limits<float>::infinity();

constexpr std::size_t round_up(std::size_t n, std::size_t step) noexcept { return (n + step - 1) / step * step; }
constexpr std::size_t round_down(std::size_t n, std::size_t step) noexcept { return n / step * step; }
constexpr std::size_t smaller(std::size_t a, std::size_t b) noexcept { return a < b ? a : b; }
constexpr std::size_t larger(std::size_t a, std::size_t b) noexcept { return a > b ? a : b; }

/// One tile of a product: C[MR][NV vectors] (+)= A[MR][depth] B[depth][NV vectors], with a(i, k) at
/// a[i * a_row + k * a_col]. The last vector has `Tail` valid lanes (0: all), for B's loads and C's loads and
/// stores; the lanes past it are neither read nor written.
// Rationale: MR x NV accumulators stay in registers for the whole depth; each step loads NV vectors of B once
// and uses each MR times, with one broadcast of A per row.
template <typename V, std::size_t MR, std::size_t NV, std::size_t Tail, bool Accumulate>
inline void product_tile(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb,
                         float* c, std::size_t ldc, std::size_t depth) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  constexpr auto is_tail = [](std::size_t vector_index) { return Tail != 0 && vector_index == NV - 1; };
  reg acc[MR][NV];
  for (std::size_t i = 0; i < MR; ++i) {
    for (std::size_t j = 0; j < NV; ++j) {
      if constexpr (Accumulate) {
        const float* c_ij = c + i * ldc + j * lanes;
        acc[i][j] = is_tail(j) ? V::load_partial(c_ij, Tail, 0.0f) : V::load(c_ij);
      } else {
        acc[i][j] = V::zero();
      }
    }
  }
  for (std::size_t k = 0; k < depth; ++k) {
    const float* b_row = b + k * ldb;
    reg b_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) {
      b_vectors[j] = is_tail(j) ? V::load_partial(b_row + j * lanes, Tail, 0.0f) : V::load(b_row + j * lanes);
    }
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_ik = V::broadcast(a[i * a_row + k * a_col]);
      for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::fma(a_ik, b_vectors[j], acc[i][j]);
    }
  }
  for (std::size_t i = 0; i < MR; ++i) {
    for (std::size_t j = 0; j < NV; ++j) {
      if (is_tail(j)) {
        V::store_partial(c + i * ldc + j * lanes, acc[i][j], Tail);
      } else {
        V::store(c + i * ldc + j * lanes, acc[i][j]);
      }
    }
  }
}

// Every row of C for one panel of NV vectors: tiles of V::tile_rows rows; where rows are left over, the last whole
// tile and the rest as two tiles of nearly equal height.
// Rationale: a tile of r rows keeps r x NV sums in flight; a short last tile (7 rows on AVX2: 6 + 1) waits on the
// FMA latency with 2 of them, and cost as much as the 6-row tile (7 x 512 x 512 at 65% of the FMA peak, measured on
// Zen 4 with AVX2). Split as 4 + 3, both tiles keep 6 or more in flight for the same loads of B. Each sum still
// adds its terms in the order of k: the same bits.
template <typename V, std::size_t M, std::size_t NV, std::size_t Tail, bool Accumulate>
inline void product_panel(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t depth) noexcept {
  constexpr std::size_t rows = V::tile_rows;
  constexpr std::size_t left = M % rows;
  constexpr std::size_t whole = left != 0 && M > rows ? M - rows - left : M - left;
  for (std::size_t i = 0; i + rows <= whole; i += rows) {
    product_tile<V, rows, NV, Tail, Accumulate>(a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, depth);
  }
  if constexpr (left != 0 && M > rows) {
    constexpr std::size_t upper = (rows + left + 1) / 2;
    constexpr std::size_t lower = rows + left - upper;
    product_tile<V, upper, NV, Tail, Accumulate>(a + whole * a_row, a_row, a_col, b, ldb, c + whole * ldc, ldc, depth);
    product_tile<V, lower, NV, Tail, Accumulate>(a + (whole + upper) * a_row, a_row, a_col, b, ldb,
                                                 c + (whole + upper) * ldc, ldc, depth);
  } else if constexpr (left != 0) {
    product_tile<V, left, NV, Tail, Accumulate>(a, a_row, a_col, b, ldb, c, ldc, depth);
  }
}

/// Vectors of B per panel for a product of M rows: the backend's tile, or, for fewer rows than a tile holds, as many
/// as the tile's accumulators allow, up to half of them (the other half holds the loaded vectors of B).
// Rationale: a product of one or two rows (a decoding step's projection) with the tile's 2 vectors has 2 or 4
// independent sums, each waiting on the latency of the one before it, and reads B in short pieces of many rows;
// wider panels keep enough sums in flight and read B in longer runs.
template <typename V, std::size_t M>
inline constexpr std::size_t panel_vectors =
    M >= V::tile_rows
        ? V::tile_vectors
        : larger(V::tile_vectors, smaller(V::tile_rows* V::tile_vectors / M, V::tile_rows* V::tile_vectors / 2));

/// c (+)= a B for one row: B streamed row after row, `Rows` rows of B at a time added into c, which stays in L1.
// Rationale: one row of A (a decoding step's projection) does one multiply-add per weight, so its speed is the
// speed of reading B; reading B in its stored order, a few whole rows at a time, keeps that read one sequential
// stream, where a panel of columns jumps from row to row.
template <typename V, std::size_t N, bool Accumulate>
inline void product_row(const float* a, std::size_t a_col, const float* b, std::size_t ldb, float* c,
                        std::size_t depth) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  constexpr std::size_t rows = 4;
  constexpr std::size_t full = N / lanes * lanes;
  if constexpr (!Accumulate) {
    for (std::size_t j = 0; j < full; j += lanes) V::store(c + j, V::zero());
    if constexpr (N % lanes != 0) V::store_partial(c + full, V::zero(), N % lanes);
  }
  // Rows of B from `from` (a's entries from `a_from`) added into c, `count` of them.
  const auto add_rows = [&](const float* a_from, const float* from, auto count) {
    constexpr std::size_t r_count = decltype(count)::value;
    reg a_k[r_count];
    for (std::size_t r = 0; r < r_count; ++r) a_k[r] = V::broadcast(a_from[r * a_col]);
    for (std::size_t j = 0; j < full; j += lanes) {
      reg sum = V::load(c + j);
      for (std::size_t r = 0; r < r_count; ++r) sum = V::fma(a_k[r], V::load(from + r * ldb + j), sum);
      V::store(c + j, sum);
    }
    if constexpr (N % lanes != 0) {
      reg sum = V::load_partial(c + full, N % lanes, 0.0f);
      for (std::size_t r = 0; r < r_count; ++r) {
        sum = V::fma(a_k[r], V::load_partial(from + r * ldb + full, N % lanes, 0.0f), sum);
      }
      V::store_partial(c + full, sum, N % lanes);
    }
  };
  // Rationale: pointers that advance, not indices times strides: GCC 12 reports the index form's products as
  // overflowing at an iteration no call reaches (-Waggressive-loop-optimizations).
  const float* a_k = a;
  const float* b_k = b;
  for (std::size_t left = depth; left >= rows; left -= rows) {
    add_rows(a_k, b_k, std::integral_constant<std::size_t, rows>{});
    a_k += rows * a_col;
    b_k += rows * ldb;
  }
  for (std::size_t left = depth % rows; left > 0; --left) {
    add_rows(a_k, b_k, std::integral_constant<std::size_t, 1>{});
    a_k += a_col;
    b_k += ldb;
  }
}

/// C (+)= A B for C M x N (row stride ldc), B depth x N (row stride ldb), a(i, k) = a[i * a_row + k * a_col].
template <typename V, std::size_t M, std::size_t N, bool Accumulate>
inline void product(const float* a, std::size_t a_row, std::size_t a_col, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, std::size_t depth) noexcept {
  if constexpr (M == 1 && N > 2 * V::tile_vectors * V::lanes) {
    product_row<V, N, Accumulate>(a, a_col, b, ldb, c, depth);
    return;
  }
  constexpr std::size_t lanes = V::lanes;
  constexpr std::size_t vectors = panel_vectors<V, M>;
  constexpr std::size_t panel = vectors * lanes;
  constexpr std::size_t full = N / panel * panel;
  for (std::size_t j = 0; j < full; j += panel) {
    product_panel<V, M, vectors, 0, Accumulate>(a, a_row, a_col, b + j, ldb, c + j, ldc, depth);
  }
  if constexpr (N % panel != 0) {
    constexpr std::size_t rest = N % panel;
    product_panel<V, M, (rest + lanes - 1) / lanes, rest % lanes, Accumulate>(a, a_row, a_col, b + full, ldb, c + full,
                                                                              ldc, depth);
  }
}

/// sums[l] = the sum of the lanes of x[l], for `lanes` registers at once: the backend's `transpose_sum` (a tree of
/// shuffles and adds, a few operations per sum) where it has one, else one reduction per register.
template <typename V>
inline typename V::reg transpose_sum(const typename V::reg (&x)[V::lanes]) noexcept {
  if constexpr (V::has_transpose_sum) {
    return V::transpose_sum(x);
  } else {
    float sums[V::lanes];
    for (std::size_t l = 0; l < V::lanes; ++l) sums[l] = V::reduce_add(x[l]);
    return V::load(sums);
  }
}

/// One tile of C = A B^T: MR rows of A against NR rows of B, each a dot product over K summed in vectors and
/// reduced across lanes at the end: when MR x NR is a multiple of the lanes, `lanes` sums at a time by
/// `transpose_sum`.
template <typename V, std::size_t MR, std::size_t NR, std::size_t K>
inline void dot_tile(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                     std::size_t ldc) noexcept {
  using reg = typename V::reg;
  constexpr std::size_t lanes = V::lanes;
  reg acc[MR * NR];
  for (std::size_t e = 0; e < MR * NR; ++e) acc[e] = V::zero();
  constexpr std::size_t full = K / lanes * lanes;
  for (std::size_t k = 0; k < full; k += lanes) {
    reg b_vectors[NR];
    for (std::size_t r = 0; r < NR; ++r) b_vectors[r] = V::load(b + r * ldb + k);
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_vector = V::load(a + i * lda + k);
      for (std::size_t r = 0; r < NR; ++r) acc[i * NR + r] = V::fma(a_vector, b_vectors[r], acc[i * NR + r]);
    }
  }
  if constexpr (K % lanes != 0) {
    reg b_vectors[NR];
    for (std::size_t r = 0; r < NR; ++r) b_vectors[r] = V::load_partial(b + r * ldb + full, K % lanes, 0.0f);
    for (std::size_t i = 0; i < MR; ++i) {
      const reg a_vector = V::load_partial(a + i * lda + full, K % lanes, 0.0f);
      for (std::size_t r = 0; r < NR; ++r) acc[i * NR + r] = V::fma(a_vector, b_vectors[r], acc[i * NR + r]);
    }
  }
  if constexpr (MR * NR % lanes == 0) {
    for (std::size_t group = 0; group < MR * NR; group += lanes) {
      reg part[lanes];
      for (std::size_t l = 0; l < lanes; ++l) part[l] = acc[group + l];
      float sums[lanes];
      V::store(sums, transpose_sum<V>(part));
      for (std::size_t l = 0; l < lanes; ++l) c[(group + l) / NR * ldc + (group + l) % NR] = sums[l];
    }
  } else {
    for (std::size_t i = 0; i < MR; ++i) {
      for (std::size_t r = 0; r < NR; ++r) c[i * ldc + r] = V::reduce_add(acc[i * NR + r]);
    }
  }
}

template <typename V, std::size_t MR, std::size_t NR, std::size_t N, std::size_t K>
inline void dot_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                     std::size_t ldc) noexcept {
  for (std::size_t r = 0; r + NR <= N; r += NR) dot_tile<V, MR, NR, K>(a, lda, b + r * ldb, ldb, c + r, ldc);
  if constexpr (N % NR != 0) {
    constexpr std::size_t r = N - N % NR;
    dot_tile<V, MR, N % NR, K>(a, lda, b + r * ldb, ldb, c + r, ldc);
  }
}

/// C = A B^T for A M x K, B N x K (rows), C M x N.
// Rationale: up to tile_rows rows of A form one tile, so that every row of B is read from memory once (a
// projection of a few tokens streams its weights, which is what limits it); its sums are reduced one at a time,
// which K long enough to be memory-bound pays for. More rows go in tiles of dot_tile_rows x dot_rows, whose sums
// transpose_sum reduces a register at a time: with a head's K of 16 or 64 the reductions would otherwise cost
// more than the multiply-adds.
template <typename V, std::size_t M, std::size_t N, std::size_t K>
inline void product_transposed(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                               std::size_t ldc) noexcept {
  if constexpr (M <= V::tile_rows) {
    // Rationale: one row (a decoding step) reads each row of B once and nothing else, so B's rows are taken a few
    // at a time (8; 4 for short rows, whose reductions weigh more), which keeps the read close to one stream; 18
    // rows at once measured 2.5x slower at 512 x 512 on AVX-512.
    constexpr std::size_t nr =
        M == 1 ? (K >= 256 ? 8 : 4) : larger(1, smaller(V::tile_rows * V::tile_vectors + V::tile_vectors, 24) / M);
    dot_rows<V, M, nr, N, K>(a, lda, b, ldb, c, ldc);
  } else {
    constexpr std::size_t mr = V::dot_tile_rows;
    constexpr std::size_t nr = V::dot_rows;
    for (std::size_t i = 0; i + mr <= M; i += mr) dot_rows<V, mr, nr, N, K>(a + i * lda, lda, b, ldb, c + i * ldc, ldc);
    if constexpr (M % mr != 0) {
      constexpr std::size_t i = M - M % mr;
      dot_rows<V, M % mr, nr, N, K>(a + i * lda, lda, b, ldb, c + i * ldc, ldc);
    }
  }
}

/// x[0, n) *= s.
template <typename V>
inline void scale(float* x, std::size_t n, float s) noexcept {
  const typename V::reg factor = V::broadcast(s);
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) V::store(x + j, V::mul(V::load(x + j), factor));
  if (j < n) V::store_partial(x + j, V::mul(V::load_partial(x + j, n - j, 0.0f), factor), n - j);
}

/// The largest of x[0, n), or -inf for n = 0 (NaN entries may or may not be seen).
template <typename V>
inline float largest(const float* x, std::size_t n) noexcept {
  typename V::reg m = V::broadcast(-infinity);
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) m = V::max(m, V::load(x + j));
  if (j < n) m = V::max(m, V::load_partial(x + j, n - j, -infinity));
  return V::reduce_max(m);
}

/// w[j] = e^(x[j] - m) for j in [0, n); returns their sum (NaN when an x is NaN).
template <typename V>
inline float exp_shifted(const float* x, float* w, std::size_t n, float m) noexcept {
  const typename V::reg minus_m = V::broadcast(-m);
  typename V::reg sum = V::zero();
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) {
    const typename V::reg e = V::exp(V::add(V::load(x + j), minus_m));
    V::store(w + j, e);
    sum = V::add(sum, e);
  }
  if (j < n) {
    const typename V::reg e = V::exp(V::add(V::load_partial(x + j, n - j, -infinity), minus_m));
    V::store_partial(w + j, e, n - j);
    sum = V::add(sum, e);
  }
  return V::reduce_add(sum);
}

/// e^x for one float, by the backend's vector exp.
template <typename V>
inline float exp_one(float x) noexcept {
  float result = 0.0f;
  V::store_partial(&result, V::exp(V::broadcast(x)), 1);
  return result;
}

/// The softmax of x[begin, end) into w[begin, end), with the meaning of kernels/softmax_row.hpp: -inf entries get
/// 0, a row with nothing above -inf gets zeros; rows with +inf or NaN go to the exact kernel.
template <typename V>
inline void softmax_row(const float* x, float* w, std::size_t begin, std::size_t end) noexcept {
  if (begin >= end) return;
  const std::size_t n = end - begin;
  const float m = largest<V>(x + begin, n);
  if (m == -infinity) {
    for (std::size_t j = begin; j < end; ++j) w[j] = 0.0f;
    return;
  }
  if (m == infinity || m != m) {
    detail::softmax_row(x, w, begin, end);
    return;
  }
  const float sum = exp_shifted<V>(x + begin, w + begin, n, m);
  if (sum != sum) {
    detail::softmax_row(x, w, begin, end);
    return;
  }
  scale<V>(w + begin, n, 1.0f / sum);
}

/// Fused attention of one head: out[i][0, DV) += softmax_j(q_i . k_j / scale + mask(i, j)) v_j for every query i,
/// without the n_q x n_kv score matrix. Q is NQ x DK (row stride ldq), K NKV x DK, V NKV x DV, out NQ x DV; the
/// output must hold +0. `weights` (NQ x NKV, contiguous) receives the weights when KeepWeights. `redo_row(i)`
/// recomputes row i with the exact kernel (for NaN and +inf scores).
// Rationale: keys are taken in chunks whose transposed copy (DK x chunk floats) fits the backend's key buffer;
// each chunk is packed once, so that a score tile is a plain product (queries broadcast, keys in vectors). For each
// block of tile_rows queries the kernel scores only the keys the block's mask ranges reach (a sliding window
// costs O(r N)), takes e^(s - running max), rescales the output row when the max rises (online softmax), and adds
// P V with the product tile. At the end each row is divided by its sum. One chunk covers n_kv up to 256 at
// d_k = 64, so the common case never rescales.
template <typename V, bool KeepWeights, std::size_t DK, std::size_t DV, std::size_t NQ, std::size_t NKV>
struct attention_kernel {
  static constexpr std::size_t lanes = V::lanes;
  static constexpr std::size_t block = V::tile_rows;
  // At most 512 keys, so that the score block stays small when d_k is.
  static constexpr std::size_t chunk =
      smaller(round_up(NKV, lanes), larger(lanes, round_down(smaller(512, V::key_buffer_floats / DK), lanes)));

  const float* q;
  std::size_t ldq;
  const float* k;
  std::size_t ldk;
  const float* v;
  std::size_t ldv;
  float* out;
  std::size_t ldo;
  float* weights;
  float inv_scale;

  float packed_keys[DK * chunk];
  float query_block[block * DK];
  float scores[block * chunk];
  float row_max[NQ];
  float row_sum[NQ];
  bool special[NQ];

  // packed_keys[c][j] = k[kc + j][c] for j < len; the columns up to the next whole vector are 0.
  // Rationale: where the backend transposes a lanes x lanes block in registers, whole blocks go that way (about a
  // tenth of the cost of moving the floats one by one); the rest, and backends without `transpose`, one by one.
  void pack(std::size_t kc, std::size_t len) noexcept {
    if (len % lanes != 0) {
      for (std::size_t c = 0; c < DK; ++c) V::store(packed_keys + c * chunk + round_down(len, lanes), V::zero());
    }
    std::size_t whole_keys = 0;
    constexpr std::size_t whole_columns = round_down(DK, lanes);
    if constexpr (V::has_transpose) {
      whole_keys = round_down(len, lanes);
      typename V::reg square[lanes];
      for (std::size_t j = 0; j < whole_keys; j += lanes) {
        for (std::size_t c = 0; c < whole_columns; c += lanes) {
          for (std::size_t r = 0; r < lanes; ++r) square[r] = V::load(k + (kc + j + r) * ldk + c);
          V::transpose(square);
          for (std::size_t r = 0; r < lanes; ++r) V::store(packed_keys + (c + r) * chunk + j, square[r]);
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      const float* key = k + (kc + j) * ldk;
      const std::size_t first_column = j < whole_keys ? whole_columns : 0;
      for (std::size_t c = first_column; c < DK; ++c) packed_keys[c * chunk + j] = key[c];
    }
  }

  // scores[r][cs, ce) = (q_(r0 + r) / scale) . packed_keys[.][cs, ce) for Rows rows; ce - cs is a multiple of
  // lanes.
  // Rationale: the block's queries are copied, divided by the scale, into query_block, whose row stride is a
  // constant. The tile then broadcasts from one pointer at fixed offsets; with Q's run-time stride GCC kept the
  // eight row offsets in vector registers and moved one back for every broadcast, and the scores took a pass of
  // their own for the scale. Together: 5-9% of attention's time at (128, 128) and (256, 64) on Zen 4.
  template <std::size_t Rows>
  void score(std::size_t r0, std::size_t cs, std::size_t ce) noexcept {
    constexpr std::size_t panel = V::tile_vectors * lanes;
    const typename V::reg factor = V::broadcast(inv_scale);
    for (std::size_t r = 0; r < Rows; ++r) {
      const float* from = q + (r0 + r) * ldq;
      float* to = query_block + r * DK;
      std::size_t c = 0;
      for (; c + lanes <= DK; c += lanes) V::store(to + c, V::mul(V::load(from + c), factor));
      if (c < DK) V::store_partial(to + c, V::mul(V::load_partial(from + c, DK - c, 0.0f), factor), DK - c);
    }
    const float* a = query_block;
    std::size_t j = cs;
    for (; j + panel <= ce; j += panel) {
      product_tile<V, Rows, V::tile_vectors, 0, false>(a, DK, 1, packed_keys + j, chunk, scores + j, chunk, DK);
    }
    score_rest<Rows, V::tile_vectors - 1>(a, j, (ce - j) / lanes);
  }
  template <std::size_t Rows, std::size_t NV>
  void score_rest(const float* a, std::size_t j, std::size_t vectors) noexcept {
    if constexpr (NV > 0) {
      if (vectors == NV) {
        product_tile<V, Rows, NV, 0, false>(a, DK, 1, packed_keys + j, chunk, scores + j, chunk, DK);
      } else {
        score_rest<Rows, NV - 1>(a, j, vectors);
      }
    }
  }

  template <typename Mask>
  void run(const Mask& mask) noexcept {
    for (std::size_t i = 0; i < NQ; ++i) {
      row_max[i] = -infinity;
      row_sum[i] = 0.0f;
      special[i] = false;
    }
    if constexpr (KeepWeights) {
      for (std::size_t e = 0; e < NQ * NKV; ++e) weights[e] = -infinity;
    }
    for (std::size_t kc = 0; kc < NKV; kc += chunk) {
      const std::size_t len = smaller(chunk, NKV - kc);
      pack(kc, len);
      if constexpr (NQ >= block) {
        for (std::size_t r0 = 0; r0 + block <= NQ; r0 += block) run_block<block>(mask, r0, kc, len);
      }
      if constexpr (NQ % block != 0) run_block<NQ % block>(mask, NQ - NQ % block, kc, len);
    }
    if constexpr (KeepWeights) {
      for (std::size_t i = 0; i < NQ; ++i) softmax_row<V>(weights + i * NKV, weights + i * NKV, 0, NKV);
      product<V, NQ, DV, true>(weights, NKV, 1, v, ldv, out, ldo, NKV);
    }
  }

  template <std::size_t Rows, typename Mask>
  void run_block(const Mask& mask, std::size_t r0, std::size_t kc, std::size_t len) noexcept {
    // The keys of this chunk that any query of the block may see.
    std::size_t lo = kc + len;
    std::size_t hi = kc;
    for (std::size_t r = 0; r < Rows; ++r) {
      const auto range = mask.keys(r0 + r, NQ, NKV);
      if (range.begin >= range.end) continue;
      lo = smaller(lo, larger(range.begin, kc));
      hi = larger(hi, smaller(range.end, kc + len));
    }
    if (lo >= hi) return;
    const std::size_t cs = round_down(lo - kc, lanes);
    const std::size_t ce = round_up(hi - kc, lanes);
    score<Rows>(r0, cs, ce);
    // Rationale: each step runs over the block's rows before the next step starts, so that the rows' independent
    // chains of reductions and exps overlap in the core instead of waiting for one another.
    float chunk_max[Rows];
    for (std::size_t r = 0; r < Rows; ++r) {
      chunk_max[r] = mask_scores(mask, r0 + r, scores + r * chunk, kc, cs, ce, len);
    }
    if constexpr (!KeepWeights) {
      float sums[Rows];
      float new_max[Rows];
      for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t i = r0 + r;
        new_max[r] = chunk_max[r] > row_max[i] ? chunk_max[r] : row_max[i];
        // A +inf or NaN score makes the sum NaN: the row is then the exact kernel's (finish). A row that sees no
        // key of this chunk (max -inf) gets weights 0.
        sums[r] = chunk_max[r] == -infinity ? 0.0f : std::numeric_limits<float>::quiet_NaN();
        if (chunk_max[r] != -infinity && new_max[r] != infinity && chunk_max[r] == chunk_max[r]) {
          sums[r] = exp_shifted<V>(scores + r * chunk + cs, scores + r * chunk + cs, ce - cs, new_max[r]);
        }
      }
      for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t i = r0 + r;
        float* row = scores + r * chunk;
        if (chunk_max[r] == -infinity || sums[r] != sums[r]) {
          if (sums[r] != sums[r]) special[i] = true;
          for (std::size_t j = cs; j < ce; ++j) row[j] = 0.0f;
          continue;
        }
        if (new_max[r] > row_max[i] && row_max[i] != -infinity) {
          const float alpha = exp_one<V>(row_max[i] - new_max[r]);
          scale<V>(out + i * ldo, DV, alpha);
          row_sum[i] *= alpha;
        }
        row_max[i] = new_max[r];
        row_sum[i] += sums[r];
      }
      product<V, Rows, DV, true>(scores + cs, chunk, 1, v + (kc + cs) * ldv, ldv, out + r0 * ldo, ldo,
                                 smaller(ce, len) - cs);
    }
  }

  // Row i's scores in [cs, ce), already divided by the scale (score): masked (-inf where the row does not look);
  // with KeepWeights also copied into the weights. Returns their largest, -inf for a row that sees no key here or
  // was handed to the exact kernel.
  template <typename Mask>
  float mask_scores(const Mask& mask, std::size_t i, float* row, std::size_t kc, std::size_t cs, std::size_t ce,
                    std::size_t len) noexcept {
    const auto range = mask.keys(i, NQ, NKV);
    const std::size_t begin = larger(range.begin, kc + cs) - kc;
    const std::size_t end = range.end > kc ? smaller(range.end - kc, smaller(ce, len)) : 0;
    if (begin >= end || special[i]) return -infinity;
    for (std::size_t j = cs; j < begin; ++j) row[j] = -infinity;
    for (std::size_t j = end; j < ce; ++j) row[j] = -infinity;
    if constexpr (Mask::checks_each_key || Mask::adds_bias) {
      for (std::size_t j = begin; j < end; ++j) {
        if constexpr (Mask::checks_each_key) {
          if (!mask.allowed(i, kc + j)) {
            row[j] = -infinity;
            continue;
          }
        }
        if constexpr (Mask::adds_bias) row[j] += mask.template bias<float>(i, kc + j);
      }
    }
    if constexpr (KeepWeights) {
      for (std::size_t j = begin; j < end; ++j) weights[i * NKV + kc + j] = row[j];
      return -infinity;
    } else {
      return largest<V>(row + cs, ce - cs);
    }
  }

  template <typename RedoRow>
  void finish(const RedoRow& redo_row) noexcept {
    if constexpr (!KeepWeights) {
      for (std::size_t i = 0; i < NQ; ++i) {
        if (special[i]) {
          redo_row(i);
        } else if (row_sum[i] > 0.0f) {
          scale<V>(out + i * ldo, DV, 1.0f / row_sum[i]);
        }
      }
    } else {
      (void)redo_row;
    }
  }
};

template <typename V, bool KeepWeights, std::size_t DK, std::size_t DV, std::size_t NQ, std::size_t NKV, typename Mask,
          typename RedoRow>
inline void attend(const float* q, std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                   const Mask& mask, float* out, std::size_t ldo, float* weights, float scale,
                   const RedoRow& redo_row) noexcept {
  attention_kernel<V, KeepWeights, DK, DV, NQ, NKV> kernel;
  kernel.q = q;
  kernel.ldq = ldq;
  kernel.k = k;
  kernel.ldk = ldk;
  kernel.v = v;
  kernel.ldv = ldv;
  kernel.out = out;
  kernel.ldo = ldo;
  kernel.weights = weights;
  kernel.inv_scale = 1.0f / scale;
  kernel.run(mask);
  kernel.finish(redo_row);
}

/// |x| as max(x, -x).
template <typename V>
inline typename V::reg magnitude(typename V::reg x) noexcept {
  return V::max(x, V::mul(x, V::broadcast(-1.0f)));
}

// GELU's erfc: erfc(z) = t e^(-z^2 + P(t)) with t = 1 / (1 + z / 2), for z >= 0. P is a degree-9 polynomial fitted
// by least squares in Chebyshev nodes of t in (0, 1] (z from 0 to infinity) to log(erfc(z) / t) + z^2; in exact
// arithmetic it puts GELU within 1.2e-8 (1 + |GELU|) of its true value for every x.
inline constexpr float gelu_erfc_coefficients[10] = {-1.2655117751f,  1.0000286917f,  0.37384115855f, 0.099322040125f,
                                                     -0.19842694442f, 0.31139802182f, -1.1867860905f, 1.5365931263f,
                                                     -0.84650490120f, 0.17604675225f};

/// The activation F of a register of floats, fast (kernels/activation.hpp gives the exact meaning; finite x only):
///   relu       max(x, 0)
///   gelu       max(x, 0) - a h(a) with a = min(|x|, 16) and h(a) = erfc(a / sqrt 2) / 2 (x Phi(x) for either sign;
///              beyond 16, h is below 1e-57 and GELU is max(x, 0))
///   gelu_tanh  x / (1 + e^(-2 u)), u = sqrt(2/pi) (x + 0.044715 x^3) (as (1 + tanh u) / 2 = 1 / (1 + e^(-2 u)))
///   silu       x / (1 + e^-x)
template <typename V, kernels::activation F>
inline typename V::reg activate(typename V::reg x) noexcept {
  using reg = typename V::reg;
  const reg one = V::broadcast(1.0f);
  if constexpr (F == kernels::activation::relu) {
    return V::max(x, V::zero());
  } else if constexpr (F == kernels::activation::gelu) {
    const reg minus_a = V::max(V::mul(magnitude<V>(x), V::broadcast(-1.0f)), V::broadcast(-16.0f));
    const reg z = V::mul(minus_a, V::broadcast(-0.70710678118654752f));
    const reg t = V::div(one, V::fma(z, V::broadcast(0.5f), one));
    reg p = V::broadcast(gelu_erfc_coefficients[9]);
    for (std::size_t k = 9; k-- > 0;) p = V::fma(p, t, V::broadcast(gelu_erfc_coefficients[k]));
    const reg minus_z_squared = V::mul(V::mul(z, z), V::broadcast(-1.0f));
    const reg h = V::mul(V::mul(V::broadcast(0.5f), t), V::exp(V::add(minus_z_squared, p)));
    return V::fma(minus_a, h, V::max(x, V::zero()));
  } else if constexpr (F == kernels::activation::gelu_tanh) {
    const reg x_squared = V::mul(x, x);
    const reg cubic = V::mul(x_squared, V::broadcast(0.044715f));
    const reg u = V::mul(V::broadcast(0.79788456080286535588f), V::fma(cubic, x, x));
    return V::div(x, V::add(one, V::exp(V::mul(u, V::broadcast(-2.0f)))));
  } else {
    return V::div(x, V::add(one, V::exp(V::mul(x, V::broadcast(-1.0f)))));
  }
}

/// y[0, n) = the activation F of x[0, n), fast. False, with nothing kept, when an x is infinite or NaN: the
/// caller then computes the exact activation, which gives those their meaning.
template <typename V, kernels::activation F>
inline bool activate_all(const float* x, float* y, std::size_t n) noexcept {
  // x * 0 is NaN exactly for infinite and NaN x; their sum finds one.
  typename V::reg finite = V::zero();
  const typename V::reg zero = V::zero();
  std::size_t j = 0;
  for (; j + V::lanes <= n; j += V::lanes) {
    const typename V::reg v = V::load(x + j);
    finite = V::fma(v, zero, finite);
    V::store(y + j, activate<V, F>(v));
  }
  if (j < n) {
    const typename V::reg v = V::load_partial(x + j, n - j, 0.0f);
    finite = V::fma(v, zero, finite);
    V::store_partial(y + j, activate<V, F>(v), n - j);
  }
  return V::reduce_add(finite) == 0.0f;
}

/// The sum of x[0, n) + c: across lanes, the last n % lanes entries one by one.
template <typename V>
inline float shifted_sum(const float* x, std::size_t n, float c) noexcept {
  const typename V::reg shift = V::broadcast(c);
  typename V::reg sum = V::zero();
  // Rationale: the vector loop runs to n less its remainder, a bound of its own: with `j + lanes <= n`, GCC 12 for
  // AArch64 inlined into a row of known width warned of undefined behaviour in the tail loop that never runs.
  const std::size_t body = n - n % V::lanes;
  std::size_t j = 0;
  for (; j < body; j += V::lanes) sum = V::add(sum, V::add(V::load(x + j), shift));
  float total = V::reduce_add(sum);
  for (; j < n; ++j) total += x[j] + c;
  return total;
}

/// The sum of ((x[0, n) + c) + d)^2 (two shifts, each rounded: the offsets of LayerNorm, then their deviations).
template <typename V>
inline float shifted_squares(const float* x, std::size_t n, float c, float d) noexcept {
  const typename V::reg first = V::broadcast(c);
  const typename V::reg second = V::broadcast(d);
  typename V::reg sum = V::zero();
  const std::size_t body = n - n % V::lanes;  // as in shifted_sum
  std::size_t j = 0;
  for (; j < body; j += V::lanes) {
    const typename V::reg v = V::add(V::add(V::load(x + j), first), second);
    sum = V::fma(v, v, sum);
  }
  float total = V::reduce_add(sum);
  for (; j < n; ++j) {
    const float v = (x[j] + c) + d;
    total += v * v;
  }
  return total;
}

/// y[0, n) = ((x + c) + d) s (* weight) (+ bias).
template <typename V, bool Affine, bool Bias>
inline void shift_scale(const float* x, float* y, std::size_t n, float c, float d, float s, const float* weight,
                        const float* bias) noexcept {
  using reg = typename V::reg;
  const reg first = V::broadcast(c);
  const reg second = V::broadcast(d);
  const reg scale = V::broadcast(s);
  const std::size_t body = n - n % V::lanes;  // as in shifted_sum
  std::size_t j = 0;
  for (; j < body; j += V::lanes) {
    reg v = V::mul(V::add(V::add(V::load(x + j), first), second), scale);
    if constexpr (Affine) v = V::mul(v, V::load(weight + j));
    if constexpr (Bias) v = V::add(v, V::load(bias + j));
    V::store(y + j, v);
  }
  for (; j < n; ++j) {
    float v = ((x[j] + c) + d) * s;
    if constexpr (Affine) v = v * weight[j];
    if constexpr (Bias) v = v + bias[j];
    y[j] = v;
  }
}

/// One row of LayerNorm (kernels::layer_norm_row's steps: offsets from the first entry, their mean, the mean of
/// squared deviations, one scale per row), fast: sums across lanes, fused multiply-adds. False, with y
/// unspecified, when a sum is not finite (an infinite or NaN entry, or an overflow): the caller then computes the
/// exact row, which gives those their meaning.
template <typename V, bool Affine, bool Bias>
inline bool layer_norm_row(const float* x, float* y, std::size_t n, const float* weight, const float* bias,
                           float eps) noexcept {
  const float shift = x[0];
  const float mean = shifted_sum<V>(x, n, -shift) / static_cast<float>(n);
  const float squares = shifted_squares<V>(x, n, -shift, -mean);
  if (!(squares - squares == 0.0f)) return false;
  const float scale = 1.0f / math::sqrt(squares / static_cast<float>(n) + eps);
  shift_scale<V, Affine, Bias>(x, y, n, -shift, -mean, scale, weight, bias);
  return true;
}

/// One row of RMSNorm, fast; false when the sum of squares is not finite (as layer_norm_row).
template <typename V, bool Affine>
inline bool rms_norm_row(const float* x, float* y, std::size_t n, const float* weight, float eps) noexcept {
  const float squares = shifted_squares<V>(x, n, 0.0f, 0.0f);
  if (!(squares - squares == 0.0f)) return false;
  const float scale = 1.0f / math::sqrt(squares / static_cast<float>(n) + eps);
  shift_scale<V, Affine, false>(x, y, n, 0.0f, 0.0f, scale, weight, weight);
  return true;
}

}  // namespace ctattn::detail::simd

#endif  // CTATTN_KERNELS_DETAIL_SIMD_HPP
// ---------------------------------------- ctattn/kernels/dispatch.hpp (continued)

namespace ctattn::detail::kernels {

/// c = a b.
template <arithmetic A = default_arithmetic, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product(T (&c)[M][N], const T (&a)[M][K], const T (&b)[K][N]) noexcept {
  if (std::is_constant_evaluated()) {
    unrolled_product(c, a, b);
  } else if constexpr (runs_simd<A, T>) {
    simd::product<simd_ops, M, N, false>(&a[0][0], K, 1, &b[0][0], N, &c[0][0], N, K);
  } else {
    scalar::product(c, a, b);
  }
}

/// c = a b^T, b given as N rows of K.
template <arithmetic A = default_arithmetic, typename T, std::size_t M, std::size_t K, std::size_t N>
constexpr void product_transposed(T (&c)[M][N], const T (&a)[M][K], const T (&b)[N][K]) noexcept {
  if (std::is_constant_evaluated()) {
    unrolled_product_transposed(c, a, b);
  } else if constexpr (runs_simd<A, T>) {
    simd::product_transposed<simd_ops, M, N, K>(&a[0][0], K, &b[0][0], K, &c[0][0], N);
  } else {
    scalar::product_transposed(c, a, b);
  }
}

/// c = a^T b, a given as K rows of M; with Accumulate, c += a^T b.
template <arithmetic A = default_arithmetic, bool Accumulate = false, typename T, std::size_t M, std::size_t K,
          std::size_t N>
constexpr void product_left_transposed(T (&c)[M][N], const T (&a)[K][M], const T (&b)[K][N]) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated()) {
      simd::product<simd_ops, M, N, Accumulate>(&a[0][0], 1, M, &b[0][0], N, &c[0][0], N, K);
      return;
    }
  }
  scalar::product_left_transposed<Accumulate>(c, a, b);
}

/// weights[begin, end) = the softmax of values[begin, end) (kernels/softmax_row.hpp gives its meaning).
template <arithmetic A = default_arithmetic, typename T>
constexpr void softmax_row(const T* values, T* weights, std::size_t begin, std::size_t end) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated()) {
      simd::softmax_row<simd_ops>(values, weights, begin, end);
      return;
    }
  }
  detail::softmax_row(values, weights, begin, end);
}

/// Attention of one head (kernels/scalar.hpp's `attend` gives the contract): out's columns
/// [output_offset, output_offset + DV) must hold +0 and receive softmax(Q K^T / scale + mask) V.
template <arithmetic A, bool KeepWeights, std::size_t DK, std::size_t DV, typename Q, typename K, typename V,
          typename Out, typename Weights, typename Mask>
constexpr void attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out, Weights* weights,
                      const head_columns& columns, typename Q::value_type scale) noexcept {
  if (std::is_constant_evaluated()) {
    constant::attend<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  } else if constexpr (runs_simd<A, typename Q::value_type>) {
    float* weight_storage = nullptr;
    if constexpr (KeepWeights) weight_storage = &weights->elements[0][0];
    // A row whose scores hold NaN or +inf is recomputed by the exact kernel, which gives those their meaning.
    // Rationale: no short names inside the lambda: GCC's -Wshadow reports a lambda's declarations against user
    // globals of the same name (tests/static/user_names_test.cpp declares c, i, j, ...).
    const auto redo_row = [&](std::size_t row) {
      for (std::size_t column = 0; column < DV; ++column) out.elements[row][columns.output_offset + column] = 0.0f;
      scalar::attend<false, DK, DV>(q, k, v, mask, out, weights, columns, scale, row, row + 1);
    };
    simd::attend<simd_ops, KeepWeights, DK, DV, Q::rows, K::rows>(
        &q.elements[0][0] + columns.query_offset, Q::cols, &k.elements[0][0] + columns.key_offset, K::cols,
        &v.elements[0][0] + columns.value_offset, V::cols, mask, &out.elements[0][0] + columns.output_offset, Out::cols,
        weight_storage, scale, redo_row);
  } else {
    scalar::attend<KeepWeights, DK, DV>(q, k, v, mask, out, weights, columns, scale);
  }
}

/// y = the activation F of x, element by element (kernels/activation.hpp). Fast arithmetic hands a block holding an
/// infinite or NaN entry to the exact loop.
template <arithmetic A, activation F, typename T, std::size_t R, std::size_t C>
constexpr void activate(const T (&x)[R][C], T (&y)[R][C]) noexcept {
  if constexpr (runs_simd<A, T>) {
    if (!std::is_constant_evaluated() && simd::activate_all<simd_ops, F>(&x[0][0], &y[0][0], R * C)) return;
  }
  for (std::size_t i = 0; i < R; ++i) activate_all<F>(x[i], y[i], C);
}

/// Each row of x layer-normalized into y (kernels/activation.hpp): times `weight` when `Affine`, plus `bias` when
/// `Bias` (1 x C each; unused otherwise). Fast arithmetic hands a row whose sums are not finite to the exact loop.
template <arithmetic A, bool Affine, bool Bias, typename T, std::size_t R, std::size_t C>
constexpr void layer_norm_rows(const T (&x)[R][C], T (&y)[R][C], const T* weight, const T* bias, T eps) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    if constexpr (runs_simd<A, T>) {
      if (!std::is_constant_evaluated()) {
        if (simd::layer_norm_row<simd_ops, Affine, Bias>(x[i], y[i], C, weight, bias, eps)) continue;
      }
    }
    layer_norm_row<Affine, Bias>(x[i], y[i], weight, bias, eps);
  }
}

/// Each row of x RMS-normalized into y, times `weight` when `Affine`; as `layer_norm_rows`.
template <arithmetic A, bool Affine, typename T, std::size_t R, std::size_t C>
constexpr void rms_norm_rows(const T (&x)[R][C], T (&y)[R][C], const T* weight, T eps) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    if constexpr (runs_simd<A, T>) {
      if (!std::is_constant_evaluated() && simd::rms_norm_row<simd_ops, Affine>(x[i], y[i], C, weight, eps)) continue;
    }
    rms_norm_row<Affine>(x[i], y[i], weight, eps);
  }
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DISPATCH_HPP
// ---------------------------------------- ctattn/matrix/multiply.hpp (continued)

namespace ctattn {

/// Whether `A * B` is a valid product: same element type, and A's columns match B's rows (equal sizes, and
/// equal names when both are named). The rules are `detail::multiply_rules` (ctattn/matrix/rules.hpp).
///
/// Example:
/// \code
///   static_assert(ctattn::Multipliable<ctattn::matrix<float, 6, 16>, ctattn::matrix<float, 16, 24>>);
///   static_assert(!ctattn::Multipliable<ctattn::matrix<float, 6, d_k{64}>, ctattn::matrix<float, d_v{64}, 6>>);
/// \endcode
template <typename A, typename B>
concept Multipliable = FixedMatrix<A> && FixedMatrix<B> &&
                       rules_hold<detail::multiply_rules<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>;

/// The matrix product `a b`.
///
/// | operand | shape    |
/// |---------|----------|
/// | `a`     | M x K    |
/// | `b`     | K' x N   |
/// | result  | M x N    |
///
/// Rules: both hold the same element type (`element_types_must_match`), and K and K' match
/// (`inner_dimensions_must_match`: equal sizes; equal names when both are named, so `d_k{64}` never meets
/// `d_v{64}`). The result keeps a's row extent and b's column extent.
///
/// Each result element is summed in the order k = 0, 1, ..., K-1, starting from +0, with exact arithmetic (in
/// constant evaluation, and at run time with `CTATTN_EXACT_ARITHMETIC=1`); fast arithmetic on float runs the SIMD
/// backend's product (ctattn/kernels/backend.hpp).
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 2> a{{{1, 2}, {3, 4}}};
///   static_assert(ctattn::multiply(a, a)(1, 1) == 22.0f);   // also a * a
/// \endcode
template <typename T, auto M, auto K, typename U, auto K2, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> multiply(const basic_matrix<T, M, K>& a,
                                                       const basic_matrix<U, K2, N>& b) noexcept {
  using A = basic_matrix<T, M, K>;
  using B = basic_matrix<U, K2, N>;
  basic_matrix<T, M, N> result{};
  if constexpr (detail::first_broken<detail::multiply_rules<A, B>>::check()) {
    detail::kernels::product(result.elements, a.elements, b.elements);
  }
  return result;
}

/// `a * b` is `multiply(a, b)`.
template <FixedMatrix A, FixedMatrix B>
[[nodiscard]] constexpr auto operator*(const A& a, const B& b) noexcept {
  return multiply(a, b);
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_MULTIPLY_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/reduce.hpp
#ifndef CTATTN_MATRIX_REDUCE_HPP
#define CTATTN_MATRIX_REDUCE_HPP



namespace ctattn {

namespace detail {
// Named function objects, not lambdas: see the rationale in ctattn/matrix/elementwise.hpp.
struct larger_skipping_nan {
  template <typename T>
  constexpr T operator()(T largest, T element) const noexcept {
    return (element > largest || largest != largest) ? element : largest;
  }
};
struct running_sum {
  template <typename T>
  constexpr T operator()(T total, T element) const noexcept {
    return total + element;
  }
};
}  // namespace detail

/// Folds each row from left to right: `reduce_rows(a, init, f)(i, 0) == f(...f(f(init, a(i,0)), a(i,1))..., a(i,N-1))`.
///
/// | operand | shape  |
/// |---------|--------|
/// | `a`     | M x N  |
/// | result  | M x 1  |
///
/// Example:
/// \code
///   auto sums = ctattn::reduce_rows(a, 0.0f, [](float acc, float x) { return acc + x; });
/// \endcode
template <typename T, auto M, auto N, typename F>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> reduce_rows(const basic_matrix<T, M, N>& a, T init,
                                                                       F f) noexcept {
  basic_matrix<T, M, std::size_t{1}> result{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    T acc = init;
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) acc = f(acc, a.elements[i][j]);
    result.elements[i][0] = acc;
  }
  return result;
}

/// The largest element of each row (M x 1). A NaN element is skipped unless the whole row is NaN.
/// Example: `static_assert(ctattn::row_max(a)(0, 0) == 3.0f);`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> row_max(const basic_matrix<T, M, N>& a) noexcept {
  return reduce_rows(a, a.elements[0][0], detail::larger_skipping_nan{});
}

/// The sum of each row (M x 1), added from left to right starting at +0.
/// Example: `static_assert(ctattn::row_sum(a)(1, 0) == 15.0f);`
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> row_sum(const basic_matrix<T, M, N>& a) noexcept {
  return reduce_rows(a, T{0}, detail::running_sum{});
}

/// The sum of all elements, row by row, left to right, starting at +0.
template <typename T, auto M, auto N>
[[nodiscard]] constexpr T sum(const basic_matrix<T, M, N>& a) noexcept {
  T acc{0};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) acc += a.elements[i][j];
  }
  return acc;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_REDUCE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/row.hpp
#ifndef CTATTN_MATRIX_ROW_HPP
#define CTATTN_MATRIX_ROW_HPP



namespace ctattn {

/// Row `I` as a 1 x N matrix, the index checked at compile time.
///
/// | operand | shape |
/// |---------|-------|
/// | `a`     | M x N |
/// | result  | 1 x N |
///
/// Rule: I < M.
///
/// Example:
/// \code
///   constexpr auto second_query = ctattn::row<1>(queries);
/// \endcode
template <std::size_t I, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, std::size_t{1}, N> row(const basic_matrix<T, M, N>& a) noexcept {
  basic_matrix<T, std::size_t{1}, N> result{};
  if constexpr (shape_error::index_must_be_inside_dimension<op::row, count<I>, dim_of<M>>::check()) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) result.elements[0][j] = a.elements[I][j];
  }
  return result;
}

/// Row `i` as a 1 x N matrix, the index known only at run time. Precondition: i < M (a compile error in
/// constant evaluation; a trap at run time when CTATTN_CHECK_PRECONDITIONS is on).
///
/// Example:
/// \code
///   for (std::size_t i = 0; i < 6; ++i) use(ctattn::row(queries, i));
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, std::size_t{1}, N> row(const basic_matrix<T, M, N>& a, std::size_t i) noexcept {
  detail::expects(i < basic_matrix<T, M, N>::rows);
  basic_matrix<T, std::size_t{1}, N> result{};
  for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) result.elements[0][j] = a.elements[i][j];
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_ROW_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/transpose.hpp
#ifndef CTATTN_MATRIX_TRANSPOSE_HPP
#define CTATTN_MATRIX_TRANSPOSE_HPP



namespace ctattn {

/// The transpose: rows become columns, and the extents (with their names) swap places.
///
/// | operand | shape  |
/// |---------|--------|
/// | `a`     | M x N  |
/// | result  | N x M  |
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}};
///   static_assert(ctattn::transpose(a)(2, 1) == 6.0f);
///   // keys: seq_kv x d_k  ->  transpose(keys): d_k x seq_kv, so queries * transpose(keys) is seq_q x seq_kv
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, M> transpose(const basic_matrix<T, M, N>& a) noexcept {
  basic_matrix<T, N, M> result{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    for (std::size_t j = 0; j < basic_matrix<T, M, N>::cols; ++j) {
      result.elements[j][i] = a.elements[i][j];
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_TRANSPOSE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/matrix/with_extents.hpp
#ifndef CTATTN_MATRIX_WITH_EXTENTS_HPP
#define CTATTN_MATRIX_WITH_EXTENTS_HPP



namespace ctattn {

/// The same values under other extents of the same sizes: names a plain axis, renames one, or drops a name.
/// This is the one explicit way to say "these two axes are the same"; nothing else converts between names.
///
/// | operand | shape     |
/// |---------|-----------|
/// | `a`     | M x N     |
/// | result  | Rows x Cols, with size(Rows) = M and size(Cols) = N |
///
/// Rule: the sizes are kept.
///
/// Example:
/// \code
///   auto x = ctattn::with_extents<seq{6}, d_model{16}>(plain_6_by_16);
/// \endcode
template <auto Rows, auto Cols, typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, normalize_extent<Rows>, normalize_extent<Cols>> with_extents(
    const basic_matrix<T, M, N>& a) noexcept {
  constexpr auto rows = normalize_extent<Rows>;
  constexpr auto cols = normalize_extent<Cols>;
  using rules =
      rule_list<shape_error::relabelled_dimension_must_keep_its_size<op::with_extents, dim_of<M>, dim_of<rows>>,
                shape_error::relabelled_dimension_must_keep_its_size<op::with_extents, dim_of<N>, dim_of<cols>>>;
  basic_matrix<T, rows, cols> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t i = 0; i < extent_size(M); ++i) {
      for (std::size_t j = 0; j < extent_size(N); ++j) result.elements[i][j] = a.elements[i][j];
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_MATRIX_WITH_EXTENTS_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Constexpr math: the same bits in constant evaluation and at run time.
// ---------------------------------------- ctattn/math/fixed_point.hpp
#ifndef CTATTN_MATH_FIXED_POINT_HPP
#define CTATTN_MATH_FIXED_POINT_HPP

/// \file
/// The fixed-point arithmetic of int8 inference, as TensorFlow Lite and CMSIS-NN define it, in constant
/// expressions and at run time with the same bits (integers only: no rounding mode, no FPU):
///
/// | function                                      | computes                                                  |
/// |-----------------------------------------------|-----------------------------------------------------------|
/// | `quantize_multiplier(m)`                      | a real m > 0 as `multiplier` x 2^(shift - 31), multiplier in [2^30, 2^31) |
/// | `saturating_rounding_doubling_high_mul(a, b)` | round(a b / 2^31), ties upward; (-2^31)^2 saturates to 2^31 - 1 |
/// | `rounding_divide_by_power_of_two(x, e)`       | round(x / 2^e), ties away from zero, for e in [0, 31]     |
/// | `multiply_by_quantized_multiplier(x, m)`      | x times the real multiplier m, rounded by the two above   |
/// | `multiply_by_reduced_multiplier(x, m)`        | an int64 x times m reduced to 16 bits, rounded half up (TFLite's 16x8 kernels) |
/// | `exp_on_negative_values<I>(a)`                | e^a for a <= 0 in Q(I).(31 - I), the result in Q0.31 (gemmlowp's) |
/// | `one_over_one_plus_x(a)`                      | 1 / (1 + a) for a in [0, 1) in Q0.31, the result in Q0.31 |
/// | `reciprocal_of_sum(sum, I)`                   | TFLite's GetReciprocal: 1 / sum for a positive Q(I).(31 - I) sum |
///
/// The last three are the arithmetic of TFLite's int8 softmax (its reference kernel and CMSIS-NN's
/// `arm_softmax_s8`): gemmlowp's fixed-point polynomial for e^a on [-1/4, 0), its barrel of constants e^(-2^k) for
/// the rest, and three Newton steps for the reciprocal. Each product is `saturating_rounding_doubling_high_mul`, each
/// halving `rounding_divide_by_power_of_two`, each sum a plain int32 addition, as gemmlowp computes them.
///
/// A requantization (an int32 accumulator to the next int8 tensor's scale) is
/// `multiply_by_quantized_multiplier(accumulator, quantize_multiplier(s_in * s_weight / s_out)) + zero_point_out`,
/// clamped to [-128, 127]: the figures of tests/fixtures/math/fixed_point.hpp, generated by
/// tests/fixtures/math/generate_fixed_point_reference.py with Python's integers, hold it to TFLite's definition.
///
/// Example:
/// \code
///   constexpr auto m = ctattn::math::quantize_multiplier(0.25);         // {1 << 30, -1}
///   static_assert(ctattn::math::multiply_by_quantized_multiplier(1000, m) == 250);
/// \endcode



namespace ctattn::math {

/// A real multiplier in fixed point: `multiplier` x 2^(shift - 31). A zero multiplier is {0, 0}.
struct quantized_multiplier {
  std::int32_t multiplier = 0;
  int shift = 0;
  friend constexpr bool operator==(const quantized_multiplier&, const quantized_multiplier&) = default;
};

/// `real` (finite, >= 0) as `quantized_multiplier`: its mantissa in [0.5, 1) rounded to 31 fractional bits (ties
/// away from zero; a mantissa that rounds up to 1 becomes 0.5 with the shift one higher), its binary exponent as
/// the shift. Multipliers below 2^-32 become {0, 0}, as in TFLite; NaN, infinities and negative reals give {0, 0}.
///
/// Example: `static_assert(ctattn::math::quantize_multiplier(0.75) == ctattn::math::quantized_multiplier{3 << 29, 0});`
constexpr quantized_multiplier quantize_multiplier(double real) noexcept {
  if (!(real > 0.0) || real > std::numeric_limits<double>::max()) return {};
  std::uint64_t bits = std::bit_cast<std::uint64_t>(real);
  int exponent = static_cast<int>((bits >> 52) & 0x7FF);
  int adjust = 0;
  if (exponent == 0) {  // subnormal: scale into the normal range first (exactly)
    bits = std::bit_cast<std::uint64_t>(real * 0x1p54);
    exponent = static_cast<int>((bits >> 52) & 0x7FF);
    adjust = -54;
  }
  // The mantissa with 53 bits, 1.f x 2^52: the real is mantissa x 2^(exponent - 1075), and its frexp fraction
  // q = mantissa / 2^53 lies in [0.5, 1) with binary exponent exponent - 1022.
  const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  int shift = exponent - 1022 + adjust;
  // round(q x 2^31) = round(mantissa / 2^22), ties away from zero.
  std::uint64_t fixed = (mantissa + (std::uint64_t{1} << 21)) >> 22;
  if (fixed == (std::uint64_t{1} << 31)) {
    fixed >>= 1;
    ++shift;
  }
  if (shift < -31) return {};
  return {static_cast<std::int32_t>(fixed), shift};
}

/// round(a b / 2^31) with ties upward (toward +infinity), the high half of the doubled product: gemmlowp's and
/// TFLite's SaturatingRoundingDoublingHighMul. The one product that overflows, (-2^31)(-2^31), gives 2^31 - 1.
///
/// Example: `static_assert(ctattn::math::saturating_rounding_doubling_high_mul(1 << 30, 1 << 30) == 1 << 29);`
CTATTN_ALWAYS_INLINE constexpr std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a,
                                                                                  std::int32_t b) noexcept {
  constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
  if (a == lowest && b == lowest) return std::numeric_limits<std::int32_t>::max();
  const std::int64_t product = std::int64_t{a} * std::int64_t{b};
  // TFLite writes it (product + nudge) / 2^31, truncating toward zero, with nudge 2^30 for product >= 0 and
  // 1 - 2^30 below; for product < 0 that truncation is a ceiling, ceil((p + 1 - 2^30) / 2^31) =
  // floor((p + 2^30) / 2^31), so both cases are floor((p + 2^30) / 2^31): rounding to nearest with ties upward
  // (3.5 -> 4, -3.5 -> -3). Rationale: the shift form has no branch and no 64-bit division, a few instructions on a
  // 32-bit core (C++20 defines >> of a negative value as the floor).
  return static_cast<std::int32_t>((product + (std::int64_t{1} << 30)) >> 31);
}

/// round(x / 2^exponent) with ties away from zero, exponent in [0, 31]: gemmlowp's RoundingDivideByPOT.
///
/// Example: `static_assert(ctattn::math::rounding_divide_by_power_of_two(-6, 2) == -2);   // -1.5 -> -2`
CTATTN_ALWAYS_INLINE constexpr std::int32_t rounding_divide_by_power_of_two(std::int32_t x, int exponent) noexcept {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  // Rationale: an arithmetic right shift of a negative value, as C++20 defines it (floor division by 2^exponent).
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// x times the real multiplier m (`quantize_multiplier`): a left shift for a positive shift (saturating in the
/// high multiply), the high multiply, then a rounding right shift; TFLite's MultiplyByQuantizedMultiplier.
///
/// Example: `static_assert(ctattn::math::multiply_by_quantized_multiplier(-7, ctattn::math::quantize_multiplier(0.5)) == -3);`
CTATTN_ALWAYS_INLINE constexpr std::int32_t multiply_by_quantized_multiplier(std::int32_t x,
                                                                             quantized_multiplier m) noexcept {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  // x 2^left wraps to int32 when it does not fit (only for multipliers >= 1 and large x; TFLite's int32 product
  // leaves that overflow undefined). Requantization multipliers are below 1 and never shift left.
  const auto scaled = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left);
  return rounding_divide_by_power_of_two(saturating_rounding_doubling_high_mul(scaled, m.multiplier), right);
}

/// An int64 x (a 16x8 kernel's accumulator) times the real multiplier m, as TFLite's MultiplyByQuantizedMultiplier
/// computes it for an int64 x (CMSIS-NN's `arm_nn_requantize_s64` alike): m's multiplier reduced to 16 bits,
/// r = min(round(multiplier / 2^16), 2^15 - 1) (half up; 2^15 - 1 from 0x7FFF0000 on), then
/// floor((x r + 2^(14 - shift)) / 2^(15 - shift)): rounded half up, once. For |x| < 2^47 and shift in [-31, 7], TFLite's
/// domain, x r fits in int64. The result is not narrowed: TFLite's cast to int32 would wrap a result beyond it, where
/// the 16x8 kernels saturate this one to int16.
///
/// Example: `static_assert(ctattn::math::multiply_by_reduced_multiplier(1000, ctattn::math::quantize_multiplier(0.25)) == 250);`
CTATTN_ALWAYS_INLINE constexpr std::int64_t multiply_by_reduced_multiplier(std::int64_t x,
                                                                           quantized_multiplier m) noexcept {
  const std::int64_t reduced = m.multiplier < 0x7FFF0000 ? (std::int64_t{m.multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const int total = 15 - m.shift;
  // Rationale: an arithmetic right shift of a negative product, as C++20 defines it (the floor).
  return (x * reduced + (std::int64_t{1} << (total - 1))) >> total;
}

/// x 2^exponent for a Q-format raw value: for exponent > 0 a left shift saturated to the int32 range, else
/// `rounding_divide_by_power_of_two(x, -exponent)`: gemmlowp's SaturatingRoundingMultiplyByPOT, which its `Rescale`
/// from one number of integer bits to another uses.
///
/// Example: `static_assert(ctattn::math::saturating_rounding_multiply_by_power_of_two(1 << 30, 2) == 0x7FFFFFFF);`
CTATTN_ALWAYS_INLINE constexpr std::int32_t saturating_rounding_multiply_by_power_of_two(std::int32_t x,
                                                                                         int exponent) noexcept {
  if (exponent <= 0) return rounding_divide_by_power_of_two(x, -exponent);
  const std::int32_t threshold = static_cast<std::int32_t>((std::int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<std::int32_t>::max();
  if (x < -threshold) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << exponent);
}

/// e^a for a in [-1/4, 0), a and the result in Q0.31: gemmlowp's fourth-order Taylor polynomial around -1/8,
/// e^(-1/8) (1 + x + x^2 / 2 + x^3 / 6 + x^4 / 24) with x = a + 1/8.
///
/// Example: `static_assert(ctattn::math::exp_on_interval_between_negative_one_quarter_and_0_excl(-(1 << 28)) == 1895147668);`
constexpr std::int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(std::int32_t a) noexcept {
  constexpr std::int32_t e_to_minus_one_eighth = 1895147668;  // round(e^(-1/8) 2^31)
  constexpr std::int32_t one_third = 715827883;               // round(2^31 / 3)
  const std::int32_t x = a + (1 << 28);
  const std::int32_t x2 = saturating_rounding_doubling_high_mul(x, x);
  const std::int32_t x3 = saturating_rounding_doubling_high_mul(x2, x);
  const std::int32_t x4 = saturating_rounding_doubling_high_mul(x2, x2);
  const std::int32_t x4_over_4 = rounding_divide_by_power_of_two(x4, 2);
  const std::int32_t higher_terms =
      rounding_divide_by_power_of_two(saturating_rounding_doubling_high_mul(x4_over_4 + x3, one_third) + x2, 1);
  return e_to_minus_one_eighth + saturating_rounding_doubling_high_mul(e_to_minus_one_eighth, x + higher_terms);
}

/// e^a for a <= 0 given in Q(IntegerBits).(31 - IntegerBits), the result in Q0.31: gemmlowp's
/// exp_on_negative_values. a mod 1/4 goes through the polynomial above; each set bit of the rest multiplies the result
/// by e^(-2^k), k = -2 to 4 (the bits the format has). e^0 is 2^31 - 1; below -32 the result is 0 for formats with
/// more than five integer bits.
///
/// | operand | format                          |
/// |---------|---------------------------------|
/// | `a`     | Q(IntegerBits).(31 - IntegerBits), a <= 0 |
/// | result  | Q0.31, in [0, 2^31 - 1]         |
///
/// Example: `static_assert(ctattn::math::exp_on_negative_values<5>(0) == 0x7FFFFFFF);`
template <int IntegerBits>
constexpr std::int32_t exp_on_negative_values(std::int32_t a) noexcept {
  static_assert(IntegerBits >= 0 && IntegerBits < 31);
  constexpr int fractional_bits = 31 - IntegerBits;
  constexpr std::int32_t one_quarter = std::int32_t{1} << (fractional_bits - 2);
  const std::int32_t a_mod_quarter_minus_one_quarter = (a & (one_quarter - 1)) - one_quarter;
  std::int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      saturating_rounding_multiply_by_power_of_two(a_mod_quarter_minus_one_quarter, IntegerBits));
  const std::int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  // round(e^(-2^k) 2^31) for k = -2 to 4.
  constexpr std::int32_t e_to_minus_two_to[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (IntegerBits > k && (remainder & (std::int32_t{1} << (fractional_bits + k))) != 0) {
      result = saturating_rounding_doubling_high_mul(result, e_to_minus_two_to[k + 2]);
    }
  }
  if constexpr (IntegerBits > 5) {
    if (a < -(std::int32_t{1} << (36 - IntegerBits))) result = 0;
  }
  return a == 0 ? std::numeric_limits<std::int32_t>::max() : result;
}

/// 1 / (1 + a) for a in [0, 1), a and the result in Q0.31 (1 stands for 2^31 - 1): gemmlowp's
/// one_over_one_plus_x_for_x_in_0_1, three Newton-Raphson steps on the half denominator from 48/17 - 32/17 d, in
/// Q2.29.
///
/// Example: `static_assert(ctattn::math::one_over_one_plus_x(0) == 0x7FFFFFFF);`
constexpr std::int32_t one_over_one_plus_x(std::int32_t a) noexcept {
  // gemmlowp's RoundingHalfSum: (a + b) / 2 rounded, ties away from zero, in 64 bits.
  const std::int64_t sum = std::int64_t{a} + std::numeric_limits<std::int32_t>::max();
  const auto half_denominator = static_cast<std::int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  constexpr std::int32_t forty_eight_seventeenths = 1515870810;        // 48/17 in Q2.29
  constexpr std::int32_t minus_thirty_two_seventeenths = -1010580540;  // -32/17 in Q2.29
  constexpr std::int32_t one = std::int32_t{1} << 29;                  // 1 in Q2.29
  std::int32_t x =
      forty_eight_seventeenths + saturating_rounding_doubling_high_mul(half_denominator, minus_thirty_two_seventeenths);
  for (int step = 0; step < 3; ++step) {
    const std::int32_t error = one - saturating_rounding_doubling_high_mul(half_denominator, x);
    x += saturating_rounding_multiply_by_power_of_two(saturating_rounding_doubling_high_mul(x, error), 2);
  }
  return saturating_rounding_multiply_by_power_of_two(x, 1);
}

/// 1 / sum for a positive sum in Q(IntegerBits).(31 - IntegerBits), as TFLite's GetReciprocal gives it: `scale` in
/// Q0.31 and `bits_over_unit`, so that 1 / sum = scale 2^(-31 - bits_over_unit) in real terms of the sum's format.
struct fixed_reciprocal {
  std::int32_t scale = 0;
  int bits_over_unit = 0;
  friend constexpr bool operator==(const fixed_reciprocal&, const fixed_reciprocal&) = default;
};

/// TFLite's GetReciprocal(sum, IntegerBits): the sum shifted up to [1, 2), 1 / (1 + (that - 1)) by
/// `one_over_one_plus_x`, and the shift as `bits_over_unit` = IntegerBits - countl_zero(sum). sum > 0.
///
/// Example: `static_assert(ctattn::math::reciprocal_of_sum(1 << 19, 12).bits_over_unit == 0);`
constexpr fixed_reciprocal reciprocal_of_sum(std::int32_t sum, int integer_bits) noexcept {
  const int headroom_plus_one = std::countl_zero(static_cast<std::uint32_t>(sum));
  const auto shifted_sum_minus_one =
      static_cast<std::int32_t>((static_cast<std::uint32_t>(sum) << headroom_plus_one) - (std::uint32_t{1} << 31));
  return {one_over_one_plus_x(shifted_sum_minus_one), integer_bits - headroom_plus_one};
}

}  // namespace ctattn::math

#endif  // CTATTN_MATH_FIXED_POINT_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/math/isqrt.hpp
#ifndef CTATTN_MATH_ISQRT_HPP
#define CTATTN_MATH_ISQRT_HPP

/// \file
/// ctattn::math::isqrt: the integer square root floor(sqrt(v)) of a 64-bit unsigned integer, exact, in constant
/// expressions and at run time (integers only: the same result on every target, with or without an FPU); and
/// ctattn::math::narrow_quotient, a 64-bit value divided by a 32-bit one where the quotient fits 32 bits.
///
/// | function                 | computes                          | on 32-bit Arm with a divide instruction      |
/// |--------------------------|-----------------------------------|----------------------------------------------|
/// | `narrow_quotient(n, d)`  | floor(n / d), n / d < 2^32        | two 16-bit digits by `udiv` (no library call) |
/// | `isqrt(v)`               | floor(sqrt(v))                    | Newton's iteration on `narrow_quotient`      |


namespace ctattn::math {

/// floor(n / d) for d >= 1 and n < d 2^32 (so that the quotient fits 32 bits).
///
/// | n, d                       | result         |
/// |----------------------------|----------------|
/// | 2^61 + 2^29, 2^30          | 2^31           |
/// | d 2^32 - 1, d              | 2^32 - 1       |
///
/// \code
/// static_assert(ctattn::math::narrow_quotient((std::uint64_t{1} << 61) + (1u << 29), 1u << 30) == 1u << 31);
/// \endcode
// Rationale: on the Cortex-M3 and up (32-bit Arm with `udiv`) a 64-bit division is a call to the C library's
// general routine, about 120 instructions; here the divisor is normalized (its top bit set) and the quotient found
// as two 16-bit digits, each estimated by one `udiv` of the partial remainder by the divisor's top half and lowered
// while its product with the divisor's low half shows it too large (at most twice, Knuth's algorithm D): about 40.
constexpr std::uint32_t narrow_quotient(std::uint64_t n, std::uint32_t d) noexcept {
#if defined(__arm__) && defined(__ARM_FEATURE_IDIV)
  if (!std::is_constant_evaluated()) {
    const int s = std::countl_zero(d);
    const std::uint32_t divisor = d << s;
    const std::uint64_t shifted = n << s;  // n < d 2^32, so n 2^s < 2^64
    const std::uint32_t high = divisor >> 16;
    const std::uint32_t low = divisor & 0xFFFFu;
    // One digit: floor((rest 2^16 + next) / divisor), rest < divisor, and the new remainder.
    const auto digit = [high, low, divisor](std::uint32_t rest, std::uint32_t next, std::uint32_t& remainder) {
      std::uint32_t q = rest / high;
      std::uint32_t r = rest - q * high;
      while (q > 0xFFFFu || q * low > ((r << 16) | next)) {
        --q;
        r += high;
        if (r > 0xFFFFu) break;
      }
      remainder = (rest << 16) + next - q * divisor;  // modulo 2^32: the true remainder is below the divisor
      return q;
    };
    const auto word = static_cast<std::uint32_t>(shifted);
    std::uint32_t remainder = 0;
    const std::uint32_t upper = digit(static_cast<std::uint32_t>(shifted >> 32), word >> 16, remainder);
    const std::uint32_t lower = digit(remainder, word & 0xFFFFu, remainder);
    return (upper << 16) | lower;
  }
#endif
  return static_cast<std::uint32_t>(n / d);
}

/// floor(sqrt(v)) for every v in [0, 2^64): the largest r with r^2 <= v, so r < 2^32.
///
/// | v              | result          |
/// |----------------|-----------------|
/// | 0, 1, 2, 3     | 0, 1, 1, 1      |
/// | n^2 - 1, n^2   | n - 1, n        |
/// | 2^64 - 1       | 2^32 - 1        |
///
/// \code
/// static_assert(ctattn::math::isqrt(99) == 9 && ctattn::math::isqrt(100) == 10);
/// static_assert(ctattn::math::isqrt(0xFFFF'FFFF'FFFF'FFFF) == 0xFFFF'FFFF);
/// \endcode
// Rationale: the digit-by-digit (restoring) method decides one bit of the root per step, from the top, and keeps
// the remainder v - r^2 exactly; after the last step the root is floor(sqrt(v)) with nothing left to correct (a
// Newton iteration needs a division per step and a final check). At most 32 steps of a compare, a subtraction and
// shifts. No overflow: at the step whose `bit` is 4^m, `root` is the root found so far (r < 2^(31 - m)) times
// 4^(m + 1), so root + bit < 2^(m + 33) + 4^m, at most 2^63 + 2^60 (m <= 30 once r > 0).
// Rationale (32-bit Arm with `udiv`, v below 2^62): Newton's iteration x <- floor((x + floor(v / x)) / 2) from any
// x >= floor(sqrt(v)) decreases until it stops at floor(sqrt(v)) (the first x whose quotient is not below it);
// starting from (isqrt(v >> 32) + 1) 2^16, itself found by the same iteration on 32 bits, it takes about three
// `narrow_quotient`s for the normalized values of int8 LayerNorm, against 31 steps of the digit-by-digit method.
constexpr std::uint32_t isqrt(std::uint64_t v) noexcept {
#if defined(__arm__) && defined(__ARM_FEATURE_IDIV)
  if (!std::is_constant_evaluated() && v != 0 && v < (std::uint64_t{1} << 62)) {
    const auto top = static_cast<std::uint32_t>(v >> 32);  // below 2^30
    std::uint32_t x = 1u << 15;                            // >= sqrt(top)
    for (;;) {
      if (top == 0) {
        x = 0;
        break;
      }
      const std::uint32_t q = top / x;
      if (q >= x) break;
      x = (x + q) >> 1;
    }
    x = (x + 1) << 16;  // >= sqrt(v), below 2^32
    for (;;) {
      const std::uint32_t q = narrow_quotient(v, x);  // v < 2^62 and x >= sqrt(v): below 2^31
      if (q >= x) return x;
      x = (x + q) >> 1;
    }
  }
#endif
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    const std::uint64_t trial = root + bit;
    if (v >= trial) {
      v -= trial;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return static_cast<std::uint32_t>(root);
}

}  // namespace ctattn::math

#endif  // CTATTN_MATH_ISQRT_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/math/log.hpp
#ifndef CTATTN_MATH_LOG_HPP
#define CTATTN_MATH_LOG_HPP

/// \file
/// ctattn::math::log: the natural logarithm, in constant expressions and at run time with identical results.

// ---------------------------------------- ctattn/math/detail/log_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_LOG_KERNEL_HPP
#define CTATTN_MATH_DETAIL_LOG_KERNEL_HPP

/// \file
/// The reduction and polynomial behind ctattn::math::log.


namespace ctattn::math::detail {

template <Scalar T>
struct log_constants;

// Rationale (both types): x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f), so
// log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)). R(z) = z P(z), P a Chebyshev fit of
// (2 atanh(s)/s - 2) / s^2 for s^2 <= 0.0295 (|s| <= 0.1716), coefficients rounded to the type
// (generate_math_reference.py --coefficients: 2^-30.1 for float at degree 2, 2^-59.1 for double at degree
// 6, weighted by s^3, the size of their contribution). k ln2 uses the Cody-Waite split of exp (k * ln2_hi is
// exact for every k that occurs, |k| <= 152 for float, <= 1077 for double).
template <>
struct log_constants<float> {
  static constexpr float sqrt2 = 0x1.6a09e6p+0f;
  static constexpr float poly[] = {0x1.55555cp-1f, 0x1.997c22p-2f, 0x1.2ee8c8p-2f};
};

template <>
struct log_constants<double> {
  static constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
  static constexpr double poly[] = {0x1.5555555555558p-1, 0x1.9999999995273p-2, 0x1.2492492dfd86cp-2,
                                    0x1.c71c62d5e53e0p-3, 0x1.7462b91b8df65p-3, 0x1.39fdcceb4bb45p-3,
                                    0x1.2b5f68a50d903p-3};
};

template <Scalar T>
constexpr T log(T x) noexcept {
  using fmt = format<T>;
  using e = exp_constants<T>;
  if (is_nan(x)) return x;
  if (x < T(0)) return quiet_nan<T>();
  if (x == T(0)) return -infinity<T>();
  if (x == infinity<T>()) return x;
  int k = 0;
  if (x < std::numeric_limits<T>::min()) {  // subnormal: scale into the normal range (exact)
    x = x * pow2<T>(fmt::mantissa_bits + 2);
    k = -(fmt::mantissa_bits + 2);
  }
  const bits_t<T> b = to_bits(x);
  constexpr bits_t<T> mantissa_mask = (bits_t<T>{1} << fmt::mantissa_bits) - 1;
  k += static_cast<int>(b >> fmt::mantissa_bits) - fmt::bias;
  T m = from_bits<T>((b & mantissa_mask) | (static_cast<bits_t<T>>(fmt::bias) << fmt::mantissa_bits));
  if (m >= log_constants<T>::sqrt2) {
    m = m * T(0.5);
    ++k;
  }
  const T f = m - T(1);
  const T s = f / (T(2) + f);
  const T z = s * s;
  const T half_f2 = T(0.5) * f * f;
  const T r = z * horner(log_constants<T>::poly, z);
  const T kf = static_cast<T>(k);
  // Rationale: the order of the additions keeps the large terms (k ln2_hi, f) last, so their sum is rounded
  // once and the small terms' errors stay far below an ulp.
  return kf * e::ln2_hi - ((half_f2 - (s * (half_f2 + r) + kf * e::ln2_lo)) - f);
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_LOG_KERNEL_HPP
// ---------------------------------------- ctattn/math/log.hpp (continued)

namespace ctattn::math {

/// The natural logarithm ln x, for float and double; the same bits in constant evaluation and at run time.
///
/// | x                         | result                   |
/// |---------------------------|--------------------------|
/// | NaN                       | the same NaN             |
/// | x < 0, -inf               | NaN (quiet, positive)    |
/// | +-0                       | -inf (pole)              |
/// | 1                         | +0                       |
/// | +inf                      | +inf                     |
/// | subnormal x               | finite, full accuracy    |
/// | accuracy (all x > 0)      | float <= 1 ulp, double <= 2 ulp |
///
/// \code
/// static_assert(ctattn::math::log(1.0f) == 0.0f);
/// constexpr double ln2 = ctattn::math::log(2.0);  // 0x1.62e42fefa39efp-1
/// \endcode
constexpr float log(float x) noexcept { return detail::log(x); }

/// \copydoc log(float)
constexpr double log(double x) noexcept { return detail::log(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_LOG_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/math/sin_cos.hpp
#ifndef CTATTN_MATH_SIN_COS_HPP
#define CTATTN_MATH_SIN_COS_HPP

/// \file
/// ctattn::math::sin and ctattn::math::cos, in constant expressions and at run time with identical results,
/// accurate over the whole finite range (exact argument reduction).

// ---------------------------------------- ctattn/math/detail/sin_cos_kernel.hpp
#ifndef CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP
#define CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP

/// \file
/// sin and cos on [-pi/4, pi/4] for an argument given as hi + lo, and the quadrant dispatch.

// ---------------------------------------- ctattn/math/detail/trig_reduction.hpp
#ifndef CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP
#define CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP

/// \file
/// Argument reduction for sin and cos over the whole finite range: x = (4n + q + f) pi/2 with |f| <= 1/2,
/// computed exactly in integer arithmetic from a table of the bits of 2/pi (Payne-Hanek), then r = f pi/2 as
/// an unevaluated sum hi + lo.



namespace ctattn::math::detail {

// The binary expansion of 2/pi, 32 bits a word, most significant first: 2/pi = sum_j w[j] 2^(-32 (j + 1)).
// Printed by generate_math_reference.py --coefficients (mpmath at 1400 bits). 38 words (1216 bits) cover
// every double: the largest exponent needs words up to index 30 + 7.
inline constexpr std::uint32_t two_over_pi_words[] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab};

template <Scalar T>
struct trig_reduction_constants;

// Rationale: the window of 2/pi bits multiplied by the significand has W words. Bits of 2/pi that make
// x 2/pi an integer multiple of 4 are skipped (they do not change sin or cos); after the window, the
// neglected bits change x 2/pi by less than 2^(p + 33 - 32 W). The smallest |x 2/pi mod 1| over all finite
// arguments is about 2^-30 for float and 2^-61 for double (the classic worst cases, which the reference
// fixture includes), so W = 4 (error < 2^-71) and W = 7 (error < 2^-138) leave more than p + 10 correct bits
// of the reduced argument in the worst case. pi/2 is split into a sum of two values of the type.
template <>
struct trig_reduction_constants<float> {
  static constexpr int window_words = 4;
  static constexpr float pio2_hi = 0x1.921fb6p+0f;
  static constexpr float pio2_lo = -0x1.777a5cp-25f;
};

template <>
struct trig_reduction_constants<double> {
  static constexpr int window_words = 7;
  static constexpr double pio2_hi = 0x1.921fb54442d18p+0;
  static constexpr double pio2_lo = 0x1.1a62633145c07p-54;
};

template <Scalar T>
struct reduced_argument {
  int quadrant;  // n mod 4
  T hi;          // r = hi + lo, |r| <= pi/4 (plus rounding)
  T lo;
};

// 32 bits of the little-endian integer s[0..n) starting at bit pos (which may be negative or past the end).
template <std::size_t N>
constexpr std::uint32_t bits_at(const std::uint32_t (&s)[N], int pos) noexcept {
  if (pos <= -32 || pos >= 32 * static_cast<int>(N)) return 0;
  if (pos < 0) return s[0] << (-pos);
  const auto limb = static_cast<std::size_t>(pos / 32);
  const int offset = pos % 32;
  std::uint64_t v = s[limb];
  if (limb + 1 < N) v |= static_cast<std::uint64_t>(s[limb + 1]) << 32;
  return static_cast<std::uint32_t>(v >> offset);
}

/// Reduces a finite |x| >= pi/4 (positive).
template <Scalar T>
constexpr reduced_argument<T> reduce_pio2(T x) noexcept {
  using fmt = format<T>;
  using c = trig_reduction_constants<T>;
  constexpr int mb = fmt::mantissa_bits;
  constexpr int w = c::window_words;
  const auto b = static_cast<std::uint64_t>(to_bits(x));
  // x = m 2^e with m an integer of mb + 1 bits (x >= pi/4 is normal)
  const std::uint64_t m = (b & ((std::uint64_t{1} << mb) - 1)) | (std::uint64_t{1} << mb);
  const int e = static_cast<int>(b >> mb) - fmt::bias - mb;
  const int j0 = e > 1 ? (e - 2) / 32 : 0;  // words before j0 contribute multiples of 4
  // s = m * (words j0 .. j0 + w - 1), little-endian 32-bit limbs
  std::uint32_t s[static_cast<std::size_t>(w) + 2] = {};
  const std::uint32_t m_limbs[2] = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
  for (int i = 0; i < w; ++i) {
    const std::uint64_t word = two_over_pi_words[j0 + w - 1 - i];
    std::uint64_t carry = 0;
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t t = word * m_limbs[j] + s[i + j] + carry;
      s[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    s[i + 2] = static_cast<std::uint32_t>(carry);
  }
  // x 2/pi = s 2^-point (mod 4): two integer bits above the point, 128 fraction bits below it
  const int point = 32 * (j0 + w) - e;
  int quadrant = static_cast<int>(bits_at(s, point) & 3);
  std::uint64_t f_hi = (static_cast<std::uint64_t>(bits_at(s, point - 32)) << 32) | bits_at(s, point - 64);
  std::uint64_t f_lo = (static_cast<std::uint64_t>(bits_at(s, point - 96)) << 32) | bits_at(s, point - 128);
  bool negative = false;
  if ((f_hi >> 63) != 0) {  // f >= 1/2: use f - 1 and the next quadrant
    negative = true;
    quadrant = (quadrant + 1) & 3;
    f_lo = ~f_lo + 1;
    f_hi = ~f_hi + (f_lo == 0 ? 1 : 0);
  }
  if (f_hi == 0 && f_lo == 0) return {quadrant, T(0), T(0)};
  // normalize the 128-bit fraction, then split it into hi (p bits, exact) and lo (the next bits, rounded)
  const int lz = f_hi != 0 ? std::countl_zero(f_hi) : 64 + std::countl_zero(f_lo);
  if (lz >= 64) {
    f_hi = f_lo << (lz - 64);
    f_lo = 0;
  } else if (lz > 0) {
    f_hi = (f_hi << lz) | (f_lo >> (64 - lz));
    f_lo <<= lz;
  }
  constexpr int p = mb + 1;
  const std::uint64_t top = f_hi >> (64 - p);
  const std::uint64_t next = (f_hi << p) | (f_lo >> (64 - p));  // the following 64 bits
  // Rationale: float's lo part uses the top 32 of those bits, so that every conversion is from a 32-bit integer
  // (a single instruction on Cortex-M4F) and every power of two stays in float's normal range.
  const T f_top = static_cast<T>(static_cast<bits_t<T>>(top)) * pow2<T>(-p - lz);
  T f_next{};
  if constexpr (sizeof(T) == 4) {
    f_next = static_cast<T>(static_cast<std::uint32_t>(next >> 32)) * pow2<T>(-p - 32 - lz);
  } else {
    f_next = static_cast<T>(next) * pow2<T>(-p - 64 - lz);
  }
  // r = f pi/2 in double-length arithmetic
  const twofold<T> prod = two_product(f_top, c::pio2_hi);
  const T tail = prod.lo + (f_top * c::pio2_lo + f_next * c::pio2_hi);
  const twofold<T> r = fast_two_sum(prod.hi, tail);
  if (negative) return {quadrant, -r.hi, -r.lo};
  return {quadrant, r.hi, r.lo};
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_TRIG_REDUCTION_HPP
// ---------------------------------------- ctattn/math/detail/sin_cos_kernel.hpp (continued)

namespace ctattn::math::detail {

template <Scalar T>
struct sin_cos_constants;

// Rationale: sin t = t + t^3 S(t^2) and cos t = 1 - t^2/2 + t^4 C(t^2) on |t| <= pi/4; S and C are Chebyshev
// fits of (sin t - t)/t^3 and (cos t - 1 + t^2/2)/t^4 in z = t^2, coefficients rounded to the type
// (generate_math_reference.py --coefficients: sin 2^-28.3 float degree 3, 2^-57.3 double degree 6; cos 2^-31.0
// float degree 3, 2^-60.0 double degree 5, each relative to the result). Below `tiny` sin t rounds to t and
// cos t to 1 (t^2/6 and t^2/2 are under half an ulp).
template <>
struct sin_cos_constants<float> {
  static constexpr float tiny = 0x1p-12f;
  static constexpr float pio4 = 0x1.921fb6p-1f;
  static constexpr float sin_poly[] = {-0x1.555556p-3f, 0x1.11110ep-7f, -0x1.a013a4p-13f, 0x1.6dbcfcp-19f};
  static constexpr float cos_poly[] = {0x1.555556p-5f, -0x1.6c16cp-10f, 0x1.a015c2p-16f, -0x1.25239ap-22f};
};

template <>
struct sin_cos_constants<double> {
  static constexpr double tiny = 0x1p-27;
  static constexpr double pio4 = 0x1.921fb54442d18p-1;
  static constexpr double sin_poly[] = {-0x1.5555555555555p-3, 0x1.111111111111p-7,    -0x1.a01a01a01992fp-13,
                                        0x1.71de3a545f836p-19, -0x1.ae645410e937bp-26, 0x1.61217d9252c03p-33,
                                        -0x1.ab16f5caa198ap-41};
  static constexpr double cos_poly[] = {0x1.5555555555555p-5,   -0x1.6c16c16c16963p-10, 0x1.a01a019f4ddfdp-16,
                                        -0x1.27e4fa16cc2d1p-22, 0x1.1eeb67d026ec6p-29,  -0x1.907cd8ff5ede7p-37};
};

/// sin(hi + lo) for |hi| <= pi/4 (plus rounding), |lo| <= ulp(hi).
template <Scalar T>
constexpr T sin_kernel(T hi, T lo) noexcept {
  const T z = hi * hi;
  // sin(hi + lo) = sin(hi) + lo cos(hi) ~ hi + (hi z S(z) + lo (1 - z/2))
  return hi + (hi * z * horner(sin_cos_constants<T>::sin_poly, z) + (lo - T(0.5) * z * lo));
}

/// cos(hi + lo) for |hi| <= pi/4 (plus rounding), |lo| <= ulp(hi).
template <Scalar T>
constexpr T cos_kernel(T hi, T lo) noexcept {
  // Rationale: z = hi^2 exactly (as a two-fold value), because the rounding of hi^2/2 alone would cost up to a
  // quarter of an ulp of the result near |t| = pi/4; 1 - z/2 is then rounded once, its error recovered.
  const twofold<T> z = two_product(hi, hi);
  const T half_hi = T(0.5) * z.hi;
  const T w = T(1) - half_hi;
  const T w_err = (T(1) - w) - half_hi;  // exact (|half_hi| <= 1)
  const T tail = z.hi * z.hi * horner(sin_cos_constants<T>::cos_poly, z.hi) - (T(0.5) * z.lo + hi * lo);
  return w + (w_err + tail);
}

enum class trig_function { sin, cos };

template <trig_function F, Scalar T>
constexpr T sin_cos(T x) noexcept {
  using c = sin_cos_constants<T>;
  if (is_nan(x)) return x;
  const T ax = abs(x);
  if (ax == infinity<T>()) return quiet_nan<T>();
  if (ax < c::tiny) {
    if constexpr (F == trig_function::sin) return x;  // also keeps -0 and subnormals
    return T(1);
  }
  if (ax <= c::pio4) {
    if constexpr (F == trig_function::sin) return sin_kernel(x, T(0));
    return cos_kernel(x, T(0));
  }
  const reduced_argument<T> r = reduce_pio2(ax);
  // sin(-x) = -sin(x), cos(-x) = cos(x); sin and cos of (q + f) pi/2 by quadrant
  int q = r.quadrant;
  bool negate = false;
  if constexpr (F == trig_function::sin) {
    negate = sign_bit(x) != (q >= 2);
  } else {
    negate = q == 1 || q == 2;
    ++q;  // cos(t) = sin(t + pi/2)
  }
  const T v = (q & 1) != 0 ? cos_kernel(r.hi, r.lo) : sin_kernel(r.hi, r.lo);
  return negate ? -v : v;
}

}  // namespace ctattn::math::detail

#endif  // CTATTN_MATH_DETAIL_SIN_COS_KERNEL_HPP
// ---------------------------------------- ctattn/math/sin_cos.hpp (continued)

namespace ctattn::math {

/// The sine of x (radians), for float and double; the same bits in constant evaluation and at run time.
///
/// | x                        | result                                   |
/// |--------------------------|------------------------------------------|
/// | NaN                      | the same NaN                             |
/// | +-0                      | +-0 (sign kept; so are subnormal x)      |
/// | +-inf                    | NaN (quiet, positive)                    |
/// | any finite x             | float <= 1 ulp, double <= 2 ulp          |
///
/// Argument reduction is exact for every finite x (Payne-Hanek with the bits of 2/pi), so there is no range
/// limit: sin(1e22) and sin(FLT_MAX) are as accurate as sin(1). Arguments above pi/4 cost an integer
/// multiplication of the significand by a window of 2/pi (4 words for float, 7 for double).
///
/// \code
/// static_assert(ctattn::math::sin(-0.0f) == 0.0f && ctattn::math::sin(0.5f) > 0.479f);
/// constexpr double s = ctattn::math::sin(1e22);  // -0x1.b453ab76bf397p-1
/// \endcode
constexpr float sin(float x) noexcept { return detail::sin_cos<detail::trig_function::sin>(x); }

/// \copydoc sin(float)
constexpr double sin(double x) noexcept { return detail::sin_cos<detail::trig_function::sin>(x); }

/// The cosine of x (radians), for float and double; the same bits in constant evaluation and at run time.
///
/// | x                        | result                                   |
/// |--------------------------|------------------------------------------|
/// | NaN                      | the same NaN                             |
/// | +-0                      | 1                                        |
/// | +-inf                    | NaN (quiet, positive)                    |
/// | any finite x             | float <= 1 ulp, double <= 2 ulp          |
///
/// Same exact argument reduction as sin: no range limit.
///
/// \code
/// static_assert(ctattn::math::cos(0.0f) == 1.0f);
/// constexpr double c = ctattn::math::cos(3.0);  // -0x1.fae04be85e5d2p-1
/// \endcode
constexpr float cos(float x) noexcept { return detail::sin_cos<detail::trig_function::cos>(x); }

/// \copydoc cos(float)
constexpr double cos(double x) noexcept { return detail::sin_cos<detail::trig_function::cos>(x); }

}  // namespace ctattn::math

#endif  // CTATTN_MATH_SIN_COS_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Kernels: how every operation computes (constant-evaluated, exact scalar loops, or the build's SIMD backend).
// ---------------------------------------- ctattn/kernels/int4.hpp
#ifndef CTATTN_KERNELS_INT4_HPP
#define CTATTN_KERNELS_INT4_HPP

/// \file
/// The kernels of int4 weights with int8 activations (`ctattn::qlinear` with `weight_format::int4`), and the one
/// place that decides how they compute. The weights are TFLite's dense int4 packing: the N x K values in row-major
/// order two per byte, value 2i in the low nibble of byte i and value 2i + 1 in its high nibble, each a two's
/// complement 4-bit number (an odd K splits a byte between two rows). The arithmetic is the int8 layer's
/// (kernels/int8.hpp) on the unpacked values: TFLite unpacks int4 weights to int8 and runs its int8
/// fully-connected operator, so the bits are the same.
///
/// | kernel                                         | computes                                                  |
/// |------------------------------------------------|-----------------------------------------------------------|
/// | `int4_value(packed, i)`                        | value i of a packing, in [-8, 7]                          |
/// | `int4_unpack_rows<B, K>(packed, first, rows)`  | rows first.. first + B - 1 of an N x K packing as int8    |
/// | `int4_fully_connected(x, packed, start, multipliers, zero, y)` | `int8_fully_connected`'s outputs from int4 weights |
///
/// How `int4_fully_connected` computes:
///   1. constant evaluation: the weights unpacked to int8, then `int8_fully_connected`'s constant form;
///   2. run time, where the build's int8 row has an int4 product that takes K (`int4_product_ops`'s
///      `fully_connected`: the Cortex-M DSP extension's, kernels/arm_dsp_int4.hpp, for K a multiple of 8): that
///      kernel, on the packed weights;
///   3. else blocks of `int4_block_channels` output channels unpacked to int8 on the stack (by the row's `unpack`
///      where it has one: Helium's, 32 values a step; else the loop), each block's outputs the build's int8 product
///      kernel (`run_product_requantized`), so every backend of the int8 table runs int4 layers too.
///
/// Example:
/// \code
///   const std::int8_t x[1][2]{{1, 2}};
///   const std::uint8_t w[1]{0xF3};   // the 1 x 2 weights {3, -1}
///   const std::int32_t start[1]{0};
///   const ctattn::math::quantized_multiplier one[1]{{1 << 30, 1}};
///   std::int8_t y[1][1];
///   ctattn::detail::kernels::int4_fully_connected(x, w, start, one, 0, y);   // {{1}}: 1 x 3 + 2 x -1
/// \endcode


// ---------------------------------------- ctattn/kernels/arm_dsp_int4.hpp
#ifndef CTATTN_KERNELS_ARM_DSP_INT4_HPP
#define CTATTN_KERNELS_ARM_DSP_INT4_HPP

/// \file
/// The Cortex-M DSP extension's kernel for int4 weights with int8 inputs (kernels/int4.hpp's
/// `int4_fully_connected`): the packed weights read straight from flash, 8 a word, each pair of nibbles widened to
/// the two 16-bit halves `smlad` multiplies, with no unpacked copy.
///
/// | step                                   | instructions            | what it does                               |
/// |----------------------------------------|-------------------------|--------------------------------------------|
/// | load 8 int4                            | `ldr`                   | one word: values 0..7 of a row's 8 terms   |
/// | the low nibbles, each times 16         | `lsl`, `and`            | bytes n0 16, n2 16, n4 16, n6 16           |
/// | values (0, 4) and (2, 6) in halves     | `sxtb16`, `sxtb16 ror #8` | two's complement nibbles sign-extended   |
/// | the high nibbles, each times 16        | `and`                   | bytes n1 16, n3 16, n5 16, n7 16           |
/// | values (1, 5) and (3, 7) in halves     | `sxtb16`, `sxtb16 ror #8` |                                          |
/// | multiply and add, each row             | 2 `ldrd`, 4 `smlad`     | the row's 8 inputs, widened in that order  |
///
/// Each value is read as 16 times itself (its nibble in a byte's high half), so a row's sum is 16 times the true one
/// and one arithmetic shift makes it exact. The rows of x are widened once per block of up to 6 rows, their terms
/// paired as the weights' halves are ((0, 4), (2, 6), (1, 5), (3, 7) of every 8), and each channel runs against
/// all of them: 45 instructions per 48 multiply-accumulates in a block of 6 rows, against 42 for int8 weights.
///
/// Takes rows of K terms where K is a multiple of 8 (each row's weights then start on a byte, 4 words a row of 32)
/// and at most `arm_dsp_widened_max_terms`; kernels/int4.hpp gives other widths to the int8 kernel on unpacked
/// blocks. Built only where the compiler defines `__ARM_FEATURE_DSP`. Tested on the target by the firmware boards
/// (int8_kernel_cases: every width, block and rest against the formula).
///
/// Example: `static_assert(ctattn::detail::arm_dsp_int4_ops::takes<32> && !ctattn::detail::arm_dsp_int4_ops::takes<12>);`


// ---------------------------------------- ctattn/kernels/arm_dsp_int8.hpp
#ifndef CTATTN_KERNELS_ARM_DSP_INT8_HPP
#define CTATTN_KERNELS_ARM_DSP_INT8_HPP

/// \file
/// The Cortex-M DSP extension's int8 backend (Cortex-M4, M7, M33 with DSP, M55): the int8 operations of
/// kernels/detail/int8_simd.hpp on 4 terms per step in one 32-bit register, through the ACLE intrinsics of
/// <arm_acle.h>:
///
/// | step                              | instruction | what it does                                               |
/// |-----------------------------------|-------------|------------------------------------------------------------|
/// | load 4 int8                       | `ldr`       | one word (unaligned loads are allowed on these cores)      |
/// | bytes 0 and 2, less the zero point| `sxtab16`   | sign-extends two bytes into 16-bit halves and adds -zero   |
/// | bytes 1 and 3, less the zero point| `sxtab16` with `ror #8` | the same for the odd bytes                     |
/// | multiply and add                  | `smlad`     | acc + x.lo y.lo + x.hi y.hi, two products per instruction  |
///
/// So 4 terms cost 2 loads, 4 extensions and 2 multiply-adds, against 4 loads each of a and b, 8 extensions and 4
/// multiply-adds in the scalar loop. Each byte less its zero point lies in [-255, 255], which a 16-bit half holds.
///
/// The product kernel (`product_requantized`, docs/kernels.md "The product kernels") widens up to 6 rows of x once
/// and runs each channel of w against all of them (21 instructions per 24 multiply-accumulates), then requantizes
/// each output in 5 instructions (`smmlar`, `qadd`, `ssat`).
///
/// Built only where the compiler defines `__ARM_FEATURE_DSP` (-mcpu=cortex-m4, cortex-m7, cortex-m33, cortex-m55);
/// kernels/int8.hpp selects it where no wider backend (Helium) is selected. Tested on the target by the firmware
/// boards (docs/firmware.md): every int8 image compares its results with the compiler's, bit for bit.
///
/// Example: `ctattn::detail::arm_dsp_int8_ops::total(ctattn::detail::arm_dsp_int8_ops::zero()) == 0`.



// ---------------------------------------- ctattn/kernels/detail/int8_requantize.hpp
#ifndef CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP
#define CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP

/// \file
/// The per-output requantization of the int8 kernels, shared by kernels/int8.hpp and the backends' own
/// fully-connected kernels (kernels/arm_dsp_int8.hpp): an int32 sum, a fixed-point multiplier and shift, the output's
/// zero point, to int8, with TFLite's rounding.
///
/// | function                                   | computes                                                  |
/// |--------------------------------------------|-----------------------------------------------------------|
/// | `saturate_int8(v)`                         | v clamped to [-128, 127]                                  |
/// | `requantize_output(sum, multiplier, shift, zero)` | TFLite's MultiplyByQuantizedMultiplier, + zero, clamped |
///
/// Example: `static_assert(ctattn::detail::kernels::requantize_output(100, 1 << 30, 0, 3) == 53);`



namespace ctattn::detail::kernels {

#if defined(__ARM_FEATURE_SAT)
/// v saturated to a signed Bits-bit integer by the `ssat` instruction.
// Rationale: the builtin rather than ACLE's `__ssat`, which GCC 12 defines as a macro whose unsigned result
// -Wsign-conversion reports at every use.
template <int Bits>
CTATTN_ALWAYS_INLINE std::int32_t signed_saturate(std::int32_t v) noexcept {
  return static_cast<std::int32_t>(__builtin_arm_ssat(v, Bits));
}
#endif

#if defined(__ARM_FEATURE_DSP)
/// floor((a 2^32 + b c + 2^31) / 2^32), the 64-bit sum's rounded high word: one `smmlar`. The requantizers' doubling
/// high multiply (`output_requantizer::high_product`, the DSP product kernel's columns).
CTATTN_ALWAYS_INLINE std::int32_t rounded_high_sum(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
  std::int32_t high;
  asm("smmlar %0, %1, %2, %3" : "=r"(high) : "r"(b), "r"(c), "r"(a));
  return high;
}
#endif

/// v clamped to [-128, 127]: `ssat` on a core that has it (Cortex-M3 and up), else two comparisons.
CTATTN_ALWAYS_INLINE constexpr std::int8_t saturate_int8(std::int32_t v) noexcept {
#if defined(__ARM_FEATURE_SAT)
  if (!std::is_constant_evaluated()) return static_cast<std::int8_t>(signed_saturate<8>(v));
#endif
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/// floor((x m + 2^30) / 2^31) for m in [0, 2^31): TFLite's doubling high multiply, which cannot saturate for such
/// an m. On Armv6-M (Cortex-M0, M0+: no 32 x 32 -> 64 multiply) the product is built from four 16 x 16 -> 32
/// multiplies of |x| and m; elsewhere it is the int64 product (one `smull` or `smlal`).
// Rationale: on the M0, GCC calls libgcc's general 64 x 64 multiply for the int64 form. Here the product's
// magnitude u = |x| m < 2^62 is summed from its 16-bit partial products with explicit carries, and the rounding
// follows the sign: floor((u + 2^30) / 2^31) for x >= 0, -floor((u + 2^30 - 1) / 2^31) for x < 0 (the same
// floor of a negative value, as ceil((u - 2^30) / 2^31) = floor((u - 2^30 + 2^31 - 1) / 2^31)).
CTATTN_ALWAYS_INLINE constexpr std::int32_t doubling_high_product(std::int32_t x, std::int32_t m) noexcept {
#if defined(__ARM_ARCH_6M__)
  if (!std::is_constant_evaluated()) {
    const std::uint32_t a = x < 0 ? 0u - static_cast<std::uint32_t>(x) : static_cast<std::uint32_t>(x);
    const auto b = static_cast<std::uint32_t>(m);
    const std::uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
    const std::uint32_t low_low = al * bl;
    const std::uint32_t low_high = al * bh;
    const std::uint32_t high_low = ah * bl;
    // a <= 2^31 and b < 2^31, so ah <= 2^15 and bh < 2^15: each cross product is below 2^31 and their sum cannot
    // carry out of 32 bits.
    const std::uint32_t middle = low_high + high_low;
    const std::uint32_t low = low_low + (middle << 16);
    std::uint32_t high = ah * bh + (middle >> 16) + (low < low_low ? 1u : 0u);
    const std::uint32_t rounding = x < 0 ? (1u << 30) - 1u : 1u << 30;
    const std::uint32_t rounded = low + rounding;
    high += rounded < low ? 1u : 0u;
    const std::uint32_t magnitude = (high << 1) | (rounded >> 31);
    return static_cast<std::int32_t>(x < 0 ? 0u - magnitude : magnitude);
  }
#endif
  return static_cast<std::int32_t>((std::int64_t{x} * m + (std::int64_t{1} << 30)) >> 31);
}

/// TFLite's requantization of int32 sums to int8 for one multiplier in [0, 2^31) (as `math::quantize_multiplier`
/// makes every one) and one output zero point: `requantize(accumulator, {multiplier, shift}, zero)`'s bits in fewer
/// instructions, with what depends on the shift alone computed once, where the kernel sets up a channel.
// Rationale: a non-negative multiplier cannot meet the one product the doubling high multiply saturates,
// (-2^31)(-2^31), so its test goes; the rounding right shift (ties away from zero, as gemmlowp's) is `scaled`'s;
// the value is saturated to 9 bits before the zero point is added (which cannot change the clamped result) and to
// 8 after: two `ssat`s where the core has them.
struct output_requantizer {
  std::int32_t multiplier;
  int left;
  int right;
  std::int32_t zero;
  std::int32_t doubled;     // the multiplier times 2, modulo 2^32
  std::int32_t normalized;  // all ones when the multiplier is at least 2^30, else 0

  CTATTN_ALWAYS_INLINE constexpr output_requantizer(std::int32_t m, int shift, std::int32_t zero_point) noexcept
      : multiplier{m},
        left{shift > 0 ? shift : 0},
        right{shift > 0 ? 0 : -shift},
        zero{zero_point},
        doubled{static_cast<std::int32_t>(static_cast<std::uint32_t>(m) << 1)},
        normalized{m >= (1 << 30) ? -1 : 0} {}

  /// accumulator times the multiplier, with TFLite's two roundings: `math::multiply_by_quantized_multiplier`'s value.
  // Rationale: for a shift e >= 1, rounding half away from zero is floor((h - (h < 0) + 2^(e-1)) / 2^e), which is
  // (t >> e) plus bit e - 1 of t for t = h - (h < 0): no addition that could overflow (h >= -2^31 + 1, so t cannot
  // wrap), 4 instructions, and none where the shift is a constant 0.
  // Rationale: each function is a few full-expressions, as constant evaluation counts them (the int8 sorter's
  // compile-time inference runs it about 20,000 times within Clang's default budget).
  CTATTN_ALWAYS_INLINE constexpr std::int32_t scaled(std::int32_t accumulator) const noexcept {
    const std::int32_t high = high_product(static_cast<std::int32_t>(static_cast<std::uint32_t>(accumulator) << left));
    const auto t =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(high) - (static_cast<std::uint32_t>(high) >> 31));
    return right == 0 ? high : (t >> right) + ((t >> (right - 1)) & 1);
  }

  /// doubling_high_product(x, multiplier): where the core has `smmlar`, with its operands prepared once, where the
  /// kernel sets up a channel.
  // Rationale: one `smmlar`, whose 64-bit sum a 2^32 + x d + 2^31 has the value as its high word when it equals
  // 2 x m + 2^31: for m in [2^30, 2^31) (every normalized multiplier) d = 2m read as a signed word is 2m - 2^32
  // and a = x; for m below 2^30, d = 2m and a = 0. Exact for every x (against `smull`, two adds with carry, a
  // shift and an `orr` for the int64 form).
  CTATTN_ALWAYS_INLINE constexpr std::int32_t high_product(std::int32_t x) const noexcept {
#if defined(__ARM_FEATURE_DSP)
    if (!std::is_constant_evaluated()) return rounded_high_sum(x & normalized, x, doubled);
#endif
    return doubling_high_product(x, multiplier);
  }

  CTATTN_ALWAYS_INLINE constexpr std::int8_t operator()(std::int32_t accumulator) const noexcept {
    std::int32_t v = scaled(accumulator);
#if defined(__ARM_FEATURE_SAT)
    if (!std::is_constant_evaluated())
      return static_cast<std::int8_t>(signed_saturate<8>(signed_saturate<9>(v) + zero));
#endif
    v = v < -256 ? -256 : (v > 255 ? 255 : v);
    return saturate_int8(v + zero);
  }
};

/// What the int8 product kernels add to each raw sum sum_t x[r][t] w[c][t] and how they requantize it:
/// y[r][c] = requantize(column_start[c] + row_start[r], the multiplier of c, zero), the additions modulo 2^32.
///
/// | member         | meaning                                                                        |
/// |----------------|--------------------------------------------------------------------------------|
/// | `column_start` | N int32: a layer's folded bias, or a product's zero-point terms of each column  |
/// | `row_start`    | M int32 when RowStarts (a product's zero-point term of each row of x), else unused |
/// | `multipliers`  | N of them when PerChannel, else one for every output                           |
/// | `zero`         | the output's zero point                                                        |
template <bool PerChannel, bool RowStarts = false>
struct int8_epilogue {
  static constexpr bool per_channel = PerChannel;
  static constexpr bool row_starts = RowStarts;
  const std::int32_t* column_start;
  const std::int32_t* row_start;
  const math::quantized_multiplier* multipliers;
  std::int32_t zero;

  /// column_start[c] + row_start[r], wrapping.
  CTATTN_ALWAYS_INLINE constexpr std::int32_t start(std::size_t r, std::size_t c) const noexcept {
    const auto column = static_cast<std::uint32_t>(column_start[c]);
    if constexpr (RowStarts) return static_cast<std::int32_t>(column + static_cast<std::uint32_t>(row_start[r]));
    return static_cast<std::int32_t>(column);
  }
  CTATTN_ALWAYS_INLINE constexpr const math::quantized_multiplier& multiplier(std::size_t c) const noexcept {
    return multipliers[PerChannel ? c : 0];
  }
  CTATTN_ALWAYS_INLINE constexpr output_requantizer requantizer(std::size_t c) const noexcept {
    return {multiplier(c).multiplier, multiplier(c).shift, zero};
  }
  /// The output of raw sum `sum` at (r, c).
  CTATTN_ALWAYS_INLINE constexpr std::int8_t operator()(std::size_t r, std::size_t c, std::int32_t sum) const noexcept {
    return requantizer(c)(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(start(r, c)) + static_cast<std::uint32_t>(sum)));
  }
};

/// One output: `output_requantizer{multiplier, shift, zero}(accumulator)`.
CTATTN_ALWAYS_INLINE constexpr std::int8_t requantize_output(std::int32_t accumulator, std::int32_t multiplier,
                                                             int shift, std::int32_t zero) noexcept {
  return output_requantizer{multiplier, shift, zero}(accumulator);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT8_REQUANTIZE_HPP
// ---------------------------------------- ctattn/kernels/arm_dsp_int8.hpp (continued)

namespace ctattn::detail {
/// The int8 product blocks of the DSP backend (`arm_dsp_int8_ops::product_requantized`), known on every target so
/// that footprints can bound them: at most `arm_dsp_block_rows` rows of x widened once per block, for rows of up to
/// `arm_dsp_widened_max_terms` terms.
inline constexpr std::size_t arm_dsp_block_rows = 6;
inline constexpr std::size_t arm_dsp_widened_max_terms = 256;
/// The stack bytes of the widened block for M rows of K terms: min(M, 6) rows of K rounded up to 4, in int16.
template <std::size_t M, std::size_t K>
inline constexpr std::size_t arm_dsp_product_scratch_bytes =
    K >= 1 && K <= arm_dsp_widened_max_terms
        ? (M < arm_dsp_block_rows ? M : arm_dsp_block_rows) * ((K + 3) / 4) * 4 * sizeof(std::int16_t)
        : 0;
}  // namespace ctattn::detail

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstdint>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  static constexpr bool has_row_sum = true;
  static constexpr std::size_t step = 4;
  static constexpr std::size_t rows_per_pass = 2;  // kernels/detail/ops_defaults.hpp says why
  /// -zero_point in both 16-bit halves.
  using offset = std::uint32_t;
  /// The even bytes (0, 2) and the odd bytes (1, 3), each widened to 16-bit halves less the zero point.
  struct widened {
    std::int32_t even;
    std::int32_t odd;
  };
  using accumulator = std::int32_t;

  static offset make_offset(std::int32_t zero_point) noexcept {
    return (static_cast<std::uint32_t>(-zero_point) & 0xFFFFu) * 0x10001u;
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, sizeof word);
    const auto offsets = std::bit_cast<std::int32_t>(zero_point);
    return {__sxtab16(offsets, std::bit_cast<std::int32_t>(word)),
            __sxtab16(offsets, std::bit_cast<std::int32_t>(std::rotr(word, 8)))};
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __smlad(x.odd, y.odd, __smlad(x.even, y.even, sum));
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }

  /// Rows of x and channels of w a fully-connected tile computes: each widened word of x serves `tile_channels`
  /// channels, each widened word of w `tile_rows` rows.
  // Rationale: 2 x 2 accumulators, two rows' widened words (4 registers) and one channel's (2) leave the pointers
  // and the loop counter within the 13 general registers, so that nothing spills; per 4 terms of 4 outputs it
  // takes 4 loads, 8 extensions and 8 `smlad`: 1.25 instructions per multiply-accumulate, against 1.6 for one row
  // against two channels.
  static constexpr std::size_t tile_rows = 2;
  static constexpr std::size_t tile_channels = 2;

  /// Bytes 1 and 3 of a word sign-extended into two 16-bit halves: `sxtb16` with its own rotation.
  // Rationale: the ACLE has no rotating form, and GCC 12 does not fold a rotation into `__sxtb16` (one `ror` more
  // per word).
  static std::int32_t odd_bytes(std::uint32_t word) noexcept {
    std::int32_t halves;
    asm("sxtb16 %0, %1, ror #8" : "=r"(halves) : "r"(word));
    return halves;
  }
  static std::int32_t even_bytes(std::uint32_t word) noexcept { return __sxtb16(std::bit_cast<std::int32_t>(word)); }
  static std::uint32_t load_word(const std::int8_t* p) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, sizeof word);
    return word;
  }

  /// sum_t p[t] for t < K: per word, `sxtab16` adds the even bytes and (rotated) the odd ones into 16-bit halves,
  /// 3 instructions per 4 bytes; the four halves are added at the end.
  // Rationale: each half adds at most K / 4 bytes of magnitude 128 or less, so it cannot overflow while K <= 1024;
  // longer rows take the loop.
  template <std::size_t K>
  static std::int32_t row_sum(const std::int8_t* p) noexcept {
    constexpr std::size_t whole = K - K % step;
    std::int32_t sum = 0;
    if constexpr (K <= 1024) {
      std::int32_t even = 0;
      std::int32_t odd = 0;
      for (std::size_t t = 0; t < whole; t += step) {
        const std::uint32_t word = load_word(p + t);
        even = __sxtab16(even, std::bit_cast<std::int32_t>(word));
        odd = __sxtab16(odd, std::bit_cast<std::int32_t>(std::rotr(word, 8)));
      }
      const auto half = [](std::int32_t v, int which) {
        return static_cast<std::int32_t>(static_cast<std::int16_t>(static_cast<std::uint32_t>(v) >> (16 * which)));
      };
      sum = half(even, 0) + half(even, 1) + half(odd, 0) + half(odd, 1);
    } else {
      for (std::size_t t = 0; t < whole; ++t) sum += p[t];
    }
    for (std::size_t t = whole; t < K; ++t) sum += p[t];
    return sum;
  }

  /// The R x C outputs of rows r0.. of x and channels c0.. of w (K terms each; rows XS and WS bytes apart): their
  /// raw sums, then the epilogue e (y's rows YS apart).
  // Rationale: always inlined with its accumulators in local variables, so that they stay in registers for the whole
  // loop (by reference, -Os loads and stores each one per step).
  template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R, std::size_t C,
            typename Epilogue>
  CTATTN_ALWAYS_INLINE static void tile(const std::int8_t* x, const std::int8_t* w, std::size_t r0, std::size_t c0,
                                        Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t whole = K - K % step;
    std::int32_t sums[R][C];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (std::size_t c = 0; c < C; ++c) sums[r][c] = e.start(r0 + r, c0 + c);
    }
    if constexpr (R == 2 && C == 2 && whole > 0) {
      two_by_two<K, XS, WS>(x, w, whole / step, sums);
    } else {
      body<XS, WS, R, C>(x, w, whole, sums);
    }
    if constexpr (whole < K) {
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (std::size_t c = 0; c < C; ++c) {
          for (std::size_t t = whole; t < K; ++t) sums[r][c] += std::int32_t{x[r * XS + t]} * w[c * WS + t];
        }
      }
    }
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) {
      const kernels::output_requantizer requantize = e.requantizer(c0 + c);
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) y[r * YS + c] = requantize(sums[r][c]);
    }
  }

  /// The whole steps of a tile in C++: each row's word widened once for the C channels.
  template <std::size_t XS, std::size_t WS, std::size_t R, std::size_t C>
  CTATTN_ALWAYS_INLINE static void body(const std::int8_t* x, const std::int8_t* w, std::size_t whole,
                                        std::int32_t (&sums)[R][C]) noexcept {
    for (std::size_t t = 0; t < whole; t += step) {
      std::int32_t even[R];
      std::int32_t odd[R];
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_word(x + r * XS + t);
        even[r] = even_bytes(word);
        odd[r] = odd_bytes(word);
      }
#pragma GCC unroll 4
      for (std::size_t c = 0; c < C; ++c) {
        const std::uint32_t word = load_word(w + c * WS + t);
        const std::int32_t w_even = even_bytes(word);
        const std::int32_t w_odd = odd_bytes(word);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) sums[r][c] = __smlad(odd[r], w_odd, __smlad(even[r], w_even, sums[r][c]));
      }
    }
  }

  /// `steps` whole steps of 4 terms for two rows at x (XS bytes apart) and two channels at w (WS apart): 20 instructions
  /// per 16 multiply-accumulates and 2 for the loop.
  // Rationale: written in assembly because the loop needs 13 registers (4 accumulators, 4 widened halves of x, 2
  // of w, 2 pointers and the count), exactly what the core has, and GCC 12 at -Os spills 5 of them to the stack
  // (38 instructions a step instead of 22); the steps are those of `body`, whose C++ form the other tiles use.
  template <std::size_t K, std::size_t XS, std::size_t WS>
  CTATTN_ALWAYS_INLINE static void two_by_two(const std::int8_t* x, const std::int8_t* w, std::size_t steps,
                                              std::int32_t (&sums)[2][2]) noexcept {
    static_assert(XS <= 4095 && WS >= 4 && WS - 4 <= 4095, "two rows' words are one immediate offset apart");
    std::int32_t s00 = sums[0][0], s01 = sums[0][1], s10 = sums[1][0], s11 = sums[1][1];
    std::int32_t x0_even, x0_odd, x1_even, x1_odd, w_even, w_odd;
    // Two steps per iteration where the count is even (a loop branch less per step).
    constexpr bool pairs = (K / step) % 2 == 0;
    steps = pairs ? steps / 2 : steps;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldr %[x1e], [%[x], #%c[row]]\n\t"
        "ldr %[x0e], [%[x]], #4\n\t"
        "sxtb16 %[x0o], %[x0e], ror #8\n\t"
        "sxtb16 %[x0e], %[x0e]\n\t"
        "sxtb16 %[x1o], %[x1e], ror #8\n\t"
        "sxtb16 %[x1e], %[x1e]\n\t"
        "ldr %[we], [%[w]], #4\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "smlad %[s00], %[x0e], %[we], %[s00]\n\t"
        "smlad %[s00], %[x0o], %[wo], %[s00]\n\t"
        "smlad %[s10], %[x1e], %[we], %[s10]\n\t"
        "smlad %[s10], %[x1o], %[wo], %[s10]\n\t"
        "ldr %[we], [%[w], #%c[next]]\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "smlad %[s01], %[x0e], %[we], %[s01]\n\t"
        "smlad %[s01], %[x0o], %[wo], %[s01]\n\t"
        "smlad %[s11], %[x1e], %[we], %[s11]\n\t"
        "smlad %[s11], %[x1o], %[wo], %[s11]\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [x] "+r"(x), [w] "+r"(w),
          [steps] "+r"(steps), [x0e] "=&r"(x0_even), [x0o] "=&r"(x0_odd), [x1e] "=&r"(x1_even), [x1o] "=&r"(x1_odd),
          [we] "=&r"(w_even), [wo] "=&r"(w_odd)
        : [row] "n"(XS), [next] "n"(WS - 4), [unroll] "n"(pairs ? 2 : 1)
        : "cc", "memory");
    sums[0][0] = s00;
    sums[0][1] = s01;
    sums[1][0] = s10;
    sums[1][1] = s11;
  }

  /// The most rows of x one widened block holds: each word of w, loaded and widened once, serves all of them.
  // Rationale: 6 accumulators, one channel's widened word (2 registers), one row's pair of widened words (2, by
  // `ldrd`), the two pointers and the count are 13 registers, what the core has. Per 4 terms of 6 outputs: 1 load
  // and 2 extensions of w, 6 `ldrd` and 12 `smlad`, 21 instructions for 24 multiply-accumulates (0.875 each,
  // against 1.25 for the 2 x 2 tile that widens both operands in its loop).
  static constexpr std::size_t block_rows = arm_dsp_block_rows;
  /// The longest rows (K) the widened blocks take: a block's widened rows, block_rows * K * 2 bytes, are on the
  /// stack (3 KiB at most, `arm_dsp_product_scratch_bytes`); longer rows take the 2 x 2 tiles.
  static constexpr std::size_t widened_max_terms = arm_dsp_widened_max_terms;
  /// Whether a product of K terms takes the widened blocks.
  template <std::size_t K>
  static constexpr bool widens = K >= 1 && K <= widened_max_terms;

  /// The K % 4 bytes at p after the whole steps, in the low bytes of a word (the rest 0).
  template <std::size_t K>
  static std::uint32_t load_tail(const std::int8_t* p) noexcept {
    std::uint32_t word = 0;
    std::memcpy(&word, p, K % step);
    return word;
  }

  /// R rows of x (XS bytes apart) widened into `out` in the order the block's loop reads them: for each step of 4
  /// terms, row by row, the even bytes' halves then the odd bytes'; a last step of K % 4 terms padded with zeros.
  template <std::size_t K, std::size_t XS, std::size_t R>
  CTATTN_ALWAYS_INLINE static void widen_rows(const std::int8_t* x, std::int32_t* out) noexcept {
    for (std::size_t t = 0; t + step <= K; t += step) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_word(x + r * XS + t);
        out[0] = even_bytes(word);
        out[1] = odd_bytes(word);
        out += 2;
      }
    }
    if constexpr (K % step != 0) {
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t word = load_tail<K>(x + r * XS + K - K % step);
        out[0] = even_bytes(word);
        out[1] = odd_bytes(word);
        out += 2;
      }
    }
  }

  /// The raw sums of R <= 6 widened rows at xw (`widen_rows`) against one channel at w, K terms, added to s.
  // Rationale: in assembly for the reason `two_by_two` gives; the rows past R are left out by the assembler
  // (`.if`), their accumulators unused. The K % 4 terms left are one more step in C++, w's bytes read one by one
  // (a whole word could reach past the end of w) against x's zero padding.
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_column(const std::int32_t* xw, const std::int8_t* w,
                                                std::int32_t (&s)[block_rows]) noexcept {
    static_assert(R >= 1 && R <= block_rows);
    if constexpr (K >= step) block_steps<K, R>(xw, w, s);
    if constexpr (K % step != 0) {
      xw += K / step * R * 2;
      const std::uint32_t word = load_tail<K>(w + K - K % step);
      const std::int32_t w_even = even_bytes(word);
      const std::int32_t w_odd = odd_bytes(word);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) s[r] = __smlad(xw[2 * r + 1], w_odd, __smlad(xw[2 * r], w_even, s[r]));
    }
  }

  /// The whole steps of `block_column` (K >= 4).
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_steps(const std::int32_t* xw, const std::int8_t* w,
                                               std::int32_t (&s)[block_rows]) noexcept {
    constexpr bool pairs = (K / step) % 2 == 0;
    std::size_t steps = pairs ? K / step / 2 : K / step;
    std::int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5];
    std::int32_t w_even, w_odd, x_even, x_odd;
    asm volatile(
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldr %[we], [%[w]], #4\n\t"
        "sxtb16 %[wo], %[we], ror #8\n\t"
        "sxtb16 %[we], %[we]\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s0], %[xe], %[we], %[s0]\n\t"
        "smlad %[s0], %[xo], %[wo], %[s0]\n\t"
        ".if %c[rows] > 1\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s1], %[xe], %[we], %[s1]\n\t"
        "smlad %[s1], %[xo], %[wo], %[s1]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 2\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s2], %[xe], %[we], %[s2]\n\t"
        "smlad %[s2], %[xo], %[wo], %[s2]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 3\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s3], %[xe], %[we], %[s3]\n\t"
        "smlad %[s3], %[xo], %[wo], %[s3]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 4\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s4], %[xe], %[we], %[s4]\n\t"
        "smlad %[s4], %[xo], %[wo], %[s4]\n\t"
        ".endif\n\t"
        ".if %c[rows] > 5\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        "smlad %[s5], %[xe], %[we], %[s5]\n\t"
        "smlad %[s5], %[xo], %[wo], %[s5]\n\t"
        ".endif\n\t"
        ".endr\n\t"
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [x] "+r"(xw),
          [w] "+r"(w), [steps] "+r"(steps), [we] "=&r"(w_even), [wo] "=&r"(w_odd), [xe] "=&r"(x_even), [xo] "=&r"(x_odd)
        : [rows] "n"(R), [unroll] "n"(pairs ? 2 : 1)
        : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    s[4] = s4;
    s[5] = s5;
  }

  /// The R outputs of one channel (multiplier q, output zero point `zero`) from their int32 sums: TFLite's
  /// requantization, `kernels::output_requantizer`'s bits, in 5 instructions an output where the multiplier is
  /// normalized and the shift is to the right by 1 to 22 (every layer's, in practice).
  // Rationale: the doubling high multiply floor((x m + 2^30) / 2^31) is one `smmlar` of x, 2m - 2^32 (the
  // multiplier doubled, read as a signed word) and x: x 2^32 + x (2m - 2^32) + 2^31 = 2 x m + 2^31 in the
  // instruction's 64-bit sum, exact for every x and every m in [2^30, 2^31), the normalized multipliers (a smaller
  // one, such as 0, takes the general requantizer). Its result h is at least -2^31 + 1, so
  // h - (h < 0) cannot wrap; adding 2^(e-1) + zero 2^e with `qadd` and shifting right by e rounds half away from
  // zero and adds the zero point in one go (the constant fits while e <= 22), and where `qadd` saturates the true
  // value is past 2^(31 - e) >= 512 in magnitude, which `ssat` clamps the same way.
  template <std::size_t R>
  CTATTN_ALWAYS_INLINE static void requantize_column(const std::int32_t (&sums)[block_rows],
                                                     const math::quantized_multiplier& q, std::int32_t zero,
                                                     std::int8_t* y, std::size_t ys) noexcept {
    const auto doubled = static_cast<std::int32_t>(static_cast<std::uint32_t>(q.multiplier) << 1);
    if (q.multiplier < (1 << 30)) {
      const kernels::output_requantizer requantize{q.multiplier, q.shift, zero};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * ys] = requantize(sums[r]);
    } else if (q.shift >= 0) {
      const int left = q.shift;
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(sums[r]) << left);
        y[r * ys] = static_cast<std::int8_t>(
            kernels::signed_saturate<8>(__builtin_arm_qadd(kernels::rounded_high_sum(v, v, doubled), zero)));
      }
    } else if (q.shift >= -22) {
      const int right = -q.shift;
      const std::int32_t offset = (1 << (right - 1)) + zero * (1 << right);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::int32_t h = kernels::rounded_high_sum(sums[r], sums[r], doubled);
        const auto t = static_cast<std::int32_t>(static_cast<std::uint32_t>(h) - (static_cast<std::uint32_t>(h) >> 31));
        y[r * ys] = static_cast<std::int8_t>(kernels::signed_saturate<8>(__builtin_arm_qadd(t, offset) >> right));
      }
    } else {
      const kernels::output_requantizer requantize{q.multiplier, q.shift, zero};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) y[r * ys] = requantize(sums[r]);
    }
  }

  /// R <= 6 rows of x from row r0, widened once, against all N channels of w, into y.
  // Rationale: never inlined, so that the widened rows (up to 6 x K int16) are on the stack only while the block
  // runs. Inlined into a model's forward (GCC inlines a block used once), they joined that function's frame and were
  // live during every other layer's call too: 384 bytes more than the int8 sorter's footprint counts on the M4F.
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R,
            typename Epilogue>
  [[gnu::noinline]] static void widened_block(const std::int8_t* x, const std::int8_t* w, std::size_t r0,
                                              const Epilogue& e, std::int8_t* y) noexcept {
    alignas(8) std::int32_t xw[(K + step - 1) / step * R * 2];
    widen_rows<K, XS, R>(x, xw);
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sums[block_rows]{};
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) sums[r] = e.start(r0 + r, c);
      block_column<K, R>(xw, w + c * WS, sums);
      requantize_column<R>(sums, e.multiplier(c), e.zero, y + c, YS);
    }
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart). Where K is at most `widened_max_terms`, blocks of at most 6
  /// rows of x widened once (as equal as the rows allow), each against every channel in the order w is stored;
  /// else tiles of `tile_rows` x `tile_channels`, then the rows and channels left in narrower tiles.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    // Rationale: e by value, a local whose address is not taken: the int8 stores to y may alias anything, and the
    // epilogue's members would be loaded again after each of them.
    if constexpr (widens<K>) {
      constexpr std::size_t blocks = (M + block_rows - 1) / block_rows;
      constexpr std::size_t larger = (M + blocks - 1) / blocks;  // rows of the first M % blocks blocks (or all)
      constexpr std::size_t smaller = M / blocks;
      constexpr std::size_t larger_blocks = M % blocks == 0 ? blocks : M % blocks;
      std::size_t r = 0;
      for (std::size_t b = 0; b < larger_blocks; ++b, r += larger) {
        widened_block<K, N, XS, WS, YS, larger>(x + r * XS, w, r, e, y + r * YS);
      }
      if constexpr (larger_blocks < blocks) {
        for (std::size_t b = larger_blocks; b < blocks; ++b, r += smaller) {
          widened_block<K, N, XS, WS, YS, smaller>(x + r * XS, w, r, e, y + r * YS);
        }
      }
    } else {
      tiled_product<M, K, N, XS, WS, YS>(x, w, e, y);
    }
  }

  /// The 2 x 2 tiles of `product_requantized`, for rows that are not widened.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void tiled_product(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t whole = N - N % tile_channels;
    for (std::size_t c = 0; c < whole; c += tile_channels) {
      std::size_t r = 0;
      for (; r + tile_rows <= M; r += tile_rows) {
        tile<K, XS, WS, YS, tile_rows, tile_channels>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
      }
      for (; r < M; ++r) tile<K, XS, WS, YS, 1, tile_channels>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
    }
    for (std::size_t c = whole; c < N; ++c) {
      for (std::size_t r = 0; r < M; ++r) tile<K, XS, WS, YS, 1, 1>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
    }
  }
};

struct arm_dsp_int4_ops;  // kernels/arm_dsp_int4.hpp

/// The int8 table's arm_dsp row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::arm_dsp> {
  static constexpr const char* name = "arm_dsp";
  using ops = arm_dsp_int8_ops;
  using product_ops = arm_dsp_int8_ops;
  using packed_ops = void;
  using int4_ops = arm_dsp_int4_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_INT8_HPP
// ---------------------------------------- ctattn/kernels/arm_dsp_int4.hpp (continued)

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <bit>
#include <cstring>

namespace ctattn::detail {

struct arm_dsp_int4_ops : int4_ops_defaults {
  static constexpr bool has_fully_connected = true;
  /// Terms per packed word.
  static constexpr std::size_t step = 8;
  /// The most rows of x a widened block holds.
  static constexpr std::size_t block_rows = 6;
  /// Whether rows of K terms take this kernel.
  template <std::size_t K>
  static constexpr bool takes = K >= step && K % step == 0 && K <= arm_dsp_widened_max_terms;

  /// R rows of x (XS bytes apart) widened into `out` in the order `block_steps` reads them: for each 8 terms, each
  /// row's (x0, x4) and (x2, x6) halves, then each row's (x1, x5) and (x3, x7).
  template <std::size_t K, std::size_t XS, std::size_t R>
  CTATTN_ALWAYS_INLINE static void widen_rows(const std::int8_t* x, std::int32_t* out) noexcept {
    for (std::size_t t = 0; t < K; t += step) {
      std::uint32_t odd[R][2];
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        const std::uint32_t low = arm_dsp_int8_ops::load_word(x + r * XS + t);
        const std::uint32_t high = arm_dsp_int8_ops::load_word(x + r * XS + t + 4);
        const auto e0 = static_cast<std::uint32_t>(arm_dsp_int8_ops::even_bytes(low));   // x0, x2
        const auto e1 = static_cast<std::uint32_t>(arm_dsp_int8_ops::even_bytes(high));  // x4, x6
        const auto o0 = static_cast<std::uint32_t>(arm_dsp_int8_ops::odd_bytes(low));    // x1, x3
        const auto o1 = static_cast<std::uint32_t>(arm_dsp_int8_ops::odd_bytes(high));   // x5, x7
        out[2 * r] = std::bit_cast<std::int32_t>((e0 & 0xFFFFu) | (e1 << 16));
        out[2 * r + 1] = std::bit_cast<std::int32_t>((e1 & 0xFFFF0000u) | (e0 >> 16));
        odd[r][0] = (o0 & 0xFFFFu) | (o1 << 16);
        odd[r][1] = (o1 & 0xFFFF0000u) | (o0 >> 16);
      }
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        out[2 * R + 2 * r] = std::bit_cast<std::int32_t>(odd[r][0]);
        out[2 * R + 2 * r + 1] = std::bit_cast<std::int32_t>(odd[r][1]);
      }
      out += 4 * R;
    }
  }

  /// 16 times the raw sums of R <= 6 widened rows at xw (`widen_rows`) against one channel's K / 8 packed words
  /// at w, into s.
  // Rationale: in assembly for the reason arm_dsp_int8_ops::block_steps gives: 6 accumulators, the packed word,
  // two widened halves of it, a pair of x's words (`ldrd`), the two pointers and the count are 14 registers, the
  // core's 13 and the link register (saved by the compiler around the block, as the clobber asks). The rows past R
  // are left out by the assembler (`.if`).
  template <std::size_t K, std::size_t R>
  CTATTN_ALWAYS_INLINE static void block_steps(const std::int32_t* xw, const std::uint8_t* w,
                                               std::int32_t (&s)[block_rows]) noexcept {
    static_assert(R >= 1 && R <= block_rows && takes<K>);
    std::size_t steps = K / step;
    std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    std::uint32_t word, half_a, half_b, x_a, x_b;
#define CTATTN_ARM_DSP_INT4_ROW(N)         \
  ".if %c[rows] > " #N                     \
  "\n\t"                                   \
  "ldrd %[xa], %[xb], [%[x]], #8\n\t"      \
  "smlad %[s" #N "], %[xa], %[ha], %[s" #N \
  "]\n\t"                                  \
  "smlad %[s" #N "], %[xb], %[hb], %[s" #N \
  "]\n\t"                                  \
  ".endif\n\t"
    asm volatile(
        "1:\n\t"
        "ldr %[word], [%[w]], #4\n\t"
        "lsl %[ha], %[word], #4\n\t"
        "and %[ha], %[ha], #0xF0F0F0F0\n\t"
        "sxtb16 %[hb], %[ha], ror #8\n\t"
        "sxtb16 %[ha], %[ha]\n\t"
        CTATTN_ARM_DSP_INT4_ROW(0) CTATTN_ARM_DSP_INT4_ROW(1) CTATTN_ARM_DSP_INT4_ROW(2)
        CTATTN_ARM_DSP_INT4_ROW(3) CTATTN_ARM_DSP_INT4_ROW(4) CTATTN_ARM_DSP_INT4_ROW(5)
        "and %[word], %[word], #0xF0F0F0F0\n\t"
        "sxtb16 %[hb], %[word], ror #8\n\t"
        "sxtb16 %[ha], %[word]\n\t"
        CTATTN_ARM_DSP_INT4_ROW(0) CTATTN_ARM_DSP_INT4_ROW(1) CTATTN_ARM_DSP_INT4_ROW(2)
        CTATTN_ARM_DSP_INT4_ROW(3) CTATTN_ARM_DSP_INT4_ROW(4) CTATTN_ARM_DSP_INT4_ROW(5)
        "subs %[steps], %[steps], #1\n\t"
        "bne 1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [x] "+r"(xw),
          [w] "+r"(w), [steps] "+r"(steps), [word] "=&r"(word), [ha] "=&r"(half_a), [hb] "=&r"(half_b),
          [xa] "=&r"(x_a), [xb] "=&r"(x_b)
        : [rows] "n"(R)
        : "cc", "memory");
#undef CTATTN_ARM_DSP_INT4_ROW
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    s[4] = s4;
    s[5] = s5;
  }

  /// R <= 6 rows of x from row r0, widened once, against all N channels of the packing, into y.
  // Rationale: never inlined, as arm_dsp_int8_ops::widened_block, so that the widened rows are on the stack only
  // while the block runs.
  template <std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, std::size_t R, typename Epilogue>
  [[gnu::noinline]] static void widened_block(const std::int8_t* x, const std::uint8_t* packed, std::size_t r0,
                                              const Epilogue& e, std::int8_t* y) noexcept {
    alignas(8) std::int32_t xw[K / step * R * 4];
    widen_rows<K, XS, R>(x, xw);
    for (std::size_t c = 0; c < N; ++c) {
      std::int32_t sums[block_rows];
      block_steps<K, R>(xw, packed + c * (K / 2), sums);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < R; ++r) {
        // 16 times the sum, exact: one arithmetic shift, then the start (wrapping, as the int8 kernels add it).
        sums[r] = static_cast<std::int32_t>(static_cast<std::uint32_t>(sums[r] >> 4) +
                                            static_cast<std::uint32_t>(e.start(r0 + r, c)));
      }
      arm_dsp_int8_ops::requantize_column<R>(sums, e.multiplier(c), e.zero, y + c, YS);
    }
  }

  /// kernels/int4.hpp's `int4_fully_connected` at run time, for `takes<K>`: M rows of x (K bytes apart) against
  /// the N channels of the packing, into y (rows N apart), in blocks of at most 6 rows as equal as the rows allow.
  template <std::size_t M, std::size_t K, std::size_t N, typename Epilogue>
  static void fully_connected(const std::int8_t* x, const std::uint8_t* packed, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t blocks = (M + block_rows - 1) / block_rows;
    constexpr std::size_t larger = (M + blocks - 1) / blocks;
    constexpr std::size_t smaller = M / blocks;
    constexpr std::size_t larger_blocks = M % blocks == 0 ? blocks : M % blocks;
    std::size_t r = 0;
    for (std::size_t b = 0; b < larger_blocks; ++b, r += larger) {
      widened_block<K, N, K, N, larger>(x + r * K, packed, r, e, y + r * N);
    }
    if constexpr (larger_blocks < blocks) {
      for (std::size_t b = larger_blocks; b < blocks; ++b, r += smaller) {
        widened_block<K, N, K, N, smaller>(x + r * K, packed, r, e, y + r * N);
      }
    }
  }
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_DSP)

#endif  // CTATTN_KERNELS_ARM_DSP_INT4_HPP
// ---------------------------------------- ctattn/kernels/int4.hpp (continued)
// ---------------------------------------- ctattn/kernels/detail/int4_packing.hpp
#ifndef CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP
#define CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP

/// \file
/// TFLite's dense int4 packing, read one value at a time: what kernels/int4.hpp and the rows that unpack int4
/// weights themselves (kernels/helium_int8.hpp's tail) share.
///
/// | entity                     | what                                                         |
/// |----------------------------|--------------------------------------------------------------|
/// | `int4_packed_bytes<N, K>`  | (N K + 1) / 2 bytes                                          |
/// | `int4_value(packed, i)`    | value i, in [-8, 7]                                          |



namespace ctattn::detail::kernels {

/// The bytes of an N x K int4 packing: two values a byte, the last byte's high nibble unused when N K is odd.
template <std::size_t N, std::size_t K>
inline constexpr std::size_t int4_packed_bytes = (N * K + 1) / 2;

/// Value i of a dense int4 packing: the low nibble of byte i / 2 for even i, the high one for odd i, sign-extended.
///
/// Example: `const std::uint8_t p[1]{0x8F}; // int4_value(p, 0) == -1, int4_value(p, 1) == -8`
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr std::int8_t int4_value(const std::uint8_t* packed,
                                                                    std::size_t i) noexcept {
  const unsigned byte = packed[i / 2];
  const unsigned nibble = (i % 2 == 0 ? byte : byte >> 4) & 0xFu;
  return static_cast<std::int8_t>(static_cast<int>(nibble ^ 0x8u) - 8);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_DETAIL_INT4_PACKING_HPP
// ---------------------------------------- ctattn/kernels/int4.hpp (continued)
// ---------------------------------------- ctattn/kernels/int8.hpp
#ifndef CTATTN_KERNELS_INT8_HPP
#define CTATTN_KERNELS_INT8_HPP

/// \file
/// The int8 kernels, and the one place that decides how they compute. Their sums are integers, so every order
/// gives the same result: constant evaluation, the scalar loops and every backend agree bit for bit, and there is
/// no exact or fast arithmetic to choose (an int8 call takes no `ctattn::arithmetic`).
///
/// | kernel                                        | computes                                                  |
/// |-----------------------------------------------|-----------------------------------------------------------|
/// | `int8_dot_rows<KMax>(a, i, .., b, j0, .., k, n, out)` | out[j] = sum_t (a_i[t] - a_zero)(b_{j0+j}[t] - b_zero)|
/// | `requantize(c, multiplier, zero)`             | clamp(c times the multiplier, rounded, + zero): one value |
/// | `int8_window_product_requantized<M, K, N>(x, .., w, .., epilogue, y, ..)` | raw int8 products over windows, offset and requantized (docs/kernels.md) |
/// | `int8_product_requantized(x, w, epilogue, y)` | the same over whole arrays                                |
/// | `int8_fully_connected(x, w, start, multipliers, zero, y)` | a layer: the input zero point folded into start |
/// | `int8_window_product_zero_points<M, K, N>(..)`| (a - za)(b - zb)^T over windows, one multiplier           |
/// | `int8_column_starts<K, N>(..)`, `int8_window_product_from_starts<M, K, N>(..)` | the same in two steps, the first shared by products of one b |
/// | `int8_row_sum<K>(p)`                          | sum of K int8 values                                      |
/// | `int8_softmax_row<Method>(x, w, begin, end, table, visible)` | the int8 softmax of x[begin, end), `rounded_softmax` or `tflite_softmax` (quantized/softmax.hpp) |
/// | `int8_add_rows<..>(a, a_zero, b, b_zero, ..)` | TFLite's int8 ADD, element by element (quantized/add.hpp) |
/// | `int8_multiply_rows<..>(a, a_zero, b, b_zero, ..)` | TFLite's int8 MUL, element by element (quantized/hadamard.hpp) |
/// | `int8_add_row<..>(a, a_zero, b, b_zero, ..)`  | the same on one row (the int8 embedding's token and position rows) |
/// | `int8_lookup_rows(x, y, table)`               | y = table[x + 128] per element (quantized/activation.hpp) |
/// | `int8_layer_norm_rows(x, y, ...)`             | LayerNorm (or RMSNorm) of each row in integers (quantized/norm.hpp) |
///
/// The element-wise kernels have one integer form on every target, but for ADD on Helium (4 lanes, the same bits).
/// The products go through `int8_window_product_requantized`, whose backends docs/kernels.md describes. How `int8_dot_rows` (the x86 and NEON
/// form of the products, and int8 attention over sliding windows) computes:
///   1. constant evaluation: the scalar loop;
///   2. run time: the build's int8 backend through kernels/detail/int8_simd.hpp, where the target has one:
///
/// | target macros                                            | backend      | file                      | terms per step |
/// |----------------------------------------------------------|--------------|---------------------------|----------------|
/// | `__AVX512BW__` and `__AVX512VNNI__`                      | avx512_vnni  | kernels/avx512_int8.hpp   | 64             |
/// | `__AVX512BW__`                                           | avx512       | kernels/avx512_int8.hpp   | 32             |
/// | `__AVX2__` and `__AVXVNNI__`                             | avx2_vnni    | kernels/avx2_int8.hpp     | 16 (layers: 32) |
/// | `__AVX2__`                                               | avx2         | kernels/avx2_int8.hpp     | 16             |
/// | AArch64 with dot product and `__ARM_FEATURE_MATMUL_INT8` | neon_i8mm    | kernels/neon_int8.hpp     | 16 (layers: `smmla`) |
/// | AArch64 with `__ARM_FEATURE_DOTPROD` (`+dotprod`)        | neon_dotprod | kernels/neon_int8.hpp     | 16             |
/// | `__aarch64__` and `__ARM_NEON`                           | neon         | kernels/neon_int8.hpp     | 8              |
/// | `__ARM_FEATURE_MVE` (Clang, or GCC 13 and later)         | helium       | kernels/helium_int8.hpp   | 8              |
/// | `__ARM_FEATURE_DSP` (Cortex-M4, M7, M33, M55 with GCC)   | arm_dsp      | kernels/arm_dsp_int8.hpp  | 4              |
/// | `__ARM_ARCH_6M__` (Cortex-M0, M0+: the products only)    | armv6m       | kernels/armv6m_int8.hpp   | 1 (assembly)   |
/// | anything else (Cortex-M3, ...)                           | scalar       | this file                 | 1              |
///
/// These are the int8 table's rows (kernels/backend_rows.hpp), fastest first; each backend's file defines its row
/// where the target has its instructions, and `detail::int8_row` below is the first defined, chosen once. The
/// optional operations a backend may add (its own softmax, lookup, LayerNorm, product kernel, ...) are declared with
/// their defaults in kernels/detail/ops_defaults.hpp, and the kernels below read those declarations. Clang 14
/// does not enable the dot product with `-march=armv8.6-a+i8mm` (it defines `__ARM_FEATURE_MATMUL_INT8` alone and
/// rejects `vdotq_s32`): add `+dotprod` for the `neon_i8mm` row, else the build runs `neon`.
///
/// A layer's fully-connected product (`ctattn::qlinear`) has a third form where the build has a packed kernel
/// (AVX-512 VNNI, AVX-VNNI, AVX2, AArch64 `smmla` or `sdot`): its weights packed where the layer is made, read by
/// kernels/detail/int8_packed.hpp.
///
/// Example:
/// \code
///   const std::int8_t a[1][2]{{1, 2}}, b[1][2]{{3, 4}};   // b as rows of K
///   std::int8_t c[1][1]{};
///   constexpr ctattn::math::quantized_multiplier one_half{1 << 30, 0};
///   ctattn::detail::kernels::int8_product_transposed_requantized(a, b, 0, 0, one_half, 0, c);   // {{6}}: 11 / 2
/// \endcode


// ---------------------------------------- ctattn/kernels/armv6m_int8.hpp
#ifndef CTATTN_KERNELS_ARMV6M_INT8_HPP
#define CTATTN_KERNELS_ARMV6M_INT8_HPP

/// \file
/// The int8 product kernel of Armv6-M (Cortex-M0, M0+, M1: no DSP extension, no 32 x 32 -> 64 multiply, Thumb-1's
/// eight low registers): kernels/int8.hpp's `int8_product_requantized` at run time, one row of x against two
/// channels of w per call.
///
/// | step (per term of two outputs) | instructions                                                      |
/// |--------------------------------|-------------------------------------------------------------------|
/// | load x[t], w0[t], w1[t]        | 3 `ldrsb` with one index register for all three (from -K up to 0) |
/// | multiply and add               | 2 `muls`, 2 `add` into accumulators kept in high registers        |
/// | loop                           | `adds` of the index, `bne` on its flags (every second term where K is even) |
///
/// So 8.5 to 9 instructions per 2 multiply-accumulates, against about 17 for the C++ 2 x 2 tile as GCC 12 compiles it
/// for this core (which has too few low registers for the tile and spills).
///
/// Example: `ctattn::detail::armv6m_int8_ops::product_requantized<M, K, N, XS, WS, YS>(x, w, epilogue, y)`, on an
/// Armv6-M build.




#if defined(__ARM_ARCH_6M__)

namespace ctattn::detail {

struct armv6m_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  /// sums[0] += sum_t x[t] w[t], sums[1] += sum_t x[t] w[WS + t], t < K.
  // Rationale: in assembly, with every operand pinned to a register: the loop needs seven low registers (three
  // bases, the index, the loaded x and the two products) and GCC 12 fails to allocate them when the kernel is
  // inlined ("impossible constraints"), or spills the accumulators; called once per two outputs, it keeps the
  // accumulators in r8 and r9, which `add` reaches. Unified syntax for these lines, restored to divided where the
  // compiler emits that (GCC's default for Thumb-1 without -masm-syntax-unified).
  template <std::size_t K, std::size_t WS>
  [[gnu::noinline]] static void channel_pair(const std::int8_t* x, const std::int8_t* w, std::int32_t* sums) noexcept {
    static_assert(K >= 1 && K <= 0x7FFFFFFF && WS >= K);
    register const std::int8_t* x_end asm("r0") = x + K;
    register const std::int8_t* first_end asm("r1") = w + K;
    register const std::int8_t* second_end asm("r2") = w + WS + K;
    register std::int32_t index asm("r3") = -static_cast<std::int32_t>(K);
    register std::int32_t value asm("r4");
    register std::int32_t first_product asm("r5");
    register std::int32_t second_product asm("r6");
    register std::int32_t first_sum asm("r8") = sums[0];
    register std::int32_t second_sum asm("r9") = sums[1];
    asm volatile(
        ".syntax unified\n\t"
        "1:\n\t"
        ".rept %c[unroll]\n\t"
        "ldrsb %[v], [%[x], %[k]]\n\t"
        "ldrsb %[p0], [%[w0], %[k]]\n\t"
        "ldrsb %[p1], [%[w1], %[k]]\n\t"
        "muls %[p0], %[v], %[p0]\n\t"
        "add %[s0], %[p0]\n\t"
        "muls %[p1], %[v], %[p1]\n\t"
        "add %[s1], %[p1]\n\t"
        "adds %[k], #1\n\t"
        ".endr\n\t"
        "bne 1b\n\t"
#if !defined(__ARM_ASM_SYNTAX_UNIFIED__) && !defined(__clang__)
        ".syntax divided\n\t"
#endif
        : [s0] "+r"(first_sum), [s1] "+r"(second_sum), [k] "+l"(index), [v] "=&l"(value), [p0] "=&l"(first_product),
          [p1] "=&l"(second_product)
        : [x] "l"(x_end), [w0] "l"(first_end), [w1] "l"(second_end), [unroll] "n"(K % 2 == 0 ? 2 : 1)
        : "cc", "memory");
    sums[0] = first_sum;
    sums[1] = second_sum;
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: M rows of x (XS bytes apart) against N channels of
  /// w (WS apart), K terms each, into y (rows YS apart); channels in pairs, each pair's requantizers set up once for
  /// all rows, then the last channel alone where N is odd.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    constexpr std::size_t pairs = N / 2;
    for (std::size_t c = 0; c < 2 * pairs; c += 2) {
      const kernels::output_requantizer first = e.requantizer(c);
      const kernels::output_requantizer second = e.requantizer(c + 1);
      for (std::size_t r = 0; r < M; ++r) {
        std::int32_t sums[2] = {e.start(r, c), e.start(r, c + 1)};
        channel_pair<K, WS>(x + r * XS, w + c * WS, sums);
        y[r * YS + c] = first(sums[0]);
        y[r * YS + c + 1] = second(sums[1]);
      }
    }
    if constexpr (N % 2 == 1) {
      constexpr std::size_t c = N - 1;
      const kernels::output_requantizer last = e.requantizer(c);
      for (std::size_t r = 0; r < M; ++r) {
        std::int32_t sum = e.start(r, c);
        const std::int8_t* in = x + r * XS;
        const std::int8_t* weight = w + c * WS;
        for (std::size_t t = 0; t < K; ++t) {
          sum = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum) +
                                          static_cast<std::uint32_t>(std::int32_t{in[t]} * weight[t]));
        }
        y[r * YS + c] = last(sum);
      }
    }
  }
};

// Rationale: Armv6-M has no integer SIMD, so no dot-product operations (`ops` is void and the other int8 kernels run
// their scalar loops); its row runs the layers' products, in assembly.
/// The int8 table's armv6m row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::armv6m> {
  static constexpr const char* name = "armv6m";
  using ops = void;
  using product_ops = armv6m_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_ARCH_6M__)

#endif  // CTATTN_KERNELS_ARMV6M_INT8_HPP
// ---------------------------------------- ctattn/kernels/int8.hpp (continued)
// ---------------------------------------- ctattn/kernels/avx2_int8.hpp
#ifndef CTATTN_KERNELS_AVX2_INT8_HPP
#define CTATTN_KERNELS_AVX2_INT8_HPP

/// \file
/// The AVX2 int8 backend (x86-64): the int8 operations of kernels/detail/int8_simd.hpp on 16 terms per step in ymm
/// registers, and the packed fully-connected kernels of kernels/detail/int8_packed.hpp on 8 channels per register,
/// with AVX2 alone and with AVX-VNNI. kernels/int8.hpp includes it and chooses its rows.
///
/// Example: `static_assert(ctattn::detail::avx2_int8_ops::step == 16);` (on an AVX2 target)


// ---------------------------------------- ctattn/kernels/detail/int8_packed.hpp
#ifndef CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
#define CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP

/// \file
/// The int8 fully-connected product on weights packed for a dot-product instruction, written once over a backend's
/// operations (kernels/int8.hpp chooses the backend: AVX-512 VNNI, AVX-VNNI, AArch64 `smmla` or `sdot`, or AVX2's
/// `vpmaddwd` where there is no dot product of bytes). A layer's weights are constants, so `ctattn::qlinear` packs them where
/// it is made (by the compiler, for a constexpr layer), with everything the requantization needs per channel: the
/// kernel reads one stream of weights, broadcasts a group of inputs (4 bytes) at a time, and requantizes a vector of
/// channels at once.
///
/// | entity                              | meaning                                                           |
/// |-------------------------------------|-------------------------------------------------------------------|
/// | `lane_format<Lanes, Offset, Group>` | channels in lane order, `output_requantizer`'s constants per lane |
/// | `paired_format`                     | AVX-512's: channels 0-7 even lanes, 8-15 odd, 64-bit constants    |
/// | `packed_weights<N, K, Format>`      | N x K int8 weights in blocks of Lanes channels x Group inputs     |
/// | `packed_product<Ops, M, K, N>(...)` | y = requantize(x W^T + start) with Ops's instructions (`exact()`) |
/// | `runtime_panel<Format, K, Blocks>`  | a panel of a run-time operand's channels, packed on the stack     |
/// | `runtime_product<Ops, M, K, N>(...)`| the same product where W is known only at run time (one multiplier) |
///
/// The layout (Lanes channels per vector, K rounded up to a whole group of G = Format::group inputs, N to Lanes, the
/// padding 0), where lane l of block b holds channel c = b Lanes + (the c % Lanes whose Format::lane_of is l):
///
/// | bytes                                 | holds                                                        |
/// |---------------------------------------|--------------------------------------------------------------|
/// | `weight[b B + G Lanes g + G l + q]`   | w[c][G g + q], for block b, group g; B = block_bytes         |
/// | `start[b Lanes + l]`                  | channel c's folded bias - input_offset sum_t w[c][t]         |
/// | `requant`                             | the Format's constants for each channel's requantization     |
///
/// A lane of the dot-product instruction sums 4 products of 4 consecutive inputs (broadcast to every lane) with
/// the 4 weights of its channel. x86's `vpdpbusd` multiplies unsigned bytes by signed ones: the inputs are the
/// unsigned operand, x + 128 (input_offset 128), staged tile by tile into a buffer on the stack (`stage_rows`), and
/// each channel's sum then holds 128 sum_t w[c][t] too, a constant taken away from its start when it is packed.
/// AVX2 without VNNI has no exact product of bytes (`vpmaddubsw` saturates at 16 bits): its groups are 2 inputs,
/// staged as int16 (4 bytes still), and 2 weights per channel, widened as they are loaded; `vpmaddwd` sums the 2
/// products of each lane into 32 bits. AArch64's `smmla` (i8mm) multiplies a 2 x 8 block of inputs (two rows) by
/// 8 x 2 weights (two channels) into a 2 x 2 block of sums: its groups are 8 inputs, a block of 4 channels is two
/// such pairs, and the rows are taken in pairs (`packed_pair_tile`).
///
/// What a backend `Ops` provides (kernels/avx512_int8.hpp, avx2_int8.hpp, neon_int8.hpp; `pack_block` optional,
/// declared with its default in kernels/detail/ops_defaults.hpp):
///
/// | member                                   | meaning                                                        |
/// |------------------------------------------|----------------------------------------------------------------|
/// | `format`                                 | its layout: `lane_format<...>` or `paired_format`              |
/// | `stage_row(dst, x, k, n)`                | a staged row of n bytes: k inputs as read, then inputs 0       |
/// | `tile_rows`, `accumulators`, `max_panel` | the tile: rows at most, accumulators in all, blocks per row    |
/// | `accumulator`, `requantizer`             | a vector of int32 sums; a block's requantization in registers  |
/// | `load_start`                             | a block's starts                                               |
/// | `load_weights(p)`, `broadcast_group(p)`  | a block's weights for a group; a group's 4 bytes in every lane |
/// | `dot_group(sum, inputs, weights)`        | sum + per lane the dot product of the group and its weights    |
/// | `make_requantizer(r, c, zero)`           | the requantization of the block from channel c                 |
/// | `store_requantized(y, sum, q, valid)`    | the block's first `valid` channels requantized and stored      |
/// | `add_row_start(sum, r)`                  | sum + r in every lane (a row's start, `runtime_product`)       |
///
/// Example:
/// \code
///   using ctattn::detail::int8_packed::packed_weights, ctattn::detail::int8_packed::paired_format;
///   static_assert(sizeof(packed_weights<3, 5, paired_format>::weight) == 2 * 64);  // 1 block, 2 groups of 4 inputs
/// \endcode
// Rationale: the unsigned operand is the inputs, so that the offset's term, 128 sum_t w[c][t], is a constant of the
// layer, folded into its starts by the compiler; the other way round (weights + 128) each row's sum of inputs had
// to be taken away at run time, a horizontal sum per row that cost 11% of a 64 x 64 x 64 layer (measured, Zen 4),
// where staging the inputs costs a vector instruction per 64 bytes.



namespace ctattn::detail::int8_packed {

/// The layout of a backend whose channels sit in its lanes in order, each requantized as `output_requantizer` does
/// it in 32-bit lanes: the multiplier, the shift split into its left and right parts, and the right shift's
/// rounding bit (AVX-VNNI with 8 lanes and inputs + 128; `sdot` with 4 lanes, inputs as they are; `smmla` the same
/// with groups of 8; AVX2 with 8 lanes, groups of 2 inputs staged as int16).
///
/// Example:
/// \code
///   static_assert(ctattn::detail::int8_packed::lane_format<4, 0>::lane_of(3) == 3);
/// \endcode
template <std::size_t Lanes, int InputOffset, std::size_t Group = 4>
struct lane_format {
  static_assert(Group == 8 || Group == 4 || Group == 2, "a group is 8 or 4 int8 inputs, or 2 widened to int16");
  static constexpr std::size_t lanes = Lanes;
  static constexpr int input_offset = InputOffset;
  /// Inputs per group: a lane's products summed by one instruction.
  static constexpr std::size_t group = Group;
  /// Bytes of a staged input: 2 where the inputs are widened to int16 (groups of 2), else 1.
  static constexpr std::size_t input_bytes = Group == 2 ? 2 : 1;
  /// The lane of a block's channel c.
  static constexpr std::size_t lane_of(std::size_t c) noexcept { return c; }

  /// Each channel's requantization at its lane.
  template <std::size_t Columns>
  struct requantization {
    std::int32_t multiplier[Columns]{};
    std::int32_t left[Columns]{};
    std::int32_t right[Columns]{};
    std::int32_t right_less_one[Columns]{};
    std::int32_t round_bit[Columns]{};

    /// Channel c's multiplier, at `lane` (block * Lanes + lane_of); the output zero point is added at run time.
    constexpr void set(std::size_t, std::size_t lane, const math::quantized_multiplier& m, std::int32_t) noexcept {
      multiplier[lane] = m.multiplier;
      left[lane] = m.shift > 0 ? m.shift : 0;
      right[lane] = m.shift > 0 ? 0 : -m.shift;
      right_less_one[lane] = right[lane] > 0 ? right[lane] - 1 : 0;
      round_bit[lane] = right[lane] > 0 ? 1 : 0;
    }
    /// Every lane as `set` makes channel 0's with m (one multiplier for every channel: a run-time product's).
    // Rationale: from locals, one array at a time, so that each loop is a run of vector stores (as below).
    constexpr void set_all(const math::quantized_multiplier& m, std::int32_t zero) noexcept {
      set(0, 0, m, zero);
      const auto fill = [](std::int32_t(&array)[Columns]) {
        const std::int32_t value = array[0];
        for (std::size_t lane = 1; lane < Columns; ++lane) array[lane] = value;
      };
      fill(multiplier);
      fill(left);
      fill(right);
      fill(right_less_one);
      fill(round_bit);
    }
    /// Whether the kernel computes every channel exactly: always.
    [[nodiscard]] constexpr bool exact() const noexcept { return true; }
    friend constexpr bool operator==(const requantization&, const requantization&) = default;
  };
};

/// The layout of AVX-512 VNNI: 16 lanes, inputs + 128, a block's channels 0-7 in the even lanes and 8-15 in the
/// odd ones, so that the two halves requantize in 64-bit lanes and saturate to int8 in channel order (`vpmovsqb`).
/// Channel c's requantization as 64-bit constants: y = ((x << left) m + addend - (negative if the product is
/// below -2^30)) >> shift, which is `output_requantizer`'s two roundings and its zero point in one: the doubling
/// high product's floor((p + 2^30) / 2^31), then the division by 2^right with ties away from zero, then + zero, are
/// floor((p + 2^30 + 2^(30 + right) + zero 2^(31 + right) - [p < -2^30] 2^31) / 2^(31 + right)) (no 2^(30 + right)
/// nor 2^31 term where right = 0). |p| < 2^62, so the sum fits 64 bits while right <= 23; a layer with a channel
/// scaled below 2^-24 is not `exact()` and takes the plain kernel. Each 64-bit constant is two int32 (low first),
/// so that the layout keeps an int32's alignment.
///
/// Example:
/// \code
///   static_assert(ctattn::detail::int8_packed::paired_format::lane_of(9) == 3);  // channel 9: the second odd lane
/// \endcode
struct paired_format {
  static constexpr std::size_t lanes = 16;
  static constexpr int input_offset = 128;
  static constexpr std::size_t group = 4;
  static constexpr std::size_t input_bytes = 1;
  static constexpr std::size_t lane_of(std::size_t c) noexcept { return c < 8 ? 2 * c : 2 * (c - 8) + 1; }

  template <std::size_t Columns>
  struct requantization {
    std::int32_t left[Columns]{};            // at each channel's lane
    std::int32_t multiplier[2 * Columns]{};  // the others in channel order, 64 bits each
    std::int32_t addend[2 * Columns]{};
    std::int32_t negative[2 * Columns]{};
    std::int32_t shift[2 * Columns]{};
    std::int32_t folds_every_zero = 1;  // every channel's right shift is at most 23
    // Rationale: a word more, so that the form is a multiple of 8 bytes (40 per channel, 8 here): an int8 model's
    // layers sit beside 8-aligned members (scales kept as doubles' bits), and a layer of 4 bytes mod 8 would pad the
    // model past the sum of its layers' sizes, its footprint (examples/verified_model/int8_sorter.hpp asserts both
    // equal).
    std::int32_t unused = 0;

    constexpr void set(std::size_t c, std::size_t lane, const math::quantized_multiplier& m,
                       std::int32_t zero) noexcept {
      const int right = m.shift > 0 ? 0 : -m.shift;
      if (right > 23) folds_every_zero = 0;
      const std::int64_t zero_term =
          right > 23
              ? 0
              : static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(zero)) << (31 + right));
      left[lane] = m.shift > 0 ? m.shift : 0;
      put(multiplier, c, m.multiplier);
      put(addend, c, (std::int64_t{1} << 30) + (right > 0 ? std::int64_t{1} << (30 + right) : 0) + zero_term);
      put(negative, c, right > 0 ? std::int64_t{1} << 31 : 0);
      put(shift, c, 31 + right);
    }
    /// Every channel as `set` makes channel 0's with m (one multiplier for every channel: a run-time product's).
    // Rationale: channel 0's words from locals, one array at a time, so that each loop is a run of vector stores:
    // copied in one loop from the array's own first words, the 64 channels of a run-time panel took 9% of int8
    // attention's time at (16, 64) on Zen 4.
    constexpr void set_all(const math::quantized_multiplier& m, std::int32_t zero) noexcept {
      set(0, 0, m, zero);
      const std::int32_t first_left = left[0];
      for (std::size_t lane = 1; lane < Columns; ++lane) left[lane] = first_left;
      const auto fill = [](std::int32_t(&array)[2 * Columns]) {
        const std::int32_t low = array[0];
        const std::int32_t high = array[1];
        for (std::size_t c = 1; c < Columns; ++c) {
          array[2 * c] = low;
          array[2 * c + 1] = high;
        }
      };
      fill(multiplier);
      fill(addend);
      fill(negative);
      fill(shift);
    }
    /// Whether the kernel computes every channel exactly (the zero point folded into every addend).
    [[nodiscard]] constexpr bool exact() const noexcept { return folds_every_zero != 0; }
    friend constexpr bool operator==(const requantization&, const requantization&) = default;

    /// The 64-bit constant of channel c.
    constexpr std::int64_t get(const std::int32_t (&array)[2 * Columns], std::size_t c) const noexcept {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(array[2 * c + 1])) << 32 |
                                       static_cast<std::uint32_t>(array[2 * c]));
    }

   private:
    static constexpr void put(std::int32_t (&array)[2 * Columns], std::size_t c, std::int64_t value) noexcept {
      const auto bits = static_cast<std::uint64_t>(value);
      array[2 * c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
      array[2 * c + 1] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 32));
    }
  };
};

/// N x K int8 weights packed in a backend's Format (see the file's table), with the per-channel start at each
/// channel's lane and the Format's requantization. Made from the layer's weights, folded biases, multipliers and
/// output zero point.
template <std::size_t N, std::size_t K, typename Format>
struct packed_weights {
  static constexpr std::size_t lanes = Format::lanes;
  static constexpr std::size_t group = Format::group;
  static constexpr std::size_t blocks = (N + lanes - 1) / lanes;
  static constexpr std::size_t groups = (K + group - 1) / group;
  /// Bytes of a block's weights for one group, and of a row's staged inputs for one group.
  static constexpr std::size_t group_bytes = group * lanes;
  static constexpr std::size_t input_group_bytes = group * Format::input_bytes;
  static constexpr std::size_t columns = blocks * lanes;
  static constexpr int input_offset = Format::input_offset;
  /// Bytes from a block's weights to the next's: its groups, and a cache line more where that would be a multiple
  /// of 4 KiB.
  // Rationale: a one-row product reads up to 8 blocks side by side; 4 KiB apart (K = 512 x 16 channels is 8 KiB),
  // every stream maps to the same set of a 32 KiB 8-way L1 and they evict one another (measured on Zen 4:
  // 1 x 512 x 512 took 20% longer than 1 x 516 x 512).
  static constexpr std::size_t block_bytes = groups * group_bytes + (groups * group_bytes % 4096 == 0 ? 64 : 0);

  std::int8_t weight[blocks * block_bytes]{};
  std::int32_t start[columns]{};
  typename Format::template requantization<columns> requant{};

  constexpr packed_weights() noexcept = default;

  constexpr packed_weights(const std::int8_t (&w)[N][K], const std::int32_t (&folded_bias)[N],
                           const math::quantized_multiplier (&multipliers)[N], std::int32_t zero) noexcept {
    for (std::size_t c = 0; c < N; ++c) {
      const std::size_t lane = lane_of_channel(c);
      start[lane] = start_of(folded_bias[c], place(weight, c, w[c]));
      requant.set(c, lane, multipliers[c], zero);
    }
  }

  /// Channel c's lane among the columns: its block's first lane + Format::lane_of.
  static constexpr std::size_t lane_of_channel(std::size_t c) noexcept {
    return c / lanes * lanes + Format::lane_of(c % lanes);
  }
  /// Channel c's K weights (`row`; null: all 0) written where the layout keeps them in `weights` (blocks block_bytes
  /// apart), the last group's padding 0; returns their sum.
  static constexpr std::int32_t place(std::int8_t* weights, std::size_t c, const std::int8_t* row) noexcept {
    std::int8_t* const to = weights + c / lanes * block_bytes + Format::lane_of(c % lanes) * group;
    std::int32_t sum = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      for (std::size_t q = 0; q < group; ++q) {
        const std::size_t t = g * group + q;
        const std::int8_t v = row != nullptr && t < K ? row[t] : std::int8_t{0};
        to[g * group_bytes + q] = v;
        sum += v;
      }
    }
    return sum;
  }
  /// The start of a channel whose K weights sum to `sum`: its folded bias less input_offset sum, modulo 2^32 as the
  /// folded bias and the kernel's sums are (input_offset sum fits: |sum| <= 128 K).
  static constexpr std::int32_t start_of(std::int32_t folded_bias, std::int32_t sum) noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(folded_bias) -
                                     static_cast<std::uint32_t>(input_offset * sum));
  }

  /// Whether `packed_product` gives every output of this layer exactly (else the plain kernel does).
  [[nodiscard]] constexpr bool exact() const noexcept { return requant.exact(); }

  friend constexpr bool operator==(const packed_weights&, const packed_weights&) = default;
};

/// What a layer keeps where the build has no packed kernel: nothing.
struct no_packed_weights {
  constexpr no_packed_weights() noexcept = default;
  template <typename... From>
  constexpr explicit no_packed_weights(const From&...) noexcept {}
  friend constexpr bool operator==(no_packed_weights, no_packed_weights) = default;
};

/// The packed form of an N x K layer for the backend `Ops` (`void`: none).
template <typename Ops, std::size_t N, std::size_t K>
struct packed_type {
  using type = no_packed_weights;
};
template <typename Ops, std::size_t N, std::size_t K>
  requires(!std::is_void_v<Ops>)
struct packed_type<Ops, N, K> {
  using type = packed_weights<N, K, typename Ops::format>;
  // Rationale: no alignment above an int32's (the kernel's loads are unaligned ones): a layer holding a 64-byte
  // aligned member would pad every model that holds the layer, and a model's footprint, the sum of its layers'
  // sizes, would no longer be its size (examples/verified_model/int8_sorter.hpp asserts they are equal).
  static_assert(alignof(type) == alignof(std::int32_t));
  // ... and a multiple of 8 bytes, for the same reason beside 8-aligned members (see paired_format::unused).
  static_assert(sizeof(type) % 8 == 0);
};

/// Whether the kernel reads x through a staging buffer: where the Format offsets or widens the inputs, or K is not
/// a whole number of groups (the buffer's rows end in zeros).
template <typename Format, std::size_t K>
inline constexpr bool staged = Format::input_offset != 0 || Format::input_bytes != 1 || K % Format::group != 0;

/// Bytes from a staged row to the next: K rounded up to a whole group, Format::input_bytes each.
template <typename Format, std::size_t K>
inline constexpr std::size_t staged_stride =
    (K + Format::group - 1) / Format::group * Format::group * Format::input_bytes;

/// The rows of a tile at most, on every backend: a staging buffer holds at most this many rows...
inline constexpr std::size_t max_tile_rows = 8;
/// ... or this many, on a backend whose groups are 2 inputs widened to int16 (twice the bytes per row).
inline constexpr std::size_t max_widened_tile_rows = 4;

/// The stack bytes the staged rows of an M x K product take at most, on any backend: 8 rows of K bytes rounded up
/// to a group of 8 (the largest group of int8 inputs), or 4 rows of K int16 rounded up to 2.
template <std::size_t M, std::size_t K>
inline constexpr std::size_t most_staged_bytes = [] {
  const std::size_t bytes = (M < max_tile_rows ? M : max_tile_rows) * ((K + 7) / 8 * 8);
  const std::size_t widened = (M < max_widened_tile_rows ? M : max_widened_tile_rows) * ((K + 1) / 2 * 4);
  return bytes > widened ? bytes : widened;
}();

/// The rows [0, rows) of x, XS elements apart, written to `to` as the kernel reads them: by the backend's
/// `stage_row` (+ input_offset, or widened), or as they are with zeros after K.
template <typename Ops, std::size_t K, std::size_t XS>
inline void stage_rows(std::int8_t* to, const std::int8_t* x, std::size_t rows) noexcept {
  constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
  for (std::size_t r = 0; r < rows; ++r) {
    if constexpr (Ops::format::input_offset != 0 || Ops::format::input_bytes != 1) {
      Ops::stage_row(to + r * stride, x + r * XS, K, stride);
    } else {
      for (std::size_t t = 0; t < K; ++t) to[r * stride + t] = x[r * XS + t];
      for (std::size_t t = K; t < stride; ++t) to[r * stride + t] = 0;
    }
  }
}

/// One tile: rows [0, MR) of x (as the kernel reads them, x_stride apart) against NV blocks of channels from block
/// `block`, written to y; the last block has `Valid` channels (Lanes: all). Where `row_start` is given, row i's
/// sums start from row_start[i] more (a run-time product's zero-point term of each row, `runtime_product`).
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, typename P>
inline void packed_tile(const std::int8_t* x, std::size_t x_stride, const P& p, std::size_t block, std::int32_t zero,
                        std::int8_t* y, std::size_t y_stride, const std::int32_t* row_start = nullptr) noexcept {
  using acc = typename Ops::accumulator;
  constexpr std::size_t lanes = P::lanes;
  constexpr std::size_t block_bytes = P::block_bytes;
  constexpr std::size_t group_bytes = P::group_bytes;
  acc sums[MR][NV];
  for (std::size_t j = 0; j < NV; ++j) {
    const acc start = Ops::load_start(p.start + (block + j) * lanes);
    for (std::size_t i = 0; i < MR; ++i) sums[i][j] = row_start ? Ops::add_row_start(start, row_start[i]) : start;
  }
  const std::int8_t* w = p.weight + block * block_bytes;
  for (std::size_t g = 0; g < P::groups; ++g) {
    acc w_vectors[NV];
    for (std::size_t j = 0; j < NV; ++j) w_vectors[j] = Ops::load_weights(w + j * block_bytes + g * group_bytes);
    for (std::size_t i = 0; i < MR; ++i) {
      const acc inputs = Ops::broadcast_group(x + i * x_stride + g * P::input_group_bytes);
      for (std::size_t j = 0; j < NV; ++j) sums[i][j] = Ops::dot_group(sums[i][j], inputs, w_vectors[j]);
    }
  }
  for (std::size_t j = 0; j < NV; ++j) {
    const std::size_t c = (block + j) * lanes;
    const typename Ops::requantizer r = Ops::make_requantizer(p.requant, c, zero);
    for (std::size_t i = 0; i < MR; ++i) {
      Ops::store_requantized(y + i * y_stride + c, sums[i][j], r, j == NV - 1 ? Valid : lanes);
    }
  }
}

/// `packed_tile` for a Format whose instruction multiplies a pair of rows by a pair of channels (`smmla`: groups of
/// 8, blocks of 4 channels as two pairs): rows [0, MR) in pairs, the last one paired with itself where MR is odd (its
/// copy's sums are not stored). A sum vector holds rows r, r + 1 x channels c, c + 1 as (r c, r c+1, r+1 c, r+1 c+1);
/// `Ops::first_row` and `second_row` gather a block's 4 channels of one row from its two pairs for the requantization.
///
/// What such a backend `Ops` provides beyond `packed_tile`'s members (`broadcast_group` and `dot_group` aside):
///
/// | member                                  | meaning                                                          |
/// |-----------------------------------------|------------------------------------------------------------------|
/// | `load_pair_start(p)`                    | the starts of channels p[0], p[1], for both rows                 |
/// | `load_weights(p)`                       | a channel pair's 8 x 2 weights (16 bytes)                        |
/// | `pair_rows(first, second)`              | 8 inputs of two rows (16 bytes)                                  |
/// | `multiply_pair(sum, rows, weights)`     | sum + the 2 x 2 products of the rows' and channels' 8 terms      |
/// | `first_row(a, b)`, `second_row(a, b)`   | one row's sums of the pairs a (channels 0, 1) and b (2, 3)       |
/// | `add_pair_row_starts(sum, r0, r1)`      | sum + (r0, r0, r1, r1): two rows' starts (`row_start`)           |
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, typename P>
inline void packed_pair_tile(const std::int8_t* x, std::size_t x_stride, const P& p, std::size_t block,
                             std::int32_t zero, std::int8_t* y, std::size_t y_stride,
                             const std::int32_t* row_start = nullptr) noexcept {
  static_assert(P::lanes == 4 && P::group == 8, "blocks of two channel pairs, groups of 8 inputs");
  using acc = typename Ops::accumulator;
  constexpr std::size_t pairs = (MR + 1) / 2;
  constexpr std::size_t block_bytes = P::block_bytes;
  acc sums[pairs][NV][2];
  for (std::size_t j = 0; j < NV; ++j) {
    for (std::size_t h = 0; h < 2; ++h) {
      const acc start = Ops::load_pair_start(p.start + (block + j) * 4 + 2 * h);
      for (std::size_t i = 0; i < pairs; ++i) {
        sums[i][j][h] =
            row_start ? Ops::add_pair_row_starts(start, row_start[2 * i], row_start[2 * i + 1 < MR ? 2 * i + 1 : 2 * i])
                      : start;
      }
    }
  }
  const std::int8_t* w = p.weight + block * block_bytes;
  for (std::size_t g = 0; g < P::groups; ++g) {
    acc w_vectors[NV][2];
    for (std::size_t j = 0; j < NV; ++j) {
      for (std::size_t h = 0; h < 2; ++h) {
        w_vectors[j][h] = Ops::load_weights(w + j * block_bytes + g * P::group_bytes + 16 * h);
      }
    }
    for (std::size_t i = 0; i < pairs; ++i) {
      const std::int8_t* first = x + 2 * i * x_stride + g * P::input_group_bytes;
      const acc rows = Ops::pair_rows(first, 2 * i + 1 < MR ? first + x_stride : first);
      for (std::size_t j = 0; j < NV; ++j) {
        for (std::size_t h = 0; h < 2; ++h) sums[i][j][h] = Ops::multiply_pair(sums[i][j][h], rows, w_vectors[j][h]);
      }
    }
  }
  for (std::size_t j = 0; j < NV; ++j) {
    const std::size_t c = (block + j) * 4;
    const std::size_t valid = j == NV - 1 ? Valid : 4;
    const typename Ops::requantizer r = Ops::make_requantizer(p.requant, c, zero);
    for (std::size_t i = 0; i < pairs; ++i) {
      Ops::store_requantized(y + 2 * i * y_stride + c, Ops::first_row(sums[i][j][0], sums[i][j][1]), r, valid);
      if (2 * i + 1 < MR) {
        Ops::store_requantized(y + (2 * i + 1) * y_stride + c, Ops::second_row(sums[i][j][0], sums[i][j][1]), r, valid);
      }
    }
  }
}

/// Whether Ops multiplies pairs of rows by pairs of channels (`packed_pair_tile`) rather than broadcasting a row's
/// group to every channel (`packed_tile`).
template <typename Ops>
inline constexpr bool pairs_rows = Ops::format::group == 8;

/// The tile of a product of M rows by `blocks` blocks of channels: `rows` rows x `panel` blocks, within the
/// backend's accumulators.
// Rationale: a tile's inner step loads `panel` vectors of weights and broadcasts `rows` groups of inputs for
// rows x panel instructions, so the squarest tile that fits does the most work per load: 6 x 4 on AVX-512 where the
// blocks come in fours (a panel of 3 would leave a panel of 1, a load per instruction) and the rows fill a tall
// tile, else the backend's tallest (8 x 3); fewer rows than that are one tile, as wide as their accumulators allow
// (7 rows: 3 blocks; one row: 8 blocks).
template <typename Ops, std::size_t M, std::size_t Blocks>
struct tile_shape {
  static_assert(Ops::tile_rows <= max_tile_rows);
  static constexpr std::size_t square_rows = Ops::accumulators / 4;
  static constexpr bool square = M >= Ops::tile_rows && Blocks % 4 == 0;
  static constexpr std::size_t rows = square ? square_rows : (M < Ops::tile_rows ? M : Ops::tile_rows);
  static constexpr std::size_t wide = Ops::accumulators / rows;
  static constexpr std::size_t panel = square ? 4 : (wide < 1 ? 1 : (wide > Ops::max_panel ? Ops::max_panel : wide));
};

/// Rows [0, MR) of x against the NV blocks from `block`, staged first where `Stage` says.
template <typename Ops, std::size_t MR, std::size_t NV, std::size_t Valid, std::size_t K, std::size_t XS,
          std::size_t YS, bool Stage, typename P>
inline void packed_rows(const std::int8_t* x, const P& p, std::size_t block, std::int32_t zero, std::int8_t* y,
                        const std::int32_t* row_start = nullptr) noexcept {
  if constexpr (Stage) {
    constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
    static_assert(MR * stride <= most_staged_bytes<MR, K>, "a tile stages no more than int8_product_stack_bytes says");
    alignas(64) std::int8_t rows[MR * stride];
    stage_rows<Ops, K, XS>(rows, x, MR);
    packed_rows<Ops, MR, NV, Valid, K, stride, YS, false>(rows, p, block, zero, y, row_start);
  } else if constexpr (pairs_rows<Ops>) {
    packed_pair_tile<Ops, MR, NV, Valid>(x, XS, p, block, zero, y, YS, row_start);
  } else {
    packed_tile<Ops, MR, NV, Valid>(x, XS, p, block, zero, y, YS, row_start);
  }
}

/// Every row of x against the NV blocks from `block`: tiles of `Rows` rows, then the rest.
template <typename Ops, std::size_t Rows, std::size_t M, std::size_t NV, std::size_t Valid, std::size_t K,
          std::size_t XS, std::size_t YS, bool Stage, typename P>
inline void packed_panel(const std::int8_t* x, const P& p, std::size_t block, std::int32_t zero, std::int8_t* y,
                         const std::int32_t* row_start = nullptr) noexcept {
  for (std::size_t i = 0; i + Rows <= M; i += Rows) {
    packed_rows<Ops, Rows, NV, Valid, K, XS, YS, Stage>(x + i * XS, p, block, zero, y + i * YS,
                                                        row_start ? row_start + i : nullptr);
  }
  if constexpr (M % Rows != 0) {
    constexpr std::size_t i = M - M % Rows;
    packed_rows<Ops, M % Rows, NV, Valid, K, XS, YS, Stage>(x + i * XS, p, block, zero, y + i * YS,
                                                            row_start ? row_start + i : nullptr);
  }
}

/// Every panel of channels, each against every row of x (XS elements apart; staged tile by tile where `Stage`).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, bool Stage,
          typename P>
inline void packed_panels(const std::int8_t* x, const P& p, std::int32_t zero, std::int8_t* y) noexcept {
  constexpr std::size_t blocks = P::blocks;
  constexpr std::size_t rows = tile_shape<Ops, M, blocks>::rows;
  constexpr std::size_t panel = tile_shape<Ops, M, blocks>::panel;
  constexpr std::size_t last_valid = N % P::lanes == 0 ? P::lanes : N % P::lanes;
  constexpr std::size_t full = blocks / panel * panel;
  // Whole panels; the last of them holds the partial block when the blocks divide evenly.
  for (std::size_t b = 0; b < full; b += panel) {
    if (b + panel == blocks) {
      packed_panel<Ops, rows, M, panel, last_valid, K, XS, YS, Stage>(x, p, b, zero, y);
    } else {
      packed_panel<Ops, rows, M, panel, P::lanes, K, XS, YS, Stage>(x, p, b, zero, y);
    }
  }
  if constexpr (blocks % panel != 0) {
    packed_panel<Ops, rows, M, blocks % panel, last_valid, K, XS, YS, Stage>(x, p, full, zero, y);
  }
}

/// y[r][c] = requantize(start[c] + sum_t x[r][t] w[c][t]) for r < M, c < N (`kernels::int8_fully_connected`'s
/// contract) on the packed weights p; rows of x and y XS and YS elements apart.
// Rationale: the panel of channels is the outer loop, so that its weights (NV blocks, up to 8 KiB per 128 inputs)
// stay in L1 for every tile of rows; a panel is as wide as the registers allow (Ops::accumulators over the rows
// of a tile), so that one row (a decoding step) has enough independent sums to hide the instruction's latency.
// Rows that need staging are staged on the stack once where they are one tile (a few rows, many panels: 7 x 512
// x 512 staged for each of its 11 panels took 5% longer), else tile by tile, so that the stack holds a tile's
// rows whatever M is; staging costs a vector instruction per 64 inputs against a tile's NV per 4.
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t YS, typename P>
inline void packed_product(const std::int8_t* x, const P& p, std::int32_t zero, std::int8_t* y) noexcept {
  if constexpr (!staged<typename Ops::format, K>) {
    packed_panels<Ops, M, K, N, XS, YS, false>(x, p, zero, y);
  } else if constexpr (M <= tile_shape<Ops, M, P::blocks>::rows) {
    constexpr std::size_t stride = staged_stride<typename Ops::format, K>;
    static_assert(M * stride <= most_staged_bytes<M, K>, "the rows stage no more than int8_product_stack_bytes says");
    alignas(64) std::int8_t rows[M * stride];
    stage_rows<Ops, K, XS>(rows, x, M);
    packed_panels<Ops, M, K, N, stride, YS, false>(rows, p, zero, y);
  } else {
    packed_panels<Ops, M, K, N, XS, YS, true>(x, p, zero, y);
  }
}

/// The rows a product needs for `runtime_product` to pack its run-time operand: packing costs a move per group of
/// each channel, which a tile of this many rows amortizes (fewer rows: the backend's dot products, with no packing).
inline constexpr std::size_t runtime_packing_rows = 8;

/// `Blocks` blocks of the channels of an int8 operand known only at run time, in Format's layout (`packed_weights`'s
/// for one panel): what `runtime_product` packs on the stack, a panel at a time.
///
/// | member    | holds                                                                              |
/// |-----------|------------------------------------------------------------------------------------|
/// | `weight`  | Blocks blocks of Lanes channels x K inputs (block_bytes apart), padding 0          |
/// | `start`   | each channel's start less input_offset times the sum of its inputs, at its lane    |
/// | `requant` | the Format's requantization, set once for every lane (one multiplier)              |
template <typename Format, std::size_t K, std::size_t Blocks>
struct runtime_panel {
  using layout = packed_weights<Format::lanes, K, Format>;  // one block's
  static constexpr std::size_t lanes = Format::lanes;
  static constexpr std::size_t group = Format::group;
  static constexpr std::size_t blocks = Blocks;
  static constexpr std::size_t groups = layout::groups;
  static constexpr std::size_t group_bytes = layout::group_bytes;
  static constexpr std::size_t input_group_bytes = layout::input_group_bytes;
  static constexpr std::size_t block_bytes = layout::block_bytes;
  static constexpr std::size_t columns = Blocks * lanes;
  static constexpr int input_offset = Format::input_offset;

  std::int8_t weight[Blocks * block_bytes];
  std::int32_t start[columns];
  typename Format::template requantization<columns> requant;

  /// The channels [0, count) from w (rows of K, WS elements apart) with their starts column_start[c], the rest
  /// (count < columns: the last panel's padding) 0, as `packed_weights` lays out a layer: whole blocks by the
  /// backend's `Ops::pack_block` where it has one (a transposition of the block's rows), the rest channel by channel.
  // Rationale: the row pointer advances, not w + c WS: GCC 12 -O3 reports the latter as overflowing at iterations
  // no call reaches (-Waggressive-loop-optimizations, an error with -Werror).
  template <typename Ops, std::size_t WS>
  void pack(const std::int8_t* w, const std::int32_t* column_start, std::size_t count) noexcept {
    std::size_t c = 0;
    if constexpr (Ops::has_pack_block) {
      for (; c + lanes <= count && c < columns; c += lanes) {
        std::int32_t sums[lanes];  // in lane order
        Ops::template pack_block<K, WS>(weight + c / lanes * block_bytes, w, sums);
        for (std::size_t q = 0; q < lanes; ++q) {
          start[c + Format::lane_of(q)] = layout::start_of(column_start[c + q], sums[Format::lane_of(q)]);
        }
        if (c + lanes < count) w += lanes * WS;  // no further than w's last row
      }
    }
    for (; c < columns; ++c) {
      const bool kept = c < count;
      const std::int32_t sum = layout::place(weight, c, kept ? w : nullptr);
      start[layout::lane_of_channel(c)] = kept ? layout::start_of(column_start[c], sum) : 0;
      if (c + 1 < count) w += WS;  // no further than w's last row
    }
  }
};

/// The stack bytes `runtime_product`'s panel takes for K inputs and N channels, on any backend: at most 64
/// channels (4 blocks of AVX-512's 16, or fewer channels on the narrower backends), each with its K inputs rounded
/// up to a group of 8, its start and its requantization (40 bytes at most), the blocks' padding, and the panel's
/// alignment.
template <std::size_t K, std::size_t N>
inline constexpr std::size_t most_runtime_panel_bytes = [] {
  const std::size_t rounded = (N + 15) / 16 * 16;
  const std::size_t channels = rounded < 64 ? rounded : 64;
  return channels * ((K + 7) / 8 * 8 + 4 + 40) + 4 * 64 + 8 + 64;
}();

/// y[r][c] = requantize(start(r, c) + sum_t x[r][t] w[c][t]) for r < M, c < N, with one multiplier
/// (`kernels::int8_product_requantized`'s contract, `int8_epilogue<false, ...>`) where w is known only at run time
/// (int8 attention's keys and values): `packed_product`'s tiles, on w packed a panel of channels at a time into a
/// `runtime_panel` on the stack. Rows of x, w and y XS, WS and YS elements apart. Returns false, having written
/// nothing, where the Format's requantization of that multiplier is not exact (`exact()`), for the caller's kernel.
// Rationale: packing costs a move per group of 4 inputs of each channel, against a dot-product instruction per
// group, channel block and row in the tiles; the backend's dot products (`int8_simd::dot_rows`) instead end each
// output in a reduction across lanes, 7 or 8 instructions per output at K = 64 where a tile spends one.
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          typename Epilogue>
inline bool runtime_product(const std::int8_t* x, const std::int8_t* w, const Epilogue& e, std::int8_t* y) noexcept {
  static_assert(!Epilogue::per_channel, "one multiplier for every channel");
  using format = typename Ops::format;
  constexpr std::size_t lanes = format::lanes;
  constexpr std::size_t blocks = (N + lanes - 1) / lanes;
  using shape = tile_shape<Ops, M, blocks>;
  constexpr std::size_t rows = shape::rows;
  constexpr std::size_t panel = shape::panel < blocks ? shape::panel : blocks;
  using panel_type = runtime_panel<format, K, panel>;
  static_assert(sizeof(panel_type) + 64 <= most_runtime_panel_bytes<K, N>,
                "the panel takes no more than int8_product_stack_bytes says");
  alignas(64) panel_type p;
  p.requant.set_all(e.multiplier(0), e.zero);
  if (!p.requant.exact()) return false;
  const std::int32_t* const row_start = Epilogue::row_starts ? e.row_start : nullptr;
  constexpr std::size_t last_valid = N % lanes == 0 ? lanes : N % lanes;
  constexpr std::size_t full = blocks / panel * panel;
  constexpr bool stage = staged<format, K>;
  constexpr std::size_t panel_channels = panel * lanes;
  const std::int8_t* from = w;
  std::int8_t* to = y;
  const std::int32_t* column_start = e.column_start;
  for (std::size_t b = 0; b < full; b += panel) {
    p.template pack<Ops, WS>(from, column_start, N - b * lanes);
    if (b + panel == blocks) {
      packed_panel<Ops, rows, M, panel, last_valid, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
    } else {
      packed_panel<Ops, rows, M, panel, lanes, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
    }
    if (b + panel < blocks) {  // no further than w's last row
      from += panel_channels * WS;
      to += panel_channels;
      column_start += panel_channels;
    }
  }
  if constexpr (blocks % panel != 0) {
    p.template pack<Ops, WS>(from, column_start, N - full * lanes);
    packed_panel<Ops, rows, M, blocks % panel, last_valid, K, XS, YS, stage>(x, p, 0, e.zero, to, row_start);
  }
  return true;
}

}  // namespace ctattn::detail::int8_packed

#endif  // CTATTN_KERNELS_DETAIL_INT8_PACKED_HPP
// ---------------------------------------- ctattn/kernels/avx2_int8.hpp (continued)

// The int8 operations on AVX2 (no FMA needed; kernels/int8.hpp selects them on an AVX2 target without AVX-512BW),
// and the packed int8 fully-connected kernels on 8 channels per ymm register: with AVX2 alone (also the packed kernel
// of an AVX-512 target without VNNI), and with AVX-VNNI (`vpdpbusd` on ymm, VEX-encoded: Alder Lake and later) but
// no AVX-512. kernels/int8.hpp selects them.
#if defined(__AVX2__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

/// What both AVX2 packed kernels share: 8 channels in lane order (`int8_packed::lane_format<8, ...>`), their starts,
/// and `output_requantizer`'s arithmetic lane by lane with AVX2's instructions: the 64-bit products' shift by 31 is a
/// logical one (the low word it leaves is the same), and the saturation to int8 is two `vpack`s and a permutation.
///
/// Example: `static_assert(ctattn::detail::avx2_packed_requantization::tile_rows == 4);`
struct avx2_packed_requantization : int8_packed_ops_defaults {
  // 16 registers: tiles of up to 4 rows with up to 12 accumulators (one row: 6 blocks, 48 channels).
  static constexpr std::size_t tile_rows = 4;
  static constexpr std::size_t accumulators = 12;
  static constexpr std::size_t max_panel = 6;

  using accumulator = __m256i;
  struct requantizer {
    __m256i multiplier, left, right, right_less_one, round_bit, zero;
  };

  static accumulator load_start(const std::int32_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return _mm256_add_epi32(start, _mm256_set1_epi32(row));
  }
  /// The constants of the block from channel c (a multiple of 8).
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t zero) noexcept {
    return {load_start(r.multiplier + c),     load_start(r.left + c),      load_start(r.right + c),
            load_start(r.right_less_one + c), load_start(r.round_bit + c), _mm256_set1_epi32(zero)};
  }
  /// The first `valid` lanes of sum requantized to y: `output_requantizer`'s arithmetic lane by lane.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    const __m256i x = _mm256_sllv_epi32(sum, r.left);
    const __m256i rounding = _mm256_set1_epi64x(std::int64_t{1} << 30);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, r.multiplier), rounding), 31);
    const __m256i odd = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(r.multiplier, 32)), rounding),
        31);
    const __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    const __m256i t = _mm256_sub_epi32(high, _mm256_and_si256(_mm256_srli_epi32(high, 31), r.round_bit));
    __m256i v = _mm256_add_epi32(_mm256_srav_epi32(t, r.right),
                                 _mm256_and_si256(_mm256_srav_epi32(t, r.right_less_one), r.round_bit));
    v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(-256)), _mm256_set1_epi32(255));
    v = _mm256_add_epi32(v, r.zero);
    const __m256i words = _mm256_packs_epi32(v, v);          // per 128-bit half: its 4 values, twice
    const __m256i bytes = _mm256_packs_epi16(words, words);  // per half: its 4 values, four times
    const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    alignas(8) std::int8_t eight[8];
    _mm_storel_epi64(reinterpret_cast<__m128i*>(eight), _mm256_castsi256_si128(ordered));
    if (valid == 8) {
      std::memcpy(y, eight, 8);
    } else {
      for (std::size_t q = 0; q < valid; ++q) y[q] = eight[q];
    }
  }
  /// The requantization of 8 channels from their multipliers (count 8), or of any 8 from one (count 1): the packed
  /// form's constants (`lane_format::requantization::set`), made on the stack.
  static requantizer requantizer_of(const math::quantized_multiplier* m, std::size_t count,
                                    std::int32_t zero) noexcept {
    if (count == 1) {  // one channel's constants in every lane
      int8_packed::lane_format<8, 0>::requantization<1> one;
      one.set(0, 0, m[0], zero);
      return {_mm256_set1_epi32(one.multiplier[0]), _mm256_set1_epi32(one.left[0]),
              _mm256_set1_epi32(one.right[0]),      _mm256_set1_epi32(one.right_less_one[0]),
              _mm256_set1_epi32(one.round_bit[0]),  _mm256_set1_epi32(zero)};
    }
    int8_packed::lane_format<8, 0>::requantization<8> constants;
    for (std::size_t l = 0; l < 8; ++l) constants.set(l, l, m[l], zero);
    return make_requantizer(constants, 0, zero);
  }
  /// y[c] = e(r, c, sums[c]) for c < n (`int8_epilogue`: the row's and columns' starts added, then each channel's
  /// requantization, as `output_requantizer`), 8 channels at a time, the rest one by one.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    const __m256i row_start = Epilogue::row_starts ? _mm256_set1_epi32(e.row_start[r]) : _mm256_setzero_si256();
    // Rationale: the channels past the last 8 from n, not the vector loop's counter: with the counter, GCC 12 -O3
    // reported the tail loop, which runs no iteration when 8 divides n, as overflowing
    // (-Waggressive-loop-optimizations, in a user's build of int8 attention).
    const std::size_t whole = n - n % 8;
    if (whole > 0) {
      const requantizer one_for_all = requantizer_of(e.multipliers, 1, e.zero);
      for (std::size_t c = 0; c < whole; c += 8) {
        const __m256i start = _mm256_add_epi32(load_start(e.column_start + c), row_start);
        const __m256i sum = _mm256_add_epi32(load_start(sums + c), start);
        store_requantized(y + c, sum,
                          Epilogue::per_channel ? requantizer_of(e.multipliers + c, 8, e.zero) : one_for_all, 8);
      }
    }
    for (std::size_t c = whole; c < n; ++c) y[c] = e(r, c, sums[c]);
  }
};

/// The int8 operations of kernels/detail/int8_simd.hpp on 16 terms per step: `vpmovsxbw` widens 16 int8 to int16,
/// `vpsubw` subtracts the zero point (|a - z| <= 255 fits), `vpmaddwd` multiplies and adds pairs into 8 int32 lanes.
struct avx2_int8_ops : int8_ops_defaults {
  static constexpr bool has_totals = true;
  static constexpr bool has_requantize_row = true;
  static constexpr bool has_softmax_row = true;
  static constexpr std::size_t step = 16;
  /// Rows of b per pass (kernels/detail/int8_simd.hpp): 8, totalled at once by `totals`.
  static constexpr std::size_t rows_per_pass = 8;
  using offset = __m256i;
  using widened = __m256i;
  using accumulator = __m256i;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return _mm256_set1_epi16(static_cast<short>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), zero_point);
  }
  static accumulator zero() noexcept { return _mm256_setzero_si256(); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return _mm256_add_epi32(sum, _mm256_madd_epi16(x, y));
  }
  static std::int32_t total(accumulator sum) noexcept {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
  }
  /// out[i] = the sum of sums[i]'s lanes for 8 accumulators at once: three levels of `vphaddd`, then the two
  /// 128-bit halves added (9 instructions for 8 sums, where `total` takes 6 for one).
  static void totals(const accumulator (&sums)[8], std::int32_t* out) noexcept {
    const __m256i q0 = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[0], sums[1]), _mm256_hadd_epi32(sums[2], sums[3]));
    const __m256i q1 = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[4], sums[5]), _mm256_hadd_epi32(sums[6], sums[7]));
    // q0's lanes: per half, the half's sums of rows 0-3; q1's the same of rows 4-7.
    const __m256i s =
        _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), s);
  }
  /// y[c] = e(r, c, sums[c]) for c < n (`int8_epilogue`): 8 outputs at a time as avx2_packed_requantization does
  /// them, the rest one by one.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    avx2_packed_requantization::requantize_row(e, r, sums, y, n);
  }

  /// The largest of 32 signed bytes: the halves' maximum, then shifts by 8, 4, 2 and 1 bytes (the softmax's largest
  /// entry, here and on AVX-512).
  static std::int32_t largest_byte(__m256i bytes) noexcept {
    __m128i top = _mm_max_epi8(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 8));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 4));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 2));
    top = _mm_max_epi8(top, _mm_srli_si128(top, 1));
    return static_cast<std::int8_t>(_mm_cvtsi128_si32(top));
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31 (as Helium's
  /// and AVX-512's), from 16 entries on (shorter rows: the scalar form, as on AVX-512).
  static constexpr std::size_t softmax_row_limit = 2047;
  static constexpr std::size_t softmax_row_shortest = 16;
  /// Rows up to this long keep their exponentials on the stack (1 KiB) between the sum and the weights.
  static constexpr std::size_t kept_terms = 256;

  /// kernels/int8.hpp's `int8_softmax_row` on 8 lanes, as avx512_int8_ops::softmax_row computes it: the largest
  /// entry by `vpmaxsb`, the exponentials by `vpgatherdd`, the quotient guess (n r) >> 40 by `vpmuludq` on the even
  /// and the odd lanes, the remainder (`vpmulld`) against 2 sum for the last one (an unsigned comparison as
  /// `vpmaxud`); the last 8 or fewer entries of a row through a buffer, under a lane mask.
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    __m256i top = _mm256_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 32 <= n; t += 32) {
      top = _mm256_max_epi8(top, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + t)));
    }
    std::int32_t most = largest_byte(top);
    for (; t < n; ++t) most = xs[t] > most ? xs[t] : most;
    const __m256i largest = _mm256_set1_epi32(most);
    const __m256i lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // The lanes of entries [u, u + 8) within the row (all ones), and those entries' exponentials (0 elsewhere).
    const auto lanes = [&](std::size_t u) {
      return n - u >= 8 ? _mm256_set1_epi32(-1)
                        : _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(n - u)), lane_index);
    };
    const auto terms = [&](std::size_t u, __m256i valid) {
      std::int64_t eight = 0;
      std::memcpy(&eight, xs + u, n - u >= 8 ? 8 : n - u);
      const __m256i offsets = _mm256_sub_epi32(largest, _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight)));
      return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), table, offsets, valid, 4);
    };
    __m256i sums = _mm256_setzero_si256();
    alignas(32) std::int32_t kept[kept_terms];
    for (std::size_t u = 0; u < n; u += 8) {
      const __m256i e = terms(u, lanes(u));
      if (n <= kept_terms) _mm256_store_si256(reinterpret_cast<__m256i*>(kept + u), e);
      sums = _mm256_add_epi32(sums, e);
    }
    const auto sum = static_cast<std::uint32_t>(total(sums));
    const std::uint32_t divisor = 2 * sum;
    const auto reciprocal = static_cast<std::uint32_t>((std::uint64_t{1} << 40) / divisor);
    const __m256i divisors = _mm256_set1_epi32(static_cast<std::int32_t>(divisor));
    const __m256i reciprocals = _mm256_set1_epi32(static_cast<std::int32_t>(reciprocal));
    const __m256i all_terms = _mm256_set1_epi32(static_cast<std::int32_t>(sum));
    for (std::size_t u = 0; u < n; u += 8) {
      const __m256i valid = lanes(u);
      const __m256i e =
          n <= kept_terms ? _mm256_load_si256(reinterpret_cast<const __m256i*>(kept + u)) : terms(u, valid);
      const __m256i numerators = _mm256_add_epi32(_mm256_slli_epi32(e, 9), all_terms);
      const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(numerators, reciprocals), 40);
      // The odd lanes' products shifted by 8 only: the high half of each 64-bit lane is then the product >> 40.
      const __m256i odd = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(numerators, 32), reciprocals), 8);
      __m256i quotients = _mm256_blend_epi32(even, odd, 0xAA);
      const __m256i remainders = _mm256_sub_epi32(numerators, _mm256_mullo_epi32(quotients, divisors));
      const __m256i short_by_one = _mm256_cmpeq_epi32(_mm256_max_epu32(remainders, divisors), remainders);
      quotients = _mm256_sub_epi32(quotients, short_by_one);
      const __m256i v = _mm256_min_epi32(_mm256_sub_epi32(quotients, _mm256_set1_epi32(128)), _mm256_set1_epi32(127));
      const __m256i words = _mm256_packs_epi32(v, v);
      const __m256i bytes = _mm256_packs_epi16(words, words);
      const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
      alignas(8) std::int8_t eight[8];
      _mm_storel_epi64(reinterpret_cast<__m128i*>(eight), _mm256_castsi256_si128(ordered));
      std::memcpy(ws + u, eight, n - u >= 8 ? 8 : n - u);
    }
  }
};

/// kernels/detail/int8_packed.hpp's operations with AVX2 alone: groups of 2 inputs, staged as int16, and 2 weights
/// per channel (16 bytes a block), sign-extended as they are loaded (`vpmovsxbw`); `vpmaddwd` multiplies each lane's
/// 2 inputs by its channel's 2 weights and sums them in 32 bits, `vpaddd` adds that to the lane's sum. Every step is
/// exact: |2 x 128 x 128| fits 32 bits.
// Rationale: not `vpmaddubsw` (32 byte products per instruction where this does 16): it sums its two products in a
// saturating int16, which 2 x 255 x 128 overflows, so a layer's outputs would depend on its weights' pairs.
///
/// Example: `static_assert(ctattn::detail::avx2_packed_ops::format::group == 2);`
struct avx2_packed_ops : avx2_packed_requantization {
  static constexpr bool has_pack_block = true;
  using format = int8_packed::lane_format<8, 0, 2>;
  // 16 registers, and each `vpmaddwd` needs one of its own before its `vpaddd`: tiles of up to 3 rows with up to 9
  // accumulators (3 x 3; 2 x 4 where the blocks come in fours). 4 x 3 as with AVX-VNNI spilled 7 of the 12 sums to
  // the stack in every step (GCC 12).
  static constexpr std::size_t tile_rows = 3;
  static constexpr std::size_t accumulators = 9;

  /// The inputs x[0, k) as int16 at dst, then inputs 0 up to n bytes (n even).
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    std::size_t t = 0;
    for (; t + 16 <= k; t += 16) {
      const __m256i words = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + t)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * t), words);
    }
    // Rationale: pointers, not 2 t: GCC 12 -O3 reports an index 2 t as overflowing at an iteration no call reaches
    // (-Waggressive-loop-optimizations, an error with -Werror).
    std::int8_t* out = dst + 2 * t;
    for (const std::int8_t* in = x + t; in != x + k; ++in, out += 2) {
      const auto word = static_cast<std::int16_t>(*in);
      std::memcpy(out, &word, 2);
    }
    for (; out != dst + n; ++out) *out = 0;
  }
  static accumulator load_weights(const std::int8_t* p) noexcept {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  /// 8 channels of an operand known only at run time (rows WS bytes apart, K int8 each) as one packed block
  /// (groups of 2 inputs, the last padded with 0; int8_packed::runtime_panel), and each channel's sum of its K values
  /// at its lane: per 16 inputs, the 8 rows transposed as 8 x 8 16-bit words (`vpunpck*wd`, `*dq`, `*qdq`: 24
  /// instructions), so that vector g holds every channel's group g; `vpmaddubsw` against ones then sums each group.
  // Rationale: the portable loop moves one channel's 2 bytes at a time (32 moves a channel at K = 64).
  template <std::size_t K, std::size_t WS>
  static void pack_block(std::int8_t* to, const std::int8_t* from, std::int32_t* sums) noexcept {
    constexpr std::size_t groups = (K + 1) / 2;
    const __m128i ones = _mm_set1_epi8(1);
    __m256i total = _mm256_setzero_si256();
    for (std::size_t t = 0; t < K; t += 16) {
      __m128i r[8];
      for (std::size_t l = 0; l < 8; ++l) {
        if (K - t >= 16) {
          r[l] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + l * WS + t));
        } else {
          alignas(16) std::int8_t part[16]{};
          std::memcpy(part, from + l * WS + t, K - t);
          r[l] = _mm_load_si128(reinterpret_cast<const __m128i*>(part));
        }
      }
      __m128i a[8];
      for (std::size_t i = 0; i < 8; i += 2) {
        a[i] = _mm_unpacklo_epi16(r[i], r[i + 1]);
        a[i + 1] = _mm_unpackhi_epi16(r[i], r[i + 1]);
      }
      // r[4h + 2i + j]: rows 4h..4h+3, words 4i + 2j and 4i + 2j + 1 (h, i, j in {0, 1}).
      for (std::size_t h = 0; h < 8; h += 4) {
        r[h] = _mm_unpacklo_epi32(a[h], a[h + 2]);
        r[h + 1] = _mm_unpackhi_epi32(a[h], a[h + 2]);
        r[h + 2] = _mm_unpacklo_epi32(a[h + 1], a[h + 3]);
        r[h + 3] = _mm_unpackhi_epi32(a[h + 1], a[h + 3]);
      }
      __m128i column[8];
      for (std::size_t q = 0; q < 4; ++q) {
        column[2 * q] = _mm_unpacklo_epi64(r[q], r[q + 4]);
        column[2 * q + 1] = _mm_unpackhi_epi64(r[q], r[q + 4]);
      }
      const std::size_t first = t / 2;
      const std::size_t count = groups - first < 8 ? groups - first : 8;
      for (std::size_t g = 0; g < count; ++g) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16 * (first + g)), column[g]);
        total = _mm256_add_epi32(total, _mm256_cvtepi16_epi32(_mm_maddubs_epi16(ones, column[g])));
      }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums), total);
  }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t two;
    std::memcpy(&two, p, 4);
    return _mm256_set1_epi32(two);
  }
  // Rationale: in an asm statement for GCC, the sum as its in-out operand, as in avx512_vnni_packed_ops::dot_group:
  // through the intrinsics GCC 12 adds each product into a new register and copies it back (a move per step) and
  // spills sums the tile has registers for.
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    accumulator product;
    asm("vpmaddwd %3, %2, %1\n\tvpaddd %1, %0, %0" : "+x"(sum), "=&x"(product) : "x"(inputs), "x"(weights));
    return sum;
#else
    return _mm256_add_epi32(sum, _mm256_madd_epi16(inputs, weights));
#endif
  }
};

/// The int8 table's avx2 row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx2> {
  static constexpr const char* name = "avx2";
  using ops = avx2_int8_ops;
  using product_ops = avx2_int8_ops;
  using packed_ops = avx2_packed_ops;
  using int4_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__)

#if defined(__AVX2__) && defined(__AVXVNNI__)

namespace ctattn::detail {

/// kernels/detail/int8_packed.hpp's operations with AVX-VNNI: as avx512_vnni_packed_ops (inputs + 128 as the
/// unsigned operand of `vpdpbusd`, their term folded into the starts) on 8 channels, requantized as
/// avx2_packed_ops.
///
/// Example: `static_assert(ctattn::detail::avx2_vnni_packed_ops::format::input_offset == 128);`
struct avx2_vnni_packed_ops : avx2_packed_requantization {
  using format = int8_packed::lane_format<8, 128>;

  /// dst[t] = x[t] + 128 as an unsigned byte for t < k, then 128 (an input 0) up to n.
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    const __m256i flip = _mm256_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 32 <= k; t += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + t));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + t), _mm256_xor_si256(bytes, flip));
    }
    for (; t < k; ++t) dst[t] = static_cast<std::int8_t>(x[t] ^ -128);
    for (; t < n; ++t) dst[t] = -128;
  }
  static accumulator load_weights(const std::int8_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return _mm256_set1_epi32(four);
  }
  // Rationale: the instruction in an asm statement for GCC, as in avx512_vnni_packed_ops::dot_group.
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    asm("%{vex%} vpdpbusd %2, %1, %0" : "+x"(sum) : "x"(inputs), "x"(weights));
    return sum;
#else
    return _mm256_dpbusd_avx_epi32(sum, inputs, weights);
#endif
  }
};

/// The int8 table's avx2_vnni row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx2_vnni> {
  static constexpr const char* name = "avx2_vnni";
  using ops = avx2_int8_ops;
  using product_ops = avx2_int8_ops;
  using packed_ops = avx2_vnni_packed_ops;
  using int4_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX2__) && defined(__AVXVNNI__)

#endif  // CTATTN_KERNELS_AVX2_INT8_HPP
// ---------------------------------------- ctattn/kernels/int8.hpp (continued)
// ---------------------------------------- ctattn/kernels/avx512_int8.hpp
#ifndef CTATTN_KERNELS_AVX512_INT8_HPP
#define CTATTN_KERNELS_AVX512_INT8_HPP

/// \file
/// The AVX-512 int8 backends (x86-64 with AVX-512BW, and with AVX-512 VNNI): the int8 operations of
/// kernels/detail/int8_simd.hpp on 32 terms per step in zmm registers, and with VNNI the packed fully-connected
/// kernel of kernels/detail/int8_packed.hpp on 16 channels per register. kernels/int8.hpp includes it and chooses
/// its rows.
///
/// Example: `static_assert(ctattn::detail::avx512_int8_ops::step == 32);` (on an AVX-512BW target)


// ---------------------------------------- ctattn/kernels/detail/int8_simd.hpp
#ifndef CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP
#define CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP

/// \file
/// The int8 kernel, written once over a backend's integer operations (kernels/int8.hpp chooses the backend): one
/// row of a against n rows of b, each term (a - a_zero)(b - b_zero) widened to 16 bits before it is multiplied, the
/// products summed in 32-bit lanes. Integer sums: every order gives the same int32, so every backend gives the
/// bits of the scalar loop and of constant evaluation.
///
/// What a backend `Ops` provides (or, instead, its own `dot_rows`, with `has_dot_rows` set). The optional members
/// are declared with their defaults in kernels/detail/ops_defaults.hpp (`int8_ops_defaults`), which `Ops` derives
/// from:
///
/// | member                         | meaning                                                               |
/// |--------------------------------|-----------------------------------------------------------------------|
/// | `step`                         | int8 terms per step                                                    |
/// | `offset`, `make_offset(z)`     | a zero point as the backend subtracts it                               |
/// | `widened`, `widen(p, offset)`  | `step` int8 values at p, each less the zero point, in 16-bit lanes     |
/// | `accumulator`, `zero()`        | 32-bit partial sums                                                    |
/// | `multiply_add(acc, x, y)`      | acc + the lane-wise products x y, summed in pairs into the 32-bit lanes |
/// | `total(acc)`                   | the sum of acc's lanes                                                 |
/// | `totals(accs, out)` (optional: `has_totals`) | the sums of a whole pass's accumulators at once           |
/// | `tail_ops` (optional)          | a narrower backend for the terms past the last whole step (default void) |
/// | `rows_per_pass` (optional)     | rows of b per pass (default 4)                                         |
///
/// No sum can overflow: a term is at most 255 x 255 in magnitude, and the rule `int8_accumulator_must_not_overflow`
/// keeps the length K at most 33,025, so every partial sum lies within [-2^31, 2^31).


namespace ctattn::detail::int8_simd {

/// Terms per step of the narrowest backend Ops hands its tails to (`Ops::step` where its `tail_ops` is void): a
/// product of fewer terms has no whole step on any of them.
template <typename Ops>
[[nodiscard]] consteval std::size_t narrowest_step() noexcept {
  if constexpr (std::is_void_v<typename Ops::tail_ops>) {
    return Ops::step;
  } else {
    return narrowest_step<typename Ops::tail_ops>();
  }
}

/// sum_t (a[t] - a_zero)(b[t] - b_zero) over `terms` terms from the sums of the raw values, sum a b, sum a and
/// sum b: sum a b - b_zero sum a - a_zero sum b + terms a_zero b_zero, the dot-product forms' way to bring the zero
/// points in (NEON's `sdot`, AVX-512 VNNI's `vpdpbusd`). Modulo 2^32, as every sum of the kernels: the exact value
/// wherever it fits an int32, where the rule `int8_accumulator_must_not_overflow` keeps it.
constexpr std::int32_t offset_dot(std::int32_t ab, std::int32_t sum_a, std::int32_t sum_b, std::int32_t a_zero,
                                  std::int32_t b_zero, std::size_t terms) noexcept {
  const auto u = [](std::int32_t v) { return static_cast<std::uint32_t>(v); };
  return static_cast<std::int32_t>(u(ab) - u(b_zero) * u(sum_a) - u(a_zero) * u(sum_b) +
                                   static_cast<std::uint32_t>(terms) * u(a_zero) * u(b_zero));
}

/// sum_t (a[t] - a_zero)(row[t] - b_zero) for t in [first, k): the terms past the last whole step, in the scalar
/// loop's arithmetic.
inline std::int32_t rest_of_row(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* row, std::int32_t b_zero,
                                std::size_t first, std::size_t k) noexcept {
  std::int32_t sum = 0;
  for (std::size_t t = first; t < k; ++t) sum += (std::int32_t{a[t]} - a_zero) * (std::int32_t{row[t]} - b_zero);
  return sum;
}

/// out[r] = (or +=, with Accumulate) the sum over the whole steps of row `rows[r]`, for the R rows of one pass (R is
/// 1, 4 or `Ops::rows_per_pass`). A whole pass is totalled by `Ops::totals` where the backend has it (a transposing
/// tree of additions on x86), else each accumulator by `Ops::total`.
// Rationale: the rows of a pass are a fold over a compile-time index pack, so that each accumulator is a variable
// of its own: -Os does not unroll a loop over four accumulators, and left in an array they live on the stack.
template <typename Ops, bool Accumulate, std::size_t... R>
void whole_steps(const std::int8_t* a, typename Ops::offset a_offset, const std::int8_t* const* rows,
                 typename Ops::offset b_offset, std::size_t whole, std::int32_t* out,
                 std::index_sequence<R...>) noexcept {
  typename Ops::accumulator sums[sizeof...(R)]{(static_cast<void>(R), Ops::zero())...};
  for (std::size_t t = 0; t < whole; t += Ops::step) {
    const typename Ops::widened x = Ops::widen(a + t, a_offset);
    ((sums[R] = Ops::multiply_add(sums[R], x, Ops::widen(rows[R] + t, b_offset))), ...);
  }
  if constexpr (Ops::has_totals && sizeof...(R) == Ops::rows_per_pass) {
    std::int32_t totals[sizeof...(R)];
    Ops::totals(sums, totals);
    if constexpr (Accumulate) {
      ((out[R] += totals[R]), ...);
    } else {
      ((out[R] = totals[R]), ...);
    }
  } else if constexpr (Accumulate) {
    ((out[R] += Ops::total(sums[R])), ...);
  } else {
    ((out[R] = Ops::total(sums[R])), ...);
  }
}

/// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k, by the tiling over Ops's operations;
/// with Accumulate, added to out[j]. Passes of `Ops::rows_per_pass` rows, then the rows left one by one. The terms
/// past the last whole step go to `Ops::tail_ops` where the backend names a narrower one (AVX-512's 32-term steps
/// leave up to 31, which AVX2's 16-term steps take), else to the scalar loop.
// Rationale: GCC 12 at -O3 reports the row pointer of the loop over the rows left as overflowing at an iteration
// count no call reaches (-Waggressive-loop-optimizations: the loop's bound is a run-time n), and -Werror makes that
// an error; the warning is switched off for this function alone. A single loop of possibly partial passes avoided
// it, at 13% more instructions on the Cortex-M4 (the partial pass recomputes rows).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
template <typename Ops, bool Accumulate = false>
void tiled_dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                    std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  const std::size_t whole = k - k % Ops::step;
  if (whole > 0) {
    const typename Ops::offset a_offset = Ops::make_offset(a_zero);
    const typename Ops::offset b_offset = Ops::make_offset(b_zero);
    constexpr std::size_t pass = Ops::rows_per_pass;
    std::size_t j = 0;
    for (; j + pass <= n; j += pass) {
      const std::int8_t* rows[pass];
      for (std::size_t r = 0; r < pass; ++r) rows[r] = b + (j + r) * b_stride;
      whole_steps<Ops, Accumulate>(a, a_offset, rows, b_offset, whole, out + j, std::make_index_sequence<pass>{});
    }
    // Passes of 8 (x86) leave up to 7 rows: 4 of them in a pass of their own.
    if constexpr (pass > 4) {
      if (j + 4 <= n) {
        const std::int8_t* rows[4] = {b + j * b_stride, b + (j + 1) * b_stride, b + (j + 2) * b_stride,
                                      b + (j + 3) * b_stride};
        whole_steps<Ops, Accumulate>(a, a_offset, rows, b_offset, whole, out + j, std::make_index_sequence<4>{});
        j += 4;
      }
    }
    for (; j < n; ++j) {
      const std::int8_t* row = b + j * b_stride;
      whole_steps<Ops, Accumulate>(a, a_offset, &row, b_offset, whole, out + j, std::make_index_sequence<1>{});
    }
  } else if constexpr (!Accumulate) {
    for (std::size_t j = 0; j < n; ++j) out[j] = 0;
  }
  if (whole == k) return;
  if constexpr (!std::is_void_v<typename Ops::tail_ops>) {
    tiled_dot_rows<typename Ops::tail_ops, true>(a + whole, a_zero, b + whole, b_stride, b_zero, k - whole, n, out);
  } else {
    for (std::size_t j = 0; j < n; ++j) out[j] += rest_of_row(a, a_zero, b + j * b_stride, b_zero, whole, k);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k: the backend's own kernel where it has
/// one, else the tiling.
template <typename Ops>
void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
              std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  if constexpr (Ops::has_dot_rows) {
    Ops::dot_rows(a, a_zero, b, b_stride, b_zero, k, n, out);
  } else {
    tiled_dot_rows<Ops>(a, a_zero, b, b_stride, b_zero, k, n, out);
  }
}

}  // namespace ctattn::detail::int8_simd

#endif  // CTATTN_KERNELS_DETAIL_INT8_SIMD_HPP
// ---------------------------------------- ctattn/kernels/avx512_int8.hpp (continued)

// The int8 operations need AVX-512BW (16-bit lanes in zmm registers): kernels/int8.hpp selects them then.
#if defined(__AVX512BW__)

#include <immintrin.h>

#include <cstdint>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 32 terms per step: `vpmovsxbw` widens 32 int8 to int16,
/// `vpsubw` subtracts the zero point, `vpmaddwd` multiplies and adds pairs into 16 int32 lanes (as avx2_int8_ops,
/// twice as wide).
struct avx512_int8_ops : int8_ops_defaults {
  static constexpr bool has_totals = true;
  static constexpr bool has_requantize_row = true;
  static constexpr bool has_softmax_row = true;
  static constexpr std::size_t step = 32;
  using tail_ops = avx2_int8_ops;  // up to 31 terms past the last whole step: 16 of them in one AVX2 step
  using offset = __m512i;
  using widened = __m512i;
  using accumulator = __m512i;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return _mm512_set1_epi16(static_cast<short>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return _mm512_sub_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), zero_point);
  }
  static accumulator zero() noexcept { return _mm512_setzero_si512(); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return _mm512_add_epi32(sum, _mm512_madd_epi16(x, y));
  }
  // The two halves added, then avx2_int8_ops's reduction. Rationale: the masked extract, as in avx512_ops, because
  // GCC 12 warns that the unmasked one's undefined source may be used uninitialized.
  static std::int32_t total(accumulator sum) noexcept { return avx2_int8_ops::total(halves(sum)); }
  /// Rows of b per pass (kernels/detail/int8_simd.hpp): 8, totalled at once by `totals`.
  static constexpr std::size_t rows_per_pass = 8;
  /// out[i] = the sum of sums[i]'s lanes for 8 accumulators: each one's halves added, then avx2_int8_ops's `totals`.
  static void totals(const accumulator (&sums)[8], std::int32_t* out) noexcept {
    const __m256i half[8] = {halves(sums[0]), halves(sums[1]), halves(sums[2]), halves(sums[3]),
                             halves(sums[4]), halves(sums[5]), halves(sums[6]), halves(sums[7])};
    avx2_int8_ops::totals(half, out);
  }
  /// As avx2_int8_ops::requantize_row: 8 outputs at a time in ymm registers.
  template <typename Epilogue>
  static void requantize_row(const Epilogue& e, std::size_t r, const std::int32_t* sums, std::int8_t* y,
                             std::size_t n) noexcept {
    avx2_packed_requantization::requantize_row(e, r, sums, y, n);
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31, so that the
  /// numerators 512 e + sum and the divisor 2 sum fit 32-bit lanes (as Helium's).
  static constexpr std::size_t softmax_row_limit = 2047;
  /// ... and from this many on: a whole vector of 16 lanes.
  // Rationale: shorter rows go faster through the scalar form, which the compiler unrolls (the int8 sorter's rows of
  // 6: 10.6 us that way, 11.9 us through the gathers and masks; rows of 16 the other way round, int8 attention at
  // (16, 64) 1.77 us here and 2.20 us there; Zen 4).
  static constexpr std::size_t softmax_row_shortest = 16;
  /// Rows up to this long keep their exponentials on the stack (1 KiB) between the sum and the weights, rather than
  /// gather them twice.
  static constexpr std::size_t kept_terms = 256;

  /// kernels/int8.hpp's `int8_softmax_row` for a row of `softmax_row_shortest` to `softmax_row_limit` entries, all
  /// visible: the same weights, 16 lanes at a time. The largest entry by `vpmaxsb` on 64 entries at a time, the
  /// exponentials from the table (by `vpermt2d` in rows of 32 or more, else `vpgatherdd`), each weight's quotient
  /// round(256 e / sum) as (n r) >> 40 with r = floor(2^40 / (2 sum)) and n = 512 e + sum (`vpmuludq` on the even
  /// and the odd lanes: n r < 2^52), then the remainder n - q 2 sum (`vpmulld`, below 2^32) against 2 sum adds the
  /// last one, as the scalar form's comparison does. Tails by masks.
  // Rationale: GCC 12 vectorized the scalar form with 64-bit lanes (the sum and the quotients in int64, `vpmullq`)
  // and gathered each exponential twice; with this form int8 attention took 1.77 us at (16, 64) (2.01 before),
  // 10.5 us at (64, 64) (10.9) and 50.2 us at (128, 128) (53.7), Zen 4. What is left of a row's time is mostly the
  // latency of its chain (largest, gathers, sum, division, weights).
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    if (end - begin >= 32) {
      softmax_row_by<true>(x, w, begin, end, table);
    } else {
      softmax_row_by<false>(x, w, begin, end, table);
    }
  }

 private:
  // softmax_row's body, the exponentials by permutes (Permute) or gathers.
  template <bool Permute>
  static void softmax_row_by(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                             const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    const auto first = [](std::size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1u; };
    __m512i top = _mm512_set1_epi8(-128);
    std::size_t t = 0;
    for (; t + 64 <= n; t += 64) top = _mm512_max_epi8(top, _mm512_loadu_si512(xs + t));
    if (t < n) {
      const __mmask64 rest = first(n - t);
      top = _mm512_mask_max_epi8(top, rest, top, _mm512_maskz_loadu_epi8(rest, xs + t));
    }
    const __m512i largest = _mm512_set1_epi32(avx2_int8_ops::largest_byte(
        _mm256_max_epi8(_mm512_maskz_extracti64x4_epi64(0xF, top, 0), _mm512_maskz_extracti64x4_epi64(0xF, top, 1))));
    // The exponentials of entries [u, u + 16) under mask k (0 in the other lanes). Rows of 32 entries or more
    // (Permute): the table's 256 entries in 16 registers, an entry found by `vpermt2d` in each pair of them (the
    // offset's low 5 bits), then chosen among the 8 pairs by its bits 5, 6 and 7. Shorter rows gather.
    // Rationale: on Zen 4 a `vpgatherdd` of 16 entries took about 24 cycles, the 18 instructions of the permutes
    // about 9; loading the 16 registers costs more than it saves in a row of 16 (int8 attention at (16, 64): 1.51 us
    // gathering, 1.67 us permuting; at (64, 64) 9.89 and 9.28 us, at (128, 128) 50.0 and 44.6 us).
    [[maybe_unused]] __m512i entries[16];
    if constexpr (Permute) {
      for (std::size_t i = 0; i < 16; ++i) entries[i] = _mm512_loadu_si512(table + 16 * i);
    }
    const auto terms = [&](std::size_t u, __mmask16 k) {
      const __m128i bytes = _mm512_maskz_extracti32x4_epi32(0xF, _mm512_maskz_loadu_epi8(k, xs + u), 0);
      const __m512i offsets = _mm512_sub_epi32(largest, _mm512_maskz_cvtepi8_epi32(0xFFFF, bytes));
      if constexpr (!Permute) {
        return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k, offsets, table, 4);
      } else {
        __m512i pair[8];
        for (std::size_t b = 0; b < 8; ++b) {
          pair[b] = _mm512_permutex2var_epi32(entries[2 * b], offsets, entries[2 * b + 1]);
        }
        const __mmask16 bit5 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(32));
        const __mmask16 bit6 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(64));
        const __mmask16 bit7 = _mm512_test_epi32_mask(offsets, _mm512_set1_epi32(128));
        for (std::size_t b = 0; b < 8; b += 2) pair[b] = _mm512_mask_blend_epi32(bit5, pair[b], pair[b + 1]);
        pair[0] = _mm512_mask_blend_epi32(bit6, pair[0], pair[2]);
        pair[4] = _mm512_mask_blend_epi32(bit6, pair[4], pair[6]);
        return _mm512_maskz_mov_epi32(k, _mm512_mask_blend_epi32(bit7, pair[0], pair[4]));
      }
    };
    const auto lanes = [n](std::size_t u) {
      return n - u >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - u)) - 1u);
    };
    __m512i sums = _mm512_setzero_si512();
    alignas(64) std::int32_t kept[kept_terms];
    for (std::size_t u = 0; u < n; u += 16) {
      const __m512i e = terms(u, lanes(u));
      if (n <= kept_terms) _mm512_store_si512(kept + u, e);
      sums = _mm512_add_epi32(sums, e);
    }
    const __m256i sums256 =
        _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, sums, 0), _mm512_maskz_extracti64x4_epi64(0xF, sums, 1));
    const auto sum = static_cast<std::uint32_t>(avx2_int8_ops::total(sums256));
    const std::uint32_t divisor = 2 * sum;
    const auto reciprocal = static_cast<std::uint32_t>((std::uint64_t{1} << 40) / divisor);
    const __m512i divisors = _mm512_set1_epi32(static_cast<std::int32_t>(divisor));
    const __m512i reciprocals = _mm512_set1_epi32(static_cast<std::int32_t>(reciprocal));
    const __m512i total = _mm512_set1_epi32(static_cast<std::int32_t>(sum));
    constexpr __mmask16 all = 0xFFFF;
    for (std::size_t u = 0; u < n; u += 16) {
      const __mmask16 k = lanes(u);
      const __m512i e = n <= kept_terms ? _mm512_load_si512(kept + u) : terms(u, k);
      const __m512i numerators = _mm512_add_epi32(_mm512_maskz_slli_epi32(all, e, 9), total);
      const __m512i even = _mm512_maskz_srli_epi64(0xFF, _mm512_maskz_mul_epu32(0xFF, numerators, reciprocals), 40);
      // The odd lanes' products shifted by 8 only: the high half of each 64-bit lane is then the product >> 40.
      const __m512i odd = _mm512_maskz_srli_epi64(
          0xFF, _mm512_maskz_mul_epu32(0xFF, _mm512_maskz_srli_epi64(0xFF, numerators, 32), reciprocals), 8);
      __m512i quotients = _mm512_mask_blend_epi32(0xAAAA, even, odd);
      const __m512i remainders = _mm512_sub_epi32(numerators, _mm512_mullo_epi32(quotients, divisors));
      quotients = _mm512_mask_add_epi32(quotients, _mm512_cmpge_epu32_mask(remainders, divisors), quotients,
                                        _mm512_set1_epi32(1));
      const __m512i weights =
          _mm512_maskz_min_epi32(all, _mm512_sub_epi32(quotients, _mm512_set1_epi32(128)), _mm512_set1_epi32(127));
      _mm512_mask_storeu_epi8(ws + u, k, _mm512_zextsi128_si512(_mm512_maskz_cvtepi32_epi8(all, weights)));
    }
  }

  static __m256i halves(accumulator sum) noexcept {
    return _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, sum, 0), _mm512_maskz_extracti64x4_epi64(0xF, sum, 1));
  }
};

// An AVX-512 target without VNNI packs its weights for AVX2's `vpmaddwd` kernel (kernels/avx2_int8.hpp): ctattn has no
// zmm form of it.
/// The int8 table's avx512 row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx512> {
  static constexpr const char* name = "avx512";
  using ops = avx512_int8_ops;
  using product_ops = avx512_int8_ops;
  using packed_ops = avx2_packed_ops;
  using int4_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512BW__)

// The packed int8 fully-connected kernel needs AVX-512 VNNI (`vpdpbusd`) besides AVX-512BW: kernels/int8.hpp
// selects it then.
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)

#include <cstring>

namespace ctattn::detail {

/// The operations of kernels/detail/int8_packed.hpp on 16 channels per zmm register: `vpdpbusd` adds to each
/// channel's int32 lane the 4 products of 4 inputs broadcast to every lane (unsigned: x + 128, staged) with its 4
/// packed weights, 64 multiply-accumulates per instruction; the requantization is `output_requantizer`'s in
/// `paired_format`'s one step, on the 8 channels of the even lanes and then the 8 of the odd ones (`vpmuldq` for
/// the 64-bit products, one variable shift per channel, `vpmovsqb` to saturate 8 channels in order).
struct avx512_vnni_packed_ops : int8_packed_ops_defaults {
  static constexpr bool has_pack_block = true;
  using format = int8_packed::paired_format;
  // Tiles of up to 8 rows with up to 24 accumulators in all (one row: 8 blocks, 128 channels), out of 32 registers.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 24;
  static constexpr std::size_t max_panel = 8;

  using accumulator = __m512i;
  /// 8 channels' constants, one per 64-bit lane.
  struct half {
    __m512i multiplier, addend, negative, shift;
  };
  struct requantizer {
    __m512i left;
    half even, odd;
  };

  /// dst[t] = x[t] + 128 as an unsigned byte for t < k, then 128 (an input 0) up to n.
  static void stage_row(std::int8_t* dst, const std::int8_t* x, std::size_t k, std::size_t n) noexcept {
    const __m512i flip = _mm512_set1_epi8(-128);
    const auto first = [](std::size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1u; };
    std::size_t t = 0;
    for (; t + 64 <= k; t += 64) _mm512_storeu_si512(dst + t, _mm512_xor_si512(_mm512_loadu_si512(x + t), flip));
    // Rationale: masked forms for the rest only (a masked store takes several cycles on Zen 4).
    for (; t < n; t += 64) {
      const __mmask64 read = t < k ? first(k - t) : __mmask64{0};
      _mm512_mask_storeu_epi8(dst + t, first(n - t), _mm512_xor_si512(_mm512_maskz_loadu_epi8(read, x + t), flip));
    }
  }
  static accumulator load_start(const std::int32_t* p) noexcept { return _mm512_loadu_si512(p); }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return _mm512_add_epi32(start, _mm512_set1_epi32(row));
  }
  static accumulator load_weights(const std::int8_t* p) noexcept { return _mm512_loadu_si512(p); }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return _mm512_set1_epi32(four);
  }
  // Rationale: the instruction in an asm statement with the sum as its in-out operand: through the intrinsic, GCC 12
  // copies every accumulator to a new register after each vpdpbusd (as many moves as multiply-adds).
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    asm("vpdpbusd %2, %1, %0" : "+v"(sum) : "v"(inputs), "v"(weights));
    return sum;
#else
    return _mm512_dpbusd_epi32(sum, inputs, weights);
#endif
  }
  /// 16 channels of an operand known only at run time (rows WS bytes apart, K int8 each) as one packed block
  /// (`paired_format`'s lanes, groups of 4 inputs, the last padded with 0; int8_packed::runtime_panel), and each
  /// channel's sum of its K values at its lane: per 64 inputs, the 16 rows loaded in their lanes' order (channels
  /// 0-7 to the even lanes, 8-15 to the odd) and transposed as 16 x 16 words (`vpunpck*dq`, `vpunpck*qdq`,
  /// `vshufi32x4` twice: 64 instructions), so that vector g holds every channel's group g; a `vpdpbusd` of each
  /// against ones sums the channels.
  // Rationale: not a `vpgatherdd` per group: on Zen 4 a gather of 16 words took about 24 cycles, and packing spent
  // 7% of int8 attention's time at (64, 64); the transposition does 16 groups in about as many cycles as one gather.
  template <std::size_t K, std::size_t WS>
  static void pack_block(std::int8_t* to, const std::int8_t* from, std::int32_t* sums) noexcept {
    constexpr std::size_t groups = (K + 3) / 4;
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i total = _mm512_setzero_si512();
    for (std::size_t t = 0; t < K; t += 64) {
      const __mmask64 read = K - t >= 64 ? ~__mmask64{0} : (__mmask64{1} << (K - t)) - 1u;
      __m512i r[16];
      for (std::size_t l = 0; l < 16; ++l) {
        const std::size_t channel = l % 2 == 0 ? l / 2 : 8 + l / 2;
        r[l] = _mm512_maskz_loadu_epi8(read, from + channel * WS + t);
      }
      __m512i u[16];
      for (std::size_t i = 0; i < 16; i += 2) {
        u[i] = _mm512_maskz_unpacklo_epi32(0xFFFF, r[i], r[i + 1]);
        u[i + 1] = _mm512_maskz_unpackhi_epi32(0xFFFF, r[i], r[i + 1]);
      }
      for (std::size_t i = 0; i < 16; i += 4) {  // u[4i + j]: rows 4i..4i+3, columns j + 4k in 128-bit lane k
        r[i] = _mm512_maskz_unpacklo_epi64(0xFF, u[i], u[i + 2]);
        r[i + 1] = _mm512_maskz_unpackhi_epi64(0xFF, u[i], u[i + 2]);
        r[i + 2] = _mm512_maskz_unpacklo_epi64(0xFF, u[i + 1], u[i + 3]);
        r[i + 3] = _mm512_maskz_unpackhi_epi64(0xFF, u[i + 1], u[i + 3]);
      }
      __m512i column[16];
      for (std::size_t j = 0; j < 4; ++j) {
        const __m512i v0 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[j], r[4 + j], 0x88);
        const __m512i v1 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[j], r[4 + j], 0xDD);
        const __m512i v2 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[8 + j], r[12 + j], 0x88);
        const __m512i v3 = _mm512_maskz_shuffle_i32x4(0xFFFF, r[8 + j], r[12 + j], 0xDD);
        column[j] = _mm512_maskz_shuffle_i32x4(0xFFFF, v0, v2, 0x88);
        column[j + 8] = _mm512_maskz_shuffle_i32x4(0xFFFF, v0, v2, 0xDD);
        column[j + 4] = _mm512_maskz_shuffle_i32x4(0xFFFF, v1, v3, 0x88);
        column[j + 12] = _mm512_maskz_shuffle_i32x4(0xFFFF, v1, v3, 0xDD);
      }
      const std::size_t first = t / 4;
      const std::size_t count = groups - first < 16 ? groups - first : 16;
      for (std::size_t g = 0; g < count; ++g) {
        _mm512_storeu_si512(to + 64 * (first + g), column[g]);
        total = dot_group(total, ones, column[g]);
      }
    }
    _mm512_storeu_si512(sums, total);
  }
  /// The constants of the block from channel c (a multiple of 16); the zero point is in the addends.
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t) noexcept {
    const auto load_half = [&r](std::size_t from) {
      return half{_mm512_loadu_si512(r.multiplier + 2 * from), _mm512_loadu_si512(r.addend + 2 * from),
                  _mm512_loadu_si512(r.negative + 2 * from), _mm512_loadu_si512(r.shift + 2 * from)};
    };
    return {_mm512_loadu_si512(r.left + c), load_half(c), load_half(c + 8)};
  }
  /// The first `valid` of 8 channels requantized to y, from the low words of x's 64-bit lanes: `output_requantizer`'s
  /// arithmetic in paired_format's one step.
  // Rationale: the zero-masking forms with every lane selected, as in avx512_ops (GCC 12's plain forms start from a
  // self-initialized register that -Wuninitialized reports).
  static void store_half(std::int8_t* y, __m512i x, const half& h, std::size_t valid) noexcept {
    constexpr __mmask8 all = 0xFF;
    const __m512i product = _mm512_maskz_mul_epi32(all, x, h.multiplier);
    const __mmask8 negative = _mm512_cmplt_epi64_mask(product, _mm512_set1_epi64(-(std::int64_t{1} << 30)));
    const __m512i biased = _mm512_maskz_add_epi64(all, product, h.addend);
    const __m512i sum = _mm512_mask_sub_epi64(biased, negative, biased, h.negative);
    const __m512i v = _mm512_maskz_srav_epi64(all, sum, h.shift);
    // Rationale: saturated in a register, then stored whole or through a buffer: GCC 12's dead-store pass fails
    // with an internal compiler error on the masked form (`vpmovsqb` to memory under a mask) in some inlinings.
    const __m128i bytes = _mm512_maskz_cvtsepi64_epi8(all, v);
    if (valid == 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y), bytes);
    } else {
      std::int8_t eight[16];
      _mm_storeu_si128(reinterpret_cast<__m128i*>(eight), bytes);
      // Rationale: the bound held below 8 for the compiler too; GCC 12 at -O3 kept the odd half's call of a block
      // of 5 valid channels alive in some inlinings and warned of a memcpy of valid - 8 (-Wstringop-overflow).
      std::memcpy(y, eight, valid < 8 ? valid : 8);
    }
  }
  /// The first `valid` channels of the block requantized to y: channels 0-7 from the even lanes, 8-15 from the odd.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    const __m512i x = _mm512_maskz_sllv_epi32(0xFFFF, sum, r.left);
    store_half(y, x, r.even, valid < 8 ? valid : 8);
    if (valid > 8) store_half(y + 8, _mm512_maskz_srli_epi64(0xFF, x, 32), r.odd, valid - 8);
  }
};

/// The int8 operations of kernels/detail/int8_simd.hpp with AVX-512 VNNI: avx512_int8_ops's, but for a `dot_rows` of
/// its own on 64 terms per step that widens nothing. a + 128 is `vpdpbusd`'s unsigned operand (one `vpxord` per step,
/// shared by a pass of 8 rows of b), b is read as it is, and a second `vpdpbusd` against ones sums b, whose 128 sum b
/// is taken away: sum (a + 128) b - 128 sum b = sum a b. The zero points' terms follow, as in the dot-product form of
/// NEON: sum (a - za)(b - zb) = sum a b - zb sum a - za sum b + n za zb. Terms past the last whole step go to
/// avx512_int8_ops's 32-term steps, then AVX2's, then the loop.
// Rationale: per 64 terms and row of b, 2 instructions (the load folded into the first) where the widening form
// takes 8 (two 32-term steps of a widening load, a subtraction, `vpmaddwd` and an add).
struct avx512_vnni_int8_ops : avx512_int8_ops {
  static constexpr bool has_dot_rows = true;
  static constexpr std::size_t step = 64;

  /// out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero) for j < n, t < k.
  static void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                       std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
    const std::size_t whole = k - k % step;
    if (whole > 0) {
      std::int32_t a_sum = 0;  // at most 128 x 33,025 in magnitude
      for (std::size_t t = 0; t < whole; ++t) a_sum += a[t];
      const zero_terms z{a_zero, b_zero, a_sum, whole};
      // Rationale: the rows by pointers that advance, not b + j b_stride: GCC 12 -O2 reports the latter as overflowing
      // at an iteration no call reaches (-Waggressive-loop-optimizations, an error with -Werror).
      const std::int8_t* row = b;
      std::int32_t* sum = out;
      const std::int32_t* const end = out + n;
      for (; end - sum >= 8; sum += 8, row += 8 * b_stride) pass<8>(a, row, b_stride, whole, z, sum);
      for (; sum != end; ++sum, row += b_stride) pass<1>(a, row, b_stride, whole, z, sum);
    } else {
      for (std::size_t j = 0; j < n; ++j) out[j] = 0;
    }
    if (whole < k) {
      int8_simd::tiled_dot_rows<avx512_int8_ops, true>(a + whole, a_zero, b + whole, b_stride, b_zero, k - whole, n,
                                                       out);
    }
  }

 private:
  struct zero_terms {
    std::int32_t a_zero, b_zero;
    std::int32_t a_sum;  // sum a over the whole steps
    std::size_t terms;
  };

  // out[r] for the R rows of b from `first`, over the whole steps.
  template <std::size_t R>
  static void pass(const std::int8_t* a, const std::int8_t* first, std::size_t b_stride, std::size_t whole,
                   const zero_terms& z, std::int32_t* out) noexcept {
    __m512i dots[R];
    __m512i b_sums[R];
    for (std::size_t r = 0; r < R; ++r) dots[r] = b_sums[r] = _mm512_setzero_si512();
    const __m512i flip = _mm512_set1_epi8(-128);
    const __m512i ones = _mm512_set1_epi8(1);
    for (std::size_t t = 0; t < whole; t += step) {
      const __m512i unsigned_a = _mm512_xor_si512(_mm512_loadu_si512(a + t), flip);
      for (std::size_t r = 0; r < R; ++r) {
        const __m512i row = _mm512_loadu_si512(first + r * b_stride + t);
        dots[r] = avx512_vnni_packed_ops::dot_group(dots[r], unsigned_a, row);
        b_sums[r] = avx512_vnni_packed_ops::dot_group(b_sums[r], ones, row);
      }
    }
    // Rationale: the masked shift, as the masked extracts elsewhere: GCC 12 warns that the unmasked one's undefined
    // source may be used uninitialized.
    for (std::size_t r = 0; r < R; ++r) {
      dots[r] = _mm512_sub_epi32(dots[r], _mm512_maskz_slli_epi32(0xFFFF, b_sums[r], 7));
    }
    std::int32_t products[R];
    std::int32_t row_sums[R];
    if constexpr (R == 8) {
      totals(dots, products);
      totals(b_sums, row_sums);
    } else {
      for (std::size_t r = 0; r < R; ++r) {
        products[r] = total(dots[r]);
        row_sums[r] = total(b_sums[r]);
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      out[r] = int8_simd::offset_dot(products[r], z.a_sum, row_sums[r], z.a_zero, z.b_zero, z.terms);
    }
  }
};

/// The int8 table's avx512_vnni row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::avx512_vnni> {
  static constexpr const char* name = "avx512_vnni";
  using ops = avx512_vnni_int8_ops;
  using product_ops = avx512_vnni_int8_ops;
  using packed_ops = avx512_vnni_packed_ops;
  using int4_ops = void;
};

}  // namespace ctattn::detail

#endif  // defined(__AVX512BW__) && defined(__AVX512VNNI__)

#endif  // CTATTN_KERNELS_AVX512_INT8_HPP
// ---------------------------------------- ctattn/kernels/int8.hpp (continued)
// ---------------------------------------- ctattn/kernels/helium_int8.hpp
#ifndef CTATTN_KERNELS_HELIUM_INT8_HPP
#define CTATTN_KERNELS_HELIUM_INT8_HPP

/// \file
/// The Helium int8 backend (Arm M-profile Vector Extension, e.g. Cortex-M55): the int8 operations of
/// kernels/detail/int8_simd.hpp on 8 terms per step, and the layers' products, softmax, LayerNorm, lookups and ADD
/// on 16 int8 lanes. Built only where the compiler defines `__ARM_FEATURE_MVE` with its integer bit (1), with Clang or
/// GCC 13 and later (kernels/backend.hpp says why not GCC 12); kernels/int8.hpp includes it and chooses its row.
/// Tested on the target by the firmware board `m55-helium`.
///
/// Example: `static_assert(ctattn::detail::helium_int8_ops::step == 8);` (on a Helium target)



// The int8 operations need MVE's integer instructions only (bit 1), with Clang or GCC 13 and later, as the float
// ones.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (defined(__clang__) || __GNUC__ >= 13)

#include <arm_mve.h>

#include <cstdint>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 8 terms per step: `vldrb.s16` loads 8 int8 widened to
/// int16, `vsub` subtracts the zero point, `vmladava` multiplies the 8 lanes and adds the products to one int32.
struct helium_int8_ops : int8_ops_defaults {
  static constexpr bool has_product_requantized = true;
  static constexpr bool has_row_sum = true;
  static constexpr bool has_softmax_row = true;
  static constexpr bool has_add = true;
  static constexpr bool has_lookup = true;
  static constexpr bool has_sum_and_squares = true;
  static constexpr bool has_layer_norm_row = true;
  static constexpr std::size_t step = 8;
  using offset = std::int16_t;
  using widened = int16x8_t;
  using accumulator = std::int32_t;
  static offset make_offset(std::int32_t zero_point) noexcept { return static_cast<std::int16_t>(zero_point); }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept {
    return __arm_vsubq_n_s16(__arm_vldrbq_s16(p), zero_point);
  }
  static accumulator zero() noexcept { return 0; }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return __arm_vmladavaq_s16(sum, x, y);
  }
  static std::int32_t total(accumulator sum) noexcept { return sum; }

  /// The channels of w one pass of the fully-connected kernel computes (4 int32 lanes of requantization).
  static constexpr std::size_t fc_channels = 4;

  /// sum_t x[t] w_c[t] for t < K, the four channels at w (WS bytes apart), into a vector's four lanes: `vmladava.s8`
  /// on 16 raw int8 pairs at once (no widening: the input's zero point is folded into the bias), the last K % 16
  /// terms by tail-predicated loads, whose disabled lanes read as zero and add nothing.
  template <std::size_t K, std::size_t WS>
  CTATTN_ALWAYS_INLINE static int32x4_t four_channels(const std::int8_t* x, const std::int8_t* w) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    // Rationale: five pointers that each step advances (post-indexed loads), not one index: at -Os Clang 14 then
    // emits the 9 instructions a step needs, not 19 (an address computed for each load).
    const std::int8_t* w0 = w;
    const std::int8_t* w1 = w + WS;
    const std::int8_t* w2 = w + 2 * WS;
    const std::int8_t* w3 = w + 3 * WS;
#pragma GCC unroll 4
    for (const std::int8_t* const end = x + whole; x != end; x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
      const int8x16_t xv = __arm_vld1q_s8(x);
      s0 = __arm_vmladavaq_s8(s0, xv, __arm_vld1q_s8(w0));
      s1 = __arm_vmladavaq_s8(s1, xv, __arm_vld1q_s8(w1));
      s2 = __arm_vmladavaq_s8(s2, xv, __arm_vld1q_s8(w2));
      s3 = __arm_vmladavaq_s8(s3, xv, __arm_vld1q_s8(w3));
    }
    if constexpr (whole < K) {
      const mve_pred16_t lanes = __arm_vctp8q(K - whole);
      const int8x16_t xv = __arm_vldrbq_z_s8(x, lanes);
      s0 = __arm_vmladavaq_s8(s0, xv, __arm_vldrbq_z_s8(w0, lanes));
      s1 = __arm_vmladavaq_s8(s1, xv, __arm_vldrbq_z_s8(w1, lanes));
      s2 = __arm_vmladavaq_s8(s2, xv, __arm_vldrbq_z_s8(w2, lanes));
      s3 = __arm_vmladavaq_s8(s3, xv, __arm_vldrbq_z_s8(w3, lanes));
    }
    int32x4_t sums = __arm_vdupq_n_s32(s0);
    sums = __arm_vsetq_lane_s32(s1, sums, 1);
    sums = __arm_vsetq_lane_s32(s2, sums, 2);
    return __arm_vsetq_lane_s32(s3, sums, 3);
  }

  /// sum_t p[t] for t < K: `vaddva.s8` over 16 bytes a step, the tail by `vctp8`.
  template <std::size_t K>
  static std::int32_t row_sum(const std::int8_t* p) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t sum = 0;
#pragma GCC unroll 4
    for (std::size_t t = 0; t < whole; t += 16) sum = __arm_vaddvaq_s8(sum, __arm_vld1q_s8(p + t));
    if constexpr (whole < K) sum = __arm_vaddvaq_s8(sum, __arm_vldrbq_z_s8(p + whole, __arm_vctp8q(K - whole)));
    return sum;
  }

  /// sum_t p[t] and sum_t p[t]^2 for t < K (the int8 LayerNorm's S1 and S2): `vaddva.s8` and `vmladava.s8` over 16
  /// bytes a step, the tail by `vctp8`.
  template <std::size_t K>
  static void sum_and_squares(const std::int8_t* p, std::int32_t& sum, std::int32_t& squares) noexcept {
    std::int32_t s1 = 0;
    std::int32_t s2 = 0;
    for (std::size_t t = 0; t < K; t += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(K - t));
      const int8x16_t v = __arm_vldrbq_z_s8(p + t, lanes);
      s1 = __arm_vaddvaq_s8(s1, v);
      s2 = __arm_vmladavaq_s8(s2, v, v);
    }
    sum = s1;
    squares = s2;
  }

  /// Rows the vector softmax takes: a sum of at most 2047 exponentials of 2^20 or less stays below 2^31, so that
  /// the numerators 512 e + sum and the divisor 2 sum fit 32-bit lanes.
  static constexpr std::size_t softmax_row_limit = 2047;
  /// ... of any length from 1 on.
  static constexpr std::size_t softmax_row_shortest = 1;

  /// kernels/int8.hpp's `int8_softmax_row` for a row of 1 to `softmax_row_limit` entries, all visible: the same
  /// weights, 4 lanes at a time. The largest entry by `vmaxv.s8`, the exponentials by a gather from the table
  /// (`vldrw.u32` with shifted offsets), their sum by `vaddva`; each weight's quotient round(256 e / sum) as
  /// (n r) >> 40 with r = floor(2^40 / (2 sum)), n = 512 e + sum: `vmulh.u32` gives (n r) >> 32, a shift the rest
  /// (floor of a floor), and the remainder n - q 2 sum (below 2^32: q 2 sum <= n) against 2 sum adds the last one,
  /// as the scalar form's comparison does. Tails by `vctp`.
  static void softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                          const std::int32_t* table) noexcept {
    const std::int8_t* const xs = x + begin;
    std::int8_t* const ws = w + begin;
    const std::size_t n = end - begin;
    std::int8_t largest = -128;
    for (std::size_t t = 0; t < n; t += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - t));
      largest = __arm_vmaxvq_p_s8(largest, __arm_vldrbq_z_s8(xs + t, lanes), lanes);
    }
    const int32x4_t top = __arm_vdupq_n_s32(largest);
    const auto offsets = [&](std::size_t t, mve_pred16_t lanes) {
      return __arm_vreinterpretq_u32_s32(__arm_vsubq_s32(top, __arm_vldrbq_z_s32(xs + t, lanes)));
    };
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < n; t += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - t));
      sum = __arm_vaddvaq_p_s32(sum, __arm_vldrwq_gather_shifted_offset_z_s32(table, offsets(t, lanes), lanes), lanes);
    }
    const auto divisor = static_cast<std::uint32_t>(2 * sum);
    const auto reciprocal = static_cast<std::uint32_t>((std::uint64_t{1} << 40) / divisor);
    const uint32x4_t divisors = __arm_vdupq_n_u32(divisor);
    for (std::size_t t = 0; t < n; t += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - t));
      const uint32x4_t terms =
          __arm_vreinterpretq_u32_s32(__arm_vldrwq_gather_shifted_offset_z_s32(table, offsets(t, lanes), lanes));
      const uint32x4_t numerators = __arm_vaddq_n_u32(__arm_vshlq_n_u32(terms, 9), static_cast<std::uint32_t>(sum));
      uint32x4_t quotients = __arm_vshrq_n_u32(__arm_vmulhq_u32(numerators, __arm_vdupq_n_u32(reciprocal)), 8);
      const uint32x4_t remainders = __arm_vsubq_u32(numerators, __arm_vmulq_u32(quotients, divisors));
      quotients = __arm_vaddq_m_n_u32(quotients, quotients, 1u, __arm_vcmpcsq_u32(remainders, divisors));
      const int32x4_t weights =
          __arm_vminq_s32(__arm_vsubq_n_s32(__arm_vreinterpretq_s32_u32(quotients), 128), __arm_vdupq_n_s32(127));
      __arm_vstrbq_p_s32(ws + t, weights, lanes);
    }
  }

  /// The output of 4 requantized lanes: v plus the zero point, saturated to [-128, 127] (`vqadd`, then `vqshl #24`
  /// and `vshr #24`), for a `vstrb.32` of each lane's low byte.
  // Rationale: the clamp by a saturating shift left by 24 and back needs no constant registers, where `vmax`/`vmin`
  // with -128 and 127 held two q registers that the product's loop then shuffled (4 `vmov` a pass).
  CTATTN_ALWAYS_INLINE static int32x4_t output_lanes(int32x4_t v, std::int32_t zero) noexcept {
    return __arm_vshrq_n_s32(__arm_vqshlq_n_s32(__arm_vqaddq_n_s32(v, zero), 24), 24);
  }

  /// Whether `scaled<M>` takes M: a non-negative multiplier whose shift is in [-31, 31].
  static constexpr bool takes(math::quantized_multiplier m) noexcept {
    return m.multiplier >= 0 && m.shift >= -31 && m.shift <= 31;
  }
  /// Whether `add` takes these multipliers (each one `scaled` takes).
  static constexpr bool add_takes(math::quantized_multiplier a, math::quantized_multiplier b,
                                  math::quantized_multiplier out) noexcept {
    return takes(a) && takes(b) && takes(out);
  }

  /// x times the multiplier M on 4 lanes, `output_requantizer::scaled`'s value: `vshl` by a left shift, `vqrdmulh`
  /// (TFLite's doubling high multiply), and for a right shift `vshr #31` and `vadd` (one less for a negative value)
  /// then `vrshr` (rounding right shift): ties away from zero.
  template <math::quantized_multiplier M>
    requires(takes(M))
  CTATTN_ALWAYS_INLINE static int32x4_t scaled(int32x4_t x) noexcept {
    if constexpr (M.shift > 0) x = __arm_vshlq_n_s32(x, M.shift);
    x = __arm_vqrdmulhq_n_s32(x, M.multiplier);
    if constexpr (M.shift < 0) {
      // The high product is above -2^31 (M below 2^31), so subtracting 1 cannot wrap.
      x = __arm_vaddq_s32(x, __arm_vshrq_n_s32(x, 31));
      x = __arm_vrshrq_n_s32(x, -M.shift);
    }
    return x;
  }

  /// kernels/int8.hpp's `int8_add_rows` at run time over n elements, 4 a step (`vldrb.s32` loads 4 int8 into int32
  /// lanes), the last n % 4 by tail-predicated loads and stores.
  template <math::quantized_multiplier A, math::quantized_multiplier B, int LeftShift, math::quantized_multiplier Out>
    requires(add_takes(A, B, Out))
  static void add(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                  std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; i += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(n - i));
      const int32x4_t va = __arm_vshlq_n_s32(__arm_vsubq_n_s32(__arm_vldrbq_z_s32(a + i, lanes), a_zero), LeftShift);
      const int32x4_t vb = __arm_vshlq_n_s32(__arm_vsubq_n_s32(__arm_vldrbq_z_s32(b + i, lanes), b_zero), LeftShift);
      __arm_vstrbq_p_s32(out + i, output_lanes(scaled<Out>(__arm_vaddq_s32(scaled<A>(va), scaled<B>(vb))), out_zero),
                         lanes);
    }
  }

  /// sum_t x[t] w[t] for one channel.
  template <std::size_t K>
  CTATTN_ALWAYS_INLINE static std::int32_t one_channel(const std::int8_t* x, const std::int8_t* w) noexcept {
    constexpr std::size_t whole = K - K % 16;
    std::int32_t sum = 0;
    for (std::size_t t = 0; t < whole; t += 16)
      sum = __arm_vmladavaq_s8(sum, __arm_vld1q_s8(x + t), __arm_vld1q_s8(w + t));
    if constexpr (whole < K) {
      const mve_pred16_t lanes = __arm_vctp8q(K - whole);
      sum = __arm_vmladavaq_s8(sum, __arm_vldrbq_z_s8(x + whole, lanes), __arm_vldrbq_z_s8(w + whole, lanes));
    }
    return sum;
  }

  /// kernels/int8.hpp's `int8_product_requantized` at run time: passes of four channels, whose requantization runs
  /// on their four lanes at once, then the channels left one by one.
  ///
  /// | step                     | instructions (per 4 outputs)                                           |
  /// |--------------------------|------------------------------------------------------------------------|
  /// | + column and row starts  | `vadd`, and `vadd` of the row's start when there is one                |
  /// | x 2^left                 | `vshl` by each lane's left shift (0 for a multiplier below 1)          |
  /// | doubling high multiply   | `vqrdmulh`: round(2 a b / 2^32) with ties up, TFLite's SRDHM exactly    |
  /// | rounding right shift     | `vand`, `vshr #31`, `vqadd` (one less for a negative value), `vrshl`: ties away from zero |
  /// | + zero point, clamp      | `output_lanes`: `vqadd`; `vqshl #24`, `vshr #24` saturate to [-128, 127] |
  /// | store                    | `vstrb.32`: each lane's low byte                                       |
  // Rationale: the per-channel multipliers and shifts are read once per pass of channels (`vld2` splits the
  // {multiplier, shift} pairs into two vectors), outside the loop over rows; the rows then reuse them in registers.
  template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
            typename Epilogue>
  static void product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
    static_assert(sizeof(math::quantized_multiplier) == 2 * sizeof(std::int32_t));
    constexpr std::size_t whole = N - N % fc_channels;
    const int32x4_t none = __arm_vdupq_n_s32(0);
    for (std::size_t c = 0; c < whole; c += fc_channels) {
      int32x4_t multiplier, shift;
      if constexpr (Epilogue::per_channel) {
        const int32x4x2_t pairs = __arm_vld2q_s32(&e.multipliers[c].multiplier);
        multiplier = pairs.val[0];
        shift = pairs.val[1];
      } else {
        multiplier = __arm_vdupq_n_s32(e.multipliers[0].multiplier);
        shift = __arm_vdupq_n_s32(e.multipliers[0].shift);
      }
      const int32x4_t left = __arm_vmaxq_s32(shift, none);
      const int32x4_t right = __arm_vminq_s32(shift, none);  // minus the right shift
      const int32x4_t bias = __arm_vld1q_s32(&e.column_start[c]);
      for (std::size_t r = 0; r < M; ++r) {
        int32x4_t v = __arm_vaddq_s32(four_channels<K, WS>(x + r * XS, w + c * WS), bias);
        if constexpr (Epilogue::row_starts) v = __arm_vaddq_n_s32(v, e.row_start[r]);
        v = __arm_vqrdmulhq_s32(__arm_vshlq_s32(v, left), multiplier);
        v = __arm_vqaddq_s32(v, __arm_vshrq_n_s32(__arm_vandq_s32(v, right), 31));
        __arm_vstrbq_s32(y + r * YS + c, output_lanes(__arm_vrshlq_s32(v, right), e.zero));
      }
    }
    for (std::size_t c = whole; c < N; ++c) {
      for (std::size_t r = 0; r < M; ++r) y[r * YS + c] = e(r, c, one_channel<K>(x + r * XS, w + c * WS));
    }
  }

  /// kernels/int8.hpp's `int8_lookup_rows` on one row of n values: 16 a step, each value's entry gathered from the
  /// table (`vldrb.u8` at the offsets x + 128, made by `veor` with 0x80); the tail by `vctp8`.
  static void lookup(const std::int8_t* x, std::int8_t* y, std::size_t n, const std::int8_t* table) noexcept {
    const auto* entries = reinterpret_cast<const std::uint8_t*>(table);
    const uint8x16_t flip = __arm_vdupq_n_u8(0x80);
    for (std::size_t i = 0; i < n; i += 16) {
      const mve_pred16_t lanes = __arm_vctp8q(static_cast<std::uint32_t>(n - i));
      const uint8x16_t offsets = __arm_veorq_u8(__arm_vreinterpretq_u8_s8(__arm_vldrbq_z_s8(x + i, lanes)), flip);
      __arm_vstrbq_p_u8(reinterpret_cast<std::uint8_t*>(y + i),
                        __arm_vldrbq_gather_offset_z_u8(entries, offsets, lanes), lanes);
    }
  }

  /// kernels/int8.hpp's `int8_layer_norm_row_at_run_time` (steps 4 to 7 of quantized/norm.hpp's rationale)
  /// for a row of C values, 4 lanes at a time, the same bits, for weights whose shifts are all 32 or more (weights
  /// of at most 2^8 output steps; the caller checks): the products' magnitudes as unsigned 32 x 32 -> 64 bit
  /// multiplies split into their low (`vmul`) and high (`vmulh.u32`) words, as the scalar form does.
  ///
  /// | step                                | instructions (per 4 values)                                   |
  /// |-------------------------------------|---------------------------------------------------------------|
  /// | N_j = C q_j - S1, its magnitude     | `vldrb.s32`, `vmul`, `vsub`, `vabs`                            |
  /// | 4: n_j = round(|N_j| I / 2^d)       | `vmul`, `vmulh.u32`; low >> (d - 1) or high << (33 - d) (`vshl` by a register, a right shift when negative, 0 past 31); (+1) >> 1 |
  /// | 5, 6: round(n_j |m_j| / 2^s_j)      | `vmul`, `vmulh.u32`; high shifted by each lane's 33 - s_j, the low word's top bit joined where s_j = 32 (`vorr` predicated); (+1) >> 1 |
  /// | sign, + b_j, held                   | `veor`, `vsub` (the sign of N_j m_j); `vqadd`; `vmin`, `vmax` to [-2^30, 2^30 - 1] (the scalar form's `ssat` of `qadd`) |
  /// | 7: round(A_j / 2^16) + z, clamp     | `vadd`, `vshr #31`, `vadd`, `vshr #16`; `vmin`, `vmax`; `vstrb.32` |
  template <std::size_t C>
  static void layer_norm_row(const std::int8_t* x, std::int8_t* y, std::int32_t sum, std::uint32_t inverse, int down,
                             const std::int32_t* multiplier, const std::int32_t* shift, const std::int32_t* bias,
                             std::int32_t out_zero) noexcept {
    const std::int32_t first = down - 1;
    const std::int32_t last_rounding = (1 << 15) + out_zero * (1 << 16);
    const uint32x4_t inverse_lanes = __arm_vdupq_n_u32(inverse);
    const int32x4_t upper = __arm_vdupq_n_s32((1 << 30) - 1);
    const int32x4_t lower = __arm_vdupq_n_s32(-(1 << 30));
    const int32x4_t top = __arm_vdupq_n_s32(127);
    const int32x4_t bottom = __arm_vdupq_n_s32(-128);
    const int32x4_t thirty_three = __arm_vdupq_n_s32(33);
    for (std::size_t j = 0; j < C; j += 4) {
      const mve_pred16_t lanes = __arm_vctp32q(static_cast<std::uint32_t>(C - j));
      const int32x4_t centered =
          __arm_vsubq_n_s32(__arm_vmulq_n_s32(__arm_vldrbq_z_s32(x + j, lanes), static_cast<std::int32_t>(C)), sum);
      const uint32x4_t centered_magnitude = __arm_vreinterpretq_u32_s32(__arm_vabsq_s32(centered));
      const uint32x4_t low = __arm_vmulq_u32(centered_magnitude, inverse_lanes);
      const uint32x4_t high = __arm_vmulhq_u32(centered_magnitude, inverse_lanes);
      const uint32x4_t halves = __arm_vorrq_u32(__arm_vshlq_r_u32(low, -first), __arm_vshlq_r_u32(high, 32 - first));
      const uint32x4_t n = __arm_vshrq_n_u32(__arm_vaddq_n_u32(halves, 1), 1);
      const int32x4_t m = __arm_vldrwq_z_s32(multiplier + j, lanes);
      const int32x4_t s = __arm_vldrwq_z_s32(shift + j, lanes);
      // |m_j| as unsigned: vabs leaves -2^31 as it is, whose bits are 2^31.
      const uint32x4_t m_magnitude = __arm_vreinterpretq_u32_s32(__arm_vabsq_s32(m));
      const uint32x4_t t_low = __arm_vmulq_u32(n, m_magnitude);
      const uint32x4_t t_high = __arm_vmulhq_u32(n, m_magnitude);
      uint32x4_t v = __arm_vshlq_u32(t_high, __arm_vsubq_s32(thirty_three, s));
      v = __arm_vorrq_m_u32(v, v, __arm_vshrq_n_u32(t_low, 31), __arm_vcmpeqq_n_s32(s, 32));
      const int32x4_t scaled = __arm_vreinterpretq_s32_u32(__arm_vshrq_n_u32(__arm_vaddq_n_u32(v, 1), 1));
      const int32x4_t sign = __arm_vshrq_n_s32(__arm_veorq_s32(centered, m), 31);
      const int32x4_t a_unheld =
          __arm_vqaddq_s32(__arm_vsubq_s32(__arm_veorq_s32(scaled, sign), sign), __arm_vldrwq_z_s32(bias + j, lanes));
      const int32x4_t a = __arm_vmaxq_s32(__arm_vminq_s32(a_unheld, upper), lower);
      const int32x4_t rounded =
          __arm_vshrq_n_s32(__arm_vaddq_s32(__arm_vaddq_n_s32(a, last_rounding), __arm_vshrq_n_s32(a, 31)), 16);
      __arm_vstrbq_p_s32(y + j, __arm_vmaxq_s32(__arm_vminq_s32(rounded, top), bottom), lanes);
    }
  }
};

/// Int4 weights on Helium (kernels/int4.hpp): unpacked 32 a step, then the int8 product kernel above.
struct helium_int4_ops : int4_ops_defaults {
  static constexpr bool has_unpack = true;
  /// `count` int4 values (an even count) from `packed`, two a byte, low nibble first, into `values` as int8: per 16
  /// bytes, `vshl` and `vshr` sign-extend the low nibbles, `vshr` the high ones, and `vst2` interleaves them; the
  /// last values one at a time (`kernels::int4_value`).
  static void unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
    const std::size_t bytes = count / 2;
    std::size_t i = 0;
    for (; i + 16 <= bytes; i += 16) {
      const int8x16_t b = __arm_vreinterpretq_s8_u8(__arm_vld1q_u8(packed + i));
      int8x16x2_t pair;
      pair.val[0] = __arm_vshrq_n_s8(__arm_vshlq_n_s8(b, 4), 4);
      pair.val[1] = __arm_vshrq_n_s8(b, 4);
      __arm_vst2q_s8(values + 2 * i, pair);
    }
    for (std::size_t v = 2 * i; v < count; ++v) values[v] = kernels::int4_value(packed, v);
  }
};

/// The int8 table's helium row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::helium> {
  static constexpr const char* name = "helium";
  using ops = helium_int8_ops;
  using product_ops = helium_int8_ops;
  using packed_ops = void;
  using int4_ops = helium_int4_ops;
};

}  // namespace ctattn::detail

#endif  // defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (...)

#endif  // CTATTN_KERNELS_HELIUM_INT8_HPP
// ---------------------------------------- ctattn/kernels/int8.hpp (continued)
// ---------------------------------------- ctattn/kernels/neon_int8.hpp
#ifndef CTATTN_KERNELS_NEON_INT8_HPP
#define CTATTN_KERNELS_NEON_INT8_HPP

/// \file
/// The AArch64 int8 backends: the int8 operations of kernels/detail/int8_simd.hpp with NEON's widening
/// multiply-adds (8 terms per step), the dot-product kernel with `sdot` (Armv8.2-A DotProd, 16 terms per
/// instruction), and the packed fully-connected kernels of kernels/detail/int8_packed.hpp with `sdot` and with
/// `smmla` (Armv8.6-A I8MM). kernels/int8.hpp includes it and chooses its rows.
///
/// Example: `static_assert(ctattn::detail::neon_int8_ops::step == 8);` (on AArch64)



// Empty unless the target is AArch64 with NEON.
#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

namespace ctattn::detail {

/// The int8 operations of kernels/detail/int8_simd.hpp on 8 terms per step: `ssubl` widens 8 int8 to int16 less
/// the zero point (an int8 itself), `smlal` and `smlal2` multiply and add the low and high halves into 4 int32 lanes.
struct neon_int8_ops : int8_ops_defaults {
  static constexpr std::size_t step = 8;
  using offset = int8x8_t;
  using widened = int16x8_t;
  using accumulator = int32x4_t;
  static offset make_offset(std::int32_t zero_point) noexcept {
    return vdup_n_s8(static_cast<std::int8_t>(zero_point));
  }
  static widened widen(const std::int8_t* p, offset zero_point) noexcept { return vsubl_s8(vld1_s8(p), zero_point); }
  static accumulator zero() noexcept { return vdupq_n_s32(0); }
  static accumulator multiply_add(accumulator sum, widened x, widened y) noexcept {
    return vmlal_high_s16(vmlal_s16(sum, vget_low_s16(x), vget_low_s16(y)), x, y);
  }
  static std::int32_t total(accumulator sum) noexcept { return vaddvq_s32(sum); }
};

/// The int8 table's neon row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon> {
  static constexpr const char* name = "neon";
  using ops = neon_int8_ops;
  using product_ops = neon_int8_ops;
  using packed_ops = void;
  using int4_ops = void;
};

#if defined(__ARM_FEATURE_DOTPROD)
/// The int8 kernel with the dot-product instructions (Armv8.2-A's optional DotProd, `-march=armv8.2-a+dotprod`):
/// `sdot` adds the products of four int8 pairs into each 32-bit lane, 16 terms per instruction, on the raw int8
/// values. The zero points come in afterwards, exactly:
///   sum (a - za)(b - zb) = sum a b - zb sum a - za sum b + k za zb,
/// where sum a and sum b are `sdot`s against a vector of ones. Four rows of b per pass share each load of a (a last
/// pass of fewer rows computes its first row again in the unused places and keeps only its own). Every
/// partial sum stays within int32 (|sum a b| <= 2^14 k and k <= 33,025), and the four terms are combined modulo 2^32
/// (`int8_simd::offset_dot`).
/// It replaces kernels/detail/int8_simd.hpp's tiling (`dot_rows` is the whole kernel).
struct neon_dotprod_int8_ops : int8_ops_defaults {
  static constexpr bool has_dot_rows = true;
  static constexpr std::size_t step = 16;

  static void dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                       std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
    constexpr std::size_t pass = 4;
    const std::size_t whole = k - k % step;
    const int8x16_t ones = vdupq_n_s8(1);
    int32x4_t a_lanes = vdupq_n_s32(0);
    for (std::size_t t = 0; t < whole; t += step) a_lanes = vdotq_s32(a_lanes, vld1q_s8(a + t), ones);
    const std::int32_t sum_a = vaddvq_s32(a_lanes);
    // sum over the whole steps, less the zero points, plus the rest of the terms as the scalar loop adds them.
    const auto finish = [&](const std::int8_t* row, int32x4_t products, int32x4_t row_lanes) noexcept {
      return static_cast<std::int32_t>(
          static_cast<std::uint32_t>(
              int8_simd::offset_dot(vaddvq_s32(products), sum_a, vaddvq_s32(row_lanes), a_zero, b_zero, whole)) +
          static_cast<std::uint32_t>(int8_simd::rest_of_row(a, a_zero, row, b_zero, whole, k)));
    };
    for (std::size_t j = 0; j < n; j += pass) {
      const std::size_t count = n - j < pass ? n - j : pass;  // the last pass may hold fewer rows
      const std::int8_t* rows[pass]{};
      int32x4_t products[pass];
      int32x4_t row_lanes[pass];
      for (std::size_t r = 0; r < pass; ++r) {
        rows[r] = b + (j + (r < count ? r : 0)) * b_stride;
        products[r] = vdupq_n_s32(0);
        row_lanes[r] = vdupq_n_s32(0);
      }
      for (std::size_t t = 0; t < whole; t += step) {
        const int8x16_t x = vld1q_s8(a + t);
        for (std::size_t r = 0; r < pass; ++r) {
          const int8x16_t y = vld1q_s8(rows[r] + t);
          products[r] = vdotq_s32(products[r], x, y);
          row_lanes[r] = vdotq_s32(row_lanes[r], y, ones);
        }
      }
      for (std::size_t r = 0; r < count; ++r) out[j + r] = finish(rows[r], products[r], row_lanes[r]);
    }
  }
};

/// The operations of kernels/detail/int8_packed.hpp on 4 channels per q register: `sdot` adds to each channel's
/// int32 lane the 4 products of 4 inputs broadcast to every lane with its 4 packed weights (signed by signed, so both
/// are read as they are: no offset; rows are staged only where K is not a multiple of 4); the requantization is
/// `output_requantizer`'s on 4 channels at once (`sqrdmulh` is TFLite's doubling high multiply; the right shift
/// rounds ties away from zero by the sign fix-up before `srshl`).
struct neon_dotprod_packed_ops : int8_packed_ops_defaults {
  using format = int8_packed::lane_format<4, 0>;
  // 32 registers: tiles of up to 8 rows with up to 24 accumulators (one row: 8 blocks, 32 channels).
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 24;
  static constexpr std::size_t max_panel = 8;

  using accumulator = int32x4_t;
  struct requantizer {
    int32x4_t multiplier, left, right, zero;
  };

  static accumulator load_start(const std::int32_t* p) noexcept { return vld1q_s32(p); }
  static accumulator add_row_start(accumulator start, std::int32_t row) noexcept {
    return vaddq_s32(start, vdupq_n_s32(row));
  }
  static accumulator load_weights(const std::int8_t* p) noexcept { return vreinterpretq_s32_s8(vld1q_s8(p)); }
  static accumulator broadcast_group(const std::int8_t* p) noexcept {
    std::int32_t four;
    std::memcpy(&four, p, 4);
    return vdupq_n_s32(four);
  }
  static accumulator dot_group(accumulator sum, accumulator inputs, accumulator weights) noexcept {
    return vdotq_s32(sum, vreinterpretq_s8_s32(inputs), vreinterpretq_s8_s32(weights));
  }
  /// The constants of the block from channel c (a multiple of 4).
  template <typename R>
  static requantizer make_requantizer(const R& r, std::size_t c, std::int32_t zero) noexcept {
    return {vld1q_s32(r.multiplier + c), vld1q_s32(r.left + c), vnegq_s32(vld1q_s32(r.right + c)), vdupq_n_s32(zero)};
  }
  /// The first `valid` lanes of sum requantized to y.
  static void store_requantized(std::int8_t* y, accumulator sum, const requantizer& r, std::size_t valid) noexcept {
    // x << left modulo 2^32, then round(x m / 2^31) with ties up (no saturation: m < 2^31).
    const int32x4_t high = vqrdmulhq_s32(vshlq_s32(sum, r.left), r.multiplier);
    // Rounding right shift by `right` (r.right holds its negation): srshl rounds ties up; a negative value less 1
    // first makes those ties go away from zero. A lane with no right shift has the mask 0 and keeps high.
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(high, r.right), 31);
    int32x4_t v = vrshlq_s32(vqaddq_s32(high, fixup), r.right);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(-256)), vdupq_n_s32(255));
    v = vaddq_s32(v, r.zero);
    const int8x8_t bytes = vqmovn_s16(vcombine_s16(vqmovn_s32(v), vdup_n_s16(0)));
    // Rationale: through a buffer and memcpy, which the compiler sees writing y (a lane store through a cast
    // pointer leaves GCC 12 believing the output uninitialized).
    std::int8_t eight[8];
    vst1_s8(eight, bytes);
    std::memcpy(y, eight, valid);
  }
};

#if defined(__ARM_FEATURE_MATMUL_INT8)

/// The operations of kernels/detail/int8_packed.hpp's pair tile with Armv8.6-A's int8 matrix multiply (i8mm,
/// `+i8mm`): `smmla` adds to a q register's 4 lanes the 2 x 2 products of two rows' 8 inputs (16 bytes, staged only
/// where K is not a multiple of 8) with two channels' 8 packed weights, 32 multiply-accumulates where `sdot` does
/// 16. A block is 4 channels (two pairs), requantized as neon_dotprod_packed_ops once `zip1`/`zip2` of the pairs'
/// 64-bit halves give each row's 4 channels in order.
struct neon_i8mm_packed_ops : neon_dotprod_packed_ops {
  using format = int8_packed::lane_format<4, 0, 8>;
  // 32 registers: tiles of up to 8 rows (4 pairs) with up to 16 sums of 2 x 2 (two per block and pair of rows), 2
  // weight vectors per block and one vector of inputs per pair of rows.
  static constexpr std::size_t tile_rows = 8;
  static constexpr std::size_t accumulators = 16;
  static constexpr std::size_t max_panel = 8;

  static accumulator load_pair_start(const std::int32_t* p) noexcept {
    std::int64_t two;
    std::memcpy(&two, p, 8);
    return vreinterpretq_s32_s64(vdupq_n_s64(two));
  }
  static accumulator add_pair_row_starts(accumulator start, std::int32_t first, std::int32_t second) noexcept {
    return vaddq_s32(start, vcombine_s32(vdup_n_s32(first), vdup_n_s32(second)));
  }
  static accumulator pair_rows(const std::int8_t* first, const std::int8_t* second) noexcept {
    return vreinterpretq_s32_s8(vcombine_s8(vld1_s8(first), vld1_s8(second)));
  }
  static accumulator multiply_pair(accumulator sum, accumulator rows, accumulator weights) noexcept {
    return vmmlaq_s32(sum, vreinterpretq_s8_s32(rows), vreinterpretq_s8_s32(weights));
  }
  static accumulator first_row(accumulator a, accumulator b) noexcept {
    return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
  }
  static accumulator second_row(accumulator a, accumulator b) noexcept {
    return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b)));
  }
};

/// The int8 table's neon_i8mm row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon_i8mm> {
  static constexpr const char* name = "neon_i8mm";
  using ops = neon_dotprod_int8_ops;
  using product_ops = neon_dotprod_int8_ops;
  using packed_ops = neon_i8mm_packed_ops;
  using int4_ops = void;
};

#endif  // defined(__ARM_FEATURE_MATMUL_INT8)

/// The int8 table's neon_dotprod row (kernels/backend_rows.hpp).
template <>
struct int8_backend<int8_backend_id::neon_dotprod> {
  static constexpr const char* name = "neon_dotprod";
  using ops = neon_dotprod_int8_ops;
  using product_ops = neon_dotprod_int8_ops;
  using packed_ops = neon_dotprod_packed_ops;
  using int4_ops = void;
};

#endif  // defined(__ARM_FEATURE_DOTPROD)

}  // namespace ctattn::detail

#endif  // defined(__aarch64__) && defined(__ARM_NEON)

#endif  // CTATTN_KERNELS_NEON_INT8_HPP
// ---------------------------------------- ctattn/kernels/int8.hpp (continued)

namespace ctattn {

namespace detail {
/// The int8 table's row this build runs: the first the target defines (kernels/backend_rows.hpp), chosen here once.
using int8_row = int8_backend<chosen_row<int8_backend_id, int8_backend>()>;

/// A row's int8 operations as declared (kernels/detail/ops_defaults.hpp): `Ops`, or the defaults for `void`.
template <typename Ops>
using int8_declared = declared_ops<Ops, int8_ops_defaults>;

/// The int8 dot-product operations of the backend this build targets (`void` when there is none).
using int8_ops = int8_row::ops;

/// The operations that run the layers' int8 products: `int8_ops`, or a backend's product-only kernel (Armv6-M's).
using int8_product_ops = int8_row::product_ops;

/// The operations of the packed int8 fully-connected kernel (kernels/detail/int8_packed.hpp) this build targets:
/// AVX-512 VNNI's, AVX-VNNI's, AArch64 `smmla`'s (i8mm) or `sdot`'s where the target has them, else AVX2's
/// `vpmaddwd` form on an x86 target with AVX2 (AVX-512 without VNNI included), else `void` (layers keep no packed
/// weights).
using int8_packed_ops = int8_row::packed_ops;
}  // namespace detail

/// The int8 backend of this build: "avx512_vnni", "avx512", "avx2_vnni", "avx2", "neon_i8mm", "neon_dotprod", "neon",
/// "helium", "arm_dsp", "armv6m", or "scalar" when there is none.
///
/// Example: `static_assert(ctattn::int8_backend_name[0] != '\0');`
inline constexpr const char* int8_backend_name = detail::int8_row::name;

namespace detail::kernels {

/// sum + the terms (x[t] - x_zero)(y[t] - y_zero) for t = base + T, T the pack, those with t >= k left out: one
/// expression, which the constant evaluators run as one step.
template <bool Guarded, std::size_t... T>
constexpr std::int32_t folded_terms(std::int32_t sum, const std::int8_t* x, std::int32_t x_zero, const std::int8_t* y,
                                    std::int32_t y_zero, std::size_t base, std::size_t k,
                                    std::index_sequence<T...>) noexcept {
  if constexpr (Guarded) {
    return (sum + ... +
            (base + T < k ? (std::int32_t{x[base + T]} - x_zero) * (std::int32_t{y[base + T]} - y_zero) : 0));
  } else {
    return (sum + ... + ((std::int32_t{x[base + T]} - x_zero) * (std::int32_t{y[base + T]} - y_zero)));
  }
}

/// sum_t (x[t] - x_zero)(y[t] - y_zero) for t < k <= KMax, x and y pointing into one row each, in index order: one
/// fold of KMax terms when KMax <= 64; else folds of 64 terms (kernels/constant.hpp's chunk; Clang folds at most 256
/// operands), then of 8 for the rest.
template <std::size_t KMax>
constexpr std::int32_t folded_dot(const std::int8_t* x, std::int32_t x_zero, const std::int8_t* y, std::int32_t y_zero,
                                  std::size_t k) noexcept {
  if constexpr (KMax <= unrolled_chunk) {
    return folded_terms<true>(0, x, x_zero, y, y_zero, 0, k, std::make_index_sequence<KMax>{});
  } else {
    constexpr std::size_t rest_chunk = 8;
    std::int32_t sum = 0;
    std::size_t base = 0;
    for (; base + unrolled_chunk <= k; base += unrolled_chunk) {
      sum = folded_terms<false>(sum, x, x_zero, y, y_zero, base, k, std::make_index_sequence<unrolled_chunk>{});
    }
    for (; base < k; base += rest_chunk) {
      sum = folded_terms<true>(sum, x, x_zero, y, y_zero, base, k, std::make_index_sequence<rest_chunk>{});
    }
    return sum;
  }
}

/// sum + a[base + T] b[base + T] over the pack T: one expression, which the constant evaluators run as one step.
template <std::size_t K, std::size_t... T>
constexpr std::int32_t local_terms(std::int32_t sum, const std::int32_t (&a)[K], const std::int32_t (&b)[K],
                                   std::size_t base, std::index_sequence<T...>) noexcept {
  return (sum + ... + (a[base + T] * b[base + T]));
}

/// sum_t a[t] b[t] for t < K over two rows of the constant evaluation's own storage, in index order: one fold when
/// K <= 64, else folds of 64 terms (Clang folds at most 256 operands), then one of the K mod 64 left.
template <std::size_t K>
constexpr std::int32_t local_dot(const std::int32_t (&a)[K], const std::int32_t (&b)[K]) noexcept {
  if constexpr (K <= unrolled_chunk) {
    return local_terms(0, a, b, 0, std::make_index_sequence<K>{});
  } else {
    constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
    std::int32_t sum = 0;
    for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
      sum = local_terms(sum, a, b, base, std::make_index_sequence<unrolled_chunk>{});
    }
    if constexpr (whole < K) sum = local_terms(sum, a, b, whole, std::make_index_sequence<K - whole>{});
    return sum;
  }
}

/// to[base + T] = from[row][column + base + T] over the pack T: one expression, one step of the constant evaluators.
template <std::size_t K, std::size_t R, std::size_t C, std::size_t... T>
constexpr void local_terms_copied(std::int32_t (&to)[K], const std::int8_t (&from)[R][C], std::size_t row,
                                  std::size_t column, std::size_t base, std::index_sequence<T...>) noexcept {
  ((to[base + T] = from[row][column + base + T]), ...);
}

/// to[t] = from[row][column + t] for t < K, in folds of 64 (Clang counts a loop's every iteration against its budget
/// of steps, a fold once; a loop per element here took the verified int8 sorter past Clang's default million).
template <std::size_t K, std::size_t R, std::size_t C>
constexpr void local_row(std::int32_t (&to)[K], const std::int8_t (&from)[R][C], std::size_t row,
                         std::size_t column) noexcept {
  constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
  for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
    local_terms_copied(to, from, row, column, base, std::make_index_sequence<unrolled_chunk>{});
  }
  if constexpr (whole < K) local_terms_copied(to, from, row, column, whole, std::make_index_sequence<K - whole>{});
}

/// The scalar form of `int8_dot_rows` at run time: out[j] = sum_t (a[t] - a_zero)(b[j b_stride + t] - b_zero).
// Rationale: the loop runs to an end pointer with the zero point in a local, which GCC's -Os keeps in registers
// (with the parameters it reloaded two of them from the stack in every iteration, 10 instructions per term).
inline void scalar_dot_rows(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::size_t b_stride,
                            std::int32_t b_zero, std::size_t k, std::size_t n, std::int32_t* out) noexcept {
  const std::int8_t* const a_end = a + k;
  const std::int32_t zero = b_zero;
  for (std::int32_t* const out_end = out + n; out != out_end; ++out, b += b_stride) {
    std::int32_t sum = 0;
    const std::int8_t* y = b;
    for (const std::int8_t* x = a; x != a_end; ++x, ++y) sum += (std::int32_t{*x} - a_zero) * (std::int32_t{*y} - zero);
    *out = sum;
  }
}

/// out[j] = sum_t (a[a_row][a_column + t] - a_zero)(b[b_row + j][b_column + t] - b_zero) for j < n and t < k,
/// in int32: one row of a against n rows of b, both read along a window of k <= KMax columns (the rules keep k at
/// most 33,025, so no sum overflows). Zero points are int8 values.
// Rationale: the operands are whole arrays with indices, not pointers, because constant evaluation does not let a
// pointer into one row of a two-dimensional array walk on into the next. Constant-evaluated, each row's sum is
// folds of 64 terms (`folded_dot`): the evaluators count a loop's every iteration, and the verified model's four
// int8 forward passes in plain loops exceed Clang's default budget of a million steps.
// Rationale: GCC 12 at -O3, after inlining int8 attention, reports a row pointer formed here as reaching outside
// another array of the caller (-Warray-bounds, an error under -Werror); every index is within its own array (the
// sanitizer runs check it), so the warning is switched off for this function alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template <std::size_t KMax, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB>
constexpr void int8_dot_rows(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                             std::int32_t a_zero, const std::int8_t (&b)[RB][CB], std::size_t b_row,
                             std::size_t b_column, std::int32_t b_zero, std::size_t k, std::size_t n,
                             std::int32_t* out) noexcept {
  if (n == 0) return;
  if (std::is_constant_evaluated()) {
    expects(k <= KMax);
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = folded_dot<KMax>(&a[a_row][a_column], a_zero, &b[b_row + j][b_column], b_zero, k);
    }
    return;
  }
  const std::int8_t* const row = a[a_row] + a_column;
  const std::int8_t* const rows = b[b_row] + b_column;
  if constexpr (!std::is_void_v<int8_ops>) {
    int8_simd::dot_rows<int8_ops>(row, a_zero, rows, CB, b_zero, k, n, out);
  } else {
    scalar_dot_rows(row, a_zero, rows, CB, b_zero, k, n, out);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// One int32 accumulator to int8: multiply_by_quantized_multiplier, plus the output's zero point, clamped.
CTATTN_ALWAYS_INLINE constexpr std::int8_t requantize(std::int32_t accumulator, math::quantized_multiplier multiplier,
                                                      std::int32_t zero) noexcept {
  std::int32_t v = math::multiply_by_quantized_multiplier(accumulator, multiplier);
  // Rationale: the zero point is added after clamping v to what cannot overflow (|v| may be near 2^31).
  v = v < -256 ? -256 : (v > 255 ? 255 : v);  // 255 + zero >= 127 and -256 + zero <= -128: the same clamped result
  v += zero;
  return static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/// The raw sums of an R x C tile, rows of x against channels of w, K terms: `scalar_tile`'s first step.
// Rationale: the accumulators are locals and the terms are read through pointers that advance, so that GCC keeps
// the tile in registers at -Os and -O2 alike (with an index into arrays, -O2 spilled the row pointer). The loop is a
// function of its own so that the caller's loops do not compete for its registers: inlined, GCC 12 -O2 spilled two
// of the loaded terms in every step on the Cortex-M3 (15 instructions per 4 multiply-adds, not 10), and how many it
// spilled changed with code elsewhere in the caller; the call costs about 15 instructions a tile of 2 x 2 x K.
template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t R, std::size_t C>
[[gnu::noinline]] void scalar_tile_sums(const std::int8_t* x, const std::int8_t* w,
                                        std::uint32_t (&sums)[R][C]) noexcept {
  std::uint32_t s[R][C]{};
  const std::int8_t* in = x;
  const std::int8_t* weight = w;
  for (const std::int8_t* const end = x + K; in != end; ++in, ++weight) {
    std::int32_t values[R];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) values[r] = in[r * XS];
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) {
      const std::int32_t factor = weight[c * WS];
#pragma GCC unroll 4
      for (std::size_t r = 0; r < R; ++r) s[r][c] += static_cast<std::uint32_t>(values[r] * factor);
    }
  }
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (std::size_t c = 0; c < C; ++c) sums[r][c] = s[r][c];
  }
}

/// The R x C outputs of rows r0.. of x and channels c0.. of w, scalar: their raw sums, then the epilogue.
template <std::size_t K, std::size_t XS, std::size_t WS, std::size_t YS, std::size_t R, std::size_t C,
          typename Epilogue>
CTATTN_ALWAYS_INLINE void scalar_tile(const std::int8_t* x, const std::int8_t* w, std::size_t r0, std::size_t c0,
                                      const Epilogue& e, std::int8_t* y) noexcept {
  std::uint32_t sums[R][C];
  scalar_tile_sums<K, XS, WS, R, C>(x, w, sums);
#pragma GCC unroll 4
  for (std::size_t c = 0; c < C; ++c) {
    const output_requantizer requantize = e.requantizer(c0 + c);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      y[r * YS + c] =
          requantize(static_cast<std::int32_t>(sums[r][c] + static_cast<std::uint32_t>(e.start(r0 + r, c0 + c))));
    }
  }
}

/// The scalar product kernel: `int8_product_requantized`'s contract at run time in 2 x 2 tiles (each input read
/// once for two channels, each weight for two rows: 4 loads and 4 multiply-adds per 4 terms), then the rows and
/// channels left; rows of x, w and y XS, WS and YS elements apart.
template <std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          typename Epilogue>
void scalar_product_requantized(const std::int8_t* x, const std::int8_t* w, Epilogue e, std::int8_t* y) noexcept {
  constexpr std::size_t TR = 2;  // rows and channels of a tile
  constexpr std::size_t TC = 2;
  constexpr std::size_t whole = N - N % TC;
  // Rationale: the channels past the last pass from a constant, not the pass loop's counter: GCC 12 -O2 reported the
  // rest loop, which runs no iteration when N is even, as overflowing (-Waggressive-loop-optimizations).
  for (std::size_t c = 0; c < whole; c += TC) {
    std::size_t r = 0;
#pragma GCC unroll 1
    for (; r + TR <= M; r += TR) scalar_tile<K, XS, WS, YS, TR, TC>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
    for (; r < M; ++r) scalar_tile<K, XS, WS, YS, 1, TC>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
  }
  for (std::size_t c = whole; c < N; ++c) {
    for (std::size_t r = 0; r < M; ++r)
      scalar_tile<K, XS, WS, YS, 1, 1>(x + r * XS, w + c * WS, r, c, e, y + r * YS + c);
  }
}

/// The stack bytes an int8 product of M x K by N x K (`int8_window_product_requantized`) takes beyond its locals, on
/// any backend: the largest of the x86 and NEON form's N int32 sums, the packed kernel's staged rows (a tile's:
/// `int8_packed::most_staged_bytes`) with, from `int8_packed::runtime_packing_rows` rows on, the panel of b it packs
/// (`int8_packed::most_runtime_panel_bytes`), and the Cortex-M DSP form's widened block.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_product_stack_bytes<6, 64, 32> == 6 * 64 * 2);`
template <std::size_t M, std::size_t K, std::size_t N>
inline constexpr std::size_t int8_product_stack_bytes = [] {
  const std::size_t sums = N * sizeof(std::int32_t);
  const std::size_t panel = M >= int8_packed::runtime_packing_rows ? int8_packed::most_runtime_panel_bytes<K, N> : 0;
  const std::size_t staged = int8_packed::most_staged_bytes<M, K> + panel;
  const std::size_t widened = arm_dsp_product_scratch_bytes<M, K>;
  const std::size_t most = sums > staged ? sums : staged;
  return most > widened ? most : widened;
}();

/// How many queries int8 attention (quantized/attention.hpp) scores and weighs at a time: its scores and weights
/// take 2 x rows x n_kv bytes of stack. On a Cortex-M, 6 (one of the DSP kernel's blocks of rows, three of
/// Helium's tiles of 2): KWT-Tiny's 50 x 50 attention then takes 600 bytes for them rather than 5,000, at the same
/// instructions per inference (the products' column starts are made once per head). Elsewhere 64, the tiles of the
/// desktop kernels being larger and memory plentiful.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_attention_query_rows >= 6);`
inline constexpr std::size_t int8_attention_query_rows =
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
    6;
#else
    64;
#endif

/// How many rows an int8 encoder layer's feed-forward block (quantized/transformer.hpp) runs at a time: its hidden
/// layer and activation then take 2 x rows x hidden bytes of stack rather than 2 n hidden. On a Cortex-M, 6 (one
/// of the DSP kernel's blocks of rows); elsewhere every row at once, so that a packed kernel packs its weights once.
///
/// Example: `static_assert(ctattn::detail::kernels::int8_feed_forward_rows >= 6);`
inline constexpr std::size_t int8_feed_forward_rows =
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
    6;
#else
    std::size_t(-1);
#endif

/// Calls `f(std::integral_constant<std::size_t, M>{}, first)` for blocks of Rows rows covering N rows in order
/// (M = Rows), then the last N % Rows rows when Rows does not divide N (M = N % Rows): how int8 attention takes its
/// queries and the encoder layer its feed-forward rows. Rows >= 1.
///
/// Example: `for_each_row_block<50, 6>([&](auto m, std::size_t first) { run<decltype(m)::value>(first); });`
template <std::size_t N, std::size_t Rows, typename F>
CTATTN_ALWAYS_INLINE constexpr void for_each_row_block(F&& f) {
  static_assert(Rows >= 1, "for_each_row_block: blocks of at least one row");
  std::size_t first = 0;
  for (; first + Rows <= N; first += Rows) f(std::integral_constant<std::size_t, Rows>{}, first);
  if constexpr (N % Rows != 0) f(std::integral_constant<std::size_t, N % Rows>{}, first);
}

/// `int8_product_requantized` at run time with the backend Ops (`int8_ops`; a parameter so that the branches not
/// taken are not compiled).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, std::size_t XS, std::size_t WS, std::size_t YS,
          typename Epilogue>
void run_product_requantized(const std::int8_t* x, const std::int8_t* w, const Epilogue& e, std::int8_t* y) noexcept {
  if constexpr (int8_declared<Ops>::has_product_requantized) {
    Ops::template product_requantized<M, K, N, XS, WS, YS>(x, w, e, y);
  } else if constexpr (!std::is_void_v<Ops>) {
    if constexpr (!std::is_void_v<int8_packed_ops> && !Epilogue::per_channel &&
                  M >= int8_packed::runtime_packing_rows) {
      // w packed a panel at a time for the layers' tiles (kernels/detail/int8_packed.hpp), where the packed
      // requantization of the product's multiplier is exact; else the dot products below.
      if (int8_packed::runtime_product<int8_packed_ops, M, K, N, XS, WS, YS>(x, w, e, y)) return;
    }
    if constexpr (K < int8_simd::narrowest_step<Ops>()) {
      // Rationale: no whole step of the backend's: its kernel would only add the loop's terms through its passes
      // and calls (an int8 head of width 8, measured on Zen 4); the scalar tiles unroll K.
      scalar_product_requantized<M, K, N, XS, WS, YS>(x, w, e, y);
    } else {
      std::int32_t sums[N];
      for (std::size_t r = 0; r < M; ++r) {
        int8_simd::dot_rows<Ops>(x + r * XS, 0, w, WS, 0, K, N, sums);
        if constexpr (Ops::has_requantize_row) {
          Ops::requantize_row(e, r, sums, y + r * YS, N);  // x86: 8 outputs at a time
        } else {
          for (std::size_t c = 0; c < N; ++c) y[r * YS + c] = e(r, c, sums[c]);
        }
      }
    }
  } else {
    scalar_product_requantized<M, K, N, XS, WS, YS>(x, w, e, y);
  }
}

/// `int8_window_product_requantized` in constant evaluation: with GCC, w's columns as int32 vector lanes and each
/// output row a sequence of row updates (`lanes_axpy`, kernels/constant.hpp), 0.40 of the folds' instructions
/// per multiply-add; with other compilers the operands copied into local rows of int32 (`local_row`), each output a
/// `local_dot` of two of them. The sums are integers, exact in any order, so both forms give the same bits.
// Rationale: the operands copied into local rows of int32 first (O((M + N) K) steps against the M N K terms), so that
// every term of a fold reads the evaluation's own storage at a literal offset: against folds reading int8 through
// pointers with zero points, GCC 12 took 15 s and 0.36 GB instead of 36 s and 1.4 GB for a KWT-1 int8 encoder layer
// (benchmarks/compile_time_int8.sh). A function of its own, never called at run time, so that its M x K locals are
// in no run-time frame (an unoptimized build reserves a block's locals even where the block cannot run).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RX, std::size_t CX, std::size_t RW, std::size_t CW,
          std::size_t RY, std::size_t CY, bool PerChannel, bool RowStarts>
constexpr void constant_window_product(const std::int8_t (&x)[RX][CX], std::size_t x_row, std::size_t x_column,
                                       const std::int8_t (&w)[RW][CW], std::size_t w_row, std::size_t w_column,
                                       const int8_epilogue<PerChannel, RowStarts>& e, std::int8_t (&y)[RY][CY],
                                       std::size_t y_row, std::size_t y_column) noexcept {
  if constexpr (evaluates_lanes<std::int32_t>) {
    // GCC: w's columns as lane rows (lane c of row t is w[w_row + c][w_column + t]), each output row the row
    // updates sum += x[r][t] w_t over t (integer sums: exact in any order).
    lane_row<std::int32_t, N> columns[K]{};
    for (std::size_t t = 0; t < K; ++t) {
      load_column(columns[t], w, w_row, w_column + t);
    }
    for (std::size_t r = 0; r < M; ++r) {
      lane_row<std::int32_t, N> sum{};
      for (std::size_t t = 0; t < K; ++t) lanes_axpy(sum, std::int32_t{x[x_row + r][x_column + t]}, columns[t]);
      for (std::size_t c = 0; c < N; ++c) y[y_row + r][y_column + c] = e(r, c, lane(sum, c));
    }
    return;
  }
  // Rationale: left uninitialized (C++20 allows it in constant evaluation): `local_row` writes every entry first.
  std::int32_t rows[M][K];
  for (std::size_t r = 0; r < M; ++r) local_row(rows[r], x, x_row + r, x_column);
  for (std::size_t c = 0; c < N; ++c) {
    std::int32_t channel[K];
    local_row(channel, w, w_row + c, w_column);
    for (std::size_t r = 0; r < M; ++r) y[y_row + r][y_column + c] = e(r, c, local_dot(rows[r], channel));
  }
}

/// The int8 product of raw int8 operands over windows, each output offset and requantized by the epilogue `e`
/// (`int8_epilogue`): for r < M, c < N, y[y_row + r][y_column + c] = requantize(sum_{t < K} x[x_row + r][x_column + t]
/// w[w_row + c][w_column + t] + column_start[c] + row_start[r]), the sums modulo 2^32 (exact whenever the true sum
/// fits an int32). Zero points reach it as those starts: a layer's input zero point folded into its bias by the
/// compiler, a product's (x - zx)(w - zw) as sum x w - zw sum x - zx sum w + K zx zw. Each multiplier in [0, 2^31)
/// (`math::quantize_multiplier`'s).
///
/// | operand | shape                                     |
/// |---------|-------------------------------------------|
/// | `x`     | RX x CX int8, read M x K from (x_row, x_column) |
/// | `w`     | RW x CW int8, read N x K from (w_row, w_column) (out x in) |
/// | `y`     | RY x CY int8, written M x N from (y_row, y_column) |
///
/// How it computes: constant evaluation, `constant_window_product` (local rows, folds); at run time the backend's
/// own kernel (`helium`, `arm_dsp`), else `int8_dot_rows`'s backend with zero points 0 (x86, NEON), else Armv6-M's
/// (`armv6m`) or the scalar kernel.
// Rationale: whole arrays with indices, not pointers, for the reason `int8_dot_rows` gives (constant evaluation).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RX, std::size_t CX, std::size_t RW, std::size_t CW,
          std::size_t RY, std::size_t CY, bool PerChannel, bool RowStarts>
constexpr void int8_window_product_requantized(const std::int8_t (&x)[RX][CX], std::size_t x_row, std::size_t x_column,
                                               const std::int8_t (&w)[RW][CW], std::size_t w_row, std::size_t w_column,
                                               const int8_epilogue<PerChannel, RowStarts>& e, std::int8_t (&y)[RY][CY],
                                               std::size_t y_row, std::size_t y_column) noexcept {
  if (std::is_constant_evaluated()) {
    constant_window_product<M, K, N>(x, x_row, x_column, w, w_row, w_column, e, y, y_row, y_column);
    return;
  }
  run_product_requantized<int8_product_ops, M, K, N, CX, CW, CY>(&x[x_row][x_column], &w[w_row][w_column], e,
                                                                 &y[y_row][y_column]);
}

/// `int8_window_product_requantized` over whole arrays: x M x K, w N x K, y M x N.
template <std::size_t M, std::size_t K, std::size_t N, bool PerChannel, bool RowStarts>
constexpr void int8_product_requantized(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                        const int8_epilogue<PerChannel, RowStarts>& e,
                                        std::int8_t (&y)[M][N]) noexcept {
  int8_window_product_requantized<M, K, N>(x, 0, 0, w, 0, 0, e, y, 0, 0);
}

/// The int8 fully-connected product with the input's zero point folded into `start` (by the compiler, for a
/// layer's constant weights): y[r][c] = requantize(start[c] + sum_t x[r][t] w[c][t], multipliers[c], zero), so
/// that start = bias - z_in sum_t w[c][t] gives TFLite's sum_t (x - z_in) w + bias (`int8_product_requantized`).
/// One multiplier (MC = 1) serves every channel: a layer quantized per tensor.
///
/// | operand       | shape                   |
/// |---------------|-------------------------|
/// | `x`           | M x K int8              |
/// | `w`           | N x K int8 (out x in)   |
/// | `start`       | N int32                 |
/// | `multipliers` | MC: N (per channel) or 1 (per tensor) |
/// | `y`           | M x N int8              |
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int8_fully_connected(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  int8_product_requantized(x, w, int8_epilogue<(MC > 1)>{start, nullptr, multipliers, zero}, y);
}

/// What an N x K int8 layer keeps for this build's packed kernel: its weights packed with their requantization
/// (kernels/detail/int8_packed.hpp), or nothing where the build has no packed kernel.
///
/// Example: `static_assert(sizeof(ctattn::detail::kernels::int8_packed_weights<4, 4>) > 0);`
template <std::size_t N, std::size_t K>
using int8_packed_weights = typename int8_packed::packed_type<int8_packed_ops, N, K>::type;

/// `int8_fully_connected` with the layer's packed weights too: at run time the packed kernel reads those, where the
/// build has one and the packing is `exact()`; otherwise (and in constant evaluation) the plain product. `packed`
/// must be the packing of w, start, multipliers and zero (`ctattn::qlinear` keeps them so).
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int8_fully_connected(const std::int8_t (&x)[M][K], const std::int8_t (&w)[N][K],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N],
                                    const int8_packed_weights<N, K>& packed) noexcept {
  if constexpr (!std::is_void_v<int8_packed_ops>) {
    if (!std::is_constant_evaluated() && packed.exact()) {
      int8_packed::packed_product<int8_packed_ops, M, K, N, K, N>(&x[0][0], packed, zero, &y[0][0]);
      return;
    }
  }
  static_cast<void>(packed);
  int8_fully_connected(x, w, start, multipliers, zero, y);
}

/// sum_t p[t] for t < K: the backend's `row_sum<K>` where it has one (Helium's `vaddva`, the DSP's `sxtab16`),
/// else the loop.
template <std::size_t K, typename Ops = int8_ops>
constexpr std::int32_t int8_row_sum(const std::int8_t* p) noexcept {
  if (!std::is_constant_evaluated()) {
    if constexpr (int8_declared<Ops>::has_row_sum) return Ops::template row_sum<K>(p);
  }
  std::int32_t sum = 0;
  for (std::size_t t = 0; t < K; ++t) sum += p[t];
  return sum;
}

/// The column starts of the int8 product (a - a_zero)(b - b_zero)^T over K terms (`int8_window_product_from_starts`
/// reads them): K a_zero b_zero - a_zero sum_k b[b_row + c][b_column + k] for each of N rows of b, wrapping as the
/// product's int32 sums do.
template <std::size_t K, std::size_t N, std::size_t RB, std::size_t CB>
constexpr void int8_column_starts(const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                  std::int32_t a_zero, std::int32_t b_zero, std::int32_t (&column_start)[N]) noexcept {
  const auto k_terms = static_cast<std::uint32_t>(static_cast<std::int32_t>(K) * a_zero * b_zero);
  for (std::size_t c = 0; c < N; ++c) {
    const std::int32_t sum = a_zero == 0 ? 0 : int8_row_sum<K>(&b[b_row + c][b_column]);
    column_start[c] = static_cast<std::int32_t>(k_terms - static_cast<std::uint32_t>(a_zero * sum));
  }
}

/// The int8 product (a - a_zero)(b - b_zero)^T over windows from its column starts (`int8_column_starts`, made once
/// for products that share b and a_zero), requantized by one multiplier: y[y_row + r][y_column + c] for r < M,
/// c < N, from M rows of a and N rows of b of K terms each.
// Rationale: as for int8_dot_rows, GCC 12 at -O3 -march=native reports the rows of a read for their sums as partly
// outside the caller's array (int8 attention at n = 128, a block of 64 queries' weights: benchmarks/
// bench_attention_speed.cpp); every index is below M <= RA, so the warning is switched off for this function alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB,
          std::size_t RY, std::size_t CY>
constexpr void int8_window_product_from_starts(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                                               const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                               std::int32_t b_zero, const std::int32_t (&column_start)[N],
                                               const math::quantized_multiplier& multiplier, std::int32_t zero,
                                               std::int8_t (&y)[RY][CY], std::size_t y_row,
                                               std::size_t y_column) noexcept {
  if (b_zero == 0) {
    int8_window_product_requantized<M, K, N>(a, a_row, a_column, b, b_row, b_column,
                                             int8_epilogue<false>{column_start, nullptr, &multiplier, zero}, y, y_row,
                                             y_column);
    return;
  }
  std::int32_t row_start[M];
  for (std::size_t r = 0; r < M; ++r) row_start[r] = -b_zero * int8_row_sum<K>(&a[a_row + r][a_column]);
  int8_window_product_requantized<M, K, N>(a, a_row, a_column, b, b_row, b_column,
                                           int8_epilogue<false, true>{column_start, row_start, &multiplier, zero}, y,
                                           y_row, y_column);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// The int8 product (a - a_zero)(b - b_zero)^T over windows (`int8_window_product_requantized`'s), requantized by
/// one multiplier: its zero points as the starts of that kernel (their sums over each row of a and of b, once per
/// call). y[y_row + r][y_column + c] for r < M, c < N, from M rows of a and N rows of b of K terms each.
template <std::size_t M, std::size_t K, std::size_t N, std::size_t RA, std::size_t CA, std::size_t RB, std::size_t CB,
          std::size_t RY, std::size_t CY>
constexpr void int8_window_product_zero_points(const std::int8_t (&a)[RA][CA], std::size_t a_row, std::size_t a_column,
                                               const std::int8_t (&b)[RB][CB], std::size_t b_row, std::size_t b_column,
                                               std::int32_t a_zero, std::int32_t b_zero,
                                               const math::quantized_multiplier& multiplier, std::int32_t zero,
                                               std::int8_t (&y)[RY][CY], std::size_t y_row,
                                               std::size_t y_column) noexcept {
  std::int32_t column_start[N];
  int8_column_starts<K, N>(b, b_row, b_column, a_zero, b_zero, column_start);
  int8_window_product_from_starts<M, K, N>(a, a_row, a_column, b, b_row, b_column, b_zero, column_start, multiplier,
                                           zero, y, y_row, y_column);
}

/// The int8 product (a - a_zero)(b - b_zero)^T requantized by one multiplier, b given as N rows of K
/// (`int8_window_product_zero_points` over whole arrays).
template <std::size_t M, std::size_t K, std::size_t N>
constexpr void int8_product_transposed_requantized(const std::int8_t (&a)[M][K], const std::int8_t (&b)[N][K],
                                                   std::int32_t a_zero, std::int32_t b_zero,
                                                   const math::quantized_multiplier& multiplier, std::int32_t zero,
                                                   std::int8_t (&y)[M][N]) noexcept {
  int8_window_product_zero_points<M, K, N>(a, 0, 0, b, 0, 0, a_zero, b_zero, multiplier, zero, y, 0, 0);
}

/// The backend's own softmax of a row with every entry visible (Helium, AVX-512), where it has one and the row's
/// length is within its `softmax_row_shortest` and `softmax_row_limit`: true when it computed the row.
template <typename Ops = int8_ops>
bool backend_softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                         const std::int32_t* table) noexcept {
  if constexpr (int8_declared<Ops>::has_softmax_row) {
    if (end > begin && end - begin <= Ops::softmax_row_limit && end - begin >= Ops::softmax_row_shortest) {
      Ops::softmax_row(x, w, begin, end, table);
      return true;
    }
  }
  return false;
}

/// The per-row arithmetic of the int8 softmax as ctattn computes it (`ctattn::softmax_method::rounded`,
/// quantized/softmax.hpp): `table[d]` is e^(-scale d) in Q20, the row's terms summed in int64, each weight
/// round(256 term / sum) - 128 by one reciprocal per row.
struct rounded_softmax {
  using sum_type = std::int64_t;
  struct row_constants {
    std::uint64_t sum, divisor, reciprocal;
  };
  static constexpr sum_type sum_term(std::int32_t entry) noexcept { return entry; }
  // round(256 term / sum) = floor((512 term + sum) / (2 sum)), ties away from zero (all positive), then the zero
  // point. Rationale: one division per row, not per weight (a 64-bit division is a library call of a hundred
  // cycles or more on a 32-bit core). With r = floor(2^40 / d), d = 2 sum, the guess (n r) >> 40 for a numerator
  // n < 2^40 is the quotient or one less (its error is n (2^40 / d - r) / 2^40 < 1), and one comparison settles
  // it: the exact quotient, the division's bits. n r < 2^40 (quotient + 1) <= 2^49 cannot overflow.
  // A sum of 0 means no visible entry (a visible one adds table[0] = 2^20): the divisor 1 only keeps the reciprocal
  // defined, and no weight is computed.
  static constexpr row_constants row(sum_type sum) noexcept {
    const auto divisor = sum == 0 ? std::uint64_t{1} : static_cast<std::uint64_t>(2 * sum);
    return {static_cast<std::uint64_t>(sum), divisor, (std::uint64_t{1} << 40) / divisor};
  }
  static constexpr std::int8_t weight(const row_constants& r, std::int32_t entry) noexcept {
    const std::uint64_t numerator = 512 * static_cast<std::uint64_t>(entry) + r.sum;
    std::uint64_t quotient = (numerator * r.reciprocal) >> 40;
    if ((quotient + 1) * r.divisor <= numerator) ++quotient;
    const std::int64_t v = static_cast<std::int64_t>(quotient) - 128;
    return static_cast<std::int8_t>(v > 127 ? 127 : v);
  }
};

/// The per-row arithmetic of TFLite's int8 softmax (`ctattn::softmax_method::tflite`, its reference kernel's and
/// CMSIS-NN's `arm_softmax_s8`'s bits): `table[d]` is gemmlowp's e^(-scale d) in Q0.31 (0 beyond TFLite's
/// `diff_min`), each term rescaled to Q12.19 and summed in int32, the sum's reciprocal by `math::reciprocal_of_sum`,
/// each weight round(reciprocal x entry / 2^(bits over unit + 23)) - 128, clamped.
struct tflite_softmax {
  using sum_type = std::int32_t;
  using row_constants = math::fixed_reciprocal;
  static constexpr int sum_integer_bits = 12;
  static constexpr sum_type sum_term(std::int32_t entry) noexcept {
    return math::rounding_divide_by_power_of_two(entry, sum_integer_bits);
  }
  static constexpr row_constants row(sum_type sum) noexcept {
    return sum == 0 ? row_constants{} : math::reciprocal_of_sum(sum, sum_integer_bits);
  }
  // Rationale: a row of 512 or more keys all near its largest can reach a sum of 2^28 and a shift past 31, where
  // TFLite's reference asserts; the weight there is below half an output step, 0 when rounded, as here.
  static constexpr std::int8_t weight(const row_constants& r, std::int32_t entry) noexcept {
    const int exponent = r.bits_over_unit + 31 - 8;
    const std::int32_t product = math::saturating_rounding_doubling_high_mul(r.scale, entry);
    const std::int32_t v = (exponent > 31 ? 0 : math::rounding_divide_by_power_of_two(product, exponent)) - 128;
    return static_cast<std::int8_t>(v > 127 ? 127 : (v < -128 ? -128 : v));
  }
};

/// The int8 softmax of x[begin, end) into w[begin, end) with the output quantization scale 1/256, zero point -128
/// (ctattn/quantized/softmax.hpp gives the methods): `table[d]` is the method's e^(-scale d) for d = 0 to 255, the
/// distance from the row's largest entry. When `visible` is not null, only the entries j with visible[j] take part;
/// the others get weight 0 (-128). A range with no visible entry gets weight 0 everywhere. Entries outside
/// [begin, end) are not touched. At run time, a backend's own softmax for `rounded_softmax` where it has one.
template <typename Method = rounded_softmax>
constexpr void int8_softmax_row(const std::int8_t* x, std::int8_t* w, std::size_t begin, std::size_t end,
                                const std::int32_t* table, const bool* visible) noexcept {
  if constexpr (std::is_same_v<Method, rounded_softmax>) {
    if (!std::is_constant_evaluated() && visible == nullptr && backend_softmax_row(x, w, begin, end, table)) return;
  }
  // Rationale: not j, which GCC's -Wshadow reports inside a lambda of a template against a user's global j.
  const auto takes_part = [visible](std::size_t entry) { return visible == nullptr || visible[entry]; };
  std::int32_t largest = -129;
  for (std::size_t j = begin; j < end; ++j) {
    if (takes_part(j) && x[j] > largest) largest = x[j];
  }
  typename Method::sum_type sum = 0;
  for (std::size_t j = begin; j < end; ++j) {
    if (takes_part(j)) sum += Method::sum_term(table[static_cast<std::size_t>(largest - x[j])]);
  }
  // Rationale: a hidden entry's weight set in the same loop, not a loop of its own for a row with none visible,
  // which GCC 12 turned into a memset it then reported as out of bounds (-Wstringop-overflow) for row lengths a
  // backend's own softmax takes.
  const typename Method::row_constants row = Method::row(sum);
  for (std::size_t j = begin; j < end; ++j) {
    w[j] = takes_part(j) ? Method::weight(row, table[static_cast<std::size_t>(largest - x[j])]) : std::int8_t{-128};
  }
}

// The backend's `Ops::add` over n elements at run time, where it has one for these multipliers (Helium's, 4 lanes):
// whether it ran.
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, typename Ops>
bool int8_add_on_backend(const std::int8_t* a, std::int32_t a_zero, const std::int8_t* b, std::int32_t b_zero,
                         std::int32_t out_zero, std::int8_t* out, std::size_t n) noexcept {
  if constexpr (int8_declared<Ops>::has_add) {
    if constexpr (Ops::add_takes(AMultiplier, BMultiplier, OutMultiplier)) {
      Ops::template add<AMultiplier, BMultiplier, LeftShift, OutMultiplier>(a, a_zero, b, b_zero, out_zero, out, n);
      return true;
    }
  }
  return false;
}

/// TFLite's int8 ADD of one row a and one row b (C elements each) into out: each input less its zero point, shifted
/// left by `LeftShift` and scaled by its multiplier to the common scale, the two summed in int32 and requantized
/// (ctattn/quantized/add.hpp derives the constants). At run time the backend's `Ops::add` where it has one for these
/// multipliers (Helium's, 4 lanes).
// Rationale: the multipliers are template arguments, compile-time constants as the caller derives them, so that the
// compiler folds their shifts' branches (as runtime arguments they cost the int8 sorter 4% more instructions).
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, std::size_t C, typename Ops = int8_ops>
constexpr void int8_add_row(const std::int8_t (&a)[C], std::int32_t a_zero, const std::int8_t (&b)[C],
                            std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[C]) noexcept {
  // The requantizers of non-negative multipliers (kernels/detail/int8_requantize.hpp): the values of
  // math::multiply_by_quantized_multiplier and requantize, their shifts constants, at compile time and at run time.
  static_assert(AMultiplier.multiplier >= 0 && BMultiplier.multiplier >= 0 && OutMultiplier.multiplier >= 0);
  if (!std::is_constant_evaluated() && int8_add_on_backend<AMultiplier, BMultiplier, LeftShift, OutMultiplier, Ops>(
                                           a, a_zero, b, b_zero, out_zero, out, C)) {
    return;
  }
  constexpr output_requantizer scale_a{AMultiplier.multiplier, AMultiplier.shift, 0};
  constexpr output_requantizer scale_b{BMultiplier.multiplier, BMultiplier.shift, 0};
  const output_requantizer to_out{OutMultiplier.multiplier, OutMultiplier.shift, out_zero};
  for (std::size_t c = 0; c < C; ++c) {
    const std::int32_t shifted_a = (std::int32_t{a[c]} - a_zero) * (1 << LeftShift);
    const std::int32_t shifted_b = (std::int32_t{b[c]} - b_zero) * (1 << LeftShift);
    out[c] = to_out(scale_a.scaled(shifted_a) + scale_b.scaled(shifted_b));
  }
}

/// TFLite's int8 MUL element by element (quantized/hadamard.hpp): out = requantize((a - a_zero)(b - b_zero),
/// Multiplier, out_zero). The portable loop on every backend: |a - a_zero| and |b - b_zero| are at most 255, so each
/// product fits an int32, and the compiler vectorizes the loop where the target allows.
template <math::quantized_multiplier Multiplier, std::size_t R, std::size_t C>
constexpr void int8_multiply_rows(const std::int8_t (&a)[R][C], std::int32_t a_zero, const std::int8_t (&b)[R][C],
                                  std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[R][C]) noexcept {
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      out[r][c] = requantize((std::int32_t{a[r][c]} - a_zero) * (std::int32_t{b[r][c]} - b_zero), Multiplier, out_zero);
    }
  }
}

/// `int8_add_row` over R rows: at run time one call of the backend's `Ops::add` over all R x C elements where it
/// has one, else row by row.
template <math::quantized_multiplier AMultiplier, math::quantized_multiplier BMultiplier, int LeftShift,
          math::quantized_multiplier OutMultiplier, std::size_t R, std::size_t C, typename Ops = int8_ops>
constexpr void int8_add_rows(const std::int8_t (&a)[R][C], std::int32_t a_zero, const std::int8_t (&b)[R][C],
                             std::int32_t b_zero, std::int32_t out_zero, std::int8_t (&out)[R][C]) noexcept {
  if (!std::is_constant_evaluated() && int8_add_on_backend<AMultiplier, BMultiplier, LeftShift, OutMultiplier, Ops>(
                                           &a[0][0], a_zero, &b[0][0], b_zero, out_zero, &out[0][0], R * C)) {
    return;
  }
  for (std::size_t r = 0; r < R; ++r) {
    int8_add_row<AMultiplier, BMultiplier, LeftShift, OutMultiplier, C, Ops>(a[r], a_zero, b[r], b_zero, out_zero,
                                                                             out[r]);
  }
}

/// The backend's own table lookup of one row (Helium's gather), where it has one: true when it computed the row.
template <typename Ops = int8_ops>
bool backend_lookup_row(const std::int8_t* x, std::int8_t* y, std::size_t n, const std::int8_t* table) noexcept {
  if constexpr (int8_declared<Ops>::has_lookup) {
    Ops::lookup(x, y, n, table);
    return true;
  }
  return false;
}

/// y[r][c] = table[x[r][c] + 128]: an int8 function of one int8 argument, by its 256-entry table.
template <std::size_t R, std::size_t C>
constexpr void int8_lookup_rows(const std::int8_t (&x)[R][C], std::int8_t (&y)[R][C],
                                const std::int8_t (&table)[256]) noexcept {
  for (std::size_t r = 0; r < R; ++r) {
    if (!std::is_constant_evaluated() && backend_lookup_row(x[r], y[r], C, table)) continue;
    for (std::size_t c = 0; c < C; ++c) y[r][c] = table[static_cast<std::size_t>(std::int32_t{x[r][c]} + 128)];
  }
}

/// round(x / 2^s), ties away from zero, for |x| < 2^62 and s in [1, 63] (the bounds in quantized/norm.hpp's
/// rationale keep |x| + 2^(s - 1) below 2^63).
CTATTN_ALWAYS_INLINE constexpr std::int64_t rounding_shift(std::int64_t x, int s) noexcept {
  const std::int64_t half = std::int64_t{1} << (s - 1);
  return x >= 0 ? (x + half) >> s : -((-x + half) >> s);
}

/// The fractional bits of the int8 LayerNorm's output before its rounding (step 6).
inline constexpr int int8_layer_norm_output_fraction_bits = 16;

/// What steps 1 to 3 of the int8 LayerNorm (quantized/norm.hpp's rationale) leave for a row.
struct int8_layer_norm_row {
  std::int64_t width = 0;
  std::int64_t sum = 0;
  std::int64_t inverse = 0;  // I = round(2^61 / R); 0 for a row of equal values (D = 0), where every n_j = 0
  int down = 37;             // 37 - k - f/2
};

/// Steps 1 to 3 given D: V_f = D 2^f + E_f, its exact square root and the reciprocal (a row with D = 0 keeps I = 0).
constexpr int8_layer_norm_row int8_norm_row_from(int8_layer_norm_row row, std::int64_t d, std::int64_t epsilon,
                                                 std::int32_t epsilon_shift) noexcept {
  if (d != 0) {
    const auto v = static_cast<std::uint64_t>((d << epsilon_shift) + epsilon);
    const int k = (62 - static_cast<int>(std::bit_width(v))) / 2;
    const std::uint64_t root = math::isqrt(v << (2 * k));
    // R in [2^30, 2^31): the quotient, in (2^30, 2^31], fits 32 bits.
    row.inverse = math::narrow_quotient((std::uint64_t{1} << 61) + root / 2, static_cast<std::uint32_t>(root));
    row.down = 37 - k - epsilon_shift / 2;
  }
  return row;
}

/// The backend's own S1 and S2 of a row (Helium's `vaddva`, `vmladava`), where it has them: true when it computed
/// them.
template <typename Ops = int8_ops, std::size_t C>
bool backend_sum_and_squares(const std::int8_t (&x)[C], std::int32_t& sum, std::int32_t& squares) noexcept {
  if constexpr (int8_declared<Ops>::has_sum_and_squares) {
    Ops::template sum_and_squares<C>(x, sum, squares);
    return true;
  }
  return false;
}

/// Steps 1 to 3 for one row of C int8 values (C <= 16384): the sums, the variance term, its exact square root and
/// the reciprocal.
template <std::size_t C>
constexpr int8_layer_norm_row int8_layer_norm_row_of(const std::int8_t (&x)[C], std::int64_t epsilon,
                                                     std::int32_t epsilon_shift) noexcept {
  std::int32_t s1 = 0;
  std::int32_t s2 = 0;
  if (std::is_constant_evaluated() || !backend_sum_and_squares(x, s1, s2)) {
    for (std::size_t j = 0; j < C; ++j) {
      const std::int32_t v = x[j];
      s1 += v;
      s2 += v * v;
    }
  }
  constexpr auto c = static_cast<std::int64_t>(C);
  return int8_norm_row_from(int8_layer_norm_row{c, s1, 0, 37}, c * s2 - std::int64_t{s1} * s1, epsilon, epsilon_shift);
}

/// Steps 1 to 3 of the int8 RMSNorm for one row of C int8 values with zero point z (C <= 16383): the LayerNorm's
/// steps with the row centred on z instead of its mean, S1 = C z and D = C sum (q_j - z)^2.
template <std::size_t C>
constexpr int8_layer_norm_row int8_rms_norm_row_of(const std::int8_t (&x)[C], std::int32_t zero, std::int64_t epsilon,
                                                   std::int32_t epsilon_shift) noexcept {
  std::int32_t s2 = 0;
  for (std::size_t j = 0; j < C; ++j) {
    const std::int32_t v = x[j] - zero;
    s2 += v * v;
  }
  constexpr auto c = static_cast<std::int64_t>(C);
  return int8_norm_row_from(int8_layer_norm_row{c, c * zero, 0, 37}, c * s2, epsilon, epsilon_shift);
}

/// Step 4: n_j = round(N_j I / 2^(37 - k - f/2)), N_j = C q_j - S1: the normalized value with 24 fractional bits.
CTATTN_ALWAYS_INLINE constexpr std::int32_t int8_layer_norm_normalized(std::int8_t q,
                                                                       const int8_layer_norm_row& row) noexcept {
  return static_cast<std::int32_t>(rounding_shift((row.width * q - row.sum) * row.inverse, row.down));
}

/// Steps 5 and 6: A_j = round(n_j m_j / 2^shift_j) + b_j, in 2^-16 output steps.
CTATTN_ALWAYS_INLINE constexpr std::int64_t int8_layer_norm_scaled(std::int32_t n, std::int32_t multiplier,
                                                                   std::int32_t shift, std::int32_t bias) noexcept {
  return rounding_shift(std::int64_t{n} * multiplier, shift) + bias;
}

/// v clamped to [-2^30, 2^30]: LayerNorm's A_j held (`int8_layer_norm_row_at_run_time` says why that is enough).
CTATTN_ALWAYS_INLINE std::int32_t held(std::int64_t v) noexcept {
  constexpr std::int64_t limit = std::int64_t{1} << 30;
  return static_cast<std::int32_t>(v < -limit ? -limit : (v > limit ? limit : v));
}

/// a + b for |a| <= 2^30, held within about +-2^30: `qadd` and `ssat` to 31 bits where the core has them, else
/// `held` of the int64 sum.
CTATTN_ALWAYS_INLINE std::int32_t held_sum(std::int32_t a, std::int32_t b) noexcept {
#if defined(__ARM_FEATURE_DSP)
  return signed_saturate<31>(__builtin_arm_qadd(a, b));
#else
  return held(std::int64_t{a} + b);
#endif
}

/// Steps 4 to 7 of the int8 LayerNorm for one row at run time, `int8_layer_norm_rows`'s bits: DownHigh when step
/// 4's shift is 33 or more (chosen once a row).
// Rationale: rounding half away from zero is odd, round(-v) = -round(v), so each product is formed from magnitudes as
// an unsigned 32 x 32 -> 64 bit multiply (|N_j| < 2^22 and I <= 2^31; |n_j|, |m_j| < 2^31) and rounded by adding
// half and shifting, its sign put back after. In step 6 the product is below 2^62, so its high word is below 2^30:
// for a shift s of 33 or more, the low word cannot change floor(p / 2^(s - 1)), so the quotient rounded is the high
// word shifted by s - 33, plus 1, halved, and for s = 32 the carry is the low word's top bit, and either way
// |A_j - b_j| <= 2^30. A_j is then held near +-2^30 by a saturating add (`qadd`, then `ssat` to 31 bits, where the core has them; else an int64
// sum and a clamp): past 2^30 - 1 in magnitude every A_j gives the saturated output, 2^30 / 2^16 steps being beyond
// any int8 with its zero point, so the holds give the reference's bits. Shifts below 32 (weights past 2^8 output
// steps) take int64 sums. The zero point joins the last rounding's constant (|A_j| + 2^15 + 2^23 < 2^31). About 35
// instructions an element on the Cortex-M4 with GCC 12 -Os, against 70 for the form with 64-bit shifts by a
// variable amount.
template <bool DownHigh, std::size_t C>
void int8_layer_norm_row_at_run_time(const std::int8_t (&x)[C], std::int8_t (&y)[C], const int8_layer_norm_row& row,
                                     const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                                     const std::int32_t (&bias)[C], std::int32_t out_zero) noexcept {
  const auto sum = static_cast<std::int32_t>(row.sum);
  const auto inverse = static_cast<std::uint32_t>(row.inverse);
  // Step 4's rounding as floor(floor(v / 2^(d - 1)) / 2 + 1/2): the product shifted by d - 1, plus 1, halved.
  const int first = row.down - 1;
  const std::int32_t last_rounding = (1 << 15) + out_zero * (1 << int8_layer_norm_output_fraction_bits);
  const std::int32_t* m_at = multiplier;
  const std::int32_t* s_at = shift;
  const std::int32_t* b_at = bias;
  std::int8_t* out = y;
  for (const std::int8_t* in = x; in != x + C; ++in, ++out, ++m_at, ++s_at, ++b_at) {
    const std::int32_t centered = static_cast<std::int32_t>(C) * *in - sum;
    const auto centered_bits = static_cast<std::uint32_t>(centered);
    const std::uint32_t centered_magnitude = centered < 0 ? 0u - centered_bits : centered_bits;
    const std::uint64_t p = std::uint64_t{centered_magnitude} * inverse;
    // |n_j| < 2^31, so p >> (d - 1) < 2^32.
    std::uint32_t halves;
    if constexpr (DownHigh) {
      halves = static_cast<std::uint32_t>(p >> 32) >> (first - 32);
    } else {
      halves = (static_cast<std::uint32_t>(p) >> first) | (static_cast<std::uint32_t>(p >> 32) << (32 - first));
    }
    const std::uint32_t n_magnitude = (halves + 1) >> 1;
    const std::int32_t m = *m_at;
    const auto m_bits = static_cast<std::uint32_t>(m);
    const std::uint32_t m_magnitude = m < 0 ? 0u - m_bits : m_bits;
    const int s = *s_at;
    const std::uint64_t t = std::uint64_t{n_magnitude} * m_magnitude;
    const auto high = static_cast<std::uint32_t>(t >> 32);
    const bool negative = (centered ^ m) < 0;
    std::int32_t a;
    if (s > 32) {
      const std::uint32_t scaled = ((high >> (s - 33)) + 1) >> 1;
      a = held_sum(static_cast<std::int32_t>(negative ? 0u - scaled : scaled), *b_at);
    } else if (s == 32) {
      const std::uint32_t scaled = high + (static_cast<std::uint32_t>(t) >> 31);
      a = held_sum(static_cast<std::int32_t>(negative ? 0u - scaled : scaled), *b_at);
    } else {
      // A weight past 2^8 output steps: the quotient may pass 2^31 (below 2^40), and a bias of the other sign may
      // bring the sum back into range, so both are added in int64.
      const std::uint64_t scaled = (t + (std::uint64_t{1} << (s - 1))) >> s;
      a = held((negative ? -static_cast<std::int64_t>(scaled) : static_cast<std::int64_t>(scaled)) + *b_at);
    }
    *out = saturate_int8((a + last_rounding + (a >> 31)) >> int8_layer_norm_output_fraction_bits);
  }
}

/// The backend's own steps 4 to 7 of the int8 LayerNorm for one row (Helium), where it has them and every shift is
/// 32 or more (`all_shifts_32`): true when it computed the row.
template <typename Ops = int8_ops, std::size_t C>
bool backend_layer_norm_row(const std::int8_t (&x)[C], std::int8_t (&y)[C], const int8_layer_norm_row& row,
                            const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                            const std::int32_t (&bias)[C], std::int32_t out_zero, bool all_shifts_32) noexcept {
  if constexpr (int8_declared<Ops>::has_layer_norm_row) {
    if (all_shifts_32) {
      Ops::template layer_norm_row<C>(x, y, static_cast<std::int32_t>(row.sum), static_cast<std::uint32_t>(row.inverse),
                                      row.down, multiplier, shift, bias, out_zero);
      return true;
    }
  }
  return false;
}

/// The int8 LayerNorm of each row of x into y (steps 1 to 7 of quantized/norm.hpp's rationale): per channel
/// j the weight's `multiplier[j]` and `shift[j]`, the bias `bias[j]` in 2^-16 output steps; the output's zero point.
/// With `RootMeanSquare`, RMSNorm: each row centred on the input's zero point `in_zero` (`int8_rms_norm_row_of`).
template <bool RootMeanSquare = false, std::size_t R, std::size_t C>
constexpr void int8_layer_norm_rows(const std::int8_t (&x)[R][C], std::int8_t (&y)[R][C],
                                    const std::int32_t (&multiplier)[C], const std::int32_t (&shift)[C],
                                    const std::int32_t (&bias)[C], std::int64_t epsilon, std::int32_t epsilon_shift,
                                    std::int32_t out_zero, std::int32_t in_zero = 0) noexcept {
  bool all_shifts_32 = true;
  for (std::size_t j = 0; j < C; ++j) all_shifts_32 = all_shifts_32 && shift[j] >= 32;
  for (std::size_t r = 0; r < R; ++r) {
    const int8_layer_norm_row row = RootMeanSquare ? int8_rms_norm_row_of(x[r], in_zero, epsilon, epsilon_shift)
                                                   : int8_layer_norm_row_of(x[r], epsilon, epsilon_shift);
    if (std::is_constant_evaluated()) {
      for (std::size_t j = 0; j < C; ++j) {
        const std::int32_t n = int8_layer_norm_normalized(x[r][j], row);
        const std::int64_t a = int8_layer_norm_scaled(n, multiplier[j], shift[j], bias[j]);
        const std::int64_t q = rounding_shift(a, int8_layer_norm_output_fraction_bits) + out_zero;
        y[r][j] = static_cast<std::int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
      }
      continue;
    }
    if (backend_layer_norm_row(x[r], y[r], row, multiplier, shift, bias, out_zero, all_shifts_32)) continue;
    if (row.down >= 33) {
      int8_layer_norm_row_at_run_time<true>(x[r], y[r], row, multiplier, shift, bias, out_zero);
    } else {
      int8_layer_norm_row_at_run_time<false>(x[r], y[r], row, multiplier, shift, bias, out_zero);
    }
  }
}

}  // namespace detail::kernels
}  // namespace ctattn

#endif  // CTATTN_KERNELS_INT8_HPP
// ---------------------------------------- ctattn/kernels/int4.hpp (continued)

namespace ctattn::detail {
/// The int4-weight operations of the int8 row this build runs (`int8_row::int4_ops`: the Cortex-M DSP's product,
/// kernels/arm_dsp_int4.hpp; Helium's unpacking, kernels/helium_int8.hpp), or `void` where the row has none.
using int4_product_ops = int8_row::int4_ops;

/// The int4 operations as declared (kernels/detail/ops_defaults.hpp): `int4_product_ops`, or the defaults.
using int4_declared = declared_ops<int4_product_ops, int4_ops_defaults>;
}  // namespace ctattn::detail

namespace ctattn::detail::kernels {

/// rows[r][base + T] = value first_value + base + T of the packing over the pack T: one expression, one step of the
/// constant evaluators.
template <std::size_t B, std::size_t K, std::size_t Bytes, std::size_t... T>
constexpr void int4_terms_unpacked(const std::uint8_t (&packed)[Bytes], std::size_t first_value,
                                   std::int8_t (&rows)[B][K], std::size_t r, std::size_t base,
                                   std::index_sequence<T...>) noexcept {
  // Rationale: the value written out rather than by `int4_value`: Clang counts each call's statement as a step.
  ((rows[r][base + T] = static_cast<std::int8_t>(
        static_cast<int>((((first_value + base + T) % 2 == 0 ? unsigned{packed[(first_value + base + T) / 2]}
                                                             : unsigned{packed[(first_value + base + T) / 2]} >> 4) &
                          0xFu) ^
                         0x8u) -
        8)),
   ...);
}

/// Rows first.. first + B - 1 of an N x K int4 packing, unpacked into `rows` (B x K int8).
// Rationale: in constant evaluation, folds of 64 values (Clang counts a loop's every iteration against its budget of
// steps, a fold once: a loop per weight took the verified sorter with int4 weights past Clang's default million).
template <std::size_t B, std::size_t K, std::size_t Bytes>
constexpr void int4_unpack_rows(const std::uint8_t (&packed)[Bytes], std::size_t first,
                                std::int8_t (&rows)[B][K]) noexcept {
  if (std::is_constant_evaluated()) {
    constexpr std::size_t whole = K / unrolled_chunk * unrolled_chunk;
    for (std::size_t r = 0; r < B; ++r) {
      const std::size_t row_start = (first + r) * K;
      for (std::size_t base = 0; base < whole; base += unrolled_chunk) {
        int4_terms_unpacked(packed, row_start, rows, r, base, std::make_index_sequence<unrolled_chunk>{});
      }
      if constexpr (whole < K) {
        int4_terms_unpacked(packed, row_start, rows, r, whole, std::make_index_sequence<K - whole>{});
      }
    }
    return;
  }
  for (std::size_t r = 0; r < B; ++r) {
    const std::size_t base = (first + r) * K;
    for (std::size_t k = 0; k < K; ++k) rows[r][k] = int4_value(packed, base + k);
  }
}

/// How many output channels an int4 layer unpacks at a time at run time: their int8 rows take this many times K
/// bytes of stack. On a Cortex-M 8 (a KWT-1 feed-forward block of K = 768: 6 KiB); elsewhere 32.
// Rationale: each block is one call of the int8 product kernel, which widens or stages the rows of x once per
// call: fewer channels a block would repeat that work, more would take more stack.
inline constexpr std::size_t int4_block_channels =
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
    8;
#else
    32;
#endif

/// The channels of one block of an N-channel layer: `int4_block_channels`, or N where fewer.
///
/// Example: `static_assert(ctattn::detail::kernels::int4_block_of<3> == 3);`
template <std::size_t N>
inline constexpr std::size_t int4_block_of = N < int4_block_channels ? N : int4_block_channels;

/// The stack bytes an int4 layer's product of M x K by N x K takes beyond its locals, on any backend: one block of
/// unpacked channels with the int8 product kernel's scratch for a block, or the DSP kernel's widened rows (up to 6
/// rows of K terms in int16).
///
/// Example: `static_assert(ctattn::detail::kernels::int4_product_stack_bytes<6, 64, 32> >= 64);`
template <std::size_t M, std::size_t K, std::size_t N>
inline constexpr std::size_t int4_product_stack_bytes =
    int4_block_of<N> * K + int8_product_stack_bytes<M, K, int4_block_of<N>>;

/// Whether the row's int4 product takes rows of K terms.
template <std::size_t K>
inline constexpr bool int4_kernel_takes = int4_declared::has_fully_connected && int4_declared::template takes<K>;

/// The int4 kernel Ops on M rows of x against the N channels of a packing (a template, so that a build whose row
/// has none never names it).
template <typename Ops, std::size_t M, std::size_t K, std::size_t N, typename Epilogue>
void run_int4_kernel(const std::int8_t* x, const std::uint8_t* packed, const Epilogue& e, std::int8_t* y) noexcept {
  Ops::template fully_connected<M, K, N>(x, packed, e, y);
}

/// The row's int4 unpacking (a template, as `run_int4_kernel`).
template <typename Ops>
void run_int4_unpack(const std::uint8_t* packed, std::int8_t* values, std::size_t count) noexcept {
  Ops::unpack(packed, values, count);
}

/// Channels first.. first + B - 1 of an int4 layer at run time: unpacked, then the int8 product kernel writes
/// their B columns of y.
template <std::size_t B, std::size_t M, std::size_t K, std::size_t N, std::size_t Bytes, std::size_t MC>
void int4_channel_block(const std::int8_t (&x)[M][K], const std::uint8_t (&packed)[Bytes], std::size_t first,
                        const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                        std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  std::int8_t rows[B][K];
  if constexpr (int4_declared::has_unpack && K % 2 == 0) {
    run_int4_unpack<int4_declared>(&packed[first * K / 2], &rows[0][0], B * K);
  } else {
    int4_unpack_rows(packed, first, rows);
  }
  const int8_epilogue<(MC > 1)> block{&start[first], nullptr, &multipliers[MC > 1 ? first : 0], zero};
  run_product_requantized<int8_product_ops, M, K, B, K, K, N>(&x[0][0], &rows[0][0], block, &y[0][first]);
}

/// The int8 fully-connected product (`int8_fully_connected`) of int4 weights: y[r][c] = requantize(start[c] +
/// sum_t x[r][t] w[c][t], multipliers[c], zero), w[c][t] value c K + t of the packing. The same bits in constant
/// evaluation and at run time, on every target.
///
/// | operand       | shape                                   |
/// |---------------|-----------------------------------------|
/// | `x`           | M x K int8                              |
/// | `packed`      | N x K int4, (N K + 1) / 2 bytes (out x in) |
/// | `start`       | N int32                                 |
/// | `multipliers` | MC: N (per channel) or 1 (per tensor)   |
/// | `y`           | M x N int8                              |
template <std::size_t M, std::size_t K, std::size_t N, std::size_t MC>
  requires(MC == N || MC == 1)
constexpr void int4_fully_connected(const std::int8_t (&x)[M][K], const std::uint8_t (&packed)[int4_packed_bytes<N, K>],
                                    const std::int32_t (&start)[N], const math::quantized_multiplier (&multipliers)[MC],
                                    std::int32_t zero, std::int8_t (&y)[M][N]) noexcept {
  if (std::is_constant_evaluated()) {
    std::int8_t w[N][K];
    int4_unpack_rows(packed, 0, w);
    int8_fully_connected(x, w, start, multipliers, zero, y);
    return;
  }
  if constexpr (int4_kernel_takes<K>) {
    run_int4_kernel<int4_product_ops, M, K, N>(&x[0][0], packed,
                                               int8_epilogue<(MC > 1)>{start, nullptr, multipliers, zero}, &y[0][0]);
    return;
  }
  constexpr std::size_t block = int4_block_of<N>;
  std::size_t first = 0;
  for (; first + block <= N; first += block) int4_channel_block<block>(x, packed, first, start, multipliers, zero, y);
  if constexpr (N % block != 0) int4_channel_block<N % block>(x, packed, first, start, multipliers, zero, y);
}

}  // namespace ctattn::detail::kernels

#endif  // CTATTN_KERNELS_INT4_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Attention: softmax, masks, projections, scaled dot-product attention, heads, gradients.
// ---------------------------------------- ctattn/attention/attention_head.hpp
#ifndef CTATTN_ATTENTION_ATTENTION_HEAD_HPP
#define CTATTN_ATTENTION_ATTENTION_HEAD_HPP

// ---------------------------------------- ctattn/attention/mask.hpp
#ifndef CTATTN_ATTENTION_MASK_HPP
#define CTATTN_ATTENTION_MASK_HPP

/// \file
/// Masks: values, each of its own mask type (so the kernel is compiled for the mask it gets). A mask tells the
/// attention kernel, for each query i, which keys it may see:
///   - `keys(i, n_q, n_kv)` gives the range [begin, end) of keys to visit at all (the kernel never touches the
///     others, which is what makes a sliding window O(r N) instead of O(N^2));
///   - when `checks_each_key` is true, `allowed(i, j)` filters keys inside that range;
///   - when `adds_bias` is true, `bias(i, j)` is added to the scaled score (an additive mask, ALiBi, ...).
/// A mask with a shape (`row_extent`, `column_extent`) is checked against the score matrix at compile time.
/// A query that sees no key gets a zero output row and zero weights (never NaN).
///
/// | mask                              | query i sees key j when                    | shape checked      |
/// |-----------------------------------|--------------------------------------------|--------------------|
/// | `no_mask`                         | always                                     | -                  |
/// | `causal`                          | j <= i (top-left aligned, PyTorch's is_causal) | -              |
/// | `causal_bottom_right`             | j <= i + n_kv - n_q (the last query sees every key) | -         |
/// | `key_padding_length{len}`         | j < len (len known at run time)            | len <= n_kv at run time |
/// | `key_padding_flags<N>{...}`       | valid[j]                                   | N matches n_kv     |
/// | `sliding_window<r>`               | abs(i - j) <= r                            | n_q matches n_kv   |
/// | `causal_sliding_window<r>`        | i - r <= j <= i                            | n_q matches n_kv   |
/// | `boolean_mask<NQ, NKV>{...}`      | allowed[i][j]                              | NQ x NKV matches   |
/// | `additive_bias(b)`                | always; b(i, j) added to the scaled score  | b's shape matches  |
/// | `combine_masks(a, b)`             | both a and b allow it; biases add          | both               |


// ---------------------------------------- ctattn/attention/rules.hpp
#ifndef CTATTN_ATTENTION_RULES_HPP
#define CTATTN_ATTENTION_RULES_HPP

/// \file
/// The attention tier's shape rules and operation tags (see ctattn/shape/rule.hpp for how a rule is defined once
/// and reported). The matrix tier's rules (ctattn/matrix/rules.hpp) apply here too.
///
/// | rule                                           | arguments after the operation                  |
/// |------------------------------------------------|------------------------------------------------|
/// | `query_and_key_widths_must_match`              | d_q, d_k                                       |
/// | `key_and_value_counts_must_match`              | n_kv of the keys, of the values                |
/// | `mask_rows_must_match_queries`                 | the mask's rows, n_q                           |
/// | `mask_columns_must_match_keys`                 | the mask's columns, n_kv                       |
/// | `sliding_window_needs_as_many_queries_as_keys` | n_q, n_kv                                      |
/// | `input_width_must_match_weight`                | the input's columns, the weight's input side   |
/// | `heads_must_divide_model_width`                | `count<h>`, d_model                            |
/// | `key_value_heads_must_divide_query_heads`      | `count<h_kv>`, `count<h_q>`                    |
/// | `output_rows_must_match_queries`               | the output's rows, n_q                         |
/// | `output_columns_must_match_values`             | the output's columns, d_v (h * d_v)            |
/// | `workspace_must_match_attention`               | the given workspace's shape, the required one  |
/// | `must_be_a_single_row`                         | the rows given                                 |
/// | `position_must_fit_cache`                      | `count<position>`, `count<capacity>`           |
/// | `memory_must_fit_cache`                        | `count<memory rows>`, `count<capacity>`        |
/// | `argument_must_be_one_attention_head`          | the type given (in workspace.hpp, beside what a head is) |



namespace ctattn {

namespace op {
struct scaled_dot_product_attention {};
struct softmax {};
struct mask {};
struct projection {};
struct multi_head_attention {};
struct grouped_query_attention {};
struct wide_multi_head_attention {};
struct softmax_jacobian {};
struct softmax_backward {};
struct attention_backward {};
struct self_attention {};
struct cross_attention {};
struct kv_cache {};
}  // namespace op

/// How an attention workspace's shape reads in a diagnostic: element type, then n_q, n_kv, d_k and d_v as
/// `ctattn::dim<name, size>`. Never defined.
///
/// | argument     | shape part |
/// |--------------|------------|
/// | `QueryCount` | n_q        |
/// | `KeyCount`   | n_kv       |
/// | `KeyWidth`   | d_k        |
/// | `ValueWidth` | d_v        |
///
/// Example (a workspace declared for 7 tokens, used with 6: the rule the diagnostic names):
/// \code
///   using declared = ctattn::workspace_shape<float, ctattn::dim<seq, 7>, ctattn::dim<seq, 7>, ctattn::dim<d_k, 24>,
///                                            ctattn::dim<d_v, 28>>;
///   using required = ctattn::workspace_shape<float, ctattn::dim<seq, 6>, ctattn::dim<seq, 6>, ctattn::dim<d_k, 24>,
///                                            ctattn::dim<d_v, 28>>;
///   static_assert(!ctattn::shape_error::workspace_must_match_attention<ctattn::op::self_attention, declared,
///                                                                      required>::holds);
/// \endcode
template <typename T, typename QueryCount, typename KeyCount, typename KeyWidth, typename ValueWidth>
struct workspace_shape;

namespace shape_error {

/// Queries and keys are compared by dot products: their widths d_q and d_k must match.
template <typename Operation, typename QueryWidth, typename KeyWidth>
struct query_and_key_widths_must_match {
  static constexpr bool holds = detail::dims_match<QueryWidth, KeyWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: queries and keys are compared by dot products, so their widths must match (d_q = d_k); "
                  "project both with weights of the same output width, or check that the keys are not the values");
    return holds;
  }
};

/// Every key has a value: the keys and the values have the same number of rows (n_kv).
template <typename Operation, typename KeyCount, typename ValueCount>
struct key_and_value_counts_must_match {
  static constexpr bool holds = detail::dims_match<KeyCount, ValueCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: every key needs its value, so keys and values must have the same number of rows (n_kv); "
                  "take both from the same sequence");
    return holds;
  }
};

/// A mask or bias has one row per query.
template <typename Operation, typename MaskRows, typename QueryCount>
struct mask_rows_must_match_queries {
  static constexpr bool holds = detail::dims_match<MaskRows, QueryCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a mask or bias has one row per query, so its rows must match the number of queries "
                  "(n_q); build it for the scores' shape n_q x n_kv");
    return holds;
  }
};

/// A mask or bias has one column per key.
template <typename Operation, typename MaskColumns, typename KeyCount>
struct mask_columns_must_match_keys {
  static constexpr bool holds = detail::dims_match<MaskColumns, KeyCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a mask or bias has one column per key, so its columns must match the number of keys "
                  "(n_kv); build it for the scores' shape n_q x n_kv");
    return holds;
  }
};

/// A window centred on each query (restricted attention) needs as many queries as keys.
template <typename Operation, typename QueryCount, typename KeyCount>
struct sliding_window_needs_as_many_queries_as_keys {
  static constexpr bool holds = detail::dims_match<QueryCount, KeyCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a sliding window is centred on each query's own position, so it needs as many queries "
                  "as keys (self-attention); for cross-attention use a boolean_mask or an additive_bias");
    return holds;
  }
};

/// A projection maps the input's features: the input's columns match the weight's input side.
template <typename Operation, typename InputWidth, typename WeightInput>
struct input_width_must_match_weight {
  static constexpr bool holds = detail::dims_match<InputWidth, WeightInput>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a projection's input must have as many columns as the weight has input features; pass "
                  "the input the weight was made for (x, not its transpose), and check the weight's layout "
                  "(ctattn::in_by_out or ctattn::out_by_in)");
    return holds;
  }
};

/// Heads share d_model equally: the number of heads divides it.
template <typename Operation, typename Heads, typename ModelWidth>
struct heads_must_divide_model_width {
  static constexpr bool holds = Heads::value != 0 && ModelWidth::size % Heads::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the heads split d_model into equal parts, so the number of heads must divide d_model; "
                  "choose a divisor (for d_model = 512: 1, 2, 4, 8, 16, ...)");
    return holds;
  }
};

/// Grouped-query attention: each key/value head serves the same number of query heads.
template <typename Operation, typename KeyValueHeads, typename QueryHeads>
struct key_value_heads_must_divide_query_heads {
  static constexpr bool holds = KeyValueHeads::value != 0 && QueryHeads::value % KeyValueHeads::value == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: in grouped-query attention each key/value head serves the same number of query heads, "
                  "so the key/value heads must divide the query heads; choose a divisor");
    return holds;
  }
};

/// An output written in place has one row per query.
template <typename Operation, typename OutputRows, typename QueryCount>
struct output_rows_must_match_queries {
  static constexpr bool holds = detail::dims_match<OutputRows, QueryCount>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the output has one row per query, so its rows must match the number of queries (n_q); "
                  "declare it with the queries' row extent");
    return holds;
  }
};

/// An output written in place has the values' width (d_v; h * d_v for wide multi-head attention).
template <typename Operation, typename OutputColumns, typename ValueWidth>
struct output_columns_must_match_values {
  static constexpr bool holds = detail::dims_match<OutputColumns, ValueWidth>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the output holds the weighted values, so its columns must match the values' width (d_v, "
                  "or h * d_v for concatenated heads); declare it with that width");
    return holds;
  }
};

/// A workspace is declared for one attention configuration (element type, n_q, n_kv, d_k, d_v).
template <typename Operation, typename GivenWorkspace, typename RequiredWorkspace>
struct workspace_must_match_attention {
  static constexpr bool holds = std::is_same_v<GivenWorkspace, RequiredWorkspace>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the workspace was declared for another attention configuration; declare it as "
                  "ctattn::self_attention_workspace<X, Head> or ctattn::cross_attention_workspace<XQ, XKV, Head> "
                  "for this call's operands");
    return holds;
  }
};

/// A key/value cache holds `Capacity` tokens: positions 0 to Capacity - 1.
template <typename Operation, typename Position, typename Capacity>
struct position_must_fit_cache {
  static constexpr bool holds = Position::value < Capacity::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a key/value cache holds Capacity tokens, at positions 0 to Capacity - 1; append at a "
                  "position below the capacity, or declare the cache with a larger capacity");
    return holds;
  }
};

/// The keys and values of an encoder's output (the memory of cross-attention) fit the cache they are projected into.
template <typename Operation, typename Rows, typename Capacity>
struct memory_must_fit_cache {
  static constexpr bool holds = Rows::value <= Capacity::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the memory (the encoder's output) has more rows than the key/value cache holds; declare "
                  "the cache with a capacity of at least the memory's rows");
    return holds;
  }
};

/// The softmax Jacobian is taken of one row of probabilities.
template <typename Operation, typename Rows>
struct must_be_a_single_row {
  static constexpr bool holds = Rows::size == 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the operand must be a single row (1 x N); take one row of a matrix with ctattn::row<i>(m)");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

// What a mask declares about itself: its rows, its columns, its element type (each `void` when it has none), and
// whether it needs square scores.
template <typename Mask>
struct mask_rows {
  using type = void;
};
template <typename Mask>
  requires requires { Mask::row_extent; }
struct mask_rows<Mask> {
  using type = dim_of<Mask::row_extent>;
};
template <typename Mask>
struct mask_columns {
  using type = void;
};
template <typename Mask>
  requires requires { Mask::column_extent; }
struct mask_columns<Mask> {
  using type = dim_of<Mask::column_extent>;
};
template <typename Mask>
struct mask_element {
  using type = void;
};
template <typename Mask>
  requires requires { typename Mask::value_type; }
struct mask_element<Mask> {
  using type = typename Mask::value_type;
};

// A rule that applies only when the mask declares what it checks; an empty list otherwise.
template <typename Declared, typename Rule>
using if_declared = std::conditional_t<std::is_void_v<Declared>, rule_list<>, Rule>;

template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
struct mask_rules_of {
  using rows = typename mask_rows<Mask>::type;
  using columns = typename mask_columns<Mask>::type;
  using element = typename mask_element<Mask>::type;
  static constexpr bool square_scores = requires { Mask::needs_square_scores; };
  using type = rule_list<
      if_declared<element, shape_error::element_types_must_match<Op, T, element>>,
      if_declared<rows, shape_error::mask_rows_must_match_queries<Op, rows, dim_of<NQ>>>,
      if_declared<columns, shape_error::mask_columns_must_match_keys<Op, columns, dim_of<NKV>>>,
      std::conditional_t<square_scores,
                         shape_error::sliding_window_needs_as_many_queries_as_keys<Op, dim_of<NQ>, dim_of<NKV>>,
                         rule_list<>>>;
};

template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
  requires requires {
    typename Mask::first_mask;
    typename Mask::second_mask;
  }
struct mask_rules_of<Op, T, NQ, NKV, Mask> {
  using type = rule_list<typename mask_rules_of<Op, T, NQ, NKV, typename Mask::first_mask>::type,
                         typename mask_rules_of<Op, T, NQ, NKV, typename Mask::second_mask>::type>;
};

/// The rules between a mask and scores of NQ queries x NKV keys in element type T (a combined mask: both parts').
template <typename Op, typename T, auto NQ, auto NKV, typename Mask>
using mask_rules = typename mask_rules_of<Op, T, NQ, NKV, Mask>::type;

/// The rules of scaled dot-product attention over Q, K, V with a mask.
template <typename Op, typename Q, typename K, typename V, typename Mask>
using attention_rules =
    rule_list<same_element_rule<Op, Q, K>, same_element_rule<Op, K, V>,
              shape_error::query_and_key_widths_must_match<Op, dim_of<Q::column_extent>, dim_of<K::column_extent>>,
              shape_error::key_and_value_counts_must_match<Op, dim_of<K::row_extent>, dim_of<V::row_extent>>,
              mask_rules<Op, typename Q::value_type, Q::row_extent, K::row_extent, Mask>>;

// The output of attention over Q and V: n_q x d_v (h * d_v when `Heads` heads are concatenated).
template <typename Op, typename Out, typename Q, typename V, std::size_t Heads = 1>
using output_rules =
    rule_list<same_element_rule<Op, Out, Q>,
              shape_error::output_rows_must_match_queries<Op, dim_of<Out::row_extent>, dim_of<Q::row_extent>>,
              shape_error::output_columns_must_match_values<
                  Op, dim_of<Out::column_extent>,
                  std::conditional_t<Heads == 1, dim_of<V::column_extent>, dim<unnamed, Heads * V::cols>>>>;

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_ATTENTION_RULES_HPP
// ---------------------------------------- ctattn/attention/mask.hpp (continued)

namespace ctattn {

/// The keys a query visits: [begin, end).
struct key_range {
  std::size_t begin;
  std::size_t end;
};

/// What the attention kernels accept as a mask (see the table in this header).
template <typename M>
concept AttentionMask = requires(const M& mask, std::size_t i) {
  { mask.keys(i, i, i) } -> std::same_as<key_range>;
  { M::checks_each_key } -> std::convertible_to<bool>;
  { M::adds_bias } -> std::convertible_to<bool>;
};

/// Every query sees every key.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::no_mask)`.
struct no_mask_type {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  friend constexpr bool operator==(const no_mask_type&, const no_mask_type&) = default;
};
inline constexpr no_mask_type no_mask{};

/// The causal mask M of the reference text (-inf above the diagonal): query i sees keys j <= i. For n_q != n_kv
/// it stays aligned to the top left, as PyTorch's `is_causal=True`: query i sees the first i + 1 keys.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal)`.
struct causal_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    return {0, i + 1 < n_kv ? i + 1 : n_kv};
  }
  friend constexpr bool operator==(const causal_mask&, const causal_mask&) = default;
};
inline constexpr causal_mask causal{};

/// The causal mask aligned to the bottom right: query i sees keys j <= i + n_kv - n_q, so the last query sees
/// every key (decoding n_q new tokens after n_kv - n_q cached ones). Equal to `causal` when n_q = n_kv.
/// Queries with i + n_kv < n_q see no key and get zeros.
/// Example: `ctattn::scaled_dot_product_attention(new_q, cached_k, cached_v, ctattn::causal_bottom_right)`.
struct causal_bottom_right_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t n_q, std::size_t n_kv) const noexcept {
    const std::size_t end = i + 1 + n_kv;  // i + 1 + n_kv - n_q, kept unsigned
    return {0, end <= n_q ? 0 : (end - n_q < n_kv ? end - n_q : n_kv)};
  }
  friend constexpr bool operator==(const causal_bottom_right_mask&, const causal_bottom_right_mask&) = default;
};
inline constexpr causal_bottom_right_mask causal_bottom_right{};

/// Key padding by length, known at run time: every query sees keys j < valid_keys. Precondition:
/// valid_keys <= n_kv. A length of 0 gives zero outputs.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::key_padding_length{received})`.
struct key_padding_length {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  std::size_t valid_keys;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    detail::expects(valid_keys <= n_kv);
    return {0, valid_keys < n_kv ? valid_keys : n_kv};
  }
};

/// Key padding by flags, one per key: every query sees the keys whose flag is true. `N` is the number of keys
/// (a plain size or a named extent), checked against the keys at compile time; the flags may change at run
/// time.
/// Example: `ctattn::key_padding_flags<7> pad{{true, true, true, true, true, false, false}};`
template <auto N>
struct basic_key_padding_flags {
  static constexpr bool checks_each_key = true;
  static constexpr bool adds_bias = false;
  static constexpr auto column_extent = normalize_extent<N>;
  bool valid[extent_size(column_extent)];
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t, std::size_t j) const noexcept { return valid[j]; }
};

/// `key_padding_flags<N>`: N normalized (one shape, one type).
template <auto N>
using key_padding_flags = basic_key_padding_flags<normalize_extent<N>>;

/// Restricted attention (the reference text's window of radius r): query i sees keys with |i - j| <= r. The
/// kernel visits only those 2r + 1 keys, so the work is O(r N), not O(N^2). Needs n_q = n_kv.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::sliding_window<2>)`.
template <std::size_t Radius>
struct sliding_window_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  static constexpr bool needs_square_scores = true;
  static constexpr std::size_t radius = Radius;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    const std::size_t end = i + Radius + 1;
    return {i > Radius ? i - Radius : 0, end < n_kv ? end : n_kv};
  }
};
template <std::size_t Radius>
inline constexpr sliding_window_mask<Radius> sliding_window{};

/// A causal window: query i sees keys i - r <= j <= i (local attention for streaming). O(r N) work;
/// needs n_q = n_kv.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal_sliding_window<16>)`.
template <std::size_t Radius>
struct causal_sliding_window_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = false;
  static constexpr bool needs_square_scores = true;
  static constexpr std::size_t radius = Radius;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t, std::size_t n_kv) const noexcept {
    return {i > Radius ? i - Radius : 0, i + 1 < n_kv ? i + 1 : n_kv};
  }
};
template <std::size_t Radius>
inline constexpr causal_sliding_window_mask<Radius> causal_sliding_window{};

/// An arbitrary boolean mask, n_q x n_kv: query i sees key j when `allowed[i][j]`. Usable as a constexpr
/// table; its shape (sizes and names) is checked against the scores.
/// Example: `constexpr ctattn::boolean_mask<2, 3> m{{{true, false, true}, {false, true, true}}};`
template <auto NQ, auto NKV>
struct basic_boolean_mask {
  static constexpr bool checks_each_key = true;
  static constexpr bool adds_bias = false;
  static constexpr auto row_extent = normalize_extent<NQ>;
  static constexpr auto column_extent = normalize_extent<NKV>;
  bool allowed_keys[extent_size(row_extent)][extent_size(column_extent)];
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t i, std::size_t j) const noexcept { return allowed_keys[i][j]; }
};

/// `boolean_mask<NQ, NKV>`: extents normalized (one shape, one type).
template <auto NQ, auto NKV>
using boolean_mask = basic_boolean_mask<normalize_extent<NQ>, normalize_extent<NKV>>;

/// An additive mask: `bias(i, j)` is added to the scaled score of query i and key j before the softmax
/// (ALiBi, relative-position biases, or -inf entries as a float mask). Its shape is checked against the scores,
/// and its element type must be the attention's.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::additive_bias(alibi))`.
template <typename T, auto NQ, auto NKV>
struct additive_bias_mask {
  static constexpr bool checks_each_key = false;
  static constexpr bool adds_bias = true;
  static constexpr auto row_extent = NQ;
  static constexpr auto column_extent = NKV;
  using value_type = T;
  basic_matrix<T, NQ, NKV> values;
  [[nodiscard]] constexpr key_range keys(std::size_t, std::size_t, std::size_t n_kv) const noexcept {
    return {0, n_kv};
  }
  template <typename U = T>
  [[nodiscard]] constexpr U bias(std::size_t i, std::size_t j) const noexcept {
    return values.elements[i][j];
  }
};

/// Wraps a bias matrix (n_q x n_kv) as a mask. Example: `ctattn::additive_bias(bias_matrix)`.
template <typename T, auto NQ, auto NKV>
[[nodiscard]] constexpr additive_bias_mask<T, NQ, NKV> additive_bias(const basic_matrix<T, NQ, NKV>& b) noexcept {
  return {b};
}

/// Two masks at once: a key is visible when both allow it, and their biases add.
/// Example: `ctattn::combine_masks(ctattn::causal, ctattn::key_padding_length{5})`.
template <AttentionMask A, AttentionMask B>
struct combined_mask {
  using first_mask = A;
  using second_mask = B;
  static constexpr bool checks_each_key = A::checks_each_key || B::checks_each_key;
  static constexpr bool adds_bias = A::adds_bias || B::adds_bias;
  A first;
  B second;
  [[nodiscard]] constexpr key_range keys(std::size_t i, std::size_t n_q, std::size_t n_kv) const noexcept {
    const key_range a = first.keys(i, n_q, n_kv);
    const key_range b = second.keys(i, n_q, n_kv);
    const std::size_t begin = a.begin > b.begin ? a.begin : b.begin;
    const std::size_t end = a.end < b.end ? a.end : b.end;
    return {begin, end > begin ? end : begin};
  }
  [[nodiscard]] constexpr bool allowed(std::size_t i, std::size_t j) const noexcept {
    bool result = true;
    if constexpr (A::checks_each_key) result = result && first.allowed(i, j);
    if constexpr (B::checks_each_key) result = result && second.allowed(i, j);
    return result;
  }
  template <typename T>
  [[nodiscard]] constexpr T bias(std::size_t i, std::size_t j) const noexcept {
    T result{0};
    if constexpr (A::adds_bias) result += first.bias(i, j);
    if constexpr (B::adds_bias) result += second.bias(i, j);
    return result;
  }
};

/// Combines two masks (see `combined_mask`).
template <AttentionMask A, AttentionMask B>
[[nodiscard]] constexpr combined_mask<A, B> combine_masks(const A& a, const B& b) noexcept {
  return {a, b};
}

/// A mask as the reference text writes it: the n_q x n_kv matrix M added to the scaled scores, 0 where query i
/// sees key j and -inf where it does not, plus the mask's bias where it has one. Attention with `mask` equals
/// softmax(Q K^T / sqrt(d_k) + M) V; the kernels never build M (a sliding window visits only its keys).
///
/// | operand | shape        |
/// |---------|--------------|
/// | `mask`  | any mask     |
/// | result  | NQ x NKV     |
///
/// Rule: a mask with a shape must fit NQ x NKV (as in attention).
///
/// Example:
/// \code
///   constexpr auto m = ctattn::mask_matrix<float, 4, 4>(ctattn::causal);   // -inf above the diagonal
/// \endcode
template <typename T, auto NQ, auto NKV, AttentionMask Mask>
[[nodiscard]] constexpr auto mask_matrix(const Mask& mask) noexcept {
  using result_type = basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>;
  constexpr std::size_t n_q = result_type::rows;
  constexpr std::size_t n_kv = result_type::cols;
  result_type m{};
  if constexpr (!detail::first_broken<
                    detail::mask_rules<op::mask, T, normalize_extent<NQ>, normalize_extent<NKV>, Mask>>::check()) {
    return m;
  }
  for (std::size_t i = 0; i < n_q; ++i) {
    const key_range range = mask.keys(i, n_q, n_kv);
    for (std::size_t j = 0; j < n_kv; ++j) {
      bool visible = j >= range.begin && j < range.end;
      if constexpr (Mask::checks_each_key) {
        if (visible) visible = mask.allowed(i, j);
      }
      if (!visible) {
        m.elements[i][j] = -std::numeric_limits<T>::infinity();
      } else if constexpr (Mask::adds_bias) {
        m.elements[i][j] = mask.template bias<T>(i, j);
      }
    }
  }
  return m;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_MASK_HPP
// ---------------------------------------- ctattn/attention/attention_head.hpp (continued)
// ---------------------------------------- ctattn/attention/projection.hpp
#ifndef CTATTN_ATTENTION_PROJECTION_HPP
#define CTATTN_ATTENTION_PROJECTION_HPP



namespace ctattn {

/// Weight layout of the reference text: y = x W (+ b), W stored d_in x d_out (Q = X W_Q).
struct in_by_out {};
/// Weight layout of PyTorch's nn.Linear: y = x W^T + b, W stored d_out x d_in (`linear.weight`).
struct out_by_in {};

/// A projection's layout: `in_by_out` or `out_by_in`.
template <typename L>
concept WeightLayout = std::is_same_v<L, in_by_out> || std::is_same_v<L, out_by_in>;

/// The bias of a projection without one (takes no space).
struct no_bias {
  friend constexpr bool operator==(const no_bias&, const no_bias&) = default;
};

/// A linear projection from In features to Out features, its layout named in its type, so that weights
/// imported from PyTorch (out x in) are never silently taken for the reference text's in x out, or back.
///
/// | member   | shape (`in_by_out`) | shape (`out_by_in`, PyTorch) |
/// |----------|---------------------|------------------------------|
/// | `weight` | In x Out            | Out x In                     |
/// | `bias`   | 1 x Out (when HasBias), else `no_bias` | 1 x Out (when HasBias) |
///
/// Example:
/// \code
///   // q_i = W_query x_i with W_query as torch.rand(24, 16) stores it:
///   ctattn::linear<float, d_model{16}, d_k{24}, ctattn::out_by_in> w_query{.weight = w};
///   auto q = ctattn::project(x, w_query);    // seq x d_k
/// \endcode
template <typename T, auto In, auto Out, WeightLayout Layout = in_by_out, bool HasBias = false>
struct basic_linear {
  using value_type = T;
  using layout = Layout;
  static constexpr auto input_extent = normalize_extent<In>;
  static constexpr auto output_extent = normalize_extent<Out>;
  static constexpr bool has_bias = HasBias;
  using weight_type =
      std::conditional_t<std::is_same_v<Layout, in_by_out>, basic_matrix<T, input_extent, output_extent>,
                         basic_matrix<T, output_extent, input_extent>>;
  using bias_type = std::conditional_t<HasBias, basic_matrix<T, std::size_t{1}, output_extent>, no_bias>;

  weight_type weight{};
  [[no_unique_address]] bias_type bias{};

  friend constexpr bool operator==(const basic_linear&, const basic_linear&) = default;
};

/// `linear<T, In, Out, Layout, HasBias>`: the projection users write. Extents are normalized, so a projection
/// spelled with `16`, `16u` or `std::size_t{16}` is one type.
template <typename T, auto In, auto Out, WeightLayout Layout = in_by_out, bool HasBias = false>
using linear = basic_linear<T, normalize_extent<In>, normalize_extent<Out>, Layout, HasBias>;

namespace detail {
template <typename P>
struct is_linear : std::false_type {};
template <typename T, auto In, auto Out, typename Layout, bool HasBias>
struct is_linear<basic_linear<T, In, Out, Layout, HasBias>> : std::true_type {};
}  // namespace detail

/// Any `ctattn::linear`.
template <typename P>
concept Projection = detail::is_linear<std::remove_cvref_t<P>>::value;

namespace detail {
/// The rules of applying projection P to the rows of X: one element type, X's columns match P's input side.
template <typename X, typename P>
using projection_rules = rule_list<
    shape_error::element_types_must_match<op::projection, typename X::value_type, typename P::value_type>,
    shape_error::input_width_must_match_weight<op::projection, dim_of<X::column_extent>, dim_of<P::input_extent>>>;

/// The rules of writing that projection into Y: Y has X's rows and P's outputs, in X's element type.
template <typename Y, typename X, typename P>
using projection_into_rules =
    rule_list<projection_rules<X, P>, same_element_rule<op::projection, Y, X>, rows_rule<op::projection, Y, X>,
              shape_error::columns_must_match<op::projection, dim_of<Y::column_extent>, dim_of<P::output_extent>>>;
}  // namespace detail

/// Whether projection P applies to the rows of X: one element type, and X's columns match P's input features.
///
/// Example:
/// \code
///   static_assert(ctattn::Projectable<ctattn::matrix<float, 6, 16>, ctattn::linear<float, 16, 24>>);
/// \endcode
template <typename X, typename P>
concept Projectable = FixedMatrix<X> && Projection<P> &&
                      rules_hold<detail::projection_rules<std::remove_cvref_t<X>, std::remove_cvref_t<P>>>;

namespace detail {
// y = x W (+ b) or x W^T (+ b), with arithmetic A; the rules are the caller's.
template <arithmetic A, typename Y, typename X, typename P>
constexpr void project_rows(Y& y, const X& x, const P& p) noexcept {
  if constexpr (std::is_same_v<typename P::layout, in_by_out>) {
    kernels::product<A>(y.elements, x.elements, p.weight.elements);
  } else {
    kernels::product_transposed<A>(y.elements, x.elements, p.weight.elements);
  }
  if constexpr (P::has_bias) {
    for (std::size_t i = 0; i < Y::rows; ++i) {
      for (std::size_t o = 0; o < Y::cols; ++o) y.elements[i][o] += p.bias.elements[0][o];
    }
  }
}

// The projection of x's rows as a new matrix, with arithmetic A; the rules are the caller's.
template <arithmetic A, typename X, typename P>
constexpr auto projected(const X& x, const P& p) noexcept {
  basic_matrix<typename X::value_type, X::row_extent, P::output_extent> y{};
  project_rows<A>(y, x, p);
  return y;
}
}  // namespace detail

/// Applies a projection to every row of x, writing into `y` (no result on the stack: firmware keeps y in static
/// storage). Same rules and arithmetic as `project`.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `y`     | n x Out (overwritten) |
/// | `x`     | n x In'     |
/// | `p`     | In -> Out   |
///
/// Example:
/// \code
///   static ctattn::matrix<float, seq{6}, d_k{24}> q;   // .bss, not the stack
///   ctattn::project_into(q, x, w_query);
/// \endcode
template <FixedMatrix Y, FixedMatrix X, Projection P>
constexpr void project_into(Y& y, const X& x, const P& p) noexcept {
  if constexpr (detail::first_broken<detail::projection_into_rules<Y, X, P>>::check()) {
    detail::project_rows<default_arithmetic>(y, x, p);
  }
}

/// The same projection with its weight stored in layout `L`: W transposed when L differs from the layout it has,
/// the bias as it is. Results are unchanged (each output still sums the input features in order). Evaluated at
/// compile time on a `constexpr` projection, it costs nothing at run time: import PyTorch's out x in weights and
/// let the compiler store them in x out, the layout the fast product streams row by row (docs/kernels.md says what
/// that buys).
///
/// | operand | layout            | result layout |
/// |---------|-------------------|---------------|
/// | `p`     | `in_by_out` or `out_by_in` | `L`  |
///
/// Example:
/// \code
///   constexpr auto w_query = ctattn::relayout<ctattn::in_by_out>(torch_query);   // transposed by the compiler
/// \endcode
template <WeightLayout L, typename T, auto In, auto Out, typename Layout, bool HasBias>
[[nodiscard]] constexpr basic_linear<T, In, Out, L, HasBias> relayout(
    const basic_linear<T, In, Out, Layout, HasBias>& p) noexcept {
  basic_linear<T, In, Out, L, HasBias> result{};
  if constexpr (std::is_same_v<L, Layout>) {
    result.weight = p.weight;
  } else {
    using from = typename basic_linear<T, In, Out, Layout, HasBias>::weight_type;
    for (std::size_t r = 0; r < from::rows; ++r) {
      for (std::size_t c = 0; c < from::cols; ++c) result.weight.elements[c][r] = p.weight.elements[r][c];
    }
  }
  result.bias = p.bias;
  return result;
}

/// Applies a projection to every row of x: y = x W (+ b) or y = x W^T + b, as the layout says.
///
/// | operand | shape       |
/// |---------|-------------|
/// | `x`     | n x In'     |
/// | `p`     | In -> Out   |
/// | result  | n x Out     |
///
/// Rule: In' matches In (sizes, and names when both are named); one element type. Each output is the sum over
/// the input features in order, starting from +0, then the bias is added (exact arithmetic; fast arithmetic runs
/// the SIMD backend's product, see ctattn/kernels/backend.hpp).
///
/// Example:
/// \code
///   auto k = ctattn::project(x, w_key);
/// \endcode
template <FixedMatrix X, Projection P>
[[nodiscard]] constexpr auto project(const X& x, const P& p) noexcept {
  if constexpr (detail::first_broken<detail::projection_rules<X, P>>::check()) {
    return detail::projected<default_arithmetic>(x, p);
  } else {
    return basic_matrix<typename X::value_type, X::row_extent, P::output_extent>{};
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_PROJECTION_HPP
// ---------------------------------------- ctattn/attention/attention_head.hpp (continued)
// ---------------------------------------- ctattn/attention/scaled_dot_product.hpp
#ifndef CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP
#define CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP


// ---------------------------------------- ctattn/attention/options.hpp
#ifndef CTATTN_ATTENTION_OPTIONS_HPP
#define CTATTN_ATTENTION_OPTIONS_HPP

/// \file
/// The options of an attention call, after its operands and in any order: at most one mask, at most one result
/// form and at most one arithmetic. One function per operation; the form of its result, and how it computes,
/// are arguments, not other functions.
///
/// | option                              | the call                                                          |
/// |-------------------------------------|-------------------------------------------------------------------|
/// | (none)                              | returns the output                                                |
/// | `ctattn::causal`, any mask          | applies the mask (default: none)                                  |
/// | `ctattn::with_weights`              | returns the output with the attention weights (`.output`, `.weights`) |
/// | `ctattn::into(output)`              | writes the output into `output` and returns nothing               |
/// | `ctattn::into(output, workspace)`   | the same, with the intermediates (Q, K, V, ...) in `workspace`    |
/// | `ctattn::exact_arithmetic`          | at run time, static_assert's bits (the scalar kernels)            |
/// | `ctattn::fast_arithmetic`           | at run time, the SIMD backend where there is one (float)          |
///
/// Without an arithmetic option a call computes with `ctattn::default_arithmetic` (ctattn/kernels/backend.hpp):
/// fast, unless the build defines `CTATTN_EXACT_ARITHMETIC=1`. Constant evaluation is always exact.
///
/// Example:
/// \code
///   auto context = ctattn::self_attention(x, head, ctattn::causal);
///   auto [context_again, weights] = ctattn::self_attention(x, head, ctattn::causal, ctattn::with_weights);
///   ctattn::self_attention(x, head, ctattn::causal, ctattn::into(context_storage, workspace));   // firmware
/// \endcode



namespace ctattn {

/// The result form that also returns the attention weights.
struct with_weights_t {};
/// `ctattn::with_weights`: see ctattn/attention/options.hpp.
inline constexpr with_weights_t with_weights{};

/// No workspace given to `into`.
struct no_workspace {};

/// The result form that writes into caller storage: made by `ctattn::into(output[, workspace])`.
template <typename Output, typename Workspace = no_workspace>
struct into_storage {
  Output* output;
  Workspace* workspace;
};

/// Writes the call's output into `output` (n_q x d_v, checked at compile time) instead of returning it.
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(context));`
template <FixedMatrix Output>
[[nodiscard]] constexpr into_storage<Output> into(Output& output) noexcept {
  return {&output, nullptr};
}

/// Writes the call's output into `output` and its intermediates into `workspace` (for firmware: both in .bss).
/// Example: `ctattn::self_attention(x, head, ctattn::into(context, workspace));`
template <FixedMatrix Output, typename Workspace>
[[nodiscard]] constexpr into_storage<Output, Workspace> into(Output& output, Workspace& workspace) noexcept {
  return {&output, &workspace};
}

/// How a call computes at run time: `ctattn::exact_arithmetic` or `ctattn::fast_arithmetic`.
template <arithmetic A>
struct arithmetic_option {
  static constexpr arithmetic value = A;
};
/// Run-time results with static_assert's bits: the scalar kernels, every sum in order (the firmware guarantee).
/// Example: `ctattn::scaled_dot_product_attention(q, k, v, ctattn::exact_arithmetic)`.
inline constexpr arithmetic_option<arithmetic::exact> exact_arithmetic{};
/// The SIMD backend (float), within the bounds of docs/kernels.md of the exact result.
/// Example: `ctattn::multi_head_attention(x, x, x, w, ctattn::fast_arithmetic)`.
inline constexpr arithmetic_option<arithmetic::fast> fast_arithmetic{};

namespace detail {

template <typename T>
inline constexpr bool is_result_form = false;
template <>
inline constexpr bool is_result_form<with_weights_t> = true;
template <typename Output, typename Workspace>
inline constexpr bool is_result_form<into_storage<Output, Workspace>> = true;

template <typename T>
inline constexpr bool is_into = false;
template <typename Output, typename Workspace>
inline constexpr bool is_into<into_storage<Output, Workspace>> = true;

// The first option that satisfies Pick, or Default.
template <template <typename> class Pick, typename Default, typename... Options>
struct first_option {
  using type = Default;
};
template <template <typename> class Pick, typename Default, typename Option, typename... Options>
struct first_option<Pick, Default, Option, Options...>
    : std::conditional_t<Pick<Option>::value, std::type_identity<Option>, first_option<Pick, Default, Options...>> {};

template <typename T>
struct is_mask_option : std::bool_constant<AttentionMask<T>> {};
template <typename T>
struct is_result_option : std::bool_constant<is_result_form<T>> {};
template <typename T>
inline constexpr bool is_arithmetic_option = false;
template <arithmetic A>
inline constexpr bool is_arithmetic_option<arithmetic_option<A>> = true;
template <typename T>
struct is_arithmetic_choice : std::bool_constant<is_arithmetic_option<T>> {};

}  // namespace detail

namespace shape_error {

/// After its operands an attention call takes at most one mask, at most one result form and at most one
/// arithmetic, and nothing else.
template <typename Operation, typename... Options>
struct options_must_be_one_of_each_kind {
  static constexpr std::size_t masks = (std::size_t{0} + ... + (AttentionMask<Options> ? 1 : 0));
  static constexpr std::size_t forms = (std::size_t{0} + ... + (detail::is_result_form<Options> ? 1 : 0));
  static constexpr std::size_t arithmetics = (std::size_t{0} + ... + (detail::is_arithmetic_option<Options> ? 1 : 0));
  static constexpr bool holds =
      masks <= 1 && forms <= 1 && arithmetics <= 1 && masks + forms + arithmetics == sizeof...(Options);
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: after its operands an attention call takes at most one mask (ctattn::causal, ...), at most "
                  "one result form (ctattn::with_weights, or ctattn::into(output[, workspace])) and at most one "
                  "arithmetic (ctattn::exact_arithmetic or ctattn::fast_arithmetic), in any order");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

/// What the options of a call say: its mask type, its result form and its arithmetic.
template <typename... Options>
struct call_options {
  using mask_type = typename first_option<is_mask_option, no_mask_type, Options...>::type;
  using form_type = typename first_option<is_result_option, void, Options...>::type;
  static constexpr arithmetic arithmetic_kind =
      first_option<is_arithmetic_choice, arithmetic_option<default_arithmetic>, Options...>::type::value;
  static constexpr bool returns_weights = std::is_same_v<form_type, with_weights_t>;
  static constexpr bool writes_into = is_into<form_type>;
};

/// The first option whose type satisfies Pick (`Pick<T>::value`; one must be there).
template <template <typename> class Pick, typename First, typename... Rest>
constexpr const auto& find_first(const First& first, const Rest&... rest) noexcept {
  if constexpr (Pick<First>::value) {
    return first;
  } else {
    return find_first<Pick>(rest...);
  }
}

template <typename T>
struct is_option_of_type {
  template <typename U>
  using pick = std::is_same<U, T>;
};

/// The first option of type T (one must be there).
template <typename T, typename... Options>
constexpr const T& find_option(const Options&... options) noexcept {
  return find_first<is_option_of_type<T>::template pick>(options...);
}

/// The mask among the options (`no_mask` when none is given).
template <typename... Options>
constexpr const auto& mask_of(const Options&... options) noexcept {
  if constexpr ((AttentionMask<Options> || ...)) {
    return find_option<typename call_options<Options...>::mask_type>(options...);
  } else {
    return no_mask;
  }
}

}  // namespace detail
}  // namespace ctattn

#endif  // CTATTN_ATTENTION_OPTIONS_HPP
// ---------------------------------------- ctattn/attention/scaled_dot_product.hpp (continued)

namespace ctattn {

/// Whether queries Q, keys K and values V can meet in scaled dot-product attention: the same element type,
/// Q's width (d_q) matches K's width (d_k), and K and V have matching rows (n_kv). n_q, n_kv and d_v are free.
/// The rules are `detail::attention_rules` (ctattn/attention/rules.hpp).
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionCompatible<ctattn::matrix<float, 6, 24>, ctattn::matrix<float, 9, 24>,
///                                             ctattn::matrix<float, 9, 28>>);
/// \endcode
template <typename Q, typename K, typename V, typename Mask = no_mask_type>
concept AttentionCompatible =
    FixedMatrix<Q> && FixedMatrix<K> && FixedMatrix<V> && AttentionMask<Mask> &&
    rules_hold<detail::attention_rules<op::scaled_dot_product_attention, std::remove_cvref_t<Q>, std::remove_cvref_t<K>,
                                       std::remove_cvref_t<V>, Mask>>;

/// The output of attention together with its attention weights (for study and pictures).
///
/// | member    | shape       |
/// |-----------|-------------|
/// | `output`  | n_q x d_v   |
/// | `weights` | n_q x n_kv  (rows sum to 1, or are zero for a query that sees no key) |
template <typename Output, typename Weights>
struct attention_result {
  Output output;
  Weights weights;
};

namespace detail {

/// The divisor of the scores: sqrt(d_k), correctly rounded. The reference text divides by sqrt(d_k); so do
/// we (a true division), rather than multiplying by a rounded reciprocal.
template <typename T, std::size_t DK>
inline constexpr T score_divisor = math::sqrt(static_cast<T>(DK));

}  // namespace detail

namespace detail {

template <typename Out>
constexpr void zero(Out& output) noexcept {
  for (std::size_t i = 0; i < Out::rows; ++i) {
    for (std::size_t j = 0; j < Out::cols; ++j) output.elements[i][j] = typename Out::value_type{0};
  }
}

// Whether `a` and `b` are one object (only possible when their types are the same).
template <typename A, typename B>
constexpr bool same_object(const A& a, const B& b) noexcept {
  if constexpr (std::is_same_v<A, B>) {
    return &a == &b;
  } else {
    (void)a;
    (void)b;
    return false;
  }
}

// The rules of an `into` form: the output against the result (n_q rows; d_v columns, h * d_v when `Heads`
// outputs are concatenated; one element type), and the workspace against the one the operation needs. No rule
// when the call returns its result.
template <typename Op, typename Form, typename Q, typename V, typename RequiredWorkspace, std::size_t Heads = 1>
struct into_rules_of {
  using type = rule_list<>;
};
template <typename Op, typename Output, typename Workspace, typename Q, typename V, typename RequiredWorkspace,
          std::size_t Heads>
struct into_rules_of<Op, into_storage<Output, Workspace>, Q, V, RequiredWorkspace, Heads> {
  using type = rule_list<output_rules<Op, Output, Q, V, Heads>,
                         shape_error::workspace_must_match_attention<Op, Workspace, RequiredWorkspace>>;
};
template <typename Op, typename Form, typename Q, typename V, typename RequiredWorkspace, std::size_t Heads = 1>
using into_rules = typename into_rules_of<Op, Form, Q, V, RequiredWorkspace, Heads>::type;

/// The rules of `scaled_dot_product_attention(q, k, v, options...)`.
template <typename Q, typename K, typename V, typename... Options>
using scaled_dot_product_rules = rule_list<
    shape_error::options_must_be_one_of_each_kind<op::scaled_dot_product_attention, Options...>,
    attention_rules<op::scaled_dot_product_attention, Q, K, V, typename call_options<Options...>::mask_type>,
    into_rules<op::scaled_dot_product_attention, typename call_options<Options...>::form_type, Q, V, no_workspace>>;

template <typename Q, typename K, typename V, typename... Options>
constexpr auto scaled_dot_product(const Q& q, const K& k, const V& v, const Options&... options) noexcept {
  using form = call_options<Options...>;
  using T = typename Q::value_type;
  using output_type = basic_matrix<T, Q::row_extent, V::column_extent>;
  using weights_type = basic_matrix<T, Q::row_extent, K::row_extent>;
  constexpr bool rules_hold = first_broken<scaled_dot_product_rules<Q, K, V, Options...>>::check();
  constexpr head_columns whole{0, 0, 0, 0};
  if constexpr (form::writes_into) {
    if constexpr (rules_hold) {
      auto& output = *find_option<typename form::form_type>(options...).output;
      expects(!same_object(output, v) && !same_object(output, q));
      zero(output);
      weights_type* no_weights = nullptr;
      kernels::attend<form::arithmetic_kind, false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights,
                                                                      whole, score_divisor<T, Q::cols>);
    }
  } else if constexpr (form::returns_weights) {
    attention_result<output_type, weights_type> result{};
    if constexpr (rules_hold) {
      kernels::attend<form::arithmetic_kind, true, Q::cols, V::cols>(q, k, v, mask_of(options...), result.output,
                                                                     &result.weights, whole, score_divisor<T, Q::cols>);
    }
    return result;
  } else {
    output_type output{};
    if constexpr (rules_hold) {
      weights_type* no_weights = nullptr;
      kernels::attend<form::arithmetic_kind, false, Q::cols, V::cols>(q, k, v, mask_of(options...), output, no_weights,
                                                                      whole, score_divisor<T, Q::cols>);
    }
    return output;
  }
}

}  // namespace detail

/// Scaled dot-product attention softmax(Q K^T / sqrt(d_k)) V. After the operands, in any order: a mask, the
/// result's form and the arithmetic (see ctattn/attention/options.hpp).
///
/// | operand / option        | shape                                                        |
/// |-------------------------|--------------------------------------------------------------|
/// | `q`                     | n_q x d_k                                                    |
/// | `k`                     | n_kv x d_k                                                   |
/// | `v`                     | n_kv x d_v                                                   |
/// | a mask                  | see ctattn/attention/mask.hpp; checked against n_q x n_kv    |
/// | result                  | n_q x d_v                                                    |
/// | `ctattn::with_weights`  | result `{.output = n_q x d_v, .weights = n_q x n_kv}` (rows sum to 1, or are zero for a query that sees no key) |
/// | `ctattn::into(output)`  | writes n_q x d_v into `output` (not `q` or `v`), returns nothing; nothing of matrix size on the stack |
///
/// Rules (compile errors naming both dimensions): d_q = d_k (sizes, and names when both are named); K and V
/// have matching rows; one element type; the mask fits the scores; an `into` output has the result's shape.
/// n_q may differ from n_kv (cross-attention); d_v is free. The softmax is numerically stable, and a query that
/// sees no key gets a zero row.
///
/// Exact arithmetic (constant evaluation; at run time `ctattn::exact_arithmetic` or `CTATTN_EXACT_ARITHMETIC=1`):
/// each score is the dot product summed over d_k in order, divided by sqrt(d_k); each output row is the sum over
/// keys in order of weight times value row; every form computes the same bits. Fast arithmetic (the default at run
/// time where a SIMD backend exists, float): one fused pass per block of queries with an online softmax, never the
/// n_q x n_kv scores (except into the weights `with_weights` returns), within docs/kernels.md's bound of exact.
///
/// Example:
/// \code
///   auto context = ctattn::scaled_dot_product_attention(q, k, v);               // self- or cross-attention
///   auto causal  = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal);
///   auto [out, weights] = ctattn::scaled_dot_product_attention(q, k, v, ctattn::causal, ctattn::with_weights);
///   ctattn::scaled_dot_product_attention(q, k, v, ctattn::into(context_in_bss));
/// \endcode
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Options&... options) noexcept {
  return detail::scaled_dot_product(q, k, v, options...);
}

/// \copydoc scaled_dot_product_attention
// Rationale: the `into` form returns nothing, and [[nodiscard]] cannot depend on an argument; this overload is
// the same call without it.
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void scaled_dot_product_attention(const Q& q, const K& k, const V& v, const Options&... options) noexcept {
  detail::scaled_dot_product(q, k, v, options...);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_SCALED_DOT_PRODUCT_HPP
// ---------------------------------------- ctattn/attention/attention_head.hpp (continued)
// ---------------------------------------- ctattn/attention/workspace.hpp
#ifndef CTATTN_ATTENTION_WORKSPACE_HPP
#define CTATTN_ATTENTION_WORKSPACE_HPP

/// \file
/// The workspaces of attention that writes into storage the caller provides, `ctattn::into(output, workspace)`
/// (see ctattn/attention/options.hpp): the projected queries, keys and values of one head. Nothing is returned by
/// value, so nothing of matrix size lands on the stack: firmware keeps the workspace and the output in static
/// storage (.bss) and the weights in flash. The only stack the kernel needs is two row buffers of n_kv elements
/// (see ctattn/attention/footprint.hpp).
///
/// | call                                                                  | workspace                                  |
/// |-----------------------------------------------------------------------|--------------------------------------------|
/// | `scaled_dot_product_attention(q, k, v, mask, into(out))`              | none                                       |
/// | `self_attention(x, head, mask, into(out, ws))`                        | `self_attention_workspace<X, Head>`        |
/// | `cross_attention(x_q, x_kv, head, mask, into(out, ws))`               | `cross_attention_workspace<XQ, XKV, Head>` |
/// | `wide_multi_head_attention(x_q, x_kv, heads, mask, into(out, ws))`    | `cross_attention_workspace<XQ, XKV, Head>` |
/// | `multi_head_attention(q_in, k_in, v_in, w, mask, into(out, ws))`      | `multi_head_workspace<XQ, XKV, W>`         |
///
/// The calls follow the value-returning forms' rules (the same diagnostics), plus two of their own: the output
/// has the result's shape and element type, and the workspace was declared for this configuration.



namespace ctattn {

/// The intermediates of one attention head, in storage the caller owns: the projected queries, keys and values.
/// Declare it static (or global) in firmware so that it sits in .bss; reuse it for every call of the same
/// configuration. Usually spelled through `self_attention_workspace` or `cross_attention_workspace`.
///
/// | member    | shape       |
/// |-----------|-------------|
/// | `queries` | n_q x d_k   |
/// | `keys`    | n_kv x d_k  |
/// | `values`  | n_kv x d_v  |
///
/// Its contents after a call are the call's Q, K and V (useful for study and tests); their previous values
/// are never read.
///
/// Example:
/// \code
///   static ctattn::attention_workspace<float, seq{6}, seq{6}, d_k{24}, d_v{28}> ws;   // 6*24 + 6*24 + 6*28 floats
/// \endcode
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct basic_attention_workspace {
  using value_type = T;
  using queries_type = matrix<T, NQ, DK>;
  using keys_type = matrix<T, NKV, DK>;
  using values_type = matrix<T, NKV, DV>;

  queries_type queries;
  keys_type keys;
  values_type values;
};

/// `attention_workspace<T, NQ, NKV, DK, DV>`: extents normalized (one shape, one type).
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
using attention_workspace = basic_attention_workspace<T, normalize_extent<NQ>, normalize_extent<NKV>,
                                                      normalize_extent<DK>, normalize_extent<DV>>;

namespace detail {

template <typename W>
struct is_attention_workspace : std::false_type {};
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct is_attention_workspace<basic_attention_workspace<T, NQ, NKV, DK, DV>> : std::true_type {};

// What `self_attention` and friends need of a head: three projections named query, key and value.
template <typename Head>
concept head_projections = requires {
  requires Projection<decltype(Head::query)>;
  requires Projection<decltype(Head::key)>;
  requires Projection<decltype(Head::value)>;
};

}  // namespace detail

namespace shape_error {

/// One attention head is three projections, query, key and value (as `ctattn::attention_head`); multi-head
/// weights, which also hold the output projection W_O, are not one head.
template <typename Operation, typename Head>
struct argument_must_be_one_attention_head {
  static constexpr bool holds = detail::head_projections<Head> && !requires { Head::output; };
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: this call takes one attention head (query, key and value projections, as "
                  "ctattn::attention_head); multi-head weights also hold W_O: pass them to "
                  "ctattn::multi_head_attention instead");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {

template <typename Head>
using query_projection = std::remove_cvref_t<decltype(Head::query)>;
template <typename Head>
using key_projection = std::remove_cvref_t<decltype(Head::key)>;
template <typename Head>
using value_projection = std::remove_cvref_t<decltype(Head::value)>;
// The output projection W_O of multi-head weights.
template <typename W>
using output_projection = std::remove_cvref_t<decltype(W::output)>;

// The workspace of a head applied to queries from XQ and keys and values from XKV: what `project` returns.
template <typename XQ, typename XKV, typename Head>
using head_workspace =
    attention_workspace<typename XQ::value_type, XQ::row_extent, XKV::row_extent, query_projection<Head>::output_extent,
                        value_projection<Head>::output_extent>;

}  // namespace detail

/// Any `ctattn::attention_workspace`.
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionWorkspace<ctattn::self_attention_workspace<decltype(x), head_type>>);
/// \endcode
template <typename W>
concept AttentionWorkspace = detail::is_attention_workspace<std::remove_cvref_t<W>>::value;

/// The workspace of self-attention of X (n x d_model) through Head (d_model -> d_k, d_k, d_v): Q is n x d_k,
/// K n x d_k, V n x d_v, with X's and the head's named dimensions.
///
/// | member    | shape      |
/// |-----------|------------|
/// | `queries` | n x d_k    |
/// | `keys`    | n x d_k    |
/// | `values`  | n x d_v    |
///
/// Example (the worked example: 6 x 16 input, d_k = 24, d_v = 28; 1824 bytes in .bss):
/// \code
///   static ctattn::self_attention_workspace<decltype(x), head_type> workspace;
///   static ctattn::matrix<float, seq{6}, d_v{28}> context;
///   ctattn::self_attention(x, head, ctattn::into(context, workspace));
/// \endcode
template <FixedMatrix X, detail::head_projections Head>
using self_attention_workspace = detail::head_workspace<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head>;

/// The workspace of cross-attention: queries from XQ (n_q x d_model), keys and values from XKV (n_kv x d_model).
/// Also the workspace of wide multi-head attention, whose heads use it one after another.
///
/// | member    | shape        |
/// |-----------|--------------|
/// | `queries` | n_q x d_k    |
/// | `keys`    | n_kv x d_k   |
/// | `values`  | n_kv x d_v   |
///
/// Example:
/// \code
///   static ctattn::cross_attention_workspace<decltype(decoder_tokens), decltype(encoder_tokens), head_type> ws;
///   ctattn::cross_attention(decoder_tokens, encoder_tokens, head, ctattn::into(context, ws));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head>
using cross_attention_workspace = detail::head_workspace<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head>;

namespace detail {

// Two workspaces are interchangeable when their members have the same types (`attention_workspace<float, 6, ...>`
// and `attention_workspace<float, std::size_t{6}, ...>` are): their shapes, as named in a diagnostic.
template <typename W>
struct workspace_shape_of_impl {
  using type = W;  // `no_workspace`, or a type that is no attention workspace: named as it is
};
template <typename T, auto NQ, auto NKV, auto DK, auto DV>
struct workspace_shape_of_impl<basic_attention_workspace<T, NQ, NKV, DK, DV>> {
  using W = basic_attention_workspace<T, NQ, NKV, DK, DV>;
  using type =
      workspace_shape<typename W::value_type, dim_of<W::queries_type::row_extent>, dim_of<W::keys_type::row_extent>,
                      dim_of<W::keys_type::column_extent>, dim_of<W::values_type::column_extent>>;
};
template <typename W>
using workspace_shape_of = typename workspace_shape_of_impl<W>::type;

// The rules of attention through one head: it is one head, then each input against its projection.
// Rationale: a struct rather than an alias, so that the projection rules are formed only for a type that has
// projections; anything else gets the head rule alone, and with it one error.
template <typename Op, typename XQ, typename XKV, typename Head, bool = head_projections<Head>>
struct head_rules_of {
  using type = rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>>;
};
template <typename Op, typename XQ, typename XKV, typename Head>
struct head_rules_of<Op, XQ, XKV, Head, true> {
  using type = rule_list<shape_error::argument_must_be_one_attention_head<Op, Head>,
                         projection_rules<XQ, query_projection<Head>>, projection_rules<XKV, key_projection<Head>>,
                         projection_rules<XKV, value_projection<Head>>>;
};
template <typename Op, typename XQ, typename XKV, typename Head>
using head_rules = typename head_rules_of<Op, XQ, XKV, Head>::type;

// Every rule of attention through one head into caller storage: the head's (above), the attention's over its Q, K
// and V, then the output's and the workspace's. For a type that is no head, the head rule alone.
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads = 1, bool = head_projections<Head>>
struct head_into_rules_of {
  using type = head_rules<Op, XQ, XKV, Head>;
};
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads>
struct head_into_rules_of<Op, Out, XQ, XKV, Head, W, Mask, Heads, true> {
  using workspace = head_workspace<XQ, XKV, Head>;
  using keys = basic_matrix<typename XKV::value_type, XKV::row_extent, key_projection<Head>::output_extent>;
  using type =
      rule_list<head_rules<Op, XQ, XKV, Head>,
                attention_rules<op::scaled_dot_product_attention, typename workspace::queries_type, keys,
                                typename workspace::values_type, Mask>,
                output_rules<Op, Out, typename workspace::queries_type, typename workspace::values_type, Heads>,
                shape_error::workspace_must_match_attention<Op, workspace_shape_of<W>, workspace_shape_of<workspace>>>;
};
template <typename Op, typename Out, typename XQ, typename XKV, typename Head, typename W, typename Mask,
          std::size_t Heads = 1>
using head_into_rules = typename head_into_rules_of<Op, Out, XQ, XKV, Head, W, Mask, Heads>::type;

// One head's Q, K and V into the workspace.
template <arithmetic A, typename XQ, typename XKV, typename Head, typename W>
constexpr void project_head(const XQ& x_q, const XKV& x_kv, const Head& head, W& workspace) noexcept {
  project_rows<A>(workspace.queries, x_q, head.query);
  project_rows<A>(workspace.keys, x_kv, head.key);
  project_rows<A>(workspace.values, x_kv, head.value);
}

// Attention over the workspace's Q, K and V into the output's columns [offset, offset + d_v), which must hold +0
// (the kernel accumulates).
template <arithmetic A, typename Out, typename W, typename Mask>
constexpr void attend_head(Out& output, const W& workspace, const Mask& mask, std::size_t output_offset) noexcept {
  using T = typename W::value_type;
  using Q = typename W::queries_type;
  using V = typename W::values_type;
  basic_matrix<T, Q::row_extent, W::keys_type::row_extent>* no_weights = nullptr;
  kernels::attend<A, false, Q::cols, V::cols>(workspace.queries, workspace.keys, workspace.values, mask, output,
                                              no_weights, {0, 0, 0, output_offset}, score_divisor<T, Q::cols>);
}

}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_WORKSPACE_HPP
// ---------------------------------------- ctattn/attention/attention_head.hpp (continued)

namespace ctattn {

/// Whether `Head` is one attention head: query, key and value projections and no output projection (multi-head
/// weights are not one head). The rule is `shape_error::argument_must_be_one_attention_head`.
///
/// Example:
/// \code
///   static_assert(ctattn::AttentionHead<ctattn::attention_head<float, 16, 24, 28>>);
///   static_assert(!ctattn::AttentionHead<ctattn::multi_head_attention_weights<float, 4, 16>>);
/// \endcode
template <typename Head>
concept AttentionHead = rules_hold<
    rule_list<shape_error::argument_must_be_one_attention_head<op::self_attention, std::remove_cvref_t<Head>>>>;

/// One attention head: the projections W_Q, W_K (d_model -> d_k) and W_V (d_model -> d_v), with optional
/// biases, in a named weight layout.
///
/// | member  | projection         |
/// |---------|--------------------|
/// | `query` | d_model -> d_k     |
/// | `key`   | d_model -> d_k     |
/// | `value` | d_model -> d_v     |
///
/// Example (the reference text's worked example, weights as torch.rand(24, 16) stores them):
/// \code
///   ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in> head{
///       .query = {ctattn::from_array<d_k{24}, d_model{16}>(w_query)},
///       .key = {ctattn::from_array<d_k{24}, d_model{16}>(w_key)},
///       .value = {ctattn::from_array<d_v{28}, d_model{16}>(w_value)}};
///   auto context = ctattn::self_attention(x, head);   // seq x d_v
/// \endcode
template <Scalar T, auto DModel, auto DK, auto DV, WeightLayout Layout = in_by_out, bool HasBias = false>
struct basic_attention_head {
  linear<T, DModel, DK, Layout, HasBias> query;
  linear<T, DModel, DK, Layout, HasBias> key;
  linear<T, DModel, DV, Layout, HasBias> value;

  friend constexpr bool operator==(const basic_attention_head&, const basic_attention_head&) = default;
};

/// `attention_head<T, DModel, DK, DV, Layout, HasBias>`: the head users write; extents normalized (one shape,
/// one type).
template <typename T, auto DModel, auto DK, auto DV, WeightLayout Layout = in_by_out, bool HasBias = false>
using attention_head =
    basic_attention_head<T, normalize_extent<DModel>, normalize_extent<DK>, normalize_extent<DV>, Layout, HasBias>;

namespace detail {

// Attention through one head: Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V, then attention. Returned, returned with
// the weights, or written into caller storage with the intermediates in a workspace.
template <typename Op, typename XQ, typename XKV, typename Head, typename... Options>
constexpr auto head_attention(const XQ& x_q, const XKV& x_kv, const Head& head, const Options&... options) noexcept {
  using form = call_options<Options...>;
  if constexpr (form::writes_into) {
    using into_type = typename form::form_type;
    using output_type = std::remove_pointer_t<decltype(into_type::output)>;
    using workspace_type = std::remove_pointer_t<decltype(into_type::workspace)>;
    using rules = rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                            shape_error::argument_must_be_one_attention_head<Op, Head>,
                            head_into_rules<Op, output_type, XQ, XKV, Head, workspace_type, typename form::mask_type>>;
    if constexpr (first_broken<rules>::check()) {
      const into_type& into = find_option<into_type>(options...);
      project_head<form::arithmetic_kind>(x_q, x_kv, head, *into.workspace);
      zero(*into.output);
      attend_head<form::arithmetic_kind>(*into.output, *into.workspace, mask_of(options...), 0);
    }
  } else {
    using rules =
        rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>, head_rules<Op, XQ, XKV, Head>>;
    if constexpr (first_broken<rules>::check()) {
      constexpr arithmetic a = form::arithmetic_kind;
      return scaled_dot_product_attention(projected<a>(x_q, head.query), projected<a>(x_kv, head.key),
                                          projected<a>(x_kv, head.value), options...);
    } else {
      return basic_matrix<typename XQ::value_type, XQ::row_extent, std::size_t{1}>{};
    }
  }
}

}  // namespace detail

/// Self-attention: Q = X W_Q, K = X W_K, V = X W_V, then softmax(Q K^T / sqrt(d_k)) V. After the operands, in
/// any order: a mask and the result's form (ctattn/attention/options.hpp).
///
/// | operand / option                   | shape                                              |
/// |------------------------------------|----------------------------------------------------|
/// | `x`                                | n x d_model                                        |
/// | `head`                             | one attention head: d_model -> d_k, d_k, d_v       |
/// | result                             | n x d_v                                            |
/// | `ctattn::with_weights`             | `{.output = n x d_v, .weights = n x n}`            |
/// | `ctattn::into(output, workspace)`  | writes n x d_v into `output` (may be `x`), Q, K, V into `workspace` (`self_attention_workspace<X, Head>`); returns nothing |
///
/// Rules: `head` is one head (multi-head weights are refused: `argument_must_be_one_attention_head`); x's width
/// matches each projection; the mask fits n x n; an `into` output and workspace have the call's shapes. Every
/// form computes the same bits.
///
/// Example:
/// \code
///   auto context = ctattn::self_attention(x, head, ctattn::causal);
///   auto [out, weights] = ctattn::self_attention(x, head, ctattn::with_weights);
///   static ctattn::self_attention_workspace<decltype(x), head_type> workspace;   // firmware: .bss
///   ctattn::self_attention(x, head, ctattn::into(context, workspace));
/// \endcode
template <FixedMatrix X, typename Head, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto self_attention(const X& x, const Head& head, const Options&... options) noexcept {
  return detail::head_attention<op::self_attention>(x, x, head, options...);
}

/// \copydoc self_attention
template <FixedMatrix X, typename Head, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void self_attention(const X& x, const Head& head, const Options&... options) noexcept {
  detail::head_attention<op::self_attention>(x, x, head, options...);
}

/// Cross-attention: queries from one sequence, keys and values from another of a different length but the same
/// width. Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V. Options as for `self_attention`.
///
/// | operand / option                   | shape                                              |
/// |------------------------------------|----------------------------------------------------|
/// | `x_q`                              | n_q x d_model                                      |
/// | `x_kv`                             | n_kv x d_model                                     |
/// | result                             | n_q x d_v                                          |
/// | `ctattn::with_weights`             | `{.output = n_q x d_v, .weights = n_q x n_kv}`     |
/// | `ctattn::into(output, workspace)`  | writes n_q x d_v into `output` (may be `x_q` or `x_kv`), Q, K, V into `workspace` (`cross_attention_workspace<XQ, XKV, Head>`) |
///
/// Example:
/// \code
///   auto context = ctattn::cross_attention(decoder_tokens, encoder_tokens, head);
///   ctattn::cross_attention(decoder_tokens, encoder_tokens, head, ctattn::into(context, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto cross_attention(const XQ& x_q, const XKV& x_kv, const Head& head,
                                             const Options&... options) noexcept {
  return detail::head_attention<op::cross_attention>(x_q, x_kv, head, options...);
}

/// \copydoc cross_attention
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void cross_attention(const XQ& x_q, const XKV& x_kv, const Head& head, const Options&... options) noexcept {
  detail::head_attention<op::cross_attention>(x_q, x_kv, head, options...);
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_ATTENTION_HEAD_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/attention/footprint.hpp
#ifndef CTATTN_ATTENTION_FOOTPRINT_HPP
#define CTATTN_ATTENTION_FOOTPRINT_HPP

/// \file
/// What an attention configuration costs in memory, known at compile time, so that firmware can
/// `static_assert` it against its flash and RAM budgets before anything is flashed:
///
/// \code
///   constexpr ctattn::footprint fp = ctattn::self_attention_footprint<decltype(x), head_type>;
///   static_assert(fp.weight_bytes <= 8 * 1024, "the weights must fit the flash budget");
///   static_assert(fp.ram_bytes() <= 4 * 1024, "activations, workspace and kernel stack must fit the RAM budget");
/// \endcode
///
/// The figures are the sizes of the objects the `ctattn::into(output, workspace)` form of the attention calls works on
/// (the firmware build checks them against the linker's symbol sizes). Footprints compose: `a + b` is a
/// program that holds both configurations' storage and runs them one after the other.


// ---------------------------------------- ctattn/attention/multi_head.hpp
#ifndef CTATTN_ATTENTION_MULTI_HEAD_HPP
#define CTATTN_ATTENTION_MULTI_HEAD_HPP

/// \file
/// Multi-head attention in the reference text's two forms and PyTorch's:
///   - narrow (`multi_head_attention`): d_model is projected once and split into h heads of d_model / h
///     columns; the heads' outputs are concatenated and projected by W_O. With biases and kdim / vdim this is
///     PyTorch's nn.MultiheadAttention (see `from_torch_multihead`).
///   - grouped-query (`grouped_query_attention`): h_q query heads share h_kv key/value heads (multi-query when
///     h_kv = 1).
///   - wide (`wide_multi_head_attention`): each head projects the full input with its own W_Q, W_K, W_V.



namespace ctattn {

/// The output of multi-head attention with the attention weights of every head and their mean (PyTorch's
/// `average_attn_weights=True`).
///
/// | member            | shape                     |
/// |-------------------|---------------------------|
/// | `output`          | n_q x d_out               |
/// | `head_weights[h]` | n_q x n_kv, one per head  |
/// | `mean_weights`    | n_q x n_kv                |
/// | `heads_concat`    | n_q x (h * d_head): the heads' outputs side by side, the input of W_O |
template <typename Output, typename Weights, std::size_t Heads, typename Concat = Output>
struct multi_head_result {
  Output output;
  std::array<Weights, Heads> head_weights;
  Weights mean_weights;
  Concat heads_concat;  // the heads' outputs side by side, before W_O
};

/// The weights of grouped-query attention: h_q query heads and h_kv key/value heads of `HeadDim` columns each,
/// and W_O. `multi_head_attention_weights` is the case h_kv = h_q.
///
/// | member   | projection                       |
/// |----------|----------------------------------|
/// | `query`  | DModel -> h_q * HeadDim          |
/// | `key`    | KDim -> h_kv * HeadDim           |
/// | `value`  | VDim -> h_kv * HeadDim           |
/// | `output` | h_q * HeadDim -> DModel          |
///
/// Rule: h_kv divides h_q (each key/value head serves h_q / h_kv query heads: query head h uses key/value head
/// h / (h_q / h_kv)).
///
/// Example:
/// \code
///   ctattn::grouped_query_attention_weights<float, 4, 2, d_model{16}, 4, ctattn::out_by_in> w{};
///   auto y = ctattn::grouped_query_attention(x, x, x, w, ctattn::causal);
/// \endcode
template <typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          WeightLayout Layout = in_by_out, bool HasBias = false, auto KDim = DModel, auto VDim = DModel>
struct basic_grouped_query_attention_weights {
  /// The rules of the configuration; the attention functions check them again (no second error).
  using rules =
      rule_list<shape_error::count_must_be_positive<op::grouped_query_attention, count<QueryHeads>>,
                shape_error::count_must_be_positive<op::grouped_query_attention, count<KeyValueHeads>>,
                shape_error::count_must_be_positive<op::grouped_query_attention, count<HeadDim>>,
                shape_error::key_value_heads_must_divide_query_heads<op::grouped_query_attention, count<KeyValueHeads>,
                                                                     count<QueryHeads>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  using value_type = T;
  static constexpr std::size_t query_heads = QueryHeads;
  static constexpr std::size_t key_value_heads = KeyValueHeads;
  static constexpr std::size_t head_dim = HeadDim;

  // Rationale: with a broken rule the widths fall back to 1, so that the members stay valid types and the rule's
  // sentence is the only error.
  static constexpr std::size_t query_width = rules_hold<rules> ? QueryHeads * HeadDim : 1;
  static constexpr std::size_t key_value_width = rules_hold<rules> ? KeyValueHeads * HeadDim : 1;

  linear<T, DModel, query_width, Layout, HasBias> query;
  linear<T, KDim, key_value_width, Layout, HasBias> key;
  linear<T, VDim, key_value_width, Layout, HasBias> value;
  linear<T, query_width, DModel, Layout, HasBias> output;

  friend constexpr bool operator==(const basic_grouped_query_attention_weights&,
                                   const basic_grouped_query_attention_weights&) = default;
};

/// `grouped_query_attention_weights<...>`: extents normalized (one shape, one type).
template <typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          WeightLayout Layout = in_by_out, bool HasBias = false, auto KDim = DModel, auto VDim = DModel>
using grouped_query_attention_weights =
    basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, normalize_extent<DModel>, HeadDim, Layout,
                                          HasBias, normalize_extent<KDim>, normalize_extent<VDim>>;

namespace detail {
template <std::size_t Size, std::size_t Heads>
inline constexpr std::size_t head_width = Size / (Heads == 0 ? 1 : Heads);
}  // namespace detail

/// The weights of narrow multi-head attention: d_model split into `Heads` heads of d_model / Heads columns.
/// With `out_by_in` and biases, and KDim / VDim for keys and values of other widths, it holds exactly
/// PyTorch's nn.MultiheadAttention parameters.
///
/// | member   | projection           |
/// |----------|----------------------|
/// | `query`  | DModel -> DModel     |
/// | `key`    | KDim -> DModel       |
/// | `value`  | VDim -> DModel       |
/// | `output` | DModel -> DModel (W_O) |
///
/// Rule: Heads divides DModel (a compile error naming both numbers).
///
/// Example (the reference text's 7 tokens, d_model = 512, 8 heads, Q = X W_Q):
/// \code
///   static ctattn::multi_head_attention_weights<float, 8, d_model{512}> w;   // 4 MiB: static, not the stack
///   static ctattn::matrix<float, seq{7}, d_model{512}> x;
///   auto y = ctattn::multi_head_attention(x, x, x, w);   // 7 x 512
/// \endcode
template <typename T, std::size_t Heads, auto DModel, WeightLayout Layout = in_by_out, bool HasBias = false,
          auto KDim = DModel, auto VDim = DModel>
struct basic_multi_head_attention_weights {
  /// The rules of the configuration; the attention functions check them again (no second error).
  using rules = rule_list<shape_error::count_must_be_positive<op::multi_head_attention, count<Heads>>,
                          shape_error::heads_must_divide_model_width<op::multi_head_attention, count<Heads>,
                                                                     dim_of<normalize_extent<DModel>>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  using value_type = T;
  static constexpr std::size_t query_heads = Heads;
  static constexpr std::size_t key_value_heads = Heads;
  static constexpr std::size_t head_dim = detail::head_width<extent_size(normalize_extent<DModel>), Heads>;

  linear<T, DModel, DModel, Layout, HasBias> query;
  linear<T, KDim, DModel, Layout, HasBias> key;
  linear<T, VDim, DModel, Layout, HasBias> value;
  linear<T, DModel, DModel, Layout, HasBias> output;

  friend constexpr bool operator==(const basic_multi_head_attention_weights&,
                                   const basic_multi_head_attention_weights&) = default;
};

/// `multi_head_attention_weights<T, Heads, DModel, ...>`: extents normalized, so the weights declared with
/// `32` and the ones `from_torch_multihead` returns (`std::size_t{32}`) are one type.
template <typename T, std::size_t Heads, auto DModel, WeightLayout Layout = in_by_out, bool HasBias = false,
          auto KDim = DModel, auto VDim = DModel>
using multi_head_attention_weights =
    basic_multi_head_attention_weights<T, Heads, normalize_extent<DModel>, Layout, HasBias, normalize_extent<KDim>,
                                       normalize_extent<VDim>>;

namespace detail {
// The same multi-head or grouped-query weights type with layout L.
template <typename W, typename L>
struct with_layout_of;
template <typename L, typename T, std::size_t Heads, auto DModel, typename Layout, bool HasBias, auto KDim, auto VDim>
struct with_layout_of<basic_multi_head_attention_weights<T, Heads, DModel, Layout, HasBias, KDim, VDim>, L> {
  using type = basic_multi_head_attention_weights<T, Heads, DModel, L, HasBias, KDim, VDim>;
};
template <typename L, typename T, std::size_t QueryHeads, std::size_t KeyValueHeads, auto DModel, std::size_t HeadDim,
          typename Layout, bool HasBias, auto KDim, auto VDim>
struct with_layout_of<
    basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, DModel, HeadDim, Layout, HasBias, KDim, VDim>,
    L> {
  using type =
      basic_grouped_query_attention_weights<T, QueryHeads, KeyValueHeads, DModel, HeadDim, L, HasBias, KDim, VDim>;
};
}  // namespace detail

/// Multi-head (or grouped-query) weights with every projection stored in layout `L` (see `ctattn::relayout` for
/// one projection): the same attention, the same exact results; on `constexpr` weights the compiler does the
/// transposing.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::relayout<ctattn::in_by_out>(ctattn::from_torch_multihead<4>(in_w, in_b, out_w, out_b));
/// \endcode
template <WeightLayout L, typename W>
  requires requires { typename detail::with_layout_of<W, L>::type; }
[[nodiscard]] constexpr auto relayout(const W& w) noexcept {
  return typename detail::with_layout_of<W, L>::type{relayout<L>(w.query), relayout<L>(w.key), relayout<L>(w.value),
                                                     relayout<L>(w.output)};
}

namespace detail {

/// The rules of multi-head attention: the weights' own, each input against its projection, as many values as
/// keys, and the mask against n_q x n_kv.
template <typename XQ, typename XK, typename XV, typename W, typename Mask>
using multi_head_rules =
    rule_list<typename W::rules, projection_rules<XQ, query_projection<W>>, projection_rules<XK, key_projection<W>>,
              projection_rules<XV, value_projection<W>>,
              shape_error::key_and_value_counts_must_match<op::multi_head_attention, dim_of<XK::row_extent>,
                                                           dim_of<XV::row_extent>>,
              mask_rules<op::multi_head_attention, typename W::value_type, XQ::row_extent, XK::row_extent, Mask>>;

}  // namespace detail

/// The intermediates of multi-head attention in storage the caller owns (`ctattn::into(output, workspace)`): the
/// projected queries, keys and values of every head, and the heads' outputs side by side before W_O. Declare it
/// static in firmware; usually spelled `multi_head_workspace<XQ, XKV, W>`.
///
/// | member         | shape                         |
/// |----------------|-------------------------------|
/// | `queries`      | n_q x (h_q * d_head)          |
/// | `keys`         | n_kv x (h_kv * d_head)        |
/// | `values`       | n_kv x (h_kv * d_head)        |
/// | `heads_concat` | n_q x (h_q * d_head), W_O's input |
///
/// Example:
/// \code
///   static ctattn::multi_head_workspace<decltype(x), decltype(x), decltype(weights)> workspace;
///   ctattn::multi_head_attention(x, x, x, weights, ctattn::into(y, workspace));
/// \endcode
template <typename T, auto NQ, auto NKV, auto QueryWidth, auto KeyWidth, auto ValueWidth, auto ConcatWidth>
struct basic_multi_head_workspace {
  using value_type = T;
  basic_matrix<T, NQ, QueryWidth> queries;
  basic_matrix<T, NKV, KeyWidth> keys;
  basic_matrix<T, NKV, ValueWidth> values;
  basic_matrix<T, NQ, ConcatWidth> heads_concat;
};

/// The workspace of `multi_head_attention(x_q, x_kv, x_kv, W, ..., into(output, workspace))`: queries from XQ,
/// keys and values from sequences with XKV's rows.
template <FixedMatrix XQ, FixedMatrix XKV, typename W>
using multi_head_workspace =
    basic_multi_head_workspace<typename W::value_type, std::remove_cvref_t<XQ>::row_extent,
                               std::remove_cvref_t<XKV>::row_extent, detail::query_projection<W>::output_extent,
                               detail::key_projection<W>::output_extent, detail::value_projection<W>::output_extent,
                               detail::output_projection<W>::input_extent>;

namespace detail {

// What multi-head attention returns: n_q x W_O's output axis.
template <typename XQ, typename W>
using multi_head_output = basic_matrix<typename W::value_type, XQ::row_extent, output_projection<W>::output_extent>;

/// The rules of `multi_head_attention(query, key, value, weights, options...)`.
template <typename XQ, typename XK, typename XV, typename W, typename... Options>
using multi_head_call_rules =
    rule_list<shape_error::options_must_be_one_of_each_kind<op::multi_head_attention, Options...>,
              multi_head_rules<XQ, XK, XV, W, typename call_options<Options...>::mask_type>,
              into_rules<op::multi_head_attention, typename call_options<Options...>::form_type,
                         multi_head_output<XQ, W>, multi_head_output<XQ, W>, multi_head_workspace<XQ, XK, W>>>;

// The mean of every head's attention weights (PyTorch's average_attn_weights=True), summed over heads in order.
template <typename Output, typename Weights, std::size_t Heads, typename Concat>
constexpr void average_head_weights(multi_head_result<Output, Weights, Heads, Concat>& result) noexcept {
  using T = typename Weights::value_type;
  for (std::size_t i = 0; i < Weights::rows; ++i) {
    for (std::size_t j = 0; j < Weights::cols; ++j) {
      T total{0};
      for (std::size_t h = 0; h < Heads; ++h) total += result.head_weights[h].elements[i][j];
      result.mean_weights.elements[i][j] = total / static_cast<T>(Heads);
    }
  }
}

// Every head's attention from projected Q, K, V into the heads' concatenation (which must hold +0).
template <arithmetic A, bool KeepWeights, typename W, typename Q, typename K, typename V, typename Concat,
          typename Mask, typename Weights>
constexpr void attend_heads(const Q& q, const K& k, const V& v, const Mask& mask, Concat& concat,
                            Weights* head_weights) noexcept {
  using T = typename W::value_type;
  constexpr std::size_t head_dim = W::head_dim;
  constexpr std::size_t group = W::query_heads / W::key_value_heads;
  for (std::size_t h = 0; h < W::query_heads; ++h) {
    const std::size_t kv = h / group;
    const head_columns columns{h * head_dim, kv * head_dim, kv * head_dim, h * head_dim};
    if constexpr (KeepWeights) {
      kernels::attend<A, true, head_dim, head_dim>(q, k, v, mask, concat, &head_weights[h], columns,
                                                   score_divisor<T, head_dim>);
    } else {
      kernels::attend<A, false, head_dim, head_dim>(q, k, v, mask, concat, head_weights, columns,
                                                    score_divisor<T, head_dim>);
    }
  }
}

template <typename XQ, typename XK, typename XV, typename W, typename... Options>
constexpr auto multi_head(const XQ& query, const XK& key, const XV& value, const W& w,
                          const Options&... options) noexcept {
  using form = call_options<Options...>;
  using T = typename W::value_type;
  constexpr std::size_t heads = W::query_heads;
  using weights_type = basic_matrix<T, XQ::row_extent, XK::row_extent>;
  using output_type = multi_head_output<XQ, W>;
  // The heads' outputs side by side: W_O's input axis (d_model for narrow heads), so its name is kept.
  using concat_type = basic_matrix<T, XQ::row_extent, output_projection<W>::input_extent>;
  constexpr arithmetic a = form::arithmetic_kind;
  constexpr bool rules_hold = first_broken<multi_head_call_rules<XQ, XK, XV, W, Options...>>::check();
  if constexpr (form::writes_into) {
    if constexpr (rules_hold) {
      const auto& into = find_option<typename form::form_type>(options...);
      auto& workspace = *into.workspace;
      project_rows<a>(workspace.queries, query, w.query);
      project_rows<a>(workspace.keys, key, w.key);
      project_rows<a>(workspace.values, value, w.value);
      zero(workspace.heads_concat);
      weights_type* none = nullptr;
      attend_heads<a, false, W>(workspace.queries, workspace.keys, workspace.values, mask_of(options...),
                                workspace.heads_concat, none);
      project_rows<a>(*into.output, workspace.heads_concat, w.output);
    }
  } else {
    multi_head_result<output_type, weights_type, heads, concat_type> result{};
    if constexpr (rules_hold) {
      const auto q = projected<a>(query, w.query);
      const auto k = projected<a>(key, w.key);
      const auto v = projected<a>(value, w.value);
      if constexpr (form::returns_weights) {
        attend_heads<a, true, W>(q, k, v, mask_of(options...), result.heads_concat, result.head_weights.data());
        average_head_weights(result);
      } else {
        weights_type* none = nullptr;
        attend_heads<a, false, W>(q, k, v, mask_of(options...), result.heads_concat, none);
      }
      project_rows<a>(result.output, result.heads_concat, w.output);
    }
    if constexpr (form::returns_weights) {
      return result;
    } else {
      return result.output;
    }
  }
}

}  // namespace detail

/// Multi-head attention (narrow, or grouped-query when the weights say so): Q = query W_Q, K = key W_K,
/// V = value W_V (plus biases), split into heads of d_model / h columns, attention per head, heads
/// concatenated, then W_O. After the operands, in any order: a mask (applied to every head) and the result's form
/// (ctattn/attention/options.hpp).
///
/// | operand / option                   | shape                                                      |
/// |------------------------------------|------------------------------------------------------------|
/// | `query`                            | n_q x DModel                                               |
/// | `key`                              | n_kv x KDim                                                |
/// | `value`                            | n_kv x VDim                                                |
/// | result                             | n_q x DModel                                               |
/// | `ctattn::with_weights`             | `multi_head_result`: `.output`, `.head_weights[h]` (n_q x n_kv), `.mean_weights`, `.heads_concat` |
/// | `ctattn::into(output, workspace)`  | writes n_q x DModel into `output`, the intermediates into `workspace` (`multi_head_workspace<XQ, XKV, W>`) |
///
/// Rules: the weights' own (heads divide d_model; key/value heads divide query heads); each input's width
/// matches its projection; key and value have matching rows; the mask fits n_q x n_kv; an `into` output and
/// workspace have the call's shapes. Self-attention passes the same matrix three times. Every form computes the
/// same bits.
///
/// Example:
/// \code
///   auto y = ctattn::multi_head_attention(x, x, x, weights, ctattn::causal);
///   auto r = ctattn::multi_head_attention(x, x, x, weights, ctattn::with_weights);   // r.head_weights[0], ...
///   ctattn::multi_head_attention(x, x, x, weights, ctattn::into(y, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto multi_head_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                                  const Options&... options) noexcept {
  return detail::multi_head(query, key, value, weights, options...);
}

/// \copydoc multi_head_attention
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void multi_head_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                    const Options&... options) noexcept {
  detail::multi_head(query, key, value, weights, options...);
}

/// Grouped-query (and multi-query) attention: `multi_head_attention` with `grouped_query_attention_weights`, the
/// same options. Example: `auto y = ctattn::grouped_query_attention(x, x, x, gqa_weights, ctattn::causal);`
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto grouped_query_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                                     const Options&... options) noexcept {
  return detail::multi_head(query, key, value, weights, options...);
}

/// \copydoc grouped_query_attention
template <FixedMatrix XQ, FixedMatrix XK, FixedMatrix XV, typename W, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void grouped_query_attention(const XQ& query, const XK& key, const XV& value, const W& weights,
                                       const Options&... options) noexcept {
  detail::multi_head(query, key, value, weights, options...);
}

/// PyTorch's nn.MultiheadAttention parameters as ctattn weights (embed_dim = E, kdim = vdim = E): the packed
/// `in_proj_weight` (3E x E) and `in_proj_bias` (3E) are split into W_Q, W_K, W_V in torch's out x in layout.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::from_torch_multihead<2>(in_proj_weight, in_proj_bias, out_proj_weight,
///                                                      out_proj_bias);
/// \endcode
template <std::size_t Heads, typename T, std::size_t E>
[[nodiscard]] constexpr multi_head_attention_weights<T, Heads, E, out_by_in, true> from_torch_multihead(
    const T (&in_proj_weight)[3 * E][E], const T (&in_proj_bias)[3 * E], const T (&out_proj_weight)[E][E],
    const T (&out_proj_bias)[E]) noexcept {
  multi_head_attention_weights<T, Heads, E, out_by_in, true> w{};
  for (std::size_t o = 0; o < E; ++o) {
    for (std::size_t c = 0; c < E; ++c) {
      w.query.weight.elements[o][c] = in_proj_weight[o][c];
      w.key.weight.elements[o][c] = in_proj_weight[E + o][c];
      w.value.weight.elements[o][c] = in_proj_weight[2 * E + o][c];
      w.output.weight.elements[o][c] = out_proj_weight[o][c];
    }
    w.query.bias.elements[0][o] = in_proj_bias[o];
    w.key.bias.elements[0][o] = in_proj_bias[E + o];
    w.value.bias.elements[0][o] = in_proj_bias[2 * E + o];
    w.output.bias.elements[0][o] = out_proj_bias[o];
  }
  return w;
}

/// PyTorch's nn.MultiheadAttention parameters when kdim or vdim differs from embed_dim: torch then keeps
/// `q_proj_weight` (E x E), `k_proj_weight` (E x kdim) and `v_proj_weight` (E x vdim) apart, with the packed
/// `in_proj_bias` (3E). The result holds them in torch's out x in layout, key and value inputs of kdim and vdim
/// features.
///
/// Example:
/// \code
///   constexpr auto w = ctattn::from_torch_multihead<2>(q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias,
///                                                      out_proj_weight, out_proj_bias);   // kdim 6, vdim 4
/// \endcode
template <std::size_t Heads, typename T, std::size_t E, std::size_t KDim, std::size_t VDim>
[[nodiscard]] constexpr multi_head_attention_weights<T, Heads, E, out_by_in, true, KDim, VDim> from_torch_multihead(
    const T (&q_proj_weight)[E][E], const T (&k_proj_weight)[E][KDim], const T (&v_proj_weight)[E][VDim],
    const T (&in_proj_bias)[3 * E], const T (&out_proj_weight)[E][E], const T (&out_proj_bias)[E]) noexcept {
  multi_head_attention_weights<T, Heads, E, out_by_in, true, KDim, VDim> w{};
  for (std::size_t o = 0; o < E; ++o) {
    for (std::size_t c = 0; c < E; ++c) w.query.weight.elements[o][c] = q_proj_weight[o][c];
    for (std::size_t c = 0; c < KDim; ++c) w.key.weight.elements[o][c] = k_proj_weight[o][c];
    for (std::size_t c = 0; c < VDim; ++c) w.value.weight.elements[o][c] = v_proj_weight[o][c];
    for (std::size_t c = 0; c < E; ++c) w.output.weight.elements[o][c] = out_proj_weight[o][c];
    w.query.bias.elements[0][o] = in_proj_bias[o];
    w.key.bias.elements[0][o] = in_proj_bias[E + o];
    w.value.bias.elements[0][o] = in_proj_bias[2 * E + o];
    w.output.bias.elements[0][o] = out_proj_bias[o];
  }
  return w;
}

namespace detail {

template <typename Op, typename XQ, typename XKV, typename Head, std::size_t H, typename... Options>
constexpr auto wide_heads(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                          const Options&... options) noexcept {
  using form = call_options<Options...>;
  if constexpr (form::writes_into) {
    using into_type = typename form::form_type;
    using output_type = std::remove_pointer_t<decltype(into_type::output)>;
    using workspace_type = std::remove_pointer_t<decltype(into_type::workspace)>;
    using rules =
        rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                  shape_error::count_must_be_positive<Op, count<H>>,
                  head_into_rules<Op, output_type, XQ, XKV, Head, workspace_type, typename form::mask_type, H>>;
    if constexpr (first_broken<rules>::check()) {
      const into_type& into = find_option<into_type>(options...);
      output_type& output = *into.output;
      workspace_type& workspace = *into.workspace;
      const auto& mask = mask_of(options...);
      expects(!same_object(output, x_q) && !same_object(output, x_kv));
      constexpr std::size_t d_v = workspace_type::values_type::cols;
      zero(output);
      for (std::size_t h = 0; h < H; ++h) {
        project_head<form::arithmetic_kind>(x_q, x_kv, heads[h], workspace);
        attend_head<form::arithmetic_kind>(output, workspace, mask, h * d_v);
      }
    }
  } else {
    using rules = rule_list<shape_error::options_must_be_one_of_each_kind<Op, Options...>,
                            shape_error::count_must_be_positive<Op, count<H>>>;
    constexpr arithmetic_option<form::arithmetic_kind> how{};
    using context = decltype(cross_attention(x_q, x_kv, heads[0], mask_of(options...), how));
    using T = typename context::value_type;
    constexpr std::size_t d_v = context::cols;
    using concat_type = basic_matrix<T, context::row_extent, H * d_v>;
    using weights_type = basic_matrix<T, XQ::row_extent, XKV::row_extent>;
    multi_head_result<concat_type, weights_type, H, concat_type> result{};
    if constexpr (first_broken<rules>::check()) {
      for (std::size_t h = 0; h < H; ++h) {
        context c{};
        if constexpr (form::returns_weights) {
          const auto with = cross_attention(x_q, x_kv, heads[h], mask_of(options...), with_weights, how);
          c = with.output;
          result.head_weights[h] = with.weights;
        } else {
          c = cross_attention(x_q, x_kv, heads[h], mask_of(options...), how);
        }
        for (std::size_t i = 0; i < context::rows; ++i) {
          for (std::size_t j = 0; j < d_v; ++j) result.output.elements[i][h * d_v + j] = c.elements[i][j];
        }
      }
      if constexpr (form::returns_weights) {
        result.heads_concat = result.output;
        average_head_weights(result);
      }
    }
    if constexpr (form::returns_weights) {
      return result;
    } else {
      return result.output;
    }
  }
}

}  // namespace detail

/// Wide multi-head attention (the reference text's h x d_q x d form): every head projects the full input with
/// its own W_Q, W_K, W_V; the heads' outputs are concatenated.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `x_q`   | n_q x d_model         |
/// | `x_kv`  | n_kv x d_model        |
/// | `heads` | h attention heads (d_model -> d_k, d_k, d_v) |
/// | result  | n_q x (h * d_v)       |
/// | `ctattn::with_weights` | `multi_head_result`: `.output` (n_q x h * d_v), `.head_weights[h]`, `.mean_weights` |
/// | `ctattn::into(output, workspace)` | writes n_q x (h * d_v) into `output` (neither input), one head's Q, K, V at a time into `workspace` (`cross_attention_workspace<XQ, XKV, Head>`) |
///
/// Options as for `self_attention`: a mask (applied to every head) and the result's form.
///
/// Example:
/// \code
///   auto stacked = ctattn::wide_multi_head_attention(x, x, heads);            // 6 x (3 * 28)
///   auto y = ctattn::wide_multi_head_attention(x, x, heads, w_o);             // then W_O
///   static ctattn::cross_attention_workspace<decltype(x), decltype(x), head_type> workspace;   // a head at a time
///   ctattn::wide_multi_head_attention(x, x, heads, ctattn::into(concat, workspace));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, typename... Options>
  requires(!detail::call_options<Options...>::writes_into && !(Projection<Options> || ...))
[[nodiscard]] constexpr auto wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                                       const Options&... options) noexcept {
  return detail::wide_heads<op::wide_multi_head_attention>(x_q, x_kv, heads, options...);
}

/// \copydoc wide_multi_head_attention
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, typename... Options>
  requires(detail::call_options<Options...>::writes_into)
constexpr void wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                         const Options&... options) noexcept {
  detail::wide_heads<op::wide_multi_head_attention>(x_q, x_kv, heads, options...);
}

/// Wide multi-head attention followed by the output projection W_O (h * d_v -> d_out), with a mask as an option.
/// To write it into caller storage, write the heads with `into` and project with `ctattn::project_into`.
template <FixedMatrix XQ, FixedMatrix XKV, typename Head, std::size_t H, Projection P, typename... Options>
  requires(!detail::call_options<Options...>::writes_into)
[[nodiscard]] constexpr auto wide_multi_head_attention(const XQ& x_q, const XKV& x_kv, const std::array<Head, H>& heads,
                                                       const P& output, const Options&... options) noexcept {
  using concat = decltype(wide_multi_head_attention(x_q, x_kv, heads, options...));
  if constexpr (rules_hold<detail::projection_rules<concat, P>>) {
    return detail::projected<detail::call_options<Options...>::arithmetic_kind>(
        wide_multi_head_attention(x_q, x_kv, heads, options...), output);
  } else {
    return project(wide_multi_head_attention(x_q, x_kv, heads, options...), output);  // reports the broken rule
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_MULTI_HEAD_HPP
// ---------------------------------------- ctattn/attention/footprint.hpp (continued)
// ---------------------------------------- ctattn/detail/footprint_type.hpp
#ifndef CTATTN_DETAIL_FOOTPRINT_TYPE_HPP
#define CTATTN_DETAIL_FOOTPRINT_TYPE_HPP

/// \file
/// `ctattn::footprint` and `ctattn::composed`, documented with the attention footprints in
/// ctattn/attention/footprint.hpp, which includes this header.
// Rationale: a header of their own, with nothing but the standard library, so that the int8 layers can give their
// footprints without including the float attention tier: a shape error in an int8 call then shows the includes of
// the int8 headers only, and its first lines stay the rule's sentence.


namespace ctattn {

/// Memory of an attention configuration, in bytes.
///
/// | member            | what                                                             | usually in |
/// |-------------------|------------------------------------------------------------------|------------|
/// | `weight_bytes`    | the parameters: weights and biases of every projection           | flash      |
/// | `input_bytes`     | the activations read: x (x_q and x_kv for cross-attention)       | RAM or flash |
/// | `output_bytes`    | the activations written: the output matrix                       | RAM (.bss) |
/// | `workspace_bytes` | the intermediates: the workspace's Q, K and V                    | RAM (.bss) |
/// | `stack_bytes`     | the kernel's stack scratch: two row buffers of n_kv elements (exact arithmetic), or the fused SIMD kernel's state (fast) | stack |
///
/// `stack_bytes` is what the attention kernel itself puts on the stack with the build's default arithmetic
/// (ctattn/kernels/backend.hpp): exact, two rows of n_kv elements; fast, the fused kernel's packed key chunk, block
/// of scores and three numbers per query (on Helium up to 4 KiB of keys). The call frames around it (saved
/// registers, a few locals) come on top and depend on the compiler (docs/firmware.md measures them).
///
/// Example:
/// \code
///   constexpr auto fp = ctattn::self_attention_footprint<decltype(x), head_type>;   // the worked example:
///   static_assert(fp.weight_bytes == 4864 && fp.workspace_bytes == 1824 && fp.stack_bytes == 48);
/// \endcode
struct footprint {
  std::size_t weight_bytes = 0;
  std::size_t input_bytes = 0;
  std::size_t output_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::size_t stack_bytes = 0;

  /// Input and output activations: `input_bytes + output_bytes`.
  [[nodiscard]] constexpr std::size_t activation_bytes() const noexcept { return input_bytes + output_bytes; }

  /// Everything but the weights (which firmware keeps in flash): activations, workspace and kernel stack.
  [[nodiscard]] constexpr std::size_t ram_bytes() const noexcept {
    return input_bytes + output_bytes + workspace_bytes + stack_bytes;
  }

  /// Everything: `weight_bytes + ram_bytes()`.
  [[nodiscard]] constexpr std::size_t total_bytes() const noexcept { return weight_bytes + ram_bytes(); }

  /// Two configurations in one program, each with its own weights, activations and workspace, run one after
  /// the other: storage adds up, the stack scratch is the larger of the two (never live at once).
  /// Example: `constexpr auto model = encoder_fp + decoder_fp;`
  [[nodiscard]] friend constexpr footprint operator+(const footprint& a, const footprint& b) noexcept {
    return {a.weight_bytes + b.weight_bytes, a.input_bytes + b.input_bytes, a.output_bytes + b.output_bytes,
            a.workspace_bytes + b.workspace_bytes, a.stack_bytes > b.stack_bytes ? a.stack_bytes : b.stack_bytes};
  }

  /// Adds `other` in place (see `operator+`).
  constexpr footprint& operator+=(const footprint& other) noexcept { return *this = *this + other; }

  friend constexpr bool operator==(const footprint&, const footprint&) = default;
};

/// Calls nested in one expression, `c(b(a(x)))`, as a model's forward and the layers pass activations: each
/// call's result is a temporary on the caller's stack, live until the expression ends, and feeds the next call.
///
/// | field             | value                                                        |
/// |-------------------|--------------------------------------------------------------|
/// | `weight_bytes`    | the sum of the calls'                                        |
/// | `input_bytes`     | the first call's                                             |
/// | `output_bytes`    | the last call's                                              |
/// | `workspace_bytes` | the sum of the calls'                                        |
/// | `stack_bytes`     | every result but the last (the intermediates), plus the largest stack of the calls |
///
/// Example (a model's forward `head(norm(layers(x)))`, x of type X, each layer keeping its input's shape):
/// \code
///   constexpr auto fp = ctattn::composed(ctattn::layer_footprint<decltype(model.layers), X>,
///                                        ctattn::layer_footprint<decltype(model.norm), X>,
///                                        ctattn::layer_footprint<decltype(model.head), X>);
/// \endcode
template <std::same_as<footprint>... More>
[[nodiscard]] constexpr footprint composed(const footprint& first, const More&... more) noexcept {
  footprint f = first;
  std::size_t intermediates = 0;
  std::size_t deepest = first.stack_bytes;
  [[maybe_unused]] const auto feed = [&](const footprint& next) {
    intermediates += f.output_bytes;
    deepest = deepest > next.stack_bytes ? deepest : next.stack_bytes;
    f.weight_bytes += next.weight_bytes;
    f.workspace_bytes += next.workspace_bytes;
    f.output_bytes = next.output_bytes;
  };
  (feed(more), ...);
  f.stack_bytes = intermediates + deepest;
  return f;
}

}  // namespace ctattn

#endif  // CTATTN_DETAIL_FOOTPRINT_TYPE_HPP
// ---------------------------------------- ctattn/attention/footprint.hpp (continued)

namespace ctattn {

namespace detail {

template <typename P>
inline constexpr std::size_t projection_bytes =
    sizeof(typename P::weight_type) + (P::has_bias ? sizeof(typename P::bias_type) : 0);

template <typename Head>
inline constexpr std::size_t head_weight_bytes =
    projection_bytes<query_projection<Head>> + projection_bytes<key_projection<Head>> +
    projection_bytes<value_projection<Head>>;

// The attention kernel's stack scratch for n_q queries of d_k against n_kv keys, with the build's default
// arithmetic: the exact kernel's two row buffers (scores and probabilities) of n_kv elements, or the fused SIMD
// kernel's state (its packed key chunk, a block of queries and one of scores, three numbers per query;
// kernels/detail/simd.hpp).
template <typename T, std::size_t NQ, std::size_t NKV, std::size_t DK>
inline constexpr std::size_t kernel_stack_bytes = [] {
  if constexpr (runs_simd<default_arithmetic, T>) {
    return sizeof(simd::attention_kernel<simd_ops, false, DK, 1, NQ, NKV>);
  } else {
    return 2 * NKV * sizeof(T);
  }
}();

template <typename XQ, typename XKV, typename Head, std::size_t Heads, std::size_t Inputs>
inline constexpr footprint heads_footprint = [] {
  using W = head_workspace<XQ, XKV, Head>;
  footprint f{};
  f.weight_bytes = Heads * head_weight_bytes<Head>;
  f.input_bytes = Inputs == 1 ? sizeof(XQ) : sizeof(XQ) + sizeof(XKV);
  f.output_bytes = sizeof(matrix<typename W::value_type, XQ::row_extent, Heads * W::values_type::cols>);
  f.workspace_bytes = sizeof(W);
  f.stack_bytes = kernel_stack_bytes<typename W::value_type, XQ::rows, W::keys_type::rows, W::keys_type::cols>;
  return f;
}();

}  // namespace detail

/// The footprint of `scaled_dot_product_attention(q, k, v, ctattn::into(output))`: no weights, no workspace.
///
/// | field             | value                   |
/// |-------------------|-------------------------|
/// | `weight_bytes`    | 0                       |
/// | `input_bytes`     | sizeof(Q) + sizeof(K) + sizeof(V) |
/// | `output_bytes`    | n_q x d_v elements      |
/// | `workspace_bytes` | 0                       |
/// | `stack_bytes`     | 2 n_kv elements         |
///
/// Example: `static_assert(ctattn::scaled_dot_product_attention_footprint<Q, K, V>.ram_bytes() <= 2048);`
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V>
inline constexpr footprint scaled_dot_product_attention_footprint{
    0, sizeof(Q) + sizeof(K) + sizeof(V), sizeof(basic_matrix<typename Q::value_type, Q::row_extent, V::column_extent>),
    0, detail::kernel_stack_bytes<typename Q::value_type, Q::rows, K::rows, Q::cols>};

/// The footprint of `self_attention(x, head, ctattn::into(output, workspace))`.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | W_Q, W_K, W_V (and biases): d_model (2 d_k + d_v) elements without biases |
/// | `input_bytes`     | sizeof(X): n x d_model elements                  |
/// | `output_bytes`    | n x d_v elements                                 |
/// | `workspace_bytes` | sizeof(self_attention_workspace<X, Head>): n (2 d_k + d_v) elements |
/// | `stack_bytes`     | 2 n elements                                     |
///
/// Example (the worked example: 4864 bytes of weights, 384 of input, 672 of output, 1824 of workspace, 48 of
/// kernel stack):
/// \code
///   constexpr auto fp = ctattn::self_attention_footprint<decltype(x), head_type>;
///   static_assert(fp.ram_bytes() <= 3 * 1024);
/// \endcode
template <FixedMatrix X, detail::head_projections Head>
inline constexpr footprint self_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head, 1, 1>;

/// The footprint of `cross_attention(x_q, x_kv, head, ctattn::into(output, workspace))`.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | W_Q, W_K, W_V (and biases)                       |
/// | `input_bytes`     | sizeof(XQ) + sizeof(XKV)                         |
/// | `output_bytes`    | n_q x d_v elements                               |
/// | `workspace_bytes` | sizeof(cross_attention_workspace<XQ, XKV, Head>) |
/// | `stack_bytes`     | 2 n_kv elements                                  |
///
/// Example: `static_assert(ctattn::cross_attention_footprint<XQ, XKV, head_type>.workspace_bytes <= 4096);`
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head>
inline constexpr footprint cross_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head, 1, 2>;

/// The footprint of `wide_multi_head_attention(x_q, x_kv, heads, ctattn::into(output, workspace))` with H heads of type
/// Head, where x_q and x_kv are two matrices. One workspace serves every head.
///
/// | field             | value                                            |
/// |-------------------|--------------------------------------------------|
/// | `weight_bytes`    | H heads' W_Q, W_K, W_V (and biases)              |
/// | `input_bytes`     | sizeof(XQ) + sizeof(XKV)                         |
/// | `output_bytes`    | n_q x (H d_v) elements                           |
/// | `workspace_bytes` | sizeof(cross_attention_workspace<XQ, XKV, Head>) (one head's) |
/// | `stack_bytes`     | 2 n_kv elements                                  |
///
/// Example: `constexpr auto fp = ctattn::wide_multi_head_attention_footprint<XQ, XKV, head_type, 3>;`
template <FixedMatrix XQ, FixedMatrix XKV, detail::head_projections Head, std::size_t H>
inline constexpr footprint wide_multi_head_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<XQ>, std::remove_cvref_t<XKV>, Head, H, 2>;

/// `wide_multi_head_attention_footprint` for self-attention, where one matrix x is passed as both x_q and x_kv
/// (counted once in `input_bytes`).
///
/// Example (the worked example with 3 heads: 14592 bytes of weights, 384 of input, 2016 of output, 1824 of
/// workspace):
/// \code
///   constexpr auto fp = ctattn::wide_multi_head_self_attention_footprint<decltype(x), head_type, 3>;
///   static_assert(fp.weight_bytes == 3 * 4864);
/// \endcode
template <FixedMatrix X, detail::head_projections Head, std::size_t H>
inline constexpr footprint wide_multi_head_self_attention_footprint =
    detail::heads_footprint<std::remove_cvref_t<X>, std::remove_cvref_t<X>, Head, H, 1>;

/// The footprint of `multi_head_attention(x_q, x_kv, x_kv, weights, ..., into(output, workspace))` (narrow or
/// grouped-query weights W): the four projections' weights, the inputs (x_q, and x_kv once), the output, the
/// workspace (`multi_head_workspace<XQ, XKV, W>`: Q, K, V of every head and their concatenation) and the kernel's
/// two row buffers. Pass the same type twice for self-attention with `Inputs = 1`.
///
/// Example (7 tokens, d_model = 512, 8 heads, float: 4 MiB of weights):
/// \code
///   using x_type = ctattn::matrix<float, 7, 512>;
///   using w_type = ctattn::multi_head_attention_weights<float, 8, 512>;
///   constexpr auto fp = ctattn::multi_head_attention_footprint<x_type, x_type, w_type, 1>;
///   static_assert(fp.weight_bytes == 4 * 512 * 512 * sizeof(float));
/// \endcode
template <FixedMatrix XQ, FixedMatrix XKV, typename W, std::size_t Inputs = 2>
inline constexpr footprint multi_head_attention_footprint = [] {
  using xq = std::remove_cvref_t<XQ>;
  using xkv = std::remove_cvref_t<XKV>;
  using workspace = multi_head_workspace<xq, xkv, W>;
  using T = typename W::value_type;
  footprint f{};
  f.weight_bytes =
      detail::projection_bytes<detail::query_projection<W>> + detail::projection_bytes<detail::key_projection<W>> +
      detail::projection_bytes<detail::value_projection<W>> + detail::projection_bytes<detail::output_projection<W>>;
  f.input_bytes = Inputs == 1 ? sizeof(xq) : sizeof(xq) + sizeof(xkv);
  f.output_bytes = sizeof(basic_matrix<T, xq::row_extent, detail::output_projection<W>::output_extent>);
  f.workspace_bytes = sizeof(workspace);
  f.stack_bytes = detail::kernel_stack_bytes<T, xq::rows, xkv::rows, W::head_dim>;
  return f;
}();

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_FOOTPRINT_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/attention/gradient.hpp
#ifndef CTATTN_ATTENTION_GRADIENT_HPP
#define CTATTN_ATTENTION_GRADIENT_HPP

/// \file
/// Gradients: the softmax Jacobian, the backward pass of a row-wise softmax, and the backward pass of
/// single-head scaled dot-product attention, in constant expressions and at run time with the same bits.



namespace ctattn {

namespace detail::gradient {

// dL/dx for one row y = softmax(x), given w = y and u = dL/dy: w_j (u_j - sum_k w_k u_k). `result` may be `u`.
template <typename T, std::size_t N>
constexpr void softmax_row_backward(const T (&w)[N], const T (&u)[N], T (&result)[N]) noexcept {
  T dot{0};
  for (std::size_t j = 0; j < N; ++j) dot += w[j] * u[j];
  for (std::size_t j = 0; j < N; ++j) result[j] = w[j] * (u[j] - dot);
}

/// Query rows per block of the backward pass.
inline constexpr std::size_t backward_block = 16;

// Rows [r0, r0 + Rows) of the backward pass: their P = softmax(Q K^T / scale) and dS recomputed in Rows x n_kv
// buffers, their rows of dQ (divided by the scale), and their terms of dV and dK (not yet divided) added on.
template <arithmetic A, std::size_t Rows, typename Q, typename K, typename V, typename G, typename Grad, typename T>
constexpr void backward_rows(const Q& queries, const K& keys, const V& values, const G& upstream, Grad& grad,
                             std::size_t r0, T scale) noexcept {
  constexpr std::size_t n_kv = K::rows;
  constexpr std::size_t d_k = Q::cols;
  constexpr std::size_t d_v = V::cols;
  T query_rows[Rows][d_k]{};
  T upstream_rows[Rows][d_v]{};
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t c = 0; c < d_k; ++c) query_rows[r][c] = queries.elements[r0 + r][c];
    for (std::size_t c = 0; c < d_v; ++c) upstream_rows[r][c] = upstream.elements[r0 + r][c];
  }
  // P, in place of the scores.
  T weights[Rows][n_kv]{};
  kernels::product_transposed<A>(weights, query_rows, keys.elements);
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t j = 0; j < n_kv; ++j) weights[r][j] = weights[r][j] / scale;
    kernels::softmax_row<A>(weights[r], weights[r], 0, n_kv);
  }
  // dP = G V^T, then dS = the softmax backward of each row, in place; dV += P^T G.
  T d_scores[Rows][n_kv]{};
  kernels::product_transposed<A>(d_scores, upstream_rows, values.elements);
  for (std::size_t r = 0; r < Rows; ++r) softmax_row_backward(weights[r], d_scores[r], d_scores[r]);
  kernels::product_left_transposed<A, true>(grad.values.elements, weights, upstream_rows);
  // dQ = dS K / scale for these rows; dK += dS^T Q.
  T query_gradient[Rows][d_k]{};
  kernels::product<A>(query_gradient, d_scores, keys.elements);
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t c = 0; c < d_k; ++c) grad.queries.elements[r0 + r][c] = query_gradient[r][c] / scale;
  }
  kernels::product_left_transposed<A, true>(grad.keys.elements, d_scores, query_rows);
}

}  // namespace detail::gradient

/// The Jacobian of the softmax at a point, from the softmax's output s (a 1 x N row):
/// J(i, k) = d s_i / d z_k = s_i (delta_ik - s_k), that is diag(s) - s s^T. Symmetric; each row sums to 0
/// (up to rounding), because the outputs always sum to 1.
///
/// | operand         | shape                        |
/// |-----------------|------------------------------|
/// | `probabilities` | 1 x N (a softmax output s)   |
/// | result          | N x N                        |
///
/// Rule: one row (`rows_must_match<op::softmax_jacobian, dim<..., M>, dim<unnamed, 1>>`). For the Jacobian at
/// the logits z, use `softmax_jacobian_from_logits(z)`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<double, 1, 2> s{{{0.25, 0.75}}};
///   constexpr auto j = ctattn::softmax_jacobian(s);
///   static_assert(j(0, 0) == 0.1875 && j(0, 1) == -0.1875);   // 0.25 - 0.25^2, -0.25 * 0.75
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, N> softmax_jacobian(const basic_matrix<T, M, N>& probabilities) noexcept {
  basic_matrix<T, N, N> jacobian{};
  if constexpr (shape_error::must_be_a_single_row<op::softmax_jacobian, dim_of<M>>::check()) {
    constexpr std::size_t n = extent_size(N);
    for (std::size_t i = 0; i < n; ++i) {
      const T s_i = probabilities.elements[0][i];
      for (std::size_t k = 0; k < n; ++k) {
        const T diagonal = i == k ? s_i : T{0};
        jacobian.elements[i][k] = diagonal - s_i * probabilities.elements[0][k];
      }
    }
  }
  return jacobian;
}

/// The Jacobian of the softmax at the logits z (a 1 x N row): `softmax_jacobian(softmax_rows(z))`, with the
/// library's stable softmax (the row maximum subtracted before ctattn::math::exp).
///
/// | operand  | shape  |
/// |----------|--------|
/// | `logits` | 1 x N  |
/// | result   | N x N  |
///
/// Rule: one row, as for `softmax_jacobian`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> z{{{1000, 1001, 999}}};
///   constexpr auto j = ctattn::softmax_jacobian_from_logits(z);   // finite: no exp(1000) is ever taken
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, N, N> softmax_jacobian_from_logits(
    const basic_matrix<T, M, N>& logits) noexcept {
  basic_matrix<T, std::size_t{1}, N> probabilities{};
  if constexpr (shape_error::must_be_a_single_row<op::softmax_jacobian, dim_of<M>>::check()) {
    detail::softmax_row(logits.elements[0], probabilities.elements[0], 0, extent_size(N));
  }
  return softmax_jacobian(probabilities);
}

/// The backward pass of a row-wise softmax W = softmax_rows(X): given W and the upstream gradient U = dL/dW,
/// returns dL/dX, row by row dL/dx = u J(w) = w * (u - <w, u>) (element-wise), without forming any Jacobian.
///
/// | operand    | shape               |
/// |------------|---------------------|
/// | `weights`  | M x N (the softmax output W) |
/// | `upstream` | M x N (dL/dW)       |
/// | result     | M x N (dL/dX, the extents of `weights`) |
///
/// Rule: same shape and element type (`rows_must_match` / `columns_must_match` with `op::softmax_backward`).
///
/// Example:
/// \code
///   const auto d_scores = ctattn::softmax_rows_backward(weights, upstream);
/// \endcode
template <FixedMatrix W, FixedMatrix U>
[[nodiscard]] constexpr W softmax_rows_backward(const W& weights, const U& upstream) noexcept {
  W result{};
  if constexpr (detail::first_broken<detail::same_shape_rules<op::softmax_backward, W, U>>::check()) {
    for (std::size_t i = 0; i < W::rows; ++i) {
      detail::gradient::softmax_row_backward(weights.elements[i], upstream.elements[i], result.elements[i]);
    }
  }
  return result;
}

/// The gradients of a loss L with respect to the three inputs of scaled dot-product attention; each member has
/// exactly the type (shape and extents) of the input it belongs to.
///
/// | member    | meaning | shape        |
/// |-----------|---------|--------------|
/// | `queries` | dL/dQ   | n_q x d_k    |
/// | `keys`    | dL/dK   | n_kv x d_k   |
/// | `values`  | dL/dV   | n_kv x d_v   |
///
/// Example: `const auto grad = ctattn::attention_backward(q, k, v, g); use(grad.queries);`
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V>
struct attention_gradients {
  Q queries;
  K keys;
  V values;
};

/// The backward pass of single-head scaled dot-product attention O = softmax(Q K^T / sqrt(d_k)) V: given the
/// inputs and the upstream gradient G = dL/dO, returns dL/dQ, dL/dK and dL/dV.
///
///     S  = Q K^T / sqrt(d_k)          P  = softmax_rows(S)       (recomputed, stably)
///     dV = P^T G                      dP = G V^T
///     dS = P * (dP - rowsum(P * dP))  (element-wise; the softmax backward)
///     dQ = dS K / sqrt(d_k)           dK = dS^T Q / sqrt(d_k)
///
/// | operand    | shape        |
/// |------------|--------------|
/// | `queries`  | n_q x d_k    |
/// | `keys`     | n_kv x d_k   |
/// | `values`   | n_kv x d_v   |
/// | `upstream` | n_q x d_v (G = dL/dO) |
/// | result     | `attention_gradients` {queries: n_q x d_k, keys: n_kv x d_k, values: n_kv x d_v} |
///
/// Rules, those of the forward pass plus the shape of G (same element type everywhere): Q's columns match K's
/// columns (`query_and_key_widths_must_match<op::attention_backward, ...>`); K's rows match V's rows
/// (`key_and_value_counts_must_match`); G's rows match Q's rows (`rows_must_match`) and G's columns match V's
/// columns (`columns_must_match`). Matching means equal sizes, and equal names when both are named.
///
/// No mask: every query attends to every key. P and dS are recomputed for 16 query rows at a time, so the stack
/// holds 2 x 16 x n_kv elements of them, never n_q x n_kv. The weights P are recomputed exactly as
/// `scaled_dot_product_attention` computes them (same sums, same division by sqrt(d_k), same stable softmax),
/// so they are bit for bit the forward pass's weights. Every sum runs in ascending index order and the
/// gradients of Q and K are divided by sqrt(d_k) (true divisions): with exact arithmetic the result is the same
/// in constant evaluation and at run time. At run time on float the products and the softmax run the SIMD backend
/// (docs/kernels.md gives the bound) unless the call passes `ctattn::exact_arithmetic` last or the build defines
/// `CTATTN_EXACT_ARITHMETIC=1`. These are the gradients
/// of any loss L whose gradient with respect to O is G (for L = sum(O * G) exactly what PyTorch autograd gives).
///
/// Example:
/// \code
///   constexpr auto grad = ctattn::attention_backward(q, k, v, g);   // q 4x6, k 5x6, v 5x3, g 4x3
///   static_assert(grad.keys.rows == 5);
///   const auto same_bits = ctattn::attention_backward(q, k, v, g, ctattn::exact_arithmetic);   // at run time
/// \endcode
template <FixedMatrix Q, FixedMatrix K, FixedMatrix V, FixedMatrix G, arithmetic A = default_arithmetic>
[[nodiscard]] constexpr attention_gradients<Q, K, V> attention_backward(const Q& queries, const K& keys,
                                                                        const V& values, const G& upstream,
                                                                        arithmetic_option<A> = {}) noexcept {
  using op_tag = op::attention_backward;
  // The forward pass's rules, then the upstream gradient dL/dO: one row per query, one column per value feature.
  using rules =
      rule_list<detail::attention_rules<op_tag, Q, K, V, no_mask_type>, detail::same_element_rule<op_tag, G, Q>,
                detail::rows_rule<op_tag, G, Q>, detail::columns_rule<op_tag, G, V>>;
  using T = typename Q::value_type;
  attention_gradients<Q, K, V> grad{};
  if constexpr (detail::first_broken<rules>::check()) {
    constexpr std::size_t n_q = Q::rows;
    constexpr std::size_t n_kv = K::rows;
    constexpr std::size_t d_k = Q::cols;
    const T scale = math::sqrt(static_cast<T>(d_k));
    // Rationale: blocks of query rows, so that the recomputed P and dS take 2 x block x n_kv elements of stack,
    // not 2 n_q n_kv; dV and dK add each block's terms in row order, the same sums as one pass over all rows.
    constexpr std::size_t block = detail::gradient::backward_block;
    if constexpr (n_q >= block) {
      for (std::size_t r0 = 0; r0 + block <= n_q; r0 += block) {
        detail::gradient::backward_rows<A, block>(queries, keys, values, upstream, grad, r0, scale);
      }
    }
    if constexpr (n_q % block != 0) {
      detail::gradient::backward_rows<A, n_q % block>(queries, keys, values, upstream, grad, n_q - n_q % block, scale);
    }
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < d_k; ++c) grad.keys.elements[j][c] = grad.keys.elements[j][c] / scale;
    }
  }
  return grad;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_GRADIENT_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/attention/kv_cache.hpp
#ifndef CTATTN_ATTENTION_KV_CACHE_HPP
#define CTATTN_ATTENTION_KV_CACHE_HPP

/// \file
/// Autoregressive decoding: a key/value cache of static capacity, and attention of one new token over it.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `kv_cache<T, Capacity, KWidth, VWidth>`  | the keys and values of the tokens so far, and how many        |
/// | `attend_cached(q, cache, options...)`    | one query over the cache's keys (single head)                 |
/// | `multi_head_attention_step(x, w, cache, out)` | one token of multi-head self-attention, cached  |
/// | `cache_memory(memory, w, cache)`         | an encoder's output projected once into a cache, for cross-attention |
/// | `multi_head_attention_cached(x, w, c, out)` | one token of multi-head attention over a cache, no append |
///
/// Decoding token by token gives what causal attention over the whole sequence gives, row by row (the same bits
/// with exact arithmetic: the same sums in the same order). Positional information that attention sees (RoPE,
/// ALiBi) is the caller's, as in full attention: rotate a token's query and key at its position before they meet
/// the cache, and pass ALiBi's bias row for the query's position as a mask.
///
/// A full cache is an error, never undefined behaviour: at a constant position (`append<P>`) a compile error; at
/// run time `append` and the step functions return false and change nothing.


// ---------------------------------------- ctattn/detail/cache_rows.hpp
#ifndef CTATTN_DETAIL_CACHE_ROWS_HPP
#define CTATTN_DETAIL_CACHE_ROWS_HPP

/// \file
/// What the float and the int8 key/value caches share (`ctattn::kv_cache`, ctattn/attention/kv_cache.hpp;
/// `ctattn::qkv_cache`, ctattn/quantized/kv_cache.hpp): their rows, how many are held, and appending one token.
// Rationale: a header of its own, with nothing but the standard library, so that the int8 cache does not include
// the float attention tier (the reason of detail/footprint_type.hpp too).


namespace ctattn::detail {

// Keys and Values: Capacity-row matrices (basic_matrix or basic_qmatrix); KeyRow and ValueRow: one row of each.
template <typename Keys, typename Values, typename KeyRow, typename ValueRow>
struct cache_rows {
  Keys keys{};
  Values values{};
  std::size_t length = 0;

  /// Whether another token fits.
  [[nodiscard]] constexpr bool full() const noexcept { return length >= Keys::rows; }

  /// Appends one token's key and value at position `length`; false, with nothing changed, when the cache is full.
  [[nodiscard]] constexpr bool append(const KeyRow& key, const ValueRow& value) noexcept {
    if (full()) return false;
    for (std::size_t j = 0; j < KeyRow::cols; ++j) keys.elements[length][j] = key.elements[0][j];
    for (std::size_t j = 0; j < ValueRow::cols; ++j) values.elements[length][j] = value.elements[0][j];
    ++length;
    return true;
  }

  /// Forgets every token (the next one is at position 0).
  constexpr void clear() noexcept { length = 0; }

  friend constexpr bool operator==(const cache_rows&, const cache_rows&) = default;
};

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_CACHE_ROWS_HPP
// ---------------------------------------- ctattn/attention/kv_cache.hpp (continued)

namespace ctattn {

/// The keys and values of the first `length` tokens of a sequence, in rows 0 to length - 1, for at most
/// `Capacity` tokens: the memory of autoregressive decoding, sized at compile time (no allocation).
///
/// | member    | shape / meaning                                   |
/// |-----------|---------------------------------------------------|
/// | `keys`    | Capacity x KeyWidth (rows past `length` unused)   |
/// | `values`  | Capacity x ValueWidth                             |
/// | `length`  | tokens held, 0 to Capacity                        |
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 16, 32> cache{};              // 16 tokens of d_model 32
///   cache.append<0>(k_row, v_row);                         // a constant position past 15 does not compile
///   if (!cache.append(k_row, v_row)) { /* full: nothing changed */ }
/// \endcode
template <typename T, std::size_t Capacity, auto KeyWidth, auto ValueWidth = KeyWidth>
struct kv_cache : detail::cache_rows<basic_matrix<T, Capacity, normalize_extent<KeyWidth>>,
                                     basic_matrix<T, Capacity, normalize_extent<ValueWidth>>,
                                     basic_matrix<T, std::size_t{1}, normalize_extent<KeyWidth>>,
                                     basic_matrix<T, std::size_t{1}, normalize_extent<ValueWidth>>> {
  using value_type = T;
  static constexpr std::size_t capacity = Capacity;
  static constexpr auto key_extent = normalize_extent<KeyWidth>;
  static constexpr auto value_extent = normalize_extent<ValueWidth>;
  using key_row = basic_matrix<T, std::size_t{1}, key_extent>;
  using value_row = basic_matrix<T, std::size_t{1}, value_extent>;

  // `keys`, `values`, `length`, `full()`, `append(key, value)` and `clear()`: detail/cache_rows.hpp.
  using kv_cache::cache_rows::append;

  /// Appends at the constant position `Position`: a position at or past the capacity is a compile error (rule
  /// `position_must_fit_cache`); the position must be `length` (a precondition, checked with
  /// CTATTN_CHECK_PRECONDITIONS).
  template <std::size_t Position>
  constexpr void append(const key_row& key, const value_row& value) noexcept {
    if constexpr (shape_error::position_must_fit_cache<op::kv_cache, count<Position>, count<Capacity>>::check()) {
      detail::expects(Position == this->length);
      (void)append(key, value);
    }
  }

  friend constexpr bool operator==(const kv_cache&, const kv_cache&) = default;
};

namespace detail {
template <typename C>
inline constexpr bool is_kv_cache = false;
template <typename T, std::size_t Capacity, auto K, auto V>
inline constexpr bool is_kv_cache<kv_cache<T, Capacity, K, V>> = true;

// The mask of a step: the cache's tokens, and whatever mask the call adds (ALiBi's bias row, say).
template <typename Cache, typename... Options>
constexpr auto step_mask(const Cache& cache, const Options&... options) noexcept {
  return combine_masks(key_padding_length{cache.length}, mask_of(options...));
}

template <typename... Options>
constexpr auto arithmetic_option_of() noexcept {
  return arithmetic_option<call_options<Options...>::arithmetic_kind>{};
}
}  // namespace detail

/// A key/value cache (any `kv_cache`).
template <typename C>
concept KeyValueCache = detail::is_kv_cache<std::remove_cvref_t<C>>;

/// Attention of queries over the tokens in a cache: softmax(q K^T / sqrt(d_k) + mask) V over its first `length`
/// keys and values, as `scaled_dot_product_attention` computes it. Options: a mask added to the cache's own (an
/// ALiBi bias row for the query's position), an arithmetic.
///
/// | operand | shape                                |
/// |---------|--------------------------------------|
/// | `q`     | n_q x KeyWidth (usually one query)   |
/// | `cache` | `kv_cache<T, Capacity, KeyWidth, ValueWidth>` |
/// | result  | n_q x ValueWidth                     |
///
/// Example:
/// \code
///   (void)cache.append(k_t, v_t);
///   const auto out_t = ctattn::attend_cached(q_t, cache);   // row t of causal attention
/// \endcode
template <FixedMatrix Q, KeyValueCache Cache, typename... Options>
[[nodiscard]] constexpr auto attend_cached(const Q& q, const Cache& cache, const Options&... options) noexcept {
  return scaled_dot_product_attention(q, cache.keys, cache.values, detail::step_mask(cache, options...),
                                      detail::arithmetic_option_of<Options...>());
}

namespace detail {
// The rules of one query row x over a cache with weights W, writing into Out.
template <typename X, typename W, typename Cache, typename Out>
using cached_attention_rules = rule_list<
    shape_error::must_be_a_single_row<op::kv_cache, dim_of<X::row_extent>>, projection_rules<X, query_projection<W>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>, dim_of<key_projection<W>::output_extent>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                    dim_of<value_projection<W>::output_extent>>,
    shape_error::element_types_must_match<op::kv_cache, typename Cache::value_type, typename W::value_type>,
    projection_into_rules<Out, basic_matrix<typename W::value_type, std::size_t{1}, output_projection<W>::input_extent>,
                          output_projection<W>>>;

// Query row q over every token of the cache, each head over its columns, then W_O into out.
template <arithmetic A, typename W, typename Q, typename Cache, typename Out, typename... Options>
constexpr void attend_cached_heads(const Q& q, const W& w, const Cache& cache, Out& out,
                                   const Options&... options) noexcept {
  basic_matrix<typename W::value_type, std::size_t{1}, output_projection<W>::input_extent> concat{};
  basic_matrix<typename W::value_type, std::size_t{1}, Cache::capacity>* none = nullptr;
  attend_heads<A, false, W>(q, cache.keys, cache.values, step_mask(cache, options...), concat, none);
  project_rows<A>(out, concat, w.output);
}
}  // namespace detail

/// One token of multi-head self-attention in decoding: projects the token `x` (1 x d_model) into its query, key
/// and value, appends the key and value to `cache`, attends the query over every cached token (each head over its
/// columns; grouped-query heads share theirs), and writes the output projection into `out` (1 x d_model). Returns
/// false, changing nothing, when the cache is full.
///
/// | operand  | shape                                                            |
/// |----------|------------------------------------------------------------------|
/// | `x`      | 1 x d_model                                                      |
/// | `w`      | multi-head or grouped-query weights                              |
/// | `cache`  | `kv_cache<T, Capacity, key width, value width>` (d_model and d_model for narrow heads) |
/// | `out`    | 1 x d_model                                                      |
///
/// Token t's output is row t of `multi_head_attention(X, X, X, w, ctattn::causal)`.
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 16, 32> cache{};
///   ctattn::matrix<float, 1, 32> y{};
///   for (const auto& x_t : tokens) if (!ctattn::multi_head_attention_step(x_t, w, cache, y)) break;
/// \endcode
template <FixedMatrix X, typename W, KeyValueCache Cache, FixedMatrix Out, typename... Options>
[[nodiscard]] constexpr bool multi_head_attention_step(const X& x, const W& w, Cache& cache, Out& out,
                                                       const Options&... options) noexcept {
  if constexpr (detail::first_broken<detail::cached_attention_rules<X, W, Cache, Out>>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    if (cache.full()) return false;
    const auto q = detail::projected<a>(x, w.query);
    (void)cache.append(detail::projected<a>(x, w.key), detail::projected<a>(x, w.value));
    detail::attend_cached_heads<a>(q, w, cache, out, options...);
  }
  return true;
}

/// Projects an encoder's output once into a cache, for the cross-attention of decoding: row i of `memory` gives
/// the cache's key and value i (through W's W_K and W_V, as `multi_head_attention(q, memory, memory, w)`
/// projects them); the cache then holds exactly the memory's rows. A memory with more rows than the cache's
/// capacity is a compile error (rule `memory_must_fit_cache`).
///
/// | operand  | shape                                      |
/// |----------|--------------------------------------------|
/// | `memory` | m x d_model (m <= Capacity)                |
/// | `w`      | the cross-attention's multi-head weights   |
/// | `cache`  | `kv_cache<T, Capacity, key width, value width>` |
///
/// Example:
/// \code
///   ctattn::kv_cache<float, 8, 32> source{};
///   ctattn::cache_memory(encoder_output, cross_weights, source);   // once per source sequence
/// \endcode
template <FixedMatrix Memory, typename W, KeyValueCache Cache, typename... Options>
constexpr void cache_memory(const Memory& memory, const W& w, Cache& cache, const Options&...) noexcept {
  using rules = rule_list<
      shape_error::memory_must_fit_cache<op::kv_cache, count<Memory::rows>, count<Cache::capacity>>,
      detail::projection_rules<Memory, detail::key_projection<W>>,
      detail::projection_rules<Memory, detail::value_projection<W>>,
      shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>,
                                      dim_of<detail::key_projection<W>::output_extent>>,
      shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                      dim_of<detail::value_projection<W>::output_extent>>,
      shape_error::element_types_must_match<op::kv_cache, typename Cache::value_type, typename W::value_type>>;
  if constexpr (detail::first_broken<rules>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    const auto keys = detail::projected<a>(memory, w.key);
    const auto values = detail::projected<a>(memory, w.value);
    cache = Cache{};
    for (std::size_t i = 0; i < Memory::rows; ++i) {
      for (std::size_t j = 0; j < Cache::key_row::cols; ++j) cache.keys.elements[i][j] = keys.elements[i][j];
      for (std::size_t j = 0; j < Cache::value_row::cols; ++j) cache.values.elements[i][j] = values.elements[i][j];
    }
    cache.length = Memory::rows;
  }
}

/// One token of multi-head attention over the tokens a cache holds, appending nothing: the cross-attention of a
/// decoding step over the memory `cache_memory` projected. Projects `x` into its query, attends every head over
/// the cached keys and values, writes the output projection into `out`. Options: a mask added to the cache's own,
/// an arithmetic.
///
/// | operand  | shape                                   |
/// |----------|-----------------------------------------|
/// | `x`      | 1 x d_model                             |
/// | `w`      | multi-head weights                      |
/// | `cache`  | `kv_cache` holding the memory's keys and values |
/// | `out`    | 1 x d_model                             |
///
/// Token t's output is row t of `multi_head_attention(X, memory, memory, w)`.
///
/// Example: `ctattn::multi_head_attention_cached(x_t, cross_weights, source, y_t);`
template <FixedMatrix X, typename W, KeyValueCache Cache, FixedMatrix Out, typename... Options>
constexpr void multi_head_attention_cached(const X& x, const W& w, const Cache& cache, Out& out,
                                           const Options&... options) noexcept {
  if constexpr (detail::first_broken<detail::cached_attention_rules<X, W, Cache, Out>>::check()) {
    constexpr arithmetic a = detail::call_options<Options...>::arithmetic_kind;
    detail::attend_cached_heads<a>(detail::projected<a>(x, w.query), w, cache, out, options...);
  }
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_KV_CACHE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/attention/softmax.hpp
#ifndef CTATTN_ATTENTION_SOFTMAX_HPP
#define CTATTN_ATTENTION_SOFTMAX_HPP



namespace ctattn {

/// The softmax of every row: w(i, j) = exp(x(i, j) - max_k x(i, k)) / sum_k exp(x(i, k) - max_k x(i, k)).
///
/// | operand | shape |
/// |---------|-------|
/// | `x`     | M x N |
/// | result  | M x N, each row summing to 1 (or all zeros) |
///
/// Numerically stable: rows like [1000, 1001, 999] or [88, 89, 90, 100] in float give the exact softmax
/// rounded, not inf or NaN. Edges: -inf entries (masked) get weight 0; a row whose entries are all -inf gets
/// zeros (ctattn's documented value for a fully masked row; PyTorch gives NaN there); +inf entries share the
/// weight equally; a NaN makes the whole row NaN. At run time on float the SIMD backend computes it (vector exp,
/// within docs/kernels.md's bound) unless the build defines `CTATTN_EXACT_ARITHMETIC=1`.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> x{{{1000, 1001, 999}}};
///   constexpr auto w = ctattn::softmax_rows(x);   // {0.2447, 0.6652, 0.0900}
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, N> softmax_rows(const basic_matrix<T, M, N>& x) noexcept {
  basic_matrix<T, M, N> weights{};
  for (std::size_t i = 0; i < basic_matrix<T, M, N>::rows; ++i) {
    detail::kernels::softmax_row(x.elements[i], weights.elements[i], 0, basic_matrix<T, M, N>::cols);
  }
  return weights;
}

/// log(sum_j exp(x(i, j))) of every row, the log of the softmax's normalizer (log-softmax, cross-entropy, the
/// merging of attention computed in blocks): torch.logsumexp(x, dim=-1, keepdim=True).
///
/// | operand | shape |
/// |---------|-------|
/// | `x`     | M x N |
/// | result  | M x 1 |
///
/// Computed stably as m + log(sum_j exp(x(i, j) - m)), m the row's largest entry, the sum taken in column order:
/// [1000, 1001, 999] gives 1001.4076, not inf. Edges: a row of -inf gives -inf (log 0); a +inf entry gives +inf;
/// a NaN gives NaN.
///
/// Example:
/// \code
///   constexpr ctattn::matrix<float, 1, 3> x{{{1000, 1001, 999}}};
///   constexpr auto lse = ctattn::logsumexp_rows(x);   // {{1001.4076}}
/// \endcode
template <typename T, auto M, auto N>
[[nodiscard]] constexpr basic_matrix<T, M, std::size_t{1}> logsumexp_rows(const basic_matrix<T, M, N>& x) noexcept {
  using input = basic_matrix<T, M, N>;
  constexpr T infinity = std::numeric_limits<T>::infinity();
  basic_matrix<T, M, std::size_t{1}> result{};
  for (std::size_t i = 0; i < input::rows; ++i) {
    T largest = x.elements[i][0];
    bool not_a_number = false;
    for (std::size_t j = 0; j < input::cols; ++j) {
      const T value = x.elements[i][j];
      if (value != value) not_a_number = true;
      if (value > largest) largest = value;
    }
    if (not_a_number) {
      result.elements[i][0] = std::numeric_limits<T>::quiet_NaN();
    } else if (largest == -infinity || largest == infinity) {
      result.elements[i][0] = largest;
    } else {
      T sum{0};
      for (std::size_t j = 0; j < input::cols; ++j) {
        const T value = x.elements[i][j];
        if (value != -infinity) sum += math::exp(value - largest);
      }
      result.elements[i][0] = largest + math::log(sum);
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_ATTENTION_SOFTMAX_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Position information: sinusoidal tables, embeddings, rotary embeddings, ALiBi.
// ---------------------------------------- ctattn/position/alibi.hpp
#ifndef CTATTN_POSITION_ALIBI_HPP
#define CTATTN_POSITION_ALIBI_HPP

/// \file
/// ALiBi, attention with linear biases (Press, Smith and Lewis, "Train Short, Test Long"): no position
/// embedding at all; each head adds to its scores a penalty proportional to the query-key distance, with a
/// fixed slope per head. The biases are plain matrices, for the attention kernels' additive-bias mask.


// ---------------------------------------- ctattn/position/rules.hpp
#ifndef CTATTN_POSITION_RULES_HPP
#define CTATTN_POSITION_RULES_HPP

/// \file
/// The position tier's shape rules and operation tags (see ctattn/shape/rule.hpp). The matrix tier's rules
/// (ctattn/matrix/rules.hpp) apply here too.
///
/// | rule                              | arguments after the operation          |
/// |-----------------------------------|----------------------------------------|
/// | `dimension_must_be_even`          | the width                              |
/// | `sequence_must_fit_position_table`| the sequence's length, the table's     |
/// | `base_must_be_larger_than_one`    | `count<base>`                          |
/// | `token_ids_must_be_integers`      | the id type                            |



namespace ctattn {

namespace op {
struct sinusoidal_encoding {};
struct token_embedding {};
struct position_embedding {};
struct rotary_embedding {};
struct alibi {};
}  // namespace op

namespace shape_error {

/// Sines and cosines fill the columns in pairs (sinusoidal encoding, rotary embedding): the width is even.
template <typename Operation, typename Dimension>
struct dimension_must_be_even {
  static constexpr bool holds = Dimension::size % 2 == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: sines and cosines fill the columns in pairs, so the width must be even; use an even "
                  "model (or head) width");
    return holds;
  }
};

/// A position table has one row per position: the sequence is not longer than the table.
template <typename Operation, typename SequenceLength, typename TableLength>
struct sequence_must_fit_position_table {
  static constexpr bool holds = SequenceLength::size <= TableLength::size;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the sequence has more positions than the position table; build the table with at least "
                  "as many positions (learned embeddings cannot go past the longest sequence they were trained for)");
    return holds;
  }
};

/// The frequencies of sinusoidal and rotary encodings are powers of the base: it must be larger than 1.
template <typename Operation, typename Base>
struct base_must_be_larger_than_one {
  static constexpr bool holds = Base::value > 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the base of the frequencies must be larger than 1 (10000 in the reference text); pass a "
                  "larger base");
    return holds;
  }
};

/// Token ids index the rows of an embedding table: they are integers.
template <typename Operation, typename Id>
struct token_ids_must_be_integers {
  static constexpr bool holds = std::is_integral_v<Id>;
  static constexpr bool check() noexcept {
    static_assert(holds, "ctattn: token ids index the embedding table's rows, so they must be integers");
    return holds;
  }
};

}  // namespace shape_error
}  // namespace ctattn

#endif  // CTATTN_POSITION_RULES_HPP
// ---------------------------------------- ctattn/position/alibi.hpp (continued)

namespace ctattn {

namespace detail {

// 2^(-8k/h) in double: an exact power of two times exp(-(r/h) ln 2) for the fractional part r/h.
constexpr double alibi_power_of_two_slope(std::size_t k, std::size_t heads) noexcept {
  const std::size_t whole = 8 * k / heads;
  const std::size_t remainder = 8 * k % heads;
  constexpr double ln2 = 0x1.62e42fefa39efp-1;
  double slope = remainder == 0 ? 1.0 : math::exp(-(static_cast<double>(remainder) / static_cast<double>(heads)) * ln2);
  for (std::size_t e = 0; e < whole; ++e) slope *= 0.5;  // exact
  return slope;
}

// Slope of head `head` (0-based) of `heads`, by the paper's rule.
constexpr double alibi_slope(std::size_t head, std::size_t heads) noexcept {
  std::size_t below = 1;  // the largest power of two <= heads
  while (below * 2 <= heads) below *= 2;
  if (head < below) return alibi_power_of_two_slope(head + 1, below);
  // the rest: every other slope (the 1st, 3rd, 5th, ...) of the 2 * below power-of-two sequence
  return alibi_power_of_two_slope(2 * (head - below) + 1, 2 * below);
}

}  // namespace detail

/// The ALiBi slope of each of `Heads` heads, by the paper's rule:
///   - Heads a power of two: slope_k = 2^(-8 (k+1) / Heads), k = 0 .. Heads-1 (8 heads: 1/2, 1/4, ..., 1/256);
///   - otherwise, with c the largest power of two below Heads: the c slopes for c heads, followed by the
///     1st, 3rd, 5th, ... slopes for 2c heads, Heads - c of them (6 heads: 1/4, 1/16, 1/64, 1/256, 1/2, 1/8).
///
/// | parameter | meaning                 |
/// |-----------|-------------------------|
/// | `T`       | `float` or `double`     |
/// | `Heads`   | number of heads, >= 1   |
/// | result    | `std::array<T, Heads>`  |
///
/// Computed in double and rounded once to T (exact whenever 8k/Heads is an integer, e.g. every Heads <= 8).
///
/// Example:
/// \code
///   constexpr auto slopes = ctattn::alibi_slopes<float, 8>();
///   static_assert(slopes[0] == 0.5f && slopes[7] == 0x1p-8f);
/// \endcode
template <typename T, std::size_t Heads>
  requires Scalar<T>
[[nodiscard]] constexpr std::array<T, Heads> alibi_slopes() noexcept {
  std::array<T, Heads> slopes{};
  if constexpr (shape_error::count_must_be_positive<op::alibi, count<Heads>>::check()) {
    for (std::size_t k = 0; k < Heads; ++k) slopes[k] = static_cast<T>(detail::alibi_slope(k, Heads));
  }
  return slopes;
}

/// Which ALiBi bias to build; d = j - (i + offset) is the signed distance from query i to key j (negative for
/// keys in the past; offset from `alibi_alignment`).
///
/// | form             | bias(i, j)                           | use with                                  |
/// |------------------|--------------------------------------|-------------------------------------------|
/// | `linear_bias`    | slope * d                            | a causal mask: the paper's form; entries above the diagonal are positive and must be masked (fixture `bias_linear`) |
/// | `causal_bias`    | slope * d for d <= 0, -inf for d > 0 | nothing else: the causal mask and the bias in one matrix |
/// | `symmetric_bias` | -slope * abs(d)                      | no mask: bidirectional encoders (fixture `bias_symmetric`) |
///
/// On and below the diagonal all three give -slope * (i - j): the further back the key, the larger the penalty.
/// `causal_bias` as an additive bias gives bit for bit what `linear_bias` gives under the causal mask.
///
/// Example: `ctattn::alibi_bias<ctattn::alibi_form::symmetric_bias, 5, 5>(0.5f)`.
// Rationale: the enumerators carry a suffix because `ctattn::causal` (a mask) and `ctattn::linear` (a
// projection) already name other things; GCC's -Wshadow flags an enumerator that reuses such a name.
enum class alibi_form { linear_bias, causal_bias, symmetric_bias };

/// How queries line up with keys when their counts differ (the same two conventions as the causal masks).
///
/// | alignment      | query i sits at position             |
/// |----------------|--------------------------------------|
/// | `top_left`     | i (PyTorch's is_causal, the mask `ctattn::causal`) |
/// | `bottom_right` | i + n_kv - n_q (the last query is the last key: a KV cache; `ctattn::causal_bottom_right`) |
///
/// Example: `ctattn::alibi_bias<ctattn::alibi_form::causal_bias, 1, 128, ctattn::alibi_alignment::bottom_right>(s)`
/// is the bias row of the 128th token decoded against its cache.
enum class alibi_alignment { top_left, bottom_right };

/// The ALiBi bias matrix of one head, to add to its scaled scores (the attention kernels' additive bias).
///
/// | parameter  | meaning                                                |
/// |------------|--------------------------------------------------------|
/// | `Form`     | `alibi_form::linear_bias`, `causal_bias` or `symmetric_bias` (table above) |
/// | `NQ`, `NKV`| number of queries and keys: sizes or named extents     |
/// | `Align`    | `alibi_alignment::top_left` (default) or `bottom_right`|
/// | `slope`    | the head's slope (from `alibi_slopes`)                 |
/// | result     | NQ x NKV                                               |
///
/// Each entry is slope * d rounded once (exact for the power-of-two slopes of up to 8 heads); a distance of 0
/// gives +0.
///
/// Example:
/// \code
///   constexpr auto slopes = ctattn::alibi_slopes<float, 8>();
///   constexpr auto b = ctattn::alibi_bias<ctattn::alibi_form::causal_bias, 5, 5>(slopes[0]);
///   static_assert(b(4, 1) == -1.5f);   // -0.5 * (4 - 1)
/// \endcode
template <alibi_form Form, auto NQ, auto NKV, alibi_alignment Align = alibi_alignment::top_left, typename T>
  requires Scalar<T>
[[nodiscard]] constexpr basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>> alibi_bias(T slope) noexcept {
  using result_type = basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>;
  constexpr auto n_q = static_cast<long long>(result_type::rows);
  constexpr auto n_kv = static_cast<long long>(result_type::cols);
  constexpr long long offset = Align == alibi_alignment::top_left ? 0 : n_kv - n_q;
  result_type bias{};
  for (long long i = 0; i < n_q; ++i) {
    for (long long j = 0; j < n_kv; ++j) {
      const long long d = j - (i + offset);
      T value{};
      if constexpr (Form == alibi_form::symmetric_bias) {
        value = slope * static_cast<T>(d < 0 ? d : -d);
      } else if constexpr (Form == alibi_form::causal_bias) {
        value = d > 0 ? -std::numeric_limits<T>::infinity() : slope * static_cast<T>(d);
      } else {
        value = slope * static_cast<T>(d);
      }
      bias.elements[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = value == 0 ? T{0} : value;
    }
  }
  return bias;
}

/// The ALiBi bias matrices of all `Heads` heads, head k with slope `alibi_slopes<T, Heads>()[k]`.
///
/// | parameter  | meaning                                       |
/// |------------|-----------------------------------------------|
/// | `T`, `Heads` | as in `alibi_slopes`                        |
/// | `NQ`, `NKV`, `Form`, `Align` | as in `alibi_bias` (Form defaults to `causal_bias`) |
/// | result     | `std::array` of Heads matrices NQ x NKV       |
///
/// Example:
/// \code
///   static constexpr auto biases = ctattn::alibi_biases<float, 8, seq{5}, seq{5}>();   // causal
///   // head h: ctattn::scaled_dot_product_attention(q[h], k[h], v[h], ctattn::additive_bias(biases[h]))
/// \endcode
template <typename T, std::size_t Heads, auto NQ, auto NKV, alibi_form Form = alibi_form::causal_bias,
          alibi_alignment Align = alibi_alignment::top_left>
  requires Scalar<T>
[[nodiscard]] constexpr std::array<basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>, Heads>
alibi_biases() noexcept {
  const std::array<T, Heads> slopes = alibi_slopes<T, Heads>();
  std::array<basic_matrix<T, normalize_extent<NQ>, normalize_extent<NKV>>, Heads> biases{};
  for (std::size_t k = 0; k < Heads; ++k) biases[k] = alibi_bias<Form, NQ, NKV, Align>(slopes[k]);
  return biases;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_ALIBI_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/position/embedding.hpp
#ifndef CTATTN_POSITION_EMBEDDING_HPP
#define CTATTN_POSITION_EMBEDDING_HPP

/// \file
/// Learned lookups: token embeddings (a row of a vocabulary table per token id) and learned position
/// embeddings (a row of a position table added to each token).



namespace ctattn {

namespace detail {

// Whether every id in Ids lies in [0, Vocabulary), and the first one that does not (as std::size_t).
struct id_check {
  bool all_inside;
  std::size_t first_outside;
};

template <auto Ids, std::size_t Vocabulary>
constexpr id_check check_ids() noexcept {
  for (const auto id : Ids) {
    if constexpr (std::is_signed_v<std::remove_cv_t<decltype(id)>>) {
      if (id < 0) return {false, static_cast<std::size_t>(id)};
    }
    if (static_cast<std::size_t>(id) >= Vocabulary) return {false, static_cast<std::size_t>(id)};
  }
  return {true, 0};
}

template <auto Rows, typename T, auto Vocabulary, auto D, typename Id>
constexpr basic_matrix<T, Rows, D> gather_rows(const basic_matrix<T, Vocabulary, D>& table, const Id* ids) noexcept {
  using table_type = basic_matrix<T, Vocabulary, D>;
  basic_matrix<T, Rows, D> result{};
  for (std::size_t r = 0; r < extent_size(Rows); ++r) {
    const auto id = ids[r];
    if constexpr (std::is_signed_v<Id>) detail::expects(id >= 0);
    const auto row = static_cast<std::size_t>(id);
    detail::expects(row < table_type::rows);
    for (std::size_t j = 0; j < table_type::cols; ++j) result.elements[r][j] = table.elements[row][j];
  }
  return result;
}

// The rows of N embedded tokens: `Rows` when given, else N (1 stands in for 0, which its rule reports).
template <auto Rows, std::size_t N>
inline constexpr auto embedded_rows = extent_or<Rows, (N == 0 ? 1 : N)>;

// N ids (known at run time or not): the count and the rows' extent checked, then one table row per id.
template <auto Rows, std::size_t N, typename T, auto Vocabulary, auto D, typename Id>
constexpr auto embed_ids(const basic_matrix<T, Vocabulary, D>& table, const Id* ids) noexcept {
  constexpr auto rows = embedded_rows<Rows, N>;
  using rules = rule_list<
      shape_error::count_must_be_positive<op::token_embedding, count<N>>,
      shape_error::relabelled_dimension_must_keep_its_size<op::token_embedding, dim<unnamed, N>, dim_of<rows>>>;
  basic_matrix<T, rows, D> result{};
  if constexpr (first_broken<rules>::check()) result = gather_rows<rows>(table, ids);
  return result;
}

}  // namespace detail

/// Token embedding with ids known at run time: row r of the result is row `ids[r]` of the table.
///
/// | operand  | shape                                            |
/// |----------|--------------------------------------------------|
/// | `table`  | Vocabulary x D (one learned row per token id)    |
/// | `ids`    | `std::array<I, N>` or `const I (&)[N]`, I an integer type |
/// | result   | N x D, or Rows x D (`embed_tokens<seq{6}>(...)`: the rows named, N entries) |
///
/// Precondition: 0 <= ids[r] < Vocabulary for every r (a compile error in constant evaluation; a trap at run
/// time when CTATTN_CHECK_PRECONDITIONS is on). The rows are copied exactly, as torch.nn.Embedding does. D keeps
/// the table's name; `Rows` names the sequence axis (its size must be N).
///
/// Example:
/// \code
///   // "Life is short, eat dessert first": ids of the words in the sorted vocabulary
///   const std::array<std::size_t, 6> ids{0, 4, 5, 2, 1, 3};
///   const auto x = ctattn::embed_tokens<seq{6}>(embedding_table, ids);   // seq x d_model from a vocab x d_model table
/// \endcode
template <auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D, std::integral I, std::size_t N>
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table,
                                          const std::array<I, N>& ids) noexcept {
  return detail::embed_ids<Rows, N>(table, ids.data());
}

/// \copydoc embed_tokens(const basic_matrix<T, Vocabulary, D>&, const std::array<I, N>&)
template <auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D, std::integral I, std::size_t N>
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table, const I (&ids)[N]) noexcept {
  return detail::embed_ids<Rows, N>(table, ids);
}

/// Token embedding with ids known at compile time (a `std::array` template argument): an id outside the
/// vocabulary is a compile error that names it and the vocabulary,
/// `shape_error::index_must_be_inside_dimension<op::token_embedding, count<id>, dim<..., Vocabulary>>`.
///
/// | operand  | shape                                               |
/// |----------|-----------------------------------------------------|
/// | `Ids`    | `std::array<I, N>` template argument, I an integer type |
/// | `table`  | Vocabulary x D                                      |
/// | `Rows`   | optional: names the rows (`seq{6}`; its size must be N) |
/// | result   | N x D, or Rows x D                                  |
///
/// Rule: every id is in [0, Vocabulary). (A negative id is reported as its value converted to std::size_t.)
///
/// Example:
/// \code
///   constexpr std::array<std::size_t, 6> sentence{0, 4, 5, 2, 1, 3};
///   constexpr auto x = ctattn::embed_tokens<sentence>(embedding_table);            // 6 x d_model
///   constexpr auto named = ctattn::embed_tokens<sentence, seq{6}>(embedding_table);  // seq x d_model
/// \endcode
template <auto Ids, auto Rows = std::size_t{0}, typename T, auto Vocabulary, auto D>
  requires requires { std::tuple_size<std::remove_cv_t<decltype(Ids)>>::value; }
[[nodiscard]] constexpr auto embed_tokens(const basic_matrix<T, Vocabulary, D>& table) noexcept {
  using ids_type = std::remove_cv_t<decltype(Ids)>;
  using id_type = typename ids_type::value_type;
  constexpr std::size_t n = std::tuple_size<ids_type>::value;
  constexpr std::size_t vocabulary = basic_matrix<T, Vocabulary, D>::rows;
  constexpr detail::id_check ids_checked = detail::check_ids<Ids, vocabulary>();
  using rules =
      rule_list<shape_error::token_ids_must_be_integers<op::token_embedding, id_type>,
                shape_error::index_must_be_inside_dimension<op::token_embedding, count<ids_checked.first_outside>,
                                                            dim_of<Vocabulary>>>;
  if constexpr (detail::first_broken<rules>::check()) {
    return detail::embed_ids<Rows, n>(table, Ids.data());
  } else {
    return basic_matrix<T, detail::embedded_rows<Rows, n>, D>{};
  }
}

/// Learned (absolute) position embeddings: adds row `first_position + r` of the position table to row r of x.
///
/// | operand          | shape                                             |
/// |------------------|---------------------------------------------------|
/// | `x`              | N x D (embedded tokens)                           |
/// | `table`          | MaxLength x D' (one learned row per position)     |
/// | `first_position` | position of row 0 (default 0)                     |
/// | result           | N x D (the named extent wins where one side names it) |
///
/// Rules (compile time): D matches D' (`columns_must_match<op::position_embedding, ...>`), N <= MaxLength
/// (`sequence_must_fit_position_table<op::position_embedding, N, MaxLength>`), same element type.
/// Precondition (run time): first_position + N <= MaxLength.
///
/// Example:
/// \code
///   // GPT-2 style: x = token_embedding + position_embedding[0 .. n-1]
///   const auto x = ctattn::add_position_embeddings(ctattn::embed_tokens(wte, ids), wpe);   // wpe: 1024 x 768
/// \endcode
template <FixedMatrix X, FixedMatrix Table>
[[nodiscard]] constexpr auto add_position_embeddings(const X& x, const Table& table,
                                                     std::size_t first_position = 0) noexcept {
  using rules = rule_list<detail::same_element_rule<op::position_embedding, X, Table>,
                          detail::columns_rule<op::position_embedding, X, Table>,
                          shape_error::sequence_must_fit_position_table<op::position_embedding, dim_of<X::row_extent>,
                                                                        dim_of<Table::row_extent>>>;
  using T = typename X::value_type;
  basic_matrix<T, X::row_extent, unify_extents(X::column_extent, Table::column_extent)> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(first_position <= Table::rows - X::rows);
    for (std::size_t r = 0; r < X::rows; ++r) {
      for (std::size_t j = 0; j < X::cols; ++j) {
        result.elements[r][j] = x.elements[r][j] + table.elements[first_position + r][j];
      }
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_EMBEDDING_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/position/rotary.hpp
#ifndef CTATTN_POSITION_ROTARY_HPP
#define CTATTN_POSITION_ROTARY_HPP

/// \file
/// Rotary position embedding (RoPE, Su et al., "RoFormer"): queries and keys rotated in 2-D planes by an angle
/// proportional to their position, so that their dot product depends on positions only through the offset.


// ---------------------------------------- ctattn/position/detail/frequency.hpp
#ifndef CTATTN_POSITION_DETAIL_FREQUENCY_HPP
#define CTATTN_POSITION_DETAIL_FREQUENCY_HPP

/// \file
/// The angles behind the sinusoidal encoding and the rotary embedding, computed in double.



namespace ctattn::detail {

/// base^(2i / width) in double, for column pair i of a table `width` columns wide.
// Rationale: evaluated as exp((2i / width) ln base) in double whatever the table's element type (ctattn::math's
// exp and log, so the same bits at compile time and at run time). The exponent is at most ln base (9.21 for
// 10000), off by a few units of 2^-53 relative, so the power is off by at most about 2^-48 relative. A float
// table rounds that away: it equals the float64 reference rounded to float except where a value lies within
// about 2^-48 of a float rounding boundary (measured: every element of PyTorch's tables, and all but one of the
// 262144 elements of a 2048 x 128 table, identical). In a double table the angle t / power carries t times that
// error, about as much as rounding the angle itself to double already costs (t * 2^-53).
constexpr double frequency_power(std::size_t pair, std::size_t width, std::size_t base) noexcept {
  const double exponent = static_cast<double>(2 * pair) / static_cast<double>(width);
  return math::exp(exponent * math::log(static_cast<double>(base)));
}

}  // namespace ctattn::detail

#endif  // CTATTN_POSITION_DETAIL_FREQUENCY_HPP
// ---------------------------------------- ctattn/position/rotary.hpp (continued)

namespace ctattn {

/// Which features RoPE rotates together. Both rotate pair p by the angle t * Base^(-2p/d) at position t; they
/// differ in which two columns form pair p (one is a fixed permutation of the other, so weights trained for one
/// layout do not work with the other).
///
/// | layout        | pair p         | used by                                  |
/// |---------------|----------------|------------------------------------------|
/// | `interleaved` | (2p, 2p + 1)   | the RoFormer paper, GPT-J, Meta's Llama reference code |
/// | `rotate_half` | (p, p + d/2)   | GPT-NeoX, Hugging Face's Llama (`rotate_half`) |
///
/// Example: `ctattn::apply_rotary<ctattn::rotary_layout::rotate_half>(queries, table)`.
enum class rotary_layout { interleaved, rotate_half };

/// The cosines and sines RoPE rotates by, one row per position: `cos_table(t, p) = cos(t * theta_p)` and
/// `sin_table(t, p) = sin(t * theta_p)`, with theta_p = Base^(-2p / Width).
///
/// | member                  | shape / meaning                                   |
/// |-------------------------|---------------------------------------------------|
/// | `cos_table`, `sin_table`| Positions x Width/2                               |
/// | `positions`             | how many positions the table covers (0 .. Positions-1) |
/// | `width`                 | the head width d it rotates (even)                |
/// | `base`                  | Base (10000 in the paper)                         |
///
/// Build it with `make_rotary_table` (at compile time, as a `constexpr` variable). It is an aggregate of two
/// matrices and can sit in flash.
///
/// Example (Clang 14's default constexpr budget holds up to 104 positions of width 64; docs/compile_time.md says how
/// to raise it):
/// \code
///   static constexpr auto rope = ctattn::make_rotary_table<float, 96, 64>();   // 96 positions, d = 64
/// \endcode
template <typename T, std::size_t Positions, std::size_t Width, std::size_t Base = 10000>
  requires Scalar<T>
struct rotary_table {
  /// The rules of the table's parameters.
  using rules = rule_list<shape_error::dimension_must_be_even<op::rotary_embedding, dim_of<Width>>,
                          shape_error::count_must_be_positive<op::rotary_embedding, count<Positions>>,
                          shape_error::base_must_be_larger_than_one<op::rotary_embedding, count<Base>>>;
  static_assert((detail::first_broken<rules>::check(), true));

  using value_type = T;
  static constexpr std::size_t positions = Positions;
  static constexpr std::size_t width = Width;
  static constexpr std::size_t pairs = Width / 2 > 0 ? Width / 2 : 1;
  static constexpr std::size_t base = Base;

  matrix<T, Positions, pairs> cos_table;
  matrix<T, Positions, pairs> sin_table;
};

/// Computes a `rotary_table`: every angle t / Base^(2p / Width) in double, its cosine and sine with
/// ctattn::math in double, each rounded once to T.
///
/// | parameter   | meaning                                          |
/// |-------------|--------------------------------------------------|
/// | `T`         | `float` or `double`                              |
/// | `Positions` | positions 0 .. Positions-1                       |
/// | `Width`     | the head width d of the queries and keys (even)  |
/// | `Base`      | 10000 in the paper                               |
///
/// Rule: Width is even (`shape_error::dimension_must_be_even<op::rotary_embedding, dim<unnamed, Width>>`).
///
/// Example:
/// \code
///   constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
///   static_assert(rope.cos_table(0, 3) == 1.0f);   // position 0 is not rotated
/// \endcode
// Rationale: the angle is divided by Base^(2p/d) rather than multiplied by Base^(-2p/d), the same form as the
// sinusoidal encoding; computed in double, both agree with a float64 reference after rounding to float.
template <typename T, std::size_t Positions, std::size_t Width, std::size_t Base = 10000>
  requires Scalar<T>
[[nodiscard]] constexpr rotary_table<T, Positions, Width, Base> make_rotary_table() noexcept {
  rotary_table<T, Positions, Width, Base> table{};
  if constexpr (rules_hold<typename rotary_table<T, Positions, Width, Base>::rules>) {
    for (std::size_t p = 0; p < Width / 2; ++p) {
      const double power = detail::frequency_power(p, Width, Base);
      for (std::size_t t = 0; t < Positions; ++t) {
        const double angle = static_cast<double>(t) / power;
        table.cos_table.elements[t][p] = static_cast<T>(math::cos(angle));
        table.sin_table.elements[t][p] = static_cast<T>(math::sin(angle));
      }
    }
  }
  return table;
}

/// Rotates every row of `x` (queries or keys, one per row) by its position: row r is at position
/// `first_position + r`. For pair p = (a, b) of the layout, with c = cos_table(t, p) and s = sin_table(t, p):
///
///     out[a] = x[a] c - x[b] s
///     out[b] = x[a] s + x[b] c
///
/// | operand          | shape                                          |
/// |------------------|------------------------------------------------|
/// | `x`              | N x D (queries or keys of one head)            |
/// | `table`          | `rotary_table<T, Positions, Width>`            |
/// | `first_position` | position of row 0 (default 0; a KV cache passes the number of tokens before) |
/// | result           | N x D, the same type as `x`                    |
///
/// Rules (compile time): D equals the table's Width (`columns_must_match`; the table's Width is even),
/// N <= Positions (`sequence_must_fit_position_table`), same element type. Precondition (run time):
/// first_position + N <= Positions.
///
/// Apply it to the queries and to the keys with the same table and layout, before the scores Q K^T.
///
/// Example:
/// \code
///   static constexpr auto rope = ctattn::make_rotary_table<float, 6, 8>();
///   const auto q_rot = ctattn::apply_rotary<ctattn::rotary_layout::interleaved>(q, rope);   // q: 6 x 8
///   const auto k_rot = ctattn::apply_rotary<ctattn::rotary_layout::interleaved>(k, rope);
///   const auto scores = q_rot * ctattn::transpose(k_rot);
/// \endcode
template <rotary_layout Layout, typename T, auto N, auto D, typename U, std::size_t Positions, std::size_t Width,
          std::size_t Base>
[[nodiscard]] constexpr basic_matrix<T, N, D> apply_rotary(const basic_matrix<T, N, D>& x,
                                                           const rotary_table<U, Positions, Width, Base>& table,
                                                           std::size_t first_position = 0) noexcept {
  using x_type = basic_matrix<T, N, D>;
  using rules =
      rule_list<typename rotary_table<U, Positions, Width, Base>::rules,
                shape_error::element_types_must_match<op::rotary_embedding, T, U>,
                shape_error::columns_must_match<op::rotary_embedding, dim_of<D>, dim_of<Width>>,
                shape_error::sequence_must_fit_position_table<op::rotary_embedding, dim_of<N>, dim_of<Positions>>>;
  basic_matrix<T, N, D> result{};
  if constexpr (detail::first_broken<rules>::check()) {
    detail::expects(first_position <= Positions - x_type::rows);
    constexpr std::size_t half = x_type::cols / 2;
    for (std::size_t r = 0; r < x_type::rows; ++r) {
      const std::size_t t = first_position + r;
      for (std::size_t p = 0; p < half; ++p) {
        const std::size_t a = Layout == rotary_layout::interleaved ? 2 * p : p;
        const std::size_t b = Layout == rotary_layout::interleaved ? 2 * p + 1 : p + half;
        const T c = table.cos_table.elements[t][p];
        const T s = table.sin_table.elements[t][p];
        const T xa = x.elements[r][a];
        const T xb = x.elements[r][b];
        result.elements[r][a] = xa * c - xb * s;
        result.elements[r][b] = xa * s + xb * c;
      }
    }
  }
  return result;
}

}  // namespace ctattn

#endif  // CTATTN_POSITION_ROTARY_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/position/sinusoidal.hpp
#ifndef CTATTN_POSITION_SINUSOIDAL_HPP
#define CTATTN_POSITION_SINUSOIDAL_HPP

/// \file
/// The sinusoidal position encoding of "Attention Is All You Need", as a table computed by the compiler.



namespace ctattn {

/// The sinusoidal position encoding table, one row per position t and one column per feature:
///
///     PE(t, 2i)     = sin(t / Base^(2i / D))
///     PE(t, 2i + 1) = cos(t / Base^(2i / D))        t = 0 .. Positions - 1,  i = 0 .. D/2 - 1
///
/// | parameter   | meaning                                                  |
/// |-------------|----------------------------------------------------------|
/// | `T`         | `float` or `double`                                      |
/// | `Positions` | number of positions (rows): a size or a named extent     |
/// | `D`         | model width (columns): a size or a named extent          |
/// | `Base`      | 10000 in the paper                                       |
/// | result      | Positions x D                                            |
///
/// Rule: D is even (`shape_error::dimension_must_be_even<op::sinusoidal_encoding, dim<..., D>>`).
///
/// Every element is computed in double (the angle t / Base^(2i/D), then its sine or cosine with ctattn::math)
/// and rounded once to T. Measured against PyTorch's float64 tables rounded to float (6 x 16, 7 x 512 and
/// 50 x 8): identical, 0 ulp. Against a long double reference, a 2048 x 128 float table is identical
/// but for one element (1 ulp). A double table is within about t * 2^-52 of the exact value, the precision
/// of a double angle. The result is the same in constant evaluation and at run time; `sinusoidal_table`
/// holds it as a constant.
///
/// Example:
/// \code
///   struct seq : ctattn::dimension<"seq"> {};
///   struct d_model : ctattn::dimension<"d_model"> {};
///   constexpr auto pe = ctattn::sinusoidal_position_encoding<float, seq{6}, d_model{16}>();
///   static_assert(pe(0, 1) == 1.0f);            // cos(0)
///   auto encoded = x + pe;                      // x: 6 x 16 embedded tokens
/// \endcode
template <typename T, auto Positions, auto D, std::size_t Base = 10000>
  requires Scalar<T>
[[nodiscard]] constexpr basic_matrix<T, normalize_extent<Positions>, normalize_extent<D>>
sinusoidal_position_encoding() noexcept {
  using result_type = basic_matrix<T, normalize_extent<Positions>, normalize_extent<D>>;
  using rules = rule_list<shape_error::dimension_must_be_even<op::sinusoidal_encoding, dim_of<normalize_extent<D>>>,
                          shape_error::base_must_be_larger_than_one<op::sinusoidal_encoding, count<Base>>>;
  result_type table{};
  if constexpr (detail::first_broken<rules>::check()) {
    for (std::size_t i = 0; i < result_type::cols / 2; ++i) {
      const double power = detail::frequency_power(i, result_type::cols, Base);
      for (std::size_t t = 0; t < result_type::rows; ++t) {
        const double angle = static_cast<double>(t) / power;
        table.elements[t][2 * i] = static_cast<T>(math::sin(angle));
        table.elements[t][2 * i + 1] = static_cast<T>(math::cos(angle));
      }
    }
  }
  return table;
}

/// The sinusoidal table as a constant: `sinusoidal_table<T, Positions, D>` is
/// `sinusoidal_position_encoding<T, Positions, D>()`, always evaluated by the compiler (it can live in flash).
///
/// | parameter                | meaning                   |
/// |--------------------------|---------------------------|
/// | `T`, `Positions`, `D`, `Base` | as in `sinusoidal_position_encoding` |
/// | value                    | Positions x D             |
///
/// Example:
/// \code
///   static_assert(ctattn::sinusoidal_table<float, 50, 8>(0, 0) == 0.0f);
/// \endcode
template <typename T, auto Positions, auto D, std::size_t Base = 10000>
  requires Scalar<T>
inline constexpr basic_matrix<T, normalize_extent<Positions>, normalize_extent<D>> sinusoidal_table =
    sinusoidal_position_encoding<T, Positions, D, Base>();

}  // namespace ctattn

#endif  // CTATTN_POSITION_SINUSOIDAL_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

// Int8: matrices quantized with their scale and zero point in the type, integer products (the same bits everywhere).
// ---------------------------------------- ctattn/quantized/activation.hpp
#ifndef CTATTN_QUANTIZED_ACTIVATION_HPP
#define CTATTN_QUANTIZED_ACTIVATION_HPP

/// \file
/// Int8 activations by lookup table, as int8 inference runners compute element-wise nonlinearities: an int8 input
/// has 256 possible values, so the compiler computes the activation of each once, exactly in double, quantized to
/// the output's quantization; at run time each element is one table lookup (integers only, the same bits on every
/// target and in constant evaluation).
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `qactivation<QIn, QOut>`                 | the table: `table[q + 128]` is the int8 output for input q    |
/// | `quantize_activation<QIn, QOut>(f)`      | the table of `relu`, `gelu`, `gelu_tanh` or `silu` (the float layers) |
/// | `activate(x, table)`                     | `qmatrix<R, C, QIn>` to `qmatrix<R, C, QOut>`, element by element |
///
/// Example:
/// \code
///   #include <ctattn/layers/activation.hpp>   // ctattn::gelu
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
///   const auto h = ctattn::activate(hidden_q, gelu_q);   // qmatrix<n, 64, q_gelu>
/// \endcode


// ---------------------------------------- ctattn/quantized/qmatrix.hpp
#ifndef CTATTN_QUANTIZED_QMATRIX_HPP
#define CTATTN_QUANTIZED_QMATRIX_HPP

/// \file
/// `ctattn::qmatrix`: an int8 matrix whose quantization (scale and zero point) is part of its type, and the
/// conversions between it and float matrices: `ctattn::quantize<Q>(x)` and `ctattn::dequantize(q)`.


// ---------------------------------------- ctattn/quantized/quantization.hpp
#ifndef CTATTN_QUANTIZED_QUANTIZATION_HPP
#define CTATTN_QUANTIZED_QUANTIZATION_HPP

/// \file
/// `ctattn::quantization`: the affine map of int8 inference, real = scale x (q - zero_point), as a value that can
/// be a template argument, so that a quantized matrix carries its scale and zero point in its type.


namespace ctattn {

/// Per-tensor affine quantization: real = scale x (q - zero_point), q an int8. A structural type, so it is a
/// template argument (`ctattn::qmatrix<6, 16, ctattn::quantization{0.05, -3}>`).
///
/// | member             | meaning                                                                 |
/// |--------------------|-------------------------------------------------------------------------|
/// | `scale()`          | the scale, a positive double (a float32 scale is kept exactly)           |
/// | `zero_point`       | the int8 value that stands for real 0                                   |
/// | `scale_bits`       | the scale's bits (how the type stores it)                               |
///
/// Rationale: the scale is kept as the bits of a double because Clang 14 takes no floating-point template
/// arguments; two quantizations are the same type exactly when their scales are the same double.
///
/// Example:
/// \code
///   constexpr ctattn::quantization q{0.05, -3};
///   static_assert(q.scale() == 0.05 && q.zero_point == -3);
/// \endcode
struct quantization {
  std::uint64_t scale_bits = 0;
  std::int32_t zero_point = 0;

  constexpr quantization(double scale, std::int32_t zero = 0) noexcept
      : scale_bits(std::bit_cast<std::uint64_t>(scale)), zero_point(zero) {}

  /// From a float32 scale, as a .tflite file stores it, kept exactly (`quantization{1.39032352f, -84}`): the
  /// operations then take TFLite's float32 steps (docs/quantized.md, "TFLite, bit for bit").
  // Rationale: a constructor of its own (a template, so that an int literal still picks the double one) widens the
  // float explicitly: no -Wdouble-promotion warning where a user copies scales from a .tflite file.
  template <std::same_as<float> F>
  constexpr quantization(F scale, std::int32_t zero = 0) noexcept : quantization(static_cast<double>(scale), zero) {}

  [[nodiscard]] constexpr double scale() const noexcept { return std::bit_cast<double>(scale_bits); }

  friend constexpr bool operator==(const quantization&, const quantization&) = default;
};

/// A quantization as a type, for diagnostics: a broken rule shows `quantization_constant<{scale bits, zero point}>`.
template <quantization Q>
struct quantization_constant {
  static constexpr quantization value = Q;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_QUANTIZATION_HPP
// ---------------------------------------- ctattn/quantized/qmatrix.hpp (continued)
// ---------------------------------------- ctattn/quantized/rules.hpp
#ifndef CTATTN_QUANTIZED_RULES_HPP
#define CTATTN_QUANTIZED_RULES_HPP

/// \file
/// The rules of the quantized tier (ctattn/shape/rule.hpp says how a rule is defined once and used three ways):
///
/// | rule                                  | what it compares                                               |
/// |---------------------------------------|----------------------------------------------------------------|
/// | `scale_must_be_positive`              | `quantization_constant<Q>`                                     |
/// | `zero_point_must_fit_int8`            | `quantization_constant<Q>`                                     |
/// | `int8_accumulator_must_not_overflow`  | `count<K>` (the summed length), `count<33025>` (the most int32 holds) |
/// | `input_quantization_must_match_layer` | the input's `quantization_constant`, the layer's                |
/// | `int8_mask_must_hide_keys`            | the mask's type                                                 |
/// | `int8_cache_must_hold_the_projections_quantization` | the cache's key or value quantization, W_K's or W_V's output's |
/// | `int8_layer_norm_must_not_overflow`   | `count<C>` (the row's width), `count<16384>` (the widest that fits) |
/// | `rows_per_block_must_be_positive`     | `count<Rows>`, the rows per block an int8 feed-forward block was given |
/// | `int8_operation_needs_output_quantization` | both operands' types (an operator, or a product with no `Out`) |
/// | `int8_operands_must_both_be_int8`     | both operands' types (one int8, one float)                      |
/// | `layer_needs_an_int8_form`            | the float layer `ctattn::quantize` has no int8 form for          |
/// | `model_forward_must_be_its_members`   | the model whose `forward` is its own                              |
/// | `ranges_must_hold_every_member`       | the model, the first member (`point<'h', 'e', 'a', 'd'>`) the table lacks |
/// | `ranges_must_hold_every_point`        | the point in a layer the table lacks, whole (`layers.0.norm1`)  |
/// | `int8_link_needs_its_float_links`     | the float links' types int8 link J is made of, the types given  |
/// | `weight_override_must_name_a_layer`   | the model, the override's path (`point<'h', 'e', 'd'>`) that names none of its layers with linear weights |
/// | `layer_weights_must_have_its_format`  | the weight type an int8 layer holds, the type given (int8 or int4 weights, or another shape) |
/// | `weight_scales_must_match_granularity`| `count<S>` (the scales given), `count<N>` (the layer's: Out per channel, 1 per tensor) |



namespace ctattn {

namespace op {
/// Declaring a quantized matrix (its quantization is checked).
struct quantized_matrix {};
/// A product of quantized matrices.
struct quantized_multiply {};
/// An int8 linear layer applied to int8 rows.
struct quantized_projection {};
/// The element-wise sum of int8 matrices.
struct quantized_add {};
/// The element-wise product of int8 matrices.
struct quantized_hadamard {};
/// Scaled dot-product attention of int8 queries, keys and values.
struct quantized_attention {};
/// Multi-head attention on int8 rows with int8 projections.
struct quantized_multi_head_attention {};
/// An int8 activation (a table lookup) applied to an int8 matrix.
struct quantized_activation {};
/// Int8 layer normalization of each row.
struct quantized_layer_norm {};
/// An int8 encoder layer's feed-forward block (`feed_forward<Rows>(h)`).
struct quantized_feed_forward {};
/// An int8 transformer decoder layer (its masks name their attention).
struct quantized_decoder_layer {};
/// Recording the ranges of a float model's activations (`ctattn::record_ranges`).
struct record_ranges {};
/// Quantizing a whole float model (`ctattn::quantize<Ranges>(model)`).
struct quantize {};
/// Calling an int8 front-end layer: a class token, a pool.
struct quantized_front_end {};
/// Making one int8 link of a model from its float links (`ctattn::quantize_link<J, Ranges, M>(links...)`).
struct quantize_link {};
}  // namespace op

namespace shape_error {

/// `ctattn::quantize<Ranges>(model)` maps each float layer to its int8 form; a layer with none stops there.
template <typename Operation, typename Layer, bool HasForm>
struct layer_needs_an_int8_form {
  static constexpr bool holds = HasForm;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: ctattn::quantize has no int8 form of this layer (the layer below); quantize the model's "
                  "other parts with the quantize_* functions and keep this one in float, or drop it");
    return holds;
  }
};

/// `ctattn::quantize` and `ctattn::record_ranges` follow a model's members run in turn (the forward `ctattn::model`
/// derives); a model that declares a forward of its own (a residual around its members, a scale) would be calibrated
/// and quantized as another function, so it is refused (`ctattn::DerivedForward`).
template <typename Operation, typename Model, bool DerivesForward>
struct model_forward_must_be_its_members {
  static constexpr bool holds = DerivesForward;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: ctattn::quantize and ctattn::record_ranges follow a model's members run in turn, and this "
                  "model has a forward of its own; make its extra steps members (ctattn::residual around a "
                  "ctattn::sequential, say) and drop its forward, or quantize its parts with the quantize_* "
                  "functions");
    return holds;
  }
};

}  // namespace shape_error

/// A member's name as a type the diagnostics print legibly: `ctattn::point<'h', 'e', 'a', 'd'>`.
///
/// Example: `using head = ctattn::point<'h', 'e', 'a', 'd'>;`
template <char... Name>
struct point {};

namespace shape_error {

/// `ctattn::quantize<Ranges>(model)` reads every member's output range from `Ranges` (ctattn::record_ranges writes
/// one under each member's name), so a table without one of them was recorded for another model, or before this
/// one changed. `Member` is the first member the table lacks, as a `point`.
template <typename Operation, typename Model, typename Member, bool Holds>
struct ranges_must_hold_every_member {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the ranges table lacks a member of this model (it was recorded for another model, or "
                  "before this one changed); record it again with ctattn::record_ranges on this model (the rule "
                  "below names the model and the first member missing)");
    return holds;
  }
};

/// `ctattn::quantize<Ranges>(model)` reads the range of every point inside a layer as well (`layers.0.norm1`: the
/// names of ctattn/quantized/points.hpp under the layer's path, as ctattn::record_ranges writes them), so a table
/// that holds every member but lacks one of those was recorded before the model changed, or edited. `Point` is the
/// name the table lacks, whole.
template <typename Operation, typename Point, bool Holds>
struct ranges_must_hold_every_point {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the ranges table lacks a point inside a layer of this model (it was recorded before the "
                  "model changed, or edited); record it again with ctattn::record_ranges on this model (the rule "
                  "below names the point missing)");
    return holds;
  }
};

/// Int8 link J of a model is made from the float links it comes from, in order: `ctattn::link<K>(model)` for K from
/// `int8_link_first<J, M>`, `int8_link_span<J, M>` of them (two for a token embedding and its positions).
template <typename Operation, typename Expected, typename Given>
struct int8_link_needs_its_float_links {
  static constexpr bool holds = std::is_same_v<Expected, Given>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: quantize_link<J, Ranges, M> takes the float links int8 link J is made of, and these are "
                  "others; pass ctattn::link<K>(model) for K from int8_link_first<J, M>, int8_link_span<J, M> of them "
                  "(a token embedding and the positions right after it make one int8 link)");
    return holds;
  }
};

/// An int8 linear layer holds its weights in one format: `std::int8_t[Out][In]` for `weight_format::int8`,
/// `int4_weights<Out, In>` (two a byte) for `weight_format::int4`; weights of the other format, or of another shape,
/// are not converted.
template <typename Operation, typename Expected, typename Given>
struct layer_weights_must_have_its_format {
  static constexpr bool holds = std::is_same_v<Expected, Given>;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: these weights are not the layer's kind: a qlinear with weight_format::int8 takes "
                  "std::int8_t[Out][In], one with weight_format::int4 takes int4_weights<Out, In>; pack int8 values "
                  "with int4_weights<Out, In>::from_values, or declare the layer with the weights' format");
    return holds;
  }
};

/// An int8 linear layer has one weight scale per output channel (`weight_granularity::per_channel`, the default) or
/// one for the whole matrix (`weight_granularity::per_tensor`): `channel_scales<Out>` or `channel_scales<1>`.
template <typename Operation, typename Given, typename Expected>
struct weight_scales_must_match_granularity {
  static constexpr bool holds = Given::value == Expected::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the layer takes one weight scale per output channel (channel_scales<Out>) or, per tensor, "
                  "one (channel_scales<1>), and another count was given; make them with "
                  "weight_scales<Granularity>(w, format), or declare the layer with the scales' granularity");
    return holds;
  }
};

/// A `layer_weights` override of `quantize_options` names a layer of the model that has linear weights, as the ranges
/// name it: a member, a sequential's element or a whole sequential; a path that names none (a typo, a part inside a
/// layer, whose linears take one format, or an embedding, norm or activation, which keep their own) would change
/// nothing, silently.
template <typename Operation, typename Model, typename Path, bool Holds>
struct weight_override_must_name_a_layer {
  static constexpr bool holds = Holds;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a layer_weights override in quantize_options names no layer of the model with linear "
                  "weights (the path below); name a member (head), a sequential's element (layers.0) or a whole "
                  "sequential (layers), as the ranges name them: not a part inside a layer, nor an embedding, norm "
                  "or activation, which keep their own");
    return holds;
  }
};

/// real = scale x (q - zero_point): the scale is a positive, finite number.
template <typename Operation, typename Quantization>
struct scale_must_be_positive {
  static constexpr bool holds = Quantization::value.scale() > 0.0 && Quantization::value.scale() < 1e300;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: a quantization's scale must be a positive finite number (real = scale x (q - "
                  "zero_point)); take it from the tensor's range, (max - min) / 255 for int8");
    return holds;
  }
};

/// The zero point is the int8 value that stands for real 0, so it is an int8.
template <typename Operation, typename Quantization>
struct zero_point_must_fit_int8 {
  static constexpr bool holds = Quantization::value.zero_point >= -128 && Quantization::value.zero_point <= 127;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int8 quantization's zero point must lie in [-128, 127] (it is the int8 value of real "
                  "0); choose a range that contains 0, or clamp the zero point");
    return holds;
  }
};

/// A product sums K terms of at most 255 x 255 into an int32: K <= 33025.
template <typename Operation, typename Length, typename Limit>
struct int8_accumulator_must_not_overflow {
  static constexpr bool holds = Length::value <= Limit::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int8 product sums its K terms of up to 255 x 255 in an int32, which holds K <= 33025; "
                  "split the product along K and add the int32 partial sums in a wider type");
    return holds;
  }
};

/// An int8 layer's multipliers were derived for one input quantization; its input must have it.
template <typename Operation, typename InputQuantization, typename LayerQuantization>
struct input_quantization_must_match_layer {
  static constexpr bool holds = InputQuantization::value == LayerQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the int8 input is quantized with another scale or zero point than the layer was quantized "
                  "for; requantize the input, or quantize the layer for this input's quantization");
    return holds;
  }
};

/// An int8 result written into the caller's matrix: that matrix is quantized as the operation's result is (the
/// layer's multipliers were derived for that output quantization).
template <typename Operation, typename OutputQuantization, typename ResultQuantization>
struct output_quantization_must_match_result {
  static constexpr bool holds = OutputQuantization::value == ResultQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the int8 output matrix is quantized with another scale or zero point than the layer "
                  "produces; declare it with the layer's output quantization (the type of ctattn::project(x, layer))");
    return holds;
  }
};

/// An int8 key/value cache holds the rows W_K and W_V give, in their output quantizations: the attention's
/// multipliers were derived for them.
template <typename Operation, typename CacheQuantization, typename ProjectionQuantization>
struct int8_cache_must_hold_the_projections_quantization {
  static constexpr bool holds = CacheQuantization::value == ProjectionQuantization::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the int8 cache holds keys or values in another quantization than the attention's W_K or "
                  "W_V gives; declare the cache with their output quantizations (an int8 layer's `cache_type<N>`)");
    return holds;
  }
};

/// An int8 attention's mask hides keys (causal, padding, windows, boolean masks); it adds no real-valued bias to the
/// int8 scores, whose quantization has no room for it.
template <typename Operation, typename Mask>
struct int8_mask_must_hide_keys {
  static constexpr bool holds = !Mask::adds_bias;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: int8 attention takes masks that hide keys (causal, key padding, windows, boolean masks), "
                  "not an additive bias; add the bias in the float model, or express it as a boolean mask");
    return holds;
  }
};

/// Int8 LayerNorm holds each normalized value, at most sqrt(C - 1) in magnitude, with 24 fractional bits in an
/// int32: rows of C <= 16384 (ctattn/quantized/norm.hpp derives it).
template <typename Operation, typename Width, typename Limit>
struct int8_layer_norm_must_not_overflow {
  static constexpr bool holds = Width::value <= Limit::value;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: int8 LayerNorm holds each normalized value, up to sqrt(C - 1) in magnitude (sqrt(C) for "
                  "RMSNorm), with 24 fractional bits in an int32, which holds rows of C <= 16384 (16383 for "
                  "RMSNorm); normalize wider rows in float");
    return holds;
  }
};

/// An int8 encoder layer's feed-forward block runs its rows in blocks of Rows rows (`feed_forward<Rows>(h)`): a
/// block of no rows would run none.
template <typename Operation, typename Rows>
struct rows_per_block_must_be_positive {
  static constexpr bool holds = Rows::value >= 1;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: the feed-forward block runs its rows in blocks of Rows rows (feed_forward<Rows>(h)), and "
                  "Rows = 0 would run none; give 1 or more, or leave Rows out for the target's default");
    return holds;
  }
};

/// Int8 matrices are added and multiplied by `ctattn::add<Out>(a, b)` and `ctattn::multiply<Out>(a, b)`: the result
/// needs a quantization of its own, which an operator (`a + b`, `a * b`) or the float `multiply(a, b)` has no way to
/// take. Never holds: the operators and overloads that check it exist only to say so.
template <typename Operation, typename A, typename B>
struct int8_operation_needs_output_quantization {
  static constexpr bool holds = sizeof(A) == 0 && sizeof(B) == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: int8 matrices are added and multiplied by ctattn::add<Out>(a, b) and "
                  "ctattn::multiply<Out>(a, b), which take the result's quantization Out; an operator cannot take "
                  "it, so name the function and give Out");
    return holds;
  }
};

/// An int8 operation takes int8 operands only: a float operand is quantized first (`ctattn::quantize<Q>(x)`), or the
/// int8 one dequantized (`ctattn::dequantize(q)`) to compute in float. Never holds (see above).
template <typename Operation, typename A, typename B>
struct int8_operands_must_both_be_int8 {
  static constexpr bool holds = sizeof(A) == 0 && sizeof(B) == 0;
  static constexpr bool check() noexcept {
    static_assert(holds,
                  "ctattn: an int8 operation takes int8 operands only, and one operand here is a float matrix; "
                  "quantize it first (ctattn::quantize<Q>(x)), or dequantize the int8 one to compute in float "
                  "(ctattn::dequantize(q))");
    return holds;
  }
};

}  // namespace shape_error

namespace detail {
/// The rules of declaring a quantized matrix with quantization Q.
template <quantization Q>
using quantization_rules =
    rule_list<shape_error::scale_must_be_positive<op::quantized_matrix, quantization_constant<Q>>,
              shape_error::zero_point_must_fit_int8<op::quantized_matrix, quantization_constant<Q>>>;
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_RULES_HPP
// ---------------------------------------- ctattn/quantized/qmatrix.hpp (continued)

namespace ctattn {

/// A fixed-size, row-major int8 matrix quantized with Q: element (r, c) stands for
/// Q.scale() x (elements[r][c] - Q.zero_point). Dimensions as in `ctattn::matrix` (sizes or named extents).
/// Usually written `ctattn::qmatrix<Rows, Cols, Q>`.
///
/// | member                | meaning                                                        |
/// |-----------------------|----------------------------------------------------------------|
/// | `value_type`          | `std::int8_t`                                                  |
/// | `quantization_type`   | `quantization_constant<Q>`; `quant` is Q itself                |
/// | `row_extent`, `column_extent`, `rows`, `cols`, `size` | as `ctattn::matrix`            |
/// | `elements[r][c]`      | the int8 storage: `qmatrix q{}` zeros it (real -scale x zero_point), `qmatrix q;` leaves it uninitialized, as a C array |
/// | `(r, c)`              | element access                                                 |
/// | `real(r, c)`          | the real value it stands for, as a double                      |
///
/// Rules: the scale is positive and finite (`scale_must_be_positive`), the zero point an int8
/// (`zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr ctattn::qmatrix<2, 2, ctattn::quantization{0.5, 1}> q{{{1, 3}, {-1, 5}}};
///   static_assert(q.real(0, 1) == 1.0 && q.real(1, 0) == -1.0);
/// \endcode
template <auto Rows, auto Cols, quantization Q>
struct basic_qmatrix {
  static_assert((detail::first_broken<detail::quantization_rules<Q>>::check(), true));
  using value_type = std::int8_t;
  using quantization_type = quantization_constant<Q>;
  static constexpr quantization quant = Q;
  static constexpr auto row_extent = Rows;
  static constexpr auto column_extent = Cols;
  static constexpr std::size_t rows = extent_size(Rows);
  static constexpr std::size_t cols = extent_size(Cols);
  static constexpr std::size_t size = rows * cols;

  // Rationale: no default member initializer. The int8 operations write every element of their result, and a
  // zero-fill first was a `memset` per call (2-4% of the int8 sorter on the Cortex-M4F and the M55); `qmatrix{}`
  // still zeros the elements (aggregate value-initialization), and constant evaluation rejects a result with an
  // element left unwritten.
  std::int8_t elements[rows][cols];

  [[nodiscard]] constexpr std::int8_t& operator()(std::size_t r, std::size_t c) noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr std::int8_t operator()(std::size_t r, std::size_t c) const noexcept { return elements[r][c]; }
  [[nodiscard]] constexpr double real(std::size_t r, std::size_t c) const noexcept {
    return Q.scale() * static_cast<double>(std::int32_t{elements[r][c]} - Q.zero_point);
  }

  friend constexpr bool operator==(const basic_qmatrix&, const basic_qmatrix&) = default;
};

/// `qmatrix<Rows, Cols, Q>`: extents normalized, as `ctattn::matrix`.
template <auto Rows, auto Cols, quantization Q>
using qmatrix = basic_qmatrix<normalize_extent<Rows>, normalize_extent<Cols>, Q>;

namespace detail {
template <typename T>
struct is_basic_qmatrix : std::false_type {};
template <auto R, auto C, quantization Q>
struct is_basic_qmatrix<basic_qmatrix<R, C, Q>> : std::true_type {};

// round(v) with ties away from zero, saturated to [-2^31, 2^31 - 1]: exact (no v + 0.5, which rounds up the double
// just below 0.5), for constant evaluation and run time alike. NaN gives 0.
constexpr std::int64_t round_away(double v) noexcept {
  if (!(v == v)) return 0;
  const double magnitude = v < 0 ? -v : v;
  if (magnitude >= 2147483648.0) return v < 0 ? -2147483648LL : 2147483647LL;
  const auto whole = static_cast<std::int64_t>(magnitude);  // truncation: floor of a non-negative value
  const std::int64_t rounded = whole + (magnitude - static_cast<double>(whole) >= 0.5 ? 1 : 0);
  return v < 0 ? -rounded : rounded;
}

// Whether v is a float32 value: a scale a .tflite file can hold (its scales are float32).
constexpr bool is_float32(double v) noexcept {
  return v == v && v <= 3.4028234663852886e38 && v >= -3.4028234663852886e38 &&
         static_cast<double>(static_cast<float>(v)) == v;
}

// round(x / scale), ties away from zero, saturated to [-2^31, 2^31 - 1] (NaN gives 0): TFLite's quotient. For a
// float32 x and a float32 scale (one a .tflite file holds) the division is in float32, as TFLite's QUANTIZE and
// PerChannelQuantize divide; otherwise (a double x or a scale no float32 holds, which no TFLite model has) exactly
// rounded in double.
// Rationale: float32 division, then rounding, is what TFLite computes: x = -9.0371027f over 1.39032352f is exactly
// -6.5 in float32 (TFLite's q is then -7 before the zero point) but -6.4999... in double.
template <typename T>
constexpr std::int64_t rounded_quotient(T x, double scale) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    if (is_float32(scale)) return round_away(static_cast<double>(x / static_cast<float>(scale)));
  }
  return round_away(static_cast<double>(x) / scale);
}

// The product of two scales as TFLite's BATCH_MATMUL and per-tensor FULLY_CONNECTED take it before dividing by the
// output's scale: in float32 (then widened) when both are float32 values, else exact in double.
constexpr double scale_product(double a, double b) noexcept {
  if (is_float32(a) && is_float32(b)) return static_cast<double>(static_cast<float>(a) * static_cast<float>(b));
  return a * b;
}
}  // namespace detail

/// A quantized matrix (any `qmatrix`).
template <typename M>
concept QuantizedMatrix = detail::is_basic_qmatrix<std::remove_cvref_t<M>>::value;

namespace detail {
// Stops the build at an int8 operation that cannot be: an operator or a product with no output quantization on two
// int8 matrices (`int8_operation_needs_output_quantization`), or one with a float operand
// (`int8_operands_must_both_be_int8`).
// It returns the int8 operand's type, so that the refused call's result, held by the caller (`const auto c = a +
// b;`), adds no error of its own before the rule's.
template <typename Operation, typename A, typename B>
constexpr auto refuse_int8_operation() noexcept {
  if constexpr (QuantizedMatrix<A> && QuantizedMatrix<B>) {
    static_assert((shape_error::int8_operation_needs_output_quantization<Operation, A, B>::check(), true));
  } else {
    static_assert((shape_error::int8_operands_must_both_be_int8<Operation, A, B>::check(), true));
  }
  return std::conditional_t<QuantizedMatrix<A>, A, B>{};
}
}  // namespace detail

/// x quantized with Q, TFLite's QUANTIZE bit for bit: q = clamp(round(x / scale) + zero_point, -128, 127), ties
/// away from zero. For float x and a scale that is a float32 value (every scale of a .tflite file) the division is
/// in float32, as TFLite's; otherwise exactly rounded in double. NaN becomes the zero point (real 0); infinities
/// saturate.
///
/// | operand | shape                            |
/// |---------|----------------------------------|
/// | `x`     | R x C, float or double           |
/// | result  | `qmatrix<R, C, Q>` (x's extents) |
///
/// Example:
/// \code
///   constexpr auto q = ctattn::quantize<ctattn::quantization{0.5, 1}>(ctattn::matrix<float, 1, 3>{{{1.0f, -0.25f, 100}}});
///   static_assert(q(0, 0) == 3 && q(0, 1) == 0 && q(0, 2) == 127);   // -0.5 rounds away from zero to -1
/// \endcode
// Rationale: the functions of the quantized tier that return a named result spell out its type. With a deduced
// (`auto`) return type, Clang 14 builds the named result of a function template in a temporary and copies it out
// (no NRVO): a `memcpy` of the whole result per call, 5-10% of a small product on the Cortex-M55.
template <quantization Q, FixedMatrix X>
[[nodiscard]] constexpr auto quantize(const X& x) noexcept -> basic_qmatrix<X::row_extent, X::column_extent, Q> {
  basic_qmatrix<X::row_extent, X::column_extent, Q> q;
  for (std::size_t r = 0; r < X::rows; ++r) {
    for (std::size_t c = 0; c < X::cols; ++c) {
      const std::int64_t v = detail::rounded_quotient(x.elements[r][c], Q.scale()) + Q.zero_point;
      q.elements[r][c] = static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
  }
  return q;
}

/// The float matrix a quantized one stands for: scale x (q - zero_point), computed in double, rounded to float.
///
/// | operand | shape               |
/// |---------|---------------------|
/// | `q`     | `qmatrix<R, C, Q>`  |
/// | result  | `matrix<float, R, C>` (q's extents) |
///
/// Example: `constexpr auto x = ctattn::dequantize(q);`
template <QuantizedMatrix M>
[[nodiscard]] constexpr auto dequantize(const M& q) noexcept -> basic_matrix<float, M::row_extent, M::column_extent> {
  basic_matrix<float, M::row_extent, M::column_extent> x{};
  for (std::size_t r = 0; r < M::rows; ++r) {
    for (std::size_t c = 0; c < M::cols; ++c) x.elements[r][c] = static_cast<float>(q.real(r, c));
  }
  return x;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_QMATRIX_HPP
// ---------------------------------------- ctattn/quantized/activation.hpp (continued)

namespace ctattn {

namespace detail {
// The float activation layers (ctattn/layers/activation.hpp) derive from activation_layer<F>; declared, not
// included.
// Rationale: the layers tier needs Boost.Hana and the core does not; a declaration is all that deducing F needs,
// and the layer's type is complete wherever a user names it.
template <kernels::activation F>
struct activation_layer;

template <kernels::activation F>
constexpr kernels::activation activation_function_of(const activation_layer<F>*) noexcept {
  return F;
}

// An activation layer of the layers tier: `relu`, `gelu`, `gelu_tanh`, `silu`.
template <typename A>
concept activation_layer_type = requires(const A* a) { activation_function_of(a); };
}  // namespace detail

/// An int8 activation for inputs quantized with QIn and outputs with QOut, as a 256-entry table:
/// `table[q + 128]` is the output for the input q, for every int8 q.
///
/// | member                | meaning                                                        |
/// |-----------------------|----------------------------------------------------------------|
/// | `table`               | 256 int8 outputs, 256 bytes                                    |
/// | `input_quantization`, `output_quantization` | QIn, QOut                                |
/// | `(q)`                 | the output for one int8 input                                  |
///
/// Rules: QIn and QOut are quantizations (`scale_must_be_positive`, `zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr ctattn::quantization q_in{0.1, 0}, q_out{0.1, -128};
///   constexpr auto relu_q = ctattn::quantize_activation<q_in, q_out>(ctattn::relu{});
///   static_assert(relu_q(-5) == -128 && relu_q(7) == -121);   // real -0.5 -> 0, real 0.7 -> 0.7
/// \endcode
template <quantization QIn, quantization QOut>
struct qactivation {
  static_assert((detail::first_broken<detail::quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::quantization_rules<QOut>>::check(), true));
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;

  std::int8_t table[256]{};

  [[nodiscard]] constexpr std::int8_t operator()(std::int8_t q) const noexcept {
    return table[static_cast<std::size_t>(std::int32_t{q} + 128)];
  }

  /// `ctattn::activate(x, *this)`: the call of the layer protocol, as `qlinear::forward`.
  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return activate(x, *this);
  }

  /// The memory of `activate(x, table)` on an X (ctattn::footprint): the 256-byte table, X and the result.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qactivation), sizeof(X), sizeof(basic_qmatrix<X::row_extent, X::column_extent, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qactivation&, const qactivation&) = default;
};

/// The int8 table of a float activation layer for inputs QIn and outputs QOut:
/// `table[q + 128]` = quantize_QOut(f(QIn.scale() (q - QIn.zero_point))), f computed in double by the layer's own
/// definition (ctattn/kernels/activation.hpp, ctattn::math), quantized as `quantize` does (ties away from zero,
/// saturating). Each output is the int8 nearest to the activation of the input's real value: within half an output
/// step, unless it saturates.
///
/// | operand | what                                          |
/// |---------|-----------------------------------------------|
/// | `f`     | `relu{}`, `gelu{}`, `gelu_tanh{}` or `silu{}` (ctattn/layers/activation.hpp) |
/// | result  | `qactivation<QIn, QOut>`                      |
///
/// Example:
/// \code
///   constexpr auto gelu_q = ctattn::quantize_activation<q_hidden, q_gelu>(ctattn::gelu{});
/// \endcode
template <quantization QIn, quantization QOut, detail::activation_layer_type Activation>
[[nodiscard]] constexpr qactivation<QIn, QOut> quantize_activation(const Activation& /* f */) noexcept {
  constexpr detail::kernels::activation function =
      detail::activation_function_of(static_cast<const Activation*>(nullptr));
  qactivation<QIn, QOut> q{};
  for (std::int32_t v = -128; v <= 127; ++v) {
    const double x = QIn.scale() * static_cast<double>(v - QIn.zero_point);
    const double y = detail::kernels::activate<function>(x);
    const std::int64_t quantized = detail::round_away(y / QOut.scale()) + QOut.zero_point;
    q.table[v + 128] = static_cast<std::int8_t>(quantized < -128 ? -128 : (quantized > 127 ? 127 : quantized));
  }
  return q;
}

namespace detail {
template <typename X, quantization QIn>
using quantized_activation_rules =
    rule_list<shape_error::input_quantization_must_match_layer<op::quantized_activation, typename X::quantization_type,
                                                               quantization_constant<QIn>>>;
}  // namespace detail

/// The int8 activation of every element of x: one lookup in the table each.
///
/// | operand | shape                     |
/// |---------|---------------------------|
/// | `x`     | `qmatrix<R, C, QIn>`      |
/// | `f`     | `qactivation<QIn, QOut>`  |
/// | result  | `qmatrix<R, C, QOut>` (x's extents) |
///
/// Rules: x is quantized with the table's input quantization (`input_quantization_must_match_layer`).
///
/// Example:
/// \code
///   const auto h = ctattn::activate(hidden_q, gelu_q);
/// \endcode
template <QuantizedMatrix X, quantization QIn, quantization QOut>
[[nodiscard]] constexpr auto activate(const X& x, const qactivation<QIn, QOut>& f) noexcept
    -> basic_qmatrix<X::row_extent, X::column_extent, QOut> {
  basic_qmatrix<X::row_extent, X::column_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_activation_rules<X, QIn>>::check()) {
    detail::kernels::int8_lookup_rows(x.elements, y.elements, f.table);
  }
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ACTIVATION_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/add.hpp
#ifndef CTATTN_QUANTIZED_ADD_HPP
#define CTATTN_QUANTIZED_ADD_HPP

/// \file
/// The element-wise sum of two int8 matrices into a third quantization (a residual connection in int8), as
/// TensorFlow Lite's int8 ADD computes it: both inputs brought to a common scale, twice the larger input scale
/// divided by 2^20, then summed in int32 and requantized. The multipliers are derived by the compiler.



namespace ctattn {

namespace detail {
// The fixed-point constants of an int8 sum of inputs quantized QA and QB into Out.
template <quantization QA, quantization QB, quantization Out>
struct quantized_add_constants {
  static constexpr int left_shift = 20;
  static constexpr double twice_larger_scale = 2.0 * (QA.scale() > QB.scale() ? QA.scale() : QB.scale());
  static constexpr math::quantized_multiplier a = math::quantize_multiplier(QA.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier b = math::quantize_multiplier(QB.scale() / twice_larger_scale);
  static constexpr math::quantized_multiplier out =
      math::quantize_multiplier(twice_larger_scale / (static_cast<double>(1 << left_shift) * Out.scale()));
};

template <typename A, typename B, quantization Out>
using quantized_add_rules =
    rule_list<rows_rule<op::quantized_add, A, B>, columns_rule<op::quantized_add, A, B>, quantization_rules<Out>>;
}  // namespace detail

/// a + b element by element, quantized with `Out` (TFLite's int8 ADD): each input, less its zero point, shifted
/// left by 20 bits and scaled to the common scale 2 max(a_scale, b_scale) / 2^20, the two summed in int32, then
/// requantized to Out. The same bits in constant evaluation and at run time, on every target.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `a`     | `qmatrix<R, C, QA>`   |
/// | `b`     | `qmatrix<R, C, QB>`   |
/// | result  | `qmatrix<R, C, Out>`  |
///
/// Rules: a and b have the same rows and columns (`rows_must_match`, `columns_must_match`); Out is a quantization.
///
/// Example:
/// \code
///   constexpr auto h = ctattn::add<ctattn::quantization{0.1, 0}>(x_q, attention_q);   // x + attention(x), in int8
/// \endcode
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto add(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, A::column_extent, Out> {
  basic_qmatrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_add_rules<A, B, Out>>::check()) {
    using k = detail::quantized_add_constants<A::quant, B::quant, Out>;
    detail::kernels::int8_add_rows<k::a, k::b, k::left_shift, k::out>(
        a.elements, A::quant.zero_point, b.elements, B::quant.zero_point, Out.zero_point, out.elements);
  }
  return out;
}

/// `add<Out>(a, b)` with one float operand: refused at compile time (`int8_operands_must_both_be_int8`), with what
/// to write instead.
///
/// Example: `ctattn::add<q_sum>(x_q, ctattn::quantize<q_x>(residual))` rather than `ctattn::add<q_sum>(x_q, residual)`.
template <quantization Out, typename A, typename B>
  requires((QuantizedMatrix<A> && FixedMatrix<B>) || (FixedMatrix<A> && QuantizedMatrix<B>))
constexpr auto add(const A&, const B&) noexcept {
  return detail::refuse_int8_operation<op::quantized_add, A, B>();
}

/// `a + b` with an int8 operand: refused at compile time, with what to write instead (`ctattn::add<Out>(a, b)`;
/// `int8_operation_needs_output_quantization`, or `int8_operands_must_both_be_int8` for a float operand).
///
/// Example: `ctattn::add<q_sum>(a_q, b_q)` rather than `a_q + b_q`.
template <typename A, typename B>
  requires(QuantizedMatrix<A> || QuantizedMatrix<B>)
constexpr auto operator+(const A&, const B&) noexcept {
  return detail::refuse_int8_operation<op::quantized_add, A, B>();
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ADD_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/attention.hpp
#ifndef CTATTN_QUANTIZED_ATTENTION_HPP
#define CTATTN_QUANTIZED_ATTENTION_HPP

/// \file
/// Attention in int8: softmax(Q K^T / sqrt(d_k)) V with int8 operands, int32 sums and the fixed-point
/// requantizations of ctattn/math/fixed_point.hpp, the scale 1 / sqrt(d_k) folded by the compiler into the scores'
/// multiplier; masks that hide keys; and multi-head attention over int8 projections. Integers only, so constant
/// evaluation and every target give the same bits. The products run through the int8 kernels
/// (ctattn/kernels/int8.hpp), which choose the target's SIMD or DSP form.


// ---------------------------------------- ctattn/quantized/linear.hpp
#ifndef CTATTN_QUANTIZED_LINEAR_HPP
#define CTATTN_QUANTIZED_LINEAR_HPP

/// \file
/// The int8 linear layer of TFLite's fully-connected operator with per-channel weights: int8 weights in PyTorch's
/// out x in layout, each output channel with its own symmetric scale, an int32 bias, and one fixed-point multiplier
/// per channel, all derived by the compiler from a float `ctattn::linear`.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `channel_scales<N>`                      | N positive scales (kept as the bits of doubles)               |
/// | `weight_scales(w)`                       | max \|w_c\| / 127 for each row c of an out x in weight          |
/// | `qlinear<In, Out, QIn, QOut>`            | the int8 layer: int8 `weight`, int32 `folded_bias`, per-channel `multipliers` |
/// | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` | the same with int4 weights (`weight_format::int4`), or one scale and multiplier (`weight_granularity::per_tensor`) |
/// | `quantize_linear<QIn, QOut>(l[, scales])`| a float `linear<float, In, Out, out_by_in, HasBias>` quantized |
/// | `project(x, layer)`                      | y = x W^T + b: `qmatrix<n, In, QIn>` to `qmatrix<n, Out, QOut>` |
/// | `project_into(y, x, layer)`              | the same into the caller's `qmatrix<n, Out, QOut>`              |
///
/// Example:
/// \code
///   constexpr auto q_in = ctattn::quantization_for_range(ctattn::observed_range(calibration_inputs));
///   constexpr auto q_out = ctattn::quantization_for_range(ctattn::observed_range(calibration_outputs));
///   constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);   // scales: weight_scales(head.weight)
///   const auto y = ctattn::project(ctattn::quantize<q_in>(x), head_q);
/// \endcode


// ---------------------------------------- ctattn/quantized/weights.hpp
#ifndef CTATTN_QUANTIZED_WEIGHTS_HPP
#define CTATTN_QUANTIZED_WEIGHTS_HPP

/// \file
/// How a quantized layer stores its weights: `ctattn::weight_format` (int8, or int4 two a byte), and
/// `ctattn::int4_weights`, an out x in matrix of int4 values in TFLite's dense packing.
///
/// | entity                         | what                                                                 |
/// |--------------------------------|----------------------------------------------------------------------|
/// | `weight_format::int8`          | one int8 a weight (the default)                                      |
/// | `weight_format::int4`          | two int4 weights a byte, [-7, 7] from `quantize_linear` (TFLite's range), half the flash |
/// | `int4_weights<Out, In>`        | the packed bytes, `(r, c)` reads one value                           |
/// | `int4_weights<Out, In>::from_values(v)` | packs int8 values in [-8, 7], at compile time              |
/// | `weight_granularity::per_channel`, `::per_tensor` | one scale per output channel (the default), or one for all |
///
/// Example:
/// \code
///   constexpr auto w = ctattn::int4_weights<2, 3>::from_values({{1, -2, 3}, {-8, 7, 0}});
///   static_assert(w.packed[0] == 0xE1 && w(1, 0) == -8);
/// \endcode



namespace ctattn {

/// How a quantized linear layer (`ctattn::qlinear`) stores its weights. Both give TFLite's int8 fully-connected
/// arithmetic (TFLite unpacks int4 weights to int8 before its int8 kernel); int4 halves the weights' flash and
/// rounds each weight to one of 15 steps instead of 255.
///
/// | value   | storage                          | TFLite tensor type |
/// |---------|----------------------------------|--------------------|
/// | `int8`  | `std::int8_t weight[Out][In]`    | INT8               |
/// | `int4`  | `int4_weights<Out, In>`          | INT4               |
///
/// Example: `ctattn::qlinear<64, 32, q_in, q_out, ctattn::weight_format::int4> layer;`
enum class weight_format : unsigned char { int8, int4 };

/// Whether a quantized linear layer's weights have one scale per output channel or one for the whole matrix.
/// TFLite takes both for int8 weights; TFLite Micro's int4 FULLY_CONNECTED and CMSIS-NN's `arm_fully_connected_s4`
/// take int4 weights per tensor only. Per tensor, a layer keeps one fixed-point multiplier, derived as TFLite's
/// per-tensor FULLY_CONNECTED derives it (the input and weight scales multiplied in float32, then divided by the
/// output's scale in double), rather than one per channel: 8 bytes of flash per channel less.
///
/// | value         | scales | multipliers kept |
/// |---------------|--------|------------------|
/// | `per_channel` | Out    | Out              |
/// | `per_tensor`  | 1      | 1                |
///
/// Example: `ctattn::qlinear<64, 32, q_in, q_out, ctattn::weight_format::int4, ctattn::weight_granularity::per_tensor> layer;`
enum class weight_granularity : unsigned char { per_channel, per_tensor };

namespace detail {
// Reached in constant evaluation by a value outside [-8, 7] given to `int4_weights::from_values`: the build stops
// here, this function's name in the compiler's message.
inline void int4_weight_must_be_between_minus_8_and_7() noexcept {}
}  // namespace detail

template <std::size_t Out, std::size_t In>
struct int4_weights;

namespace detail {
// The packing of values already in [-8, 7] (`quantize_linear`'s, clamped to [-7, 7]): each value's low four bits.
template <std::size_t Out, std::size_t In>
constexpr int4_weights<Out, In> int4_packing_of(const std::int8_t (&values)[Out][In]) noexcept;
}  // namespace detail

/// An Out x In matrix of int4 weights (PyTorch's out x in layout) in TFLite's dense packing: the values in
/// row-major order, value 2i in the low nibble of `packed[i]` and value 2i + 1 in its high nibble, each a two's
/// complement 4-bit number; with an odd Out x In the last byte's high nibble is 0. Any byte is a valid pair, so
/// bytes read from a file need no check.
///
/// | member            | meaning                                                  |
/// |-------------------|----------------------------------------------------------|
/// | `rows`, `cols`    | Out, In                                                  |
/// | `packed`          | (Out In + 1) / 2 bytes                                   |
/// | `(r, c)`          | the value at row r, column c, in [-8, 7]                 |
/// | `from_values(v)`  | the packing of int8 values (compile time; a value outside [-8, 7] stops the build) |
///
/// Example:
/// \code
///   constexpr ctattn::int4_weights<1, 2> w{{0xF3}};   // {3, -1}
///   static_assert(w(0, 0) == 3 && w(0, 1) == -1);
/// \endcode
template <std::size_t Out, std::size_t In>
struct int4_weights {
  static constexpr std::size_t rows = Out;
  static constexpr std::size_t cols = In;
  static constexpr std::size_t bytes = detail::kernels::int4_packed_bytes<Out, In>;

  std::uint8_t packed[bytes]{};

  [[nodiscard]] constexpr std::int8_t operator()(std::size_t r, std::size_t c) const noexcept {
    return detail::kernels::int4_value(packed, r * In + c);
  }

  /// The packing of Out x In values, each in [-8, 7]; a value outside stops the build
  /// (`int4_weight_must_be_between_minus_8_and_7` in the compiler's message).
  // Rationale: consteval, so that no value is silently wrapped or saturated: weights computed at run time come from
  // a file's packed bytes, where every byte is valid.
  [[nodiscard]] static consteval int4_weights from_values(const std::int8_t (&values)[Out][In]) noexcept {
    for (std::size_t r = 0; r < Out; ++r) {
      for (std::size_t c = 0; c < In; ++c) {
        if (values[r][c] < -8 || values[r][c] > 7) detail::int4_weight_must_be_between_minus_8_and_7();
      }
    }
    return detail::int4_packing_of(values);
  }

  friend constexpr bool operator==(const int4_weights&, const int4_weights&) = default;
};

namespace detail {
template <std::size_t Out, std::size_t In>
constexpr int4_weights<Out, In> int4_packing_of(const std::int8_t (&values)[Out][In]) noexcept {
  int4_weights<Out, In> w{};
  for (std::size_t r = 0; r < Out; ++r) {
    for (std::size_t c = 0; c < In; ++c) {
      const std::size_t i = r * In + c;
      const auto nibble = static_cast<unsigned>(values[r][c]) & 0xFu;
      w.packed[i / 2] = static_cast<std::uint8_t>(w.packed[i / 2] | (i % 2 == 0 ? nibble : nibble << 4));
    }
  }
  return w;
}
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_WEIGHTS_HPP
// ---------------------------------------- ctattn/quantized/linear.hpp (continued)

namespace ctattn {

namespace detail {
// The input's scale times a weight scale as TFLite takes it for a layer of this granularity, once for the
// multipliers and the biases: per tensor as GetQuantizedConvolutionMultipler does (`scale_product`: in float32 when
// both are float32 values, as BATCH_MATMUL's), per channel exact in double (PerChannelQuantize's).
template <weight_granularity Granularity>
[[nodiscard]] constexpr double input_weight_scale(double input_scale, double weight_scale) noexcept {
  if constexpr (Granularity == weight_granularity::per_tensor) {
    return scale_product(input_scale, weight_scale);
  } else {
    return input_scale * weight_scale;
  }
}
}  // namespace detail

/// The symmetric scales of N output channels (zero point 0), as the bits of doubles (a structural type, so usable as
/// a template argument too).
///
/// Example: `constexpr ctattn::channel_scales<2> s{{0.01, 0.02}}; static_assert(s[1] == 0.02);`
template <std::size_t N>
struct channel_scales {
  std::uint64_t bits[N]{};

  constexpr channel_scales() noexcept = default;
  constexpr explicit channel_scales(const double (&scales)[N]) noexcept {
    for (std::size_t c = 0; c < N; ++c) bits[c] = std::bit_cast<std::uint64_t>(scales[c]);
  }
  /// From float32 scales, as a .tflite file stores a per-channel quantization's (each kept exactly).
  constexpr explicit channel_scales(const float (&scales)[N]) noexcept {
    for (std::size_t c = 0; c < N; ++c) bits[c] = std::bit_cast<std::uint64_t>(static_cast<double>(scales[c]));
  }
  [[nodiscard]] constexpr double operator[](std::size_t c) const noexcept { return std::bit_cast<double>(bits[c]); }
  friend constexpr bool operator==(const channel_scales&, const channel_scales&) = default;
};

/// The symmetric scales of an out x in weight matrix (PyTorch's layout): per channel (the default), max |w_c| / 127
/// for each row c (max |w_c| / 7 for `weight_format::int4`, TFLite's int4 range), 1 for a row of zeros; per tensor
/// (`weight_granularity::per_tensor`), one scale, max |w| / 127 (or / 7) over the whole matrix.
///
/// Example: `constexpr auto scales = ctattn::weight_scales(layer.weight, ctattn::weight_format::int4);`
template <weight_granularity Granularity = weight_granularity::per_channel, FixedMatrix W>
[[nodiscard]] constexpr auto weight_scales(const W& w, weight_format format = weight_format::int8) noexcept {
  constexpr bool per_tensor = Granularity == weight_granularity::per_tensor;
  const double steps = format == weight_format::int4 ? 7.0 : 127.0;
  channel_scales<per_tensor ? 1 : W::rows> scales{};
  double tensor_largest = 0.0;
  for (std::size_t c = 0; c < W::rows; ++c) {
    double largest = 0.0;
    for (std::size_t k = 0; k < W::cols; ++k) {
      const double magnitude =
          w.elements[c][k] < 0 ? -static_cast<double>(w.elements[c][k]) : static_cast<double>(w.elements[c][k]);
      largest = magnitude > largest ? magnitude : largest;
    }
    if constexpr (per_tensor) {
      tensor_largest = largest > tensor_largest ? largest : tensor_largest;
    } else {
      scales.bits[c] = std::bit_cast<std::uint64_t>(largest > 0.0 ? largest / steps : 1.0);
    }
  }
  if constexpr (per_tensor)
    scales.bits[0] = std::bit_cast<std::uint64_t>(tensor_largest > 0.0 ? tensor_largest / steps : 1.0);
  return scales;
}

/// An int8 linear layer, y = x W^T + b, for inputs quantized with QIn and outputs with QOut: weights int8 with one
/// symmetric scale per output channel (zero point 0), the bias int32 with scale QIn.scale() x scale_c (zero point
/// 0), and each channel's fixed-point multiplier QIn.scale() x scale_c / QOut.scale(), which the constructor derives
/// from the scales (TFLite stores the same per-channel multipliers and shifts with its weights).
///
/// | member / operand | shape / meaning                                                   |
/// |------------------|-------------------------------------------------------------------|
/// | `weight`         | Out x In int8 (PyTorch's layout), or `int4_weights<Out, In>` for `weight_format::int4` |
/// | `weight_value(c, k)` | weight (c, k) in either format                                |
/// | `folded_bias`    | Out int32: the bias less QIn's zero point times the channel's weight sum |
/// | `bias(c)`        | TFLite's int32 bias of channel c                                  |
/// | `multipliers`    | `scale_count` `math::quantized_multiplier`s (Out, or 1 per tensor), derived from QIn, QOut and the weight scales |
///
/// Rationale: the bias is kept folded, b_c - z_in sum_k w_ck, computed here by the compiler for a constexpr layer:
/// then sum_k (x_k - z_in) w_ck + b_c = sum_k x_k w_ck + folded_bias_c, and the kernel multiplies the raw int8 inputs
/// (16 per `vmladava.s8` on Helium, with no widening or zero-point subtraction), where a run-time library sums the
/// weights at start-up into a RAM buffer. The sums wrap modulo 2^32, exact wherever TFLite's int32 sum is defined.
/// Rationale: the multipliers are data, computed once where the layer is made (by the compiler, for a constexpr
/// layer), rather than template arguments, so that a model's many layers need no scales in their types; they are
/// set by the constructor only, so that weights and scales cannot disagree with them. The scales themselves are not
/// kept: inference never reads them, and a firmware image would carry 8 bytes of flash per channel for nothing.
///
/// With `weight_format::int4` (Weights) the weights are int4, two a byte in TFLite's packing (`int4_weights`):
/// half the flash, the same arithmetic on their values (TFLite's int8 fully-connected after it unpacks them). With
/// `weight_granularity::per_tensor` (Granularity) the weights have one scale (`channel_scales<1>`) and the layer one
/// multiplier, TFLite's per-tensor FULLY_CONNECTED's: s_in s_w in float32 when both are float32 values, then divided
/// by s_out in double (the only form TFLite Micro and CMSIS-NN take for int4 weights).
///
/// Example:
/// \code
///   constexpr ctattn::qlinear<2, 1, q_in, q_out> layer{{{64, -127}}, {10}, ctattn::channel_scales<1>{{0.01}}};
///   constexpr auto y = ctattn::project(x_q, layer);    // x_q: qmatrix<n, 2, q_in>
///   constexpr ctattn::qlinear<2, 1, q_in, q_out, ctattn::weight_format::int4> small{
///       ctattn::int4_weights<1, 2>::from_values({{7, -7}}), {10}, ctattn::channel_scales<1>{{0.18}}};
///   constexpr ctattn::qlinear<2, 2, q_in, q_out, ctattn::weight_format::int4, ctattn::weight_granularity::per_tensor>
///       tensor{ctattn::int4_weights<2, 2>::from_values({{7, -7}, {1, 2}}), {10, 0}, ctattn::channel_scales<1>{{0.18}}};
/// \endcode
template <auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel>
struct qlinear {
  static_assert((detail::first_broken<detail::quantization_rules<QIn>>::check(), true));
  static_assert((detail::first_broken<detail::quantization_rules<QOut>>::check(), true));
  static constexpr auto input_extent = normalize_extent<In>;
  static constexpr auto output_extent = normalize_extent<Out>;
  static constexpr std::size_t inputs = extent_size(In);
  static constexpr std::size_t outputs = extent_size(Out);
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr weight_format format = Weights;
  static constexpr weight_granularity granularity = Granularity;
  static constexpr bool int4 = Weights == weight_format::int4;
  /// The weight scales and multipliers the layer has: one per output channel, or one.
  static constexpr std::size_t scale_count = Granularity == weight_granularity::per_tensor ? 1 : outputs;

  /// The weights' type: `std::int8_t[Out][In]`, or `int4_weights<Out, In>` for `weight_format::int4`.
  using weight_type = std::conditional_t<int4, int4_weights<outputs, inputs>, std::int8_t[outputs][inputs]>;

  weight_type weight{};
  std::int32_t folded_bias[outputs]{};
  math::quantized_multiplier multipliers[scale_count]{};
  /// The same weights, folded biases, multipliers and output zero point packed for this build's int8
  /// fully-connected kernel (kernels/detail/int8_packed.hpp: AVX-512 VNNI, AVX-VNNI, AArch64 `sdot`), made by the
  /// constructor; empty on every other target.
  // Rationale: packed where the layer is made, by the compiler for a constexpr layer, so that the kernel reads the
  // layout its instruction wants and nothing is summed or reordered at run time. The members are public for
  // reading (and for structural types); a layer changed member by member after it is made would leave `packed`
  // behind, so layers are made by the constructor or `quantize_linear`.
  [[no_unique_address]] std::conditional_t<int4, detail::int8_packed::no_packed_weights,
                                           detail::kernels::int8_packed_weights<outputs, inputs>> packed{};

  /// All weights and biases 0 (every output is QOut's zero point).
  constexpr qlinear() noexcept = default;

  /// The layer of these int8 weights, int32 biases and weight scales (per channel, or one per tensor).
  constexpr qlinear(const std::int8_t (&int8_weights)[outputs][inputs], const std::int32_t (&int32_biases)[outputs],
                    const channel_scales<scale_count>& weight_scale) noexcept
    requires(!int4)
  {
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      for (std::size_t input = 0; input < inputs; ++input) weight[channel][input] = int8_weights[channel][input];
    }
    derive(int32_biases, weight_scale);
  }

  /// The layer of these int4 weights (`weight_format::int4`), int32 biases and weight scales.
  constexpr qlinear(const int4_weights<outputs, inputs>& int4_packed_weights,
                    const std::int32_t (&int32_biases)[outputs],
                    const channel_scales<scale_count>& weight_scale) noexcept
    requires(int4)
      : weight(int4_packed_weights) {
    derive(int32_biases, weight_scale);
  }

  /// Weights of another format or shape, or scales of another count (`channel_scales<Out>` per channel, one per
  /// tensor): not a layer; the build stops with the broken rule's sentence (`layer_weights_must_have_its_format`,
  /// `weight_scales_must_match_granularity`).
  // Rationale: a template, so that a braced list of weights never reaches it (nothing is deduced from one); a
  // mistake then names what is wrong rather than listing the constructors that do not match.
  template <typename W, std::size_t S>
    requires(!std::is_same_v<W, weight_type>)
  constexpr qlinear(const W&, const std::int32_t (&)[outputs], const channel_scales<S>&) noexcept {
    static_assert(
        (detail::first_broken<
             rule_list<shape_error::layer_weights_must_have_its_format<op::quantized_projection, weight_type, W>,
                       shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                         count<scale_count>>>>::check(),
         true));
  }
  /// The same for the layer's weights (or a braced list of them) with scales of another count.
  template <std::size_t S>
    requires(S != scale_count)
  constexpr qlinear(const weight_type&, const std::int32_t (&)[outputs], const channel_scales<S>&) noexcept {
    static_assert((shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                     count<scale_count>>::check(),
                   true));
  }

  /// Weight (c, k): `weight[c][k]`, or the int4 value (c, k).
  [[nodiscard]] constexpr std::int32_t weight_value(std::size_t c, std::size_t k) const noexcept {
    if constexpr (int4) {
      return weight(c, k);
    } else {
      return weight[c][k];
    }
  }

  /// The int32 bias of channel c as TFLite stores it: folded_bias[c] + QIn's zero point times the channel's weight
  /// sum.
  [[nodiscard]] constexpr std::int32_t bias(std::size_t c) const noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(folded_bias[c]) +
                                     static_cast<std::uint32_t>(QIn.zero_point * weight_sum(c)));
  }

  /// sum_k weight[c][k] (at most 127 x 33025 in magnitude).
  [[nodiscard]] constexpr std::int32_t weight_sum(std::size_t c) const noexcept {
    std::int32_t sum = 0;
    for (std::size_t k = 0; k < inputs; ++k) sum += weight_value(c, k);
    return sum;
  }

 private:
  // The folded biases, multipliers and packed copy of the weights already set.
  constexpr void derive(const std::int32_t (&int32_biases)[outputs],
                        const channel_scales<scale_count>& weight_scale) noexcept {
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      folded_bias[channel] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(int32_biases[channel]) -
                                    static_cast<std::uint32_t>(QIn.zero_point * weight_sum(channel)));
    }
    for (std::size_t s = 0; s < scale_count; ++s) {
      multipliers[s] = math::quantize_multiplier(detail::input_weight_scale<Granularity>(QIn.scale(), weight_scale[s]) /
                                                 QOut.scale());
    }
    if constexpr (!int4) {
      math::quantized_multiplier each[outputs]{};
      for (std::size_t channel = 0; channel < outputs; ++channel)
        each[channel] = multipliers[scale_count == 1 ? 0 : channel];
      packed = detail::kernels::int8_packed_weights<outputs, inputs>{weight, folded_bias, each, QOut.zero_point};
    }
  }

 public:
  /// `ctattn::project(x, *this)`: the call of the layer protocol (ctattn/layers/layer.hpp), so that an int8 model
  /// chains it as a float one chains `ctattn::linear`.
  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(x, *this);
  }

  /// The memory of `project(x, layer)` on an X (ctattn::footprint, as the float layers give theirs): the layer's
  /// object (weights, folded biases, multipliers, and the packed copy on a build with a packed kernel: flash when
  /// constexpr), X and the result, and on the stack the product kernel's scratch on any backend
  /// (`detail::kernels::int8_product_stack_bytes`: one int32 per output channel on x86 and NEON, or the packed
  /// kernel's staged rows of X, up to 8 of In bytes; the rows of X widened to int16 in blocks of up to 6 on the
  /// Cortex-M DSP); with int4 weights, a block of output channels unpacked to int8 too
  /// (`detail::kernels::int4_product_stack_bytes`).
  ///
  /// Example: `static_assert(ctattn::qlinear<32, 64, q_in, q_out>::footprint_of<x_type>().weight_bytes == 32 * 64 + 64 * 12);`
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t stack = int4 ? detail::kernels::int4_product_stack_bytes<X::rows, inputs, outputs>
                                       : detail::kernels::int8_product_stack_bytes<X::rows, inputs, outputs>;
    return {sizeof(qlinear), sizeof(X), sizeof(basic_qmatrix<X::row_extent, output_extent, QOut>), 0, stack};
  }

  friend constexpr bool operator==(const qlinear&, const qlinear&) = default;
};

/// A float linear layer (PyTorch's out x in weights, with or without bias) quantized for inputs QIn and outputs
/// QOut, with the weight scales `scales` (by default `weight_scales<Granularity>(l.weight, Weights)`): each weight
/// round(w / scale_c) clamped to [-127, 127] ([-7, 7] for `weight_format::int4`, TFLite's int4 range; the division
/// in float32 for float weights and float32 scales, as TFLite's PerChannelQuantize divides), each bias round(b /
/// (QIn.scale() x scale_c)) (ties away from zero; per tensor, the scales' product as `detail::scale_product` takes
/// it). Scales copied from a .tflite file: `channel_scales<N>{{0.0123f, ...}}` keeps each float32 exactly; per
/// tensor, `channel_scales<1>`.
///
/// Example:
/// \code
///   constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
///   constexpr auto head_q4 = ctattn::quantize_linear<q_in, q_out, ctattn::weight_format::int4>(head);   // half the flash
///   constexpr auto head_t4 = ctattn::quantize_linear<q_in, q_out, ctattn::weight_format::int4,
///                                                    ctattn::weight_granularity::per_tensor>(head);  // TFLite Micro's int4
/// \endcode
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias,
          std::size_t S>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l,
                                             const channel_scales<S>& scales) noexcept {
  using result = qlinear<In, Out, QIn, QOut, Weights, Granularity>;
  if constexpr (!shape_error::weight_scales_must_match_granularity<op::quantized_projection, count<S>,
                                                                   count<result::scale_count>>::check()) {
    return result{};
  } else {
    constexpr std::size_t outputs = extent_size(Out);
    constexpr std::size_t inputs = extent_size(In);
    constexpr std::int64_t largest = Weights == weight_format::int4 ? 7 : 127;
    std::int8_t int8_weights[outputs][inputs]{};
    std::int32_t int32_biases[outputs]{};
    for (std::size_t channel = 0; channel < outputs; ++channel) {
      const double scale = scales[result::scale_count == 1 ? 0 : channel];
      for (std::size_t input = 0; input < inputs; ++input) {
        const std::int64_t rounded = detail::rounded_quotient(l.weight.elements[channel][input], scale);
        int8_weights[channel][input] =
            static_cast<std::int8_t>(rounded < -largest ? -largest : (rounded > largest ? largest : rounded));
      }
      if constexpr (HasBias) {
        const double bias_scale = detail::input_weight_scale<Granularity>(QIn.scale(), scale);
        int32_biases[channel] = static_cast<std::int32_t>(
            detail::round_away(static_cast<double>(l.bias.elements[0][channel]) / bias_scale));
      }
    }
    if constexpr (Weights == weight_format::int4) {
      return result{detail::int4_packing_of(int8_weights), int32_biases, scales};
    } else {
      return result{int8_weights, int32_biases, scales};
    }
  }
}

/// \copydoc quantize_linear
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename T, auto In, auto Out, bool HasBias>
[[nodiscard]] constexpr auto quantize_linear(const basic_linear<T, In, Out, out_by_in, HasBias>& l) noexcept {
  return quantize_linear<QIn, QOut, Weights, Granularity>(l, weight_scales<Granularity>(l.weight, Weights));
}

namespace detail {
// The layer's product of rows x (M x In int8) into rows y (M x Out int8), its weights read in their format: the
// kernel `project_into` runs once its rules hold, and int8 attention writing Q into its context's bytes.
template <std::size_t M, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
constexpr void fully_connected_rows(const std::int8_t (&x)[M][extent_size(In)],
                                    const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer,
                                    std::int8_t (&y)[M][extent_size(Out)]) noexcept {
  if constexpr (Weights == weight_format::int4) {
    kernels::int4_fully_connected(x, layer.weight.packed, layer.folded_bias, layer.multipliers, QOut.zero_point, y);
  } else {
    kernels::int8_fully_connected(x, layer.weight, layer.folded_bias, layer.multipliers, QOut.zero_point, y,
                                  layer.packed);
  }
}

template <typename X, typename L>
using quantized_projection_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::quantized_projection, dim_of<X::column_extent>,
                                             dim_of<L::input_extent>>,
    shape_error::input_quantization_must_match_layer<op::quantized_projection, typename X::quantization_type,
                                                     quantization_constant<L::input_quantization>>,
    shape_error::int8_accumulator_must_not_overflow<op::quantized_projection, count<L::inputs>, count<33025>>>;
template <typename Y, typename X, typename L>
using quantized_projection_into_rules = rule_list<
    quantized_projection_rules<X, L>, rows_rule<op::quantized_projection, Y, X>,
    shape_error::columns_must_match<op::quantized_projection, dim_of<Y::column_extent>, dim_of<L::output_extent>>,
    shape_error::output_quantization_must_match_result<op::quantized_projection, typename Y::quantization_type,
                                                       quantization_constant<L::output_quantization>>>;
}  // namespace detail

/// `ctattn::project` of an int8 layer (below) writing into `y`, the caller's storage: a static buffer in firmware,
/// or a matrix reused call after call (no result on the stack, no copy). Same rules and bits as `project`.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `y`     | `qmatrix<n, Out, QOut>` (overwritten) |
/// | `x`     | `qmatrix<n, In, QIn>`              |
/// | `layer` | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` |
///
/// Rules: those of `project`; y has x's rows (`rows_must_match`), Out columns (`columns_must_match`) and QOut
/// (`output_quantization_must_match_result`).
///
/// Example:
/// \code
///   static constexpr auto head_q = ctattn::quantize_linear<q_in, q_out>(head);
///   static ctattn::qmatrix<6, 1, q_out> y;   // .bss, not the stack
///   ctattn::project_into(y, x_q, head_q);
/// \endcode
template <QuantizedMatrix Y, QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut,
          weight_format Weights, weight_granularity Granularity>
constexpr void project_into(Y& y, const X& x, const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer) noexcept {
  using L = qlinear<In, Out, QIn, QOut, Weights, Granularity>;
  if constexpr (detail::first_broken<detail::quantized_projection_into_rules<Y, X, L>>::check()) {
    detail::fully_connected_rows(x.elements, layer, y.elements);
  }
}

/// y = x W^T + b in int8: for each output channel c, the int32 sum of (x - x_zero) w_c plus the bias, times the
/// channel's multiplier, plus QOut's zero point, clamped (TFLite's per-channel fully-connected). The same bits in
/// constant evaluation and at run time, on every target.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `x`     | `qmatrix<n, In, QIn>`              |
/// | `layer` | `qlinear<In, Out, QIn, QOut, Weights, Granularity>` (int8 or int4 weights, per channel or tensor) |
/// | result  | `qmatrix<n, Out, QOut>`            |
///
/// Rules: x's width is In (`inner_dimensions_must_match`), x is quantized as the layer expects
/// (`input_quantization_must_match_layer`), In <= 33025.
template <QuantizedMatrix X, auto In, auto Out, quantization QIn, quantization QOut, weight_format Weights,
          weight_granularity Granularity>
[[nodiscard]] constexpr auto project(const X& x,
                                     const qlinear<In, Out, QIn, QOut, Weights, Granularity>& layer) noexcept
    -> basic_qmatrix<X::row_extent, qlinear<In, Out, QIn, QOut, Weights, Granularity>::output_extent, QOut> {
  basic_qmatrix<X::row_extent, qlinear<In, Out, QIn, QOut, Weights, Granularity>::output_extent, QOut> y;
  project_into(y, x, layer);
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LINEAR_HPP
// ---------------------------------------- ctattn/quantized/attention.hpp (continued)
// ---------------------------------------- ctattn/quantized/softmax.hpp
#ifndef CTATTN_QUANTIZED_SOFTMAX_HPP
#define CTATTN_QUANTIZED_SOFTMAX_HPP

/// \file
/// The int8 softmax of each row, in integers only, with TensorFlow Lite's output quantization (scale 1/256, zero
/// point -128, so that the weights 0 to 1 use the whole int8 range), by one of two methods (`softmax_method`):
///
/// | method                     | each weight                                              | default |
/// |----------------------------|----------------------------------------------------------|---------|
/// | `softmax_method::rounded`  | the exact softmax of the table's terms, rounded to nearest | yes   |
/// | `softmax_method::tflite`   | TFLite's reference kernel's bits (and so CMSIS-NN's `arm_softmax_s8`'s) | |
///
/// Both read the input as its distance d = 0 to 255 from its row's maximum, through a table of 256 int32 terms the
/// compiler makes for the input's quantization (1 KiB of flash each), then sum the row's terms, take one reciprocal
/// per row and give each weight with a multiply and a shift: integers only after the table, so constant evaluation
/// and every target give the same bits.
/// - `rounded`: the table holds e^(-scale d) in Q20 (2^20 stands for 1), from ctattn::math::exp rounded to nearest;
///   each weight is round(256 term / sum) - 128, the sum in int64. Within one output step of the exact softmax of
///   the int8 input (tests/static/quantized_test.cpp).
/// - `tflite`: the table holds gemmlowp's fixed-point e^(-scale d) (`math::exp_on_negative_values<5>` of d scaled
///   by TFLite's input multiplier, 0 for a d beyond its `diff_min`), which TFLite computes for each element twice;
///   the sum in Q12.19, the reciprocal by three Newton steps (`math::reciprocal_of_sum`), each weight rounded from
///   it. The same bits as TFLite's (beta 1), so that a port checked against a `.tflite` model matches it entry for
///   entry. The two methods differ on about one row in four thousand, by one step in one weight near a rounding tie.
///
/// Rationale: `rounded` stays the default: its bound (within one output step of the exact softmax) holds by
/// construction, the Helium and AVX-512 backends have vector kernels for it, and models quantized before keep their
/// bits; `tflite` is there for ports that must match a `.tflite` model bit for bit (docs/quantized.md, "The softmax:
/// two methods").



namespace ctattn {

/// The quantization of int8 softmax outputs (TFLite's): weight w is round(256 w) - 128.
inline constexpr quantization softmax_output_quantization{1.0 / 256.0, -128};

/// How the int8 softmax computes its weights (this header's table): `rounded`, ctattn's, is the default; `tflite`
/// gives TFLite's reference bits.
///
/// Example: `constexpr auto w = ctattn::softmax_rows<ctattn::softmax_method::tflite>(scores_q);`
enum class softmax_method { rounded, tflite };

namespace detail {
/// e^(-Q.scale() d) in Q20 for d = 0 to 255, rounded to nearest (ties away from zero).
template <quantization Q>
inline constexpr std::array<std::int32_t, 256> softmax_exp_table = [] {
  std::array<std::int32_t, 256> table{};
  for (std::size_t d = 0; d < table.size(); ++d) {
    table[d] = static_cast<std::int32_t>(round_away(math::exp(-Q.scale() * static_cast<double>(d)) * 1048576.0));
  }
  return table;
}();

/// TFLite's e^(-Q.scale() d) for d = 0 to 255 in Q0.31, as its int8 softmax computes each element (beta 1):
/// the input multiplier from scale 2^26 (PreprocessSoftmaxScaling, 5 integer bits), the difference -d times it by
/// `math::multiply_by_quantized_multiplier` (for TFLite's left shift, its MultiplyByQuantizedMultiplierGreaterThanOne:
/// the shift, then `saturating_rounding_doubling_high_mul`), then `math::exp_on_negative_values<5>`; 0 where -d is
/// below diff_min = -floor(31 2^26 / 2^shift) (CalculateInputRadius), which TFLite leaves out of the row.
// Rationale: TFLite's Prepare refuses an input scale of 2^-26 or less (its multiplier must exceed 1); ctattn still
// makes a table there, with the multiplier's shift as it comes (a right shift below 2^-27): the same real product.
template <quantization Q>
inline constexpr std::array<std::int32_t, 256> tflite_softmax_exp_table = [] {
  constexpr int integer_bits = 5;
  const double cap = static_cast<double>((std::int64_t{1} << 31) - 1);
  const double real = Q.scale() * static_cast<double>(std::int64_t{1} << (31 - integer_bits));
  const math::quantized_multiplier m = math::quantize_multiplier(real < cap ? real : cap);
  const int shift = m.shift > 0 ? m.shift : 0;
  const double radius = 31.0 * static_cast<double>(std::int64_t{1} << (31 - integer_bits)) /
                        static_cast<double>(std::int64_t{1} << shift);
  const auto diff_min = -static_cast<std::int64_t>(radius);  // radius > 0: the cast is its floor
  std::array<std::int32_t, 256> table{};
  for (std::size_t d = 0; d < table.size(); ++d) {
    const std::int32_t diff = -static_cast<std::int32_t>(d);
    if (diff < diff_min) continue;
    table[d] = math::exp_on_negative_values<integer_bits>(math::multiply_by_quantized_multiplier(diff, m));
  }
  return table;
}();

/// The table and the kernel's per-row arithmetic of a `softmax_method`, for the input quantization Q.
template <softmax_method Method, quantization Q>
struct softmax_kernel {
  using method = kernels::rounded_softmax;
  static constexpr const auto& table = softmax_exp_table<Q>;
};
template <quantization Q>
struct softmax_kernel<softmax_method::tflite, Q> {
  using method = kernels::tflite_softmax;
  static constexpr const auto& table = tflite_softmax_exp_table<Q>;
};
}  // namespace detail

/// The softmax of each row of an int8 matrix, as int8 weights quantized with `softmax_output_quantization`:
/// w_j = e^(x_j) / sum_k e^(x_k) over the real values the row stands for, by `Method` (this header's table).
///
/// | operand | shape                                        |
/// |---------|----------------------------------------------|
/// | `x`     | `qmatrix<R, C, Q>`                           |
/// | result  | `qmatrix<R, C, softmax_output_quantization>` |
///
/// Example:
/// \code
///   constexpr auto w = ctattn::softmax_rows(scores_q);   // w(i, j) + 128 is 256 times the weight, rounded
///   constexpr auto w_tflite = ctattn::softmax_rows<ctattn::softmax_method::tflite>(scores_q);   // TFLite's bits
/// \endcode
template <softmax_method Method = softmax_method::rounded, QuantizedMatrix X>
[[nodiscard]] constexpr auto softmax_rows(const X& x) noexcept
    -> basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> {
  using kernel = detail::softmax_kernel<Method, X::quant>;
  basic_qmatrix<X::row_extent, X::column_extent, softmax_output_quantization> w;
  for (std::size_t r = 0; r < X::rows; ++r) {
    detail::kernels::int8_softmax_row<typename kernel::method>(x.elements[r], w.elements[r], 0, X::cols,
                                                               kernel::table.data(), nullptr);
  }
  return w;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_SOFTMAX_HPP
// ---------------------------------------- ctattn/quantized/attention.hpp (continued)

namespace ctattn {

namespace detail {

// The fixed-point multipliers of one int8 attention: scores from q_scale k_scale / (sqrt(d_k) scores_scale), the
// output from the softmax's 1/256 times v_scale / out_scale.
template <quantization QQ, quantization QK, quantization QV, quantization Scores, quantization Out, std::size_t DK>
struct int8_attention_multipliers {
  static constexpr math::quantized_multiplier scores =
      math::quantize_multiplier(QQ.scale() * QK.scale() / (math::sqrt(static_cast<double>(DK)) * Scores.scale()));
  static constexpr math::quantized_multiplier output =
      math::quantize_multiplier(softmax_output_quantization.scale() * QV.scale() / Out.scale());
};

// Where one head's columns start in Q, K, V and the output.
struct int8_head_columns {
  std::size_t query = 0;
  std::size_t key = 0;
  std::size_t value = 0;
  std::size_t output = 0;
};

/// V^T of an int8 V (n x d_v): d_v x n, its rows the value columns, in V's quantization.
template <QuantizedMatrix V>
[[nodiscard]] constexpr auto transposed_values(const V& v) noexcept {
  basic_qmatrix<V::column_extent, V::row_extent, V::quant> t;
  for (std::size_t j = 0; j < V::rows; ++j) {
    for (std::size_t c = 0; c < V::cols; ++c) t.elements[c][j] = v.elements[j][c];
  }
  return t;
}

/// An int8 matrix's elements read as a `qmatrix<R, C, Q>` (`int8_attend` reads `elements`, `rows` and `quant`):
/// Q written into the bytes of the context that replaces it (`multi_head_attention`).
template <std::size_t R, std::size_t C, quantization Q>
struct qmatrix_view {
  static constexpr quantization quant = Q;
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  const std::int8_t (&elements)[R][C];
};

/// Whether a mask restricts each query to a window of keys (`sliding_window`, `causal_sliding_window`, or a
/// combination with one): int8 attention then scores only the keys each query sees, O(r N), instead of all pairs.
template <typename Mask>
constexpr bool int8_mask_visits_a_window() noexcept {
  if constexpr (requires { Mask::radius; }) {
    return true;
  } else if constexpr (requires { typename Mask::first_mask; }) {
    return int8_mask_visits_a_window<typename Mask::first_mask>() ||
           int8_mask_visits_a_window<typename Mask::second_mask>();
  } else {
    return false;
  }
}

/// One head of int8 attention over column windows: queries q[:, query, query + DK), keys k[:, key, key + DK),
/// values v[:, value, value + DV), written to out[:, output, output + DV). For each query, only the keys the mask
/// lets it see are scored; a query that sees no key gets real 0 (the output's zero point). With `VTransposed`, v is
/// V^T (its rows are the value columns, rows [value, value + DV) this head's), as `multi_head_attention` makes it.
template <quantization Scores, softmax_method Softmax, std::size_t DK, std::size_t DV, bool VTransposed = false,
          typename Q, typename K, typename V, typename Mask, typename Out>
constexpr void int8_attend(const Q& q, const K& k, const V& v, const Mask& mask, Out& out,
                           const int8_head_columns& columns) noexcept {
  using multipliers = int8_attention_multipliers<Q::quant, K::quant, V::quant, Scores, Out::quant, DK>;
  constexpr std::size_t n_q = Q::rows;
  constexpr std::size_t n_kv = K::rows;
  using softmax = softmax_kernel<Softmax, Scores>;
  constexpr const auto& table = softmax::table;
  // The head's values transposed, so that each output column is a dot product along the keys: v itself when given
  // transposed, else a copy (int8: DV x n_kv bytes of stack). `value_row` is the head's first row in them.
  std::int8_t copied[VTransposed ? 1 : DV][VTransposed ? 1 : n_kv];
  if constexpr (!VTransposed) {
    for (std::size_t j = 0; j < n_kv; ++j) {
      for (std::size_t c = 0; c < DV; ++c) copied[c][j] = v.elements[j][columns.value + c];
    }
  }
  const auto& values = [&]() -> const auto& {
    if constexpr (VTransposed) {
      return v.elements;
    } else {
      return copied;
    }
  }();
  const std::size_t value_row = VTransposed ? columns.value : 0;
  // Rationale: one query (a decoding step over a cache) takes the path that scores only the keys it sees, so a step
  // costs the tokens cached so far, not the cache's capacity.
  if constexpr (!int8_mask_visits_a_window<Mask>() && n_q > 1) {
    // Every pair of query and key in two products (the kernels' tiles, Helium's vmladava.s8): the scores of all
    // keys, the softmax of each query over the keys it sees, then the weights times V over all keys, where a
    // hidden key's weight -128 is w + 128 = 0 and adds nothing. A query that sees no key gets the zero point.
    // Rationale: a block of queries at a time (`int8_attention_query_rows`), not all n_q, so that the scores and
    // the weights take 2 x rows x n_kv bytes of stack rather than 2 n_q n_kv: on a Cortex-M they were the largest
    // part of an inference's RAM (KWT-Tiny's 50 tokens: 5,000 of its 11,700 bytes). Every output element is the
    // same sum, so the bits do not depend on the block.
    constexpr std::size_t rows = n_q < kernels::int8_attention_query_rows ? n_q : kernels::int8_attention_query_rows;
    std::int8_t scores[rows][n_kv];
    std::int8_t weights[rows][n_kv];
    bool visible[n_kv];
    // The two products' column starts, made once for the head: each block's products share K and V^T.
    std::int32_t key_starts[n_kv];
    std::int32_t value_starts[DV];
    kernels::int8_column_starts<DK, n_kv>(k.elements, 0, columns.key, Q::quant.zero_point, K::quant.zero_point,
                                          key_starts);
    kernels::int8_column_starts<n_kv, DV>(values, value_row, 0, softmax_output_quantization.zero_point,
                                          V::quant.zero_point, value_starts);
    const auto attend_block = [&]<std::size_t M>(std::integral_constant<std::size_t, M>, std::size_t first) {
      kernels::int8_window_product_from_starts<M, DK, n_kv>(q.elements, first, columns.query, k.elements, 0,
                                                            columns.key, K::quant.zero_point, key_starts,
                                                            multipliers::scores, Scores.zero_point, scores, 0, 0);
      // Rationale: not i and j, which GCC's -Wshadow reports inside a lambda against a user's global i or j.
      for (std::size_t row = 0; row < M; ++row) {
        const key_range range = mask.keys(first + row, n_q, n_kv);
        const bool* filter = nullptr;
        if constexpr (Mask::checks_each_key) {
          for (std::size_t key = range.begin; key < range.end; ++key) visible[key] = mask.allowed(first + row, key);
          filter = visible;
        }
        for (std::size_t key = 0; key < range.begin && key < n_kv; ++key) weights[row][key] = -128;
        for (std::size_t key = range.end > range.begin ? range.end : range.begin; key < n_kv; ++key) {
          weights[row][key] = -128;
        }
        if (range.end > range.begin) {
          kernels::int8_softmax_row<typename softmax::method>(scores[row], weights[row], range.begin, range.end,
                                                              table.data(), filter);
        }
      }
      kernels::int8_window_product_from_starts<M, n_kv, DV>(weights, 0, 0, values, value_row, 0, V::quant.zero_point,
                                                            value_starts, multipliers::output, Out::quant.zero_point,
                                                            out.elements, first, columns.output);
    };
    kernels::for_each_row_block<n_q, rows>(attend_block);
    return;
  }
  for (std::size_t i = 0; i < n_q; ++i) {
    const key_range range = mask.keys(i, n_q, n_kv);
    const std::size_t seen = range.end > range.begin ? range.end - range.begin : 0;
    // Rationale: left uninitialized (C++20 allows it in constant evaluation): each entry is written before it is
    // read, and only within the query's range of keys; zeroing them for every query cost more than the softmax.
    std::int32_t sums[n_kv > DV ? n_kv : DV];
    std::int8_t scores[n_kv];
    std::int8_t weights[1][n_kv];
    bool visible[n_kv];
    if (seen > 0) {
      kernels::int8_dot_rows<DK>(q.elements, i, columns.query, Q::quant.zero_point, k.elements, range.begin,
                                 columns.key, K::quant.zero_point, DK, seen, sums);
    }
    for (std::size_t j = 0; j < seen; ++j) {
      scores[range.begin + j] = kernels::requantize(sums[j], multipliers::scores, Scores.zero_point);
    }
    const bool* filter = nullptr;
    if constexpr (Mask::checks_each_key) {
      for (std::size_t j = range.begin; j < range.end; ++j) visible[j] = mask.allowed(i, j);
      filter = visible;
    }
    // Rationale: GCC 12 for AArch64 reports scores as maybe uninitialized here (it does not follow that the loop
    // above wrote exactly [range.begin, range.end), the range the softmax reads); zeroing the row for every query
    // would cost O(n_kv) per query and undo the sliding window's O(r N), so the warning is off for this call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    kernels::int8_softmax_row<typename softmax::method>(scores, weights[0], range.begin, range.end, table.data(),
                                                        filter);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    // sum_j (w_j + 128)(v_j - v_zero): the weights' zero point is -128, and a hidden key's weight is -128.
    if (seen > 0) {
      kernels::int8_dot_rows<n_kv>(weights, 0, range.begin, softmax_output_quantization.zero_point, values, value_row,
                                   range.begin, V::quant.zero_point, seen, DV, sums);
    } else {
      for (std::size_t c = 0; c < DV; ++c) sums[c] = 0;
    }
    for (std::size_t c = 0; c < DV; ++c) {
      out.elements[i][columns.output + c] = kernels::requantize(sums[c], multipliers::output, Out::quant.zero_point);
    }
  }
}

/// Each of `Heads` heads' int8 attention over its columns of q, k and v^T (given transposed), written to its columns
/// of the context (`multi_head_attention`).
// Rationale: always inlined, as `multi_head_attention` is: a call's frame would sit beside the activations.
template <quantization Scores, softmax_method Softmax, std::size_t Heads, typename Q, typename K, typename VT,
          typename Mask, typename Out>
CTATTN_ALWAYS_INLINE constexpr void int8_attend_heads(const Q& q, const K& k, const VT& v_t, const Mask& mask,
                                                      Out& context) noexcept {
  constexpr std::size_t key_width = Q::cols / Heads;
  constexpr std::size_t value_width = Out::cols / Heads;
  for (std::size_t h = 0; h < Heads; ++h) {
    int8_attend<Scores, Softmax, key_width, value_width, true>(
        q, k, v_t, mask, context, {h * key_width, h * key_width, h * value_width, h * value_width});
  }
}

template <typename Q, typename K, typename V, typename Mask, quantization Scores, quantization Out>
using quantized_attention_rules =
    rule_list<shape_error::inner_dimensions_must_match<op::quantized_attention, dim_of<Q::column_extent>,
                                                       dim_of<K::column_extent>>,
              shape_error::rows_must_match<op::quantized_attention, dim_of<K::row_extent>, dim_of<V::row_extent>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<Q::cols>, count<33025>>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_attention, count<K::rows>, count<33025>>,
              shape_error::int8_mask_must_hide_keys<op::quantized_attention, Mask>,
              mask_rules<op::quantized_attention, std::int8_t, Q::row_extent, K::row_extent, Mask>,
              quantization_rules<Scores>, quantization_rules<Out>>;
}  // namespace detail

/// softmax(Q K^T / sqrt(d_k)) V in int8, each query over the keys `mask` lets it see:
///   1. scores: sum_k (q - q_zero)(k - k_zero) in int32, requantized to `Scores` with the multiplier
///      q_scale k_scale / (sqrt(d_k) scores_scale);
///   2. weights: the int8 softmax of the scores over the visible keys (`softmax_rows<Softmax>`: scale 1/256, zero
///      point -128; `softmax_method::tflite` for TFLite's bits); hidden keys get weight 0;
///   3. output: sum_j (w + 128)(v - v_zero) in int32, requantized to `Out` with (1/256) v_scale / out_scale.
/// A query that sees no key gets real 0 (Out's zero point), as float attention gives 0.
///
/// | operand | shape                                      |
/// |---------|--------------------------------------------|
/// | `q`     | `qmatrix<n_q, d_k, QQ>`                    |
/// | `k`     | `qmatrix<n_kv, d_k, QK>`                   |
/// | `v`     | `qmatrix<n_kv, d_v, QV>`                   |
/// | `mask`  | a mask that hides keys (ctattn/attention/mask.hpp), by default `no_mask` |
/// | result  | `qmatrix<n_q, d_v, Out>`                   |
///
/// Rules: q and k have one width d_k (`inner_dimensions_must_match`, names included); k and v have one number of
/// rows (`rows_must_match`); the sums fit an int32; the mask hides keys (`int8_mask_must_hide_keys`) and fits the
/// scores (`mask_rows_must_match_queries`, ...); `Scores` and `Out` are quantizations. `Scores` should cover the
/// range of Q K^T / sqrt(d_k) (calibrate it like any activation): scores beyond it saturate.
///
/// Example:
/// \code
///   constexpr auto context = ctattn::scaled_dot_product_attention<q_scores, q_context>(q_q, k_q, v_q);
///   constexpr auto causal = ctattn::scaled_dot_product_attention<q_scores, q_context>(q_q, k_q, v_q, ctattn::causal);
/// \endcode
template <quantization Scores, quantization Out, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix Q,
          QuantizedMatrix K, QuantizedMatrix V, AttentionMask Mask = no_mask_type>
[[nodiscard]] constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v,
                                                          const Mask& mask = {}) noexcept
    -> basic_qmatrix<Q::row_extent, V::column_extent, Out> {
  basic_qmatrix<Q::row_extent, V::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_attention_rules<Q, K, V, Mask, Scores, Out>>::check()) {
    detail::int8_attend<Scores, Softmax, Q::cols, V::cols>(q, k, v, mask, out, {});
  }
  return out;
}

/// The weights of multi-head attention in int8: four `qlinear` projections (PyTorch's out x in layout, per-channel
/// scales), each made by `quantize_linear` from the float model's. The query, key and value projections take the
/// input's quantization; their outputs' quantizations are Q's, K's and V's; the output projection W_O takes the
/// heads' concatenated outputs in its input quantization (the context's) and gives the result's.
///
/// | member   | projection                  |
/// |----------|-----------------------------|
/// | `query`  | d_model -> d_model          |
/// | `key`    | d_model -> d_model          |
/// | `value`  | d_model -> d_model          |
/// | `output` | d_model -> d_out (W_O)      |
///
/// Rules: `Heads` divides the width of Q and of V (`heads_must_divide_model_width`), checked where the type is
/// formed; where it is used, the widths chain (`multi_head_attention`).
///
/// Example:
/// \code
///   constexpr ctattn::qmulti_head_attention_weights<4, decltype(wq), decltype(wk), decltype(wv), decltype(wo)> w{
///       wq, wk, wv, wo};
///   constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, w, ctattn::causal);
/// \endcode
template <std::size_t Heads, typename Query, typename Key, typename Value, typename Output>
struct qmulti_head_attention_weights {
  /// The rules of the configuration; `multi_head_attention` checks them again (no second error).
  using rules = rule_list<shape_error::count_must_be_positive<op::quantized_multi_head_attention, count<Heads>>,
                          shape_error::heads_must_divide_model_width<op::quantized_multi_head_attention, count<Heads>,
                                                                     dim_of<Query::output_extent>>,
                          shape_error::heads_must_divide_model_width<op::quantized_multi_head_attention, count<Heads>,
                                                                     dim_of<Value::output_extent>>>;
  static_assert((detail::first_broken<rules>::check(), true));
  static constexpr std::size_t heads = Heads;
  Query query;
  Key key;
  Value value;
  Output output;

  /// The memory of `multi_head_attention<Scores>(x, weights, mask)` on an X (ctattn::footprint): the four
  /// projections' objects, X and the result, and on the stack the context (n rows) beside the larger of V and V^T
  /// while V is transposed, and K, V^T and Q while the heads attend (Q in the context's bytes when the heads' query
  /// and value widths are one), with the largest scratch of the calls inside: a projection's kernel
  /// (`detail::kernels::int8_product_stack_bytes`), or a head's (the scores and the weights of a block of queries,
  /// `detail::kernels::int8_attention_query_rows` or n if fewer, over the n keys, the zero-point sums of its two
  /// products, the visible flags and the larger of its two products' kernel scratch).
  ///
  /// Example: `constexpr auto fp = decltype(weights)::footprint_of<decltype(x_q)>();`
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t key_width = Query::outputs / Heads;
    constexpr std::size_t value_width = Value::outputs / Heads;
    // V's projection and V^T, then (the first gone) K, V^T and the context (Q in its bytes when the heads' query
    // and value widths are one), then the context alone beside the output projection's.
    constexpr std::size_t context_bytes = n * Value::outputs;
    constexpr std::size_t query_bytes = key_width == value_width ? 0 : n * Query::outputs;
    constexpr std::size_t transposing = 2 * n * Value::outputs;
    constexpr std::size_t attending = n * Key::outputs + n * Value::outputs + query_bytes;
    constexpr std::size_t activations = context_bytes + (transposing > attending ? transposing : attending);
    constexpr std::size_t rows =
        n < detail::kernels::int8_attention_query_rows ? n : detail::kernels::int8_attention_query_rows;
    constexpr std::size_t scores_product = detail::kernels::int8_product_stack_bytes<rows, key_width, n>;
    constexpr std::size_t context_product = detail::kernels::int8_product_stack_bytes<rows, n, value_width>;
    constexpr std::size_t head = 2 * rows * n + n + sizeof(std::int32_t) * (2 * n + n + key_width + value_width) +
                                 (scores_product > context_product ? scores_product : context_product);
    constexpr std::size_t input_projection =
        detail::kernels::int8_product_stack_bytes<n, Query::inputs, Query::outputs>;
    constexpr std::size_t output_projection =
        detail::kernels::int8_product_stack_bytes<n, Output::inputs, Output::outputs>;
    constexpr std::size_t projection = input_projection > output_projection ? input_projection : output_projection;
    return {sizeof(qmulti_head_attention_weights), sizeof(X),
            sizeof(basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization>), 0,
            activations + (head > projection ? head : projection)};
  }

  friend constexpr bool operator==(const qmulti_head_attention_weights&,
                                   const qmulti_head_attention_weights&) = default;
};

/// Builds `qmulti_head_attention_weights<Heads, ...>` from four `qlinear`s, their types deduced.
///
/// Example: `constexpr auto w = ctattn::make_qmulti_head_attention_weights<4>(wq, wk, wv, wo);`
template <std::size_t Heads, typename Query, typename Key, typename Value, typename Output>
[[nodiscard]] constexpr auto make_qmulti_head_attention_weights(const Query& query, const Key& key, const Value& value,
                                                                const Output& output) noexcept {
  return qmulti_head_attention_weights<Heads, Query, Key, Value, Output>{query, key, value, output};
}

namespace detail {
// The quantizations of an attention layer's four projections: the queries' input, the keys' and values' (the same
// for self-attention, the memory's for cross-attention), each projection's output, and the context the output
// projection reads.
struct attention_projection_quantizations {
  quantization query_input, key_value_input, query, key, value, context, output;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;
};
// The int8 form of a float attention layer's weights (PyTorch's out x in, biases), each projection per channel
// (`quantize_linear`), as every int8 layer with attention makes it.
template <std::size_t Heads, attention_projection_quantizations Q, typename Weights>
[[nodiscard]] constexpr auto quantize_attention_weights(const Weights& w) noexcept {
  return make_qmulti_head_attention_weights<Heads>(
      quantize_linear<Q.query_input, Q.query, Q.weights, Q.granularity>(w.query),
      quantize_linear<Q.key_value_input, Q.key, Q.weights, Q.granularity>(w.key),
      quantize_linear<Q.key_value_input, Q.value, Q.weights, Q.granularity>(w.value),
      quantize_linear<Q.context, Q.output, Q.weights, Q.granularity>(w.output));
}

// The rules of multi-head attention of x over `Memory` (x itself for self-attention).
template <typename X, typename Memory, typename W, typename Mask, quantization Scores>
using quantized_multi_head_rules =
    rule_list<typename W::rules,
              shape_error::query_and_key_widths_must_match<op::quantized_multi_head_attention,
                                                           dim_of<decltype(W::query)::output_extent>,
                                                           dim_of<decltype(W::key)::output_extent>>,
              shape_error::inner_dimensions_must_match<op::quantized_multi_head_attention,
                                                       dim_of<decltype(W::value)::output_extent>,
                                                       dim_of<decltype(W::output)::input_extent>>,
              quantized_projection_rules<X, decltype(W::query)>, quantized_projection_rules<Memory, decltype(W::key)>,
              quantized_projection_rules<Memory, decltype(W::value)>,
              shape_error::int8_mask_must_hide_keys<op::quantized_multi_head_attention, Mask>,
              mask_rules<op::quantized_multi_head_attention, std::int8_t, X::row_extent, Memory::row_extent, Mask>,
              shape_error::int8_accumulator_must_not_overflow<op::quantized_multi_head_attention, count<Memory::rows>,
                                                              count<33025>>,
              quantization_rules<Scores>>;
}  // namespace detail

/// Multi-head attention of x over a memory in int8 (cross-attention, nn.TransformerDecoderLayer's
/// `multihead_attn`): Q projected from x, K and V from the memory, each by its int8 `qlinear` (the key and value
/// projections read the memory's quantization), then each head's int8 attention and W_O as in self-attention.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `qmatrix<n, d_model, QX>`                           |
/// | `memory`  | `qmatrix<m, d_model, QM>`                           |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>`: W_Q reads QX, W_K and W_V read QM |
/// | `mask`    | a mask that hides keys, n x m, by default `no_mask` |
/// | result    | `qmatrix<n, d_out, W_O's output quantization>`      |
///
/// Rules: as self-attention's, with the key and value projections on the memory and the mask fitting n x m.
///
/// Example: `constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, memory_q, cross_weights_q);`
// Rationale: always inlined into its caller (a layer's forward, called once per layer), whose frame then shares
// bytes between the attention's Q, K, V^T and context and the feed-forward block's activations, which are never
// live together. Called (as Clang 14 did), its frame sat on top of the layer's: KWT-Tiny's int8 inference took
// 11.8 KB of stack on the Cortex-M55 rather than 8.6 KB.
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X,
          QuantizedMatrix Memory, std::size_t Heads, typename Query, typename Key, typename Value, typename Output,
          AttentionMask Mask = no_mask_type>
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr auto multi_head_attention(
    const X& x, const Memory& memory, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  using W = qmulti_head_attention_weights<Heads, Query, Key, Value, Output>;
  if constexpr (!detail::first_broken<detail::quantized_multi_head_rules<X, Memory, W, Mask, Scores>>::check()) {
    return {};
  } else {
    constexpr std::size_t key_width = Query::outputs / Heads;
    constexpr std::size_t value_width = Value::outputs / Heads;
    basic_qmatrix<X::row_extent, Value::output_extent, Output::input_quantization> context;
    {
      // Rationale: V transposed once for every head, from the projection's temporary, so that the stack holds V^T
      // alone rather than V and each head's transposed copy; made first, so that the temporary's bytes are free
      // again before K and Q are made. K and V^T live in this block alone: the output projection below has only
      // the context beside it.
      const auto v_t = detail::transposed_values(project(memory, weights.value));
      const auto k = project(memory, weights.key);
      if constexpr (key_width == value_width) {
        // Rationale: Q is written into the context's bytes and read there through a view in Q's quantization:
        // each head's output for a block of queries overwrites exactly the queries' columns of that head it has
        // just scored (the same rows, the same columns, as key_width == value_width), which nothing reads again.
        // One n x d_model activation less (KWT-Tiny's 800 bytes on a Cortex-M: its RAM went below its CMSIS-NN
        // composition's on every core).
        detail::fully_connected_rows(x.elements, weights.query, context.elements);
        detail::int8_attend_heads<Scores, Softmax, Heads>(
            detail::qmatrix_view<X::rows, Query::outputs, Query::output_quantization>{context.elements}, k, v_t, mask,
            context);
      } else {
        detail::int8_attend_heads<Scores, Softmax, Heads>(project(x, weights.query), k, v_t, mask, context);
      }
    }
    return project(context, weights.output);
  }
}

/// Multi-head self-attention in int8 (the narrow form of the reference text, PyTorch's nn.MultiheadAttention):
/// Q, K and V projected from x by the int8 `qlinear`s, split into `Heads` heads of d_model / Heads columns, each
/// head's int8 attention (as `scaled_dot_product_attention`, its scores in `Scores`, its output in W_O's input
/// quantization) written into its columns of the context, then the context projected by W_O.
///
/// | operand   | shape                                               |
/// |-----------|-----------------------------------------------------|
/// | `x`       | `qmatrix<n, d_model, QX>`                           |
/// | `weights` | `qmulti_head_attention_weights<Heads, ...>`         |
/// | `mask`    | a mask that hides keys, by default `no_mask`        |
/// | result    | `qmatrix<n, d_out, W_O's output quantization>`      |
///
/// Rules: `Heads` divides the width of Q, K and V (`heads_must_divide_model_width`); Q and K have one width; V's
/// width is W_O's input; x has the projections' input width and quantization; the mask hides keys and fits n x n.
///
/// Example: `constexpr auto y = ctattn::multi_head_attention<q_scores>(x_q, weights_q, ctattn::causal);`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, std::size_t Heads,
          typename Query, typename Key, typename Value, typename Output, AttentionMask Mask = no_mask_type>
[[nodiscard]] CTATTN_ALWAYS_INLINE constexpr auto multi_head_attention(
    const X& x, const qmulti_head_attention_weights<Heads, Query, Key, Value, Output>& weights,
    const Mask& mask = {}) noexcept
    -> basic_qmatrix<X::row_extent, Output::output_extent, Output::output_quantization> {
  // Rationale: self-attention is attention over x itself; one definition computes both.
  return multi_head_attention<Scores, Softmax>(x, x, weights, mask);
}

/// nn.MultiheadAttention as self-attention in int8: the int8 form of `multi_head_attention_layer` that
/// `ctattn::quantize` makes, `multi_head_attention<Scores>(x, weights, mask)` with the layer protocol's verbs.
///
/// | operand / member | shape / meaning                                                    |
/// |------------------|--------------------------------------------------------------------|
/// | `forward(x)`     | `qmatrix<n, d, Q(x)>` -> `qmatrix<n, d_out, W_O's output quantization>` |
/// | `weights`        | `qmulti_head_attention_weights<Heads, ...>`, W_Q, W_K, W_V reading Q(x) |
/// | `Mask`           | the float layer's mask type (none, or `ctattn::causal_mask`)        |
/// | `Softmax`        | the softmax's `softmax_method` (`rounded` unless `quantize` was told otherwise) |
///
/// Example: `const auto y = ctattn::qmulti_head_attention_layer<q_scores, decltype(w)>{w}.forward(x_q);`
template <quantization Scores, typename Weights, typename Mask = no_mask_type,
          softmax_method Softmax = softmax_method::rounded>
struct qmulti_head_attention_layer {
  using query_type = decltype(Weights::query);
  using output_type = decltype(Weights::output);
  static constexpr auto input_extent = query_type::input_extent;
  static constexpr auto output_extent = output_type::output_extent;
  static constexpr quantization input_quantization = query_type::input_quantization;
  static constexpr quantization output_quantization = output_type::output_quantization;
  static constexpr softmax_method softmax = Softmax;

  Weights weights{};
  [[no_unique_address]] Mask mask{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return multi_head_attention<Scores, Softmax>(x, weights, mask);
  }

  /// The memory of `forward(x)` on an X (ctattn::footprint): the weights' (`qmulti_head_attention_weights::
  /// footprint_of`).
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    footprint f = Weights::template footprint_of<X>();
    f.weight_bytes = sizeof(qmulti_head_attention_layer);
    return f;
  }

  friend constexpr bool operator==(const qmulti_head_attention_layer&, const qmulti_head_attention_layer&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_ATTENTION_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/calibrate.hpp
#ifndef CTATTN_QUANTIZED_CALIBRATE_HPP
#define CTATTN_QUANTIZED_CALIBRATE_HPP

/// \file
/// Choosing a quantization at compile time: from the range of calibration data (activations, asymmetric) or from
/// the largest magnitude (weights, symmetric, zero point 0), as TensorFlow Lite's converter chooses them.
///
/// | function                                   | gives                                                        |
/// |--------------------------------------------|--------------------------------------------------------------|
/// | `observed_range(xs...)`                    | the smallest and largest element of the matrices `xs`        |
/// | `quantization_for_range(lo, hi)`           | scale (hi - lo) / 255 over [lo, hi] widened to contain 0; the zero point that maps lo to -128 |
/// | `symmetric_quantization(largest)`          | scale largest / 127, zero point 0                            |
/// | `largest_magnitude(xs...)`                 | the largest magnitude among the elements of `xs`             |
/// | `range_at(table, name)`                    | the range named `name` in a generated ranges header (ctattn/quantized/ranges.hpp) |
///
/// Example:
/// \code
///   constexpr auto q = ctattn::quantization_for_range(-1.0, 3.0);   // scale 4/255, zero point -64
///   constexpr auto x_q = ctattn::quantize<q>(x);
/// \endcode



namespace ctattn {

/// The smallest and the largest value seen.
struct value_range {
  double lo = 0.0;
  double hi = 0.0;
  friend constexpr bool operator==(const value_range&, const value_range&) = default;
};

namespace detail {
// Widens `range` (empty while `seen` is false) by the elements of one matrix.
template <typename X>
constexpr void widen(value_range& range, bool& seen, const X& m) noexcept {
  for (std::size_t r = 0; r < X::rows; ++r) {
    for (std::size_t col = 0; col < X::cols; ++col) {
      const double element_value = static_cast<double>(m.elements[r][col]);
      if (!(element_value == element_value)) continue;
      if (!seen || element_value < range.lo) range.lo = element_value;
      if (!seen || element_value > range.hi) range.hi = element_value;
      seen = true;
    }
  }
}
}  // namespace detail

/// The range of every element of the matrices `xs` (calibration data: a layer's inputs over a calibration set).
/// NaN elements are skipped.
///
/// Example: `constexpr auto r = ctattn::observed_range(batch0, batch1);   // r.lo, r.hi`
template <FixedMatrix... Xs>
[[nodiscard]] constexpr value_range observed_range(const Xs&... xs) noexcept {
  value_range range{};
  bool seen = false;
  (detail::widen(range, seen, xs), ...);
  return range;
}

/// The asymmetric int8 quantization of [lo, hi], TFLite's choice for activations: the range is widened to contain 0
/// (so that real 0, padding and ReLU's floor, is exact), scale = (hi - lo) / 255, and the zero point
/// round(-128 - lo / scale) (ties away from zero), clamped to [-128, 127]. An empty range (lo = hi = 0) gets scale 1.
///
/// Example: `static_assert(ctattn::quantization_for_range(-1.0, 3.0).zero_point == -64);`
[[nodiscard]] constexpr quantization quantization_for_range(double lo, double hi) noexcept {
  lo = lo < 0.0 ? lo : 0.0;
  hi = hi > 0.0 ? hi : 0.0;
  if (!(hi > lo)) return quantization{1.0, 0};
  const double scale = (hi - lo) / 255.0;
  const std::int64_t zero = detail::round_away(-128.0 - lo / scale);
  return quantization{scale, static_cast<std::int32_t>(zero < -128 ? -128 : (zero > 127 ? 127 : zero))};
}

/// \copydoc quantization_for_range(double, double)
[[nodiscard]] constexpr quantization quantization_for_range(value_range r) noexcept {
  return quantization_for_range(r.lo, r.hi);
}

/// The symmetric int8 quantization of [-largest, largest], TFLite's choice for weights: scale largest / 127, zero
/// point 0, so that -127 to 127 are used and the product needs no zero-point terms. largest = 0 gets scale 1.
///
/// Example: `static_assert(ctattn::symmetric_quantization(2.54).scale() == 0.02);`
[[nodiscard]] constexpr quantization symmetric_quantization(double largest) noexcept {
  largest = largest < 0.0 ? -largest : largest;
  return largest > 0.0 ? quantization{largest / 127.0, 0} : quantization{1.0, 0};
}

/// The largest magnitude among the elements of `xs` (for `symmetric_quantization`).
template <FixedMatrix... Xs>
[[nodiscard]] constexpr double largest_magnitude(const Xs&... xs) noexcept {
  const value_range range = observed_range(xs...);
  return -range.lo > range.hi ? -range.lo : range.hi;
}

/// One named range of a generated ranges header.
///
/// Example: `inline constexpr ctattn::named_range ranges[] = {{"norm", {-2.5, 3.0}}, {"head", {-9.0, 11.5}}};`
struct named_range {
  std::string_view name;
  value_range range;
};

namespace detail {
// Not constexpr on purpose, as precondition_failed: reached in a constant expression, it makes the expression
// non-constant, and the compilers' first error names this function, whose name says what is wrong and what to do.
inline void ranges_table_lacks_this_point_record_it_with_record_ranges() noexcept { precondition_failed(); }
}  // namespace detail

/// The range named `name` in `table`; a name the table lacks is a contract violation (a compile error in a constant
/// expression, naming `ranges_table_lacks_this_point_record_it_with_record_ranges`: the ranges header is older than
/// the model, or the name is misspelled).
///
/// Example: `constexpr auto q_norm = ctattn::quantization_for_range(ctattn::range_at(toy::sorter_ranges, "norm"));`
template <typename Table>
[[nodiscard]] constexpr value_range range_at(const Table& table, std::string_view name) noexcept {
  for (const named_range& entry : table) {
    if (entry.name == name) return entry.range;
  }
  detail::ranges_table_lacks_this_point_record_it_with_record_ranges();
  return {};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_CALIBRATE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/embedding.hpp
#ifndef CTATTN_QUANTIZED_EMBEDDING_HPP
#define CTATTN_QUANTIZED_EMBEDDING_HPP

/// \file
/// Embeddings and the other first layers of a model in int8, quantized from the layers tier's float layers
/// (ctattn/layers/embedding.hpp): token and position tables, a class token.
///
/// | entity                                            | what                                                  |
/// |---------------------------------------------------|-------------------------------------------------------|
/// | `qembedding<Vocabulary, Length, Width, QTokens, QPositions, QOut>` | token and position tables in int8, summed |
/// | `quantize_embedding<QTokens, QPositions, QOut>(tokens, positions)` | the float embeddings quantized |
/// | `qtoken_embedding<Vocabulary, Width, Q>`, `quantize_token_embedding<Q>(tokens)` | a token table alone in int8 |
/// | `qposition_embedding<Length, Width, QPositions, QOut>`, `quantize_position_embedding<QPositions, QOut>(p)` | positions added to int8 rows |
/// | `qclass_token<Width, QIn, QOut>`, `quantize_class_token<QIn, QOut>(token)` | a class token before int8 rows |



namespace ctattn {

// The float layers (ctattn/layers/embedding.hpp), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; quantizing reads the layers' members only, and
// their types are complete wherever a user names them.
template <typename T, std::size_t Vocabulary, auto D>
struct token_embedding;
struct embedding_weight;
template <typename T, std::size_t MaxLength, auto D, typename Held>
struct position_embedding;
template <typename T, auto D>
struct class_token;

/// Token and position embeddings in int8: the token table (Vocabulary x Width, quantized with QTokens), the
/// position table (Length x Width, QPositions), and their sum for each token by the int8 ADD, quantized with QOut.
///
/// | operand        | shape                                         |
/// |----------------|-----------------------------------------------|
/// | `forward(ids)` | N token ids (N <= Length) -> `qmatrix<N, Width, QOut>` |
///
/// A token id outside [0, Vocabulary) is a contract violation (ctattn/detail/config.hpp's `expects`).
///
/// Example: `const auto x = embedding_q.forward(std::array<int, 6>{3, 1, 4, 1, 5, 9});`
template <std::size_t Vocabulary, std::size_t Length, auto Width, quantization QTokens, quantization QPositions,
          quantization QOut>
struct qembedding {
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  qmatrix<Vocabulary, Width, QTokens> tokens{};
  qmatrix<Length, Width, QPositions> positions{};

  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept -> qmatrix<N, Width, QOut> {
    static_assert(N <= Length, "ctattn: a sequence longer than the position table; make the table longer");
    using k = detail::quantized_add_constants<QTokens, QPositions, QOut>;
    // Rationale: each token's row and its position's row are added where they are, in the tables (flash), into the
    // result's row: no copy of them on the stack first.
    qmatrix<N, Width, QOut> out;
    for (std::size_t i = 0; i < N; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      detail::expects(id < Vocabulary);
      detail::kernels::int8_add_row<k::a, k::b, k::left_shift, k::out>(tokens.elements[id], QTokens.zero_point,
                                                                       positions.elements[i], QPositions.zero_point,
                                                                       QOut.zero_point, out.elements[i]);
    }
    return out;
  }

  /// The memory of `forward(ids)` on an `Ids` (`std::array<I, N>`; ctattn::footprint, `ctattn::layer_footprint`):
  /// the two tables, the ids and the result; no stack (each sum reads its rows from the tables).
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qembedding), sizeof(Ids), std::tuple_size_v<Ids> * extent_size(Width), 0, 0};
  }

  friend constexpr bool operator==(const qembedding&, const qembedding&) = default;
};

/// A token embedding in int8 without positions after it: the table (Vocabulary x Width) quantized with Q, and each
/// token's row looked up, so the output has the table's quantization.
///
/// | operand        | shape                                   |
/// |----------------|-----------------------------------------|
/// | `forward(ids)` | N token ids -> `qmatrix<N, Width, Q>`   |
///
/// A token id outside [0, Vocabulary) is a contract violation (ctattn/detail/config.hpp's `expects`).
///
/// Example: `const auto x = ctattn::quantize_token_embedding<q_table>(model.embed).forward(std::array<int, 3>{2, 7, 1});`
template <std::size_t Vocabulary, auto Width, quantization Q>
struct qtoken_embedding {
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = Q;
  qmatrix<Vocabulary, Width, Q> tokens{};

  template <std::integral I, std::size_t N>
  [[nodiscard]] constexpr auto forward(const std::array<I, N>& ids) const noexcept -> qmatrix<N, Width, Q> {
    qmatrix<N, Width, Q> out;
    for (std::size_t i = 0; i < N; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      detail::expects(id < Vocabulary);
      for (std::size_t c = 0; c < qmatrix<N, Width, Q>::cols; ++c) out.elements[i][c] = tokens.elements[id][c];
    }
    return out;
  }

  /// The memory of `forward(ids)` on an `Ids` (`std::array<I, N>`): the table, the ids and the result; no stack.
  template <typename Ids>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qtoken_embedding), sizeof(Ids), std::tuple_size_v<Ids> * extent_size(Width), 0, 0};
  }

  friend constexpr bool operator==(const qtoken_embedding&, const qtoken_embedding&) = default;
};

/// The float `token_embedding` quantized alone (no position embedding after it): its table with Q.
///
/// Example: `constexpr auto e = ctattn::quantize_token_embedding<q_table>(model.embed);`
template <quantization Q, typename T, std::size_t Vocabulary, auto D>
[[nodiscard]] constexpr auto quantize_token_embedding(const token_embedding<T, Vocabulary, D>& tokens) noexcept {
  qtoken_embedding<Vocabulary, normalize_extent<D>, Q> q{};
  q.tokens = quantize<Q>(tokens.weight);
  return q;
}

/// Learned positions added to int8 rows (a `position_embedding` after a layer other than a token embedding): row i
/// of x plus row i of the position table (quantized with QPositions) by the int8 ADD, quantized with QOut.
///
/// | operand       | shape                                                        |
/// |---------------|--------------------------------------------------------------|
/// | `forward(x)`  | `qmatrix<N, Width, Q(x)>` (N <= Length) -> `qmatrix<N, Width, QOut>` |
///
/// Example: `const auto y = ctattn::quantize_position_embedding<q_table, q_out>(model.pos).forward(x_q);`
template <std::size_t Length, auto Width, quantization QPositions, quantization QOut>
struct qposition_embedding {
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  qmatrix<Length, Width, QPositions> positions{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept -> basic_qmatrix<X::row_extent, Width, QOut> {
    static_assert(X::rows <= Length, "ctattn: a sequence longer than the position table; make the table longer");
    using k = detail::quantized_add_constants<X::quant, QPositions, QOut>;
    basic_qmatrix<X::row_extent, Width, QOut> out;
    for (std::size_t i = 0; i < X::rows; ++i) {
      detail::kernels::int8_add_row<k::a, k::b, k::left_shift, k::out>(x.elements[i], X::quant.zero_point,
                                                                       positions.elements[i], QPositions.zero_point,
                                                                       QOut.zero_point, out.elements[i]);
    }
    return out;
  }

  /// The memory of `forward(x)` on an X: the table, X and the result; no stack.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qposition_embedding), sizeof(X), sizeof(basic_qmatrix<X::row_extent, Width, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qposition_embedding&, const qposition_embedding&) = default;
};

/// The float `position_embedding` (or `position_parameter`) quantized alone: its table with QPositions, the sum with
/// QOut.
///
/// Example: `constexpr auto p = ctattn::quantize_position_embedding<q_table, q_out>(model.pos);`
template <quantization QPositions, quantization QOut, typename T, std::size_t Length, auto D, typename Held>
[[nodiscard]] constexpr auto quantize_position_embedding(
    const position_embedding<T, Length, D, Held>& positions) noexcept {
  qposition_embedding<Length, normalize_extent<D>, QPositions, QOut> q{};
  q.positions = quantize<QPositions>(positions.weight);
  return q;
}

/// The float `token_embedding` and `position_embedding` quantized: each table with its quantization, their sum with
/// QOut.
///
/// Example: `constexpr auto e = ctattn::quantize_embedding<q_tokens, q_positions, q_x>(model.embed, model.pos);`
template <quantization QTokens, quantization QPositions, quantization QOut, typename T, std::size_t Vocabulary, auto D,
          std::size_t Length, auto D2, typename Held>
[[nodiscard]] constexpr auto quantize_embedding(const token_embedding<T, Vocabulary, D>& tokens,
                                                const position_embedding<T, Length, D2, Held>& positions) noexcept {
  qembedding<Vocabulary, Length, normalize_extent<D>, QTokens, QPositions, QOut> q{};
  q.tokens = quantize<QTokens>(tokens.weight);
  q.positions = quantize<QPositions>(positions.weight);
  return q;
}

/// A class token before int8 rows: row 0 the token, quantized with QOut; rows 1 to n the rows of x, requantized from
/// QIn to QOut (copied as they are when the two are equal), as TFLite's CONCATENATION requantizes an input whose
/// quantization is not the output's.
///
/// | operand      | shape                                          |
/// |--------------|------------------------------------------------|
/// | `forward(x)` | `qmatrix<n, Width, QIn>` -> `qmatrix<n + 1, Width, QOut>` |
///
/// Example: `const auto tokens = ctattn::quantize_class_token<q_in, q_out>(model.cls_token).forward(x_q);`
template <auto Width, quantization QIn, quantization QOut>
struct qclass_token {
  static constexpr auto output_extent = Width;
  static constexpr quantization output_quantization = QOut;
  qmatrix<1, Width, QOut> token{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept -> basic_qmatrix<X::rows + 1, Width, QOut> {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<QIn>>;
    static_assert((input_rule::check(), true));
    basic_qmatrix<X::rows + 1, Width, QOut> y;
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = token.elements[0][j];
    if constexpr (QIn == QOut) {
      for (std::size_t r = 0; r < X::rows; ++r) {
        for (std::size_t j = 0; j < X::cols; ++j) y.elements[r + 1][j] = x.elements[r][j];
      }
    } else {
      constexpr math::quantized_multiplier multiplier = math::quantize_multiplier(QIn.scale() / QOut.scale());
      for (std::size_t r = 0; r < X::rows; ++r) {
        for (std::size_t j = 0; j < X::cols; ++j) {
          y.elements[r + 1][j] =
              detail::kernels::requantize(std::int32_t{x.elements[r][j]} - QIn.zero_point, multiplier, QOut.zero_point);
        }
      }
    }
    return y;
  }

  /// The memory of `forward(x)` on an X: the token, X and the result; no stack.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qclass_token), sizeof(X), sizeof(basic_qmatrix<X::rows + 1, Width, QOut>), 0, 0};
  }

  friend constexpr bool operator==(const qclass_token&, const qclass_token&) = default;
};

/// The float `class_token` quantized: the token with QOut, for rows quantized with QIn.
///
/// Example: `constexpr auto cls_q = ctattn::quantize_class_token<q_patches, q_tokens>(model.cls_token);`
template <quantization QIn, quantization QOut, typename T, auto D>
[[nodiscard]] constexpr auto quantize_class_token(const class_token<T, D>& layer) noexcept {
  qclass_token<normalize_extent<D>, QIn, QOut> q{};
  q.token = quantize<QOut>(layer.token);
  return q;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_EMBEDDING_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/feed_forward.hpp
#ifndef CTATTN_QUANTIZED_FEED_FORWARD_HPP
#define CTATTN_QUANTIZED_FEED_FORWARD_HPP

/// \file
/// The int8 forms of ctattn/layers/feed_forward.hpp's residual connection and gated feed-forward block, as
/// `ctattn::quantize` makes them (a plain `feed_forward` becomes a `qchain` of its linears and activation).
///
/// | entity                                              | what                                               |
/// |-----------------------------------------------------|----------------------------------------------------|
/// | `qresidual<Inner, QSum>`                            | x + inner(x) by the int8 ADD                       |
/// | `qgated_feed_forward<W1, W3, Activation, W2, QProduct>` | w2(activation(w1(x)) * w3(x)), the product by the int8 MUL |

// ---------------------------------------- ctattn/quantized/hadamard.hpp
#ifndef CTATTN_QUANTIZED_HADAMARD_HPP
#define CTATTN_QUANTIZED_HADAMARD_HPP

/// \file
/// The element-wise product of two int8 matrices into a third quantization (the gate of a gated feed-forward block
/// in int8), as TensorFlow Lite's int8 MUL computes it: (a - a_zero)(b - b_zero) in int32, requantized with the
/// multiplier a_scale b_scale / out_scale, which the compiler derives.



namespace ctattn {

namespace detail {
template <typename A, typename B, quantization Out>
using quantized_hadamard_rules = rule_list<rows_rule<op::quantized_hadamard, A, B>,
                                           columns_rule<op::quantized_hadamard, A, B>, quantization_rules<Out>>;
}  // namespace detail

/// a * b element by element, quantized with `Out` (TFLite's int8 MUL): each product of the inputs less their zero
/// points, in int32, times the multiplier a_scale b_scale / out_scale (fixed point), plus Out's zero point, clamped
/// to int8. The same bits in constant evaluation and at run time, on every target.
///
/// | operand | shape                 |
/// |---------|-----------------------|
/// | `a`     | `qmatrix<R, C, QA>`   |
/// | `b`     | `qmatrix<R, C, QB>`   |
/// | result  | `qmatrix<R, C, Out>`  |
///
/// Rules: a and b have the same rows and columns (`rows_must_match`, `columns_must_match`, `op::quantized_hadamard`);
/// Out is a quantization.
///
/// Example:
/// \code
///   constexpr auto gated = ctattn::hadamard<ctattn::quantization{0.05, 0}>(x_q, x_q);   // x * x, in int8
/// \endcode
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto hadamard(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, A::column_extent, Out> {
  basic_qmatrix<A::row_extent, A::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_hadamard_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(A::quant.scale() * B::quant.scale() / Out.scale());
    detail::kernels::int8_multiply_rows<multiplier>(a.elements, A::quant.zero_point, b.elements, B::quant.zero_point,
                                                    Out.zero_point, out.elements);
  }
  return out;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_HADAMARD_HPP
// ---------------------------------------- ctattn/quantized/feed_forward.hpp (continued)
// ---------------------------------------- ctattn/quantized/layer.hpp
#ifndef CTATTN_QUANTIZED_LAYER_HPP
#define CTATTN_QUANTIZED_LAYER_HPP

/// \file
/// What an int8 layer is (the int8 twin of ctattn/layers/layer.hpp): the int8 form `ctattn::quantize` makes of a
/// float layer, every quantization a template argument chosen by the compiler.
///
/// | member / function                 | meaning                                                              |
/// |-----------------------------------|----------------------------------------------------------------------|
/// | `input_quantization`, `output_quantization` | the quantizations of its input and its result (a layer made of others: its first layer's input) |
/// | `forward(x)`                      | `qmatrix<n, in, input_quantization>` -> `qmatrix<n, out, output_quantization>`: constexpr, noexcept, integers only |
/// | `footprint_of<X>()` (static)      | the memory one `forward` on an X holds (`ctattn::footprint`)          |
/// | `needs_memory`, `memory_quantization` | a decoder layer, or a layer holding one: `forward(x, ctattn::with_memory(m))` with m in `memory_quantization` |
///
/// Example:
/// \code
///   constexpr auto layer_q = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));
///   static_assert(decltype(layer_q)::input_quantization == q0.input);
///   const auto y = layer_q.forward(x_q);   // qmatrix<6, 32, q0.output>
/// \endcode

// ---------------------------------------- ctattn/layers/rules.hpp
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
/// | `patch_must_divide_input`              | the input's side (`axis::sequence_length`, ...), the patch's  |
/// | `image_rows_must_match_patch_layer`    | the input's rows, the image's pixels (`axis::image_pixels`)    |




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

}  // namespace shape_error
}  // namespace ctattn

#endif  // CTATTN_LAYERS_RULES_HPP
// ---------------------------------------- ctattn/quantized/layer.hpp (continued)

namespace ctattn {

/// The memory a `qchain` of decoder layers attends to: `ctattn::with_memory` for an int8 memory (a `qmatrix` in
/// the layers' memory quantization). It refers to `memory`, which must outlive the call.
///
/// Example: `const auto y = int8_decoder.forward(tgt_q, ctattn::with_memory(memory_q));`
template <QuantizedMatrix Memory>
[[nodiscard]] constexpr memory_option<Memory> with_memory(const Memory& memory) noexcept {
  return {&memory};
}

namespace detail {
// Whether an int8 layer reads a decoder's memory (`needs_memory`: a decoder layer, or a layer made of others that
// holds one).
template <typename L>
inline constexpr bool needs_memory = [] {
  if constexpr (requires { L::needs_memory; }) {
    return L::needs_memory;
  } else {
    return false;
  }
}();

// `input_quantization` of a layer made of others (a qchain, a qresidual): its first layer's, where that has one.
template <typename First>
struct input_quantization_of {};
template <typename First>
  requires requires { First::input_quantization; }
struct input_quantization_of<First> {
  static constexpr quantization input_quantization = First::input_quantization;
};
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_LAYER_HPP
// ---------------------------------------- ctattn/quantized/feed_forward.hpp (continued)

namespace ctattn {

/// A residual connection in int8: x + inner(x) by the int8 ADD, the sum quantized with QSum; the int8 form of
/// `ctattn::residual` that `ctattn::quantize` makes (the inner layer's own int8 form inside).
///
/// | operand / member | shape / meaning                                           |
/// |------------------|-----------------------------------------------------------|
/// | `inner`          | the int8 layer (a `qchain` for a feed-forward block), width kept |
/// | `forward(x)`     | `qmatrix<n, d, Q(x)>` -> `qmatrix<n, d, QSum>`            |
///
/// Example: `const auto y = residual_q.forward(x_q);   // x_q + its inner layer on x_q, in QSum`
template <typename Inner, quantization QSum>
struct qresidual : detail::input_quantization_of<Inner> {
  static constexpr quantization output_quantization = QSum;
  static constexpr bool needs_memory = detail::needs_memory<Inner>;
  static constexpr quantization memory_quantization = [] {
    if constexpr (needs_memory) {
      return Inner::memory_quantization;
    } else {
      return quantization{1.0};
    }
  }();
  Inner inner{};

  template <QuantizedMatrix X, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    if constexpr (requires { inner.forward(x, options...); }) {
      return add<QSum>(x, inner.forward(x, options...));
    } else {
      return add<QSum>(x, inner.forward(x));
    }
  }

  /// The memory of `forward(x)` on an X: the inner layer's call, and its result held for the sum.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    const footprint f = Inner::template footprint_of<X>();
    return {sizeof(qresidual), sizeof(X), sizeof(basic_qmatrix<X::row_extent, X::column_extent, QSum>), 0,
            f.output_bytes + f.stack_bytes};
  }

  friend constexpr bool operator==(const qresidual&, const qresidual&) = default;
};

/// The gated feed-forward block in int8 (SwiGLU, GEGLU: `ctattn::gated_feed_forward`'s int8 form that
/// `ctattn::quantize` makes): w2(activation(w1(x)) * w3(x)), the product by the int8 MUL (`hadamard<QProduct>`).
///
/// | operand / member      | shape / meaning                                             |
/// |-----------------------|-------------------------------------------------------------|
/// | `w1`, `w3`            | `qlinear<D, Hidden, Q(x), ...>`, per channel                |
/// | `activation`          | `qactivation` on w1's output (the gate)                     |
/// | `w2`                  | `qlinear<Hidden, D, QProduct, ...>`                          |
/// | `forward(x)`          | `qmatrix<n, D, Q(x)>` -> `qmatrix<n, D, w2's output quantization>` |
///
/// Example: `const auto y = gated_q.forward(x_q);`
template <typename W1, typename W3, typename Activation, typename W2, quantization QProduct>
struct qgated_feed_forward {
  static constexpr quantization input_quantization = W1::input_quantization;
  static constexpr quantization output_quantization = W2::output_quantization;
  W1 w1{};
  W2 w2{};
  W3 w3{};
  Activation activation{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(hadamard<QProduct>(activate(project(x, w1), activation), project(x, w3)), w2);
  }

  /// The memory of `forward(x)` on an X: the four n x Hidden rows of int8 (w1's output, the gate, w3's output and
  /// the product) with the deepest projection's scratch.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using hidden = basic_qmatrix<X::row_extent, W1::output_extent, QProduct>;
    const footprint in = W1::template footprint_of<X>();
    const footprint out = W2::template footprint_of<hidden>();
    return {sizeof(qgated_feed_forward), sizeof(X),
            sizeof(basic_qmatrix<X::row_extent, W2::output_extent, W2::output_quantization>), 0,
            4 * sizeof(hidden) + (in.stack_bytes > out.stack_bytes ? in.stack_bytes : out.stack_bytes)};
  }

  friend constexpr bool operator==(const qgated_feed_forward&, const qgated_feed_forward&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_FEED_FORWARD_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/kv_cache.hpp
#ifndef CTATTN_QUANTIZED_KV_CACHE_HPP
#define CTATTN_QUANTIZED_KV_CACHE_HPP

/// \file
/// Autoregressive decoding in int8: a key/value cache of int8 rows in the keys' and values' quantizations, and
/// multi-head attention of one new token over it. Integer arithmetic throughout, so a token's output is the same
/// bits as its row of int8 attention over the whole sequence (`multi_head_attention<Scores>(x, weights, causal)`).
///
/// | entity                                              | what                                                   |
/// |-----------------------------------------------------|--------------------------------------------------------|
/// | `qkv_cache<Capacity, KeyWidth, ValueWidth, QK, QV>` | the int8 keys and values of the tokens so far, and how many |
/// | `multi_head_attention_step<Scores>(x, w, cache, out)` | one token of int8 multi-head self-attention, its key and value appended |
/// | `cache_memory(memory, w, cache)`                    | a memory projected once into a cache, for cross-attention |
/// | `multi_head_attention_cached<Scores>(x, w, cache, out)` | one token of int8 multi-head attention over a cache, no append |
///
/// The int8 encoder and decoder layers (ctattn/quantized/transformer.hpp) decode with these: `step`, `prepare`.
///
/// Example:
/// \code
///   ctattn::qkv_cache<16, 32, 32, q_key, q_value> cache{};
///   ctattn::qmatrix<1, 32, q_out> y{};
///   for (const auto& x_t : tokens_q) if (!ctattn::multi_head_attention_step<q_scores>(x_t, w, cache, y)) break;
/// \endcode



namespace ctattn {

/// The int8 keys and values of the first `length` tokens of a sequence, in rows 0 to length - 1, for at most
/// `Capacity` tokens, the keys in quantization QK and the values in QV (the key and value projections' outputs).
///
/// | member    | shape / meaning                                       |
/// |-----------|-------------------------------------------------------|
/// | `keys`    | `qmatrix<Capacity, KeyWidth, QK>` (rows past `length` unused) |
/// | `values`  | `qmatrix<Capacity, ValueWidth, QV>`                   |
/// | `length`  | tokens held, 0 to Capacity                            |
///
/// Example: `typename decltype(layer_q)::template cache<16> cache{};   // the layer's own cache type`
template <std::size_t Capacity, auto KeyWidth, auto ValueWidth, quantization QK, quantization QV>
struct qkv_cache : detail::cache_rows<basic_qmatrix<Capacity, normalize_extent<KeyWidth>, QK>,
                                      basic_qmatrix<Capacity, normalize_extent<ValueWidth>, QV>,
                                      basic_qmatrix<std::size_t{1}, normalize_extent<KeyWidth>, QK>,
                                      basic_qmatrix<std::size_t{1}, normalize_extent<ValueWidth>, QV>> {
  static constexpr std::size_t capacity = Capacity;
  static constexpr quantization key_quantization = QK;
  static constexpr quantization value_quantization = QV;
  static constexpr auto key_extent = normalize_extent<KeyWidth>;
  static constexpr auto value_extent = normalize_extent<ValueWidth>;
  using key_row = basic_qmatrix<std::size_t{1}, key_extent, QK>;
  using value_row = basic_qmatrix<std::size_t{1}, value_extent, QV>;
  // `keys`, `values`, `length`, `full()`, `append(key, value)` and `clear()`: detail/cache_rows.hpp.

  friend constexpr bool operator==(const qkv_cache&, const qkv_cache&) = default;
};

namespace detail {
template <typename C>
inline constexpr bool is_qkv_cache = false;
template <std::size_t Capacity, auto K, auto V, quantization QK, quantization QV>
inline constexpr bool is_qkv_cache<qkv_cache<Capacity, K, V, QK, QV>> = true;

// The cache of the keys and values that multi-head weights W project, for Capacity tokens.
template <typename W, std::size_t Capacity>
using qkv_cache_for = qkv_cache<Capacity, decltype(W::key)::output_extent, decltype(W::value)::output_extent,
                                decltype(W::key)::output_quantization, decltype(W::value)::output_quantization>;

// Every head of one query row q over the cache's first `length` tokens (and `mask`, when it hides more), then W_O.
template <quantization Scores, softmax_method Softmax, typename Q, typename W, typename Cache, typename Mask>
[[nodiscard]] constexpr auto attend_cached_heads(const Q& q, const W& w, const Cache& cache,
                                                 const Mask& mask) noexcept {
  constexpr std::size_t heads = W::heads;
  constexpr std::size_t key_width = decltype(W::query)::outputs / heads;
  constexpr std::size_t value_width = decltype(W::value)::outputs / heads;
  basic_qmatrix<std::size_t{1}, decltype(W::value)::output_extent, decltype(W::output)::input_quantization> context;
  const auto visible = combine_masks(key_padding_length{cache.length}, mask);
  for (std::size_t h = 0; h < heads; ++h) {
    int8_attend<Scores, Softmax, key_width, value_width>(
        q, cache.keys, cache.values, visible, context,
        {h * key_width, h * key_width, h * value_width, h * value_width});
  }
  return project(context, w.output);
}

template <typename W, typename Cache>
using cache_rules = rule_list<
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::key_extent>, dim_of<decltype(W::key)::output_extent>>,
    shape_error::columns_must_match<op::kv_cache, dim_of<Cache::value_extent>,
                                    dim_of<decltype(W::value)::output_extent>>,
    shape_error::int8_cache_must_hold_the_projections_quantization<
        op::kv_cache, quantization_constant<Cache::key_quantization>,
        quantization_constant<decltype(W::key)::output_quantization>>,
    shape_error::int8_cache_must_hold_the_projections_quantization<
        op::kv_cache, quantization_constant<Cache::value_quantization>,
        quantization_constant<decltype(W::value)::output_quantization>>>;

template <typename X, typename W, typename Cache>
using quantized_cached_attention_rules =
    rule_list<typename W::rules, shape_error::must_be_a_single_row<op::kv_cache, dim_of<X::row_extent>>,
              quantized_projection_rules<X, decltype(W::query)>, cache_rules<W, Cache>>;
}  // namespace detail

/// One token of int8 multi-head self-attention with a cache: projects the row `x` into its query, key and value,
/// appends the key and value to `cache`, attends every head over the cached tokens (its own included) and writes W_O
/// of the heads into `out`. False, with nothing changed, when the cache is full.
///
/// | operand  | shape                                                          |
/// |----------|----------------------------------------------------------------|
/// | `x`      | `qmatrix<1, d_model, Q(x)>` (W_Q's input quantization)         |
/// | `w`      | `qmulti_head_attention_weights<Heads, ...>`                     |
/// | `cache`  | `qkv_cache<Capacity, d_k, d_v, W_K's output, W_V's output>`     |
/// | `out`    | `qmatrix<1, d_out, W_O's output quantization>`                 |
/// | `mask`   | a mask that hides more keys (by default none)                   |
///
/// Token t's output is row t of `multi_head_attention<Scores, Softmax>(X, w, ctattn::causal)`, bit for bit.
///
/// Example: `if (!ctattn::multi_head_attention_step<q_scores>(x_t, w, cache, y_t)) { /* full */ }`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, typename W,
          typename Cache, QuantizedMatrix Out, AttentionMask Mask = no_mask_type>
  requires detail::is_qkv_cache<Cache>
[[nodiscard]] constexpr bool multi_head_attention_step(const X& x, const W& w, Cache& cache, Out& out,
                                                       const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::quantized_cached_attention_rules<X, W, Cache>>::check()) {
    if (cache.full()) return false;
    const auto q = project(x, w.query);
    (void)cache.append(project(x, w.key), project(x, w.value));
    out = detail::attend_cached_heads<Scores, Softmax>(q, w, cache, mask);
  }
  return true;
}

/// Projects a memory (the encoder's output, in int8) once into a cache, for the cross-attention of decoding: row i
/// of `memory` gives the cache's key and value i through W_K and W_V; the cache then holds exactly the memory's
/// rows. A memory with more rows than the cache's capacity is a compile error (rule `memory_must_fit_cache`).
///
/// | operand  | shape                                                  |
/// |----------|--------------------------------------------------------|
/// | `memory` | `qmatrix<m, d_model, W_K's input quantization>`, m <= Capacity |
/// | `w`      | the cross-attention's `qmulti_head_attention_weights`  |
/// | `cache`  | `qkv_cache<Capacity, ...>` in W_K's and W_V's output quantizations |
///
/// Example: `ctattn::cache_memory(memory_q, cross_weights_q, source);   // once per source sequence`
template <QuantizedMatrix Memory, typename W, typename Cache>
  requires detail::is_qkv_cache<Cache>
constexpr void cache_memory(const Memory& memory, const W& w, Cache& cache) noexcept {
  using rules =
      rule_list<shape_error::memory_must_fit_cache<op::kv_cache, count<Memory::rows>, count<Cache::capacity>>,
                detail::quantized_projection_rules<Memory, decltype(W::key)>,
                detail::quantized_projection_rules<Memory, decltype(W::value)>, detail::cache_rules<W, Cache>>;
  if constexpr (detail::first_broken<rules>::check()) {
    const auto keys = project(memory, w.key);
    const auto values = project(memory, w.value);
    cache = Cache{};
    for (std::size_t i = 0; i < Memory::rows; ++i) {
      for (std::size_t j = 0; j < Cache::key_row::cols; ++j) cache.keys.elements[i][j] = keys.elements[i][j];
      for (std::size_t j = 0; j < Cache::value_row::cols; ++j) cache.values.elements[i][j] = values.elements[i][j];
    }
    cache.length = Memory::rows;
  }
}

/// One token of int8 multi-head attention over the tokens a cache holds, appending nothing: the cross-attention of
/// a decoding step over the memory `cache_memory` projected.
///
/// | operand  | shape                                                 |
/// |----------|-------------------------------------------------------|
/// | `x`      | `qmatrix<1, d_model, W_Q's input quantization>`       |
/// | `cache`  | the `qkv_cache` `cache_memory` filled                 |
/// | `out`    | `qmatrix<1, d_out, W_O's output quantization>`        |
/// | `mask`   | a mask over the memory's keys (by default none)       |
///
/// Token t's output is row t of `multi_head_attention<Scores, Softmax>(X, memory, w)`, bit for bit.
///
/// Example: `ctattn::multi_head_attention_cached<q_cross_scores>(x_t, cross_weights_q, source, y_t);`
template <quantization Scores, softmax_method Softmax = softmax_method::rounded, QuantizedMatrix X, typename W,
          typename Cache, QuantizedMatrix Out, AttentionMask Mask = no_mask_type>
  requires detail::is_qkv_cache<Cache>
constexpr void multi_head_attention_cached(const X& x, const W& w, const Cache& cache, Out& out,
                                           const Mask& mask = {}) noexcept {
  if constexpr (detail::first_broken<detail::quantized_cached_attention_rules<X, W, Cache>>::check()) {
    out = detail::attend_cached_heads<Scores, Softmax>(project(x, w.query), w, cache, mask);
  }
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_KV_CACHE_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/multiply.hpp
#ifndef CTATTN_QUANTIZED_MULTIPLY_HPP
#define CTATTN_QUANTIZED_MULTIPLY_HPP

/// \file
/// The product of two int8 matrices into a third quantization, as int8 inference computes it: the sum of
/// (a - a_zero)(b - b_zero) in int32, then requantized by the fixed-point multiplier a_scale b_scale / out_scale
/// (ctattn/math/fixed_point.hpp), derived by the compiler.



namespace ctattn {

namespace detail {
/// The rules of `multiply<Out>(a, b)` for quantized operands: a's columns are b's rows, the sum fits an int32, and
/// the output's quantization is one.
template <typename A, typename B, quantization Out>
using quantized_multiply_rules = rule_list<
    shape_error::inner_dimensions_must_match<op::quantized_multiply, dim_of<A::column_extent>, dim_of<B::row_extent>>,
    shape_error::int8_accumulator_must_not_overflow<op::quantized_multiply, count<A::cols>, count<33025>>,
    quantization_rules<Out>>;
}  // namespace detail

/// The int8 product a b, quantized with `Out`: out = clamp(round(sum_k (a - a_zero)(b - b_zero) x a_scale b_scale /
/// out_scale) + out_zero, -128, 127), the sum exact in int32 and the scaling TFLite's fixed-point
/// requantization: TFLite's BATCH_MATMUL bit for bit, whose multiplier takes a_scale b_scale in float32 when both
/// are float32 values (as a .tflite file's are), then divides in double. The same bits in constant evaluation and at
/// run time, on every target.
///
/// | operand | shape                              |
/// |---------|------------------------------------|
/// | `a`     | `qmatrix<M, K, QA>`                |
/// | `b`     | `qmatrix<K, N, QB>`                |
/// | result  | `qmatrix<M, N, Out>`               |
///
/// Rules: K matches (`inner_dimensions_must_match`, names included); K <= 33025
/// (`int8_accumulator_must_not_overflow`); Out is a quantization (`scale_must_be_positive`,
/// `zero_point_must_fit_int8`).
///
/// Example:
/// \code
///   constexpr auto c = ctattn::multiply<ctattn::quantization{0.25, 0}>(qa, qb);
/// \endcode
/// The transpose of an int8 matrix as `multiply` reads it: a view of `of` (no copy), of's columns as rows.
/// `multiply<Out>(q, transpose(k))` computes Q K^T straight from K's rows, the layout the kernels read.
///
/// | member / operand | shape                       |
/// |------------------|-----------------------------|
/// | `of`             | `qmatrix<R, C, Q>`          |
/// | the view         | C x R, quantized with Q     |
///
/// Example: `constexpr auto scores = ctattn::multiply<q_scores>(q, ctattn::transpose(k));`
template <QuantizedMatrix M>
struct qmatrix_transpose {
  static constexpr quantization quant = M::quant;
  static constexpr auto row_extent = M::column_extent;
  static constexpr auto column_extent = M::row_extent;
  static constexpr std::size_t rows = M::cols;
  static constexpr std::size_t cols = M::rows;
  const M& of;
};

/// The transpose of an int8 matrix as a view (`qmatrix_transpose`), for `multiply`.
///
/// Example: `const auto scores = ctattn::multiply<q_scores>(q, ctattn::transpose(k));`
template <QuantizedMatrix M>
[[nodiscard]] constexpr qmatrix_transpose<M> transpose(const M& m) noexcept {
  return {m};
}

/// The int8 product a b^T, b given by its transpose view (`transpose(b)`): `multiply<Out>(a, b)`'s result and
/// rules, read from b's rows without a copy.
///
/// | operand        | shape                   |
/// |----------------|-------------------------|
/// | `a`            | `qmatrix<M, K, QA>`     |
/// | `transpose(b)` | view of `qmatrix<N, K, QB>` |
/// | result         | `qmatrix<M, N, Out>`    |
template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const qmatrix_transpose<B>& b) noexcept
    -> basic_qmatrix<A::row_extent, qmatrix_transpose<B>::column_extent, Out> {
  using BT = qmatrix_transpose<B>;
  basic_qmatrix<A::row_extent, BT::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_multiply_rules<A, BT, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    detail::kernels::int8_product_transposed_requantized(a.elements, b.of.elements, A::quant.zero_point,
                                                         B::quant.zero_point, multiplier, Out.zero_point, out.elements);
  }
  return out;
}

template <quantization Out, QuantizedMatrix A, QuantizedMatrix B>
[[nodiscard]] constexpr auto multiply(const A& a, const B& b) noexcept
    -> basic_qmatrix<A::row_extent, B::column_extent, Out> {
  basic_qmatrix<A::row_extent, B::column_extent, Out> out;
  if constexpr (detail::first_broken<detail::quantized_multiply_rules<A, B, Out>>::check()) {
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(detail::scale_product(A::quant.scale(), B::quant.scale()) / Out.scale());
    // Rationale: b transposed, so that both operands are read along K (the kernels' form); N x K bytes on the stack.
    std::int8_t b_transposed[B::cols][A::cols];
    for (std::size_t t = 0; t < A::cols; ++t) {
      for (std::size_t j = 0; j < B::cols; ++j) b_transposed[j][t] = b.elements[t][j];
    }
    detail::kernels::int8_product_transposed_requantized(a.elements, b_transposed, A::quant.zero_point,
                                                         B::quant.zero_point, multiplier, Out.zero_point, out.elements);
  }
  return out;
}

/// `multiply<Out>(a, b)` with one float operand: refused at compile time (`int8_operands_must_both_be_int8`), with
/// what to write instead.
///
/// Example: `ctattn::multiply<q_y>(x_q, ctattn::quantize<q_w>(w))` rather than `ctattn::multiply<q_y>(x_q, w)`.
template <quantization Out, typename A, typename B>
  requires((QuantizedMatrix<A> && FixedMatrix<B>) || (FixedMatrix<A> && QuantizedMatrix<B>))
constexpr auto multiply(const A&, const B&) noexcept {
  return detail::refuse_int8_operation<op::quantized_multiply, A, B>();
}

/// `multiply(a, b)` (no `Out`) or `a * b` with an int8 operand: refused at compile time, with what to write instead
/// (`int8_operation_needs_output_quantization`, or `int8_operands_must_both_be_int8` for a float operand).
///
/// Example: `ctattn::multiply<q_y>(x_q, w_q)` rather than `ctattn::multiply(x_q, w_q)` or `x_q * w_q`.
template <typename A, typename B>
  requires(QuantizedMatrix<A> || QuantizedMatrix<B>)
constexpr auto multiply(const A&, const B&) noexcept {
  return detail::refuse_int8_operation<op::quantized_multiply, A, B>();
}

/// \copydoc multiply(const A&, const B&)
template <typename A, typename B>
  requires(QuantizedMatrix<A> || QuantizedMatrix<B>)
constexpr auto operator*(const A& a, const B& b) noexcept {
  return multiply(a, b);
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_MULTIPLY_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/norm.hpp
#ifndef CTATTN_QUANTIZED_NORM_HPP
#define CTATTN_QUANTIZED_NORM_HPP

/// \file
/// Int8 layer normalization (LayerNorm, and RMSNorm) in integers only: the row's sums in int32, its variance term in int64, an exact integer
/// square root, the normalized values in fixed point, the layer's weight and bias as fixed-point constants derived
/// by the compiler from a float `ctattn::layer_norm`, then rounded to the output's quantization. The same bits in
/// constant evaluation and at run time, on every target, with or without an FPU.
///
/// | entity                                   | what                                                          |
/// |------------------------------------------|---------------------------------------------------------------|
/// | `qlayer_norm<Width, QIn, QOut>`          | the int8 layer: per channel a weight multiplier, a shift, a bias; eps |
/// | `quantize_layer_norm<QIn, QOut>(norm)`   | a float `layer_norm<T, Width, Affine>` (nn.LayerNorm) quantized  |
/// | `qrms_norm<Width, QIn, QOut>`            | the same for RMSNorm (`qlayer_norm<..., true>`): rows centred on QIn's zero point, no bias |
/// | `quantize_rms_norm<QIn, QOut>(norm)`     | a float `rms_norm<T, Width, Affine>` (nn.RMSNorm) quantized      |
/// | `normalize(x, norm)`                     | `qmatrix<n, Width, QIn>` to `qmatrix<n, Width, QOut>`, row by row |
///
/// Example:
/// \code
///   #include <ctattn/layers/norm.hpp>   // ctattn::layer_norm
///   constexpr auto norm1_q = ctattn::quantize_layer_norm<q_x, q_norm1>(model.norm1);
///   const auto h = ctattn::normalize(x_q, norm1_q);   // qmatrix<n, 32, q_norm1>
/// \endcode
///
/// Rationale (the derivation). A row of C int8 values q_j with quantization (s, z) stands for x_j = s (q_j - z).
/// With S1 = sum q_j and S2 = sum q_j^2 (integers), the mean is s (S1 / C - z) and the biased variance
/// s^2 (C S2 - S1^2) / C^2, so
///
///     (x_j - mean) / sqrt(var + eps) = N_j / sqrt(V),   N_j = C q_j - S1,   V = D + E,
///     D = C S2 - S1^2,   E = eps C^2 / s^2:
///
/// the zero point and the scale cancel, except in E, which the compiler computes once. D >= 0 exactly (it is C^2
/// times the variance of the q_j), and D = 0 only for a row of equal values, where every N_j = 0. The output is
/// round(n_j gamma_j / s_out + beta_j / s_out) + z_out, with n_j = N_j / sqrt(V).
///
/// In fixed point (f = `epsilon_shift`, E_f = round(E 2^f), both chosen by the compiler: f is the largest even
/// number with C^2 2^14 2^f <= 2^60, 18 or more for C <= 16384, lowered by 2 until E 2^f <= 2^61):
///   1. V_f = D 2^f + E_f; k = (62 - bit_width(V_f)) / 2, so that V_f 4^k lies in [2^60, 2^62);
///   2. R = isqrt(V_f 4^k), in [2^30, 2^31): 2^(k + f/2) sqrt(V) with a relative error below 2^-30;
///   3. I = floor((2^61 + floor(R / 2)) / R) = round(2^61 / R), in (2^30, 2^31]: relative error at most 2^-31;
///   4. n_j = round(N_j I / 2^(37 - k - f/2)): N_j / sqrt(V) with 24 fractional bits (`fraction_bits`);
///   5. t_j = n_j m_j, m_j the signed mantissa of |gamma_j| / s_out = |m_j| 2^(e_j - 31) (`multiplier`);
///   6. A_j = round(t_j / 2^(39 - e_j)) + b_j, in 2^-16 output steps (`output_fraction_bits`), b_j =
///      round(beta_j / s_out 2^16) (`bias`); the shift 39 - e_j is `shift`, capped at 63;
///   7. q_j = clamp(round(A_j / 2^16) + z_out, -128, 127).
/// Every round() is to nearest, ties away from zero.
///
/// Rationale (no overflow, for any input; C <= 16384 is the rule `int8_layer_norm_must_not_overflow`):
///   - |q_j| <= 128: |S1| <= 2^21 and S2 <= 2^28 fit int32;
///   - D <= C^2 (255 / 2)^2 < C^2 2^14 (values within a range of 255 have a variance of at most (255 / 2)^2),
///     so D 2^f < 2^60 by the choice of f; E_f <= 2^61 (E is saturated at 2^61 only if E > 2^61 itself, with
///     f = 0): V_f < 2^62, and V_f 4^k < 2^62;
///   - D >= 1 in step 1 (a row of equal values skips to n_j = 0), so V_f >= 2^f and k + f/2 <= 30: the shift of
///     step 4 is at least 7;
///   - |N_j| <= 255 (C - 1) < 2^22 and I <= 2^31: |N_j I| < 2^53;
///   - |N_j| / sqrt(D) <= sqrt(C - 1) (no value lies further than sqrt(C - 1) biased standard deviations from the
///     mean), so |n_j| <= 2^24 sqrt(C - 1) (1 + 2^-29) + 1/2 < 2^31 for C <= 16384: n_j is an int32, and this is
///     what limits the width;
///   - |gamma_j| / s_out is held at 2^15 at most, so e_j <= 16, the shift 39 - e_j >= 23, |t_j| < 2^31 2^31 = 2^62,
///     |round(t_j / 2^(39 - e_j))| <= 2^15 2^7 2^16 = 2^38, b_j is an int32: |A_j| < 2^39.
/// int64 holds every step; int32 holds S1, S2, n_j, m_j and b_j.
///
/// Rationale (precision): R and I give n_j a relative error below 2^-29, step 4 an absolute one of 2^-25; E_f's
/// rounding (half of 2^-f in V) moves n_j by at most 2^-(f + 2) / sqrt(C - 1) < C^1.5 2^-46 <= 2^-25 when f is
/// not lowered, and by 2^-61 relative when it is (then E 2^f > 2^59). The weight's mantissa adds 2^-31 relative,
/// step 6 and b_j at most 2^-17 output steps each. For |gamma_j| / s_out <= 2^10 the value rounded in step 7 is
/// thus within 2^-11 output steps of the exact n_j gamma_j / s_out + beta_j / s_out (|n_j| < 2^7), and each output
/// within 0.5 + 2^-11 output steps of LayerNorm of the input's real values, unless it saturates
/// (tests/static/quantized_test.cpp holds it to that bound against torch's nn.LayerNorm). A row of equal values gives
/// beta_j / s_out rounded, plus z_out, as float LayerNorm does with eps > 0 (with eps = 0 float gives NaN). Beyond
/// the held limits (|gamma_j| / s_out > 2^15, |beta_j| / s_out >= 2^15, E > 2^61, the last only for a scale s below
/// sqrt(eps) C 2^-30.5), outputs saturate or differ from float; no real layer comes near them.



namespace ctattn {

// The float layer (ctattn/layers/norm.hpp), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; `quantize_layer_norm` only reads the layer's
// members, and the layer's type is complete wherever a user names it.
template <typename T, auto Width, bool Affine>
struct layer_norm;
template <typename T, auto Width, bool Affine>
struct rms_norm;

namespace detail {
// The rules of an int8 LayerNorm layer's type: its quantizations, and a width whose fixed point fits.
template <std::size_t Width, quantization QIn, quantization QOut, bool RootMeanSquare>
using quantized_layer_norm_type_rules =
    rule_list<quantization_rules<QIn>, quantization_rules<QOut>,
              shape_error::int8_layer_norm_must_not_overflow<op::quantized_layer_norm, count<Width>,
                                                             count<RootMeanSquare ? 16383 : 16384>>>;

// round(v) for v >= 0, ties away from zero, held at `limit` (<= 2^62); NaN and v <= 0 give 0.
constexpr std::int64_t round_held(double v, std::int64_t limit) noexcept {
  if (!(v > 0.0)) return 0;
  if (v >= static_cast<double>(limit)) return limit;
  const auto whole = static_cast<std::int64_t>(v);  // exact below 2^62; v - whole is exact
  return whole + (v - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}
}  // namespace detail

/// An int8 LayerNorm over rows of Width values quantized with QIn, giving rows quantized with QOut; made by
/// `quantize_layer_norm` from a float `layer_norm` (the header's rationale derives each member).
///
/// | member             | shape / meaning                                                                  |
/// |--------------------|----------------------------------------------------------------------------------|
/// | `multiplier`       | Width int32: abs(gamma_j) / s_out as a mantissa in [2^30, 2^31) (or 0), gamma_j's sign |
/// | `shift`            | Width int32: 39 - the exponent, in [23, 63]: from n_j multiplier_j to 2^-16 output steps |
/// | `bias`             | Width int32: beta_j / s_out in 2^-16 output steps                                |
/// | `epsilon`          | eps C^2 / s_in^2 times 2^epsilon_shift, rounded (int64)                          |
/// | `epsilon_shift`    | f, even, at most `largest_epsilon_shift`: the fractional bits of the variance term |
/// | `largest_epsilon_shift` | the largest even f with Width^2 2^14 2^f <= 2^60 (18 for Width 16384, 36 for 32) |
/// | `fraction_bits`    | 24, of the normalized values                                                     |
/// | `output_fraction_bits` | 16, of the output before its rounding                                        |
///
/// With `RootMeanSquare`, RMSNorm (`qrms_norm`, made by `quantize_rms_norm`): each row centred on QIn's zero point
/// (real 0) instead of its mean, so that N_j = C (q_j - z) and D = C sum (q_j - z)^2 <= C^2 255^2 < C^2 2^16; f the
/// largest even number with Width^2 2^16 2^f <= 2^60; the bias 0 (nn.RMSNorm has none); |N_j| / sqrt(D) <= sqrt(C),
/// so Width <= 16383 keeps |n_j| < 2^31. The other steps and bounds are LayerNorm's.
///
/// Rules: QIn and QOut are quantizations; Width <= 16384, 16383 for RMSNorm (`int8_layer_norm_must_not_overflow`).
template <auto Width, quantization QIn, quantization QOut, bool RootMeanSquare = false>
struct qlayer_norm {
  static constexpr auto input_extent = normalize_extent<Width>;
  static constexpr auto output_extent = normalize_extent<Width>;
  static constexpr std::size_t width = extent_size(Width);
  static_assert(
      (detail::first_broken<detail::quantized_layer_norm_type_rules<width, QIn, QOut, RootMeanSquare>>::check(), true));
  static constexpr bool root_mean_square = RootMeanSquare;
  static constexpr quantization input_quantization = QIn;
  static constexpr quantization output_quantization = QOut;
  static constexpr int fraction_bits = 24;
  static constexpr int output_fraction_bits = detail::kernels::int8_layer_norm_output_fraction_bits;
  static constexpr std::int32_t largest_epsilon_shift = [] {
    std::int32_t f = 0;
    constexpr int headroom = RootMeanSquare ? 16 : 14;  // D < C^2 2^headroom
    while (f < 46 && (std::uint64_t{width} * width << (headroom + f + 2)) <= (std::uint64_t{1} << 60)) f += 2;
    return f;
  }();

  std::int32_t multiplier[width]{};
  std::int32_t shift[width]{};
  std::int32_t bias[width]{};
  std::int64_t epsilon = 0;
  std::int32_t epsilon_shift = 0;

  /// `ctattn::normalize(x, *this)`: the call of the layer protocol, as `qlinear::forward`.
  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return normalize(x, *this);
  }

  /// The memory of `normalize(x, norm)` on an X (ctattn::footprint): the object, X and the result (the same size),
  /// and on the stack one row's constants.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {sizeof(qlayer_norm), sizeof(X), sizeof(basic_qmatrix<X::row_extent, output_extent, QOut>), 0,
            sizeof(detail::kernels::int8_layer_norm_row)};
  }

  friend constexpr bool operator==(const qlayer_norm&, const qlayer_norm&) = default;
};

namespace detail {
// The constants of an int8 LayerNorm or RMSNorm from its float layer (`quantize_layer_norm`, `quantize_rms_norm`):
// `HasBias` says whether the float layer has a bias (LayerNorm with affine parameters).
template <typename Quantized, bool Affine, bool HasBias, typename Float>
[[nodiscard]] constexpr Quantized quantized_norm_constants(const Float& norm) noexcept {
  constexpr quantization QIn = Quantized::input_quantization;
  constexpr quantization QOut = Quantized::output_quantization;
  Quantized q{};
  constexpr std::size_t c = Float::width;
  constexpr double largest_weight = 32768.0;  // 2^15 output steps per unit of the normalized value
  for (std::size_t j = 0; j < c; ++j) {
    double gamma = 1.0;
    double beta = 0.0;
    if constexpr (Affine) gamma = static_cast<double>(norm.weight.elements[0][j]);
    if constexpr (Affine && HasBias) beta = static_cast<double>(norm.bias.elements[0][j]);
    double magnitude = (gamma < 0.0 ? -gamma : gamma) / QOut.scale();
    magnitude = magnitude > largest_weight ? largest_weight : magnitude;
    const math::quantized_multiplier m = math::quantize_multiplier(magnitude);
    q.multiplier[j] = gamma < 0.0 ? -m.multiplier : m.multiplier;
    q.shift[j] = 39 - m.shift > 63 ? 63 : 39 - m.shift;
    q.bias[j] = static_cast<std::int32_t>(round_away(beta / QOut.scale() * 65536.0));
  }
  constexpr std::int64_t largest_epsilon = std::int64_t{1} << 61;
  const double e = static_cast<double>(norm.eps) / (QIn.scale() * QIn.scale()) * static_cast<double>(c * c);
  std::int32_t f = Quantized::largest_epsilon_shift;
  while (f > 0 && !(e * static_cast<double>(std::int64_t{1} << f) <= static_cast<double>(largest_epsilon))) f -= 2;
  q.epsilon_shift = f;
  q.epsilon = round_held(e * static_cast<double>(std::int64_t{1} << f), largest_epsilon);
  return q;
}
}  // namespace detail

/// A float LayerNorm (nn.LayerNorm: weight gamma, bias beta, eps; or no affine parameters) quantized for inputs QIn
/// and outputs QOut: per channel, |gamma_j| / s_out as `math::quantize_multiplier` gives it (held at 2^15) with
/// gamma_j's sign, the shift 39 - its exponent (at most 63), and round(beta_j / s_out 2^16) (saturating int32);
/// eps C^2 / s_in^2 with f fractional bits, f the largest even number <= `largest_epsilon_shift` that keeps it
/// <= 2^61 (f = 0 and 2^61 if none does). Every quotient is computed in double, then rounded to nearest, ties away
/// from zero.
///
/// | operand | what                                         |
/// |---------|----------------------------------------------|
/// | `norm`  | `layer_norm<T, Width, Affine>` (ctattn/layers/norm.hpp) |
/// | result  | `qlayer_norm<Width, QIn, QOut>`              |
///
/// Example:
/// \code
///   constexpr auto norm_q = ctattn::quantize_layer_norm<q_x, q_norm>(model.norm);
/// \endcode
template <quantization QIn, quantization QOut, typename T, auto Width, bool Affine>
[[nodiscard]] constexpr auto quantize_layer_norm(const layer_norm<T, Width, Affine>& norm) noexcept {
  using Float = layer_norm<T, Width, Affine>;
  return detail::quantized_norm_constants<qlayer_norm<Float::input_extent, QIn, QOut>, Affine, true>(norm);
}

/// An int8 RMSNorm over rows of Width values quantized with QIn, giving rows quantized with QOut
/// (`qlayer_norm` with `RootMeanSquare`; its bias is 0).
template <auto Width, quantization QIn, quantization QOut>
using qrms_norm = qlayer_norm<Width, QIn, QOut, true>;

/// A float RMSNorm (nn.RMSNorm: weight gamma, eps; or no weight) quantized for inputs QIn and outputs QOut, as
/// `quantize_layer_norm` quantizes a LayerNorm (no bias): y_j = x_j / sqrt(mean(x^2) + eps) gamma_j in integers.
///
/// | operand | what                                         |
/// |---------|----------------------------------------------|
/// | `norm`  | `rms_norm<T, Width, Affine>` (ctattn/layers/norm.hpp) |
/// | result  | `qrms_norm<Width, QIn, QOut>`                |
///
/// Example: `constexpr auto norm_q = ctattn::quantize_rms_norm<q_x, q_norm>(model.norm);`
template <quantization QIn, quantization QOut, typename T, auto Width, bool Affine>
[[nodiscard]] constexpr auto quantize_rms_norm(const rms_norm<T, Width, Affine>& norm) noexcept {
  using Float = rms_norm<T, Width, Affine>;
  return detail::quantized_norm_constants<qrms_norm<Float::input_extent, QIn, QOut>, Affine, false>(norm);
}

namespace detail {
template <typename X, typename L>
using quantized_layer_norm_rules = rule_list<
    shape_error::columns_must_match<op::quantized_layer_norm, dim_of<X::column_extent>, dim_of<L::input_extent>>,
    shape_error::input_quantization_must_match_layer<op::quantized_layer_norm, typename X::quantization_type,
                                                     quantization_constant<L::input_quantization>>>;
}  // namespace detail

/// LayerNorm of each row of x in int8, integers only (the header's rationale gives the steps and their bounds):
/// each output within 0.5 + 2^-11 output steps of nn.LayerNorm of x's real values, unless it saturates.
///
/// | operand | shape                                  |
/// |---------|----------------------------------------|
/// | `x`     | `qmatrix<n, Width, QIn>`               |
/// | `norm`  | `qlayer_norm<Width, QIn, QOut>`        |
/// | result  | `qmatrix<n, Width, QOut>`              |
///
/// Rules: x has the layer's width (`columns_must_match`, names included) and its quantization
/// (`input_quantization_must_match_layer`).
///
/// Example:
/// \code
///   const auto h = ctattn::normalize(x_q, norm_q);
/// \endcode
template <QuantizedMatrix X, auto Width, quantization QIn, quantization QOut, bool RootMeanSquare>
[[nodiscard]] constexpr auto normalize(const X& x, const qlayer_norm<Width, QIn, QOut, RootMeanSquare>& norm) noexcept
    -> basic_qmatrix<X::row_extent, qlayer_norm<Width, QIn, QOut, RootMeanSquare>::output_extent, QOut> {
  using L = qlayer_norm<Width, QIn, QOut, RootMeanSquare>;
  basic_qmatrix<X::row_extent, L::output_extent, QOut> y;
  if constexpr (detail::first_broken<detail::quantized_layer_norm_rules<X, L>>::check()) {
    detail::kernels::int8_layer_norm_rows<RootMeanSquare>(x.elements, y.elements, norm.multiplier, norm.shift,
                                                          norm.bias, norm.epsilon, norm.epsilon_shift, QOut.zero_point,
                                                          QIn.zero_point);
  }
  return y;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_NORM_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/patch.hpp
#ifndef CTATTN_QUANTIZED_PATCH_HPP
#define CTATTN_QUANTIZED_PATCH_HPP

/// \file
/// Patch embeddings in int8 (the float layers are in ctattn/layers/patch.hpp): the patches of an int8 input gathered
/// as the float layer gathers them (ctattn/detail/patches.hpp), then projected by a per-channel `qlinear`, TFLite's
/// CONV_2D with stride = kernel as one FULLY_CONNECTED over the patches.
///
/// | entity                                          | what                                                  |
/// |-------------------------------------------------|-------------------------------------------------------|
/// | `qpatch_embedding<Geometry, Linear>`            | the int8 layer: the cut and its `qlinear`             |
/// | `quantize_patch_embedding<QIn, QOut>(layer)`    | a float `patch_embedding_1d` or `patch_embedding_2d` quantized |


// ---------------------------------------- ctattn/detail/patches.hpp
#ifndef CTATTN_DETAIL_PATCHES_HPP
#define CTATTN_DETAIL_PATCHES_HPP

// How a patch embedding cuts its input (ctattn/layers/patch.hpp, and its int8 form in ctattn/quantized/patch.hpp):
// each patch gathered into one row in PyTorch's weight order (channel, then the offsets within the patch, as
// torch.nn.functional.unfold orders them), so that a linear map of the rows is the convolution. One definition of
// the cut for the float and the int8 layers, over any element type.


namespace ctattn::detail {

// nn.Conv1d(Channels, D, Kernel, stride=Kernel): runs of Kernel rows of Channels columns.
template <std::size_t Channels, std::size_t Kernel>
struct patches_1d {
  static constexpr std::size_t width = Channels * Kernel;  // the entries of one gathered patch
  template <std::size_t Rows>
  static constexpr std::size_t tokens = Rows / Kernel;

  template <typename E, std::size_t Rows>
  static constexpr void gather(const E (&x)[Rows][Channels], E (&p)[Rows / Kernel][width]) noexcept {
    for (std::size_t token = 0; token < Rows / Kernel; ++token) {
      for (std::size_t c = 0; c < Channels; ++c) {
        for (std::size_t k = 0; k < Kernel; ++k) p[token][c * Kernel + k] = x[token * Kernel + k][c];
      }
    }
  }
};

// nn.Conv2d(Channels, D, (PatchHeight, PatchWidth), stride=(PatchHeight, PatchWidth)) over a Height x Width image
// given as Height Width rows of pixels (row-major), Channels columns: the patches row by row.
template <std::size_t Channels, std::size_t Height, std::size_t Width, std::size_t PatchHeight, std::size_t PatchWidth>
struct patches_2d {
  static constexpr bool whole =
      PatchHeight != 0 && PatchWidth != 0 && Height % PatchHeight == 0 && Width % PatchWidth == 0;
  static constexpr std::size_t across = whole ? Width / PatchWidth : 1;
  static constexpr std::size_t area = PatchHeight * PatchWidth;
  static constexpr std::size_t width = Channels * area;
  // 1 when the patch does not divide the image (refused by the layer's rule).
  template <std::size_t Rows>
  static constexpr std::size_t tokens = whole ? (Height / PatchHeight) * across : 1;

  template <typename E>
  static constexpr void gather(const E (&x)[Height * Width][Channels], E (&p)[tokens<0>][width]) noexcept {
    for (std::size_t token = 0; token < tokens<0>; ++token) {
      const std::size_t top = token / across * PatchHeight;
      const std::size_t left = token % across * PatchWidth;
      for (std::size_t i = 0; i < PatchHeight; ++i) {
        for (std::size_t j = 0; j < PatchWidth; ++j) {
          const auto& pixel = x[(top + i) * Width + left + j];
          for (std::size_t c = 0; c < Channels; ++c) p[token][c * area + i * PatchWidth + j] = pixel[c];
        }
      }
    }
  }
};

}  // namespace ctattn::detail

#endif  // CTATTN_DETAIL_PATCHES_HPP
// ---------------------------------------- ctattn/quantized/patch.hpp (continued)

namespace ctattn {

/// A patch embedding in int8: x's patches (int8, x's quantization) gathered one per row, then `project`ed by the
/// `qlinear` `projection`.
///
/// | operand      | shape                                                                 |
/// |--------------|-----------------------------------------------------------------------|
/// | `forward(x)` | the float layer's input rows, `Linear::input_quantization` -> tokens x D, `Linear::output_quantization` |
///
/// Example: `const auto tokens = ctattn::quantize_patch_embedding<q_in, q_out>(model.proj).forward(image_q);`
template <typename Geometry, typename Linear>
struct qpatch_embedding {
  using geometry = Geometry;
  static constexpr auto output_extent = Linear::output_extent;
  static constexpr quantization input_quantization = Linear::input_quantization;
  static constexpr quantization output_quantization = Linear::output_quantization;

  Linear projection{};

  /// The patches of x, one per row, in the float layer's order.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr auto patches(const X& x) noexcept {
    basic_qmatrix<Geometry::template tokens<X::rows>, Geometry::width, X::quant> p;
    Geometry::gather(x.elements, p.elements);
    return p;
  }

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return project(patches(x), projection);
  }

  /// The memory of `forward(x)` on an X: the projection's on the patches, and the patches on the stack.
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    using gathered = decltype(patches(std::declval<const X&>()));
    footprint f = Linear::template footprint_of<gathered>();
    f.input_bytes = sizeof(X);
    f.stack_bytes += sizeof(gathered);
    return f;
  }

  friend constexpr bool operator==(const qpatch_embedding&, const qpatch_embedding&) = default;
};

/// A float patch embedding (`ctattn::patch_embedding_1d`, `ctattn::patch_embedding_2d`) quantized: its projection by
/// `quantize_linear<QIn, QOut, Weights>` (per-channel weight scales; int8 or int4 weights), the cut unchanged.
///
/// Example: `constexpr auto embed_q = ctattn::quantize_patch_embedding<q_image, q_tokens>(model.proj);`
template <quantization QIn, quantization QOut, weight_format Weights = weight_format::int8,
          weight_granularity Granularity = weight_granularity::per_channel, typename L>
  requires requires { typename L::geometry; }
[[nodiscard]] constexpr auto quantize_patch_embedding(const L& layer) noexcept {
  using linear_type = decltype(quantize_linear<QIn, QOut, Weights, Granularity>(layer.projection));
  return qpatch_embedding<typename L::geometry, linear_type>{
      quantize_linear<QIn, QOut, Weights, Granularity>(layer.projection)};
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_PATCH_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/points.hpp
#ifndef CTATTN_QUANTIZED_POINTS_HPP
#define CTATTN_QUANTIZED_POINTS_HPP

/// \file
/// The calibration points, named once: every activation an int8 layer quantizes has a name, which
/// `ctattn::record_ranges` writes into a ranges table (under the layer's path: `layers.0.norm1`) and `ctattn::quantize`
/// reads back. Both take the names from here, so that a name cannot be spelled two ways.
///
/// | names (`ctattn::points::`)                             | the activations                                       |
/// |--------------------------------------------------------|-------------------------------------------------------|
/// | `input`, `memory`, `output`                            | a model's matrix input, a decoder's memory, a whole model's output (a layer's output is named by its path) |
/// | `weight`                                               | an embedding's table                                  |
/// | `self_attention_names`: `query`, `key`, `value`, `scores`, `context`, `attention` | a self-attention's projections, scaled scores, heads side by side and W_O's output |
/// | `cross_attention_names`: `cross_query` ... `cross_attention` | the same, for a decoder's attention over its memory   |
/// | `hidden`, `activation`, `feed_forward`                 | a feed-forward block's linear1, activation and linear2 (inside a transformer layer) |
/// | `w1`, `w3`, `product`                                  | a gated feed-forward block's two projections and their product (the gate is `activation`) |
/// | `inner`                                                | the path of a residual connection's inner layer       |
/// | `norm1` ... `norm3`, `sum1` ... `sum3`                 | a transformer layer's LayerNorms and residual sums, block by block (`norm_point(k)`, `sum_point(k)`) |
///
/// Example:
/// \code
///   static_assert(ctattn::points::norm_point(2) == ctattn::points::norm2);
///   static_assert(ctattn::points::cross_attention_names.scores == ctattn::points::cross_scores);
/// \endcode



namespace ctattn {

namespace points {
inline constexpr std::string_view input = "input";
inline constexpr std::string_view memory = "memory";
inline constexpr std::string_view output = "output";
inline constexpr std::string_view weight = "weight";
inline constexpr std::string_view hidden = "hidden";
inline constexpr std::string_view activation = "activation";
inline constexpr std::string_view feed_forward = "feed_forward";
inline constexpr std::string_view w1 = "w1";
inline constexpr std::string_view w3 = "w3";
inline constexpr std::string_view product = "product";
inline constexpr std::string_view inner = "inner";
inline constexpr std::string_view norm1 = "norm1";
inline constexpr std::string_view norm2 = "norm2";
inline constexpr std::string_view norm3 = "norm3";
inline constexpr std::string_view sum1 = "sum1";
inline constexpr std::string_view sum2 = "sum2";
inline constexpr std::string_view sum3 = "sum3";

/// The points of one multi-head attention: its projections, scaled scores (q k^T / sqrt(d_head), over the keys the
/// mask lets each query see), the heads side by side (W_O's input) and W_O's output.
struct attention_points {
  std::string_view query, key, value, scores, context, attention;
};
/// A self-attention's (a transformer layer's, or a decoder's causal one).
inline constexpr attention_points self_attention_names{"query", "key", "value", "scores", "context", "attention"};
/// A decoder's attention over its memory.
inline constexpr attention_points cross_attention_names{"cross_query",  "cross_key",     "cross_value",
                                                        "cross_scores", "cross_context", "cross_attention"};
inline constexpr std::string_view query = self_attention_names.query;
inline constexpr std::string_view key = self_attention_names.key;
inline constexpr std::string_view value = self_attention_names.value;
inline constexpr std::string_view scores = self_attention_names.scores;
inline constexpr std::string_view context = self_attention_names.context;
inline constexpr std::string_view attention = self_attention_names.attention;
inline constexpr std::string_view cross_query = cross_attention_names.query;
inline constexpr std::string_view cross_key = cross_attention_names.key;
inline constexpr std::string_view cross_value = cross_attention_names.value;
inline constexpr std::string_view cross_scores = cross_attention_names.scores;
inline constexpr std::string_view cross_context = cross_attention_names.context;
inline constexpr std::string_view cross_attention = cross_attention_names.attention;

/// The LayerNorm and the residual sum of a transformer layer's block k (1, 2 or 3: an encoder layer has two blocks,
/// a decoder layer three).
[[nodiscard]] constexpr std::string_view norm_point(std::size_t k) noexcept {
  if (k < 1 || k > 3) detail::precondition_failed();
  return k == 1 ? norm1 : k == 2 ? norm2 : norm3;
}
/// \copydoc norm_point
[[nodiscard]] constexpr std::string_view sum_point(std::size_t k) noexcept {
  if (k < 1 || k > 3) detail::precondition_failed();
  return k == 1 ? sum1 : k == 2 ? sum2 : sum3;
}
}  // namespace points

namespace detail {
// Whether `name` is `path.point` (`point` for the empty path of a single layer), compared without building it.
[[nodiscard]] constexpr bool names_point(std::string_view name, std::string_view path, std::string_view pt) noexcept {
  return path.empty() ? name == pt
                      : name.size() == path.size() + 1 + pt.size() && name.substr(0, path.size()) == path &&
                            name[path.size()] == '.' && name.substr(path.size() + 1) == pt;
}
// Whether a generated table holds the range `path.point`.
template <typename Table>
[[nodiscard]] constexpr bool holds_point(const Table& table, std::string_view path, std::string_view point) noexcept {
  for (const named_range& entry : table) {
    if (names_point(entry.name, path, point)) return true;
  }
  return false;
}
// The range `path.point` of a generated table; a name the table lacks is a contract violation (a compile error in a
// constant expression). `range_at_output(table, path)` is the layer's output: `path`, or `output` for a single layer.
template <typename Table>
[[nodiscard]] constexpr value_range range_at_point(const Table& table, std::string_view path,
                                                   std::string_view point) noexcept {
  for (const named_range& entry : table) {
    if (names_point(entry.name, path, point)) return entry.range;
  }
  detail::ranges_table_lacks_this_point_record_it_with_record_ranges();
  return value_range{};
}
// The name of a layer's output in a table: its path, or `output` for the empty path of a single layer.
[[nodiscard]] constexpr std::string_view output_point(std::string_view path) noexcept {
  return path.empty() ? points::output : path;
}
template <typename Table>
[[nodiscard]] constexpr value_range range_at_output(const Table& table, std::string_view path) noexcept {
  return range_at(table, output_point(path));
}

// The points of the layer at `path` as `ctattn::quantize` reads them from a generated table: `point(name)` is the
// range `path.name`, `output()` the layer's output. (ctattn/quantized/model.hpp has a probe with the same members,
// which names the first point a table lacks before any is read.)
template <typename Table>
struct table_points {
  const Table& table;
  std::string_view path;
  [[nodiscard]] constexpr value_range point(std::string_view name) const noexcept {
    return range_at_point(table, path, name);
  }
  [[nodiscard]] constexpr value_range output() const noexcept { return range_at_output(table, path); }
};
}  // namespace detail

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_POINTS_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/pool.hpp
#ifndef CTATTN_QUANTIZED_POOL_HPP
#define CTATTN_QUANTIZED_POOL_HPP

/// \file
/// Pooling in int8 (the float layers are in ctattn/layers/pool.hpp): the class token's row, which keeps its
/// quantization, and the mean of the rows, requantized as TFLite's MEAN does it (the sum of the offsets from the
/// zero point, times one multiplier for the scales and the count).
///
/// | entity                        | what                                             |
/// |-------------------------------|--------------------------------------------------|
/// | `qclass_token_pool<Q>`        | row 0 of an int8 matrix quantized with Q          |
/// | `qmean_pool<QIn, QOut>`       | the mean of the rows, quantized with QOut         |



namespace ctattn {

/// The class token's row of int8 rows, in their quantization Q.
///
/// Example: `const auto pooled = ctattn::qclass_token_pool<q>{}.forward(tokens_q);   // qmatrix<1, D, q>`
template <quantization Q>
struct qclass_token_pool {
  static constexpr quantization output_quantization = Q;

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<Q>>;
    static_assert((input_rule::check(), true));
    basic_qmatrix<std::size_t{1}, X::column_extent, Q> y;
    for (std::size_t j = 0; j < X::cols; ++j) y.elements[0][j] = x.elements[0][j];
    return y;
  }

  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(basic_qmatrix<std::size_t{1}, X::column_extent, Q>), 0, 0};
  }
  friend constexpr bool operator==(const qclass_token_pool&, const qclass_token_pool&) = default;
};

/// The mean of int8 rows quantized QIn, quantized with QOut: for each column, the sum over the n rows of
/// (x - QIn's zero point) in int32, times the multiplier of QIn.scale / (n QOut.scale), plus QOut's zero point.
///
/// Example: `const auto pooled = ctattn::qmean_pool<q_in, q_out>{}.forward(tokens_q);   // qmatrix<1, D, q_out>`
template <quantization QIn, quantization QOut>
struct qmean_pool {
  static constexpr quantization output_quantization = QOut;

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    using input_rule =
        shape_error::input_quantization_must_match_layer<op::quantized_front_end, quantization_constant<X::quant>,
                                                         quantization_constant<QIn>>;
    static_assert((input_rule::check(), true));
    constexpr math::quantized_multiplier multiplier =
        math::quantize_multiplier(QIn.scale() / (static_cast<double>(X::rows) * QOut.scale()));
    basic_qmatrix<std::size_t{1}, X::column_extent, QOut> y;
    for (std::size_t j = 0; j < X::cols; ++j) {
      std::int32_t sum = 0;
      for (std::size_t r = 0; r < X::rows; ++r) sum += std::int32_t{x.elements[r][j]} - QIn.zero_point;
      y.elements[0][j] = detail::kernels::requantize(sum, multiplier, QOut.zero_point);
    }
    return y;
  }

  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    return {0, sizeof(X), sizeof(basic_qmatrix<std::size_t{1}, X::column_extent, QOut>), 0, 0};
  }
  friend constexpr bool operator==(const qmean_pool&, const qmean_pool&) = default;
};

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_POOL_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)
// ---------------------------------------- ctattn/quantized/transformer.hpp
#ifndef CTATTN_QUANTIZED_TRANSFORMER_HPP
#define CTATTN_QUANTIZED_TRANSFORMER_HPP

/// \file
/// A small transformer in int8: the encoder layer (nn.TransformerEncoderLayer, pre-norm or
/// post-norm) quantized from the layers tier's float layers, every activation with its own quantization, all
/// chosen at compile time. Integers only at run time, the same bits in constant evaluation and on every target.
///
/// | entity                                            | what                                                  |
/// |---------------------------------------------------|-------------------------------------------------------|
/// | `encoder_layer_quantizations`                     | the quantization of each activation of one encoder layer |
/// | `encoder_layer_quantizations_for(ranges)`         | the same, chosen from the activations' calibrated ranges |
/// | `qtransformer_encoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>` | the int8 layer                   |
/// | `quantize_encoder_layer<Q>(layer)`                | a float `transformer_encoder_layer` quantized         |
/// | `qtransformer_decoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`, `quantize_decoder_layer<Q>(layer)` | the decoder layer in int8 |
///
/// Example:
/// \code
///   constexpr ctattn::encoder_layer_quantizations q0 = ctattn::encoder_layer_quantizations_for(ranges0);
///   constexpr auto layer0 = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));
///   const auto y = layer0.forward(x_q);   // qmatrix<n, Width, q0.output>
/// \endcode


// ---------------------------------------- ctattn/layers/detail/blocks.hpp
#ifndef CTATTN_LAYERS_DETAIL_BLOCKS_HPP
#define CTATTN_LAYERS_DETAIL_BLOCKS_HPP

// The flow of a transformer layer, written once: a chain of residual blocks, each a sublayer with its LayerNorm
// and its residual sum. The float layers' `forward` and `step`, their int8 forms' `forward` and `step`, and the
// range recorder (ctattn/quantized/ranges.hpp) all run it, each with the steps of its own arithmetic, so that the
// five cannot drift apart (an encoder layer has two blocks, the attention and the feed-forward block; a decoder
// layer three, with the attention over the memory between them).


namespace ctattn::detail {

// Block k of a layer, counted from 1 as PyTorch counts norm1, norm2, norm3.
template <std::size_t K>
using block_index = std::integral_constant<std::size_t, K>;

// The member of block k among a layer's members in block order (`block_member<2>(norm1, norm2, norm3)` is norm2).
template <std::size_t K, typename First, typename... Rest>
[[nodiscard]] constexpr const auto& block_member(const First& first, const Rest&... rest) noexcept {
  static_assert(K >= 1 && K <= 1 + sizeof...(Rest), "a block index counts from 1 to the number of blocks");
  if constexpr (K == 1) {
    return first;
  } else {
    return block_member<K - 1>(rest...);
  }
}

// What a flow's caller supplies: `norm(block_index<k>, in)`, block k's LayerNorm of `in`, and
// `add(block_index<k>, in, addend)`, block k's residual sum. Each is a callable taking the block as a
// `block_index`, so that the int8 forms choose each sum's quantization at compile time.
template <typename Norm, typename Add>
struct block_steps {
  Norm norm;
  Add add;
};
template <typename Norm, typename Add>
block_steps(Norm, Add) -> block_steps<Norm, Add>;

// One block: pre-norm (NormFirst), in + sublayer(norm(in)); post-norm, norm(in + sublayer(in)).
template <bool NormFirst, std::size_t K, typename Steps, typename In, typename Sublayer>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_block(const Steps& steps, const In& in,
                                                                       const Sublayer& sublayer) noexcept {
  constexpr block_index<K> at_block{};
  if constexpr (NormFirst) {
    return steps.add(at_block, in, sublayer(steps.norm(at_block, in)));
  } else {
    return steps.norm(at_block, steps.add(at_block, in, sublayer(in)));
  }
}

// Blocks 1 to K, block k running the k-th sublayer on block k - 1's output.
// Rationale: as `run_chain` (ctattn/layers/layer.hpp), each block's input is a local of its own step and the steps are
// always inlined, so that the layer's flow is one frame (its `forward`) whose temporaries of disjoint lifetimes the
// compiler stores in the same place: the attention's and the feed-forward block's share their bytes, as the layers'
// footprints count them. Nested calls (block K inside the call that holds block K - 1's temporaries) cost the int8
// sorter 432 bytes of stack more on the Cortex-M4F than its footprint figure.
template <bool NormFirst, std::size_t K, typename Steps, typename In, typename... Sublayers>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_blocks_to(const Steps& steps, const In& in,
                                                                           const Sublayers&... sublayers) noexcept {
  if constexpr (K == 1) {
    return residual_block<NormFirst, 1>(steps, in, block_member<1>(sublayers...));
  } else {
    const auto input = residual_blocks_to<NormFirst, K - 1>(steps, in, sublayers...);
    return residual_block<NormFirst, K>(steps, input, block_member<K>(sublayers...));
  }
}

// The blocks of a layer in order, block k running the k-th sublayer on block k - 1's output:
//   pre-norm:  x_k = x_{k-1} + sublayer_k(norm_k(x_{k-1}))
//   post-norm: x_k = norm_k(x_{k-1} + sublayer_k(x_{k-1}))
// The last block's output is the layer's.
template <bool NormFirst, typename Steps, typename In, typename... Sublayers>
[[nodiscard, gnu::always_inline]] constexpr inline auto residual_blocks(const Steps& steps, const In& in,
                                                                        const Sublayers&... sublayers) noexcept {
  return residual_blocks_to<NormFirst, sizeof...(Sublayers)>(steps, in, sublayers...);
}

}  // namespace ctattn::detail

#endif  // CTATTN_LAYERS_DETAIL_BLOCKS_HPP
// ---------------------------------------- ctattn/quantized/transformer.hpp (continued)

namespace ctattn {

// The float layers (ctattn/layers/), declared, not included.
// Rationale: the layers tier needs Boost.Hana and the core does not; quantizing reads the layers' members only, and
// their types are complete wherever a user names them.
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation, bool NormFirst,
          typename Mask, WeightLayout Layout>
struct transformer_encoder_layer;
template <typename T, auto DModel, std::size_t Heads, auto FeedForward, typename Activation, bool NormFirst,
          typename Mask, WeightLayout Layout>
struct transformer_decoder_layer;

namespace detail {
// The steps of an int8 transformer layer L's residual blocks (ctattn/layers/detail/blocks.hpp), as the float layers':
// block k's LayerNorm, the k-th of `norms`, and the int8 ADD into `L::sum_quantization<k>`.
template <typename L, typename... Norms>
[[nodiscard]] constexpr auto int8_block_steps(const Norms&... norms) noexcept {
  return block_steps{[&norms...](auto at_block, const auto& in) {
                       return ctattn::normalize(in, block_member<decltype(at_block)::value>(norms...));
                     },
                     [](auto at_block, const auto& in, const auto& addend) {
                       return ctattn::add<L::template sum_quantization<decltype(at_block)::value>>(in, addend);
                     }};
}

// The sublayers the int8 encoder and decoder layers share, as residual_blocks runs them: the feed-forward block, and
// a decoding step's self-attention over the cache (its row written into `attended`, which it gives back).
template <typename Linear1, typename Activation, typename Linear2>
[[nodiscard]] constexpr auto int8_feed_forward(const Linear1& linear1, const Activation& activation,
                                               const Linear2& linear2) noexcept {
  return [&linear1, &activation, &linear2](const auto& in) {
    return project(activate(project(in, linear1), activation), linear2);
  };
}
template <quantization Scores, softmax_method Softmax, typename Weights, typename Cache, typename Row>
[[nodiscard]] constexpr auto int8_cached_self_attention(const Weights& weights, Cache& cache, Row& attended) noexcept {
  return [&weights, &cache, &attended](const auto& in) {
    (void)multi_head_attention_step<Scores, Softmax>(in, weights, cache, attended);
    return attended;
  };
}

// Quantizes a float feed-forward block's two linears and its activation into an int8 layer's `linear1`,
// `activation` and `linear2` (the encoder's and the decoder's), its input in `In`, Q the layer's quantizations.
template <quantization In, auto Q, typename Activation, typename Layer, typename FeedForward>
constexpr void quantize_feed_forward_into(Layer& q, const FeedForward& ff) noexcept {
  q.linear1 = quantize_linear<In, Q.hidden, Q.weights, Q.granularity>(ff.linear1);
  q.activation = quantize_activation<Q.hidden, Q.activation>(Activation{});
  q.linear2 = quantize_linear<Q.activation, Q.feed_forward, Q.weights, Q.granularity>(ff.linear2);
}
}  // namespace detail

/// The quantization of every activation of one pre-norm encoder layer, in the order the layer computes them:
///
/// | member         | the activation                                   |
/// |----------------|--------------------------------------------------|
/// | `input`        | x, the layer's input                             |
/// | `norm1`        | LayerNorm(x)                                     |
/// | `query`, `key`, `value` | the projections of norm1                |
/// | `scores`       | Q K^T / sqrt(d_head), every head's               |
/// | `context`      | the heads' outputs side by side (W_O's input)    |
/// | `attention`    | the context times W_O                            |
/// | `sum1`         | x + attention                                    |
/// | `norm2`        | LayerNorm(sum1)                                  |
/// | `hidden`       | the first linear of the feed-forward block       |
/// | `activation`   | its activation (GELU, ReLU, ...)                 |
/// | `feed_forward` | the second linear                                |
/// | `output`       | sum1 + feed_forward, the layer's output          |
/// | `sum2`         | post-norm only: norm1 + feed_forward             |
/// | `softmax`      | not a point: the attention's `softmax_method`    |
/// | `weights`      | not a point: the six linears' `weight_format`    |
/// | `granularity`  | not a point: their `weight_granularity`          |
///
/// A post-norm layer (norm_first = false) runs x + attention(x), then `norm1`, then norm1 + feed_forward (`sum2`),
/// then its norm2, which is the layer's `output`: its `query`, `key` and `value` read `input`, its feed-forward
/// block reads `norm1`, and its norm2 gives `output` (the member `norm2` is not used).
///
/// A structural type: a template argument of `qtransformer_encoder_layer`.
// Rationale: the point fields it shares with decoder_layer_quantizations stay written in each: a shared base
// struct would stop `{.input = ..., .norm1 = ...}` (C++20 designated initializers cannot name a base's members)
// and would put the decoder's `memory` after its attention points, away from the order of its forward.
struct encoder_layer_quantizations {
  quantization input{1.0};
  quantization norm1{1.0};
  quantization query{1.0};
  quantization key{1.0};
  quantization value{1.0};
  quantization scores{1.0};
  quantization context{1.0};
  quantization attention{1.0};
  quantization sum1{1.0};
  quantization norm2{1.0};
  quantization hidden{1.0};
  quantization activation{1.0};
  quantization feed_forward{1.0};
  quantization output{1.0};
  quantization sum2{1.0};
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;

  friend constexpr bool operator==(const encoder_layer_quantizations&, const encoder_layer_quantizations&) = default;
};

/// The calibrated range of every activation of one encoder layer (the members of `encoder_layer_quantizations`).
struct encoder_layer_ranges {
  value_range input, norm1, query, key, value, scores, context, attention, sum1, norm2, hidden, activation,
      feed_forward, output;
  value_range sum2{};  // post-norm only
};

/// The quantizations of a layer chosen from its activations' ranges (`quantization_for_range` for each: TFLite's
/// asymmetric int8 over the range widened to contain 0).
///
/// Example: `constexpr auto q0 = ctattn::encoder_layer_quantizations_for(ranges);`
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_for(
    const encoder_layer_ranges& r) noexcept {
  return {
      quantization_for_range(r.input),        quantization_for_range(r.norm1),     quantization_for_range(r.query),
      quantization_for_range(r.key),          quantization_for_range(r.value),     quantization_for_range(r.scores),
      quantization_for_range(r.context),      quantization_for_range(r.attention), quantization_for_range(r.sum1),
      quantization_for_range(r.norm2),        quantization_for_range(r.hidden),    quantization_for_range(r.activation),
      quantization_for_range(r.feed_forward), quantization_for_range(r.output),    quantization_for_range(r.sum2)};
}

namespace detail {
// The points an encoder layer's quantizations read, each once, from `at` (`table_points`, or the probe of
// ctattn/quantized/model.hpp that names a point a table lacks first).
template <typename Points>
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_from(Points& at, quantization input,
                                                                                     bool norm_first) noexcept {
  // Rationale: a post-norm layer's norm2 gives its output, so its quantization is the output's.
  const value_range output = at.output();
  encoder_layer_quantizations q =
      encoder_layer_quantizations_for({{},
                                       at.point(points::norm1),
                                       at.point(points::query),
                                       at.point(points::key),
                                       at.point(points::value),
                                       at.point(points::scores),
                                       at.point(points::context),
                                       at.point(points::attention),
                                       at.point(points::sum1),
                                       norm_first ? at.point(points::norm2) : output,
                                       at.point(points::hidden),
                                       at.point(points::activation),
                                       at.point(points::feed_forward),
                                       output,
                                       norm_first ? value_range{} : at.point(points::sum2)});
  q.input = input;
  return q;
}
}  // namespace detail

/// The quantizations of the encoder layer whose points a calibration recorded under `path`
/// (`ctattn::record_ranges`: `path.norm1` ... `path.feed_forward`, `path.sum2` for a post-norm layer, and its
/// output under `path`), its input quantized with `input` (the layer before it's output quantization).
/// `ctattn::quantize` reads every encoder layer's this way.
///
/// Example: `constexpr auto q0 = ctattn::encoder_layer_quantizations_at(toy::sorter_ranges, "layers.0", q_pos);`
template <typename Table>
[[nodiscard]] constexpr encoder_layer_quantizations encoder_layer_quantizations_at(const Table& table,
                                                                                   std::string_view path,
                                                                                   quantization input,
                                                                                   bool norm_first = true) noexcept {
  const detail::table_points<Table> at{table, path};
  return detail::encoder_layer_quantizations_from(at, input, norm_first);
}

/// A transformer encoder layer in int8 (nn.TransformerEncoderLayer(batch_first=True), pre-norm by default,
/// post-norm with `NormFirst` false):
///   h = x + W_O(attention(LayerNorm1(x)));   y = h + linear2(f(linear1(LayerNorm2(h))))
/// with integer LayerNorms, per-channel int8 projections, int8 multi-head attention (`Mask`, e.g. causal), the int8
/// ADD for both residual sums and the activation f by table; each activation quantized as `Q` says.
///
/// | member      | type                                                                 |
/// |-------------|----------------------------------------------------------------------|
/// | `norm1`     | `qlayer_norm<Width, Q.input, Q.norm1>`                               |
/// | `self_attn` | `qmulti_head_attention_weights<Heads, ...>`: W_Q, W_K, W_V from Q.norm1, W_O from Q.context |
/// | `norm2`     | `qlayer_norm<Width, Q.sum1, Q.norm2>`                                |
/// | `linear1`   | `qlinear<Width, Hidden, Q.norm2, Q.hidden>`                          |
/// | `activation`| `qactivation<Q.hidden, Q.activation>`                                |
/// | `linear2`   | `qlinear<Hidden, Width, Q.activation, Q.feed_forward>`               |
///
/// | operand        | shape                          |
/// |----------------|--------------------------------|
/// | `forward(x)`   | `qmatrix<n, Width, Q.input>` -> `qmatrix<n, Width, Q.output>` |
///
/// Example: `const auto y = ctattn::quantize_encoder_layer<q0>(float_layer).forward(x_q);`
template <auto Width, std::size_t Heads, auto Hidden, encoder_layer_quantizations Q, typename Mask = no_mask_type,
          bool NormFirst = true>
struct qtransformer_encoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  static constexpr auto input_extent = Width;
  static constexpr auto output_extent = Width;
  static constexpr quantization input_quantization = Q.input;
  static constexpr quantization output_quantization = Q.output;
  static constexpr encoder_layer_quantizations quantizations = Q;
  static constexpr bool norm_first = NormFirst;
  /// What each sublayer reads: pre-norm, the attention reads norm1 and the feed-forward block norm2; post-norm, the
  /// attention reads the input, norm1 the first sum, the feed-forward block norm1 and norm2 the second sum.
  static constexpr quantization attention_input = NormFirst ? Q.norm1 : Q.input;
  static constexpr quantization norm1_input = NormFirst ? Q.input : Q.sum1;
  static constexpr quantization norm2_input = NormFirst ? Q.sum1 : Q.sum2;
  static constexpr quantization feed_forward_input = NormFirst ? Q.norm2 : Q.norm1;
  /// Post-norm, norm2 gives the layer's output.
  static constexpr quantization norm2_output = NormFirst ? Q.norm2 : Q.output;

  using attention_weights =
      qmulti_head_attention_weights<Heads, qlinear<Width, Width, attention_input, Q.query, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, attention_input, Q.key, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, attention_input, Q.value, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, Q.context, Q.attention, Q.weights, Q.granularity>>;

  qlayer_norm<Width, norm1_input, Q.norm1> norm1{};
  attention_weights self_attn{};
  qlayer_norm<Width, norm2_input, norm2_output> norm2{};
  qlinear<Width, Hidden, feed_forward_input, Q.hidden, Q.weights, Q.granularity> linear1{};
  qactivation<Q.hidden, Q.activation> activation{};
  qlinear<Hidden, Width, Q.activation, Q.feed_forward, Q.weights, Q.granularity> linear2{};
  [[no_unique_address]] Mask mask{};

  template <QuantizedMatrix X>
  [[nodiscard]] constexpr auto forward(const X& x) const noexcept {
    return detail::residual_blocks<NormFirst>(
        blocks(), x, [&](const auto& in) { return multi_head_attention<Q.scores, Q.softmax>(in, self_attn, mask); },
        [&](const auto& in) { return feed_forward(in); });
  }

  /// The quantization of block k's residual sum: `sum1`; pre-norm, the second sum is the layer's `output`.
  template <std::size_t K>
  static constexpr quantization sum_quantization = K == 1      ? Q.sum1
                                                   : NormFirst ? Q.output
                                                               : Q.sum2;

  /// The steps of the layer's two residual blocks (ctattn/layers/detail/blocks.hpp), as the float layer's: norm1 or
  /// norm2, and the int8 ADD into `sum_quantization<k>`.
  [[nodiscard]] constexpr auto blocks() const noexcept {
    return detail::int8_block_steps<qtransformer_encoder_layer>(norm1, norm2);
  }

  /// linear2(activation(linear1(h))) on the rows of h, in blocks of `Rows` rows (every row at once where that is n
  /// or more; by default `detail::kernels::int8_feed_forward_rows`): the same bits for every `Rows`, each row being
  /// computed alone.
  ///
  /// | operand | shape |
  /// |---------|-------|
  /// | `h`     | `qmatrix<n, Width, feed_forward_input>` -> `qmatrix<n, Width, Q.feed_forward>` |
  ///
  /// Example: `const auto ff = layer_q.feed_forward(h_q);`
  ///
  /// Rules: Rows >= 1 (`rows_per_block_must_be_positive`).
  template <std::size_t Rows = detail::kernels::int8_feed_forward_rows, QuantizedMatrix H>
  [[nodiscard]] constexpr auto feed_forward(const H& h) const noexcept {
    constexpr std::size_t n = H::rows;
    constexpr std::size_t rows = n < Rows ? n : Rows;
    if constexpr (!shape_error::rows_per_block_must_be_positive<op::quantized_feed_forward, count<Rows>>::check()) {
      return basic_qmatrix<H::row_extent, Width, Q.feed_forward>{};
    } else if constexpr (rows == n) {
      return project(activate(project(h, linear1), activation), linear2);
    } else {
      basic_qmatrix<H::row_extent, Width, Q.feed_forward> out;
      const auto run_rows = [&]<std::size_t M>(std::integral_constant<std::size_t, M>, std::size_t first) {
        // Rationale: not the short names (x, y, part, r, c) that GCC's -Wshadow reports inside a lambda against a
        // user's globals of those names (tests/static/user_names_test.cpp).
        basic_qmatrix<M, H::column_extent, H::quant> rows_in;
        for (std::size_t row = 0; row < M; ++row) {
          for (std::size_t col = 0; col < H::cols; ++col) rows_in.elements[row][col] = h.elements[first + row][col];
        }
        const auto rows_out = project(activate(project(rows_in, linear1), activation), linear2);
        for (std::size_t row = 0; row < M; ++row) {
          for (std::size_t col = 0; col < decltype(rows_out)::cols; ++col) {
            out.elements[first + row][col] = rows_out.elements[row][col];
          }
        }
      };
      detail::kernels::for_each_row_block<n, rows>(run_rows);
      return out;
    }
  }

  /// The cache `step` keeps for up to Capacity tokens: the self-attention's int8 keys and values.
  template <std::size_t Capacity>
  using cache_type = detail::qkv_cache_for<attention_weights, Capacity>;
  /// One row of the layer's output.
  using output_row = basic_qmatrix<std::size_t{1}, Width, Q.output>;

  /// One token of autoregressive decoding (a causal layer): `x` is the token's row; `cache` holds the keys and
  /// values of the tokens before it and receives its own. Writes the token's output row into `out`: row t of
  /// `forward` over the whole sequence, bit for bit. False, with nothing changed, when `cache` is full.
  ///
  /// | operand | shape                                  |
  /// |---------|----------------------------------------|
  /// | `x`     | `qmatrix<1, Width, Q.input>`           |
  /// | `cache` | `cache_type<Capacity>`                 |
  /// | `out`   | `output_row`                           |
  ///
  /// Example:
  /// \code
  ///   typename decltype(causal_layer_q)::template cache_type<16> cache{};
  ///   typename decltype(causal_layer_q)::output_row y{};
  ///   for (const auto& x_t : tokens_q) if (!causal_layer_q.step(x_t, cache, y)) break;
  /// \endcode
  template <QuantizedMatrix X, typename Cache>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, output_row& out) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    if (cache.full()) return false;
    basic_qmatrix<std::size_t{1}, Width, Q.attention> attended;
    out = detail::residual_blocks<NormFirst>(
        blocks(), x, detail::int8_cached_self_attention<Q.scores, Q.softmax>(self_attn, cache, attended),
        detail::int8_feed_forward(linear1, activation, linear2));
    return true;
  }

  /// The memory of `forward(x)` on an X (ctattn::footprint): the layer's object, X and the result, and on the stack
  /// the larger of its two phases, whose activations are never live together:
  ///   - the attention: two n x Width activations (pre-norm: norm1's and the attention's result; post-norm: the
  ///     result and the first sum) with the attention's own stack (its Q, K, V^T, context and scratch);
  ///   - the feed-forward block: three n x Width activations (the sum it adds to, its normalized input or the
  ///     second sum, its result) and the hidden layer's two (linear1's and the activation's), with the deepest
  ///     scratch of the LayerNorms and the two linears.
  ///
  /// Example: `static_assert(decltype(layer_q)::footprint_of<decltype(x_q)>().weight_bytes == sizeof(layer_q));`
  // Rationale: the phases, not the sum of every activation (as until KWT-Tiny: 7,200 bytes more for its 50 tokens,
  // 16 wide, which kept it off the 16 KB micro:bit): each phase's results are temporaries of its own expression, and
  // the compilers give the two phases the same bytes of the layer's frame (measured by the firmware footprint tests
  // on GCC 12 and Clang 14, against the call graph).
  template <QuantizedMatrix X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t row_bytes = n * extent_size(Width);
    constexpr std::size_t hidden_bytes = n * extent_size(Hidden);
    constexpr footprint feed_forward_parts[] = {
        decltype(norm1)::template footprint_of<X>(), decltype(norm2)::template footprint_of<X>(),
        decltype(linear1)::template footprint_of<X>(), decltype(activation)::template footprint_of<X>(),
        decltype(linear2)::template footprint_of<basic_qmatrix<X::row_extent, Hidden, Q.activation>>()};
    std::size_t deepest = 0;
    for (const footprint& part : feed_forward_parts) {
      deepest = part.stack_bytes > deepest ? part.stack_bytes : deepest;
    }
    constexpr std::size_t attention_phase = 2 * row_bytes + attention_weights::template footprint_of<X>().stack_bytes;
    const std::size_t feed_forward_phase = 3 * row_bytes + 2 * hidden_bytes + deepest;
    return {sizeof(qtransformer_encoder_layer), sizeof(X), sizeof(X), 0,
            attention_phase > feed_forward_phase ? attention_phase : feed_forward_phase};
  }

  friend constexpr bool operator==(const qtransformer_encoder_layer&, const qtransformer_encoder_layer&) = default;
};

/// A float `transformer_encoder_layer` (PyTorch's out x in weights, biases; pre- or post-norm) quantized with the
/// activations' quantizations `Q`: each linear per channel (`quantize_linear`), each LayerNorm in integers
/// (`quantize_layer_norm`), the activation as a table (`quantize_activation`); the layer's mask is kept.
///
/// | operand | what                                                                      |
/// |---------|---------------------------------------------------------------------------|
/// | `layer` | `transformer_encoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>` |
/// | result  | `qtransformer_encoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`    |
///
/// Example: `constexpr auto layer0_q = ctattn::quantize_encoder_layer<q0>(boost::hana::at_c<0>(model.layers.layers));`
template <encoder_layer_quantizations Q, typename T, auto Width, std::size_t Heads, auto Hidden, typename Activation,
          bool NormFirst, typename Mask>
[[nodiscard]] constexpr auto quantize_encoder_layer(
    const transformer_encoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>& layer) noexcept {
  using result =
      qtransformer_encoder_layer<normalize_extent<Width>, Heads, normalize_extent<Hidden>, Q, Mask, NormFirst>;
  constexpr quantization q_attention = result::attention_input;
  result q{};
  const auto& w = layer.self_attn.weights;
  q.norm1 = quantize_layer_norm<result::norm1_input, Q.norm1>(layer.norm1);
  q.self_attn = detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                              q_attention, q_attention, Q.query, Q.key, Q.value,
                                                              Q.context, Q.attention, Q.weights, Q.granularity}>(w);
  q.norm2 = quantize_layer_norm<result::norm2_input, result::norm2_output>(layer.norm2);
  detail::quantize_feed_forward_into<result::feed_forward_input, Q, Activation>(q, layer.ff);
  return q;
}

/// The quantization of every activation of one decoder layer (nn.TransformerDecoderLayer), in the order the layer
/// computes them: the self-attention block as an encoder layer's, then the attention over the memory and the
/// feed-forward block.
///
/// | member            | pre-norm (norm_first = true)            | post-norm (the default of PyTorch)          |
/// |-------------------|-----------------------------------------|---------------------------------------------|
/// | `input`           | x, the target                           | x                                           |
/// | `memory`          | the memory (the encoder's output)       | the memory                                  |
/// | `norm1`           | LayerNorm1(x)                           | LayerNorm1(sum1)                            |
/// | `query`, `key`, `value`, `scores`, `context`, `attention` | the causal self-attention of norm1 | of x |
/// | `sum1`            | x + attention                           | x + attention                               |
/// | `norm2`           | LayerNorm2(sum1)                        | LayerNorm2(sum2)                            |
/// | `cross_query`     | norm2 projected by W_Q                  | norm1 projected by W_Q                      |
/// | `cross_key`, `cross_value` | the memory projected           | the memory projected                        |
/// | `cross_scores`, `cross_context` | as `scores`, `context`    | as `scores`, `context`                      |
/// | `cross_attention` | W_O's output                            | W_O's output                                |
/// | `sum2`            | sum1 + cross_attention                  | norm1 + cross_attention                     |
/// | `norm3`           | LayerNorm3(sum2)                        | (LayerNorm3 gives `output`)                 |
/// | `hidden`, `activation`, `feed_forward` | of norm3           | of norm2                                    |
/// | `output`          | sum2 + feed_forward                     | LayerNorm3(sum3)                            |
/// | `sum3`            | (not used)                              | norm2 + feed_forward                        |
/// | `softmax`         | not a point: both attentions' `softmax_method` |                                          |
/// | `weights`         | not a point: the ten linears' `weight_format`  |                                          |
/// | `granularity`     | not a point: their `weight_granularity`        |                                          |
///
/// A structural type: a template argument of `qtransformer_decoder_layer`.
// Rationale: the point fields shared with encoder_layer_quantizations are written here again (see there).
struct decoder_layer_quantizations {
  quantization input{1.0};
  quantization memory{1.0};
  quantization norm1{1.0};
  quantization query{1.0};
  quantization key{1.0};
  quantization value{1.0};
  quantization scores{1.0};
  quantization context{1.0};
  quantization attention{1.0};
  quantization sum1{1.0};
  quantization norm2{1.0};
  quantization cross_query{1.0};
  quantization cross_key{1.0};
  quantization cross_value{1.0};
  quantization cross_scores{1.0};
  quantization cross_context{1.0};
  quantization cross_attention{1.0};
  quantization sum2{1.0};
  quantization norm3{1.0};
  quantization hidden{1.0};
  quantization activation{1.0};
  quantization feed_forward{1.0};
  quantization output{1.0};
  quantization sum3{1.0};
  softmax_method softmax = softmax_method::rounded;
  weight_format weights = weight_format::int8;
  weight_granularity granularity = weight_granularity::per_channel;

  friend constexpr bool operator==(const decoder_layer_quantizations&, const decoder_layer_quantizations&) = default;
};

namespace detail {
// The points a decoder layer's quantizations read, each once, from `points` (as encoder_layer_quantizations_from).
template <typename Points>
[[nodiscard]] constexpr decoder_layer_quantizations decoder_layer_quantizations_from(Points& points_at,
                                                                                     quantization input,
                                                                                     quantization memory,
                                                                                     bool norm_first) noexcept {
  const auto at = [&](std::string_view point) { return quantization_for_range(points_at.point(point)); };
  const quantization output = quantization_for_range(points_at.output());
  // Rationale: a post-norm layer's norm3 gives its output, so it has no norm3 of its own; a pre-norm one no sum3.
  return {input,
          memory,
          at(points::norm1),
          at(points::query),
          at(points::key),
          at(points::value),
          at(points::scores),
          at(points::context),
          at(points::attention),
          at(points::sum1),
          at(points::norm2),
          at(points::cross_query),
          at(points::cross_key),
          at(points::cross_value),
          at(points::cross_scores),
          at(points::cross_context),
          at(points::cross_attention),
          at(points::sum2),
          norm_first ? at(points::norm3) : output,
          at(points::hidden),
          at(points::activation),
          at(points::feed_forward),
          output,
          norm_first ? quantization{1.0} : at(points::sum3)};
}
}  // namespace detail

/// The quantizations of the decoder layer whose points a calibration recorded under `path` (`ctattn::record_ranges`
/// with `ctattn::with_memory`: `path.norm1` ... `path.feed_forward`, `path.sum3` for a post-norm layer, its output
/// under `path`), its input quantized with `input` (the layer before it's output quantization) and the memory with
/// `memory` (the range named `memory`). `ctattn::quantize` reads every decoder layer's this way.
///
/// Example: `constexpr auto q0 = ctattn::decoder_layer_quantizations_at(ranges, "layers.0", q_in, q_memory, false);`
template <typename Table>
[[nodiscard]] constexpr decoder_layer_quantizations decoder_layer_quantizations_at(
    const Table& table, std::string_view path, quantization input, quantization memory, bool norm_first) noexcept {
  const detail::table_points<Table> at{table, path};
  return detail::decoder_layer_quantizations_from(at, input, memory, norm_first);
}

/// A transformer decoder layer in int8 (nn.TransformerDecoderLayer(batch_first=True), post-norm as PyTorch's
/// default, pre-norm with `NormFirst`): causal self-attention, attention over the memory (the encoder's output, in
/// its own quantization), the feed-forward block, each with its residual sum and LayerNorm, every activation
/// quantized as `Q` says (`decoder_layer_quantizations`):
///   pre-norm:  a = x + SA(LN1(x));   b = a + CA(LN2(a), memory);   y = b + FF(LN3(b))
///   post-norm: a = LN1(x + SA(x));   b = LN2(a + CA(a, memory));   y = LN3(b + FF(b))
///
/// | member           | type                                                              |
/// |------------------|-------------------------------------------------------------------|
/// | `self_attn`      | `qmulti_head_attention_weights<Heads, ...>`, causal               |
/// | `multihead_attn` | `qmulti_head_attention_weights<Heads, ...>`: W_Q from the target, W_K and W_V from Q.memory |
/// | `norm1`, `norm2`, `norm3` | `qlayer_norm<Width, ...>`                                |
/// | `linear1`, `activation`, `linear2` | the feed-forward block                          |
///
/// | operand                        | shape                                                    |
/// |--------------------------------|----------------------------------------------------------|
/// | `x`                            | `qmatrix<n, Width, Q.input>` (the target)                |
/// | `memory`                       | `qmatrix<m, Width, Q.memory>`                            |
/// | `forward(x, memory, masks...)` | `qmatrix<n, Width, Q.output>`                            |
/// | `forward(x, with_memory(memory), masks...)` | the same, the form a `qchain` calls         |
///
/// Masks, as the float layer takes them: the self-attention's `Mask` (causal by default, `ctattn::no_mask_type`
/// for PyTorch's default of no tgt_mask), `ctattn::tgt_mask(m)` combined with it, `ctattn::memory_mask(m)` for the
/// attention over the memory; in int8, masks that hide keys. `step` needs the causal mask.
///
/// Example: `const auto y = ctattn::quantize_decoder_layer<q0>(float_layer).forward(tgt_q, memory_q);`
template <auto Width, std::size_t Heads, auto Hidden, decoder_layer_quantizations Q, typename Mask = causal_mask,
          bool NormFirst = false>
struct qtransformer_decoder_layer {
  static_assert((shape_error::layer_mask_must_hold_no_state<op::layer, Mask>::check(), true));
  /// The mask of the self-attention.
  using mask_type = Mask;
  static constexpr auto input_extent = Width;
  /// It attends to a memory given with the call (`ctattn::with_memory`).
  static constexpr bool takes_memory = true;
  static constexpr auto output_extent = Width;
  static constexpr quantization input_quantization = Q.input;
  static constexpr quantization memory_quantization = Q.memory;
  static constexpr bool needs_memory = true;
  static constexpr quantization output_quantization = Q.output;
  static constexpr decoder_layer_quantizations quantizations = Q;
  static constexpr bool norm_first = NormFirst;
  /// What each sublayer reads (see `decoder_layer_quantizations`).
  static constexpr quantization self_attention_input = NormFirst ? Q.norm1 : Q.input;
  static constexpr quantization cross_attention_input = NormFirst ? Q.norm2 : Q.norm1;
  static constexpr quantization feed_forward_input = NormFirst ? Q.norm3 : Q.norm2;
  static constexpr quantization norm1_input = NormFirst ? Q.input : Q.sum1;
  static constexpr quantization norm2_input = NormFirst ? Q.sum1 : Q.sum2;
  static constexpr quantization norm3_input = NormFirst ? Q.sum2 : Q.sum3;
  /// Post-norm, norm3 gives the layer's output.
  static constexpr quantization norm3_output = NormFirst ? Q.norm3 : Q.output;

  using self_attention_weights =
      qmulti_head_attention_weights<Heads,
                                    qlinear<Width, Width, self_attention_input, Q.query, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, self_attention_input, Q.key, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, self_attention_input, Q.value, Q.weights, Q.granularity>,
                                    qlinear<Width, Width, Q.context, Q.attention, Q.weights, Q.granularity>>;
  using cross_attention_weights = qmulti_head_attention_weights<
      Heads, qlinear<Width, Width, cross_attention_input, Q.cross_query, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.memory, Q.cross_key, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.memory, Q.cross_value, Q.weights, Q.granularity>,
      qlinear<Width, Width, Q.cross_context, Q.cross_attention, Q.weights, Q.granularity>>;

  qlayer_norm<Width, norm1_input, Q.norm1> norm1{};
  self_attention_weights self_attn{};
  qlayer_norm<Width, norm2_input, Q.norm2> norm2{};
  cross_attention_weights multihead_attn{};
  qlayer_norm<Width, norm3_input, norm3_output> norm3{};
  qlinear<Width, Hidden, feed_forward_input, Q.hidden, Q.weights, Q.granularity> linear1{};
  qactivation<Q.hidden, Q.activation> activation{};
  qlinear<Hidden, Width, Q.activation, Q.feed_forward, Q.weights, Q.granularity> linear2{};

  template <QuantizedMatrix X, QuantizedMatrix Memory, typename... Options>
  [[nodiscard]] constexpr auto forward(const X& x, const Memory& memory, const Options&... options) const noexcept
      -> basic_qmatrix<X::row_extent, Width, Q.output> {
    if constexpr (!shape_error::decoder_masks_must_name_their_attention<op::quantized_decoder_layer,
                                                                        Options...>::check()) {
      return {};
    } else {
      const auto self = [&](const auto& in) {
        if constexpr ((detail::is_tgt_mask_option<Options>::value || ...)) {
          return multi_head_attention<Q.scores, Q.softmax>(
              in, self_attn, combine_masks(Mask{}, detail::find_first<detail::is_tgt_mask_option>(options...).mask));
        } else {
          return multi_head_attention<Q.scores, Q.softmax>(in, self_attn, Mask{});
        }
      };
      const auto cross = [&](const auto& in) {
        if constexpr ((detail::is_memory_mask_option<Options>::value || ...)) {
          return multi_head_attention<Q.cross_scores, Q.softmax>(
              in, memory, multihead_attn, detail::find_first<detail::is_memory_mask_option>(options...).mask);
        } else {
          return multi_head_attention<Q.cross_scores, Q.softmax>(in, memory, multihead_attn);
        }
      };
      return detail::residual_blocks<NormFirst>(blocks(), x, self, cross,
                                                detail::int8_feed_forward(linear1, activation, linear2));
    }
  }

  /// The quantization of block k's residual sum: `sum1`, `sum2`, `sum3`; pre-norm, the third sum is the layer's
  /// `output`.
  template <std::size_t K>
  static constexpr quantization sum_quantization = K == 1      ? Q.sum1
                                                   : K == 2    ? Q.sum2
                                                   : NormFirst ? Q.output
                                                               : Q.sum3;

  /// The steps of the layer's three residual blocks (ctattn/layers/detail/blocks.hpp), as the float layer's: norm1,
  /// norm2 or norm3, and the int8 ADD into `sum_quantization<k>`.
  [[nodiscard]] constexpr auto blocks() const noexcept {
    return detail::int8_block_steps<qtransformer_decoder_layer>(norm1, norm2, norm3);
  }

  /// The cache of the self-attention's int8 keys and values `step` keeps, for up to Capacity tokens.
  template <std::size_t Capacity>
  using cache_type = detail::qkv_cache_for<self_attention_weights, Capacity>;
  /// The cache of the memory's keys and values `prepare` projects, for a memory of up to Capacity rows.
  template <std::size_t Capacity>
  using source_type = detail::qkv_cache_for<cross_attention_weights, Capacity>;
  /// One row of the layer's output.
  using output_row = basic_qmatrix<std::size_t{1}, Width, Q.output>;

  /// Projects the memory (in Q.memory) once into `source`, the cache `step`'s attention over the memory reads.
  /// Call once per source sequence.
  ///
  /// | operand  | shape                                              |
  /// |----------|----------------------------------------------------|
  /// | `memory` | `qmatrix<m, Width, Q.memory>`, m <= Capacity        |
  /// | `source` | `source_type<Capacity>`                            |
  template <QuantizedMatrix Memory, typename Source>
  constexpr void prepare(const Memory& memory, Source& source) const noexcept {
    cache_memory(memory, multihead_attn, source);
  }

  /// One token of autoregressive decoding: `x` is the token's row; `cache` holds the keys and values of the tokens
  /// before it (and receives its own), `source` the memory as `prepare` projected it. Writes the token's output row
  /// into `out`: row t of `forward(tgt, memory)` over the whole target, bit for bit. False, with nothing changed,
  /// when `cache` is full.
  ///
  /// | operand  | shape                                 |
  /// |----------|---------------------------------------|
  /// | `x`      | `qmatrix<1, Width, Q.input>`          |
  /// | `cache`  | `cache_type<Capacity>`                |
  /// | `source` | `source_type<M>` from `prepare`       |
  /// | `out`    | `output_row`                          |
  ///
  /// Example:
  /// \code
  ///   typename decltype(decoder_q)::template cache_type<16> cache{};
  ///   typename decltype(decoder_q)::template source_type<8> source{};
  ///   typename decltype(decoder_q)::output_row y{};
  ///   decoder_q.prepare(memory_q, source);
  ///   for (const auto& x_t : target_q) if (!decoder_q.step(x_t, cache, source, y)) break;
  /// \endcode
  template <QuantizedMatrix X, typename Cache, typename Source>
  [[nodiscard]] constexpr bool step(const X& x, Cache& cache, const Source& source, output_row& out) const noexcept {
    static_assert((shape_error::decoding_layer_must_be_causal<op::decoding_step, Mask>::check(), true));
    if (cache.full()) return false;
    basic_qmatrix<std::size_t{1}, Width, Q.attention> attended;
    basic_qmatrix<std::size_t{1}, Width, Q.cross_attention> crossed;
    out = detail::residual_blocks<NormFirst>(
        blocks(), x, detail::int8_cached_self_attention<Q.scores, Q.softmax>(self_attn, cache, attended),
        [&](const auto& in) {
          multi_head_attention_cached<Q.cross_scores, Q.softmax>(in, multihead_attn, source, crossed);
          return crossed;
        },
        detail::int8_feed_forward(linear1, activation, linear2));
    return true;
  }

  /// `forward(x, memory, masks...)` with the memory among the options (`ctattn::with_memory(memory)`): the form
  /// a `qchain` calls, every decoder layer of a stack attending to the same memory.
  template <QuantizedMatrix X, typename... Options>
    requires(detail::is_memory_option<Options>::value || ...)
  [[nodiscard]] constexpr auto forward(const X& x, const Options&... options) const noexcept {
    return forward(x, *detail::find_first<detail::is_memory_option>(options...).memory, options...);
  }

  /// A forward without a memory: the rule `decoder_needs_its_memory` says to give it.
  template <QuantizedMatrix X, typename... Options>
    requires(!(detail::is_memory_option<Options>::value || ...) && !(QuantizedMatrix<Options> || ...))
  [[nodiscard]] constexpr auto forward(const X&, const Options&...) const noexcept
      -> basic_qmatrix<X::row_extent, Width, Q.output> {
    (void)shape_error::decoder_needs_its_memory<op::quantized_decoder_layer,
                                                (detail::is_memory_option<Options>::value || ...)>::check();
    return {};
  }

  /// The result of a forward on an X (for `qchain`, which asks it without a memory at hand).
  template <typename X>
  using result_of = basic_qmatrix<X::row_extent, Width, Q.output>;

  /// The memory of `forward(x, memory)` on an X and a Memory (ctattn::footprint; in a `qchain`, Memory is taken to
  /// be as long as X): the layer's object, X and Memory in, the result, and on the stack the intermediate
  /// activations of `forward` (a, b, and per block its normalized input, its sublayer's result and the feed-forward
  /// block's hidden and activated rows) with the deepest call's scratch.
  ///
  /// Example: `static_assert(decltype(layer_q)::footprint_of<decltype(x_q), decltype(memory_q)>().weight_bytes == sizeof(layer_q));`
  template <QuantizedMatrix X, QuantizedMatrix Memory = X>
  [[nodiscard]] static constexpr footprint footprint_of() noexcept {
    constexpr std::size_t n = X::rows;
    constexpr std::size_t width = extent_size(Width);
    constexpr std::size_t hidden = extent_size(Hidden);
    // The cross-attention's stack: its Q (n rows), K and V (m rows each), the context (n rows), and a head's scratch
    // over n x m pairs, as `qmulti_head_attention_weights::footprint_of` counts it for self-attention.
    constexpr std::size_t m = Memory::rows;
    constexpr std::size_t key_width = width / Heads;
    constexpr std::size_t scores_product = detail::kernels::int8_product_stack_bytes<n, key_width, m>;
    constexpr std::size_t context_product = detail::kernels::int8_product_stack_bytes<n, m, key_width>;
    constexpr std::size_t head = key_width * m + 2 * n * m + m + sizeof(std::int32_t) * (2 * m + n + 2 * key_width) +
                                 (scores_product > context_product ? scores_product : context_product);
    constexpr std::size_t projection = detail::kernels::int8_product_stack_bytes<(n > m ? n : m), Width, Width>;
    constexpr std::size_t cross = width * (2 * n + 2 * m) + (head > projection ? head : projection);
    constexpr footprint parts[] = {
        decltype(norm1)::template footprint_of<X>(), self_attention_weights::template footprint_of<X>(),
        decltype(linear1)::template footprint_of<X>(), decltype(activation)::template footprint_of<X>(),
        decltype(linear2)::template footprint_of<basic_qmatrix<X::row_extent, Hidden, Q.activation>>()};
    std::size_t deepest = cross;
    for (const footprint& part : parts) deepest = part.stack_bytes > deepest ? part.stack_bytes : deepest;
    return {sizeof(qtransformer_decoder_layer), sizeof(X) + sizeof(Memory), sizeof(X), 0,
            n * (7 * width + 2 * hidden) + deepest};
  }

  friend constexpr bool operator==(const qtransformer_decoder_layer&, const qtransformer_decoder_layer&) = default;
};

/// A float `transformer_decoder_layer` (PyTorch's out x in weights; pre- or post-norm) quantized with the
/// activations' quantizations `Q`, each sublayer as in `quantize_encoder_layer`; the attention over the memory
/// reads the memory in `Q.memory`.
///
/// | operand | what                                                                      |
/// |---------|---------------------------------------------------------------------------|
/// | `layer` | `transformer_decoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>` |
/// | result  | `qtransformer_decoder_layer<Width, Heads, Hidden, Q, Mask, NormFirst>`    |
///
/// Example: `constexpr auto layer0_q = ctattn::quantize_decoder_layer<q0>(model.layers.layer0);`
template <decoder_layer_quantizations Q, typename T, auto Width, std::size_t Heads, auto Hidden, typename Activation,
          bool NormFirst, typename Mask>
[[nodiscard]] constexpr auto quantize_decoder_layer(
    const transformer_decoder_layer<T, Width, Heads, Hidden, Activation, NormFirst, Mask, out_by_in>& layer) noexcept {
  using result =
      qtransformer_decoder_layer<normalize_extent<Width>, Heads, normalize_extent<Hidden>, Q, Mask, NormFirst>;
  constexpr quantization q_self = result::self_attention_input;
  constexpr quantization q_cross = result::cross_attention_input;
  result q{};
  const auto& s = layer.self_attn.weights;
  const auto& c = layer.multihead_attn;
  q.norm1 = quantize_layer_norm<result::norm1_input, Q.norm1>(layer.norm1);
  q.self_attn = detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                              q_self, q_self, Q.query, Q.key, Q.value, Q.context,
                                                              Q.attention, Q.weights, Q.granularity}>(s);
  q.norm2 = quantize_layer_norm<result::norm2_input, Q.norm2>(layer.norm2);
  q.multihead_attn =
      detail::quantize_attention_weights<Heads, detail::attention_projection_quantizations{
                                                    q_cross, Q.memory, Q.cross_query, Q.cross_key, Q.cross_value,
                                                    Q.cross_context, Q.cross_attention, Q.weights, Q.granularity}>(c);
  q.norm3 = quantize_layer_norm<result::norm3_input, result::norm3_output>(layer.norm3);
  detail::quantize_feed_forward_into<result::feed_forward_input, Q, Activation>(q, layer.ff);
  return q;
}

}  // namespace ctattn

#endif  // CTATTN_QUANTIZED_TRANSFORMER_HPP
// ---------------------------------------- ctattn/ctattn.hpp (continued)

#endif  // CTATTN_CTATTN_HPP
