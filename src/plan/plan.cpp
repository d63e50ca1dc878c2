// Plan: builds the FFT batches and exchanges of a blueprint once, then runs them.
//
// Buffers (see core/blueprint.cpp for their count). With S stages and E = S - 1 exchanges:
//   forward : stage s lives in W[s] (the last stage in the user's output); exchange k goes from
//             W[k] to the next stage's array with W[E] as its send area.
//   backward: stage S-1 is read from the user's input into W[0]; stage s (0 < s < S-1) lives in
//             W[(S-1-s) % 2]; stage 0 is the user's output (c2c) or a complex array (r2c) that
//             the final c2r transform reads.
// Blocking engines reuse an exchange's source array as its receive area, so three arrays are
// live at most; the pipelined engine receives into W[3].
#include "volfft/plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "comm/exchange.hpp"
#include "comm/packing.hpp"
#include "comm/shared_window.hpp"
#include "core/blueprint.hpp"
#include "plan/agreement.hpp"
#include "plan/autotune.hpp"
#include "plan/pipeline.hpp"
#include "plan/placement.hpp"
#include "plan/stage_ops.hpp"

namespace volfft {

using core::Index;
using plan::OpRun;

namespace {

std::string axes_text(const std::vector<core::FftOp>& ops, bool reverse) {
  std::string s = "fft";
  std::vector<int> axes;
  for (const auto& op : ops) axes.insert(axes.end(), op.axes.begin(), op.axes.end());
  if (reverse) std::reverse(axes.begin(), axes.end());
  for (int a : axes) s += std::to_string(a);
  return s;
}

std::vector<int> all_axes(const std::vector<core::FftOp>& ops) {
  std::vector<int> axes;
  for (const auto& op : ops) axes.insert(axes.end(), op.axes.begin(), op.axes.end());
  return axes;
}

}  // namespace

/// One direction's program: the stages in execution order, each with its FFTs and the
/// exchange (blocking or pipelined) that follows it, and where each phase's time goes.
struct Program {
  struct Position {
    std::size_t stage = 0;
    std::vector<OpRun> ops;                        // whole-array FFTs (blocking path)
    bool ops_done_by_previous = false;             // transformed per chunk on arrival
    std::unique_ptr<comm::Exchange> exchange;      // to the next position (blocking)
    std::unique_ptr<plan::PipelinedStep> pipeline; // or pipelined
    std::size_t fft_phase = 0, pack_phase = 0, exchange_phase = 0, unpack_phase = 0, hidden_phase = 0;
  };
  std::vector<Position> positions;
  std::vector<Phase> phases;
  std::size_t scale_phase = SIZE_MAX;
  std::size_t add(const std::string& name) {
    phases.push_back({name, 0});
    return phases.size() - 1;
  }
};

class Plan::Impl {
 public:
  Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind, Precision precision,
       const Options& options);
  ~Impl();

  /// Runs a transform. With `split`, returns once the first exchange is under way (when the
  /// engine has a non-blocking form) and leaves the rest to finish().
  void begin(bool forward, const void* in, void* out, bool split);
  void finish();
  bool test();
  /// "" when arrays of this kind of element fit the plan, else the message.
  std::string type_error(bool forward, bool real_side, Precision precision) const;
  /// Checks the call's arguments on every rank together, then runs it.
  void call(bool forward, const void* in, void* out, bool split, const std::string& type_problem);

  MPI_Comm comm = MPI_COMM_NULL, row = MPI_COMM_NULL, column = MPI_COMM_NULL;
  core::Blueprint bp;
  PlanDescription description;
  std::vector<Index> user_shape;
  std::vector<int> rank_order;  // rank of comm at each virtual position
  std::string tuning_report;
  Options options;              // as given (after a map file became a rank order)
  Program fwd, bwd;
  std::unique_ptr<unsigned char[]> owned;
  std::unique_ptr<comm::SharedWorkspace> shared;  // engine node: buffers partners can read
  std::array<void*, 4> w{nullptr, nullptr, nullptr, nullptr};
  double scale = 1.0;
  bool scale_in_exchange = false;
  // State of a split-phase call between begin() and finish().
  struct Pending {
    bool active = false, forward = true;
    const void* in = nullptr;
    void* out = nullptr;
  } pending;

