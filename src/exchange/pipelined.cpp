// Engine "pipelined" ([Hoefler2007]; [Beowulf2D]'s "fft2d-p"): the source stage's FFTs and
// the exchange after it, fused. The stage's array is cut into chunks of `planes` planes along an
// axis that neither its FFTs nor (preferably) the exchange touch; as soon as a chunk is
// transformed and packed, its exchange starts non-blocking (MPI_Ialltoallv, or Isend/Irecv in
// the pairwise order of schedule.hpp) while the next chunk is computed. Completed chunks are
// unpacked and, where the next stage's FFTs do not need the other chunks, transformed at once.
#include <algorithm>
#include <climits>

#include "core/engines.hpp"
#include "exchange/packer.hpp"

namespace volfft::exchange {

namespace {

bool has(const std::vector<int>& v, int a) { return std::find(v.begin(), v.end(), a) != v.end(); }

/// The chunks of a transfer whose source stage transforms `source_axes` and destination stage
/// `destination_axes`; `planes` <= 0 chooses about eight chunks.
Chunking plan_chunks(const Transfer& t, const std::vector<int>& source_axes,
                     const std::vector<int>& destination_axes, Index planes) {
  // Candidates: axes the source stage does not transform. Preferred: one the exchange leaves
  // alone on every member (same range before and after), so a chunk's arrival completes whole
  // lines for the next stage; then the longest. Decided from group-wide boxes only, so every
  // member cuts the same way.
  Chunking c;
  int best = -1;
  bool best_untouched = false;
  Index best_extent = 0;
  for (int a = 0; a < 3; ++a) {
    if (has(source_axes, a)) continue;
    bool untouched = true;
    Index extent = 0;
    for (std::size_t m = 0; m < t.member_from.size(); ++m) {
      const Box &f = t.member_from[m], &g = t.member_to[m];
      untouched = untouched && f.lo[a] == g.lo[a] && f.hi[a] == g.hi[a];
      extent = std::max(extent, f.extent(a));
    }
    const bool useful = extent > 1, best_useful = best_extent > 1;
    const bool better = best < 0 || (useful && !best_useful) ||
                        (useful == best_useful && untouched && !best_untouched) ||
                        (useful == best_useful && untouched == best_untouched && extent > best_extent);
    if (better) best = a, best_untouched = untouched, best_extent = extent;
  }
  c.axis = best < 0 ? 0 : best;
  const Index extent = std::max<Index>(best_extent, 1);
  c.planes = planes > 0 ? planes : std::max<Index>(1, (extent + 7) / 8);
  c.chunks = static_cast<int>((extent + c.planes - 1) / c.planes);
  c.destination_per_chunk = best_untouched && !has(destination_axes, c.axis);
  return c;
}

// Chunk k of the block `block` that member `sender` sends: the block's part in the sender's chunk
// k, the planes [lo + k * planes, lo + (k + 1) * planes) of its source array along the axis
// (where the source stage's compute runs chunk by chunk). Cut from the block's own first plane
// instead, a block that starts inside the array (slabs cut along the chunk axis) would go out
// with planes not yet transformed.
Box block_chunk(const Transfer& t, const Box& block, int sender, const Chunking& c, Index k) {
  if (c.planes <= 0) return block;
  return block.intersect(chunk_of(t.member_from[static_cast<std::size_t>(sender)], c.axis, k, c.planes));
}

// Counts of each chunk's blocks through MPI (own block excluded) and their sums.
struct ChunkCounts {
  std::vector<std::vector<Index>> send, recv;  // [chunk][member]
  Index most = 0;                              // largest per-chunk total, sent or received
};

ChunkCounts chunk_counts(const Transfer& t, const Chunking& c) {
  ChunkCounts n;
  n.send.assign(c.chunks, std::vector<Index>(t.size(), 0));
  n.recv = n.send;
  for (int k = 0; k < c.chunks; ++k) {
    Index s = 0, r = 0;
    for (int m = 0; m < t.size(); ++m) {
      if (m == t.member) continue;
      n.send[k][m] = t.count(block_chunk(t, t.send[m], t.member, c, k));
      n.recv[k][m] = t.count(block_chunk(t, t.recv[m], m, c, k));
      s += n.send[k][m], r += n.recv[k][m];
    }
    n.most = std::max({n.most, s, r});
  }
  return n;
}

Chunking chunking_of(const Setup& s) {
  Chunking c = plan_chunks(s.transfer, s.source_axes, s.destination_axes, s.options.planes);
  c.destination_per_chunk = c.destination_per_chunk && s.destination_is_last;
  return c;
}

template <class T>
class Pipelined final : public Exchange {
 public:
  explicit Pipelined(const Setup& setup)
      : packer_(setup.transfer, setup.options.threads), chunks_(chunking_of(setup)), group_(setup.group),
        src_(static_cast<T*>(setup.src)), send_(static_cast<T*>(setup.send)),
        recv_(static_cast<T*>(setup.receive)), max_in_flight_(std::max(1, setup.options.max_in_flight)),
        p2p_(setup.options.pipeline_p2p) {
    const Transfer& t = setup.transfer;
    const int p = t.size();
    const int K = chunks_.chunks;
    const ChunkCounts n = chunk_counts(t, chunks_);  // applies() checked that they fit an int
    send_counts_.assign(K, std::vector<int>(p, 0));
    recv_counts_ = send_displs_ = recv_displs_ = send_counts_;
    send_base_.assign(K, 0), recv_base_.assign(K, 0);
    Index sb = 0, rb = 0;
    for (int k = 0; k < K; ++k) {
      send_base_[k] = sb, recv_base_[k] = rb;
      Index s = 0, r = 0;
      for (int m = 0; m < p; ++m) {
        send_displs_[k][m] = static_cast<int>(s), recv_displs_[k][m] = static_cast<int>(r);
        send_counts_[k][m] = static_cast<int>(n.send[k][m]);
        recv_counts_[k][m] = static_cast<int>(n.recv[k][m]);
        s += n.send[k][m], r += n.recv[k][m];
      }
      sb += s, rb += r;
    }
    // Request slots per chunk, made now so that run() allocates nothing.
    flights_.resize(K);
    for (auto& f : flights_) f.requests.assign(p2p_ ? 2 * std::max(0, p - 1) : 1, MPI_REQUEST_NULL);
  }

