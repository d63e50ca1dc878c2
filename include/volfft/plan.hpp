// Plan: a distributed FFT of 2 or more axes over an MPI communicator.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/description.hpp"
#include "volfft/error.hpp"
#include "volfft/options.hpp"
#include "volfft/reshape.hpp"

namespace volfft {

enum class Direction { forward, backward };

class Request;

/// Time spent in one phase of the last forward() or backward() call.
struct Phase {
  std::string name;  ///< e.g. "fft2", "pack_row", "exchange_row", "unpack_row", "fft1", ...
  double seconds = 0;
};

/// A distributed FFT of a global C-order array of shape (n0, n1), (n0, n1, n2) or more axes.
///
/// Data layout. Forward input: "z-pencils": virtual rank (i, j) of the p0 x p1 grid holds the
/// C-order block input_box() with the last axis whole. Forward output: "x-pencils": the first
/// axis whole, in the memory order output_order() (Layout::natural = C order; the default
/// Layout::transposed = the order that is fastest for the last FFT stage). backward() takes
/// exactly what forward() produced and returns the input layout. 2-D plans have slabs only. A
/// plan whose kinds leave an axis untransformed ahead of transformed ones distributes that axis
/// instead (fewer exchanges; docs/conventions.md), so read the layout from input_box()
/// and output_box(); its arrays stay in C order (the output in Layout::natural).
///
/// More than 3 axes (c2c and r2r plans): the first three axes are distributed and exchanged as in
/// a 3-D plan, whose elements are the values of the trailing axes (3 .. ndim-1); those stay whole
/// on every rank, fastest in memory and in C order, and each rank transforms them on its own (in
/// its first forward and last backward FFTs where those can take them, else after the exchanges).
/// Boxes, grid and description() are the 3-D plan's (its fields: the trailing
/// values times Options::batch); input_order()/output_order() list all axes, the trailing ones
/// last. User arrays (LocalArray) give the boxes of the first three axes, with an order of 3 entries
/// (or of all axes, the trailing ones last) and no ghost layers or padding. Not r2c,
/// Options::spectral_shape, nor BatchLayout::outer with batch > 1.
///
/// Conventions: forward is unscaled (e^{-2 pi i k x / n}) unless Options::scale_forward; backward
/// (e^{+...}) is scaled by 1/N unless Options::scale_backward is false, so by default
/// backward(forward(x)) == x, as with numpy's
/// default norm. r2c: the last axis holds n/2 + 1 complex values. r2r: real arrays on both
/// sides, of the same shape; each axis is transformed by its Options::kinds entry (FFTW's r2r
/// conventions), and the backward applies the inverse kinds.
///
/// Contracts: construction and destruction are collective over `comm`. forward()/backward() are
/// collective; every rank passes arrays of input_count()/output_count() elements of the plan's
/// precision, which must not overlap (arrays that share bytes are refused on every rank); the input
/// array is not modified. In-place plans (Options::in_place) take one array as both in and out
/// instead, of in_place_bytes(). Nothing is allocated by volfft in forward()/backward() (checked
/// for every engine, kind and backend), with one exception: with Backend::ducc0, ducc0's
/// multi-dimensional transforms take their scratch (a few lines of one axis per thread) and
/// iterators from the heap on every call. FFTW's and MPI's own code may allocate inside their calls
/// (some FFTW plans take buffers per execute; non-blocking collectives, their schedules). A Plan is
/// not thread-safe.
class Plan {
 public:
  Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind = Kind::c2c,
       Precision precision = Precision::float64, const Options& options = {});
  /// A plan on the user's own distribution ("bring your own boxes"): `in` is this rank's part
  /// of the forward input (for r2c and r2r the real grid, in reals: `shape`), `out` its part of the
  /// forward output (the spectrum: `shape` with the last axis n/2 + 1 for r2c, the kept
  /// lengths when padded). Each is a LocalArray (box, memory order, storage with ghost layers
  /// or padding); the ranks' boxes on each side must cover that array exactly once (empty boxes
  /// allowed), checked collectively: a bad cover is the same volfft::Error on every rank, naming
  /// the ranks and boxes. std::nullopt keeps the plan's own arrays on that side; every rank must
  /// give a side or none. The plan runs a Reshape (an exchange among all ranks, on the plan's
  /// engine where that engine can reshape, else alltoallv) from the user's input array to its
  /// first stage and from its last stage to the user's output array (backward: the reverse), and
  /// leaves a side's out when the user's arrays are the plan's own on every rank, or differ only
  /// in what the plan can take itself (an output's memory order, a c2c input's memory order, an
  /// r2c input's rows padded at their end). A c2c plan (every axis a dft, 3-D, automatic grid
  /// and placement, not in place) may take its axes in another order to keep more of the user's
  /// elements in place (a DFT does not depend on the order of its axes); everything it reports
  /// stays in the user's axes. Its staging
  /// arrays and the reshapes' areas count in workspace_bytes(); Options::workspace does not
  /// combine with this constructor. In place: both sides go through staging, so `a` holds the
  /// user's in-box before forward(a, a) and its out-box after (in_place_bytes(): the larger).
  /// Split phase: forward_start() runs the input reshape before it returns; wait() runs the
  /// output reshape after the transform. input_box(), input_order(), input_count() (and the
  /// output's) describe the user's arrays; description() describes the plan's own stages.
  Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision, const Options& options,
       const std::optional<LocalArray>& in, const std::optional<LocalArray>& out = std::nullopt);
  ~Plan();
  /// A moved-from Plan holds nothing: it may only be destroyed or assigned to (any other call
  /// is undefined, as for most moved-from objects).
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // --- geometry (user axes: boxes have as many meaningful axes as the array; 2-D plans
  //     report boxes of the form [0,1) x box) ---
  int ndim() const;
  std::vector<std::int64_t> shape() const;
  Kind kind() const;
  Precision precision() const;
  std::array<int, 2> grid() const;
  Engine engine() const;
  Layout layout() const;
  /// The FFT backend of the plan's batches: Options::backend, with automatic resolved (the same
  /// on every rank).
  Backend backend() const;
  /// This rank's position in the virtual grid (i, j).
  std::array<int, 2> grid_position() const;
  /// Global index boxes held by this rank, in user axes (entries past ndim() are [0, 1); with
  /// more than 3 axes, the box of the first three, the others whole).
  Box input_box() const;
  Box output_box() const;
  /// Memory order of each side: user axes from slowest to fastest.
  std::vector<int> input_order() const;
  std::vector<int> output_order() const;
  /// Each side's array: box, order and storage (larger than the box for an in-place r2c plan's
  /// padded rows, or the user's ghost layers).
  LocalArray input_array() const;
  LocalArray output_array() const;
  /// Whether the plan reshapes between the user's arrays and its own on that side.
  bool reshapes_input() const;
  bool reshapes_output() const;
  /// Elements to allocate: input_count() reals (r2c) or complexes (c2c); output_count()
  /// complexes. In-place plans: one array of in_place_bytes() holds both sides.
  std::int64_t input_count() const;
  std::int64_t output_count() const;
  /// Bytes of workspace this rank uses (owned by the plan unless Options::workspace), with the
  /// staging arrays and reshape areas of a plan on user arrays.
  std::size_t workspace_bytes() const;
  /// Options::in_place: forward(a, a)/backward(a, a) on one array.
  bool in_place() const;
  /// Bytes of that one array on this rank: max(input side, output side), the input side of r2c
  /// with its rows padded to 2(n/2 + 1) reals (input_count() counts them). Meaningful for any
  /// plan; only in-place plans need it.
  std::size_t in_place_bytes() const;
  /// Planes per chunk of the pipelined engine as given (-1 automatic).
  int planes() const;
  /// Ranks (in comm()) of the members of this rank's grid row (ranks sharing i, in order of j)
  /// and grid column (sharing j, in order of i), read from the communicators the plan built.
  std::vector<int> row_members() const;
  std::vector<int> column_members() const;
  /// What the autotuner did: the candidate table, or where the choice came from ("" when the
  /// plan was not tuned).
  const std::string& tuning_report() const;
  /// The rank order in use: rank_order()[g] = rank of comm() at virtual grid position g.
  std::vector<int> rank_order() const;
  /// The full description (every rank's boxes and every message).
  const PlanDescription& description() const;
  MPI_Comm comm() const;

  // --- transforms ---
  // c2c: complex both ways; r2c: real input, complex spectrum; r2r: real both ways. An array of
  // the wrong kind or precision is an error on every rank.
  void forward(const std::complex<double>* in, std::complex<double>* out);
  void forward(const double* in, std::complex<double>* out);
  void forward(const double* in, double* out);
  void forward(const std::complex<float>* in, std::complex<float>* out);
  void forward(const float* in, std::complex<float>* out);
  void forward(const float* in, float* out);
  void backward(const std::complex<double>* in, std::complex<double>* out);
  void backward(const std::complex<double>* in, double* out);
  void backward(const double* in, double* out);
  void backward(const std::complex<float>* in, std::complex<float>* out);
  void backward(const std::complex<float>* in, float* out);
  void backward(const float* in, float* out);
  /// Untyped entry points (C API, Python): `in`/`out` must match kind() and precision().
  void forward_raw(const void* in, void* out);
  void backward_raw(const void* in, void* out);

  /// Collective: throws volfft::Error on every rank when any rank passes a non-empty `problem`
  /// (the lowest such rank's text), otherwise returns. forward()/backward() run this agreement on
  /// their own argument checks; bindings that check arrays themselves (Python) call it with
  /// their message instead of raising alone, so the other ranks are not left waiting.
  void agree_on_problem(const std::string& problem);

  /// Split-phase forms of forward_raw/backward_raw (see Request).
  Request forward_start(const void* in, void* out);
  Request backward_start(const void* in, void* out);

  // --- measuring ---
  /// Phases of this rank's last call in `direction`, in pipeline order.
  std::vector<Phase> timings(Direction direction) const;
  /// Same, each phase the maximum over ranks. Collective.
  std::vector<Phase> timings_max(Direction direction) const;

  /// Workspace bytes the plan for these arguments needs on rank `rank` of `comm_size` when it is
  /// given that workspace (Options::workspace; engine auto then means alltoallv, since the
  /// node engine cannot put a caller's memory in shared memory). Pure (no MPI). With engine node
  /// it counts the send area, which a plan whose ranks all share one node does not use (which
  /// ranks share a node takes MPI to know): up to twice workspace_bytes() then, never less.
  /// Read on the machine the plan will run on: a one-rank out-of-place r2c plan needs far less
  /// where its spectrum is more than a third of that machine's last-level cache (its backward
  /// then runs folded in the caller's two arrays; docs/conventions.md), so a size computed
  /// elsewhere may be too small, which the plan refuses on every rank by name.
  /// Throws volfft::Error for comm_size < 1 or a rank outside [0, comm_size), as for arguments
  /// Plan would refuse.
  static std::size_t required_workspace_bytes(int comm_size, int rank,
                                              const std::vector<std::int64_t>& shape, Kind kind,
                                              Precision precision, const Options& options = {});

  class Impl;

 private:
  friend class Request;
  std::shared_ptr<Impl> impl_;  // shared with nothing but the Requests' weak references
};

