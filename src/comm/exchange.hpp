// The exchange interface (the seeds' swappable communication layer) and its factory.
#pragma once

#include <mpi.h>

#include <memory>

#include "core/blueprint.hpp"
#include "volfft/options.hpp"

namespace volfft::comm {

/// Seconds spent in the phases of one exchange call.
struct ExchangeTimes {
  double pack = 0, exchange = 0, unpack = 0;
};

/// One direction of one exchange, with its buffers bound at plan time.
///
/// Buffers: `src` holds this rank's array before the exchange in its stage layout; it is
/// clobbered (reused as the receive area). `send` is a scratch area of the blueprint's buffer
/// capacity. `dst` (given per call) receives this rank's array after the exchange in the next
/// stage's layout. The three must not overlap.
class Exchange {
 public:
  virtual ~Exchange() = default;
  /// Collective over the group. Multiplies the data by `scale` on the way when scales() is true.
  virtual void run(void* dst, double scale, ExchangeTimes& times) = 0;
  /// false: the engine moves data without touching it (datatypes), the caller scales.
  virtual bool scales() const { return true; }
  /// Split phase: start() begins the exchange and may return before it completes; finish()
  /// completes it. Engines without a non-blocking form do all the work in start().
  /// test() lets MPI progress and says whether finish() would not block.
  virtual void start(void* dst, double scale, ExchangeTimes& times) { run(dst, scale, times); }
  virtual void finish(ExchangeTimes&) {}
  virtual bool test() { return true; }
};

/// The geometry of one direction: backward swaps what is sent and received.
struct Transfer {
  /// The arrays (storage boxes: strides and offsets are relative to them) before and after.
  Box from_box, to_box;
  core::Order from_order{0, 1, 2}, to_order{0, 1, 2};
  std::vector<Box> send, recv;  // per member
  std::vector<Box> member_from, member_to;  // per member: its data before and after
  std::vector<Box> member_storage;          // per member: the array holding its data before
  int member = 0;
  core::Index max_block = 0;
  int threads = 1;  // threads per rank for the pack/unpack copies (Options::threads)
  int ranks_per_node = 0;  // engine node: pretend node size (Options::ranks_per_node)
  int size() const { return static_cast<int>(send.size()); }
};

Transfer transfer_of(const core::ExchangeGeometry& geometry, bool backward);

/// Whether this build's MPI offers persistent collectives (engine "persistent").
bool have_persistent_collectives();

/// `group`: the row or column communicator, whose rank m is member m of the geometry.
std::unique_ptr<Exchange> make_exchange(Engine engine, const Transfer& transfer, MPI_Comm group,
                                        Precision precision, void* src, void* send);

}  // namespace volfft::comm