  Chunking chunking() const override { return chunks_; }
  bool overlaps() const override { return true; }

  void run(void* dst_void, double scale, StageWork& work, ExchangeTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const auto& t = packer_.transfer();
    const auto s = static_cast<kernels::Scalar<T>>(scale);
    const int K = chunks_.chunks;
    int head = 0;  // chunks [head, k] are in flight; they complete in order
    double first_start = 0;
    for (int k = 0; k < K; ++k) {
      double t0 = now();
      work.source(k);
      double t1 = now();
      T* sbuf = send_ + send_base_[k];
      for (int m = 0; m < t.size(); ++m)
        if (m != t.member && send_counts_[k][m])
          packer_.pack_part(src_, block_chunk(t, t.send[m], t.member, chunks_, k), sbuf + send_displs_[k][m]);
      packer_.copy_own_part(src_, block_chunk(t, t.send[t.member], t.member, chunks_, k), dst, s);
      double t2 = now();
      // At most max_in_flight chunks in flight (Options::max_in_flight): with the bound reached,
      // the oldest completes before this one starts (this chunk's FFTs and packing above still
      // ran while it was in flight).
      while (k - head >= max_in_flight_) complete(flights_[head++], dst, work, s, times);
      double t3 = now();
      start(k, flights_[k]);
      double t4 = now();
      if (k == 0) first_start = t4;
      times.compute_source += t1 - t0, times.pack += (t2 - t1) + (t4 - t3);
      // Give MPI a chance to progress: complete, in order, the chunks that have arrived.
      while (head <= k && done(flights_[head])) complete(flights_[head++], dst, work, s, times);
    }
    while (head < K) complete(flights_[head++], dst, work, s, times);
    times.in_flight += now() - first_start;
  }

