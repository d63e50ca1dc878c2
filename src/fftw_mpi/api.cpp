// FFTW-MPI's C interface (include/volfft/fftw3_mpi.h) for double and single precision, its
// Fortran 2003 wrappers (the *_f03 names FFTW's fftw3-mpi.f03 binds to, taking a Fortran
// communicator), and the serial functions that must know volfft's plans: fftw_execute,
// fftw_destroy_plan, the new-array execute functions and the plan printers. Each hands FFTW's own
// plans to FFTW unchanged.
//
// Errors: a planner that cannot plan returns NULL on every rank and rank 0 says why on stderr,
// as FFTW returns NULL for what it cannot do. An execute that fails (new arrays of the wrong
// in-placeness) has no way to report: it prints the message and aborts the job, rather than
// compute something wrong or leave the other ranks waiting.
#include "volfft/fftw3_mpi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "fftw_mpi/mpi_plan.hpp"
#include "fftw_mpi/registry.hpp"
#include "volfft/error.hpp"

namespace volfft::fftw_mpi {
namespace {

void say(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fprintf(stderr, "%s\n", message.c_str());
}

// The handle of a new plan, or nullptr (every rank alike) with the reason on rank 0.
void* make(const Request& r) {
  int ranks = 0;
  if (r.comm == MPI_COMM_NULL || MPI_Comm_size(r.comm, &ranks) != MPI_SUCCESS) {
    std::fprintf(stderr, "volfft_fftw3_mpi: the communicator is not valid\n");
    return nullptr;
  }
  try {
    const std::string problem = interposition_problem();
    if (!problem.empty()) {
      say(r.comm, problem);
      return nullptr;
    }
    return adopt(std::make_unique<MpiPlan>(r));
  } catch (const Error& e) {
    say(r.comm, std::string(std::strncmp(e.what(), "volfft", 6) == 0 ? "" : "volfft_fftw3_mpi: ") + e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "volfft_fftw3_mpi: %s\n", e.what());
  }
  return nullptr;
}


// Runs our plan `p` on (in, out); a failure aborts the job (FFTW's execute cannot report).
void run(MpiPlan* p, void* in, void* out) {
  try {
    p->execute(in, out);
    return;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
  }
  MPI_Abort(MPI_COMM_WORLD, 1);
}

template <class F>
F fftw(const char* name) {
  void* f = next(name);
  if (!f) {
    std::fprintf(stderr, "volfft_fftw3_mpi: FFTW's %s is not loaded (link -lfftw3 and -lfftw3f after "
                         "-lvolfft_fftw3_mpi)\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// FFTW's own (serial) wisdom between ranks, as FFTW-MPI's manual ("FFTW MPI Wisdom") has it:
// rank 0's to every rank (broadcast), or every rank's into rank 0's (gather). volfft's plans keep
// theirs elsewhere (Options::wisdom_file); this serves the serial FFTW plans of a program that
// calls these. Collective; FFTW's export strings are malloc'ed (its manual: freed with free).
using Exporter = char* (*)();
using Importer = int (*)(const char*);

std::string exported(Exporter exporter) {
  std::string text;
  if (char* s = exporter()) {
    text = s;
    std::free(s);
  }
  return text;
}

// FFTW's importer refuses wisdom made by another FFTW build or planner configuration. The MPI
// wisdom calls return nothing, and wisdom only saves planning time, so a refusal is said on
// stderr (a later FFTW_WISDOM_ONLY plan would otherwise fail without a reason) and planning goes
// on without it.
void import_or_warn(Importer importer, const std::string& text, const char* call, int rank, int from) {
  if (importer(text.c_str())) return;
  std::fprintf(stderr,
               "volfft: %s: rank %d could not import the wisdom of rank %d (FFTW refused it: another FFTW build "
               "or planner configuration); its plans are measured without it\n",
               call, rank, from);
}

void broadcast_wisdom(MPI_Comm comm, Exporter exporter, Importer importer, const char* call) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text = rank == 0 ? exported(exporter) : std::string();
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(&text[0], length, MPI_CHAR, 0, comm);
  if (rank != 0 && length > 0) import_or_warn(importer, text, call, rank, 0);
}

void gather_wisdom(MPI_Comm comm, Exporter exporter, Importer importer, const char* call) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string mine = rank == 0 ? std::string() : exported(exporter);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    for (int r = 0, at = 0; r < ranks; at += lengths[static_cast<std::size_t>(r)], ++r)
      offsets[static_cast<std::size_t>(r)] = at;
    all.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.empty() ? nullptr : &all[0], lengths.data(), offsets.data(),
              MPI_CHAR, 0, comm);
  if (rank != 0) return;
  for (int r = 1; r < ranks; ++r)
    if (lengths[static_cast<std::size_t>(r)] > 0)
      import_or_warn(importer,
                     all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])),
                     call, 0, r);
}

