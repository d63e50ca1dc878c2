// Engine "alltoall": pack into equal blocks padded to the largest block of the group,
// MPI_Alltoall, unpack ([Jagode2008]; FFTW-MPI's strategy, [Beowulf2D]'s "fftw").
#include <climits>

#include "exchange/packer.hpp"

namespace volfft::exchange {
namespace {

template <class T>
class AlltoallExchange final : public Exchange {
 public:
  explicit AlltoallExchange(const Setup& s)
      : packer_(s.transfer, s.options.threads), group_(s.group), src_(static_cast<T*>(s.src)),
        send_(static_cast<T*>(s.send)), block_(static_cast<int>(s.transfer.max_block)) {}

  void run(void* dst_void, double scale, StageWork& work, ExchangeTimes& times) override {
    compute_whole(work, times);
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<typename T::value_type>(scale);
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member) packer_.pack(src_, m, send_ + static_cast<Index>(m) * block_);
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    if (block_ > 0)
      mpi::check(MPI_Alltoall(send_, block_, mpi::type_of<T>(), src_, block_, mpi::type_of<T>(), group_),
                 "MPI_Alltoall");
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member) packer_.unpack(src_ + static_cast<Index>(m) * block_, m, dst, s);
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

std::string applies_alltoall(const Setup& s) {
  // The padded blocks of all members lie one after another in the send area and the source
  // array; the blueprint sized both for it. One MPI call moves members x block elements.
  const Transfer& t = s.transfer;
  const std::vector<Index> padded(static_cast<std::size_t>(t.size()), t.max_block);
  return int_counts_problem("alltoall", padded, padded);
}

std::unique_ptr<Exchange> make_alltoall(const Setup& s) { return make_typed<AlltoallExchange>(s); }

}  // namespace volfft::exchange
