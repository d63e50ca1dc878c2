// Lines of a strided axis run through a small buffer in cache, a block of lines at a time, the
// buffer holding the block's rows (row r: point r of every line in the block): how many lines one
// block holds and how far apart the rows lie. Pure. backend/fftw_columns.hpp's columns and the
// folded backward's axis 0 (core/folded_backward.hpp) use it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace volfft::core {

/// Bytes of line buffer a thread: half the L2 of the VM these were measured on (64 lines of 256
/// complex doubles fit).
constexpr std::int64_t kLineBufferBytes = std::int64_t{512} << 10;

/// Rows of the array ahead of the one a block's gather copies whose runs it prefetches
/// (kernels/prefetch.hpp): the block reads a run from each of n rows a plane apart, more streams
/// than the hardware's prefetcher follows. The folded backward: 4-16 rows ahead timed alike (r2c
/// double 256^3, a scratch program not in the repository). The columns: `volfft-fftw-passes
/// columns N` runs them without too.
constexpr std::int64_t kPrefetchRows = 8;

/// Lines a block holds: as many lines of n points (values of `value_bytes` bytes) as fit
/// kLineBufferBytes with their rows' padding, a multiple of 8, at most 64 (the measured best at 128
/// and 256 points, single and double precision), at least 8; 0 where not 8 fit (the columns leave
/// longer lines to FFTW's plan; the folded backward takes 8 in a larger buffer).
inline std::int64_t lines_per_row_block(std::int64_t n, std::int64_t value_bytes) {
  for (std::int64_t lines = 64; lines >= 8; lines -= 8)
    if (n * (lines * value_bytes + 64) <= kLineBufferBytes) return lines;
  return 0;
}

/// Elements from one row of a row block of `lines` lines to the next: the lines rounded up to whole
/// 16 bytes, so that every row starts 16-byte aligned (FFTW's SIMD alignment), and one cache line
/// (64 bytes) more, so that rows of a power-of-two count of lines do not lie a power of two apart
/// (a line's points would share cache sets).
inline std::int64_t row_pitch(std::int64_t lines, std::int64_t value_bytes) {
  const std::int64_t per_16_bytes = std::max<std::int64_t>(1, 16 / value_bytes);
  return (lines + per_16_bytes - 1) / per_16_bytes * per_16_bytes + 64 / value_bytes;
}

}  // namespace volfft::core
