// describe(): the plan as plain data for the performance model. The bytes of all messages of an
// exchange equal the data that changes owner in it (computed here from the spec's pencils);
// messages stay inside a grid row or column; boxes and grids are the user-facing ones.
#include <set>
#include <sstream>
#include <utility>

#include "support/check.hpp"
#include "unit/spec_boxes.hpp"
#include "unit/unit_main.hpp"
#include "volfft/description.hpp"
#include "volfft/error.hpp"

using namespace volfft;
using volfft_test::Index;
using volfft_test::spec_pencils;

namespace {

struct Case {
  std::vector<Index> shape;
  std::array<int, 2> grid;  // user grid
  int P;
};

std::string text(const Case& c, Kind kind, Precision prec) {
  std::ostringstream os;
  os << "shape (";
  for (std::size_t a = 0; a < c.shape.size(); ++a) os << (a ? "," : "") << c.shape[a];
  os << ") grid " << c.grid[0] << "x" << c.grid[1] << " P=" << c.P << " " << to_string(kind)
     << " " << to_string(prec);
  return os.str();
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int P = 1; P <= 6; ++P) {
    for (const std::vector<Index>& s :
         std::vector<std::vector<Index>>{{8, 8, 8}, {7, 9, 11}, {3, 4, 2}, {1, 5, 6}, {5, 1, 3}})
      for (int p0 = 1; p0 <= P; ++p0)
        if (P % p0 == 0) out.push_back({s, {p0, P / p0}, P});
    out.push_back({{9, 7}, {P, 1}, P});
    out.push_back({{2, 5}, {P, 1}, P});
  }
  return out;
}

void message_bytes_equal_the_data_that_moves() {
  for (const Case& c : cases())
    for (Kind kind : {Kind::c2c, Kind::r2c})
      for (Precision prec : {Precision::float64, Precision::float32}) {
        Options o;
        o.grid = c.grid;
        const PlanDescription d = describe(c.P, c.shape, kind, prec, o);
        const std::string label = text(c, kind, prec);
        const bool two_d = c.shape.size() == 2;
        const std::array<Index, 3> n = two_d ? std::array<Index, 3>{1, c.shape[0], c.shape[1]}
                                             : std::array<Index, 3>{c.shape[0], c.shape[1], c.shape[2]};
        const Index nc = kind == Kind::r2c ? n[2] / 2 + 1 : n[2];
        const int p0 = two_d ? 1 : c.grid[0], p1 = two_d ? c.P : c.grid[1];
        const Index bytes_per = prec == Precision::float64 ? 16 : 8;
        CHECK_MSG(d.element_bytes == bytes_per, label);
        CHECK_MSG(d.grid == c.grid, label << ": grid " << d.grid[0] << "x" << d.grid[1]);
        // The description speaks the user's axes (2-D: no leading unit axis).
        CHECK(d.ndim == static_cast<int>(c.shape.size()) && d.shape == c.shape);
        const auto user = [&](Box b) {  // the spec's internal 3-D box in user axes
          if (!two_d) return b;
          Box u;
          u.lo = {b.lo[1], b.lo[2], 0};
          u.hi = {b.hi[1], b.hi[2], 1};
          return u;
        };

        // Stage boxes per virtual rank, from the spec: A, then B (p1 > 1), then C (p0 > 1).
        std::vector<std::vector<Box>> stage(c.P);
        for (int v = 0; v < c.P; ++v) {
          const auto sp = spec_pencils(n, nc, p0, p1, v / p1, v % p1);
          stage[v].push_back(sp.a);
          if (p1 > 1) stage[v].push_back(sp.b);
          if (p0 > 1) stage[v].push_back(sp.c);
          Box real = sp.a;
          real.hi[2] = n[2];
          CHECK_MSG(static_cast<int>(d.input_boxes.size()) == c.P && d.input_boxes[v] == user(real),
                    label << ": input box of vrank " << v);
          CHECK_MSG(static_cast<int>(d.output_boxes.size()) == c.P && d.output_boxes[v] == user(sp.c),
                    label << ": output box of vrank " << v);
        }
        const std::size_t exchanges = stage[0].size() - 1;
        CHECK_MSG(d.exchanges.size() == exchanges,
                  label << ": " << d.exchanges.size() << " exchanges, expected " << exchanges);
        if (d.exchanges.size() != exchanges) continue;
        for (std::size_t k = 0; k < exchanges; ++k) {
          const bool row = p1 > 1 && k == 0;
          // 2-D: the internal row exchange (grid 1 x P) is the user's column (grid P x 1).
          CHECK(d.exchanges[k].name == (row && !two_d ? "row" : "column"));
          Index moved = 0;
          for (int v = 0; v < c.P; ++v)
            moved += stage[v][k].size() - stage[v][k].intersect(stage[v][k + 1]).size();
          Index total = 0;
          std::set<std::pair<int, int>> pairs;
          for (const Message& m : d.exchanges[k].messages) {
            total += m.bytes;
            CHECK_MSG(m.source != m.destination && m.bytes > 0, label << ": a self or empty message");
            CHECK_MSG(m.source >= 0 && m.source < c.P && m.destination >= 0 && m.destination < c.P,
                      label << ": message between " << m.source << " and " << m.destination);
            // A row exchange stays in a row (same i), a column exchange in a column (same j).
            if (row)
              CHECK_MSG(m.source / p1 == m.destination / p1, label << ": row message leaves its row");
            else
              CHECK_MSG(m.source % p1 == m.destination % p1, label << ": column message leaves its column");
            CHECK_MSG(pairs.insert({m.source, m.destination}).second, label << ": duplicate message");
            // Its size is the overlap of the source's box before and the destination's after.
            const Index overlap = stage[m.source][k].intersect(stage[m.destination][k + 1]).size();
            CHECK_MSG(m.bytes == overlap * bytes_per, label << ": message " << m.source << "->"
                                                            << m.destination << " has " << m.bytes
                                                            << " bytes, expected " << overlap * bytes_per);
          }
          CHECK_MSG(total == moved * bytes_per, label << ": exchange " << k << " sends " << total
                                                      << " bytes, but " << moved * bytes_per
                                                      << " change owner");
        }
      }
}

