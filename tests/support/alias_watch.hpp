// Counts the all-to-alls this process gives one address as both send and receive buffer. MPI
// forbids it, and Open MPI's non-blocking all-to-all takes sendbuf == recvbuf for MPI_IN_PLACE:
// another schedule, after which the group's next all-to-all never matches (a hang). Linking
// alias_watch.cpp into a test executable interposes on MPI's all-to-alls through the profiling
// interface (MPI_Alltoall, MPI_Ialltoall, MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallw,
// MPI_Ialltoallw): an aliased call is counted and passed on with a send address of its own, so
// that a regression fails its test instead of hanging it.
#pragma once

namespace volfft_test {

/// Aliased all-to-all calls on this rank since the last reset.
long aliased_all_to_alls();
void reset_aliased_all_to_alls();

}  // namespace volfft_test
