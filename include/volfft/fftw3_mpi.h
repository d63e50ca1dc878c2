/* volfft's FFTW-MPI interface: the distributed-memory API of FFTW 3.3 (its manual, chapter
 * "Distributed-memory FFTW with MPI"), answered by volfft. A program written for FFTW-MPI builds
 * against this header or FFTW's own <fftw3-mpi.h> (the declarations agree) and links
 * -lvolfft_fftw3_mpi before -lfftw3 (docs/fftw-mpi.md). Serial FFTW (<fftw3.h>) stays FFTW's:
 * plans made here are executed and destroyed through the usual fftw_execute/fftw_destroy_plan,
 * which this library answers for its own plans and passes on to FFTW for all others.
 *
 * Written from FFTW's documented interface; no FFTW file is part of volfft. */
#ifndef VOLFFT_FFTW3_MPI_H
#define VOLFFT_FFTW3_MPI_H

#include <fftw3.h>
#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags and the default block size, as FFTW documents them (the values are FFTW's ABI). */
#ifndef FFTW_MPI_DEFAULT_BLOCK
#define FFTW_MPI_DEFAULT_BLOCK (0)
#define FFTW_MPI_SCRAMBLED_IN (1U << 27)
#define FFTW_MPI_SCRAMBLED_OUT (1U << 28)
#define FFTW_MPI_TRANSPOSED_IN (1U << 29)
#define FFTW_MPI_TRANSPOSED_OUT (1U << 30)
#endif

