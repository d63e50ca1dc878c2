// The Fortran 2003 entry points of FFTW-MPI: the names FFTW's fftw3-mpi.f03 binds its interfaces
// to (the C function's name with _f03), taking the Fortran communicator (MPI_Fint) by value and
// converting it, so a Fortran program that `include 'fftw3-mpi.f03'` runs on volfft unchanged.
#include "volfft/fftw3_mpi.h"

#define VOLFFT_FFTW_MPI_FORTRAN(X, R, C)                                                                  \
  ptrdiff_t X##_mpi_local_size_many_transposed_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany,        \
                                                   ptrdiff_t block0, ptrdiff_t block1, MPI_Fint comm,     \
                                                   ptrdiff_t* local_n0, ptrdiff_t* local_0_start,         \
                                                   ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {       \
    return X##_mpi_local_size_many_transposed(rnk, n, howmany, block0, block1, MPI_Comm_f2c(comm),        \
                                              local_n0, local_0_start, local_n1, local_1_start);          \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_many_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, \
                                        MPI_Fint comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {   \
    return X##_mpi_local_size_many(rnk, n, howmany, block0, MPI_Comm_f2c(comm), local_n0, local_0_start); \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_transposed_f03(int rnk, const ptrdiff_t* n, MPI_Fint comm,                 \
                                              ptrdiff_t* local_n0, ptrdiff_t* local_0_start,              \
                                              ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {            \
    return X##_mpi_local_size_transposed(rnk, n, MPI_Comm_f2c(comm), local_n0, local_0_start, local_n1,   \
                                         local_1_start);                                                  \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_f03(int rnk, const ptrdiff_t* n, MPI_Fint comm, ptrdiff_t* local_n0,       \
                                   ptrdiff_t* local_0_start) {                                            \
    return X##_mpi_local_size(rnk, n, MPI_Comm_f2c(comm), local_n0, local_0_start);                       \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_many_1d_f03(ptrdiff_t n0, ptrdiff_t howmany, MPI_Fint comm, int sign,      \
                                           unsigned flags, ptrdiff_t* local_ni, ptrdiff_t* local_i_start, \
                                           ptrdiff_t* local_no, ptrdiff_t* local_o_start) {               \
    return X##_mpi_local_size_many_1d(n0, howmany, MPI_Comm_f2c(comm), sign, flags, local_ni,             \
                                      local_i_start, local_no, local_o_start);                            \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_1d_f03(ptrdiff_t n0, MPI_Fint comm, int sign, unsigned flags,              \
                                      ptrdiff_t* local_ni, ptrdiff_t* local_i_start, ptrdiff_t* local_no, \
                                      ptrdiff_t* local_o_start) {                                         \
    return X##_mpi_local_size_1d(n0, MPI_Comm_f2c(comm), sign, flags, local_ni, local_i_start, local_no,  \
                                 local_o_start);                                                          \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_2d_f03(ptrdiff_t n0, ptrdiff_t n1, MPI_Fint comm, ptrdiff_t* local_n0,     \
                                      ptrdiff_t* local_0_start) {                                         \
    return X##_mpi_local_size_2d(n0, n1, MPI_Comm_f2c(comm), local_n0, local_0_start);                    \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_2d_transposed_f03(ptrdiff_t n0, ptrdiff_t n1, MPI_Fint comm,               \
                                                 ptrdiff_t* local_n0, ptrdiff_t* local_0_start,           \
                                                 ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {         \
    return X##_mpi_local_size_2d_transposed(n0, n1, MPI_Comm_f2c(comm), local_n0, local_0_start, local_n1, \
                                            local_1_start);                                               \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_3d_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Fint comm,            \
                                      ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {                    \
    return X##_mpi_local_size_3d(n0, n1, n2, MPI_Comm_f2c(comm), local_n0, local_0_start);                \
  }                                                                                                       \
  ptrdiff_t X##_mpi_local_size_3d_transposed_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Fint comm, \
                                                 ptrdiff_t* local_n0, ptrdiff_t* local_0_start,           \
                                                 ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {         \
    return X##_mpi_local_size_3d_transposed(n0, n1, n2, MPI_Comm_f2c(comm), local_n0, local_0_start,      \
                                            local_n1, local_1_start);                                     \
  }                                                                                                       \
  X##_plan X##_mpi_plan_many_transpose_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, ptrdiff_t block0, \
                                           ptrdiff_t block1, R* in, R* out, MPI_Fint comm, unsigned flags) { \
    return X##_mpi_plan_many_transpose(n0, n1, howmany, block0, block1, in, out, MPI_Comm_f2c(comm), flags); \
  }                                                                                                       \
  X##_plan X##_mpi_plan_transpose_f03(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Fint comm,           \
                                      unsigned flags) {                                                   \
    return X##_mpi_plan_transpose(n0, n1, in, out, MPI_Comm_f2c(comm), flags);                            \
  }                                                                                                       \
  X##_plan X##_mpi_plan_many_dft_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block,     \
                                     ptrdiff_t tblock, C* in, C* out, MPI_Fint comm, int sign,            \
                                     unsigned flags) {                                                    \
    return X##_mpi_plan_many_dft(rnk, n, howmany, block, tblock, in, out, MPI_Comm_f2c(comm), sign, flags); \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_f03(int rnk, const ptrdiff_t* n, C* in, C* out, MPI_Fint comm, int sign,      \
                                unsigned flags) {                                                         \
    return X##_mpi_plan_dft(rnk, n, in, out, MPI_Comm_f2c(comm), sign, flags);                            \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_1d_f03(ptrdiff_t n0, C* in, C* out, MPI_Fint comm, int sign, unsigned flags) { \
    return X##_mpi_plan_dft_1d(n0, in, out, MPI_Comm_f2c(comm), sign, flags);                             \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_2d_f03(ptrdiff_t n0, ptrdiff_t n1, C* in, C* out, MPI_Fint comm, int sign,    \
                                   unsigned flags) {                                                      \
    return X##_mpi_plan_dft_2d(n0, n1, in, out, MPI_Comm_f2c(comm), sign, flags);                         \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_3d_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, C* out, MPI_Fint comm, \
                                   int sign, unsigned flags) {                                            \
    return X##_mpi_plan_dft_3d(n0, n1, n2, in, out, MPI_Comm_f2c(comm), sign, flags);                     \
  }                                                                                                       \
  X##_plan X##_mpi_plan_many_r2r_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock,    \
                                     ptrdiff_t oblock, R* in, R* out, MPI_Fint comm,                      \
                                     const X##_r2r_kind* kind, unsigned flags) {                          \
    return X##_mpi_plan_many_r2r(rnk, n, howmany, iblock, oblock, in, out, MPI_Comm_f2c(comm), kind, flags); \
  }                                                                                                       \
  X##_plan X##_mpi_plan_r2r_f03(int rnk, const ptrdiff_t* n, R* in, R* out, MPI_Fint comm,                \
                                const X##_r2r_kind* kind, unsigned flags) {                               \
    return X##_mpi_plan_r2r(rnk, n, in, out, MPI_Comm_f2c(comm), kind, flags);                            \
  }                                                                                                       \
  X##_plan X##_mpi_plan_r2r_2d_f03(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Fint comm,              \
                                   X##_r2r_kind kind0, X##_r2r_kind kind1, unsigned flags) {              \
    return X##_mpi_plan_r2r_2d(n0, n1, in, out, MPI_Comm_f2c(comm), kind0, kind1, flags);                 \
  }                                                                                                       \
  X##_plan X##_mpi_plan_r2r_3d_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, R* out, MPI_Fint comm, \
                                   X##_r2r_kind kind0, X##_r2r_kind kind1, X##_r2r_kind kind2,            \
                                   unsigned flags) {                                                      \
    return X##_mpi_plan_r2r_3d(n0, n1, n2, in, out, MPI_Comm_f2c(comm), kind0, kind1, kind2, flags);      \
  }                                                                                                       \
  X##_plan X##_mpi_plan_many_dft_r2c_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, \
                                         ptrdiff_t oblock, R* in, C* out, MPI_Fint comm, unsigned flags) { \
    return X##_mpi_plan_many_dft_r2c(rnk, n, howmany, iblock, oblock, in, out, MPI_Comm_f2c(comm), flags); \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_r2c_f03(int rnk, const ptrdiff_t* n, R* in, C* out, MPI_Fint comm,            \
                                    unsigned flags) {                                                     \
    return X##_mpi_plan_dft_r2c(rnk, n, in, out, MPI_Comm_f2c(comm), flags);                              \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_r2c_2d_f03(ptrdiff_t n0, ptrdiff_t n1, R* in, C* out, MPI_Fint comm,          \
                                       unsigned flags) {                                                  \
    return X##_mpi_plan_dft_r2c_2d(n0, n1, in, out, MPI_Comm_f2c(comm), flags);                           \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_r2c_3d_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, C* out,           \
                                       MPI_Fint comm, unsigned flags) {                                   \
    return X##_mpi_plan_dft_r2c_3d(n0, n1, n2, in, out, MPI_Comm_f2c(comm), flags);                       \
  }                                                                                                       \
  X##_plan X##_mpi_plan_many_dft_c2r_f03(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, \
                                         ptrdiff_t oblock, C* in, R* out, MPI_Fint comm, unsigned flags) { \
    return X##_mpi_plan_many_dft_c2r(rnk, n, howmany, iblock, oblock, in, out, MPI_Comm_f2c(comm), flags); \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_c2r_f03(int rnk, const ptrdiff_t* n, C* in, R* out, MPI_Fint comm,            \
                                    unsigned flags) {                                                     \
    return X##_mpi_plan_dft_c2r(rnk, n, in, out, MPI_Comm_f2c(comm), flags);                              \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_c2r_2d_f03(ptrdiff_t n0, ptrdiff_t n1, C* in, R* out, MPI_Fint comm,          \
                                       unsigned flags) {                                                  \
    return X##_mpi_plan_dft_c2r_2d(n0, n1, in, out, MPI_Comm_f2c(comm), flags);                           \
  }                                                                                                       \
  X##_plan X##_mpi_plan_dft_c2r_3d_f03(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, R* out,           \
                                       MPI_Fint comm, unsigned flags) {                                   \
    return X##_mpi_plan_dft_c2r_3d(n0, n1, n2, in, out, MPI_Comm_f2c(comm), flags);                       \
  }                                                                                                       \
  void X##_mpi_gather_wisdom_f03(MPI_Fint comm) { X##_mpi_gather_wisdom(MPI_Comm_f2c(comm)); }            \
  void X##_mpi_broadcast_wisdom_f03(MPI_Fint comm) { X##_mpi_broadcast_wisdom(MPI_Comm_f2c(comm)); }

extern "C" {
VOLFFT_FFTW_MPI_FORTRAN(fftw, double, fftw_complex)
VOLFFT_FFTW_MPI_FORTRAN(fftwf, float, fftwf_complex)
}
