/* volfft C API: distributed 2-D/3-D FFTs on MPI.
 *
 * Every function returns a volfft_status; on failure volfft_last_error() gives a message
 * (per thread, valid until the next volfft call on that thread). No C++ exception crosses
 * this boundary. Semantics are those of volfft::Plan (include/volfft/plan.hpp). */
#ifndef VOLFFT_H
#define VOLFFT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  VOLFFT_OK = 0,
  VOLFFT_ERROR_ARGUMENT = 1, /* invalid argument (same on every rank for plan creation) */
  VOLFFT_ERROR_MPI = 2,      /* an MPI call failed */
  VOLFFT_ERROR_INTERNAL = 3  /* anything else (out of memory, FFTW planning failure) */
} volfft_status;

typedef enum { VOLFFT_C2C = 0, VOLFFT_R2C = 1 } volfft_kind;
typedef enum { VOLFFT_DOUBLE = 0, VOLFFT_FLOAT = 1 } volfft_precision;
typedef enum {
  VOLFFT_ENGINE_AUTO = 0,
  VOLFFT_ENGINE_ALLTOALLV = 1,
  VOLFFT_ENGINE_ALLTOALL = 2,
  VOLFFT_ENGINE_ALLTOALLW = 3,
  VOLFFT_ENGINE_P2P = 4,
  VOLFFT_ENGINE_PIPELINED = 5,
  VOLFFT_ENGINE_PERSISTENT = 6,
  VOLFFT_ENGINE_NODE = 7
} volfft_engine;
typedef enum { VOLFFT_BACKEND_AUTO = 0, VOLFFT_BACKEND_FFTW = 1, VOLFFT_BACKEND_DUCC0 = 2 } volfft_backend;
typedef enum { VOLFFT_LAYOUT_TRANSPOSED = 0, VOLFFT_LAYOUT_NATURAL = 1 } volfft_layout;
typedef enum { VOLFFT_ESTIMATE = 0, VOLFFT_MEASURE = 1, VOLFFT_PATIENT = 2 } volfft_effort;
typedef enum { VOLFFT_FORWARD = 0, VOLFFT_BACKWARD = 1 } volfft_direction;
typedef enum { VOLFFT_BATCH_OUTER = 0, VOLFFT_BATCH_INNER = 1 } volfft_batch_layout;
/* Per-axis transforms (volfft::AxisKind): FFTW's REDFT00/10/01/11 are DCT1..4, RODFT00/10/01/11 DST1..4. */
typedef enum {
  VOLFFT_AXIS_DFT = 0, VOLFFT_AXIS_R2C = 1,
  VOLFFT_AXIS_DCT1 = 2, VOLFFT_AXIS_DCT2 = 3, VOLFFT_AXIS_DCT3 = 4, VOLFFT_AXIS_DCT4 = 5,
  VOLFFT_AXIS_DST1 = 6, VOLFFT_AXIS_DST2 = 7, VOLFFT_AXIS_DST3 = 8, VOLFFT_AXIS_DST4 = 9,
  VOLFFT_AXIS_NONE = 10
} volfft_axis_kind;

