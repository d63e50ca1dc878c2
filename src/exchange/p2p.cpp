// Engine "p2p": pack, persistent MPI_Recv_init/MPI_Send_init pairs set up once per plan, unpack
// ([Beowulf2D]'s "fft2d-i" without datatypes), partners met in the pairwise order of
// schedule.hpp.
#include "exchange/packer.hpp"
#include "exchange/schedule.hpp"

namespace volfft::exchange {
namespace {

template <class T>
class P2pExchange final : public Exchange {
 public:
  explicit P2pExchange(const Setup& setup)
      : packer_(setup.transfer, setup.options.threads), src_(static_cast<T*>(setup.src)),
        send_(static_cast<T*>(setup.send)) {
    const Transfer& t = setup.transfer;
    const int p = t.size();
    Index s = 0, r = 0;
    send_offsets_.assign(p, 0), recv_offsets_.assign(p, 0);
    for (int k = 1; k < p; ++k) {
      const int to = send_partner(t.member, k, p), from = receive_partner(t.member, k, p);
      send_offsets_[to] = s, recv_offsets_[from] = r;
      const Index sc = t.send[to].size(), rc = t.recv[from].size();
      if (sc) {
        sends_.emplace_back();
        mpi::check(MPI_Send_init(send_ + s, static_cast<int>(sc), mpi::type_of<T>(), to, 0, setup.group,
                                 &sends_.back()),
                   "MPI_Send_init");
      }
      if (rc) {
        receives_.emplace_back();
        mpi::check(MPI_Recv_init(src_ + r, static_cast<int>(rc), mpi::type_of<T>(), from, 0, setup.group,
                                 &receives_.back()),
                   "MPI_Recv_init");
      }
      s += sc, r += rc;
    }
  }

  ~P2pExchange() override {
    for (auto& q : sends_) MPI_Request_free(&q);
    for (auto& q : receives_) MPI_Request_free(&q);
  }

  void run(void* dst_void, double scale, StageWork& work, ExchangeTimes& times) override {
    compute_whole(work, times);
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<typename T::value_type>(scale);
    double t0 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && t.send[m].size()) packer_.pack(src_, m, send_ + send_offsets_[m]);
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    // Receives land in the stage array, which is dead once packed.
    start_all(receives_);
    start_all(sends_);
    wait_all(receives_);
    wait_all(sends_);
    double t2 = now();
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && t.recv[m].size()) packer_.unpack(src_ + recv_offsets_[m], m, dst, s);
    double t3 = now();
    times.pack += t1 - t0, times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  static void start_all(std::vector<MPI_Request>& r) {
    if (!r.empty()) mpi::check(MPI_Startall(static_cast<int>(r.size()), r.data()), "MPI_Startall");
  }
  static void wait_all(std::vector<MPI_Request>& r) {
    if (!r.empty())
      mpi::check(MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  Packer<T> packer_;
  T* src_;
  T* send_;
  std::vector<Index> send_offsets_, recv_offsets_;
  std::vector<MPI_Request> sends_, receives_;
};

}  // namespace

// One message per partner, each at most the blueprint's largest block (checked against INT_MAX).
std::string applies_p2p(const Setup&) { return ""; }

std::unique_ptr<Exchange> make_p2p(const Setup& s) { return make_typed<P2pExchange>(s); }

}  // namespace volfft::exchange