 private:
  struct Flight {
    int chunk = 0;
    int active = 0;  // requests in use
    std::vector<MPI_Request> requests;
  };

  void start(int k, Flight& f) {
    const auto& t = packer_.transfer();
    T* sbuf = send_ + send_base_[k];
    T* rbuf = recv_ + recv_base_[k];
    f.chunk = k;
    f.active = 0;
    if (!p2p_) {
      f.active = 1;
      // A chunk past this rank's last send has its send pointer at the receive area, which
      // follows the send area (see mpi::unaliased_send).
      mpi::check(MPI_Ialltoallv(mpi::unaliased_send(sbuf, rbuf, send_counts_[k]), send_counts_[k].data(),
                                send_displs_[k].data(), mpi::type_of<T>(), rbuf, recv_counts_[k].data(),
                                recv_displs_[k].data(), mpi::type_of<T>(), group_, &f.requests[0]),
                 "MPI_Ialltoallv");
      return;
    }
    const int p = t.size();
    for (int j = 1; j < p; ++j) {
      const int from = receive_partner(t.member, j, p);
      if (recv_counts_[k][from]) {
        mpi::check(MPI_Irecv(rbuf + recv_displs_[k][from], recv_counts_[k][from], mpi::type_of<T>(), from,
                                  k, group_, &f.requests[f.active++]),
                        "MPI_Irecv");
      }
    }
    for (int j = 1; j < p; ++j) {
      const int to = send_partner(t.member, j, p);
      if (send_counts_[k][to]) {
        mpi::check(MPI_Isend(sbuf + send_displs_[k][to], send_counts_[k][to], mpi::type_of<T>(), to, k,
                                  group_, &f.requests[f.active++]),
                        "MPI_Isend");
      }
    }
  }

  bool done(Flight& f) {
    if (f.active == 0) return true;
    int flag = 0;
    mpi::check(MPI_Testall(f.active, f.requests.data(), &flag, MPI_STATUSES_IGNORE),
                    "MPI_Testall");
    return flag != 0;
  }

  void complete(Flight& f, T* dst, StageWork& work, kernels::Scalar<T> s, ExchangeTimes& times) {
    const auto& t = packer_.transfer();
    const int k = f.chunk;
    double t0 = now();
    if (f.active > 0)
      mpi::check(MPI_Waitall(f.active, f.requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    f.active = 0;
    double t1 = now();
    const T* rbuf = recv_ + recv_base_[k];
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && recv_counts_[k][m])
        packer_.unpack_part(rbuf + recv_displs_[k][m], block_chunk(t, t.recv[m], m, chunks_, k), dst, s);
    double t2 = now();
    if (chunks_.destination_per_chunk) work.destination(k);
    double t3 = now();
    times.exchange += t1 - t0, times.unpack += t2 - t1, times.compute_destination += t3 - t2;
  }

  Packer<T> packer_;
  Chunking chunks_;
  MPI_Comm group_;
  T* src_;
  T* send_;
  T* recv_;
  int max_in_flight_;
  bool p2p_;
  std::vector<std::vector<int>> send_counts_, recv_counts_, send_displs_, recv_displs_;
  std::vector<Index> send_base_, recv_base_;
  std::vector<Flight> flights_;  // one per chunk
};

}  // namespace

std::string applies_pipelined(const Setup& s) {
  const std::string conflict =
      core::in_place_conflict(Engine::pipelined, s.options.in_place, s.source_is_first && s.destination_is_last);
  if (!conflict.empty()) return conflict;
  const Index most = chunk_counts(s.transfer, chunking_of(s)).most;
  if (most <= INT_MAX) return "";
  return "volfft: engine 'pipelined' would move " + std::to_string(most) +
         " elements in one chunk on this rank, more than MPI's int counts allow; use fewer planes";
}

std::unique_ptr<Exchange> make_pipelined(const Setup& s) { return make_typed<Pipelined>(s); }

}  // namespace volfft::exchange
