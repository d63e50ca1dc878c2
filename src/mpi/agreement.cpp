#include "mpi/agreement.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "core/hash.hpp"
#include "core/option_table.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft::mpi {
namespace {

// One rank's arguments as fixed-size integers, so one MPI_Allgather compares them all: the
// problem, then a hash of every option that must agree (core::option_table), then this rank's
// own outcome.
enum Field { kNdim, kShape, kKind, kPrecision, kOptions };

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t a = 0; a < shape.size(); ++a) s += (a ? ", " : "") + std::to_string(shape[a]);
  return s + ")";
}

// min_memory first: the plan derives engine and effort from it before this agreement, so where
// it differs between ranks those differ too, and the report must name the option the user set.
std::vector<const core::OptionSpec*> agreed_options() {
  std::vector<const core::OptionSpec*> specs;
  for (const core::OptionSpec& s : core::option_table())
    if (s.agreed) specs.push_back(&s);
  std::stable_partition(specs.begin(), specs.end(),
                        [](const core::OptionSpec* s) { return std::string(s->name) == "min_memory"; });
  return specs;
}

// Sends `text` from rank `root` to every rank (collective).
std::string broadcast(MPI_Comm comm, std::string text, int root) {
  int length = static_cast<int>(text.size());
  check(MPI_Bcast(&length, 1, MPI_INT, root, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) check(MPI_Bcast(&text[0], length, MPI_CHAR, root, comm), "MPI_Bcast");
  return text;
}

}  // namespace

void agree_on_arguments(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind,
                        Precision precision, const Options& options,
                        const std::string& local_error, std::size_t workspace_needed) {
  const auto specs = agreed_options();
  const int compared = kOptions + static_cast<int>(specs.size());
  const int local_error_field = compared, given_field = compared + 1, needed_field = compared + 2;
  const int fields = compared + 3;
  std::vector<std::int64_t> mine(static_cast<std::size_t>(fields), 0);
  core::Fnv1a shape_hash;
  for (auto n : shape) shape_hash.mix(static_cast<std::uint64_t>(n));
  mine[kNdim] = static_cast<std::int64_t>(shape.size());
  mine[kShape] = static_cast<std::int64_t>(shape_hash.value >> 1);
  mine[kKind] = static_cast<int>(kind);
  mine[kPrecision] = static_cast<int>(precision);
  for (std::size_t k = 0; k < specs.size(); ++k)
    mine[kOptions + k] = static_cast<std::int64_t>(core::option_hash(*specs[k], options) >> 1);
  mine[local_error_field] = local_error.empty() ? 0 : 1;
  mine[given_field] = options.workspace ? static_cast<std::int64_t>(options.workspace_bytes) : -1;
  mine[needed_field] = static_cast<std::int64_t>(workspace_needed);

  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> all(static_cast<std::size_t>(size) * fields);
  check(MPI_Allgather(mine.data(), fields, MPI_INT64_T, all.data(), fields, MPI_INT64_T, comm), "MPI_Allgather");
  auto at = [&](int r, int f) { return all[static_cast<std::size_t>(r) * fields + f]; };
  for (int f = 0; f < compared; ++f) {
    for (int r = 1; r < size; ++r) {
      if (at(0, f) == at(r, f)) continue;
      // Every rank found the same (f, r): ranks 0 and r say what they passed.
      std::string name, text;
      if (f == kNdim || f == kShape) {
        name = "shape", text = shape_text(shape);
      } else if (f == kKind) {
        name = "kind", text = to_string(kind);
      } else if (f == kPrecision) {
        name = "precision", text = to_string(precision);
      } else {
        const core::OptionSpec& spec = *specs[static_cast<std::size_t>(f - kOptions)];
        name = spec.name, text = core::value_text(spec, spec.get(options));
        // Defaults by what they mean (Python passes grid "auto" and no kinds as these).
        if (text == "[]") text += " (the default)";
        if (name == "grid" && text == "[0, 0]") text += " (automatic)";
        // Plan takes an empty wisdom_file from VOLFFT_WISDOM: a variable set on some ranks only
        // is named as such, not as an argument the caller never passed.
        const char* env = std::getenv("VOLFFT_WISDOM");
        if (name == "wisdom_file" && env && options.wisdom_file == env) text += " (from VOLFFT_WISDOM)";
      }
      const std::string first = broadcast(comm, text, 0), other = broadcast(comm, text, r);
      throw Error("volfft: plan arguments differ across ranks: " + name + " is " + first + " on rank 0 but " +
                  other + " on rank " + std::to_string(r) + " (every rank must pass the same)");
    }
  }
  // Same arguments everywhere; a validation error can still be one rank's own (its workspace,
  // say): the lowest failing rank's message goes to all.
  bool any_error = false;
  for (int r = 0; r < size; ++r) any_error = any_error || at(r, local_error_field);
  if (any_error) agree_or_throw(comm, local_error);
  for (int r = 0; r < size; ++r) {
    if (at(r, given_field) >= 0 && at(r, given_field) < at(r, needed_field))
      throw Error("volfft: workspace on rank " + std::to_string(r) + " has " + std::to_string(at(r, given_field)) +
                  " bytes but the plan needs " + std::to_string(at(r, needed_field)) +
                  " (see Plan::required_workspace_bytes)");
  }
}

void agree_or_throw(MPI_Comm comm, const std::string& local_error, int call, const char* calls_differ) {
  // Called by every forward/backward: allocates nothing unless some rank failed.
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // [anyone failed, -(lowest failing rank), largest call, -smallest call] in one reduction;
  // more only on failure.
  const int failed = local_error.empty() ? 0 : 1;
  // Only ranks without a problem of their own compare calls: a rank that failed its own checks
  // may be in agree_on_problem (call 0) while the others are in the call.
  int mine[4] = {failed, failed ? -rank : -size, failed ? -1 : call, failed ? INT_MIN + 1 : -call}, top[4];
  check(MPI_Allreduce(mine, top, 4, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (top[2] >= 0 && top[2] != -top[3]) throw Error(calls_differ);
  if (!top[0]) return;
  const int first = -top[1];
  int failing = 0;
  check(MPI_Allreduce(&failed, &failing, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  const std::string message = broadcast(comm, local_error, first);
  // The same text on every rank; name the rank when not all of them failed.
  if (failing == size) throw Error(message);
  throw Error(message + " (on rank " + std::to_string(first) + ")");
}

void throw_root_problem(MPI_Comm comm, const std::string& problem, int root) {
  const std::string text = broadcast(comm, problem, root);
  if (!text.empty()) throw Error(text);
}

}  // namespace volfft::mpi
