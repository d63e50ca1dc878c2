// FFTW's own MPI transform (slab decomposition) on the same problem, for --compare fftw-mpi;
// and FFTW's serial multi-dimensional plan, for --compare fftw-serial.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "volfft/options.hpp"

namespace bench {

struct PeerTimes {
  std::vector<double> forward, backward;  // seconds per iteration, max over ranks
  double plan_seconds = 0;
  std::string mode;  // what exactly ran, for the table
};

/// Empties FFTW's process-wide wisdom (double and single precision). Called before each plan
/// whose time is reported, volfft's and the peers', so that none plans with what an earlier
/// one measured: plan times compare like with like, whichever runs first.
void forget_fftw_wisdom();

/// Times FFTW-MPI forward/backward (out-of-place, FFTW_MPI_TRANSPOSED_OUT/IN when `transposed`).
PeerTimes time_fftw_mpi(MPI_Comm comm, const std::vector<std::int64_t>& shape, volfft::Kind kind,
                        volfft::Precision precision, volfft::Effort effort, bool transposed,
                        int warmup, int iters);

/// Times FFTW's serial plan of the whole array on one rank (`threads` > 1: FFTW threads).
PeerTimes time_fftw_serial(const std::vector<std::int64_t>& shape, volfft::Kind kind,
                           volfft::Precision precision, volfft::Effort effort, int threads,
                           int warmup, int iters);

}  // namespace bench
