#include "plan/program.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/engines.hpp"
#include "core/user_axes.hpp"
#include "kernels/copy_box.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"

namespace volfft::plan {

using core::Index;

namespace {

std::vector<int> all_axes(const std::vector<core::FftOp>& ops) {
  std::vector<int> axes;
  for (const auto& op : ops) axes.insert(axes.end(), op.axes.begin(), op.axes.end());
  return axes;
}

// A phase's name speaks the user's axes: "fft10" for both axes of a 2-D array, not "fft210".
std::string axes_text(const std::vector<core::FftOp>& ops, bool reverse, int ndim) {
  std::vector<int> axes = core::user_axes(all_axes(ops), ndim);
  if (reverse) std::reverse(axes.begin(), axes.end());
  std::string s = "fft";
  for (int a : axes) s += std::to_string(a);
  return s;
}

// Stage of the program's position q, and the exchange that follows it.
std::size_t stage_at(const core::Blueprint& bp, bool forward, std::size_t q) {
  return forward ? q : bp.stages.size() - 1 - q;
}
const core::ExchangeGeometry& exchange_at(const core::Blueprint& bp, bool forward, std::size_t q) {
  return bp.exchanges[forward ? q : bp.exchanges.size() - 1 - q];
}

}  // namespace

std::vector<exchange::Setup> exchange_setups(const core::Blueprint& bp, const Options& options, bool forward,
                                             MPI_Comm row, MPI_Comm column) {
  const std::size_t E = bp.exchanges.size();
  std::vector<exchange::Setup> setups;
  for (std::size_t q = 0; q < E; ++q) {
    const std::size_t stage = stage_at(bp, forward, q), next = stage_at(bp, forward, q + 1);
    const auto& g = exchange_at(bp, forward, q);
    exchange::Setup s;
    s.transfer = exchange::transfer_of(g, !forward);
    s.transfer.from_fields = core::field_layout(bp, s.transfer.from_box, core::array_of(bp, forward, stage).user_output);
    s.transfer.to_fields = core::field_layout(bp, s.transfer.to_box, core::array_of(bp, forward, next).user_output);
    s.group = g.name == "row" ? row : column;
    s.precision = bp.precision;
    s.real_values = bp.real_values();
    s.source_axes = all_axes(bp.stages[stage].ops);
    s.destination_axes = all_axes(bp.stages[next].ops);
    s.destination_is_last = q + 1 == E;
    s.source_is_first = q == 0;
    s.options = options;
    setups.push_back(std::move(s));
  }
  return setups;
}

struct Program::Position {
  std::size_t stage = 0;
  std::vector<StageOps> ops;          // per chunk of the exchange after it
  std::vector<StageOps> arrival_ops;  // the next stage's, per chunk, run by the exchange
  bool ops_done_by_previous = false;            // transformed per chunk on arrival
  std::unique_ptr<exchange::Exchange> exchange;  // to the next position
  std::size_t fft_phase = 0, pack_phase = 0, exchange_phase = 0, unpack_phase = 0, hidden_phase = SIZE_MAX;
};

// The compute an exchange runs: this position's FFTs per chunk, and the next one's on arrival.
class Program::Work final : public exchange::StageWork {
 public:
  void bind(const Position* p, const void* in, void* out, void* source_array, void* destination_array) {
    position_ = p, in_ = in, out_ = out, source_ = source_array, destination_ = destination_array;
  }
  void source(int chunk) override {
    position_->ops[static_cast<std::size_t>(chunk)].run(in_, source_, out_);
  }
  void destination(int chunk) override {
    position_->arrival_ops[static_cast<std::size_t>(chunk)].run(nullptr, destination_, out_);
  }

