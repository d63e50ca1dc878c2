// One direction's program: the blueprint's stages in execution order, the FFTs of each stage
// (planned per chunk of the exchange after it), the exchanges, and where each phase's time
// goes. Built once per plan and direction; running it allocates nothing.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/blueprint.hpp"
#include "exchange/exchange.hpp"
#include "plan/stage_ops.hpp"
#include "volfft/plan.hpp"

namespace volfft::plan {

/// The plan's internal buffers (core::array_of numbers them).
using Buffers = std::array<void*, 4>;

/// The exchange setups of one direction in execution order (bp.exchanges reversed backward),
/// without buffers: what applicability is checked on before anything is allocated.
std::vector<exchange::Setup> exchange_setups(const core::Blueprint& bp, const Options& options, bool forward,
                                             MPI_Comm row, MPI_Comm column);

class Program {
 public:
  /// Plans every stage's FFTs (on the scratch arrays plan_in/plan_out, which it overwrites; a
  /// one-rank c2c stage that may run as one 3-D plan or split is timed both ways on them,
  /// plane_split_timing) and makes the exchanges (collective over `all`, the plan's
  /// communicator: an exchange that fails on some rank throws volfft::Error on every rank).
  /// `setups` from exchange_setups(); `scale`: the factor of the direction's output (backward:
  /// 1/N or 1).
  Program(MPI_Comm all, const core::Blueprint& bp, const Options& options, bool forward, const Buffers& buffers,
          std::vector<exchange::Setup> setups, double scale, void* plan_in, void* plan_out);
  ~Program();

  /// The whole transform. Collective.
  void run(const void* in, void* out);
  /// Split phase: start() returns with the first exchange under way (engines with a
  /// non-blocking form), finish() runs the rest.
  void start(const void* in, void* out);
  void finish();
  bool test();

  const std::vector<Phase>& phases() const { return phases_; }
  /// Whether its FFT batches transform an N-D plan's trailing axes too (stage_ops.hpp), so that
  /// the plan need not.
  bool fuses_trailing() const;

 private:
  struct Position;
  class Work;
  void* array(std::size_t stage, void* out) const;
  void continue_from(std::size_t position);
  void record(std::size_t position, const exchange::ExchangeTimes& t);
  void scale_output(void* out) const;
  /// Reals in the direction's output (what scale_output multiplies).
  core::Index output_reals() const;
  std::size_t add_phase(const std::string& name);
  StageOps whole_stage_ops(MPI_Comm all, const core::Blueprint& bp, const Options& options, std::size_t s,
                           void* plan_in, void* plan_out, bool user_array) const;

  const core::Blueprint& bp_;
  bool forward_;
  Buffers buffers_;
  double scale_;
  int threads_;  // Options::threads: the scale pass's too
  bool scale_in_exchange_ = false;
  std::vector<Position> positions_;
  std::vector<Phase> phases_;
  std::size_t scale_phase_ = SIZE_MAX;
  std::unique_ptr<Work> work_;
  const void* in_ = nullptr;  // the call's arrays
  void* out_ = nullptr;
  exchange::ExchangeTimes pending_times_;
};

}  // namespace volfft::plan
