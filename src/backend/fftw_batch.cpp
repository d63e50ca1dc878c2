#include <fftw3.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "backend/fft_batch.hpp"
#include "backend/fftw_api.hpp"
#include "backend/fftw_columns.hpp"
#include "backend/fftw_kinds.hpp"
#include "backend/omp_team.hpp"
#include "core/cache.hpp"
#include "kernels/copy_box.hpp"
#include "kernels/parallel_for.hpp"

namespace volfft::backend {
namespace {

// FFTW's thread count is planner state shared by the whole process (the application may plan
// with FFTW itself): set it for our plans and put back what was there. Planning runs the plans
// it measures, so the OpenMP team is sized to the threads too (OmpTeam).
template <class Api>
class PlannerThreads {
 public:
  explicit PlannerThreads(int threads) : team_(threads) {
    static std::once_flag initialised;
    std::call_once(initialised, [] { Api::init_threads(); });
    previous_ = Api::planner_threads();
    Api::plan_with_threads(threads);
  }
  ~PlannerThreads() { Api::plan_with_threads(previous_); }
  PlannerThreads(const PlannerThreads&) = delete;
  PlannerThreads& operator=(const PlannerThreads&) = delete;

 private:
  OmpTeam team_;
  int previous_ = 1;
};

fftw_r2r_kind fftw_kind(AxisKind k) {
  const FftwKind* entry = fftw_kind_of(k);
  if (!entry) throw std::logic_error("volfft: not a real-to-real kind");
  return entry->fftw;
}

unsigned effort_flags(Effort e) {
  switch (e) {
    case Effort::estimate: return FFTW_ESTIMATE;
    case Effort::measure: return FFTW_MEASURE;
    case Effort::patient: return FFTW_PATIENT;
  }
  return FFTW_MEASURE;
}

// A path the tests force: the environment variable `name` = 1 takes it wherever it may be
// taken, = 0 never; unset (users have no reason to set these): as the planner decides. The
// knobs: VOLFFT_TEST_SPLIT_BATCHES, whether a batch with threads is split over them (decided by
// measurement, FFTW's threads at effort estimate); VOLFFT_TEST_COLUMNS, whether a batch that may
// run as columns (fftw_columns.hpp) does (at effort estimate always: FFTW's estimated plans of
// such batches took 1.1-2.9x the columns' time where measured; else the faster of the two on the
// planning arrays). tests/unit/test_fftw_batch.cpp runs both paths of each.
enum class Forced { no, always, never };
Forced forced(const char* name) {
  const char* env = std::getenv(name);
  if (!env || !*env) return Forced::no;
  return std::strcmp(env, "0") == 0 ? Forced::never : Forced::always;
}

template <class Api>
class FftwBatch final : public FftBatch {
 public:
  FftwBatch(const BatchGeometry& g, Effort effort, int threads, void* plan_in, void* plan_out,
            bool fallback)
      : transform_(g.transform),
        threads_(threads),
        in_alignment_(Api::alignment_of(plan_in)),
        out_alignment_(Api::alignment_of(plan_out)) {
    if (g.extent[0] * g.extent[1] * g.extent[2] == 0) return;  // empty box: nothing to do
    // A constructor that throws runs no destructor: the plans made before the throw (FFTW could
    // not plan a later one, the columns' buffer was refused) are released here.
    try {
      build(g, effort, threads, plan_in, plan_out, fallback);
    } catch (...) {
      release_fftw_plans();
      throw;
    }
  }

  ~FftwBatch() override { release_fftw_plans(); }

  std::size_t buffer_bytes() const override {
    return columns_ ? columns_->buffer_bytes() : padded_.rows ? padded_.scratch_bytes() : 0;
  }

  bool scale_output(double factor) override {
    if (!columns_) return false;
    columns_->set_scale(factor);
    return true;
  }

  const char* way() const override {
    return columns_ ? "columns" : padded_.rows ? "padded" : copied_.plan ? "copied" : "fftw";
  }

  void execute(const void* in, void* out) const override {
    if (columns_) {
      columns_->execute(in, out);
      return;
    }
    if (!primary_ && !copied_.plan && !padded_.rows) return;  // an empty box
    const bool unaligned = unaligned_ && (Api::alignment_of(in) != in_alignment_ ||
                                          Api::alignment_of(out) != out_alignment_);
    if (unaligned) {
      run_threaded(unaligned_, in, out);
    } else if (padded_.rows) {
      run_padded(padded_, in, out);
    } else if (copied_.plan) {
      run_copied(copied_, in, out);
    } else {
      run_fftw(in, out);
    }
  }

