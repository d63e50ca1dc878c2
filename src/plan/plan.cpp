// Plan: the facade and its lifecycle. Construction checks and agrees on the arguments, tunes
// (when asked), places the ranks, splits the row and column groups, checks that the engine
// applies, allocates, and builds one Program per direction; every step that can fail on one
// rank is agreed, so all ranks fail alike.
#include "volfft/plan.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <numeric>

#include "backend/fft_batch.hpp"
#include "core/blueprint.hpp"
#include "core/user_axes.hpp"
#include "exchange/exchange.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "mpi/shared_memory.hpp"
#include "plan/placement.hpp"
#include "plan/program.hpp"
#include "core/description.hpp"
#include "core/overlap.hpp"
#include "core/relabel.hpp"
#include "core/folded_backward.hpp"
#include "core/trailing_axes.hpp"
#include "plan/choose_axes.hpp"
#include "plan/stage_ops.hpp"
#include "plan/trailing_transform.hpp"
#include "tune/autotune.hpp"
#include "tune/wisdom.hpp"

namespace volfft {

using core::Index;

namespace {

// The plan's communicators, freed however construction ends (a failed plan leaks nothing).
struct Communicators {
  MPI_Comm all = MPI_COMM_NULL, row = MPI_COMM_NULL, column = MPI_COMM_NULL;
  Communicators() = default;
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;
  ~Communicators() {
    if (mpi::finalized()) return;
    for (MPI_Comm* c : {&row, &column, &all})
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  }
};

// 64-byte aligned scratch of at least `bytes`, for planning and timing; or (raw null) one of the
// plan's own buffers lent for that (allocate()).
struct Scratch {
  std::unique_ptr<unsigned char[]> raw;
  void* data = nullptr;
  Scratch() = default;
  explicit Scratch(std::size_t bytes) : raw(new unsigned char[bytes + 64]()) {
    data = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(raw.get()) + 63) & ~std::uintptr_t(63));
  }
};

// Bytes of an array that can stand in for any of the plan's arrays while planning.
std::size_t scratch_bytes(const core::Blueprint& bp) {
  return static_cast<std::size_t>(std::max({bp.buffer_elements * bp.element_bytes,
                                            bp.input_count() * bp.input_element_bytes(),
                                            bp.output_count() * bp.element_bytes}));
}

// Whether planning runs transforms on arrays (FFTW_MEASURE/PATIENT, or timing the backends):
// FFTW_ESTIMATE plans read and write no array (FFTW's manual), and ducc0 plans none.
bool plans_on_arrays(const Options& o) {
  return o.backend == Backend::automatic || (o.backend == Backend::fftw && o.effort != Effort::estimate);
}

int virtual_rank(const Options& options, int rank) {
  if (options.rank_order.empty()) return rank;
  return static_cast<int>(std::find(options.rank_order.begin(), options.rank_order.end(), rank) -
                          options.rank_order.begin());
}

// Where the plan's ranks run, agreed: the largest group of them on one node (MPI's shared-memory
// node, cut by Options::ranks_per_node), and whether any rank brings a workspace.
struct NodeFacts {
  int largest_node = 1;
  bool user_workspace = false;
  bool one_node(int size) const { return largest_node == size; }
};

NodeFacts node_facts(MPI_Comm comm, const Options& options) {
  MPI_Comm node = mpi::split_by_node(comm, options.ranks_per_node);
  int facts[2] = {0, options.workspace ? 1 : 0};
  MPI_Comm_size(node, &facts[0]);
  MPI_Comm_free(&node);
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, facts, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  return NodeFacts{facts[0], facts[1] != 0};
}

}  // namespace

class Plan::Impl {
 public:
  /// `c_order`: the user's C order in internal axes, for a plan relabelled by
  /// core::none_axes_first; its input (and a natural layout's output) keep it.
  Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind, Precision precision, const Options& options,
       const std::optional<LocalArray>& in = std::nullopt, const std::optional<LocalArray>& out = std::nullopt,
       const std::optional<core::Order>& c_order = std::nullopt, const core::TrailingAxes& trailing = {});
  ~Impl();

  MPI_Comm comm() const { return comms.all; }
  /// "" when arrays of this kind of element fit the plan, else the message.
  std::string type_error(bool forward, bool real_in, bool real_out, Precision precision) const;
  /// Checks the call's arguments on every rank together, then runs it (split: starts it).
  void call(bool forward, const void* in, void* out, bool split, const std::string& type_problem);
  void finish();
  bool test();

  Communicators comms;
  core::Blueprint bp;
  PlanDescription description;
  std::vector<Index> user_shape;
  // A plan on user arrays may run with its axes relabelled (core/relabel.hpp): internal axis a
  // is the user's axis axes[a]; the accessors map back.
  core::Axes axes = core::kSameAxes;
  std::vector<int> rank_order;  // rank of comm at each virtual position
  std::string tuning_report;
  Options options;              // as given (after a map file became a rank order), tuned
  std::unique_ptr<unsigned char[]> owned;
  std::unique_ptr<mpi::SharedWorkspace> shared;  // engine node: buffers partners can read
  plan::Buffers w{nullptr, nullptr, nullptr, nullptr};
  std::unique_ptr<plan::Program> fwd, bwd;
  plan::Program* pending = nullptr;  // the program of a split-phase call until finish()
  // The pending call's Request was destroyed while its rank unwound from an exception: the call
  // is never completed (completing it would wait for ranks that may never come), so the plan
  // takes no more calls and its destructor leaves the buffers to the process, as while unwinding.
  bool abandoned = false;

  // The user's own arrays (the constructor with LocalArrays): reshape_in goes from the user's
  // input array to the plan's first stage (execute; backward: reverse), reshape_out from the
  // plan's last stage to the user's output array; null where the arrays are the plan's own. The
  // transform between them runs on staging arrays (one, in place).
  LocalArray user_in, user_out;
  std::unique_ptr<Reshape> reshape_in, reshape_out;
  std::unique_ptr<unsigned char[]> staging;
  void* stage_in = nullptr;
  void* stage_out = nullptr;
  std::size_t staging_bytes = 0;
  double reshape_seconds[2][2] = {{0, 0}, {0, 0}};  // [forward, backward][before, after]
  void* pending_out = nullptr;                      // the user's output of a split-phase call

  // An N-D plan (core/trailing_axes.hpp): this is the plan of its first three axes, and each
  // direction ends with the transforms of the axes after them, in place on the output.
  core::TrailingAxes trailing;
  std::unique_ptr<plan::TrailingTransform> trailing_fwd, trailing_bwd;
  double trailing_seconds[2] = {0, 0};  // [forward, backward]
  /// The trailing axes' transforms of a direction on its output (nothing for 2-D/3-D plans).
  void transform_trailing(bool forward, void* out);

  Index user_input_count() const { return user_in.storage.size() * bp.fields; }
  Index user_output_count() const { return user_out.storage.size() * bp.fields; }
  Index user_in_place_bytes() const {
    return std::max(user_input_count() * bp.input_element_bytes(),
                    user_output_count() * bp.element_bytes);
  }
  /// A plan made in relabelled axes reports in the user's: its accessors and description map back.
  void report_in_user_axes(const core::Axes& relabelling, const std::vector<Index>& shape) {
    if (relabelling == core::kSameAxes) return;
    axes = relabelling;
    user_shape = shape;
    core::to_user(description, axes);
  }
  /// The reshape after the program of a direction (the user's output side), if any.
  void reshape_after(bool forward, void* out);

 private:
  void fit_user_arrays(const std::optional<LocalArray>& in, const std::optional<LocalArray>& out);
  void adopt_user_arrays(const std::optional<LocalArray>& in, const std::optional<LocalArray>& out);
  void allocate(std::array<Scratch, 3>& scratch);
  void resolve_backend(std::array<Scratch, 3>& scratch);
};

