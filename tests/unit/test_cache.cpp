// core/cache.hpp: the cache size read from a Linux-style description of a CPU's caches (a tree
// of the test's own, so that the result does not depend on the machine), and the test knob.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <sched.h>
#include <unistd.h>

#include "core/cache.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"

namespace fs = std::filesystem;

namespace {

struct Entry {
  const char* type;
  const char* size;
};

// A directory laid out as /sys/devices/system/cpu/cpuN/cache with the given entries, index0 on.
std::string cache_tree(const std::string& name, std::initializer_list<Entry> entries) {
  const fs::path root = fs::temp_directory_path() / ("volfft_test_cache_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(root);
  int index = 0;
  for (const Entry& e : entries) {
    const fs::path dir = root / ("index" + std::to_string(index++));
    fs::create_directories(dir);
    std::ofstream(dir / "type") << e.type << "\n";
    std::ofstream(dir / "size") << e.size << "\n";
  }
  fs::create_directories(root);
  return root.string();
}

// The AMD EPYC (Zen 5) VM's own description: L1d 48K, L1i 32K, L2 1M, L3 32M shared by its two
// cores, where glibc's sysconf reported the package's 384 MiB.
void reads_the_largest_data_cache() {
  const std::string epyc = cache_tree("epyc", {{"Data", "48K"}, {"Instruction", "32K"}, {"Unified", "1024K"},
                                               {"Unified", "32768K"}});
  CHECK(volfft::core::largest_cache_in(epyc) == std::size_t{32} << 20);
  fs::remove_all(epyc);
  // Units M and G and plain bytes; an instruction cache larger than the rest does not count.
  const std::string units = cache_tree("units", {{"Data", "65536"}, {"Instruction", "2G"}, {"Unified", "2M"}});
  CHECK(volfft::core::largest_cache_in(units) == std::size_t{2} << 20);
  fs::remove_all(units);
}

// A missing directory, no entries, or sizes that are not sizes give 0, so the caller falls back.
void nothing_readable_gives_zero() {
  CHECK(volfft::core::largest_cache_in("/nonexistent/volfft/cpu0/cache") == 0);
  const std::string empty = cache_tree("empty", {});
  CHECK(volfft::core::largest_cache_in(empty) == 0);
  fs::remove_all(empty);
  const std::string bad = cache_tree("bad", {{"Unified", "lots"}, {"Unified", "12X"}});
  CHECK(volfft::core::largest_cache_in(bad) == 0);
  fs::remove_all(bad);
}

// VOLFFT_TEST_CACHE_BYTES stands in for the machine's cache. Without it, where Linux describes
// the CPU's caches, that description wins over sysconf (which on AMD EPYC reports the whole
// package's L3: 384 MiB where the cores share 32, core/cache.hpp); elsewhere the fallbacks give
// some size.
void the_test_knob_wins_then_linux() {
  setenv("VOLFFT_TEST_CACHE_BYTES", "4096", 1);
  CHECK(volfft::core::last_level_cache_bytes() == 4096);
  unsetenv("VOLFFT_TEST_CACHE_BYTES");
  const int cpu = sched_getcpu();
  const std::size_t described =
      volfft::core::largest_cache_in("/sys/devices/system/cpu/cpu" + std::to_string(cpu < 0 ? 0 : cpu) + "/cache");
  const std::size_t used = volfft::core::last_level_cache_bytes();
  if (described > 0)
    CHECK_MSG(used == described, "used " << used << " bytes; Linux describes " << described);
  else
    CHECK(used > 0);
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("test_unit_cache", {{"reads_the_largest_data_cache", reads_the_largest_data_cache},
                                                         {"nothing_readable_gives_zero", nothing_readable_gives_zero},
                                                         {"the_test_knob_wins_then_linux", the_test_knob_wins_then_linux}});
}
