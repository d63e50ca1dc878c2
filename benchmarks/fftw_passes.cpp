// volfft-fftw-passes: FFTW alone, on the shapes of volfft's local stages, run the ways
// docs/performance.md ("The floor") compares; the measurements behind the choices in
// src/backend/fftw_batch.cpp (planes one at a time, touched first) and src/exchange/node.cpp
// (pushed chunks computed in one place). Serial; run two at once to load both cores as np 2
// does. The cache is flushed between calls (a 48 MiB walk), as the rest of a transform does.
//
//   volfft-fftw-passes batch r2c|c2r|c2c N P   P planes of N x N: one plan for all, one plan a
//                                              plane looped, the same with each plane read first
//   volfft-fftw-passes split N P               c2c along axis 1 then c2r along axis 2 (two
//                                              batches), whole and plane by plane (touched)
//   volfft-fftw-passes chunks N                the np 2 slab backward's first FFTs of r2c N^3:
//                                              N/2 chunks of N/2+1 lines of N, each into its
//                                              own place or into the first chunk's, then copied out
//   volfft-fftw-passes one-rank N              c2c N^3 forward: FFTW's 3-D plan out of place, in
//                                              place, and a copy then in place, against planes
//                                              (touched) then axis 0, and against axis 0 as
//                                              columns into the output, then planes in place
//   volfft-fftw-passes columns N double|single c2c N^3 along axis 0 (N^2 lines a plane apart),
//                                              each direction in place and out of place: FFTW's
//                                              measured plan for the batch, planned three times
//                                              (its wisdom forgotten in between), and estimated,
//                                              against the columns of src/backend/fftw_columns.hpp
//                                              without prefetching rows, and their layout before
//                                              2026-12-08 (lines)
//   volfft-fftw-passes copied c2c|r2c lines|planes N M
//                                              M lines of N points (or M planes of N x N), c2c
//                                              backward or r2c, out of place: FFTW's plan of the
//                                              batch (planes: one plane at a time, c2c's
//                                              touched), against blocks of up to 128 KiB (a
//                                              plane) copied into the output (r2c: its padded
//                                              rows) and transformed there in place
//                                              (src/backend/fftw_batch.cpp); c2c also in place
//                                              with no copy, and the copy alone
//   volfft-fftw-passes one-rank-r2c N          r2c/c2r N^3 both directions, out of place (the
//                                              input kept) and in place: FFTW's 3-D plans
//                                              against planes one by one and axis 0 (what
//                                              src/plan/stage_ops.cpp runs at one rank); the
//                                              backward also with the input destroyed, and kept
//                                              in two arrays (the library's folded backward,
//                                              src/plan/folded_backward.cpp)
//   volfft-fftw-passes padded N P              c2c N x N planes: one plane in cache, FFTW's
//                                              columns with rows N + pad apart (pad 0-16
//                                              values); then P planes out of place from memory,
//                                              the library's batch (src/backend/fftw_batch.cpp)
//                                              as FFTW's plan a plane at a time (touched) and
//                                              through padded scratch planes
// Prints the median of 25 calls of each, in ms (the in-cache columns: the best of 7 timings).
#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backend/fft_batch.hpp"
#include "backend/fftw_api.hpp"
#include "backend/fftw_columns.hpp"
#include "core/blueprint.hpp"
#include "plan/folded_backward.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<char> junk(48 << 20);

void flush_cache() {
  for (std::size_t i = 0; i < junk.size(); i += 64) junk[i]++;
}

// Reads `bytes` at p in order, one load a line (as FftwBatch's touch).
void touch(const void* p, std::size_t bytes) {
  const unsigned char* c = static_cast<const unsigned char*>(p);
  unsigned sum = 0;
  for (std::size_t off = 0; off < bytes; off += 64) sum += c[off];
  volatile unsigned kept = sum;
  (void)kept;
}

// Each way in turn, 25 rounds, the cache flushed before every call; `reset` restores inputs
// that a way destroys.
void compare(const std::vector<std::pair<std::string, std::function<void()>>>& ways,
             const std::function<void()>& reset = [] {}) {
  std::vector<std::vector<double>> t(ways.size());
  for (int round = 0; round < 25; ++round)
    for (std::size_t w = 0; w < ways.size(); ++w) {
      reset();
      flush_cache();
      const double a = now();
      ways[w].second();
      t[w].push_back(now() - a);
    }
  for (std::size_t w = 0; w < ways.size(); ++w) {
    std::sort(t[w].begin(), t[w].end());
    std::printf("  %-34s %9.3f ms\n", ways[w].first.c_str(), t[w][t[w].size() / 2] * 1e3);
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: volfft-fftw-passes batch r2c|c2r|c2c N P | split N P | chunks N | columns N double|single | "
               "one-rank N | one-rank-r2c N | copied c2c|r2c lines|planes N M | padded N P\n");
  return 2;
}

