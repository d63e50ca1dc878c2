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
#include <algorithm>
#include <atomic>
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

    // Who shares this node, and does every one of them hold its source array in the same
    // shared workspace? Fields: member, in workspace, workspace id, rank in it, byte offset.
    constexpr int F = 5;
    mpi::SharedLocation here;
    const bool in_shared = node_size_ > 1 && src_ != nullptr && mpi::find_shared(src_, here);
    const long long mine[F] = {t.member, in_shared ? 1 : 0, in_shared ? here.workspace->id() : -1,
                               in_shared ? here.workspace->node_rank() : 0, static_cast<long long>(here.offset)};
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
        p.strides = core::strides_of(t.member_storage[m], t.from_order, t.from_fields.unit);
        p.field_stride = interleaved ? 1 : t.member_storage[m].size();
        p.block = array + core::offset_of(t.recv[m], t.member_storage[m], p.strides);
        peers_.push_back(p);
      }
    }
    set_up_remote(t, group, direct, on_node);
  }

  ~NodeExchange() override {
    for (auto& q : sends_) MPI_Request_free(&q);
    for (auto& q : receives_) MPI_Request_free(&q);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

  void run(void* dst_void, double scale, StageWork& work, ExchangeTimes& times) override {
    compute_whole(work, times);
    T* dst = static_cast<T*>(dst_void);
    const Transfer& t = packer_.transfer();
    const auto s = static_cast<kernels::Scalar<T>>(scale);
    double t0 = now();
    packer_.pack_blocks(src_, remote_.sends, remote_.send_offsets, send_);
    if (staging_ && staging_->bytes() > 0)
      std::memcpy(staging_->data(), static_cast<const void*>(src_),
                  sizeof(T) * static_cast<std::size_t>(t.count(t.from_box)));
    packer_.copy_own(src_, dst, s);
    double t1 = now();
    if (receive_early_) mpi::start_all(receives_);
    mpi::start_all(sends_);
    if (node_size_ > 1) {
      fence();  // partners' source arrays are complete
      for (const Peer& p : peers_) packer_.unpack_strided(p.block, p.strides, p.field_stride, p.member, dst, s);
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
    const T* block = nullptr;  // first element of the partner's block for this rank
    std::array<Index, 3> strides{};
    Index field_stride = 0;  // the partner's fields lie this far apart
  };

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
