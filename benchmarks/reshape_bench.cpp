// volfft-reshape-bench: times volfft::Reshape alone (no transform) against the redistribution
// that mpi4py-fft uses, MPI_Alltoallw with one subarray datatype per partner, on the same boxes.
// Both are verified element by element in the run. docs/performance.md shows how it is read.
//
//   mpirun -n P volfft-reshape-bench [--from D] [--to D] [--shape n0 n1 n2] [--reps R]
//          [--warmup W] [--engine E|all] [--tune-seconds S] [--json FILE]
//
// Each round times every volfft engine, volfft's automatic choice and the reference once, in
// an order that alternates from round to round (volfft first, then the reference first), so
// that a neighbour's compile or a page-cache hiccup lands on both sides. Every timed call is
// preceded by MPI_Barrier; its time is the slowest rank's; the report is the median over the
// rounds, with the fastest and slowest round as the spread.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "median.hpp"
#include "volfft/distribution.hpp"
#include "volfft/error.hpp"
#include "volfft/reshape.hpp"

using namespace volfft;
using Index = std::int64_t;
using Complex = std::complex<double>;

namespace {

struct Args {
  std::string from = "pencils2", to = "pencils0";
  std::vector<Index> shape{256, 256, 256};
  int reps = 10, warmup = 2, tune = 0;
  std::vector<Engine> engines;  // the fixed engines timed (automatic is always timed as well)
  std::string json;
};

const char* const kDistributions = "bricks, slabs0, slabs1, slabs2, pencils0, pencils1, pencils2";

std::string usage() {
  std::string names;
  for (Engine e : engines())
    if (e == Engine::alltoallv || e == Engine::alltoall || e == Engine::alltoallw || e == Engine::p2p ||
        e == Engine::persistent)
      names += std::string(names.empty() ? "" : "|") + to_string(e);
  return std::string(
             "usage: volfft-reshape-bench [--from D] [--to D] [--shape n0 n1 n2] [--reps R] [--warmup W]\n"
             "       [--engine ") + names + "|all] [--tune-seconds S] [--json FILE]\n"
         "  complex double values redistributed from D to D, D = " + kDistributions + "\n"
         "  (pencilsK: axis K whole; defaults --from pencils2 --to pencils0 --shape 256 256 256 --reps 10\n"
         "  --warmup 2 --engine all). Every engine given and volfft's automatic choice (engine auto;\n"
         "  with --tune-seconds S it times the engines for up to S seconds: named so because Open MPI\n"
         "  reads a --tune anywhere on the command line as its own) run against MPI_Alltoallw on\n"
         "  subarray types (mpi4py-fft's redistribution); every output is checked.\n";
}

int to_int(const std::string& option, const std::string& text, int least) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != 0 || v < least)
    throw Error("volfft-reshape-bench: " + option + " takes an integer >= " + std::to_string(least) + "; got '" +
                text + "'");
  return static_cast<int>(v);
}

Args parse(int argc, char** argv) {
  Args a;
  std::string engine = "all";
  for (int k = 1; k < argc; ++k) {
    const std::string s = argv[k];
    auto value = [&](const std::string& name) {
      if (k + 1 >= argc) throw Error("volfft-reshape-bench: " + name + " needs a value");
      return std::string(argv[++k]);
    };
    if (s == "--from") a.from = value(s);
    else if (s == "--to") a.to = value(s);
    else if (s == "--reps") a.reps = to_int(s, value(s), 1);
    else if (s == "--warmup") a.warmup = to_int(s, value(s), 0);
    else if (s == "--tune-seconds") a.tune = to_int(s, value(s), 0);
    else if (s == "--engine") engine = value(s);
    else if (s == "--json") a.json = value(s);
    else if (s == "--shape") {
      a.shape.clear();
      for (int d = 0; d < 3; ++d) a.shape.push_back(to_int("--shape", value("--shape (3 sizes)"), 1));
    } else if (s == "-h" || s == "--help") throw Error(usage());
    else throw Error("volfft-reshape-bench: unknown argument '" + s + "'\n" + usage());
  }
  if (engine == "all") a.engines = {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p, Engine::persistent};
  else {
    const Engine e = parse_engine(engine);
    if (e == Engine::automatic) a.engines = {};  // auto is timed anyway
    else a.engines = {e};
  }
  return a;
}

