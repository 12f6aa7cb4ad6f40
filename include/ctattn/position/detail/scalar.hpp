#ifndef CTATTN_POSITION_DETAIL_SCALAR_HPP
#define CTATTN_POSITION_DETAIL_SCALAR_HPP

#include <concepts>

namespace ctattn::detail {

/// The element types the position encodings compute tables for: those ctattn::math supports.
template <typename T>
concept position_scalar = std::same_as<T, float> || std::same_as<T, double>;

}  // namespace ctattn::detail

#endif  // CTATTN_POSITION_DETAIL_SCALAR_HPP
