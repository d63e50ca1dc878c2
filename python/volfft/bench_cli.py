"""``volfft bench``: run the ``volfft-bench`` driver under mpirun, print its table, plot phases.

Usage::

    volfft bench -n 4 c2c double 128 128 128 --grid 2x2 --compare fftw-mpi --plot phases.png

Every argument this command does not know is passed to ``volfft-bench`` unchanged (see
``volfft-bench --help``). The launcher is Open MPI's or MPICH's ``mpirun``, whichever is
installed, called as :mod:`volfft._launch` says (with Open MPI: ``--oversubscribe --bind-to none``, and
running as root allowed through Open MPI's environment variables).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from . import _launch

DRIVER = "volfft-bench"


def find_driver(explicit: Optional[str] = None) -> str:
    """Path of the ``volfft-bench`` executable.

    Looked up in this order: ``explicit``, ``$VOLFFT_BENCH``, the copy installed inside the
    package (``volfft/bin``), ``PATH``.

    Raises
    ------
    FileNotFoundError
        Naming every place searched.
    """
    candidates = [
        ("--bench", explicit),
        ("$VOLFFT_BENCH", os.environ.get("VOLFFT_BENCH")),
        ("the volfft package", str(Path(__file__).resolve().parent / "bin" / DRIVER)),
        ("PATH", shutil.which(DRIVER)),
    ]
    for _, path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    searched = ", ".join(f"{where} ({path or 'not set'})" for where, path in candidates)
    raise FileNotFoundError(
        f"volfft bench: cannot find the {DRIVER} executable; searched {searched}. Build it with "
        "CMake or `pip install .`, or point --bench/$VOLFFT_BENCH to it")


def _phase_rows(report: Dict[str, Any], direction: str) -> List[tuple]:
    section = report.get(direction) or {}
    return [(str(p["name"]), float(p["ms"])) for p in section.get("phases", [])]


def _pyplot():
    """matplotlib.pyplot on the Agg backend, or RuntimeError saying how to get it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise RuntimeError(
            "volfft bench --plot needs matplotlib: pip install 'volfft[plot]'") from error
    return plt


