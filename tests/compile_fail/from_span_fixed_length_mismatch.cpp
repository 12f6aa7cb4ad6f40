// Rule: data whose length is part of its type (std::array, std::span<T, N>) must have the matrix's size
// expected-error: ctattn: a new extent for existing data must
// expected-rule: shape_error::relabelled_dimension_must_keep_its_size<ctattn::op::from_array, ctattn::dim<ctattn::unnamed, 5>, ctattn::dim<ctattn::unnamed, 6> ?>
#include <ctattn/ctattn.hpp>

#include <array>

using weights = ctattn::matrix<float, 2, 3>;

float use() {
#ifdef CTATTN_COMPILE_FAIL
  constexpr std::array<float, 5> data{1, 2, 3, 4, 5};
  const auto w = ctattn::from_span<weights>(data);  // <- mistake
#else
  constexpr std::array<float, 6> data{1, 2, 3, 4, 5, 6};
  const auto w = ctattn::from_span<weights>(data);
#endif
  return w ? (*w)(0, 0) : 0.0f;
}
