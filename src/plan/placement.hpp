// Realising a placement at plan time: a rank order from a map file and each rank's own
// physical coordinate (issue: placement). Collective, failing alike on every rank.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace volfft::plan {

/// rank_order[g] = rank of `comm` whose `coordinate` equals line g of the map file. Rank 0
/// reads the file and broadcasts it; coordinates are gathered; every rank computes the same
/// answer and throws volfft::Error with the same message on any problem.
std::vector<int> rank_order_from_map_file(MPI_Comm comm, const std::string& path,
                                          const std::vector<int>& coordinate);

/// World ranks of the members of `group` (a sub-communicator of `comm`), in group order.
std::vector<int> members_in(MPI_Comm comm, MPI_Comm group);

}  // namespace volfft::plan
