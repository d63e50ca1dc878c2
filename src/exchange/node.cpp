// Engine "node" (two-level exchange). Members of the group that share a node read each other's
// blocks straight out of the partner's stage array, which lies in node shared memory (the plan
// allocates its buffers there, see mpi/shared_memory.hpp): one strided copy does the
// pack, the transfer and the unpack. Members on other nodes exchange packed blocks with
// persistent MPI_Send_init/MPI_Recv_init pairs, started before the shared-memory copies so that
// both proceed together.
//
// Synchronisation: loads from a partner's array happen between two "memory fence;
// MPI_Barrier(node); memory fence" steps (what MPI_Win_sync + MPI_Barrier do for MPI-3 windows).
// The first makes every partner's stores to its source array (its FFT stage) visible; the second
// keeps every partner from overwriting its array (next stage, next call, MPI receives) while
// another rank still reads it. Because of the second fence, this engine may receive MPI blocks
// into its source array only after it (or into spare room of the send area before it).
//
// When a source array is not in shared memory (a user-supplied workspace, or buffers not made
// by a plan), the members of that node fall back to a shared staging copy of their own and copy
// their source array into it first: correct, one copy more.
//
// Transform on arrival: when the whole group shares the node and the next stage is the
// direction's last, the copies and that stage's FFTs go chunk by chunk (planes of the
// destination array's slowest axis, which the stage does not transform): each chunk is
// transformed right after its copies, while it is still in cache, instead of one pass that
// writes the whole destination and another that reads it back for the FFTs (arrival_chunks).
//
// Push: when the whole group shares the node and every member's destination array is one of
// its plan buffers in the shared workspace (not the user's output), each rank writes its blocks
// straight into the members' destination arrays instead, chunk by chunk of its own source
// stage, right after that chunk's FFTs (push_chunks): the FFT results are copied out while in
// cache, not written to memory and read back after a fence. A first stage's chunks (read from
// the caller's input) are all computed into the first chunk's place, which stays in cache.
// Fences: one before the source compute (every destination array is free: its owner has
// reached this exchange, so is done with its earlier stages and calls), one after the writes
// (every destination is complete).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "exchange/packer.hpp"
#include "mpi/shared_memory.hpp"

