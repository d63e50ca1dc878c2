// Index boxes and the block decomposition of a global shape.
#pragma once

#include <array>
#include <cstdint>

namespace volfft {

/// Half-open 3-D index box [lo, hi) in global array coordinates (axis 0 slowest, C order).
/// 2-D arrays are described with a leading axis of length 1 (see Plan).
struct Box {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{0, 0, 0};

  std::int64_t extent(int axis) const { return hi[axis] - lo[axis]; }
  std::int64_t size() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return size() == 0; }
  /// The intersection of two boxes (empty, with lo == hi clamped, when they do not meet).
  Box intersect(const Box& other) const;
  bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
  bool operator!=(const Box& o) const { return !(*this == o); }
};

/// Half-open range [lo, hi) of part `index` when `n` items are split into `parts` blocks:
/// q, r = divmod(n, parts); the first r parts get q + 1 items, the rest q. Parts may be empty
/// when n < parts. Precondition: n >= 0, parts >= 1, 0 <= index < parts.
struct Range {
  std::int64_t lo = 0, hi = 0;
};
Range block_range(std::int64_t n, int parts, int index);

}  // namespace volfft
