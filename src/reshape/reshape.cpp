// Reshape (reshape.hpp): one exchange among all ranks of the communicator, whose blocks are the
// intersections of the ranks' input boxes with the ranks' output boxes. It is the same Transfer
// a Plan's row or column exchange is, with the user's arrays as source and destination, so the
// engines move it unchanged; the source is read in place (Exchange::read_from) and the
// workspace holds only what goes through MPI.
#include "volfft/reshape.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

#include "core/cover.hpp"
#include "core/engines.hpp"
#include "core/option_table.hpp"
#include "core/overlap.hpp"
#include "exchange/exchange.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft {
namespace {

using core::Index;

// One rank's arguments as integers, so that one MPI_Allgather gives every rank every rank's
// arguments and all ranks judge them alike.
constexpr int kCommon = 10;                 // ndim, shape[3], precision, values, batch, layout, engine, tune
constexpr int kArray = 6 + 6 + 3 + 1;        // box, storage, order (padded with -1), storage given
constexpr int kRecord = kCommon + 2 * kArray;

void put_array(const LocalArray& a, Index* r) {
  for (int k = 0; k < 3; ++k) r[k] = a.box.lo[k], r[3 + k] = a.box.hi[k];
  for (int k = 0; k < 3; ++k) r[6 + k] = a.storage.lo[k], r[9 + k] = a.storage.hi[k];
  for (int k = 0; k < 3; ++k) r[12 + k] = k < static_cast<int>(a.order.size()) ? a.order[static_cast<std::size_t>(k)] : -1;
  r[15] = static_cast<Index>(a.order.size());
}

struct Parsed {
  Box box, storage;
  core::Order order{0, 1, 2};
};

std::string side_name(bool in) { return in ? "in" : "out"; }

// Checks rank `rank`'s array (record `r`); fills `p` (3 axes: 2-D arrays get a third axis
// [0, 1), last in memory order) or returns the problem.
std::string parse_array(const Index* r, int ndim, bool in, int rank, Parsed& p) {
  const std::string who = "volfft::Reshape: rank " + std::to_string(rank) + "'s " + side_name(in) + " array: ";
  for (int k = 0; k < 3; ++k) p.box.lo[k] = r[k], p.box.hi[k] = r[3 + k];
  if (ndim == 2 && (p.box.lo[2] != 0 || p.box.hi[2] != 1) && !(p.box.lo[2] == 0 && p.box.hi[2] == 0 && p.box.empty()))
    return who + "a 2-D array's box keeps [0, 1) as its third axis; got [" + std::to_string(p.box.lo[2]) + ", " +
           std::to_string(p.box.hi[2]) + ")";
  if (ndim == 2) p.box.lo[2] = 0, p.box.hi[2] = 1;
  const Index order_size = r[15];
  if (order_size == 0) {
    p.order = {0, 1, 2};
  } else {
    if (order_size != ndim) return who + "order must list " + std::to_string(ndim) + " axes; got " + std::to_string(order_size);
    std::vector<bool> seen(3, false);
    for (int k = 0; k < ndim; ++k) {
      const Index a = r[12 + k];
      if (a < 0 || a >= ndim || seen[static_cast<std::size_t>(a)])
        return who + "order must be a permutation of the axes 0.." + std::to_string(ndim - 1);
      seen[static_cast<std::size_t>(a)] = true;
      p.order[static_cast<std::size_t>(k)] = static_cast<int>(a);
    }
    if (ndim == 2) p.order[2] = 2;
  }
  for (int k = 0; k < 3; ++k) p.storage.lo[k] = r[6 + k], p.storage.hi[k] = r[9 + k];
  const bool given = p.storage.lo != std::array<Index, 3>{0, 0, 0} || p.storage.hi != std::array<Index, 3>{0, 0, 0};
  if (!given) {
    p.storage = p.box;
  } else {
    if (ndim == 2) p.storage.lo[2] = 0, p.storage.hi[2] = 1;
    bool holds = p.storage.contains(p.box);
    for (int k = 0; k < 3; ++k) holds = holds && p.storage.lo[k] <= p.storage.hi[k];
    if (!holds && !p.box.empty())
      return who + "storage " + core::format_box(p.storage, ndim) + " must contain the box " +
             core::format_box(p.box, ndim);
    if (p.box.empty() && !holds) p.storage = p.box;
  }
  // Counts and byte counts of the array must fit in 64 bits (as a plan's shape must: 2^58
  // elements of up to 16 bytes, core/validation.cpp); a storage far beyond the box wrapped them.
  Index elements = 1;
  for (int k = 0; k < 3; ++k) {
    Index extent = 0;
    if (__builtin_sub_overflow(p.storage.hi[k], p.storage.lo[k], &extent) ||
        __builtin_mul_overflow(elements, extent, &elements) || elements > (Index{1} << 58))
      return who + "storage " + core::format_box(p.storage, ndim) +
             " holds too many elements (they must stay below 2^58 so that byte counts fit in 64 bits)";
  }
  return "";
}

std::string engine_problem(Engine e) {
  if (e == Engine::node || e == Engine::pipelined)
    return std::string("volfft::Reshape: options.engine '") + to_string(e) +
           "' does not apply to a reshape (it reads the partners' arrays in node shared memory or overlaps a "
           "transform's compute); use auto, alltoallv, alltoall, alltoallw, p2p or persistent";
  return "";
}

class NoCompute final : public exchange::StageWork {
 public:
  void source(int) override {}
  void destination(int) override {}
};

}  // namespace

