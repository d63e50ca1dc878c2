// Engine "alltoallw": MPI derived datatypes describe each block in place on both sides, and
// MPI_Alltoallw moves them; volfft packs nothing ([Beowulf2D]'s "fft2d-i" with datatypes).
// The receive types walk their boxes in the sender's memory order, so MPI performs the
// transpose while it copies.
#include "exchange/packer.hpp"

namespace volfft::exchange {
namespace {

// A sub-box of a strided array as a datatype whose elements come in `traversal` order, with its
// byte offset folded in (Alltoallw's displacements are ints; large arrays would overflow them).
// The fields of a batched plan are the slowest dimension of the traversal (the message order).
MPI_Datatype box_type(MPI_Datatype element, MPI_Aint element_bytes, const Box& sub, const Box& box,
                      const std::array<Index, 3>& strides, const core::Order& traversal,
                      const core::FieldLayout& fields) {
  MPI_Datatype t = element;
  auto wrap = [&](Index count, Index stride) {
    MPI_Datatype next;
    mpi::check(MPI_Type_create_hvector(static_cast<int>(count), 1, static_cast<MPI_Aint>(stride) * element_bytes, t,
                                       &next),
               "MPI_Type_create_hvector");
    if (t != element) MPI_Type_free(&t);
    t = next;
  };
  for (int k = 2; k >= 0; --k) wrap(sub.extent(traversal[k]), strides[traversal[k]]);
  if (fields.count > 1) wrap(fields.count, fields.stride);
  const MPI_Aint displacement = static_cast<MPI_Aint>(core::offset_of(sub, box, strides)) * element_bytes;
  MPI_Datatype placed;
  mpi::check(MPI_Type_create_hindexed_block(1, 1, &displacement, t, &placed), "MPI_Type_create_hindexed_block");
  MPI_Type_free(&t);
  mpi::check(MPI_Type_commit(&placed), "MPI_Type_commit");
  return placed;
}

template <class T>
class AlltoallwExchange final : public Exchange {
 public:
  explicit AlltoallwExchange(const Setup& s) : group_(s.group), src_(s.src) {
    const Transfer& t = s.transfer;
    const int p = t.size();
    const auto from_strides = core::strides_of(t.from_box, t.from_order, t.from_fields.unit);
    const auto to_strides = core::strides_of(t.to_box, t.to_order, t.to_fields.unit);
    const MPI_Aint bytes = sizeof(T);
    counts_send_.assign(p, 0), counts_recv_.assign(p, 0), displs_.assign(p, 0);
    send_types_.assign(p, MPI_BYTE), recv_types_.assign(p, MPI_BYTE);
    for (int m = 0; m < p; ++m) {
      if (!t.send[m].empty()) {
        send_types_[m] =
            box_type(mpi::type_of<T>(), bytes, t.send[m], t.from_box, from_strides, t.from_order, t.from_fields);
        counts_send_[m] = 1;
      }
      if (!t.recv[m].empty()) {
        recv_types_[m] =
            box_type(mpi::type_of<T>(), bytes, t.recv[m], t.to_box, to_strides, t.from_order, t.to_fields);
        counts_recv_[m] = 1;
      }
    }
  }

  ~AlltoallwExchange() override {
    if (mpi::finalized()) return;
    for (auto& x : send_types_)
      if (x != MPI_BYTE) MPI_Type_free(&x);
    for (auto& x : recv_types_)
      if (x != MPI_BYTE) MPI_Type_free(&x);
  }

  bool scales() const override { return false; }
  bool reads_any_source() const override { return true; }
  void read_from(const void* src) override { src_ = src; }

  void run(void* dst, double, StageWork& work, ExchangeTimes& times) override {
    compute_whole(work, times);
    double t0 = now();
    mpi::check(MPI_Alltoallw(mpi::unaliased_send(src_, dst, counts_send_), counts_send_.data(), displs_.data(),
                             send_types_.data(), dst, counts_recv_.data(), displs_.data(), recv_types_.data(), group_),
               "MPI_Alltoallw");
    times.exchange += now() - t0;
  }

 private:
  MPI_Comm group_;
  const void* src_;
  std::vector<int> counts_send_, counts_recv_, displs_;
  std::vector<MPI_Datatype> send_types_, recv_types_;
};

}  // namespace

// One block per member as one datatype: a block's extents are ints (the blueprint checked the
// largest block against INT_MAX), so it always applies.
std::string applies_alltoallw(const Setup&) { return ""; }

std::unique_ptr<Exchange> make_alltoallw(const Setup& s) { return make_typed<AlltoallwExchange>(s); }

}  // namespace volfft::exchange