std::vector<Index> sizes(int rnk, const ptrdiff_t* n) {
  if (rnk < 0 || (rnk > 0 && !n)) return {};
  return std::vector<Index>(n, n + rnk);
}

ptrdiff_t local_many_transposed(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0,
                                ptrdiff_t block1, MPI_Comm comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start,
                                ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const std::vector<Index> dims = sizes(rnk, n);
  // No sizes to distribute (rnk < 1, or n NULL): nothing is held, and the outputs say so rather
  // than keep whatever the caller's variables held; the planner refuses these with a message.
  const LocalSize s = dims.empty() ? LocalSize{} : local_size(dims, howmany, block0, block1, ranks, rank);
  if (local_n0) *local_n0 = s.rows0.count;
  if (local_0_start) *local_0_start = s.rows0.start;
  if (local_n1) *local_n1 = s.rows1.count;
  if (local_1_start) *local_1_start = s.rows1.start;
  return s.alloc;
}

ptrdiff_t local_1d(ptrdiff_t n0, ptrdiff_t howmany, MPI_Comm comm, ptrdiff_t* local_ni, ptrdiff_t* local_i_start,
                   ptrdiff_t* local_no, ptrdiff_t* local_o_start) {
  // No distributed 1-D plans: the blocks FFTW would use for the data, so that a program that
  // asks runs on, and its planner call returns NULL with the reason.
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const Block b = block_of(n0, 0, ranks, rank);
  if (local_ni) *local_ni = b.count;
  if (local_i_start) *local_i_start = b.start;
  if (local_no) *local_no = b.count;
  if (local_o_start) *local_o_start = b.start;
  return b.count * howmany;
}

Request request(Transform t, int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                void* in, void* out, MPI_Comm comm, unsigned flags, Precision p) {
  Request r;
  r.transform = t;
  r.rnk = rnk;
  r.n = sizes(rnk, n);
  r.howmany = howmany;
  r.iblock = iblock, r.oblock = oblock;
  r.in = in, r.out = out;
  r.comm = comm;
  r.flags = flags;
  r.precision = p;
  return r;
}

}  // namespace
}  // namespace volfft::fftw_mpi

using volfft::Precision;
using volfft::fftw_mpi::Request;
using volfft::fftw_mpi::Transform;
namespace fm = volfft::fftw_mpi;

// FFTW's own definition of a function, looked up once per call site (a static in a lambda of its
// own): fftw_execute and friends are on the hot path of every FFTW plan, volfft's own included.
#define VOLFFT_FFTW_NEXT(F, name)                   \
  ([] {                                             \
    static const auto next_definition = fm::fftw<F>(name); \
    return next_definition;                         \
  }())

