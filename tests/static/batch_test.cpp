// Static tests of batches: the reference text's attention over B x h x n x d, evaluated by the compiler and
// compared with PyTorch's values; the batch axis is an extent like any other.
#include "support/batched_cases.hpp"

#include <ctattn/matrix/batch.hpp>

#include <type_traits>

namespace {

namespace batched = ctattn_test::batched;

static_assert(batched::check().all());

// The result keeps both batch axes and the matrices' names: batch x heads x seq x d_v.
using result_type = decltype(batched::run<float>(batched::attend_with<ctattn::no_mask_type>{}));
static_assert(std::is_same_v<result_type, batched::tensor<float, batched::d_v{6}>>);
static_assert(result_type::size == 2 && result_type::item_type::size == 3);

// Batch axes are normalized like matrix dimensions, and named ones are told apart by name.
static_assert(std::is_same_v<ctattn::batch<float, 2>, ctattn::batch<float, 2u>>);
static_assert(ctattn::Batch<batched::tensor<float, 5>> && !ctattn::Batch<ctattn::matrix<float, 2, 2>>);
static_assert(!ctattn::rules_hold<ctattn::rule_list<ctattn::shape_error::batch_axes_must_match<
                  ctattn::op::batch_map, ctattn::dim_of<batched::heads{3}>, ctattn::dim_of<batched::batch_axis{3}>>>>);

// batch_map over one level with a plain function of matrices.
struct twice {
  template <typename M>
  constexpr M operator()(const M& m) const {
    return m + m;
  }
};
constexpr ctattn::batch<ctattn::matrix<float, 1, 2>, 3> small{{{{{1, 2}}}, {{{3, 4}}}, {{{5, 6}}}}};
static_assert(ctattn::batch_map(twice{}, small)[2] == ctattn::matrix<float, 1, 2>{{{10, 12}}});

}  // namespace
