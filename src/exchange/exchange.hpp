// The exchange engines: one interface (Exchange), one factory (make_exchange in factory.cpp),
// one file an engine. Every engine moves the blocks of one all-to-all among the members of a
// grid row or column, and runs the compute around it that the plan hands it (StageWork): an
// engine that overlaps (pipelined) cuts that compute into chunks and interleaves it with its
// messages; the others run it whole before they pack.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "core/blueprint.hpp"
#include "volfft/options.hpp"

namespace volfft::exchange {

using core::Index;

/// Seconds spent in the phases of one exchange call (summed over its chunks).
struct ExchangeTimes {
  double compute_source = 0;       ///< StageWork::source
  double pack = 0, exchange = 0, unpack = 0;
  double compute_destination = 0;  ///< StageWork::destination (chunked engines)
  double in_flight = 0;            ///< first message started to last completed (overlap)
};

/// The geometry of one direction of one exchange: backward swaps what is sent and received.
struct Transfer {
  /// The arrays (storage boxes: strides and offsets are relative to them) before and after.
  Box from_box, to_box;
  core::Order from_order{0, 1, 2}, to_order{0, 1, 2};
  std::vector<Box> send, recv;              // per member
  std::vector<Box> member_from, member_to;  // per member: its data before and after
  std::vector<Box> member_storage;          // per member: the array holding its data before
  std::vector<Box> member_to_storage;       // per member: the array holding its data after
  int member = 0;
  Index max_block = 0;
  /// The fields of a batched plan in the source and destination arrays (the source is always
  /// one of the plan's buffers: fields outermost; the destination may be the user's array).
  /// A member's message holds the block of every field, one after another.
  core::FieldLayout from_fields, to_fields;
  int size() const { return static_cast<int>(send.size()); }
  /// Elements of the message holding sub-box `b` of every field.
  Index count(const Box& b) const { return b.size() * from_fields.count; }
};

Transfer transfer_of(const core::ExchangeGeometry& geometry, bool backward);

/// How an engine cuts the compute of the stage it follows: `chunks` pieces of `planes` planes
/// along `axis` (chunk_of); one piece, the whole array, for engines that do not overlap.
/// `destination_per_chunk`: the engine also runs the next stage's compute chunk by chunk as
/// the chunks arrive (StageWork::destination). `source_whole`: the chunks are the next stage's
/// only; the source stage's compute runs as one piece (StageWork::source(0) on the whole array).
struct Chunking {
  int axis = 0;
  Index planes = 0;  ///< 0: one chunk, the whole box
  int chunks = 1;
  bool destination_per_chunk = false;
  bool source_whole = false;
  /// Every source chunk is computed into the place of chunk 0 in the source array (the engine
  /// moves each one out before the next is computed), so that the source array is never
  /// written whole: the place stays in cache. The plan then makes chunk k's ops write there.
  bool source_in_first = false;
};

/// `box` cut to planes [box.lo[axis] + k*planes, ...) along `axis` (empty past the end); the
/// whole box when planes == 0.
Box chunk_of(const Box& box, int axis, Index k, Index planes);

/// The compute around an exchange, given per call by the plan (which knows the user's arrays).
class StageWork {
 public:
  /// The source stage's compute on chunk k: its FFTs, leaving chunk k of the source array ready.
  virtual void source(int chunk) = 0;
  /// The destination stage's compute on chunk k of the destination array (only engines whose
  /// chunking() says destination_per_chunk call it).
  virtual void destination(int chunk) = 0;

 protected:
  ~StageWork() = default;
};

/// Everything an engine is made from; fixed for the plan's life.
struct Setup {
  Transfer transfer;
  MPI_Comm group = MPI_COMM_NULL;  ///< rank m of the group is member m of the transfer
  Precision precision = Precision::float64;
  /// The elements are reals of `precision` (a Reshape of real arrays), not complex values.
  bool real_values = false;
  /// `src` holds this rank's array before the exchange in its stage layout and is clobbered
  /// (engines reuse it as their receive area); `send` is scratch of the blueprint's buffer
  /// capacity; `receive` a further buffer, given to engines whose catalogue entry asks for one
  /// (core::EngineInfo::receive_area), else null. The destination array is given per call.
  void* src = nullptr;
  void* send = nullptr;
  void* receive = nullptr;
  /// The destination stage's array when it is one of the plan's buffers (the same array every
  /// call), else null (the user's output, given per call): engine node may then write into the
  /// partners' destination arrays instead of reading their source arrays.
  void* destination = nullptr;
  /// The axes the source and destination stages transform (a chunk must hold whole lines), and
  /// whether the destination stage is the direction's last (only that one may be transformed
  /// per chunk on arrival).
  std::vector<int> source_axes, destination_axes;
  bool destination_is_last = false;
  /// Whether the source stage is the direction's first (its ops read the user's input).
  bool source_is_first = false;
  Options options;  ///< planes, max_in_flight, pipeline_p2p, threads, ranks_per_node
};

/// One direction of one exchange, with its buffers bound at plan time.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual Chunking chunking() const { return {}; }
  /// Whether the engine overlaps compute with its messages (phase names "wait"/"hidden").
  virtual bool overlaps() const { return false; }
  /// false: the engine moves data without touching it (datatypes); the caller scales.
  virtual bool scales() const { return true; }
  /// Collective over the group: the source compute (work.source), the exchange into `dst`
  /// (multiplied by `scale` on the way when scales()), and for chunked engines the destination
  /// compute. Allocates nothing.
  virtual void run(void* dst, double scale, StageWork& work, ExchangeTimes& times) = 0;
  /// Split phase: start() may return with messages under way; finish() completes them; test()
  /// lets MPI progress and says whether finish() would not block. Engines without a
  /// non-blocking form do everything in start().
  virtual void start(void* dst, double scale, StageWork& work, ExchangeTimes& times) {
    run(dst, scale, work, times);
  }
  virtual void finish(ExchangeTimes&) {}
  virtual bool test() { return true; }
  /// Whether read_from() is offered (engines that read the partners' source arrays in node
  /// shared memory, or cut a stage's compute into chunks, need their source at setup).
  virtual bool reads_any_source() const { return false; }
  /// The calls that follow read the source from `src` (a user's array, left unchanged) instead
  /// of Setup::src, which stays the receive area: a Reshape reads the user's input in place.
  virtual void read_from(const void* src);
};

/// "" when `engine` can run this exchange on this rank, else why not (the engine's own check:
/// MPI features, int count limits). The plan agrees on the answers of all ranks.
std::string applies(Engine engine, const Setup& setup);

/// The engine's exchange object. Collective over setup.group (engines set up persistent
/// requests, windows and datatypes here). `engine` must apply (see applies()).
std::unique_ptr<Exchange> make_exchange(Engine engine, const Setup& setup);

/// Whether this build's MPI offers persistent collectives (engine "persistent").
bool have_persistent_collectives();

/// Engines alltoallv and persistent give MPI element displacements as ints while a rank's
/// blocks together stay within this many elements (INT_MAX); past it, each block becomes a
/// datatype that carries its byte offset and the call becomes the MPI_Alltoallw form, so a rank
/// may move more than 2^31 elements in one exchange. Tests lower it to exercise that path on
/// small arrays; plans made after the call use the new value. Not thread-safe against planning.
void set_displacement_limit(Index elements);
Index displacement_limit();

}  // namespace volfft::exchange
