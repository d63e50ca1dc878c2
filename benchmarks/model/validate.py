"""Reproduce [Jagode2008]'s Table 1, predict its appendix Tables 2-3, and [Bhatele2012]'s Fig. 1
comparison, from first principles (citations: docs/references.md)::

    python3 -m benchmarks.model.validate [--describe MODULE:FUNC] [--sizes 512 1024] [--plots DIR]

(from the repository root; ``--describe`` defaults to the compiled ``volfft:describe``).

Nothing is fitted: the Blue Gene/L machine is [Jagode2008]'s hardware description (148 MB/s of
payload per link direction, 512 nodes), placements come from :mod:`volfft.mapping`, messages
from the plan description, and the papers' numbers (:mod:`benchmarks.model.paper_data`) are
only printed beside the predictions. This is a paper reproduction, not part of the installed
package: it uses only volfft.model's public estimators.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from volfft.model.bisection import bisection_time, m_numbers
from volfft.model.description import check_description, describe_plan, load_describe, total_bytes
from volfft.model.exchange import estimate_exchange, latency_time
from volfft.model.machine import Machine, blue_gene_l, blue_gene_p
from volfft.model.placement import ArrayPlacement, resolve_placement
from volfft.model.placements import fft_placement
from volfft.model.simulator import simulate
from volfft.model.traffic import exchange_traffic

from .paper_data import CASES, FIG1_BEST_TEXT, FIG1_TEXT, TABLE1, TABLE1_CASES, JagodeCase

Describe = Callable[..., dict]


# ---------------------------------------------------------------------------------------------
@dataclass
class Table1Row:
    mapping: str
    group: str  # "rows" / "columns"
    computed: tuple[float, ...]
    paper: tuple[int, ...]

    @property
    def exact(self) -> bool:
        return bool(np.allclose(self.computed, self.paper, atol=1e-9))


def table1(describe: Describe, shape: tuple[int, ...] = (512, 512, 512)) -> list[Table1Row]:
    """[Jagode2008] Table 1: every m_i recomputed from the placements and the plan's messages."""
    rows = []
    for name, case in TABLE1_CASES.items():
        machine = blue_gene_l(tasks_per_node=case.tasks_per_node)
        desc = check_description(describe(shape, grid=case.grid, kind="c2c"))
        placed = resolve_placement(fft_placement(machine, case.grid, case.row_block), machine,
                                   case.grid[0] * case.grid[1])
        for ex, group in zip(desc["exchanges"], ("rows", "columns")):
            result = bisection_time(machine, exchange_traffic(ex["messages"], placed))
            m = m_numbers(result, machine, total_bytes(desc))
            rows.append(Table1Row(name, group, tuple(float(v) for v in m), TABLE1[name][group]))
    return rows


def format_table1(rows: list[Table1Row]) -> str:
    lines = ["[Jagode2008] Table 1: m_i from the placements (computed | paper)",
             f"{'mapping':<18}{'group':<9}{'m_x m_y m_z computed':>22}{'paper':>12}{'':>3}"]
    for r in rows:
        comp = " ".join(f"{v:g}" for v in r.computed)
        paper = " ".join(str(v) for v in r.paper)
        lines.append(f"{r.mapping:<18}{r.group:<9}{comp:>22}{paper:>12}   "
                     f"{'exact' if r.exact else 'DIFFERS'}")
    exact = sum(r.exact for r in rows) * 3
    lines.append(f"{exact} of {len(rows) * 3} m_i values reproduced exactly")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
@dataclass
class ExchangeComparison:
    case: str
    group: str  # "rows" / "columns"
    size: int
    paper_ms: float | None
    bisection_ms: float
    adaptive_ms: float
    all_paths_ms: float

    @property
    def predicted_ms(self) -> float:
        """The headline prediction: simulated links with adaptive (dimension-order) routing."""
        return self.adaptive_ms

    @property
    def error(self) -> float | None:
        if not self.paper_ms:
            return None
        return self.predicted_ms / self.paper_ms - 1.0


