// Plan's contract: volfft allocates nothing in forward()/backward() (and Reshape's: nothing in
// execute()/reverse()). Every engine, transform kind, precision and backend of this build, in
// place and not, batched, threaded, split phase, on unaligned arrays, from the user's bricks,
// through the C API, and Reshape on each of its engines: after two warm-up calls, two more of
// each direction run under an allocation watch (support/allocation_watch.hpp), and any heap
// allocation whose code is volfft's (libvolfft, ducc0 inside it) fails the case, with the
// function that made it; a team libgomp makes for volfft's parallel region counts as volfft's.
// Allocations made by FFTW's or MPI's own code are printed, not failed (FFTW's buffered plans
// take their buffers per call). A control checks that the watch sees an allocation libvolfft
// does make (Plan::timings() returns a new vector).
// With Backend::ducc0 the FFTs themselves allocate (ducc0's scratch, plan.hpp says so): those
// cases check only that no allocation is of the array's size. The copies, exchanges and scaling
// they share with the FFTW cases are checked there.
// Run at np 1-4: slabs, and pencils where the ranks make them (1 x P at 2 and 3, 2 x 2 at 4);
// --quick (smaller arrays) where the ranks outnumber the cores.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "support/allocation_watch.hpp"
#include "support/mpi_main.hpp"
#include "volfft/distribution.hpp"
#include "volfft/plan.hpp"
#include "volfft/reshape.hpp"
#include "volfft/volfft.h"

using namespace volfft;
using namespace volfft_test;

