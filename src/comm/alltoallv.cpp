// Engines "alltoallv" (pack exact blocks, MPI_Alltoallv, unpack; seed 001) and "persistent"
// (the same with an MPI-4 persistent MPI_Alltoallv_init request made once per plan, so nothing
// is set up per call; seed 001 prepares its destination lists at plan time).
#include <climits>

#include "comm/packing.hpp"
#if defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
#include <mpi-ext.h>
#endif

namespace volfft::comm {
namespace {

template <class T>
class AlltoallvExchange final : public Exchange {
 public:
  AlltoallvExchange(const Transfer& t, MPI_Comm group, void* src, void* send, bool persistent)
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
    if (persistent) {
      // The stage array is the receive area (see Exchange); its address is fixed per plan.
#if defined(VOLFFT_HAVE_MPI_ALLTOALLV_INIT)
      check_mpi(MPI_Alltoallv_init(send_, send_counts_.data(), send_displs_.data(), mpi_type_of<T>(), src_,
                                   recv_counts_.data(), recv_displs_.data(), mpi_type_of<T>(), group_,
                                   MPI_INFO_NULL, &persistent_),
                "MPI_Alltoallv_init");
#elif defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
      check_mpi(MPIX_Alltoallv_init(send_, send_counts_.data(), send_displs_.data(), mpi_type_of<T>(), src_,
                                    recv_counts_.data(), recv_displs_.data(), mpi_type_of<T>(), group_,
                                    MPI_INFO_NULL, &persistent_),
                "MPIX_Alltoallv_init");
#else
      throw std::runtime_error("volfft: engine 'persistent' needs MPI-4 persistent collectives "
                               "(MPI_Alltoallv_init), which this MPI library does not provide");
#endif
    }
  }

  ~AlltoallvExchange() override {
    if (persistent_ != MPI_REQUEST_NULL) MPI_Request_free(&persistent_);
  }

  void run(void* dst, double scale, ExchangeTimes& times) override {
    start(dst, scale, times);
    finish(times);
  }

  void start(void* dst_void, double scale, ExchangeTimes& times) override {
    dst_ = static_cast<T*>(dst_void);
    scale_ = static_cast<typename T::value_type>(scale);
    const Transfer& t = packer_.transfer();
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && send_counts_[m]) packer_.pack(src_, m, send_ + send_displs_[m]);
    packer_.copy_own(src_, dst_, scale_);
    // The stage array is dead now: it becomes the receive area.
    if (persistent_ != MPI_REQUEST_NULL) {
      check_mpi(MPI_Start(&persistent_), "MPI_Start");
      active_ = &persistent_;
    } else {
      check_mpi(MPI_Ialltoallv(send_, send_counts_.data(), send_displs_.data(), mpi_type_of<T>(), src_,
                               recv_counts_.data(), recv_displs_.data(), mpi_type_of<T>(), group_, &request_),
                "MPI_Ialltoallv");
      active_ = &request_;
    }
    times.pack += now() - t0;
  }

  bool test() override {
    int flag = 1;
    if (active_) check_mpi(MPI_Test(active_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }

  void finish(ExchangeTimes& times) override {
    const Transfer& t = packer_.transfer();
    double t1 = now();
    if (active_) check_mpi(MPI_Wait(active_, MPI_STATUS_IGNORE), "MPI_Wait");
    active_ = nullptr;
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && recv_counts_[m]) packer_.unpack(src_ + recv_displs_[m], m, dst_, scale_);
    double t3 = now();
    times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  Packer<T> packer_;
  MPI_Comm group_;
  T* src_;
  T* send_;
  T* dst_ = nullptr;
  typename T::value_type scale_ = 1;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  MPI_Request persistent_ = MPI_REQUEST_NULL, request_ = MPI_REQUEST_NULL;
  MPI_Request* active_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<Exchange> make_alltoallv(const Transfer& t, MPI_Comm g, void* src, void* send, bool persistent) {
  return std::make_unique<AlltoallvExchange<T>>(t, g, src, send, persistent);
}
template std::unique_ptr<Exchange> make_alltoallv<std::complex<double>>(const Transfer&, MPI_Comm, void*, void*, bool);
template std::unique_ptr<Exchange> make_alltoallv<std::complex<float>>(const Transfer&, MPI_Comm, void*, void*, bool);

bool have_persistent_collectives() {
#if defined(VOLFFT_HAVE_MPI_ALLTOALLV_INIT) || defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
  return true;
#else
  return false;
#endif
}

}  // namespace volfft::comm
