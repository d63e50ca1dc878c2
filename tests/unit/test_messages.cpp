// Error messages of validate() and parse_*(): each names the argument, what was expected and
// what was given, and is a volfft::Error.
#include <string>
#include <typeinfo>

#include "core/blueprint.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"
#include "volfft/error.hpp"
#include "volfft/options.hpp"

using namespace volfft;
using core::validate;

namespace {

// The message of the volfft::Error that `f` throws ("" if it throws nothing; a note if it throws
// another type).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a volfft::Error: ") + typeid(e).name() + ": " + e.what() + ">";
  }
  return "";
}

#define CHECK_ERROR(expr, fragment)                                                         \
  do {                                                                                      \
    const std::string got_ = error_of([&] { expr; });                                       \
    CHECK_MSG(got_.find(fragment) != std::string::npos,                                     \
              #expr << ": expected a volfft::Error containing '" << (fragment) << "'; got '" \
                    << got_ << "'");                                                        \
  } while (0)

Options grid(int p0, int p1) {
  Options o;
  o.grid = {p0, p1};
  return o;
}

Options order(std::vector<int> ranks) {
  Options o;
  o.rank_order = std::move(ranks);
  return o;
}

void grid_product_must_be_the_communicator_size() {
  CHECK_ERROR(validate(4, {8, 8, 8}, grid(3, 2)),
              "volfft: grid 3x2 has 6 ranks but the communicator has 4 (p0*p1 must equal the "
              "communicator size)");
  CHECK_ERROR(validate(6, {8, 8, 8}, grid(2, 2)), "grid 2x2 has 4 ranks but the communicator has 6");
  // The product in 64 bits (an int product wrapped to "0 ranks").
  CHECK_ERROR(validate(4, {8, 8, 8}, grid(65536, 65536)), "grid 65536x65536 has 4294967296 ranks but");
  CHECK_ERROR(validate(4, {8, 8, 8}, grid(0, 4)), "grid must be p0 x p1 with p0, p1 >= 1");
  CHECK_ERROR(validate(4, {8, 8, 8}, grid(-2, -2)), "got -2x-2");
  CHECK_ERROR(validate(0, {8, 8, 8}, Options{}), "at least one rank");
  // Valid grids pass.
  CHECK(error_of([] { validate(6, {8, 8, 8}, grid(2, 3)); }).empty());
  CHECK(error_of([] { validate(6, {8, 8, 8}, grid(0, 0)); }).empty());
}

void sizes_must_be_positive() {
  CHECK_ERROR(validate(1, {8, 0, 8}, Options{}), "volfft: shape[1] must be a positive size; got 0");
  CHECK_ERROR(validate(1, {-3, 8, 8}, Options{}), "shape[0] must be a positive size; got -3");
  CHECK_ERROR(validate(1, {4, 0}, Options{}), "shape[1] must be a positive size; got 0");
  CHECK(error_of([] { validate(1, {1, 1, 1}, Options{}); }).empty());
}

void ndim_must_be_two_or_three() {
  CHECK_ERROR(validate(1, {8}, Options{}), "shape must have at least 2 entries (a 2-D or larger array); got 1");
  // validate() plans 2-D and 3-D shapes; Plan splits larger ones first (core/trailing_axes.hpp).
  CHECK_ERROR(validate(1, {2, 2, 2, 2}, Options{}), "shape has 4 entries; plans of more than 3 axes are made by Plan");
  CHECK_ERROR(validate(1, {}, Options{}), "got 0");
}

void two_dimensional_arrays_need_p1_one() {
  CHECK_ERROR(validate(4, {8, 8}, grid(2, 2)),
              "volfft: 2-D arrays are decomposed in slabs only: grid must be 4x1; got 2x2");
  CHECK_ERROR(validate(3, {8, 8}, grid(1, 3)), "grid must be 3x1; got 1x3");
  CHECK(error_of([] { validate(3, {8, 8}, grid(3, 1)); }).empty());
}