 private:
  void build(const BatchGeometry& g, Effort effort, int threads, void* plan_in, void* plan_out, bool fallback) {
    // Transformed dimensions (their order matters only for r2c, whose halved axis is last),
    // then the loop ("howmany") dimensions, slowest first.
    std::vector<fftw_iodim64> dims, loops;
    const bool real = g.transform == Transform::r2c || g.transform == Transform::c2r;
    std::vector<int> axes = g.axes;
    // Row-major order for FFTW (largest stride first); the r2c/c2r axis 2 must come last.
    std::sort(axes.begin(), axes.end(), [&](int x, int y) {
      if (real && (x == 2 || y == 2)) return y == 2 && x != 2;
      return g.in_strides[x] > g.in_strides[y];
    });
    // r2r of complex data: the complex array as reals (strides doubled), real and imaginary
    // parts one more loop. Real data (an r2r plan) is read as it is.
    const bool parts = g.transform == Transform::r2r && !g.real_values;
    const Index unit = parts ? 2 : 1;
    for (int a : axes) {
      fftw_iodim64 d;
      d.n = (real && a == 2) ? g.real_length : g.extent[a];
      d.is = unit * g.in_strides[a];
      d.os = unit * g.out_strides[a];
      dims.push_back(d);
      if (g.transform == Transform::r2r)
        kinds_.push_back(fftw_kind(g.r2r_kinds[static_cast<std::size_t>(
            std::find(g.axes.begin(), g.axes.end(), a) - g.axes.begin())]));
    }
    // Fused trailing axes: transformed ones are more dimensions (after the three; with
    // interleaved fields their strides are the smallest, so the order stays row-major), the
    // others loops.
    for (const BatchGeometry::Extra& x : g.extra) {
      if (!x.transformed) continue;
      dims.push_back(fftw_iodim64{x.n, unit * x.in_stride, unit * x.out_stride});
      if (g.transform == Transform::r2r) kinds_.push_back(fftw_kind(x.kind));
    }
    for (int a = 0; a < 3; ++a) {
      if (std::find(g.axes.begin(), g.axes.end(), a) != g.axes.end() || g.extent[a] == 1)
        continue;
      loops.push_back(fftw_iodim64{g.extent[a], unit * g.in_strides[a], unit * g.out_strides[a]});
    }
    if (g.fields > 1) loops.push_back(fftw_iodim64{g.fields, unit * g.field_in_stride, unit * g.field_out_stride});
    for (const BatchGeometry::Extra& x : g.extra)
      if (!x.transformed && x.n > 1) loops.push_back(fftw_iodim64{x.n, unit * x.in_stride, unit * x.out_stride});
    if (parts) loops.push_back(fftw_iodim64{2, 1, 1});
    std::sort(loops.begin(), loops.end(),
              [](const fftw_iodim64& x, const fftw_iodim64& y) { return x.is > y.is; });
    // FFTW's c2r plans destroy their input by default; everything else keeps it unless told.
    const unsigned destroy = g.destroys_input && !g.in_place ? FFTW_DESTROY_INPUT : 0u;
    const unsigned flags = effort_flags(effort) | destroy;
    // A multi-dimensional batch on one thread runs transform by transform (FFTW's plan for one
    // of them, looped over the outermost loop): FFTW's plan for the whole batch makes each of its
    // passes (rows, columns) over every transform, each pass through memory, where one transform
    // at a time stays in cache between them. Its planner does not see this because its
    // measurements run on arrays that stay in cache. Before a c2c or c2r transform its input is
    // first read through once in order (touch): their first pass walks the columns, with strides
    // the hardware prefetcher does not follow, while r2c's first pass reads rows in order anyway.
    // Measured on this project's 2-core VM, two processes at once, out of place with the cache
    // flushed between calls (benchmarks/fftw_passes.cpp; FFTW 3.3.10, measure; the whole batch
    // as one plan -> transform by transform): r2c 64 x 128^2 3.2-3.4 -> 1.8-2.0 ms (touched:
    // 2.8), 128 x 256^2 29.2-30.4 -> 24.5-25.2, 16 x 512^2 17.6-17.8 -> 15.7-16.0; c2c 64 x 128^2 6.3-6.5 -> 5.2-5.7 touched
    // (6.2-6.5 untouched), 128 x 256^2 66.2-66.6 -> 52.1-53.2 touched (58-67 untouched); c2r
    // (destroying its input) 64 x 128^2 3.0-3.1 -> 2.8-2.9 touched (3.7 untouched), 128 x 256^2
    // 28.2-32.9 -> 22.9-24.1 touched; 32 x 64^2 and 16 x 32^2 alike either way. Blocks of 2-8
    // transforms were no faster than one. In the np 2 bench (slabs: the forward's first stage
    // and the backward's last are such batches), r2c double 128^3 forward 4.2-4.3 against
    // 5.2-5.4 ms; c2c double 256^3 forward 72-78 against 87-89 ms, the backward's last stage
    // 39-40 against 46-57; docs/performance.md. r2r batches are left to FFTW (not measured).
    // A batch of 1-D c2c FFTs along a strided axis over adjacent lines: columns, by rule or by
    // measurement (VOLFFT_TEST_COLUMNS, above). By rule FFTW plans nothing else: the columns read
    // any alignment.
    const bool c2c = g.transform == Transform::c2c_forward || g.transform == Transform::c2c_backward;
    const Forced columns_rule = forced("VOLFFT_TEST_COLUMNS");
    ColumnGeometry columns;
    const bool column_shaped = c2c && !g.in_cache && columns_rule != Forced::never &&
                               column_geometry(dims, loops, columns) && FftwColumns<Api>::takes(columns);
    const int sign = g.transform == Transform::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD;
    if (column_shaped && (columns_rule == Forced::always || effort == Effort::estimate)) {
      columns_ = make_columns(columns, sign, flags, threads);
      if (columns_) return;
    }
    std::vector<fftw_iodim64> planned = loops;
    const bool blockable = g.transform != Transform::r2r && !parts;
    const std::ptrdiff_t in_element = element_bytes(g.transform, true), out_element = element_bytes(g.transform, false);
    Index span_in = 0;
    if (threads == 1 && blockable && dims.size() >= 2 &&
        outermost_loop(dims, loops, in_element, out_element, g.transform, span_in)) {
      blocks_ = loops.front().n;
      block_in_bytes_ = loops.front().is * in_element;
      block_out_bytes_ = loops.front().os * out_element;
      touch_bytes_ = touch_bytes_of(g.transform, static_cast<std::size_t>(span_in * in_element));
      planned.erase(planned.begin());
    }
    {
      PlannerThreads<Api> planner(threads);
      primary_ = make(g, dims, planned, kinds_, plan_in, plan_out, flags);
    }
    plan_split(g, dims, loops, threads, effort, plan_in, plan_out, flags, blockable);
    PlannerThreads<Api> planner(threads);
    // The fallback serves arrays whose alignment (FFTW's alignment_of: the address modulo 16)
    // differs from the scratch's, e.g. numpy views at an odd 8-byte offset; malloc'ed and
    // numpy arrays are 16-byte aligned and use the primary plan. Measuring it too doubled
    // plan time (FFTW_MEASURE dominates planning) for a rare path, so it is estimated unless
    // the effort is patient.
    const unsigned fallback_flags = effort == Effort::patient ? flags : FFTW_ESTIMATE | destroy;
    if (fallback) unaligned_ = make(g, dims, loops, kinds_, plan_in, plan_out, fallback_flags | FFTW_UNALIGNED);
    // FFTW's plan of the whole batch (as it runs: threaded, split or blocked) against the columns,
    // best of 3 runs each (alternating) after one to warm up, on the planning arrays (not where
    // the columns were taken by rule above and could not be made).
    const bool columns_timed = columns_rule == Forced::no && effort != Effort::estimate;
    std::unique_ptr<FftwColumns<Api>> made = column_shaped && columns_timed ? make_columns(columns, sign, flags, threads)
                                                                             : nullptr;
    if (made) {
      void* out = g.in_place ? plan_in : plan_out;
      const auto [fftw, by_columns] = best_seconds_alternating(
          1, 3, [&] { run_fftw(plan_in, out); }, [&] { made->execute(plan_in, out); });
      if (by_columns < fftw) {
        columns_ = std::move(made);
        release_fftw_plans();  // never run again
        return;
      }
    }
    plan_copied(g, dims, loops, effort, plan_in, plan_out, flags);
    plan_padded(g, dims, loops, effort, plan_in, plan_out, flags);
  }

