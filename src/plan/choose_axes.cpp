#include "plan/choose_axes.hpp"

#include <algorithm>
#include <cstdint>

#include "core/blueprint.hpp"

namespace volfft::plan {

using core::Axes;
using core::kSameAxes;
using core::to_internal;
using core::to_user;

Axes choose_axes(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                 const Options& options, const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  // The same test on every rank (the arguments must agree; if they do not, the plan says so).
  const bool all_dft = std::all_of(options.kinds.begin(), options.kinds.end(), [](AxisKind k) { return k == AxisKind::dft; });
  const bool automatic_grid = options.grid[0] == 0 && options.grid[1] == 0;  // a given grid names axes
  const bool applies = shape.size() == 3 && kind == Kind::c2c && all_dft && options.spectral_shape.empty() &&
                       !options.in_place && options.rank_order.empty() && options.map_file.empty() &&
                       automatic_grid && (in || out);
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  static const Axes candidates[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  // kept[c]: this rank's elements already where candidate c's plan holds them; kept[6]: 1 when
  // relabelling does not apply here or something failed (then nobody relabels).
  std::int64_t kept[7] = {0, 0, 0, 0, 0, 0, applies ? 0 : 1};
  if (applies) {
    try {
      for (int c = 0; c < 6; ++c) {
        const Axes& axes = candidates[c];
        const core::Blueprint bp = core::make_blueprint(size, rank, to_internal(shape, axes), kind, precision, options, false);
        if (in) kept[c] += in->box.intersect(to_user(bp.real_box, axes)).size();
        if (out) kept[c] += out->box.intersect(to_user(bp.stages.back().box, axes)).size();
      }
    } catch (...) {
      kept[6] = 1;
    }
  }
  std::int64_t total[7];
  MPI_Allreduce(kept, total, 7, MPI_INT64_T, MPI_SUM, comm);
  if (total[6] > 0) return kSameAxes;
  int best = 0;
  for (int c = 1; c < 6; ++c)
    if (total[c] > total[best]) best = c;
  return candidates[best];
}

}  // namespace volfft::plan
