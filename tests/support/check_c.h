/* CHECK for the C test programs: on failure print the rank, the place, the message (and the
 * C API's last error when the program sets CHECK_C_LAST_ERROR to a call that returns it), then
 * abort the whole job, so that a failing rank never leaves the others waiting. The program
 * defines `rank` (this rank in MPI_COMM_WORLD). */
#ifndef VOLFFT_TEST_CHECK_C_H
#define VOLFFT_TEST_CHECK_C_H

#include <mpi.h>
#include <stdio.h>

#ifndef CHECK_C_LAST_ERROR
#define CHECK_C_LAST_ERROR() ""
#endif

#define CHECK(condition, ...)                                        \
  do {                                                               \
    if (!(condition)) {                                              \
      fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                  \
      fprintf(stderr, " %s\n", CHECK_C_LAST_ERROR());                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                  \
    }                                                                \
  } while (0)

#endif
