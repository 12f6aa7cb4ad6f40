// The reference text's worked example ("Life is short, eat dessert first") as ctattn values, built from the
// PyTorch fixture: 6 tokens embedded in 16 dimensions, d_q = d_k = 24, d_v = 28, weights in torch's layout.
#ifndef CTATTN_TESTS_SUPPORT_WORKED_EXAMPLE_HPP
#define CTATTN_TESTS_SUPPORT_WORKED_EXAMPLE_HPP

#include "fixtures/attention/worked_example.hpp"

#include <ctattn/attention/attention_head.hpp>
#include <ctattn/matrix/from_array.hpp>

namespace ctattn_test::worked {

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};

namespace fx = ctattn_fixtures::worked_example;

inline constexpr auto x = ctattn::from_array<seq{6}, d_model{16}>(fx::x);

using head_type = ctattn::attention_head<float, d_model{16}, d_k{24}, d_v{28}, ctattn::out_by_in>;
inline constexpr head_type head{
    .query = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_query)},
    .key = {ctattn::from_array<d_k{24}, d_model{16}>(fx::w_key)},
    .value = {ctattn::from_array<d_v{28}, d_model{16}>(fx::w_value)},
};

}  // namespace ctattn_test::worked

#endif  // CTATTN_TESTS_SUPPORT_WORKED_EXAMPLE_HPP