 private:
  void allocate(const Options& options);
  void resolve_backend();
  void build(bool forward);
  void* array_at(bool forward, std::size_t stage, void* out) const;
  void continue_from(Program& p, std::size_t position, bool forward, const void* in, void* out);
  void scale_output(void* out) const;
};

void* Plan::Impl::array_at(bool forward, std::size_t s, void* out) const {
  const std::size_t S = bp.stages.size();
  // A padded plan's last stage transforms full-length lines in a buffer free at that point,
  // then truncates into the output.
  if (forward && s + 1 == S && bp.padded) return S == 2 ? w[2] : w[0];
  if (forward) return s + 1 == S ? out : w[s];
  if (s == 0) {
    if (bp.kind == Kind::c2c) return out;
    return S == 1 ? w[0] : (S == 2 ? w[2] : w[0]);
  }
  if (s + 1 == S) return w[0];
  return w[(S - 1 - s) % 2];
}

Plan::Impl::Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind,
                 Precision precision, const Options& given)
    : user_shape(shape) {
  comm::check_mpi(MPI_Comm_dup(user_comm, &comm), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);

  // A placement from a map file becomes a rank order (collective, fails alike everywhere).
  Options options = given;
  int uses[2] = {options.map_file.empty() ? 0 : 1, options.rank_order.empty() ? 0 : 1};
  int lowest[2], highest[2];
  MPI_Allreduce(uses, lowest, 2, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(uses, highest, 2, MPI_INT, MPI_MAX, comm);
  if (lowest[0] != highest[0])
    throw Error("volfft: map_file is given on some ranks but not on others (every rank must pass it)");
  if (highest[0] && highest[1]) throw Error("volfft: give either rank_order or map_file, not both");
  if (!options.map_file.empty()) {
    options.rank_order = plan::rank_order_from_map_file(comm, options.map_file, options.coordinate);
  }
  this->options = options;
  rank_order = options.rank_order;
  if (rank_order.empty()) {
    rank_order.resize(size);
    std::iota(rank_order.begin(), rank_order.end(), 0);
  }

  // Validate locally, then agree collectively, before anything can diverge between ranks.
  std::string local_error;
  std::size_t needed = 0;
  int vrank = rank;
  try {
    core::validate(size, shape, options);
    if (!options.rank_order.empty())
      vrank = static_cast<int>(std::find(options.rank_order.begin(), options.rank_order.end(), rank) -
                               options.rank_order.begin());
    bp = core::make_blueprint(size, vrank, shape, kind, precision, options);
    if (!have_backend(options.backend))
      throw Error(std::string("volfft: backend '") + to_string(options.backend) +
                  "' is not part of this build (configure with VOLFFT_DUCC0=ON); use 'fftw' or 'auto'");
    if (bp.engine == Engine::persistent && !comm::have_persistent_collectives())
      throw Error("volfft: engine 'persistent' needs MPI-4 persistent collectives "
                  "(MPI_Alltoallv_init), which this MPI library does not provide");
    needed = bp.workspace_bytes();
  } catch (const Error& e) {
    local_error = e.what();
  }
  plan::agree_on_arguments(comm, shape, kind, precision, options, local_error, needed);

  description = describe(size, shape, kind, precision, options);
  const int i = bp.position[0], j = bp.position[1];
  comm::check_mpi(MPI_Comm_split(comm, i, j, &row), "MPI_Comm_split");
  comm::check_mpi(MPI_Comm_split(comm, j, i, &column), "MPI_Comm_split");
  MPI_Comm_set_errhandler(row, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(column, MPI_ERRORS_RETURN);

  Index n = 1;
  for (Index e : bp.shape) n *= e;
  scale = bp.scale_backward ? 1.0 / static_cast<double>(n) : 1.0;
  allocate(options);
  resolve_backend();
  build(true);
  build(false);
}

void Plan::Impl::resolve_backend() {
  // Backend::automatic is decided once per plan, by timing the first stage's forward FFTs
  // with each backend on scratch arrays, each time the maximum over ranks: one choice for every
  // rank and every batch of the plan.
  if (options.backend != Backend::automatic) return;
  options.backend = Backend::fftw;
  if (!have_backend(Backend::ducc0)) return;
  const Index most = std::max({bp.buffer_elements, bp.input_count(), bp.output_count()});
  const std::size_t bytes = static_cast<std::size_t>(most * bp.complex_bytes) + 64;
  std::unique_ptr<unsigned char[]> a(new unsigned char[bytes]()), b(new unsigned char[bytes]()),
      c(new unsigned char[bytes]());
  auto align = [](unsigned char* q) {
    return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(q) + 63) & ~std::uintptr_t(63));
  };
  double seconds[2] = {0, 0};
  const Backend candidates[2] = {Backend::fftw, Backend::ducc0};
  for (int k = 0; k < 2; ++k) {
    Options o = options;
    o.backend = candidates[k];
    auto ops = plan::make_stage_ops(bp, o, 0, false, bp.stages[0].box_in, align(a.get()), align(b.get()), false);
    std::memset(align(a.get()), 0, bytes - 64);
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const double t0 = MPI_Wtime();
      for (const OpRun& op : ops) op.run(align(a.get()), align(c.get()), align(b.get()));
      best = std::min(best, MPI_Wtime() - t0);
    }
    MPI_Allreduce(&best, &seconds[k], 1, MPI_DOUBLE, MPI_MAX, comm);
  }
  options.backend = seconds[1] < seconds[0] ? Backend::ducc0 : Backend::fftw;
}