  // VOLFFT_TEST_REFUSE_BUFFERS=1: every batch's own buffer (the columns', the padded planes') is
  // refused, as an allocation that fails on one rank would be, so that tests reach what then runs.
  static bool buffers_refused() { return forced("VOLFFT_TEST_REFUSE_BUFFERS") == Forced::always; }

  // The columns of `c`, or none where their buffer is refused or FFTW cannot plan their block: the
  // batch then runs another way. Not thrown: ranks plan their batches apart, and one rank's throw
  // would leave the others in the plan's next collective step. The columns' plan is
  // single-threaded: their threads run blocks of their own.
  static std::unique_ptr<FftwColumns<Api>> make_columns(const ColumnGeometry& c, int sign, unsigned flags,
                                                        int threads) {
    if (buffers_refused()) return nullptr;
    PlannerThreads<Api> one(1);
    try {
      return std::make_unique<FftwColumns<Api>>(c, sign, flags, threads);
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  // A batch of 2-D c2c transforms run one plane at a time may run each plane through a scratch
  // plane of its own whose rows lie one cache line further apart than a plane's: FFTW's rows
  // from the input plane into the scratch, its columns there in place, the rows copied into the
  // output plane (streamed where the batch's output exceeds the cache). Rows 2^k values long put
  // a column's values in one or a few sets of the L1 cache (4 KiB apart for 256 complex doubles),
  // and FFTW's strided column passes then miss where the padded ones hit. On the Zen 5 VM of
  // docs/performance.md (`volfft-fftw-passes padded N P`: FFTW 3.3.10, measure, one process):
  // the columns of a 256^2 plane in cache 0.107 ms with rows 256 apart, 0.077 with rows 260
  // apart; from memory, out of place, against FFTW's plan a plane at a time (each read through
  // first), 128 planes of 256^2 32.2 -> 25.3 ms (two processes at once: 28.1-28.4 -> 24.4-25.2),
  // 64 of 128^2 3.2 -> 2.5, 16 of 512^2 21.6-24.1 -> 18.4. Chosen by timing it against the way
  // the batch runs otherwise (FFTW's plan, or copied blocks) on the planning arrays, where it is
  // more than 3% faster (effort measure or patient; VOLFFT_TEST_PADDED_PLANES forces it either
  // way); scratch planes of at most 8 MiB (a 512^2 plane of complex doubles and its padding), one
  // per thread (buffer_bytes()).
  void plan_padded(const BatchGeometry& g, const std::vector<fftw_iodim64>& dims,
                   const std::vector<fftw_iodim64>& loops, Effort effort, void* plan_in, void* plan_out,
                   unsigned flags) {
    const Forced rule = forced("VOLFFT_TEST_PADDED_PLANES");
    const bool c2c = g.transform == Transform::c2c_forward || g.transform == Transform::c2c_backward;
    if (!c2c || rule == Forced::never || (rule == Forced::no && effort == Effort::estimate)) return;
    // Planes: two transformed dimensions, rows contiguous on both sides, one or two loops (the
    // planes, and batched fields outermost) over whole planes: every plane lies whole between two
    // steps of each loop, each step a multiple of FFTW's 16-byte alignment.
    if (dims.size() != 2 || loops.empty() || loops.size() > 2) return;
    const fftw_iodim64 &across = dims[0], &along = dims[1];  // row-major: dims[0] the rows' index
    if (along.is != 1 || along.os != 1 || across.is < along.n || across.os < along.n) return;
    const std::ptrdiff_t value_bytes = static_cast<std::ptrdiff_t>(sizeof(typename Api::complex));
    const Index span_in = (across.n - 1) * across.is + along.n, span_out = (across.n - 1) * across.os + along.n;
    Padded p;
    for (std::size_t l = 0; l < loops.size(); ++l) {
      const fftw_iodim64& d = loops[l];
      if (d.is < span_in || d.os < span_out) return;
      if ((d.is * value_bytes) % 16 != 0 || (d.os * value_bytes) % 16 != 0) return;
      const std::size_t at = l + 2 - loops.size();  // the innermost loop last
      p.loop_n[at] = d.n, p.in_step[at] = d.is * value_bytes, p.out_step[at] = d.os * value_bytes;
    }
    p.planes = p.loop_n[0] * p.loop_n[1];
    if (p.planes < 2) return;
    p.rows_n = across.n, p.row_length = along.n;
    p.ld = along.n + 64 / value_bytes;  // one cache line more (4 complex doubles, 8 floats)
    p.in_row = across.is, p.out_row = across.os;
    p.touch_bytes = touch_bytes_of(g.transform, static_cast<std::size_t>(span_in * value_bytes));
    p.threads = kernels::team_size(threads_);
    // Each thread's scratch plane starts on a cache line, as the first (FFTW's plans are made on
    // it and run on every thread's at the same alignment).
    const Index line_values = 64 / value_bytes;
    p.plane_values = (p.rows_n * p.ld + line_values - 1) / line_values * line_values;
    if (p.plane_values * value_bytes > (Index(8) << 20)) return;
    const double out_bytes = static_cast<double>(p.planes) * static_cast<double>(span_out * value_bytes);
    p.stream = out_bytes > static_cast<double>(core::last_level_cache_bytes());
    // Memory refused: the batch runs as it would have. Not an error (nothing else needs it), and
    // not thrown: ranks plan their batches apart, and one rank's throw here would leave the others
    // in the plan's next collective step.
    p.scratch = buffers_refused() ? nullptr : static_cast<Value*>(fftw_malloc(p.scratch_bytes()));
    if (!p.scratch) return;
    std::fill(p.scratch, p.scratch + p.plane_values * p.threads, Value(0));
    const int sign = g.transform == Transform::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD;
    {
      PlannerThreads<Api> planner(1);
      const fftw_iodim64 row{along.n, 1, 1}, rows{across.n, across.is, p.ld};
      const fftw_iodim64 column{across.n, p.ld, p.ld}, columns{along.n, 1, 1};
      p.rows = Api::dft(1, &row, 1, &rows, plan_in, p.scratch, sign, flags);
      if (p.rows)
        p.columns =
            Api::dft(1, &column, 1, &columns, p.scratch, p.scratch, sign, flags & ~unsigned(FFTW_DESTROY_INPUT));
    }
    if (!p.rows || !p.columns) {  // FFTW has no plan for it: the batch runs as it would have
      destroy(p);
      return;
    }
    bool keep = rule == Forced::always;
    if (!keep) {
      void* out = g.in_place ? plan_in : plan_out;
      // The other way as execute() runs it (the copied blocks or FFTW's plan; the planning
      // arrays are at the planning alignment).
      const auto [other, padded] = best_seconds_alternating(
          1, 3, [&] { execute(plan_in, out); }, [&] { run_padded(p, plan_in, out); });
      // Faster by more than 3%: within the noise of three runs the batch keeps the way that holds
      // no scratch plane.
      keep = padded < 0.97 * other;
    }
    if (keep) {
      // The batch's other ways never run again; the unaligned fallback stays.
      release_whole_batch_plans();
      destroy(copied_);
      padded_ = p;
    } else {
      destroy(p);
    }
  }

  // Planes through a padded scratch plane (plan_padded): `planes` planes of `rows_n` rows of
  // `row_length` values, rows `in_row` / `out_row` values apart on the two sides, the planes
  // `loop_n[0]` x `loop_n[1]` steps of two loops (the outer one of 1 where there is one),
  // `in_step` / `out_step` bytes a step; the scratch's rows `ld` values apart, one scratch plane
  // (`plane_values`) per thread.
  using Value = std::complex<typename Api::real>;
  struct Padded {
    typename Api::plan rows = nullptr, columns = nullptr;
    Index planes = 0, rows_n = 0, row_length = 0, ld = 0, in_row = 0, out_row = 0, plane_values = 0;
    std::array<Index, 2> loop_n{1, 1};
    std::array<std::ptrdiff_t, 2> in_step{0, 0}, out_step{0, 0};
    std::size_t touch_bytes = 0;
    bool stream = false;
    int threads = 1;
    Value* scratch = nullptr;
    std::size_t scratch_bytes() const { return sizeof(Value) * static_cast<std::size_t>(plane_values * threads); }
  };

  void run_padded(const Padded& p, const void* in, void* out) const {
    kernels::parallel_for(p.planes, p.threads, [&](Index k, int thread) {
      const Index outer = k / p.loop_n[1], inner = k % p.loop_n[1];
      const char* plane_in = static_cast<const char*>(in) + outer * p.in_step[0] + inner * p.in_step[1];
      Value* plane_out =
          reinterpret_cast<Value*>(static_cast<char*>(out) + outer * p.out_step[0] + inner * p.out_step[1]);
      Value* scratch = p.scratch + thread * p.plane_values;
      if (p.touch_bytes > 0) touch(plane_in, p.touch_bytes);
      Api::exec_dft(p.rows, plane_in, scratch);
      Api::exec_dft(p.columns, scratch, scratch);
      if (p.stream) {
        for (Index r = 0; r < p.rows_n; ++r)
          kernels::stream_row(scratch + r * p.ld, 1, plane_out + r * p.out_row, p.row_length);
        kernels::stream_fence();  // each thread its own stores, before the caller reads them
      } else {
        for (Index r = 0; r < p.rows_n; ++r)
          std::memcpy(static_cast<void*>(plane_out + r * p.out_row), scratch + r * p.ld,
                      sizeof(Value) * std::size_t(p.row_length));
      }
    });
  }

  static void destroy(Padded& p) {
    if (p.rows) Api::destroy(p.rows);
    if (p.columns) Api::destroy(p.columns);
    if (p.scratch) fftw_free(p.scratch);
    p = Padded{};
  }

  // An out-of-place c2c or r2c batch may run as blocks copied from the input into the output and
  // transformed there in place, each block in cache (an r2c's real rows copied into the padded
  // rows FFTW's in-place r2c reads: the output's complex rows). FFTW's out-of-place plans of such
  // batches ran slower than copying and then its in-place plans, on the Zen 5 VM of
  // docs/performance.md (`volfft-fftw-passes copied KIND lines|planes N M`: FFTW 3.3.10, measure,
  // one process, the cache flushed between calls; FFTW's plan / blocks of up to 128 KiB copied,
  // then in place): c2c 32768 lines of 256 points 22.0 / 13.4 ms, 16384 of 128 6.7 / 2.9, 65536
  // of 64 6.3 / 5.5; one plane at a time (touched, as run_fftw runs them) 128 of 256^2 31.5 /
  // 29.5, 128 of 128^2 6.4 / 5.1, 512 of 64^2 6.6 / 4.5; r2c 32760 lines of 256 13.2 / 9.1,
  // 128 planes of 256^2 13.5-14.8 / 13.8-13.9, 16380 lines of 128 2.0 / 2.3 (where the timing
  // keeps FFTW's plan), 128 planes of 128^2 alike (3.0 / 2.9). In the np 2 bench (c2c double 256^3)
  // the backward's first stage, lines of 256 from the input into the plan's buffer, took
  // 14.9-15.8 ms against 24.0-24.8. It needs each side in a dense layout of its own (no gaps: a
  // block is then one memcpy, an r2c's a memcpy a row) with the axes in the same order, and at
  // least two units (whole transforms); with threads, each takes a share of the blocks, timed
  // against FFTW's threads or the split over threads (plan_split). Chosen by timing both on the
  // planning arrays (effort measure or patient; VOLFFT_TEST_COPY_IN_PLACE forces it either way);
  // effort estimate keeps FFTW's plan.
  void plan_copied(const BatchGeometry& g, const std::vector<fftw_iodim64>& dims,
                   const std::vector<fftw_iodim64>& loops, Effort effort, void* plan_in, void* plan_out,
                   unsigned flags) {
    const Forced rule = forced("VOLFFT_TEST_COPY_IN_PLACE");
    const bool r2c = g.transform == Transform::r2c;
    const bool c2c = g.transform == Transform::c2c_forward || g.transform == Transform::c2c_backward;
    if (!(c2c || r2c) || g.in_place || rule == Forced::never || (rule == Forced::no && effort == Effort::estimate))
      return;
    // Every dimension and loop, finest stride first. Dense: input strides 1, n0, n0 n1, ... and
    // output strides the same with an r2c's halved row (its last dimension: stride 1 on both sides).
    struct Entry {
      fftw_iodim64 d;
      bool transformed;
      bool row;  // an r2c's halved dimension (the last of dims)
    };
    std::vector<Entry> all;
    for (std::size_t k = 0; k < dims.size(); ++k) all.push_back({dims[k], true, r2c && k + 1 == dims.size()});
    for (const fftw_iodim64& d : loops)
      if (d.n > 1) all.push_back({d, false, false});
    // Ties (a dimension of 1 beside another): the row first, where it must be.
    std::sort(all.begin(), all.end(),
              [](const Entry& x, const Entry& y) { return x.d.is < y.d.is || (x.d.is == y.d.is && x.row && !y.row); });
    const Index row = r2c ? dims.back().n : 1;  // reals in an r2c's row; its complex row: row / 2 + 1
    // The row itself, not some other entry of stride 1 on both sides and as long: interleaved
    // fields (stride 1) as many as the row's 2 reals would pass the density check below (a complex
    // row of 2 is as long as the real one), and the copy would lay the fields out as a row.
    if (r2c && (all.empty() || !all.front().row || all.front().d.is != 1 || all.front().d.os != 1)) return;
    Index in_stride = 1, out_stride = 1;
    std::size_t last_transformed = 0;
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (all[k].d.is != in_stride || all[k].d.os != out_stride) return;
      const bool halved = all[k].row;
      in_stride *= all[k].d.n;
      out_stride *= halved ? row / 2 + 1 : all[k].d.n;
      if (all[k].transformed) last_transformed = k;
    }
    // A unit: everything up to the last transformed dimension (whole transforms), `unit` values
    // on the output side (complex); the rest, `units` units one after the other.
    Index unit = 1, units = 1;
    std::vector<fftw_iodim64> inner;
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (k <= last_transformed) {
        unit *= all[k].row ? row / 2 + 1 : all[k].d.n;
        if (!all[k].transformed) inner.push_back(all[k].d);
      } else {
        units *= all[k].d.n;
      }
    }
    const std::ptrdiff_t complex_bytes = static_cast<std::ptrdiff_t>(sizeof(typename Api::complex));
    const std::ptrdiff_t real_bytes = static_cast<std::ptrdiff_t>(sizeof(typename Api::real));
    const std::ptrdiff_t unit_bytes = unit * complex_bytes;
    // Blocks of up to 128 KiB (a core's L2 holds one and its FFT's working set), whole units;
    // each block starts at the planning arrays' alignment (FFTW's SIMD: 16 bytes).
    const Index per_block = std::max<Index>(1, Index(128 << 10) / unit_bytes);
    if (units < 2 || unit_bytes % 16 != 0 || unit_bytes > (Index(2) << 20)) return;
    const Index block = std::min(per_block, units), rest = units % block;
    // The in-place plan of a block: its dimensions on the output's layout (an r2c's real side
    // in the output's padded rows: strides of two reals a complex value, the row's own 1).
    std::vector<fftw_iodim64> block_dims = dims;
    for (std::size_t k = 0; k < block_dims.size(); ++k)
      block_dims[k].is = r2c && k + 1 != block_dims.size() ? 2 * block_dims[k].os : block_dims[k].os;
    std::reverse(inner.begin(), inner.end());  // FFTW's loops: any order; coarsest first as above
    auto block_plan = [&](Index count) {
      std::vector<fftw_iodim64> block_loops{fftw_iodim64{count, r2c ? 2 * unit : unit, unit}};
      for (const fftw_iodim64& d : inner) block_loops.push_back(fftw_iodim64{d.n, r2c ? 2 * d.os : d.os, d.os});
      BatchGeometry in_place = g;
      in_place.in_place = true;
      return make(in_place, block_dims, block_loops, kinds_, plan_out, plan_out, flags);
    };
    // A block FFTW cannot plan (make throws) leaves the batch to FFTW's own plan, made already.
    Copied copied;
    try {
      PlannerThreads<Api> planner(1);
      copied.plan = block_plan(block);
      if (rest > 0) copied.rest_plan = block_plan(rest);
    } catch (const std::runtime_error&) {
      destroy(copied);
      return;
    }
    copied.blocks = units / block;
    copied.out_block_bytes = block * unit_bytes;
    if (r2c) {
      const Index rows_per_unit = unit / (row / 2 + 1);
      copied.rows = block * rows_per_unit;
      copied.rest_rows = rest * rows_per_unit;
      copied.row_bytes = copied.rest_row_bytes = copied.in_row_bytes = row * real_bytes;
      copied.out_row_bytes = (row / 2 + 1) * complex_bytes;
      copied.in_block_bytes = copied.rows * copied.in_row_bytes;
    } else {
      copied.rows = 1;
      copied.rest_rows = rest > 0 ? 1 : 0;
      copied.row_bytes = copied.in_block_bytes = copied.out_block_bytes;
      copied.rest_row_bytes = rest * unit_bytes;
    }
    bool keep = rule == Forced::always;
    if (!keep) {
      const auto [fftw, by_copy] = best_seconds_alternating(
          1, 3, [&] { run_fftw(plan_in, plan_out); }, [&] { run_copied(copied, plan_in, plan_out); });
      keep = by_copy < fftw;
    }
    if (keep) {
      // FFTW's plan of the whole batch (and its split over threads) never runs again; the
      // unaligned fallback stays for arrays at another alignment.
      release_whole_batch_plans();
      copied_ = copied;
    } else {
      destroy(copied);
    }
  }

