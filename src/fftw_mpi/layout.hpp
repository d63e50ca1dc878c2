// FFTW-MPI's data distribution, as its manual defines it, in volfft's terms: the local sizes its
// local_size_* functions report, and the LocalArrays (box, memory order, storage) of a plan's
// input and output. Pure functions (no MPI), tested in tests/unit/test_fftw_mpi_layout.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volfft/box.hpp"

namespace volfft::fftw_mpi {

using Index = std::int64_t;

/// FFTW's block of one rank: `block` points per rank (0: FFTW's default ceil(n / ranks)), rank r
/// starting at min(n, r * block); the last ranks may hold nothing.
struct Block {
  Index count = 0, start = 0;
};
Block block_of(Index n, Index block, int ranks, int rank);

/// What FFTW's local_size_many_transposed reports for this rank: the rows of dimension 0 it
/// holds untransposed, of dimension 1 it holds transposed, and the elements (times howmany) to
/// allocate: enough for either layout.
struct LocalSize {
  Block rows0, rows1;
  Index alloc = 0;
};
LocalSize local_size(const std::vector<Index>& n, Index howmany, Index block0, Index block1, int ranks,
                     int rank);

/// The transforms FFTW-MPI plans.
enum class Transform { dft, r2c, c2r, r2r, transpose };

/// One side of a plan: a LocalArray of the array `shape` (the real or the complex side).
struct Side {
  std::vector<Index> shape;
  LocalArray array;
};

/// The input and output sides of a plan, from FFTW's arguments: `n` the logical sizes (real for
/// r2c/c2r; {n0, n1} for a transpose), `iblock`/`oblock` the input's and output's block sizes
/// (0: default; for dft FFTW's `block` is the untransposed and `tblock` the transposed side's,
/// resolved by the caller), `transposed_in`/`transposed_out` FFTW's flags. The untransposed
/// layout is blocks of dimension 0 in C order; the transposed one blocks of dimension 1 with
/// dimensions 0 and 1 swapped in memory (order {1, 0, 2...}); the real side of r2c/c2r is never
/// transposed and pads its last dimension to 2 (n/2 + 1). A transpose's output is blocks of n1
/// stored n1-major (order {1, 0}) unless transposed_out (stored n0-major), and its input
/// n0-major unless transposed_in. Throws volfft::Error naming the argument where FFTW's blocks
/// do not cover the array (block * ranks < n). More than 3 dimensions (dft, r2r): the boxes are
/// those of the first three, the others whole and last in memory (volfft's N-D plans).
struct Layout {
  Side in, out;
};
Layout layout(Transform t, const std::vector<Index>& n, Index iblock, Index oblock, bool transposed_in,
              bool transposed_out, int ranks, int rank);

}  // namespace volfft::fftw_mpi