Plan::Impl::~Impl() {
  fwd.positions.clear();
  bwd.positions.clear();
  for (MPI_Comm* c : {&row, &column, &comm})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

void Plan::Impl::allocate(const Options& options) {
  const std::size_t bytes = static_cast<std::size_t>(bp.buffer_elements * bp.complex_bytes);
  unsigned char* base = nullptr;
  // Engine node: the buffers go into a shared window over the node's ranks (collective, so
  // every rank takes part, with 0 bytes when it brings its own workspace).
  if (bp.engine == Engine::node && bp.buffer_count > 0)
    shared = std::make_unique<comm::SharedWorkspace>(
        comm, options.ranks_per_node, options.workspace ? 0 : bp.workspace_bytes());
  if (options.workspace) {
    base = static_cast<unsigned char*>(options.workspace);
  } else if (shared) {
    base = static_cast<unsigned char*>(shared->data());
  } else if (bp.buffer_count > 0) {
    owned.reset(new unsigned char[bp.workspace_bytes()]);
    base = owned.get();
  }
  // 64-byte aligned buffers: FFTW's SIMD plans are made for them.
  for (int b = 0; b < bp.buffer_count; ++b) {
    auto p = reinterpret_cast<std::uintptr_t>(base);
    p = (p + 63) & ~static_cast<std::uintptr_t>(63);
    w[b] = reinterpret_cast<void*>(p);
    base = reinterpret_cast<unsigned char*>(p) + bytes;
  }
}

void Plan::Impl::build(bool forward) {
  Program& p = forward ? fwd : bwd;
  const std::size_t S = bp.stages.size(), E = S - 1;
  // Planning arrays: FFTW_MEASURE overwrites what it plans on, and the user's arrays do not
  // exist yet. Two scratch arrays, 64-byte aligned like the plan's own buffers, freed after.
  const Index most = std::max({bp.buffer_elements, bp.input_count(), bp.output_count()});
  const std::size_t bytes = static_cast<std::size_t>(most * bp.complex_bytes) + 64;
  std::unique_ptr<unsigned char[]> scratch_in(new unsigned char[bytes]), scratch_out(new unsigned char[bytes]);
  auto align = [](unsigned char* q) {
    return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(q) + 63) & ~std::uintptr_t(63));
  };
  void* pin = align(scratch_in.get());
  void* pout = align(scratch_out.get());
  std::memset(pin, 0, bytes - 64);
  std::memset(pout, 0, bytes - 64);

  const bool pipelined = bp.engine == Engine::pipelined;
  bool fed_per_chunk = false;  // the previous pipelined step transforms this stage per chunk
  for (std::size_t q = 0; q < S; ++q) {
    Program::Position pos;
    pos.stage = forward ? q : S - 1 - q;
    const core::Stage& st = bp.stages[pos.stage];
    const bool user_array = array_at(forward, pos.stage, nullptr) == nullptr;
    pos.fft_phase = p.add(axes_text(st.ops, !forward));
    pos.ops_done_by_previous = fed_per_chunk;
    fed_per_chunk = false;
    if (!(pipelined && q < E) && !pos.ops_done_by_previous)
      pos.ops = plan::make_stage_ops(bp, options, pos.stage, !forward, st.box_in, pin, pout, user_array);
    if (q < E) {
      // The exchange between this stage and the next in this direction.
      const std::size_t k = forward ? q : E - 1 - q;  // index into bp.exchanges
      const auto& g = bp.exchanges[k];
      MPI_Comm group = g.name == "row" ? row : column;
      auto transfer = comm::transfer_of(g, !forward);
      transfer.threads = options.threads;
      transfer.ranks_per_node = options.ranks_per_node;
      void* src = array_at(forward, pos.stage, nullptr);
      const std::string suffix = "_" + g.name;
      if (!pipelined) {
        pos.pack_phase = p.add("pack" + suffix);
        pos.exchange_phase = p.add("exchange" + suffix);
        pos.unpack_phase = p.add("unpack" + suffix);
        pos.exchange = comm::make_exchange(bp.engine, transfer, group, bp.precision, src, w[E]);
      } else {
        const std::size_t next = forward ? pos.stage + 1 : pos.stage - 1;
        const bool next_is_last = q + 1 == E;
        auto chunks = plan::plan_chunks(transfer, all_axes(st.ops), all_axes(bp.stages[next].ops),
                                        options.planes);
        chunks.destination_per_chunk = chunks.destination_per_chunk && next_is_last;
        std::vector<std::vector<OpRun>> source_ops, destination_ops;
        const bool next_user = array_at(forward, next, nullptr) == nullptr;
        for (int c = 0; c < chunks.chunks; ++c) {
          source_ops.push_back(plan::make_stage_ops(bp, options, pos.stage, !forward,
                                                    plan::chunk_of(st.box_in, chunks.axis, c, chunks.planes),
                                                    pin, pout, false));
          if (chunks.destination_per_chunk)
            destination_ops.push_back(plan::make_stage_ops(
                bp, options, next, !forward,
                plan::chunk_of(bp.stages[next].box_in, chunks.axis, c, chunks.planes), pin, pout, next_user));
        }
        pos.pack_phase = p.add("pack" + suffix);
        pos.exchange_phase = p.add("wait" + suffix);
        pos.unpack_phase = p.add("unpack" + suffix);
        pos.hidden_phase = p.add("hidden" + suffix);
        pos.pipeline = plan::make_pipelined_step(transfer, chunks, group, bp.precision, std::move(source_ops),
                                                 std::move(destination_ops), src, w[E], w[3],
                                                 options.max_in_flight, options.pipeline_p2p);
        fed_per_chunk = chunks.destination_per_chunk;
      }
    }
    p.positions.push_back(std::move(pos));
  }
  if (!forward) {
    scale_in_exchange = scale != 1.0 && E > 0 &&
                        (p.positions[0].pipeline || p.positions[0].exchange->scales());
    if (scale != 1.0 && !scale_in_exchange) p.scale_phase = p.add("scale");
  }
}

