// Python keyword values -> volfft::Options (names parsed by the library's parse_* functions).
#include "bindings.hpp"

namespace volfft_python {

volfft::Options make_options(const std::array<int, 2>& grid, const std::string& engine,
                             const std::string& layout, const std::string& effort,
                             bool scale_backward, const std::vector<int>& rank_order,
                             const ExtraOptions& extra) {
  volfft::Options o;
  o.grid = grid;
  o.engine = volfft::parse_engine(engine);
  o.layout = volfft::parse_layout(layout);
  o.effort = volfft::parse_effort(effort);
  o.scale_backward = scale_backward;
  o.rank_order = rank_order;
  o.planes = extra.planes;
  o.max_in_flight = extra.max_in_flight;
  o.pipeline_p2p = extra.pipeline_p2p;
  o.threads = extra.threads;
  o.backend = volfft::parse_backend(extra.backend);
  o.ranks_per_node = extra.ranks_per_node;
  o.spectral_shape = extra.spectral_shape;
  o.wisdom_file = extra.wisdom_file;
  o.verbose = extra.verbose;
  return o;
}

}  // namespace volfft_python