std::vector<Box> distribution(const std::string& name, const std::vector<Index>& shape, int ranks, const char* option) {
  if (name == "bricks") return bricks(shape, ranks);
  if (name.size() == 6 && name.compare(0, 5, "slabs") == 0 && name[5] >= '0' && name[5] <= '2')
    return slabs(shape, ranks, name[5] - '0');
  if (name.size() == 8 && name.compare(0, 7, "pencils") == 0 && name[7] >= '0' && name[7] <= '2')
    return pencils(shape, ranks, name[7] - '0');
  throw Error(std::string("volfft-reshape-bench: ") + option + " takes " + kDistributions + "; got '" + name + "'");
}

// The value every rank writes at global index (i, j, k) and every output is checked against:
// exact in double (integers below 2^53), different for every point and in both parts, so a
// block landing in the wrong place, transposed, or not at all cannot pass.
Complex expected(const std::vector<Index>& n, Index i, Index j, Index k) {
  const Index linear = (i * n[1] + j) * n[2] + k;
  return {static_cast<double>(linear), -static_cast<double>(i + 7 * j + 131 * k) - 0.5};
}

void fill(std::vector<Complex>& a, const Box& b, const std::vector<Index>& n) {
  std::size_t at = 0;
  for (Index i = b.lo[0]; i < b.hi[0]; ++i)
    for (Index j = b.lo[1]; j < b.hi[1]; ++j)
      for (Index k = b.lo[2]; k < b.hi[2]; ++k) a[at++] = expected(n, i, j, k);
}

// Checks `out` (C order over `b`) on every rank; on a mismatch the first rank that sees one
// prints the point and aborts the job: a benchmark of a wrong redistribution is worthless.
void verify(const std::vector<Complex>& out, const Box& b, const std::vector<Index>& n, const std::string& who,
            const std::string& when) {
  std::size_t at = 0;
  for (Index i = b.lo[0]; i < b.hi[0]; ++i)
    for (Index j = b.lo[1]; j < b.hi[1]; ++j)
      for (Index k = b.lo[2]; k < b.hi[2]; ++k, ++at) {
        const Complex want = expected(n, i, j, k);
        if (out[at] != want) {
          int rank = 0;
          MPI_Comm_rank(MPI_COMM_WORLD, &rank);
          std::fprintf(stderr,
                       "volfft-reshape-bench: WRONG RESULT from %s (%s) on rank %d at global index (%lld, %lld, "
                       "%lld): got (%g, %g), expected (%g, %g)\n",
                       who.c_str(), when.c_str(), rank, static_cast<long long>(i), static_cast<long long>(j),
                       static_cast<long long>(k), out[at].real(), out[at].imag(), want.real(), want.imag());
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
      }
}

// The reference, as mpi4py-fft redistributes (its Subcomm/Transfer classes): one
// MPI_Alltoallw whose send type for partner m is the subarray (my in-box ∩ m's out-box) of my
// local input, and whose receive type from m is the subarray (m's in-box ∩ my out-box) of my
// local output; counts 1 (0 where the boxes do not meet), displacements 0. The types are built
// and committed once, here, as a user who redistributes repeatedly would.
class AlltoallwSubarray {
 public:
  AlltoallwSubarray(MPI_Comm comm, const std::vector<Box>& in, const std::vector<Box>& out) : comm_(comm) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    const std::size_t p = static_cast<std::size_t>(ranks);
    send_types_.assign(p, MPI_BYTE), recv_types_.assign(p, MPI_BYTE);
    send_counts_.assign(p, 0), recv_counts_.assign(p, 0), displacements_.assign(p, 0);
    const Box& mine_in = in[static_cast<std::size_t>(rank)];
    const Box& mine_out = out[static_cast<std::size_t>(rank)];
    for (std::size_t m = 0; m < p; ++m) {
      // Empty blocks keep count 0 and MPI_BYTE: MPI before 4.0 requires subsizes >= 1.
      const Box send = mine_in.intersect(out[m]);
      if (!send.empty()) send_types_[m] = subarray(mine_in, send), send_counts_[m] = 1;
      const Box recv = in[m].intersect(mine_out);
      if (!recv.empty()) recv_types_[m] = subarray(mine_out, recv), recv_counts_[m] = 1;
    }
  }
  ~AlltoallwSubarray() {
    for (auto* types : {&send_types_, &recv_types_})
      for (MPI_Datatype& t : *types)
        if (t != MPI_BYTE) MPI_Type_free(&t);
  }
  AlltoallwSubarray(const AlltoallwSubarray&) = delete;
  AlltoallwSubarray& operator=(const AlltoallwSubarray&) = delete;

  void execute(const Complex* in, Complex* out) {
    MPI_Alltoallw(in, send_counts_.data(), displacements_.data(), send_types_.data(), out, recv_counts_.data(),
                  displacements_.data(), recv_types_.data(), comm_);
  }

 private:
  static MPI_Datatype subarray(const Box& array, const Box& block) {
    int sizes[3], subsizes[3], starts[3];
    for (int d = 0; d < 3; ++d) {
      sizes[d] = static_cast<int>(array.extent(d));
      subsizes[d] = static_cast<int>(block.extent(d));
      starts[d] = static_cast<int>(block.lo[d] - array.lo[d]);
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_C_DOUBLE_COMPLEX, &t);
    MPI_Type_commit(&t);
    return t;
  }

  MPI_Comm comm_;
  std::vector<MPI_Datatype> send_types_, recv_types_;
  std::vector<int> send_counts_, recv_counts_, displacements_;
};