namespace volfft::exchange {
namespace {

using core::Index;

template <class T>
class NodeExchange final : public Exchange {
 public:
  explicit NodeExchange(const Setup& setup)
      : packer_(setup.transfer, setup.options.threads), src_(static_cast<T*>(setup.src)),
        send_(static_cast<T*>(setup.send)) {
    const Transfer& t = setup.transfer;
    const MPI_Comm group = setup.group;
    node_ = mpi::split_by_node(group, setup.options.ranks_per_node);
    int node_rank = 0;
    MPI_Comm_size(node_, &node_size_);
    MPI_Comm_rank(node_, &node_rank);

    // Who shares this node, and does every one of them hold its source array (and its
    // destination array, when that is a plan buffer) in the same shared workspace? Fields:
    // member, then for the source and the destination: in workspace, workspace id, rank in it,
    // byte offset.
    constexpr int F = 9;
    mpi::SharedLocation here, there;
    const bool in_shared = node_size_ > 1 && src_ != nullptr && mpi::find_shared(src_, here);
    const bool to_shared = node_size_ > 1 && setup.destination != nullptr && mpi::find_shared(setup.destination, there);
    const long long mine[F] = {t.member,
                               in_shared ? 1 : 0,
                               in_shared ? here.workspace->id() : -1,
                               in_shared ? here.workspace->node_rank() : 0,
                               static_cast<long long>(here.offset),
                               to_shared ? 1 : 0,
                               to_shared ? there.workspace->id() : -1,
                               to_shared ? there.workspace->node_rank() : 0,
                               static_cast<long long>(there.offset)};
    std::vector<long long> all(static_cast<std::size_t>(F) * node_size_);
    mpi::check(MPI_Allgather(mine, F, MPI_LONG_LONG, all.data(), F, MPI_LONG_LONG, node_),
              "MPI_Allgather");
    bool direct = node_size_ > 1;
    for (int q = 0; q < node_size_; ++q)
      direct = direct && all[q * F + 1] == 1 && all[q * F + 2] == all[2];
    std::vector<bool> on_node(t.size(), false);
    for (int q = 0; q < node_size_; ++q) on_node[all[q * F]] = true;
    // Every member of the group takes part in making the staging copies (collective and
    // agreed over the group: a node whose /dev/shm is full fails the whole group alike); those
    // that read in place, or have no partners, ask for 0 bytes.
    const bool staged = node_size_ > 1 && !direct;
    staging_ = std::make_unique<mpi::SharedWorkspace>(
        group, setup.options.ranks_per_node, staged ? sizeof(T) * static_cast<std::size_t>(t.count(t.from_box)) : 0);
    const mpi::SharedWorkspace* shared = direct ? here.workspace : staging_.get();
    if (node_size_ > 1) {
      // Where each partner's block for this rank starts, and that partner's strides.
      for (int q = 0; q < node_size_; ++q) {
        const int m = static_cast<int>(all[q * F]);
        if (q == node_rank || t.recv[m].size() == 0) continue;
        const int segment = direct ? static_cast<int>(all[q * F + 3]) : q;
        const T* array = reinterpret_cast<const T*>(static_cast<const unsigned char*>(shared->segment(segment)) +
                                                    (direct ? all[q * F + 4] : 0));
        Peer p;
        p.member = m;
        // The partner's array (a buffer), its fields laid out as this rank's (core::field_layout).
        const bool interleaved = t.from_fields.unit > 1;
        p.array = array;
        p.storage = t.member_storage[m];
        p.strides = core::strides_of(t.member_storage[m], t.from_order, t.from_fields.unit);
        p.field_stride = interleaved ? 1 : t.member_storage[m].size();
        peers_.push_back(p);
      }
    }
    set_up_remote(t, group, direct, on_node);
    // Push where every member's destination is in one shared workspace (decided from the
    // gathered fields alone, so every member of the node takes the same protocol); the whole
    // group on the node, no padding (its truncating steps write the user's output).
    bool push = node_size_ > 1 && node_size_ == t.size() && setup.options.spectral_shape.empty();
    for (int q = 0; q < node_size_; ++q) push = push && all[q * F + 5] == 1 && all[q * F + 6] == all[6];
    if (push) {
      for (int q = 0; q < node_size_; ++q) {
        const int m = static_cast<int>(all[q * F]);
        if (m == t.member || t.send[m].empty()) continue;
        Target target;
        target.member = m;
        unsigned char* segment = static_cast<unsigned char*>(there.workspace->segment(static_cast<int>(all[q * F + 7])));
        target.array = reinterpret_cast<T*>(segment + all[q * F + 8]);
        target.storage = t.member_to_storage[m];
        target.strides = core::strides_of(target.storage, t.to_order, t.to_fields.unit);
        target.field_stride = t.to_fields.unit > 1 ? 1 : target.storage.size();
        targets_.push_back(target);
      }
      push_ = true;
      chunks_ = push_chunks(setup);
    } else {
      chunks_ = arrival_chunks(setup);
    }
  }

  Chunking chunking() const override { return chunks_; }