  // The batch as blocks: each copied from the input into the output, row by row (`rows` rows of
  // `row_bytes`, `in_row_bytes` and `out_row_bytes` apart; a c2c block is one row), then
  // transformed there in place; the last block may be shorter (`rest_plan`, `rest_rows` rows of
  // `rest_row_bytes`).
  struct Copied {
    typename Api::plan plan = nullptr, rest_plan = nullptr;
    Index blocks = 0, rows = 0, rest_rows = 0;
    std::ptrdiff_t in_block_bytes = 0, out_block_bytes = 0;
    std::ptrdiff_t row_bytes = 0, rest_row_bytes = 0, in_row_bytes = 0, out_row_bytes = 0;
  };

  // With threads, each thread takes a share of the blocks (FFTW's execute is thread-safe on
  // distinct arrays, the same plan or not).
  void run_copied(const Copied& c, const void* in, void* out) const {
    const Index total = c.blocks + (c.rest_plan ? 1 : 0);
    auto one_block = [&](Index k) {
      const char* from = static_cast<const char*>(in) + k * c.in_block_bytes;
      char* to = static_cast<char*>(out) + k * c.out_block_bytes;
      const bool last = k == c.blocks;  // the shorter one
      const Index rows = last ? c.rest_rows : c.rows;
      const std::size_t bytes = static_cast<std::size_t>(last ? c.rest_row_bytes : c.row_bytes);
      for (Index r = 0; r < rows; ++r) std::memcpy(to + r * c.out_row_bytes, from + r * c.in_row_bytes, bytes);
      run(last ? c.rest_plan : c.plan, to, to);
    };
    kernels::parallel_for(total, threads_, [&](Index k, int) { one_block(k); });
  }

