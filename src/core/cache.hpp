// The size of the cache a rank's arrays compete for: the largest data cache of the CPU the
// process runs on. One-rank plans decide by it whether a transform's arrays stay in the cache
// (plan/plane_split.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace volfft::core {

/// The largest data or unified cache described under `cpu_cache_dir`, a directory laid out as
/// Linux's /sys/devices/system/cpu/cpuN/cache (subdirectories index0, index1, ... each with the
/// files `type` and `size`, the size as "32768K", "1M" or a byte count). 0 where it describes
/// none. Instruction caches are left out. A pure function of the files: the unit tests give it
/// a tree of their own.
std::size_t largest_cache_in(const std::string& cpu_cache_dir);

/// The cache the planner counts on, in bytes, in this order of sources:
/// 1. VOLFFT_TEST_CACHE_BYTES = B (> 0), so that the tests' small arrays take the paths of large
///    ones (tests/CMakeLists.txt); users have no reason to set it;
/// 2. Linux's description of the CPU the process runs on (largest_cache_in on
///    /sys/devices/system/cpu/cpuN/cache): the cache that CPU shares, e.g. its CCX's L3 on an
///    AMD EPYC;
/// 3. sysconf's level 2-4 cache sizes (glibc), the largest;
/// 4. 32 MiB.
/// Sources 2-4 are read at the first call and kept for the process (a plan asks several times).
/// sysconf comes after Linux's own description because glibc reports the whole package's L3 on
/// AMD EPYC processors (384 MiB on the Zen 5 VM of 2026-12-07, whose cores share 32 MiB), which
/// no rank's arrays can use.
std::size_t last_level_cache_bytes();

}  // namespace volfft::core
