#include "core/engines.hpp"

#include <stdexcept>

namespace volfft::core {

const std::vector<EngineInfo>& engine_catalogue() {
  // Adding an engine: its enum value, one line here, one file in src/exchange/ and one line in
  // src/exchange/factory.cpp.
  static const std::vector<EngineInfo> catalogue = {
      {Engine::automatic, "auto", "chosen by the planner (measured with effort measure/patient)", false, true, false, false, false},
      {Engine::alltoallv, "alltoallv", "pack exact blocks, MPI_Alltoallv, unpack", false, true, false, true, false},
      {Engine::alltoall, "alltoall", "pack equal blocks padded to the largest, MPI_Alltoall", false, true, true, true, false},
      {Engine::alltoallw, "alltoallw", "MPI derived datatypes on both sides, no packing by volfft", false, false, false, false, true},
      {Engine::p2p, "p2p", "pack, persistent Send/Recv pairs in a pairwise schedule, unpack", false, true, false, true, false},
      {Engine::pipelined, "pipelined", "chunks of planes: FFT a chunk, start its exchange, compute the next", true, true, false, true, false},
      {Engine::persistent, "persistent", "alltoallv through an MPI-4 persistent request made once per plan", false, true, false, true, false},
      {Engine::node, "node", "ranks of a node read each other's arrays in shared memory; MPI between nodes", false, true, false, true, false},
  };
  return catalogue;
}

const EngineInfo& engine_info(Engine engine) {
  for (const EngineInfo& e : engine_catalogue())
    if (e.id == engine) return e;
  throw std::logic_error("volfft: engine missing from the catalogue");
}

std::string in_place_conflict(Engine engine, bool in_place, bool one_exchange) {
  // Chunks of the output arrive while later chunks of the input are still to be read: with one
  // array for both (in place, one exchange) they would overwrite input not yet transformed.
  if (engine == Engine::pipelined && in_place && one_exchange)
    return "volfft: engine 'pipelined' does not apply to an in-place plan with one exchange (grid P x 1 or 1 x P): "
           "it would write output chunks into the array while later input chunks are still to be read from it; "
           "use another engine, an out-of-place plan, or a grid p0 x p1 with both above 1";
  return "";
}

}  // namespace volfft::core