void Plan::Impl::begin(bool forward, const void* in, void* out, bool split) {
  Program& p = forward ? fwd : bwd;
  for (Phase& ph : p.phases) ph.seconds = 0;
  const std::size_t S = p.positions.size();
  Program::Position& first = p.positions[0];
  void* array = array_at(forward, first.stage, out);
  if (first.pipeline || S == 1 || !split) {
    continue_from(p, 0, forward, in, out);
    return;
  }
  double t0 = MPI_Wtime();
  for (const OpRun& op : first.ops) op.run(in, array, out);
  p.phases[first.fft_phase].seconds = MPI_Wtime() - t0;
  comm::ExchangeTimes t;
  const double sc = (!forward && scale_in_exchange) ? scale : 1.0;
  first.exchange->start(array_at(forward, p.positions[1].stage, out), sc, t);
  p.phases[first.pack_phase].seconds = t.pack;
  pending = Pending{true, forward, in, out};
}

void Plan::Impl::finish() {
  if (!pending.active) return;
  Program& p = pending.forward ? fwd : bwd;
  Program::Position& first = p.positions[0];
  comm::ExchangeTimes t;
  first.exchange->finish(t);
  p.phases[first.exchange_phase].seconds = t.exchange;
  p.phases[first.unpack_phase].seconds = t.unpack;
  const Pending was = pending;
  pending.active = false;
  continue_from(p, 1, was.forward, was.in, was.out);
}

