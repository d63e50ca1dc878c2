// volfft-bench: times volfft's distributed FFT phase by phase, verifies it, and compares it
// with FFTW's own MPI transform in the same run. JSON schema: docs/bench-json.md.
//
//   mpirun -n P volfft-bench c2c|r2c|r2r double|float n0 n1 [n2 ...] [--grid p0xp1|auto|all]
//          [--engine E|auto|all] [--layout transposed|natural] [--effort E] [--iters K]
//          [--warmup W] [--json FILE] [--compare fftw-mpi[,fftw-serial][,fftw-threads]]
#include <mpi.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "fftw_mpi_peer.hpp"
#include "floor.hpp"
#include "median.hpp"
#include "tune/json.hpp"  // the library's JSON writer (its strings escaped)
#include "volfft/distribution.hpp"
#include "volfft/plan.hpp"

using namespace volfft;
using Index = std::int64_t;

namespace {

// 64-byte aligned storage: what a user who wants FFTW's aligned SIMD plans allocates.
template <class T>
struct Aligned {
  using value_type = T;
  Aligned() = default;
  template <class U>
  Aligned(const Aligned<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const Aligned<U>&) const { return true; }
  template <class U>
  bool operator!=(const Aligned<U>&) const { return false; }
};
template <class T>
using Array = std::vector<T, Aligned<T>>;

struct Args {
  Kind kind = Kind::c2c;
  Precision precision = Precision::float64;
  std::vector<Index> shape;
  std::vector<std::array<int, 2>> grids;  // {0,0} = auto
  std::vector<Engine> engines;
  Layout layout = Layout::transposed;
  Effort effort = Effort::measure;
  int tune = 0;                 // --tune SECONDS: time candidate grids/engines (0 = by rule)
  int iters = 10, warmup = 2;
  std::vector<int> planes{-1};  // pipelined engine: planes per chunk (-1 = automatic)
  std::vector<Index> pad;       // --pad: the real grid; the positional sizes are then the spectral box
  int threads = 1, ranks_per_node = 0;
  Backend backend = Backend::fftw;
  bool scale = true;            // --no-scale: backward unscaled, like FFTW's (same work as the peers)
  bool in_place = false;        // --in-place: one array, forward(a, a) and backward(a, a)
  bool destroy_input = false;   // --destroy-input: Options::destroy_input
  std::vector<AxisKind> kinds;  // --kinds: the transform per axis (Options::kinds)
  int batch = 1;                // --batch K: K fields per call (Options::batch), timed against K single calls
  BatchLayout batch_layout = BatchLayout::outer;
  std::string in_dist, out_dist;  // --in/--out: the user's distribution (user arrays), "" = the plan's own
  std::string json;
  bool fftw_mpi = false, fftw_serial = false, fftw_threads = false;
  bool floor = false;           // --floor: phases against the copy bandwidth and in-cache FFTs (floor.hpp)
};

std::string usage() {
  // The engines come from the library's catalogue, never retyped here.
  std::string names, lines;
  for (Engine e : engines()) {
    names += std::string(names.empty() ? "" : "|") + to_string(e);
    lines += std::string("         ") + to_string(e) + ": " + summary(e) + "\n";
  }
  return "usage: volfft-bench c2c|r2c|r2r double|float n0 n1 [n2 ...] [--grid p0xp1|auto|all]\n"
         "       (more than 3 sizes: c2c and r2r plans, checked by their round trip)\n"
         "       [--engine " + names + "|all] [--layout transposed|natural]\n" + lines +
         "       [--effort estimate|measure|patient] [--iters K] [--warmup W] [--json FILE]\n"
         "       [--tune SECONDS] (an auto grid/engine is timed for up to SECONDS; default 0: by rule)\n"
         "       [--planes K[,K...]|auto|all] (engine pipelined)\n"
         "       [--pad n0 n1 [n2]] (zero-padded: real grid n, spectral box = the positional sizes)\n"
         "       [--no-scale] (backward unscaled, as FFTW's; the default scales by 1/N like numpy)\n"
         "       [--in-place] (one array for input and output: Options::in_place)\n"
         "       [--destroy-input] (an out-of-place call may overwrite its input: Options::destroy_input)\n"
         "       [--kinds K0,K1[,K2]] (per axis: dft, r2c, dct1-4, dst1-4, none; Options::kinds; required by r2r)\n"
         "       [--batch K] [--batch-layout outer|inner] (K fields per call, also timed as K single-field calls)\n"
         "       [--in D] [--out D] (the arrays in D = bricks|slabs|slabs0|slabs1|pencils|pencils0|pencils1|pencils2|\n"
         "        fftw: named distributions; slabs = slabs0, pencils = z-pencils in, x-pencils out; fftw = FFTW-MPI's\n"
         "        blocks of axis 0; the plan reshapes from and to them)\n"
         "       [--threads N] [--backend fftw|ducc0|auto] [--ranks-per-node R] (engine node: pretend nodes)\n"
         "       [--compare fftw-mpi,fftw-serial,fftw-threads]\n"
         "       [--floor] (each phase against the bytes it must move at the ranks' copy bandwidth, and the FFT\n"
         "        phases against their transforms timed in cache)\n";
}

std::vector<std::array<int, 2>> all_grids(int size, int ndim) {
  std::vector<std::array<int, 2>> g;
  if (ndim == 2) return {{size, 1}};
  for (int p0 = size; p0 >= 1; --p0)
    if (size % p0 == 0) g.push_back({p0, size / p0});
  return g;
}

int to_int(const char* option, const std::string& text) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != 0)
    throw Error(std::string("volfft-bench: ") + option + " takes an integer; got '" + text + "'");
  return static_cast<int>(v);
}

