// SPDX-License-Identifier: BSL-1.0
#ifndef CTATTN_SHAPE_RULE_HPP
#define CTATTN_SHAPE_RULE_HPP

#include <concepts>
#include <cstddef>
#include <type_traits>

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
