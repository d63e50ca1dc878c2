// Plan options: what to transform and how.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace volfft {

/// Complex-to-complex; real-to-complex forward with complex-to-real backward (the last axis
/// n_last becomes n_last/2 + 1 complex values, the Hermitian half, as in FFTW/numpy); or
/// real-to-real: real arrays on both sides, every axis a real-to-real kind or none
/// (Options::kinds, required), the data real throughout, so exchanges move half the bytes of
/// the same kinds on complex data (FFTW's r2r plans).
enum class Kind { c2c, r2c, r2r };

enum class Precision { float64, float32 };

/// What a plan does along one axis (Options::kinds). dft: the complex DFT (e^{-2 pi i k x/n}
/// forward); r2c: the real-to-complex axis of a Kind::r2c plan (its last axis, n/2 + 1 complex
/// values out); dct1..dct4 and dst1..dst4: FFTW's real-to-real REDFT00/10/01/11 and
/// RODFT00/10/01/11, unnormalised forward, the backward the inverse kind (dct2 <-> dct3, the
/// others their own), applied to real data (Kind::r2r) or to the real and imaginary parts of
/// complex data (Kind::c2c, r2c); none: the axis is not transformed.
enum class AxisKind { dft, r2c, dct1, dct2, dct3, dct4, dst1, dst2, dst3, dst4, none };

/// The exchange strategy (a swappable communication layer, as in [Eleftheriou2005]; src/exchange/).
enum class Engine {
  automatic,  ///< chosen by the planner (documented rule; see docs/conventions.md)
  alltoallv,  ///< pack exact blocks, MPI_Alltoallv, unpack
  alltoall,   ///< pack into equal padded blocks, MPI_Alltoall, unpack
  alltoallw,  ///< MPI derived datatypes on both sides, MPI_Alltoallw; volfft packs nothing
  p2p,        ///< pack, MPI_Irecv/MPI_Isend pairs (persistent requests), unpack
  pipelined,  ///< FFTs of chunks of planes overlapped with their non-blocking exchanges
  persistent, ///< MPI-4 persistent MPI_Alltoallv_init, set up once per plan (where available)
  node,       ///< two-level: ranks sharing a node read each other's stage arrays directly from
              ///< node shared memory, or write into them (one strided copy, chunk by chunk
              ///< with the neighbouring stage's FFTs where that helps); other nodes through MPI
};

/// Memory order of the forward output (x-pencils).
enum class Layout {
  transposed,  ///< fastest order (default): see Plan::output_order()
  natural,     ///< C order of the global axes
};

/// Where the fields of a batched plan (Options::batch = k) lie in the user's arrays.
enum class BatchLayout {
  outer,  ///< field by field: k arrays of the local box one after another (numpy shape (k, ...))
  inner,  ///< interleaved: the k values of one point next to each other (FFTW's howmany; (..., k))
};

/// FFTW planner effort for the plan's FFT batches. With measure and patient the planning also
/// times, on its planning arrays, the ways a batch or stage can run and keeps the faster: a strided
/// batch as columns or as FFTW's plan, a threaded batch split over the threads or FFTW's threads,
/// an out-of-place c2c or r2c batch as FFTW's out-of-place plan or as blocks copied into the
/// output and transformed there in place, and at one rank a c2c's one 3-D plan or axis 0 and then
/// the planes, and an out-of-place r2c backward that keeps its input and does not run folded
/// (in the caller's two arrays, where its spectrum is over a third of the last-level cache) as a
/// copy and one 3-D c2r or axis 0 and then the planes, where its arrays are up to 8 times the
/// last-level cache (beyond, the split; docs/performance.md).
/// estimate decides these by rule and measures nothing (Backend::automatic still times the
/// backends).
enum class Effort { estimate, measure, patient };

/// The 1-D FFT library behind the batches. ducc0 is available when volfft was built with it and
/// the CPU has the instruction sets its sources were compiled for (by default the build
/// machine's, -march=native; see have_backend): elsewhere a plan with ducc0 is refused by name
/// on every rank instead of stopping with SIGILL. automatic is decided once per plan: FFTW
/// where ducc0 is not available on some rank, else the first stage's FFTs are timed with each
/// backend, each time the maximum over ranks, and every batch of the plan uses the faster one
/// (src/backend/select.cpp; Plan::backend() says which).
enum class Backend { automatic, fftw, ducc0 };

