// What a plan will do, as plain data: boxes, stages and every message of every exchange.
// Computed by a pure function (no MPI), so the performance model and tests read the very
// decisions the library executes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/options.hpp"

namespace volfft {

/// One batch of 1-D (or merged multi-dimensional) FFTs done locally by every rank.
struct StageDescription {
  std::vector<int> axes;          ///< global axes transformed together (forward order)
  bool real = false;              ///< the r2c (forward) / c2r (backward) stage
  std::vector<AxisKind> kinds;    ///< per axis of `axes`: dft, r2c or the r2r kind (Options::kinds)
  std::vector<int> memory_order;  ///< axes from slowest to fastest in this stage's memory
};

/// A message of an exchange between virtual ranks (g = i*p1 + j), in bytes.
struct Message {
  int source = 0;
  int destination = 0;
  std::int64_t bytes = 0;
};

struct ExchangeDescription {
  std::string name;               ///< "row" (ranks sharing i) or "column" (ranks sharing j)
  std::vector<Message> messages;  ///< forward direction; source != destination, bytes > 0
};

/// Everything in the user's axes and grid, as Plan::input_box() and friends: a 2-D plan has
/// axes 0 and 1 (its boxes keep [0, 1) as an unused third axis) and the grid P x 1, whose one
/// exchange is the "column" exchange.
struct PlanDescription {
  int ndim = 3;
  std::vector<std::int64_t> shape;          ///< the transform's shape (ndim sizes)
  Kind kind = Kind::c2c;
  Precision precision = Precision::float64;
  std::array<int, 2> grid{1, 1};            ///< p0 x p1 (2-D: P x 1)
  Engine engine = Engine::alltoallv;
  Layout layout = Layout::transposed;
  std::int64_t element_bytes = 16;          ///< bytes of one element of the plan's arrays (complex; real for r2r)
  int fields = 1;                           ///< Options::batch: messages carry every field
  bool padded = false;                      ///< Options::spectral_shape: stages truncate
  std::vector<Box> input_boxes;             ///< per virtual rank (real elements for r2c)
  std::vector<Box> output_boxes;            ///< per virtual rank (complex elements)
  std::vector<int> input_order, output_order;  ///< axes, slowest to fastest in memory
  std::vector<StageDescription> stages;     ///< forward order
  std::vector<ExchangeDescription> exchanges;  ///< forward order; trivial ones omitted
  /// A plan on user arrays (Plan's constructor with LocalArrays): "reshape_in" (the user's input
  /// array to the first stage) and "reshape_out" (the last stage to the user's output array),
  /// forward direction, where the plan runs them; input_boxes/output_boxes stay the plan's own.
  /// Empty for describe() and for plans on their own arrays.
  std::vector<ExchangeDescription> reshapes;
};

/// Describe the plan that Plan(comm, shape, kind, precision, options) would build on a
/// communicator of `comm_size` ranks. Pure: no MPI, no FFTW. Throws std::invalid_argument
/// with the same messages Plan gives for invalid arguments (engine pipelined in place with one
/// exchange included), except where the MPI library decides: engine persistent where it lacks
/// MPI-4 persistent collectives (or their wide form), engine pipelined with a chunk beyond its
/// int counts. describe() does not refuse those.
PlanDescription describe(int comm_size, const std::vector<std::int64_t>& shape, Kind kind,
                         Precision precision, const Options& options = {});

}  // namespace volfft