  static void destroy(Copied& c) {
    if (c.plan) Api::destroy(c.plan);
    if (c.rest_plan) Api::destroy(c.rest_plan);
    c = Copied{};
  }

  // FFTW's plan of the whole batch on aligned arrays and its split over threads.
  void release_whole_batch_plans() {
    if (primary_) Api::destroy(primary_);
    for (const Part& part : parts_) Api::destroy(part.plan);
    primary_ = nullptr;
    parts_.clear();
  }

  void release_fftw_plans() {
    release_whole_batch_plans();
    if (unaligned_) Api::destroy(unaligned_);
    unaligned_ = nullptr;
    destroy(copied_);
    destroy(padded_);
  }

  // FFTW's plan of the whole batch on arrays of the planning arrays' alignment: split over
  // threads, run transform by transform, or whole.
  void run_fftw(const void* in, void* out) const {
    if (!parts_.empty()) {
      run_parts(parts_, in, out);
    } else if (blocks_ > 1) {
      for (Index k = 0; k < blocks_; ++k) {
        const char* block_in = static_cast<const char*>(in) + k * block_in_bytes_;
        if (touch_bytes_ > 0) touch(block_in, touch_bytes_);
        run(primary_, block_in, static_cast<char*>(out) + k * block_out_bytes_);
      }
    } else {
      run_threaded(primary_, in, out);
    }
  }

