// Index boxes and the block decomposition of a global shape.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace volfft {

/// Half-open 3-D index box [lo, hi) in global array coordinates (axis 0 slowest, C order).
/// A 2-D array's boxes keep [0, 1) as their third axis (user axes; the planner's internal boxes
/// put the length-1 axis first instead).
struct Box {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{0, 0, 0};

  std::int64_t extent(int axis) const { return hi[axis] - lo[axis]; }
  std::int64_t size() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return size() == 0; }
  /// The intersection of two boxes (empty, with lo == hi clamped, when they do not meet).
  Box intersect(const Box& other) const;
  /// Whether `inner` lies within this box on every axis (bounds compared as given).
  bool contains(const Box& inner) const;
  bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
  bool operator!=(const Box& o) const { return !(*this == o); }
};

/// One rank's part of a distributed array, and the memory that holds it.
struct LocalArray {
  /// The elements this rank owns: [lo, hi) in global indices. 2-D arrays keep [0, 1) as the
  /// third axis. May be empty. The boxes of all ranks must cover the global array exactly once.
  Box box;
  /// Memory order of the local array: axes from slowest to fastest (user axes: 2 entries for
  /// 2-D arrays). Empty = C order. The same on every rank.
  std::vector<int> order;
  /// The array holding `box`, in global indices, when it is larger than `box`: ghost layers
  /// (a halo, possibly outside the global array: lo < 0 is fine) or padding (FFTW's r2c rows).
  /// Its extents and `order` give the strides; only `box` is read or written. Must contain
  /// `box`. Empty (all zero, the default) = `box` itself.
  Box storage;
};

/// Half-open range [lo, hi) of part `index` when `n` items are split into `parts` blocks:
/// q, r = divmod(n, parts); the first r parts get q + 1 items, the rest q. Parts may be empty
/// when n < parts. Precondition: n >= 0, parts >= 1, 0 <= index < parts.
struct Range {
  std::int64_t lo = 0, hi = 0;
};
Range block_range(std::int64_t n, int parts, int index);

}  // namespace volfft
