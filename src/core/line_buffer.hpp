// Lines of a strided axis run through a small buffer in cache, a block of lines at a time: how the
// buffer is laid out and how many lines one block holds. Pure. Two layouts: each line contiguous
// (line_stride, lines_per_block: the folded backward's axis 0, core/folded_backward.hpp), and the
// points' rows (lines_per_row_block, row_pitch: backend/fftw_columns.hpp's columns).
#pragma once

#include <algorithm>
#include <cstdint>

namespace volfft::core {

/// Bytes of line buffer a thread: half the L2 of the VM these were measured on (64 lines of 256
/// complex doubles fit).
constexpr std::int64_t kLineBufferBytes = std::int64_t{512} << 10;

/// Elements from one line of n points to the next in the buffer: n rounded up to even plus 2, so
/// that every line starts 16-byte aligned (FFTW's SIMD alignment, also in single precision) and
/// lines of a power-of-two length do not lie a power of two apart (they would share cache sets).
inline std::int64_t line_stride(std::int64_t n) { return (n + 1) / 2 * 2 + 2; }

/// Lines of n points (values of `value_bytes` bytes) a block holds: as many as fit
/// kLineBufferBytes, a multiple of 8, at most 64 (the measured best at 128 and 256 points, when the
/// columns used this layout: 32 read 8-10% slower), at least 8 (the folded backward takes a larger
/// buffer where not 8 fit).
inline std::int64_t lines_per_block(std::int64_t n, std::int64_t value_bytes) {
  const std::int64_t fit = kLineBufferBytes / (line_stride(n) * value_bytes);
  return std::min<std::int64_t>(64, std::max<std::int64_t>(8, fit / 8 * 8));
}

/// Lines a block of backend/fftw_columns.hpp holds, its buffer laid out as the points' rows (row
/// r holds point r of every line in the block): as many lines of n points (values of `value_bytes`
/// bytes) as fit kLineBufferBytes with their rows' padding, a multiple of 8, at most 64 (the
/// measured best at 128 and 256 points, single and double precision), at least 8; 0 where not 8
/// fit (longer lines are left to FFTW's plan).
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
