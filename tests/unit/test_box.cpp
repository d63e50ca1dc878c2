// box.hpp: the block decomposition (block_range) and Box::intersect.
#include "support/check.hpp"
#include "unit/unit_main.hpp"
#include "volfft/box.hpp"

using volfft::Box;
using volfft::block_range;
using volfft::Range;

namespace {

Box make(std::array<std::int64_t, 3> lo, std::array<std::int64_t, 3> hi) {
  Box b;
  b.lo = lo;
  b.hi = hi;
  return b;
}

// q, r = divmod(n, parts): the first r parts hold q + 1 items, the others q, and the parts are
// consecutive from 0 to n.
void block_range_follows_divmod() {
  for (std::int64_t n = 0; n <= 23; ++n) {
    for (int parts = 1; parts <= 9; ++parts) {
      const std::int64_t q = n / parts, r = n % parts;
      std::int64_t next = 0;
      for (int index = 0; index < parts; ++index) {
        const Range g = block_range(n, parts, index);
        CHECK_MSG(g.lo == next, "n=" << n << " parts=" << parts << " index=" << index
                                     << ": starts at " << g.lo << ", expected " << next);
        const std::int64_t want = index < r ? q + 1 : q;
        CHECK_MSG(g.hi - g.lo == want, "n=" << n << " parts=" << parts << " index=" << index
                                            << ": size " << g.hi - g.lo << ", expected " << want);
        next = g.hi;
      }
      CHECK_MSG(next == n, "n=" << n << " parts=" << parts << ": parts end at " << next);
    }
  }
}

void block_range_hand_examples() {
  // 10 items in 4 parts: 3 3 2 2.
  CHECK(block_range(10, 4, 0).lo == 0 && block_range(10, 4, 0).hi == 3);
  CHECK(block_range(10, 4, 1).lo == 3 && block_range(10, 4, 1).hi == 6);
  CHECK(block_range(10, 4, 2).lo == 6 && block_range(10, 4, 2).hi == 8);
  CHECK(block_range(10, 4, 3).lo == 8 && block_range(10, 4, 3).hi == 10);
  // 2 items in 4 parts: the last two parts are empty and sit at the end.
  CHECK(block_range(2, 4, 1).lo == 1 && block_range(2, 4, 1).hi == 2);
  CHECK(block_range(2, 4, 2).lo == 2 && block_range(2, 4, 2).hi == 2);
  CHECK(block_range(2, 4, 3).lo == 2 && block_range(2, 4, 3).hi == 2);
  // One part holds everything; huge sizes do not overflow.
  CHECK(block_range(7, 1, 0).lo == 0 && block_range(7, 1, 0).hi == 7);
  const std::int64_t big = std::int64_t(1) << 40;
  CHECK(block_range(big + 1, 2, 1).lo == big / 2 + 1 && block_range(big + 1, 2, 1).hi == big + 1);
}

void box_size_and_extent() {
  const Box b = make({1, 2, 3}, {4, 4, 8});
  CHECK(b.extent(0) == 3 && b.extent(1) == 2 && b.extent(2) == 5);
  CHECK(b.size() == 30);
  CHECK(!b.empty());
  CHECK(make({0, 0, 0}, {3, 0, 3}).empty());
  CHECK(Box{}.empty());
}

void intersect_overlapping_and_contained() {
  const Box a = make({0, 0, 0}, {4, 4, 4});
  const Box b = make({2, 1, 3}, {6, 3, 9});
  const Box ab = a.intersect(b);
  CHECK(ab == make({2, 1, 3}, {4, 3, 4}));
  CHECK(b.intersect(a) == ab);  // symmetric
  const Box inner = make({1, 1, 1}, {2, 3, 4});
  CHECK(a.intersect(inner) == inner);
  CHECK(a.intersect(a) == a);
}

void intersect_disjoint_is_empty_and_clamped() {
  // Half-open boxes that only touch share nothing.
  const Box left = make({0, 0, 0}, {2, 4, 4});
  const Box right = make({2, 0, 0}, {4, 4, 4});
  const Box t = left.intersect(right);
  CHECK(t.empty());
  CHECK(t.size() == 0);
  // Far apart: every extent is >= 0 (lo == hi on the axes where they miss), never negative.
  const Box far = make({10, 10, 10}, {12, 12, 12});
  const Box f = left.intersect(far);
  CHECK(f.empty());
  for (int a = 0; a < 3; ++a) CHECK_MSG(f.extent(a) >= 0, "axis " << a << " extent " << f.extent(a));
  CHECK(f.size() == 0);
  // An empty box meets nothing.
  CHECK(make({1, 1, 1}, {1, 3, 3}).intersect(left).empty());
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_box", {{"block_range_follows_divmod", block_range_follows_divmod},
                        {"block_range_hand_examples", block_range_hand_examples},
                        {"box_size_and_extent", box_size_and_extent},
                        {"intersect_overlapping_and_contained", intersect_overlapping_and_contained},
                        {"intersect_disjoint_is_empty_and_clamped",
                         intersect_disjoint_is_empty_and_clamped}});
}
