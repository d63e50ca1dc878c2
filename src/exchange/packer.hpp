// What the engines share: pack, unpack and own-block copies (every engine but alltoallw packs),
// the pairwise message plan of the point-to-point engines, and PackingExchange, the frame of
// the engines that pack, move packed blocks through MPI and unpack. Internal header: templates
// stay out of the public API.
#pragma once

#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "exchange/exchange.hpp"
#include "exchange/schedule.hpp"
#include "kernels/copy_box.hpp"
#include "mpi/check.hpp"

namespace volfft::exchange {

using mpi::now;

/// Engines that do not overlap run the source stage's compute whole, before they pack.
inline void compute_whole(StageWork& work, ExchangeTimes& times) {
  const double t0 = now();
  work.source(0);
  times.compute_source += now() - t0;
}

/// Moves blocks between the stage arrays and contiguous packed blocks. A packed block is laid
/// out in the sending stage's memory order, so packing streams and unpacking transposes.
template <class T>
class Packer {
 public:
  using real = kernels::Scalar<T>;

  Packer(const Transfer& t, int threads) : t_(t), threads_(threads) {
    from_strides_ = core::strides_of(t.from_box, t.from_order, t.from_fields.unit);
    to_strides_ = core::strides_of(t.to_box, t.to_order, t.to_fields.unit);
  }

  const Transfer& transfer() const { return t_; }

  /// The blocks for `members`, from the stage array `src` into `send` at `offsets[m]`.
  template <class Offset>
  void pack_blocks(const T* src, const std::vector<int>& members, const std::vector<Offset>& offsets,
                   T* send) const {
    for (int m : members) pack_part(src, t_.send[m], send + offsets[m]);
  }
  /// The blocks from `members`, from `received` at `offsets[m]` into the next stage array `dst`.
  template <class Offset>
  void unpack_blocks(const T* received, const std::vector<int>& members, const std::vector<Offset>& offsets,
                     T* dst, real scale) const {
    for (int m : members) unpack_part(received + offsets[m], t_.recv[m], dst, scale);
  }
  /// Box `b` (a member's block, or part of one) read in place from the member's array (`block`:
  /// b's first element there, `strides`: that array's), into `dst`. Its fields lie
  /// `field_stride` elements apart there (a partner's buffer: its array's size).
  void unpack_strided(const T* block, const std::array<Index, 3>& strides, Index field_stride, const Box& b, T* dst,
                      real scale) const {
    kernels::copy_fields(block, strides, field_stride, dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_,
                         t_.to_fields.stride, extents(b), t_.to_fields.count, scale, threads_);
  }
  /// This rank's own block, straight from one stage array to the next: one pass, no MPI.
  void copy_own(const T* src, T* dst, real scale) const { copy_own_part(src, t_.send[t_.member], dst, scale); }

  // The same for any sub-box `b` of a block (the pipelined engine moves blocks in chunks). A
  // packed block holds the fields one after another, each in the sending stage's order.
  void pack_part(const T* src, const Box& b, T* packed) const {
    kernels::copy_fields(src + core::offset_of(b, t_.from_box, from_strides_), from_strides_, t_.from_fields.stride,
                         packed, core::strides_of(b, t_.from_order), b.size(), extents(b), t_.from_fields.count,
                         real(1), threads_);
  }
  void unpack_part(const T* packed, const Box& b, T* dst, real scale) const {
    unpack_strided(packed, core::strides_of(b, t_.from_order), b.size(), b, dst, scale);
  }
  /// Box b of the source array `src` into another member's destination array (`dst`: b's first
  /// element there, `strides`, fields `field_stride` apart): engine node's writes into its
  /// partners' arrays in node shared memory. `shift`: b lies that many elements before its own
  /// place in `src` (Chunking::source_in_first: every chunk in the place of the first).
  void copy_out(const T* src, const Box& b, T* dst, const std::array<Index, 3>& strides, Index field_stride,
                real scale, Index shift = 0) const {
    kernels::copy_fields(src + (core::offset_of(b, t_.from_box, from_strides_) - shift), from_strides_,
                         t_.from_fields.stride, dst, strides, field_stride, extents(b), t_.from_fields.count, scale,
                         threads_);
  }
  void copy_own_part(const T* src, const Box& b, T* dst, real scale, Index shift = 0) const {
    copy_out(src, b, dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_, t_.to_fields.stride, scale, shift);
  }
  /// Elements from the first element of box `a` to that of box `b` in the source array.
  Index source_distance(const Box& a, const Box& b) const {
    return core::offset_of(b, t_.from_box, from_strides_) - core::offset_of(a, t_.from_box, from_strides_);
  }

 private:
  static std::array<Index, 3> extents(const Box& b) { return {b.extent(0), b.extent(1), b.extent(2)}; }

