// Reshape on many random small cases, each drawn alike on every rank from (seed, case): tiny and
// prime shapes, 2-D and 3-D; covers cut at random (guillotine), uneven grids whose cuts may
// coincide (empty parts), everything on one rank, the same cover in and out; empty boxes
// anywhere inside the array, some with a storage of their own; ghost layers; random memory
// orders; every engine a reshape takes (and the tuned choice); batch 1-3 in both layouts; the
// four element types; execute, reverse and split phase; null or shared pointers where a rank
// holds nothing. Every output element must hold the value that encodes its global index and
// field, ghosts and a guard past each array must stay as they were, the input must not change.
// MPI's all-to-alls are interposed (support/alias_watch.cpp, as in test_buffer_alias): a call whose send buffer is its
// receive buffer is counted and given a distinct address, so a regression fails instead of
// hanging. The wide form of engines alltoallv and persistent (past int displacements) is forced
// by a small displacement limit in some cases.
//
//   test_reshape_random [--seed S] [--cases N]     (defaults: seed 1, 60 cases)
// A failing case prints its seed and number; --seed S --first C --cases 1 runs it alone.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include "exchange/exchange.hpp"
#include "support/covers.hpp"
#include "support/errors.hpp"
#include "support/alias_watch.hpp"
#include "support/mpi_main.hpp"
#include "volfft/error.hpp"
#include "volfft/reshape.hpp"

using namespace volfft;
using namespace volfft_test;
using Index = std::int64_t;

