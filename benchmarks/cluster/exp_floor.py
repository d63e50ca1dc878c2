#!/usr/bin/env python3
"""Experiment 4: volfft's exchanges on a switch of hosts against the link-rate bound and against
MPI_Alltoallv of the same bytes with no FFT.

For each host count H (default 4 and 8; one rank per host, every host on one full-duplex
switch port of ``--rate``), in rounds:

* ``volfft-bench c2c double N^3 --grid Hx1`` (slabs: one exchange of every rank with every
  other) with each of ``--engines`` (default alltoallv and p2p), its forward and backward
  exchange phases and its whole forward transform;
* ``a2a_bench --alltoallv 1`` with the per-pair block of that exchange (the bytes volfft's
  exchange moves, as one MPI_Alltoallv of contiguous buffers: no pack, no FFT).

The link-rate bound of one exchange is what one host's port must carry, (H - 1) blocks, as
Ethernet frames of TCP payload (1448 bytes of payload in each 1514-byte frame the shaper counts)
at the link rate: ``bound_seconds``. Sends and receives use the two directions of the port at
once, so the bound is the larger of the two, which are equal here.

    sudo python3 -m benchmarks.cluster.exp_floor [--rate 1gbit] [--gso auto] [--burst auto] [--hosts 4 8]
         [--n 128] [--engines alltoallv p2p] [--rounds 3] [--iters 15] [--bench PATH] [--out DIR]

volfft's phase times are each the maximum over ranks of the rank's own time in the phase, not
barrier-bracketed as the MPI_Alltoallv's are: the whole forward transform is the column to set
beside the bare collective.

Writes table.txt and results.json to --out (default build/cluster/exp_floor/). Run from the
repository root.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from benchmarks.cluster import experiment as X
from tools import vcluster

FRAME, HEADERS = 1514, 66  # Ethernet frame as the shaper counts it, and its TCP/IPv4/Ethernet headers


def block_bytes(n: int, hosts: int) -> int:
    """Bytes of one rank's block for one other rank in the slab exchange of a c2c double n^3
    transform over `hosts` ranks (n divisible by hosts): (n/H) x (n/H) x n complex values."""
    if n % hosts:
        raise ValueError(f"n = {n} must be divisible by the host count {hosts} (equal blocks)")
    return (n // hosts) * (n // hosts) * n * 16


def bound_seconds(block: int, hosts: int, rate_bits: float) -> float:
    """The link-rate bound of one all-to-all of `block` bytes per pair among `hosts` hosts on a
    full-duplex switch: (H - 1) blocks leave each host's port, as frames, at `rate_bits`."""
    payload = (hosts - 1) * block
    wire = payload * FRAME / (FRAME - HEADERS)
    return wire * 8 / rate_bits


def exchange_ms(report: dict, direction: str) -> float:
    """The exchange phases' time (ms) of one volfft-bench JSON report, one direction."""
    return sum(p["ms"] for p in report[direction]["phases"] if p["name"].startswith(("exchange", "wait")))


def copies_ms(report: dict, direction: str) -> float:
    """Pack and unpack phases' time (ms): the local copies around the exchange."""
    return sum(p["ms"] for p in report[direction]["phases"] if p["name"].startswith(("pack", "unpack")))


