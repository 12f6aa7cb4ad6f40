// Static tests of ctattn::matrix and its operations, all evaluated by the compiler.
#include <ctattn/ctattn.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace {

struct seq : ctattn::dimension<"seq"> {};
struct d_model : ctattn::dimension<"d_model"> {};
struct d_k : ctattn::dimension<"d_k"> {};
struct d_v : ctattn::dimension<"d_v"> {};
struct d_head : ctattn::dimension<"d_head"> {};

using m23 = ctattn::matrix<float, 2, 3>;

// An aggregate, standard layout, trivially copyable: it can sit in flash as a constexpr table.
static_assert(std::is_aggregate_v<m23>);
static_assert(std::is_standard_layout_v<m23> && std::is_trivially_copyable_v<m23>);
static_assert(sizeof(m23) == 6 * sizeof(float));
static_assert(sizeof(ctattn::matrix<double, 3, 5>) == 15 * sizeof(double));
static_assert(m23::rows == 2 && m23::cols == 3 && m23::size == 6);
static_assert(std::is_same_v<ctattn::matrix<float, 6, 16>, ctattn::matrix<float, 6u, 16l>>);
static_assert(!std::is_same_v<ctattn::matrix<float, seq{6}, 16>, ctattn::matrix<float, 6, 16>>);

constexpr m23 a{{{1, 2, 3}, {4, 5, 6}}};
constexpr ctattn::matrix<float, 3, 2> b{{{7, 8}, {9, 10}, {11, 12}}};
constexpr ctattn::matrix<double, 2, 2> identity{{{1, 0}, {0, 1}}};

// Row-major, and both brace forms initialize the same matrix.
static_assert(a(0, 2) == 3.0f && a(1, 0) == 4.0f && a[1][2] == 6.0f);
static_assert(m23{{{1, 2, 3}, {4, 5, 6}}} == a);
static_assert(m23{} == m23{{{0, 0, 0}, {0, 0, 0}}});

// Product: [1 2 3; 4 5 6] [7 8; 9 10; 11 12] = [58 64; 139 154].
constexpr auto ab = a * b;
static_assert(std::is_same_v<std::remove_cv_t<decltype(ab)>, ctattn::matrix<float, 2, 2>>);
static_assert(ab == ctattn::matrix<float, 2, 2>{{{58, 64}, {139, 154}}});
static_assert(ctattn::multiply(identity, identity) == identity);

// Transpose.
static_assert(ctattn::transpose(a) == ctattn::matrix<float, 3, 2>{{{1, 4}, {2, 5}, {3, 6}}});
static_assert(ctattn::transpose(ctattn::transpose(a)) == a);

// Element-wise.
static_assert(a + a == m23{{{2, 4, 6}, {8, 10, 12}}});
static_assert(a - a == m23{});
static_assert(-a + a == m23{});
static_assert(2.0f * a == a + a && a * 2.0f == a + a);
static_assert(a / 2.0f == m23{{{0.5f, 1, 1.5f}, {2, 2.5f, 3}}});
static_assert(ctattn::hadamard(a, a) == m23{{{1, 4, 9}, {16, 25, 36}}});
static_assert(ctattn::map(a, [](float x) { return x - 1; }) == m23{{{0, 1, 2}, {3, 4, 5}}});
static_assert(ctattn::zip_map(a, a, [](float x, float y) { return x * y + 1; })(1, 2) == 37.0f);
static_assert(ctattn::cast<double>(a)(1, 1) == 5.0);

// Row-wise reductions.
static_assert(ctattn::row_max(a) == ctattn::matrix<float, 2, 1>{{{3}, {6}}});
static_assert(ctattn::row_sum(a) == ctattn::matrix<float, 2, 1>{{{6}, {15}}});
static_assert(ctattn::row_max(ctattn::matrix<float, 1, 3>{{{-5, -2, -9}}})(0, 0) == -2.0f);
static_assert(ctattn::sum(a) == 21.0f);

// Rows.
static_assert(ctattn::row<1>(a) == ctattn::matrix<float, 1, 3>{{{4, 5, 6}}});
static_assert(ctattn::row(a, 0) == ctattn::matrix<float, 1, 3>{{{1, 2, 3}}});