Args parse(int argc, char** argv, int size) {
  Args a;
  std::vector<std::string> pos;
  std::string grid = "auto", engine = "auto";
  for (int k = 1; k < argc; ++k) {
    std::string s = argv[k];
    auto value = [&](const char* name) {
      if (k + 1 >= argc) throw Error(std::string("volfft-bench: ") + name + " needs a value");
      return std::string(argv[++k]);
    };
    if (s == "--grid") grid = value("--grid");
    else if (s == "--engine") engine = value("--engine");
    else if (s == "--layout") a.layout = parse_layout(value("--layout"));
    else if (s == "--effort") a.effort = parse_effort(value("--effort"));
    else if (s == "--tune") a.tune = to_int("--tune", value("--tune"));
    else if (s == "--iters") a.iters = to_int("--iters", value("--iters"));
    else if (s == "--warmup") a.warmup = to_int("--warmup", value("--warmup"));
    else if (s == "--json") a.json = value("--json");
    else if (s == "--no-scale") a.scale = false;
    else if (s == "--in-place") a.in_place = true;
    else if (s == "--destroy-input") a.destroy_input = true;
    else if (s == "--batch") a.batch = to_int("--batch", value("--batch"));
    else if (s == "--batch-layout") a.batch_layout = parse_batch_layout(value("--batch-layout"));
    else if (s == "--kinds") {
      std::stringstream ks(value("--kinds"));
      std::string item;
      while (std::getline(ks, item, ',')) a.kinds.push_back(parse_axis_kind(item));
    }
    else if (s == "--floor") a.floor = true;
    else if (s == "--in") a.in_dist = value("--in");
    else if (s == "--out") a.out_dist = value("--out");
    else if (s == "--threads") a.threads = to_int("--threads", value("--threads"));
    else if (s == "--backend") a.backend = parse_backend(value("--backend"));
    else if (s == "--ranks-per-node") a.ranks_per_node = to_int("--ranks-per-node", value("--ranks-per-node"));
    else if (s == "--pad") {
      while (k + 1 < argc && std::isdigit(static_cast<unsigned char>(argv[k + 1][0])))
        a.pad.push_back(std::stoll(argv[++k]));
      if (a.pad.empty()) throw Error("volfft-bench: --pad needs the real grid's sizes");
    } else if (s == "--planes") {
      const std::string v = value("--planes");
      a.planes.clear();
      if (v == "auto") a.planes = {-1};
      else if (v == "all") a.planes = {1, 2, 4, 8, 16};
      else {
        std::stringstream ps(v);
        std::string item;
        while (std::getline(ps, item, ',')) {
          char* end = nullptr;
          const long k = std::strtol(item.c_str(), &end, 10);
          if (item == "auto") a.planes.push_back(-1);
          else if (!item.empty() && *end == 0 && k >= 0) a.planes.push_back(static_cast<int>(k));
          else throw Error("volfft-bench: --planes takes 'auto', 'all' or a list of ints >= 0 and 'auto'; got '" + item + "'");
        }
      }
    }
    else if (s == "--compare") {
      std::stringstream ss(value("--compare"));
      std::string item;
      while (std::getline(ss, item, ',')) {
        if (item == "fftw-mpi" && !bench::have_fftw_mpi())
          throw Error("volfft-bench: --compare fftw-mpi: this volfft-bench was built without FFTW-MPI "
                      "(-DVOLFFT_BENCH_FFTW_MPI=OFF: no FFTW-MPI for the MPI it uses, e.g. MPICH beside "
                      "Debian's Open MPI build of FFTW-MPI); fftw-serial and fftw-threads remain");
        if (item == "fftw-mpi") a.fftw_mpi = true;
        else if (item == "fftw-serial") a.fftw_serial = true;
        else if (item == "fftw-threads") a.fftw_threads = true;
        else throw Error("volfft-bench: --compare takes fftw-mpi, fftw-serial, fftw-threads; got '" + item + "'");
      }
    } else if (s == "-h" || s == "--help") throw Error(usage());
    else if (s.rfind("--", 0) == 0) throw Error("volfft-bench: unknown option '" + s + "'\n" + usage());
    else pos.push_back(s);
  }
  if (pos.size() < 4)
    throw Error(std::string("volfft-bench: expected kind, precision and 2 or more sizes\n") + usage());
  a.kind = parse_kind(pos[0]);
  a.precision = parse_precision(pos[1]);
  for (std::size_t k = 2; k < pos.size(); ++k) {
    char* end = nullptr;
    const long long n = std::strtoll(pos[k].c_str(), &end, 10);
    if (*end || n < 1) throw Error("volfft-bench: size '" + pos[k] + "' must be a positive integer");
    a.shape.push_back(n);
  }
  if (a.iters < 1) throw Error("volfft-bench: --iters must be >= 1");
  if (a.shape.size() > 3 && a.batch > 1)
    throw Error("volfft-bench: --batch takes 2 or 3 sizes (a plan of more axes carries its trailing values as "
                "interleaved fields already)");
  if (a.threads < 1) throw Error("volfft-bench: --threads must be >= 1");
  if (a.in_place && !a.pad.empty())
    throw Error("volfft-bench: --in-place does not combine with --pad (Options::in_place excludes spectral_shape)");
  if (a.floor && !a.pad.empty())
    throw Error("volfft-bench: --floor is for unpadded plans (a padded plan's phases move boxes of several sizes); "
                "drop --pad or --floor");
  if (!a.pad.empty() && a.pad.size() != a.shape.size())
    throw Error("volfft-bench: --pad needs as many sizes as the spectral shape (" + std::to_string(a.shape.size()) + ")");
  const int nd = static_cast<int>(a.shape.size());
  for (const std::string* d : {&a.in_dist, &a.out_dist}) {
    static const char* names[] = {"", "bricks", "slabs", "slabs0", "slabs1", "pencils", "pencils0", "pencils1", "pencils2", "fftw"};
    if (std::find(std::begin(names), std::end(names), *d) == std::end(names))
      throw Error("volfft-bench: --in/--out take bricks, slabs, slabs0, slabs1, pencils, pencils0, pencils1, pencils2 "
                  "or fftw; got '" + *d + "'");
    if (*d == "pencils2" && nd == 2)
      throw Error("volfft-bench: --in/--out pencils2 needs a 3-D shape");
  }
  if ((!a.in_dist.empty() || !a.out_dist.empty()) && !a.pad.empty())
    throw Error("volfft-bench: --in/--out do not combine with --pad");
  if (grid == "auto") a.grids = {{0, 0}};
  else if (grid == "all") a.grids = all_grids(size, nd);
  else {
    int p0 = 0, p1 = 0;
    char x = 0;
    std::stringstream gs(grid);
    if (!(gs >> p0 >> x >> p1) || x != 'x') throw Error("volfft-bench: --grid must be p0xp1, auto or all; got '" + grid + "'");
    a.grids = {{p0, p1}};
  }
  if (engine == "all") {
    a.engines = engines();
    a.engines.erase(a.engines.begin());  // every engine but "auto"
  } else {
    a.engines = {parse_engine(engine)};
  }
  return a;
}

using bench::median;  // one definition for the report and the choice of a peer's fastest mode

