"""One node, every core: volfft at each ranks x threads split against FFTW's threaded plan.

    python benchmarks/one_node.py                          # c2c double 256^3, all splits of the cores
    python benchmarks/one_node.py --sizes 256 512 --kinds c2c r2c --rounds 2 --out node.json
    python benchmarks/one_node.py --cores 16 --splits 1x16 2x8 4x4 16x1

For each problem (kind, precision, n^3), each split P x T of the node's cores (P ranks of T
threads, P * T = cores) and each of volfft's modes (``--modes``: its default out-of-place plan;
``in-place``, ``Options::in_place``; and, on request, ``destroy-input``: out of place with
``Options::destroy_input``, whose calls may overwrite their input, FFTW_DESTROY_INPUT), one
``volfft-bench ... --threads T --no-scale`` job under scripts/mpirun.sh times volfft.
The 1 x cores job of the first mode also times FFTW's serial threaded plan with as many threads
(``--compare fftw-threads``: in place and out of place, the faster counts), the peer a one-node
user would otherwise run; the cores x 1 job also times FFTW-MPI in its fastest of four modes
(``--compare fftw-mpi``; ``--no-fftw-mpi`` leaves it out where volfft-bench was built without it,
e.g. under MPICH). Every time is forward + backward medians,
unscaled. Ratios are against the same round's FFTW threaded plan; above 1, volfft is slower.
Problems and splits run in rounds, as in benchmarks/peer_matrix.py, so a slow minute spreads.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_matrix import ROOT, run_bench  # noqa: E402  (the one job runner of the benchmarks)


# volfft-bench's flags for each of volfft's modes.
MODE_FLAGS = {"out-of-place": [], "in-place": ["--in-place"], "destroy-input": ["--destroy-input"]}


def total_ms(entry: Dict[str, Any]) -> float:
    """Forward + backward medians of a volfft report or of a peer's entry in ``compare``."""
    if "forward" in entry:
        return entry["forward"]["median_ms"] + entry["backward"]["median_ms"]
    return entry["forward_median_ms"] + entry["backward_median_ms"]