struct Reshape::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int ndim = 3;
  std::array<Index, 3> shape{1, 1, 1};
  Precision precision = Precision::float64;
  Values values = Values::complex;
  Options options;
  LocalArray in, out;  // as the user sees them (user axes)
  std::vector<Box> in_boxes, out_boxes;  // every rank's
  exchange::Transfer transfer;
  Index element_bytes = 16;
  Index sent = 0, received = 0;  // elements through MPI (all fields)
  Engine engine = Engine::alltoallv;
  std::unique_ptr<unsigned char[]> areas;
  Index send_area = 0, receive_area = 0;  // bytes
  std::unique_ptr<exchange::Exchange> exchange, back;  // in -> out, out -> in
  std::string report;
  exchange::Exchange* pending = nullptr;

  // Completes a pending start (collective); nothing when none is pending.
  void finish() {
    if (!pending) return;
    exchange::Exchange* e = pending;
    pending = nullptr;
    exchange::ExchangeTimes times;
    e->finish(times);
  }

  ~Impl() {
    // A start still pending is finished first: its messages use the areas freed below, and its
    // output is unpacked only there. Here, not in ~Reshape alone, so that a Reshape assigned over
    // (move assignment drops the old Impl) finishes too; before, its exchange was abandoned
    // with the areas freed under MPI and the output left unwritten.
    if (pending && !mpi::finalized()) {
      try {
        finish();
      } catch (...) {
        // A destructor must not throw; the MPI error has lost the job anyway.
      }
    }
    // After MPI_Finalize (a Python object collected at exit) no MPI call may run: the engines
    // and the communicator free no MPI object then (mpi::finalized), only their memory.
    exchange.reset(), back.reset();
    if (mpi::finalized()) return;
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  // Elements of each area (send, receive): both directions share them.
  Index area_elements(Engine e) const {
    if (!core::engine_info(e).send_area) return 0;  // alltoallw: datatypes, no areas
    if (e == Engine::alltoall) return transfer.max_block * transfer.from_fields.count * transfer.size();
    return std::max(sent, received);
  }

  // The engine `e` both ways with its areas; collective. Allocation failures are agreed.
  void build(Engine e) {
    exchange.reset(), back.reset();
    send_area = receive_area = area_elements(e) * element_bytes;
    std::string problem;
    try {
      // VOLFFT_TEST_RESHAPE_NO_MEMORY = engine name: this rank cannot have that engine's areas
      // (tests; a rank short of memory).
      const char* pretend = std::getenv("VOLFFT_TEST_RESHAPE_NO_MEMORY");
      if (pretend && std::string(pretend) == to_string(e)) throw std::bad_alloc();
      areas.reset(new unsigned char[static_cast<std::size_t>(send_area + receive_area) + 1]);
    } catch (const std::bad_alloc&) {
      problem = "volfft::Reshape: cannot allocate the workspace of " + std::to_string(send_area + receive_area) +
                " bytes on this rank";
    }
    exchange::Setup s;
    s.transfer = transfer;
    exchange::Setup r = s;
    s.group = comm;
    s.precision = precision;
    s.real_values = values == Values::real;
    s.options = options;
    if (problem.empty()) problem = exchange::applies(e, s);
    mpi::agree_or_throw(comm, problem);
    s.send = send_area ? areas.get() : nullptr;
    s.src = receive_area ? areas.get() + send_area : nullptr;
    exchange = exchange::make_exchange(e, s);
    s.transfer = reversed(transfer);
    back = exchange::make_exchange(e, s);
    engine = e;
  }

  // The transfer out -> in.
  static exchange::Transfer reversed(const exchange::Transfer& t) {
    exchange::Transfer r = t;
    std::swap(r.from_box, r.to_box), std::swap(r.from_order, r.to_order);
    std::swap(r.send, r.recv), std::swap(r.member_from, r.member_to);
    std::swap(r.from_fields, r.to_fields);
    r.member_storage = t.member_to_storage;
    return r;
  }

  // Elements of the in and out arrays (storage times batch): Reshape::input_count/output_count.
  Index in_count() const { return in.storage.size() * options.batch; }
  Index out_count() const { return out.storage.size() * options.batch; }

  // execute(), reverse() and start(): the arrays checked and the calls agreed on every rank, then
  // the exchange started (`call` heads this rank's problems: the public call the user made).
  void begin(const void* src, void* dst, bool reversed, const char* call) {
    std::string problem;
    const Index src_count = reversed ? out_count() : in_count();
    const Index dst_count = reversed ? in_count() : out_count();
    const Index src_bytes = src_count * element_bytes, dst_bytes = dst_count * element_bytes;
    if ((src == nullptr && src_bytes > 0) || (dst == nullptr && dst_bytes > 0))
      problem = std::string(call) + "the arrays must be non-null where they hold elements (" +
                std::to_string(src_count) + " read, " + std::to_string(dst_count) + " written on this rank)";
    else if (core::overlapping(src, src_bytes, dst, dst_bytes))
      problem = std::string(call) + "the arrays overlap; a reshape reads one array and writes another";
    else if (pending)
      problem = "volfft::Reshape: a split-phase reshape is in progress: finish() it first (Python: its request's wait())";
    mpi::agree_or_throw(comm, problem, reversed ? 2 : 1,
                        "volfft::Reshape: ranks made different calls on one reshape (execute/reverse)");
    exchange::Exchange& e = reversed ? *back : *exchange;
    run(e, src, dst, true);
    pending = &e;
  }

  void run(exchange::Exchange& e, const void* src, void* dst, bool split) {
    NoCompute none;
    exchange::ExchangeTimes times;
    e.read_from(src);
    if (split)
      e.start(dst, 1.0, none, times);
    else
      e.run(dst, 1.0, none, times);
  }

  // Times the engines that apply (engine automatic, tune > 0): each candidate's slowest rank
  // decides its time, so every rank keeps the same engine.
  void tune();
};

