// Named distributions (distribution.hpp). Grids are chosen by enumerating the factorisations of
// the rank count: at most a few hundred for any real P, so no cleverness is needed.
#include "volfft/distribution.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <string>

#include "volfft/error.hpp"

namespace volfft {
namespace {

using Index = std::int64_t;

// The shape as 3 axes (2-D: a third axis of 1), after checking it and the rank count.
std::array<Index, 3> checked(const char* function, const std::vector<Index>& shape, int ranks) {
  const std::string f = std::string("volfft::") + function + ": ";
  if (shape.size() != 2 && shape.size() != 3)
    throw Error(f + "shape must have 2 or 3 axes; got " + std::to_string(shape.size()));
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] < 1)
      throw Error(f + "shape[" + std::to_string(a) + "] must be >= 1; got " + std::to_string(shape[a]));
  if (ranks < 1) throw Error(f + "ranks must be >= 1; got " + std::to_string(ranks));
  return {shape[0], shape[1], shape.size() == 3 ? shape[2] : 1};
}

void check_axis(const char* function, const std::vector<Index>& shape, int axis) {
  if (axis < 0 || axis >= static_cast<int>(shape.size()))
    throw Error(std::string("volfft::") + function + ": axis must be in [0, " + std::to_string(shape.size()) +
                "); got " + std::to_string(axis));
}

Index ceil_div(Index a, Index b) { return (a + b - 1) / b; }

// The boxes of a grid p (parts per axis, product = ranks), rank r = (i * p1 + j) * p2 + k.
std::vector<Box> grid_boxes(const std::array<Index, 3>& n, const std::array<int, 3>& p) {
  std::vector<Box> boxes;
  for (int i = 0; i < p[0]; ++i)
    for (int j = 0; j < p[1]; ++j)
      for (int k = 0; k < p[2]; ++k) {
        const std::array<int, 3> at{i, j, k};
        Box b;
        for (int a = 0; a < 3; ++a) {
          const Range r = block_range(n[a], p[a], at[a]);
          b.lo[a] = r.lo, b.hi[a] = r.hi;
        }
        boxes.push_back(b);
      }
  return boxes;
}

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

}  // namespace

std::vector<Box> slabs(const std::vector<Index>& shape, int ranks, int axis) {
  const auto n = checked("slabs", shape, ranks);
  check_axis("slabs", shape, axis);
  std::array<int, 3> p{1, 1, 1};
  p[axis] = ranks;
  return grid_boxes(n, p);
}

std::vector<Box> pencils(const std::vector<Index>& shape, int ranks, int axis) {
  const auto n = checked("pencils", shape, ranks);
  check_axis("pencils", shape, axis);
  if (shape.size() == 2) return slabs(shape, ranks, 1 - axis);
  const int a = axis == 0 ? 1 : 0, b = axis == 2 ? 1 : 2;  // the split axes, a < b
  std::array<int, 3> best{1, 1, 1};
  Index best_perimeter = std::numeric_limits<Index>::max(), best_skew = 0;
  for (int pa : divisors(ranks)) {
    const int pb = ranks / pa;
    const Index perimeter = ceil_div(n[a], pa) + ceil_div(n[b], pb);
    const Index skew = std::abs(pa - pb);
    if (perimeter < best_perimeter || (perimeter == best_perimeter && skew < best_skew)) {
      best = {1, 1, 1};
      best[a] = pa, best[b] = pb;
      best_perimeter = perimeter, best_skew = skew;
    }
  }
  return grid_boxes(n, best);
}

std::vector<Box> bricks(const std::vector<Index>& shape, int ranks) {
  const auto n = checked("bricks", shape, ranks);
  std::array<int, 3> best{1, 1, ranks};
  Index best_surface = std::numeric_limits<Index>::max();
  for (int p0 : divisors(ranks))
    for (int p1 : divisors(ranks / p0)) {
      const int p2 = ranks / p0 / p1;
      if (shape.size() == 2 && p2 != 1) continue;
      const Index d0 = ceil_div(n[0], p0), d1 = ceil_div(n[1], p1), d2 = ceil_div(n[2], p2);
      const Index surface = d0 * d1 + d1 * d2 + d0 * d2;
      if (surface < best_surface) best = {p0, p1, p2}, best_surface = surface;
    }
  return grid_boxes(n, best);
}

std::vector<Box> fftw_blocks(const std::vector<Index>& shape, int ranks, int axis, Index block) {
  const auto n = checked("fftw_blocks", shape, ranks);
  check_axis("fftw_blocks", shape, axis);
  if (block < 0) throw Error("volfft::fftw_blocks: block must be >= 0 (0 = ceil(n / ranks)); got " + std::to_string(block));
  if (block == 0) block = ceil_div(n[axis], ranks);
  // A block beyond the axis gives the same boxes as the axis itself (rank 0 holds it all); clamped,
  // no product below can overflow, whatever block the caller passed.
  block = std::min(block, n[axis]);
  if (block < ceil_div(n[axis], ranks))
    throw Error("volfft::fftw_blocks: block " + std::to_string(block) + " times " + std::to_string(ranks) +
                " ranks does not cover the " + std::to_string(n[axis]) + " points of axis " + std::to_string(axis));
  const Index holding = ceil_div(n[axis], block);  // the ranks with points; the others are empty
  std::vector<Box> boxes(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    Box& b = boxes[static_cast<std::size_t>(r)];
    b.hi = n;
    b.lo[axis] = r < holding ? r * block : n[axis];
    b.hi[axis] = r < holding ? std::min(n[axis], (r + 1) * block) : n[axis];
  }
  return boxes;
}

}  // namespace volfft
