"""volfft's default against FFTW-MPI in its fastest mode, over a matrix of problems, in rounds.

    python benchmarks/peer_matrix.py                      # c2c/r2c, 128^3/256^3, np 1/2/4, 3 rounds
    python benchmarks/peer_matrix.py --kinds c2c --sizes 64 --np 1 2 --rounds 2 --out m.json

Every cell (kind, precision, n^3, np) runs ``volfft-bench KIND PRECISION n n n --no-scale
--compare fftw-mpi --json`` under ``scripts/mpirun.sh``: volfft's default plan (grid and engine
by rule) and, in the same job, FFTW-MPI in each of its four modes (in place or not, transposed
or not; docs/bench-json.md), both unscaled; then a job of volfft's in-place plan (``--in-place``,
the mode a user who can give up the input picks). The ratios of a cell are volfft's default /
FFTW-MPI's fastest mode and volfft in place / the same, forward + backward medians; above 1,
volfft is slower. The cells run in rounds (every
cell once, then again), so that a slow minute of a shared machine spreads over all cells instead
of spoiling one; the table shows each cell's median ratio over the rounds and its range.

Peers not run here (mpi4py-fft, dtFFT, heFFTe) are listed in the JSON with the reason;
benchmarks/compare_mpi4py_fft.py measures mpi4py-fft. Absolute times on an oversubscribed
machine are noise: the bench itself warns when ranks x threads exceed the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = {
    "mpi4py-fft": "measured by benchmarks/compare_mpi4py_fft.py (needs mpi4py-fft installed)",
    "dtFFT": "not installed here (PyPI dtfft-fftw-openmpi)",
    "heFFTe": "not built here (a snapshot built in a scratch folder)",
}


def run_bench(bench: str, nprocs: int, bench_args: Sequence[str], timeout: float) -> Dict[str, Any]:
    """One ``volfft-bench`` job of ``nprocs`` ranks under scripts/mpirun.sh; its JSON report
    (docs/bench-json.md). ``bench_args`` are the bench's own arguments, without ``--json``.

    Raises
    ------
    RuntimeError
        When the job fails or times out (the message holds its output).
    """
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cell.json")
        command = [os.path.join(ROOT, "scripts", "mpirun.sh"), "-n", str(nprocs), bench,
                   *bench_args, "--json", out]
        # The job gets this process's environment as Python read it at start-up, less any MPI
        # job's identity: when this process is an MPI process itself (a singleton after
        # MPI_Init), its C environment carries variables that make the child mpirun fail.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OMPI_COMM_WORLD", "PMIX_", "PMI_", "HYDRA_"))}
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired as error:
            raise RuntimeError(f"{' '.join(command)}: no result within {timeout} s") from error
        if run.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


def run_cell(bench: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
             timeout: float) -> Dict[str, Any]:
    """volfft's default plan and FFTW-MPI in every mode, unscaled, in one job of ``nprocs`` ranks."""
    return run_bench(bench, nprocs, [kind, precision, str(n), str(n), str(n), "--iters", str(iters),
                                     "--no-scale", "--compare", "fftw-mpi"], timeout)


def run_in_place(bench: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
                 timeout: float) -> Dict[str, Any]:
    """volfft's in-place plan (grid and engine by rule), unscaled, alone in a job."""
    return run_bench(bench, nprocs, [kind, precision, str(n), str(n), str(n), "--iters", str(iters),
                                     "--no-scale", "--in-place"], timeout)


