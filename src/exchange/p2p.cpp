// Engine "p2p": pack, persistent MPI_Recv_init/MPI_Send_init pairs set up once per plan, unpack
// ([Beowulf2D]'s "fft2d-i" without datatypes), partners met in the pairwise order of
// schedule.hpp. Split phase: the requests are started in start() and completed in finish().
#include "exchange/packer.hpp"

namespace volfft::exchange {
namespace {

template <class T>
class P2pExchange final : public PackingExchange<T> {
 public:
  explicit P2pExchange(const Setup& s) : PackingExchange<T>(s) {
    const PairwiseBlocks b = pairwise_blocks(s.transfer);
    this->send_members_ = b.sends, this->receive_members_ = b.receives;
    this->send_offsets_ = b.send_offsets, this->receive_offsets_ = b.receive_offsets;
    // Receives land in the source array, which is dead once packed.
    init_pairs(s.transfer, b, this->send_, this->src_, s.group, sends_, receives_);
  }

  ~P2pExchange() override {
    if (mpi::finalized()) return;
    for (auto& q : sends_) MPI_Request_free(&q);
    for (auto& q : receives_) MPI_Request_free(&q);
  }

  bool test() override { return mpi::test_all(receives_) && mpi::test_all(sends_); }

 private:
  void begin_transfer() override {
    mpi::start_all(receives_);
    mpi::start_all(sends_);
  }
  void end_transfer() override {
    mpi::wait_all(receives_);
    mpi::wait_all(sends_);
  }

  std::vector<MPI_Request> sends_, receives_;
};

}  // namespace

// One message per partner, each at most the blueprint's largest block (checked against INT_MAX).
std::string applies_p2p(const Setup&) { return ""; }

std::unique_ptr<Exchange> make_p2p(const Setup& s) { return make_typed<P2pExchange>(s); }

}  // namespace volfft::exchange
