// Zero-padded ("pruned") transforms against a reference built from the unpadded transform:
// forward(x) == the n-grid FFT of x truncated to the m-box (numpy order); backward(X) == the
// inverse n-grid FFT of X zero-padded into the corners; where m is even and less than n on a full
// (not r2c) axis, the m-box's m/2 stands for both -m/2 and +m/2 of the n-grid: forward adds the
// two, backward puts half on each. Band-limited fields survive a round trip, and so does the
// spectrum of any real field (forward(backward(X)) == X: the r2c plan's m/2 modes came back
// halved when padding put them at -m/2 alone). c2c and r2c, odd and even sizes, ratios 1, 1.5
// and 2, every engine, np 1-4. Also the exchanged bytes: a quarter (column) and half (row) of the
// unpadded plan's at ratio 2.
#include <cmath>
#include <string>

#include "support/mpi_main.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

struct Case {
  std::vector<Index> n, m;
};

// Index of kept mode k (0 <= k < m, numpy order) in the length-n spectrum.
Index full_index(Index k, Index n, Index m) { return k < (m + 1) / 2 ? k : n - m + k; }

std::array<Index, 3> strides_for(const Box& b, const std::vector<int>& order, int nd) {
  std::array<Index, 3> s{0, 0, 0};
  Index x = 1;
  for (int k = nd - 1; k >= 0; --k) s[order[k]] = x, x *= b.extent(order[k]);
  return s;
}

template <class F>
void for_box(const Box& b, int nd, F&& f) {
  for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
    for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
      for (Index x2 = (nd == 3 ? b.lo[2] : 0); x2 < (nd == 3 ? b.hi[2] : 1); ++x2) f(std::array<Index, 3>{x0, x1, x2});
}