void Reshape::Impl::tune() {
  const Index in_elems = (in.storage.size()) * transfer.from_fields.count;
  const Index out_elems = (out.storage.size()) * transfer.to_fields.count;
  std::string problem;
  std::unique_ptr<unsigned char[]> a, b;
  try {
    a.reset(new unsigned char[static_cast<std::size_t>(in_elems * element_bytes) + 1]());
    b.reset(new unsigned char[static_cast<std::size_t>(out_elems * element_bytes) + 1]());
  } catch (const std::bad_alloc&) {
    problem = "volfft::Reshape: cannot allocate the arrays to time the engines on (options.tune)";
  }
  mpi::agree_or_throw(comm, problem);
  std::vector<Engine> candidates{Engine::alltoallv, Engine::alltoallw, Engine::p2p, Engine::alltoall};
  if (exchange::have_persistent_collectives()) candidates.push_back(Engine::persistent);
  const double budget = options.tune, t_begin = MPI_Wtime();
  Engine best = Engine::alltoallv;
  double best_time = 0;
  std::ostringstream table;
  table << "volfft::Reshape engines (max over ranks, best of 3, seconds):\n";
  for (Engine e : candidates) {
    // A candidate that does not apply or whose areas cannot be had fails on every rank alike
    // (build agrees): it is left out, the others are still timed (alltoallv, first, is the
    // plain engine; where even it fails, the reshape fails as it would untuned).
    try {
      build(e);
    } catch (const Error& error) {
      if (e == candidates.front()) throw;
      table << "  " << to_string(e) << " left out: " << error.what() << "\n";
      continue;
    }
    run(*exchange, a.get(), b.get(), false);  // warm: first-touch, MPI's own setup
    double t = 1e300;
    for (int k = 0; k < 3; ++k) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      run(*exchange, a.get(), b.get(), false);
      double mine = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      t = std::min(t, slowest);
    }
    table << "  " << to_string(e) << " " << t << "\n";
    // Candidates come simplest first: a later one must win by more than 5%.
    if (e == candidates.front() || t < 0.95 * best_time) best = e, best_time = t;
    double elapsed = MPI_Wtime() - t_begin;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);  // one verdict on the budget
    if (elapsed > budget) break;
  }
  table << "  chosen: " << to_string(best) << "\n";
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) report = table.str();
  build(best);
}

