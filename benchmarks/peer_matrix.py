"""volfft's default against FFTW-MPI in its fastest mode, over a matrix of problems, in rounds.

    python benchmarks/peer_matrix.py                      # c2c/r2c, 128^3/256^3, np 1/2/4, 3 rounds
    python benchmarks/peer_matrix.py --kinds c2c --sizes 64 --np 1 2 --rounds 2 --out m.json --plot m.png
    HEFFTE_SPEED3D_DIR=/tmp/heffte-build/benchmarks DTFFT_PYTHON=/tmp/dtfft-venv/bin/python \
        MPI4PY_FFT_PYTHON=/tmp/mpi4py-fft-venv/bin/python \
        python benchmarks/peer_matrix.py --sizes 128        # with heFFTe, dtFFT and mpi4py-fft too

Every cell (kind, precision, n^3, np) runs ``volfft-bench KIND PRECISION n n n --no-scale
--compare fftw-mpi --json`` under ``scripts/mpirun.sh``: volfft's default plan (grid and engine
by rule) and, in the same job, FFTW-MPI in each of its four modes (in place or not, transposed
or not; docs/bench-json.md), both unscaled; then a job of volfft's in-place plan (``--in-place``,
the mode a user who can give up the input picks). The ratios of a cell are volfft's default /
FFTW-MPI's fastest mode and volfft in place / the same, forward + backward medians; above 1,
volfft is slower. The default's ratio is from the same iterations: volfft-bench runs volfft's
plan between FFTW-MPI's calls and reports those times beside the peer's (docs/bench-json.md), so
that a change of the machine's pace within the job does not enter it; the in-place ratio comes
from two jobs. The cells run in rounds (every
cell once, then again), so that a slow minute of a shared machine spreads over all cells instead
of spoiling one; the table shows each cell's median ratio over the rounds and its range.

Optional peers, each found through an environment variable and run in the same rounds, on the
same problem and ranks, right after volfft's two jobs of the cell:

* heFFTe: ``HEFFTE_SPEED3D_DIR``, the folder holding heFFTe's ``speed3d_c2c`` and ``speed3d_r2c``
  (its benchmarks, built with the FFTW backend in a scratch folder: docs/performance.md, "Peers
  heFFTe and dtFFT in the matrix"). Every option set of ``--heffte-modes`` is one job
  (``speed3d_KIND fftw PRECISION n n n -nrunsITERS OPTIONS``); the fastest is kept. speed3d prints
  "Time per run", the mean of one transform over its forward/backward pairs (the slowest rank's
  loop time / (2 x runs)), so the pair is twice that. Its forward scales by 1/N (scale::full, not
  an option of speed3d): one pass over the output more than volfft's unscaled pair.
* dtFFT: ``DTFFT_PYTHON``, a python that imports dtfft (PyPI ``dtfft-fftw-openmpi``) and mpi4py,
  runs benchmarks/dtfft_peer.py: FFTW3 executor, ``Effort.PATIENT``, out of place and in place,
  timed like FFTW-MPI here (medians of barrier-bracketed calls, max over ranks, unscaled); the
  fastest is kept.
* mpi4py-fft: ``MPI4PY_FFT_PYTHON``, a python that imports mpi4py_fft (PyPI ``mpi4py-fft``) and
  mpi4py, runs benchmarks/mpi4py_fft_peer.py: FFTW backend, ``FFTW_MEASURE``, slabs and (where the
  ranks allow) pencils, each with ``collapse`` False and True, out of place (its only placement),
  timed as dtFFT is; the fastest is kept.

Their ratios are volfft's best of the round (default or in place, the faster) / the peer's
forward + backward; above 1, volfft is slower, as for FFTW-MPI. A peer whose variable is unset,
whose programs are missing, or that fails to run in a cell stays in ``not_run`` with the reason
(that stops the peer for the rest of the matrix); a peer whose own check fails in a cell (a wrong
round trip) has no time in that cell, is listed in ``peer_failures`` with the reason, and goes on
in the other cells. Absolute times on an oversubscribed machine are
noise: the bench itself warns when ranks x threads exceed the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = "docs/performance.md, 'Peers heFFTe, dtFFT and mpi4py-fft in the matrix'"
NOT_RUN = {
    "dtFFT": ("DTFFT_PYTHON not set: a python that imports dtfft and mpi4py "
              f"(pip install dtfft-fftw-openmpi into a scratch venv; see {DOC})"),
    "mpi4py-fft": ("MPI4PY_FFT_PYTHON not set: a python that imports mpi4py_fft and mpi4py "
                   f"(pip install mpi4py-fft into a scratch venv; see {DOC})"),
    "heFFTe": ("HEFFTE_SPEED3D_DIR not set: build heFFTe's speed3d_c2c/speed3d_r2c with FFTW in a "
               f"scratch folder and name their folder (see {DOC})"),
}
# heFFTe's speed3d options timed in every cell (one job each; the fastest is kept), from a scan
# of {-io_pencils or not} x {-reorder, -no-reorder} x {-a2av, -a2a, -p2p, -p2p_pl} x {-pencils,
# -slabs} at 128^3, np 1, 2 and 4 on a 2-core machine (docs/performance.md): -no-reorder won
# everywhere and -io_pencils (pencils in, transposed pencils out, as volfft's default and
# FFTW-MPI's TRANSPOSED_OUT) at np 2; the communication method and pencils/slabs were within the
# noise, so the three sets differ in those, and the third keeps heFFTe's own brick layout in and
# out (it led r2c at np 4). On a Zen 5 machine (2026-12-07) -reorder won every 256^3 cell at np 1,
# 2 and 4, by 1.4-4.3x (-no-reorder still won at 128^3), so a fourth set reorders.
HEFFTE_MODES = ["-io_pencils -no-reorder -p2p_pl -pencils", "-io_pencils -no-reorder -a2av -slabs",
                "-no-reorder -a2a -slabs", "-io_pencils -reorder -p2p_pl -pencils"]
# The optional peers, in the order they run and are shown: name, key of their JSON fields.
PEERS = (("heFFTe", "heffte"), ("dtFFT", "dtfft"), ("mpi4py-fft", "mpi4py_fft"))


class WrongResult(Exception):
    """A peer ran in a cell and its own check says its result is wrong: that cell has no time
    for it, and the peer still runs in the other cells (a bug at one size must not hide its
    times at the others)."""
# The peers run by a python of the user's: name -> (its variable, the module it must import,
# the script it runs).
PYTHON_PEERS = {
    "dtFFT": ("DTFFT_PYTHON", "dtfft", os.path.join(ROOT, "benchmarks", "dtfft_peer.py")),
    "mpi4py-fft": ("MPI4PY_FFT_PYTHON", "mpi4py_fft", os.path.join(ROOT, "benchmarks", "mpi4py_fft_peer.py")),
}


def _mpirun(nprocs: int, program: Sequence[str], timeout: float) -> subprocess.CompletedProcess:
    """``program`` on ``nprocs`` ranks under scripts/mpirun.sh.

    Raises
    ------
    RuntimeError
        When the job times out (a failed job is returned: the caller judges it).
    """
    command = [os.path.join(ROOT, "scripts", "mpirun.sh"), "-n", str(nprocs), *program]
    # The job gets this process's environment as Python read it at start-up, less any MPI
    # job's identity: when this process is an MPI process itself (a singleton after
    # MPI_Init), its C environment carries variables that make the child mpirun fail.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_COMM_WORLD", "PMIX_", "PMI_", "HYDRA_"))}
    from volfft import _launch  # stops the whole job on a timeout, ranks included

    try:
        return _launch.run_job(command, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"{' '.join(command)}: no result within {timeout} s") from error


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
        program = [bench, *bench_args, "--json", out]
        run = _mpirun(nprocs, program, timeout)
        if run.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"mpirun -n {nprocs} {' '.join(program)} failed ({run.returncode}):\n"
                               f"{run.stdout}{run.stderr}")
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


def parse_speed3d(output: str) -> Dict[str, Any]:
    """heFFTe speed3d's report: ``seconds_per_transform`` ("Time per run", the mean of one
    transform: forward and backward alternate), ``grids`` (the processor grids of its stages),
    ``max_error`` (None with -no-error).

    Raises
    ------
    ValueError
        When the report has no time.
    WrongResult
        When speed3d says the error exceeds its tolerance.
    """
    if "ERROR: observed error" in output:
        raise WrongResult("heFFTe speed3d: the error exceeds its tolerance:\n" + output[-2000:])
    time_match = re.search(r"^Time per run:\s*([-+0-9.eE]+|inf|nan)\s*\(s\)", output, re.M)
    if time_match is None:
        raise ValueError("heFFTe speed3d printed no 'Time per run':\n" + output[-2000:])
    seconds = float(time_match.group(1))
    if not seconds > 0:
        raise ValueError(f"heFFTe speed3d: 'Time per run' {seconds} (no runs?)")
    grids = re.search(r"^Grids:\s*(.*?)\s*$", output, re.M)
    error = re.search(r"^Max error:\s*([-+0-9.eE]+)", output, re.M)
    return {"seconds_per_transform": seconds, "grids": grids.group(1) if grids else "",
            "max_error": float(error.group(1)) if error else None}


def run_heffte(folder: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
               modes: Sequence[str], timeout: float) -> Dict[str, Any]:
    """heFFTe's speed3d (FFTW backend) in every option set of ``modes``, one job each; every mode's
    forward + backward milliseconds (2 x "Time per run") and the fastest.

    Raises
    ------
    RuntimeError
        When a job fails or its report cannot be read.
    WrongResult
        When speed3d's own check fails.
    """
    results = []
    for mode in modes:
        program = [os.path.join(folder, f"speed3d_{kind}"), "fftw", precision, str(n), str(n),
                   str(n), f"-nruns{iters}", *mode.split()]
        run = _mpirun(nprocs, program, timeout)
        if run.returncode != 0:
            raise RuntimeError(f"mpirun -n {nprocs} {' '.join(program)} failed ({run.returncode}):\n"
                               f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
        try:
            report = parse_speed3d(run.stdout)
        except ValueError as error:
            raise RuntimeError(f"mpirun -n {nprocs} {' '.join(program)}: {error}") from error
        except WrongResult as error:
            raise WrongResult(f"mpirun -n {nprocs} {' '.join(program)}: {error}") from error
        results.append({"mode": mode, "ms": 2e3 * report["seconds_per_transform"],
                        "grids": report["grids"], "max_error": report["max_error"]})
    best = min(results, key=lambda r: r["ms"])
    return {"ms": best["ms"], "mode": best["mode"], "modes": results}


def run_python_peer(name: str, python: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
                    timeout: float) -> Dict[str, Any]:
    """The script of PYTHON_PEERS[name] under ``python``: the peer's fastest mode, forward +
    backward medians (ms, unscaled), and every mode.

    Raises
    ------
    RuntimeError
        When the job fails or prints no JSON.
    WrongResult
        When the script's checks (round trip, zero-frequency term) fail.
    """
    program = [python, PYTHON_PEERS[name][2], kind, precision, str(n), "--iters", str(iters)]
    run = _mpirun(nprocs, program, timeout)
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if run.returncode != 0 or not lines:
        raise RuntimeError(f"mpirun -n {nprocs} {' '.join(program)} failed ({run.returncode}):\n"
                           f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
    report = json.loads(lines[-1])
    if not report.get("ok", False):
        raise WrongResult(f"mpirun -n {nprocs} {' '.join(program)}: {name}'s round trip is wrong: "
                           f"{lines[-1][:2000]}")
    return {"ms": report["forward_median_ms"] + report["backward_median_ms"],
            "mode": report["mode"], "modes": report["modes"]}


def find_peers(environ: Dict[str, str]) -> tuple:
    """The optional peers that can run, from ``HEFFTE_SPEED3D_DIR``, ``DTFFT_PYTHON`` and
    ``MPI4PY_FFT_PYTHON``: ({name: folder or python} for those found, {name: reason} for the
    others)."""
    found: Dict[str, str] = {}
    missing: Dict[str, str] = {}
    folder = environ.get("HEFFTE_SPEED3D_DIR")
    if not folder:
        missing["heFFTe"] = NOT_RUN["heFFTe"]
    else:
        absent = [p for p in ("speed3d_c2c", "speed3d_r2c")
                  if not os.access(os.path.join(folder, p), os.X_OK)]
        if absent:
            missing["heFFTe"] = (f"HEFFTE_SPEED3D_DIR={folder} has no executable "
                                 f"{' or '.join(absent)} (see {DOC})")
        else:
            found["heFFTe"] = folder
    for name, (variable, module, _) in PYTHON_PEERS.items():
        python = environ.get(variable)
        if not python:
            missing[name] = NOT_RUN[name]
            continue
        try:
            check = subprocess.run([python, "-c", f"import {module}, mpi4py"], capture_output=True,
                                   text=True, timeout=120)
            problem = None if check.returncode == 0 else (check.stderr.strip().splitlines() or ["?"])[-1]
        except (OSError, subprocess.TimeoutExpired) as error:
            problem = str(error)
        if problem:
            missing[name] = (f"{variable}={python} cannot import {module} and mpi4py: {problem} "
                             f"(see {DOC})")
        else:
            found[name] = python
    return found, missing


def run_cell(bench: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
             timeout: float, batch: int = 1) -> Dict[str, Any]:
    """volfft's default plan and FFTW-MPI in every mode, unscaled, in one job of ``nprocs`` ranks;
    ``batch`` fields per call (FFTW-MPI: howmany)."""
    return run_bench(bench, nprocs, [kind, precision, str(n), str(n), str(n), "--iters", str(iters),
                                     "--no-scale", "--compare", "fftw-mpi", *_batch_args(batch)], timeout)


def run_in_place(bench: str, kind: str, precision: str, n: int, nprocs: int, iters: int,
                 timeout: float, batch: int = 1) -> Dict[str, Any]:
    """volfft's in-place plan (grid and engine by rule), unscaled, alone in a job."""
    return run_bench(bench, nprocs, [kind, precision, str(n), str(n), str(n), "--iters", str(iters),
                                     "--no-scale", "--in-place", *_batch_args(batch)], timeout)


