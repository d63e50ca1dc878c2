/* volfft C API: distributed FFTs of 2 or more axes on MPI, and global redistributions (Reshape).
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

/* R2R: real arrays on both sides, every axis a DCT/DST kind or NONE (options->kinds required). */
typedef enum { VOLFFT_C2C = 0, VOLFFT_R2C = 1, VOLFFT_R2R = 2 } volfft_kind;
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
  int scale_forward;      /* nonzero: forward scaled by 1/N (numpy's norm="forward" with
                             scale_backward = 0); default 0 */
  int min_memory;         /* nonzero: the plan holds its buffers only (engine auto -> alltoallw,
                             FFTs planned without arrays: FFTW estimated); Options::min_memory */
  int destroy_input;      /* nonzero: an out-of-place forward or backward may overwrite its
                             input (FFTW's FFTW_DESTROY_INPUT); Options::destroy_input */
} volfft_options;

typedef struct volfft_plan_s* volfft_plan;

/* A global index box [lo, hi) (volfft::Box). 2-D arrays keep [0, 1) as the third axis. */
typedef struct {
  int64_t lo[3];
  int64_t hi[3];
} volfft_box;

/* One rank's part of a distributed array and the memory holding it (volfft::LocalArray).
 * A zeroed struct is an empty box in C order. */
typedef struct {
  volfft_box box;      /* the elements this rank owns; may be empty */
  int order[3];        /* memory order, axes slowest to fastest ... */
  int order_length;    /* ... its entries: 0 (C order) or ndim; at most 3: an N-D plan's order
                          is that of its first three axes, the trailing ones after them */
  volfft_box storage;  /* the local array in global indices when larger than box (ghost layers,
                          padded rows); all zero = box itself. Must contain box. */
} volfft_local_array;

/* Fill *options with the defaults. */
void volfft_options_default(volfft_options* options);

/* Collective over comm. shape has ndim (>= 2) entries. options may be NULL. Plans of more than 3
 * axes (c2c, r2r; not r2c, padded or on user arrays) distribute the first three axes as a 3-D
 * plan does; the other axes are whole on every rank and fastest in memory, in C order, after the
 * first three: boxes, the local array's order and the grid describe the first three axes
 * (volfft::Plan, docs/conventions.md). */
volfft_status volfft_plan_create(MPI_Comm comm, int ndim, const int64_t* shape, int kind,
                                 int precision, const volfft_options* options,
                                 volfft_plan* plan);
/* Collective: a plan on the user's own arrays (volfft::Plan's constructor with LocalArrays):
 * in is this rank's part of the forward input, out of the forward output; NULL keeps the plan's
 * own array on that side (every rank NULL or none). The ranks' boxes must cover each array once;
 * a bad cover is VOLFFT_ERROR_ARGUMENT on every rank with a message naming ranks and boxes. The
 * plan reshapes between the user's arrays and its own; options->workspace must be NULL. */
volfft_status volfft_plan_create_on_arrays(MPI_Comm comm, int ndim, const int64_t* shape, int kind,
                                           int precision, const volfft_options* options,
                                           const volfft_local_array* in, const volfft_local_array* out,
                                           volfft_plan* plan);
/* Collective. Accepts NULL. */
volfft_status volfft_plan_destroy(volfft_plan plan);

/* Collective. in/out as Plan::forward_raw / backward_raw: two arrays that do not overlap (one
 * array for a plan made in place); overlapping arrays are VOLFFT_ERROR_ARGUMENT on every rank. */
volfft_status volfft_forward(volfft_plan plan, const void* in, void* out);
volfft_status volfft_backward(volfft_plan plan, const void* in, void* out);

/* Split phase (see volfft::Request): start, then test now and then, then wait. A start sets
 * *request to NULL first: it holds a request only when the start returns VOLFFT_OK. */
typedef struct volfft_request_s* volfft_request;
volfft_status volfft_forward_start(volfft_plan plan, const void* in, void* out,
                                   volfft_request* request);
volfft_status volfft_backward_start(volfft_plan plan, const void* in, void* out,
                                    volfft_request* request);
/* Local: *done = 1 once the first exchange has completed. volfft_request_wait may still
 * communicate (later exchanges, a reshape to the user's arrays): every rank calls it. */
volfft_status volfft_request_test(volfft_request request, int* done);
/* Collective: completes the transform and frees the request, also when it fails. A plan
 * destroyed with a request pending completes the transform first; that request's wait then
 * returns an error (on every rank) and frees it. */
volfft_status volfft_request_wait(volfft_request request);

