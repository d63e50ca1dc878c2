"""dtFFT (PyPI ``dtfft-fftw-openmpi``) timed like volfft-bench times its FFTW-MPI peer; JSON on stdout.

    scripts/mpirun.sh -n 2 $DTFFT_PYTHON benchmarks/dtfft_peer.py c2c double 128 --iters 5

Run by benchmarks/peer_matrix.py when ``DTFFT_PYTHON`` names a python that can import dtfft and
mpi4py (docs/performance.md, "Peers heFFTe and dtFFT in the matrix"). Every mode is planned with
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

import argparse
import json
import statistics
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from mpi4py import MPI

import dtfft


def _fill(rank: int, count: int, complex_input: bool) -> np.ndarray:
    x = (np.arange(count, dtype=np.float64) * 7919 + rank * 104729) % 1000 * 1e-3
    return x + 1j * x[::-1] if complex_input else x


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
    x = _fill(comm.rank, count, kind == "c2c").astype(a.dtype)
    forward: List[float] = []
    backward: List[float] = []
    for it in range(-warmup, iters):
        a[:count] = x
        comm.Barrier()
        t = MPI.Wtime()
        plan.execute(a, b, dtfft.Execute.FORWARD, aux)
        tf = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
        comm.Barrier()
        t = MPI.Wtime()
        plan.execute(b, c, dtfft.Execute.BACKWARD, aux)
        tb = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
        if it >= 0:
            forward.append(1e3 * tf)
            backward.append(1e3 * tb)
    total = float(np.prod(shape))
    error = float(np.max(np.abs(c[:count] / total - x))) if count else 0.0
    # One more forward, untimed: its zero-frequency term (on the rank whose output box starts at
    # the origin) is the sum of the whole input.
    a[:count] = x
    plan.execute(a, b, dtfft.Execute.FORWARD, aux)
    origin = all(v == 0 for v in plan.local_sizes[2]) and np.prod(plan.local_sizes[3]) > 0
    dc = complex(b.view(np.complex128 if b.dtype in (np.float64, np.complex128) else np.complex64)[0]) \
        if origin else 0j
    dc = comm.allreduce(dc)
    expected = comm.allreduce(complex(np.sum(x.astype(np.complex128))))
    dc_error = abs(dc - expected) / max(abs(expected), 1.0)
    result = {"mode": f"dtFFT {effort}, {'in-place' if in_place else 'out-of-place'}",
              "forward_median_ms": statistics.median(forward),
              "backward_median_ms": statistics.median(backward),
              "forward_ms": forward, "backward_ms": backward, "plan_seconds": plan_seconds,
              "grid_dims": list(plan.grid_dims), "backend": str(plan.backend.name),
              "z_slab": bool(plan.z_slab_enabled),
              "roundtrip_max_error": comm.allreduce(error, op=MPI.MAX),
              "forward_dc_relative_error": dc_error}
    del a, b, c, aux
    plan.destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["c2c", "r2c"])
    parser.add_argument("precision", choices=["double", "float"])
    parser.add_argument("shape", nargs="+", type=int, help="n (a cube) or n0 n1 n2 (C order)")
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--effort", nargs="+", default=["patient"],
                        choices=["estimate", "measure", "patient"])
    parser.add_argument("--placement", nargs="+", default=["out-of-place", "in-place"],
                        choices=["out-of-place", "in-place"])
    args = parser.parse_args(argv)
    shape = args.shape * 3 if len(args.shape) == 1 else args.shape
    if len(shape) != 3 or min(shape) < 1 or args.iters < 1 or args.warmup < 0:
        parser.error("shape: n or n0 n1 n2, positive; --iters >= 1, --warmup >= 0")
    comm = MPI.COMM_WORLD
    modes = [time_mode(args.kind, args.precision, shape, placement == "in-place", effort,
                       args.warmup, args.iters, comm)
             for effort in args.effort for placement in args.placement]
    best = min(modes, key=lambda m: m["forward_median_ms"] + m["backward_median_ms"])
    if comm.rank == 0:
        tolerance = 1e-9 if args.precision == "double" else 1e-3
        print(json.dumps({"schema": "volfft-dtfft-peer/1", "version": dtfft.__version__
                          if hasattr(dtfft, "__version__") else "unknown",
                          "kind": args.kind, "precision": args.precision, "shape": shape,
                          "ranks": comm.size, "iters": args.iters, "scaled": False,
                          "mode": best["mode"], "forward_median_ms": best["forward_median_ms"],
                          "backward_median_ms": best["backward_median_ms"],
                          "ok": all(m["roundtrip_max_error"] < tolerance and
                                    m["forward_dc_relative_error"] < tolerance for m in modes),
                          "modes": modes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
