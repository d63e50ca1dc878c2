// distribution.hpp's named distributions and core/cover.hpp's check that boxes cover an array
// exactly once (the check behind Reshape and user boxes).
#include <array>
#include <string>
#include <vector>

#include "core/cover.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"
#include "volfft/distribution.hpp"
#include "volfft/error.hpp"

using volfft::Box;
using Index = std::int64_t;

namespace {

std::array<Index, 3> as3(const std::vector<Index>& s) { return {s[0], s[1], s.size() == 3 ? s[2] : 1}; }

Box make(std::array<Index, 3> lo, std::array<Index, 3> hi) {
  Box b;
  b.lo = lo, b.hi = hi;
  return b;
}

// Every named distribution of many shapes over 1-13 ranks covers the array exactly once, with
// one box per rank.
void distributions_cover_the_array() {
  const std::vector<std::vector<Index>> shapes{{1, 1, 1}, {7, 5, 3}, {16, 16, 16}, {13, 1, 29},
                                               {2, 3, 5}, {256, 256, 256}, {9, 11}, {1, 17}};
  for (const auto& shape : shapes)
    for (int p = 1; p <= 13; ++p) {
      const int nd = static_cast<int>(shape.size());
      std::vector<std::pair<std::string, std::vector<Box>>> all{{"bricks", volfft::bricks(shape, p)},
                                                                {"fftw_blocks", volfft::fftw_blocks(shape, p)}};
      for (int a = 0; a < nd; ++a) {
        all.push_back({"slabs axis " + std::to_string(a), volfft::slabs(shape, p, a)});
        all.push_back({"pencils axis " + std::to_string(a), volfft::pencils(shape, p, a)});
        all.push_back({"fftw_blocks axis " + std::to_string(a), volfft::fftw_blocks(shape, p, a)});
      }
      for (const auto& [name, boxes] : all) {
        CHECK_MSG(static_cast<int>(boxes.size()) == p, name << ": " << boxes.size() << " boxes for " << p << " ranks");
        const std::string problem = volfft::core::check_cover(as3(shape), boxes, nd, name);
        CHECK_MSG(problem.empty(), name << " p=" << p << ": " << problem);
        if (nd == 2)
          for (const Box& b : boxes) CHECK_MSG(b.lo[2] == 0 && b.hi[2] == 1, name << ": 2-D boxes keep [0, 1)");
      }
    }
}

// The grids the rules pick, by hand.
void grids_by_hand() {
  // 256^3 over 8: 2 x 2 x 2 bricks of 128^3; over 4: the first of the equal-surface grids, 1 x 2 x 2.
  auto b8 = volfft::bricks({256, 256, 256}, 8);
  CHECK(b8[7] == make({128, 128, 128}, {256, 256, 256}));
  auto b4 = volfft::bricks({256, 256, 256}, 4);
  CHECK(b4[1] == make({0, 0, 128}, {256, 128, 256}));
  // A long axis takes the parts: 1024 x 8 x 8 over 4 ranks cuts axis 0 only.
  auto long0 = volfft::bricks({1024, 8, 8}, 4);
  CHECK(long0[1] == make({256, 0, 0}, {512, 8, 8}));
  // Pencils along axis 2 of 12 x 12 x 5 over 6: a 2 x 3 grid of axes 0 and 1 (equal perimeters,
  // the lower axis takes the smaller count), rank 4 = (1, 1).
  auto p6 = volfft::pencils({12, 12, 5}, 6, 2);
  CHECK(p6[4] == make({6, 4, 0}, {12, 8, 5}));
  // Slabs follow block_range: 10 over 4 is 3, 3, 2, 2.
  auto s4 = volfft::slabs({10, 4, 4}, 4, 0);
  CHECK(s4[1] == make({3, 0, 0}, {6, 4, 4}));
  CHECK(s4[3] == make({8, 0, 0}, {10, 4, 4}));
}

// FFTW's blocks: ceil(n / P) per rank, the last ranks empty; a given block size.
void fftw_blocks_follow_fftw() {
  auto f = volfft::fftw_blocks({5, 3, 2}, 4);
  CHECK(f[0] == make({0, 0, 0}, {2, 3, 2}));
  CHECK(f[2] == make({4, 0, 0}, {5, 3, 2}));
  CHECK(f[3].empty());
  auto g = volfft::fftw_blocks({10, 4}, 3, 0, 4);  // blocks of 4: 4, 4, 2
  CHECK(g[2] == make({8, 0, 0}, {10, 4, 1}));
  auto t = volfft::fftw_blocks({6, 9, 2}, 4, 1);  // the transposed side: axis 1 in blocks of 3
  CHECK(t[3].empty() && t[2] == make({0, 6, 0}, {6, 9, 2}));
  CHECK_THROWS_WITH(volfft::fftw_blocks({10, 4}, 3, 0, 3), "does not cover the 10 points");
  CHECK_THROWS_WITH(volfft::fftw_blocks({10, 4}, 3, 0, -1), "block must be >= 0");
}

void distribution_arguments() {
  CHECK_THROWS_WITH(volfft::slabs({4, 4, 4}, 0), "ranks must be >= 1; got 0");
  CHECK_THROWS_WITH(volfft::slabs({4, 4, 4}, 2, 3), "axis must be in [0, 3); got 3");
  CHECK_THROWS_WITH(volfft::pencils({4, 4}, 2, -1), "axis must be in [0, 2); got -1");
  CHECK_THROWS_WITH(volfft::bricks({4, 0, 4}, 2), "shape[1] must be >= 1; got 0");
  CHECK_THROWS_WITH(volfft::bricks({4}, 2), "shape must have 2 or 3 axes; got 1");
}

// Bad covers: each message names what is wrong, with the ranks and their boxes.
void cover_messages() {
  using volfft::core::check_cover;
  const std::array<Index, 3> n{4, 4, 4};
  const Box lower = make({0, 0, 0}, {2, 4, 4}), upper = make({2, 0, 0}, {4, 4, 4});
  CHECK(check_cover(n, {lower, upper}, 3, "in").empty());
  CHECK(check_cover(n, {lower, upper, Box{}}, 3, "in").empty());  // an empty rank
  const std::string gap = check_cover(n, {lower, make({3, 0, 0}, {4, 4, 4})}, 3, "volfft: in boxes");
  CHECK_MSG(gap.find("volfft: in boxes: the boxes leave a gap: they hold 48 of the array's 64 elements (index (2, 0, 0) "
                     "belongs to no rank's box)") != std::string::npos,
            gap);
  const std::string overlap = check_cover(n, {lower, make({1, 0, 0}, {4, 4, 4})}, 3, "out boxes");
  CHECK_MSG(overlap.find("the boxes of ranks 0 [0, 2) x [0, 4) x [0, 4) and 1 [1, 4) x [0, 4) x [0, 4) overlap") !=
                std::string::npos,
            overlap);
  const std::string outside = check_cover(n, {lower, make({2, 0, 0}, {5, 4, 4})}, 3, "in boxes");
  CHECK_MSG(outside.find("rank 1's box [2, 5) x [0, 4) x [0, 4) is not inside the array [0, 4) x [0, 4) x [0, 4)") !=
                std::string::npos,
            outside);
  const std::string inverted = check_cover(n, {make({0, 0, 0}, {4, 4, 4}), make({3, 0, 0}, {2, 4, 4})}, 3, "in");
  CHECK_MSG(inverted.find("rank 1's box [3, 2)") != std::string::npos, inverted);
  // 2-D boxes print two axes.
  const std::string flat = check_cover({4, 6, 1}, {make({0, 0, 0}, {4, 5, 1})}, 2, "in");
  CHECK_MSG(flat.find("index (0, 5)") != std::string::npos, flat);
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("test_unit_distribution",
                                     {{"distributions_cover_the_array", distributions_cover_the_array},
                                      {"grids_by_hand", grids_by_hand},
                                      {"fftw_blocks_follow_fftw", fftw_blocks_follow_fftw},
                                      {"distribution_arguments", distribution_arguments},
                                      {"cover_messages", cover_messages}});
}
