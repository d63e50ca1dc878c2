// Lines of a strided axis run through a small buffer in cache, a block of lines at a time
// (backend/fftw_columns.hpp's columns; the folded backward's axis 0, core/folded_backward.hpp):
// how far apart the lines lie in the buffer and how many one block holds. Pure.
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
/// kLineBufferBytes, a multiple of 8, at most 64 (the measured best at 128 and 256 points: 32 read
/// 8-10% slower), at least 8 (longer lines than 8 fit are left to FFTW's plan by the columns; the
/// folded backward takes a larger buffer then).
inline std::int64_t lines_per_block(std::int64_t n, std::int64_t value_bytes) {
  const std::int64_t fit = kLineBufferBytes / (line_stride(n) * value_bytes);
  return std::min<std::int64_t>(64, std::max<std::int64_t>(8, fit / 8 * 8));
}

}  // namespace volfft::core
