// Plan: builds the FFT batches and exchanges of a blueprint once, then runs them.
//
// Buffers (see core/blueprint.cpp for their count). With S stages and E = S - 1 exchanges:
//   forward : stage s lives in W[s] (the last stage in the user's output); exchange k goes from
//             W[k] to the next stage's array with W[E] as its send area.
//   backward: stage S-1 is read from the user's input into W[0]; stage s (0 < s < S-1) lives in
//             W[(S-1-s) % 2]; stage 0 is the user's output (c2c) or a complex array (r2c) that
//             the final c2r transform reads.
// Every exchange reuses its source array as its receive area, so three arrays are live at most.
#include "volfft/plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "backend/fft_batch.hpp"
#include "comm/exchange.hpp"
#include "comm/packing.hpp"
#include "core/blueprint.hpp"
#include "plan/agreement.hpp"
#include "plan/placement.hpp"

namespace volfft {

using core::Index;

namespace {

std::string axes_text(const std::vector<core::FftOp>& ops, bool reverse) {
  std::string s = "fft";
  std::vector<int> axes;
  for (const auto& op : ops) axes.insert(axes.end(), op.axes.begin(), op.axes.end());
  if (reverse) std::reverse(axes.begin(), axes.end());
  for (int a : axes) s += std::to_string(a);
  return s;
}

// Real strides of the r2c input array (C order).
std::array<Index, 3> real_strides(const Box& real_box) {
  return core::strides_of(real_box, core::Order{0, 1, 2});
}

struct OpRun {
  std::unique_ptr<backend::FftBatch> batch;
  bool from_input = false;  // reads the user's input array (out-of-place)
  bool to_output = false;   // writes the user's output array (c2r)
};

}  // namespace

class Plan::Impl {
 public:
  Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind, Precision precision,
       const Options& options);
  ~Impl();

  void forward(const void* in, void* out);
  void backward(const void* in, void* out);
  void check_types(bool forward, bool real_side) const;

  MPI_Comm comm = MPI_COMM_NULL, row = MPI_COMM_NULL, column = MPI_COMM_NULL;
  core::Blueprint bp;
  PlanDescription description;
  std::vector<Index> user_shape;
  std::vector<int> rank_order;  // rank of comm at each virtual position
  Effort effort = Effort::measure;
  Options options;  // as given (after a map file became a rank order)
  std::vector<std::vector<OpRun>> fwd_ops, bwd_ops;  // per stage
  std::vector<std::unique_ptr<comm::Exchange>> fwd_ex, bwd_ex;
  std::vector<Phase> fwd_times, bwd_times;
  std::unique_ptr<unsigned char[]> owned;
  std::array<void*, 3> w{nullptr, nullptr, nullptr};
  double scale = 1.0;
  bool scale_in_exchange = false;

 private:
  void allocate(const Options& options);
  void build_ffts();
  void build_exchanges();
  void* fwd_array(std::size_t s, void* out) const {
    return s + 1 == bp.stages.size() ? out : w[s];
  }
  void* bwd_array(std::size_t s, void* out) const;
  void scale_output(void* out) const;
};

void* Plan::Impl::bwd_array(std::size_t s, void* out) const {
  const std::size_t S = bp.stages.size();
  if (s == 0) {
    if (bp.kind == Kind::c2c) return out;
    return S == 1 ? w[0] : (S == 2 ? w[2] : w[0]);
  }
  if (s + 1 == S) return w[0];
  return w[(S - 1 - s) % 2];
}

Plan::Impl::Impl(MPI_Comm user_comm, const std::vector<Index>& shape, Kind kind,
                 Precision precision, const Options& given)
    : user_shape(shape), effort(given.effort) {
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

  allocate(options);
  build_ffts();
  build_exchanges();
  Index n = 1;
  for (Index e : bp.shape) n *= e;
  scale = bp.scale_backward ? 1.0 / static_cast<double>(n) : 1.0;
  scale_in_exchange = scale != 1.0 && !bwd_ex.empty() && bwd_ex.front()->scales();

  // Phase names, fixed now so that calls only write numbers.
  const std::size_t S = bp.stages.size();
  for (std::size_t s = 0; s < S; ++s) {
    fwd_times.push_back({axes_text(bp.stages[s].ops, false), 0});
    if (s + 1 < S)
      for (const char* p : {"pack_", "exchange_", "unpack_"})
        fwd_times.push_back({p + bp.exchanges[s].name, 0});
  }
  for (std::size_t s = S; s-- > 0;) {
    bwd_times.push_back({axes_text(bp.stages[s].ops, true), 0});
    if (s > 0)
      for (const char* p : {"pack_", "exchange_", "unpack_"})
        bwd_times.push_back({p + bp.exchanges[s - 1].name, 0});
  }
  if (scale != 1.0 && !scale_in_exchange) bwd_times.push_back({"scale", 0});
}

