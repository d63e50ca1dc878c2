#include "core/cover.hpp"

#include <algorithm>
#include <sstream>

namespace volfft::core {

std::string format_box(const Box& b, int ndim) {
  std::ostringstream s;
  for (int a = 0; a < ndim; ++a) s << (a ? " x " : "") << "[" << b.lo[a] << ", " << b.hi[a] << ")";
  return s.str();
}

namespace {

// An index that no box holds, found on the grid of the boxes' own corners (each cell of that
// grid is either wholly inside a box or wholly outside all of them). Returns false when every
// cell is covered. Cost: cells x boxes, so it is asked only once a gap is known to exist and
// the boxes are few enough.
bool find_gap(const std::array<Index, 3>& shape, const std::vector<Box>& boxes, std::array<Index, 3>& gap) {
  std::array<std::vector<Index>, 3> cuts;
  for (int a = 0; a < 3; ++a) {
    cuts[a] = {0, shape[a]};
    for (const Box& b : boxes)
      if (!b.empty()) cuts[a].push_back(b.lo[a]), cuts[a].push_back(b.hi[a]);
    std::sort(cuts[a].begin(), cuts[a].end());
    cuts[a].erase(std::unique(cuts[a].begin(), cuts[a].end()), cuts[a].end());
  }
  for (std::size_t i = 0; i + 1 < cuts[0].size(); ++i)
    for (std::size_t j = 0; j + 1 < cuts[1].size(); ++j)
      for (std::size_t k = 0; k + 1 < cuts[2].size(); ++k) {
        const std::array<Index, 3> x{cuts[0][i], cuts[1][j], cuts[2][k]};
        bool held = false;
        for (const Box& b : boxes) {
          held = !b.empty();
          for (int a = 0; a < 3 && held; ++a) held = b.lo[a] <= x[a] && x[a] < b.hi[a];
          if (held) break;
        }
        if (!held) {
          gap = x;
          return true;
        }
      }
  return false;
}

}  // namespace

std::string check_cover(const std::array<Index, 3>& shape, const std::vector<Box>& boxes, int ndim,
                        const std::string& what) {
  const std::string head = what + ": ";
  Index covered = 0;
  for (std::size_t r = 0; r < boxes.size(); ++r) {
    const Box& b = boxes[r];
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && 0 <= b.lo[a] && b.lo[a] <= b.hi[a] && b.hi[a] <= shape[a];
    // An empty box (some extent 0) may sit anywhere inside; lo > hi is never valid.
    if (!inside)
      return head + "rank " + std::to_string(r) + "'s box " + format_box(b, ndim) +
             " is not inside the array " + format_box(Box{{0, 0, 0}, shape}, ndim) +
             " (each box is [lo, hi) with 0 <= lo <= hi <= the size on every axis)";
    covered += b.size();
  }
  // Overlaps: sweep the non-empty boxes in order of lo[0], comparing each with the boxes still
  // open along axis 0 (cheap for slabs, pencils and bricks alike).
  std::vector<std::size_t> order;
  for (std::size_t r = 0; r < boxes.size(); ++r)
    if (!boxes[r].empty()) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return boxes[x].lo[0] != boxes[y].lo[0] ? boxes[x].lo[0] < boxes[y].lo[0] : x < y;
  });
  std::vector<std::size_t> open;
  for (std::size_t r : order) {
    const Box& b = boxes[r];
    open.erase(std::remove_if(open.begin(), open.end(), [&](std::size_t s) { return boxes[s].hi[0] <= b.lo[0]; }),
               open.end());
    for (std::size_t s : open)
      if (!boxes[s].intersect(b).empty()) {
        const std::size_t first = std::min(r, s), second = std::max(r, s);
        return head + "the boxes of ranks " + std::to_string(first) + " " + format_box(boxes[first], ndim) +
               " and " + std::to_string(second) + " " + format_box(boxes[second], ndim) +
               " overlap; each element must belong to exactly one rank";
      }
    open.push_back(r);
  }
  const Index total = shape[0] * shape[1] * shape[2];
  if (covered != total) {
    std::string where;
    std::array<Index, 3> gap{};
    if (boxes.size() <= 256 && find_gap(shape, boxes, gap)) {
      where = " (index (";
      for (int a = 0; a < ndim; ++a) where += (a ? ", " : "") + std::to_string(gap[a]);
      where += ") belongs to no rank's box)";
    }
    return head + "the boxes leave a gap: they hold " + std::to_string(covered) + " of the array's " +
           std::to_string(total) + " elements" + where + "; together they must cover the array exactly once";
  }
  return "";
}

}  // namespace volfft::core
