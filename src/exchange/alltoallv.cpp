// Engines "alltoallv" (pack exact blocks, MPI_Alltoallv, unpack; [Eleftheriou2005]) and
// "persistent" (the same with an MPI-4 persistent MPI_Alltoallv_init request made once per
// plan, so nothing is set up per call). Both have a split-phase form (MPI_Ialltoallv / MPI_Start).
#include "exchange/packer.hpp"
#if defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
#include <mpi-ext.h>
#endif

namespace volfft::exchange {
namespace {

// Counts through MPI per member: every block but this rank's own, which is copied directly.
std::vector<Index> through_mpi(const std::vector<Box>& blocks, int member) {
  std::vector<Index> counts(blocks.size(), 0);
  for (std::size_t m = 0; m < blocks.size(); ++m)
    if (static_cast<int>(m) != member) counts[m] = blocks[m].size();
  return counts;
}

template <class T>
class AlltoallvExchange final : public PackingExchange<T> {
 public:
  AlltoallvExchange(const Setup& setup, bool persistent) : PackingExchange<T>(setup), group_(setup.group) {
    const Transfer& t = setup.transfer;
    const auto sends = through_mpi(t.send, t.member), receives = through_mpi(t.recv, t.member);
    const int p = t.size();
    send_counts_.assign(p, 0), send_displs_.assign(p, 0);
    recv_counts_.assign(p, 0), recv_displs_.assign(p, 0);
    Index s = 0, r = 0;  // applies() checked that the sums fit an int
    for (int m = 0; m < p; ++m) {
      send_displs_[m] = static_cast<int>(s), recv_displs_[m] = static_cast<int>(r);
      send_counts_[m] = static_cast<int>(sends[m]), recv_counts_[m] = static_cast<int>(receives[m]);
      if (sends[m]) this->send_members_.push_back(m);
      if (receives[m]) this->receive_members_.push_back(m);
      s += sends[m], r += receives[m];
    }
    this->send_offsets_.assign(send_displs_.begin(), send_displs_.end());
    this->receive_offsets_.assign(recv_displs_.begin(), recv_displs_.end());
    if (persistent) {
      // The source array is the receive area (see Setup); its address is fixed per plan.
#if defined(VOLFFT_HAVE_MPI_ALLTOALLV_INIT)
      mpi::check(MPI_Alltoallv_init(this->send_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(),
                                    this->src_, recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_,
                                    MPI_INFO_NULL, &persistent_),
                 "MPI_Alltoallv_init");
#elif defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
      mpi::check(MPIX_Alltoallv_init(this->send_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(),
                                     this->src_, recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_,
                                     MPI_INFO_NULL, &persistent_),
                 "MPIX_Alltoallv_init");
#endif
    }
  }

  ~AlltoallvExchange() override {
    if (persistent_ != MPI_REQUEST_NULL) MPI_Request_free(&persistent_);
  }

  bool test() override {
    int flag = 1;
    if (active_) mpi::check(MPI_Test(active_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }

 private:
  void begin_transfer() override {
    if (persistent_ != MPI_REQUEST_NULL) {
      mpi::check(MPI_Start(&persistent_), "MPI_Start");
      active_ = &persistent_;
      return;
    }
    mpi::check(MPI_Ialltoallv(this->send_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(), this->src_,
                              recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_, &request_),
               "MPI_Ialltoallv");
    active_ = &request_;
  }

  void end_transfer() override {
    if (active_) mpi::check(MPI_Wait(active_, MPI_STATUS_IGNORE), "MPI_Wait");
    active_ = nullptr;
  }

  MPI_Comm group_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  MPI_Request persistent_ = MPI_REQUEST_NULL, request_ = MPI_REQUEST_NULL;
  MPI_Request* active_ = nullptr;
};

}  // namespace

bool have_persistent_collectives() {
#if defined(VOLFFT_HAVE_MPI_ALLTOALLV_INIT) || defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
  return true;
#else
  return false;
#endif
}

std::string applies_alltoallv(const Setup& s) {
  const Transfer& t = s.transfer;
  return int_counts_problem("alltoallv", through_mpi(t.send, t.member), through_mpi(t.recv, t.member));
}

std::string applies_persistent(const Setup& s) {
  if (!have_persistent_collectives())
    return "volfft: engine 'persistent' needs MPI-4 persistent collectives (MPI_Alltoallv_init), which this "
           "MPI library does not provide; use engine 'alltoallv'";
  const Transfer& t = s.transfer;
  return int_counts_problem("persistent", through_mpi(t.send, t.member), through_mpi(t.recv, t.member));
}

std::unique_ptr<Exchange> make_alltoallv(const Setup& s) { return make_typed<AlltoallvExchange>(s, false); }
std::unique_ptr<Exchange> make_persistent(const Setup& s) { return make_typed<AlltoallvExchange>(s, true); }

}  // namespace volfft::exchange
