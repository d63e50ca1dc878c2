// Engines "alltoallv" (pack exact blocks, MPI_Alltoallv, unpack; [Eleftheriou2005]) and
// "persistent" (the same with an MPI-4 persistent MPI_Alltoallv_init request made once per
// plan, so nothing is set up per call). Both have a split-phase form (MPI_Ialltoallv / MPI_Start).
//
// Large arrays: MPI_Alltoallv's displacements are ints, so a rank's packed blocks could not pass
// 2^31 elements. Past that (displacement_limit()), each member's block is described by a
// datatype that carries its byte offset as an MPI_Aint, and the same exchange goes through
// MPI_Alltoallw / MPI_Ialltoallw / MPI_Alltoallw_init (the "wide" form): the same messages,
// only their addresses are given differently. MPI-4's _c (large count) functions would do the
// same, but MPI-3 libraries (Open MPI 4) lack them; this works with every MPI-3 library.
#include <algorithm>
#include <atomic>
#include <climits>
#include <complex>

#include "exchange/packer.hpp"
#if defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT) || defined(VOLFFT_HAVE_MPIX_ALLTOALLW_INIT)
#include <mpi-ext.h>
#endif

namespace volfft::exchange {
namespace {

std::atomic<Index> limit{INT_MAX};

// Block `count` elements at `offset` elements from the buffer's start, as one datatype.
MPI_Datatype placed_block(MPI_Datatype element, Index count, Index offset, std::size_t element_bytes) {
  MPI_Datatype run, placed;
  mpi::check(MPI_Type_contiguous(static_cast<int>(count), element, &run), "MPI_Type_contiguous");
  const MPI_Aint displacement = static_cast<MPI_Aint>(offset) * static_cast<MPI_Aint>(element_bytes);
  const int code = MPI_Type_create_hindexed_block(1, 1, &displacement, run, &placed);
  MPI_Type_free(&run);
  mpi::check(code, "MPI_Type_create_hindexed_block");
  mpi::check(MPI_Type_commit(&placed), "MPI_Type_commit");
  return placed;
}

bool have_persistent_wide() {
#if defined(VOLFFT_HAVE_MPI_ALLTOALLW_INIT) || defined(VOLFFT_HAVE_MPIX_ALLTOALLW_INIT)
  return true;
#else
  return false;
#endif
}

// Counts through MPI per member: every block but this rank's own, which is copied directly.
std::vector<Index> through_mpi(const Transfer& t, const std::vector<Box>& blocks) {
  std::vector<Index> counts(blocks.size(), 0);
  for (std::size_t m = 0; m < blocks.size(); ++m)
    if (static_cast<int>(m) != t.member) counts[m] = t.count(blocks[m]);
  return counts;
}

template <class T>
class AlltoallvExchange final : public PackingExchange<T> {
 public:
  AlltoallvExchange(const Setup& setup, bool persistent) : PackingExchange<T>(setup), group_(setup.group) {
    const Transfer& t = setup.transfer;
    const auto sends = through_mpi(t, t.send), receives = through_mpi(t, t.recv);
    const int p = t.size();
    send_counts_.assign(p, 0), send_displs_.assign(p, 0);
    recv_counts_.assign(p, 0), recv_displs_.assign(p, 0);
    Index s = 0, r = 0;  // each count fits an int (the blueprint checked the largest block)
    for (int m = 0; m < p; ++m) {
      this->send_offsets_.push_back(s), this->receive_offsets_.push_back(r);
      send_counts_[m] = static_cast<int>(sends[m]), recv_counts_[m] = static_cast<int>(receives[m]);
      if (sends[m]) this->send_members_.push_back(m);
      if (receives[m]) this->receive_members_.push_back(m);
      s += sends[m], r += receives[m];
    }
    // A rank without data has every area at one address (see mpi::unaliased_send).
    from_ = mpi::unaliased_send(this->send_, this->src_, send_counts_);
    // One collective for the whole group: wide on every member when it is on any.
    int mine = wide(sends, receives) ? 1 : 0, any = 0;
    mpi::check(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, group_), "MPI_Allreduce");
    wide_ = any != 0;
    if (wide_) {
      // Counts of 1 block type each at displacement 0: the offsets live in the types.
      send_types_.assign(p, mpi::type_of<T>()), recv_types_.assign(p, mpi::type_of<T>());
      for (int m = 0; m < p; ++m) {
        if (sends[m]) send_types_[m] = placed_block(mpi::type_of<T>(), sends[m], this->send_offsets_[m], sizeof(T));
        if (receives[m])
          recv_types_[m] = placed_block(mpi::type_of<T>(), receives[m], this->receive_offsets_[m], sizeof(T));
        send_counts_[m] = sends[m] ? 1 : 0, recv_counts_[m] = receives[m] ? 1 : 0;
      }
    } else {
      for (int m = 0; m < p; ++m)
        send_displs_[m] = static_cast<int>(this->send_offsets_[m]),
        recv_displs_[m] = static_cast<int>(this->receive_offsets_[m]);
    }
    if (persistent && wide_) {
#if defined(VOLFFT_HAVE_MPI_ALLTOALLW_INIT)
      mpi::check(MPI_Alltoallw_init(from_, send_counts_.data(), send_displs_.data(), send_types_.data(),
                                    this->src_, recv_counts_.data(), recv_displs_.data(), recv_types_.data(), group_,
                                    MPI_INFO_NULL, &persistent_),
                 "MPI_Alltoallw_init");
#elif defined(VOLFFT_HAVE_MPIX_ALLTOALLW_INIT)
      mpi::check(MPIX_Alltoallw_init(from_, send_counts_.data(), send_displs_.data(), send_types_.data(),
                                     this->src_, recv_counts_.data(), recv_displs_.data(), recv_types_.data(), group_,
                                     MPI_INFO_NULL, &persistent_),
                 "MPIX_Alltoallw_init");
#endif
    } else if (persistent) {
      // The source array is the receive area (see Setup); its address is fixed per plan.
#if defined(VOLFFT_HAVE_MPI_ALLTOALLV_INIT)
      mpi::check(MPI_Alltoallv_init(from_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(),
                                    this->src_, recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_,
                                    MPI_INFO_NULL, &persistent_),
                 "MPI_Alltoallv_init");
#elif defined(VOLFFT_HAVE_MPIX_ALLTOALLV_INIT)
      mpi::check(MPIX_Alltoallv_init(from_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(),
                                     this->src_, recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_,
                                     MPI_INFO_NULL, &persistent_),
                 "MPIX_Alltoallv_init");
#endif
    }
  }

