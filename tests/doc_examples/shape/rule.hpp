// What the doc examples of ctattn/shape/rule.hpp use without defining it: the matrix product's rules
// (ctattn::op::multiply, ctattn::detail::multiply_rules).
#pragma once

#include <ctattn/matrix/rules.hpp>