def _batch_args(batch: int) -> List[str]:
    return ["--batch", str(batch)] if batch > 1 else []


def summarise(report: Dict[str, Any], in_place: Dict[str, Any],
              peers: Optional[Dict[str, Optional[Dict[str, Any]]]] = None) -> Dict[str, Any]:
    """The numbers of one round of one cell: volfft's times and configuration (default and in
    place), FFTW-MPI's, and those of the optional peers that ran (``peers``: a name of PEERS ->
    run_heffte/run_python_peer's result, None or absent when not run; their fields are then null)."""
    peer = report["compare"]["fftw-mpi"]
    volfft_ms = report["forward"]["median_ms"] + report["backward"]["median_ms"]
    in_place_ms = in_place["forward"]["median_ms"] + in_place["backward"]["median_ms"]
    peer_ms = peer["forward_median_ms"] + peer["backward_median_ms"]
    # The ratio from the same iterations: volfft-bench runs volfft's plan between FFTW-MPI's calls
    # (bench::Companion) and reports those times beside the peer's; older JSON has them not.
    same_ms = (peer["volfft_forward_median_ms"] + peer["volfft_backward_median_ms"]
               if "volfft_forward_median_ms" in peer else volfft_ms)
    best_ms = min(volfft_ms, in_place_ms)
    result = {"volfft_ms": volfft_ms, "fftw_mpi_ms": peer_ms, "ratio": same_ms / peer_ms,
              "volfft_same_iterations_ms": same_ms,
              "volfft_in_place_ms": in_place_ms, "ratio_in_place": in_place_ms / peer_ms,
              "grid": report["config"]["grid"], "engine": report["config"]["engine"],
              "fftw_mpi_mode": peer["mode"], "plan_seconds": report["plan_seconds"],
              "fftw_mpi_modes": peer["modes"],
              "volfft_best_ms": best_ms,
              "volfft_best": "default" if volfft_ms <= in_place_ms else "in place"}
    for name, key in PEERS:
        got = (peers or {}).get(name)
        result[f"{key}_ms"] = got["ms"] if got else None
        result[f"{key}_mode"] = got["mode"] if got else None
        result[f"{key}_modes"] = got["modes"] if got else None
        result[f"ratio_{key}"] = best_ms / got["ms"] if got else None
    return result


