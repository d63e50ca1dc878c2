// The measured planner: every rank takes the same choice even when their timings differ;
// a wisdom file is written, reloaded and used without measuring; a corrupt or foreign wisdom
// file is rejected with a clear message and planning goes on.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>

#include "support/mpi_main.hpp"
#include "volfft/plan.hpp"

using namespace volfft;

namespace {

// All ranks must hold the same (grid, engine, planes).
void check_same_choice(const Plan& plan, const char* label) {
  const auto g = plan.grid();
  int mine[4] = {g[0], g[1], static_cast<int>(plan.engine()), plan.planes()};
  int lo[4], hi[4];
  MPI_Allreduce(mine, lo, 4, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine, hi, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int k = 0; k < 4; ++k) CHECK_MSG(lo[k] == hi[k], label << ": ranks chose differently (field " << k << ")");
}

std::string wisdom_path() {
  // One path for all ranks: rank 0 picks it.
  char name[256] = {0};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::snprintf(name, sizeof name, "/tmp/volfft-wisdom-test-%d.json", static_cast<int>(getpid()));
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  return volfft_test::run_mpi_test(argc, argv, [](int rank, int size) {
    Options o;  // grid, engine, planes automatic; tune > 0: measures when size > 1
    o.tune = 600;
    const std::vector<std::int64_t> shape{12, 10, 9};

    // 0. The default (tune 0) chooses by rule, without timing anything: the node engine when
    //    ranks share a node (all of this job's do), else alltoallv; alltoallv also when the
    //    plan gets a workspace of the caller's (it cannot be shared memory).
    {
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, Options{});
      CHECK_MSG(plan.tuning_report().empty(), plan.tuning_report());
      CHECK(plan.engine() == (size > 1 ? Engine::node : Engine::alltoallv));
      Options alone;
      alone.ranks_per_node = 1;  // every rank a node of its own
      CHECK(Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, alone).engine() == Engine::alltoallv);
      Options given;
      std::vector<unsigned char> memory(
          Plan::required_workspace_bytes(size, rank, shape, Kind::c2c, Precision::float64, given));
      given.workspace = memory.data(), given.workspace_bytes = memory.size();
      Plan with_workspace(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, given);
      CHECK(with_workspace.engine() == Engine::alltoallv);
      CHECK(with_workspace.workspace_bytes() == memory.size());
    }

    // 1. Per-rank noise (up to 50 ms, larger than the differences measured): same choice.
    setenv("VOLFFT_TUNE_NOISE", "0.05", 1);
    {
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      check_same_choice(plan, "noisy timings");
      if (size > 1) CHECK_MSG(plan.tuning_report().find("<- chosen") != std::string::npos, plan.tuning_report());
      else CHECK(plan.tuning_report().empty());  // one rank: nothing to choose
    }
    unsetenv("VOLFFT_TUNE_NOISE");
    if (size == 1) return;

    // 2. Wisdom: written after measuring, then used without measuring.
    const std::string path = wisdom_path();
    if (rank == 0) std::remove(path.c_str());
    MPI_Barrier(MPI_COMM_WORLD);
    o.wisdom_file = path;
    std::array<int, 2> first_grid{};
    Engine first_engine{};
    {
      Plan plan(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, o);
      CHECK(plan.tuning_report().find("<- chosen") != std::string::npos);
      first_grid = plan.grid(), first_engine = plan.engine();
      check_same_choice(plan, "first tuning");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
      std::ifstream f(path);
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      CHECK_MSG(text.find("volfft-wisdom/1") != std::string::npos, "wisdom file not written: " << text);
    }
    {
      Plan plan(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, o);
      CHECK_MSG(plan.tuning_report().find("from wisdom file") != std::string::npos, plan.tuning_report());
      CHECK(plan.grid() == first_grid);
      CHECK(plan.engine() == first_engine);
    }
    // A different problem in the same file is measured (and added).
    {
      Plan plan(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float32, o);
      CHECK(plan.tuning_report().find("<- chosen") != std::string::npos);
    }

    // An entry whose configuration this plan cannot take (a file edited by hand, or written for
    // another communicator): rejected with the reason, measured, the file left as it was. It
    // once failed the plan ("grid 9x9 has 81 ranks"), naming neither the file nor the entry.
    // `field` ("grid" or "engine") of every entry becomes `value`; `options` plans again;
    // `reason` must be reported.
    auto rejected_after_edit = [&](const Options& options, const std::string& field, const std::string& value,
                                   const std::string& entry, const std::string& reason) {
      std::string edited;
      if (rank == 0) {
        std::ifstream f(path);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        // The entry's own value: a grid as an array (its key writes "2x1" or "auto"); the first
        // engine, the entry's (the writer sorts its fields: "engine" before "key").
        const std::regex old_value(field == "grid" ? R"("grid": \[\d+, \d+\])" : R"("engine": "[a-z0-9]+")");
        edited = std::regex_replace(text, old_value, "\"" + field + "\": " + value,
                                    field == "grid" ? std::regex_constants::format_default
                                                    : std::regex_constants::format_first_only);
        CHECK_MSG(edited != text, "no " << field << " to edit in " << text);
        std::ofstream(path) << edited;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      Plan plan(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, options);
      CHECK_MSG(plan.tuning_report().find("rejected (its entry for this problem, " + entry) != std::string::npos &&
                    plan.tuning_report().find(reason) != std::string::npos,
                plan.tuning_report());
      CHECK(plan.tuning_report().find("<- chosen") != std::string::npos);
      check_same_choice(plan, "after an entry that does not fit");
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        std::ifstream f(path);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        CHECK(text == edited);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    };
    rejected_after_edit(o, "grid", "[9, 9]", "9x9 ", "grid 9x9 has 81 ranks but the communicator has");
    // A grid the user fixed is kept: an entry (under that grid's key) with another grid is not
    // taken, though that grid would be valid here.
    {
      Options fixed = o;
      fixed.grid = {size, 1};
      if (rank == 0) std::remove(path.c_str());
      MPI_Barrier(MPI_COMM_WORLD);
      { Plan measured(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, fixed); }  // writes its entry
      MPI_Barrier(MPI_COMM_WORLD);
      const std::string other = "1x" + std::to_string(size);
      rejected_after_edit(fixed, "grid", "[1, " + std::to_string(size) + "]", other + " ",
                          "the plan's grid is fixed to " + std::to_string(size) + "x1");
    }
    // The same for an engine the user fixed.
    {
      Options fixed = o;
      fixed.engine = Engine::alltoallv;
      if (rank == 0) std::remove(path.c_str());
      MPI_Barrier(MPI_COMM_WORLD);
      { Plan measured(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, fixed); }  // writes its entry
      MPI_Barrier(MPI_COMM_WORLD);
      rejected_after_edit(fixed, "engine", "\"p2p\"", "", "the plan's engine is fixed to 'alltoallv'");
    }

    // 3. Corrupt and foreign files: rejected with a message; planning goes on; file unchanged.
    for (const char* content : {"{ this is not json", "{\"schema\": \"someone-else/3\", \"entries\": []}"}) {
      if (rank == 0) std::ofstream(path) << content;
      MPI_Barrier(MPI_COMM_WORLD);
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      CHECK_MSG(plan.tuning_report().find("rejected") != std::string::npos, plan.tuning_report());
      CHECK(plan.tuning_report().find("<- chosen") != std::string::npos);
      check_same_choice(plan, "after a rejected file");
      MPI_Barrier(MPI_COMM_WORLD);
      std::ifstream f(path);
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      CHECK(text == content);
      MPI_Barrier(MPI_COMM_WORLD);  // everyone has read before rank 0 writes the next one
    }
    if (rank == 0) std::remove(path.c_str());

    // 4. A budget: with tune = 1 s and noise of 0.6 s per timing (four timings a candidate),
    //    the first candidate spends it; the rest are reported as not timed, and the choice is
    //    still the same everywhere.
    setenv("VOLFFT_TUNE_NOISE", "0.6", 1);
    {
      Options b;
      b.tune = 1;
      b.grid = {size, 1};
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, b);
      check_same_choice(plan, "tuning within a budget");
      CHECK_MSG(plan.tuning_report().find("not timed: the budget of tune=1 s was spent") != std::string::npos,
                plan.tuning_report());
      CHECK_MSG(plan.tuning_report().find("volfft autotune: 1 of ") != std::string::npos, plan.tuning_report());
    }
    unsetenv("VOLFFT_TUNE_NOISE");

    // 5. A workspace of the user's, sized for the untuned plan: the tuner keeps to it (the
    //    pipelined engine needs a fourth buffer, so it never fits) and the plan uses at most it.
    {
      Options w;
      w.tune = 600;
      const std::size_t bytes = Plan::required_workspace_bytes(size, rank, shape, Kind::c2c, Precision::float64, w);
      std::vector<unsigned char> workspace(bytes);
      w.workspace = workspace.data(), w.workspace_bytes = bytes;
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, w);
      CHECK_MSG(plan.workspace_bytes() <= bytes, plan.workspace_bytes() << " > " << bytes);
      CHECK(plan.engine() != Engine::pipelined);
      CHECK_MSG(plan.tuning_report().find("needs more than the given workspace") != std::string::npos,
                plan.tuning_report());
      check_same_choice(plan, "tuning within a user workspace");
    }

