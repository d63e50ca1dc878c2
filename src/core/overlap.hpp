// Whether two arrays given to one call share bytes: a transform or a reshape that reads one while
// it writes the other would then read values it has already overwritten, silently.
#pragma once

#include <cstdint>

namespace volfft::core {

/// True when [a, a + a_bytes) and [b, b + b_bytes) share a byte; null or empty arrays share none.
inline bool overlapping(const void* a, std::int64_t a_bytes, const void* b, std::int64_t b_bytes) {
  if (!a || !b || a_bytes <= 0 || b_bytes <= 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + static_cast<std::uintptr_t>(b_bytes) && pb < pa + static_cast<std::uintptr_t>(a_bytes);
}

}  // namespace volfft::core
