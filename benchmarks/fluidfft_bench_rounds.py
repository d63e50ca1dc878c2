"""fluidfft's own benchmark command, in rounds: every installed 3-D MPI method side by side.

    python3 benchmarks/fluidfft_bench_rounds.py --size 128 --np 2 4 --rounds 3

Runs ``fluidfft-bench SIZE -d 3`` (fluidfft's command: it times every fft3d.mpi_* method it finds,
fluidfft-volfft's ``mpi_with_volfft`` among them) under scripts/mpirun.sh, at each rank count in
turn, ``--rounds`` times, so that a slow minute of a shared machine spreads over all methods.
From each run it reads, per method, the medians fluidfft prints for ``fft_as_arg`` and
``ifft_as_arg``, and prints one line per method and run (ms, with the load average before the
run), then each method's median of fft + ifft over the rounds and volfft's ratio to the fastest
other method (below 1: volfft is faster). Needs fluidfft and the plugins to compare in the
environment of ``--fluidfft-bench`` (default: next to this Python).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from volfft import _launch  # stops the whole job on a timeout, ranks included

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOLFFT = "fft3dmpiwithvolfft"


def parse(output: str) -> Dict[str, Tuple[float, float]]:
    """method -> (fft_as_arg, ifft_as_arg) median seconds, from fluidfft-bench's printout: each
    method's timings come before its "total time bench for lib NAME" line."""
    parts = re.split(r"total time bench for lib (\S+):", output)
    result = {}
    for k in range(1, len(parts), 2):
        medians = dict(re.findall(r"time (fft|ifft)_as_arg:\s*\n\s*median = ([0-9.eE+-]+)", parts[k - 1]))
        if "fft" in medians and "ifft" in medians:
            result[parts[k]] = (float(medians["fft"]), float(medians["ifft"]))
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--np", nargs="+", type=int, default=[2, 4], dest="nps")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fluidfft-bench", default=os.path.join(os.path.dirname(sys.executable), "fluidfft-bench"))
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    if not os.access(args.fluidfft_bench, os.X_OK):
        parser.error(f"--fluidfft-bench: no fluidfft-bench at {args.fluidfft_bench} (pip install fluidfft)")
    sums: Dict[Tuple[int, str], List[float]] = {}
    for r in range(args.rounds):
        for nprocs in args.nps:
            load = os.getloadavg()[0]
            # run_job: on a timeout the ranks are stopped too, not only the launcher.
            run = _launch.run_job([os.path.join(ROOT, "scripts", "mpirun.sh"), "-n", str(nprocs), args.fluidfft_bench,
                                   str(args.size), "-d", "3"], timeout=args.timeout,
                                  cwd=os.environ.get("TMPDIR", "/tmp"))  # fluidfft-bench writes its results there
            methods = parse(run.stdout)
            if run.returncode != 0 or not methods:
                print(f"np {nprocs}: fluidfft-bench failed ({run.returncode}):\n{run.stdout}{run.stderr}", file=sys.stderr)
                return 1
            for name, (fft, ifft) in methods.items():
                sums.setdefault((nprocs, name), []).append((fft + ifft) * 1e3)
                print(f"round {r + 1} np {nprocs} load {load:.2f} {name}: fft {fft * 1e3:.3f} ms, "
                      f"ifft {ifft * 1e3:.3f} ms", flush=True)
    for nprocs in args.nps:
        medians = {name: statistics.median(v) for (p, name), v in sums.items() if p == nprocs}
        for name, ms in sorted(medians.items()):
            print(f"np {nprocs} {name}: fft + ifft median {ms:.3f} ms over {args.rounds} round(s)")
        others = [ms for name, ms in medians.items() if name != VOLFFT]
        if VOLFFT in medians and others:
            print(f"np {nprocs}: volfft / the fastest other method: {medians[VOLFFT] / min(others):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
