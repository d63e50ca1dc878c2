// Ranks that share a node, and plan buffers in MPI-3 shared memory for the node engine.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

namespace volfft::mpi {

/// The ranks of `comm` on this rank's node, as a new communicator (the caller frees it).
/// A node is what MPI_COMM_TYPE_SHARED groups; with `ranks_per_node` > 0 it is further cut
/// into pretend nodes of consecutive MPI_COMM_WORLD ranks (world rank / ranks_per_node), so
/// that the same rule gives the same nodes on every communicator. Collective over `comm`.
MPI_Comm split_by_node(MPI_Comm comm, int ranks_per_node);

/// Memory of one rank inside an MPI-3 shared window over its node's ranks, held in a passive
/// access epoch (MPI_Win_lock_all) for its lifetime so that MPI_Win_sync may be called on it.
/// While it lives, find_shared() maps addresses inside it to the window.
class SharedWorkspace {
 public:
  /// Collective over `comm`: every rank of it must call this, `bytes` may differ (and be 0).
  SharedWorkspace(MPI_Comm comm, int ranks_per_node, std::size_t bytes);
  ~SharedWorkspace();  // collective over the node's ranks, like MPI_Win_free
  SharedWorkspace(const SharedWorkspace&) = delete;
  SharedWorkspace& operator=(const SharedWorkspace&) = delete;

  void* data() const { return base_; }
  std::size_t bytes() const { return bytes_; }

 private:
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Where an address lies in a live SharedWorkspace.
struct SharedLocation {
  MPI_Win win = MPI_WIN_NULL;  ///< the window; its group is the node's ranks of the plan
  int rank = 0;                ///< this rank's rank in the window's group
  long long id = 0;            ///< equal on all ranks of one window (tells windows apart)
  std::size_t offset = 0;      ///< bytes from the start of this rank's segment
};

/// true and `where` filled when `p` lies inside a SharedWorkspace of this process.
bool find_shared(const void* p, SharedLocation& where);

}  // namespace volfft::mpi