  // A batch split over threads: one single-threaded plan per share of its longest loop, each
  // run by its own thread at its offsets (bytes) into the arrays.
  // `count` > 1: the part is `count` elements of the batch's outermost loop, its plan made for
  // one, run element by element `in_step`/`out_step` bytes apart (each read through first when
  // `touch_bytes` > 0, as at one thread).
  struct Part {
    typename Api::plan plan;
    std::ptrdiff_t in_offset, out_offset;
    Index count = 1;
    std::ptrdiff_t in_step = 0, out_step = 0;
    std::size_t touch_bytes = 0;
  };

  void run(typename Api::plan p, const void* in, void* out) const {
    switch (transform_) {
      case Transform::c2c_forward:
      case Transform::c2c_backward: Api::exec_dft(p, in, out); break;
      case Transform::r2c: Api::exec_r2c(p, in, out); break;
      case Transform::c2r: Api::exec_c2r(p, in, out); break;
      case Transform::r2r: Api::exec_r2r(p, in, out); break;
    }
  }

  // A plan made with threads_ threads, run in an OpenMP team of that size (OmpTeam says why).
  void run_threaded(typename Api::plan p, const void* in, void* out) const {
    OmpTeam team(threads_);
    run(p, in, out);
  }

  void run_parts(const std::vector<Part>& parts, const void* in, void* out) const {
    const int n = static_cast<int>(parts.size());
    // FFTW's execute is thread-safe for distinct plans; each part writes its own share.
    // (Without OpenMP no batch is split, so parts_ is empty and this is never called.)
#if defined(VOLFFT_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(n)
#endif
    for (int k = 0; k < n; ++k) {
      const Part& part = parts[static_cast<std::size_t>(k)];
      for (Index e = 0; e < part.count; ++e) {
        const char* element_in = static_cast<const char*>(in) + part.in_offset + e * part.in_step;
        if (part.touch_bytes > 0) touch(element_in, part.touch_bytes);
        run(part.plan, element_in, static_cast<char*>(out) + part.out_offset + e * part.out_step);
      }
    }
  }

