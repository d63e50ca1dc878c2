// The one loop volfft shares among its own threads (OpenMP): the copy kernel's rows and tiles, the
// columns' and the copied batches' blocks, the folded backward's blocks and planes.
#pragma once

#include <cstdint>

#if defined(VOLFFT_HAVE_OPENMP)
#include <omp.h>
#endif

namespace volfft::kernels {

/// The threads parallel_for runs a loop of `threads` on: at least 1, and 1 where volfft was built
/// without OpenMP. What a caller sizes per-thread buffers by.
inline int team_size(int threads) {
#if defined(VOLFFT_HAVE_OPENMP)
  return threads > 1 ? threads : 1;
#else
  (void)threads;
  return 1;
#endif
}

/// body(k, thread) for k in [0, work): shared among `threads` OpenMP threads (static schedule;
/// `thread` in [0, threads), so that each may use a buffer of its own), or on the calling thread
/// alone (thread 0) where `threads` <= 1 or volfft was built without OpenMP. One thread opens no
/// parallel region: even one whose `if` clause is false makes libgomp allocate a team of one,
/// on every call (found by tests/mpi/test_no_allocation.cpp).
template <class Body>
void parallel_for(std::int64_t work, int threads, const Body& body) {
#if defined(VOLFFT_HAVE_OPENMP)
  if (threads > 1) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t k = 0; k < work; ++k) body(k, omp_get_thread_num());
    return;
  }
#endif
  (void)threads;
  for (std::int64_t k = 0; k < work; ++k) body(k, 0);
}

}  // namespace volfft::kernels
