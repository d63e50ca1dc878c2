// The plan of one rank as plain data: stages of FFTs, their boxes and memory orders, and the
// geometry of every exchange. Pure: no MPI, no FFTW. Plan, the engines and describe() all read
// this one source, so what the library does and what the model predicts cannot drift apart.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "core/trailing_axes.hpp"
#include "volfft/options.hpp"

namespace volfft::core {

using Index = std::int64_t;
/// Memory order of a local array: axes from slowest to fastest.
using Order = std::array<int, 3>;

/// The size N of a transform of `n` points of kind `k` that backward divides by: n for dft and
/// r2c, 2(n-1) for dct1, 2(n+1) for dst1, 2n for the other r2r kinds, 1 for none.
Index logical_size(AxisKind k, Index n);

/// A batch of FFTs over `axes` done together (one FFTW plan). `real`: the r2c stage on axis 2.
/// `kinds`: per axis of `axes`, its real-to-real kind when the op is r2r (every axis r2r), else
/// empty (dft, and the r2c op's other axes).
struct FftOp {
  std::vector<int> axes;
  bool real = false;
  std::vector<AxisKind> kinds;
  bool r2r() const { return !kinds.empty(); }
};

/// FFTs done on one local array between two exchanges.
struct Stage {
  Box box_in;   ///< forward: the data the stage starts with; its array's storage (largest)
  Box box;      ///< forward: the data after its FFTs (smaller than box_in when padded)
  Order order;  ///< memory order of the stage's array
  std::vector<FftOp> ops;  ///< forward order
};

/// One all-to-all among the members of a grid row or column, forward direction
/// (from stages[k] to stages[k+1]); backward swaps send and receive.
struct ExchangeGeometry {
  std::string name;          ///< "row" or "column"
  std::vector<int> members;  ///< virtual ranks of the group, in group order
  int member = 0;            ///< this rank's index in members
  Box from_box, to_box;      ///< this rank's data before and after
  Box from_storage, to_storage;  ///< the arrays holding them (larger when padded)
  Order from_order{0, 1, 2}, to_order{0, 1, 2};
  std::vector<Box> send;     ///< per member: from_box ∩ member's to_box
  std::vector<Box> recv;     ///< per member: member's from_box ∩ to_box
  std::vector<Box> member_from, member_to;  ///< per member: its data before and after
  std::vector<Box> member_from_storage, member_to_storage;  ///< per member: its arrays
  Index max_block = 0;       ///< largest block between any two members (alltoall padding)
};

struct Blueprint {
  int ndim = 3;
  std::array<Index, 3> shape{1, 1, 1};  ///< internal 3-D shape (2-D arrays: {1, n0, n1})
  std::array<Index, 3> spectral{1, 1, 1};  ///< spectral box m (== shape unless padded)
  std::array<AxisKind, 3> kinds{AxisKind::none, AxisKind::dft, AxisKind::dft};  ///< per internal axis
  bool padded = false;
  Kind kind = Kind::c2c;
  Precision precision = Precision::float64;
  std::array<int, 2> grid{1, 1};        ///< internal grid (2-D arrays: {1, P})
  Engine engine = Engine::alltoallv;
  Layout layout = Layout::transposed;
  bool scale_backward = true;
  bool scale_forward = false;
  int comm_size = 1, vrank = 0;
  std::array<int, 2> position{0, 0};  ///< (i, j) in the internal grid
  bool in_place = false;              ///< forward(a, a)/backward(a, a): Options::in_place
  Index fields = 1;                   ///< Options::batch: fields per array
  bool fields_inner = false;          ///< the user's arrays interleave them (BatchLayout::inner)
  /// The backward runs folded in the caller's two arrays (core/folded_backward.hpp): its buffer is
  /// that backward's small workspace, not the stage's array.
  bool folded_backward = false;
  /// An N-D plan's trailing axes (core/trailing_axes.hpp) inside each element's `fields` values,
  /// in C order with the user's batch fastest; empty for 2-D and 3-D plans. The stage ops fuse
  /// their transforms into the first forward and the last backward FFT batch where that batch
  /// takes every field at once (plan/stage_ops.cpp); the plan transforms them itself otherwise.
  TrailingAxes trailing;
  Box real_box;                       ///< r2c input box in reals (== stages[0].box for c2c)
  Box real_storage;                   ///< the array holding it (in-place r2c: rows of 2(n/2+1) reals)
  /// Memory order of the forward input (C order; a c2c plan on user arrays may take the user's:
  /// its first stage's array then has that order too).
  Order input_order{0, 1, 2};
  std::vector<Stage> stages;
  std::vector<ExchangeGeometry> exchanges;  ///< exchanges[k]: stages[k] -> stages[k+1]
  /// Bytes of one element of the plan's arrays: a complex value, or a real one in an r2r plan.
  Index element_bytes = 16;
  Index buffer_elements = 0;  ///< complex capacity of each internal buffer (all fields)
  int buffer_count = 0;       ///< internal buffers the plan uses (array_of and the engine's areas)
  /// Every rank of the plan is on one node (a fact the plan gathers; make_blueprint's
  /// `one_node`): the node engine then reads every partner in shared memory and sends nothing.
  bool one_node = false;
  /// Buffer send_buffer() is the engine's send area: every engine's but alltoallw's (whose
  /// datatypes read the stage array) and but the node engine's when all ranks share one node.
  bool send_area() const;

