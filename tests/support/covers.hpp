// Random covers of a global array by per-rank boxes, and the strides of a rank's array: what the
// tests of Reshape and of plans on user arrays draw their distributions from.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "volfft/box.hpp"

namespace volfft_test {

/// `ranks` boxes covering the array `n` (3 axes) exactly once: the largest box cut at a random
/// place along a random axis until 1..ranks boxes exist, the other ranks empty, all in random
/// rank order. The same on every rank that draws from the same generator state.
inline std::vector<volfft::Box> random_cover(std::mt19937& g, const std::array<std::int64_t, 3>& n, int ranks) {
  using volfft::Box;
  const int filled = 1 + static_cast<int>(g() % static_cast<unsigned>(ranks));
  std::vector<Box> boxes{Box{{0, 0, 0}, n}};
  while (static_cast<int>(boxes.size()) < filled) {
    auto big = std::max_element(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) { return a.size() < b.size(); });
    Box b = *big;
    int axis = static_cast<int>(g() % 3);
    for (int t = 0; t < 3 && b.extent(axis) < 2; ++t) axis = (axis + 1) % 3;
    if (b.extent(axis) < 2) break;  // no box can be cut: the remaining ranks stay empty
    const std::int64_t cut = b.lo[axis] + 1 + static_cast<std::int64_t>(g() % static_cast<unsigned>(b.extent(axis) - 1));
    Box first = b, second = b;
    first.hi[axis] = cut, second.lo[axis] = cut;
    *big = first;
    boxes.push_back(second);
  }
  while (static_cast<int>(boxes.size()) < ranks) boxes.push_back(Box{});
  std::shuffle(boxes.begin(), boxes.end(), g);
  return boxes;
}

/// A random permutation of the axes 0..ndim-1 (a memory order).
inline std::vector<int> random_order(std::mt19937& g, int ndim) {
  std::vector<int> o(static_cast<std::size_t>(ndim));
  for (int a = 0; a < ndim; ++a) o[static_cast<std::size_t>(a)] = a;
  std::shuffle(o.begin(), o.end(), g);
  return o;
}

/// Element strides per axis of a rank's array `a` (its storage in its order; 2-D arrays have a
/// third axis of extent 1), and the offset of a global index in it.
struct ArrayLayout {
  std::array<std::int64_t, 3> strides{0, 0, 0};
  volfft::Box storage;
  ArrayLayout(const volfft::LocalArray& a, int ndim) {
    storage = a.storage == volfft::Box{} ? a.box : a.storage;
    std::vector<int> order = a.order;
    if (order.empty())
      for (int k = 0; k < ndim; ++k) order.push_back(k);
    if (ndim == 2) order.push_back(2), storage.lo[2] = 0, storage.hi[2] = 1;
    std::int64_t s = 1;
    for (int k = 2; k >= 0; --k) {
      const int axis = order[static_cast<std::size_t>(k)];
      strides[axis] = s;
      s *= storage.extent(axis);
    }
  }
  std::int64_t offset(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (i - storage.lo[0]) * strides[0] + (j - storage.lo[1]) * strides[1] + (k - storage.lo[2]) * strides[2];
  }
  std::int64_t size() const { return storage.size(); }
};

/// Ghost layers around a non-empty box: 0-2 extra planes below and 0-1 above on each of the
/// first `ndim` axes, varying with the rank so that neighbours' storages differ.
inline volfft::Box with_ghosts(const volfft::Box& box, int ndim, int rank) {
  volfft::Box s = box;
  if (box.empty()) return s;
  for (int k = 0; k < ndim; ++k) s.lo[k] -= (rank + k) % 3, s.hi[k] += (rank + 2 * k) % 2;
  return s;
}

}  // namespace volfft_test
