// The geometry helpers of the exchange interface (exchange.hpp).
#include "exchange/exchange.hpp"

#include <algorithm>
#include <stdexcept>

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
    t.member_to_storage = g.member_to_storage;
  } else {
    t.member_from = g.member_to, t.member_to = g.member_from;
    t.member_storage = g.member_to_storage;
    t.member_to_storage = g.member_from_storage;
    t.from_box = g.to_storage, t.to_box = g.from_storage;
    t.from_order = g.to_order, t.to_order = g.from_order;
    t.send = g.recv, t.recv = g.send;
  }
  return t;
}

void Exchange::read_from(const void*) {
  throw std::logic_error("volfft: this engine reads its source only from the array given at setup");
}

Box chunk_of(const Box& box, int axis, Index k, Index planes) {
  if (planes <= 0) return box;
  Box c = box;
  c.lo[axis] = std::min(box.hi[axis], box.lo[axis] + k * planes);
  c.hi[axis] = std::min(box.hi[axis], c.lo[axis] + planes);
  return c;
}

}  // namespace volfft::exchange
