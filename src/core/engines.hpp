// The engine catalogue: what the pure planning code, the option names, the C API and the
// measured planner know about each exchange engine. One line an engine (engines.cpp); the
// engine's code and its "do I apply" check live in src/exchange/ (one file an engine).
#pragma once

#include <string>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::core {

struct EngineInfo {
  Engine id;
  const char* name;     ///< the option value ("auto" for Engine::automatic)
  const char* summary;  ///< one line for help texts and docs
  bool receive_area;    ///< needs a receive buffer apart from its source array (overlap)
  bool send_area;       ///< packs into a send buffer (all but alltoallw, whose datatypes read the source)
  bool padded_blocks;   ///< sends equal blocks padded to the group's largest block
  bool tuned;           ///< a candidate of the measured planner at effort "measure"
  bool tuned_patient;   ///< a candidate at effort "patient" only
};

/// Every engine, Engine::automatic first, in the enum's order.
const std::vector<EngineInfo>& engine_catalogue();
const EngineInfo& engine_info(Engine engine);

/// Why `engine` cannot run a plan in place (`in_place`) whose directions have one exchange each
/// (`one_exchange`: a grid P x 1 or 1 x P), or "" where it can: engine pipelined in place with
/// one exchange (its output chunks would overwrite input not yet read). Pure: Plan (through the
/// engine's own check) and describe() give the same message.
std::string in_place_conflict(Engine engine, bool in_place, bool one_exchange);

}  // namespace volfft::core
