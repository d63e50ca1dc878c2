// Engine "alltoall": pack into equal blocks padded to the largest block of the group,
// MPI_Alltoall, unpack ([Jagode2008]; FFTW-MPI's strategy, [Beowulf2D]'s "fftw").
#include "exchange/packer.hpp"

namespace volfft::exchange {
namespace {

template <class T>
class AlltoallExchange final : public PackingExchange<T> {
 public:
  explicit AlltoallExchange(const Setup& s)
      : PackingExchange<T>(s), group_(s.group),
        block_(static_cast<int>(s.transfer.max_block * s.transfer.from_fields.count)) {
    // Block m of member m lies at m * block in the send area and in the source array.
    const Transfer& t = s.transfer;
    for (int m = 0; m < t.size(); ++m) {
      if (m != t.member) this->send_members_.push_back(m), this->receive_members_.push_back(m);
      this->send_offsets_.push_back(static_cast<Index>(m) * block_);
    }
    this->receive_offsets_ = this->send_offsets_;
  }

 private:
  void begin_transfer() override {
    if (block_ > 0)
      mpi::check(MPI_Alltoall(this->send_, block_, mpi::type_of<T>(), this->src_, block_, mpi::type_of<T>(), group_),
                 "MPI_Alltoall");
  }

  MPI_Comm group_;
  int block_;
};

}  // namespace

// The padded blocks of all members lie one after another in the send area and the source array
// (the blueprint sized both for it). MPI_Alltoall takes one int count per block (the blueprint
// checked the largest block against INT_MAX) and finds block m at m * block itself, in address
// arithmetic, so the members' blocks together may pass 2^31 elements: it always applies.
std::string applies_alltoall(const Setup&) { return ""; }

std::unique_ptr<Exchange> make_alltoall(const Setup& s) { return make_typed<AlltoallExchange>(s); }

}  // namespace volfft::exchange
