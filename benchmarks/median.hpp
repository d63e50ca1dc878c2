// The one median of the benchmarks: what every report prints and what chooses a peer's fastest
// mode, so that the two cannot disagree.
#pragma once

#include <algorithm>
#include <vector>

namespace bench {

/// The median of `v` (not empty); the mean of the middle two for an even count.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace bench
