"""``volfft model rank``: enumerate placements of a grid on a machine and rank them by predicted time.

Every candidate of :func:`volfft.model.placements.candidates` (default, rows on every block
shape that tiles the machine, and tilts of those) is priced with the fast bisection model;
identical layouts are priced once. The best ``simulate_top`` (at most two per block shape, plus
the default) are then simulated link by link (adaptive routing and the all-paths hot-spot limit), and the final
order is by exchange time: simulated where simulated, else the bisection bound. Rubik leaves this search to its user; volfft does it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .bisection import m_numbers
from .description import check_description, total_bytes
from .exchange import estimate_exchange
from .machine import Machine
from .placement import resolve_placement
from .placements import Candidate, candidates
from .simulator import simulate
from .traffic import exchange_traffic
from .transform import predict_transform


@dataclass
class Ranked:
    """One candidate's predictions (seconds)."""

    label: str
    candidate: Candidate
    placement: Any
    bisection: tuple[float, ...]          # per exchange
    m_max: tuple[float, ...]              # max_k m_k per exchange ([Jagode2008]'s figure of merit)
    simulated: tuple[float, ...] | None = None   # per exchange, adaptive routing, + latency
    all_paths: tuple[float, ...] | None = None   # per exchange, all-paths routing, + latency
    transform: float | None = None        # whole forward transform with simulated exchanges

    @property
    def exchange_time(self) -> float:
        """Sum of the exchanges: simulated where available, else bisection."""
        return float(sum(self.simulated if self.simulated is not None else self.bisection))


def _layout_key(placement: Any) -> str:
    return hashlib.sha1(np.ascontiguousarray(placement.grid_coords()).tobytes()).hexdigest()


def rank_placements(machine: Machine, desc: dict, tilts: bool = True,
                    simulate_top: int | None = None,
                    routing: str = "adaptive",
                    progress: Callable[[str], None] | None = None) -> list[Ranked]:
    """Rank the candidate placements of ``desc``'s grid on ``machine`` (best first).

    Parameters
    ----------
    machine:
        The machine; its tasks must equal the grid's size.
    desc:
        Plan description (its grid and messages).
    tilts:
        Include tilted variants.
    simulate_top:
        How many of the best bisection candidates to simulate (the default is always
        simulated, as the reference for gains). None: all of them when that is cheap
        (candidates x messages up to 5 million, e.g. any grid on an 8x8x8 torus), else 8.
    routing:
        Routing for the simulation of the final ranking.
    """
    desc = check_description(desc)
    grid = desc["grid"]
    P = grid[0] * grid[1]
    DT = total_bytes(desc)
    seen: set[str] = set()
    ranked: list[Ranked] = []
    for cand in candidates(machine, grid, tilts=tilts):
        placement = cand.build(machine, grid)
        key = _layout_key(placement)
        if key in seen:
            continue
        seen.add(key)
        placed = resolve_placement(placement, machine, P)
        times, ms = [], []
        for ex in desc["exchanges"]:
            est = estimate_exchange(machine, exchange_traffic(ex["messages"], placed), P,
                                    "bisection")
            times.append(est.time)
            ms.append(float(m_numbers(est.detail, machine, DT).max()))
        ranked.append(Ranked(cand.label, cand, placement, tuple(times), tuple(ms)))
        if progress:
            progress(f"priced {cand.label}")
    ranked.sort(key=lambda r: (sum(r.bisection), r.label != "default"))
    if simulate_top is None:
        messages = sum(len(ex["messages"]) for ex in desc["exchanges"])
        simulate_top = len(ranked) if len(ranked) * messages <= 5_000_000 else 8
    # Simulate the best few, at most two per block shape (tilts of one shape are near-twins),
    # and always the default as the reference.
    chosen: list[Ranked] = []
    per_shape: dict = {}
    for r in ranked:
        shape = r.candidate.row_block
        if len(chosen) < simulate_top and (simulate_top >= len(ranked)
                                           or per_shape.get(shape, 0) < 2):
            chosen.append(r)
            per_shape[shape] = per_shape.get(shape, 0) + 1
    chosen += [r for r in ranked if r.label == "default" and r not in chosen]
    for r in chosen:
        placed = resolve_placement(r.placement, machine, P)
        estimates, allp = [], []
        for ex in desc["exchanges"]:
            traffic = exchange_traffic(ex["messages"], placed)
            est = estimate_exchange(machine, traffic, P, "simulate", routing, name=ex["name"])
            estimates.append(est)
            allp.append(simulate(machine, traffic, "all-paths").time + est.latency)
        r.simulated, r.all_paths = tuple(e.time for e in estimates), tuple(allp)
        r.transform = predict_transform(desc, machine, placed,
                                        exchange_estimates=estimates).total
        if progress:
            progress(f"simulated {r.label}")
    # Final order: simulated time where simulated, bisection time otherwise (a lower bound, so
    # an unsimulated layout is never ranked below one it could beat); ties: simulated first.
    # Equal times (to the microsecond): prefer the layout without all-paths hot spots.
    return sorted(ranked, key=lambda r: (round(r.exchange_time * 1e6), r.simulated is None,
                                         sum(r.all_paths) if r.all_paths else 0.0,
                                         r.label != "default"))


def format_ranking(ranked: list[Ranked], machine: Machine, desc: dict, top: int = 12) -> str:
    """Text table of a ranking with gains over the default placement."""
    names = [ex["name"] for ex in desc["exchanges"]]
    default = next((r for r in ranked if r.label == "default"), None)
    ref = default.exchange_time if default else None
    ref_total = default.transform if default else None
    head = (f"{'#':>3} {'placement':<34}{'by':>4}" + "".join(f"{'m ' + n:>9}" for n in names)
            + "".join(f"{n + ' ms':>12}" for n in names) + f"{'exch ms':>10}{'all-paths':>11}"
            f"{'total ms':>10}{'gain exch':>10}{'gain tot':>9}")
    lines = [f"machine: {machine.name}; grid {desc['grid'][0]}x{desc['grid'][1]} "
             f"(rows of {desc['grid'][1]}); shape {'x'.join(map(str, desc['shape']))} "
             f"{desc['kind']}", head]
    shown = ranked[:top] + ([default] if default and default not in ranked[:top] else [])
    for k, r in enumerate(shown):
        pos = ranked.index(r) + 1
        per = r.simulated if r.simulated is not None else r.bisection
        allp = f"{sum(r.all_paths) * 1e3:>11.2f}" if r.all_paths else f"{'-':>11}"
        total = f"{r.transform * 1e3:>10.1f}" if r.transform else f"{'-':>10}"
        gain = f"{ref / r.exchange_time - 1:>+10.1%}" if ref else f"{'':>10}"
        gain_t = (f"{ref_total / r.transform - 1:>+9.1%}" if ref_total and r.transform
                  else f"{'':>9}")
        how = "sim" if r.simulated is not None else "bis"
        lines.append(f"{pos:>3} {r.label[:34]:<34}{how:>4}" + "".join(f"{m:>9.2f}" for m in r.m_max)
                     + "".join(f"{t * 1e3:>12.2f}" for t in per)
                     + f"{r.exchange_time * 1e3:>10.2f}{allp}{total}{gain}{gain_t}")
    lines.append(f"{len(ranked)} distinct layouts priced by the bisection model (by=bis); the best "
                 f"{sum(r.simulated is not None for r in ranked)} simulated link by link (by=sim, "
                 "adaptive routing); all-paths = uniform over all minimal paths, "
                 "the hot-spot limit; m = max_k m_k ([Jagode2008] eq. 16); "
                 "gain = default time / this time - 1.")
    return "\n".join(lines)