Plan::Impl::Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind, Precision precision,
                 const Options& given, const std::optional<LocalArray>& in, const std::optional<LocalArray>& out,
                 const std::optional<core::Order>& c_order, const core::TrailingAxes& trailing_axes)
    : user_shape(shape), trailing(trailing_axes) {
  mpi::check(MPI_Comm_dup(user_comm, &comms.all), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comms.all, MPI_ERRORS_RETURN);
  const MPI_Comm comm = comms.all;
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);

  // A placement from a map file becomes a rank order (collective, fails alike everywhere).
  options = given;
  // Minimum memory: the engine without a send area, and FFTW plans that need no arrays.
  if (options.min_memory && options.engine == Engine::automatic) options.engine = Engine::alltoallw;
  if (options.min_memory && options.backend == Backend::fftw) options.effort = Effort::estimate;
  if (options.wisdom_file.empty())
    if (const char* env = std::getenv("VOLFFT_WISDOM")) options.wisdom_file = env;
  // map_file and rank_order are the same on every rank (Plan compared them as given), so this
  // fails on every rank alike.
  if (!options.map_file.empty() && !options.rank_order.empty())
    throw Error("volfft: give either rank_order or map_file, not both");
  if (!options.map_file.empty()) options.rank_order = plan::rank_order_from_map_file(comm, options.map_file, options.coordinate);

  const NodeFacts where = node_facts(comm, options);
  // Validate locally, then agree collectively, before anything can diverge between ranks:
  // tuning, too, reads only agreed arguments. After tuning the chosen configuration is agreed
  // once more (this rank's blueprint and workspace for it).
  auto agree_on_blueprint = [&] {
    std::string local_error;
    std::size_t needed = 0;
    try {
      bp = core::make_blueprint(size, virtual_rank(options, rank), shape, kind, precision, options, true,
                                where.one_node(size));
      const std::string backend_problem = backend::backend_problem(options.backend);
      if (!backend_problem.empty()) throw Error(backend_problem);
      needed = bp.workspace_bytes();
    } catch (const Error& e) {
      local_error = e.what();
    }
    mpi::agree_on_arguments(comm, shape, kind, precision, options, local_error, needed);
  };
  agree_on_blueprint();
  if (!options.wisdom_file.empty()) tune::check_wisdom_path(comm, options.wisdom_file);
  const bool engine_by_rule = options.engine == Engine::automatic && !tune::wants_tuning(size, options);
  if (engine_by_rule) {
    options.engine = core::choose_engine(size, where.largest_node, where.user_workspace);
    agree_on_blueprint();
    // The node engine chosen by rule, not by the user, must not turn a small /dev/shm (a
    // container's 64 MB) into an error: its shared memory is made now, and where any node
    // could not make it (agreed: every rank sees the same failure) the plan takes the rule's
    // other engine instead. allocate() keeps what was made here.
    if (bp.engine == Engine::node && bp.buffer_count > 0) {
      try {
        shared = std::make_unique<mpi::SharedWorkspace>(comm, options.ranks_per_node, bp.workspace_bytes());
      } catch (const Error&) {
        options.engine = Engine::alltoallv;
        agree_on_blueprint();
      }
    }
  }
  if (tune::wants_tuning(size, options)) {
    options = tune::tune(comm, shape, kind, precision, options, tuning_report, in, out);
    agree_on_blueprint();
  }
  rank_order = options.rank_order;
  if (rank_order.empty()) {
    rank_order.resize(size);
    std::iota(rank_order.begin(), rank_order.end(), 0);
  }
  fit_user_arrays(in, out);
  if (c_order) core::keep_user_c_order(bp, *c_order);
  // Its buffer was sized for a folded backward, which needs the arrays in C order (relabelled
  // axes are c2c plans' alone: choose_axes).
  if (bp.folded_backward && !core::folds_backward(bp, options))
    throw std::logic_error("volfft: a folded backward's arrays changed order after planning");
  description = core::describe_internal(size, shape, kind, precision, options, c_order);
  description.input_order = core::user_order(bp.input_order, bp.ndim);
  description.output_order = core::user_order(bp.stages.back().order, bp.ndim);
  mpi::check(MPI_Comm_split(comm, bp.position[0], bp.position[1], &comms.row), "MPI_Comm_split");
  mpi::check(MPI_Comm_split(comm, bp.position[1], bp.position[0], &comms.column), "MPI_Comm_split");
  MPI_Comm_set_errhandler(comms.row, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(comms.column, MPI_ERRORS_RETURN);

  // Each engine's own check of whether it applies (counts, MPI features), agreed.
  auto forward_setups = plan::exchange_setups(bp, options, true, comms.row, comms.column);
  auto backward_setups = plan::exchange_setups(bp, options, false, comms.row, comms.column);
  std::string why;
  for (const auto* setups : {&forward_setups, &backward_setups})
    for (const auto& s : *setups)
      if (why.empty()) why = exchange::applies(bp.engine, s);
  mpi::agree_or_throw(comm, why);

  // An N-D plan's trailing axes, for the FFT batches that can take them too (stage_ops.hpp).
  bp.trailing = trailing;

  // FFTW_MEASURE overwrites what it plans on and the user's arrays do not exist yet: planning
  // (and timing backends) uses the plan's own buffers where they are large enough, else
  // scratch arrays, 64-byte aligned like the buffers, allocated with them (agreed) and freed
  // after (allocate()).
  std::array<Scratch, 3> scratch;
  allocate(scratch);
  resolve_backend(scratch);
  Scratch &plan_in = scratch[0], &plan_out = scratch[1];
  // 1/N with N the product of the axes' logical sizes (a DCT of n points counts 2n), the trailing
  // axes' too: the leading plan applies all of it.
  const double one_over_n = 1.0 / (static_cast<double>(bp.logical_elements()) * trailing.logical);
  fwd = std::make_unique<plan::Program>(comm, bp, options, true, w, std::move(forward_setups),
                                        bp.scale_forward ? one_over_n : 1.0, plan_in.data, plan_out.data);
  bwd = std::make_unique<plan::Program>(comm, bp, options, false, w, std::move(backward_setups),
                                        bp.scale_backward ? one_over_n : 1.0, plan_in.data, plan_out.data);
  if (!trailing.empty()) {
    // An element's trailing axes are transformed by the rank that runs its first forward FFTs
    // where those take them, else by the rank that holds it in the output: every rank must
    // decide alike (stage_ops decides by global facts; this checks it, and where ranks differ,
    // which would be a bug, makes the programs again without fused axes).
    int fused[2] = {fwd->fuses_trailing() ? 1 : 0, bwd->fuses_trailing() ? 1 : 0}, least[2] = {0, 0}, most[2] = {0, 0};
    mpi::check(MPI_Allreduce(fused, least, 2, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    mpi::check(MPI_Allreduce(fused, most, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    if (least[0] != most[0] || least[1] != most[1]) {
      bp.trailing = {};
      fwd = std::make_unique<plan::Program>(comm, bp, options, true, w,
                                            plan::exchange_setups(bp, options, true, comms.row, comms.column),
                                            bp.scale_forward ? one_over_n : 1.0, plan_in.data, plan_out.data);
      bwd = std::make_unique<plan::Program>(comm, bp, options, false, w,
                                            plan::exchange_setups(bp, options, false, comms.row, comms.column),
                                            bp.scale_backward ? one_over_n : 1.0, plan_in.data, plan_out.data);
    }
  }
  adopt_user_arrays(in, out);
  // The trailing axes of a direction whose FFT batches do not take them (stage_ops.hpp). Every
  // rank goes in: the scratch is agreed.
  if (!trailing.empty()) {
    // Each direction's output: the forward the output array, the backward the input array (the
    // user's, when given). Planned on the first planning array where it holds either side, else
    // on scratch of their size (a user's box may be larger than the plan's own).
    const Index points_fwd = user_out.storage.size(), points_bwd = user_in.storage.size();
    const std::size_t bytes = static_cast<std::size_t>(std::max(points_fwd, points_bwd) * bp.fields * bp.element_bytes);
    Scratch own;
    void* planning = plan_in.data;
    std::string problem;  // agreed on every rank, whether it allocated or not
    const bool needed = !fwd->fuses_trailing() || !bwd->fuses_trailing();
    if (needed && plans_on_arrays(options) && bytes > scratch_bytes(bp)) {
      try {
        own = Scratch(bytes);
        planning = own.data;
      } catch (const std::bad_alloc&) {
        problem = "volfft: could not allocate " + std::to_string(bytes) + " bytes of planning scratch for the "
                  "trailing axes (freed after planning)";
      }
    }
    mpi::agree_or_throw(comm, problem);
    if (!fwd->fuses_trailing())
      trailing_fwd = std::make_unique<plan::TrailingTransform>(trailing, bp.kind, bp.precision, options, points_fwd,
                                                               true, planning);
    if (!bwd->fuses_trailing())
      trailing_bwd = std::make_unique<plan::TrailingTransform>(trailing, bp.kind, bp.precision, options, points_bwd,
                                                               false, planning);
  }
}

void Plan::Impl::transform_trailing(bool forward, void* out) {
  const auto& t = forward ? trailing_fwd : trailing_bwd;
  if (!t) return;  // none, or in the plan's FFT batches
  const double t0 = mpi::now();
  t->run(out);
  trailing_seconds[forward ? 0 : 1] = mpi::now() - t0;
}

namespace {

// The engine a plan's reshapes run on: the plan's own where it can reshape (reshape.hpp).
Engine reshape_engine(Engine e) {
  switch (e) {
    case Engine::alltoallv:
    case Engine::alltoall:
    case Engine::alltoallw:
    case Engine::p2p:
    case Engine::persistent:
      return e;
    default:
      return Engine::alltoallv;
  }
}

// Whether two arrays of a rank are the same memory layout of the same box.
// The array around a LocalArray's box (its storage; all zero means the box itself).
Box storage_of(const LocalArray& a) { return a.storage == Box{} ? a.box : a.storage; }

// Whether a LocalArray's array is its box and no larger (an empty box's array holds nothing).
bool tight(const LocalArray& a) {
  const Box s = storage_of(a);
  return s == a.box || (a.box.empty() && s.empty());
}

bool same_array(const LocalArray& a, const LocalArray& b, int ndim) {
  auto order = [&](const LocalArray& x) {
    std::vector<int> o = x.order;
    if (o.empty())
      for (int k = 0; k < ndim; ++k) o.push_back(k);
    return o;
  };
  if (a.box.empty() && b.box.empty()) return storage_of(a).size() == storage_of(b).size();
  return a.box == b.box && order(a) == order(b) && storage_of(a) == storage_of(b);
}

}  // namespace

// A user's array that holds the plan's own box and differs only in memory order (the output:
// FFTW-MPI's transposed layout is volfft's slab output in another order; a c2c input, such as a
// brick in the plan's relabelled axes, core/relabel.hpp) or in the length of its rows (an r2c
// input in C order with FFTW's padded rows) needs no reshape: the
// plan lays its last stage out in the user's order, or reads and writes its input with the
// user's strides. Decided on every rank together, since the blueprints of all ranks must agree.
// Not for padded plans, nor an in-place plan's input (its rows follow the in-place rule), nor an
// output whose array is larger than its box, nor a one-stage plan's output (its order is the
// input's).
void Plan::Impl::fit_user_arrays(const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  const int ndim = bp.ndim;
  auto valid_order = [&](const std::vector<int>& o) {
    std::vector<int> sorted = o;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != static_cast<int>(k)) return false;
    return o.empty() || static_cast<int>(o.size()) == ndim;
  };
  auto c_order = [](const std::vector<int>& o) { return std::is_sorted(o.begin(), o.end()); };
  auto same_box = [](const Box& a, const Box& b) { return a == b || (a.empty() && b.empty()); };
  auto internal_box = [&](const Box& u) {
    if (ndim == 3) return u;
    Box b;
    b.lo = {0, u.lo[0], u.lo[1]};
    b.hi = {1, u.hi[0], u.hi[1]};
    return b;
  };
  auto internal_order = [&](const std::vector<int>& user) {
    core::Order order{0, 1, 2};
    for (std::size_t k = 0; k < user.size(); ++k) order[3 - ndim + k] = user[k] + 3 - ndim;
    return order;
  };
  // What fits on this rank, then on every rank (MIN: the blueprints of all ranks must agree; a
  // rank that gives no array fits nothing, and adopt_user_arrays reports it).
  enum { r2c_padded_rows, c2c_input_order, output_order };
  int fits[3] = {0, 0, 0};
  const bool multi_stage = !bp.in_place && !bp.padded && bp.stages.size() > 1;
  if (multi_stage && in && valid_order(in->order) && same_box(in->box, core::user_box(bp.real_box, ndim))) {
    const LocalArray& a = *in;
    const Box storage = storage_of(a);
    if (bp.kind == Kind::r2c && c_order(a.order)) {
      // Only rows padded at their end (FFTW's layout): the r2c reads whole rows from their start,
      // so ghost layers before the box, or around it on other axes, still go through a reshape.
      bool padded_rows = storage.contains(a.box);
      for (int k = 0; k < ndim; ++k)
        padded_rows = padded_rows && storage.lo[k] == a.box.lo[k] && (k == ndim - 1 || storage.hi[k] == a.box.hi[k]);
      fits[r2c_padded_rows] = a.box.empty() || padded_rows;  // an empty box reads nothing
    }
    // A c2c input in another memory order: the first stage's array takes that order (its backward
    // writes the user's array as that stage's), and the first exchange reads it so.
    if (bp.kind != Kind::r2c && !c_order(a.order)) fits[c2c_input_order] = tight(a);
  }
  if (!bp.padded && bp.stages.size() > 1 && out && valid_order(out->order))
    fits[output_order] = same_box(out->box, core::user_box(bp.stages.back().box, ndim)) && tight(*out);
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, fits, 3, MPI_INT, MPI_MIN, comms.all), "MPI_Allreduce");
  if (fits[r2c_padded_rows] && !in->box.empty()) bp.real_storage = internal_box(storage_of(*in));
  if (fits[c2c_input_order]) core::take_input_order(bp, internal_order(in->order));
  if (fits[output_order]) core::take_output_order(bp, internal_order(out->order));
}

void Plan::Impl::adopt_user_arrays(const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  const MPI_Comm comm = comms.all;
  const int ndim = bp.ndim;
  LocalArray plan_in, plan_out;
  plan_in.box = core::user_box(bp.real_box, ndim);
  plan_in.order = core::user_order(bp.input_order, ndim);
  plan_in.storage = core::user_box(bp.real_storage, ndim);
  plan_out.box = plan_out.storage = core::user_box(bp.stages.back().box, ndim);
  plan_out.order = core::user_order(bp.stages.back().order, ndim);
  user_in = plan_in, user_out = plan_out;

  // Whether arrays were given is the same on every rank (agree_as_given).
  if (!in && !out) return;  // (a workspace with user arrays was refused by agreed_split)
  // A side is reshaped unless the user's arrays are the plan's own on every rank (cheap to
  // check; the Reshape checks the covers themselves).
  int differs[2] = {in && !same_array(*in, plan_in, ndim) ? 1 : 0, out && !same_array(*out, plan_out, ndim) ? 1 : 0};
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, differs, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (bp.in_place && (differs[0] || differs[1])) differs[0] = differs[1] = 1;  // one staging array between
  // An empty box is the same (empty) array as any other of no storage (same_array), so it needs
  // no reshape; still report the user's box, not the plan's empty one: the caller's arrays have
  // its shape (input_box(), the Python arrays' shapes).
  if (in && !differs[0] && in->box.empty()) user_in.box = in->box, user_in.storage = storage_of(*in);
  if (out && !differs[1] && out->box.empty()) user_out.box = out->box, user_out.storage = storage_of(*out);
  if (!differs[0] && !differs[1]) return;

  Options ro;
  ro.engine = options.tune > 0 && options.engine == Engine::automatic ? Engine::automatic : reshape_engine(bp.engine);
  ro.tune = options.tune, ro.threads = options.threads;
  ro.batch = options.batch, ro.batch_layout = options.batch_layout;
  std::vector<Index> spectrum;
  for (int a = 3 - ndim; a < 3; ++a) spectrum.push_back(bp.kept_length(a));
  const Values input_values = bp.kind == Kind::c2c ? Values::complex : Values::real;
  const Values output_values = bp.real_values() ? Values::real : Values::complex;
  // The Reshape checks the user's arrays (its in array is the plan's in, its out array the plan's
  // out) and starts its messages "volfft::Reshape: "; the caller made a Plan. Its errors are
  // agreed, so every rank renames the same text.
  auto as_plan = [](auto make) {
    try {
      return make();
    } catch (const Error& e) {
      static const std::string reshape = "volfft::Reshape: ";
      const std::string m = e.what();
      if (m.rfind(reshape, 0) == 0) throw Error("volfft::Plan: " + m.substr(reshape.size()));
      throw;
    }
  };
  if (differs[0])
    reshape_in = as_plan([&] {
      return std::make_unique<Reshape>(comm, user_shape, in ? *in : plan_in, plan_in, bp.precision, input_values, ro);
    });
  if (differs[1])
    reshape_out = as_plan([&] {
      return std::make_unique<Reshape>(comm, spectrum, plan_out, out ? *out : plan_out, bp.precision, output_values,
                                       ro);
    });
  if (reshape_in) user_in = reshape_in->input();
  if (reshape_out) user_out = reshape_out->output();
  // The reshapes' messages between virtual ranks, for the description (and so the model).
  std::vector<int> position(rank_order.size());
  for (std::size_t g = 0; g < rank_order.size(); ++g) position[static_cast<std::size_t>(rank_order[g])] = static_cast<int>(g);
  auto describe_reshape = [&](const Reshape& r, const char* name, Index element_bytes) {
    ExchangeDescription d;
    d.name = name;
    for (std::size_t a = 0; a < r.input_boxes().size(); ++a)
      for (std::size_t b = 0; b < r.output_boxes().size(); ++b) {
        const Index n = r.input_boxes()[a].intersect(r.output_boxes()[b]).size();
        if (a != b && n > 0)
          d.messages.push_back({position[a], position[b], n * element_bytes * bp.fields});
      }
    description.reshapes.push_back(std::move(d));
  };
  if (reshape_in) describe_reshape(*reshape_in, "reshape_in", bp.input_element_bytes());
  if (reshape_out) describe_reshape(*reshape_out, "reshape_out", bp.element_bytes);

  // Staging, 64-byte aligned like the plan's buffers: the plan's input and output arrays.
  const Index in_bytes = bp.input_count() * bp.input_element_bytes();
  const Index out_bytes = bp.output_count() * bp.element_bytes;
  const Index in_area = reshape_in ? (in_bytes + 63) / 64 * 64 : 0;
  staging_bytes = static_cast<std::size_t>(bp.in_place ? bp.in_place_bytes() + 64 : in_area + (reshape_out ? out_bytes : 0) + 64);
  std::string problem;
  try {
    staging.reset(new unsigned char[staging_bytes]);
  } catch (const std::bad_alloc&) {
    problem = "volfft: could not allocate the staging arrays of " + std::to_string(staging_bytes) +
              " bytes for the user arrays' reshapes";
  }
  mpi::agree_or_throw(comm, problem);
  auto* base = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(staging.get()) + 63) &
                                                ~static_cast<std::uintptr_t>(63));
  if (bp.in_place) {
    stage_in = stage_out = base;
  } else {
    if (reshape_in) stage_in = base;
    if (reshape_out) stage_out = base + in_area;
  }
}

