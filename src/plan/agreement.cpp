#include "plan/agreement.hpp"

#include <array>

#include "comm/packing.hpp"
#include "volfft/error.hpp"

namespace volfft::plan {
namespace {

// One rank's arguments as fixed-size integers, so one MPI_Allgather compares them all.
enum Field {
  kNdim, kN0, kN1, kN2, kKind, kPrecision, kGrid0, kGrid1, kEngine, kLayout, kEffort, kScale,
  kOrderSize, kOrderHash, kOtherHash, kLocalError, kWorkspaceGiven, kWorkspaceNeeded, kFields
};
const char* const kFieldNames[] = {"ndim (len(shape))", "shape[0]", "shape[1]", "shape[2]",
                                   "kind", "precision", "grid[0]", "grid[1]", "engine", "layout",
                                   "effort", "scale_backward", "rank_order length", "rank_order",
                                   "the pipelined/padding/threading options (planes, max_in_flight, "
                                   "pipeline_p2p, spectral_shape, threads, backend, ranks_per_node)"};
constexpr int kCompared = kLocalError;  // fields before this must agree across ranks

std::string value_text(int field, std::int64_t v) {
  switch (field) {
    case kKind: return to_string(static_cast<Kind>(v));
    case kPrecision: return to_string(static_cast<Precision>(v));
    case kEngine: return to_string(static_cast<Engine>(v));
    case kLayout: return to_string(static_cast<Layout>(v));
    case kEffort: return to_string(static_cast<Effort>(v));
    case kOrderHash: return "(a different permutation)";
    case kOtherHash: return "(different values)";
    default: return std::to_string(v);
  }
}

}  // namespace

void agree_on_arguments(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind,
                        Precision precision, const Options& options,
                        const std::string& local_error, std::size_t workspace_needed) {
  std::array<std::int64_t, kFields> mine{};
  mine[kNdim] = static_cast<std::int64_t>(shape.size());
  for (int a = 0; a < 3; ++a) mine[kN0 + a] = a < static_cast<int>(shape.size()) ? shape[a] : -1;
  mine[kKind] = static_cast<int>(kind);
  mine[kPrecision] = static_cast<int>(precision);
  mine[kGrid0] = options.grid[0], mine[kGrid1] = options.grid[1];
  mine[kEngine] = static_cast<int>(options.engine);
  mine[kLayout] = static_cast<int>(options.layout);
  mine[kEffort] = static_cast<int>(options.effort);
  mine[kScale] = options.scale_backward ? 1 : 0;
  mine[kOrderSize] = static_cast<std::int64_t>(options.rank_order.size());
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the rank order
  for (int r : options.rank_order) hash = (hash ^ static_cast<std::uint64_t>(r)) * 1099511628211ull;
  mine[kOrderHash] = static_cast<std::int64_t>(hash >> 1);
  // Options that shape the plan but have no field of their own: one hash.
  std::uint64_t other = 1469598103934665603ull;
  auto mix = [&](std::int64_t v) { other = (other ^ static_cast<std::uint64_t>(v)) * 1099511628211ull; };
  mix(options.planes), mix(options.max_in_flight), mix(options.pipeline_p2p);
  mix(static_cast<std::int64_t>(options.spectral_shape.size()));
  for (auto m : options.spectral_shape) mix(m);
  mix(options.threads), mix(static_cast<int>(options.backend)), mix(options.ranks_per_node);
  mine[kOtherHash] = static_cast<std::int64_t>(other >> 1);
  mine[kLocalError] = local_error.empty() ? 0 : 1;
  mine[kWorkspaceGiven] = options.workspace ? static_cast<std::int64_t>(options.workspace_bytes) : -1;
  mine[kWorkspaceNeeded] = static_cast<std::int64_t>(workspace_needed);

  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> all(static_cast<std::size_t>(size) * kFields);
  comm::check_mpi(MPI_Allgather(mine.data(), kFields, MPI_INT64_T, all.data(), kFields,
                                MPI_INT64_T, comm),
                  "MPI_Allgather");
  for (int f = 0; f < kCompared; ++f) {
    for (int r = 1; r < size; ++r) {
      const std::int64_t v0 = all[f], vr = all[static_cast<std::size_t>(r) * kFields + f];
      if (v0 != vr)
        throw Error(std::string("volfft: plan arguments differ across ranks: ") + kFieldNames[f] +
                    " is " + value_text(f, v0) + " on rank 0 but " + value_text(f, vr) +
                    " on rank " + std::to_string(r) + " (every rank must pass the same)");
    }
  }
  // Same arguments everywhere; a validation error can still be one rank's own (its workspace,
  // say): the lowest failing rank's message goes to all.
  bool any_error = false;
  for (int r = 0; r < size; ++r) any_error = any_error || all[static_cast<std::size_t>(r) * kFields + kLocalError];
  if (any_error) agree_or_throw(comm, local_error);
  for (int r = 0; r < size; ++r) {
    const std::int64_t* row = &all[static_cast<std::size_t>(r) * kFields];
    if (row[kWorkspaceGiven] >= 0 && row[kWorkspaceGiven] < row[kWorkspaceNeeded])
      throw Error("volfft: workspace on rank " + std::to_string(r) + " has " +
                  std::to_string(row[kWorkspaceGiven]) + " bytes but the plan needs " +
                  std::to_string(row[kWorkspaceNeeded]) +
                  " (see Plan::required_workspace_bytes)");
  }
}

void agree_or_throw(MPI_Comm comm, const std::string& local_error) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // [anyone failed, -(lowest failing rank)] in one reduction; more only on failure.
  const int failed = local_error.empty() ? 0 : 1;
  int mine[2] = {failed, failed ? -rank : -size}, top[2];
  comm::check_mpi(MPI_Allreduce(mine, top, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (!top[0]) return;
  const int first = -top[1];
  int failing = 0;
  comm::check_mpi(MPI_Allreduce(&failed, &failing, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  int length = static_cast<int>(local_error.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::string message = local_error;
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(&message[0], length, MPI_CHAR, first, comm);
  // The same text on every rank; name the rank when not all of them failed.
  if (failing == size) throw Error(message);
  throw Error(message + " (on rank " + std::to_string(first) + ")");
}

}  // namespace volfft::plan
