#pragma once
// The OpenMP team size of the calling thread, set for one scope and put back after it.
//
// Why: FFTW's OpenMP threads library (fftw3_omp, the one volfft links where it has OpenMP; see
// cmake/volfft_threads.cmake) runs a threaded plan as a parallel loop over its k threads'
// shares in a team of OpenMP's default size (omp_get_max_threads(): OMP_NUM_THREADS, else every
// core), not of k. The members beyond k have no share and spin at the loop's end barrier. One
// rank of 4 threads on a 16-core node thus ran 16 busy threads, and 4 such ranks 64 on 16
// cores: measured there (2026-11-26), c2c 256^3 at 4 ranks x 4 threads planned for 56 s (0.7 s
// at 16 x 1) and ran slower than 16 x 1. The other way round, under OMP_NUM_THREADS=1 (which
// many HPC sites set for MPI jobs) a plan of k threads ran on one. Setting the team size to the
// plan's threads while FFTW plans and executes makes the team exactly the threads the plan was
// given. The setting is the calling thread's own (OpenMP's nthreads-var), so the application's
// is restored after.
#if defined(VOLFFT_HAVE_OPENMP)
#include <omp.h>
#endif

namespace volfft::backend {

class OmpTeam {
 public:
  /// Make `threads` (>= 1) the team size of parallel regions this thread opens until the
  /// object goes out of scope. Without OpenMP, nothing.
  explicit OmpTeam(int threads) {
#if defined(VOLFFT_HAVE_OPENMP)
    previous_ = omp_get_max_threads();
    if (threads >= 1 && threads != previous_) omp_set_num_threads(threads);
    else previous_ = 0;  // nothing to put back
#else
    (void)threads;
#endif
  }
  ~OmpTeam() {
#if defined(VOLFFT_HAVE_OPENMP)
    if (previous_ > 0) omp_set_num_threads(previous_);
#endif
  }
  OmpTeam(const OmpTeam&) = delete;
  OmpTeam& operator=(const OmpTeam&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace volfft::backend