void Plan::Impl::reshape_after(bool forward, void* out) {
  Reshape* r = forward ? reshape_out.get() : reshape_in.get();
  if (!r) return;
  const double t0 = mpi::now();
  if (forward)
    r->execute(stage_out, out);
  else
    r->reverse(stage_in, out);
  reshape_seconds[forward ? 0 : 1][1] = mpi::now() - t0;
}

Plan::Impl::~Impl() {
  // A split-phase call still under way completes first (its messages use the plan's buffers),
  // unless this rank is unwinding from an exception: completing would wait for ranks that may
  // never come, so the buffers and requests are left to the process (leaked, never freed under
  // MPI's feet) and the destructor returns at once.
  if (pending && (abandoned || std::uncaught_exceptions() > 0)) {
    (void)fwd.release(), (void)bwd.release(), (void)owned.release(), (void)shared.release();
    return;
  }
  // After MPI_Finalize (a plan that outlives it, as one in main's scope does) no MPI call may
  // run: a split-phase call is not completed, and the members free no MPI object
  // (mpi::finalized; the shared memory is unmapped without MPI) but their memory as always.
  if (pending && !mpi::finalized()) {
    try {
      finish();
    } catch (...) {
    }
  }
  // Members go in reverse order: the programs (exchanges, readers of shared memory) before the
  // buffers and the shared memory, the communicators last. Nothing here communicates, so a plan
  // destroyed on one rank alone (unwinding from an exception) never waits for the others.
}

