// Static tests of dimensions and named extents: compiling this file is passing.
#include <ctattn/shape/dimension.hpp>

#include <cstddef>
#include <type_traits>

namespace {

struct seq : ctattn::dimension<"seq"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

// A named extent carries its size as a value and its name in its type.
static_assert(seq{6}.size == 6);
static_assert(seq::name.view() == "seq");
static_assert(ctattn::extent_size(seq{6}) == 6);
static_assert(ctattn::extent_size(6) == 6);
static_assert(ctattn::extent_name(d_k{64}) == "d_k");
static_assert(ctattn::extent_name(64).empty());
static_assert(ctattn::is_named(d_k{64}) && !ctattn::is_named(std::size_t{64}));
static_assert(ctattn::NamedExtent<seq> && ctattn::Extent<seq> && ctattn::Extent<int>);
static_assert(!ctattn::NamedExtent<int> && !ctattn::Extent<float> && !ctattn::Extent<ctattn::unnamed>);

// The matching rule, row by row of its documented table.
static_assert(ctattn::extents_match(16, 16));
static_assert(ctattn::extents_match(16, d_k{16}) && ctattn::extents_match(d_k{16}, 16));
static_assert(ctattn::extents_match(d_k{16}, d_k{16}));
static_assert(!ctattn::extents_match(d_k{16}, d_v{16}));
static_assert(!ctattn::extents_match(d_k{16}, d_k{8}));
static_assert(!ctattn::extents_match(16, 8) && !ctattn::extents_match(16, d_k{8}));

// Unification keeps the name.
static_assert(std::is_same_v<decltype(ctattn::unify_extents(std::size_t{16}, d_k{16})), d_k>);
static_assert(std::is_same_v<decltype(ctattn::unify_extents(d_k{16}, std::size_t{16})), d_k>);
static_assert(std::is_same_v<decltype(ctattn::unify_extents(16, 16u)), std::size_t>);

// Normalization: one spelling per extent.
static_assert(std::is_same_v<std::remove_cv_t<decltype(ctattn::normalize_extent<6>)>, std::size_t>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(ctattn::normalize_extent<6u>)>, std::size_t>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(ctattn::normalize_extent<seq{6}>)>, seq>);

// Diagnostic types.
static_assert(std::is_same_v<ctattn::dim_of<d_k{64}>, ctattn::dim<d_k, 64>>);
static_assert(std::is_same_v<ctattn::dim_of<std::size_t{64}>, ctattn::dim<ctattn::unnamed, 64>>);

}  // namespace