def summarise(hosts: int, engine: str, n: int, rate_bits: float, bench_runs: list[dict],
              a2a_runs: list[dict]) -> dict:
    """One row (host count, engine): medians over rounds, and the ratios against the bound."""
    block = block_bytes(n, hosts)
    bound_ms = bound_seconds(block, hosts, rate_bits) * 1e3
    row: dict = {"hosts": hosts, "engine": engine, "block_bytes": block, "bound_ms": bound_ms,
                 "rounds": len(bench_runs)}
    if bench_runs:
        for direction in ("forward", "backward"):
            row[f"volfft_{direction}_exchange_ms"] = statistics.median(exchange_ms(r, direction) for r in bench_runs)
            row[f"volfft_{direction}_copies_ms"] = statistics.median(copies_ms(r, direction) for r in bench_runs)
            row[f"volfft_{direction}_total_ms"] = statistics.median(r[direction]["median_ms"] for r in bench_runs)
        row["volfft_exchange_over_bound"] = row["volfft_forward_exchange_ms"] / bound_ms
        moved = [e["bytes"] for r in bench_runs for e in r.get("exchanges", [])]
        row["volfft_bytes_moved"] = moved[0] if moved else None
    if a2a_runs:
        row["alltoallv_ms"] = statistics.median(r["sizes"][0]["median_s"] * 1e3 for r in a2a_runs)
        row["alltoallv_over_bound"] = row["alltoallv_ms"] / bound_ms
        if bench_runs:
            row["volfft_exchange_over_alltoallv"] = row["volfft_forward_exchange_ms"] / row["alltoallv_ms"]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", default="1gbit")
    ap.add_argument("--gso", default="auto", choices=("auto", "on", "off"),
                    help="the cluster's --gso (auto: wire-size packets below 500 Mbit/s)")
    ap.add_argument("--burst", default="auto", help="the cluster's --burst (auto: 1 ms at the link rate)")
    ap.add_argument("--hosts", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--n", type=int, default=128, help="transform size N (N^3), divisible by every host count")
    ap.add_argument("--engines", nargs="+", default=["alltoallv", "p2p"])
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--bench", help="volfft-bench (default: build/benchmarks/volfft-bench, then PATH)")
    ap.add_argument("--out")
    ap.add_argument("--report-only", action="store_true", help="print the table of an earlier --out")
    args = ap.parse_args(argv)
    for h in args.hosts:
        if h < 2 or args.n % h:
            ap.error(f"--hosts: each count must be >= 2 and divide --n {args.n}, got {h}")
    rate_bits = vcluster.parse_rate(args.rate)
    out = X.output_dir(args.out, "exp_floor")
    if args.report_only:
        results = X.earlier_results(out)
    else:
        bench = X.bench_for_live_run(args.bench)
        if bench is None:
            return 2
        a2a = vcluster.build(Path(__file__).resolve().parent / "a2a_bench.c", "openmpi")
        results = {"config": vars(args), "rows": []}
        for hosts in args.hosts:
            block = block_bytes(args.n, hosts)
            bench_runs: dict[str, list[dict]] = {e: [] for e in args.engines}
            a2a_runs: list[dict] = []
            with X.cluster("fl", ["switch"], args.rate, hosts=hosts, gso=args.gso, burst=args.burst) as state:
                for rnd in range(args.rounds):  # rounds interleave the cases against drifting load
                    for engine in args.engines:
                        path = out / f"volfft.{engine}.h{hosts}.r{rnd}.json"
                        path.unlink(missing_ok=True)
                        print(f"# {hosts} hosts, round {rnd + 1}/{args.rounds}: volfft-bench, engine {engine}",
                              flush=True)
                        rc = X.run_mpi(state, [bench, "c2c", "double", *[str(args.n)] * 3, "--grid",
                                               f"{hosts}x1", "--engine", engine, "--iters", str(args.iters),
                                               "--warmup", "1", "--no-scale", "--json", str(path)],
                                       timeout=args.timeout, log=out / "jobs.log")
                        data = X.read_json(path)
                        if rc == 0 and data is not None:
                            bench_runs[engine].append(data)
                    path = out / f"alltoallv.h{hosts}.r{rnd}.json"
                    path.unlink(missing_ok=True)
                    print(f"# {hosts} hosts, round {rnd + 1}/{args.rounds}: MPI_Alltoallv of {block} bytes a pair",
                          flush=True)
                    rc = X.run_mpi(state, [str(a2a), "--alltoallv", "1", "--min", str(block), "--max", str(block),
                                           "--iters", str(args.iters), "--json", str(path)],
                                   timeout=args.timeout, log=out / "jobs.log")
                    data = X.read_json(path)
                    if rc == 0 and data is not None:
                        a2a_runs.append(data)
            for engine in args.engines:
                results["rows"].append(summarise(hosts, engine, args.n, rate_bits, bench_runs[engine], a2a_runs))
    print(report(results, out))
    complete = all(r["rounds"] and "alltoallv_ms" in r for r in results["rows"])
    return 0 if complete else 1


def report(results: dict, out: Path) -> str:
    cfg = results["config"]

    def f(row: dict, key: str, fmt: str = "{:.1f}") -> str:
        return fmt.format(row[key]) if row.get(key) is not None else "n/a"

    header = ["hosts", "engine", "block MiB", "bound ms", "volfft exch fwd ms", "bwd ms", "pack+unpack fwd ms",
              "whole fwd ms", "MPI_Alltoallv ms", "volfft exch / bound", "Alltoallv / bound", "volfft exch / Alltoallv"]
    rows = [[r["hosts"], r["engine"], f"{r['block_bytes'] / 2**20:.2f}", f(r, "bound_ms"),
             f(r, "volfft_forward_exchange_ms"), f(r, "volfft_backward_exchange_ms"), f(r, "volfft_forward_copies_ms"),
             f(r, "volfft_forward_total_ms"), f(r, "alltoallv_ms"),
             f(r, "volfft_exchange_over_bound", "{:.2f}"), f(r, "alltoallv_over_bound", "{:.2f}"),
             f(r, "volfft_exchange_over_alltoallv", "{:.2f}")] for r in results["rows"]]
    table = (f"c2c double {cfg['n']}^3 on slabs (Hx1, one rank per host), switch at "
             f"{cfg['rate']}"
             + "".join(f", --{k} {cfg[k]}" for k in ("gso", "burst") if cfg.get(k, "auto") != "auto")
             + f"; medians over {cfg['rounds']} round(s) of {cfg['iters']} calls; bound = (H-1) "
             f"blocks through one port as {FRAME}-byte frames\n" + X.format_table(header, rows))
    (out / "table.txt").write_text(table + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    return table


if __name__ == "__main__":
    sys.exit(main())
