"""mpi4py-fft (PyPI ``mpi4py-fft``) timed like volfft-bench times its FFTW-MPI peer; JSON on stdout.

    scripts/mpirun.sh -n 2 $MPI4PY_FFT_PYTHON benchmarks/mpi4py_fft_peer.py c2c double 128 --iters 5

Run by benchmarks/peer_matrix.py when ``MPI4PY_FFT_PYTHON`` names a python that can import
mpi4py_fft (docs/performance.md, "Peers heFFTe, dtFFT and mpi4py-fft in the matrix"). Every mode a
user of ``mpi4py_fft.PFFT`` could pick for a 3-D transform on these ranks is planned (FFTW
backend, ``FFTW_MEASURE``) and timed: slabs (``grid=(-1,)``: axis 0 distributed) and, where the
ranks make a second grid dimension, its default pencils (``grid=None``); each with one FFTW call
per axis (``collapse=False``, its default) and with the local axes in one call
(``collapse=True``). mpi4py-fft transforms out of place only. Timing and checks as
benchmarks/peer_timing.py says (unscaled: ``normalize=False`` both ways, so a round trip multiplies
by N, like volfft's ``--no-scale``); the fastest mode is the report's top level.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from mpi4py import MPI

import mpi4py_fft
from mpi4py_fft import PFFT, newDistArray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import arguments, dc_error, fill, mode_result, report, shape_of, time_pair  # noqa: E402


def decompositions(ranks: int) -> List[tuple]:
    """(name, PFFT grid argument) of the decompositions to time on ``ranks`` ranks: slabs, and
    mpi4py-fft's default pencils where they are not slabs too."""
    found = [("slabs", (-1,))]
    if MPI.Compute_dims(ranks, 2)[1] > 1:
        found.append(("pencils", None))
    return found


def time_mode(kind: str, precision: str, shape: Sequence[int], decomposition: str, grid: Optional[tuple],
              collapse: bool, warmup: int, iters: int, comm: MPI.Comm) -> Dict[str, Any]:
    """One PFFT, planned and timed; its medians (ms), plan time (s), and checks."""
    if kind == "c2c":
        dtype = np.complex128 if precision == "double" else np.complex64
    else:
        dtype = np.float64 if precision == "double" else np.float32
    comm.Barrier()
    t0 = time.perf_counter()
    fft = PFFT(comm, list(shape), axes=(0, 1, 2), dtype=dtype, grid=grid, collapse=collapse,
               backend="fftw", planner_effort="FFTW_MEASURE")
    plan_seconds = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    u = newDistArray(fft, False)
    u_hat = newDistArray(fft, True)
    u_back = newDistArray(fft, False)
    x = fill(comm.rank, u.size, kind == "c2c").astype(u.dtype).reshape(u.shape)

    def refill() -> None:
        u[...] = x

    forward, backward = time_pair(comm, refill, lambda: fft.forward(u, u_hat, normalize=False),
                                  lambda: fft.backward(u_hat, u_back, normalize=False), warmup, iters)
    total = float(np.prod(shape))
    error = float(np.max(np.abs(np.asarray(u_back) / total - x))) if u.size else 0.0
    # One more forward, untimed: the zero-frequency term against the sum of the input.
    refill()
    fft.forward(u, u_hat, normalize=False)
    origin = all(s.start == 0 for s in fft.local_slice(True)) and u_hat.size > 0
    dc = complex(np.asarray(u_hat)[0, 0, 0]) if origin else 0j
    result = mode_result(f"mpi4py-fft {decomposition}, collapse={collapse}", forward, backward, plan_seconds,
                         comm.allreduce(error, op=MPI.MAX), dc_error(comm, dc, x),
                         subcomm_sizes=[int(c.Get_size()) for c in fft.subcomm])
    fft.destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    shape = shape_of(parser, args)
    comm = MPI.COMM_WORLD
    modes = [time_mode(args.kind, args.precision, shape, name, grid, collapse, args.warmup, args.iters, comm)
             for name, grid in decompositions(comm.size) for collapse in (False, True)]
    report(comm, "volfft-mpi4py-fft-peer/1", getattr(mpi4py_fft, "__version__", "unknown"), args.kind,
           args.precision, shape, args.iters, modes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
