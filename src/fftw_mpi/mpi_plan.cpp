#include "fftw_mpi/mpi_plan.hpp"

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <new>
#include <string>

#include "backend/fftw_kinds.hpp"
#include "core/hash.hpp"
#include "mpi/agreement.hpp"
#include "volfft/error.hpp"

namespace volfft::fftw_mpi {

namespace {

// FFTW's flags that change what is computed or how the arrays are laid out; the others (planner
// effort, DESTROY/PRESERVE_INPUT, UNALIGNED, ...) only advise (volfft takes the permission to
// destroy the input where it is given, destroys_input()).
constexpr unsigned kScrambledIn = 1U << 27, kScrambledOut = 1U << 28;
constexpr unsigned kTransposedIn = 1U << 29, kTransposedOut = 1U << 30;

AxisKind axis_kind(int fftw_kind) {
  if (const backend::FftwKind* entry = backend::axis_kind_of(fftw_kind)) return entry->kind;
  throw Error("volfft_fftw3_mpi: r2r kind " + std::to_string(fftw_kind) +
              " is not supported (volfft has FFTW_REDFT00/01/10/11 and FFTW_RODFT00/01/10/11; not "
              "R2HC, HC2R or DHT)");
}

Effort effort(unsigned flags) {
  if (flags & FFTW_ESTIMATE) return Effort::estimate;
  if (flags & (FFTW_PATIENT | FFTW_EXHAUSTIVE)) return Effort::patient;
  return Effort::measure;
}

// FFTW's contract for an out-of-place plan's input: c2r plans may overwrite it unless given
// FFTW_PRESERVE_INPUT (FFTW_DESTROY_INPUT is their default: FFTW's manual, "Planner Flags"); the
// others keep it unless given FFTW_DESTROY_INPUT. volfft takes the permission where it is given
// (Options::destroy_input: the FFTs that read the input may use it as scratch, and at one rank a
// c2r is one multi-dimensional plan from it).
bool destroys_input(Transform t, unsigned flags) {
  if (flags & FFTW_DESTROY_INPUT) return true;
  return t == Transform::c2r && (flags & FFTW_PRESERVE_INPUT) == 0;
}

std::size_t real_bytes(Precision p) { return p == Precision::float64 ? 8 : 4; }

// The planner call's arguments that every rank must pass alike and that the checks cannot see
// differ: the transform and its direction (a backward plan on one rank would pair forward
// exchanges with backward ones), the fields, the layout flags. Hashed into the `call` that
// mpi::agree_or_throw compares between ranks.
int call_of(const Request& r) {
  core::Fnv1a h;
  h.mix(static_cast<std::uint64_t>(r.transform));
  h.mix(static_cast<std::uint64_t>(r.transform == Transform::dft ? r.sign + 2 : 0));
  h.mix(static_cast<std::uint64_t>(r.howmany));
  h.mix(r.flags & (kTransposedIn | kTransposedOut));
  return static_cast<int>(h.value & 0x3fffffff);
}

// FFTW's plan is in place when the arrays are one: a rank's own in == out. A rank that holds
// nothing of either side (FFTW's last ranks when n0 or n1 < ranks, whose arrays are often NULL
// or fftw_malloc(0)) cannot tell, so it follows the ranks that hold data; those must agree.
bool decide_in_place(MPI_Comm comm, bool mine, bool empty) {
  const int vote[2] = {!empty && mine ? 1 : 0, !empty && !mine ? 1 : 0};
  int votes[2] = {0, 0};
  MPI_Allreduce(vote, votes, 2, MPI_INT, MPI_SUM, comm);
  if (votes[0] > 0 && votes[1] > 0)
    throw Error("volfft_fftw3_mpi: some ranks passed in == out (in place) and others in != out; every "
                "rank holding data must pass the same");
  return votes[0] > 0;
}

}  // namespace

MpiPlan::MpiPlan(const Request& r) : transform_(r.transform), precision_(r.precision), in_(r.in), out_(r.out) {
  int ranks = 0, rank = 0;
  MPI_Comm_size(r.comm, &ranks);
  MPI_Comm_rank(r.comm, &rank);
  // Every argument checked on every rank together: a rank whose arguments are wrong must not
  // return NULL alone and leave the others in volfft's collectives (volfft agrees on everything
  // after this itself).
  Layout l;
  std::string problem;
  try {
    if (r.flags & (kScrambledIn | kScrambledOut))
      throw Error("volfft_fftw3_mpi: FFTW_MPI_SCRAMBLED_IN/OUT are not supported (they are meant for "
                  "distributed 1-D transforms, which volfft does not plan)");
    if (r.flags & FFTW_WISDOM_ONLY)  // FFTW's contract: plan only from wisdom, else NULL
      throw Error("volfft_fftw3_mpi: FFTW_WISDOM_ONLY: there is no FFTW wisdom for volfft's plans, so "
                  "the plan is NULL (as FFTW's is without wisdom)");
    if (r.rnk == 1)
      throw Error("volfft_fftw3_mpi: distributed 1-D transforms (rnk 1) are not supported; the plan is NULL "
                  "(use a 2-D or 3-D transform, or a serial plan per rank)");
    if (r.n.empty())
      throw Error("volfft_fftw3_mpi: rnk must be 2 or more and n an array of rnk sizes; got rnk " +
                  std::to_string(r.rnk) + (r.rnk > 0 ? " and n NULL" : ""));
    if (r.howmany < 1) throw Error("volfft_fftw3_mpi: howmany must be at least 1; got " + std::to_string(r.howmany));
    if (r.transform == Transform::dft && r.sign != FFTW_FORWARD && r.sign != FFTW_BACKWARD)
      throw Error("volfft_fftw3_mpi: sign must be FFTW_FORWARD (-1) or FFTW_BACKWARD (+1); got " +
                  std::to_string(r.sign));
    if (r.iblock < 0 || r.oblock < 0)
      throw Error("volfft_fftw3_mpi: block sizes must be >= 0 (FFTW_MPI_DEFAULT_BLOCK is 0); got " +
                  std::to_string(r.iblock < 0 ? r.iblock : r.oblock));
    if (r.transform == Transform::r2r && r.r2r_kinds.size() != r.n.size())
      throw Error("volfft_fftw3_mpi: expected one r2r kind per dimension (kind NULL?)");
    l = layout(r.transform, r.n, r.iblock, r.oblock, (r.flags & kTransposedIn) != 0,
               (r.flags & kTransposedOut) != 0, ranks, rank);
    if (r.transform == Transform::r2r)
      for (int k : r.r2r_kinds) (void)axis_kind(k);
  } catch (const Error& e) {
    problem = e.what();
  }
  mpi::agree_or_throw(r.comm, problem, call_of(r),
                      "volfft_fftw3_mpi: the ranks passed different transforms, signs, howmany or "
                      "FFTW_MPI_TRANSPOSED flags (every rank must make the same planner call)");
  empty_ = l.in.array.box.empty() && l.out.array.box.empty();
  in_place_ = decide_in_place(r.comm, r.in == r.out, empty_);
  // FFTW_DESTROY_INPUT is a permission: taken only where every rank gives it (volfft's plans
  // agree on their options), as FFTW itself accepts it from some ranks only.
  int may_destroy = !in_place_ && destroys_input(r.transform, r.flags) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &may_destroy, 1, MPI_INT, MPI_MIN, r.comm);
  Options o;
  o.effort = effort(r.flags);
  o.scale_backward = false;  // FFTW's transforms are unnormalised both ways
  o.batch = r.howmany;
  o.batch_layout = BatchLayout::inner;  // FFTW's howmany: the fields of a point are adjacent
  o.destroy_input = destroys_input_ = may_destroy != 0;
  if (r.transform == Transform::transpose) {
    o.in_place = false;
    reshape_ = std::make_unique<Reshape>(r.comm, l.in.shape, l.in.array, l.out.array, r.precision, Values::real, o);
    allocate_staging(r.comm, in_place_ ? static_cast<std::size_t>(reshape_->input_count()) * real_bytes(r.precision) : 0);
    return;
  }
  // FFTW's backward transforms are volfft's backward: the plan's forward input is the FFTW
  // output side.
  backward_ = r.transform == Transform::c2r || (r.transform == Transform::dft && r.sign == FFTW_BACKWARD);
  const Side& x = backward_ ? l.out : l.in;  // volfft's forward input side
  const Side& y = backward_ ? l.in : l.out;  // and its output side
  const Kind kind = r.transform == Transform::r2c || r.transform == Transform::c2r ? Kind::r2c
                    : r.transform == Transform::r2r                                ? Kind::r2r
                                                                                   : Kind::c2c;
  if (r.transform == Transform::r2r)
    for (int k : r.r2r_kinds) o.kinds.push_back(axis_kind(k));
  if (in_place_ && r.howmany > 1 && kind == Kind::r2c) {
    // volfft's in-place r2c plans take no interleaved (inner) batch; FFTW's in-place r2c howmany
    // is the out-of-place plan from a copy of the input (FFTW-MPI's two sides have the same
    // layout in place and out of place, rows padded both ways), the copy made at planning.
    o.in_place = false;
    copy_in_place_ = true;
  } else {
    o.in_place = in_place_;
  }
  plan_ = std::make_unique<Plan>(r.comm, r.n, kind, r.precision, o, x.array, y.array);
  std::size_t bytes = 0;
  if (copy_in_place_) {
    // FFTW's input is volfft's forward input (reals), or its output side for a backward
    // transform (complex values).
    const std::size_t real = real_bytes(r.precision), complex = 2 * real;
    bytes = backward_ ? static_cast<std::size_t>(plan_->output_count()) * complex
                      : static_cast<std::size_t>(plan_->input_count()) * real;
  }
  allocate_staging(r.comm, bytes);
}

