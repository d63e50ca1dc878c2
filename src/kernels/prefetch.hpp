// Software prefetch of a run of bytes into the cache, for gathers that read a run from each of
// many rows a plane apart (the columns' and the folded backward's blocks of lines,
// backend/fftw_columns.hpp, plan/folded_backward.cpp): more streams than the hardware's prefetcher
// follows.
#pragma once

#include <cstddef>

#if defined(__SSE2__)
#include <xmmintrin.h>  // _mm_prefetch
#endif

namespace volfft::kernels {

/// Asks for every cache line of [p, p + bytes) to be loaded; a hint, no effect on results.
inline void prefetch(const void* p, std::size_t bytes) {
#if defined(__SSE2__)
  const char* c = static_cast<const char*>(p);
  for (std::size_t b = 0; b < bytes; b += 64) _mm_prefetch(c + b, _MM_HINT_T0);
#else
  (void)p, (void)bytes;
#endif
}

}  // namespace volfft::kernels
