#include "comm/exchange.hpp"

#include <stdexcept>
#include <string>

#include "comm/packing.hpp"

namespace volfft::comm {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("volfft: ") + call + " failed: " + std::string(text, length));
}

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

// Defined in one file per engine.
template <class T>
std::unique_ptr<Exchange> make_alltoallv(const Transfer&, MPI_Comm, void*, void*, bool persistent);
template <class T>
std::unique_ptr<Exchange> make_alltoall(const Transfer&, MPI_Comm, void*, void*);
template <class T>
std::unique_ptr<Exchange> make_alltoallw(const Transfer&, MPI_Comm, void*, void*);
template <class T>
std::unique_ptr<Exchange> make_p2p(const Transfer&, MPI_Comm, void*, void*);
template <class T>
std::unique_ptr<Exchange> make_node(const Transfer&, MPI_Comm, void*, void*);

template <class T>
std::unique_ptr<Exchange> make_typed(Engine engine, const Transfer& t, MPI_Comm group, void* src,
                                     void* send) {
  switch (engine) {
    case Engine::alltoallv: return make_alltoallv<T>(t, group, src, send, false);
    case Engine::persistent: return make_alltoallv<T>(t, group, src, send, true);
    case Engine::alltoall: return make_alltoall<T>(t, group, src, send);
    case Engine::alltoallw: return make_alltoallw<T>(t, group, src, send);
    case Engine::p2p: return make_p2p<T>(t, group, src, send);
    case Engine::node: return make_node<T>(t, group, src, send);
    case Engine::pipelined:  // built by the plan layer (plan/pipeline.cpp), not here
    case Engine::automatic: break;
  }
  throw std::logic_error(std::string("volfft: engine '") + to_string(engine) +
                         "' has no blocking exchange object");
}

std::unique_ptr<Exchange> make_exchange(Engine engine, const Transfer& t, MPI_Comm group,
                                        Precision precision, void* src, void* send) {
  if (precision == Precision::float64)
    return make_typed<std::complex<double>>(engine, t, group, src, send);
  return make_typed<std::complex<float>>(engine, t, group, src, send);
}

}  // namespace volfft::comm
