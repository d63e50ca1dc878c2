// Engine "alltoallv": pack exact blocks, MPI_Alltoallv, unpack (seed 001).
#include <climits>

#include "comm/packing.hpp"

namespace volfft::comm {
namespace {

template <class T>
class AlltoallvExchange final : public Exchange {
 public:
  AlltoallvExchange(const Transfer& t, MPI_Comm group, void* src, void* send)
      : packer_(t), group_(group), src_(static_cast<T*>(src)), send_(static_cast<T*>(send)) {
    const int p = t.size();
    send_counts_.assign(p, 0), send_displs_.assign(p, 0);
    recv_counts_.assign(p, 0), recv_displs_.assign(p, 0);
    long long s = 0, r = 0;
    for (int m = 0; m < p; ++m) {
      if (m == t.member) continue;  // own block: copied directly, never through MPI
      send_displs_[m] = static_cast<int>(s), recv_displs_[m] = static_cast<int>(r);
      send_counts_[m] = static_cast<int>(t.send[m].size());
      recv_counts_[m] = static_cast<int>(t.recv[m].size());
      s += send_counts_[m], r += recv_counts_[m];
      if (s > INT_MAX || r > INT_MAX)
        throw std::runtime_error("volfft: alltoallv displacements exceed MPI's int range; use more ranks or engine p2p");
    }
  }

  void run(void* dst_void, double scale, ExchangeTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && send_counts_[m]) packer_.pack(src_, m, send_ + send_displs_[m]);
    packer_.copy_own(src_, dst, static_cast<typename T::value_type>(scale));
    double t1 = now();
    // The stage array is dead now: it becomes the receive area.
    check_mpi(MPI_Alltoallv(send_, send_counts_.data(), send_displs_.data(), mpi_type_of<T>(), src_,
                            recv_counts_.data(), recv_displs_.data(), mpi_type_of<T>(), group_),
              "MPI_Alltoallv");
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && recv_counts_[m])
        packer_.unpack(src_ + recv_displs_[m], m, dst, static_cast<typename T::value_type>(scale));
    double t3 = now();
    times.pack += t1 - t0, times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  Packer<T> packer_;
  MPI_Comm group_;
  T* src_;
  T* send_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
};

}  // namespace

template <class T>
std::unique_ptr<Exchange> make_alltoallv(const Transfer& t, MPI_Comm g, void* src, void* send) {
  return std::make_unique<AlltoallvExchange<T>>(t, g, src, send);
}
template std::unique_ptr<Exchange> make_alltoallv<std::complex<double>>(const Transfer&, MPI_Comm, void*, void*);
template std::unique_ptr<Exchange> make_alltoallv<std::complex<float>>(const Transfer&, MPI_Comm, void*, void*);

}  // namespace volfft::comm