void Plan::Impl::resolve_backend(std::array<Scratch, 3>& scratch) {
  if (options.backend != Backend::automatic) return;
  const std::size_t bytes = scratch_bytes(bp);
  Scratch &a = scratch[0], &b = scratch[1], &c = scratch[2];
  options.backend = backend::choose_backend(comm(), [&](Backend candidate) {
    Options o = options;
    o.backend = candidate;
    // Planned on each rank apart and agreed before the timing's collective (plan::Program's rule).
    plan::StageOps ops;
    mpi::run_agreed(comm(), [&] { ops = plan::make_stage_ops(bp, o, 0, false, bp.stages[0].box_in, a.data, b.data, false); });
    std::memset(a.data, 0, bytes);
    return backend::best_seconds(0, 3, [&] { ops.run(a.data, c.data, b.data); });
  });
}

void Plan::Impl::allocate(std::array<Scratch, 3>& scratch) {
  // Every rank's allocation succeeds or every rank fails with the same message (agreed).
  // Engine node: the buffers go into memory shared by the node's ranks (collective and agreed
  // inside, so every rank takes part, with 0 bytes when it brings its own workspace). First, so
  // that no rank can have left for a local failure while the others wait in it.
  if (bp.engine == Engine::node && bp.buffer_count > 0 && !shared)
    shared = std::make_unique<mpi::SharedWorkspace>(comm(), options.ranks_per_node,
                                                    options.workspace ? 0 : bp.workspace_bytes());
  std::string problem;
  unsigned char* base = nullptr;
  // Two arrays to plan FFTs on (FFTW_MEASURE writes what it plans on), a third to time backends
  // on when the backend is chosen by timing. The plan's own buffers serve where they are large
  // enough: they hold nothing yet, and scratch beside them would raise the peak memory of
  // planning by up to three arrays (the peak a memory-bound run is sized by). Scratch, freed after
  // planning, only for the rest.
  // None where nothing is measured (plans_on_arrays): any distinct 64-byte-aligned addresses
  // serve the planner then (below), so an estimated plan's peak memory is its data and workspace.
  const bool measured = plans_on_arrays(options);
  const std::size_t planning_arrays = !measured ? 0u : options.backend == Backend::automatic ? 3u : 2u;
  const std::size_t buffer_bytes = static_cast<std::size_t>(bp.buffer_elements * bp.element_bytes);
  // Planning arrays 0 .. lent-1 are buffers 0 .. lent-1; the others are scratch. Not where a
  // one-rank stage will be timed whole against split (plane_split_timing) with a buffer for its
  // array: the timing runs input, array and output at once, and a buffer lent as the input would
  // time two arrays where the transform uses three (an r2c backward's copy of the input became a
  // no-op, and the timing chose the way that ran up to 1.17x slower at 128^3).
  const bool timed_on_buffer = [&] {
    Options o = options;
    if (o.backend == Backend::automatic) o.backend = Backend::fftw;  // the timing's backend if chosen
    for (bool forward : {true, false})
      for (std::size_t s = 0; s < bp.stages.size(); ++s)
        if (plan::plane_split_timing(bp, o, s, !forward) != plan::SplitTiming::by_rule &&
            !core::array_of(bp, forward, s).user_output)
          return true;
    return false;
  }();
  const std::size_t lent = buffer_bytes >= scratch_bytes(bp) && !timed_on_buffer
                               ? std::min(planning_arrays, static_cast<std::size_t>(bp.buffer_count))
                               : 0;
  const std::size_t scratch_count = planning_arrays - lent;
  try {
    for (std::size_t k = lent; k < planning_arrays; ++k) scratch[k] = Scratch(scratch_bytes(bp));
    if (!measured) scratch[0] = Scratch(64);  // an address for the planner, never read or written
    if (options.workspace) {
      base = static_cast<unsigned char*>(options.workspace);
    } else if (shared) {
      base = static_cast<unsigned char*>(shared->data());
    } else if (bp.buffer_count > 0) {
      owned.reset(new unsigned char[bp.workspace_bytes()]);
      base = owned.get();
    }
  } catch (const std::bad_alloc&) {
    problem = "volfft: could not allocate the plan's workspace of " +
              std::to_string(options.workspace ? 0 : bp.workspace_bytes()) + " bytes (Plan::workspace_bytes()) and " +
              std::to_string(scratch_count * (scratch_bytes(bp) + 64)) +
              " bytes of planning scratch (freed after planning); use more ranks or pass Options::workspace";
  } catch (const MpiError& e) {
    problem = e.what();
  }
  mpi::agree_or_throw(comm(), problem);
  // 64-byte aligned buffers: FFTW's SIMD plans are made for them.
  for (int b = 0; b < bp.buffer_count; ++b) {
    auto p = reinterpret_cast<std::uintptr_t>(base);
    p = (p + 63) & ~static_cast<std::uintptr_t>(63);
    w[static_cast<std::size_t>(b)] = reinterpret_cast<void*>(p);
    base = reinterpret_cast<unsigned char*>(p) + buffer_bytes;
  }
  for (std::size_t k = 0; k < lent; ++k) scratch[k].data = w[k];
  // Three planning "arrays" that do not overlap, as FFTW's planner wants to see them (it tells in-place
  // from out-of-place plans by their addresses): addresses only, formed as integers, never
  // dereferenced, since an estimated plan touches no array.
  if (!measured) {
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(scratch[0].data);
    const std::uintptr_t span = (scratch_bytes(bp) + 63) / 64 * 64 + 64;
    for (std::size_t k = 1; k < 3; ++k) scratch[k].data = reinterpret_cast<void*>(base + span * k);
  }
}