/* Boxes in user axes: lo[3], hi[3] (entries past ndim are 0 and 1). */
volfft_status volfft_input_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]);
volfft_status volfft_output_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]);
/* Memory orders: order[ndim], user axes slowest to fastest (N-D: the trailing axes last). */
volfft_status volfft_input_order(volfft_plan plan, int* order);
volfft_status volfft_output_order(volfft_plan plan, int* order);
/* Each side's array: box, order and storage (the user's arrays of a plan made on them). */
volfft_status volfft_input_array(volfft_plan plan, volfft_local_array* array);
volfft_status volfft_output_array(volfft_plan plan, volfft_local_array* array);
volfft_status volfft_counts(volfft_plan plan, int64_t* input_count, int64_t* output_count);
/* Bytes of workspace this plan holds on this rank (its own, or the options->workspace it uses). */
volfft_status volfft_workspace_bytes(volfft_plan plan, size_t* bytes);
/* Bytes of options->workspace a plan for these arguments needs on rank `rank` of `comm_size`
 * (Plan::required_workspace_bytes): pure, no MPI, before any plan exists. A plan given a
 * workspace runs engine auto as alltoallv, so this can exceed volfft_workspace_bytes of a plan
 * that owns its workspace (engine node). With engine node it counts the send area, which a
 * plan whose ranks all share one node does not use (which ranks share a node takes MPI to
 * know): then it is up to twice what the plan reports, never less. Call it on the machine the
 * plan will run on: a one-rank out-of-place r2c plan needs far less where its spectrum is more
 * than a third of that machine's last-level cache (its backward runs folded in the caller's two
 * arrays), so a size computed elsewhere may be too small, which the plan refuses by name. */
volfft_status volfft_required_workspace_bytes(int comm_size, int rank, int ndim, const int64_t* shape, int kind,
                                              int precision, const volfft_options* options, size_t* bytes);
/* Bytes of the one array an in-place plan transforms (Plan::in_place_bytes). */
volfft_status volfft_in_place_bytes(volfft_plan plan, size_t* bytes);
volfft_status volfft_grid(volfft_plan plan, int grid[2]);
/* The engine and the FFT backend the plan runs (a volfft_engine, a volfft_backend; never AUTO:
 * what engine auto and backend auto chose, the same on every rank). Plan::engine, Plan::backend. */
volfft_status volfft_plan_engine(volfft_plan plan, int* engine);
volfft_status volfft_plan_backend(volfft_plan plan, int* backend);

/* Phase timings of the last call in `direction`. Up to *count phases are written; *count is
 * set to the number of phases. max_over_ranks != 0 makes it collective (max over ranks).
 * names[k] stay valid until the plan is destroyed or called again. */
volfft_status volfft_timings(volfft_plan plan, int direction, int max_over_ranks, int* count,
                             const char** names, double* seconds);

/* ---- Named distributions (volfft/distribution.hpp): the box of every rank, boxes[r] for
 * r < ranks (the caller's array of `ranks` entries). Pure, no MPI. shape: ndim (2 or 3) sizes. */
volfft_status volfft_slabs(int ndim, const int64_t* shape, int ranks, int axis, volfft_box* boxes);
volfft_status volfft_pencils(int ndim, const int64_t* shape, int ranks, int axis, volfft_box* boxes);
volfft_status volfft_bricks(int ndim, const int64_t* shape, int ranks, volfft_box* boxes);
/* FFTW-MPI's blocks along axis: block points per rank (0 = ceil(n / ranks)); last ranks may be empty. */
volfft_status volfft_fftw_blocks(int ndim, const int64_t* shape, int ranks, int axis, int64_t block,
                                 volfft_box* boxes);

/* ---- Reshape (volfft::Reshape): the global redistribution alone, no transform. */
typedef enum { VOLFFT_VALUES_COMPLEX = 0, VOLFFT_VALUES_REAL = 1 } volfft_values;
typedef struct volfft_reshape_s* volfft_reshape;
/* Collective. in/out: this rank's array before and after. values: volfft_values. Options read:
 * engine (not pipelined/node), tune, batch, batch_layout, threads; options may be NULL. */
volfft_status volfft_reshape_create(MPI_Comm comm, int ndim, const int64_t* shape,
                                    const volfft_local_array* in, const volfft_local_array* out,
                                    int precision, int values, const volfft_options* options,
                                    volfft_reshape* reshape);
/* Collective. Accepts NULL. */
volfft_status volfft_reshape_destroy(volfft_reshape reshape);
/* Collective: out's box receives the values of the ranks' in boxes; in is not changed. */
volfft_status volfft_reshape_execute(volfft_reshape reshape, const void* in, void* out);
/* Collective: the inverse (out array read, in array written). */
volfft_status volfft_reshape_reverse(volfft_reshape reshape, const void* out, void* in);
/* Split phase: start (reversed != 0: of reverse, with in = the out array), test, finish. */
volfft_status volfft_reshape_start(volfft_reshape reshape, const void* in, void* out, int reversed);
volfft_status volfft_reshape_test(volfft_reshape reshape, int* done);
volfft_status volfft_reshape_finish(volfft_reshape reshape);
/* Elements of the input and output arrays (storage times batch). */
volfft_status volfft_reshape_counts(volfft_reshape reshape, int64_t* input_count, int64_t* output_count);
volfft_status volfft_reshape_workspace_bytes(volfft_reshape reshape, size_t* bytes);
/* The engine it runs (a volfft_engine, never AUTO). */
volfft_status volfft_reshape_engine(volfft_reshape reshape, int* engine);

const char* volfft_last_error(void);
const char* volfft_version(void);

#ifdef __cplusplus
}
#endif
#endif /* VOLFFT_H */
