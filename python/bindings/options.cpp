// Python keyword values -> volfft::Options (names parsed by the library's parse_* functions).
#include "bindings.hpp"

namespace volfft_python {

volfft::Options make_options(const std::array<int, 2>& grid, const std::string& engine,
                             const std::string& layout, const std::string& effort,
                             bool scale_backward, const std::vector<int>& rank_order) {
  volfft::Options o;
  o.grid = grid;
  o.engine = volfft::parse_engine(engine);
  o.layout = volfft::parse_layout(layout);
  o.effort = volfft::parse_effort(effort);
  o.scale_backward = scale_backward;
  o.rank_order = rank_order;
  return o;
}

}  // namespace volfft_python