std::string Plan::Impl::type_error(bool forward, bool real_in, bool real_out, Precision precision) const {
  const char* call = forward ? "forward" : "backward";
  if (precision != bp.precision)
    return std::string("volfft: ") + call + ": the plan's precision is " + to_string(bp.precision) +
           ", so its arrays must hold " + to_string(bp.precision) + " values; got " + to_string(precision) +
           " ones";
  // Real sides: the forward input of r2c and r2r plans, and an r2r plan's spectral side too.
  const bool real_input = bp.kind != Kind::c2c, real_spectrum = bp.kind == Kind::r2r;
  const bool want_in = forward ? real_input : real_spectrum, want_out = forward ? real_spectrum : real_input;
  auto values = [](bool real) { return real ? "real" : "complex"; };
  for (const bool input : {true, false}) {
    const bool want = input ? want_in : want_out, got = input ? real_in : real_out;
    if (want != got)
      return std::string("volfft: ") + call + (bp.kind == Kind::c2c ? " of a " : " of an ") + to_string(bp.kind) +
             " plan needs a " + values(want) + " " +
             (input ? "input" : "output") + " array; got a " + values(got) + " one";
  }
  return "";
}

void Plan::Impl::call(bool forward, const void* in, void* out, bool split, const std::string& type_problem) {
  // Local problems become everyone's error (one small MPI_Allreduce), so a rank that catches
  // it cannot leave the others waiting in an exchange. The direction rides along: ranks that
  // call different directions fail together instead of exchanging garbage.
  std::string problem = type_problem;
  const char* name = forward ? (split ? "forward_start" : "forward") : (split ? "backward_start" : "backward");
  const Index in_count = forward ? user_input_count() : user_output_count();
  const Index out_count = forward ? user_output_count() : user_input_count();
  if (problem.empty() && ((in == nullptr && in_count > 0) || (out == nullptr && out_count > 0)))
    problem = std::string("volfft: ") + name + " needs non-null in and out arrays";
  if (problem.empty() && bp.in_place && in != out)
    problem = std::string("volfft: ") + name + " of an in-place plan (Options::in_place) needs in == out: one array of "
              "Plan::in_place_bytes() bytes";
  if (problem.empty() && !bp.in_place && in == out && in != nullptr)
    problem = std::string("volfft: ") + name + " of this plan is out-of-place: in and out must differ (make the plan "
              "with Options::in_place to transform one array)";
  // Arrays that share bytes without being one: the transform would read values it has already
  // overwritten (at one rank the FFTs run from one into the other), silently.
  const Index in_bytes = in_count * (forward ? bp.input_element_bytes() : bp.element_bytes);
  const Index out_bytes = out_count * (forward ? bp.element_bytes : bp.input_element_bytes());
  if (problem.empty() && !bp.in_place && core::overlapping(in, in_bytes, out, out_bytes))
    problem = std::string("volfft: ") + name + ": in and out overlap (" + std::to_string(in_bytes) + " and " +
              std::to_string(out_bytes) + " bytes on this rank); an out-of-place plan needs two separate arrays";
  if (problem.empty() && pending)
    problem = abandoned ? "volfft: this plan's split-phase transform was abandoned (its request was destroyed while "
                          "an exception unwound, without wait()); the plan takes no more calls: make a new one"
                        : "volfft: this plan has a split-phase transform in progress: wait() for it first";
  const int call_id = (forward ? 1 : 2) + (split ? 2 : 0);
  mpi::agree_or_throw(comm(), problem, call_id,
                      "volfft: ranks made different calls on one plan (forward/backward, blocking/split-phase); "
                      "every rank must make the same call");
  plan::Program& p = forward ? *fwd : *bwd;
  // User arrays: the user's input reshaped into the plan's (staging), the output through
  // staging to the user's after the program.
  Reshape* before = forward ? reshape_in.get() : reshape_out.get();
  const void* src = in;
  if (before) {
    const double t0 = mpi::now();
    void* stage = forward ? stage_in : stage_out;
    if (forward)
      before->execute(in, stage);
    else
      before->reverse(in, stage);
    reshape_seconds[forward ? 0 : 1][0] = mpi::now() - t0;
    src = stage;
  }
  void* dst = (forward ? reshape_out : reshape_in) ? (forward ? stage_out : stage_in) : out;
  if (!split) {
    p.run(src, dst);
    reshape_after(forward, out);
    transform_trailing(forward, out);
    return;
  }
  p.start(src, dst);
  pending = &p;
  pending_out = out;
}