double sum_all(double v) {
  double t = 0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

void run(const Case& c, Kind kind, std::array<int, 2> grid, Engine engine, const std::string& label) {
  const int nd = static_cast<int>(c.n.size());
  Options o;
  o.grid = grid, o.engine = engine, o.effort = Effort::estimate, o.spectral_shape = c.m;
  Plan plan(MPI_COMM_WORLD, c.n, kind, Precision::float64, o);
  std::array<Index, 3> n3{1, 1, 1}, m3{1, 1, 1};
  for (int a = 0; a < nd; ++a) n3[a] = c.n[a], m3[a] = c.m[a];
  const Index N = n3[0] * n3[1] * n3[2];
  const bool real = kind == Kind::r2c;
  auto flat = [&](const std::array<Index, 3>& x) { return (x[0] * n3[1] + x[1]) * n3[2] + x[2]; };
  // Map a kept spectral index (m-box, numpy order; r2c last axis 0..m/2) to the n-grid.
  auto to_full = [&](const std::array<Index, 3>& k) {
    std::array<Index, 3> f{};
    for (int a = 0; a < 3; ++a)
      f[a] = (real && a == nd - 1) ? k[a] : (a < nd ? full_index(k[a], n3[a], m3[a]) : 0);
    return f;
  };
  // Every n-grid index kept index k stands for: to_full(k), and on each full axis with an even
  // m < n where k is m/2 (numpy's -m/2) +m/2 as well; `split` counts those axes.
  auto for_images = [&](const std::array<Index, 3>& k, auto&& f) {
    std::array<int, 3> twin{};
    int split = 0;
    for (int a = 0; a < nd; ++a) {
      const bool full_axis = !(real && a == nd - 1);
      twin[a] = full_axis && m3[a] % 2 == 0 && m3[a] < n3[a] && k[a] == m3[a] / 2;
      split += twin[a];
    }
    for (int mask = 0; mask < 8; ++mask) {
      if ((mask & ~(twin[0] | twin[1] << 1 | twin[2] << 2)) != 0) continue;
      std::array<Index, 3> x = to_full(k);
      for (int a = 0; a < 3; ++a)
        if (mask >> a & 1) x[a] = m3[a] / 2;
      f(x, split);
    }
  };
  const Box ib = plan.input_box(), ob = plan.output_box();
  const auto is = strides_for(ib, plan.input_order(), nd), os = strides_for(ob, plan.output_order(), nd);
  auto off = [&](const std::array<Index, 3>& x, const Box& b, const std::array<Index, 3>& s) {
    Index r = 0;
    for (int a = 0; a < nd; ++a) r += (x[a] - b.lo[a]) * s[a];
    return r;
  };
  CHECK_MSG(ob.extent(0) == (nd == 3 ? m3[0] : m3[0]), label << ": output axis 0 must be the whole kept range");

  // 1. forward of random data vs the truncated reference.
  std::vector<cd> global(N);
  for (Index k = 0; k < N; ++k) global[k] = real ? cd(value_at(k, 3), 0) : cd(value_at(k, 3), value_at(k, 4));
  const auto ref = reference_fft(global, {n3[0], n3[1], n3[2]});
  const Index nin = std::max<Index>(plan.input_count(), 1), nout = std::max<Index>(plan.output_count(), 1);
  std::vector<double> xr(nin), br(nin);
  std::vector<cd> xc(nin), bc(nin), X(nout);
  for_box(ib, nd, [&](auto x) {
    if (real) xr[off(x, ib, is)] = global[flat(x)].real();
    else xc[off(x, ib, is)] = global[flat(x)];
  });
  if (real) plan.forward(xr.data(), X.data());
  else plan.forward(xc.data(), X.data());
  double e2 = 0, r2 = 0;
  for_box(ob, nd, [&](auto k) {
    cd r = 0;
    for_images(k, [&](const std::array<Index, 3>& x, int) { r += ref[flat(x)]; });
    e2 += std::norm(X[off(k, ob, os)] - r), r2 += std::norm(r);
  });
  const double tol = 1e-13 * std::log2(static_cast<double>(N) + 2);
  const double fe = std::sqrt(sum_all(e2) / std::max(sum_all(r2), 1e-300));
  CHECK_MSG(fe < tol, label << ": forward error " << fe);

  // 2. backward (c2c) of a random m-box spectrum vs the inverse FFT of its padded n-grid.
  if (!real) {
    std::vector<cd> padded(N, cd(0)), spec(nout);
    // Every rank builds the whole padded spectrum from the same formula.
    Box mbox;
    mbox.hi = {m3[0], m3[1], m3[2]};
    for_box(mbox, 3, [&](auto k) {
      const Index id = (k[0] * m3[1] + k[1]) * m3[2] + k[2];
      const cd v(value_at(id, 5), value_at(id, 6));
      for_images(k, [&](const std::array<Index, 3>& x, int split) { padded[flat(x)] = v / double(1 << split); });
      bool here = true;
      for (int a = 0; a < nd; ++a) here = here && k[a] >= ob.lo[a] && k[a] < ob.hi[a];
      if (here) spec[off(k, ob, os)] = v;
    });
    plan.backward(spec.data(), bc.data());
    // ifft(Y) = conj(fft(conj(Y))) / N
    std::vector<cd> conj_pad(N);
    for (Index k = 0; k < N; ++k) conj_pad[k] = std::conj(padded[k]);
    const auto f = reference_fft(conj_pad, {n3[0], n3[1], n3[2]});
    double be = 0, br2 = 0;
    for_box(ib, nd, [&](auto x) {
      const cd r = std::conj(f[flat(x)]) / static_cast<double>(N);
      be += std::norm(bc[off(x, ib, is)] - r), br2 += std::norm(r);
    });
    const double bee = std::sqrt(sum_all(be) / std::max(sum_all(br2), 1e-300));
    CHECK_MSG(bee < tol, label << ": backward error " << bee);
  }

  // 3. band-limited fields (modes strictly inside the m-box) survive forward + backward.
  auto field = [&](const std::array<Index, 3>& x) {
    double v = 0.3;
    for (int a = 0; a < nd; ++a) {
      const Index kmax = (m3[a] - 1) / 2;  // |k| <= kmax < m/2
      if (kmax >= 1) v += std::cos(2 * M_PI * static_cast<double>(kmax * x[a]) / static_cast<double>(n3[a]) + 0.1 * a);
    }
    return v;
  };
  for_box(ib, nd, [&](auto x) {
    if (real) xr[off(x, ib, is)] = field(x);
    else xc[off(x, ib, is)] = cd(field(x), -0.5 * field(x));
  });
  if (real) {
    plan.forward(xr.data(), X.data());
    plan.backward(X.data(), br.data());
  } else {
    plan.forward(xc.data(), X.data());
    plan.backward(X.data(), bc.data());
  }
  double rt = 0, in2 = 0;
  for (Index k = 0; k < plan.input_count(); ++k) {
    rt += real ? std::pow(br[k] - xr[k], 2) : std::norm(bc[k] - xc[k]);
    in2 += real ? xr[k] * xr[k] : std::norm(xc[k]);
  }
  const double rte = std::sqrt(sum_all(rt) / std::max(sum_all(in2), 1e-300));
  CHECK_MSG(rte < tol, label << ": band-limited round trip error " << rte);

  // 4. the spectrum of a field of random values (a real one for r2c: Hermitian, its m/2 modes
  // included) survives backward, then forward: forward(backward(X)) == X (the backward scales
  // by 1/N of the n-grid).
  for_box(ib, nd, [&](auto x) {
    const Index id = flat(x);
    if (real) xr[off(x, ib, is)] = value_at(id, 7);
    else xc[off(x, ib, is)] = cd(value_at(id, 7), value_at(id, 8));
  });
  std::vector<cd> X2(nout);
  if (real) {
    plan.forward(xr.data(), X.data());
    plan.backward(X.data(), br.data());
    plan.forward(br.data(), X2.data());
  } else {
    plan.forward(xc.data(), X.data());
    plan.backward(X.data(), bc.data());
    plan.forward(bc.data(), X2.data());
  }
  double sp = 0, sp2 = 0;
  for (Index k = 0; k < plan.output_count(); ++k)
    sp += std::norm(X2[k] - X[k]), sp2 += std::norm(X[k]);
  const double spe = std::sqrt(sum_all(sp) / std::max(sum_all(sp2), 1e-300));
  CHECK_MSG(spe < tol, label << ": forward(backward(X)) differs from X by " << spe);
}

std::string text(const std::vector<Index>& v) {
  std::string s;
  for (std::size_t a = 0; a < v.size(); ++a) s += (a ? "x" : "") + std::to_string(v[a]);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  return run_mpi_test(argc, argv, [](int rank, int size) {
    const std::vector<Case> cases = {
        {{8, 8, 8}, {4, 4, 4}},      // ratio 2, even
        {{9, 12, 10}, {6, 8, 7}},    // ratio 1.5, odd and even kept sizes
        {{7, 9, 11}, {7, 9, 11}},    // ratio 1: no padding
        {{8, 6, 6}, {6, 4, 6}},      // even m/2 split on two axes, the r2c axis unpadded (its n/2 plane Hermitian)
        {{10, 7, 6}, {5, 5, 3}},     // odd ratios
        {{5, 3, 4}, {1, 2, 3}},      // tiny kept boxes, ranks without data
        {{12, 9}, {8, 6}},           // 2-D
        {{7, 8}, {4, 5}}};
    std::vector<std::array<int, 2>> grids;
    for (int p0 = 1; p0 <= size; ++p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
    int count = 0;
    for (const auto& c : cases)
      for (Kind kind : {Kind::c2c, Kind::r2c})
        for (Engine e : {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p, Engine::pipelined,
                         Engine::persistent, Engine::node})
          for (auto g : grids) {
            if (c.n.size() == 2 && g[1] != 1) continue;
            run(c, kind, g, e, text(c.n) + " -> " + text(c.m) + " " + to_string(kind) + " grid " +
                                   std::to_string(g[0]) + "x" + std::to_string(g[1]) + " " + to_string(e));
            ++count;
          }
    // Exchanged bytes, as the plan counts them, against the unpadded plan's: ratio 2 on every
    // axis with sizes the grid divides gives exactly 1/2 (row: axis 2 halved) and 1/4 (column).
    if (size == 4) {
      Options o;
      o.grid = {2, 2};
      const auto full = describe(4, {16, 16, 16}, Kind::c2c, Precision::float64, o);
      o.spectral_shape = {8, 8, 8};
      const auto pad = describe(4, {16, 16, 16}, Kind::c2c, Precision::float64, o);
      auto bytes = [](const ExchangeDescription& e) {
        Index b = 0;
        for (const auto& m : e.messages) b += m.bytes;
        return b;
      };
      CHECK(full.exchanges.size() == 2 && pad.exchanges.size() == 2);
      CHECK_MSG(bytes(pad.exchanges[0]) * 2 == bytes(full.exchanges[0]),
                "row exchange " << bytes(pad.exchanges[0]) << " vs " << bytes(full.exchanges[0]));
      CHECK_MSG(bytes(pad.exchanges[1]) * 4 == bytes(full.exchanges[1]),
                "column exchange " << bytes(pad.exchanges[1]) << " vs " << bytes(full.exchanges[1]));
    }
    if (rank == 0) std::printf("%d padded cases\n", count);
  });
}
