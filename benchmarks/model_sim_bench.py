"""Speed of volfft.model's estimators at scale (a benchmark, not a test).

The issue's yardstick: a 16x16x16 torus whose 64-member rows all exchange (4096 tasks, 258,048
messages per exchange) must simulate in under a minute. This times the bisection model, the
[Eleftheriou2005] bound and the simulator (three routings) on the row and column exchanges of a 64x64
grid, default placement and rows on 4x4x4 cubes.

Run: PYTHONPATH=python python3 benchmarks/model_sim_bench.py [--torus 16x16x16] [--grid 64x64]
Messages are built here (each row and column an all-to-all of equal blocks of a 1024^3
complex array), so the benchmark needs neither MPI nor the compiled core.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from volfft.model import (alltoall_bound, bisection_time, blue_gene_l, exchange_traffic,
                          resolve_placement, simulate)
from volfft.model.machine import parse_dims
from volfft.model.placements import fft_placement


def group_messages(p0: int, p1: int, nbytes_total: int, rows: bool) -> np.ndarray:
    """All-to-all inside every row (or column) of a p0 x p1 grid, equal block sizes."""
    P = p0 * p1
    size = p1 if rows else p0
    block = nbytes_total // (P * size)
    g = np.arange(P)
    i, j = np.divmod(g, p1)
    k = np.arange(size)
    src = np.repeat(g, size)
    dst = (np.repeat(i, size) * p1 + np.tile(k, P)) if rows else (np.tile(k, P) * p1
                                                                     + np.repeat(j, size))
    keep = src != dst
    return np.stack([src[keep], dst[keep], np.full(keep.sum(), block)], axis=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torus", default="16x16x16")
    parser.add_argument("--grid", default="64x64")
    parser.add_argument("--n", type=int, default=1024, help="array side (complex double)")
    args = parser.parse_args()
    dims = parse_dims(args.torus)
    p0, p1 = parse_dims(args.grid)
    machine = blue_gene_l(dims)
    total = args.n ** 3 * 16
    print(f"{machine.name}, grid {p0}x{p1}, {args.n}^3 complex double")
    print(f"{'placement':<16}{'exchange':<9}{'messages':>9}{'estimator':>24}{'predicted ms':>14}"
          f"{'wall s':>8}")
    for label, block in (("default", None), ("rows on 4x4x4", (4, 4, 4))):
        try:
            placement = fft_placement(machine, (p0, p1), block)
        except ValueError as err:
            print(f"{label}: skipped ({err})")
            continue
        placed = resolve_placement(placement, machine, p0 * p1)
        for name, rows in (("row", True), ("column", False)):
            traffic = exchange_traffic(group_messages(p0, p1, total, rows), placed)
            runs = [("bisection", lambda: bisection_time(machine, traffic)),
                    ("[Eleftheriou2005] bound", lambda: alltoall_bound(machine, traffic, p0 * p1))]
            runs += [(f"sim {r}", (lambda r=r: simulate(machine, traffic, r)))
                     for r in ("dimension-ordered", "adaptive", "all-paths")]
            for est, run in runs:
                start = time.perf_counter()
                result = run()
                wall = time.perf_counter() - start
                print(f"{label:<16}{name:<9}{traffic.size:>9}{est:>24}{result.time * 1e3:>14.2f}"
                      f"{wall:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