Reshape::Reshape(MPI_Comm user_comm, const std::vector<std::int64_t>& shape, const LocalArray& in,
                 const LocalArray& out, Precision precision, Values values, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& x = *impl_;
  mpi::require_communicator(user_comm, "volfft::Reshape");
  mpi::check(MPI_Comm_dup(user_comm, &x.comm), "MPI_Comm_dup");
  // MPI failures come back as volfft::MpiError (VOLFFT_ERROR_MPI in C), as in Plan.
  MPI_Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(x.comm, &rank);
  MPI_Comm_size(x.comm, &size);
  x.precision = precision, x.values = values, x.options = options;

  // Every rank's arguments to every rank; from here on all ranks judge the same numbers.
  std::vector<Index> mine(kRecord, 0), all(static_cast<std::size_t>(kRecord) * size);
  mine[0] = static_cast<Index>(shape.size());
  for (std::size_t k = 0; k < 3; ++k) mine[1 + k] = k < shape.size() ? shape[k] : -1;
  mine[4] = static_cast<Index>(precision), mine[5] = static_cast<Index>(values);
  mine[6] = options.batch, mine[7] = static_cast<Index>(options.batch_layout);
  mine[8] = static_cast<Index>(options.engine), mine[9] = options.tune;
  put_array(in, &mine[kCommon]);
  put_array(out, &mine[kCommon + kArray]);
  mpi::check(MPI_Allgather(mine.data(), kRecord, MPI_INT64_T, all.data(), kRecord, MPI_INT64_T, x.comm),
             "MPI_Allgather");
  auto record = [&](int r) { return &all[static_cast<std::size_t>(r) * kRecord]; };

  std::string problem;
  const Index* first = record(0);
  for (int r = 1; r < size && problem.empty(); ++r)
    for (int k = 0; k < kCommon; ++k)
      if (record(r)[k] != first[k]) {
        static const char* names[kCommon] = {"shape", "shape", "shape", "shape", "precision",
                                             "values", "options.batch", "options.batch_layout",
                                             "options.engine", "options.tune"};
        problem = std::string("volfft::Reshape: every rank must pass the same ") + names[k] + "; rank " +
                  std::to_string(r) + "'s differs from rank 0's";
        break;
      }
  const Index nd = first[0];
  if (problem.empty() && nd != 2 && nd != 3)
    problem = "volfft::Reshape: shape must have 2 or 3 axes; got " + std::to_string(nd);
  for (int k = 0; problem.empty() && k < nd; ++k)
    if (first[1 + k] < 1)
      problem = "volfft::Reshape: shape[" + std::to_string(k) + "] must be >= 1; got " + std::to_string(first[1 + k]);
  // The options a reshape reads, each on its own (bounds, names: core/option_table.cpp). threads
  // is this rank's own and need not be the same everywhere: the problem is agreed below.
  for (const char* name : {"engine", "tune", "batch", "batch_layout", "threads"}) {
    if (!problem.empty()) break;
    const core::OptionSpec& spec = *core::find_option(name);
    try {
      core::check_option(spec, spec.get(options));
    } catch (const Error& e) {
      problem = std::string("volfft::Reshape: options.") + (e.what() + std::string("volfft: ").size());
    }
  }
  if (problem.empty()) problem = engine_problem(options.engine);
  std::vector<Parsed> ins(static_cast<std::size_t>(size)), outs(static_cast<std::size_t>(size));
  if (problem.empty()) {
    x.ndim = static_cast<int>(nd);
    x.shape = {first[1], first[2], nd == 3 ? first[3] : 1};
    for (int r = 0; r < size && problem.empty(); ++r) {
      problem = parse_array(record(r) + kCommon, x.ndim, true, r, ins[static_cast<std::size_t>(r)]);
      if (problem.empty())
        problem = parse_array(record(r) + kCommon + kArray, x.ndim, false, r, outs[static_cast<std::size_t>(r)]);
    }
  }
  // Packed blocks travel in the sender's memory order, which the receiver must know.
  for (int r = 1; r < size && problem.empty(); ++r)
    for (bool side : {true, false}) {
      const auto& v = side ? ins : outs;
      if (v[static_cast<std::size_t>(r)].order != v[0].order) {
        problem = "volfft::Reshape: the " + side_name(side) + " arrays' order must be the same on every rank; rank " +
                  std::to_string(r) + "'s differs from rank 0's";
        break;
      }
    }
  if (problem.empty()) {
    std::vector<Box> boxes;
    for (const Parsed& p : ins) boxes.push_back(p.box);
    problem = core::check_cover(x.shape, boxes, x.ndim, "volfft::Reshape: the in boxes");
  }
  if (problem.empty()) {
    std::vector<Box> boxes;
    for (const Parsed& p : outs) boxes.push_back(p.box);
    problem = core::check_cover(x.shape, boxes, x.ndim, "volfft::Reshape: the out boxes");
  }
  // Every rank computed the same problem from the same records, but for its own threads: agreed
  // (the lowest failing rank's text everywhere), so that all ranks fail together.
  mpi::agree_or_throw(x.comm, problem);

  const Parsed& me_in = ins[static_cast<std::size_t>(rank)];
  const Parsed& me_out = outs[static_cast<std::size_t>(rank)];
  auto user_array = [&](const Parsed& p) {
    LocalArray a;
    a.box = p.box, a.storage = p.storage;
    a.order.assign(p.order.begin(), p.order.begin() + x.ndim);
    return a;
  };
  x.in = user_array(me_in), x.out = user_array(me_out);
  for (int m = 0; m < size; ++m)
    x.in_boxes.push_back(ins[static_cast<std::size_t>(m)].box), x.out_boxes.push_back(outs[static_cast<std::size_t>(m)].box);

  exchange::Transfer& t = x.transfer;
  t.member = rank;
  t.from_box = me_in.storage, t.to_box = me_out.storage;
  t.from_order = me_in.order, t.to_order = me_out.order;
  const Index k = options.batch;
  const bool inner = options.batch_layout == BatchLayout::inner;
  t.from_fields = inner ? core::FieldLayout{k, k, 1} : core::FieldLayout{k, 1, me_in.storage.size()};
  t.to_fields = inner ? core::FieldLayout{k, k, 1} : core::FieldLayout{k, 1, me_out.storage.size()};
  for (int m = 0; m < size; ++m) {
    const Parsed& pi = ins[static_cast<std::size_t>(m)];
    const Parsed& po = outs[static_cast<std::size_t>(m)];
    t.send.push_back(me_in.box.intersect(po.box));
    t.recv.push_back(pi.box.intersect(me_out.box));
    t.member_from.push_back(pi.box), t.member_to.push_back(po.box), t.member_storage.push_back(pi.storage);
    t.member_to_storage.push_back(po.storage);
    if (m != rank) x.sent += t.count(t.send.back()), x.received += t.count(t.recv.back());
  }
  x.element_bytes = (values == Values::complex ? 2 : 1) * (precision == Precision::float64 ? 8 : 4);

  // A block must fit MPI's int count; the largest block between two different ranks also sizes
  // alltoall's padded blocks (a rank's own block is copied directly, never sent: counted, it
  // padded every message to the whole local array when the boxes mostly stay put).
  for (std::size_t a = 0; a < ins.size(); ++a)
    for (std::size_t b = 0; b < outs.size(); ++b)
      if (a != b) t.max_block = std::max(t.max_block, ins[a].box.intersect(outs[b].box).size());
  if (t.max_block * k > INT32_MAX)
    throw Error("volfft::Reshape: a block of " + std::to_string(t.max_block * k) +
                " elements between two ranks exceeds MPI's int count; use more ranks or fewer fields");

  if (options.engine == Engine::automatic && options.tune > 0)
    x.tune();
  else
    x.build(options.engine == Engine::automatic ? Engine::alltoallv : options.engine);
}