void Plan::Impl::finish() {
  if (!pending) return;
  plan::Program* p = pending;
  pending = nullptr;
  p->finish();
  reshape_after(p == fwd.get(), pending_out);
  transform_trailing(p == fwd.get(), pending_out);
}

bool Plan::Impl::test() { return !pending || pending->test(); }

// ---------------------------------------------------------------------------------------------

namespace {

// A user's array of an N-D plan as the leading plan takes it: its box, storage and order are
// those of the first three axes, the trailing axes whole and last (an order of all N axes must
// end with them in order); no ghost layers or padding, which the trailing transforms would
// overwrite.
void to_leading(std::optional<LocalArray>& a, std::size_t ndim, const char* name) {
  if (!a || ndim <= 3) return;
  const std::string which = std::string("volfft: the ") + name + " array of a plan of " + std::to_string(ndim) + " axes";
  if (a->order.size() == ndim) {
    for (std::size_t k = 3; k < ndim; ++k)
      if (a->order[k] != static_cast<int>(k))
        throw Error(which + " must hold its trailing axes (3 and up) last, in order; got another order");
    a->order.resize(3);
  } else if (!a->order.empty() && a->order.size() != 3) {
    throw Error(which + " takes an order of 3 entries (the first three axes) or " + std::to_string(ndim) + "; got " +
                std::to_string(a->order.size()));
  }
  if (a->storage != Box{} && a->storage != a->box)
    throw Error(which + " takes no ghost layers or padding (storage must be the box)");
}

// The leading plan of `shape` (core/trailing_axes.hpp), agreed: the checks of N-D arguments fail
// on every rank alike (that the ranks passed the same shape and kinds, agree_as_given has
// checked). User arrays (when given) become the leading plan's. Collective.
core::LeadingPlan agreed_split(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, const Options& options,
                               std::optional<LocalArray>* in = nullptr, std::optional<LocalArray>* out = nullptr) {
  core::LeadingPlan split;
  std::string problem;
  try {
    // Before the workspace's size is checked (which a caller would then try to fix in vain).
    if (((in && *in) || (out && *out)) && options.workspace)
      throw Error("volfft: Options::workspace does not combine with user arrays (the plan allocates the staging "
                  "arrays and reshape areas itself); leave it null");
    split = core::split_trailing_axes(shape, kind, options);
    if (in) to_leading(*in, shape.size(), "input");
    if (out) to_leading(*out, shape.size(), "output");
  } catch (const Error& e) {
    problem = e.what();
  }
  mpi::agree_or_throw(comm, problem);
  return split;
}

// The arguments as the user gave them, compared between ranks before anything reads them: the
// split into leading and trailing axes and the relabelling of axes (core/relabel.hpp) follow
// from them, so where ranks differ, what the plan agrees on later is no longer what they passed
// (a shape they never gave, in another order, or only its first three axes), and a different
// ranks_per_node would part the ranks at the node split. Whether each rank gave an in and an out
// array is compared too: the two constructors (and a plan with arrays on some sides) run
// different collectives after this. Validation comes later; here only the comparison (one
// MPI_Allgather, one MPI_Allreduce).
void agree_as_given(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                    const Options& options, bool in_given = false, bool out_given = false) {
  mpi::agree_on_arguments(comm, shape, kind, precision, options, "", 0);
  int given[4] = {in_given, out_given, -int{in_given}, -int{out_given}};
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, given, 4, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  for (int side = 0; side < 2; ++side)
    if (given[side] != -given[side + 2])
      throw Error(std::string("volfft: the ") + (side == 0 ? "in" : "out") +
                  " array is given on some ranks but not on others (every rank passes one, or none: a rank "
                  "that holds nothing passes an empty box)");
}

}  // namespace

