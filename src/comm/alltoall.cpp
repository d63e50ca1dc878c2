// Engine "alltoall": pack into equal blocks padded to the largest block of the group,
// MPI_Alltoall, unpack (seed 000; FFTW-MPI's strategy, seed 004's "fftw").
#include "comm/packing.hpp"

namespace volfft::comm {
namespace {

template <class T>
class AlltoallExchange final : public Exchange {
 public:
  AlltoallExchange(const Transfer& t, MPI_Comm group, void* src, void* send)
      : packer_(t), group_(group), src_(static_cast<T*>(src)), send_(static_cast<T*>(send)),
        block_(static_cast<int>(t.max_block)) {}

  void run(void* dst_void, double scale, ExchangeTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<typename T::value_type>(scale);
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member) packer_.pack(src_, m, send_ + static_cast<core::Index>(m) * block_);
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    if (block_ > 0)
      check_mpi(MPI_Alltoall(send_, block_, mpi_type_of<T>(), src_, block_, mpi_type_of<T>(), group_),
                "MPI_Alltoall");
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member) packer_.unpack(src_ + static_cast<core::Index>(m) * block_, m, dst, s);
    double t3 = now();
    times.pack += t1 - t0, times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  Packer<T> packer_;
  MPI_Comm group_;
  T* src_;
  T* send_;
  int block_;
};

}  // namespace

template <class T>
std::unique_ptr<Exchange> make_alltoall(const Transfer& t, MPI_Comm g, void* src, void* send) {
  return std::make_unique<AlltoallExchange<T>>(t, g, src, send);
}
template std::unique_ptr<Exchange> make_alltoall<std::complex<double>>(const Transfer&, MPI_Comm, void*, void*);
template std::unique_ptr<Exchange> make_alltoall<std::complex<float>>(const Transfer&, MPI_Comm, void*, void*);

}  // namespace volfft::comm
