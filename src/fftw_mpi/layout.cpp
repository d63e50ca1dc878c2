#include "fftw_mpi/layout.hpp"

#include <algorithm>
#include <numeric>

#include "volfft/error.hpp"

namespace volfft::fftw_mpi {

Block block_of(Index n, Index block, int ranks, int rank) {
  if (block <= 0) block = (n + ranks - 1) / ranks;
  block = std::min(block, std::max<Index>(n, 1));  // the same blocks; no product below overflows
  Block b;
  b.start = rank < (n + block - 1) / block ? static_cast<Index>(rank) * block : n;
  b.count = std::max<Index>(0, std::min<Index>(block, n - b.start));
  return b;
}

LocalSize local_size(const std::vector<Index>& n, Index howmany, Index block0, Index block1, int ranks,
                     int rank) {
  LocalSize s;
  s.rows0 = block_of(n[0], block0, ranks, rank);
  Index rest0 = 1;  // the points of one row of dimension 0: n1 * n2 * ...
  for (std::size_t a = 1; a < n.size(); ++a) rest0 *= n[a];
  s.alloc = s.rows0.count * rest0;
  if (n.size() >= 2) {
    s.rows1 = block_of(n[1], block1, ranks, rank);
    s.alloc = std::max(s.alloc, s.rows1.count * (rest0 / std::max<Index>(n[1], 1)) * n[0]);
  }
  s.alloc *= howmany;
  // As FFTW reports them: a rank that holds no rows starts at 0, and every rank allocates at
  // least one element (so that fftw_malloc's result is never NULL for want of bytes).
  if (s.rows0.count == 0) s.rows0.start = 0;
  if (s.rows1.count == 0) s.rows1.start = 0;
  s.alloc = std::max<Index>(s.alloc, 1);
  return s;
}

namespace {

// Blocks of dimension `axis` (the others whole), in C order or with dimensions 0 and 1 swapped.
LocalArray blocks(const std::vector<Index>& shape, int axis, Index block, bool swapped, int ranks, int rank,
                  const char* what) {
  const Index n = shape[static_cast<std::size_t>(axis)];
  if (block > 0 && block < (n + ranks - 1) / ranks)
    throw Error(std::string("volfft_fftw3_mpi: ") + what + " " + std::to_string(block) + " times " +
                std::to_string(ranks) + " ranks does not cover dimension " + std::to_string(axis) + " of " +
                std::to_string(n) + " points (FFTW needs block * ranks >= n)");
  const Block b = block_of(n, block, ranks, rank);
  LocalArray a;
  a.box.lo = {0, 0, 0};
  a.box.hi = {shape[0], shape[1], shape.size() >= 3 ? shape[2] : 1};  // (more axes: whole, after these)
  a.box.lo[axis] = b.start;
  a.box.hi[axis] = b.start + b.count;
  if (swapped) {
    a.order.resize(shape.size());
    std::iota(a.order.begin(), a.order.end(), 0);
    std::swap(a.order[0], a.order[1]);
  }
  return a;
}

// The real side of r2c/c2r: untransposed blocks, the last dimension padded to 2 (n/2 + 1).
LocalArray padded_real(const std::vector<Index>& n, Index block, int ranks, int rank, const char* what) {
  LocalArray a = blocks(n, 0, block, false, ranks, rank, what);
  a.storage = a.box;
  a.storage.hi[n.size() - 1] = 2 * (n.back() / 2 + 1);
  return a;
}

}  // namespace

Layout layout(Transform t, const std::vector<Index>& n, Index iblock, Index oblock, bool transposed_in,
              bool transposed_out, int ranks, int rank) {
  if (n.size() < 2)
    throw Error("volfft_fftw3_mpi: rnk must be 2 or more here (distributed 1-D transforms are not supported); got " +
                std::to_string(n.size()));
  if (n.size() > 3 && t != Transform::dft && t != Transform::r2r)
    throw Error("volfft_fftw3_mpi: rnk " + std::to_string(n.size()) + " takes dft and r2r plans (volfft's r2c plans "
                "have 2 or 3 dimensions)");
  for (Index v : n)
    if (v < 1) throw Error("volfft_fftw3_mpi: every size n[i] must be positive; got " + std::to_string(v));
  std::vector<Index> spectrum = n;
  spectrum.back() = n.back() / 2 + 1;
  auto side = [&](const std::vector<Index>& shape, bool transposed, Index block, const char* what) {
    return Side{shape, blocks(shape, transposed ? 1 : 0, block, transposed, ranks, rank, what)};
  };
  Layout l;
  switch (t) {
    case Transform::dft:
    case Transform::r2r:
      l.in = side(n, transposed_in, iblock, "the input block");
      l.out = side(n, transposed_out, oblock, "the output block");
      break;
    case Transform::r2c:
      l.in = Side{n, padded_real(n, iblock, ranks, rank, "the input block")};
      l.out = side(spectrum, transposed_out, oblock, "the output block");
      break;
    case Transform::c2r:
      l.in = side(spectrum, transposed_in, iblock, "the input block");
      l.out = Side{n, padded_real(n, oblock, ranks, rank, "the output block")};
      break;
    case Transform::transpose: {
      // The global n0 x n1 array: in as blocks of n0 (n0-major, or n1-major when transposed_in),
      // out as blocks of n1 (n1-major, or n0-major when transposed_out).
      if (n.size() != 2) throw Error("volfft_fftw3_mpi: a transpose has two dimensions");
      l.in = Side{n, blocks(n, 0, iblock, transposed_in, ranks, rank, "block0")};
      l.out = Side{n, blocks(n, 1, oblock, !transposed_out, ranks, rank, "block1")};
      break;
    }
  }
  return l;
}

}  // namespace volfft::fftw_mpi
