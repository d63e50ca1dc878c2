"""Plumbing shared by the cluster experiments: a cluster that always goes away, MPI jobs on
it, the volfft package from this checkout, and tables.

The experiments (``exp_*.py``) keep only what is specific to them.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import sys
from pathlib import Path
from typing import Iterator, Sequence

from tools import vcluster
from tools.vcluster.topology import parse_topology

REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def cluster(name: str, topology: Sequence[str], rate: str, hosts: int | None = None,
            delay: str = "0", gso: str = "auto", burst: str = "auto") -> Iterator[dict]:
    """Create a cluster for the duration of a ``with`` block; destroy it however the block ends.

    ``topology`` is the words of ``python3 -m tools.vcluster create --topology`` (e.g. ``["torus2d", "4x4"]``);
    ``gso`` and ``burst`` are its ``--gso`` and ``--burst``.
    """
    topo = parse_topology(topology[0], topology[1] if len(topology) > 1 else None, hosts)
    vcluster.destroy(name)  # a leftover of an interrupted earlier run
    try:
        state = vcluster.create(name, topo, rate, delay, gso=gso, burst=burst)
        print(f"# cluster {name}: {state['topology']}, {rate}"
              + ("" if delay == "0" or state["delay_applied"] else f", delay {delay} NOT applied (no netem)"),
              flush=True)
        yield state
    finally:
        vcluster.destroy(name)


def run_mpi(state: dict, program: Sequence[str], hosts: Sequence[int] | None = None, k: int = 1,
            mpi: str = "openmpi", timeout: float = 300.0, log: Path | None = None) -> int:
    """Run one MPI job on the cluster (rank r on host ``hosts[r // k]``); returns its exit status.

    With ``log`` the job's output is appended to that file instead of the terminal (a failed
    job's last lines are printed).
    """
    cmd, env = vcluster.mpirun_command(state, list(program), k=k, mpi=mpi, order=hosts)
    if log is None:
        return vcluster.run_job(cmd, env, timeout, state["hosts"])
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(program)}\n")
        f.flush()
        rc = vcluster.run_job(cmd, env, timeout, state["hosts"], output=f)
    if rc != 0:
        tail = Path(log).read_text().splitlines()[-15:]
        print("\n".join(["# job output (last lines):"] + tail), file=sys.stderr)
    return rc


def import_volfft():
    """Import the volfft package of this checkout (pure-Python parts need no build)."""
    python_dir = str(REPO / "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import volfft  # noqa: F401

    return volfft


def find_volfft_bench(explicit: str | None = None) -> str | None:
    """Path of volfft-bench: the argument, this checkout's build/, or the PATH."""
    for candidate in ([explicit] if explicit else []) + [str(REPO / "build" / "benchmarks" / "volfft-bench")]:
        if candidate and Path(candidate).is_file():
            return str(Path(candidate).resolve())
    return shutil.which("volfft-bench")


def bench_for_live_run(explicit: str | None = None) -> str | None:
    """What a live run needs: root (ClusterError otherwise) and volfft-bench, whose path it
    returns, or None with what to do said on stderr."""
    vcluster.require_root()
    return volfft_bench_or_say_why(explicit)


def volfft_bench_or_say_why(explicit: str | None = None) -> str | None:
    """find_volfft_bench, printing what to do on stderr when there is none."""
    bench = find_volfft_bench(explicit)
    if bench is None:
        print("volfft-bench not found: build volfft (README) or pass --bench PATH", file=sys.stderr)
    return bench


def read_json(path: Path) -> dict | None:
    """A job's JSON output, or None when the job did not write (all of) it."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def earlier_results(out: Path) -> dict:
    """The results.json an earlier run wrote to `out`, for --report-only. Without one, exits
    (SystemExit) saying so, instead of a traceback."""
    results = read_json(out / "results.json")
    if results is None:
        raise SystemExit(f"--report-only: no readable results.json in {out}; run the experiment "
                         "without --report-only first (as root), or pass the --out of that run")
    return results


def format_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Plain-text table with right-aligned columns (floats as given, already formatted)."""
    cells = [[str(h) for h in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def output_dir(path: str | None, default: str) -> Path:
    """The experiment's output folder (default under the git-ignored build/cluster/)."""
    out = Path(path) if path else REPO / "build" / "cluster" / default
    out.mkdir(parents=True, exist_ok=True)
    return out
