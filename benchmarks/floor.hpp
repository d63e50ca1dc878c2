// The floor a transform's local phases are measured against: the node's copy bandwidth (a
// STREAM-like copy by every rank at once) and the bytes each phase must at least move through
// memory, for `volfft-bench --floor`. Report: docs/performance.md ("The floor").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "volfft/description.hpp"

namespace bench {

/// Aggregate copy bandwidth of `comm`'s ranks copying at once, in bytes per second (bytes read
/// plus bytes written, summed over ranks, over the slowest rank's time): each rank copies
/// `bytes_per_rank` between two buffers of its own with `threads` threads, best of `reps`.
/// Collective.
double copy_bandwidth(MPI_Comm comm, std::size_t bytes_per_rank, int threads, int reps = 5);

/// One row of the floor table: a phase (an FFT phase, an exchange's pack + exchange + unpack
/// together, or the scale pass), its measured time, the bytes all ranks must at least move
/// through memory in it (one read and one write of the data it transforms or moves), and the
/// time those bytes take at the copy bandwidth. Phases with no floor have bytes = 0.
struct FloorRow {
  std::string phase;
  double seconds = 0;
  double bytes = 0;
  double floor_seconds = 0;
};

/// The rows of one direction from the plan's phase names and medians (in pipeline order) and
/// its description (exchange messages, shapes), for an unpadded plan.
std::vector<FloorRow> floor_rows(const volfft::PlanDescription& plan, bool forward,
                                 const std::vector<std::string>& phase_names,
                                 const std::vector<double>& phase_seconds, double bandwidth);

/// Prints both directions' rows as a table (with each direction's total) to stdout.
void print_floor(const std::vector<FloorRow>& forward, const std::vector<FloorRow>& backward);

}  // namespace bench
