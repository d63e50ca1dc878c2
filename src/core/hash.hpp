// FNV-1a, the one hash volfft uses to compare values across ranks and to key wisdom entries
// (not for security: collisions only cost a missed mismatch message or a re-measurement).
#pragma once

#include <cstdint>

namespace volfft::core {

struct Fnv1a {
  std::uint64_t value = 1469598103934665603ull;
  void mix(std::uint64_t x) { value = (value ^ x) * 1099511628211ull; }
};

}  // namespace volfft::core