long arg(char** argv, int k) {
  const long v = std::atol(argv[k]);
  if (v < 2) {
    std::fprintf(stderr, "volfft-fftw-passes: argument %d must be an integer >= 2, got '%s'\n", k, argv[k]);
    std::exit(2);
  }
  return v;
}


// `columns N double|single`: c2c N^3 along axis 0, each direction in place and out of place.
template <class Api>
int columns_mode(long n) {
  using Value = std::complex<typename Api::real>;
  const std::size_t plane = std::size_t(n) * n, all = plane * n;
  Value* in = static_cast<Value*>(fftw_malloc(all * sizeof(Value)));
  Value* out = static_cast<Value*>(fftw_malloc(all * sizeof(Value)));
  const fftw_iodim64 axis0{n, (long)plane, (long)plane}, lines[2] = {{n, n, n}, {n, 1, 1}};
  volfft::backend::ColumnGeometry geometry;
  volfft::backend::column_geometry({axis0}, {lines[0], lines[1]}, geometry);
  auto fill = [&] {
    for (std::size_t i = 0; i < all; ++i) in[i] = Value(double(i % 7) * 0.1, double(i % 3) * 0.2);
  };
  // The columns' layout before 2026-12-08, for the comparison fftw_columns.hpp quotes: blocks of 64
  // lines, each line contiguous in the buffer, n rounded up to even plus 2 values apart (aligned,
  // and not a power of two apart), copied in and out value by value.
  const long ld = (n + 1) / 2 * 2 + 2, block = 64;
  Value* line_buffer = static_cast<Value*>(fftw_malloc(std::size_t(block * ld) * sizeof(Value)));
  std::fill(line_buffer, line_buffer + block * ld, Value(0));
  for (int sign : {FFTW_FORWARD, FFTW_BACKWARD})
    for (bool in_place : {true, false}) {
      Value* to = in_place ? in : out;
      std::vector<std::pair<std::string, std::function<void()>>> ways;
      std::vector<typename Api::plan> plans;
      for (int k = 0; k < 3; ++k) {
        Api::forget_wisdom();  // FFTW measures afresh each time, as a new process would
        typename Api::plan p = Api::dft(1, &axis0, 2, lines, in, to, sign, FFTW_MEASURE);
        char* text = Api::sprint_plan(p);
        std::string solver(text);  // the outermost solver's name, e.g. "(dft-directbuf/130-..."
        free(text);
        solver = solver.substr(0, std::min(solver.find_first_of(" \n"), std::size_t(28)));
        plans.push_back(p);
        ways.push_back({"FFTW measured " + std::to_string(k + 1) + " " + solver,
                        [p, in, to] { Api::exec_dft(p, in, to); }});
      }
      Api::forget_wisdom();  // else FFTW_ESTIMATE takes the measured plan from wisdom
      typename Api::plan estimated = Api::dft(1, &axis0, 2, lines, in, to, sign, FFTW_ESTIMATE);
      plans.push_back(estimated);
      ways.push_back({"FFTW estimated", [estimated, in, to] { Api::exec_dft(estimated, in, to); }});
      volfft::backend::FftwColumns<Api> columns(geometry, sign, FFTW_MEASURE, 1);
      ways.push_back({"columns", [&] { columns.execute(in, to); }});
      volfft::backend::FftwColumns<Api> unprefetched(geometry, sign, FFTW_MEASURE, 1, 0);
      ways.push_back({"columns, rows not prefetched", [&] { unprefetched.execute(in, to); }});
      const fftw_iodim64 line{n, 1, 1}, block_lines{block, ld, ld};
      typename Api::plan line_plan = Api::dft(1, &line, 1, &block_lines, line_buffer, line_buffer, sign, FFTW_MEASURE);
      plans.push_back(line_plan);
      ways.push_back({"columns, lines in the buffer", [&] {
                        for (long first = 0; first < long(plane); first += block) {
                          const long count = std::min(block, long(plane) - first);
                          for (long r = 0; r < n; ++r)
                            for (long j = 0; j < count; ++j) line_buffer[j * ld + r] = in[r * plane + first + j];
                          Api::exec_dft(line_plan, line_buffer, line_buffer);
                          for (long r = 0; r < n; ++r)
                            for (long j = 0; j < count; ++j) to[r * plane + first + j] = line_buffer[j * ld + r];
                        }
                      }});
      std::printf("c2c %ld^3 %s along axis 0, %s, %s\n", n, sizeof(typename Api::real) == 8 ? "double" : "single",
                  sign == FFTW_FORWARD ? "forward" : "backward", in_place ? "in place" : "out of place");
      fill();
      compare(ways, in_place ? std::function<void()>(fill) : std::function<void()>([] {}));
      for (typename Api::plan p : plans) Api::destroy(p);
    }
  fftw_free(line_buffer);
  fftw_free(in);
  fftw_free(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string mode = argv[1];
  const unsigned measure = FFTW_MEASURE;
  if (mode == "batch" && argc == 5) {
    const std::string kind = argv[2];
    const int n = static_cast<int>(arg(argv, 3)), planes = static_cast<int>(arg(argv, 4)), h = n / 2 + 1;
    if (kind != "r2c" && kind != "c2r" && kind != "c2c") return usage();
    const bool c2c = kind == "c2c";
    const std::size_t real_plane = c2c ? std::size_t(n) * n * 2 : std::size_t(n) * n;  // reals
    const std::size_t complex_plane = c2c ? std::size_t(n) * n : std::size_t(n) * h;
    double* re = fftw_alloc_real(planes * real_plane);
    fftw_complex* cx = fftw_alloc_complex(planes * complex_plane);
    int dims[2] = {n, n};
    auto plan = [&](int howmany) {
      if (kind == "r2c")
        return fftw_plan_many_dft_r2c(2, dims, howmany, re, nullptr, 1, real_plane, cx, nullptr, 1, complex_plane,
                                      measure);
      if (kind == "c2r")
        return fftw_plan_many_dft_c2r(2, dims, howmany, cx, nullptr, 1, complex_plane, re, nullptr, 1, real_plane,
                                      measure | FFTW_DESTROY_INPUT);
      return fftw_plan_many_dft(2, dims, howmany, reinterpret_cast<fftw_complex*>(re), nullptr, 1, n * n, cx, nullptr,
                                1, n * n, FFTW_FORWARD, measure);
    };
    fftw_plan all = plan(planes), one = plan(1);
    auto fill = [&] {
      for (std::size_t i = 0; i < planes * real_plane; ++i) re[i] = double(i % 13) * 0.1;
      for (std::size_t i = 0; i < planes * complex_plane; ++i) cx[i][0] = double(i % 11) * 0.1, cx[i][1] = 0;
    };
    const bool from_complex = kind == "c2r";
    const std::size_t in_plane_bytes = from_complex ? complex_plane * sizeof(fftw_complex) : real_plane * sizeof(double);
    auto plane_by_plane = [&](bool touched) {
      for (int p = 0; p < planes; ++p) {
        double* r = re + p * real_plane;
        fftw_complex* c = cx + p * complex_plane;
        if (touched) touch(from_complex ? static_cast<void*>(c) : static_cast<void*>(r), in_plane_bytes);
        if (kind == "r2c") fftw_execute_dft_r2c(one, r, c);
        else if (kind == "c2r") fftw_execute_dft_c2r(one, c, r);
        else fftw_execute_dft(one, reinterpret_cast<fftw_complex*>(r), c);
      }
    };
    fill();
    std::printf("%s %d x %d^2 (out of place)\n", kind.c_str(), planes, n);
    compare({{"one plan for all", [&] { fftw_execute(all); }},
             {"one plan a plane, looped", [&] { plane_by_plane(false); }},
             {"the same, each plane touched", [&] { plane_by_plane(true); }}},
            from_complex ? std::function<void()>(fill) : std::function<void()>([] {}));
    return 0;
  }
  if (mode == "split" && argc == 4) {
    const int n = static_cast<int>(arg(argv, 2)), planes = static_cast<int>(arg(argv, 3)), h = n / 2 + 1;
    const std::size_t cp = std::size_t(n) * h, rp = std::size_t(n) * n;
    fftw_complex* buf = fftw_alloc_complex(planes * cp);
    double* out = fftw_alloc_real(planes * rp);
    const unsigned f = measure | FFTW_DESTROY_INPUT;
    // Columns: axis 1 (length n, stride h), loops over planes and the h columns; rows: c2r.
    const fftw_iodim64 column{n, h, h}, row{n, 1, 1};
    const fftw_iodim64 column_loops[2] = {{planes, (long)cp, (long)cp}, {h, 1, 1}};
    const fftw_iodim64 row_loops[2] = {{planes, (long)cp, (long)rp}, {n, h, n}};
    fftw_plan columns = fftw_plan_guru64_dft(1, &column, 2, column_loops, buf, buf, FFTW_BACKWARD, f);
    fftw_plan rows = fftw_plan_guru64_dft_c2r(1, &row, 2, row_loops, buf, out, f);
    fftw_plan columns1 = fftw_plan_guru64_dft(1, &column, 1, column_loops + 1, buf, buf, FFTW_BACKWARD, f);
    fftw_plan rows1 = fftw_plan_guru64_dft_c2r(1, &row, 1, row_loops + 1, buf, out, f);
    auto fill = [&] {
      for (std::size_t i = 0; i < planes * cp; ++i) buf[i][0] = double(i % 7) * 0.1, buf[i][1] = 0;
    };
    std::printf("c2c along axis 1, then c2r along axis 2: %d x %d^2\n", planes, n);
    compare({{"two batches over all planes", [&] { fftw_execute(columns), fftw_execute(rows); }},
             {"plane by plane, touched", [&] {
                for (int p = 0; p < planes; ++p) {
                  touch(buf + p * cp, cp * sizeof(fftw_complex));
                  fftw_execute_dft(columns1, buf + p * cp, buf + p * cp);
                  fftw_execute_dft_c2r(rows1, buf + p * cp, out + p * rp);
                }
              }}},
            fill);
    return 0;
  }
  if (mode == "chunks" && argc == 3) {
    const int n = static_cast<int>(arg(argv, 2)), chunks = n / 2, lines = n / 2 + 1;
    const std::size_t chunk = std::size_t(lines) * n;
    fftw_complex* in = fftw_alloc_complex(chunks * chunk);
    fftw_complex* buffer = fftw_alloc_complex(chunks * chunk);
    fftw_complex* partner = fftw_alloc_complex(chunks * chunk);
    for (std::size_t i = 0; i < chunks * chunk; ++i) in[i][0] = double(i % 7), in[i][1] = 1, buffer[i][0] = 0;
    int length = n;
    fftw_plan p = fftw_plan_many_dft(1, &length, lines, in, nullptr, 1, n, buffer, nullptr, 1, n, FFTW_BACKWARD, measure);
    auto run = [&](bool first_place) {
      for (int k = 0; k < chunks; ++k) {
        fftw_complex* to = buffer + (first_place ? 0 : k * chunk);
        fftw_execute_dft(p, in + k * chunk, to);
        std::memcpy(partner + k * chunk, to, chunk * sizeof(fftw_complex));  // the push, as a plain copy
      }
    };
    std::printf("%d chunks of %d lines of %d, each FFT'd then copied out\n", chunks, lines, n);
    compare({{"each chunk into its own place", [&] { run(false); }},
             {"every chunk into the first's place", [&] { run(true); }}});
    return 0;
  }
  if (mode == "columns" && argc == 4) {
    const std::string precision = argv[3];
    if (precision == "double") return columns_mode<volfft::backend::DoubleApi>(arg(argv, 2));
    if (precision == "single") return columns_mode<volfft::backend::FloatApi>(arg(argv, 2));
    return usage();
  }
  if (mode == "copied" && argc == 6) {
    const std::string kind = argv[2], shape = argv[3];
    if ((kind != "c2c" && kind != "r2c") || (shape != "lines" && shape != "planes")) return usage();
    const int n = static_cast<int>(arg(argv, 4)), m = static_cast<int>(arg(argv, 5)), h = n / 2 + 1;
    const bool planes = shape == "planes", r2c = kind == "r2c";
    // A unit (a line or a plane): its values on the input side (complex, or reals), its complex
    // values on the output side, its rows (of n input values).
    const int rows = planes ? n : 1, row_out = r2c ? h : n;
    const std::size_t unit_in = std::size_t(rows) * n, unit_out = std::size_t(rows) * row_out;
    const std::size_t block = std::max<std::size_t>(1, (std::size_t(128) << 10) / (unit_out * sizeof(fftw_complex)));
    if (m % block != 0) {
      std::fprintf(stderr, "volfft-fftw-passes: M must be a multiple of %zu (the units in a block)\n", block);
      return 2;
    }
    fftw_complex* in = fftw_alloc_complex(unit_in * m);  // reals for r2c: half of it used
    fftw_complex* out = fftw_alloc_complex(unit_out * m);
    double* in_re = reinterpret_cast<double*>(in);
    double* out_re = reinterpret_cast<double*>(out);
    const int rank = planes ? 2 : 1, dims[2] = {n, n}, count = planes ? 1 : m, b = static_cast<int>(block);
    const int ui = static_cast<int>(unit_in), uo = static_cast<int>(unit_out);
    const int padded[2] = {n, 2 * h};  // in place: FFTW's padded rows (the output's complex rows)
    auto plan = [&](int howmany, bool in_place) {
      if (!r2c)
        return fftw_plan_many_dft(rank, dims, howmany, in_place ? out : in, nullptr, 1, in_place ? uo : ui, out,
                                  nullptr, 1, uo, FFTW_BACKWARD, measure);
      if (in_place)
        return fftw_plan_many_dft_r2c(rank, dims, howmany, out_re, planes ? padded : padded + 1, 1, 2 * uo, out,
                                      nullptr, 1, uo, measure);
      return fftw_plan_many_dft_r2c(rank, dims, howmany, in_re, nullptr, 1, ui, out, nullptr, 1, uo, measure);
    };
    fftw_plan oop = plan(count, false), ip_block = plan(b, true);
    fftw_plan ip_all = r2c ? nullptr : plan(count, true);  // c2c: the bounds the copies sit between
    if (r2c) for (std::size_t i = 0; i < unit_in * m; ++i) in_re[i] = double(i % 7) * 0.1;
    else for (std::size_t i = 0; i < unit_in * m; ++i) in[i][0] = double(i % 7) * 0.1, in[i][1] = double(i % 3) * 0.2;
    std::printf("%s, %d %s of %d%s, out of place (blocks of %zu)\n", r2c ? "r2c" : "c2c backward", m, shape.c_str(),
                n, planes ? "^2" : " points", block);
    compare({{!planes ? "FFTW's plan of the batch" : r2c ? "FFTW, plane by plane" : "FFTW, plane by plane, touched", [&] {
                if (!planes) return fftw_execute(oop);
                for (int p = 0; p < m; ++p) {
                  if (r2c) {
                    fftw_execute_dft_r2c(oop, in_re + p * unit_in, out + p * unit_out);
                  } else {
                    touch(in + p * unit_in, unit_in * sizeof(fftw_complex));
                    fftw_execute_dft(oop, in + p * unit_in, out + p * unit_out);
                  }
                }
              }},
             {"blocks copied, then in place", [&] {
                for (std::size_t k = 0; k < std::size_t(m); k += block) {
                  if (r2c) {
                    for (std::size_t r = 0; r < block * rows; ++r)
                      std::memcpy(out_re + (k * rows + r) * 2 * h, in_re + (k * rows + r) * n, n * sizeof(double));
                    fftw_execute_dft_r2c(ip_block, out_re + k * unit_out * 2, out + k * unit_out);
                  } else {
                    std::memcpy(out + k * unit_out, in + k * unit_in, unit_in * block * sizeof(fftw_complex));
                    fftw_execute_dft(ip_block, out + k * unit_out, out + k * unit_out);
                  }
                }
              }}});
    if (r2c) return 0;
    std::printf("  and the bounds: the output transformed in place with no copy, and a copy alone\n");
    compare({{"FFTW in place (no copy)", [&] {
                if (!planes) return fftw_execute(ip_all);
                for (int p = 0; p < m; ++p) fftw_execute_dft(ip_all, out + p * unit_out, out + p * unit_out);
              }},
             {"the copy alone", [&] { std::memcpy(out, in, unit_in * m * sizeof(fftw_complex)); }}});
    return 0;
  }
  if (mode == "one-rank" && argc == 3) {
    const int n = static_cast<int>(arg(argv, 2));
    const std::size_t plane = std::size_t(n) * n, all = plane * n;
    fftw_complex* in = fftw_alloc_complex(all);
    fftw_complex* out = fftw_alloc_complex(all);
    fftw_plan oop = fftw_plan_dft_3d(n, n, n, in, out, FFTW_FORWARD, measure);
    fftw_plan ip = fftw_plan_dft_3d(n, n, n, out, out, FFTW_FORWARD, measure);
    fftw_plan p2 = fftw_plan_dft_2d(n, n, in, out, FFTW_FORWARD, measure);
    const fftw_iodim64 axis0{n, (long)plane, (long)plane}, lines{(long)plane, 1, 1};
    fftw_plan p1 = fftw_plan_guru64_dft(1, &axis0, 1, &lines, out, out, FFTW_FORWARD, measure);
    fftw_plan p2_in = fftw_plan_dft_2d(n, n, out, out, FFTW_FORWARD, measure);
    volfft::backend::ColumnGeometry geometry;
    volfft::backend::column_geometry({axis0}, {lines}, geometry);
    volfft::backend::FftwColumns<volfft::backend::DoubleApi> columns(geometry, FFTW_FORWARD, measure, 1);
    for (std::size_t i = 0; i < all; ++i) in[i][0] = double(i % 7) * 0.1, in[i][1] = double(i % 3) * 0.2;
    std::printf("c2c %d^3, one process\n", n);
    compare({{"FFTW's 3-D plan, out of place", [&] { fftw_execute(oop); }},
             {"FFTW's 3-D plan, in place", [&] { fftw_execute(ip); }},
             // An out-of-place transform through the in-place plan: one more pass, the copy.
             {"copy, then the in-place plan", [&] {
                std::memcpy(out, in, all * sizeof(fftw_complex));
                fftw_execute(ip);
              }},
             {"planes (touched), then axis 0", [&] {
                for (int p = 0; p < n; ++p) {
                  touch(in + p * plane, plane * sizeof(fftw_complex));
                  fftw_execute_dft(p2, in + p * plane, out + p * plane);
                }
                fftw_execute(p1);
              }},
             // What volfft runs at one rank where the arrays outgrow the cache (stage_ops.cpp):
             // axis 0 as columns into the output, then the planes in place.
             {"axis 0 (columns), then planes in place", [&] {
                columns.execute(in, out);
                for (int p = 0; p < n; ++p) {
                  touch(out + p * plane, plane * sizeof(fftw_complex));
                  fftw_execute_dft(p2_in, out + p * plane, out + p * plane);
                }
              }}},
            [&] { std::memcpy(out, in, all * sizeof(fftw_complex)); });
    return 0;
  }
  if (mode == "one-rank-r2c" && argc == 3) {
    const long n = arg(argv, 2), h = n / 2 + 1;
    const std::size_t cplane = std::size_t(n) * h, call = cplane * n;  // complex values
    const std::size_t rplane = std::size_t(n) * n, rall = rplane * n;   // reals, out of place
    double* real = fftw_alloc_real(rall);
    fftw_complex* spectrum = fftw_alloc_complex(call);  // the spectral input, kept
    fftw_complex* array = fftw_alloc_complex(call);     // out of place: the output, or the plan's array
    fftw_complex* both = fftw_alloc_complex(call);      // in place: FFTW's padded rows
    double* padded = reinterpret_cast<double*>(both);
    const unsigned keep = measure, destroy = measure | FFTW_DESTROY_INPUT;
    // FFTW's 3-D plans.
    const int dims[3] = {int(n), int(n), int(n)};
    fftw_plan r2c3 = fftw_plan_dft_r2c(3, dims, real, array, keep);
    fftw_plan r2c3_in = fftw_plan_dft_r2c(3, dims, padded, both, keep);
    fftw_plan c2r3 = fftw_plan_dft_c2r(3, dims, array, real, destroy);  // on a copy of the spectrum
    fftw_plan c2r3_in = fftw_plan_dft_c2r(3, dims, both, padded, keep);
    // Planes (axes 1 and 2) one at a time, and axis 0 over all of them.
    const fftw_iodim64 plane_r[2] = {{n, n, h}, {n, 1, 1}}, plane_in[2] = {{n, 2 * h, h}, {n, 1, 1}};
    const fftw_iodim64 plane_c[2] = {{n, h, n}, {n, 1, 1}}, plane_cin[2] = {{n, h, 2 * h}, {n, 1, 1}};
    fftw_plan r2c2 = fftw_plan_guru64_dft_r2c(2, plane_r, 0, nullptr, real, array, keep);
    fftw_plan r2c2_in = fftw_plan_guru64_dft_r2c(2, plane_in, 0, nullptr, padded, both, keep);
    fftw_plan c2r2 = fftw_plan_guru64_dft_c2r(2, plane_c, 0, nullptr, array, real, destroy);
    fftw_plan c2r2_in = fftw_plan_guru64_dft_c2r(2, plane_cin, 0, nullptr, both, padded, destroy);
    const fftw_iodim64 axis0{n, (long)cplane, (long)cplane}, rest[2] = {{n, h, h}, {h, 1, 1}};
    fftw_plan fwd0 = fftw_plan_guru64_dft(1, &axis0, 2, rest, array, array, FFTW_FORWARD, keep);
    fftw_plan bwd0_in = fftw_plan_guru64_dft(1, &axis0, 2, rest, array, array, FFTW_BACKWARD, keep);
    fftw_plan bwd0 = fftw_plan_guru64_dft(1, &axis0, 2, rest, spectrum, array, FFTW_BACKWARD, keep);
    // volfft's backward before: c2c over axes 0 and 1 from the input, then c2r along axis 2.
    const fftw_iodim64 axes01[2] = {{n, (long)cplane, (long)cplane}, {n, h, h}}, columns{h, 1, 1};
    const fftw_iodim64 row{n, 1, 1}, rows{(long)rplane, h, n};
    fftw_plan bwd01 = fftw_plan_guru64_dft(2, axes01, 1, &columns, spectrum, array, FFTW_BACKWARD, keep);
    fftw_plan c2r1 = fftw_plan_guru64_dft_c2r(1, &row, 1, &rows, array, real, destroy);
    // Two arrays only: the library's folded backward (src/plan/folded_backward.cpp, measured
    // plans), its workspace a few lines and planes; planned before the arrays are filled, on its
    // workspace and the output (the planning arrays must hold its line buffer, which at odd
    // sizes is more than the spectrum: 7^3's 21 lines 10 apart against 196 values).
    setenv("VOLFFT_TEST_FOLDED", "1", 1);
    volfft::Options options;
    options.backend = volfft::Backend::fftw;
    options.effort = volfft::Effort::measure;
    const volfft::core::Blueprint bp =
        volfft::core::make_blueprint(1, 0, {n, n, n}, volfft::Kind::r2c, volfft::Precision::float64, options);
    fftw_complex* workspace = fftw_alloc_complex(std::size_t(bp.buffer_elements));
    const volfft::plan::FoldedBackward folded(bp, options, workspace, array);
    auto folded_backward = [&] { folded.run(spectrum, workspace, real); };
    for (std::size_t i = 0; i < rall; ++i) real[i] = double(i % 7) * 0.1;
    for (std::size_t i = 0; i < call; ++i) spectrum[i][0] = double(i % 5) * 0.1, spectrum[i][1] = double(i % 3) * 0.1;
    auto fill_both = [&] {
      for (std::size_t i = 0; i < 2 * call; ++i) padded[i] = double(i % 7) * 0.1;
    };
    auto planes = [&](fftw_plan p, bool r2c, double* r, fftw_complex* c, long rstride) {
      for (long k = 0; k < n; ++k)
        if (r2c) fftw_execute_dft_r2c(p, r + k * rstride, c + k * cplane);
        else fftw_execute_dft_c2r(p, c + k * cplane, r + k * rstride);
    };
    std::printf("r2c %ld^3, one process: forward out of place\n", n);
    compare({{"FFTW's 3-D plan", [&] { fftw_execute(r2c3); }},
             {"planes, then axis 0 in place", [&] {
                planes(r2c2, true, real, array, long(rplane));
                fftw_execute(fwd0);
              }}});
    std::printf("forward in place\n");
    compare({{"FFTW's 3-D plan", [&] { fftw_execute(r2c3_in); }},
             {"planes, then axis 0", [&] {
                planes(r2c2_in, true, padded, both, long(2 * cplane));
                fftw_execute_dft(fwd0, both, both);
              }}},
            fill_both);
    {  // the folded way computes what FFTW's 3-D c2r computes
      std::memcpy(array, spectrum, call * sizeof(fftw_complex));
      fftw_execute(c2r3);
      std::vector<double> expected(real, real + rall);
      std::fill(real, real + rall, 0.0);
      folded_backward();
      double difference = 0, largest = 0;
      for (std::size_t i = 0; i < rall; ++i)
        difference = std::max(difference, std::abs(real[i] - expected[i])), largest = std::max(largest, std::abs(expected[i]));
      std::printf("backward folded into the output: largest difference from FFTW's 3-D c2r %.1e (of values up to %.1e)\n",
                  difference, largest);
    }
    std::printf("backward out of place, the input kept\n");
    compare({{"copy, then FFTW's 3-D c2r", [&] {
                std::memcpy(array, spectrum, call * sizeof(fftw_complex));
                fftw_execute(c2r3);
              }},
             {"axes 0-1 into the array, c2r axis 2", [&] {
                fftw_execute(bwd01);
                fftw_execute(c2r1);
              }},
             {"axis 0 into the array, c2r planes", [&] {
                fftw_execute(bwd0);
                planes(c2r2, false, real, array, long(rplane));
              }},
             {"axis 0 folded into the output", folded_backward}});
    // Options::destroy_input: the input is the plan's to overwrite (refilled before each call).
    fftw_complex* input = fftw_alloc_complex(call);
    std::printf("backward out of place, the input destroyed\n");
    compare({{"FFTW's 3-D c2r from the input", [&] { fftw_execute_dft_c2r(c2r3, input, real); }},
             {"axis 0 into the array, c2r planes", [&] {
                fftw_execute_dft(bwd0, input, array);
                planes(c2r2, false, real, array, long(rplane));
              }},
             {"axis 0 in the input, c2r planes", [&] {
                fftw_execute_dft(bwd0_in, input, input);
                planes(c2r2, false, real, input, long(rplane));
              }}},
            [&] { std::memcpy(input, spectrum, call * sizeof(fftw_complex)); });
    std::printf("backward in place\n");
    compare({{"FFTW's 3-D plan", [&] { fftw_execute(c2r3_in); }},
             {"axis 0, then c2r planes", [&] {
                fftw_execute_dft(bwd0_in, both, both);
                planes(c2r2_in, false, padded, both, long(2 * cplane));
              }}},
            fill_both);
    return 0;
  }
  if (mode == "padded" && argc == 4) {
    const long n = arg(argv, 2), planes = arg(argv, 3);
    std::printf("c2c %ld^2, one plane in cache: FFTW's columns (measure, in place), rows n + pad apart\n", n);
    for (long pad : {0L, 1L, 2L, 4L, 8L, 16L}) {
      const long ld = n + pad;
      fftw_complex* a = fftw_alloc_complex(std::size_t(n * ld));
      const fftw_iodim64 column{n, ld, ld}, columns{n, 1, 1};
      fftw_plan p = fftw_plan_guru64_dft(1, &column, 1, &columns, a, a, FFTW_FORWARD, measure);
      for (long k = 0; k < n * ld; ++k) a[k][0] = 1.0 / double(1 + k % 7), a[k][1] = 0.5;
      double best = 1e300;
      for (int r = 0; r < 8; ++r) {  // the first a warm-up
        const double t0 = now();
        for (int c = 0; c < 100; ++c) fftw_execute(p);
        if (r > 0) best = std::min(best, (now() - t0) / 100);
      }
      std::printf("  pad %2ld                             %9.4f ms\n", pad, best * 1e3);
      fftw_destroy_plan(p);
      fftw_free(a);
    }
    // The library's batch of `planes` planes (axes 1 and 2), out of place, both ways; the copied
    // blocks (another way the batch may run) left out.
    using volfft::backend::BatchGeometry;
    BatchGeometry g;
    g.extent = {planes, n, n};
    g.axes = {1, 2};
    g.transform = volfft::backend::Transform::c2c_forward;
    g.in_strides = g.out_strides = {n * n, n, 1};
    const std::size_t values = std::size_t(planes * n * n);
    fftw_complex* in = fftw_alloc_complex(values);
    fftw_complex* out = fftw_alloc_complex(values);
    auto batch_of = [&](const char* padded) {
      setenv("VOLFFT_TEST_PADDED_PLANES", padded, 1);
      setenv("VOLFFT_TEST_COPY_IN_PLACE", "0", 1);
      auto b = volfft::backend::make_fftw_batch(volfft::Precision::float64, g, volfft::Effort::measure, 1, in, out,
                                                false);
      unsetenv("VOLFFT_TEST_PADDED_PLANES");
      unsetenv("VOLFFT_TEST_COPY_IN_PLACE");
      return b;
    };
    auto fftw_way = batch_of("0"), padded_way = batch_of("1");
    for (std::size_t k = 0; k < values; ++k) in[k][0] = 1.0 / double(1 + k % 7), in[k][1] = 0.5;
    std::printf("%ld planes of %ld^2 out of place, the cache flushed (%s / %s)\n", planes, n, fftw_way->way(),
                padded_way->way());
    compare({{"FFTW's plan a plane at a time", [&] { fftw_way->execute(in, out); }},
             {"padded scratch planes", [&] { padded_way->execute(in, out); }}});
    fftw_free(in);
    fftw_free(out);
    return 0;
  }
  return usage();
}
