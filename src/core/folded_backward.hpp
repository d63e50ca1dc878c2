// The backward of a one-rank r2c plan that keeps its input, run in the caller's two arrays: where
// it applies, and the small workspace it needs (pure; plan/folded_backward.cpp runs it).
//
// The spectrum (n0 x n1 x h complex values, h = n2/2 + 1) is larger than the real output (n0 x n1
// x n2 reals), so the split of runs_by_planes (plan/plane_split.hpp) takes the c2c along axis 0
// from the input into a buffer of the whole spectrum and the c2r over planes from there: three
// arrays, and a workspace the size of the spectrum. Folded, the c2c along axis 0 writes the
// first w = h - 1 values of each row (2w <= n2 reals) into the output, inside that row's own
// real row, and the last value of each row into a small array aside (n0 x n1 values); then each
// plane is copied into a scratch plane of FFTW's layout and c2r'd into its own real plane, which
// held only that plane's values. Axis 0 runs in blocks of lines through a buffer in cache, in rows
// as backend/fftw_columns.hpp does, prefetching the input's rows and streaming whole cache lines
// into the output (plan/folded_backward.cpp). The rows replaced lines contiguous in the buffer on
// 2026-12-08: `volfft-fftw-passes one-rank-r2c N`, the folded backward against a copy and FFTW's
// 3-D c2r in the same process, three runs of each build, alternating (Zen 3 VM): 128^3 0.68-0.81
// -> 0.58-0.67, 256^3 0.62-0.72 -> 0.61-0.69. Measured on a Zen 5 VM (32 MiB shared L3, 2026-12-07),
// docs/performance.md: in the bench, r2c double 128^3 / 256^3 backward 5.0-5.5 / 53-57 ms against
// 6.6-7.9 / 66-68 for the faster of the other two ways (a copy and FFTW's 3-D c2r, or the split),
// with a workspace of 0.5 MiB instead of 16.3 (1.8 instead of 129) and half the planning time.
#pragma once

#include "core/blueprint.hpp"

namespace volfft::core {

/// Lengths of a folded backward, in elements of the plan's complex type. The lines along axis 0
/// go through the buffer in blocks that stay inside rows of the input: `cols` adjacent lines of
/// `rows` adjacent rows (a row's folded lines in `chunks` blocks where they are more than a
/// block holds, else whole rows together), so that each block's values land in whole runs of
/// their rows' folds; the lines aside (one a row, h apart) go in blocks of their own.
struct FoldedGeometry {
  Index n0 = 0, n1 = 0, n2 = 0;  ///< the real array's shape
  Index h = 0;                   ///< complex values per row: n2 / 2 + 1
  Index w = 0;                   ///< values of a row folded into its real row: h - 1
  Index cols = 0;                ///< folded lines of a row in one block (0 where w is 0)
  Index rows = 0;                ///< rows in one block (several only where a block takes whole rows)
  Index chunks = 0;              ///< blocks along a row: w / cols rounded up (0 where w is 0)
  Index block = 0;               ///< lines the buffer holds: rows * cols, or a block of lines aside
  Index pitch = 0;               ///< elements from one row of the buffer to the next (row r: point r of every line)
  Index aside = 0;               ///< the array aside: n0 * n1 values, rounded up
  Index slot = 0;                ///< one thread's line buffer and scratch plane, rounded up

  /// Blocks of folded lines (groups of `rows` rows times `chunks`) and of lines aside.
  Index folded_blocks() const { return w == 0 ? 0 : (n1 + rows - 1) / rows * chunks; }
  Index aside_blocks() const { return (n1 + block - 1) / block; }

  Index line_buffer() const { return round_up(n0 * pitch); }
  Index workspace(int threads) const { return aside + slot * threads; }
  /// Sizes rounded up to 8 elements: every part of the workspace starts 64-byte aligned.
  static Index round_up(Index n) { return (n + 7) / 8 * 8; }
};

/// Whether a plan's backward runs folded: one rank (one stage), r2c, 3-D with axis 0 of at least
/// 2 points, out of place, the input kept (not Options::destroy_input, where FFTW's 3-D c2r reads
/// the input itself), not padded, no trailing axes, a batch's fields outermost (interleaved
/// fields take the split), and the spectrum more than a third of the last-level cache
/// (core/cache.hpp): where the three arrays of the split fit the cache, the split is the faster.
/// VOLFFT_TEST_FOLDED = 1 folds wherever the rest allows and 0 nowhere, so that the tests reach
/// both ways on small arrays.
bool folds_backward(const Blueprint& bp, const Options& options);

/// The geometry of that backward for a complex element of `element_bytes` bytes.
FoldedGeometry folded_geometry(const Blueprint& bp);

}  // namespace volfft::core
