// Reshape: the global redistribution of a distributed array from one cover of boxes to another,
// with no transform: bricks to pencils, FFTW's slabs to volfft's pencils, a global transpose.
// The same exchange engines as a Plan's move its messages (one block per pair of ranks whose
// boxes meet), and a Plan
// given the user's boxes runs one before and after its transform.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/options.hpp"

namespace volfft {

/// The values a Reshape moves: complex or real numbers of its Precision.
enum class Values { complex, real };

class Reshape {
 public:
  /// Collective over `comm`. `shape`: 2 or 3 positive sizes; `in`, `out`: this rank's part of the
  /// array before and after. Every rank must pass the same shape, precision, values and options
  /// (but `threads`, this rank's own copies, which may differ), and the boxes of all ranks must
  /// each cover the array exactly once; otherwise every rank throws the same volfft::Error, naming
  /// the argument (and for a bad cover, the ranks and their boxes). Options read: `engine`
  /// (automatic, alltoallv, alltoall, alltoallw, p2p, persistent; node and pipelined read the
  /// source in ways a reshape cannot offer and are refused), `tune` (> 0 with engine automatic: the
  /// engines are timed, as a Plan's, and the fastest kept), `batch` and `batch_layout` (fields per
  /// array), `threads` (pack/unpack copies). engine automatic with tune 0 is alltoallv. The
  /// workspace (workspace_bytes()) is allocated here.
  Reshape(MPI_Comm comm, const std::vector<std::int64_t>& shape, const LocalArray& in, const LocalArray& out,
          Precision precision = Precision::float64, Values values = Values::complex,
          const Options& options = {});
  ~Reshape();
  /// A moved-from Reshape holds nothing: it may only be destroyed or assigned to (any other call
  /// is undefined, as for most moved-from objects).
  Reshape(Reshape&&) noexcept;
  Reshape& operator=(Reshape&&) noexcept;
  Reshape(const Reshape&) = delete;
  Reshape& operator=(const Reshape&) = delete;

  /// Collective: `out`'s box receives the array's values from the ranks' `in` boxes. `in` holds
  /// input_count() elements and is not changed; `out` holds output_count(); they must not
  /// overlap (a rank with nothing to hold may pass nullptr). Allocates nothing. Ranks that pass
  /// bad pointers, or are in a different call, fail together with volfft::Error.
  void execute(const void* in, void* out);
  /// The inverse redistribution, collective: `in`'s box receives the values of the ranks' `out`
  /// boxes (back from pencils to bricks, say). The same contract as execute() with the roles
  /// of the arrays swapped: `out` (output_count() elements) is read, `in` written.
  void reverse(const void* out, void* in);
  /// Split phase: start() may return with messages under way (engines alltoallv, persistent,
  /// p2p; the others finish inside start()); finish() (collective) completes them, and does
  /// nothing when no start is pending. `in` and `out` must stay untouched in between; one call
  /// at a time: execute(), reverse() or start() while a start is pending is the same
  /// volfft::Error on every rank. Destroying a Reshape with a start pending finishes it.
  /// `reversed`: the start of reverse(in = out array, out = in array).
  void start(const void* in, void* out, bool reversed = false);
  /// Collective: throws volfft::Error on every rank when any rank passes a non-empty `problem`,
  /// as Plan::agree_on_problem. execute()/reverse()/start() run this agreement on their own
  /// checks; a binding that checks arrays itself calls it with its message instead of raising
  /// alone, so the other ranks, inside execute(), fail with it instead of waiting.
  void agree_on_problem(const std::string& problem);
  /// Whether finish() would return without waiting (lets MPI progress). Local: any rank, any
  /// number of times.
  bool test();
  void finish();

  int ndim() const;
  std::vector<std::int64_t> shape() const;
  const LocalArray& input() const;   ///< as given, with order and storage filled in
  const LocalArray& output() const;
  Engine engine() const;
  /// Elements of the input and output arrays (storage sizes times batch).
  std::int64_t input_count() const;
  std::int64_t output_count() const;
  /// Bytes of the workspace this rank holds: a send and a receive area, each as large as the
  /// larger of sent_count() and received_count() (both directions use them); with alltoall,
  /// each P padded blocks of the largest block between two different ranks (all fields); 0 with
  /// alltoallw.
  std::size_t workspace_bytes() const;
  /// Elements this rank sends to and receives from other ranks per execute() (all fields);
  /// reverse() swaps them.
  std::int64_t sent_count() const;
  std::int64_t received_count() const;
  /// Every rank's box before and after (index = rank of comm()): what a description of the
  /// messages needs (the block from rank r to rank m is input_boxes()[r] ∩ output_boxes()[m]).
  const std::vector<Box>& input_boxes() const;
  const std::vector<Box>& output_boxes() const;
  /// Rank 0's table of the engines timed (tune > 0), else empty.
  const std::string& tuning_report() const;
  MPI_Comm comm() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace volfft
