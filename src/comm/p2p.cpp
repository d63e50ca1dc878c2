// Engine "p2p": pack, persistent MPI_Recv_init/MPI_Send_init pairs set up once per plan, unpack
// (seed 004's "fft2d-i" without datatypes). Sends go round-robin from the next member on, so
// that not every rank sends to member 0 first.
#include "comm/packing.hpp"

namespace volfft::comm {
namespace {

template <class T>
class P2pExchange final : public Exchange {
 public:
  P2pExchange(const Transfer& t, MPI_Comm group, void* src, void* send)
      : packer_(t), src_(static_cast<T*>(src)), send_(static_cast<T*>(send)) {
    const int p = t.size();
    core::Index s = 0, r = 0;
    send_offsets_.assign(p, 0), recv_offsets_.assign(p, 0);
    for (int k = 1; k < p; ++k) {
      const int m = (t.member + k) % p;       // destination, round robin
      const int from = (t.member - k + p) % p;  // matching source
      send_offsets_[m] = s, recv_offsets_[from] = r;
      const core::Index sc = t.send[m].size(), rc = t.recv[from].size();
      if (sc) {
        requests_.emplace_back();
        check_mpi(MPI_Send_init(send_ + s, static_cast<int>(sc), mpi_type_of<T>(), m, 0, group,
                                &requests_.back()),
                  "MPI_Send_init");
      }
      if (rc) {
        receives_.emplace_back();
        check_mpi(MPI_Recv_init(src_ + r, static_cast<int>(rc), mpi_type_of<T>(), from, 0, group,
                                &receives_.back()),
                  "MPI_Recv_init");
      }
      s += sc, r += rc;
    }
  }

  ~P2pExchange() override {
    for (auto& q : requests_) MPI_Request_free(&q);
    for (auto& q : receives_) MPI_Request_free(&q);
  }

  void run(void* dst_void, double scale, ExchangeTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<typename T::value_type>(scale);
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && t.send[m].size()) packer_.pack(src_, m, send_ + send_offsets_[m]);
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    // Receives land in the stage array, which is dead once packed.
    if (!receives_.empty())
      check_mpi(MPI_Startall(static_cast<int>(receives_.size()), receives_.data()), "MPI_Startall");
    if (!requests_.empty())
      check_mpi(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), "MPI_Startall");
    if (!receives_.empty())
      check_mpi(MPI_Waitall(static_cast<int>(receives_.size()), receives_.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall");
    if (!requests_.empty())
      check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall");
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && t.recv[m].size()) packer_.unpack(src_ + recv_offsets_[m], m, dst, s);
    double t3 = now();
    times.pack += t1 - t0, times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  Packer<T> packer_;
  T* src_;
  T* send_;
  std::vector<core::Index> send_offsets_, recv_offsets_;
  std::vector<MPI_Request> requests_, receives_;
};

}  // namespace

template <class T>
std::unique_ptr<Exchange> make_p2p(const Transfer& t, MPI_Comm g, void* src, void* send) {
  return std::make_unique<P2pExchange<T>>(t, g, src, send);
}
template std::unique_ptr<Exchange> make_p2p<std::complex<double>>(const Transfer&, MPI_Comm, void*, void*);
template std::unique_ptr<Exchange> make_p2p<std::complex<float>>(const Transfer&, MPI_Comm, void*, void*);

}  // namespace volfft::comm