double max_over(double x) {
  double m = x;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

struct DirectionResult {
  std::vector<double> times;                          // seconds, max over ranks, per iteration
  std::vector<std::string> phase_names;
  std::vector<std::vector<double>> phase_times;       // [phase][iteration], max over ranks
};

struct RunResult {
  std::array<int, 2> grid{};
  Engine engine{};
  Backend backend{};  // the plan's (an automatic one resolved)
  const char* grid_choice = "given";    // "given", "by rule", "measured" or "from wisdom"
  const char* engine_choice = "given";
  int planes = -1;
  std::vector<int> output_order;
  double plan_seconds = 0;
  std::size_t workspace = 0;
  double forward_error = 0, roundtrip_error = 0;
  bool forward_checked = true;  // false with r2r or none kinds (round trip only)
  std::vector<double> single_fwd, single_bwd;  // --batch K: K single-field calls per iteration
  DirectionResult fwd, bwd;
  struct Volume {
    std::string name;
    double bytes = 0, unpadded_bytes = 0;  // all messages of the exchange, one direction
  };
  std::vector<Volume> exchanges;
  PlanDescription description;  // of this configuration's plan
  // With --compare: this configuration's forward + backward, still runnable (it owns the plan
  // and the arrays), for the peers' timers to run in their own iterations (bench::Companion).
  bench::Companion companion;
};

// Flop count of the FFTW convention: 5 N log2 N (c2c), 2.5 N log2 N (r2c).
double flops(const Args& a) {
  double n = 1;
  for (Index e : (a.pad.empty() ? a.shape : a.pad)) n *= static_cast<double>(e);
  return (a.kind == Kind::c2c ? 5.0 : 2.5) * n * std::log2(n);
}

// One call of f, barrier-bracketed: its seconds, the maximum over ranks.
template <class F>
double timed(const F& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double s = MPI_Wtime();
  f();
  return max_over(MPI_Wtime() - s);
}

// `keep`: leave RunResult::companion runnable (--compare).
template <class Real>
RunResult run(const Args& a, std::array<int, 2> grid, Engine engine, int planes, bool keep) {
  using C = std::complex<Real>;
  Options o;
  o.scale_backward = a.scale;
  o.in_place = a.in_place;
  o.destroy_input = a.destroy_input;
  o.kinds = a.kinds;
  o.batch = a.batch;
  o.batch_layout = a.batch_layout;
  o.threads = a.threads;
  o.backend = a.backend;
  o.ranks_per_node = a.ranks_per_node;
  o.planes = planes;
  o.grid = grid;
  const std::vector<Index> grid_shape = a.pad.empty() ? a.shape : a.pad;  // the transform size n
  if (!a.pad.empty()) o.spectral_shape = a.shape;
  o.engine = engine;
  o.layout = a.layout;
  o.effort = a.effort;
  o.tune = a.tune;
  RunResult r;
  // --in/--out: this rank's box of the named distribution, C order, no ghosts.
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto named = [&](const std::string& d, const std::vector<Index>& shape, bool input) -> std::optional<LocalArray> {
    if (d.empty()) return std::nullopt;
    const int last = static_cast<int>(shape.size()) - 1;
    std::vector<Box> boxes;
    if (d == "bricks") boxes = bricks(shape, ranks);
    else if (d == "slabs" || d == "slabs0") boxes = slabs(shape, ranks, 0);
    else if (d == "slabs1") boxes = slabs(shape, ranks, 1);
    else if (d == "pencils") boxes = pencils(shape, ranks, input ? last : 0);
    else if (d == "fftw") boxes = fftw_blocks(shape, ranks, 0);
    else boxes = pencils(shape, ranks, d.back() - '0');
    LocalArray l;
    l.box = boxes[static_cast<std::size_t>(rank)];
    return l;
  };
  std::vector<Index> spectrum = grid_shape;
  if (a.kind == Kind::r2c) spectrum.back() = spectrum.back() / 2 + 1;
  const auto user_in = named(a.in_dist, grid_shape, true), user_out = named(a.out_dist, spectrum, false);
  bench::forget_fftw_wisdom();  // each plan starts cold, like the peers' (fftw_mpi_peer.hpp)
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  // On the heap: the companion (end of run) keeps it.
  const auto kept_plan = std::make_shared<Plan>(
      user_in || user_out ? Plan(MPI_COMM_WORLD, grid_shape, a.kind, a.precision, o, user_in, user_out)
                          : Plan(MPI_COMM_WORLD, grid_shape, a.kind, a.precision, o));
  Plan& plan = *kept_plan;
  r.plan_seconds = max_over(MPI_Wtime() - t0);
  r.grid = plan.grid();
  r.engine = plan.engine();
  r.backend = plan.backend();
  // How each was decided, for the report: given, by rule, measured (tuned), or read from a
  // wisdom file of an earlier tuning.
  const std::string& report = plan.tuning_report();
  const char* automatic = report.empty()                                          ? "by rule"
                          : report.find("from wisdom file") != std::string::npos ? "from wisdom"
                                                                                  : "measured";
  r.grid_choice = grid != std::array<int, 2>{0, 0} ? "given" : automatic;
  r.engine_choice = engine != Engine::automatic ? "given" : automatic;
  r.planes = planes;
  r.output_order = plan.output_order();
  r.workspace = plan.workspace_bytes();
  // Real sides: the input of r2c and r2r plans, and r2r's spectrum too (its `out` array then
  // holds reals in the complex array's memory: as_reals).
  const bool real = a.kind != Kind::c2c, real_spectrum = a.kind == Kind::r2r;
  auto as_reals = [](C* p) { return reinterpret_cast<Real*>(p); };
  // More than 3 axes: the first three are the plan's boxes; every element of them holds the
  // trailing axes' values, checked (round trip only) as interleaved fields of the same wave.
  const int nd = std::min(static_cast<int>(a.shape.size()), 3);
  Index trailing_values = 1;
  for (std::size_t k = 3; k < grid_shape.size(); ++k) trailing_values *= grid_shape[k];
  // In place: one array (the input's, of in_place_bytes()) is the output too and the
  // backward's output; `original` keeps the input for the round-trip check.
  const Index in_element = real ? sizeof(Real) : sizeof(C);
  const Index nin = std::max<Index>({plan.input_count(), 1,
                                     a.in_place ? static_cast<Index>(plan.in_place_bytes()) / in_element + 1 : 1});
  const Index nout = std::max<Index>(plan.output_count(), 1);
  Array<Real> in_r, back_r;
  Array<C> in_c, back_c, out(a.in_place ? 1 : nout);
  const Box ib = plan.input_box(), ob = plan.output_box();
  std::array<Index, 3> n3{1, 1, 1}, m3{1, 1, 1};  // real grid, spectral box
  for (int k = 0; k < nd; ++k) n3[k] = grid_shape[k], m3[k] = a.shape[k];

  // Verification 1: a plane wave exp(2 pi i k.x/n) (c2c) or cos(2 pi k.x/n) (r2c) transforms
  // to N (or N/2 at +k and -k) and zero elsewhere: an exact check of forward at any size.
  // Frequencies strictly inside the spectral box (|k| < m/2), so padded plans keep them too.
  const std::array<Index, 3> kw{(m3[0] - 1) / 2, (m3[1] - 1) / 3, (m3[2] - 1) / 4};
  auto phase_of = [&](Index x0, Index x1, Index x2) {
    double p = 0;
    for (int d = 0; d < 3; ++d) {
      const Index x = d == 0 ? x0 : d == 1 ? x1 : x2;
      p += 2 * M_PI * static_cast<double>((kw[d] * x) % n3[d]) / static_cast<double>(n3[d]);
    }
    return p;
  };
  // C order over the input box; in-place r2c rows hold 2(n/2 + 1) reals (FFTW's padding)
  // unless the plan reshapes from the user's array (whose storage is the box).
  const Index last = plan.input_array().storage.extent(nd - 1);
  auto in_offset = [&](Index x0, Index x1, Index x2) {
    return nd == 3 ? ((x0 - ib.lo[0]) * ib.extent(1) + (x1 - ib.lo[1])) * last + (x2 - ib.lo[2])
                   : (x0 - ib.lo[0]) * last + (x1 - ib.lo[1]);
  };
  if (real) in_r.assign(nin, 0), back_r.assign(a.in_place ? 1 : nin, 0);
  else in_c.assign(nin, C(0)), back_c.assign(a.in_place ? 1 : nin, C(0));
  C* out_data = a.in_place ? (real ? reinterpret_cast<C*>(in_r.data()) : in_c.data()) : out.data();
  // Batched fields: field f of an element at offset `off` of one field's array.
  const Index K = a.batch * trailing_values;
  const bool inner = K > 1 && (a.batch_layout == BatchLayout::inner || trailing_values > 1);
  const Index in_field = plan.input_count() / K, out_field = plan.output_count() / K;
  auto in_at = [&](Index f, Index off) { return inner ? off * K + f : f * in_field + off; };
  auto out_at = [&](Index f, Index off) { return inner ? off * K + f : f * out_field + off; };
  Real* back_r_data = a.in_place ? in_r.data() : back_r.data();
  C* back_c_data = a.in_place ? in_c.data() : back_c.data();
  for (Index x0 = ib.lo[0]; x0 < ib.hi[0]; ++x0)
    for (Index x1 = ib.lo[1]; x1 < ib.hi[1]; ++x1)
      for (Index x2 = (nd == 3 ? ib.lo[2] : 0); x2 < (nd == 3 ? ib.hi[2] : 1); ++x2) {
        const double p = phase_of(x0, x1, x2);
        for (Index f = 0; f < K; ++f) {  // every field the same wave
          if (real) in_r[in_at(f, in_offset(x0, x1, x2))] = static_cast<Real>(std::cos(p));
          else in_c[in_at(f, in_offset(x0, x1, x2))] = C(static_cast<Real>(std::cos(p)), static_cast<Real>(std::sin(p)));
        }
      }
  const Array<Real> original_r = in_r;
  const Array<C> original_c = in_c;
  // The calls, on the arrays' data (captured by value: the companion moves the arrays, whose
  // storage stays where it is).
  Plan* const p = kept_plan.get();
  Real* const in_rp = in_r.data();
  C* const in_cp = in_c.data();
  const auto fwd = [=] {
    if (real_spectrum) p->forward(in_rp, as_reals(out_data));
    else real ? p->forward(in_rp, out_data) : p->forward(in_cp, out_data);
  };
  const auto bwd = [=] {
    if (real_spectrum) p->backward(as_reals(out_data), back_r_data);
    else real ? p->backward(out_data, back_r_data) : p->backward(out_data, back_c_data);
  };
  fwd();
  // A plane wave is a single spectral line under DFTs only: with r2r or none axes the forward
  // is not checked here (tests/mpi/test_r2r.cpp checks it against the defining sums), only the
  // round trip below.
  r.forward_checked = a.shape.size() <= 3 && std::all_of(a.kinds.begin(), a.kinds.end(), [](AxisKind k) {
                       return k == AxisKind::dft || k == AxisKind::r2c;
                     });
  // Output strides from the output memory order.
  std::array<Index, 3> ost{0, 0, 0};
  {
    const auto ord = plan.output_order();
    Index s = 1;
    for (int k = nd - 1; k >= 0; --k) ost[ord[k]] = s, s *= ob.extent(ord[k]);
  }
  const double N = static_cast<double>(n3[0] * n3[1] * n3[2] * trailing_values);
  double err = 0;
  // Only where checked (an r2r spectrum holds reals: never read as complex values).
  for (Index x0 = ob.lo[0]; r.forward_checked && x0 < ob.hi[0]; ++x0)
    for (Index x1 = ob.lo[1]; x1 < ob.hi[1]; ++x1)
      for (Index x2 = (nd == 3 ? ob.lo[2] : 0); x2 < (nd == 3 ? ob.hi[2] : 1); ++x2) {
        const std::array<Index, 3> x{x0, x1, x2};
        bool plus = true, minus = true;
        for (int d = 0; d < 3; ++d) {
          plus = plus && x[d] == kw[d] % m3[d];  // kept index of +k in the spectral box
          minus = minus && x[d] == (m3[d] - kw[d]) % m3[d];
        }
        const double expect = real ? 0.5 * N * ((plus ? 1 : 0) + (minus ? 1 : 0)) : (plus ? N : 0);
        Index off = 0;
        for (int d = 0; d < nd; ++d) off += (x[d] - ob.lo[d]) * ost[d];
        for (Index f = 0; f < K; ++f)
          err = std::max(err, std::abs(std::complex<double>(out_data[out_at(f, off)]) - std::complex<double>(expect, 0)) / N);
      }
  r.forward_error = r.forward_checked ? max_over(err) : 0.0;

  // Verification 2: the plane wave survives backward(forward(x)) (band-limited, so padded plans
  // too).
  double rt = 0, mx = 0;
  bwd();
  const double unscale = a.scale ? 1.0 : 1.0 / N;  // --no-scale: backward(forward(x)) == N x
  for (Index x0 = ib.lo[0]; x0 < ib.hi[0]; ++x0)  // the box's elements, not an in-place row's padding
    for (Index x1 = ib.lo[1]; x1 < ib.hi[1]; ++x1)
      for (Index x2 = (nd == 3 ? ib.lo[2] : 0); x2 < (nd == 3 ? ib.hi[2] : 1); ++x2) {
        for (Index f = 0; f < K; ++f) {
          const Index k = in_at(f, in_offset(x0, x1, x2));
          rt = std::max(rt, real ? std::abs(double(back_r_data[k]) * unscale - double(original_r[k]))
                                 : std::abs(std::complex<double>(back_c_data[k]) * unscale -
                                            std::complex<double>(original_c[k])));
          mx = std::max(mx, real ? std::abs(double(original_r[k])) : std::abs(std::complex<double>(original_c[k])));
        }
      }
  r.roundtrip_error = max_over(mx > 0 ? rt / mx : rt);

  // Timing on random data.
  for (Index k = 0; k < nin; ++k) {
    const Real v = static_cast<Real>(((k * 2654435761u) % 10007) / 10007.0 - 0.5);
    if (real) in_r[k] = v;
    else in_c[k] = C(v, -v / 3);
  }
  // The companion's copy of that input, where a call overwrites it (see the end).
  const bool restore = keep && (a.in_place || a.destroy_input);
  Array<Real> saved_r = restore ? in_r : Array<Real>();
  Array<C> saved_c = restore ? in_c : Array<C>();
  // --batch K: the same options with one field, called K times on K arrays (as a user would:
  // the same array K times would stay in cache and flatter the loop), in the same iterations
  // (so a slow minute of a shared machine hits both): what the batch saves over a loop of calls.
  std::unique_ptr<Plan> single;
  Index single_in_stride = 0, single_out_stride = 0;
  Array<Real> single_r;
  Array<C> single_c, single_out;
  if (a.batch > 1) {
    Options one = o;
    one.batch = 1, one.batch_layout = BatchLayout::outer, one.tune = 0;
    one.grid = plan.grid(), one.engine = plan.engine();
    single = std::make_unique<Plan>(MPI_COMM_WORLD, grid_shape, a.kind, a.precision, one);
    const Index n1 = std::max<Index>({single->input_count(), 1,
                                      a.in_place ? static_cast<Index>(single->in_place_bytes()) / in_element + 1 : 1});
    // Field f's arrays start at f * n1 (input) and f * m1 (output): 64-byte multiples apart.
    single_in_stride = (n1 + 7) / 8 * 8;
    single_out_stride = (std::max<Index>(single->output_count(), 1) + 3) / 4 * 4;
    if (real) single_r.assign(single_in_stride * K, Real(0.25));
    else single_c.assign(single_in_stride * K, C(0.25));
    single_out.assign(a.in_place ? 1 : single_out_stride * K, C(0));
  }
  auto single_calls = [&](bool forward) {
    for (Index f = 0; f < K; ++f) {
      Real* r1 = real ? single_r.data() + f * single_in_stride : nullptr;
      C* c1 = real ? nullptr : single_c.data() + f * single_in_stride;
      C* o1 = a.in_place ? (real ? reinterpret_cast<C*>(r1) : c1) : single_out.data() + f * single_out_stride;
      if (real_spectrum) forward ? single->forward(r1, as_reals(o1)) : single->backward(as_reals(o1), r1);
      else if (forward) real ? single->forward(r1, o1) : single->forward(c1, o1);
      else real ? single->backward(o1, r1) : single->backward(o1, c1);
    }
  };
  for (int it = -a.warmup; it < a.iters; ++it) {
    const double tf = timed(fwd);
    const auto pf = plan.timings_max(Direction::forward);
    const double tb = timed(bwd);
    const auto pb = plan.timings_max(Direction::backward);
    if (single) {
      const double sf = timed([&] { single_calls(true); });
      const double sb = timed([&] { single_calls(false); });
      if (it >= 0) r.single_fwd.push_back(sf), r.single_bwd.push_back(sb);
    }
    if (it < 0) continue;
    r.fwd.times.push_back(tf), r.bwd.times.push_back(tb);
    for (auto* pair : {&r.fwd, &r.bwd}) {
      const auto& ph = pair == &r.fwd ? pf : pb;
      if (pair->phase_names.empty()) {
        for (const auto& p : ph) pair->phase_names.push_back(p.name);
        pair->phase_times.resize(ph.size());
      }
      for (std::size_t k = 0; k < ph.size(); ++k) pair->phase_times[k].push_back(ph[k].seconds);
    }
  }
  // Bytes each exchange moves (the plan's own count), and the unpadded plan's.
  Options plain = o;
  plain.spectral_shape.clear();
  const PlanDescription full = describe(plan.description().grid[0] * plan.description().grid[1], grid_shape,
                                        a.kind, a.precision, [&] { plain.grid = plan.grid(); plain.engine = plan.engine(); return plain; }());
  for (std::size_t k = 0; k < plan.description().exchanges.size(); ++k) {
    const auto& e = plan.description().exchanges[k];
    double total = 0, unpadded = 0;
    for (const auto& m : e.messages) total += static_cast<double>(m.bytes);
    for (const auto& m : full.exchanges[k].messages) unpadded += static_cast<double>(m.bytes);
    r.exchanges.push_back({e.name, total, unpadded});
  }
  r.description = plan.description();
  if (keep) {
    // The companion owns the plan and the arrays. Where a call overwrites its input (in place,
    // destroy_input) it first restores that input (untimed), as the peers refill theirs: an
    // unscaled round trip multiplies the values by N, and the companion runs many more
    // iterations than the loop above.
    struct Arrays {
      Array<Real> in_r, back_r;
      Array<C> in_c, back_c, out, saved_c;
      Array<Real> saved_r;
    };
    // Moved (not copied): the storage the calls point at changes owner, not place.
    const auto arrays = std::make_shared<Arrays>(Arrays{std::move(in_r), std::move(back_r), std::move(in_c),
                                                        std::move(back_c), std::move(out), std::move(saved_c),
                                                        std::move(saved_r)});
    r.companion = [kept_plan, arrays, fwd, bwd, restore, real]() -> std::pair<double, double> {
      if (restore && real) std::copy(arrays->saved_r.begin(), arrays->saved_r.end(), arrays->in_r.begin());
      if (restore && !real) std::copy(arrays->saved_c.begin(), arrays->saved_c.end(), arrays->in_c.begin());
      const double tf = timed(fwd);
      return {tf, timed(bwd)};
    };
  }
  return r;
}

std::string shape_text(const std::vector<Index>& s) {
  std::string t;
  for (std::size_t k = 0; k < s.size(); ++k) t += (k ? "x" : "") + std::to_string(s[k]);
  return t;
}

std::string grid_text(std::array<int, 2> g) { return std::to_string(g[0]) + "x" + std::to_string(g[1]); }

void print_direction(const char* title, const DirectionResult& d, double gflop) {
  const double total = median(d.times);
  std::printf("  %-9s median %9.3f ms  min %9.3f ms  max %9.3f ms  %7.2f GFlop/s\n", title, total * 1e3,
              *std::min_element(d.times.begin(), d.times.end()) * 1e3,
              *std::max_element(d.times.begin(), d.times.end()) * 1e3, gflop / total);
  // "hidden_X" phases (pipelined engine) are exchange time spent under computation: shown, not
  // added, since the computation that hid them is already counted.
  auto hidden = [&](std::size_t k) { return d.phase_names[k].rfind("hidden_", 0) == 0; };
  double sum = 0;
  for (std::size_t k = 0; k < d.phase_names.size(); ++k)
    if (!hidden(k)) sum += median(d.phase_times[k]);
  for (std::size_t k = 0; k < d.phase_names.size(); ++k) {
    const double m = median(d.phase_times[k]);
    if (hidden(k))
      std::printf("    %-18s %9.3f ms  (exchange under compute, not in the total)\n", d.phase_names[k].c_str(), m * 1e3);
    else
      std::printf("    %-18s %9.3f ms  %5.1f%% of the phases\n", d.phase_names[k].c_str(), m * 1e3,
                  sum > 0 ? 100 * m / sum : 0.0);
  }
}

void json_direction(std::ostream& os, const DirectionResult& d, double gflop) {
  const double m = median(d.times);
  os << "{\"median_ms\": " << m * 1e3 << ", \"min_ms\": " << *std::min_element(d.times.begin(), d.times.end()) * 1e3
     << ", \"gflops\": " << gflop / m << ", \"times_ms\": [";
  for (std::size_t k = 0; k < d.times.size(); ++k) os << (k ? ", " : "") << d.times[k] * 1e3;
  os << "], \"phases\": [";
  for (std::size_t k = 0; k < d.phase_names.size(); ++k)
    os << (k ? ", " : "") << "{\"name\": \"" << d.phase_names[k] << "\", \"ms\": " << median(d.phase_times[k]) * 1e3 << "}";
  os << "]}";
}

// Threads beyond the cores a rank may run on share those cores: --threads then changes nothing
// or slows the run down, silently. Open MPI binds each rank to one core when np <= 2, so this
// is what `mpirun -n 1 volfft-bench ... --threads 2` gets; say so, with the launch that fixes it.
// Ranks x threads on a node beyond its cores share cores too: timings then depend on the OS's
// scheduling (ratios between runs of 0.7 to 4 are common), which the reader must know.
void warn_about_cores(int threads) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1, rank = 0;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int node_cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t set;
  CPU_ZERO(&set);
  int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : node_cores;
  int fewest = mine;
  MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int crowded = on_node * threads > node_cores ? 1 : 0, any = 0;
  MPI_Allreduce(&crowded, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0) return;
  if (fewest < threads)
    std::printf("warning: %d thread(s) per rank, but a rank may run on %d core(s) only (its CPU affinity): the "
                "threads take turns on them. Open MPI binds each rank to one core when it starts at most 2; "
                "launch with `mpirun --bind-to none` (scripts/mpirun.sh does) or `--map-by slot:PE=%d`\n",
                threads, fewest, threads);
  if (any)
    std::printf("warning: %d rank(s) x %d thread(s) share a node with %d cores (oversubscribed): timings and "
                "ratios are unreliable; use at most one rank-thread per core for measurements\n",
                on_node, threads, node_cores);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 0;
  try {
    const Args a = parse(argc, argv, size);
    const double gflop = flops(a) * 1e-9;
    if (rank == 0)
      std::printf("%s\n%s %s %s%s%s%s on %d rank(s) x %d thread(s), backend %s, layout %s, effort %s, backward %s, "
                  "%d iterations (median, max over ranks)\n",
                  version_string().c_str(), to_string(a.kind), to_string(a.precision), shape_text(a.shape).c_str(),
                  a.pad.empty() ? "" : (" padded to " + shape_text(a.pad)).c_str(), a.in_place ? " in place" : "",
                  a.in_dist.empty() && a.out_dist.empty()
                      ? ""
                      : (", in " + (a.in_dist.empty() ? std::string("plan's") : a.in_dist) + ", out " +
                         (a.out_dist.empty() ? std::string("plan's") : a.out_dist))
                            .c_str(),
                  size, a.threads,
                  to_string(a.backend), to_string(a.layout), to_string(a.effort), a.scale ? "scaled 1/N" : "unscaled",
                  a.iters);
    warn_about_cores(a.threads);
    std::vector<RunResult> results;
    const bool compare = a.fftw_mpi || a.fftw_serial || a.fftw_threads;
    auto total = [](const RunResult& r) { return median(r.fwd.times) + median(r.bwd.times); };
    // The best configuration by forward + backward median (the first of equals).
    auto best_of = [&] {
      std::size_t best = 0;
      for (std::size_t k = 1; k < results.size(); ++k)
        if (total(results[k]) < total(results[best])) best = k;
      return best;
    };
    for (auto g : a.grids)
      for (Engine e : a.engines)
        for (int pl : (e == Engine::pipelined ? a.planes : std::vector<int>{-1})) {
          try {
            results.push_back(a.precision == Precision::float64 ? run<double>(a, g, e, pl, compare)
                                                                : run<float>(a, g, e, pl, compare));
            // Only the best so far keeps its plan and arrays (the same on every rank: the
            // medians are of maxima over ranks).
            const std::size_t kept = best_of();
            for (std::size_t k = 0; k < results.size(); ++k)
              if (k != kept) results[k].companion = nullptr;
          } catch (const Error& error) {
            // With several engines, one that does not apply here is skipped (the plan agreed on
            // it, so every rank is here); a single one asked for is the user's error.
            if (a.engines.size() == 1) throw;
            if (rank == 0) std::printf("  %s %s: skipped (%s)\n", grid_text(g).c_str(), to_string(e), error.what());
          }
        }
    if (results.empty()) throw Error("volfft-bench: no configuration applies to this problem");
    const std::size_t best = best_of();
    const double tol = (a.precision == Precision::float64 ? 1e-12 : 1e-4);
    bool ok = true;
    if (rank == 0 && results.size() > 1) {
      std::printf("\n  %-8s %-10s %6s %12s %12s\n", "grid", "engine", "planes", "forward ms", "backward ms");
      for (const auto& r : results)
        std::printf("  %-8s %-10s %6s %12.3f %12.3f\n", grid_text(r.grid).c_str(), to_string(r.engine),
                    r.engine == Engine::pipelined ? (r.planes < 0 ? "auto" : std::to_string(r.planes).c_str()) : "-",
                    median(r.fwd.times) * 1e3, median(r.bwd.times) * 1e3);
    }
    for (const auto& r : results) ok = ok && r.forward_error < tol && r.roundtrip_error < tol;
    const RunResult& b = results[best];
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const double rss = max_over(static_cast<double>(ru.ru_maxrss) * 1024.0);
    if (rank == 0) {
      std::string order;
      for (int x : b.output_order) order += std::to_string(x);
      const std::string chosen_backend =
          a.backend == Backend::automatic ? std::string(", backend ") + to_string(b.backend) + " (measured)" : "";
      std::printf("\n%sgrid %s (%s, %s), engine %s (%s)%s, output memory order (%s)\n", results.size() > 1 ? "best: " : "",
                  grid_text(b.grid).c_str(), b.grid[1] == 1 ? "slab" : "pencil", b.grid_choice, to_string(b.engine),
                  b.engine_choice, chosen_backend.c_str(), order.c_str());
      std::printf("  (output memory order: the global axes from slowest to fastest in each rank's output array;\n"
                  "   times: each iteration's maximum over ranks, then the median, min and max over iterations;\n"
                  "   phases: fftA = FFTs along axes A, pack/exchange/unpack = the transposes, each phase's\n"
                  "   median over iterations)\n");
      std::printf("  plan %.3f s, workspace %.1f MiB/rank, peak RSS %.1f MiB/rank\n", b.plan_seconds,
                  b.workspace / 1048576.0, rss / 1048576.0);
      if (b.forward_checked)
        std::printf("  verify: plane-wave forward max error %.2e, round-trip max error %.2e: %s\n",
                    b.forward_error, b.roundtrip_error, ok ? "OK" : "FAILED");
      else
        std::printf("  verify: forward not checked (r2r or none kinds, or more than 3 axes), round-trip max error %.2e: %s\n",
                    b.roundtrip_error, ok ? "OK" : "FAILED");
      for (const auto& v : b.exchanges)
        std::printf("  exchange %-7s %10.2f MiB moved in all%s\n", v.name.c_str(), v.bytes / 1048576.0,
                    a.pad.empty() ? ""
                                  : (" (unpadded " + std::to_string(v.unpadded_bytes / 1048576.0).substr(0, 8) +
                                     " MiB, ratio " + std::to_string(v.bytes / v.unpadded_bytes).substr(0, 5) + ")")
                                        .c_str());
      print_direction("forward", b.fwd, gflop);
      print_direction("backward", b.bwd, gflop);
      if (!b.single_fwd.empty()) {
        const double batched = median(b.fwd.times) + median(b.bwd.times);
        const double singles = median(b.single_fwd) + median(b.single_bwd);
        std::printf("  %d single-field calls (same options, same iterations): forward %.3f ms, backward %.3f ms\n"
                    "  ratio batch/%d calls: %.3f (forward + backward medians; below 1: the batch is faster)\n",
                    a.batch, median(b.single_fwd) * 1e3, median(b.single_bwd) * 1e3, a.batch, batched / singles);
      }
    }
    // The floor (collective: every rank copies at once, as in the transform's phases).
    bench::CopyBandwidth copy;
    std::size_t floor_buffer = 0;
    std::vector<bench::LineTime> line_times;
    std::vector<bench::FloorRow> floor_fwd, floor_bwd;
    if (a.floor) {
      double n = 1;
      for (Index e : a.shape) n *= static_cast<double>(e);
      // At least 64 MiB (out of any cache), else this rank's share of the complex array.
      floor_buffer = std::max<std::size_t>(std::size_t(64) << 20,
                                           static_cast<std::size_t>(n * b.description.element_bytes / size));
      copy = bench::copy_bandwidth(MPI_COMM_WORLD, floor_buffer, a.threads);
      line_times = bench::fft_line_times(MPI_COMM_WORLD, b.description);
      auto medians = [](const DirectionResult& d) {
        std::vector<double> m;
        for (const auto& t : d.phase_times) m.push_back(median(t));
        return m;
      };
      const int workers = size * a.threads;
      floor_fwd = bench::floor_rows(b.description, true, b.fwd.phase_names, medians(b.fwd), copy.best(), line_times, workers);
      floor_bwd = bench::floor_rows(b.description, false, b.bwd.phase_names, medians(b.bwd), copy.best(), line_times, workers);
      if (rank == 0) {
        std::printf("\n  floor: copy bandwidth %.2f GB/s, the faster of memcpy (%.2f) and streamed stores (%.2f)\n"
                    "    (read + written, all %d rank(s) x %d thread(s) at once, %.0f MiB per rank, best of 5)\n",
                    copy.best() * 1e-9, copy.memcpy * 1e-9, copy.streamed * 1e-9, size, a.threads,
                    floor_buffer / 1048576.0);
        bench::print_floor(floor_fwd, floor_bwd);
      }
    }
    // Each peer in every mode a user could pick (in place or not, transposed or not); the
    // ratio is against its fastest. fftw-threads uses as many threads as volfft's rank.
    std::vector<bench::PeerTimes> peer_mpi, peer_serial, peer_threads;
    const std::vector<std::int64_t> transform_shape = a.pad.empty() ? a.shape : a.pad;
    if (a.fftw_mpi)
      peer_mpi = bench::time_fftw_mpi(MPI_COMM_WORLD, transform_shape, a.kind, a.kinds, a.batch, a.precision, a.effort,
                                      a.warmup, a.iters, b.companion);
    if ((a.fftw_serial || a.fftw_threads) && size != 1)
      throw Error("volfft-bench: --compare fftw-serial/fftw-threads compares with one process: run with -n 1");
    if (a.fftw_serial)
      peer_serial = bench::time_fftw_serial(transform_shape, a.kind, a.kinds, a.batch, a.precision, a.effort, 1, a.warmup,
                                            a.iters, b.companion);
    if (a.fftw_threads)
      peer_threads =
          bench::time_fftw_serial(transform_shape, a.kind, a.kinds, a.batch, a.precision, a.effort, a.threads, a.warmup,
                                  a.iters, b.companion);
    // volfft's forward and backward medians from a peer mode's own iterations (the companion's);
    // the best configuration's own loop where there are none.
    auto volfft_medians = [&](const bench::PeerTimes& m) -> std::pair<double, double> {
      if (m.companion_forward.empty()) return {median(b.fwd.times), median(b.bwd.times)};
      return {median(m.companion_forward), median(m.companion_backward)};
    };
    auto report = [&](const char* name, const std::vector<bench::PeerTimes>& modes) {
      if (rank != 0 || modes.empty()) return;
      const std::size_t best = bench::fastest(modes);
      std::printf("\n  %s, each mode (forward, backward medians; plan; volfft's best configuration in the same\n"
                  "  iterations, its calls alternating with the peer's):\n", name);
      for (std::size_t k = 0; k < modes.size(); ++k) {
        const auto [vf, vb] = volfft_medians(modes[k]);
        std::printf("    %-52s %9.3f ms %9.3f ms  plan %.3f s  volfft %9.3f ms %9.3f ms%s\n", modes[k].mode.c_str(),
                    median(modes[k].forward) * 1e3, median(modes[k].backward) * 1e3, modes[k].plan_seconds, vf * 1e3,
                    vb * 1e3, k == best ? "  <- fastest" : "");
      }
      const double f = median(modes[best].forward), bk = median(modes[best].backward);
      const auto [vf, vb] = volfft_medians(modes[best]);
      std::printf("  ratio volfft/%s (its fastest mode, same iterations): forward %.3f, backward %.3f, total %.3f "
                  "(below 1: volfft is faster)\n",
                  name, vf / f, vb / bk, (vf + vb) / (f + bk));
    };
    report("fftw-mpi", peer_mpi);
    report("fftw-serial", peer_serial);
    report("fftw-threads", peer_threads);
    if (rank == 0 && !a.json.empty()) {
      std::ofstream js(a.json);
      js.precision(6);
      js << "{\"schema\": \"volfft-bench/1\", \"version\": \"" << version_string() << "\",\n \"config\": {\"kind\": \"" << to_string(a.kind)
         << "\", \"precision\": \"" << to_string(a.precision) << "\", \"shape\": [";
      for (std::size_t k = 0; k < a.shape.size(); ++k) js << (k ? ", " : "") << a.shape[k];
      js << "], \"pad\": [";
      for (std::size_t k = 0; k < a.pad.size(); ++k) js << (k ? ", " : "") << a.pad[k];
      js << "], \"ranks\": " << size << ", \"grid\": [" << b.grid[0] << ", " << b.grid[1] << "], \"engine\": \""
         << to_string(b.engine) << "\", \"planes\": " << b.planes << ", \"layout\": \"" << to_string(a.layout) << "\", \"effort\": \"" << to_string(a.effort)
         << "\", \"threads\": " << a.threads << ", \"backend\": \"" << to_string(a.backend)
         << "\", \"iters\": " << a.iters << ", \"scale_backward\": " << (a.scale ? "true" : "false")
         << ", \"in_place\": " << (a.in_place ? "true" : "false")
         << ", \"destroy_input\": " << (a.destroy_input ? "true" : "false") << ", \"batch\": " << a.batch
         << ", \"in\": \"" << a.in_dist << "\", \"out\": \"" << a.out_dist << "\""
         << ", \"batch_layout\": \"" << to_string(a.batch_layout) << "\"},\n \"plan_seconds\": " << b.plan_seconds << ", \"workspace_bytes\": " << b.workspace
         << ", \"peak_rss_bytes\": " << rss << ",\n \"verify\": {\"forward_max_error\": " << b.forward_error
         << ", \"roundtrip_max_error\": " << b.roundtrip_error << ", \"ok\": " << (ok ? "true" : "false") << "},\n \"exchanges\": [";
      for (std::size_t k = 0; k < b.exchanges.size(); ++k)
        js << (k ? ", " : "") << "{\"name\": \"" << b.exchanges[k].name << "\", \"bytes\": " << b.exchanges[k].bytes
           << ", \"unpadded_bytes\": " << b.exchanges[k].unpadded_bytes << "}";
      js << "],\n \"forward\": ";
      json_direction(js, b.fwd, gflop);
      js << ",\n \"backward\": ";
      json_direction(js, b.bwd, gflop);
      if (!b.single_fwd.empty())
        js << ",\n \"batch_single\": {\"calls\": " << a.batch << ", \"forward_median_ms\": " << median(b.single_fwd) * 1e3
           << ", \"backward_median_ms\": " << median(b.single_bwd) * 1e3 << "}";
      js << ",\n \"candidates\": [";
      for (std::size_t k = 0; k < results.size(); ++k)
        js << (k ? ", " : "") << "{\"grid\": [" << results[k].grid[0] << ", " << results[k].grid[1] << "], \"engine\": \""
           << to_string(results[k].engine) << "\", \"planes\": " << results[k].planes << ", \"forward_ms\": " << median(results[k].fwd.times) * 1e3
           << ", \"backward_ms\": " << median(results[k].bwd.times) * 1e3 << "}";
      js << "],\n \"floor\": ";
      if (!a.floor) {
        js << "null";
      } else {
        js << "{\"copy_bytes_per_second\": " << copy.best() << ", \"memcpy_bytes_per_second\": " << copy.memcpy
           << ", \"streamed_bytes_per_second\": " << copy.streamed << ", \"buffer_bytes_per_rank\": " << floor_buffer
           << ", \"workers\": " << size * a.threads << ", \"lines\": [";
        for (std::size_t k = 0; k < line_times.size(); ++k) {
          const auto& l = line_times[k];
          js << (k ? ", " : "") << "{\"axis\": " << l.axis << ", \"n\": " << l.n << ", \"kind\": \"" << to_string(l.kind)
             << "\", \"direction\": \"" << (l.forward ? "forward" : "backward") << "\", \"seconds\": " << l.seconds << "}";
        }
        js << "]";
        for (const auto* rows : {&floor_fwd, &floor_bwd}) {
          js << ", \"" << (rows == &floor_fwd ? "forward" : "backward") << "\": [";
          for (std::size_t k = 0; k < rows->size(); ++k) {
            const auto& row = (*rows)[k];
            js << (k ? ", " : "") << "{\"phase\": \"" << row.phase << "\", \"ms\": " << row.seconds * 1e3
               << ", \"bytes\": " << row.bytes << ", \"floor_ms\": " << row.floor_seconds * 1e3
               << ", \"in_cache_ms\": " << row.compute_seconds * 1e3 << "}";
          }
          js << "]";
        }
        js << "}";
      }
      js << ",\n \"compare\": {";
      bool first = true;
      for (auto [name, modes] : {std::pair<const char*, const std::vector<bench::PeerTimes>*>{"fftw-mpi", &peer_mpi},
                                 {"fftw-serial", &peer_serial}, {"fftw-threads", &peer_threads}}) {
        if (modes->empty()) continue;
        const bench::PeerTimes& p = (*modes)[bench::fastest(*modes)];
        const double f = median(p.forward), bk = median(p.backward);
        const auto [vf, vb] = volfft_medians(p);
        js << (first ? "" : ", ") << "\"" << name << "\": {\"mode\": \"" << p.mode << "\", \"forward_median_ms\": " << f * 1e3
           << ", \"backward_median_ms\": " << bk * 1e3 << ", \"volfft_forward_median_ms\": " << vf * 1e3
           << ", \"volfft_backward_median_ms\": " << vb * 1e3 << ", \"ratio_forward\": " << vf / f
           << ", \"ratio_backward\": " << vb / bk << ", \"ratio_total\": " << (vf + vb) / (f + bk) << ", \"modes\": [";
        for (std::size_t k = 0; k < modes->size(); ++k) {
          const auto [mf, mb] = volfft_medians((*modes)[k]);
          js << (k ? ", " : "") << "{\"mode\": \"" << (*modes)[k].mode << "\", \"forward_median_ms\": "
             << median((*modes)[k].forward) * 1e3 << ", \"backward_median_ms\": " << median((*modes)[k].backward) * 1e3
             << ", \"plan_seconds\": " << (*modes)[k].plan_seconds << ", \"volfft_forward_median_ms\": " << mf * 1e3
             << ", \"volfft_backward_median_ms\": " << mb * 1e3
             << ", \"fftw_plan_forward\": " << volfft::tune::Json::of((*modes)[k].plan_forward).dump()
             << ", \"fftw_plan_backward\": " << volfft::tune::Json::of((*modes)[k].plan_backward).dump() << "}";
        }
        js << "]}";
        first = false;
      }
      js << "}}\n";
    }
    code = ok ? 0 : 3;
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
    code = 2;
  }
  MPI_Finalize();
  return code;
}
