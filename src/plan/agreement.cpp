#include "plan/agreement.hpp"

#include <array>

#include "comm/packing.hpp"
#include "volfft/error.hpp"

namespace volfft::plan {
namespace {

// One rank's arguments as fixed-size integers, so one MPI_Allgather compares them all.
enum Field {
  kNdim, kN0, kN1, kN2, kKind, kPrecision, kGrid0, kGrid1, kEngine, kLayout, kEffort, kScale,
  kOrderSize, kOrderHash, kLocalError, kWorkspaceGiven, kWorkspaceNeeded, kFields
};
const char* const kFieldNames[] = {"ndim (len(shape))", "shape[0]", "shape[1]", "shape[2]",
                                   "kind", "precision", "grid[0]", "grid[1]", "engine", "layout",
                                   "effort", "scale_backward", "rank_order length", "rank_order"};
constexpr int kCompared = kLocalError;  // fields before this must agree across ranks

std::string value_text(int field, std::int64_t v) {
  switch (field) {
    case kKind: return to_string(static_cast<Kind>(v));
    case kPrecision: return to_string(static_cast<Precision>(v));
    case kEngine: return to_string(static_cast<Engine>(v));
    case kLayout: return to_string(static_cast<Layout>(v));
    case kEffort: return to_string(static_cast<Effort>(v));
    case kOrderHash: return "(a different permutation)";
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
  // Same arguments everywhere, so a validation error is the same everywhere too.
  if (!local_error.empty()) throw Error(local_error);
  for (int r = 0; r < size; ++r) {
    const std::int64_t* row = &all[static_cast<std::size_t>(r) * kFields];
    if (row[kWorkspaceGiven] >= 0 && row[kWorkspaceGiven] < row[kWorkspaceNeeded])
      throw Error("volfft: workspace on rank " + std::to_string(r) + " has " +
                  std::to_string(row[kWorkspaceGiven]) + " bytes but the plan needs " +
                  std::to_string(row[kWorkspaceNeeded]) +
                  " (see Plan::required_workspace_bytes)");
  }
}

}  // namespace volfft::plan