Plan::Impl::~Impl() {
  fwd_ex.clear();
  bwd_ex.clear();
  fwd_ops.clear();
  bwd_ops.clear();
  for (MPI_Comm* c : {&row, &column, &comm})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

void Plan::Impl::allocate(const Options& options) {
  const std::size_t bytes = static_cast<std::size_t>(bp.buffer_elements * bp.complex_bytes);
  unsigned char* base = nullptr;
  if (options.workspace) {
    base = static_cast<unsigned char*>(options.workspace);
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

void Plan::Impl::build_ffts() {
  const std::size_t S = bp.stages.size();
  // Planning arrays: FFTW_MEASURE overwrites what it plans on, and the user's arrays do not
  // exist yet. Two scratch arrays, 64-byte aligned like the plan's own buffers, freed after.
  Index most = std::max({bp.buffer_elements, bp.input_count(), bp.output_count()});
  const std::size_t bytes = static_cast<std::size_t>(most * bp.complex_bytes) + 64;
  std::unique_ptr<unsigned char[]> scratch_in(new unsigned char[bytes]), scratch_out(new unsigned char[bytes]);
  auto align = [](unsigned char* p) {
    return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
  };
  void* pin = align(scratch_in.get());
  void* pout = align(scratch_out.get());
  std::memset(pin, 0, bytes - 64);

  const Index n2 = bp.shape[2];
  fwd_ops.resize(S);
  bwd_ops.resize(S);
  for (std::size_t s = 0; s < S; ++s) {
    const core::Stage& st = bp.stages[s];
    const auto strides = core::strides_of(st.box, st.order);
    const bool last = s + 1 == S;
    const std::array<Index, 3> extent{st.box.extent(0), st.box.extent(1), st.box.extent(2)};
    // Forward: op 0 of stage 0 reads the input out-of-place; everything else is in place.
    for (std::size_t o = 0; o < st.ops.size(); ++o) {
      const core::FftOp& op = st.ops[o];
      backend::BatchGeometry g;
      g.extent = extent, g.real_length = n2, g.axes = op.axes;
      g.out_strides = strides;
      const bool from_input = s == 0 && o == 0;
      g.in_strides = op.real ? real_strides(bp.real_box) : strides;
      g.transform = op.real ? backend::Transform::r2c : backend::Transform::c2c_forward;
      g.in_place = !from_input;
      const bool user = from_input || last;
      OpRun run;
      run.from_input = from_input;
      run.batch = backend::make_batch(options, bp.precision, g, pin, pout, user);
      fwd_ops[s].push_back(std::move(run));
    }
    // Backward: the ops in reverse; complex ops first (out-of-place from the input when this is
    // the first backward stage), the c2r op last, from the stage's complex array to the output.
    std::vector<core::FftOp> ops(st.ops.rbegin(), st.ops.rend());
    bool first_complex = true;
    for (const core::FftOp& op : ops) {
      backend::BatchGeometry g;
      g.extent = extent, g.real_length = n2, g.axes = op.axes;
      OpRun run;
      if (op.real) {
        g.in_strides = strides;
        g.out_strides = real_strides(bp.real_box);
        g.transform = backend::Transform::c2r;
        g.in_place = false;
        run.to_output = true;
      } else {
        g.in_strides = g.out_strides = strides;
        g.transform = backend::Transform::c2c_backward;
        run.from_input = last && first_complex;
        g.in_place = !run.from_input;
        first_complex = false;
      }
      const bool user = run.from_input || run.to_output || (s == 0 && bp.kind == Kind::c2c);
      run.batch = backend::make_batch(options, bp.precision, g, pin, pout, user);
      bwd_ops[s].push_back(std::move(run));
    }
  }
}

void Plan::Impl::build_exchanges() {
  const std::size_t E = bp.exchanges.size();
  for (std::size_t k = 0; k < E; ++k) {
    const auto& g = bp.exchanges[k];
    MPI_Comm group = g.name == "row" ? row : column;
    fwd_ex.push_back(comm::make_exchange(bp.engine, comm::transfer_of(g, false), group,
                                         bp.precision, w[k], w[E]));
  }
  // Backward exchanges in backward execution order: from stage s to stage s - 1.
  for (std::size_t s = E; s >= 1; --s) {
    const auto& g = bp.exchanges[s - 1];
    MPI_Comm group = g.name == "row" ? row : column;
    bwd_ex.push_back(comm::make_exchange(bp.engine, comm::transfer_of(g, true), group,
                                         bp.precision, bwd_array(s, nullptr), w[E]));
  }
}

void Plan::Impl::forward(const void* in, void* out) {
  const std::size_t S = bp.stages.size();
  std::size_t phase = 0;
  for (std::size_t s = 0; s < S; ++s) {
    void* array = fwd_array(s, out);
    double t0 = MPI_Wtime();
    for (const OpRun& op : fwd_ops[s]) op.batch->execute(op.from_input ? in : array, array);
    fwd_times[phase++].seconds = MPI_Wtime() - t0;
    if (s + 1 < S) {
      comm::ExchangeTimes t;
      fwd_ex[s]->run(fwd_array(s + 1, out), 1.0, t);
      fwd_times[phase++].seconds = t.pack;
      fwd_times[phase++].seconds = t.exchange;
      fwd_times[phase++].seconds = t.unpack;
    }
  }
}

void Plan::Impl::backward(const void* in, void* out) {
  const std::size_t S = bp.stages.size();
  std::size_t phase = 0;
  std::size_t k = 0;
  for (std::size_t s = S; s-- > 0;) {
    void* array = bwd_array(s, out);
    double t0 = MPI_Wtime();
    for (const OpRun& op : bwd_ops[s]) {
      if (op.to_output) {
        op.batch->execute(array, out);
      } else {
        op.batch->execute(op.from_input ? in : array, array);
      }
    }
    bwd_times[phase++].seconds = MPI_Wtime() - t0;
    if (s > 0) {
      comm::ExchangeTimes t;
      const double sc = (k == 0 && scale_in_exchange) ? scale : 1.0;
      bwd_ex[k++]->run(bwd_array(s - 1, out), sc, t);
      bwd_times[phase++].seconds = t.pack;
      bwd_times[phase++].seconds = t.exchange;
      bwd_times[phase++].seconds = t.unpack;
    }
  }
  if (scale != 1.0 && !scale_in_exchange) {
    double t0 = MPI_Wtime();
    scale_output(out);
    bwd_times[phase++].seconds = MPI_Wtime() - t0;
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

void Plan::Impl::check_types(bool forward, bool real_side) const {
  const bool real_plan = bp.kind == Kind::r2c;
  if (real_side != real_plan)
    throw Error(std::string("volfft: ") + (forward ? "forward" : "backward") + " of a " +
                to_string(bp.kind) + " plan needs a " + (real_plan ? "real" : "complex") + " " +
                (forward ? "input" : "output") + " array; got a " +
                (real_side ? "real" : "complex") + " one");
}

// ---------------------------------------------------------------------------------------------

Plan::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
           const Options& options)
    : impl_(std::make_unique<Impl>(comm, shape, kind, precision, options)) {}
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

void Plan::forward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->check_types(true, false);
  forward_raw(in, out);
}
void Plan::forward(const double* in, std::complex<double>* out) {
  impl_->check_types(true, true);
  forward_raw(in, out);
}
void Plan::forward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->check_types(true, false);
  forward_raw(in, out);
}
void Plan::forward(const float* in, std::complex<float>* out) {
  impl_->check_types(true, true);
  forward_raw(in, out);
}
void Plan::backward(const std::complex<double>* in, std::complex<double>* out) {
  impl_->check_types(false, false);
  backward_raw(in, out);
}
void Plan::backward(const std::complex<double>* in, double* out) {
  impl_->check_types(false, true);
  backward_raw(in, out);
}
void Plan::backward(const std::complex<float>* in, std::complex<float>* out) {
  impl_->check_types(false, false);
  backward_raw(in, out);
}
void Plan::backward(const std::complex<float>* in, float* out) {
  impl_->check_types(false, true);
  backward_raw(in, out);
}

void Plan::forward_raw(const void* in, void* out) {
  if ((in == nullptr && input_count() > 0) || (out == nullptr && output_count() > 0))
    throw Error("volfft: forward needs non-null in and out arrays");
  if (in == out && in != nullptr) throw Error("volfft: forward is out-of-place: in and out must differ");
  impl_->forward(in, out);
}
void Plan::backward_raw(const void* in, void* out) {
  if ((in == nullptr && output_count() > 0) || (out == nullptr && input_count() > 0))
    throw Error("volfft: backward needs non-null in and out arrays");
  if (in == out && in != nullptr) throw Error("volfft: backward is out-of-place: in and out must differ");
  impl_->backward(in, out);
}

std::vector<Phase> Plan::timings(Direction d) const {
  return d == Direction::forward ? impl_->fwd_times : impl_->bwd_times;
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
