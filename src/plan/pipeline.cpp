#include "plan/pipeline.hpp"

#include <algorithm>
#include <climits>

#include "comm/packing.hpp"

namespace volfft::plan {

using core::Index;

namespace {

bool has(const std::vector<int>& v, int a) { return std::find(v.begin(), v.end(), a) != v.end(); }

}  // namespace

ChunkPlan plan_chunks(const comm::Transfer& t, const std::vector<int>& source_axes,
                      const std::vector<int>& destination_axes, Index planes) {
  // Candidates: axes the source stage does not transform. Preferred: one the exchange leaves
  // alone on every member (same range before and after), so a chunk's arrival completes whole
  // lines for the next stage; then the longest. Decided from group-wide boxes only, so every
  // member cuts the same way.
  ChunkPlan c;
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

namespace {

template <class T>
class Pipelined final : public PipelinedStep {
 public:
  Pipelined(const comm::Transfer& t, const ChunkPlan& c, MPI_Comm group,
            std::vector<std::vector<OpRun>> source_ops, std::vector<std::vector<OpRun>> destination_ops,
            void* src, void* send, void* recv, int max_in_flight, bool p2p)
      : packer_(t), chunks_(c), group_(group), source_ops_(std::move(source_ops)),
        destination_ops_(std::move(destination_ops)), src_(static_cast<T*>(src)),
        send_(static_cast<T*>(send)), recv_(static_cast<T*>(recv)),
        max_in_flight_(std::max(1, max_in_flight)), p2p_(p2p) {
    const int p = t.size();
    const int K = c.chunks;
    send_counts_.assign(K, std::vector<int>(p, 0));
    recv_counts_ = send_displs_ = recv_displs_ = send_counts_;
    send_base_.assign(K, 0), recv_base_.assign(K, 0);
    Index sb = 0, rb = 0;
    for (int k = 0; k < K; ++k) {
      send_base_[k] = sb, recv_base_[k] = rb;
      Index s = 0, r = 0;
      for (int m = 0; m < p; ++m) {
        if (m == t.member) continue;
        send_displs_[k][m] = static_cast<int>(s), recv_displs_[k][m] = static_cast<int>(r);
        send_counts_[k][m] = static_cast<int>(chunk_of(t.send[m], c.axis, k, c.planes).size());
        recv_counts_[k][m] = static_cast<int>(chunk_of(t.recv[m], c.axis, k, c.planes).size());
        s += send_counts_[k][m], r += recv_counts_[k][m];
      }
      if (s > INT_MAX || r > INT_MAX)
        throw std::runtime_error("volfft: a pipelined chunk exceeds MPI's int counts; use fewer planes");
      sb += s, rb += r;
    }
    // Request slots per chunk, made now so that run() allocates nothing.
    flights_.resize(K);
    for (auto& f : flights_) f.requests.assign(p2p_ ? 2 * std::max(0, p - 1) : 1, MPI_REQUEST_NULL);
  }

  void run(const void* input, void* dst_void, void* output, double scale, PipelineTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const auto& t = packer_.transfer();
    const auto s = static_cast<typename T::value_type>(scale);
    const int K = chunks_.chunks;
    int head = 0;  // chunks [head, k] are in flight; they complete in order
    double first_start = 0;
    for (int k = 0; k < K; ++k) {
      double t0 = comm::now();
      for (const OpRun& op : source_ops_[k]) op.run(input, src_, output);
      double t1 = comm::now();
      T* sbuf = send_ + send_base_[k];
      for (int m = 0; m < t.size(); ++m)
        if (m != t.member && send_counts_[k][m])
          packer_.pack_part(src_, chunk_of(t.send[m], chunks_.axis, k, chunks_.planes), sbuf + send_displs_[k][m]);
      packer_.copy_own_part(src_, chunk_of(t.send[t.member], chunks_.axis, k, chunks_.planes), dst, s);
      start(k, flights_[k]);
      double t2 = comm::now();
      if (k == 0) first_start = t2;
      times.fft_source += t1 - t0, times.pack += t2 - t1;
      // Keep the number of chunks in flight bounded, and give MPI a chance to progress.
      while (head <= k && (k + 1 - head > max_in_flight_ || done(flights_[head])))
        complete(flights_[head++], dst, output, s, times);
    }
    while (head < K) complete(flights_[head++], dst, output, s, times);
    times.in_flight += comm::now() - first_start;
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
      comm::check_mpi(MPI_Ialltoallv(sbuf, send_counts_[k].data(), send_displs_[k].data(), comm::mpi_type_of<T>(),
                                     rbuf, recv_counts_[k].data(), recv_displs_[k].data(), comm::mpi_type_of<T>(),
                                     group_, &f.requests[0]),
                      "MPI_Ialltoallv");
      return;
    }
    const int p = t.size();
    for (int j = 1; j < p; ++j) {
      const int from = (t.member - j + p) % p;
      if (recv_counts_[k][from]) {
        comm::check_mpi(MPI_Irecv(rbuf + recv_displs_[k][from], recv_counts_[k][from], comm::mpi_type_of<T>(), from,
                                  k, group_, &f.requests[f.active++]),
                        "MPI_Irecv");
      }
    }
    for (int j = 1; j < p; ++j) {
      const int to = (t.member + j) % p;
      if (send_counts_[k][to]) {
        comm::check_mpi(MPI_Isend(sbuf + send_displs_[k][to], send_counts_[k][to], comm::mpi_type_of<T>(), to, k,
                                  group_, &f.requests[f.active++]),
                        "MPI_Isend");
      }
    }
  }

  bool done(Flight& f) {
    if (f.active == 0) return true;
    int flag = 0;
    comm::check_mpi(MPI_Testall(f.active, f.requests.data(), &flag, MPI_STATUSES_IGNORE),
                    "MPI_Testall");
    return flag != 0;
  }

  void complete(Flight& f, T* dst, void* output, typename T::value_type s, PipelineTimes& times) {
    const auto& t = packer_.transfer();
    const int k = f.chunk;
    double t0 = comm::now();
    if (f.active > 0)
      comm::check_mpi(MPI_Waitall(f.active, f.requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    f.active = 0;
    double t1 = comm::now();
    const T* rbuf = recv_ + recv_base_[k];
    for (int m = 0; m < t.size(); ++m)
      if (m != t.member && recv_counts_[k][m])
        packer_.unpack_part(rbuf + recv_displs_[k][m], chunk_of(t.recv[m], chunks_.axis, k, chunks_.planes), dst, s);
    double t2 = comm::now();
    if (!destination_ops_.empty())
      for (const OpRun& op : destination_ops_[k]) op.run(nullptr, dst, output);
    double t3 = comm::now();
    times.wait += t1 - t0, times.unpack += t2 - t1, times.fft_destination += t3 - t2;
  }

  comm::Packer<T> packer_;
  ChunkPlan chunks_;
  MPI_Comm group_;
  std::vector<std::vector<OpRun>> source_ops_, destination_ops_;
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

std::unique_ptr<PipelinedStep> make_pipelined_step(
    const comm::Transfer& t, const ChunkPlan& chunks, MPI_Comm group, Precision precision,
    std::vector<std::vector<OpRun>> source_ops, std::vector<std::vector<OpRun>> destination_ops,
    void* src, void* send, void* recv, int max_in_flight, bool p2p) {
  if (precision == Precision::float64)
    return std::make_unique<Pipelined<std::complex<double>>>(t, chunks, group, std::move(source_ops),
                                                             std::move(destination_ops), src, send, recv,
                                                             max_in_flight, p2p);
  return std::make_unique<Pipelined<std::complex<float>>>(t, chunks, group, std::move(source_ops),
                                                          std::move(destination_ops), src, send, recv,
                                                          max_in_flight, p2p);
}

}  // namespace volfft::plan