bool Plan::Impl::test() {
  if (!pending.active) return true;
  Program& p = pending.forward ? fwd : bwd;
  return p.positions[0].exchange->test();
}

void Plan::Impl::continue_from(Program& p, std::size_t from, bool forward, const void* in, void* out) {
  const std::size_t S = p.positions.size();
  for (std::size_t q = from; q < S; ++q) {
    Program::Position& pos = p.positions[q];
    void* array = array_at(forward, pos.stage, out);
    const double sc = (!forward && q == 0 && scale_in_exchange) ? scale : 1.0;
    if (pos.pipeline) {
      plan::PipelineTimes t;
      pos.pipeline->run(in, array_at(forward, p.positions[q + 1].stage, out), out, sc, t);
      p.phases[pos.fft_phase].seconds = t.fft_source;
      p.phases[pos.pack_phase].seconds = t.pack;
      p.phases[pos.exchange_phase].seconds = t.wait;
      p.phases[pos.unpack_phase].seconds = t.unpack;
      p.phases[pos.hidden_phase].seconds = std::max(0.0, t.in_flight - t.wait);
      if (t.fft_destination > 0) p.phases[p.positions[q + 1].fft_phase].seconds = t.fft_destination;
      continue;
    }
    if (!pos.ops_done_by_previous) {
      double t0 = MPI_Wtime();
      for (const OpRun& op : pos.ops) op.run(in, array, out);
      p.phases[pos.fft_phase].seconds = MPI_Wtime() - t0;
    }
    if (q + 1 < S) {
      comm::ExchangeTimes t;
      pos.exchange->run(array_at(forward, p.positions[q + 1].stage, out), sc, t);
      p.phases[pos.pack_phase].seconds = t.pack;
      p.phases[pos.exchange_phase].seconds = t.exchange;
      p.phases[pos.unpack_phase].seconds = t.unpack;
    }
  }
  if (!forward && p.scale_phase != SIZE_MAX) {
    double t0 = MPI_Wtime();
    scale_output(out);
    p.phases[p.scale_phase].seconds = MPI_Wtime() - t0;
  }
}

void Plan::Impl::scale_output(void* out) const {
  // The output holds input_count() reals (r2c) or complexes (c2c): 1 or 2 reals each.
  const Index reals = bp.input_count() * (bp.kind == Kind::c2c ? 2 : 1);
  if (bp.precision == Precision::float64) {
    double* p = static_cast<double*>(out);
    for (Index x = 0; x < reals; ++x) p[x] *= scale;
  } else {
    float* p = static_cast<float*>(out);
    const float f = static_cast<float>(scale);
    for (Index x = 0; x < reals; ++x) p[x] *= f;
  }
}