  // With threads, a batch over a loop (a stack of planes or lines) may run faster as one
  // single-threaded FFTW plan per thread, each over its share of the loop, the way ranks share
  // a transform, than as one plan FFTW threads itself: on a 16-core node FFTW's threaded
  // batches of 1-D FFTs took twice the time ranks took for the same lines (docs/performance.md).
  // Which is faster depends on the machine, so a measuring effort times both on the planning
  // arrays and keeps the faster; effort estimate keeps FFTW's threads.
  void plan_split(const BatchGeometry& g, const std::vector<fftw_iodim64>& dims,
                  const std::vector<fftw_iodim64>& loops, int threads, Effort effort, void* plan_in,
                  void* plan_out, unsigned flags, bool blockable) {
#if defined(VOLFFT_HAVE_OPENMP)
    const Forced rule = forced("VOLFFT_TEST_SPLIT_BATCHES");
    if (threads < 2 || rule == Forced::never || (rule == Forced::no && effort == Effort::estimate)) return;
    const std::ptrdiff_t in_bytes = element_bytes(g.transform, true), out_bytes = element_bytes(g.transform, false);
    // A multi-dimensional batch that may run one element of its outermost loop at a time (as
    // at one thread, see the constructor) is shared out along that loop, and each thread runs
    // its share element by element, each plane staying in its core's cache through its passes.
    // Measured on this project's 2-core VM in a test program (2 threads, r2c 128^3 at one rank,
    // the planes and then axis 0, FFTW 3.3.10 measure, alternating rounds; forward / backward):
    // FFTW's threaded 3-D plan 14.6 / 15.7 ms, threaded batches 15.1 / 16.0, each thread's share
    // of the planes one by one (and axis 0 split by lines) 12.4 / 14.2; 256^3: 124 / 147, 125 /
    // 140, 118 / 113. Where the split loses, the measurement below keeps the threaded plan.
    Index span_in = 0;
    const bool by_element = blockable && dims.size() >= 2 &&
                            outermost_loop(dims, loops, in_bytes, out_bytes, g.transform, span_in) &&
                            loops.front().n >= threads;
    // Otherwise the longest loop, shared out; it needs at least one element per thread.
    std::size_t longest = by_element ? 0 : loops.size();
    for (std::size_t k = 0; !by_element && k < loops.size(); ++k)
      if (loops[k].n >= threads && (longest == loops.size() || loops[k].n > loops[longest].n)) longest = k;
    if (longest == loops.size()) return;
    const Index n = loops[longest].n;
    const std::size_t span_bytes = static_cast<std::size_t>(span_in * in_bytes);
    std::vector<Part> parts;
    {
      PlannerThreads<Api> planner(1);
      for (int k = 0; k < threads; ++k) {
        const Index lo = n * k / threads, hi = n * (k + 1) / threads;
        std::vector<fftw_iodim64> share = loops;
        share[longest].n = hi - lo;
        Part part{nullptr, lo * loops[longest].is * in_bytes, lo * loops[longest].os * out_bytes};
        if (by_element) {
          share.erase(share.begin());
          part.count = hi - lo;
          part.in_step = loops.front().is * in_bytes, part.out_step = loops.front().os * out_bytes;
          part.touch_bytes = touch_bytes_of(g.transform, span_bytes);
        }
        char* in = static_cast<char*>(plan_in) + part.in_offset;
        char* out = static_cast<char*>(g.in_place ? plan_in : plan_out) + part.out_offset;
        try {
          part.plan = make(g, dims, share, kinds_, in, out, flags);
        } catch (...) {
          for (const Part& made : parts) Api::destroy(made.plan);
          throw;
        }
        parts.push_back(part);
      }
    }
    bool keep = rule == Forced::always;
    if (!keep) {
      // Best of 3 runs each (alternating) after one to warm up, on the planning arrays (overwritten
      // by measuring anyway).
      void* out = g.in_place ? plan_in : plan_out;
      const auto [threaded, split] = best_seconds_alternating(
          1, 3, [&] { run_threaded(primary_, plan_in, out); }, [&] { run_parts(parts, plan_in, out); });
      keep = split < threaded;
    }
    if (keep) {
      parts_.swap(parts);
    } else {
      for (const Part& part : parts) Api::destroy(part.plan);
    }
#else
    (void)g, (void)dims, (void)loops, (void)threads, (void)effort, (void)plan_in, (void)plan_out, (void)flags,
        (void)blockable;
#endif
  }