Plan::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
           const Options& options) {
  mpi::require_communicator(comm, "volfft::Plan");
  agree_as_given(comm, shape, kind, precision, options);
  // An N-D plan is the plan of its first three axes with the rest as interleaved fields.
  const core::LeadingPlan split = agreed_split(comm, shape, kind, options);
  // Untransformed axes go first where that moves less data (core/relabel.hpp), keeping the
  // user's C-order arrays; the same rule as describe()'s.
  const core::Axes axes = core::none_axes_first(split.shape, kind, split.options);
  std::optional<core::Order> c_order;
  if (axes != core::kSameAxes) c_order = core::user_c_order(axes);
  impl_ = std::make_shared<Impl>(comm, core::to_internal(split.shape, axes), kind, precision,
                                 core::to_internal(split.options, axes), std::nullopt, std::nullopt, c_order,
                                 split.trailing);
  impl_->report_in_user_axes(axes, split.shape);
  impl_->user_shape = shape;
}
Plan::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision, const Options& options,
           const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  mpi::require_communicator(comm, "volfft::Plan");
  agree_as_given(comm, shape, kind, precision, options, in.has_value(), out.has_value());
  std::optional<LocalArray> leading_in = in, leading_out = out;
  const core::LeadingPlan split = agreed_split(comm, shape, kind, options, &leading_in, &leading_out);
  const core::Axes axes = plan::choose_axes(comm, split.shape, kind, precision, split.options, leading_in, leading_out);
  impl_ = std::make_shared<Impl>(comm, core::to_internal(split.shape, axes), kind, precision,
                                 core::to_internal(split.options, axes), core::to_internal(leading_in, axes),
                                 core::to_internal(leading_out, axes), std::nullopt, split.trailing);
  impl_->report_in_user_axes(axes, split.shape);
  impl_->user_shape = shape;
}
Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

int Plan::ndim() const { return static_cast<int>(impl_->user_shape.size()); }
std::vector<std::int64_t> Plan::shape() const { return impl_->user_shape; }
Kind Plan::kind() const { return impl_->bp.kind; }
Precision Plan::precision() const { return impl_->bp.precision; }
std::array<int, 2> Plan::grid() const { return impl_->description.grid; }
Engine Plan::engine() const { return impl_->description.engine; }
Layout Plan::layout() const { return impl_->description.layout; }
Backend Plan::backend() const { return impl_->options.backend; }
std::array<int, 2> Plan::grid_position() const {
  return core::user_position(impl_->bp.position, impl_->bp.ndim);
}

Box Plan::input_box() const { return core::to_user(impl_->user_in.box, impl_->axes); }
Box Plan::output_box() const { return core::to_user(impl_->user_out.box, impl_->axes); }
namespace {
// An N-D plan's memory orders: the leading plan's, then the trailing axes (fastest, in order).
std::vector<int> with_trailing(std::vector<int> order, std::size_t ndim) {
  if (ndim <= 3) return order;
  if (order.empty()) order = {0, 1, 2};  // C order
  for (std::size_t a = 3; a < ndim; ++a) order.push_back(static_cast<int>(a));
  return order;
}
}  // namespace

std::vector<int> Plan::input_order() const {
  return with_trailing(core::to_user_order(impl_->user_in.order, impl_->axes), impl_->user_shape.size());
}
std::vector<int> Plan::output_order() const {
  return with_trailing(core::to_user_order(impl_->user_out.order, impl_->axes), impl_->user_shape.size());
}
LocalArray Plan::input_array() const {
  LocalArray a = core::to_user(impl_->user_in, impl_->axes);
  a.order = input_order();
  return a;
}
LocalArray Plan::output_array() const {
  LocalArray a = core::to_user(impl_->user_out, impl_->axes);
  a.order = output_order();
  return a;
}
bool Plan::reshapes_input() const { return impl_->reshape_in != nullptr; }
bool Plan::reshapes_output() const { return impl_->reshape_out != nullptr; }
std::int64_t Plan::input_count() const { return impl_->user_input_count(); }
std::int64_t Plan::output_count() const { return impl_->user_output_count(); }
std::size_t Plan::workspace_bytes() const {
  const Impl& x = *impl_;
  return x.bp.workspace_bytes() + x.staging_bytes + (x.reshape_in ? x.reshape_in->workspace_bytes() : 0) +
         (x.reshape_out ? x.reshape_out->workspace_bytes() : 0);
}
bool Plan::in_place() const { return impl_->bp.in_place; }
std::size_t Plan::in_place_bytes() const { return static_cast<std::size_t>(impl_->user_in_place_bytes()); }
const PlanDescription& Plan::description() const { return impl_->description; }
MPI_Comm Plan::comm() const { return impl_->comm(); }
std::vector<int> Plan::row_members() const { return plan::members_in(impl_->comm(), impl_->comms.row); }
std::vector<int> Plan::column_members() const { return plan::members_in(impl_->comm(), impl_->comms.column); }
std::vector<int> Plan::rank_order() const { return impl_->rank_order; }
const std::string& Plan::tuning_report() const { return impl_->tuning_report; }
int Plan::planes() const { return impl_->options.planes; }