std::string Plan::Impl::type_error(bool forward, bool real_side, Precision precision) const {
  const char* call = forward ? "forward" : "backward";
  if (precision != bp.precision)
    return std::string("volfft: ") + call + ": the plan's precision is " + to_string(bp.precision) +
           ", so its arrays must hold " + to_string(bp.precision) + " values; got " + to_string(precision) +
           " ones";
  const bool real_plan = bp.kind == Kind::r2c;
  if (real_side != real_plan)
    return std::string("volfft: ") + call + " of a " + to_string(bp.kind) + " plan needs a " +
           (real_plan ? "real" : "complex") + " " + (forward ? "input" : "output") + " array; got a " +
           (real_side ? "real" : "complex") + " one";
  return "";
}

void Plan::Impl::call(bool forward, const void* in, void* out, bool split, const std::string& type_problem) {
  // Local problems become everyone's error (one small MPI_Allreduce), so a rank that catches
  // it cannot leave the others waiting in an exchange.
  std::string problem = type_problem;
  const char* name = forward ? (split ? "forward_start" : "forward") : (split ? "backward_start" : "backward");
  const Index in_count = forward ? bp.input_count() : bp.output_count();
  const Index out_count = forward ? bp.output_count() : bp.input_count();
  if (problem.empty() && ((in == nullptr && in_count > 0) || (out == nullptr && out_count > 0)))
    problem = std::string("volfft: ") + name + " needs non-null in and out arrays";
  if (problem.empty() && in == out && in != nullptr)
    problem = std::string("volfft: ") + name + " is out-of-place: in and out must differ";
  if (problem.empty() && pending.active)
    problem = "volfft: this plan has a split-phase transform in progress: wait() for it first";
  plan::agree_or_throw(comm, problem);
  begin(forward, in, out, split);
}

// ---------------------------------------------------------------------------------------------

Plan::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
           const Options& options) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::string report;
  // wants_tuning reads only arguments every rank must pass alike; if they differ, the
  // candidates' own argument check fails on every rank with the same message.
  const Options chosen = plan::wants_tuning(size, options)
                             ? plan::tune(comm, shape, kind, precision, options, report)
                             : options;
  impl_ = std::make_unique<Impl>(comm, shape, kind, precision, chosen);
  impl_->tuning_report = report;
}
Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

int Plan::ndim() const { return impl_->bp.ndim; }
std::vector<std::int64_t> Plan::shape() const { return impl_->user_shape; }
Kind Plan::kind() const { return impl_->bp.kind; }
Precision Plan::precision() const { return impl_->bp.precision; }
std::array<int, 2> Plan::grid() const { return impl_->description.grid; }
Engine Plan::engine() const { return impl_->bp.engine; }
Layout Plan::layout() const { return impl_->bp.layout; }
std::array<int, 2> Plan::grid_position() const {
  const auto& bp = impl_->bp;
  if (bp.ndim == 2) return {bp.position[1], 0};
  return bp.position;
}

namespace {
// Internal 3-D box -> user axes (a 2-D plan drops the leading unit axis).
Box user_box(const Box& b, int ndim) {
  if (ndim == 3) return b;
  Box u;
  u.lo = {b.lo[1], b.lo[2], 0};
  u.hi = {b.hi[1], b.hi[2], 1};
  return u;
}
std::vector<int> user_order(const core::Order& o, int ndim) {
  std::vector<int> r;
  for (int a : o) {
    if (ndim == 2 && a == 0) continue;
    r.push_back(ndim == 2 ? a - 1 : a);
  }
  return r;
}
}  // namespace

