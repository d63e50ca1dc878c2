// The engine factory: one line an engine. Each engine's file defines its maker and its own
// check of whether it applies (as FFTW's MPI solvers back out of problems they do not handle).
#include <stdexcept>
#include <string>

#include "exchange/exchange.hpp"

namespace volfft::exchange {

// Defined in one file an engine.
#define VOLFFT_ENGINE(id)                                 \
  std::string applies_##id(const Setup&);                 \
  std::unique_ptr<Exchange> make_##id(const Setup&);
VOLFFT_ENGINE(alltoallv)
VOLFFT_ENGINE(persistent)
VOLFFT_ENGINE(alltoall)
VOLFFT_ENGINE(alltoallw)
VOLFFT_ENGINE(p2p)
VOLFFT_ENGINE(pipelined)
VOLFFT_ENGINE(node)
#undef VOLFFT_ENGINE

namespace {

struct Entry {
  Engine id;
  std::string (*applies)(const Setup&);
  std::unique_ptr<Exchange> (*make)(const Setup&);
};

const Entry kEngines[] = {
    {Engine::alltoallv, applies_alltoallv, make_alltoallv},
    {Engine::persistent, applies_persistent, make_persistent},
    {Engine::alltoall, applies_alltoall, make_alltoall},
    {Engine::alltoallw, applies_alltoallw, make_alltoallw},
    {Engine::p2p, applies_p2p, make_p2p},
    {Engine::pipelined, applies_pipelined, make_pipelined},
    {Engine::node, applies_node, make_node},
};

const Entry& entry(Engine engine) {
  for (const Entry& e : kEngines)
    if (e.id == engine) return e;
  throw std::logic_error(std::string("volfft: engine '") + to_string(engine) + "' has no exchange");
}

}  // namespace

std::string applies(Engine engine, const Setup& setup) { return entry(engine).applies(setup); }

std::unique_ptr<Exchange> make_exchange(Engine engine, const Setup& setup) {
  return entry(engine).make(setup);
}

}  // namespace volfft::exchange
