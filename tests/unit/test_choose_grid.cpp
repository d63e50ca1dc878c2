// choose_grid: the automatic process grid. Slabs when every rank gets a slab on both sides
// (P <= n0 and P <= n1); otherwise the divisor grid p0 x p1 whose largest local pencil is
// smallest, ties going to the squarest; 2-D arrays always get P x 1.
#include <algorithm>
#include <cstdlib>

#include "core/blueprint.hpp"
#include "support/check.hpp"
#include "unit/spec_boxes.hpp"
#include "unit/unit_main.hpp"

using volfft::Kind;
using volfft::core::choose_grid;
using volfft_test::Index;
using volfft_test::spec_block_size;

namespace {

// Largest local array of any rank over the three pencils, from the spec's block sizes.
Index largest_pencil(const std::array<Index, 3>& n, Kind kind, int p0, int p1) {
  const Index nc = kind == Kind::r2c ? n[2] / 2 + 1 : n[2];
  Index most = 0;
  for (int i = 0; i < p0; ++i)
    for (int j = 0; j < p1; ++j) {
      const Index a = spec_block_size(n[0], p0, i) * spec_block_size(n[1], p1, j) * nc;
      const Index b = spec_block_size(n[0], p0, i) * n[1] * spec_block_size(nc, p1, j);
      const Index c = n[0] * spec_block_size(n[1], p0, i) * spec_block_size(nc, p1, j);
      most = std::max({most, a, b, c});
    }
  return most;
}

void slab_when_every_rank_gets_a_slab() {
  for (int P = 1; P <= 8; ++P) {
    for (Index n0 : {Index(1), Index(3), Index(8), Index(9)})
      for (Index n1 : {Index(1), Index(4), Index(8)})
        for (Kind kind : {Kind::c2c, Kind::r2c}) {
          if (P > n0 || P > n1) continue;
          const auto g = choose_grid(P, {n0, n1, 5}, kind);
          CHECK_MSG(g[0] == P && g[1] == 1, "P=" << P << " shape (" << n0 << "," << n1
                                                 << ",5): got " << g[0] << "x" << g[1]);
        }
  }
}

void pencils_otherwise_minimise_the_largest_block() {
  const std::vector<std::array<Index, 3>> shapes = {
      {3, 4, 2}, {2, 8, 8}, {1, 5, 6}, {5, 1, 3}, {2, 2, 64}, {7, 9, 11}, {3, 30, 30}};
  for (int P = 2; P <= 12; ++P) {
    for (const auto& n : shapes) {
      if (P <= n[0] && P <= n[1]) continue;
      for (Kind kind : {Kind::c2c, Kind::r2c}) {
        const auto g = choose_grid(P, {n[0], n[1], n[2]}, kind);
        CHECK_MSG(g[0] >= 1 && g[1] >= 1 && g[0] * g[1] == P,
                  "P=" << P << ": grid " << g[0] << "x" << g[1] << " does not have P ranks");
        if (g[0] < 1 || g[1] < 1 || g[0] * g[1] != P) continue;
        const Index chosen = largest_pencil(n, kind, g[0], g[1]);
        for (int p0 = 1; p0 <= P; ++p0) {
          if (P % p0) continue;
          const int p1 = P / p0;
          const Index other = largest_pencil(n, kind, p0, p1);
          CHECK_MSG(chosen <= other, "P=" << P << " shape (" << n[0] << "," << n[1] << ","
                                          << n[2] << "): chose " << g[0] << "x" << g[1]
                                          << " (largest block " << chosen << ") over " << p0
                                          << "x" << p1 << " (" << other << ")");
          if (chosen == other)
            CHECK_MSG(std::abs(g[0] - g[1]) <= std::abs(p0 - p1),
                      "P=" << P << ": tie between " << g[0] << "x" << g[1] << " and " << p0
                           << "x" << p1 << " must go to the squarer grid");
        }
      }
    }
  }
}

void hand_derived_grids() {
  // (3,4,2) on 4 ranks: 1x4 has a 12-element y-pencil; 2x2 and 4x1 both peak at 8; 2x2 is
  // squarer.
  auto g = choose_grid(4, {3, 4, 2}, Kind::c2c);
  CHECK_MSG(g[0] == 2 && g[1] == 2, "got " << g[0] << "x" << g[1]);
  // (2,8,8) on 4 ranks: 1x4 and 2x2 both peak at 32 elements, 4x1 at 64: 2x2.
  g = choose_grid(4, {2, 8, 8}, Kind::c2c);
  CHECK_MSG(g[0] == 2 && g[1] == 2, "got " << g[0] << "x" << g[1]);
  // (8,8,8) on 4 ranks: slabs.
  g = choose_grid(4, {8, 8, 8}, Kind::r2c);
  CHECK_MSG(g[0] == 4 && g[1] == 1, "got " << g[0] << "x" << g[1]);
  // One rank: always 1x1.
  g = choose_grid(1, {1, 1, 1}, Kind::c2c);
  CHECK(g[0] == 1 && g[1] == 1);
}

void two_dimensional_arrays_get_slabs() {
  for (int P = 1; P <= 9; ++P)
    for (const auto& s : std::vector<std::vector<Index>>{{2, 3}, {64, 64}, {1, 17}, {13, 1}})
      for (Kind kind : {Kind::c2c, Kind::r2c}) {
        const auto g = choose_grid(P, s, kind);
        CHECK_MSG(g[0] == P && g[1] == 1, "P=" << P << " 2-D shape (" << s[0] << "," << s[1]
                                               << "): got " << g[0] << "x" << g[1]);
      }
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_choose_grid",
      {{"slab_when_every_rank_gets_a_slab", slab_when_every_rank_gets_a_slab},
       {"pencils_otherwise_minimise_the_largest_block",
        pencils_otherwise_minimise_the_largest_block},
       {"hand_derived_grids", hand_derived_grids},
       {"two_dimensional_arrays_get_slabs", two_dimensional_arrays_get_slabs}});
}