def parse_split(text: str) -> Tuple[int, int]:
    """``PxT`` -> (P, T); argparse turns the ValueError into a usage error naming the option."""
    ranks, _, threads = text.partition("x")
    if not ranks.isdigit() or not threads.isdigit() or int(ranks) < 1 or int(threads) < 1:
        raise ValueError(f"expected RANKSxTHREADS with positive integers, e.g. 2x8; got '{text}'")
    return int(ranks), int(threads)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["c2c"], choices=["c2c", "r2c"])
    parser.add_argument("--precisions", nargs="+", default=["double"], choices=["double", "float"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[256])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1,
                        help="cores of the node (default: this machine's)")
    parser.add_argument("--splits", nargs="+", type=parse_split, default=None,
                        help="RANKSxTHREADS each (default: every P x cores/P)")
    parser.add_argument("--modes", nargs="+", default=["out-of-place", "in-place"],
                        choices=list(MODE_FLAGS), help="volfft's modes, each a job per split")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--iters", type=int, default=5, help="calls per job (each job's median)")
    parser.add_argument("--effort", default="measure", choices=["estimate", "measure", "patient"])
    parser.add_argument("--no-fftw-mpi", action="store_true",
                        help="leave FFTW-MPI out (volfft-bench built without it)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per job")
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "benchmarks", "volfft-bench"))
    parser.add_argument("--out", default="one-node.json", help="JSON with every round")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iters < 1 or min(args.sizes) < 1 or args.cores < 1:
        parser.error("--rounds, --iters, --sizes and --cores take positive integers")
    splits = args.splits or [(p, args.cores // p) for p in range(1, args.cores + 1) if args.cores % p == 0]
    if (1, args.cores) not in splits:
        splits.insert(0, (1, args.cores))  # the job that also times FFTW's threaded plan
    if not os.access(args.bench, os.X_OK):
        parser.error(f"--bench: no volfft-bench at {args.bench} (run scripts/build.sh)")

    problems = [(k, p, n) for k in args.kinds for p in args.precisions for n in args.sizes]
    jobs = [(split, mode) for split in splits for mode in args.modes]
    results: Dict[tuple, List[Dict[str, Any]]] = {(pr, s, m): [] for pr in problems for s, m in jobs}

    def write(table: List[Dict[str, Any]], partial: bool) -> None:
        """The JSON so far (partial: every finished job) or the final table."""
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump({"schema": "volfft-one-node/1", "cores": args.cores, "cpus": os.cpu_count(),
                       "load": os.getloadavg(), "partial": partial, "cells": table,
                       "jobs": [{"kind": pr[0], "precision": pr[1], "n": pr[2], "ranks": sp[0],
                                 "threads": sp[1], "mode": mode, "rounds": rows}
                                for (pr, sp, mode), rows in results.items() if partial]},
                      handle, indent=1)

    for r in range(args.rounds):
        for problem in problems:
            kind, precision, n = problem
            fftw_threads_ms = None
            for (ranks, threads), mode in jobs:
                bench_args = [kind, precision, str(n), str(n), str(n), "--threads", str(threads),
                              "--iters", str(args.iters), "--effort", args.effort, "--no-scale"]
                bench_args += MODE_FLAGS[mode]
                peers = []  # timed once per split and round, in the first mode's job
                if ranks == 1 and threads == args.cores and mode == args.modes[0]:
                    peers.append("fftw-threads")
                if ranks == args.cores and ranks > 1 and not args.no_fftw_mpi and mode == args.modes[0]:
                    peers.append("fftw-mpi")
                if peers:
                    bench_args += ["--compare", ",".join(peers)]
                report = run_bench(args.bench, ranks, bench_args, args.timeout)
                row = {"ranks": ranks, "threads": threads, "mode": mode, "volfft_ms": total_ms(report),
                       "in_place": report["config"]["in_place"],
                       "destroy_input": report["config"]["destroy_input"],
                       "grid": report["config"]["grid"], "engine": report["config"]["engine"],
                       "plan_seconds": report["plan_seconds"],
                       "peak_rss_bytes": report["peak_rss_bytes"],
                       "phases_forward": report["forward"]["phases"],
                       "compare": report.get("compare", {})}
                if "fftw-threads" in row["compare"]:
                    fftw_threads_ms = total_ms(row["compare"]["fftw-threads"])
                results[(problem, (ranks, threads), mode)].append(row)
                write([], partial=True)  # every job kept, should a later one fail or time out
                print(f"round {r + 1}/{args.rounds}: {kind} {precision} {n}^3 {ranks}x{threads} {mode}: "
                      f"volfft {row['volfft_ms']:.1f} ms", file=sys.stderr, flush=True)
            for split, mode in jobs:  # ratios against this round's FFTW threaded plan
                row = results[(problem, split, mode)][-1]
                row["fftw_threads_ms"] = fftw_threads_ms
                row["ratio"] = row["volfft_ms"] / fftw_threads_ms

    table = []
    for (problem, (ranks, threads), mode), rows in results.items():
        kind, precision, n = problem
        ratios = [x["ratio"] for x in rows]
        mpi = [total_ms(x["compare"]["fftw-mpi"]) for x in rows if "fftw-mpi" in x["compare"]]
        table.append({"kind": kind, "precision": precision, "n": n, "ranks": ranks, "threads": threads,
                      "mode": mode,
                      "volfft_ms_median": statistics.median(x["volfft_ms"] for x in rows),
                      "fftw_threads_ms_median": statistics.median(x["fftw_threads_ms"] for x in rows),
                      "fftw_mpi_ms_median": statistics.median(mpi) if mpi else None,
                      "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
                      "ratio_max": max(ratios), "rounds": rows})
    write(table, partial=False)

    print(f"volfft at P ranks x T threads / FFTW's serial plan with {args.cores} threads "
          f"(fastest of in place and out of place); forward + backward, unscaled; median over "
          f"{args.rounds} round(s) [range]; above 1: volfft is slower")
    print(f"{'problem':<20} {'PxT':>6} {'mode':<12} {'volfft ms':>10} {'FFTW thr ms':>12} {'ratio':>7}  "
          f"{'range':<16} config (last round)")
    for row in table:
        last = row["rounds"][-1]
        problem = f"{row['kind']} {row['precision']} {row['n']}^3"
        print(f"{problem:<20} {str(row['ranks']) + 'x' + str(row['threads']):>6} {row['mode']:<12} "
              f"{row['volfft_ms_median']:>10.2f} {row['fftw_threads_ms_median']:>12.2f} "
              f"{row['ratio_median']:>7.3f}  [{row['ratio_min']:.3f}, {row['ratio_max']:.3f}]"
              f"  {last['grid'][0]}x{last['grid'][1]} {last['engine']}")
        if row["fftw_mpi_ms_median"] is not None:
            print(f"{'':<20} {'':>6} {'':<12} FFTW-MPI at {row['ranks']} ranks, fastest mode: "
                  f"{row['fftw_mpi_ms_median']:.2f} ms ({last['compare']['fftw-mpi']['mode']})")
    print(f"every round: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