def appendix_tables(describe: Describe, sizes: tuple[int, ...] = (512, 1024),
                    cases: tuple[JagodeCase, ...] = CASES) -> list[ExchangeComparison]:
    """Predict every entry of [Jagode2008]'s appendix Tables 2 (rows) and 3 (columns)."""
    out = []
    from .paper_data import SIZES

    for case in cases:
        machine = blue_gene_l(tasks_per_node=case.tasks_per_node)
        P = case.grid[0] * case.grid[1]
        placed = resolve_placement(fft_placement(machine, case.grid, case.row_block), machine, P)
        for size in sizes:
            desc = check_description(describe((size,) * 3, grid=case.grid, kind="c2c"))
            col = SIZES.index(size) if size in SIZES else None
            for ex, group, paper in zip(desc["exchanges"], ("rows", "columns"),
                                        (case.rows_ms, case.columns_ms)):
                traffic = exchange_traffic(ex["messages"], placed)
                lat = latency_time(machine, traffic, P)
                bis = estimate_exchange(machine, traffic, P, "bisection").time
                ada = estimate_exchange(machine, traffic, P, "simulate", "adaptive").time
                allp = simulate(machine, traffic, "all-paths").time + lat
                out.append(ExchangeComparison(case.label, group, size,
                                              None if col is None else paper[col],
                                              bis * 1e3, ada * 1e3, allp * 1e3))
    return out


def format_appendix(rows: list[ExchangeComparison]) -> str:
    lines = []
    for group, title in (("rows", "Table 2 (rows)"), ("columns", "Table 3 (columns)")):
        lines.append(f"[Jagode2008] appendix {title}: exchange time, ms "
                     "(prediction = simulated links, adaptive routing, + latency)")
        lines.append(f"{'case':<16}{'size':>6}{'bisection':>11}{'predicted':>11}"
                     f"{'all-paths':>11}{'paper':>9}{'error':>9}")
        for r in rows:
            if r.group != group:
                continue
            err = "" if r.error is None else f"{r.error:+.1%}"
            paper = "-" if r.paper_ms is None else f"{r.paper_ms:g}"
            lines.append(f"{r.case:<16}{r.size:>5}^3{r.bisection_ms:>10.2f}{r.predicted_ms:>11.2f}"
                         f"{r.all_paths_ms:>11.2f}{paper:>9}{err:>9}")
        lines.append("")
    for size in sorted({r.size for r in rows}):
        sel = [r for r in rows if r.size == size and r.error is not None]
        good = sum(abs(r.error) <= 0.10 for r in sel)
        lines.append(f"{size}^3: {good} of {len(sel)} entries within 10% of the paper")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
def fig1_placements(machine: Machine) -> dict[str, np.ndarray]:
    """[Bhatele2012] Fig. 1's six arrangements of 16 nodes on an 8x16x32 torus (dims X, Y, Z).

    A line along Z (16 of 32 nodes: no wrap-around is usable) is the mesh line; the whole Y
    ring is the torus line; 8x2 along Z and Y is the mesh plane, 8 along the X ring x 2 along
    Y wraps its long side; 4x4 and 4x2x2 are sub-blocks.
    """
    def grid(ext: tuple[int, int, int]) -> np.ndarray:
        return np.stack(np.unravel_index(np.arange(int(np.prod(ext))), ext), axis=1)

    return {
        "16x1 line, mesh": grid((1, 1, 16)),
        "16x1 line, torus": grid((1, 16, 1)),
        "8x2 plane, mesh": grid((1, 2, 8)),
        "8x2 plane, long side torus": grid((8, 2, 1)),
        "4x4 plane": grid((4, 4, 1)),
        "4x2x2 box": grid((4, 2, 2)),
    }


@dataclass
class Fig1Row:
    name: str
    bisection: float
    alltoall_bound: float
    adaptive: float
    all_paths: float
    paper: float | None = None
    relative: dict = field(default_factory=dict)


def fig1(message_bytes: int = 1 << 20) -> list[Fig1Row]:
    """[Bhatele2012] Fig. 1: all-to-all among 16 nodes, 1 MB per pair, relative to the mesh line."""
    machine = blue_gene_p()
    nodes = 16
    src, dst = np.meshgrid(np.arange(nodes), np.arange(nodes), indexing="ij")
    keep = src != dst
    msgs = np.stack([src[keep], dst[keep], np.full(keep.sum(), message_bytes)], axis=1)
    rows = []
    for name, coords in fig1_placements(machine).items():
        placed = resolve_placement(ArrayPlacement(coords.astype(np.int64)), machine, nodes)
        traffic = exchange_traffic(msgs, placed)
        rows.append(Fig1Row(
            name,
            estimate_exchange(machine, traffic, nodes, "bisection").time,
            estimate_exchange(machine, traffic, nodes, "alltoall-bound").time,
            estimate_exchange(machine, traffic, nodes, "simulate", "adaptive").time,
            estimate_exchange(machine, traffic, nodes, "simulate", "all-paths").time,
            FIG1_TEXT.get(name)))
    base = rows[0]
    for r in rows:
        r.relative = {k: getattr(r, k) / getattr(base, k)
                      for k in ("bisection", "alltoall_bound", "adaptive", "all_paths")}
    return rows


