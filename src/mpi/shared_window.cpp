#include "mpi/shared_window.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "mpi/check.hpp"

namespace volfft::mpi {
namespace {

struct Registered {
  const unsigned char* begin;
  const unsigned char* end;
  SharedLocation location;
};

// Live workspaces of this process. Plans may be made from several threads, hence the lock.
std::mutex registry_lock;
std::vector<Registered>& registry() {
  static std::vector<Registered> r;
  return r;
}
long long last_id = 0;  // under registry_lock

}  // namespace

MPI_Comm split_by_node(MPI_Comm comm, int ranks_per_node) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm shared = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared),
            "MPI_Comm_split_type");
  if (ranks_per_node <= 0) return shared;
  // World ranks, not ranks of `comm`: rows, columns and the plan's communicator must all cut
  // the same pretend nodes.
  int world_rank = 0, shared_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_rank(shared, &shared_rank);
  MPI_Comm pretend = MPI_COMM_NULL;
  const int code = MPI_Comm_split(shared, world_rank / ranks_per_node, shared_rank, &pretend);
  MPI_Comm_free(&shared);
  check(code, "MPI_Comm_split");
  return pretend;
}

SharedWorkspace::SharedWorkspace(MPI_Comm comm, int ranks_per_node, std::size_t bytes)
    : bytes_(bytes) {
  node_ = split_by_node(comm, ranks_per_node);
  MPI_Info info;
  MPI_Info_create(&info);
  // Each rank's segment on its own pages: first touch places it near the rank that uses it.
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  const int code = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, node_, &base_, &win_);
  MPI_Info_free(&info);
  if (code != MPI_SUCCESS) {
    MPI_Comm_free(&node_);
    check(code, "MPI_Win_allocate_shared");
  }
  MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  // One passive epoch for the window's whole life: MPI_Win_sync is only valid inside one, and
  // the node engine orders its loads and stores with MPI_Win_sync + MPI_Barrier.
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");

  SharedLocation where;
  where.win = win_;
  MPI_Comm_rank(node_, &where.rank);
  long long next = 0;
  {
    std::lock_guard<std::mutex> hold(registry_lock);
    next = last_id + 1;
  }
  check(MPI_Allreduce(&next, &where.id, 1, MPI_LONG_LONG, MPI_MAX, node_), "MPI_Allreduce");
  std::lock_guard<std::mutex> hold(registry_lock);
  last_id = std::max(last_id, where.id);
  const auto* b = static_cast<const unsigned char*>(base_);
  registry().push_back({b, b + bytes_, where});
}

SharedWorkspace::~SharedWorkspace() {
  {
    std::lock_guard<std::mutex> hold(registry_lock);
    auto& r = registry();
    for (auto it = r.begin(); it != r.end(); ++it)
      if (it->location.win == win_) {
        r.erase(it);
        break;
      }
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
  MPI_Comm_free(&node_);
}

bool find_shared(const void* p, SharedLocation& where) {
  const auto* q = static_cast<const unsigned char*>(p);
  std::lock_guard<std::mutex> hold(registry_lock);
  for (const Registered& r : registry())
    if (q >= r.begin && q < r.end) {
      where = r.location;
      where.offset = static_cast<std::size_t>(q - r.begin);
      return true;
    }
  return false;
}

}  // namespace volfft::mpi
