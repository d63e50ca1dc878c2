// The engine factory: one line an engine. Each engine's file defines its maker and its own
// check of whether it applies (as FFTW's MPI solvers back out of problems they do not handle).
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "exchange/packer.hpp"

namespace volfft::exchange {

Transfer transfer_of(const core::ExchangeGeometry& g, bool backward) {
  Transfer t;
  t.member = g.member;
  t.max_block = g.max_block;
  if (!backward) {
    t.from_box = g.from_storage, t.to_box = g.to_storage;
    t.from_order = g.from_order, t.to_order = g.to_order;
    t.send = g.send, t.recv = g.recv;
    t.member_from = g.member_from, t.member_to = g.member_to;
    t.member_storage = g.member_from_storage;
  } else {
    t.member_from = g.member_to, t.member_to = g.member_from;
    t.member_storage = g.member_to_storage;
    t.from_box = g.to_storage, t.to_box = g.from_storage;
    t.from_order = g.to_order, t.to_order = g.from_order;
    t.send = g.recv, t.recv = g.send;
  }
  return t;
}

Box chunk_of(const Box& box, int axis, Index k, Index planes) {
  if (planes <= 0) return box;
  Box c = box;
  c.lo[axis] = std::min(box.hi[axis], box.lo[axis] + k * planes);
  c.hi[axis] = std::min(box.hi[axis], c.lo[axis] + planes);
  return c;
}

std::string int_counts_problem(const char* engine, const std::vector<Index>& sends,
                               const std::vector<Index>& receives) {
  Index s = 0, r = 0;
  for (Index c : sends) s += c;
  for (Index c : receives) r += c;
  const Index most = std::max(s, r);
  if (most <= INT_MAX) return "";
  return std::string("volfft: engine '") + engine + "' would send or receive " + std::to_string(most) +
         " elements in one MPI call on this rank, more than MPI's int counts allow (" +
         std::to_string(INT_MAX) + "); use more ranks, or engine 'p2p' or 'node'";
}

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
