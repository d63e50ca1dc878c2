// The user's axes and the core's. The core plans every transform in 3-D: a 2-D array (n0, n1)
// is (1, n0, n1) inside, on the grid 1 x P. Everything a user reads (boxes, memory orders,
// phase names, the plan description) speaks the user's axes and grid instead: 2-D plans have
// axes 0 and 1 and the slab grid P x 1, whose one exchange runs down the column.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/blueprint.hpp"

namespace volfft::core {

/// The user axis of internal axis `a`; -1 for the length-1 leading axis of a 2-D plan.
inline int user_axis(int ndim, int a) { return a - (3 - ndim); }

/// Internal axes as user axes, leaving out the 2-D plans' leading axis.
inline std::vector<int> user_axes(const std::vector<int>& internal, int ndim) {
  std::vector<int> r;
  for (int a : internal)
    if (user_axis(ndim, a) >= 0) r.push_back(user_axis(ndim, a));
  return r;
}

inline std::vector<int> user_order(const Order& order, int ndim) {
  return user_axes(std::vector<int>(order.begin(), order.end()), ndim);
}

/// A box in user axes; a 2-D box keeps [0, 1) as its unused third axis.
inline Box user_box(const Box& b, int ndim) {
  if (ndim == 3) return b;
  Box u;
  u.lo = {b.lo[1], b.lo[2], 0};
  u.hi = {b.hi[1], b.hi[2], 1};
  return u;
}

/// The process grid p0 x p1 in the user's terms: a 2-D plan's internal 1 x P is the slab P x 1.
inline std::array<int, 2> user_grid(const std::array<int, 2>& grid, int ndim) {
  return ndim == 2 ? std::array<int, 2>{grid[1], 1} : grid;
}

/// This rank's position (i, j) in user_grid(): a 2-D plan's internal (0, j) is (j, 0).
inline std::array<int, 2> user_position(const std::array<int, 2>& position, int ndim) {
  return ndim == 2 ? std::array<int, 2>{position[1], 0} : position;
}

/// An exchange's name in the user's grid: the internal row exchange of a 2-D plan (grid 1 x P)
/// is the column exchange of the user's grid P x 1.
inline std::string user_exchange_name(int ndim, const std::string& name) {
  return ndim == 2 && name == "row" ? "column" : name;
}

}  // namespace volfft::core
