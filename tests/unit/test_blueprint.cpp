// make_blueprint: for every virtual rank, the stage boxes are the spec's pencils and tile the
// global index space at every stage; exchange send/receive boxes agree between each pair of
// members; exchanges inside groups of one rank disappear and their stages merge; memory orders
// put each stage's first FFT axis fastest (transposed) or keep C order (natural output).
#include <algorithm>
#include <sstream>
#include <string>

#include "core/blueprint.hpp"
#include "core/engines.hpp"
#include "support/check.hpp"
#include "unit/spec_boxes.hpp"
#include "unit/unit_main.hpp"

using namespace volfft;
using core::Blueprint;
using core::make_blueprint;
using volfft_test::Index;
using volfft_test::spec_pencils;
using volfft_test::tiles;

namespace {

struct Config {
  std::vector<Index> shape;
  Kind kind;
  std::array<int, 2> grid;  // user grid; {0,0} automatic
  int P;
  Engine engine = Engine::alltoallv;
  Layout layout = Layout::transposed;

  std::string text() const {
    std::ostringstream os;
    os << "shape (";
    for (std::size_t a = 0; a < shape.size(); ++a) os << (a ? "," : "") << shape[a];
    os << ") " << to_string(kind) << " P=" << P << " grid " << grid[0] << "x" << grid[1] << " "
       << to_string(engine) << " " << to_string(layout);
    return os.str();
  }
};

std::vector<Blueprint> all_ranks(const Config& c) {
  Options o;
  o.grid = c.grid;
  o.engine = c.engine;
  o.layout = c.layout;
  std::vector<Blueprint> v;
  for (int r = 0; r < c.P; ++r)
    v.push_back(make_blueprint(c.P, r, c.shape, c.kind, Precision::float64, o));
  return v;
}

// Every configuration the tests sweep: 3-D shapes on every divisor grid and the automatic one,
// 2-D shapes on slabs, P = 1..6, both kinds, both layouts.
std::vector<Config> configs() {
  const std::vector<std::vector<Index>> shapes3 = {{8, 8, 8}, {7, 9, 11}, {1, 5, 6}, {5, 1, 3},
                                                   {3, 4, 2}, {2, 3, 1}};
  const std::vector<std::vector<Index>> shapes2 = {{6, 5}, {3, 8}, {1, 4}, {4, 1}};
  std::vector<Config> out;
  for (int P = 1; P <= 6; ++P)
    for (Kind kind : {Kind::c2c, Kind::r2c})
      for (Layout layout : {Layout::transposed, Layout::natural}) {
        for (const auto& s : shapes3) {
          out.push_back({s, kind, {0, 0}, P, Engine::alltoallv, layout});
          for (int p0 = 1; p0 <= P; ++p0)
            if (P % p0 == 0) out.push_back({s, kind, {p0, P / p0}, P, Engine::alltoall, layout});
        }
        for (const auto& s : shapes2) out.push_back({s, kind, {P, 1}, P, Engine::alltoall, layout});
      }
  return out;
}

std::array<Index, 3> internal_shape(const Config& c) {
  if (c.shape.size() == 2) return {1, c.shape[0], c.shape[1]};
  return {c.shape[0], c.shape[1], c.shape[2]};
}

void stages_are_the_spec_pencils_and_tile() {
  for (const Config& c : configs()) {
    const auto bps = all_ranks(c);
    const auto n = internal_shape(c);
    const Index nc = c.kind == Kind::r2c ? n[2] / 2 + 1 : n[2];
    const int p0 = bps[0].grid[0], p1 = bps[0].grid[1];
    CHECK_MSG(p0 * p1 == c.P, c.text() << ": internal grid " << p0 << "x" << p1);
    if (c.shape.size() == 2) CHECK_MSG(p0 == 1, c.text() << ": 2-D runs on one row of slabs");
    // Stages: A, then B if the row exchange is real (p1 > 1), then C if the column one is.
    const std::size_t stages = 1 + (p1 > 1) + (p0 > 1);
    std::vector<std::vector<Box>> by_stage(stages);
    std::vector<Box> real_boxes;
    for (int v = 0; v < c.P; ++v) {
      const Blueprint& bp = bps[v];
      CHECK_MSG(bp.position[0] == v / p1 && bp.position[1] == v % p1,
                c.text() << ": vrank " << v << " at (" << bp.position[0] << "," << bp.position[1]
                         << ")");
      CHECK_MSG(bp.stages.size() == stages,
                c.text() << ": vrank " << v << " has " << bp.stages.size() << " stages, expected "
                         << stages);
      if (bp.stages.size() != stages) continue;
      const auto spec = spec_pencils(n, nc, p0, p1, v / p1, v % p1);
      CHECK_MSG(bp.stages.front().box == spec.a, c.text() << ": vrank " << v << " input box");
      CHECK_MSG(bp.stages.back().box == spec.c, c.text() << ": vrank " << v << " output box");
      if (stages == 3) CHECK_MSG(bp.stages[1].box == spec.b, c.text() << ": vrank " << v);
      Box real = spec.a;
      real.hi[2] = n[2];
      CHECK_MSG(bp.real_box == real, c.text() << ": vrank " << v << " real input box");
      CHECK(bp.input_count() == real.size());
      CHECK(bp.output_count() == spec.c.size());
      for (std::size_t s = 0; s < stages; ++s) by_stage[s].push_back(bp.stages[s].box);
      real_boxes.push_back(bp.real_box);
    }
    for (std::size_t s = 0; s < stages; ++s)
      CHECK_MSG(tiles(by_stage[s], {n[0], n[1], nc}),
                c.text() << ": stage " << s << " boxes do not tile the complex index space");
    CHECK_MSG(tiles(real_boxes, n), c.text() << ": input boxes do not tile the real index space");
  }
}

void exchange_boxes_agree_between_members() {
  for (const Config& c : configs()) {
    const auto bps = all_ranks(c);
    const int p0 = bps[0].grid[0], p1 = bps[0].grid[1];
    std::vector<std::string> names;
    if (p1 > 1) names.push_back("row");
    if (p0 > 1) names.push_back("column");
    for (int v = 0; v < c.P; ++v) {
      const Blueprint& bp = bps[v];
      CHECK_MSG(bp.exchanges.size() == names.size() && bp.exchanges.size() + 1 == bp.stages.size(),
                c.text() << ": vrank " << v << " has " << bp.exchanges.size() << " exchanges");
      if (bp.exchanges.size() != names.size() || bp.stages.size() != names.size() + 1) continue;
      for (std::size_t k = 0; k < names.size(); ++k) {
        const auto& ex = bp.exchanges[k];
        const bool row = names[k] == "row";
        CHECK_MSG(ex.name == names[k], c.text() << ": exchange " << k << " is " << ex.name);
        // Members: the ranks sharing i (row) or j (column), in order of the other coordinate.
        std::vector<int> want;
        for (int m = 0; m < (row ? p1 : p0); ++m)
          want.push_back(row ? bp.position[0] * p1 + m : m * p1 + bp.position[1]);
        CHECK_MSG(ex.members == want, c.text() << ": vrank " << v << " " << ex.name << " members");
        if (ex.members != want) continue;
        CHECK(ex.members[ex.member] == v);
        CHECK(ex.from_box == bp.stages[k].box && ex.to_box == bp.stages[k + 1].box);
        CHECK(ex.from_order == bp.stages[k].order && ex.to_order == bp.stages[k + 1].order);
        Index sent = 0, received = 0;
        for (std::size_t m = 0; m < ex.members.size(); ++m) {
          const Blueprint& other = bps[ex.members[m]];
          const auto& oex = other.exchanges[k];
          // What v sends to m is what m receives from v, and lands inside m's next box.
          CHECK_MSG(ex.send[m] == oex.recv[ex.member],
                    c.text() << ": " << ex.name << " send " << v << "->" << ex.members[m]
                             << " differs from the matching receive");
          CHECK(ex.send[m] == ex.from_box.intersect(other.stages[k + 1].box));
          CHECK(ex.recv[m] == other.stages[k].box.intersect(ex.to_box));
          CHECK_MSG(ex.max_block >= ex.send[m].size() && ex.max_block >= ex.recv[m].size(),
                    c.text() << ": max_block " << ex.max_block << " below a message");
          sent += ex.send[m].size();
          received += ex.recv[m].size();
        }
        // Nothing is lost or duplicated inside a group.
        CHECK_MSG(sent == ex.from_box.size() && received == ex.to_box.size(),
                  c.text() << ": vrank " << v << " " << ex.name << " sends " << sent << " of "
                           << ex.from_box.size() << ", receives " << received << " of "
                           << ex.to_box.size());
      }
    }
  }
}

std::vector<int> all_axes(const Blueprint& bp) {
  std::vector<int> axes;
  for (const auto& s : bp.stages)
    for (const auto& op : s.ops) axes.insert(axes.end(), op.axes.begin(), op.axes.end());
  return axes;
}

void trivial_exchanges_merge_stages() {
  for (const Config& c : configs()) {
    const auto bps = all_ranks(c);
    for (const Blueprint& bp : bps) {
      // Every axis is transformed once, in the forward order 2, 1, 0 (a 2-D plan's leading
      // internal axis is not an axis: none); only the first is real.
      const auto expected = c.shape.size() == 2 ? std::vector<int>{2, 1} : std::vector<int>{2, 1, 0};
      CHECK_MSG(all_axes(bp) == expected, c.text() << ": axes out of order");
      bool first = true;
      for (const auto& s : bp.stages) {
        CHECK_MSG(!s.ops.empty(), c.text() << ": a stage without FFTs");
        for (std::size_t o = 0; o < s.ops.size(); ++o) {
          CHECK_MSG(s.ops[o].real == (first && c.kind == Kind::r2c), c.text() << ": real flag");
          first = false;
          // Consecutive batches on one array are one multi-dimensional plan (padded plans
          // keep one per axis: each truncates its own lines).
          if (o > 0) CHECK_MSG(bp.padded, c.text() << ": unfused batches");
        }
      }
    }
  }
  // Hand cases. One rank: one stage, one 3-D plan (r2c: real along axis 2).
  auto one = make_blueprint(1, 0, {4, 5, 6}, Kind::c2c, Precision::float64, Options{});
  CHECK(one.stages.size() == 1 && one.exchanges.empty());
  CHECK(one.stages[0].ops.size() == 1 && one.stages[0].ops[0].axes == (std::vector<int>{2, 1, 0}));
  one = make_blueprint(1, 0, {4, 5, 6}, Kind::r2c, Precision::float64, Options{});
  CHECK(one.stages[0].ops.size() == 1 && one.stages[0].ops[0].real &&
        one.stages[0].ops[0].axes == (std::vector<int>{2, 1, 0}));
  // Slabs 3x1: the row exchange is trivial; stage A does axes 2 and 1, then one column exchange.
  Options slab;
  slab.grid = {3, 1};
  auto s = make_blueprint(3, 1, {6, 6, 6}, Kind::c2c, Precision::float64, slab);
  CHECK(s.stages.size() == 2 && s.exchanges.size() == 1 && s.exchanges[0].name == "column");
  CHECK(s.stages[0].ops.size() == 1 && s.stages[0].ops[0].axes == (std::vector<int>{2, 1}));
  // 1x3: the column exchange is trivial; the last stage does axes 1 and 0.
  Options row;
  row.grid = {1, 3};
  s = make_blueprint(3, 2, {6, 6, 6}, Kind::c2c, Precision::float64, row);
  CHECK(s.stages.size() == 2 && s.exchanges.size() == 1 && s.exchanges[0].name == "row");
  CHECK(s.stages[1].ops.size() == 1 && s.stages[1].ops[0].axes == (std::vector<int>{1, 0}));
  // 2-D on 2 ranks: one exchange between slabs.
  s = make_blueprint(2, 0, {6, 6}, Kind::r2c, Precision::float64, Options{});
  CHECK(s.stages.size() == 2 && s.exchanges.size() == 1);
}

void memory_orders() {
  for (const Config& c : configs()) {
    for (const Blueprint& bp : all_ranks(c)) {
      CHECK_MSG(bp.stages.front().order == (core::Order{0, 1, 2}), c.text() << ": input not C order");
      for (std::size_t s = 1; s < bp.stages.size(); ++s) {
        const auto& st = bp.stages[s];
        const bool output = s + 1 == bp.stages.size();
        if (output && c.layout == Layout::natural) {
          CHECK_MSG(st.order == (core::Order{0, 1, 2}), c.text() << ": natural output not C order");
        } else {
          // The axis this stage transforms first is whole here and contiguous in memory.
          CHECK_MSG(st.order[2] == st.ops.front().axes.front(),
                    c.text() << ": stage " << s << " has axis " << st.order[2] << " fastest but "
                             << "transforms axis " << st.ops.front().axes.front() << " first");
        }
        auto sorted = st.order;
        std::sort(sorted.begin(), sorted.end());
        CHECK(sorted == (core::Order{0, 1, 2}));
      }
      if (bp.stages.size() == 1)
        CHECK_MSG(bp.stages[0].order == (core::Order{0, 1, 2}), c.text());
    }
  }
}

void strides_and_offsets() {
  Box b;
  b.lo = {10, 20, 30};
  b.hi = {12, 23, 34};  // extents 2, 3, 4
  auto s = core::strides_of(b, {0, 1, 2});
  CHECK(s[0] == 12 && s[1] == 4 && s[2] == 1);
  s = core::strides_of(b, {1, 2, 0});  // axis 0 fastest, then 2, then 1
  CHECK(s[0] == 1 && s[2] == 2 && s[1] == 8);
  Box sub;
  sub.lo = {11, 22, 31};
  sub.hi = {12, 23, 32};
  CHECK(core::offset_of(sub, b, s) == 1 * 1 + 2 * 8 + 1 * 2);
  CHECK(core::offset_of(b, b, s) == 0);
}

void workspace_holds_every_stage() {
  for (const Config& c : configs()) {
    for (const Blueprint& bp : all_ranks(c)) {
      if (bp.exchanges.empty()) continue;
      for (const auto& st : bp.stages)
        CHECK_MSG(bp.buffer_elements >= st.box.size(), c.text() << ": buffer below a stage");
      if (bp.engine == Engine::alltoall)
        for (const auto& ex : bp.exchanges)
          CHECK_MSG(bp.buffer_elements >= ex.max_block * Index(ex.members.size()),
                    c.text() << ": buffer below the padded all-to-all");
      CHECK(bp.workspace_bytes() >=
            std::size_t(bp.buffer_elements * bp.element_bytes) * std::size_t(bp.buffer_count));
    }
  }
}

// alltoallw packs nothing (its datatypes read the stage array), so its plans have no send area:
// one buffer less than alltoallv's for every kind, grid, padding and in-place choice (the count is
// derived from array_of, so this checks the rule itself), and the spare buffer of a two-stage plan
// (padded forward, r2c backward) is the one after the stages. Nor has the node engine's when
// every rank shares one node (it reads all its partners in shared memory).
void alltoallw_needs_no_send_area() {
  struct Case {
    Kind kind;
    std::array<int, 2> grid;
    bool padded, in_place;
  };
  for (const Case& c : std::vector<Case>{{Kind::c2c, {2, 1}, false, false}, {Kind::r2c, {2, 1}, false, false},
                                         {Kind::r2c, {2, 1}, true, false}, {Kind::c2c, {2, 2}, false, false},
                                         {Kind::r2c, {2, 2}, false, false}, {Kind::c2c, {2, 2}, true, false},
                                         {Kind::r2c, {2, 1}, false, true}, {Kind::c2c, {1, 4}, false, true}}) {
    Options o;
    o.grid = c.grid, o.in_place = c.in_place;
    if (c.padded) o.spectral_shape = {8, 8, 8};
    const int P = c.grid[0] * c.grid[1];
    o.engine = Engine::alltoallv;
    const Blueprint v = core::make_blueprint(P, 0, {12, 12, 12}, c.kind, Precision::float64, o);
    o.engine = Engine::alltoallw;
    const Blueprint w = core::make_blueprint(P, 0, {12, 12, 12}, c.kind, Precision::float64, o);
    const std::string label = std::string(to_string(c.kind)) + " grid " + std::to_string(c.grid[0]) + "x" +
                              std::to_string(c.grid[1]) + (c.padded ? " padded" : "") + (c.in_place ? " in place" : "");
    CHECK_MSG(v.send_area() && !w.send_area(), label);
    CHECK_MSG(w.buffer_count == v.buffer_count - 1, label << ": buffers " << w.buffer_count << " vs " << v.buffer_count);
    // The node engine: alltoallv's buffers where its ranks may be on several nodes (it sends to
    // the other nodes from its send area), alltoallw's where all of them share one.
    o.engine = Engine::node;
    const Blueprint spread = core::make_blueprint(P, 0, {12, 12, 12}, c.kind, Precision::float64, o);
    const Blueprint one = core::make_blueprint(P, 0, {12, 12, 12}, c.kind, Precision::float64, o, true, true);
    CHECK_MSG(spread.send_area() && !one.send_area(), label << ": node engine");
    CHECK_MSG(spread.buffer_count == v.buffer_count && one.buffer_count == w.buffer_count,
              label << ": node engine buffers " << spread.buffer_count << " (several nodes), " << one.buffer_count
                    << " (one node)");
    for (bool forward : {true, false})
      for (std::size_t s = 0; s < w.stages.size(); ++s) {
        const core::ArrayPlace at_w = core::array_of(w, forward, s), at_one = core::array_of(one, forward, s);
        CHECK_MSG(at_w.user_output == at_one.user_output && at_w.buffer == at_one.buffer,
                  label << ": node engine on one node, stage " << s);
      }
    // No stage array sits in alltoallv's send area, and alltoallw's take the same buffers or
    // lower ones (its spare buffer moves down into the send area's place).
    for (bool forward : {true, false})
      for (std::size_t s = 0; s < w.stages.size(); ++s) {
        const core::ArrayPlace at_v = core::array_of(v, forward, s), at_w = core::array_of(w, forward, s);
        CHECK_MSG(at_v.user_output == at_w.user_output, label << ": stage " << s);
        if (at_v.user_output) continue;
        CHECK_MSG(v.exchanges.empty() || at_v.buffer != core::send_buffer(v),
                  label << ": stage " << s << " in alltoallv's send area");
        CHECK_MSG(at_w.buffer <= at_v.buffer, label << ": stage " << s << " in buffer " << at_w.buffer << " vs "
                                                      << at_v.buffer);
      }
  }
}

// In place: the r2c input rows are padded to 2(n/2+1) reals, the one array holds the larger
// side, and the backward c2r runs in the user's array, so r2c needs one buffer less (none at
// one rank); the stages and exchanges are those of the out-of-place plan.
void in_place_blueprints() {
  for (const Config& c : configs()) {
    Options o;
    o.grid = c.grid, o.engine = c.engine, o.layout = c.layout;
    Options ip = o;
    ip.in_place = true;
    for (int r = 0; r < c.P; ++r) {
      const Blueprint out = make_blueprint(c.P, r, c.shape, c.kind, Precision::float64, o);
      const Blueprint in = make_blueprint(c.P, r, c.shape, c.kind, Precision::float64, ip);
      CHECK_MSG(in.stages.size() == out.stages.size() && in.exchanges.size() == out.exchanges.size(),
                c.text() << ": in place changed the stages");
      const Index n_last = in.shape[2], rows = in.real_box.extent(0) * in.real_box.extent(1);
      const Index row = c.kind == Kind::r2c ? 2 * (n_last / 2 + 1) : n_last;
      CHECK_MSG(in.input_count() == (in.real_box.empty() ? 0 : rows * row), c.text() << ": input_count " << in.input_count());
      const Index in_bytes = in.input_count() * (c.kind == Kind::r2c ? 8 : 16);
      CHECK(in.in_place_bytes() == std::max(in_bytes, in.output_count() * 16));
      int expected = out.buffer_count;
      if (c.kind == Kind::r2c && out.exchanges.empty()) expected = 0;
      if (c.kind == Kind::r2c && out.exchanges.size() == 1 && !core::engine_info(c.engine).receive_area) expected = 2;
      CHECK_MSG(in.buffer_count == expected, c.text() << ": in-place buffers " << in.buffer_count << ", expected " << expected);
      CHECK(core::array_of(in, false, 0).user_output);
    }
  }
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_blueprint",
      {{"stages_are_the_spec_pencils_and_tile", stages_are_the_spec_pencils_and_tile},
       {"exchange_boxes_agree_between_members", exchange_boxes_agree_between_members},
       {"trivial_exchanges_merge_stages", trivial_exchanges_merge_stages},
       {"memory_orders", memory_orders},
       {"strides_and_offsets", strides_and_offsets},
       {"workspace_holds_every_stage", workspace_holds_every_stage},
       {"in_place_blueprints", in_place_blueprints},
       {"alltoallw_needs_no_send_area", alltoallw_needs_no_send_area}});
}
