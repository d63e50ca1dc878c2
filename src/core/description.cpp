// describe(): every rank's blueprint folded into one PlanDescription (pure, no MPI).
#include <algorithm>

#include "core/blueprint.hpp"
#include "volfft/description.hpp"

namespace volfft {

PlanDescription describe(int comm_size, const std::vector<std::int64_t>& shape, Kind kind,
                         Precision precision, const Options& options) {
  PlanDescription d;
  for (int v = 0; v < comm_size; ++v) {
    const core::Blueprint bp =
        core::make_blueprint(comm_size, v, shape, kind, precision, options, /*padding=*/false);
    if (v == 0) {
      d.ndim = bp.ndim;
      d.shape = bp.shape;
      d.kind = bp.kind;
      d.precision = bp.precision;
      d.grid = bp.ndim == 2 ? std::array<int, 2>{bp.grid[1], 1} : bp.grid;
      d.engine = bp.engine;
      d.layout = bp.layout;
      d.complex_bytes = bp.complex_bytes;
      d.input_order.assign(bp.stages.front().order.begin(), bp.stages.front().order.end());
      d.output_order.assign(bp.stages.back().order.begin(), bp.stages.back().order.end());
      for (const auto& s : bp.stages) {
        for (const auto& op : s.ops) {
          StageDescription sd;
          sd.axes = op.axes;
          sd.real = op.real;
          sd.memory_order.assign(s.order.begin(), s.order.end());
          d.stages.push_back(sd);
        }
      }
      for (const auto& ex : bp.exchanges) d.exchanges.push_back(ExchangeDescription{ex.name, {}});
    }
    d.input_boxes.push_back(bp.real_box);
    d.output_boxes.push_back(bp.stages.back().box);
    for (std::size_t k = 0; k < bp.exchanges.size(); ++k) {
      const auto& ex = bp.exchanges[k];
      for (std::size_t m = 0; m < ex.members.size(); ++m) {
        const auto elements = ex.send[m].size();
        if (static_cast<int>(m) == ex.member || elements == 0) continue;
        d.exchanges[k].messages.push_back(Message{v, ex.members[m], elements * bp.complex_bytes});
      }
    }
  }
  return d;
}

}  // namespace volfft