  ~AlltoallvExchange() override {
    if (mpi::finalized()) return;
    if (persistent_ != MPI_REQUEST_NULL) MPI_Request_free(&persistent_);
    for (auto* types : {&send_types_, &recv_types_})
      for (MPI_Datatype& x : *types)
        if (x != mpi::type_of<T>()) MPI_Type_free(&x);
  }

  /// Whether this rank's blocks need the wide form (see the file's comment).
  static bool wide(const std::vector<Index>& sends, const std::vector<Index>& receives) {
    Index s = 0, r = 0;
    for (Index c : sends) s += c;
    for (Index c : receives) r += c;
    return std::max(s, r) > displacement_limit();
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
    if (wide_)
      mpi::check(MPI_Ialltoallw(from_, send_counts_.data(), send_displs_.data(), send_types_.data(), this->src_,
                                recv_counts_.data(), recv_displs_.data(), recv_types_.data(), group_, &request_),
                 "MPI_Ialltoallw");
    else
      mpi::check(MPI_Ialltoallv(from_, send_counts_.data(), send_displs_.data(), mpi::type_of<T>(),
                                this->src_, recv_counts_.data(), recv_displs_.data(), mpi::type_of<T>(), group_,
                                &request_),
                 "MPI_Ialltoallv");
    active_ = &request_;
  }

  void end_transfer() override {
    if (active_) mpi::check(MPI_Wait(active_, MPI_STATUS_IGNORE), "MPI_Wait");
    active_ = nullptr;
  }

  MPI_Comm group_;
  const void* from_ = nullptr;  // the send area, as given to MPI
  bool wide_ = false;  // blocks given as placed datatypes (MPI_Alltoallw form)
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<MPI_Datatype> send_types_, recv_types_;  // wide form only
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

void set_displacement_limit(Index elements) { limit = elements; }
Index displacement_limit() { return limit; }

// Every block fits an int count (the blueprint checked the largest), and totals past int
// displacements take the wide form: it always applies.
std::string applies_alltoallv(const Setup&) { return ""; }

std::string applies_persistent(const Setup& s) {
  if (!have_persistent_collectives())
    return "volfft: engine 'persistent' needs MPI-4 persistent collectives (MPI_Alltoallv_init), which this "
           "MPI library does not provide; use engine 'alltoallv'";
  const Transfer& t = s.transfer;
  if (!have_persistent_wide() &&
      AlltoallvExchange<std::complex<double>>::wide(through_mpi(t, t.send), through_mpi(t, t.recv)))
    return "volfft: engine 'persistent' would move more than " + std::to_string(displacement_limit()) +
           " elements on this rank, which needs MPI_Alltoallw_init, which this MPI library does not provide; "
           "use engine 'alltoallv'";
  return "";
}

std::unique_ptr<Exchange> make_alltoallv(const Setup& s) { return make_typed<AlltoallvExchange>(s, false); }
std::unique_ptr<Exchange> make_persistent(const Setup& s) { return make_typed<AlltoallvExchange>(s, true); }

}  // namespace volfft::exchange