  Transfer t_;
  int threads_ = 1;
  std::array<Index, 3> from_strides_{}, to_strides_{};
};

/// The point-to-point messages of a transfer in the pairwise order of schedule.hpp: the
/// members with a non-empty block (and not `skip`ped), and where each block lies in a packed
/// send area and a packed receive area.
struct PairwiseBlocks {
  std::vector<int> sends, receives;
  std::vector<Index> send_offsets, receive_offsets;  // per member
  Index sent = 0, received = 0;                      // elements in each area
};
PairwiseBlocks pairwise_blocks(const Transfer& t, const std::vector<bool>& skip = {});

/// Persistent MPI_Send_init / MPI_Recv_init requests for those messages: sends from
/// `send_area`, receives into `receive_area`. Collective only in the sense of matching pairs.
template <class T>
void init_pairs(const Transfer& t, const PairwiseBlocks& b, T* send_area, T* receive_area, MPI_Comm group,
                std::vector<MPI_Request>& sends, std::vector<MPI_Request>& receives) {
  for (int m : b.sends) {
    sends.emplace_back();
    mpi::check(MPI_Send_init(send_area + b.send_offsets[m], static_cast<int>(t.count(t.send[m])), mpi::type_of<T>(),
                             m, 0, group, &sends.back()),
               "MPI_Send_init");
  }
  for (int m : b.receives) {
    receives.emplace_back();
    mpi::check(MPI_Recv_init(receive_area + b.receive_offsets[m], static_cast<int>(t.count(t.recv[m])),
                             mpi::type_of<T>(), m, 0, group, &receives.back()),
               "MPI_Recv_init");
  }
}

/// The frame of the engines that pack: the source stage's compute, every block that goes
/// through MPI packed into the send area, the own block copied straight across, the packed
/// blocks moved (begin_transfer / end_transfer: the engine's part), and unpacked from the
/// source array, which is dead once packed and so becomes the receive area. start() stops after
/// begin_transfer(): engines whose transfer is non-blocking get split phase from this frame.
template <class T>
class PackingExchange : public Exchange {
 public:
  void run(void* dst, double scale, StageWork& work, ExchangeTimes& times) override {
    start(dst, scale, work, times);
    finish(times);
  }

  void start(void* dst, double scale, StageWork& work, ExchangeTimes& times) override {
    compute_whole(work, times);
    dst_ = static_cast<T*>(dst);
    scale_ = static_cast<kernels::Scalar<T>>(scale);
    const double t0 = now();
    packer_.pack_blocks(source_, send_members_, send_offsets_, send_);
    packer_.copy_own(source_, dst_, scale_);
    const double t1 = now();
    begin_transfer();
    times.pack += t1 - t0, times.exchange += now() - t1;
  }

  void finish(ExchangeTimes& times) override {
    const double t0 = now();
    end_transfer();
    const double t1 = now();
    packer_.unpack_blocks(src_, receive_members_, receive_offsets_, dst_, scale_);
    times.exchange += t1 - t0, times.unpack += now() - t1;
  }

  bool reads_any_source() const override { return true; }
  void read_from(const void* src) override { source_ = static_cast<const T*>(src); }

 protected:
  explicit PackingExchange(const Setup& s)
      : packer_(s.transfer, s.options.threads), src_(static_cast<T*>(s.src)), source_(src_),
        send_(static_cast<T*>(s.send)) {}

  /// Moves the packed blocks (from the send area to the members' source arrays), or starts
  /// moving them when end_transfer() completes the move.
  virtual void begin_transfer() = 0;
  virtual void end_transfer() {}

  Packer<T> packer_;
  T* src_;             // the source array given at setup: the receive area
  const T* source_;    // where the blocks are packed from: src_, or the array of read_from()
  T* send_;
  std::vector<int> send_members_, receive_members_;  // members whose blocks go through MPI
  std::vector<Index> send_offsets_, receive_offsets_;  // per member: send area / source array

 private:
  T* dst_ = nullptr;
  kernels::Scalar<T> scale_ = 1;
};

/// The engine class template E instantiated for the setup's elements (complex or real values
/// of its precision).
template <template <class> class E, class... A>
std::unique_ptr<Exchange> make_typed(const Setup& setup, A... arguments) {
  if (setup.real_values)
    return setup.precision == Precision::float64 ? std::unique_ptr<Exchange>(std::make_unique<E<double>>(setup, arguments...))
                                                 : std::make_unique<E<float>>(setup, arguments...);
  if (setup.precision == Precision::float64) return std::make_unique<E<std::complex<double>>>(setup, arguments...);
  return std::make_unique<E<std::complex<float>>>(setup, arguments...);
}


}  // namespace volfft::exchange
