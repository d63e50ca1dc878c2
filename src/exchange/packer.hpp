// What the engines share: pack, unpack and own-block copies (every engine but alltoallw packs),
// and the blocking engines' whole-array compute. Internal header: templates stay out of the
// public API.
#pragma once

#include <complex>
#include <vector>

#include "exchange/exchange.hpp"
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
  using real = typename T::value_type;

  Packer(const Transfer& t, int threads) : t_(t), threads_(threads) {
    from_strides_ = core::strides_of(t.from_box, t.from_order);
    to_strides_ = core::strides_of(t.to_box, t.to_order);
  }

  const Transfer& transfer() const { return t_; }

  /// Block for member m, from the stage array `src` to `packed` (contiguous).
  void pack(const T* src, int m, T* packed) const { pack_part(src, t_.send[m], packed); }
  /// Block from member m, from `packed` to the next stage array `dst`.
  void unpack(const T* packed, int m, T* dst, real scale) const {
    unpack_part(packed, t_.recv[m], dst, scale);
  }
  /// This rank's own block, straight from one stage array to the next: one pass, no MPI.
  void copy_own(const T* src, T* dst, real scale) const {
    copy_own_part(src, t_.send[t_.member], dst, scale);
  }

  // The same for any sub-box `b` of a block (the pipelined engine moves blocks in chunks).
  void pack_part(const T* src, const Box& b, T* packed) const {
    kernels::copy_box(src + core::offset_of(b, t_.from_box, from_strides_), from_strides_, packed,
             core::strides_of(b, t_.from_order), extents(b), real(1), threads_);
  }
  void unpack_part(const T* packed, const Box& b, T* dst, real scale) const {
    kernels::copy_box(packed, core::strides_of(b, t_.from_order),
             dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_, extents(b), scale,
             threads_);
  }
  void copy_own_part(const T* src, const Box& b, T* dst, real scale) const {
    kernels::copy_box(src + core::offset_of(b, t_.from_box, from_strides_), from_strides_,
             dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_, extents(b), scale,
             threads_);
  }

  static std::array<core::Index, 3> extents(const Box& b) {
    return {b.extent(0), b.extent(1), b.extent(2)};
  }

 private:
  Transfer t_;
  int threads_ = 1;
  std::array<core::Index, 3> from_strides_{}, to_strides_{};
};

}  // namespace volfft::exchange

namespace volfft::exchange {

/// The engine class template E instantiated for the setup's precision.
template <template <class> class E, class... A>
std::unique_ptr<Exchange> make_typed(const Setup& setup, A... arguments) {
  if (setup.precision == Precision::float64)
    return std::make_unique<E<std::complex<double>>>(setup, arguments...);
  return std::make_unique<E<std::complex<float>>>(setup, arguments...);
}

/// "" when every count and displacement of one MPI call fits MPI's int, else why not. `sends`
/// and `receives` are the element counts per member that go through MPI.
std::string int_counts_problem(const char* engine, const std::vector<Index>& sends,
                               const std::vector<Index>& receives);

}  // namespace volfft::exchange
