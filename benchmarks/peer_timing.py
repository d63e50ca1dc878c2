"""What the Python peers of benchmarks/peer_matrix.py share: their input, their timing, their
checks and their report, so that dtFFT and mpi4py-fft are timed and judged the same way (and the
way volfft-bench times FFTW-MPI).

* ``fill``: a deterministic input of this rank's length.
* ``time_pair``: forward then backward, each barrier-bracketed, the maximum over ranks, the input
  refilled (untimed) before each forward; ``warmup`` pairs first, not kept.
* ``dc_error``: the forward's zero-frequency term, held by the rank whose output box starts at the
  origin, against the sum of the whole input (relative).
* ``arguments``: the command line every peer script takes (kind, precision, shape, --iters,
  --warmup), and ``shape_of`` its shape as three sizes.
* ``report``: the JSON line peer_matrix.py reads: every mode and, at top level, the fastest
  (smallest forward + backward median) and ``ok`` (every mode's round trip and zero-frequency term
  within the precision's tolerance).
"""
from __future__ import annotations

import argparse
import json
import statistics
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np
from mpi4py import MPI


def arguments(description: str) -> argparse.ArgumentParser:
    """The arguments every peer script takes; a script adds its own before parsing."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("kind", choices=["c2c", "r2c"])
    parser.add_argument("precision", choices=["double", "float"])
    parser.add_argument("shape", nargs="+", type=int, help="n (a cube) or n0 n1 n2 (C order)")
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    return parser


def shape_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> List[int]:
    """The parsed shape as three sizes; the parser's error (exit 2) for a bad shape or count."""
    shape = args.shape * 3 if len(args.shape) == 1 else args.shape
    if len(shape) != 3 or min(shape) < 1 or args.iters < 1 or args.warmup < 0:
        parser.error("shape: n or n0 n1 n2, positive; --iters >= 1, --warmup >= 0")
    return shape


def fill(rank: int, count: int, complex_input: bool) -> np.ndarray:
    """``count`` values in [0, 1) that differ between ranks; complex when ``complex_input``."""
    x = (np.arange(count, dtype=np.float64) * 7919 + rank * 104729) % 1000 * 1e-3
    return x + 1j * x[::-1] if complex_input else x


def time_pair(comm: MPI.Comm, refill: Callable[[], None], forward: Callable[[], None],
              backward: Callable[[], None], warmup: int, iters: int) -> Tuple[List[float], List[float]]:
    """Milliseconds of ``iters`` forward and backward calls (max over ranks), after ``warmup``."""
    forward_ms: List[float] = []
    backward_ms: List[float] = []
    for it in range(-warmup, iters):
        refill()
        comm.Barrier()
        t = MPI.Wtime()
        forward()
        tf = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
        comm.Barrier()
        t = MPI.Wtime()
        backward()
        tb = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
        if it >= 0:
            forward_ms.append(1e3 * tf)
            backward_ms.append(1e3 * tb)
    return forward_ms, backward_ms


def dc_error(comm: MPI.Comm, local_dc: complex, x: np.ndarray) -> float:
    """|forward's zero-frequency term - sum of the input| / max(|sum|, 1), over all ranks.
    ``local_dc``: that term on the rank that holds it, 0 elsewhere; ``x``: this rank's input."""
    dc = comm.allreduce(complex(local_dc))
    expected = comm.allreduce(complex(np.sum(x.astype(np.complex128))))
    return abs(dc - expected) / max(abs(expected), 1.0)


def mode_result(name: str, forward_ms: Sequence[float], backward_ms: Sequence[float],
                plan_seconds: float, roundtrip_error: float, forward_dc_error: float,
                **details: Any) -> Dict[str, Any]:
    """One mode's entry in the report."""
    return {"mode": name, "forward_median_ms": statistics.median(forward_ms),
            "backward_median_ms": statistics.median(backward_ms),
            "forward_ms": list(forward_ms), "backward_ms": list(backward_ms),
            "plan_seconds": plan_seconds, **details,
            "roundtrip_max_error": roundtrip_error, "forward_dc_relative_error": forward_dc_error}


def report(comm: MPI.Comm, schema: str, version: str, kind: str, precision: str,
           shape: Sequence[int], iters: int, modes: List[Dict[str, Any]]) -> None:
    """Prints the report (rank 0): the fastest mode at top level, every mode under ``modes``."""
    if comm.rank != 0:
        return
    best = min(modes, key=lambda m: m["forward_median_ms"] + m["backward_median_ms"])
    tolerance = 1e-9 if precision == "double" else 1e-3
    print(json.dumps({"schema": schema, "version": version, "kind": kind, "precision": precision,
                      "shape": list(shape), "ranks": comm.size, "iters": iters, "scaled": False,
                      "mode": best["mode"], "forward_median_ms": best["forward_median_ms"],
                      "backward_median_ms": best["backward_median_ms"],
                      "ok": all(m["roundtrip_max_error"] < tolerance and
                                m["forward_dc_relative_error"] < tolerance for m in modes),
                      "modes": modes}), flush=True)