def _or(value: Optional[float], default: float) -> float:
    return default if value is None else value


def plot_series(table: List[Dict[str, Any]]) -> List[tuple]:
    """The bar series of plot_matrix, one for each ratio some cell of ``table`` has: (legend,
    median key, range's low key or None, high key or None)."""
    series = [("volfft default / FFTW-MPI", "ratio_median", "ratio_min", "ratio_max"),
              ("volfft in place / FFTW-MPI", "ratio_in_place_median", None, None),
              *((f"volfft best / {name}", f"ratio_{key}_median", f"ratio_{key}_min", f"ratio_{key}_max")
                for name, key in PEERS)]
    return [s for s in series if any(row.get(s[1]) is not None for row in table)]


def plot_matrix(table: List[Dict[str, Any]], path: str) -> None:
    """Bars of every cell's median ratios (volfft / peer; below the line at 1 volfft is faster),
    with each one's range over the rounds, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = plot_series(table)
    labels = [f"{row['kind']} {row['precision']}\n{row['n']}^3 np {row['np']}" for row in table]
    width = 0.8 / len(series)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.9 * len(table) + 2), 4.5))
    for k, (name, key, low, high) in enumerate(series):
        xs = [c + (k - (len(series) - 1) / 2) * width for c in range(len(table))]
        values = [_or(row.get(key), float("nan")) for row in table]
        errors = None
        if low:  # distances from the median to the range's ends (none where a cell has no range)
            errors = [[v - _or(row.get(low), v) for v, row in zip(values, table)],
                      [_or(row.get(high), v) - v for v, row in zip(values, table)]]
        axes.bar(xs, values, width, label=name, yerr=errors, capsize=2)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(table)))
    axes.set_xticklabels(labels, fontsize=8)
    axes.set_ylabel("time ratio (below 1: volfft is faster)")
    axes.set_title("volfft against its peers, forward + backward, median over rounds [range]")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _median_or_none(values: Sequence[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["c2c", "r2c"], choices=["c2c", "r2c"])
    parser.add_argument("--precisions", nargs="+", default=["double"], choices=["double", "float"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[128, 256])
    parser.add_argument("--np", nargs="+", type=int, default=[1, 2, 4], dest="nps")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5, help="calls per job (each job's median)")
    parser.add_argument("--batch", type=int, default=1,
                        help="fields per call: volfft's batch (fields outermost) against FFTW-MPI's "
                             "howmany (interleaved), each in its own layout; heFFTe and dtFFT are "
                             "not run then (their drivers time one field)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per job")
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "benchmarks", "volfft-bench"))
    parser.add_argument("--heffte-modes", default=",".join(HEFFTE_MODES), metavar="OPTIONS,...",
                        help="heFFTe speed3d option sets timed in each cell, comma-separated, "
                             "given with '=' since they start with '-' (--heffte-modes='-a2a "
                             "-slabs,-p2p'); the fastest is kept (default: %(default)s)")
    parser.add_argument("--out", default="peer-matrix.json", help="JSON with every round")
    parser.add_argument("--plot", default=None, metavar="FILE.png", help="bar chart of the ratios (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iters < 1 or args.batch < 1 or min(args.sizes) < 1 or min(args.nps) < 1:
        parser.error("--rounds, --iters, --batch, --sizes and --np take positive integers")
    if not os.access(args.bench, os.X_OK):
        parser.error(f"--bench: no volfft-bench at {args.bench} (run scripts/build.sh)")
    if args.plot:  # before minutes of measuring, not after
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib (pip install matplotlib)")
    args.heffte_modes = [" ".join(m.split()) for m in args.heffte_modes.split(",") if m.strip()]
    if not args.heffte_modes:
        parser.error("--heffte-modes: no option set")

    found, not_run = find_peers(dict(os.environ))
    if args.batch > 1:
        for name in list(found):
            not_run[name] = f"--batch {args.batch}: its driver times one field per call"
            del found[name]
    for name, where in found.items():
        print(f"peer {name}: {where}", file=sys.stderr, flush=True)

    failures: Dict[str, List[str]] = {}  # peer: the cells where its own check failed, why

    def run_peer(name: str, cell: tuple) -> Optional[Dict[str, Any]]:
        """The peer's result in this cell, or None: not found; wrong here (in failures, and
        it goes on in the other cells); or failed to run (then it is dropped, with the reason
        in not_run)."""
        if name not in found:
            return None
        kind, precision, n, nprocs = cell
        try:
            if name == "heFFTe":
                return run_heffte(found[name], *cell, args.iters, args.heffte_modes, args.timeout)
            return run_python_peer(name, found[name], *cell, args.iters, args.timeout)
        except WrongResult as error:
            failures.setdefault(name, []).append(f"{kind} {precision} {n}^3 np {nprocs}: {error}"[:4000])
            print(f"peer {name} wrong in {kind} {precision} {n}^3 np {nprocs} (no time there; "
                  f"it goes on in the other cells): {str(error)[:300]}", file=sys.stderr, flush=True)
            return None
        except RuntimeError as error:
            not_run[name] = f"failed in {kind} {precision} {n}^3 np {nprocs}: {error}"[:4000]
            print(f"peer {name} dropped: {not_run[name]}", file=sys.stderr, flush=True)
            del found[name]
            return None

    cells = [(k, p, n, q) for k in args.kinds for p in args.precisions for n in args.sizes
             for q in args.nps]
    rounds: Dict[tuple, List[Dict[str, Any]]] = {cell: [] for cell in cells}
    ran = set()
    for r in range(args.rounds):
        for cell in cells:
            report = run_cell(args.bench, *cell, args.iters, args.timeout, args.batch)
            in_place = run_in_place(args.bench, *cell, args.iters, args.timeout, args.batch)
            peers = {name: run_peer(name, cell) for name, _ in PEERS}
            ran.update(name for name, got in peers.items() if got)
            result = summarise(report, in_place, peers)
            rounds[cell].append(result)
            kind, precision, n, nprocs = cell
            extra = "".join(f", vs {name} {result[f'ratio_{key}']:.3f}" for name, key in PEERS
                            if result[f"ratio_{key}"] is not None)
            print(f"round {r + 1}/{args.rounds}: {kind} {precision} {n}^3 np {nprocs}: "
                  f"ratio {result['ratio']:.3f}, in place {result['ratio_in_place']:.3f}{extra}",
                  file=sys.stderr, flush=True)
    # not_run: the peers never found, and those that failed (a peer that failed after some
    # cells keeps those cells' numbers and is listed with the reason).

    table = []
    for cell in cells:
        ratios = [x["ratio"] for x in rounds[cell]]
        kind, precision, n, nprocs = cell
        row = {"kind": kind, "precision": precision, "n": n, "np": nprocs,
               "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
               "ratio_max": max(ratios),
               "ratio_in_place_median": statistics.median(x["ratio_in_place"] for x in rounds[cell]),
               "volfft_ms_median": statistics.median(x["volfft_ms"] for x in rounds[cell]),
               "fftw_mpi_ms_median": statistics.median(x["fftw_mpi_ms"] for x in rounds[cell]),
               "volfft_best_ms_median": statistics.median(x["volfft_best_ms"] for x in rounds[cell])}
        for _, key in PEERS:
            peer_ratios = [x[f"ratio_{key}"] for x in rounds[cell] if x[f"ratio_{key}"] is not None]
            row[f"{key}_ms_median"] = _median_or_none([x[f"{key}_ms"] for x in rounds[cell]])
            row[f"ratio_{key}_median"] = _median_or_none(peer_ratios)
            row[f"ratio_{key}_min"] = min(peer_ratios) if peer_ratios else None
            row[f"ratio_{key}_max"] = max(peer_ratios) if peer_ratios else None
        row["rounds"] = rounds[cell]
        table.append(row)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"schema": "volfft-peer-matrix/1", "cpus": os.cpu_count(), "batch": args.batch, "cells": table,
                   "peers_run": sorted(ran), "heffte_modes": list(args.heffte_modes),
                   "not_run": not_run, "peer_failures": failures}, handle, indent=1)

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
    shown = [(name, key) for name, key in PEERS if name in ran]
    if shown:
        print()
        print("volfft's best of the round (default or in place) / each peer's fastest mode, forward + "
              f"backward; median over {args.rounds} round(s) [range]; above 1: volfft is slower "
              "(heFFTe: 2 x speed3d's mean time per transform, its forward scaled by 1/N)")
        header = f"{'problem':<22} {'np':>3} {'volfft best':>11}"
        for name, _ in shown:
            header += f" {name + ' ms':>10} {'ratio':>7}  {'range':<15}"
        print(header + "  peer modes (last round)")
        for row in table:
            last = row["rounds"][-1]
            line = (f"{row['kind'] + ' ' + row['precision'] + ' ' + str(row['n']) + '^3':<22} "
                    f"{row['np']:>3} {row['volfft_best_ms_median']:>11.3f}")
            modes = []
            for name, key in shown:
                if row[f"ratio_{key}_median"] is None:
                    line += f" {'-':>10} {'-':>7}  {'-':<15}"
                    continue
                span = f"[{row[f'ratio_{key}_min']:.3f}, {row[f'ratio_{key}_max']:.3f}]"
                line += (f" {row[f'{key}_ms_median']:>10.3f} {row[f'ratio_{key}_median']:>7.3f}"
                         f"  {span:<15}")
                modes.append(f"{name}: {last[f'{key}_mode']}")
            print(line + "  " + "; ".join(modes))
    for name, why in not_run.items():
        print(f"not run: {name}: {why}")
    for name, cells_failed in failures.items():
        for why in cells_failed:
            print(f"wrong, no time: {name} in {why[:300]}")
    if args.plot:
        plot_matrix(table, args.plot)
        print(f"plot: {args.plot}")
    print(f"every round: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
