// Named distributions of a global array over P ranks: the box each rank owns, for the layouts
// codes already hold (bricks, slabs, pencils, FFTW-MPI's blocks). They give Reshape and a
// Plan's user boxes their input and output; any other cover works as well. Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "volfft/box.hpp"

namespace volfft {

/// The boxes of `ranks` ranks (index = rank) for a global array of `shape` (2 or 3 positive
/// sizes; 2-D boxes keep [0, 1) as their third axis). Every function throws volfft::Error naming
/// the argument when `shape`, `ranks` (>= 1) or `axis` (0 <= axis < shape.size()) is invalid.
/// Parts follow block_range (the first n % p parts one larger) unless said otherwise, and may be
/// empty when an axis has fewer points than parts.

/// Slabs: axis `axis` split over all ranks, the other axes whole.
std::vector<Box> slabs(const std::vector<std::int64_t>& shape, int ranks, int axis = 0);

/// Pencils: axis `axis` whole, the other axes split over a p_a x p_b grid (p_a for the lower
/// axis) whose local boxes have the smallest perimeter, ties to the squarer grid; rank
/// r = i * p_b + j. A 2-D array's pencils are slabs of its other axis.
std::vector<Box> pencils(const std::vector<std::int64_t>& shape, int ranks, int axis);

/// Bricks: every axis split, over the p0 x p1 x p2 grid whose local boxes (largest part per
/// axis) have the smallest surface, as heFFTe chooses its bricks; ties to the earlier grid in
/// lexicographic (p0, p1, p2) order. Rank r = (i * p1 + j) * p2 + k. 2-D arrays: p0 x p1.
std::vector<Box> bricks(const std::vector<std::int64_t>& shape, int ranks);

/// FFTW-MPI's block distribution: axis `axis` in blocks of `block` points (0 = FFTW's default
/// ceil(n / ranks)), rank r holding [r * block, min(n, (r + 1) * block)): the last ranks may be
/// empty, unlike block_range. The other axes whole. (FFTW's padded r2c rows are a matter of the
/// array, not of the box: see LocalArray::storage in reshape.hpp.)
std::vector<Box> fftw_blocks(const std::vector<std::int64_t>& shape, int ranks, int axis = 0,
                             std::int64_t block = 0);

}  // namespace volfft