typedef struct {
  int grid[2];            /* {0,0} = automatic */
  int engine;             /* volfft_engine */
  int layout;             /* volfft_layout */
  int effort;             /* volfft_effort */
  int scale_backward;     /* nonzero: backward scaled by 1/N (default) */
  const int* rank_order;  /* NULL or comm-size entries: rank taking virtual position g */
  int rank_order_length;
  void* workspace;        /* NULL = plan-owned */
  size_t workspace_bytes;
  int planes;             /* pipelined engine: planes per chunk; -1 automatic, 0 blocking */
  int max_in_flight;      /* pipelined engine: chunks in flight at most */
  int pipeline_p2p;       /* pipelined engine: nonzero = Isend/Irecv instead of Ialltoallv */
  const char* map_file;   /* NULL or a map file (line g = coordinates of position g) ... */
  const int* coordinate;  /* ... and this rank's own coordinate */
  int coordinate_length;
  int backend;            /* volfft_backend (default FFTW) */
  int threads;            /* threads per rank (default 1) */
  int ranks_per_node;     /* engine node: pretend nodes of this many ranks; 0 = real nodes */
  int spectral_ndim;      /* padded transforms: 0, or ndim entries in spectral_shape */
  const int64_t* spectral_shape;
  int tune;               /* seconds the planner may spend timing grids/engines; 0 = by rule */
  const char* wisdom_file; /* NULL, or the tuner's wisdom file (also VOLFFT_WISDOM) */
  int verbose;            /* nonzero: the tuner prints its candidate table on rank 0 */
  int in_place;           /* nonzero: forward(a, a)/backward(a, a) on one array of
                             volfft_in_place_bytes (r2c rows padded to 2(n/2+1) reals) */
  const int* kinds;       /* NULL, or ndim volfft_axis_kind values: the transform per axis */
  int kinds_length;
  int batch;              /* fields transformed together (default 1) */
  int batch_layout;       /* volfft_batch_layout: fields outer (k arrays) or inner (interleaved) */
} volfft_options;

typedef struct volfft_plan_s* volfft_plan;

/* Fill *options with the defaults. */
void volfft_options_default(volfft_options* options);

/* Collective over comm. shape has ndim (2 or 3) entries. options may be NULL. */
volfft_status volfft_plan_create(MPI_Comm comm, int ndim, const int64_t* shape, int kind,
                                 int precision, const volfft_options* options,
                                 volfft_plan* plan);
/* Collective. Accepts NULL. */
volfft_status volfft_plan_destroy(volfft_plan plan);

/* Collective. in/out as Plan::forward_raw / backward_raw. */
volfft_status volfft_forward(volfft_plan plan, const void* in, void* out);
volfft_status volfft_backward(volfft_plan plan, const void* in, void* out);

/* Split phase (see volfft::Request): start, then test now and then, then wait. */
typedef struct volfft_request_s* volfft_request;
volfft_status volfft_forward_start(volfft_plan plan, const void* in, void* out,
                                   volfft_request* request);
volfft_status volfft_backward_start(volfft_plan plan, const void* in, void* out,
                                    volfft_request* request);
/* *done = 1 when wait will not block on communication. */
volfft_status volfft_request_test(volfft_request request, int* done);
/* Completes the transform and frees the request. */
volfft_status volfft_request_wait(volfft_request request);

/* Boxes in user axes: lo[3], hi[3] (entries past ndim are 0 and 1). */
volfft_status volfft_input_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]);
volfft_status volfft_output_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]);
/* Memory orders: order[ndim], user axes slowest to fastest. */
volfft_status volfft_input_order(volfft_plan plan, int* order);
volfft_status volfft_output_order(volfft_plan plan, int* order);
volfft_status volfft_counts(volfft_plan plan, int64_t* input_count, int64_t* output_count);
volfft_status volfft_workspace_bytes(volfft_plan plan, size_t* bytes);
/* Bytes of the one array an in-place plan transforms (Plan::in_place_bytes). */
volfft_status volfft_in_place_bytes(volfft_plan plan, size_t* bytes);
volfft_status volfft_grid(volfft_plan plan, int grid[2]);

/* Phase timings of the last call in `direction`. Up to *count phases are written; *count is
 * set to the number of phases. max_over_ranks != 0 makes it collective (max over ranks).
 * names[k] stay valid until the plan is destroyed or called again. */
volfft_status volfft_timings(volfft_plan plan, int direction, int max_over_ranks, int* count,
                             const char** names, double* seconds);

const char* volfft_last_error(void);
const char* volfft_version(void);

#ifdef __cplusplus
}
#endif
#endif /* VOLFFT_H */
