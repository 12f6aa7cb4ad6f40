// One include for Catch2 v2 (Debian 12's catch2 2.13) and v3, whichever the build found.
#ifndef CTATTN_TESTS_CATCH_HPP
#define CTATTN_TESTS_CATCH_HPP

#if defined(CTATTN_CATCH2_V3)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif

#endif  // CTATTN_TESTS_CATCH_HPP
