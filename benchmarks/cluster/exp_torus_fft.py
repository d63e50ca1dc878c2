#!/usr/bin/env python3
"""Experiment 3: a 3-D FFT on an emulated 2x2x2 torus of hosts, placements side by side.

volfft-bench runs a c2c double N^3 transform on a p0 x p1 grid (default 2x4, rows of 4) with
one rank per host, under several placements of the grid on the torus:

* ``default``: grid position g on host g (C order over the torus), what a launcher does;
* ``rows on 2x2x1``: a placement built with ``volfft.mapping.rows_on_blocks`` (each row on a
  2x2 plane of another orientation than the default's);
* ``rows as tetrahedra``: every row on four hosts pairwise two hops apart, each column on
  neighbours (built with ``volfft.mapping.Placement.from_coords``): longer paths, but spread
  over all links (the model gives it the same maximum link load as the default).

A placement is realised at launch: rank r runs on the host of grid position r, since
volfft-bench gives grid position r to world rank r. Each placement is measured in rounds
(round-robin, against drifting load from other users) and set beside ``volfft.model``'s
prediction of the exchange phases (link-level simulator, dimension-ordered routes, one link
per neighbour pair, the cluster's link rate). The model needs the plan description from the
compiled core (``volfft.describe``); without it the predictions are left empty.

    sudo python3 -m benchmarks.cluster.exp_torus_fft [--rate 100mbit] [--n 128] [--grid 2x4]
         [--engine alltoallv] [--rounds 2] [--bench PATH] [--out DIR]

Writes table.txt, results.json and torus_fft.png to --out (default build/cluster/exp_torus_fft/).
Run from the repository root.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from benchmarks.cluster import experiment as X
from tools import vcluster

DIMS = (2, 2, 2)
FRAME, HEADERS = 1514, 66  # TCP/IPv4 payload per Ethernet frame as the shaper counts it


def placements(grid: tuple[int, int]) -> dict:
    """The placements to compare, as volfft.mapping Placement objects."""
    X.import_volfft()
    import numpy as np
    from volfft.mapping import Machine, Placement, default_placement, rows_on_blocks

    machine = Machine.torus(DIMS)
    out = {"default": default_placement(machine, grid, "default")}
    try:
        out["rows on 2x2x1"] = rows_on_blocks(machine, grid, (2, 2, 1), "rows on 2x2x1")
    except ValueError as exc:  # another grid may not tile 2x2x1
        print(f"# rows on 2x2x1 not possible for grid {grid}: {exc}", file=sys.stderr)
    if grid == (2, 4):
        even = [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0)]
        odd = [(1, 0, 0), (1, 1, 1), (0, 0, 1), (0, 1, 0)]  # odd[j]: one hop from even[j]
        out["rows as tetrahedra"] = Placement.from_coords(machine, grid, np.array(even + odd),
                                                          name="rows as tetrahedra")
    return out


def launch_hosts(placement) -> list[int]:
    """Host index (C order on the torus) for each world rank, so that rank g sits where grid
    position g belongs."""
    coords = placement.grid_coords()[:, :len(DIMS)]
    return [int(((c[0] * DIMS[1]) + c[1]) * DIMS[2] + c[2]) for c in coords]


def predict(placement, n: int, grid: tuple[int, int], rate_bits: int, machine_file: str | None) -> dict | None:
    """volfft.model's exchange (and total) prediction for one placement, or None."""
    try:
        X.import_volfft()
        from volfft.model import Machine, load_machine, packet_efficiency, predict_transform
        from volfft.model.description import describe_plan, load_describe
        describe = load_describe()
    except (ImportError, RuntimeError) as exc:
        print(f"# no prediction: {exc}", file=sys.stderr)
        return None
    # Extent-2 dimensions have one link per pair here; a 2-long mesh dimension is exactly that
    # (a 2-long torus dimension in the model would count the wrap link as a second one).
    link = dict(dims=DIMS, wrap=(False,) * len(DIMS), link_bandwidth=rate_bits / 8,
                payload_efficiency=packet_efficiency(FRAME, HEADERS))
    machine = (load_machine(machine_file).with_changes(**link) if machine_file
               else Machine("vcluster 2x2x2", **link))
    desc = describe_plan(describe, (n, n, n), grid)
    pred = predict_transform(desc, machine, placement, "simulate", "dimension-ordered")
    return {"exchange_s": pred.by_kind().get("exchange", 0.0), "total_s": pred.total,
            "phases": {p.name: p.seconds for p in pred.phases}}