// One precision: X the prefix (fftw, fftwf), R and C its real and complex types, P its Precision.
#define VOLFFT_FFTW_MPI_DEFINE(X, R, C, P)                                                                 \
  /* FFTW's threaded planner registered on every rank alike: libvolfft registers it when a rank */       \
  /* plans FFTs of its own (not on ranks that hold no data), and wisdom only passes between ranks */      \
  /* whose planners match (fftw_mpi_broadcast_wisdom); FFTW-MPI's init registers its solvers too. */      \
  void X##_mpi_init(void) { VOLFFT_FFTW_NEXT(int (*)(void), #X "_init_threads")(); }                        \
  void X##_mpi_cleanup(void) {}                                                                            \
  ptrdiff_t X##_mpi_local_size_many_transposed(int rnk, const ptrdiff_t* n, ptrdiff_t howmany,             \
                                               ptrdiff_t block0, ptrdiff_t block1, MPI_Comm comm,          \
                                               ptrdiff_t* local_n0, ptrdiff_t* local_0_start,              \
                                               ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {            \
    return fm::local_many_transposed(rnk, n, howmany, block0, block1, comm, local_n0, local_0_start,       \
                                     local_n1, local_1_start);                                             \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_many(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0,      \
                                    MPI_Comm comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {        \
    ptrdiff_t n1, s1;                                                                                      \
    return fm::local_many_transposed(rnk, n, howmany, block0, 0, comm, local_n0, local_0_start, &n1, &s1); \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_transposed(int rnk, const ptrdiff_t* n, MPI_Comm comm, ptrdiff_t* local_n0, \
                                          ptrdiff_t* local_0_start, ptrdiff_t* local_n1,                   \
                                          ptrdiff_t* local_1_start) {                                      \
    return fm::local_many_transposed(rnk, n, 1, 0, 0, comm, local_n0, local_0_start, local_n1,             \
                                     local_1_start);                                                       \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size(int rnk, const ptrdiff_t* n, MPI_Comm comm, ptrdiff_t* local_n0,            \
                               ptrdiff_t* local_0_start) {                                                 \
    return X##_mpi_local_size_many(rnk, n, 1, 0, comm, local_n0, local_0_start);                           \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_many_1d(ptrdiff_t n0, ptrdiff_t howmany, MPI_Comm comm, int, unsigned,      \
                                       ptrdiff_t* local_ni, ptrdiff_t* local_i_start, ptrdiff_t* local_no, \
                                       ptrdiff_t* local_o_start) {                                         \
    return fm::local_1d(n0, howmany, comm, local_ni, local_i_start, local_no, local_o_start);              \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_1d(ptrdiff_t n0, MPI_Comm comm, int sign, unsigned flags, ptrdiff_t* local_ni, \
                                  ptrdiff_t* local_i_start, ptrdiff_t* local_no, ptrdiff_t* local_o_start) { \
    return X##_mpi_local_size_many_1d(n0, 1, comm, sign, flags, local_ni, local_i_start, local_no,         \
                                      local_o_start);                                                      \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_2d(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t* local_n0,          \
                                  ptrdiff_t* local_0_start) {                                              \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return X##_mpi_local_size(2, n, comm, local_n0, local_0_start);                                        \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_2d_transposed(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t* local_n0, \
                                             ptrdiff_t* local_0_start, ptrdiff_t* local_n1,                \
                                             ptrdiff_t* local_1_start) {                                   \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return X##_mpi_local_size_transposed(2, n, comm, local_n0, local_0_start, local_n1, local_1_start);    \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,                 \
                                  ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {                         \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    return X##_mpi_local_size(3, n, comm, local_n0, local_0_start);                                        \
  }                                                                                                        \
  ptrdiff_t X##_mpi_local_size_3d_transposed(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,      \
                                             ptrdiff_t* local_n0, ptrdiff_t* local_0_start,                \
                                             ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {              \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    return X##_mpi_local_size_transposed(3, n, comm, local_n0, local_0_start, local_n1, local_1_start);    \
  }                                                                                                        \
  X##_plan X##_mpi_plan_many_transpose(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, ptrdiff_t block0,     \
                                       ptrdiff_t block1, R* in, R* out, MPI_Comm comm, unsigned flags) {   \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return static_cast<X##_plan>(                                                                          \
        fm::make(fm::request(Transform::transpose, 2, n, howmany, block0, block1, in, out, comm, flags, P))); \
  }                                                                                                        \
  X##_plan X##_mpi_plan_transpose(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm, unsigned flags) { \
    return X##_mpi_plan_many_transpose(n0, n1, 1, 0, 0, in, out, comm, flags);                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_many_dft(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block,          \
                                 ptrdiff_t tblock, C* in, C* out, MPI_Comm comm, int sign, unsigned flags) { \
    Request r = fm::request(Transform::dft, rnk, n, howmany, block, tblock, in, out, comm, flags, P);      \
    r.sign = sign;                                                                                         \
    return static_cast<X##_plan>(fm::make(r));                                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft(int rnk, const ptrdiff_t* n, C* in, C* out, MPI_Comm comm, int sign,           \
                            unsigned flags) {                                                              \
    return X##_mpi_plan_many_dft(rnk, n, 1, 0, 0, in, out, comm, sign, flags);                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_1d(ptrdiff_t n0, C* in, C* out, MPI_Comm comm, int sign, unsigned flags) {     \
    return X##_mpi_plan_dft(1, &n0, in, out, comm, sign, flags); /* NULL on every rank, with the reason */  \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_2d(ptrdiff_t n0, ptrdiff_t n1, C* in, C* out, MPI_Comm comm, int sign,         \
                               unsigned flags) {                                                           \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return X##_mpi_plan_dft(2, n, in, out, comm, sign, flags);                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, C* out, MPI_Comm comm,      \
                               int sign, unsigned flags) {                                                 \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    return X##_mpi_plan_dft(3, n, in, out, comm, sign, flags);                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_many_r2r(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock,         \
                                 ptrdiff_t oblock, R* in, R* out, MPI_Comm comm, const X##_r2r_kind* kind,  \
                                 unsigned flags) {                                                         \
    Request r = fm::request(Transform::r2r, rnk, n, howmany, iblock, oblock, in, out, comm, flags, P);     \
    if (kind)                                                                                              \
      for (int a = 0; a < rnk; ++a) r.r2r_kinds.push_back(static_cast<int>(kind[a]));                      \
    return static_cast<X##_plan>(fm::make(r));                                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_r2r(int rnk, const ptrdiff_t* n, R* in, R* out, MPI_Comm comm,                     \
                            const X##_r2r_kind* kind, unsigned flags) {                                    \
    return X##_mpi_plan_many_r2r(rnk, n, 1, 0, 0, in, out, comm, kind, flags);                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_r2r_2d(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm, X##_r2r_kind kind0, \
                               X##_r2r_kind kind1, unsigned flags) {                                       \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    const X##_r2r_kind kind[2] = {kind0, kind1};                                                           \
    return X##_mpi_plan_r2r(2, n, in, out, comm, kind, flags);                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_r2r_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, R* out, MPI_Comm comm,      \
                               X##_r2r_kind kind0, X##_r2r_kind kind1, X##_r2r_kind kind2, unsigned flags) { \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    const X##_r2r_kind kind[3] = {kind0, kind1, kind2};                                                    \
    return X##_mpi_plan_r2r(3, n, in, out, comm, kind, flags);                                             \
  }                                                                                                        \
  X##_plan X##_mpi_plan_many_dft_r2c(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock,      \
                                     ptrdiff_t oblock, R* in, C* out, MPI_Comm comm, unsigned flags) {     \
    return static_cast<X##_plan>(                                                                          \
        fm::make(fm::request(Transform::r2c, rnk, n, howmany, iblock, oblock, in, out, comm, flags, P)));  \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_r2c(int rnk, const ptrdiff_t* n, R* in, C* out, MPI_Comm comm, unsigned flags) { \
    return X##_mpi_plan_many_dft_r2c(rnk, n, 1, 0, 0, in, out, comm, flags);                               \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_r2c_2d(ptrdiff_t n0, ptrdiff_t n1, R* in, C* out, MPI_Comm comm, unsigned flags) { \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return X##_mpi_plan_dft_r2c(2, n, in, out, comm, flags);                                               \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_r2c_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, C* out, MPI_Comm comm,  \
                                   unsigned flags) {                                                       \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    return X##_mpi_plan_dft_r2c(3, n, in, out, comm, flags);                                               \
  }                                                                                                        \
  X##_plan X##_mpi_plan_many_dft_c2r(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock,      \
                                     ptrdiff_t oblock, C* in, R* out, MPI_Comm comm, unsigned flags) {     \
    return static_cast<X##_plan>(                                                                          \
        fm::make(fm::request(Transform::c2r, rnk, n, howmany, iblock, oblock, in, out, comm, flags, P)));  \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_c2r(int rnk, const ptrdiff_t* n, C* in, R* out, MPI_Comm comm, unsigned flags) { \
    return X##_mpi_plan_many_dft_c2r(rnk, n, 1, 0, 0, in, out, comm, flags);                               \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_c2r_2d(ptrdiff_t n0, ptrdiff_t n1, C* in, R* out, MPI_Comm comm, unsigned flags) { \
    const ptrdiff_t n[2] = {n0, n1};                                                                       \
    return X##_mpi_plan_dft_c2r(2, n, in, out, comm, flags);                                               \
  }                                                                                                        \
  X##_plan X##_mpi_plan_dft_c2r_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, R* out, MPI_Comm comm,  \
                                   unsigned flags) {                                                       \
    const ptrdiff_t n[3] = {n0, n1, n2};                                                                   \
    return X##_mpi_plan_dft_c2r(3, n, in, out, comm, flags);                                               \
  }                                                                                                        \
  void X##_mpi_gather_wisdom(MPI_Comm comm) {                                                              \
    fm::gather_wisdom(comm, VOLFFT_FFTW_NEXT(char* (*)(), #X "_export_wisdom_to_string"),                   \
                      VOLFFT_FFTW_NEXT(int (*)(const char*), #X "_import_wisdom_from_string"),             \
                      #X "_mpi_gather_wisdom");                                                            \
  }                                                                                                        \
  void X##_mpi_broadcast_wisdom(MPI_Comm comm) {                                                           \
    fm::broadcast_wisdom(comm, VOLFFT_FFTW_NEXT(char* (*)(), #X "_export_wisdom_to_string"),                \
                         VOLFFT_FFTW_NEXT(int (*)(const char*), #X "_import_wisdom_from_string"),          \
                         #X "_mpi_broadcast_wisdom");                                                      \
  }                                                                                                        \
  void X##_mpi_execute_dft(X##_plan p, C* in, C* out) { X##_execute_dft(p, in, out); }                     \
  void X##_mpi_execute_dft_r2c(X##_plan p, R* in, C* out) { X##_execute_dft_r2c(p, in, out); }             \
  void X##_mpi_execute_dft_c2r(X##_plan p, C* in, R* out) { X##_execute_dft_c2r(p, in, out); }             \
  void X##_mpi_execute_r2r(X##_plan p, R* in, R* out) { X##_execute_r2r(p, in, out); }                     \
  /* The serial functions that meet volfft's plans. */                                                    \
  void X##_execute(const X##_plan p) {                                                                     \
    if (fm::MpiPlan* mine = fm::find(p)) return fm::run(mine, mine->in(), mine->out());                    \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan), #X "_execute")(p);                                                  \
  }                                                                                                        \
  void X##_destroy_plan(X##_plan p) {                                                                      \
    if (!fm::release(p)) VOLFFT_FFTW_NEXT(void (*)(X##_plan), #X "_destroy_plan")(p);                              \
  }                                                                                                        \
  void X##_execute_dft(const X##_plan p, C* in, C* out) {                                                  \
    if (fm::MpiPlan* mine = fm::find(p)) return fm::run(mine, in, out);                                    \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, C*, C*), #X "_execute_dft")(p, in, out);                             \
  }                                                                                                        \
  void X##_execute_dft_r2c(const X##_plan p, R* in, C* out) {                                              \
    if (fm::MpiPlan* mine = fm::find(p)) return fm::run(mine, in, out);                                    \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, R*, C*), #X "_execute_dft_r2c")(p, in, out);                         \
  }                                                                                                        \
  void X##_execute_dft_c2r(const X##_plan p, C* in, R* out) {                                              \
    if (fm::MpiPlan* mine = fm::find(p)) return fm::run(mine, in, out);                                    \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, C*, R*), #X "_execute_dft_c2r")(p, in, out);                         \
  }                                                                                                        \
  void X##_execute_r2r(const X##_plan p, R* in, R* out) {                                                  \
    if (fm::MpiPlan* mine = fm::find(p)) return fm::run(mine, in, out);                                    \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, R*, R*), #X "_execute_r2r")(p, in, out);                             \
  }                                                                                                        \
  void X##_fprint_plan(const X##_plan p, FILE* output_file) {                                              \
    if (fm::MpiPlan* mine = fm::find(p)) {                                                                 \
      std::fputs(mine->describe().c_str(), output_file);                                                   \
      return;                                                                                              \
    }                                                                                                      \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, FILE*), #X "_fprint_plan")(p, output_file);                          \
  }                                                                                                        \
  void X##_print_plan(const X##_plan p) { X##_fprint_plan(p, stdout); }                                    \
  char* X##_sprint_plan(const X##_plan p) {                                                                \
    if (fm::MpiPlan* mine = fm::find(p)) return strdup(mine->describe().c_str());                          \
    return VOLFFT_FFTW_NEXT(char* (*)(const X##_plan), #X "_sprint_plan")(p);                                      \
  }                                                                                                        \
  void X##_flops(const X##_plan p, double* add, double* mul, double* fmas) {                               \
    if (fm::find(p)) { /* not counted for volfft's plans */                                                \
      *add = *mul = *fmas = 0;                                                                             \
      return;                                                                                              \
    }                                                                                                      \
    VOLFFT_FFTW_NEXT(void (*)(const X##_plan, double*, double*, double*), #X "_flops")(p, add, mul, fmas);         \
  }                                                                                                        \
  double X##_estimate_cost(const X##_plan p) {                                                             \
    if (fm::find(p)) return 0;                                                                             \
    return VOLFFT_FFTW_NEXT(double (*)(const X##_plan), #X "_estimate_cost")(p);                                   \
  }                                                                                                        \
  double X##_cost(const X##_plan p) {                                                                      \
    if (fm::find(p)) return 0;                                                                             \
    return VOLFFT_FFTW_NEXT(double (*)(const X##_plan), #X "_cost")(p);                                            \
  }

extern "C" {
VOLFFT_FFTW_MPI_DEFINE(fftw, double, fftw_complex, Precision::float64)
VOLFFT_FFTW_MPI_DEFINE(fftwf, float, fftwf_complex, Precision::float32)
}