void two_d_plans_speak_user_axes() {
  for (int P : {1, 3}) {
    const PlanDescription d = describe(P, {10, 6}, Kind::r2c, Precision::float64, Options{});
    std::vector<int> axes;
    for (const auto& s : d.stages) {
      axes.insert(axes.end(), s.axes.begin(), s.axes.end());
      for (int a : s.memory_order) CHECK_MSG(a == 0 || a == 1, "2-D memory order has axis " << a);
    }
    CHECK_MSG(axes == (std::vector<int>{1, 0}), "2-D stages on " << P << " ranks");
    CHECK(d.input_order == (std::vector<int>{0, 1}));
    CHECK(d.grid == (std::array<int, 2>{P, 1}));
    CHECK(d.input_boxes[0].lo[2] == 0 && d.input_boxes[0].hi[2] == 1);
    CHECK(d.input_boxes[0].hi[1] == 6);
  }
}

void stages_cover_every_axis_once() {
  const PlanDescription d = describe(4, {6, 6, 6}, Kind::r2c, Precision::float64, Options{});
  std::vector<int> axes;
  for (const auto& s : d.stages) axes.insert(axes.end(), s.axes.begin(), s.axes.end());
  CHECK(axes == (std::vector<int>{2, 1, 0}));
  CHECK(!d.stages.empty() && d.stages.front().real);
  CHECK(d.input_order == (std::vector<int>{0, 1, 2}));
  Options natural;
  natural.layout = Layout::natural;
  const PlanDescription n = describe(4, {6, 6, 6}, Kind::c2c, Precision::float64, natural);
  CHECK(n.output_order == (std::vector<int>{0, 1, 2}));
  CHECK(n.layout == Layout::natural);
}

void automatic_choices_are_reported() {
  const PlanDescription d = describe(4, {3, 4, 2}, Kind::c2c, Precision::float64, Options{});
  CHECK(d.grid[0] * d.grid[1] == 4);
  CHECK(d.engine != Engine::automatic);
  const PlanDescription two = describe(3, {5, 7}, Kind::c2c, Precision::float32, Options{});
  CHECK(two.grid == (std::array<int, 2>{3, 1}));
}

void invalid_arguments_throw_like_plan() {
  Options o;
  o.grid = {3, 2};
  CHECK_THROWS_WITH(describe(4, {8, 8, 8}, Kind::c2c, Precision::float64, o),
                    "p0*p1 must equal the communicator size");
  CHECK_THROWS_WITH(describe(4, {8, -1, 8}, Kind::c2c, Precision::float64, Options{}),
                    "shape[1] must be a positive size; got -1");
  bool is_error = false;
  try {
    describe(2, {8}, Kind::c2c, Precision::float64, Options{});
  } catch (const Error&) {
    is_error = true;
  }
  CHECK_MSG(is_error, "describe must throw volfft::Error for a 1-D shape");
  // No ranks: nothing to describe (a loop over no ranks checked nothing and returned).
  CHECK_THROWS_WITH(describe(0, {8, 8, 8}, Kind::c2c, Precision::float64, Options{}), "comm_size must be >= 1; got 0");
  // Engine pipelined in place with one exchange, refused by Plan through the engine's check.
  Options pipelined;
  pipelined.engine = Engine::pipelined;
  pipelined.in_place = true;
  pipelined.grid = {2, 1};
  CHECK_THROWS_WITH(describe(2, {8, 8, 8}, Kind::c2c, Precision::float64, pipelined),
                    "engine 'pipelined' does not apply to an in-place plan with one exchange");
  pipelined.grid = {2, 2};  // two exchanges: it applies
  CHECK(describe(4, {8, 8, 8}, Kind::c2c, Precision::float64, pipelined).engine == Engine::pipelined);
  pipelined.in_place = false;
  pipelined.grid = {2, 1};
  CHECK(describe(2, {8, 8, 8}, Kind::c2c, Precision::float64, pipelined).engine == Engine::pipelined);
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_describe",
      {{"message_bytes_equal_the_data_that_moves", message_bytes_equal_the_data_that_moves},
       {"stages_cover_every_axis_once", stages_cover_every_axis_once},
       {"two_d_plans_speak_user_axes", two_d_plans_speak_user_axes},
       {"automatic_choices_are_reported", automatic_choices_are_reported},
       {"invalid_arguments_throw_like_plan", invalid_arguments_throw_like_plan}});
}
