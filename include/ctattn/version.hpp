// SPDX-License-Identifier: BSL-1.0
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