    // 6. A rank that cannot have the arrays to time on (short of memory): every candidate backs
    //    out on every rank with the reason, instead of that rank throwing std::bad_alloc alone
    //    while the others wait in the timing's collectives (a hang).
    setenv("VOLFFT_TEST_TUNE_NO_MEMORY", "1", 1);
    {
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      CHECK_MSG(plan.tuning_report().find("could not allocate") != std::string::npos &&
                    plan.tuning_report().find("(on rank 1)") != std::string::npos &&
                    plan.tuning_report().find("none could be timed") != std::string::npos,
                plan.tuning_report());
      check_same_choice(plan, "a rank short of memory");
    }
    unsetenv("VOLFFT_TEST_TUNE_NO_MEMORY");

    // 7. The key holds what changes the timings: an entry of the plain plan is not taken by a
    //    plan of more fields, more threads, other kinds or effort patient (more candidates).
    {
      if (rank == 0) std::remove(path.c_str());
      MPI_Barrier(MPI_COMM_WORLD);
      { Plan measured(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o); }  // writes its entry
      std::vector<Options> others(4, o);
      others[0].batch = 2;
      others[1].threads = 2;
      others[2].kinds = {AxisKind::dft, AxisKind::none, AxisKind::dft};
      others[3].effort = Effort::patient;
      for (const Options& other : others) {
        Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, other);
        CHECK_MSG(plan.tuning_report().find("<- chosen") != std::string::npos, plan.tuning_report());
      }
      Plan again(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      CHECK_MSG(again.tuning_report().find("from wisdom file") != std::string::npos, again.tuning_report());
    }

