// Plan creation's one small collective: all ranks must have passed the same arguments, and a
// failure anywhere must fail everywhere with the same message (instead of a deadlock later).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::mpi {

/// Collective over comm. `local_error` is this rank's validation message ("" if none);
/// `workspace_needed` the bytes this rank needs when the user gives a workspace. Throws
/// volfft::Error on every rank alike if the arguments differ between ranks, if validation
/// failed, or if some rank's workspace is too small.
void agree_on_arguments(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind,
                        Precision precision, const Options& options,
                        const std::string& local_error, std::size_t workspace_needed);

/// Collective over comm: if any rank has a non-empty `local_error`, every rank throws
/// volfft::Error with the message of the lowest such rank (prefixed by its rank when it is not
/// this one's own). Cheap: one MPI_Allreduce when nobody failed. `call` (>= 0) identifies the
/// operation each rank is in (per-call checks pass the call); when ranks without an error of
/// their own pass different ones, every rank throws volfft::Error(calls_differ) instead of
/// running mismatched collectives.
void agree_or_throw(MPI_Comm comm, const std::string& local_error, int call = 0,
                    const char* calls_differ = "");

/// Collective over comm: runs `local`, work each rank does apart that can fail on one rank alone
/// (planning its FFTs: FFTW's planner, memory), then agrees on the outcome as agree_or_throw does,
/// so that a rank that failed never leaves the others waiting in the next collective step.
template <class F>
void run_agreed(MPI_Comm comm, F&& local) {
  std::string problem;
  try {
    local();
  } catch (const std::exception& e) {
    problem = e.what();
    if (problem.empty()) problem = "volfft: a rank-local step failed without a message";
  }
  agree_or_throw(comm, problem);
}

/// Collective over comm: rank `root`'s `problem` ("" if none; the other ranks' are ignored)
/// thrown as volfft::Error on every rank with the same text, for checks one rank alone makes
/// (a file that it alone reads): the message says so itself, no "(on rank r)" is added.
void throw_root_problem(MPI_Comm comm, const std::string& problem, int root = 0);

}  // namespace volfft::mpi
