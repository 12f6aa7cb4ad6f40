// Rule: ctattn computes in float or double only (its constexpr math is exact for those two); long double is refused
// expected-error: ctattn: the element type must be float or
// expected-rule: shape_error::element_type_must_be_float_or_double<ctattn::op::matrix, long double ?>
#include <ctattn/ctattn.hpp>

#ifdef CTATTN_COMPILE_FAIL
inline const ctattn::matrix<long double, 2, 2> a{};  // <- mistake
#else
inline const ctattn::matrix<double, 2, 2> a{};
#endif

double use() { return static_cast<double>(a(0, 0)); }
