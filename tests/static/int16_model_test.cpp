// SPDX-License-Identifier: BSL-1.0
// 16x8 models at compile time: ctattn::quantize with `activations = int16` gives torch's encoder layer the reference's
// int16 output, bit for bit, and puts the conversions between int8 and 16x8 layers; every case of
// tests/support/int16_model_cases.hpp, as tests/runtime and tests/backend run them.

#include "support/int16_model_cases.hpp"

namespace {

static_assert(ctattn_test::every_constant_case_passes<ctattn_test::int16_model_cases::every_case>());

}  // namespace