namespace {

constexpr int kGuard = 3;  // elements past each array that nothing may write

template <class T>
T encode(Index f, Index linear) {
  if constexpr (std::is_same<T, std::complex<double>>::value || std::is_same<T, std::complex<float>>::value)
    return T(static_cast<typename T::value_type>(linear), static_cast<typename T::value_type>(-1 - f));
  else
    return static_cast<T>(linear * 4 + f);  // exact in float: arrays stay below 2^20 elements
}
template <class T>
T ghost() {
  return T(-7.5f);
}

Index pick(std::mt19937& g, Index lo, Index hi) {  // uniform in [lo, hi]
  return lo + static_cast<Index>(g() % static_cast<unsigned>(hi - lo + 1));
}

// An uneven split of [0, n) into `parts`: random cut points, equal ones giving empty parts.
std::vector<Index> cuts(std::mt19937& g, Index n, int parts) {
  std::vector<Index> c{0, n};
  for (int p = 1; p < parts; ++p) c.push_back(pick(g, 0, n));
  std::sort(c.begin(), c.end());
  return c;
}

// A grid of p0 x p1 x p2 <= ranks boxes (slabs, pencils, bricks) with uneven, possibly empty
// parts; the other ranks hold nothing; random rank order.
std::vector<Box> grid_cover(std::mt19937& g, const std::array<Index, 3>& n, int ndim, int ranks) {
  std::array<int, 3> p{1, 1, 1};
  const int used = static_cast<int>(pick(g, 1, ranks));
  // Distribute `used` over axes as a product that does not exceed it.
  for (int tries = 0; tries < 8; ++tries) {
    const int a = static_cast<int>(g() % static_cast<unsigned>(ndim));
    if (p[0] * p[1] * p[2] / p[a] * (p[a] + 1) <= used) ++p[a];
  }
  std::array<std::vector<Index>, 3> c;
  for (int a = 0; a < 3; ++a) c[a] = cuts(g, n[a], p[a]);
  std::vector<Box> boxes;
  for (int i = 0; i < p[0]; ++i)
    for (int j = 0; j < p[1]; ++j)
      for (int k = 0; k < p[2]; ++k)
        boxes.push_back(Box{{c[0][i], c[1][j], c[2][k]}, {c[0][i + 1], c[1][j + 1], c[2][k + 1]}});
  while (static_cast<int>(boxes.size()) < ranks) boxes.push_back(Box{});
  std::shuffle(boxes.begin(), boxes.end(), g);
  return boxes;
}

std::vector<Box> draw_cover(std::mt19937& g, const std::array<Index, 3>& n, int ndim, int ranks, int& kind) {
  kind = static_cast<int>(g() % 4);
  if (kind == 0) return random_cover(g, n, ranks);
  if (kind == 1) return grid_cover(g, n, ndim, ranks);
  std::vector<Box> boxes(static_cast<std::size_t>(ranks));  // everything on one rank
  boxes[g() % static_cast<unsigned>(ranks)] = Box{{0, 0, 0}, n};
  if (kind == 2) return boxes;
  return grid_cover(g, n, ndim, ranks);
}

// An empty box moved anywhere inside the array (an extent of 0 on one or more axes).
Box place_empty(std::mt19937& g, const std::array<Index, 3>& n, int ndim) {
  Box b;
  const int flat = static_cast<int>(g() % static_cast<unsigned>(ndim));
  for (int a = 0; a < 3; ++a) {
    if (a >= ndim) {
      b.lo[a] = 0, b.hi[a] = 1;
      continue;
    }
    b.lo[a] = pick(g, 0, n[a]);
    b.hi[a] = a == flat ? b.lo[a] : pick(g, b.lo[a], n[a]);
  }
  return b;
}

struct Side {
  LocalArray array;
  bool storage_given = false;
};

LocalArray draw_array(std::mt19937& g, const Box& box_in, const std::array<Index, 3>& n, int ndim,
                      const std::vector<int>& order) {
  LocalArray a;
  a.box = box_in;
  if (ndim == 2 && !a.box.empty()) a.box.lo[2] = 0, a.box.hi[2] = 1;
  if (a.box.empty()) {
    if (g() % 2) a.box = place_empty(g, n, ndim);
    else if (ndim == 2) a.box = Box{};
  }
  a.order = order;
  const unsigned s = g() % 4;
  if (s == 1 || (s == 2 && a.box.empty())) {
    a.storage = a.box;
    for (int k = 0; k < ndim; ++k) a.storage.lo[k] -= pick(g, 0, 2), a.storage.hi[k] += pick(g, 0, 2);
    if (ndim == 2) a.storage.lo[2] = 0, a.storage.hi[2] = 1;
  }
  return a;
}

struct Counts {
  long cases = 0, refused = 0;
};

template <class T>
void run_case(MPI_Comm comm, std::mt19937& g, int rank, int size, const std::string& label, const std::vector<Index>& shape,
              const LocalArray& in_a, const LocalArray& out_a, Precision precision, Values values, Options o,
              Counts& counts) {
  const int ndim = static_cast<int>(shape.size());
  const std::array<Index, 3> n{shape[0], shape[1], ndim == 3 ? shape[2] : 1};
  std::string refused;
  std::unique_ptr<Reshape> r;
  refused = error_of([&] { r = std::make_unique<Reshape>(comm, shape, in_a, out_a, precision, values, o); });
  if (!refused.empty()) {
    // Only persistent may be refused (no persistent collectives in this MPI); the same everywhere.
    expect_everywhere(label + ": refused", refused, "persistent collectives");
    ++counts.refused;
    return;
  }
  const Index batch = o.batch;
  const bool inner = o.batch_layout == BatchLayout::inner;
  const Index in_size = ArrayLayout(r->input(), ndim).size(), out_size = ArrayLayout(r->output(), ndim).size();
  CHECK_MSG(r->input_count() == in_size * batch && r->output_count() == out_size * batch,
            label << ": counts " << r->input_count() << " " << r->output_count() << " want " << in_size * batch
                  << " " << out_size * batch);
  auto fill = [&](const LocalArray& a, Index size_, std::vector<T>& v) {
    const ArrayLayout layout(a, ndim);
    for (Index f = 0; f < batch; ++f)
      for (Index i = a.box.lo[0]; i < a.box.hi[0]; ++i)
        for (Index j = a.box.lo[1]; j < a.box.hi[1]; ++j)
          for (Index k = a.box.lo[2]; k < a.box.hi[2]; ++k) {
            const Index off = layout.offset(i, j, k);
            v[static_cast<std::size_t>(inner ? off * batch + f : f * size_ + off)] = encode<T>(f, (i * n[1] + j) * n[2] + k);
          }
  };
  // One allocation holds the input, then the output right after it (adjacent, not overlapping),
  // each followed by its guard.
  const std::size_t ni = static_cast<std::size_t>(r->input_count()), no = static_cast<std::size_t>(r->output_count());
  std::vector<T> in(ni + kGuard, ghost<T>()), want_in(ni + kGuard, ghost<T>());
  std::vector<T> want_out(no + kGuard, ghost<T>());
  fill(r->input(), in_size, in);
  want_in = in;
  fill(r->output(), out_size, want_out);
  const unsigned mode = g() % 6;  // 0 execute, 1 split, 2 reverse, 3 reverse split, 4 adjacent, 5 both
  const unsigned pointers = g() % 3;  // where a rank holds nothing: 0 own array, 1 nullptr, 2 one address
  std::vector<T> out(no + kGuard, ghost<T>()), back(ni + kGuard, ghost<T>());
  std::vector<T> joint;  // mode 4: the input followed directly by the output
  T* src = in.data();
  T* dst = out.data();
  if (mode == 4) {
    joint.assign(ni + no + kGuard, ghost<T>());
    std::copy(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(ni), joint.begin());
    src = joint.data(), dst = joint.data() + ni;
  }
  static T shared_empty[1];
  auto adjust = [&](T*& p, std::size_t count) {
    if (count) return;
    if (pointers == 1) p = nullptr;
    if (pointers == 2) p = shared_empty;
  };
  adjust(src, ni), adjust(dst, no);
  reset_aliased_all_to_alls();
  const std::string err = error_of([&] {
    if (mode == 0 || mode == 4 || mode == 5) {
      r->execute(src, dst);
    } else if (mode == 1) {
      r->start(src, dst);
      r->test();
      r->finish();
    }
    if (mode == 5 || mode == 2 || mode == 3) {
      // Reverse from a prepared output array into the input side.
      std::vector<T> o2 = want_out;
      T* s2 = o2.data();
      T* d2 = back.data();
      adjust(s2, no), adjust(d2, ni);
      if (mode == 3) {
        r->start(s2, d2, true);
        while (!r->test()) {
        }
        r->finish();
      } else {
        r->reverse(s2, d2);
      }
    }
  });
  CHECK_MSG(err.empty(), label << " mode " << mode << " pointers " << pointers << ": rank " << rank << " raised: " << err);
  if (!err.empty()) return;
  auto compare = [&](const T* got, const std::vector<T>& want, std::size_t count, const char* what) {
    std::size_t wrong = 0, first = count + kGuard;
    for (std::size_t k = 0; k < count + kGuard; ++k)
      if (!(got[k] == want[k])) ++wrong, first = std::min(first, k);
    CHECK_MSG(wrong == 0, label << " mode " << mode << " pointers " << pointers << ": rank " << rank << ": " << what
                                << ": " << wrong << " of " << count << "+" << kGuard << " wrong, first at " << first);
  };
  if (mode == 0 || mode == 1 || mode == 5) {
    compare(out.data(), want_out, no, "output");
    compare(in.data(), want_in, ni, "input after execute");
    // Again with arrays at other addresses: nothing of the first call's arrays is kept (a
    // persistent request or a datatype bound to them would read the old ones).
    std::vector<T> in2(want_in), out2(no + kGuard, ghost<T>());
    T* s2 = in2.data();
    T* d2 = out2.data();
    adjust(s2, ni), adjust(d2, no);
    const std::string again = error_of([&] {
      if (mode == 1) {
        r->start(s2, d2);
        r->finish();
      } else {
        r->execute(s2, d2);
      }
    });
    CHECK_MSG(again.empty(), label << " again: rank " << rank << " raised: " << again);
    if (again.empty()) compare(out2.data(), want_out, no, "output of a second call on other arrays");
  }
  if (mode == 4) {
    std::vector<T> joint_want(ni + no + kGuard, ghost<T>());
    std::copy(want_in.begin(), want_in.begin() + static_cast<std::ptrdiff_t>(ni), joint_want.begin());
    std::copy(want_out.begin(), want_out.end(), joint_want.begin() + static_cast<std::ptrdiff_t>(ni));
    compare(joint.data(), joint_want, ni + no, "adjacent arrays");
  }
  if (mode == 2 || mode == 3 || mode == 5) compare(back.data(), want_in, ni, "reversed");
  CHECK_MSG(aliased_all_to_alls() == 0, label << " mode " << mode << ": " << aliased_all_to_alls()
                                                << " all-to-alls had sendbuf == recvbuf on rank " << rank);
  ++counts.cases;
}

void one_case(MPI_Comm comm, unsigned seed, int c, int rank, int size, Counts& counts) {
  std::mt19937 g(seed * 1000003u + static_cast<unsigned>(c) * 7919u + static_cast<unsigned>(size));
  const int ndim = g() % 3 ? 3 : 2;
  static const Index sizes[] = {1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 11, 13};
  std::vector<Index> shape;
  for (int a = 0; a < ndim; ++a) shape.push_back(sizes[g() % (sizeof sizes / sizeof sizes[0])]);
  const std::array<Index, 3> n{shape[0], shape[1], ndim == 3 ? shape[2] : 1};
  int kin = 0, kout = 0;
  const auto ins = draw_cover(g, n, ndim, size, kin);
  const auto outs = g() % 6 ? draw_cover(g, n, ndim, size, kout) : ins;
  const auto in_order = random_order(g, ndim), out_order = random_order(g, ndim);
  // Each rank's arrays: drawn in rank order on every rank so that the generator stays in step.
  LocalArray in_a, out_a;
  for (int r = 0; r < size; ++r) {
    LocalArray a = draw_array(g, ins[static_cast<std::size_t>(r)], n, ndim, in_order);
    LocalArray b = draw_array(g, outs[static_cast<std::size_t>(r)], n, ndim, out_order);
    if (r == rank) in_a = a, out_a = b;
  }
  static const Engine engines[] = {Engine::automatic, Engine::alltoallv, Engine::alltoall,
                                   Engine::alltoallw, Engine::p2p,       Engine::persistent};
  Options o;
  o.engine = engines[g() % 6];
  o.tune = o.engine == Engine::automatic && g() % 3 == 0 ? 1 : 0;
  o.batch = static_cast<int>(pick(g, 1, 3));
  o.batch_layout = g() % 2 ? BatchLayout::inner : BatchLayout::outer;
  o.threads = 1 + static_cast<int>((g() + static_cast<unsigned>(rank)) % 2);  // each rank its own (allowed)
  const unsigned type = g() % 4;
  // Engines alltoallv and persistent past int displacements take the wide (MPI_Alltoallw) form:
  // forced here by a limit of a few elements.
  static const Index limits[] = {INT_MAX, INT_MAX, 0, 5, 40};
  const Index limit = limits[g() % 5];
  exchange::set_displacement_limit(limit);
  std::ostringstream label;
  label << "seed " << seed << " case " << c << " np " << size << ": shape (";
  for (int a = 0; a < ndim; ++a) label << (a ? ", " : "") << shape[a];
  label << ") covers " << kin << "/" << kout << " engine " << to_string(o.engine) << " tune " << o.tune << " batch "
        << o.batch << (o.batch_layout == BatchLayout::inner ? " inner" : " outer") << " type " << type << " displacement limit " << limit;
  switch (type) {
    case 0:
      run_case<std::complex<double>>(comm, g, rank, size, label.str(), shape, in_a, out_a, Precision::float64,
                                     Values::complex, o, counts);
      break;
    case 1:
      run_case<std::complex<float>>(comm, g, rank, size, label.str(), shape, in_a, out_a, Precision::float32,
                                    Values::complex, o, counts);
      break;
    case 2:
      run_case<double>(comm, g, rank, size, label.str(), shape, in_a, out_a, Precision::float64, Values::real, o,
                       counts);
      break;
    default:
      run_case<float>(comm, g, rank, size, label.str(), shape, in_a, out_a, Precision::float32, Values::real, o,
                      counts);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned seed = 1;
  int cases = 60, first = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--seed") seed = static_cast<unsigned>(std::stoul(argv[a + 1]));
    if (k == "--cases") cases = std::stoi(argv[a + 1]);
    if (k == "--first") first = std::stoi(argv[a + 1]);
  }
  return run_mpi_test(argc, argv, [&](int rank, int size) {
    Counts counts;
    for (int c = first; c < first + cases; ++c) {
      const int before = failures();
      one_case(MPI_COMM_WORLD, seed, c, rank, size, counts);
      int mine = failures() - before, any = 0;
      MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (any && rank == 0) std::fprintf(stderr, "failing case: --seed %u --first %d --cases 1\n", seed, c);
    }
    if (rank == 0) std::printf("seed %u: %ld cases run, %ld refused\n", seed, counts.cases, counts.refused);
  });
}