def measured_exchange_ms(data: dict, direction: str = "forward") -> float:
    return sum(p["ms"] for p in data[direction]["phases"] if p["name"].startswith("exchange"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", default="100mbit")
    ap.add_argument("--n", type=int, default=128, help="transform size N (N^3)")
    ap.add_argument("--grid", default="2x4", help="p0xp1 with p0*p1 = 8")
    ap.add_argument("--engine", default="alltoallv")
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--bench", help="volfft-bench (default: build/benchmarks/volfft-bench, then PATH)")
    ap.add_argument("--machine", help="calibrated machine file (volfft model calibrate) for the compute phases")
    ap.add_argument("--out")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    try:
        p0, p1 = (int(v) for v in args.grid.split("x"))
    except ValueError:
        ap.error(f"--grid: expected p0xp1, got {args.grid!r}")
    if p0 * p1 != 8:
        ap.error(f"--grid: p0*p1 must be 8 (one rank per host of the 2x2x2 torus), got {args.grid}")
    grid = (p0, p1)
    rate_bits = vcluster.parse_rate(args.rate)
    out = X.output_dir(args.out, "exp_torus_fft")
    places = placements(grid)
    if args.report_only:
        results = X.earlier_results(out)
    else:
        bench = X.bench_for_live_run(args.bench)
        if bench is None:
            return 2
        results = {"config": vars(args), "placements": {}}
        runs: dict[str, list[dict]] = {name: [] for name in places}
        with X.cluster("tf", ["torus3d", "x".join(map(str, DIMS))], args.rate) as state:
            for rnd in range(args.rounds):
                for name, placement in places.items():
                    hosts = launch_hosts(placement)
                    path = out / f"{name.replace(' ', '_')}.r{rnd}.json"
                    path.unlink(missing_ok=True)
                    print(f"# round {rnd + 1}/{args.rounds}, {name}: rank -> host {hosts}", flush=True)
                    rc = X.run_mpi(state, [bench, "c2c", "double", *[str(args.n)] * 3, "--grid", args.grid,
                                           "--engine", args.engine, "--iters", str(args.iters),
                                           "--json", str(path)], hosts=hosts, timeout=args.timeout,
                                   log=out / "jobs.log")
                    data = X.read_json(path)
                    if rc == 0 and data is not None:
                        runs[name].append(data)
        for name, data in runs.items():
            if not data:
                continue
            results["placements"][name] = {
                "hosts": launch_hosts(places[name]),
                "forward_ms": statistics.median(d["forward"]["median_ms"] for d in data),
                "backward_ms": statistics.median(d["backward"]["median_ms"] for d in data),
                "exchange_fwd_ms": statistics.median(measured_exchange_ms(d) for d in data),
                "phases_first_round": data[0]["forward"]["phases"],
                "rounds": len(data)}
    for name, res in results["placements"].items():
        res["predicted"] = predict(places[name], args.n, grid, rate_bits, args.machine) if name in places else None
    print(report(results, out))
    return 0 if len(results["placements"]) == len(places) else 1


def report(results: dict, out: Path) -> str:
    cfg = results["config"]
    res = results["placements"]
    base = res.get("default")
    header = ["placement", "hosts by rank", "fwd ms", "bwd ms", "exch fwd ms", "pred exch ms",
              "meas/default", "pred/default"]
    rows = []
    for name, r in res.items():
        p = r.get("predicted")
        pb = base.get("predicted") if base else None
        rows.append([name, ",".join(map(str, r["hosts"])), f"{r['forward_ms']:.1f}", f"{r['backward_ms']:.1f}",
                     f"{r['exchange_fwd_ms']:.1f}", f"{p['exchange_s'] * 1e3:.1f}" if p else "n/a",
                     f"{r['exchange_fwd_ms'] / base['exchange_fwd_ms']:.2f}" if base else "n/a",
                     f"{p['exchange_s'] / pb['exchange_s']:.2f}" if p and pb else "n/a"])
    table = (f"3-D c2c double {cfg['n']}^3 on grid {cfg['grid']}, engine {cfg['engine']}, 2x2x2 torus at "
             f"{cfg['rate']} (medians over rounds; exchange = forward exchange phases; prediction = "
             f"volfft.model simulator, dimension-ordered)\n" + X.format_table(header, rows))
    (out / "table.txt").write_text(table + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    _plot(res, out / "torus_fft.png")
    return table


def _plot(res: dict, path: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    names = list(res)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], [res[n]["exchange_fwd_ms"] for n in names], 0.4, label="measured exchange (fwd)")
    if all(res[n].get("predicted") for n in names):
        ax.bar([i + 0.2 for i in x], [res[n]["predicted"]["exchange_s"] * 1e3 for n in names], 0.4,
               label="volfft.model exchange")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, fontsize=8)
    ax.set_ylabel("ms")
    ax.set_title("3-D FFT on a 2x2x2 torus of hosts: placement")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