// Column blocks: split into heads and concatenate back.
constexpr ctattn::matrix<float, seq{2}, d_model{4}> x{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
constexpr auto heads = ctattn::split_columns<2>(x);
static_assert(heads.size() == 2);
static_assert(heads[1] == ctattn::matrix<float, seq{2}, ctattn::part_of<d_model, 2>{2}>{{{3, 4}, {7, 8}}});
static_assert(ctattn::concat_columns<d_model{4}>(heads) == x);
static_assert(ctattn::concat_columns(heads)(1, 3) == 8.0f);
constexpr auto named_heads = ctattn::split_columns<2, d_head{2}>(x);
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(named_heads)>, std::array<ctattn::matrix<float, seq{2}, d_head{2}>, 2>>);
static_assert(ctattn::column_block<1, 2>(x) == ctattn::matrix<float, seq{2}, 2>{{{2, 3}, {6, 7}}});
static_assert(ctattn::concat_columns(ctattn::column_block<0, 1>(x), ctattn::column_block<1, 3>(x)) ==
              ctattn::with_extents<seq{2}, 4>(x));

// Comparison with a tolerance.
static_assert(ctattn::approx_equal(a, a, 0.0f));
static_assert(ctattn::approx_equal(a, a + ctattn::matrix<float, 2, 3>{{{0, 0, 1e-4f}, {0, 0, 0}}}, 2e-4f));
static_assert(!ctattn::approx_equal(a, a + ctattn::matrix<float, 2, 3>{{{0, 0, 1e-2f}, {0, 0, 0}}}, 2e-4f));
static_assert(ctattn::approx_equal(a, 1.001f * a, 0.0f, 1.1e-3f));
static_assert(ctattn::max_abs_difference(a, 2.0f * a) == 6.0f);

// Named dimensions flow through products: (seq x d_model)(d_model x d_k) is seq x d_k, and a plain size
// meets a named one of the same size.
constexpr ctattn::matrix<float, d_model{4}, d_k{3}> w_q{};
constexpr ctattn::matrix<float, 4, d_v{3}> w_v{};
static_assert(std::is_same_v<std::remove_cv_t<decltype(x * w_q)>, ctattn::matrix<float, seq{2}, d_k{3}>>);
static_assert(std::is_same_v<std::remove_cv_t<decltype(x * w_v)>, ctattn::matrix<float, seq{2}, d_v{3}>>);
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(ctattn::transpose(x * w_q))>, ctattn::matrix<float, d_k{3}, seq{2}>>);
static_assert(std::is_same_v<std::remove_cv_t<decltype((x * w_q) * ctattn::transpose(x * w_q))>,
                             ctattn::matrix<float, seq{2}, seq{2}>>);
static_assert(
    std::is_same_v<std::remove_cv_t<decltype(ctattn::matrix<float, 2, 2>{} + ctattn::matrix<float, seq{2}, 2>{})>,
                   ctattn::matrix<float, seq{2}, 2>>);

// The rules as concepts, so generic code (and these tests) can ask without a hard error.
using q_type = ctattn::matrix<float, seq{6}, d_k{64}>;
using v_type = ctattn::matrix<float, seq{6}, d_v{64}>;
using vt_type = ctattn::matrix<float, d_v{64}, seq{6}>;
using kt_type = ctattn::matrix<float, d_k{64}, seq{6}>;
static_assert(ctattn::Multipliable<q_type, kt_type>);
static_assert(!ctattn::Multipliable<q_type, vt_type>);  // the headline: equal sizes, different axes
static_assert(ctattn::Multipliable<ctattn::matrix<float, 6, 64>, ctattn::matrix<float, 64, 6>>);
static_assert(!ctattn::Multipliable<ctattn::matrix<float, 6, 64>, ctattn::matrix<float, 63, 6>>);
static_assert(!ctattn::Multipliable<ctattn::matrix<float, 6, 64>, ctattn::matrix<double, 64, 6>>);
static_assert(ctattn::Multipliable<ctattn::matrix<float, 6, 64>, kt_type>);
static_assert(ctattn::SameShape<q_type, ctattn::matrix<float, 6, 64>>);
static_assert(!ctattn::SameShape<q_type, v_type>);
static_assert(!ctattn::SameShape<m23, ctattn::matrix<float, 3, 2>>);
static_assert(!ctattn::SameShape<m23, ctattn::matrix<double, 2, 3>>);
static_assert(ctattn::FixedMatrix<const m23&> && !ctattn::FixedMatrix<float>);

// The element-wise operators are constrained to matrices: a matrix-times-scalar call does not pick the
// matrix product, and no operator applies to two unrelated types.
template <typename A, typename B>
concept addable = requires(A lhs, B rhs) { lhs + rhs; };
static_assert(!addable<m23, float>);

}  // namespace