  Index input_count() const { return real_storage.size() * fields; }
  /// The plan's arrays hold reals (Kind::r2r), not complex values.
  bool real_values() const { return kind == Kind::r2r; }
  /// Bytes of one element of the forward input: a real for r2c, else element_bytes.
  Index input_element_bytes() const { return kind == Kind::r2c ? element_bytes / 2 : element_bytes; }
  /// N of the backward's 1/N: the product of the axes' logical sizes.
  Index logical_elements() const {
    Index n = 1;
    for (int a = 0; a < 3; ++a) n *= logical_size(kinds[a], shape[a]);
    return n;
  }
  /// Bytes of the one array of an in-place plan: the larger side.
  Index in_place_bytes() const {
    return std::max(input_count() * input_element_bytes(), output_count() * element_bytes);
  }
  /// FFT length along `axis` (complex length n/2+1 on the r2c axis) and the values kept (m).
  Index fft_length(int axis) const { return axis == 2 && kind == Kind::r2c ? shape[2] / 2 + 1 : shape[axis]; }
  Index kept_length(int axis) const { return axis == 2 && kind == Kind::r2c ? spectral[2] / 2 + 1 : spectral[axis]; }
  Index output_count() const { return stages.back().box.size() * fields; }
  std::size_t workspace_bytes() const {
    return static_cast<std::size_t>(buffer_elements * element_bytes) * buffer_count +
           (buffer_count ? 64 * buffer_count : 0);  // alignment slack per buffer
  }
};

/// Where the fields of a batched plan lie in an array holding `box` in some memory order: its
/// element strides are strides_of(box, order) times `unit`, and field f starts at f * `stride`
/// elements. The user's arrays follow Options::batch_layout (inner: unit `count`, stride 1). The
/// plan's buffers: in a plan without exchanges, one field at a time (stride 0: the fields run one
/// after another through the same buffer, which stays in cache); otherwise as the user's arrays
/// (inner: every FFT batch and copy takes all fields in one pass, which at 64^3 x 16 fields, np 2,
/// ran 25/27 ms against 36/33 with outer buffers, and 32^4 (an N-D plan's trailing values) 1.48x
/// FFTW-MPI's time down to 1.11x; at 3 fields the two are within noise), or outer (unit 1, stride
/// box.size()).
struct FieldLayout {
  Index count = 1, unit = 1, stride = 0;
};
inline FieldLayout field_layout(const Blueprint& bp, const Box& box, bool user_array) {
  if (user_array && bp.fields_inner) return FieldLayout{bp.fields, bp.fields, 1};
  if (!user_array && bp.exchanges.empty()) return FieldLayout{bp.fields, 1, 0};
  if (bp.fields_inner) return FieldLayout{bp.fields, bp.fields, 1};  // buffers as the user's arrays
  return FieldLayout{bp.fields, 1, box.size()};
}
/// strides_of(box, order), each times `unit` (an interleaved batch's element strides).
std::array<Index, 3> strides_of(const Box& box, const Order& order, Index unit);

/// Where a stage's array lives in one direction: the user's output array, or internal buffer
/// `buffer`. The buffer rule, with S stages and E = S - 1 exchanges:
///   forward : stage s lives in buffer s, the last stage in the user's output (a padded plan's
///             last stage in a free buffer, truncated into the output); exchange k goes from
///             stage k's array to stage k+1's with buffer E as its send area (send_buffer;
///             none for alltoallw, whose datatypes read the stage array: Blueprint::send_area()).
///   backward: stage S-1 is read from the user's input into buffer 0; stage s (0 < s < S-1)
///             lives in buffer (S-1-s) % 2; stage 0 is the user's output (c2c, r2r, and in-place
///             r2c, whose c2r then runs in place) or a complex buffer (r2c) that the final c2r
///             transform reads (S = 2: the buffer after the send area, else buffer 0).
///   in place: the user's output is the input too. Only a stage without an exchange (one rank)
///             reads and writes it in the same op (planned in place, stage_ops.cpp); with
///             exchanges the input is read into buffer 0 before anything writes the output.
/// Blocking engines reuse an exchange's source array as its receive area, so three arrays are
/// live at most; engines that overlap receive into buffer 3 (receive_buffer).
struct ArrayPlace {
  bool user_output = false;
  int buffer = 0;
};
ArrayPlace array_of(const Blueprint& bp, bool forward, std::size_t stage);
inline int send_buffer(const Blueprint& bp) { return static_cast<int>(bp.exchanges.size()); }
constexpr int receive_buffer = 3;

/// Check the arguments; throws volfft::Error with a message naming the argument.
void validate(int comm_size, const std::vector<Index>& shape, const Options& options, Kind kind = Kind::c2c);

/// The transform along each internal axis (Options::kinds, or its default for `kind`); a 2-D
/// plan's leading internal axis is `none`.
std::array<AxisKind, 3> axis_kinds(const std::vector<Index>& shape, Kind kind, const Options& options);
/// The kind that undoes `k` (dct2 <-> dct3, dst2 <-> dst3, the others themselves).
AxisKind inverse_kind(AxisKind k);
/// A real-to-real kind (dct1..dst4).
inline bool is_r2r(AxisKind k) { return k != AxisKind::dft && k != AxisKind::r2c && k != AxisKind::none; }

/// Stage boxes of virtual grid position (i, j) ([Jagode2008] §3.2): A = z-pencils (axis 2
/// whole), B = y-pencils (axis 1 whole), C = x-pencils (axis 0 whole); `*_in` before the stage's
/// FFTs (the FFT length along its axis), the others after (the kept length when padded).
struct PencilBoxes {
  Box a_real, a_in, a, b_in, b, c_in, c;
};
PencilBoxes pencil_boxes(const std::array<Index, 3>& n, const std::array<Index, 3>& m, Kind kind,
                         const std::array<int, 2>& grid, int i, int j);

/// A fused r2c op (real, over axis 2 and others: merge_ops) as what it computes, one op per
/// transform kind: the r2c over axis 2, then the c2c over the others. Any other op as it is.
/// The backward runs these separately (a multi-dimensional c2r destroys its input) and
/// describe() lists them.
std::vector<FftOp> unfused(const FftOp& op);

/// The grid chosen for grid {0, 0} (documented in docs/conventions.md): slab when every rank
/// gets a non-empty slab on both sides, otherwise the pencil grid with the smallest largest
/// local array, ties broken towards square. Returns the user-facing grid.
std::array<int, 2> choose_grid(int comm_size, const std::vector<Index>& shape, Kind kind);

/// The engine chosen for Engine::automatic without measuring (tune = 0), from facts every rank
/// agrees on: `node` when some node holds at least two of the plan's ranks
/// (`ranks_sharing_a_node` >= 2, the largest MPI_COMM_TYPE_SHARED group, cut by ranks_per_node)
/// and no rank brings its own workspace (which cannot be shared memory, so the node engine would
/// copy once more); otherwise `alltoallv`, which applies everywhere and needs no shared memory.
/// Measured: `node` took 0.6-0.9 of `alltoallv`'s time at every point measured (2 and 16 cores,
/// 2-16 ranks, c2c and r2c; docs/performance.md, "Why node is engine auto's choice").
Engine choose_engine(int comm_size, int ranks_sharing_a_node, bool user_workspace);

/// The blueprint of virtual rank `vrank`. Validates first. `padding` = false skips the largest
/// block over all pairs of a group (O(members^2), needed only by the alltoall engine).
/// `one_node`: every rank of the plan shares one node (Blueprint::one_node); false when unknown,
/// which keeps the node engine's send area (correct on any nodes, one buffer more).
Blueprint make_blueprint(int comm_size, int vrank, const std::vector<Index>& shape, Kind kind,
                         Precision precision, const Options& options, bool padding = true, bool one_node = false);

/// The first stage's array takes memory order `order`: the input is read in it and the backward
/// writes it so (a user's array in another order, or the user's C order in a relabelled plan).
void take_input_order(Blueprint& bp, const Order& order);
/// The last stage's array takes memory order `order` (the output's); for plans of two stages or
/// more (one stage has the input's order).
void take_output_order(Blueprint& bp, const Order& order);

/// Strides (in elements) of an array holding `box` in memory order `order`, per global axis.
std::array<Index, 3> strides_of(const Box& box, const Order& order);
/// Offset (in elements) of sub-box `sub`'s first element inside such an array.
Index offset_of(const Box& sub, const Box& box, const std::array<Index, 3>& strides);

}  // namespace volfft::core
