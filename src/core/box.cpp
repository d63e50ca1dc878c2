#include "volfft/box.hpp"

#include <algorithm>

namespace volfft {

Box Box::intersect(const Box& other) const {
  Box r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = std::max(lo[a], other.lo[a]);
    r.hi[a] = std::max(r.lo[a], std::min(hi[a], other.hi[a]));
  }
  return r;
}

bool Box::contains(const Box& inner) const {
  for (int a = 0; a < 3; ++a)
    if (lo[a] > inner.lo[a] || inner.hi[a] > hi[a]) return false;
  return true;
}

Range block_range(std::int64_t n, int parts, int index) {
  const std::int64_t q = n / parts, r = n % parts;
  Range out;
  out.lo = index * q + std::min<std::int64_t>(index, r);
  out.hi = out.lo + q + (index < r ? 1 : 0);
  return out;
}

}  // namespace volfft
