// FFTW-MPI's distribution as volfft_fftw3_mpi computes it (src/fftw_mpi/layout.hpp): FFTW's
// blocks, the sizes local_size_* report, and the LocalArrays of each transform's sides.
#include <vector>

#include "fftw_mpi/layout.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"
#include "volfft/error.hpp"

using namespace volfft::fftw_mpi;

namespace {

// ceil(n / P) per rank, the last ranks possibly empty (FFTW's rule), or the given block.
void blocks_follow_fftw() {
  const std::vector<Index> want10over4{3, 3, 3, 1}, want10over6{2, 2, 2, 2, 2, 0};
  for (int r = 0; r < 4; ++r) CHECK(block_of(10, 0, 4, r).count == want10over4[static_cast<std::size_t>(r)]);
  for (int r = 0; r < 6; ++r) CHECK(block_of(10, 0, 6, r).count == want10over6[static_cast<std::size_t>(r)]);
  CHECK(block_of(10, 0, 6, 5).start == 10);
  CHECK(block_of(10, 4, 3, 2).start == 8 && block_of(10, 4, 3, 2).count == 2);
  CHECK(block_of(3, 0, 5, 4).count == 0);
  // A block far beyond the axis (its products once overflowed): rank 0 holds it all.
  const Index huge = Index(1) << 62;
  CHECK(block_of(10, huge, 3, 0).count == 10 && block_of(10, huge, 3, 2).count == 0);
  CHECK(block_of(10, huge, 3, 2).start == 10);
}

// The allocation covers the untransposed and the transposed layout, times howmany.
void local_sizes() {
  const LocalSize s = local_size({9, 6, 4}, 1, 0, 0, 4, 3);  // rows 9 -> 3,3,3,0; 6 -> 2,2,2,0
  // An idle rank, as FFTW reports it: no rows, starting at 0, one element to allocate.
  CHECK(s.rows0.count == 0 && s.rows1.count == 0 && s.alloc == 1);
  CHECK(s.rows0.start == 0 && s.rows1.start == 0);
  const LocalSize t = local_size({9, 6, 4}, 3, 0, 0, 4, 0);
  CHECK(t.rows0.count == 3 && t.rows1.count == 2);
  CHECK(t.alloc == 3 * std::max<Index>(3 * 6 * 4, 2 * 9 * 4));
  const LocalSize u = local_size({5, 40}, 1, 0, 0, 4, 0);  // 2 rows of 40 vs 10 columns of 5
  CHECK(u.rows0.count == 2 && u.rows1.count == 10 && u.alloc == 80);
}

void layouts() {
  // r2c: the real side padded to 2 (n/2 + 1), the spectrum transposed over n1.
  Layout l = layout(Transform::r2c, {8, 6, 10}, 0, 0, false, true, 3, 1);
  CHECK(l.in.array.box.lo[0] == 3 && l.in.array.box.hi[0] == 6 && l.in.array.box.hi[2] == 10);
  CHECK(l.in.array.storage.hi[2] == 12 && l.in.array.storage.lo[0] == 3);
  CHECK(l.out.shape == (std::vector<Index>{8, 6, 6}));
  CHECK(l.out.array.box.lo[1] == 2 && l.out.array.box.hi[1] == 4 && l.out.array.box.hi[0] == 8);
  CHECK(l.out.array.order == (std::vector<int>{1, 0, 2}));
  // c2r 2-D: transposed complex in over n1/2 + 1, padded real out.
  l = layout(Transform::c2r, {5, 7}, 0, 0, true, false, 2, 0);
  CHECK(l.in.shape == (std::vector<Index>{5, 4}) && l.in.array.box.hi[1] == 2 && l.in.array.order.size() == 2);
  CHECK(l.out.array.storage.hi[1] == 8 && l.out.array.box.hi[0] == 3);
  // A transpose: in n0-major blocks of n0; out blocks of n1 stored n1-major (order {1, 0}).
  l = layout(Transform::transpose, {9, 5}, 0, 0, false, false, 2, 1);
  CHECK(l.in.array.order.empty() && l.in.array.box.lo[0] == 5);
  CHECK(l.out.array.order == (std::vector<int>{1, 0}) && l.out.array.box.lo[1] == 3);
  l = layout(Transform::transpose, {9, 5}, 0, 0, true, true, 2, 1);
  CHECK(l.in.array.order == (std::vector<int>{1, 0}) && l.out.array.order.empty());
}

void bad_arguments() {
  CHECK_THROWS_WITH(layout(Transform::dft, {12, 4}, 2, 0, false, false, 4, 0), "does not cover dimension 0");
  CHECK_THROWS_WITH(layout(Transform::dft, {12}, 0, 0, false, false, 4, 0), "rnk must be 2 or more here");
  CHECK_THROWS_WITH(layout(Transform::r2c, {2, 2, 2, 2}, 0, 0, false, false, 4, 0), "rnk 4 takes dft and r2r plans");
  // More dimensions (dft, r2r): the boxes of the first three, transposed with an order of all.
  const Layout l4 = layout(Transform::dft, {6, 5, 4, 3}, 0, 0, false, true, 2, 1);
  CHECK(l4.in.array.box.lo == (std::array<Index, 3>{3, 0, 0}) && l4.in.array.box.hi == (std::array<Index, 3>{6, 5, 4}));
  CHECK(l4.out.array.box.lo == (std::array<Index, 3>{0, 3, 0}) && l4.out.array.box.hi == (std::array<Index, 3>{6, 5, 4}));
  CHECK(l4.out.array.order == (std::vector<int>{1, 0, 2, 3}));
  CHECK_THROWS_WITH(layout(Transform::r2c, {4, 0}, 0, 0, false, false, 1, 0), "must be positive");
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("test_unit_fftw_mpi_layout", {{"blocks_follow_fftw", blocks_follow_fftw},
                                                                   {"local_sizes", local_sizes},
                                                                   {"layouts", layouts},
                                                                   {"bad_arguments", bad_arguments}});
}
