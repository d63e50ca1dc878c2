// The decomposition as the specification states it (issue 2, [Jagode2008] section 3.2), written
// independently of src/core so the unit tests compare the planner against the definition.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "volfft/box.hpp"

namespace volfft_test {

using Index = std::int64_t;

/// Size of part `index` of `n` items in `parts` blocks: q + 1 for the first r = n % parts parts.
inline Index spec_block_size(Index n, int parts, int index) {
  return n / parts + (index < n % parts ? 1 : 0);
}

/// First item of part `index` (the sizes of the parts before it, summed).
inline Index spec_block_start(Index n, int parts, int index) {
  Index s = 0;
  for (int k = 0; k < index; ++k) s += spec_block_size(n, parts, k);
  return s;
}

inline volfft::Box spec_box(std::array<Index, 3> lo, std::array<Index, 3> hi) {
  volfft::Box b;
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// The three pencils of virtual rank (i, j) on the p0 x p1 grid, internal 3-D coordinates.
/// `nc` is the complex length of the last axis (n2 for c2c, n2/2 + 1 for r2c).
/// A: z-pencil (axis 2 whole), B: y-pencil (axis 1 whole), C: x-pencil (axis 0 whole).
struct SpecPencils {
  volfft::Box a, b, c;
};

inline SpecPencils spec_pencils(const std::array<Index, 3>& n, Index nc, int p0, int p1, int i,
                                int j) {
  const Index i0 = spec_block_start(n[0], p0, i), i1 = i0 + spec_block_size(n[0], p0, i);
  const Index j1lo = spec_block_start(n[1], p1, j), j1hi = j1lo + spec_block_size(n[1], p1, j);
  const Index k2lo = spec_block_start(nc, p1, j), k2hi = k2lo + spec_block_size(nc, p1, j);
  const Index c1lo = spec_block_start(n[1], p0, i), c1hi = c1lo + spec_block_size(n[1], p0, i);
  SpecPencils s;
  s.a = spec_box({i0, j1lo, 0}, {i1, j1hi, nc});
  s.b = spec_box({i0, 0, k2lo}, {i1, n[1], k2hi});
  s.c = spec_box({0, c1lo, k2lo}, {n[0], c1hi, k2hi});
  return s;
}

/// Whether `boxes` tile the box [0, n): each inside it, pairwise disjoint, sizes summing to it.
inline bool tiles(const std::vector<volfft::Box>& boxes, const std::array<Index, 3>& n) {
  Index total = 0;
  for (std::size_t p = 0; p < boxes.size(); ++p) {
    const volfft::Box& b = boxes[p];
    for (int a = 0; a < 3; ++a)
      if (b.lo[a] < 0 || b.hi[a] > n[a] || b.lo[a] > b.hi[a]) return false;
    total += b.size();
    for (std::size_t q = p + 1; q < boxes.size(); ++q)
      if (!b.intersect(boxes[q]).empty()) return false;
  }
  return total == n[0] * n[1] * n[2];
}

}  // namespace volfft_test