// One contestant: a name and a call that redistributes in -> out.
struct Variant {
  std::string name;
  std::string engine;  // the engine that runs (for "auto": the one it chose)
  bool reference = false;
  std::unique_ptr<Reshape> reshape;
  std::vector<double> seconds;  // per round, this rank's; the slowest rank's after the reduction
};

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(f >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

struct Spread {
  double median, min, max;
};
Spread spread(const std::vector<double>& v) {
  return {bench::median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Args a = parse(argc, argv);
  const std::vector<Box> in_boxes = distribution(a.from, a.shape, ranks, "--from");
  const std::vector<Box> out_boxes = distribution(a.to, a.shape, ranks, "--to");
  const Box in_box = in_boxes[static_cast<std::size_t>(rank)], out_box = out_boxes[static_cast<std::size_t>(rank)];
  const std::string load_before = load_average();

  std::vector<Complex> in(static_cast<std::size_t>(in_box.size())), out(static_cast<std::size_t>(out_box.size()));
  fill(in, in_box, a.shape);

  LocalArray user_in, user_out;
  user_in.box = in_box;
  user_out.box = out_box;
  std::vector<Variant> variants;
  for (Engine e : a.engines) {
    Options o;
    o.engine = e;
    Variant v;
    v.name = v.engine = to_string(e);
    v.reshape = std::make_unique<Reshape>(MPI_COMM_WORLD, a.shape, user_in, user_out, Precision::float64,
                                          Values::complex, o);
    variants.push_back(std::move(v));
  }
  {
    Options o;  // what a user gets without choosing: engine automatic (tuned with --tune-seconds)
    o.tune = a.tune;
    Variant v;
    v.name = "auto";
    v.reshape = std::make_unique<Reshape>(MPI_COMM_WORLD, a.shape, user_in, user_out, Precision::float64,
                                          Values::complex, o);
    v.engine = to_string(v.reshape->engine());
    variants.push_back(std::move(v));
  }
  AlltoallwSubarray reference(MPI_COMM_WORLD, in_boxes, out_boxes);
  {
    Variant v;
    v.name = "alltoallw-subarray";
    v.engine = "MPI_Alltoallw";
    v.reference = true;
    variants.push_back(std::move(v));
  }
  auto call = [&](Variant& v) {
    if (v.reference) reference.execute(in.data(), out.data());
    else v.reshape->execute(in.data(), out.data());
  };
  // Stale data from the previous contestant must not pass for this one's result.
  auto check = [&](Variant& v, const char* when) {
    std::fill(out.begin(), out.end(), Complex(-1.0, -1.0));
    call(v);
    verify(out, out_box, a.shape, v.name, when);
  };

  for (Variant& v : variants) {
    check(v, "before timing");
    for (int w = 0; w < a.warmup; ++w) call(v);
  }
  for (int round = 0; round < a.reps; ++round) {
    // Even rounds: volfft's variants first, then the reference; odd rounds the other way round.
    std::vector<Variant*> order;
    for (Variant& v : variants) order.push_back(&v);
    if (round % 2) std::reverse(order.begin(), order.end());
    for (Variant* v : order) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      call(*v);
      v->seconds.push_back(MPI_Wtime() - t0);
    }
  }
  for (Variant& v : variants) {
    MPI_Allreduce(MPI_IN_PLACE, v.seconds.data(), static_cast<int>(v.seconds.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    check(v, "after timing");
  }
  const std::string load_after = load_average();
  // What the exchange must move: the largest count any rank sends to other ranks (its own block
  // is a local copy), which tells a slow case from a large one.
  long long sent = variants.front().reshape ? variants.front().reshape->sent_count() : 0, most_sent = 0;
  MPI_Reduce(&sent, &most_sent, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    const Variant& ref = variants.back();
    const Variant& automatic = variants[variants.size() - 2];
    const Variant* best = &automatic;
    for (const Variant& v : variants)
      if (!v.reference && bench::median(v.seconds) < bench::median(best->seconds)) best = &v;
    const Spread r = spread(ref.seconds), b = spread(best->seconds), d = spread(automatic.seconds);
    const double mib = 16.0 * static_cast<double>(a.shape[0] * a.shape[1] * a.shape[2]) / (1 << 20);
    std::printf("volfft-reshape-bench: %s -> %s, %lldx%lldx%lld complex double (%.0f MiB), np %d, %d rounds "
                "(+%d warm-up), load %s (before) / %s (after)\n",
                a.from.c_str(), a.to.c_str(), static_cast<long long>(a.shape[0]), static_cast<long long>(a.shape[1]),
                static_cast<long long>(a.shape[2]), mib, ranks, a.reps, a.warmup, load_before.c_str(),
                load_after.c_str());
    std::printf("  verified: every output equals f(global index) on every rank, before and after timing\n");
    auto box_text = [](const Box& b) {
      char t[128];
      std::snprintf(t, sizeof t, "[%lld:%lld, %lld:%lld, %lld:%lld]", static_cast<long long>(b.lo[0]),
                    static_cast<long long>(b.hi[0]), static_cast<long long>(b.lo[1]), static_cast<long long>(b.hi[1]),
                    static_cast<long long>(b.lo[2]), static_cast<long long>(b.hi[2]));
      return std::string(t);
    };
    std::printf("  rank 0: %s -> %s; the most any rank sends to others: %.1f MiB\n", box_text(in_box).c_str(),
                box_text(out_box).c_str(), 16.0 * static_cast<double>(most_sent) / (1 << 20));
    std::printf("  %-20s %-14s %12s %12s %12s %10s\n", "variant", "engine", "median ms", "min ms", "max ms",
                "vs ref");
    for (const Variant& v : variants) {
      const Spread s = spread(v.seconds);
      std::printf("  %-20s %-14s %12.3f %12.3f %12.3f %10.2f\n", v.name.c_str(), v.engine.c_str(), 1e3 * s.median,
                  1e3 * s.min, 1e3 * s.max, s.median / r.median);
    }
    std::printf("\n  %-22s %3s %22s %22s %22s %10s %10s\n", "case", "np", "volfft best ms", "volfft auto ms",
                "alltoallw-subarray ms", "best/ref", "auto/ref");
    const std::string name = a.from + "->" + a.to;
    char best_text[64], auto_text[64];
    std::snprintf(best_text, sizeof best_text, "%s %.3f", best->engine.c_str(), 1e3 * b.median);
    std::snprintf(auto_text, sizeof auto_text, "%s %.3f", automatic.engine.c_str(), 1e3 * d.median);
    std::printf("  %-22s %3d %22s %22s %22.3f %10.2f %10.2f   (target <= 0.80)\n", name.c_str(), ranks,
                best_text, auto_text, 1e3 * r.median, b.median / r.median, d.median / r.median);
    if (!a.json.empty()) {
      std::ofstream js(a.json);
      if (!js) throw Error("volfft-reshape-bench: --json: cannot write '" + a.json + "'");
      js << "{\n  \"benchmark\": \"volfft-reshape-bench\",\n  \"from\": \"" << a.from << "\",\n  \"to\": \"" << a.to
         << "\",\n  \"shape\": [" << a.shape[0] << ", " << a.shape[1] << ", " << a.shape[2]
         << "],\n  \"values\": \"complex double\",\n  \"ranks\": " << ranks << ",\n  \"rounds\": " << a.reps
         << ",\n  \"warmup\": " << a.warmup << ",\n  \"load_before\": \"" << load_before
         << "\",\n  \"load_after\": \"" << load_after << "\",\n  \"verified\": true,\n  \"best\": \"" << best->name
         << "\",\n  \"best_over_reference\": " << b.median / r.median
         << ",\n  \"auto_over_reference\": " << d.median / r.median << ",\n  \"variants\": [\n";
      for (std::size_t k = 0; k < variants.size(); ++k) {
        const Variant& v = variants[k];
        const Spread s = spread(v.seconds);
        js << "    {\"name\": \"" << v.name << "\", \"engine\": \"" << v.engine << "\", \"median_s\": " << s.median
           << ", \"min_s\": " << s.min << ", \"max_s\": " << s.max << ", \"seconds\": [";
        for (std::size_t i = 0; i < v.seconds.size(); ++i) js << (i ? ", " : "") << v.seconds[i];
        js << "]}" << (k + 1 < variants.size() ? "," : "") << "\n";
      }
      js << "  ]\n}\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    // Arguments are parsed alike on every rank, so every rank throws; rank 0 speaks for them.
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