    // 8. An entry whose values are not what the writer writes (a hand edit): rejected, naming the
    //    field, never read as another configuration (["a", "b"] was grid 0x0, 2.5 planes 2).
    for (const auto& [from, to, reason] :
         std::vector<std::array<std::string, 3>>{{R"("grid": \[\d+, \d+\])", R"("grid": ["a", "b"])", "grid[0]"},
                                                 {R"("grid": \[(\d+), (\d+)\])", R"("grid": [$1.5, $2])", "grid[0] "},
                                                 {R"("planes": -?\d+,(\s*"seconds"))", R"("planes": null,$1)", "planes null"},
                                                 {R"("engine": "[a-z0-9]+")", R"("engine": "auto")", "engine 'auto'"}}) {
      if (rank == 0) std::remove(path.c_str());
      MPI_Barrier(MPI_COMM_WORLD);
      { Plan measured(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o); }
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        std::ifstream f(path);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        const std::string edited = std::regex_replace(text, std::regex(from), to, std::regex_constants::format_first_only);
        CHECK_MSG(edited != text, "nothing to edit in " << text);
        std::ofstream(path) << edited;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      CHECK_MSG(plan.tuning_report().find("rejected (its entry for this problem has " + reason) != std::string::npos &&
                    plan.tuning_report().find("<- chosen") != std::string::npos,
                plan.tuning_report());
      check_same_choice(plan, "after an entry with values of the wrong type");
      MPI_Barrier(MPI_COMM_WORLD);
    }

    // 9. An empty file (touch) holds no entries yet: measured and written, not rejected forever.
    {
      if (rank == 0) std::ofstream(path).close();
      MPI_Barrier(MPI_COMM_WORLD);
      { Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o); }
      Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      CHECK_MSG(plan.tuning_report().find("from wisdom file") != std::string::npos, plan.tuning_report());
    }
    if (rank == 0) std::remove(path.c_str());

    // 11. No candidate applies (engine pipelined in place: not on a grid with one exchange, and
    //     at np 2, 3 and 5 every grid has one): nothing is written to the file, which once got
    //     the untimed first candidate with "seconds": inf (not JSON) before the plan failed.
    {
      if (rank == 0) std::remove(path.c_str());
      MPI_Barrier(MPI_COMM_WORLD);
      Options none_apply = o;
      none_apply.engine = Engine::pipelined, none_apply.in_place = true;
      try {
        Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, none_apply);
      } catch (const Error&) {
      }
      MPI_Barrier(MPI_COMM_WORLD);
      std::ifstream f(path);
      const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      CHECK_MSG(text.find("inf") == std::string::npos, text);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) std::remove(path.c_str());
    }

    // 10. A file that can never be created (a name longer than the file system's 255 bytes) is
    //     refused when the plan is made, on every rank, instead of being measured for and then
    //     silently not written, run after run.
    {
      Options bad = o;
      bad.wisdom_file = "/tmp/" + std::string(300, 'w') + ".json";
      CHECK_THROWS_WITH(Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, bad),
                        "(File name too long)");
    }
  });
}