Reshape::~Reshape() = default;  // Impl's destructor finishes a pending start
Reshape::Reshape(Reshape&&) noexcept = default;
Reshape& Reshape::operator=(Reshape&&) noexcept = default;

void Reshape::execute(const void* in, void* out) {
  impl_->begin(in, out, false, "volfft::Reshape::execute: ");
  finish();
}

void Reshape::reverse(const void* out, void* in) {
  impl_->begin(out, in, true, "volfft::Reshape::reverse: ");
  finish();
}

void Reshape::start(const void* src, void* dst, bool reversed) {
  impl_->begin(src, dst, reversed, reversed ? "volfft::Reshape::start (reversed): " : "volfft::Reshape::start: ");
}

void Reshape::agree_on_problem(const std::string& problem) { mpi::agree_or_throw(impl_->comm, problem); }

bool Reshape::test() { return !impl_->pending || impl_->pending->test(); }

void Reshape::finish() { impl_->finish(); }

int Reshape::ndim() const { return impl_->ndim; }
std::vector<std::int64_t> Reshape::shape() const {
  return {impl_->shape.begin(), impl_->shape.begin() + impl_->ndim};
}
const LocalArray& Reshape::input() const { return impl_->in; }
const LocalArray& Reshape::output() const { return impl_->out; }
Engine Reshape::engine() const { return impl_->engine; }
std::int64_t Reshape::input_count() const { return impl_->in_count(); }
std::int64_t Reshape::output_count() const { return impl_->out_count(); }
std::size_t Reshape::workspace_bytes() const {
  return static_cast<std::size_t>(impl_->send_area + impl_->receive_area);
}
std::int64_t Reshape::sent_count() const { return impl_->sent; }
std::int64_t Reshape::received_count() const { return impl_->received; }
const std::vector<Box>& Reshape::input_boxes() const { return impl_->in_boxes; }
const std::vector<Box>& Reshape::output_boxes() const { return impl_->out_boxes; }
const std::string& Reshape::tuning_report() const { return impl_->report; }
MPI_Comm Reshape::comm() const { return impl_->comm; }

}  // namespace volfft
