// FFTW's own MPI transform (slab decomposition) on the same problem, for --compare fftw-mpi;
// and FFTW's serial multi-dimensional plan, for --compare fftw-serial and fftw-threads. Each
// peer runs in every mode a user could choose; the fastest is the one volfft is compared with.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "volfft/options.hpp"

namespace bench {

struct PeerTimes {
  std::vector<double> forward, backward;  // seconds per iteration, max over ranks
  double plan_seconds = 0;
  std::string mode;  // what exactly ran, for the table
  /// FFTW's own account of the plans that ran (fftw_sprint_plan) on the calling rank: which
  /// algorithm its planner chose, the draw that decides a ratio where FFTW_MEASURE picks between
  /// plans of different speed from one planning to the next.
  std::string plan_forward, plan_backward;
  /// The Companion's forward and backward seconds, from the same iterations (empty without one).
  std::vector<double> companion_forward, companion_backward;
};

/// One forward and one backward of the transform the peer is compared with (volfft's plan),
/// run by the caller; returns their seconds, each the maximum over ranks. Collective: every rank
/// calls it in the same iterations. The peer timers call it once in every iteration they time
/// (warm-up ones too), before the peer's own pair in even iterations and after it in odd ones:
/// the two are then timed in the same minutes, so that a change of the machine's pace within the
/// job (seen here: every call 1.4x slower for the first third of a job) reaches both alike and
/// leaves their ratio, which the same job's separate blocks did not.
using Companion = std::function<std::pair<double, double>()>;

/// Empties FFTW's process-wide wisdom (double and single precision). Called before each plan
/// whose time is reported, volfft's and the peers', so that none plans with what an earlier
/// one measured: plan times compare like with like, whichever runs first.
void forget_fftw_wisdom();

/// Whether this volfft-bench was built with FFTW-MPI (VOLFFT_BENCH_FFTW_MPI: FFTW-MPI exists
/// for the MPI it was built with).
bool have_fftw_mpi();

/// Times FFTW-MPI forward/backward in each of its modes, as a user would pick the fastest:
/// out-of-place and in-place, each with FFTW_MPI_TRANSPOSED_OUT/IN and in natural order.
/// Kind r2r: fftw_mpi_plan_r2r with `kinds` (DCT/DST only) forward and their inverses backward;
/// a c2c or r2c problem must have DFT kinds (or none given): FFTW has no other transform to time.
/// `howmany` fields per call, interleaved (FFTW's plan_many: the peer of volfft's batch).
/// `companion` (may be empty): see Companion.
std::vector<PeerTimes> time_fftw_mpi(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                     volfft::Kind kind, const std::vector<volfft::AxisKind>& kinds, int howmany,
                                     volfft::Precision precision, volfft::Effort effort, int warmup, int iters,
                                     const Companion& companion = {});

/// Times FFTW's serial plan of the whole array on one rank, out-of-place and in-place, with
/// `threads` FFTW threads; `companion` as for time_fftw_mpi.
std::vector<PeerTimes> time_fftw_serial(const std::vector<std::int64_t>& shape, volfft::Kind kind,
                                        const std::vector<volfft::AxisKind>& kinds, int howmany,
                                        volfft::Precision precision, volfft::Effort effort, int threads, int warmup,
                                        int iters, const Companion& companion = {});

/// Index of the mode with the smallest median forward + backward time (`modes` not empty).
std::size_t fastest(const std::vector<PeerTimes>& modes);

}  // namespace bench