/// A transform begun with Plan::forward_start() or Plan::backward_start(). The first exchange is
/// under way when start returns (for engines with a non-blocking form: alltoallv, persistent, p2p;
/// the others complete in start); compute something else, call test() now and then to let MPI
/// progress, and wait() to finish. Until wait() returns, the arrays belong to volfft and the plan
/// takes no other call. Destroying (or assigning over) a pending request waits for it
/// (collective, as wait()), except while its rank unwinds from an exception: then nothing waits
/// (the other ranks may never come), the transform is abandoned and its plan refuses every later
/// call on every rank (make a new one) and frees nothing MPI may still use. Destroying (or
/// closing) the plan completes its pending transform (not while unwinding: abandoned then too);
/// a request outlives its plan safely: wait() then
/// throws volfft::Error, test() returns true and destruction does nothing.
class Request {
 public:
  Request() = default;
  ~Request();
  Request(Request&& other) noexcept;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  /// Lets MPI progress on the first exchange; true once it has completed. Local: any rank may
  /// call it any number of times, or never. wait() may still communicate after a true (a pencil
  /// plan's second exchange, the output reshape of a plan on user arrays), so every rank calls
  /// wait() whatever test() said.
  bool test();
  /// Completes the transform (collective, like forward/backward). A second call does nothing.
  void wait();
  /// Whether wait() is still to be called (also true when the plan is gone; wait() says so).
  bool pending() const { return pending_; }

 private:
  friend class Plan;
  explicit Request(const std::shared_ptr<Plan::Impl>& plan) : plan_(plan), pending_(true) {}
  std::weak_ptr<Plan::Impl> plan_;
  bool pending_ = false;
};


/// "volfft 0.1.0 (FFTW 3.3.10, Open MPI v4.1.4)".
std::string version_string();

}  // namespace volfft