def plot_phases(report: Dict[str, Any], path: str) -> Dict[str, float]:
    """Draw the driver's per-phase times as one stacked bar per direction.

    Parameters
    ----------
    report : dict
        The driver's JSON output (docs/bench-json.md): ``{"forward": {"phases": [{"name",
        "ms"}], "median_ms"}, "backward": {...}, "config": {...}, "compare": {peer:
        {"forward_median_ms", "backward_median_ms"}}}``.
    path : str
        PNG file to write.

    Returns
    -------
    dict
        The height of volfft's bar per direction (ms): the median time of a call, as labelled.
    """
    plt = _pyplot()

    directions = [d for d in ("forward", "backward") if _phase_rows(report, d)]
    if not directions:
        raise ValueError("volfft bench --plot: the driver's JSON holds no phases to plot")
    names: List[str] = []  # phase names in first-seen order, one colour each
    for d in directions:
        for name, _ in _phase_rows(report, d):
            if name not in names:
                names.append(name)
    # Peers timed in the same run (--compare) stand beside volfft as plain bars.
    peers = {name: entry for name, entry in (report.get("compare") or {}).items()
             if isinstance(entry, dict)}
    colours = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(6.4 + 1.2 * len(peers), 4.8))
    ticks, tick_labels = [], []
    x = 0.0
    heights: Dict[str, float] = {}
    for d in directions:
        # One statistic for every bar: its height is the median time of a whole call (as the
        # peers' bars), split in the phases' shares of their summed medians. Stacking the
        # phase medians themselves gave a height other than the median on the label.
        rows = [(name, ms) for name, ms in _phase_rows(report, d) if not name.startswith("hidden_")]
        phase_sum = sum(ms for _, ms in rows)
        median = float((report.get(d) or {}).get("median_ms", phase_sum))
        bottom = 0.0
        for name, ms in rows:
            height = ms / phase_sum * median if phase_sum > 0 else 0.0
            ax.bar(x, height, bottom=bottom, color=colours(names.index(name) % 20),
                   edgecolor="white", linewidth=0.5)
            bottom += height
        ax.annotate(f"{median:.3g} ms", (x, bottom), ha="center", va="bottom")
        heights[d] = bottom
        ticks.append(x), tick_labels.append(f"volfft\n{d}")
        for peer, entry in peers.items():
            ms = entry.get(f"{d}_median_ms")
            if ms is None:
                continue
            x += 1.0
            ax.bar(x, float(ms), color="0.75", hatch="//", edgecolor="0.4", linewidth=0.5)
            ax.annotate(f"{float(ms):.3g} ms", (x, float(ms)), ha="center", va="bottom")
            ticks.append(x), tick_labels.append(f"{peer}\n{d}")
        x += 1.5
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(k % 20)) for k in range(len(names))]
    ax.set_xticks(ticks)
    ax.set_xticklabels(tick_labels)
    ax.set_ylabel("median time per call (ms, max over ranks);\nvolfft split by phase shares")
    config = report.get("config") or {}
    title = " ".join(str(config[k]) for k in ("kind", "precision") if k in config)
    if "shape" in config:
        title += " " + "x".join(str(n) for n in config["shape"])
    if "ranks" in config:
        title += f", {config['ranks']} ranks"
    if "grid" in config:
        grid = config["grid"]
        title += f", grid {'x'.join(str(p) for p in grid) if isinstance(grid, list) else grid}"
    ax.set_title(title.strip() or "volfft-bench phases")
    ax.legend(handles, names, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return heights


def _run_with_timeout(command: List[str], env: Dict[str, str],
                      timeout: Optional[float]) -> Optional[int]:
    """Run the launcher; None when it ran past ``timeout`` and was stopped.

    mpirun is asked to stop first (SIGTERM, which it forwards to the ranks); what is left of
    the job 10 s later is killed, ranks included (``_launch.stop_job``).
    """
    process = subprocess.Popen(command, env=env)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _launch.stop_job(process)
        return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="volfft bench",
        allow_abbrev=False,  # a driver option must never be taken for an abbreviation of ours
        description="Run volfft-bench under mpirun; other arguments go to volfft-bench "
                    "(e.g. c2c double 128 128 128 --grid 2x2 --engine alltoallv --iters 10 "
                    "--compare fftw-mpi).")
    parser.add_argument("-n", "--np", dest="nprocs", type=int, default=1,
                        help="number of MPI ranks (default 1)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the phase breakdown as a stacked bar chart (matplotlib)")
    parser.add_argument("--mpirun", default=None,
                        help="the MPI launcher (default: $MPIRUN or mpirun on PATH)")
    parser.add_argument("--bench", default=None,
                        help="the volfft-bench executable (default: $VOLFFT_BENCH, the "
                             "package's copy, PATH)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds after which the run is stopped (default: none)")
    return parser


def _json_path(driver_args: List[str]) -> Optional[str]:
    for k, arg in enumerate(driver_args):
        if arg == "--json" and k + 1 < len(driver_args):
            return driver_args[k + 1]
        if arg.startswith("--json="):
            return arg.split("=", 1)[1]
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``volfft bench``; returns the process exit status."""
    parser = _parser()
    options, driver_args = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if options.nprocs < 1:
        parser.error(f"-n/--np: expected at least 1 rank, got {options.nprocs}")
    if not driver_args:
        parser.error("expected the volfft-bench arguments, e.g. c2c double 64 64 64")
    try:
        driver = find_driver(options.bench)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    if options.plot:
        try:  # before the benchmark runs, not after
            _pyplot()
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 2
    mpirun = _launch.find_mpirun(options.mpirun)
    if not mpirun:
        print("volfft bench: no mpirun on PATH; install Open MPI or MPICH, or pass --mpirun",
              file=sys.stderr)
        return 2

    scratch = None
    json_path = _json_path(driver_args)
    if options.plot and json_path is None:
        # The plot is drawn from the driver's JSON; ask for it in a scratch file.
        scratch = tempfile.TemporaryDirectory(prefix="volfft-bench-")
        json_path = os.path.join(scratch.name, "bench.json")
        driver_args = driver_args + ["--json", json_path]
    try:
        command, env = _launch.launch(options.nprocs, [driver] + driver_args, mpirun)
        status = _run_with_timeout(command, env, options.timeout)
        if status is None:
            print(f"volfft bench: stopped after {options.timeout} s (--timeout)", file=sys.stderr)
            return 124
        if status != 0:
            print(f"volfft bench: {' '.join(command)} exited with status {status}",
                  file=sys.stderr)
            return status
        if options.plot:
            with open(json_path, encoding="utf-8") as handle:
                report = json.load(handle)
            try:
                plot_phases(report, options.plot)
            except (RuntimeError, ValueError) as error:
                print(error, file=sys.stderr)
                return 1
            print(f"volfft bench: phase breakdown written to {options.plot}")
        return 0
    finally:
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())
