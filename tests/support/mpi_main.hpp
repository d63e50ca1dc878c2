// main() for MPI tests: runs `body`, reduces failures over ranks, aborts the job on an exception.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <exception>

#include "check.hpp"

namespace volfft_test {

template <class Body>
int run_mpi_test(int argc, char** argv, Body body) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    body(rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: uncaught exception: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int local = failures(), total = 0, passed = checks() - failures(), passed_all = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&passed, &passed_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("np %d: %d checks passed, %d failed\n", size, passed_all, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

}  // namespace volfft_test
