"""dtFFT (PyPI ``dtfft-fftw-openmpi``) timed like volfft-bench times its FFTW-MPI peer; JSON on stdout.

    scripts/mpirun.sh -n 2 $DTFFT_PYTHON benchmarks/dtfft_peer.py c2c double 128 --iters 5

Run by benchmarks/peer_matrix.py when ``DTFFT_PYTHON`` names a python that can import dtfft and
mpi4py (docs/performance.md, "Peers heFFTe, dtFFT and mpi4py-fft in the matrix"). Every mode is planned with
FFTW3 as the executor and ``Effort.PATIENT`` with every MPI backend enabled (dtFFT then tries the
process grids, Z-slab or not, and its communication backends, and keeps the fastest), then timed
out of place (forward in -> out, backward out -> back) and in place (one buffer). Each iteration
is timed like volfft-bench times its peers: forward and backward each barrier-bracketed, the
maximum over ranks; unscaled (dtFFT does not scale: a round trip multiplies by N, like volfft's
``--no-scale``); the input is refilled, untimed, before each forward. Each mode is checked
after its timing: the round trip against N x the input, and the forward's zero-frequency term
against the input's sum (``ok``). The JSON holds every mode and, at top level, the fastest
(smallest forward + backward median).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict, Optional, Sequence

import numpy as np
from mpi4py import MPI

import dtfft

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import arguments, dc_error, fill, mode_result, report, shape_of, time_pair  # noqa: E402


def time_mode(kind: str, precision: str, shape: Sequence[int], in_place: bool, effort: str,
              warmup: int, iters: int, comm: MPI.Comm) -> Dict[str, Any]:
    """One dtFFT plan, planned and timed; its medians (ms), plan time (s), choices and round-trip
    error (max over ranks of |back / N - x|)."""
    cls = dtfft.PlanC2C if kind == "c2c" else dtfft.PlanR2C
    prec = dtfft.Precision.DOUBLE if precision == "double" else dtfft.Precision.SINGLE
    # dtFFT takes dims in Fortran order (fastest first); volfft's shape is C order (last fastest).
    dims = list(reversed(shape))
    config = dtfft.Config(enable_mpi_backends=True) if effort == "patient" else None
    comm.Barrier()
    t0 = time.perf_counter()
    plan = cls(dims, comm, prec, getattr(dtfft.Effort, effort.upper()), dtfft.Executor.FFTW3, config)
    plan_seconds = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    size = plan.alloc_size
    a = plan.get_ndarray(size)
    b = a if in_place else plan.get_ndarray(size)
    c = a if in_place else plan.get_ndarray(size)
    aux = plan.get_ndarray(max(plan.aux_size, 1))
    count = int(np.prod(plan.local_sizes[1]))
    x = fill(comm.rank, count, kind == "c2c").astype(a.dtype)

    def refill() -> None:
        a[:count] = x

    forward, backward = time_pair(comm, refill, lambda: plan.execute(a, b, dtfft.Execute.FORWARD, aux),
                                  lambda: plan.execute(b, c, dtfft.Execute.BACKWARD, aux), warmup, iters)
    total = float(np.prod(shape))
    error = float(np.max(np.abs(c[:count] / total - x))) if count else 0.0
    # One more forward, untimed: its zero-frequency term (on the rank whose output box starts at
    # the origin) is the sum of the whole input.
    refill()
    plan.execute(a, b, dtfft.Execute.FORWARD, aux)
    origin = all(v == 0 for v in plan.local_sizes[2]) and np.prod(plan.local_sizes[3]) > 0
    dc = complex(b.view(np.complex128 if b.dtype in (np.float64, np.complex128) else np.complex64)[0]) \
        if origin else 0j
    result = mode_result(f"dtFFT {effort}, {'in-place' if in_place else 'out-of-place'}", forward, backward,
                         plan_seconds, comm.allreduce(error, op=MPI.MAX), dc_error(comm, dc, x),
                         grid_dims=list(plan.grid_dims), backend=str(plan.backend.name),
                         z_slab=bool(plan.z_slab_enabled))
    del a, b, c, aux
    plan.destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--effort", nargs="+", default=["patient"],
                        choices=["estimate", "measure", "patient"])
    parser.add_argument("--placement", nargs="+", default=["out-of-place", "in-place"],
                        choices=["out-of-place", "in-place"])
    args = parser.parse_args(argv)
    shape = shape_of(parser, args)
    comm = MPI.COMM_WORLD
    modes = [time_mode(args.kind, args.precision, shape, placement == "in-place", effort,
                       args.warmup, args.iters, comm)
             for effort in args.effort for placement in args.placement]
    report(comm, "volfft-dtfft-peer/1", getattr(dtfft, "__version__", "unknown"), args.kind,
           args.precision, shape, args.iters, modes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