struct Options {
  /// Process grid p0 x p1 of the communicator's ranks. {0, 0} = choose automatically.
  /// p1 == 1 is the slab decomposition (one exchange), otherwise pencils (two). 2-D arrays
  /// only have slabs: their grid is {P, 1}.
  std::array<int, 2> grid{0, 0};
  Engine engine = Engine::automatic;
  /// Pipelined engine: planes per chunk (-1 = about eight chunks; 0 = no pipelining, i.e. the
  /// blocking alltoallv engine), the bound on chunks in flight, and the transport of a chunk
  /// (false: MPI_Ialltoallv; true: MPI_Isend/MPI_Irecv).
  int planes = -1;
  int max_in_flight = 4;
  bool pipeline_p2p = false;
  Layout layout = Layout::transposed;
  Effort effort = Effort::measure;
  Backend backend = Backend::fftw;
  /// Threads per rank for the FFT batches and the pack/unpack copies (>= 1). One rank per
  /// node or socket with several threads is a supported configuration.
  int threads = 1;
  /// Engine node: pretend nodes of this many consecutive MPI_COMM_WORLD ranks (intersected
  /// with the real shared-memory nodes), so that one machine exercises both the shared-memory
  /// and the MPI path. 0 = the real nodes (MPI_COMM_TYPE_SHARED).
  int ranks_per_node = 0;
  /// Zero-padded ("pruned") transforms: the spectral side is the box `spectral_shape` (m, one
  /// entry per axis, m_a <= n_a) of low frequencies in numpy's order, the real side the full
  /// grid `shape` (n). forward() transforms the real grid and keeps the m-box; backward() pads
  /// the m-box with zeros to n and transforms. Along an axis with an even m < n (not an r2c
  /// plan's last axis) the m-box's index m/2, numpy's -m/2, stands for both -m/2 and +m/2 of the
  /// n-grid: forward() adds the two, backward() puts half of the value on each. So
  /// forward(backward(X)) == X for any X of a c2c plan and for the spectrum of any real field
  /// of an r2c plan (whose padded spectrum stays Hermitian); fields band-limited below m/2 do
  /// not see it. Lines that would hold only zeros are never transformed nor exchanged
  /// ([Hoefler2007]'s boxcut). Empty = no padding (m = n).
  std::vector<std::int64_t> spectral_shape;
  /// Per-axis transform kinds, one per axis of the shape (AxisKind); empty = every axis dft
  /// (Kind::r2c: the last one r2c). A Kind::r2c plan's last entry must be r2c and no other;
  /// a Kind::c2c plan has none. A Kind::r2r plan needs them, each a real-to-real kind or none;
  /// its data is real throughout. In c2c and r2c plans the data stays complex between the axes
  /// (an r2r axis transforms the real and imaginary parts). `none` axes are not transformed, and
  /// the plan puts them first and does not exchange them where it can (docs/conventions.md).
  /// Not with spectral_shape. dct1 needs at least 2 points on its axis.
  std::vector<AxisKind> kinds;
  /// Multiply backward() results by 1/N, as numpy's default norm="backward" does: N is the
  /// product of the axes' logical sizes (dft, r2c: n; dct1: 2(n-1); dst1: 2(n+1); the other
  /// r2r kinds: 2n; none: 1), so backward(forward(x)) == x.
  bool scale_backward = true;
  /// Multiply forward() results by 1/N (the same N): with scale_backward = false this is numpy's
  /// norm="forward" (and fluidfft's convention). The factor rides on the first exchange's copies
  /// where the plan has one (no extra pass over the output). Both true: each way by 1/N.
  bool scale_forward = false;
  /// In-place transforms: forward(a, a) and backward(a, a) on one array of
  /// Plan::in_place_bytes() bytes (the larger of the two sides), as FFTW's in-place plans. The
  /// plan is made for it (at one rank its FFTs are FFTW's in-place plans, the fastest there) and
  /// its calls must pass the same array as in and out. r2c: each row of the last axis holds
  /// 2(n/2 + 1) reals, the last 2(n/2 + 1) - n of them padding (FFTW's in-place layout); so
  /// input_count() counts the padding too. The workspace is that of the out-of-place plan (r2c:
  /// one buffer less). Not with spectral_shape, nor with engine pipelined on a slab grid (it would
  /// write the output while still reading the input from the same array).
  bool in_place = false;
  /// Minimum memory: the plan holds its buffers and nothing more, also while it is made. Engine
  /// automatic becomes alltoallw (it has no send area: one buffer fewer than the engines that
  /// pack), and the FFTs are planned without arrays: backend ducc0 plans none, FFTW's plans are
  /// estimated (FFTW_ESTIMATE, whatever `effort` says; measuring would need scratch arrays).
  /// With in_place that is the user's array and one buffer (docs/conventions.md). Not with
  /// backend automatic nor tune > 0, which time candidates on arrays of their own.
  bool min_memory = false;
  /// An out-of-place forward or backward may overwrite its input: FFTW's FFTW_DESTROY_INPUT
  /// (the default of FFTW's own c2r plans, which volfft otherwise does not take). The FFTW plans
  /// that read the input are made with that flag, so FFTW's planner may also measure plans that
  /// work in the input before writing the output (it need not take one: docs/performance.md,
  /// "destroy_input for every transform"). An r2c plan's backward at one rank is then one
  /// multi-dimensional c2r plan from the input to the output, as FFTW's, instead of a c2c plan
  /// into a buffer and a c2r plan from there (a multi-dimensional c2r cannot keep its input).
  /// ducc0 keeps the input but for that c2r. Without the option the input of an out-of-place
  /// call is left as it was; in place the one array is overwritten anyway.
  bool destroy_input = false;
  /// Batched fields: every call transforms `batch` fields of the same shape together (u, v, w of
  /// a velocity field): each exchange moves all of them in one message per partner and each FFT
  /// batch covers them all. The arrays hold `batch` fields in `batch_layout`; input_count(),
  /// output_count(), workspace_bytes() and in_place_bytes() count all of them. batch_layout inner
  /// combines with in_place in c2c and r2r plans, not r2c (an interleaved field's complex rows
  /// cover the other fields' real rows, so its transform could not run field by field).
  int batch = 1;
  BatchLayout batch_layout = BatchLayout::outer;
  /// Placement: rank_order[g] = rank in the communicator that takes virtual grid position
  /// g = i*p1 + j. Empty = identity. Must be a permutation of 0..P-1, equal on every rank.
  std::vector<int> rank_order;
  /// Placement from a map file instead (Rubik's format: line g holds the physical coordinates,
  /// whitespace-separated integers, of the task at virtual grid position g), together with this
  /// rank's own physical coordinate: the rank whose coordinate equals line g takes position g.
  /// Collective; every coordinate must appear exactly once. Exclusive with rank_order.
  std::string map_file;
  std::vector<int> coordinate;
  /// Autotuning. With `tune` = 0 (the default) an automatic grid or engine is chosen by rule
  /// (docs/conventions.md), which costs nothing. With `tune` = N > 0 seconds and the grid
  /// and/or engine automatic, the planner times the candidates, simplest first, for about N
  /// seconds at most, and keeps the fastest, preferring the simpler of candidates whose times
  /// lie within the measured noise of each other; the same on every rank (effort patient adds
  /// the candidates that rarely win). `wisdom_file` (or, where it is empty, the environment
  /// variable VOLFFT_WISDOM; the same on every rank, as every argument) is a JSON file of earlier
  /// choices, read before measuring and updated after; `verbose`
  /// prints the candidate table on rank 0.
  int tune = 0;
  std::string wisdom_file;
  bool verbose = false;
  /// Optional user-owned workspace; nullptr = the plan allocates its own. When given it must
  /// hold at least Plan::workspace_bytes() for the same shape/kind/options (query with
  /// Plan::required_workspace_bytes before creating the plan) and outlive the plan. Its contents
  /// are overwritten while the plan is made (FFTs are planned on it) and by every transform.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

const char* to_string(Kind);
const char* to_string(Precision);
const char* to_string(Engine);
const char* to_string(Layout);
const char* to_string(Effort);
const char* to_string(Backend);
const char* to_string(AxisKind);
const char* to_string(BatchLayout);
/// Parse the names printed by to_string ("auto" for Engine::automatic). Throws volfft::Error
/// naming the argument and the accepted values. The names of the option enums come from the
/// option table (src/core/option_table.cpp), the one description of every option.
Kind parse_kind(const std::string&);
Precision parse_precision(const std::string&);
Engine parse_engine(const std::string&);
Layout parse_layout(const std::string&);
Effort parse_effort(const std::string&);
Backend parse_backend(const std::string&);
AxisKind parse_axis_kind(const std::string&);
BatchLayout parse_batch_layout(const std::string&);
/// Every engine, Engine::automatic first: the one list that help texts and loops over engines
/// use (from the engine catalogue, src/core/engines.cpp).
std::vector<Engine> engines();
/// One line on what an engine does.
const char* summary(Engine);
/// Whether the given backend can run here: ducc0 is optional in a build, and runs only on a CPU
/// with the instruction sets it was compiled for (Backend). Rank-local.
bool have_backend(Backend);

}  // namespace volfft
