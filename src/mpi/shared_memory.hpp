// Ranks that share a node, and memory they can all read: the node engine's plan buffers.
//
// The memory is a POSIX shared-memory segment that volfft maps itself (shm_open + mmap), not an
// MPI-3 window. Two reasons, both about failure: MPI_Win_free is collective, so a plan destroyed
// while one rank unwinds from an exception (or is collected by Python after an error) hung the
// other ranks; and MPI_Win_allocate_shared failing on one rank (a full /dev/shm) left the others
// waiting inside MPI. Here creation is agreed (every rank fails alike, with what to do), and
// destruction is local (munmap): it never communicates and never blocks.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace volfft::mpi {

/// The ranks of `comm` on this rank's node, as a new communicator (the caller frees it).
/// A node is what MPI_COMM_TYPE_SHARED groups; with `ranks_per_node` > 0 it is further cut
/// into pretend nodes of consecutive MPI_COMM_WORLD ranks (world rank / ranks_per_node), so
/// that the same rule gives the same nodes on every communicator. Collective over `comm`;
/// throws volfft::Error on every rank alike when the ranks pass different `ranks_per_node`.
MPI_Comm split_by_node(MPI_Comm comm, int ranks_per_node);

/// One segment per rank of a node, all mapped by every rank of that node, so that a rank can
/// read its partners' segments directly. Segments start on page boundaries and each is
/// reserved (posix_fallocate) by the rank that owns it, so its pages are placed near that rank
/// and a full /dev/shm is an error at creation instead of a SIGBUS later.
///
/// Ordering: stores by one rank become visible to another after a full memory fence on both
/// sides of a synchronising MPI call (the node engine uses fence, MPI_Barrier, fence).
class SharedWorkspace {
 public:
  /// Collective over `comm`: every rank of it calls this; `bytes` may differ (and be 0).
  /// Throws volfft::Error on every rank of `comm` alike when some rank's node could not make
  /// or map its segment; the message says how many bytes, where, and what to do.
  SharedWorkspace(MPI_Comm comm, int ranks_per_node, std::size_t bytes);
  /// Local: unmaps, never communicates (safe while unwinding, on one rank alone).
  ~SharedWorkspace();
  SharedWorkspace(const SharedWorkspace&) = delete;
  SharedWorkspace& operator=(const SharedWorkspace&) = delete;

  void* data() const { return segment(node_rank_); }
  std::size_t bytes() const { return bytes_; }
  /// The segment of the node member with rank `q` in the node communicator of creation.
  void* segment(int q) const;
  int node_rank() const { return node_rank_; }
  /// Equal on all ranks of one workspace and different between the workspaces of a process.
  long long id() const { return id_; }

 private:
  unsigned char* map_ = nullptr;       // the whole node's segments, mapped here
  std::size_t map_bytes_ = 0;
  std::vector<std::size_t> offsets_;   // start of each node rank's segment in map_
  std::size_t bytes_ = 0;
  int node_rank_ = 0;
  long long id_ = 0;
};

/// Where an address lies in a live SharedWorkspace.
struct SharedLocation {
  const SharedWorkspace* workspace = nullptr;
  std::size_t offset = 0;  ///< bytes from the start of this rank's segment
};

/// true and `where` filled when `p` lies inside this rank's segment of a live SharedWorkspace.
bool find_shared(const void* p, SharedLocation& where);

}  // namespace volfft::mpi
