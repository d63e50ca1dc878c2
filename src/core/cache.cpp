#include "core/cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

namespace volfft::core {

namespace {

// The first word of a small text file, or "" where it cannot be read.
std::string first_word(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (in) in >> word;
  return word;
}

// "32768K", "1M", "1G" or a byte count; 0 for anything else.
std::size_t parse_size(const std::string& text) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  const std::string unit(end);
  if (unit.empty()) return static_cast<std::size_t>(value);
  if (unit == "K" || unit == "k") return static_cast<std::size_t>(value) << 10;
  if (unit == "M") return static_cast<std::size_t>(value) << 20;
  if (unit == "G") return static_cast<std::size_t>(value) << 30;
  return 0;
}

// The machine's part of last_level_cache_bytes, read once per process.
std::size_t machine_cache_bytes() {
#if defined(__linux__)
  const int cpu = sched_getcpu();
  if (const std::size_t bytes =
          largest_cache_in("/sys/devices/system/cpu/cpu" + std::to_string(cpu < 0 ? 0 : cpu) + "/cache");
      bytes > 0)
    return bytes;
#endif
  long largest = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  for (int name : {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE})
    largest = std::max(largest, sysconf(name));
#endif
  return largest > 0 ? static_cast<std::size_t>(largest) : std::size_t{32} << 20;
}

}  // namespace

std::size_t largest_cache_in(const std::string& cpu_cache_dir) {
  std::size_t largest = 0;
  // Linux numbers the entries from 0 without gaps; 16 is more levels and kinds than any CPU has.
  for (int index = 0; index < 16; ++index) {
    const std::string dir = cpu_cache_dir + "/index" + std::to_string(index);
    const std::string type = first_word(dir + "/type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    largest = std::max(largest, parse_size(first_word(dir + "/size")));
  }
  return largest;
}

std::size_t last_level_cache_bytes() {
  if (const char* env = std::getenv("VOLFFT_TEST_CACHE_BYTES"))
    if (const long long bytes = std::atoll(env); bytes > 0) return static_cast<std::size_t>(bytes);
  static const std::size_t machine = machine_cache_bytes();
  return machine;
}

}  // namespace volfft::core
