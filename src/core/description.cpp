// describe(): every rank's blueprint folded into one PlanDescription (pure, no MPI).
#include "core/description.hpp"

#include <algorithm>

#include "core/blueprint.hpp"
#include "core/engines.hpp"
#include "core/relabel.hpp"
#include "core/trailing_axes.hpp"
#include "core/user_axes.hpp"
#include "volfft/description.hpp"
#include "volfft/error.hpp"

namespace volfft {

PlanDescription describe(int comm_size, const std::vector<std::int64_t>& shape, Kind kind,
                         Precision precision, const Options& options) {
  // describe_internal's loop over ranks would make no rank, and check nothing.
  if (comm_size < 1) throw Error("volfft: comm_size must be >= 1; got " + std::to_string(comm_size));
  // An N-D plan is the plan of its first three axes with the trailing values as fields
  // (core/trailing_axes.hpp), then the plan's own relabelling (Plan's constructor applies the same
  // rules).
  const core::LeadingPlan split = core::split_trailing_axes(shape, kind, options);
  const core::Axes axes = core::none_axes_first(split.shape, kind, split.options);
  if (axes == core::kSameAxes)
    return core::describe_internal(comm_size, split.shape, kind, precision, split.options, std::nullopt);
  PlanDescription d = core::describe_internal(comm_size, core::to_internal(split.shape, axes), kind, precision,
                                              core::to_internal(split.options, axes), core::user_c_order(axes));
  core::to_user(d, axes);
  return d;
}

PlanDescription core::describe_internal(int comm_size, const std::vector<std::int64_t>& shape, Kind kind,
                                        Precision precision, const Options& options,
                                        const std::optional<Order>& c_order) {
  PlanDescription d;
  for (int v = 0; v < comm_size; ++v) {
    core::Blueprint bp = core::make_blueprint(comm_size, v, shape, kind, precision, options, /*padding=*/false);
    if (c_order) core::keep_user_c_order(bp, *c_order);
    const int ndim = bp.ndim;
    if (v == 0) {
      // The one engine check that needs no MPI (Plan makes it through the engine's own).
      const std::string conflict = core::in_place_conflict(bp.engine, options.in_place, bp.exchanges.size() == 1);
      if (!conflict.empty()) throw Error(conflict);
      d.ndim = ndim;
      d.shape.assign(bp.shape.begin() + (3 - ndim), bp.shape.end());
      d.kind = bp.kind;
      d.precision = bp.precision;
      d.grid = core::user_grid(bp.grid, ndim);
      d.engine = bp.engine;
      d.layout = bp.layout;
      d.element_bytes = bp.element_bytes;
      d.fields = static_cast<int>(bp.fields);
      d.padded = bp.padded;
      d.input_order = core::user_order(bp.input_order, ndim);
      d.output_order = core::user_order(bp.stages.back().order, ndim);
      for (const auto& s : bp.stages) {
        for (const auto& op : s.ops) {
          for (const core::FftOp& part : core::unfused(op)) {  // a fused r2c as r2c, then c2c
            StageDescription sd;
            sd.axes = core::user_axes(part.axes, ndim);
            if (sd.axes.empty()) continue;  // the length-1 leading axis of a 2-D plan alone
            sd.real = part.real;
            for (std::size_t q = 0; q < part.axes.size(); ++q)
              if (core::user_axis(ndim, part.axes[q]) >= 0)
                sd.kinds.push_back(part.r2r() ? part.kinds[q] : part.real && part.axes[q] == 2 ? AxisKind::r2c : AxisKind::dft);
            sd.memory_order = core::user_order(s.order, ndim);
            d.stages.push_back(sd);
          }
        }
      }
      for (const auto& ex : bp.exchanges)
        d.exchanges.push_back(ExchangeDescription{core::user_exchange_name(ndim, ex.name), {}});
    }
    d.input_boxes.push_back(core::user_box(bp.real_box, ndim));
    d.output_boxes.push_back(core::user_box(bp.stages.back().box, ndim));
    for (std::size_t k = 0; k < bp.exchanges.size(); ++k) {
      const auto& ex = bp.exchanges[k];
      for (std::size_t m = 0; m < ex.members.size(); ++m) {
        const auto elements = ex.send[m].size() * bp.fields;  // a message carries every field
        if (static_cast<int>(m) == ex.member || elements == 0) continue;
        d.exchanges[k].messages.push_back(Message{v, ex.members[m], elements * bp.element_bytes});
      }
    }
  }
  return d;
}

}  // namespace volfft
