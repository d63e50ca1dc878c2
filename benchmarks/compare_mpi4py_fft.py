"""volfft's Python API against mpi4py-fft, and against volfft's own C++ driver, in one run.

    python benchmarks/compare_mpi4py_fft.py                 # the defaults below
    python benchmarks/compare_mpi4py_fft.py --np 1 2 4 --sizes 128 256 --iters 5 --repeats 3

Two tables, c2c double, cubes n^3:

1. volfft.Plan vs mpi4py_fft.PFFT (FFTW backend, FFTW_MEASURE, ``normalize=False``; in each of its
   modes, ``collapse=False`` and ``True``, the faster counting) on the same
   process grid, both unscaled (volfft ``scale_backward=False``), both writing into arrays
   allocated beforehand, timed in the same job, iterations interleaved. Ratio = volfft /
   mpi4py-fft of forward + backward. volfft's grid and engine are its own automatic choice
   (measured) unless --grid/--engine are given; mpi4py-fft gets the same grid.
2. Python call overhead: volfft.Plan.forward/backward timed from Python against the
   ``volfft-bench`` driver (C++) on the same problem, grid and fixed engine, both unscaled.

Every time is per call, barrier-bracketed, the maximum over ranks, the median of ``--iters``
calls; each configuration runs ``--repeats`` times, alternating the programs, and the table
shows the median over repeats (on a shared machine, absolute times are noise; ratios measured
side by side are the result). Without ``--worker`` this script is the launcher: it starts
itself under mpirun for every configuration.
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

HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------------- worker (under MPI)
def _time_interleaved(comm, programs: Dict[str, tuple], iters: int, warmup: int) -> dict:
    """Medians over iters of each program's forward and backward time per call, max over ranks.

    ``programs[name] = (forward, backward, phases)``. Measured as volfft-bench measures (forward
    then backward, each barrier-bracketed), and interleaved: every iteration runs every program
    once, so that all of them see the same state of a shared machine. ``phases(direction)``,
    when not None, returns this rank's sum of the library's phase timers for the call just made
    (read outside the timed region); its max over ranks is the time spent inside the C++
    library, for the in-process overhead. Keys: ``"<name>_forward"``, ``"<name>_backward"``,
    ``"<name>_forward_inside"``, ``"<name>_backward_inside"``.
    """
    from mpi4py import MPI

    times: Dict[str, List[float]] = {}
    for it in range(-warmup, iters):
        for name, (forward, backward, phases) in programs.items():
            for direction, call in (("forward", forward), ("backward", backward)):
                comm.Barrier()
                start = MPI.Wtime()
                call()
                elapsed = comm.allreduce(MPI.Wtime() - start, op=MPI.MAX)
                inside = comm.allreduce(phases(direction), op=MPI.MAX) if phases else None
                if it >= 0:
                    times.setdefault(f"{name}_{direction}", []).append(elapsed)
                    if inside is not None:
                        times.setdefault(f"{name}_{direction}_inside", []).append(inside)
    return {key: statistics.median(v) for key, v in times.items()}


def _test_signal(index_arrays):
    """The same global input for both libraries, from global indices."""
    import numpy as np

    x0, x1, x2 = index_arrays
    return (np.cos(0.37 * x0 + 1.3 * x1 * x1 - 0.21 * x2)
            + 1j * np.sin(0.11 * x2 * x0 + 0.5 * x1)).astype(np.complex128)


def _indices(slices):
    """Global index arrays of a local block, broadcastable against it (both libraries' local
    arrays are indexed by global axes)."""
    import numpy as np

    out = []
    for axis, piece in enumerate(slices):
        shape = [1] * len(slices)
        shape[axis] = piece.stop - piece.start
        out.append(np.arange(piece.start, piece.stop, dtype=np.float64).reshape(shape))
    return out


def _checksum(comm, values, index_arrays) -> complex:
    """A global weighted sum of a distributed spectrum: equal for equal spectra in any layout."""
    import numpy as np

    k0, k1, k2 = index_arrays
    weights = np.exp(1j * (0.013 * k0 + 0.029 * k1 + 0.041 * k2))
    return comm.allreduce(complex(np.sum(values * weights)))


def worker(args: argparse.Namespace) -> None:
    import numpy as np
    from mpi4py import MPI

    import volfft

    comm = MPI.COMM_WORLD
    n = args.size
    shape = (n, n, n)
    result: Dict[str, Any] = {"np": comm.size, "n": n}

    with volfft.Plan(comm, shape, dtype=np.complex128, grid=tuple(args.grid) if args.grid else "auto",
                     engine=args.engine, effort="measure", scale_backward=False) as plan:
        grid = plan.grid
        result.update(grid=list(grid), engine=plan.engine)
        a = plan.input_array()
        a[...] = _test_signal(_indices(plan.local_slice()))
        b = plan.output_array()
        c = plan.input_array()
        programs = {"volfft": (lambda: plan.forward(a, b), lambda: plan.backward(b, c),
                               lambda d: sum(plan.timings(d).values()))}
        peers = {}
        if args.with_mpi4py_fft:
            from mpi4py_fft import PFFT, newDistArray

            # Both of mpi4py-fft's modes a user could pick: one FFTW call per axis (its default)
            # and local axes collapsed into one multi-dimensional call (collapse=True).
            for name, collapse in (("mpi4py_fft", False), ("mpi4py_fft_collapse", True)):
                fft = PFFT(comm, shape, axes=(0, 1, 2), dtype=np.complex128, grid=grid,
                           backend="fftw", collapse=collapse)
                u = newDistArray(fft, False)
                u_hat = newDistArray(fft, True)
                u_back = newDistArray(fft, False)  # the unscaled backward must not overwrite u
                u[...] = _test_signal(_indices(fft.local_slice(False)))
                peers[name] = (fft, u_hat)
                programs[name] = (lambda f=fft, x=u, y=u_hat: f.forward(x, y, normalize=False),
                                  lambda f=fft, x=u_hat, y=u_back: f.backward(x, y, normalize=False), None)
        result.update(_time_interleaved(comm, programs, args.iters, args.warmup))
        if peers:
            ours = _checksum(comm, b, _indices(plan.local_slice(True)))
            same = True
            for fft, u_hat in peers.values():
                theirs = _checksum(comm, u_hat, _indices(fft.local_slice(True)))
                same = same and abs(theirs - ours) <= 1e-9 * max(1.0, abs(theirs))
                fft.destroy()
            result["same_spectrum"] = same

    if comm.rank == 0:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle)


# ------------------------------------------------------------------------- launcher
def _mpirun(nprocs: int) -> tuple:
    from volfft import _launch

    mpirun = _launch.find_mpirun()
    if not mpirun:
        sys.exit("compare_mpi4py_fft: no mpirun on PATH")
    return _launch.launch(nprocs, [], mpirun)


def _run_job(command: list, env: dict, timeout: float) -> None:
    """One MPI job to its end (_launch.run_job: on a timeout the ranks are stopped too, not only
    mpirun); its output is shown only when it fails.

    Raises
    ------
    subprocess.CalledProcessError
        When the job fails (with its output).
    subprocess.TimeoutExpired
        When it runs past ``timeout`` seconds.
    """
    from volfft import _launch

    run = _launch.run_job(command, timeout=timeout, env=env)
    if run.returncode != 0:
        raise subprocess.CalledProcessError(run.returncode, command, run.stdout, run.stderr)


def _run_worker(nprocs: int, n: int, args, grid=None, engine="auto", with_peer=True) -> dict:
    command, env = _mpirun(nprocs)
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "result.json")
        worker_args = [sys.executable, os.path.abspath(__file__), "--worker", "--size", str(n),
                       "--iters", str(args.iters), "--warmup", str(args.warmup), "--out", out,
                       "--engine", engine]
        if grid:
            worker_args += ["--grid", str(grid[0]), str(grid[1])]
        if with_peer:
            worker_args.append("--with-mpi4py-fft")
        _run_job(command + worker_args, env, args.timeout)
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


def _run_driver(driver: str, nprocs: int, n: int, grid, engine: str, args) -> dict:
    command, env = _mpirun(nprocs)
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "bench.json")
        _run_job(command + [driver, "c2c", "double", str(n), str(n), str(n), "--grid",
                            f"{grid[0]}x{grid[1]}", "--engine", engine, "--iters", str(args.iters),
                            "--warmup", str(args.warmup), "--no-scale", "--json", out],
                 env, args.timeout)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
    return {"forward": report["forward"]["median_ms"] * 1e-3,
            "backward": report["backward"]["median_ms"] * 1e-3}


def _median_of(runs: List[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def launcher(args: argparse.Namespace) -> int:
    report: Dict[str, Any] = {"iters": args.iters, "repeats": args.repeats, "peer": [], "overhead": []}
    print("volfft vs mpi4py-fft: c2c double, FFTW_MEASURE, unscaled, same grid; ms per call, "
          f"median of {args.iters} calls (max over ranks), median of {args.repeats} runs")
    print(f"{'np':>3} {'n':>5} {'grid':>5} {'engine':>10} | {'volfft fwd':>10} {'bwd':>8} | "
          f"{'mpi4py-fft fwd':>14} {'bwd':>8} | {'ratio':>6}  same result  (mpi4py-fft's faster mode)")
    for nprocs in args.np:
        for n in args.sizes:
            runs = [_run_worker(nprocs, n, args, args.grid, args.engine) for _ in range(args.repeats)]
            row = {key: _median_of(runs, key) for key in ("volfft_forward", "volfft_backward")}
            # mpi4py-fft in its faster mode (by the medians over runs).
            modes = {mode: (_median_of(runs, f"{mode}_forward"), _median_of(runs, f"{mode}_backward"))
                     for mode in ("mpi4py_fft", "mpi4py_fft_collapse")}
            best = min(modes, key=lambda m: sum(modes[m]))
            row["mpi4py_fft_forward"], row["mpi4py_fft_backward"] = modes[best]
            row["mpi4py_fft_mode"] = "collapse=True" if best == "mpi4py_fft_collapse" else "collapse=False"
            row["mpi4py_fft_modes"] = {m: list(t) for m, t in modes.items()}
            row.update(np=nprocs, n=n, grid=runs[0]["grid"], engine=runs[0]["engine"],
                       same_spectrum=all(r["same_spectrum"] for r in runs))
            row["ratio"] = ((row["volfft_forward"] + row["volfft_backward"])
                            / (row["mpi4py_fft_forward"] + row["mpi4py_fft_backward"]))
            report["peer"].append(row)
            print(f"{nprocs:>3} {n:>5} {'x'.join(map(str, row['grid'])):>5} {row['engine']:>10} | "
                  f"{row['volfft_forward'] * 1e3:>10.2f} {row['volfft_backward'] * 1e3:>8.2f} | "
                  f"{row['mpi4py_fft_forward'] * 1e3:>14.2f} {row['mpi4py_fft_backward'] * 1e3:>8.2f} | "
                  f"{row['ratio']:>6.3f}  {'yes' if row['same_spectrum'] else 'NO'}  "
                  f"({row['mpi4py_fft_mode']})", flush=True)

    driver = args.driver or os.environ.get("VOLFFT_BENCH")
    if not driver:
        from volfft.bench_cli import find_driver

        try:
            driver = find_driver()
        except FileNotFoundError as error:
            print(f"\nPython overhead: skipped ({error})")
            driver = None
    if driver and args.overhead_sizes:
        print(f"\nPython call overhead vs volfft-bench (C++), np {args.overhead_np}: ms per call, "
              f"median of {args.iters} calls, median of {args.overhead_repeats} runs")
        print("  vs driver: the same problem in volfft-bench and from Python, alternating runs;")
        print("  in-process: Python call time vs the library's own phase timers, same calls")
        print(f"{'n':>5} {'grid':>5} {'engine':>10} | {'C++ fwd':>8} {'bwd':>8} | "
              f"{'Python fwd':>10} {'bwd':>8} | {'vs driver fwd':>13} {'bwd':>7} {'total':>7} | "
              f"{'in-process':>10}")
        for n in args.overhead_sizes:
            grid = args.grid or [args.overhead_np, 1]
            python_runs, driver_runs = [], []
            for _ in range(args.overhead_repeats):  # alternate: both see the same machine state
                driver_runs.append(_run_driver(driver, args.overhead_np, n, grid,
                                               args.overhead_engine, args))
                python_runs.append(_run_worker(args.overhead_np, n, args, grid,
                                               args.overhead_engine, False))
            cxx_f, cxx_b = _median_of(driver_runs, "forward"), _median_of(driver_runs, "backward")
            py_f, py_b = _median_of(python_runs, "volfft_forward"), _median_of(python_runs, "volfft_backward")
            row = {"n": n, "np": args.overhead_np, "grid": list(grid), "engine": python_runs[0]["engine"],
                   "cxx_forward": cxx_f, "cxx_backward": cxx_b, "python_forward": py_f,
                   "python_backward": py_b, "overhead_forward": py_f / cxx_f - 1,
                   "overhead_backward": py_b / cxx_b - 1,
                   "overhead_total": (py_f + py_b) / (cxx_f + cxx_b) - 1}
            inside = (_median_of(python_runs, "volfft_forward_inside")
                      + _median_of(python_runs, "volfft_backward_inside"))
            row["overhead_in_process"] = (py_f + py_b) / inside - 1
            report["overhead"].append(row)
            print(f"{n:>5} {'x'.join(map(str, grid)):>5} {row['engine']:>10} | {cxx_f * 1e3:>8.3f} "
                  f"{cxx_b * 1e3:>8.3f} | {py_f * 1e3:>10.3f} {py_b * 1e3:>8.3f} | "
                  f"{row['overhead_forward']:>+13.1%} {row['overhead_backward']:>+7.1%} "
                  f"{row['overhead_total']:>+7.1%} | {row['overhead_in_process']:>+10.2%}",
                  flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    return 0 if all(r["same_spectrum"] for r in report["peer"]) else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, nargs="*", default=[1, 2, 4])
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--grid", type=int, nargs=2, default=None,
                        help="p0 p1 (default: volfft's automatic grid, used for both)")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--overhead-np", type=int, default=2)
    parser.add_argument("--overhead-sizes", type=int, nargs="*", default=[64, 128])
    parser.add_argument("--overhead-repeats", type=int, default=5)
    parser.add_argument("--overhead-engine", default="alltoallv",
                        help="a fixed engine, so that autotuning cannot pick different ones")
    parser.add_argument("--driver", default=None, help="volfft-bench (default: found like `volfft bench`)")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", default=None, help="write all numbers to this file")
    # worker mode (internal)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--with-mpi4py-fft", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    return launcher(args)


if __name__ == "__main__":
    sys.exit(main())