Box Plan::input_box() const { return user_box(impl_->bp.real_box, impl_->bp.ndim); }
Box Plan::output_box() const { return user_box(impl_->bp.stages.back().box, impl_->bp.ndim); }
std::vector<int> Plan::input_order() const { return user_order(impl_->bp.stages.front().order, impl_->bp.ndim); }
std::vector<int> Plan::output_order() const { return user_order(impl_->bp.stages.back().order, impl_->bp.ndim); }
std::int64_t Plan::input_count() const { return impl_->bp.input_count(); }
std::int64_t Plan::output_count() const { return impl_->bp.output_count(); }
std::size_t Plan::workspace_bytes() const { return impl_->bp.workspace_bytes(); }
const PlanDescription& Plan::description() const { return impl_->description; }
MPI_Comm Plan::comm() const { return impl_->comm; }
std::vector<int> Plan::row_members() const { return plan::members_in(impl_->comm, impl_->row); }
std::vector<int> Plan::column_members() const { return plan::members_in(impl_->comm, impl_->column); }
std::vector<int> Plan::rank_order() const { return impl_->rank_order; }
const std::string& Plan::tuning_report() const { return impl_->tuning_report; }
int Plan::planes() const { return impl_->options.planes; }

void Plan::forward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, false, Precision::float64));
}
void Plan::forward(const double* in, std::complex<double>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, Precision::float64));
}
void Plan::forward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, false, Precision::float32));
}
void Plan::forward(const float* in, std::complex<float>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, Precision::float32));
}
void Plan::backward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, Precision::float64));
}
void Plan::backward(const std::complex<double>* in, double* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, true, Precision::float64));
}
void Plan::backward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, Precision::float32));
}
void Plan::backward(const std::complex<float>* in, float* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, true, Precision::float32));
}

void Plan::agree_on_problem(const std::string& problem) { plan::agree_or_throw(impl_->comm, problem); }
void Plan::forward_raw(const void* in, void* out) { impl_->call(true, in, out, false, ""); }
void Plan::backward_raw(const void* in, void* out) { impl_->call(false, in, out, false, ""); }
Request Plan::forward_start(const void* in, void* out) {
  impl_->call(true, in, out, true, "");
  return Request(this);
}
Request Plan::backward_start(const void* in, void* out) {
  impl_->call(false, in, out, true, "");
  return Request(this);
}

Request::~Request() {
  if (plan_) {
    try {
      wait();
    } catch (...) {
      // A destructor must not throw; the error was MPI's and the job is lost anyway.
    }
  }
}
Request::Request(Request&& o) noexcept : plan_(o.plan_) { o.plan_ = nullptr; }
Request& Request::operator=(Request&& o) noexcept {
  if (this != &o) {
    if (plan_) {
      try {
        wait();
      } catch (...) {
      }
    }
    plan_ = o.plan_;
    o.plan_ = nullptr;
  }
  return *this;
}
bool Request::test() { return plan_ ? plan_->impl_->test() : true; }
void Request::wait() {
  if (!plan_) return;
  Plan* p = plan_;
  plan_ = nullptr;
  p->impl_->finish();
}

std::vector<Phase> Plan::timings(Direction d) const {
  return d == Direction::forward ? impl_->fwd.phases : impl_->bwd.phases;
}

std::vector<Phase> Plan::timings_max(Direction d) const {
  std::vector<Phase> t = timings(d);
  std::vector<double> v(t.size()), m(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) v[k] = t[k].seconds;
  comm::check_mpi(MPI_Allreduce(v.data(), m.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX,
                                impl_->comm),
                  "MPI_Allreduce");
  for (std::size_t k = 0; k < t.size(); ++k) t[k].seconds = m[k];
  return t;
}

std::size_t Plan::required_workspace_bytes(int comm_size, int rank,
                                           const std::vector<std::int64_t>& shape, Kind kind,
                                           Precision precision, const Options& options) {
  int vrank = rank;
  if (!options.rank_order.empty())
    vrank = static_cast<int>(std::find(options.rank_order.begin(), options.rank_order.end(), rank) -
                             options.rank_order.begin());
  return core::make_blueprint(comm_size, vrank, shape, kind, precision, options).workspace_bytes();
}

std::string version_string() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(lib, &n);
  std::string mpi(lib, n);
  mpi = mpi.substr(0, mpi.find_first_of(",\n"));
  return std::string("volfft 0.1.0 (") + backend::fftw_version() + ", " + mpi + ")";
}

}  // namespace volfft