def format_fig1(rows: list[Fig1Row]) -> str:
    lines = ["[Bhatele2012] Fig. 1: all-to-all over 16 nodes of an 8x16x32 BG/P torus, 1 MB messages,",
             "time relative to the 16-node line on a mesh",
             f"{'arrangement':<28}{'bisection':>10}{'a2a-bound':>10}{'adaptive':>10}{'all-paths':>10}"
             f"{'paper(text)':>13}"]
    for r in rows:
        rel = r.relative
        paper = "?" if r.paper is None else f"{r.paper:.2f}"
        lines.append(f"{r.name:<28}{rel['bisection']:>10.2f}{rel['alltoall_bound']:>10.2f}"
                     f"{rel['adaptive']:>10.2f}{rel['all_paths']:>10.2f}{paper:>13}")
    lines.append(f"paper text: 4x4 and 4x2x2 give 'the same performance boost'; best all-to-all "
                 f"mapping: {FIG1_BEST_TEXT:.2f}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """Print the tables (and with ``--plots DIR`` write pictures); returns the exit status."""
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.model.validate",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--describe", default="volfft:describe", metavar="MODULE:FUNC",
                        help="plan description function (default: the compiled volfft:describe)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[512, 1024])
    parser.add_argument("--plots", metavar="DIR", help="write PNG pictures to DIR")
    args = parser.parse_args(argv)
    try:
        return _validate(args)
    except (ValueError, TypeError, RuntimeError) as error:
        print(f"validate: {error}", file=sys.stderr)
        return 2


def _validate(args: argparse.Namespace) -> int:
    describe = load_describe(args.describe)
    print("Blue Gene/L 8x8x8 torus, 512 nodes, link payload "
          f"{blue_gene_l().effective_link_bandwidth / 1e6:.1f} MB/s per direction "
          "([Jagode2008] section 5), nothing fitted\n")
    t1 = table1(describe)
    print(format_table1(t1) + "\n")
    rows = appendix_tables(describe, tuple(args.sizes))
    print(format_appendix(rows) + "\n")
    fig1_rows = fig1()
    print(format_fig1(fig1_rows))
    if args.plots:
        from volfft.model.plots import plot_bars, plot_link_loads

        out = Path(args.plots)
        out.mkdir(parents=True, exist_ok=True)
        size = max(args.sizes)
        for group in ("rows", "columns"):
            sel = [r for r in rows if r.group == group and r.size == size]
            plot_bars([r.case for r in sel], [r.predicted_ms for r in sel],
                      [r.paper_ms for r in sel], out / f"jagode2008_{group}_{size}.png",
                      f"[Jagode2008] {group} exchange, {size}^3: predicted vs paper",
                      measured_label="paper (BG/L)")
        plot_bars([r.name for r in fig1_rows], [r.relative["adaptive"] for r in fig1_rows],
                  [r.paper for r in fig1_rows], out / "bhatele2012_fig1.png",
                  "[Bhatele2012] Fig. 1: all-to-all time relative to a mesh line",
                  ylabel="relative time", measured_label="paper (text)")
        # [Jagode2008]'s 64-cube rows: dimension-order routing spreads evenly, all-paths does not.
        machine = blue_gene_l()
        desc = describe_plan(describe, (size,) * 3, (8, 64), "c2c")
        placed = resolve_placement(fft_placement(machine, (8, 64), (4, 4, 4)), machine, 512)
        traffic = exchange_traffic(desc["exchanges"][0]["messages"], placed)
        for routing in ("adaptive", "all-paths"):
            plot_link_loads(simulate(machine, traffic, routing), machine,
                            out / f"links_64cube_rows_{routing}.png",
                            f"64-cube rows ([Jagode2008] 64x8), {size}^3, {routing} routing")
        print(f"\npictures written to {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