  // Bytes of one element of the batch's input (`input`) or output: reals on the real side of
  // r2c and c2r, and in r2r (whose complex data is read as reals, strides doubled).
  static std::ptrdiff_t element_bytes(Transform t, bool input) {
    const bool real = t == Transform::r2r || t == (input ? Transform::r2c : Transform::c2r);
    return real ? sizeof(typename Api::real) : sizeof(typename Api::complex);
  }

  // Whether the batch may run one element of its outermost loop (loops[0]) at a time: there is
  // such a loop, every element of it starts at the same alignment as the first (byte strides a
  // multiple of 16, FFTW's SIMD alignment), and on both sides it holds everything else of the
  // batch whole between two of its elements (no interleaving: one element at a time then
  // touches a region of its own, which also keeps an in-place batch correct).
  // `span_in`: the input elements one element of that loop spans. The last of `dims` is halved
  // on the complex side of an r2c or c2r transform.
  static bool outermost_loop(const std::vector<fftw_iodim64>& dims, const std::vector<fftw_iodim64>& loops,
                             std::ptrdiff_t in_bytes, std::ptrdiff_t out_bytes, Transform transform, Index& span_in) {
    if (loops.empty() || loops.front().n < 2) return false;
    const fftw_iodim64& outer = loops.front();
    if ((outer.is * in_bytes) % 16 != 0 || (outer.os * out_bytes) % 16 != 0)
      return false;
    const bool half_in = transform == Transform::c2r, half_out = transform == Transform::r2c;
    Index span_out = 1;
    span_in = 1;
    auto add = [&](const fftw_iodim64& d, bool last) {
      span_in += ((last && half_in ? d.n / 2 + 1 : d.n) - 1) * std::abs(d.is);
      span_out += ((last && half_out ? d.n / 2 + 1 : d.n) - 1) * std::abs(d.os);
    };
    for (std::size_t k = 0; k < dims.size(); ++k) add(dims[k], k + 1 == dims.size());
    for (std::size_t k = 1; k < loops.size(); ++k) add(loops[k], false);
    return outer.is >= span_in && outer.os >= span_out;
  }

  // The bytes of one transform's input (`span_bytes`) to read through before it runs element by
  // element: c2c and c2r, whose first pass walks columns (see the constructor), and only where
  // that input fits in cache (a core's L2 here, 1 MiB; the 256^2 c2c planes gain); else 0.
  static std::size_t touch_bytes_of(Transform t, std::size_t span_bytes) {
    return t != Transform::r2c && span_bytes <= (std::size_t{2} << 20) ? span_bytes : 0;
  }

  // Reads `bytes` from `p` once, in order, one load a cache line: brings a transform's input
  // into cache at the speed of a sequential read (see the constructor).
  static void touch(const void* p, std::size_t bytes) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    unsigned sum = 0;
    for (std::size_t off = 0; off < bytes; off += 64) sum += c[off];
    volatile unsigned kept = sum;  // the loads must happen
    (void)kept;
  }

  static typename Api::plan make(const BatchGeometry& g, const std::vector<fftw_iodim64>& dims,
                                 const std::vector<fftw_iodim64>& loops, const std::vector<fftw_r2r_kind>& kinds,
                                 void* in, void* out, unsigned flags) {
    void* o = g.in_place ? in : out;
    typename Api::plan p = nullptr;
    const int r = static_cast<int>(dims.size()), h = static_cast<int>(loops.size());
    switch (g.transform) {
      case Transform::c2c_forward: p = Api::dft(r, dims.data(), h, loops.data(), in, o, FFTW_FORWARD, flags); break;
      case Transform::c2c_backward: p = Api::dft(r, dims.data(), h, loops.data(), in, o, FFTW_BACKWARD, flags); break;
      case Transform::r2c: p = Api::r2c(r, dims.data(), h, loops.data(), in, o, flags); break;
      case Transform::c2r: p = Api::c2r(r, dims.data(), h, loops.data(), in, o, flags); break;
      case Transform::r2r: p = Api::r2r(r, dims.data(), h, loops.data(), in, o, kinds.data(), flags); break;
    }
    if (!p) throw std::runtime_error("volfft: FFTW could not plan a batch of rank " + std::to_string(r));
    return p;
  }

  Transform transform_;
  int threads_;  // the threads the primary and unaligned plans were made with
  std::vector<fftw_r2r_kind> kinds_;  // r2r: FFTW's kind per dimension, in FFTW's order
  int in_alignment_, out_alignment_;
  typename Api::plan primary_ = nullptr;
  typename Api::plan unaligned_ = nullptr;
  std::vector<Part> parts_;  // the batch split over threads, when that was faster
  std::unique_ptr<FftwColumns<Api>> columns_;  // run instead of the plans above, when set
  Copied copied_;  // run instead of primary_ (aligned arrays), when its plan is set
  Padded padded_;  // run instead of primary_ and copied_ (aligned arrays), when its plans are set
  // A batch run transform by transform: primary_ is the plan for one element of the outermost
  // loop, run blocks_ times this many bytes further on each side.
  Index blocks_ = 1;
  std::ptrdiff_t block_in_bytes_ = 0, block_out_bytes_ = 0;
  std::size_t touch_bytes_ = 0;  // input bytes read through before each transform (c2c, c2r)
};

}  // namespace

std::unique_ptr<FftBatch> make_fftw_batch(Precision precision, const BatchGeometry& geometry,
                                          Effort effort, int threads, void* plan_in,
                                          void* plan_out, bool unaligned_fallback) {
  if (precision == Precision::float64)
    return std::make_unique<FftwBatch<DoubleApi>>(geometry, effort, threads, plan_in, plan_out,
                                                  unaligned_fallback);
  return std::make_unique<FftwBatch<FloatApi>>(geometry, effort, threads, plan_in, plan_out,
                                               unaligned_fallback);
}

const char* fftw_version() { return ::fftw_version; }

}  // namespace volfft::backend
