// The floors a transform's local phases are measured against, for `volfft-bench --floor`: the
// node's copy bandwidth (every rank copying at once, with memcpy and with streamed stores) and
// the bytes each phase must at least move through memory; and, for FFT phases, the time FFTW
// takes for the same 1-D transforms with their data in cache (a phase that computes more than
// it moves cannot beat that). Report: docs/performance.md ("The floor").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "volfft/description.hpp"

namespace bench {

/// Aggregate copy bandwidth of `comm`'s ranks copying at once, in bytes per second (bytes read
/// plus bytes written, summed over ranks, over the slowest rank's time): each rank copies
/// `bytes_per_rank` between two buffers of its own with `threads` threads, best of `reps`, once
/// with memcpy and once with streamed (non-temporal) stores (the library's kernels::stream_row).
/// An ordinary store reads the line it writes first, so memcpy moves three bytes through memory
/// for two counted where glibc does not stream (on the Zen 5 VM of docs/performance.md, memcpy
/// read 1.08-1.41x below the streamed copy).
/// Collective.
struct CopyBandwidth {
  double memcpy = 0;
  double streamed = 0;
  double best() const { return memcpy > streamed ? memcpy : streamed; }
};
CopyBandwidth copy_bandwidth(MPI_Comm comm, std::size_t bytes_per_rank, int threads, int reps = 5);

/// Seconds one thread takes for one 1-D transform of length `n` along `axis` (kind dft, r2c or
/// an r2r kind; `forward` or backward: c2r for r2c, the inverse kind for r2c), its data in cache:
/// FFTW (FFTW_MEASURE) on a batch of contiguous lines, out of place, the best of several timings.
struct LineTime {
  int axis = 0;
  std::int64_t n = 0;
  volfft::AxisKind kind = volfft::AxisKind::dft;
  bool forward = true;
  double seconds = 0;
};

/// The LineTime of every transformed axis of `plan`, both directions, every rank measuring at
/// once, the slowest rank's (ranks that share a core show it). Collective.
std::vector<LineTime> fft_line_times(MPI_Comm comm, const volfft::PlanDescription& plan);

/// One row of the floor table: a phase (an FFT phase, an exchange's pack + exchange + unpack
/// together, or the scale pass), its measured time, the bytes all ranks must at least move
/// through memory in it (one read and one write of the data it transforms or moves), the time
/// those bytes take at the copy bandwidth, and for FFT phases the time its transforms take in
/// cache spread over every rank's threads (compute_seconds; 0 elsewhere). Phases with no floor
/// have bytes = 0.
struct FloorRow {
  std::string phase;
  double seconds = 0;
  double bytes = 0;
  double floor_seconds = 0;
  double compute_seconds = 0;
};

/// The rows of one direction from the plan's phase names and medians (in pipeline order) and
/// its description (shapes, axis kinds, fields), for an unpadded plan: FFT phase "fftA..." over
/// the axes A, an exchange's bytes one copy of the whole array it redistributes (the messages
/// and each rank's own block: both are copied), `workers` the ranks times their threads.
std::vector<FloorRow> floor_rows(const volfft::PlanDescription& plan, bool forward,
                                 const std::vector<std::string>& phase_names,
                                 const std::vector<double>& phase_seconds, double bandwidth,
                                 const std::vector<LineTime>& line_times, int workers);

/// Prints both directions' rows as a table (with each direction's total) to stdout.
void print_floor(const std::vector<FloorRow>& forward, const std::vector<FloorRow>& backward);

}  // namespace bench
