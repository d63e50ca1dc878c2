#include "core/blueprint.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/engines.hpp"
#include "core/folded_backward.hpp"
#include "core/user_axes.hpp"
#include "volfft/error.hpp"

namespace volfft::core {
namespace {

std::array<Index, 3> internal_shape(const std::vector<Index>& shape) {
  if (shape.size() == 2) return {1, shape[0], shape[1]};
  return {shape[0], shape[1], shape[2]};
}

Index complex_last(const std::array<Index, 3>& n, Kind kind) {
  return kind == Kind::r2c ? n[2] / 2 + 1 : n[2];
}

Box make_box(Range r0, Range r1, Range r2) {
  Box b;
  b.lo = {r0.lo, r1.lo, r2.lo};
  b.hi = {r0.hi, r1.hi, r2.hi};
  return b;
}

Range whole(Index n) { return Range{0, n}; }

std::array<int, 2> internal_grid(const std::vector<Index>& shape, const std::array<int, 2>& g) {
  // A 2-D array (n0, n1) is the 3-D array (1, n0, n1) on the grid 1 x P: its slab exchange is
  // then the "row" exchange and the r2c axis stays the last one.
  if (shape.size() == 2) return {1, g[0] * g[1]};
  return g;
}

// The x-pencil memory order for the transposed layout: the last FFT axis (0) fastest, so its
// FFTs are contiguous; the unpack of the last exchange does the transpose on the way in.
constexpr Order kTransposedX{1, 2, 0};
constexpr Order kTransposedY{0, 2, 1};
constexpr Order kNatural{0, 1, 2};

void merge_ops(std::vector<FftOp>& into, const std::vector<FftOp>& more) {
  for (const FftOp& op : more) {
    // Batches on the same array fuse into one multi-dimensional plan: c2c after c2c, c2c after
    // the r2c (FFTW's and ducc0's multi-dimensional r2c; the backward splits it again,
    // unfused()), and r2r after r2r (one r2r plan with a kind per axis).
    const bool fuses = !into.empty() && !op.real && into.back().r2r() == op.r2r();
    if (fuses) {
      into.back().axes.insert(into.back().axes.end(), op.axes.begin(), op.axes.end());
      into.back().kinds.insert(into.back().kinds.end(), op.kinds.begin(), op.kinds.end());
    } else {
      into.push_back(op);
    }
  }
}

// The op along `axis` for its kind: none for an axis not transformed.
std::vector<FftOp> ops_along(int axis, AxisKind kind) {
  if (kind == AxisKind::none) return {};
  if (kind == AxisKind::r2c) return {FftOp{{axis}, true, {}}};
  if (is_r2r(kind)) return {FftOp{{axis}, false, {kind}}};
  return {FftOp{{axis}, false, {}}};
}

}  // namespace

PencilBoxes pencil_boxes(const std::array<Index, 3>& n, const std::array<Index, 3>& m, Kind kind,
                         const std::array<int, 2>& grid, int i, int j) {
  const Index nc = complex_last(n, kind), mc = complex_last(m, kind);
  const Range n0 = block_range(n[0], grid[0], i), n1 = block_range(n[1], grid[1], j);
  PencilBoxes p;
  p.a_real = make_box(n0, n1, whole(n[2]));
  p.a_in = make_box(n0, n1, whole(nc));
  p.a = make_box(n0, n1, whole(mc));
  p.b_in = make_box(n0, whole(n[1]), block_range(mc, grid[1], j));
  p.b = make_box(n0, whole(m[1]), block_range(mc, grid[1], j));
  p.c_in = make_box(whole(n[0]), block_range(m[1], grid[0], i), block_range(mc, grid[1], j));
  p.c = make_box(whole(m[0]), block_range(m[1], grid[0], i), block_range(mc, grid[1], j));
  return p;
}

std::array<Index, 3> strides_of(const Box& box, const Order& order) {
  std::array<Index, 3> s{};
  Index stride = 1;
  for (int k = 2; k >= 0; --k) {
    s[order[k]] = stride;
    stride *= box.extent(order[k]);
  }
  return s;
}

std::array<Index, 3> strides_of(const Box& box, const Order& order, Index unit) {
  auto s = strides_of(box, order);
  for (Index& x : s) x *= unit;
  return s;
}

Index offset_of(const Box& sub, const Box& box, const std::array<Index, 3>& strides) {
  Index off = 0;
  for (int a = 0; a < 3; ++a) off += (sub.lo[a] - box.lo[a]) * strides[a];
  return off;
}

std::array<int, 2> choose_grid(int comm_size, const std::vector<Index>& shape, Kind kind) {
  const int P = comm_size;
  if (shape.size() == 2) return {P, 1};
  const auto n = internal_shape(shape);
  if (P <= n[0] && P <= n[1]) return {P, 1};  // slabs: one exchange, every rank busy
  // Pencils: the grid whose largest local array is smallest (load balance), then the most
  // square one (fewest members per exchange).
  std::array<int, 2> best{P, 1};
  Index best_load = -1;
  int best_skew = INT_MAX;
  for (int p0 = 1; p0 <= P; ++p0) {
    if (P % p0) continue;
    const std::array<int, 2> g{p0, P / p0};
    const auto b = pencil_boxes(n, n, kind, g, 0, 0);  // rank (0,0) holds the largest blocks
    const Index load = std::max({b.a_in.size(), b.b_in.size(), b.c_in.size()});
    const int skew = std::abs(g[0] - g[1]);
    if (best_load < 0 || load < best_load || (load == best_load && skew < best_skew)) {
      best = g, best_load = load, best_skew = skew;
    }
  }
  return best;
}

std::vector<FftOp> unfused(const FftOp& op) {
  if (!op.real || op.axes.size() == 1) return {op};
  FftOp others{{}, false, {}};
  for (int a : op.axes)
    if (a != 2) others.axes.push_back(a);
  return {FftOp{{2}, true, {}}, others};
}

Engine choose_engine(int comm_size, int ranks_sharing_a_node, bool user_workspace) {
  return comm_size > 1 && ranks_sharing_a_node >= 2 && !user_workspace ? Engine::node : Engine::alltoallv;
}

Blueprint make_blueprint(int comm_size, int vrank, const std::vector<Index>& shape, Kind kind,
                         Precision precision, const Options& options, bool padding, bool one_node) {
  validate(comm_size, shape, options, kind);
  Blueprint bp;
  bp.one_node = one_node;
  bp.ndim = static_cast<int>(shape.size());
  bp.shape = internal_shape(shape);
  bp.kind = kind;
  bp.kinds = axis_kinds(shape, kind, options);
  bp.precision = precision;
  const bool automatic = options.grid[0] == 0 && options.grid[1] == 0;
  const auto user_grid = automatic ? choose_grid(comm_size, shape, kind) : options.grid;
  bp.grid = internal_grid(shape, user_grid);
  // Without MPI the ranks' nodes are unknown: assume they share one (a workstation), or nodes
  // of ranks_per_node. Plans resolve the engine from where their ranks run before this.
  const int sharing = options.ranks_per_node > 0 ? std::min(options.ranks_per_node, comm_size) : comm_size;
  // Options::min_memory: the engine without a send area.
  bp.engine = options.engine != Engine::automatic ? options.engine
              : options.min_memory                ? Engine::alltoallw
                                                  : choose_engine(comm_size, sharing, options.workspace != nullptr);
  if (bp.engine == Engine::pipelined && options.planes == 0) bp.engine = Engine::alltoallv;
  bp.layout = options.layout;
  bp.scale_backward = options.scale_backward;
  bp.scale_forward = options.scale_forward;
  bp.comm_size = comm_size;
  bp.vrank = vrank;
  bp.element_bytes = (precision == Precision::float64 ? 16 : 8) / (kind == Kind::r2r ? 2 : 1);
  const int p0 = bp.grid[0], p1 = bp.grid[1];
  const int i = vrank / p1, j = vrank % p1;
  bp.position = {i, j};
  const auto& n = bp.shape;
  bp.spectral = options.spectral_shape.empty() ? n : internal_shape(options.spectral_shape);
  bp.padded = bp.spectral != n;
  const auto boxes = pencil_boxes(n, bp.spectral, kind, bp.grid, i, j);
  bp.real_box = kind == Kind::r2c ? boxes.a_real : boxes.a_in;
  bp.in_place = options.in_place;
  bp.fields = options.batch;
  bp.fields_inner = options.batch_layout == BatchLayout::inner && options.batch > 1;
  bp.real_storage = bp.real_box;
  // In place, the r2c input rows are as long as the complex rows they become (FFTW's layout).
  if (bp.in_place && kind == Kind::r2c) bp.real_storage.hi[2] = bp.real_storage.lo[2] + 2 * boxes.a_in.extent(2);

  // Stage candidates A, B, C; an exchange inside a group of one rank is trivial, and the stages
  // on both sides of it merge (the boxes then meet: the first's output is the second's input).
  // Padded plans keep one op per axis: each truncates (or pads) its own lines.
  // An axis of kind `none` has no op: its stage may have none at all (the data still moves).
  Stage a{boxes.a_in, boxes.a, kNatural, ops_along(2, bp.kinds[2])};
  Stage b{boxes.b_in, boxes.b, kTransposedY, ops_along(1, bp.kinds[1])};
  Stage c{boxes.c_in, boxes.c, bp.layout == Layout::natural ? kNatural : kTransposedX, ops_along(0, bp.kinds[0])};
  auto merge = [&](const Stage& next) {
    Stage& s = bp.stages.back();
    if (bp.padded) {
      s.ops.insert(s.ops.end(), next.ops.begin(), next.ops.end());
    } else {
      merge_ops(s.ops, next.ops);
    }
    s.box = next.box;  // the merged stage ends where the next one would have
  };
  bp.stages.push_back(a);
  if (p1 > 1) {
    bp.stages.push_back(b);
  } else {
    merge(b);
  }
  // Trailing axes not transformed (kind none): an exchange that would only bring such an axis
  // whole is left out, and the output stays where the previous stage left it. Axis 0 first
  // (the column exchange), then axis 1 (the row exchange) when nothing follows it.
  const bool column = p0 > 1 && !c.ops.empty();
  if (column) bp.stages.push_back(c);
  if (!column && p0 == 1) merge(c);
  // With p1 > 1 stage B is the last one here unless C follows it.
  const bool row = p1 > 1 && (column || !bp.stages.back().ops.empty());
  if (p1 > 1 && !row) bp.stages.pop_back();  // stage B, which transforms nothing
  // The stage that ends the pipeline holds the output: natural layout wants C order. Stage A
  // is in C order already (it is the input layout).
  if (!column && bp.stages.size() > 1 && bp.layout == Layout::natural) bp.stages.back().order = kNatural;

  // Exchange geometry.
  auto add_exchange = [&](const char* name, bool row) {
    ExchangeGeometry ex;
    ex.name = name;
    const int size = row ? p1 : p0;
    const std::size_t k = bp.exchanges.size();
    const Stage& from = bp.stages[k];
    const Stage& to = bp.stages[k + 1];
    ex.from_box = from.box, ex.to_box = to.box_in;
    ex.from_storage = from.box_in, ex.to_storage = to.box_in;
    ex.from_order = from.order, ex.to_order = to.order;
    ex.member = row ? j : i;
    std::vector<PencilBoxes> member_boxes;
    for (int m = 0; m < size; ++m) {
      const int mi = row ? i : m, mj = row ? m : j;
      ex.members.push_back(mi * p1 + mj);
      member_boxes.push_back(pencil_boxes(n, bp.spectral, kind, bp.grid, mi, mj));
    }
    // A merged stage ends where the next would have: a row exchange after a stage that also did
    // axis 1 cannot happen (p1 > 1 keeps B apart), so the boxes are the plain ones.
    auto from_of = [&](const PencilBoxes& pb) { return row ? pb.a : pb.b; };
    auto to_of = [&](const PencilBoxes& pb) { return row ? pb.b_in : pb.c_in; };
    for (int m = 0; m < size; ++m) {
      ex.member_from.push_back(from_of(member_boxes[m]));
      ex.member_to.push_back(to_of(member_boxes[m]));
      // The arrays holding them: a stage merged into the one before keeps that one's storage.
      const PencilBoxes& mb = member_boxes[m];
      ex.member_from_storage.push_back(row || p1 == 1 ? mb.a_in : mb.b_in);
      ex.member_to_storage.push_back(row ? mb.b_in : mb.c_in);
      ex.send.push_back(ex.from_box.intersect(to_of(member_boxes[m])));
      ex.recv.push_back(from_of(member_boxes[m]).intersect(ex.to_box));
      for (int d = 0; padding && d < size; ++d)
        ex.max_block = std::max(ex.max_block,
                                from_of(member_boxes[m]).intersect(to_of(member_boxes[d])).size());
    }
    for (const Box& bx : ex.send) ex.max_block = std::max(ex.max_block, bx.size());
    // A message carries the block of every field.
    if (ex.max_block * bp.fields > INT_MAX)
      throw Error("volfft: a message of the " + user_exchange_name(bp.ndim, ex.name) + " exchange would hold " +
                  std::to_string(ex.max_block * bp.fields) +
                  " elements, more than MPI's int counts allow; use more ranks or a smaller batch");
    bp.exchanges.push_back(std::move(ex));
  };
  if (row) add_exchange("row", true);
  if (column) add_exchange("column", false);

  // Buffers: every stage array and every padded all-to-all area must fit; how many the program
  // uses is the buffer rule (array_of below, documented in blueprint.hpp).
  const EngineInfo& engine = engine_info(bp.engine);
  Index capacity = 0;
  for (const Stage& s : bp.stages) capacity = std::max(capacity, s.box_in.size());
  // A folded backward (one rank, no exchanges) needs no array of the spectrum: its buffer holds
  // the values aside and each thread's line buffer and scratch plane.
  bp.folded_backward = folds_backward(bp, options);
  if (bp.folded_backward) capacity = folded_geometry(bp).workspace(std::max(options.threads, 1));
  if (engine.padded_blocks)
    for (const auto& ex : bp.exchanges)
      capacity = std::max(capacity, ex.max_block * static_cast<Index>(ex.members.size()));
  // Exchanges carry every field at once, so their arrays hold them all; without exchanges the
  // fields go through the buffers one at a time (field_layout).
  bp.buffer_elements = bp.exchanges.empty() ? capacity : capacity * bp.fields;
  // How many buffers: the highest the buffer rule places a stage array in (array_of, both
  // directions), the send area (not alltoallw's, whose datatypes read the stage array) and, for
  // an engine that overlaps and so cannot receive into the array it is still transforming, the
  // receive area.
  int highest = -1;
  for (const bool forward : {true, false})
    for (std::size_t s = 0; s < bp.stages.size(); ++s) {
      const ArrayPlace at = array_of(bp, forward, s);
      if (!at.user_output) highest = std::max(highest, at.buffer);
    }
  if (!bp.exchanges.empty() && bp.send_area()) highest = std::max(highest, send_buffer(bp));
  if (!bp.exchanges.empty() && engine.receive_area) highest = std::max(highest, receive_buffer);
  bp.buffer_count = highest + 1;
  return bp;
}

bool Blueprint::send_area() const { return engine_info(engine).send_area && !(engine == Engine::node && one_node); }

void take_input_order(Blueprint& bp, const Order& order) {
  bp.input_order = bp.stages.front().order = order;
  if (!bp.exchanges.empty()) bp.exchanges.front().from_order = order;
}

void take_output_order(Blueprint& bp, const Order& order) {
  if (bp.stages.size() < 2) return;
  bp.stages.back().order = order;
  bp.exchanges.back().to_order = order;
}

ArrayPlace array_of(const Blueprint& bp, bool forward, std::size_t s) {
  const std::size_t S = bp.stages.size();
  auto buffer = [](int b) { return ArrayPlace{false, b}; };
  const ArrayPlace user{true, 0};
  // A padded plan's last stage transforms full-length lines in a buffer free at that point,
  // then truncates into the output. With two stages that is the one after the send area.
  const int spare = bp.send_area() ? 2 : 1;
  if (forward && s + 1 == S && bp.padded) return buffer(S == 2 ? spare : 0);
  if (forward) return s + 1 == S ? user : buffer(static_cast<int>(s));
  if (s == 0) {
    if (bp.kind != Kind::r2c || bp.in_place) return user;
    return buffer(S == 2 ? spare : 0);
  }
  if (s + 1 == S) return buffer(0);
  return buffer(static_cast<int>((S - 1 - s) % 2));
}

}  // namespace volfft::core