void rank_order_must_be_a_permutation() {
  CHECK_ERROR(validate(4, {8, 8, 8}, order({0, 1, 2, 5})),
              "volfft: rank_order must be a permutation of 0..3; entry 5 is out of range");
  CHECK_ERROR(validate(4, {8, 8, 8}, order({0, 1, -1, 2})), "entry -1 is out of range");
  CHECK_ERROR(validate(4, {8, 8, 8}, order({0, 1, 1, 2})), "permutation of 0..3; entry 1 repeats");
  CHECK_ERROR(validate(4, {8, 8, 8}, order({0, 1, 2})),
              "rank_order must have one entry per rank (4); got 3");
  CHECK(error_of([] { validate(4, {8, 8, 8}, order({3, 1, 0, 2})); }).empty());
}

void workspace_size_without_a_pointer() {
  Options o;
  o.workspace_bytes = 128;
  CHECK_ERROR(validate(1, {8, 8, 8}, o), "workspace_bytes is set but workspace is null");
}

void in_place_with_padding() {
  Options o;
  o.in_place = true;
  o.spectral_shape = {4, 4, 4};
  CHECK_ERROR(validate(1, {8, 8, 8}, o), "in_place does not combine with spectral_shape");
  o.spectral_shape.clear();
  CHECK(error_of([&] { validate(1, {8, 8, 8}, o); }).empty());
}

void make_blueprint_validates() {
  CHECK_ERROR(core::make_blueprint(4, 0, {8, 8, 8}, Kind::c2c, Precision::float64, grid(3, 2)),
              "p0*p1 must equal the communicator size");
}

void names_round_trip() {
  for (Kind v : {Kind::c2c, Kind::r2c}) CHECK(parse_kind(to_string(v)) == v);
  for (Precision v : {Precision::float64, Precision::float32}) CHECK(parse_precision(to_string(v)) == v);
  for (Engine v : {Engine::automatic, Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p})
    CHECK(parse_engine(to_string(v)) == v);
  for (Layout v : {Layout::transposed, Layout::natural}) CHECK(parse_layout(to_string(v)) == v);
  for (Effort v : {Effort::estimate, Effort::measure, Effort::patient}) CHECK(parse_effort(to_string(v)) == v);
  CHECK(to_string(Engine::automatic) == std::string("auto"));
  CHECK(to_string(Precision::float32) == std::string("float"));
  // numpy's names are accepted for precision.
  CHECK(parse_precision("float32") == Precision::float32);
  CHECK(parse_precision("float64") == Precision::float64);
}

void parse_messages_name_the_accepted_values() {
  CHECK_ERROR(parse_kind("c2r"), "volfft: kind must be one of 'c2c', 'r2c', 'r2r'; got 'c2r'");
  CHECK_ERROR(parse_precision("half"), "volfft: precision must be one of 'double', 'float'; got 'half'");
  // The engine list grows with new engines: every known name must be offered.
  CHECK_ERROR(parse_engine("mpi"), "volfft: engine must be one of 'auto', 'alltoallv', ");
  CHECK_ERROR(parse_engine("mpi"), "; got 'mpi'");
  for (Engine e : {Engine::alltoall, Engine::alltoallw, Engine::p2p})
    CHECK_ERROR(parse_engine("mpi"), std::string("'") + to_string(e) + "'");
  CHECK_ERROR(parse_layout("C"), "volfft: layout must be one of 'transposed', 'natural'; got 'C'");
  CHECK_ERROR(parse_effort("exhaustive"),
              "volfft: effort must be one of 'estimate', 'measure', 'patient'; got 'exhaustive'");
  // Names are exact: no case folding, no surrounding blanks.
  CHECK_ERROR(parse_engine("P2P"), "got 'P2P'");
  CHECK_ERROR(parse_kind(" c2c"), "got ' c2c'");
  CHECK_ERROR(parse_layout(""), "got ''");
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_messages",
      {{"grid_product_must_be_the_communicator_size", grid_product_must_be_the_communicator_size},
       {"sizes_must_be_positive", sizes_must_be_positive},
       {"ndim_must_be_two_or_three", ndim_must_be_two_or_three},
       {"two_dimensional_arrays_need_p1_one", two_dimensional_arrays_need_p1_one},
       {"rank_order_must_be_a_permutation", rank_order_must_be_a_permutation},
       {"workspace_size_without_a_pointer", workspace_size_without_a_pointer},
       {"in_place_with_padding", in_place_with_padding},
       {"make_blueprint_validates", make_blueprint_validates},
       {"names_round_trip", names_round_trip},
       {"parse_messages_name_the_accepted_values", parse_messages_name_the_accepted_values}});
}
