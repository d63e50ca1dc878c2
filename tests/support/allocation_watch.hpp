// Counts heap allocations made while a watch is open, on every thread, and says whose code made
// each one. Linking allocation_watch.cpp into a test executable replaces malloc, calloc,
// realloc, the aligned allocators and the global operator new (the executable's definitions win
// over the C and C++ libraries' for the whole process, libvolfft and ducc0 included); outside a
// watch they only forward to glibc's allocator.
//
// An allocation belongs to the innermost caller on its stack that is not the C, C++ or OpenMP
// runtime (libc, libstdc++, libgcc_s, libgomp) nor this file: an std::vector grown inside
// libvolfft is volfft's, and so is a team libgomp makes for volfft's parallel region; a buffer
// FFTW's or Open MPI's own code takes is theirs. Not for sanitizer builds (ASan replaces
// the allocator itself).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace volfft_test {

/// One allocation seen during a watch: the shared object that owns it and the function, where
/// the dynamic symbol table names it.
struct Allocation {
  std::string owner;     ///< file name of the owning shared object (e.g. "libvolfft.so.0")
  std::string function;  ///< the owning frame: its symbol (where exported) and "+0x" its offset in the file
  std::size_t bytes = 0;  ///< the size asked for
};

/// Opens a watch (clears the record); allocations on any thread count until stop_watch().
void start_watch();
/// Closes the watch and returns what it saw (at most 4096 allocations are recorded; more are
/// counted in `overflow`).
std::vector<Allocation> stop_watch(long* overflow = nullptr);

/// True when the owner is volfft: libvolfft, or code compiled into it (ducc0).
bool is_volfft(const Allocation& a);

}  // namespace volfft_test