namespace {

std::map<std::string, long> others;  // allocations by FFTW's and MPI's code: owner -> count

/// Bytes aligned to 64, `offset` bytes past an aligned start (offset 16: aligned for complex
/// values but not for FFTW's SIMD plans).
struct Buffer {
  void* base = nullptr;
  void* data = nullptr;
  Buffer(std::size_t bytes, std::size_t offset) {
    base = std::aligned_alloc(64, ((bytes + offset + 63) / 64 + 1) * 64);
    data = static_cast<char*>(base) + offset;
    std::memset(data, 0, bytes);
  }
  ~Buffer() { std::free(base); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct Case {
  std::string label;
  std::vector<std::int64_t> shape;
  Kind kind = Kind::c2c;
  Precision precision = Precision::float64;
  Options options;
  std::size_t offset = 0;  // bytes: misalign the arrays
  bool split = false;      // forward_start()/wait() instead of forward()
  bool bricks = false;     // the input in the user's bricks: the plan reshapes it
};

Plan make_plan(const Case& c) {
  if (!c.bricks) return Plan(MPI_COMM_WORLD, c.shape, c.kind, c.precision, c.options);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  LocalArray in;
  in.box = bricks(c.shape, size)[static_cast<std::size_t>(rank)];
  return Plan(MPI_COMM_WORLD, c.shape, c.kind, c.precision, c.options, in);
}

void fill(void* p, std::size_t bytes, Precision precision) {
  if (precision == Precision::float64) {
    auto* x = static_cast<double*>(p);
    for (std::size_t k = 0; k < bytes / sizeof(double); ++k) x[k] = std::sin(0.37 * k + 0.1);
  } else {
    auto* x = static_cast<float*>(p);
    for (std::size_t k = 0; k < bytes / sizeof(float); ++k) x[k] = static_cast<float>(std::sin(0.37 * k + 0.1));
  }
}

/// The volfft allocations of two watched calls of `pair` after two unwatched ones; the others
/// go to `others`.
template <class F>
std::vector<Allocation> watch_pairs(const F& pair) {
  pair();
  pair();
  MPI_Barrier(MPI_COMM_WORLD);
  start_watch();
  pair();
  pair();
  long overflow = 0;
  std::vector<Allocation> seen = stop_watch(&overflow);
  std::vector<Allocation> mine;
  for (const Allocation& a : seen) {
    if (is_volfft(a))
      mine.push_back(a);
    else
      ++others[a.owner];
  }
  if (overflow > 0) mine.push_back({"(more than the watch records)", std::to_string(overflow)});
  return mine;
}

/// A plan's forward + backward pairs.
std::vector<Allocation> watched_pairs(const Case& c) {
  Plan plan = make_plan(c);
  const std::size_t real = c.precision == Precision::float64 ? 8 : 4;
  const std::size_t in_unit = c.kind == Kind::c2c ? 2 * real : real;
  const std::size_t out_unit = c.kind == Kind::r2r ? real : 2 * real;
  const std::size_t in_bytes = c.options.in_place ? plan.in_place_bytes() : plan.input_count() * in_unit;
  const std::size_t out_bytes = c.options.in_place ? 0 : plan.output_count() * out_unit;
  Buffer in(in_bytes, c.offset), out(out_bytes, c.offset);
  void* o = c.options.in_place ? in.data : out.data;
  return watch_pairs([&] {
    fill(in.data, in_bytes, c.precision);
    if (c.split) {
      Request f = plan.forward_start(in.data, o);
      f.wait();
      Request b = plan.backward_start(o, in.data);
      b.wait();
    } else {
      plan.forward_raw(in.data, o);
      plan.backward_raw(o, in.data);
    }
  });
}

/// The C API's volfft_forward + volfft_backward (c2c double, default options).
std::vector<Allocation> watched_c_pairs(const std::vector<std::int64_t>& shape) {
  volfft_plan plan = nullptr;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, static_cast<int>(shape.size()), shape.data(), VOLFFT_C2C, VOLFFT_DOUBLE,
                           nullptr, &plan) == VOLFFT_OK);
  std::int64_t in_count = 0, out_count = 0;
  CHECK(volfft_counts(plan, &in_count, &out_count) == VOLFFT_OK);
  Buffer in(static_cast<std::size_t>(in_count) * 16, 0), out(static_cast<std::size_t>(out_count) * 16, 0);
  std::vector<Allocation> mine = watch_pairs([&] {
    fill(in.data, static_cast<std::size_t>(in_count) * 16, Precision::float64);
    CHECK(volfft_forward(plan, in.data, out.data) == VOLFFT_OK);
    CHECK(volfft_backward(plan, out.data, in.data) == VOLFFT_OK);
  });
  volfft_plan_destroy(plan);
  return mine;
}

/// A Reshape from bricks to slabs and back (execute + reverse), complex doubles.
std::vector<Allocation> watched_reshapes(const std::vector<std::int64_t>& shape, Engine engine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  LocalArray from, to;
  from.box = bricks(shape, size)[static_cast<std::size_t>(rank)];
  to.box = slabs(shape, size, 0)[static_cast<std::size_t>(rank)];
  Options o;
  o.engine = engine;
  Reshape reshape(MPI_COMM_WORLD, shape, from, to, Precision::float64, Values::complex, o);
  Buffer in(static_cast<std::size_t>(reshape.input_count()) * 16, 0),
      out(static_cast<std::size_t>(reshape.output_count()) * 16, 0);
  return watch_pairs([&] {
    reshape.execute(in.data, out.data);
    reshape.reverse(out.data, in.data);
  });
}

std::string grid_text(const std::array<int, 2>& g) { return std::to_string(g[0]) + "x" + std::to_string(g[1]); }

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int k = 1; k < argc; ++k) quick = quick || std::strcmp(argv[k], "--quick") == 0;
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    // The control: the watch sees libvolfft's own allocations and tells them from the test's.
    {
      Options o;
      o.effort = Effort::estimate;
      Plan plan(MPI_COMM_WORLD, {8, 6, 4}, Kind::c2c, Precision::float64, o);
      start_watch();
      const std::vector<Phase> phases = plan.timings(Direction::forward);
      auto* own = new std::vector<int>(3);
      std::vector<Allocation> seen = stop_watch();
      delete own;
      long volfft = 0, test = 0;
      for (const Allocation& a : seen) {
        if (is_volfft(a)) ++volfft;
        if (a.owner.find("test_no_allocation") != std::string::npos) ++test;
      }
      CHECK_MSG(volfft > 0 && test >= 2, "the watch saw " << volfft << " allocations by libvolfft (Plan::timings) and "
                                                         << test << " by the test (expected >= 1 and >= 2)");
    }

    int p0 = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) p0 = d;
    const std::array<int, 2> slabs{size, 1}, pencils{p0, size / p0};
    const std::vector<std::int64_t> shape = quick ? std::vector<std::int64_t>{12, 10, 9} : std::vector<std::int64_t>{24, 20, 18};
    std::vector<Backend> backends = {Backend::fftw};
    if (have_backend(Backend::ducc0)) backends.push_back(Backend::ducc0);

    std::vector<Case> cases;
    auto add = [&](Case c) {
      c.options.effort = Effort::estimate;
      if (c.options.grid == std::array<int, 2>{0, 0}) c.options.grid = slabs;
      c.label += " grid " + grid_text(c.options.grid);
      cases.push_back(std::move(c));
    };
    // Every engine on c2c slabs and r2c pencils.
    for (Engine engine : engines()) {
      if (engine == Engine::automatic) continue;
      Case c{std::string("c2c ") + to_string(engine), shape};
      c.options.engine = engine;
      add(c);
      if (pencils != slabs) {
        Case p{std::string("r2c ") + to_string(engine), shape, Kind::r2c};
        p.options.engine = engine;
        p.options.grid = pencils;
        add(p);
      }
    }
    // Every kind and precision with each backend, on the default engine.
    for (Backend backend : backends) {
      const std::string b = std::string(" backend ") + to_string(backend);
      for (Precision precision : {Precision::float64, Precision::float32}) {
        const std::string pr = precision == Precision::float64 ? " double" : " float";
        for (Kind kind : {Kind::c2c, Kind::r2c}) {
          Case c{std::string(kind == Kind::c2c ? "c2c" : "r2c") + pr + b, shape, kind, precision};
          c.options.backend = backend;
          add(c);
        }
      }
      Case r{"r2r dct2/dst3/dct1 double" + b, shape, Kind::r2r};
      r.options.backend = backend;
      r.options.kinds = {AxisKind::dct2, AxisKind::dst3, AxisKind::dct1};
      add(r);
      Case t{"r2c double threads 2" + b, shape, Kind::r2c};
      t.options.backend = backend;
      t.options.threads = 2;
      add(t);
      Case i{"c2c double in place" + b, shape};
      i.options.backend = backend;
      i.options.in_place = true;
      add(i);
    }
    // Options that take other paths.
    {
      Case c{"r2c in place", shape, Kind::r2c};
      c.options.in_place = true;
      add(c);
      Case b{"c2c batch 3", shape};
      b.options.batch = 3;
      add(b);
      Case n{"r2c layout natural, scaled forward", shape, Kind::r2c};
      n.options.layout = Layout::natural;
      n.options.scale_forward = true;
      n.options.scale_backward = false;
      add(n);
      Case d{"r2c destroy_input", shape, Kind::r2c};
      d.options.destroy_input = true;
      add(d);
      Case u{"c2c unaligned arrays", shape};
      u.offset = 16;
      add(u);
      Case s{"c2c split phase, alltoallv", shape};
      s.options.engine = Engine::alltoallv;
      s.split = true;
      add(s);
      Case bricked{"r2c from bricks (reshape)", shape, Kind::r2c};
      bricked.bricks = true;
      add(bricked);
      Case two{"c2c 2-D", {40, 36}};
      add(two);
      Case four{"c2c 4-D", {6, 5, 4, 3}};
      add(four);
      if (pencils != slabs) {
        Case p{"c2c pencils threads 2", shape};
        p.options.grid = pencils;
        p.options.threads = 2;
        add(p);
      }
    }
    // Measured: at one rank a 3-D stage may be timed whole against split (plan/plane_split.hpp;
    // an r2c's backward whole copies its input into the plan's array first), and the forced
    // runs of this test (tests/CMakeLists.txt, VOLFFT_TEST_TIMED_SPLIT) keep each way.
    for (Kind kind : {Kind::c2c, Kind::r2c}) {
      Case m{std::string(kind == Kind::c2c ? "c2c" : "r2c") + " double measured", shape, kind};
      m.options.grid = slabs;
      m.label += " grid " + grid_text(m.options.grid);
      cases.push_back(m);  // not add(): that plans at effort estimate
    }

    // No allocation by volfft on any rank; rank 0 says so where none had one.
    auto none = [&](const std::vector<Allocation>& mine, const std::string& label) {
      const int count = static_cast<int>(mine.size());
      int most = 0;
      MPI_Allreduce(&count, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      std::string where;
      for (std::size_t k = 0; k < mine.size() && k < 3; ++k) where += " " + mine[k].function;
      CHECK_MSG(count == 0, "rank " << rank << ": " << label << ": " << count
                                    << " allocations by volfft in two calls of each direction:" << where);
      if (rank == 0 && most == 0) std::printf("%s: no allocation\n", label.c_str());
    };
    for (const Case& c : cases) {
      const std::vector<Allocation> mine = watched_pairs(c);
      if (c.options.backend != Backend::ducc0) {
        none(mine, c.label);
        continue;
      }
      // ducc0's nd transforms take their scratch (a few lines of one axis per thread), their
      // iterators and views from the heap on every call (documented in plan.hpp). Bounded:
      // nothing of the array's size, at most 64 lines of the longest axis at once.
      std::size_t bytes = 0, largest = 0;
      for (const Allocation& a : mine) bytes += a.bytes, largest = std::max(largest, a.bytes);
      std::int64_t longest = 0;
      for (std::int64_t n : c.shape) longest = std::max(longest, n);
      const std::size_t bound = 64 * static_cast<std::size_t>(longest) * 16;
      CHECK_MSG(largest <= bound, "rank " << rank << ": " << c.label << ": ducc0 allocated " << largest
                                          << " bytes at once; expected scratch of at most " << bound);
      if (rank == 0)
        std::printf("%s: %zu allocations by ducc0 in two forward + backward pairs, %zu bytes, the largest %zu\n",
                    c.label.c_str(), mine.size(), bytes, largest);
    }
    // The C API's transforms, and Reshape on every engine that reshapes.
    none(watched_c_pairs(shape), "C API volfft_forward/volfft_backward c2c");
    for (Engine engine : {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p, Engine::persistent})
      none(watched_reshapes(shape, engine), std::string("Reshape bricks to slabs and back, ") + to_string(engine));
    if (rank == 0) {
      for (const auto& [owner, n] : others)
        std::printf("allocations by %s's own code (not volfft's): %ld over all cases\n", owner.c_str(), n);
      std::printf("%zu cases\n", cases.size());
    }
  });
}