 private:
  const Position* position_ = nullptr;
  const void* in_ = nullptr;
  void* out_ = nullptr;
  void* source_ = nullptr;
  void* destination_ = nullptr;
};

// A stage without an exchange, made whole. Where it may run as one 3-D plan or split (axis 0, then
// the planes; plane_split_timing), the two are timed on the planning arrays, alternating, best of
// 3 after one to warm up, as a batch chooses its columns; rank 0's choices are everyone's. The
// rule's way (runs_by_planes) is kept unless the other is faster by more than kRuleMargin: the
// timing's own spread. c2c float 128^3 on the Zen 3 VM (2026-12-08), the 3-D plan against the
// split of the same planning, best of 3: 20.9 / 20.6, 17.2 / 14.5, 19.1 / 15.5, 15.7 / 16.1 ms; in
// the job of the last one the 3-D plan then ran 1.32x FFTW-MPI's fastest mode, the split's jobs
// 0.92-1.09x.
// * Arrays within a quarter of the cache (SplitTiming::probe): the measured 3-D plan against the
//   split planned at effort estimate (planned in microseconds; 1.13-1.28x a well-drawn 3-D plan in
//   six plannings of c2c float 128^3 on the Intel VM, with the columns' earlier layout). A 3-D plan
//   slower than that is a bad draw of FFTW's measurement (docs/performance.md: 1.4x the same job's
//   other plans in one of 26 plannings on 2026-11-29); only then is the split measured too, and the
//   faster split kept. Measuring the split every time took 1.2-2.0 s more at c2c float 128^3 (plan
//   1.8 -> 3.0-3.9 s), this 0.2 s or less (a timing of eight runs).
// * Larger arrays (SplitTiming::measured_both): the split by the rule, measured, against the
//   measured 3-D plan. The estimated split is no probe there: at c2c double 256^3 it ran 609-616
//   ms a direction against 118-119 for the 3-D plan (Zen 5 VM, 2026-12-07), and timing it cost
//   seconds.
constexpr double kRuleMargin = 0.05;

StageOps Program::whole_stage_ops(MPI_Comm all, const core::Blueprint& bp, const Options& options, std::size_t s,
                                  void* plan_in, void* plan_out, bool user_array) const {
  const core::Stage& st = bp.stages[s];
  // Each planning agreed where every rank plans this stage: a plan without exchanges, the only kind
  // whose stage is timed (collective). After an exchange a rank whose stage that exchange
  // transforms on arrival plans none here, so the caller agrees where every rank is.
  auto make = [&](PlaneSplit split, Effort effort) {
    Options o = options;
    o.effort = effort;
    auto plan = [&] { return make_stage_ops(bp, o, s, !forward_, st.box_in, plan_in, plan_out, user_array, nullptr, split); };
    if (!bp.exchanges.empty()) return plan();
    StageOps ops;
    mpi::run_agreed(all, [&] { ops = plan(); });
    return ops;
  };
  // The stage's array: the output, or a buffer of its own (Plan::Impl::allocate lends none of the
  // timed stages' buffers for planning, so that the timing runs three arrays like the transform).
  void* here = array(s, plan_out);
  const SplitTiming timing = plane_split_timing(bp, options, s, !forward_);
  if (timing == SplitTiming::by_rule || here == plan_in || (here == plan_out && !user_array))
    return make(PlaneSplit::by_rule, options.effort);
  StageOps whole = make(PlaneSplit::whole, options.effort);
  StageOps split_ops = make(PlaneSplit::planes, timing == SplitTiming::probe ? Effort::estimate : options.effort);
  // FFTW_MEASURE leaves whatever it computed in the planning arrays; zeros time the same as data
  // and cannot hold denormals. Both arrays hold at least either side (scratch_bytes in plan.cpp).
  const std::size_t bytes = static_cast<std::size_t>(
      std::max(bp.input_count() * bp.input_element_bytes(), bp.output_count() * bp.element_bytes));
  std::memset(plan_in, 0, bytes);
  std::memset(plan_out, 0, bytes);
  // Each timed run starts with its input just written, as in use (the forward's output is the
  // backward's input; a code writes its fields before the forward): in the cache in part, and
  // dirty there. Runs back to back on an input left as the last run read it time another working
  // set. r2c double 128^3 one rank, the backward whole against split (Zen 5 VM, 2026-12-07): 6.2-6.3
  // against 6.5-6.6 ms without this, 6.7-7.7 against 6.3-7.1 with it (the split ahead in all nine
  // plannings); in the bench, forward and backward alternating, 6.6-7.6 against 6.2-6.8. At 256^3
  // both ways of timing chose whole (with this 62-68 against 68-73; the bench 61-65 against 68-75).
  const std::size_t input_bytes = static_cast<std::size_t>(
      forward_ ? bp.input_count() * bp.input_element_bytes() : bp.output_count() * bp.element_bytes);
  void* input = bp.in_place ? here : plan_in;  // in place the ops read the array itself
  auto write_input = [&] { std::memset(input, 0, input_bytes); };
  auto runner = [&](const StageOps& ops) { return [&] { ops.run(plan_in, here, plan_out); }; };
  // Whether `second` runs faster than `first` by more than `margin` of first's time.
  auto faster = [&](const StageOps& first, const StageOps& second, double margin) {
    const auto [a, b] = backend::best_seconds_alternating(1, 3, runner(first), runner(second), write_input);
    int second_wins = b < a * (1 - margin) ? 1 : 0;
    mpi::check(MPI_Bcast(&second_wins, 1, MPI_INT, 0, all), "MPI_Bcast");
    return second_wins == 1;
  };
  // VOLFFT_TEST_TIMED_SPLIT = 1 (0) takes the split (the 3-D plan) whatever the timing says, so that
  // the tests run the path a bad draw takes (tests/CMakeLists.txt).
  const bool rule_splits = runs_by_planes(bp, options, st);
  bool split = rule_splits ? !faster(split_ops, whole, kRuleMargin) : faster(whole, split_ops, kRuleMargin);
  if (const char* env = std::getenv("VOLFFT_TEST_TIMED_SPLIT"); env && *env) split = std::strcmp(env, "0") != 0;
  if (!split) return whole;
  if (timing == SplitTiming::measured_both) return split_ops;
  StageOps measured = make(PlaneSplit::planes, options.effort);
  return faster(split_ops, measured, 0) ? std::move(measured) : std::move(split_ops);
}

std::size_t Program::add_phase(const std::string& name) {
  phases_.push_back({name, 0});
  return phases_.size() - 1;
}

void* Program::array(std::size_t stage, void* out) const {
  const core::ArrayPlace place = core::array_of(bp_, forward_, stage);
  return place.user_output ? out : buffers_[static_cast<std::size_t>(place.buffer)];
}

Program::Program(MPI_Comm all, const core::Blueprint& bp, const Options& options, bool forward,
                 const Buffers& buffers, std::vector<exchange::Setup> setups, double scale, void* plan_in, void* plan_out)
    : bp_(bp), forward_(forward), buffers_(buffers), scale_(scale), threads_(options.threads),
      work_(std::make_unique<Work>()) {
  const std::size_t S = bp.stages.size(), E = S - 1;
  const bool receive_area = core::engine_info(bp.engine).receive_area;
  bool fed_per_chunk = false;  // the previous exchange transforms this stage per chunk
  std::string last_stage_problem;  // this rank's failure to plan the last stage after an exchange
  for (std::size_t q = 0; q < S; ++q) {
    Position pos;
    pos.stage = stage_at(bp, forward, q);
    const core::Stage& st = bp.stages[pos.stage];
    // A stage array that is the user's output needs FFTW plans for unaligned arrays too.
    const bool user_array = core::array_of(bp, forward, pos.stage).user_output;
    pos.fft_phase = add_phase(axes_text(st.ops, !forward, bp.ndim));
    pos.ops_done_by_previous = fed_per_chunk;
    fed_per_chunk = false;
    if (q < E) {
      exchange::Setup& s = setups[q];
      s.src = array(pos.stage, nullptr);
      s.send = bp.send_area() ? buffers[static_cast<std::size_t>(core::send_buffer(bp))] : nullptr;
      s.receive = receive_area ? buffers[core::receive_buffer] : nullptr;
      const std::size_t next = stage_at(bp, forward, q + 1);
      const bool next_user = core::array_of(bp, forward, next).user_output;
      s.destination = next_user ? nullptr : array(next, nullptr);
      const std::string suffix = "_" + core::user_exchange_name(bp.ndim, exchange_at(bp, forward, q).name);
      // Made on every rank or on none: a rank whose exchange failed (a full /dev/shm, an MPI
      // error) would leave the others waiting in the next exchange's collective set-up.
      mpi::run_agreed(all, [&] { pos.exchange = exchange::make_exchange(bp.engine, s); });
      const exchange::Chunking c = pos.exchange->chunking();
      const int source_chunks = c.source_whole ? 1 : c.chunks;
      const Box first = exchange::chunk_of(st.box_in, c.axis, 0, c.planes);
      mpi::run_agreed(all, [&] {
        for (int k = 0; k < source_chunks; ++k)
          pos.ops.push_back(make_stage_ops(bp, options, pos.stage, !forward,
                                           exchange::chunk_of(st.box_in, c.axis, k, c.source_whole ? 0 : c.planes),
                                           plan_in, plan_out, user_array, c.source_in_first ? &first : nullptr));
        if (c.destination_per_chunk)
          for (int k = 0; k < c.chunks; ++k)
            pos.arrival_ops.push_back(make_stage_ops(bp, options, next, !forward,
                                                     exchange::chunk_of(bp.stages[next].box_in, c.axis, k, c.planes),
                                                     plan_in, plan_out, next_user));
      });
      fed_per_chunk = c.destination_per_chunk;
      const bool overlap = pos.exchange->overlaps();
      pos.pack_phase = add_phase("pack" + suffix);
      pos.exchange_phase = add_phase((overlap ? "wait" : "exchange") + suffix);
      pos.unpack_phase = add_phase("unpack" + suffix);
      if (overlap) pos.hidden_phase = add_phase("hidden" + suffix);
    } else if (E == 0) {
      pos.ops.push_back(whole_stage_ops(all, bp, options, pos.stage, plan_in, plan_out, user_array));
    } else if (!pos.ops_done_by_previous) {
      // Not every rank plans here (whole_stage_ops): agreed below, where every rank is.
      try {
        pos.ops.push_back(whole_stage_ops(all, bp, options, pos.stage, plan_in, plan_out, user_array));
      } catch (const std::exception& e) {
        last_stage_problem = e.what();
      }
    }
    positions_.push_back(std::move(pos));
  }
  mpi::agree_or_throw(all, last_stage_problem);
  // The output's scale rides on the first exchange's copies when it has any. Without exchanges on
  // a batch of FFTs that scales as it writes (the columns of a one-rank split c2c): one pass over
  // the output less. At c2c float 128^3 on the Zen 3 VM that pass took 2.0-2.3 ms of an 18-21 ms
  // backward; carried, the scaled backward ran as fast as the forward. Each step reads the one
  // before it, so any one step carries the whole chain's scale. Else a batch's fields are scaled
  // one by one as each is finished, while it is in cache (fields outer: each field's output is one
  // block); else one pass at the end.
  scale_in_exchange_ = scale != 1.0 && E > 0 && positions_[0].exchange->scales();
  bool scale_in_batch = false;
  if (scale != 1.0 && E == 0)
    for (OpRun& op : positions_[0].ops[0].ops)
      if (op.batch && op.batch->scale_output(scale)) {
        scale_in_batch = true;
        break;
      }
  const bool scale_per_field = scale != 1.0 && E == 0 && !scale_in_batch && bp.fields > 1 && !bp.fields_inner;
  if (scale_per_field) {
    const Index values = output_reals() / bp.fields;  // reals of one field
    OpRun pass;
    pass.to_output = true;
    const int threads = threads_;
    if (bp.precision == Precision::float64)
      pass.action = [values, scale, threads](const void*, void*, void* output) {
        kernels::scale_array(static_cast<double*>(output), values, scale, threads);
      };
    else
      pass.action = [values, scale, threads](const void*, void*, void* output) {
        kernels::scale_array(static_cast<float*>(output), values, static_cast<float>(scale), threads);
      };
    positions_[0].ops[0].ops.push_back(std::move(pass));
  }
  if (scale != 1.0 && !scale_in_exchange_ && !scale_in_batch && !scale_per_field) scale_phase_ = add_phase("scale");
}

Program::~Program() = default;

void Program::record(std::size_t q, const exchange::ExchangeTimes& t) {
  const Position& pos = positions_[q];
  phases_[pos.fft_phase].seconds = t.compute_source;
  phases_[pos.pack_phase].seconds = t.pack;
  phases_[pos.exchange_phase].seconds = t.exchange;
  phases_[pos.unpack_phase].seconds = t.unpack;
  if (pos.hidden_phase != SIZE_MAX) phases_[pos.hidden_phase].seconds = std::max(0.0, t.in_flight - t.exchange);
  if (!pos.arrival_ops.empty()) phases_[positions_[q + 1].fft_phase].seconds = t.compute_destination;
}

void Program::run(const void* in, void* out) {
  in_ = in, out_ = out;
  for (Phase& ph : phases_) ph.seconds = 0;
  continue_from(0);
}

void Program::start(const void* in, void* out) {
  in_ = in, out_ = out;
  for (Phase& ph : phases_) ph.seconds = 0;
  pending_times_ = exchange::ExchangeTimes{};
  if (positions_.size() == 1) {  // no exchange: all of it now
    continue_from(0);
    return;
  }
  Position& first = positions_[0];
  work_->bind(&first, in_, out_, array(first.stage, out_), array(positions_[1].stage, out_));
  first.exchange->start(array(positions_[1].stage, out_), scale_in_exchange_ ? scale_ : 1.0, *work_, pending_times_);
}

bool Program::test() { return positions_.size() == 1 || positions_[0].exchange->test(); }

void Program::finish() {
  if (positions_.size() == 1) return;
  positions_[0].exchange->finish(pending_times_);
  record(0, pending_times_);
  continue_from(1);
}

void Program::continue_from(std::size_t from) {
  const std::size_t S = positions_.size();
  for (std::size_t q = from; q < S; ++q) {
    Position& pos = positions_[q];
    void* here = array(pos.stage, out_);
    if (pos.exchange) {
      void* next = array(positions_[q + 1].stage, out_);
      work_->bind(&pos, in_, out_, here, next);
      exchange::ExchangeTimes t;
      pos.exchange->run(next, (q == 0 && scale_in_exchange_) ? scale_ : 1.0, *work_, t);
      record(q, t);
    } else if (!pos.ops_done_by_previous) {
      const double t0 = mpi::now();
      pos.ops[0].run(in_, here, out_);
      phases_[pos.fft_phase].seconds = mpi::now() - t0;
    }
  }
  if (scale_phase_ != SIZE_MAX) {
    const double t0 = mpi::now();
    scale_output(out_);
    phases_[scale_phase_].seconds = mpi::now() - t0;
  }
}

Index Program::output_reals() const {
  // Forward: output_count() complexes (reals in an r2r plan); backward: input_count() reals (r2c,
  // r2r) or complexes (c2c).
  if (forward_) return bp_.output_count() * (bp_.kind == Kind::r2r ? 1 : 2);
  return bp_.input_count() * (bp_.kind == Kind::c2c ? 2 : 1);
}

bool Program::fuses_trailing() const {
  for (const Position& pos : positions_)
    for (const auto* list : {&pos.ops, &pos.arrival_ops})
      for (const StageOps& ops : *list)
        if (ops.fuses_trailing()) return true;
  return false;
}

void Program::scale_output(void* out) const {
  const Index reals = output_reals();
  if (bp_.precision == Precision::float64)
    kernels::scale_array(static_cast<double*>(out), reals, scale_, threads_);
  else
    kernels::scale_array(static_cast<float*>(out), reals, static_cast<float>(scale_), threads_);
}

}  // namespace volfft::plan
