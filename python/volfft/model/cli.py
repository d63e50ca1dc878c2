"""``volfft model {rank,predict,calibrate}``: the performance model from the shell.

``rank``      enumerate placements of a grid on a torus, rank them, write the best as a map file
``predict``   per-phase times of a plan on a machine (preset or calibrated file)
``calibrate`` measure this machine under mpirun and write a machine file

The reproduction of the papers' tables with this model lives outside the package, in the
repository: ``python3 -m benchmarks.model.validate`` (docs/model.md).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .description import describe_plan, load_describe
from .exchange import ESTIMATORS
from .machine import (Machine, blue_gene_l, blue_gene_p, load_machine, parse_dims,
                      this_machine)
from .simulator import ROUTINGS

PRESETS = ("bluegene-l", "bluegene-p", "this")


def _grid(text: str) -> tuple[int, int]:
    dims = parse_dims(text)
    if len(dims) != 2:
        raise argparse.ArgumentTypeError(f"grid: expected p0xp1 such as 8x64, got {text!r}")
    return dims[0], dims[1]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _dims(text: str) -> tuple[int, ...]:
    try:
        return parse_dims(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _machine(spec: str, torus: tuple[int, ...] | None, mesh: bool,
             tasks_per_node: int | None) -> Machine:
    """A preset name or a machine file, with optional topology overrides."""
    if spec in ("bluegene-l", "bgl"):
        return blue_gene_l(torus or (8, 8, 8), tasks_per_node or 1, torus=not mesh)
    if spec in ("bluegene-p", "bgp"):
        return blue_gene_p(torus or (8, 16, 32), tasks_per_node or 1)
    machine = this_machine() if spec == "this" else load_machine(spec)
    changes: dict[str, Any] = {}
    if torus:
        changes["dims"], changes["wrap"] = torus, (not mesh,) * len(torus)
    if tasks_per_node:
        changes["tasks_per_node"] = tasks_per_node
    return machine.with_changes(**changes) if changes else machine


def _describe(args: argparse.Namespace, shape: Sequence[int], grid: tuple[int, int]) -> dict:
    if len(shape) not in (2, 3):
        raise ValueError(f"--shape: expected 2 or 3 extents, got {len(shape)} "
                         f"({' '.join(map(str, shape))}); the model prices 2-D and 3-D plans "
                         "(a plan of more axes is described by its first three, without the "
                         "FFTs of the others)")
    extra = {"dtype": np.complex64} if args.precision == "single" else {}
    return describe_plan(load_describe(args.describe), tuple(shape), grid, args.kind, **extra)


def _add_plan_args(p: argparse.ArgumentParser, grid_required: bool = True) -> None:
    p.add_argument("--shape", type=int, nargs="+", required=True, metavar="N",
                   help="global array shape, 2 or 3 extents")
    p.add_argument("--grid", type=_grid, required=grid_required, help="process grid p0xp1 "
                   "(rows hold p1 tasks; [Jagode2008]'s '8x64' with 8-member rows is 64x8)")
    p.add_argument("--kind", choices=("c2c", "r2c"), default="c2c")
    p.add_argument("--precision", choices=("double", "single"), default="double")
    p.add_argument("--describe", default="volfft:describe", metavar="MODULE:FUNC",
                   help="provider of plan descriptions (default: the compiled core's "
                        "volfft.describe)")


def _add_machine_args(p: argparse.ArgumentParser, default: str | None) -> None:
    p.add_argument("--machine", default=default, required=default is None,
                   help=f"machine file (from calibrate) or preset: {', '.join(PRESETS)} "
                        "('this' = $VOLFFT_MACHINE or ./machine.json)")
    p.add_argument("--torus", type=_dims, help="override the network, e.g. 16x16x16")
    p.add_argument("--mesh", action="store_true", help="open mesh instead of torus links")
    p.add_argument("--tasks-per-node", type=_positive, help="tasks per node (BG/L CO: 1, VN: 2)")


# ------------------------------------------------------------------------------- rank
def cmd_rank(args: argparse.Namespace) -> int:
    from .search import format_ranking, rank_placements

    machine = _machine(args.machine, args.torus, args.mesh, args.tasks_per_node)
    desc = _describe(args, args.shape, args.grid)
    progress = (lambda s: print(s, file=sys.stderr)) if args.verbose else None
    ranked = rank_placements(machine, desc, tilts=not args.no_tilts,
                             simulate_top=args.simulate_top, routing=args.routing,
                             progress=progress)
    print(format_ranking(ranked, machine, desc, top=args.top))
    best = ranked[0]
    if args.out:
        # The candidates are realised by the launcher (rank order = identity); an "order" file
        # is for the plan under the default launch, so it must carry the reordering.
        chosen = best.placement.for_launch() if args.format == "order" else best.placement
        chosen.write(args.out, args.format)
        print(f"best placement ({best.label}) written to {args.out} ({args.format} format)")
    if args.plots:
        from .placement import resolve_placement
        from .plots import plot_link_loads
        from .simulator import simulate
        from .traffic import exchange_traffic

        out = Path(args.plots)
        out.mkdir(parents=True, exist_ok=True)
        P = args.grid[0] * args.grid[1]
        for r in {id(x): x for x in (best, next(x for x in ranked if x.label == "default"))}.values():
            placed = resolve_placement(r.placement, machine, P)
            for ex in desc["exchanges"]:
                tag = r.label.replace(" ", "_").replace("/", "-")
                plot_link_loads(simulate(machine, exchange_traffic(ex["messages"], placed),
                                         args.routing), machine,
                                out / f"links_{tag}_{ex['name']}.png",
                                f"{r.label}: {ex['name']} exchange ({args.routing})")
        print(f"pictures written to {out}/")
    return 0


# ------------------------------------------------------------------------------- predict
def _read_placement(path: str) -> np.ndarray:
    try:
        coords = np.loadtxt(path, dtype=np.int64, ndmin=2)
    except (OSError, ValueError) as err:
        raise ValueError(f"--placement: cannot read {path} as a Rubik map file (line r = the "
                         f"coordinates of rank r): {err}") from None
    return coords


def _read_measured(path: str) -> dict:
    """The forward part of a ``volfft-bench --json`` file, checked."""
    try:
        bench = json.loads(Path(path).read_text())
    except OSError as err:
        raise ValueError(f"--measured: cannot read {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"--measured: {path} is not valid JSON ({err})") from None
    forward = bench.get("forward") if isinstance(bench, dict) else None
    if (not isinstance(forward, dict) or not isinstance(forward.get("phases"), list)
            or "median_ms" not in forward
            or not all(isinstance(ph, dict) and "name" in ph and "ms" in ph
                       for ph in forward["phases"])):
        raise ValueError(f"--measured: {path} is not a volfft-bench --json file (expected "
                         "'forward' with 'median_ms' and 'phases' of {'name', 'ms'})")
    return forward


def _phase_kind(name: str) -> str:
    for kind in ("unpack", "pack", "exchange", "fft"):
        if name.startswith(kind):
            return kind
    return "other"


def cmd_predict(args: argparse.Namespace) -> int:
    from .transform import predict_transform

    machine = _machine(args.machine, args.torus, args.mesh, args.tasks_per_node)
    desc = _describe(args, args.shape, args.grid)
    P = args.grid[0] * args.grid[1]
    if P > machine.tasks:
        if machine.nodes == 1:
            machine = machine.with_changes(tasks_per_node=P)  # one node: all ranks share it
        else:
            raise ValueError(f"--grid: {P} tasks do not fit {machine.tasks} task slots of "
                             f"{machine.name}; use --tasks-per-node or --torus")
    placement = _read_placement(args.placement) if args.placement else None
    measured = _read_measured(args.measured) if args.measured else None
    pred = predict_transform(desc, machine, placement, args.estimator, args.routing)
    print(f"machine: {machine.name}; {args.kind} {args.precision} "
          f"{'x'.join(map(str, args.shape))} on grid {args.grid[0]}x{args.grid[1]}; "
          f"exchanges by {args.estimator}" + (f" ({args.routing})" if args.estimator ==
                                              "simulate" else ""))
    print(pred.table())
    kinds = pred.by_kind()
    if measured:
        meas_kinds: dict[str, float] = {}
        for ph in measured["phases"]:
            kind = _phase_kind(ph["name"])
            meas_kinds[kind] = meas_kinds.get(kind, 0.0) + ph["ms"] / 1e3
        print(f"\n{'by kind':<12}{'predicted ms':>14}{'measured ms':>13}{'error':>9}")
        for kind in ("fft", "pack", "exchange", "unpack"):
            p, m = kinds.get(kind, 0.0), meas_kinds.get(kind)
            err = f"{p / m - 1:+.0%}" if m else "-"
            print(f"{kind:<12}{p * 1e3:>14.3f}{(m or 0) * 1e3:>13.3f}{err:>9}")
        m_total = measured["median_ms"] / 1e3
        print(f"{'total':<12}{pred.total * 1e3:>14.3f}{m_total * 1e3:>13.3f}"
              f"{pred.total / m_total - 1:>+9.0%}")
        if args.plot:
            from .plots import plot_bars

            names = ["fft", "pack", "exchange", "unpack", "total"]
            plot_bars(names, [kinds.get(k, 0.0) * 1e3 for k in names[:-1]] + [pred.total * 1e3],
                      [meas_kinds.get(k, 0.0) * 1e3 for k in names[:-1]] + [m_total * 1e3],
                      args.plot, f"{'x'.join(map(str, args.shape))} {args.kind} on "
                      f"{args.grid[0]}x{args.grid[1]}: predicted vs volfft-bench",
                      measured_label="volfft-bench")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "machine": machine.name, "shape": list(args.shape), "grid": list(args.grid),
            "kind": args.kind, "estimator": args.estimator, "total_s": pred.total,
            "phases": [{"name": p.name, "kind": p.kind, "seconds": p.seconds}
                       for p in pred.phases]}, indent=2) + "\n")
    return 0


# ------------------------------------------------------------------------------- calibrate
def cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibrate import run_calibration

    machine = run_calibration(args.out, nprocs=args.np, mpirun=args.mpirun,
                              timeout=args.timeout, quick=args.quick, bench=args.bench,
                              use_bench=not args.numpy_fft)
    print(f"wrote {args.out}: {machine.name}")
    print(f"  message latency      {machine.message_latency * 1e6:10.2f} us")
    print(f"  ping-pong bandwidth  {machine.link_bandwidth / 1e9:10.3f} GB/s")
    if machine.intranode_bandwidth:
        print(f"  alltoall (aggregate) {machine.intranode_bandwidth / 1e9:10.3f} GB/s")
    print(f"  pack (transposing copy) bandwidth/core {machine.memory_bandwidth / 1e9:8.3f} GB/s")
    for n, rate in sorted(machine.fft_rate_by_length.items()):
        print(f"  FFT n={n:<6}         {rate / 1e6:10.1f} M (N log2 N)/s")
    print(f"  ({machine.notes})")
    return 0


# ------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="volfft model", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("rank", help="rank placements of a grid on a machine")
    _add_plan_args(p)
    _add_machine_args(p, "bluegene-l")
    p.add_argument("--top", type=int, default=12, help="rows of the table")
    p.add_argument("--simulate-top", type=int, default=None,
                   help="simulate the best N of the bisection ranking (default: all when "
                        "cheap, else 8)")
    p.add_argument("--routing", choices=ROUTINGS, default="adaptive")
    p.add_argument("--no-tilts", action="store_true", help="leave out tilted placements")
    p.add_argument("--out", metavar="FILE", help="write the best placement as a map file")
    p.add_argument("--format", default="rubik",
                   choices=("rubik", "mpich", "order"), help="map file format (default rubik)")
    p.add_argument("--plots", metavar="DIR", help="link-load maps of the best and the default")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=cmd_rank)

    p = sub.add_parser("predict", help="per-phase times of a plan on a machine")
    _add_plan_args(p)
    _add_machine_args(p, None)
    p.add_argument("--placement", metavar="MAPFILE",
                   help="Rubik map file: line r = node coordinates (+ core slot) of rank r")
    p.add_argument("--estimator", choices=ESTIMATORS, default="simulate")
    p.add_argument("--routing", choices=ROUTINGS, default="adaptive")
    p.add_argument("--measured", metavar="BENCH.json",
                   help="volfft-bench --json output to set beside the prediction")
    p.add_argument("--plot", metavar="PNG", help="with --measured: bars predicted vs measured")
    p.add_argument("--json", metavar="FILE", help="write the prediction as JSON")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("calibrate", help="measure this machine under mpirun, write a machine file")
    p.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    p.add_argument("--out", default="machine.json")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--quick", action="store_true", help="smaller, fewer measurements")
    p.add_argument("--bench", metavar="PATH", help="volfft-bench binary for FFT rates "
                   "(default: on PATH or ./build*/benchmarks/)")
    p.add_argument("--numpy-fft", action="store_true",
                   help="measure FFT rates with numpy even when volfft-bench is available")
    p.set_defaults(func=cmd_calibrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``volfft model``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, RuntimeError) as err:
        print(f"volfft model {args.command}: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # --out, --json, --plot, --plots: a file that cannot be written
        print(f"volfft model {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