  ~NodeExchange() override {
    if (mpi::finalized()) return;
    for (auto& q : sends_) MPI_Request_free(&q);
    for (auto& q : receives_) MPI_Request_free(&q);
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

  void run(void* dst_void, double scale, StageWork& work, ExchangeTimes& times) override {
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<kernels::Scalar<T>>(scale);
    if (push_) {
      run_push(dst, s, work, times);
      return;
    }
    compute_whole(work, times);
    if (chunks_.destination_per_chunk) {
      run_chunked(dst, s, work, times);
      return;
    }
    double t0 = now();
    packer_.pack_blocks(src_, remote_.sends, remote_.send_offsets, send_);
    stage_source();
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    if (receive_early_) mpi::start_all(receives_);
    mpi::start_all(sends_);
    if (node_size_ > 1) {
      fence();  // partners' source arrays are complete
      for (const Peer& p : peers_) unpack_peer(p, t.recv[p.member], dst, s);
      fence();  // no partner reads this rank's arrays any more
    }
    if (!receive_early_) mpi::start_all(receives_);
    mpi::wait_all(receives_);
    mpi::wait_all(sends_);
    double t2 = now();
    packer_.unpack_blocks(receive_area_, remote_.receives, remote_.receive_offsets, dst, s);
    double t3 = now();
    // The shared-memory copies are the transfer: they count as exchange time.
    times.pack += t1 - t0, times.exchange += t2 - t1, times.unpack += t3 - t2;
  }

 private:
  struct Peer {
    int member = 0;
    const T* array = nullptr;  // the partner's source array (or its staging copy), mapped here
    Box storage;               // the box that array holds
    std::array<Index, 3> strides{};
    Index field_stride = 0;  // the partner's fields lie this far apart
  };

  // A member whose destination array this rank writes into (push).
  struct Target {
    int member = 0;
    T* array = nullptr;  // its destination array, mapped here
    Box storage;         // the box that array holds
    std::array<Index, 3> strides{};
    Index field_stride = 0;
  };

  // The fallback (see the top of the file): the source array into this rank's shared staging
  // copy, which the partners read instead.
  void stage_source() {
    if (staging_ && staging_->bytes() > 0)
      std::memcpy(staging_->data(), static_cast<const void*>(src_),
                  sizeof(T) * static_cast<std::size_t>(packer_.transfer().count(packer_.transfer().from_box)));
  }

  // Box b (part of the partner's block for this rank) from the partner's array into dst.
  void unpack_peer(const Peer& p, const Box& b, T* dst, kernels::Scalar<T> s) const {
    if (b.empty()) return;
    packer_.unpack_strided(p.array + core::offset_of(b, p.storage, p.strides), p.strides, p.field_stride, b, dst, s);
  }

  // Bytes a chunk should hold: about what a core's L2 cache keeps while a chunk is copied and
  // transformed in place (256 KiB per thread; chunks are only used without threads unless the
  // tests force them, see planes_of). No chunks for an array a few times that size,
  // which stays in cache anyway, nor where one plane is larger: measured at np 2 (c2c 256^3,
  // 1 MiB planes; r2c 256^3, 0.5 MiB), one-plane chunks gained nothing (c2c forward 91-95 ms
  // against 86-99 whole: the copies took 29-35 ms against 17-25, the last FFTs 13-14 against
  // 12-25), while at 128^3 (0.13-0.25 MiB planes) the forward's copies stayed as fast and its
  // last FFTs took 0.57 instead of 1.1 ms (r2c) and 1.2 instead of 1.6 ms (c2c).
  // VOLFFT_TEST_NODE_CHUNK_BYTES = B (> 0) sets B and drops both limits, so that the tests run
  // these paths on small arrays; users have no reason to set it.
  static Index chunk_bytes(int threads, bool& forced) {
    const char* env = std::getenv("VOLFFT_TEST_NODE_CHUNK_BYTES");
    const long long b = env ? std::atoll(env) : 0;
    forced = b > 0;
    return forced ? static_cast<Index>(b) : Index{256} * 1024 * std::max(1, threads);
  }

  // Chunks of planes of `box` (an array in memory order `order`, `count` fields) along its
  // slowest axis with more than one plane, unless its stage transforms that axis
  // (`transformed`) or it is `avoid`, the other array's fastest: a chunk would then read or
  // write a few elements of every cache line there, each line once per chunk (measured: the
  // slab backward's copies took 3x as long with one-plane chunks, and still 1.3x with chunks a
  // cache line thick, more than the FFTs gained). Within chunk_bytes' limits; else one chunk.
  static Chunking planes_of(const Box& box, const core::Order& order, Index count, const std::vector<int>& transformed,
                            int avoid, int threads) {
    if (box.empty()) return {};
    int axis = -1;
    for (int a : order)
      if (box.extent(a) > 1) {
        axis = a;
        break;
      }
    if (axis < 0 || axis == avoid || std::find(transformed.begin(), transformed.end(), axis) != transformed.end())
      return {};
    const Index extent = box.extent(axis);
    const Index plane = static_cast<Index>(sizeof(T)) * (box.size() / extent) * count;
    bool forced = false;
    const Index target = chunk_bytes(threads, forced);
    // Nor with threads: every chunk starts its own parallel regions (copies, FFTs), which was
    // not measured to pay (the 2-core machine here has no room for ranks x threads), and where
    // ranks x threads exceed the cores each region waits for descheduled threads.
    if (!forced && (threads > 1 || plane * extent < 4 * target || plane > target)) return {};
    Chunking c;
    c.axis = axis;
    c.planes = std::max<Index>(1, target / plane);
    c.chunks = static_cast<int>((extent + c.planes - 1) / c.planes);
    return c.chunks < 2 ? Chunking{} : c;
  }

  // Transform on arrival (see the top of the file): chunks of the destination array, when the
  // next stage is the direction's last (only that one is not read again by a following
  // exchange) and is not padded (its truncating steps write the output themselves), and the
  // whole group is on this node (blocks from other nodes arrive whole, through MPI). Else one
  // chunk: copy, then the plan runs the next stage on the whole array.
  Chunking arrival_chunks(const Setup& setup) const {
    const Transfer& t = setup.transfer;
    if (!setup.destination_is_last || node_size_ < 2 || node_size_ != t.size() || !setup.options.spectral_shape.empty())
      return {};
    Chunking c = planes_of(t.to_box, t.to_order, t.to_fields.count, setup.destination_axes, t.from_order[2],
                           setup.options.threads);
    c.destination_per_chunk = c.source_whole = c.chunks > 1;
    return c;
  }

  // Push (see the top of the file): chunks of this rank's source array, transformed one by one
  // and written out. Else one chunk: the whole source compute, then the writes. Each chunk is
  // computed into the place of the first (source_in_first) where the source stage is the
  // direction's first, so that its ops read the caller's input (a later stage reads its chunks
  // from their own places in the array), and its array is a plan buffer (nobody else reads it
  // here: the partners receive, they do not read): that place stays in cache, where writing the
  // whole array sent it to memory. Measured on the backward of r2c double 128^3 at np 2 (64
  // chunks of 65 lines of 128; 12 rounds alternating with the whole array, 60 calls each): those
  // FFTs 1.5-2.0 ms against 1.6-3.2, the backward 0.95-1.07 of the same job's forward against
  // 1.03-1.22; c2c 128^3 (chunks of 256 KiB) and r2c float unchanged within the noise. See
  // docs/performance.md ("The floor").
  Chunking push_chunks(const Setup& setup) const {
    const Transfer& t = setup.transfer;
    Chunking c = planes_of(t.from_box, t.from_order, t.from_fields.count, setup.source_axes, t.to_order[2],
                           setup.options.threads);
    c.source_in_first = c.chunks > 1 && setup.source_is_first && setup.src != nullptr;
    return c;
  }

  void run_push(T* dst, kernels::Scalar<T> s, StageWork& work, ExchangeTimes& times) {
    const Transfer& t = packer_.transfer();
    const double t0 = now();
    fence();  // every member's destination array is free
    double waited = now() - t0, compute = 0, copy_own = 0, copy_out = 0;
    const Box first = chunk_of(t.from_box, chunks_.axis, 0, chunks_.planes);
    for (int k = 0; k < chunks_.chunks; ++k) {
      const double a = now();
      work.source(k);
      const double b = now();
      const Box chunk = chunk_of(t.from_box, chunks_.axis, k, chunks_.planes);
      const Index shift = chunks_.source_in_first ? packer_.source_distance(first, chunk) : 0;
      const Box own = t.send[t.member].intersect(chunk);
      if (!own.empty()) packer_.copy_own_part(src_, own, dst, s, shift);
      const double c = now();
      for (const Target& q : targets_) {
        const Box part = t.send[q.member].intersect(chunk);
        if (part.empty()) continue;
        packer_.copy_out(src_, part, q.array + core::offset_of(part, q.storage, q.strides), q.strides, q.field_stride, s,
                         shift);
      }
      compute += b - a, copy_own += c - b, copy_out += now() - c;
    }
    const double t1 = now();
    fence();  // every member's destination array is complete
    waited += now() - t1;
    // Phases: the source FFTs their own, the own block the pack, the writes into the partners'
    // arrays and the fences the exchange.
    times.compute_source += compute;
    times.pack += copy_own;
    times.exchange += copy_out + waited;
  }

  // Every member on this node: the partners' blocks and this rank's own, chunk by chunk of the
  // destination, each chunk transformed (StageWork::destination) as soon as it is complete.
  void run_chunked(T* dst, kernels::Scalar<T> s, StageWork& work, ExchangeTimes& times) {
    const Transfer& t = packer_.transfer();
    const double t0 = now();
    stage_source();
    const double t1 = now();
    fence();  // partners' source arrays are complete
    double copy_own = t1 - t0, copy_peers = now() - t1, transform = 0;
    for (int k = 0; k < chunks_.chunks; ++k) {
      const Box chunk = chunk_of(t.to_box, chunks_.axis, k, chunks_.planes);
      const double a = now();
      const Box own = t.send[t.member].intersect(chunk);
      if (!own.empty()) packer_.copy_own_part(src_, own, dst, s);
      const double b = now();
      for (const Peer& p : peers_) unpack_peer(p, t.recv[p.member].intersect(chunk), dst, s);
      const double c = now();
      work.destination(k);
      copy_own += b - a, copy_peers += c - b, transform += now() - c;
    }
    const double t2 = now();
    fence();  // no partner reads this rank's arrays any more
    // Phases as in run(): the own block is the pack, the partners' copies and the fences the
    // exchange, the next stage's FFTs its own phase.
    times.pack += copy_own;
    times.exchange += copy_peers + (now() - t2);
    times.compute_destination += transform;
  }

  // Persistent sends and receives for the members on other nodes, in the pairwise order of
  // schedule.hpp (as the p2p engine) so that not everyone starts with member 0.
  void set_up_remote(const Transfer& t, MPI_Comm group, bool direct, const std::vector<bool>& on_node) {
    remote_ = pairwise_blocks(t, on_node);  // partners on this node are read in place instead
    // Receive area: the source array once nobody reads it (no partners, or partners read a
    // staging copy); else spare room in the send area, whose capacity is at least the larger
    // of the two stage arrays; else the source array after the closing fence.
    if (!direct) {
      receive_area_ = src_, receive_early_ = true;
    } else if (remote_.sent + remote_.received <= std::max(t.count(t.from_box), t.count(t.to_box))) {
      receive_area_ = send_ + remote_.sent, receive_early_ = true;
    } else {
      receive_area_ = src_, receive_early_ = false;
    }
    init_pairs(t, remote_, send_, receive_area_, group, sends_, receives_);
  }

  // The barrier orders the ranks; the fences keep this rank's own loads and stores from moving
  // across it (the barrier's own synchronisation need not be a full fence for plain memory).
  void fence() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    mpi::check(MPI_Barrier(node_), "MPI_Barrier");
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  Packer<T> packer_;
  T* src_;
  T* send_;
  MPI_Comm node_ = MPI_COMM_NULL;  // the group's members on this (pretend) node
  int node_size_ = 1;
  std::unique_ptr<mpi::SharedWorkspace> staging_;  // copies of the source arrays (fallback only)
  std::vector<Peer> peers_;
  Chunking chunks_;  // one chunk, the next stage's FFTs on arrival (arrival_chunks) or push_chunks
  bool push_ = false;  // write into the members' destination arrays (see the top of the file)
  std::vector<Target> targets_;  // push: the partners, their destination arrays
  PairwiseBlocks remote_;  // the messages to and from members on other nodes
  T* receive_area_ = nullptr;
  bool receive_early_ = true;
  std::vector<MPI_Request> sends_, receives_;
};

}  // namespace

// Messages to other nodes are single blocks (checked against INT_MAX by the blueprint); the
// shared-memory copies have no count limit.
std::string applies_node(const Setup&) { return ""; }

std::unique_ptr<Exchange> make_node(const Setup& s) { return make_typed<NodeExchange>(s); }

}  // namespace volfft::exchange