def summarise(report: Dict[str, Any], in_place: Dict[str, Any]) -> Dict[str, Any]:
    """The numbers of one round of one cell: volfft's times and configuration (default and in
    place), the peer's."""
    peer = report["compare"]["fftw-mpi"]
    volfft_ms = report["forward"]["median_ms"] + report["backward"]["median_ms"]
    in_place_ms = in_place["forward"]["median_ms"] + in_place["backward"]["median_ms"]
    peer_ms = peer["forward_median_ms"] + peer["backward_median_ms"]
    return {"volfft_ms": volfft_ms, "fftw_mpi_ms": peer_ms, "ratio": volfft_ms / peer_ms,
            "volfft_in_place_ms": in_place_ms, "ratio_in_place": in_place_ms / peer_ms,
            "grid": report["config"]["grid"], "engine": report["config"]["engine"],
            "fftw_mpi_mode": peer["mode"], "plan_seconds": report["plan_seconds"],
            "fftw_mpi_modes": peer["modes"]}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["c2c", "r2c"], choices=["c2c", "r2c"])
    parser.add_argument("--precisions", nargs="+", default=["double"], choices=["double", "float"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[128, 256])
    parser.add_argument("--np", nargs="+", type=int, default=[1, 2, 4], dest="nps")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5, help="calls per job (each job's median)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per job")
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "benchmarks", "volfft-bench"))
    parser.add_argument("--out", default="peer-matrix.json", help="JSON with every round")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iters < 1 or min(args.sizes) < 1 or min(args.nps) < 1:
        parser.error("--rounds, --iters, --sizes and --np take positive integers")
    if not os.access(args.bench, os.X_OK):
        parser.error(f"--bench: no volfft-bench at {args.bench} (run scripts/build.sh)")

    cells = [(k, p, n, q) for k in args.kinds for p in args.precisions for n in args.sizes
             for q in args.nps]
    rounds: Dict[tuple, List[Dict[str, Any]]] = {cell: [] for cell in cells}
    for r in range(args.rounds):
        for cell in cells:
            result = summarise(run_cell(args.bench, *cell, args.iters, args.timeout),
                               run_in_place(args.bench, *cell, args.iters, args.timeout))
            rounds[cell].append(result)
            kind, precision, n, nprocs = cell
            print(f"round {r + 1}/{args.rounds}: {kind} {precision} {n}^3 np {nprocs}: "
                  f"ratio {result['ratio']:.3f}, in place {result['ratio_in_place']:.3f}",
                  file=sys.stderr, flush=True)

    table = []
    for cell in cells:
        ratios = [x["ratio"] for x in rounds[cell]]
        kind, precision, n, nprocs = cell
        table.append({"kind": kind, "precision": precision, "n": n, "np": nprocs,
                      "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
                      "ratio_max": max(ratios),
                      "ratio_in_place_median": statistics.median(x["ratio_in_place"] for x in rounds[cell]),
                      "volfft_ms_median": statistics.median(x["volfft_ms"] for x in rounds[cell]),
                      "fftw_mpi_ms_median": statistics.median(x["fftw_mpi_ms"] for x in rounds[cell]),
                      "rounds": rounds[cell]})
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"schema": "volfft-peer-matrix/1", "cpus": os.cpu_count(), "cells": table,
                   "not_run": NOT_RUN}, handle, indent=1)

    print("volfft default (and in place) / FFTW-MPI fastest mode, forward + backward, unscaled; median "
          f"over {args.rounds} round(s) [range]; above 1: volfft is slower")
    print(f"{'problem':<22} {'np':>3} {'volfft ms':>10} {'FFTW-MPI ms':>12} {'ratio':>7}  range          "
          f"{'in place':>8}  volfft config / FFTW-MPI mode (last round)")
    for row in table:
        last = row["rounds"][-1]
        problem = f"{row['kind']} {row['precision']} {row['n']}^3"
        print(f"{problem:<22} {row['np']:>3} {row['volfft_ms_median']:>10.3f} "
              f"{row['fftw_mpi_ms_median']:>12.3f} {row['ratio_median']:>7.3f}  "
              f"[{row['ratio_min']:.3f}, {row['ratio_max']:.3f}]  {row['ratio_in_place_median']:>8.3f}  "
              f"{last['grid'][0]}x{last['grid'][1]} {last['engine']} / {last['fftw_mpi_mode']}")
    for name, why in NOT_RUN.items():
        print(f"not run: {name}: {why}")
    print(f"every round: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