// The typed entry points: the element types say which sides are real.
void Plan::forward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, false, false, Precision::float64));
}
void Plan::forward(const double* in, std::complex<double>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, false, Precision::float64));
}
void Plan::forward(const double* in, double* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, true, Precision::float64));
}
void Plan::forward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, false, false, Precision::float32));
}
void Plan::forward(const float* in, std::complex<float>* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, false, Precision::float32));
}
void Plan::forward(const float* in, float* out) {
  impl_->call(true, in, out, false, impl_->type_error(true, true, true, Precision::float32));
}
void Plan::backward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, false, Precision::float64));
}
void Plan::backward(const std::complex<double>* in, double* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, true, Precision::float64));
}
void Plan::backward(const double* in, double* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, true, true, Precision::float64));
}
void Plan::backward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, false, Precision::float32));
}
void Plan::backward(const std::complex<float>* in, float* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, false, true, Precision::float32));
}
void Plan::backward(const float* in, float* out) {
  impl_->call(false, in, out, false, impl_->type_error(false, true, true, Precision::float32));
}

void Plan::agree_on_problem(const std::string& problem) { mpi::agree_or_throw(impl_->comm(), problem); }
void Plan::forward_raw(const void* in, void* out) { impl_->call(true, in, out, false, ""); }
void Plan::backward_raw(const void* in, void* out) { impl_->call(false, in, out, false, ""); }
Request Plan::forward_start(const void* in, void* out) {
  impl_->call(true, in, out, true, "");
  return Request(impl_);
}
Request Plan::backward_start(const void* in, void* out) {
  impl_->call(false, in, out, true, "");
  return Request(impl_);
}

namespace {

// A pending request given up (destroyed, or assigned over): waits for its transform, unless this
// rank is unwinding from an exception. wait() is collective (the exchanges after the first, the
// output reshape) and the other ranks may never come to it, so the transform is abandoned then,
// as ~Plan abandons one (before, ~Request waited: the unwinding rank hung before it could reach
// its handler, even where ~Plan would not have). No MPI call after MPI_Finalize.
void give_up(Request& r, const std::weak_ptr<Plan::Impl>& plan) noexcept {
  if (!r.pending() || mpi::finalized()) return;
  try {
    if (std::uncaught_exceptions() > 0) {
      if (auto p = plan.lock()) p->abandoned = true;
      return;
    }
    if (!plan.expired()) r.wait();
  } catch (...) {
    // A destructor must not throw; the error was MPI's and the job is lost anyway.
  }
}

}  // namespace

Request::~Request() { give_up(*this, plan_); }
Request::Request(Request&& o) noexcept : plan_(std::move(o.plan_)), pending_(o.pending_) { o.pending_ = false; }
Request& Request::operator=(Request&& o) noexcept {
  if (this != &o) {
    give_up(*this, plan_);
    plan_ = std::move(o.plan_);
    pending_ = o.pending_;
    o.pending_ = false;
  }
  return *this;
}
bool Request::test() {
  auto plan = plan_.lock();
  return !pending_ || !plan || plan->test();
}
void Request::wait() {
  if (!pending_) return;
  pending_ = false;
  auto plan = plan_.lock();
  if (!plan)
    throw Error("volfft: wait: the plan of this request was destroyed or closed; its transform was completed "
                "then (call wait() before closing the plan)");
  plan->finish();
}

std::vector<Phase> Plan::timings(Direction d) const {
  const Impl& x = *impl_;
  const bool forward = d == Direction::forward;
  std::vector<Phase> t = (forward ? x.fwd : x.bwd)->phases();
  // A plan on user arrays: its reshapes first and last ("reshape_in": the input side's).
  const double* r = x.reshape_seconds[forward ? 0 : 1];
  if (forward ? x.reshape_in : x.reshape_out) t.insert(t.begin(), Phase{forward ? "reshape_in" : "reshape_out", r[0]});
  if (forward ? x.reshape_out : x.reshape_in) t.push_back(Phase{forward ? "reshape_out" : "reshape_in", r[1]});
  for (Phase& p : t) p.name = core::phase_to_user(p.name, x.axes);
  // An N-D plan's trailing axes where the plan transforms them itself, last: "fft_trailing".
  if (forward ? x.trailing_fwd : x.trailing_bwd) t.push_back(Phase{"fft_trailing", x.trailing_seconds[forward ? 0 : 1]});
  return t;
}

std::vector<Phase> Plan::timings_max(Direction d) const {
  std::vector<Phase> t = timings(d);
  std::vector<double> v(t.size()), m(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) v[k] = t[k].seconds;
  mpi::check(MPI_Allreduce(v.data(), m.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, impl_->comm()),
             "MPI_Allreduce");
  for (std::size_t k = 0; k < t.size(); ++k) t[k].seconds = m[k];
  return t;
}

std::size_t Plan::required_workspace_bytes(int comm_size, int rank,
                                           const std::vector<std::int64_t>& shape, Kind kind,
                                           Precision precision, const Options& options) {
  // The plan will be given this workspace, and a plan with a workspace of its own takes the
  // rule's engine for that case (core::choose_engine), whatever nodes its ranks are on.
  // In the axes the plan will take (core::none_axes_first), of its first three axes (N-D).
  if (comm_size < 1) throw Error("volfft: comm_size must be >= 1; got " + std::to_string(comm_size));
  if (rank < 0 || rank >= comm_size)
    throw Error("volfft: rank must be in [0, comm_size) = [0, " + std::to_string(comm_size) + "); got " +
                std::to_string(rank));
  const core::LeadingPlan split = core::split_trailing_axes(shape, kind, options);
  const core::Axes axes = core::none_axes_first(split.shape, kind, split.options);
  Options planned = core::to_internal(split.options, axes);
  if (planned.engine == Engine::automatic && planned.tune == 0)
    planned.engine = planned.min_memory ? Engine::alltoallw
                                        : core::choose_engine(comm_size, comm_size, /*user_workspace=*/true);
  return core::make_blueprint(comm_size, virtual_rank(planned, rank), core::to_internal(split.shape, axes), kind,
                              precision, planned)
      .workspace_bytes();
}

std::string version_string() {
  return std::string("volfft 0.1.0 (") + backend::fftw_version() + ", " + mpi::library_name() + ")";
}

}  // namespace volfft