/* One precision's functions: X is the prefix (fftw, fftwf), R the real and C the complex type. */
#define VOLFFT_FFTW_MPI_DECLARE(X, R, C)                                                              \
  void X##_mpi_init(void);                                                                            \
  void X##_mpi_cleanup(void);                                                                         \
  ptrdiff_t X##_mpi_local_size_many_transposed(int rnk, const ptrdiff_t* n, ptrdiff_t howmany,        \
                                               ptrdiff_t block0, ptrdiff_t block1, MPI_Comm comm,     \
                                               ptrdiff_t* local_n0, ptrdiff_t* local_0_start,         \
                                               ptrdiff_t* local_n1, ptrdiff_t* local_1_start);        \
  ptrdiff_t X##_mpi_local_size_many(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, \
                                    MPI_Comm comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start);    \
  ptrdiff_t X##_mpi_local_size_transposed(int rnk, const ptrdiff_t* n, MPI_Comm comm,                 \
                                          ptrdiff_t* local_n0, ptrdiff_t* local_0_start,              \
                                          ptrdiff_t* local_n1, ptrdiff_t* local_1_start);             \
  ptrdiff_t X##_mpi_local_size(int rnk, const ptrdiff_t* n, MPI_Comm comm, ptrdiff_t* local_n0,       \
                               ptrdiff_t* local_0_start);                                             \
  ptrdiff_t X##_mpi_local_size_many_1d(ptrdiff_t n0, ptrdiff_t howmany, MPI_Comm comm, int sign,      \
                                       unsigned flags, ptrdiff_t* local_ni, ptrdiff_t* local_i_start, \
                                       ptrdiff_t* local_no, ptrdiff_t* local_o_start);                \
  ptrdiff_t X##_mpi_local_size_1d(ptrdiff_t n0, MPI_Comm comm, int sign, unsigned flags,              \
                                  ptrdiff_t* local_ni, ptrdiff_t* local_i_start, ptrdiff_t* local_no, \
                                  ptrdiff_t* local_o_start);                                          \
  ptrdiff_t X##_mpi_local_size_2d(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t* local_n0,     \
                                  ptrdiff_t* local_0_start);                                          \
  ptrdiff_t X##_mpi_local_size_2d_transposed(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm,               \
                                             ptrdiff_t* local_n0, ptrdiff_t* local_0_start,           \
                                             ptrdiff_t* local_n1, ptrdiff_t* local_1_start);          \
  ptrdiff_t X##_mpi_local_size_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,            \
                                  ptrdiff_t* local_n0, ptrdiff_t* local_0_start);                     \
  ptrdiff_t X##_mpi_local_size_3d_transposed(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm, \
                                             ptrdiff_t* local_n0, ptrdiff_t* local_0_start,           \
                                             ptrdiff_t* local_n1, ptrdiff_t* local_1_start);          \
  X##_plan X##_mpi_plan_many_transpose(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, ptrdiff_t block0, \
                                       ptrdiff_t block1, R* in, R* out, MPI_Comm comm, unsigned flags); \
  X##_plan X##_mpi_plan_transpose(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm,           \
                                  unsigned flags);                                                    \
  X##_plan X##_mpi_plan_many_dft(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block,     \
                                 ptrdiff_t tblock, C* in, C* out, MPI_Comm comm, int sign,            \
                                 unsigned flags);                                                     \
  X##_plan X##_mpi_plan_dft(int rnk, const ptrdiff_t* n, C* in, C* out, MPI_Comm comm, int sign,      \
                            unsigned flags);                                                          \
  X##_plan X##_mpi_plan_dft_1d(ptrdiff_t n0, C* in, C* out, MPI_Comm comm, int sign, unsigned flags); \
  X##_plan X##_mpi_plan_dft_2d(ptrdiff_t n0, ptrdiff_t n1, C* in, C* out, MPI_Comm comm, int sign,    \
                               unsigned flags);                                                       \
  X##_plan X##_mpi_plan_dft_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, C* out, MPI_Comm comm, \
                               int sign, unsigned flags);                                             \
  X##_plan X##_mpi_plan_many_r2r(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock,    \
                                 ptrdiff_t oblock, R* in, R* out, MPI_Comm comm,                      \
                                 const X##_r2r_kind* kind, unsigned flags);                           \
  X##_plan X##_mpi_plan_r2r(int rnk, const ptrdiff_t* n, R* in, R* out, MPI_Comm comm,                \
                            const X##_r2r_kind* kind, unsigned flags);                                \
  X##_plan X##_mpi_plan_r2r_2d(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm,              \
                               X##_r2r_kind kind0, X##_r2r_kind kind1, unsigned flags);               \
  X##_plan X##_mpi_plan_r2r_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, R* out, MPI_Comm comm, \
                               X##_r2r_kind kind0, X##_r2r_kind kind1, X##_r2r_kind kind2,            \
                               unsigned flags);                                                       \
  X##_plan X##_mpi_plan_many_dft_r2c(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, \
                                     ptrdiff_t oblock, R* in, C* out, MPI_Comm comm, unsigned flags); \
  X##_plan X##_mpi_plan_dft_r2c(int rnk, const ptrdiff_t* n, R* in, C* out, MPI_Comm comm,            \
                                unsigned flags);                                                      \
  X##_plan X##_mpi_plan_dft_r2c_2d(ptrdiff_t n0, ptrdiff_t n1, R* in, C* out, MPI_Comm comm,          \
                                   unsigned flags);                                                   \
  X##_plan X##_mpi_plan_dft_r2c_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, C* out,           \
                                   MPI_Comm comm, unsigned flags);                                    \
  X##_plan X##_mpi_plan_many_dft_c2r(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, \
                                     ptrdiff_t oblock, C* in, R* out, MPI_Comm comm, unsigned flags); \
  X##_plan X##_mpi_plan_dft_c2r(int rnk, const ptrdiff_t* n, C* in, R* out, MPI_Comm comm,            \
                                unsigned flags);                                                      \
  X##_plan X##_mpi_plan_dft_c2r_2d(ptrdiff_t n0, ptrdiff_t n1, C* in, R* out, MPI_Comm comm,          \
                                   unsigned flags);                                                   \
  X##_plan X##_mpi_plan_dft_c2r_3d(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, R* out,           \
                                   MPI_Comm comm, unsigned flags);                                    \
  void X##_mpi_gather_wisdom(MPI_Comm comm);                                                          \
  void X##_mpi_broadcast_wisdom(MPI_Comm comm);                                                       \
  void X##_mpi_execute_dft(X##_plan p, C* in, C* out);                                                \
  void X##_mpi_execute_dft_r2c(X##_plan p, R* in, C* out);                                            \
  void X##_mpi_execute_dft_c2r(X##_plan p, C* in, R* out);                                            \
  void X##_mpi_execute_r2r(X##_plan p, R* in, R* out);

VOLFFT_FFTW_MPI_DECLARE(fftw, double, fftw_complex)
VOLFFT_FFTW_MPI_DECLARE(fftwf, float, fftwf_complex)

#ifdef __cplusplus
}
#endif
#endif /* VOLFFT_FFTW3_MPI_H */
