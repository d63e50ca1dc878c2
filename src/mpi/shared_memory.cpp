#include "mpi/shared_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft::mpi {
namespace {

struct Registered {
  const unsigned char* begin;
  const unsigned char* end;
  const SharedWorkspace* workspace;
};

// Live workspaces of this process. Plans may be made from several threads, hence the lock.
std::mutex registry_lock;
std::vector<Registered>& registry() {
  static std::vector<Registered> r;
  return r;
}
long long last_id = 0;                    // under registry_lock
std::atomic<long long> segment_names{0};  // tells this process's segment names apart

// Frees a communicator on every way out of the constructor.
struct FreeOnExit {
  MPI_Comm& comm;
  ~FreeOnExit() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

std::string host_name() {
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return name;
}

// The node's ranks together could not have their segments: what happened and what to do.
std::string shortage(std::size_t total, int node_size, const char* step, int error) {
  return "volfft: engine 'node' could not reserve " + std::to_string(total) + " bytes of shared memory in " +
         "/dev/shm for the " + std::to_string(node_size) + " ranks on node '" + host_name() + "' (" + step +
         ": " + std::strerror(error) +
         "); enlarge /dev/shm (containers: docker run --shm-size, a memory-backed emptyDir on Kubernetes), "
         "spread the ranks over more nodes, or choose another engine (engine='alltoallv')";
}

}  // namespace

MPI_Comm split_by_node(MPI_Comm comm, int ranks_per_node) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Agreed first: a rank with 0 (MPI's nodes) would skip the MPI_Comm_split below that the
  // others enter, and wait for them elsewhere (a deadlock, not an error).
  int given[2] = {-std::max(ranks_per_node, 0), std::max(ranks_per_node, 0)};
  check(MPI_Allreduce(MPI_IN_PLACE, given, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (-given[0] != given[1])
    throw Error("volfft: ranks_per_node differs between ranks (from " + std::to_string(-given[0]) + " to " +
                std::to_string(given[1]) + ", where 0 or less means MPI's nodes); every rank must pass the same value");
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

SharedWorkspace::SharedWorkspace(MPI_Comm comm, int ranks_per_node, std::size_t bytes) : bytes_(bytes) {
  MPI_Comm node = split_by_node(comm, ranks_per_node);
  FreeOnExit free_node{node};
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_rank(node, &node_rank_);

  // Page-aligned segments, in node rank order.
  const auto page = static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
  const unsigned long long mine = (bytes + page - 1) / page * page;
  std::vector<unsigned long long> sizes(static_cast<std::size_t>(node_size));
  check(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, sizes.data(), 1, MPI_UNSIGNED_LONG_LONG, node),
        "MPI_Allgather");
  std::size_t total = 0;
  for (unsigned long long s : sizes) offsets_.push_back(total), total += static_cast<std::size_t>(s);

  std::string problem;
  void* map = MAP_FAILED;
  if (total > 0 && node_size == 1) {
    // Nobody to share with: private memory, same layout.
    map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
      problem = "volfft: could not allocate the plan's workspace of " + std::to_string(total) +
                " bytes (mmap: " + std::strerror(errno) + "); use more ranks or pass a workspace";
  } else if (total > 0) {
    // The node's rank 0 names and sizes the segment; everyone maps it and reserves its part;
    // then the name is removed, so nothing is left in /dev/shm whatever happens later.
    struct {
      int error;
      int step;
      char name[64];
    } made = {0, 0, {}};
    const char* steps[] = {"", "shm_open", "ftruncate", "posix_fallocate", "mmap", "free space"};
    int fd = -1;
    if (node_rank_ == 0) {
      std::snprintf(made.name, sizeof made.name, "/volfft.%ld.%lld", static_cast<long>(getpid()),
                    ++segment_names);
      struct statvfs fs {};
      // A request larger than the free space fails at once, without touching memory.
      if (statvfs("/dev/shm", &fs) == 0 && total / fs.f_frsize > fs.f_bavail) {
        made = {ENOSPC, 5, {}};
      } else if ((fd = shm_open(made.name, O_CREAT | O_EXCL | O_RDWR, 0600)) < 0) {
        made.error = errno, made.step = 1;
      } else if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
        made.error = errno, made.step = 2;
      }
    }
    check(MPI_Bcast(&made, sizeof made, MPI_BYTE, 0, node), "MPI_Bcast");
    int error = made.error, step = made.step;
    if (!error && node_rank_ != 0 && (fd = shm_open(made.name, O_RDWR, 0600)) < 0) error = errno, step = 1;
#ifdef __linux__
    // Reserve this rank's pages now (placed near this rank): a full /dev/shm fails here,
    // not with SIGBUS in the middle of a transform.
    if (!error && mine > 0) {
      const int e = posix_fallocate(fd, static_cast<off_t>(offsets_[node_rank_]), static_cast<off_t>(mine));
      if (e != 0 && e != EOPNOTSUPP && e != EINVAL) error = e, step = 3;
    }
#endif
    if (!error) {
      map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map == MAP_FAILED) error = errno, step = 4;
    }
    if (fd >= 0) close(fd);
    // Everyone has opened the segment (or failed to): its name can go.
    check(MPI_Barrier(node), "MPI_Barrier");
    if (node_rank_ == 0 && made.step != 1 && made.step != 5) shm_unlink(made.name);
    if (error) problem = shortage(total, node_size, steps[step], error);
  }
  if (!problem.empty() && map != MAP_FAILED) munmap(map, total), map = MAP_FAILED;
  agree_or_throw(comm, problem);  // every rank of comm fails alike
  if (map != MAP_FAILED) map_ = static_cast<unsigned char*>(map), map_bytes_ = total;

  // An id that the ranks of this workspace share and other live workspaces do not.
  long long next = 0;
  {
    std::lock_guard<std::mutex> hold(registry_lock);
    next = last_id + 1;
  }
  check(MPI_Allreduce(&next, &id_, 1, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
  std::lock_guard<std::mutex> hold(registry_lock);
  last_id = std::max(last_id, id_);
  const auto* b = static_cast<const unsigned char*>(data());
  if (b) registry().push_back({b, b + bytes_, this});
}

void* SharedWorkspace::segment(int q) const {
  return map_ ? map_ + offsets_[static_cast<std::size_t>(q)] : nullptr;
}

SharedWorkspace::~SharedWorkspace() {
  {
    std::lock_guard<std::mutex> hold(registry_lock);
    auto& r = registry();
    r.erase(std::remove_if(r.begin(), r.end(), [this](const Registered& x) { return x.workspace == this; }),
            r.end());
  }
  if (map_) munmap(map_, map_bytes_);
}

bool find_shared(const void* p, SharedLocation& where) {
  const auto* q = static_cast<const unsigned char*>(p);
  std::lock_guard<std::mutex> hold(registry_lock);
  for (const Registered& r : registry())
    if (q >= r.begin && q < r.end) {
      where.workspace = r.workspace;
      where.offset = static_cast<std::size_t>(q - r.begin);
      return true;
    }
  return false;
}

}  // namespace volfft::mpi
