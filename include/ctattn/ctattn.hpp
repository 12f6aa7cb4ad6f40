#ifndef CTATTN_CTATTN_HPP
#define CTATTN_CTATTN_HPP

/// \file
/// The whole of ctattn's core: include this, or the one header you need.
/// Host-only helpers (printing) are not included here; see ctattn/host/.

#include "ctattn/version.hpp"

// Shapes: dimensions, named extents, and how shape mistakes are reported.
#include "ctattn/shape/dimension.hpp"
#include "ctattn/shape/fixed_string.hpp"
#include "ctattn/shape/shape_error.hpp"

// Matrices and their operations.
#include "ctattn/matrix/blocks.hpp"
#include "ctattn/matrix/compare.hpp"
#include "ctattn/matrix/elementwise.hpp"
#include "ctattn/matrix/matrix.hpp"
#include "ctattn/matrix/multiply.hpp"
#include "ctattn/matrix/reduce.hpp"
#include "ctattn/matrix/row.hpp"
#include "ctattn/matrix/transpose.hpp"
#include "ctattn/matrix/with_extents.hpp"

#endif  // CTATTN_CTATTN_HPP
