// The core allocates nothing: every allocation function is replaced by one that counts, and the count must
// stay at zero across the operations.
#include "catch.hpp"
#include "support/test_data.hpp"

#include <ctattn/ctattn.hpp>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc{};
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too, so that every allocation of the program pairs malloc with free (AddressSanitizer checks).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

TEST_CASE("matrix operations allocate nothing", "[matrix][memory]") {
  using ctattn_test::opaque;
  using ctattn_test::random_matrix;
  const auto x = random_matrix<ctattn::matrix<float, 16, 64>>(7);
  const auto w = random_matrix<ctattn::matrix<float, 64, 64>>(8);
  const long before = allocations.load();
  const auto q = opaque(x) * opaque(w);
  const auto scores = q * ctattn::transpose(q);
  const auto heads = ctattn::split_columns<4>(q);
  const auto joined = ctattn::concat_columns(heads);
  const auto maxima = ctattn::row_max(scores);
  const bool same = ctattn::approx_equal(joined, q, 0.0f);
  const long after = allocations.load();
  CHECK(after == before);
  CHECK(same);
  CHECK(maxima(0, 0) >= scores(0, 0));
}
