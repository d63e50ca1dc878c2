// Pack, unpack and own-block copies shared by the engines that pack (all but alltoallw).
// Internal header: templates stay out of the public API.
#pragma once

#include <complex>
#include <vector>

#include "comm/copy_box.hpp"
#include "comm/exchange.hpp"

namespace volfft::comm {

template <class T>
MPI_Datatype mpi_type_of();
template <>
inline MPI_Datatype mpi_type_of<std::complex<double>>() { return MPI_C_DOUBLE_COMPLEX; }
template <>
inline MPI_Datatype mpi_type_of<std::complex<float>>() { return MPI_C_FLOAT_COMPLEX; }

inline double now() { return MPI_Wtime(); }

/// Throws std::runtime_error naming the MPI call when it failed.
void check_mpi(int code, const char* call);

/// Moves blocks between the stage arrays and contiguous packed blocks. A packed block is laid
/// out in the sending stage's memory order, so packing streams and unpacking transposes.
template <class T>
class Packer {
 public:
  using real = typename T::value_type;

  explicit Packer(const Transfer& t) : t_(t) {
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
    copy_box(src + core::offset_of(b, t_.from_box, from_strides_), from_strides_, packed,
             core::strides_of(b, t_.from_order), extents(b), real(1), t_.threads);
  }
  void unpack_part(const T* packed, const Box& b, T* dst, real scale) const {
    copy_box(packed, core::strides_of(b, t_.from_order),
             dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_, extents(b), scale,
             t_.threads);
  }
  void copy_own_part(const T* src, const Box& b, T* dst, real scale) const {
    copy_box(src + core::offset_of(b, t_.from_box, from_strides_), from_strides_,
             dst + core::offset_of(b, t_.to_box, to_strides_), to_strides_, extents(b), scale,
             t_.threads);
  }

  static std::array<core::Index, 3> extents(const Box& b) {
    return {b.extent(0), b.extent(1), b.extent(2)};
  }

 private:
  Transfer t_;
  std::array<core::Index, 3> from_strides_{}, to_strides_{};
};

}  // namespace volfft::comm