void MpiPlan::allocate_staging(MPI_Comm comm, std::size_t bytes) {
  // Agreed (every rank calls this once per plan, bytes 0 or not): a rank that cannot allocate
  // fails every rank's planner call, not its own alone.
  std::string problem;
  try {
    staging_in_.resize(bytes);
  } catch (const std::bad_alloc&) {
    problem = "volfft_fftw3_mpi: cannot allocate " + std::to_string(bytes) + " bytes to stage an in-place input";
  }
  mpi::agree_or_throw(comm, problem);
}

void MpiPlan::execute(void* in, void* out) {
  if (empty_) {
    // Nothing of this rank's arrays is read or written, and what it passed may be NULL or
    // fftw_malloc(0) either way: null arrays fit the plan however it was decided.
    in = out = nullptr;
  } else if ((in == out) != in_place_) {
    throw Error(std::string("volfft_fftw3_mpi: this plan was made ") + (in_place_ ? "in place" : "out of place") +
                "; a new-array execute must keep that (FFTW's rule)");
  }
  if (reshape_) {
    const void* source = in;
    if (in_place_) {
      // A rank whose input side is empty (it holds output only) has no staging: memcpy with a
      // null pointer is undefined even for 0 bytes (UBSan's finding at np 4).
      if (!staging_in_.empty()) std::memcpy(staging_in_.data(), in, staging_in_.size());
      source = staging_in_.data();
    }
    reshape_->execute(source, out);
    return;
  }
  if (copy_in_place_ && !empty_) {
    if (!staging_in_.empty()) std::memcpy(staging_in_.data(), in, staging_in_.size());
    in = staging_in_.data();
  }
  if (backward_)
    plan_->backward_raw(in, out);
  else
    plan_->forward_raw(in, out);
}

std::string MpiPlan::describe() const {
  static const char* names[] = {"dft", "r2c", "c2r", "r2r", "transpose"};
  std::string s = std::string("(volfft-mpi ") + names[static_cast<int>(transform_)];
  if (plan_) {
    const auto g = plan_->grid();
    s += std::string(" grid ") + std::to_string(g[0]) + "x" + std::to_string(g[1]) + " engine " +
         to_string(plan_->engine()) + (plan_->reshapes_input() ? " reshape_in" : "") +
         (plan_->reshapes_output() ? " reshape_out" : "");
  } else if (reshape_) {
    s += std::string(" engine ") + to_string(reshape_->engine());
  }
  return s + (in_place_ ? " in-place)" : destroys_input_ ? " destroy-input)" : ")");
}

}  // namespace volfft::fftw_mpi
