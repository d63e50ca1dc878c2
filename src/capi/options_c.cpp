#include "capi/options_c.hpp"

#include <string>

#include "volfft/error.hpp"

namespace volfft::capi {

volfft_options to_c(const Options& o, std::vector<int>& kinds) {
  volfft_options c{};
  c.grid[0] = o.grid[0], c.grid[1] = o.grid[1];
  c.engine = static_cast<int>(o.engine);
  c.layout = static_cast<int>(o.layout);
  c.effort = static_cast<int>(o.effort);
  c.scale_backward = o.scale_backward ? 1 : 0;
  c.scale_forward = o.scale_forward ? 1 : 0;
  c.rank_order = o.rank_order.empty() ? nullptr : o.rank_order.data();
  c.rank_order_length = static_cast<int>(o.rank_order.size());
  c.workspace = o.workspace;
  c.workspace_bytes = o.workspace_bytes;
  c.planes = o.planes;
  c.max_in_flight = o.max_in_flight;
  c.pipeline_p2p = o.pipeline_p2p ? 1 : 0;
  c.map_file = o.map_file.empty() ? nullptr : o.map_file.c_str();
  c.coordinate = o.coordinate.empty() ? nullptr : o.coordinate.data();
  c.coordinate_length = static_cast<int>(o.coordinate.size());
  c.backend = static_cast<int>(o.backend);
  c.threads = o.threads;
  c.ranks_per_node = o.ranks_per_node;
  c.spectral_ndim = static_cast<int>(o.spectral_shape.size());
  c.spectral_shape = o.spectral_shape.empty() ? nullptr : o.spectral_shape.data();
  c.tune = o.tune;
  c.wisdom_file = o.wisdom_file.empty() ? nullptr : o.wisdom_file.c_str();
  c.verbose = o.verbose ? 1 : 0;
  c.in_place = o.in_place ? 1 : 0;
  c.min_memory = o.min_memory ? 1 : 0;
  c.destroy_input = o.destroy_input ? 1 : 0;
  // The enum values are the option's name indices (volfft_axis_kind), as ints in `kinds`.
  kinds.clear();
  for (AxisKind k : o.kinds) kinds.push_back(static_cast<int>(k));
  c.kinds = kinds.empty() ? nullptr : kinds.data();
  c.kinds_length = static_cast<int>(kinds.size());
  c.batch = o.batch;
  c.batch_layout = static_cast<int>(o.batch_layout);
  return c;
}

namespace {

// A pointer and its length from volfft_options: a negative length, or a positive one with no
// array, is the caller's error (else the field would be silently ignored).
void check_pair(const void* array, long long length, const char* field, const char* length_field) {
  if (length < 0)
    throw Error(std::string("volfft: options->") + length_field + " must be >= 0; got " + std::to_string(length));
  if (length > 0 && !array)
    throw Error(std::string("volfft: options->") + field + " is NULL but options->" + length_field + " is " +
                std::to_string(length) + " (give the array, or a length of 0)");
}

}  // namespace

Options from_c(const volfft_options& c) {
  check_pair(c.rank_order, c.rank_order_length, "rank_order", "rank_order_length");
  check_pair(c.spectral_shape, c.spectral_ndim, "spectral_shape", "spectral_ndim");
  check_pair(c.coordinate, c.coordinate_length, "coordinate", "coordinate_length");
  check_pair(c.kinds, c.kinds_length, "kinds", "kinds_length");
  if (c.workspace_bytes > 0 && !c.workspace)
    throw Error("volfft: options->workspace is NULL but options->workspace_bytes is " +
                std::to_string(c.workspace_bytes) + " (give the memory, or 0 bytes for a plan-owned workspace)");
  Options o;
  o.grid = {c.grid[0], c.grid[1]};
  o.engine = static_cast<Engine>(c.engine);
  o.layout = static_cast<Layout>(c.layout);
  o.effort = static_cast<Effort>(c.effort);
  o.backend = static_cast<Backend>(c.backend);
  o.scale_backward = c.scale_backward != 0;
  o.scale_forward = c.scale_forward != 0;
  o.planes = c.planes;
  o.max_in_flight = c.max_in_flight;
  o.pipeline_p2p = c.pipeline_p2p != 0;
  o.threads = c.threads;
  o.ranks_per_node = c.ranks_per_node;
  if (c.rank_order && c.rank_order_length > 0) o.rank_order.assign(c.rank_order, c.rank_order + c.rank_order_length);
  if (c.spectral_shape && c.spectral_ndim > 0)
    o.spectral_shape.assign(c.spectral_shape, c.spectral_shape + c.spectral_ndim);
  if (c.map_file) o.map_file = c.map_file;
  if (c.coordinate && c.coordinate_length > 0) o.coordinate.assign(c.coordinate, c.coordinate + c.coordinate_length);
  o.tune = c.tune;
  if (c.wisdom_file) o.wisdom_file = c.wisdom_file;
  o.verbose = c.verbose != 0;
  o.in_place = c.in_place != 0;
  o.min_memory = c.min_memory != 0;
  o.destroy_input = c.destroy_input != 0;
  o.batch = c.batch;
  o.batch_layout = static_cast<BatchLayout>(c.batch_layout);
  if (c.kinds && c.kinds_length > 0)
    for (int a = 0; a < c.kinds_length; ++a) o.kinds.push_back(static_cast<AxisKind>(c.kinds[a]));
  o.workspace = c.workspace;
  o.workspace_bytes = c.workspace_bytes;
  return o;
}

}  // namespace volfft::capi
