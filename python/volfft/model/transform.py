"""Whole-transform prediction: FFT stages, pack/unpack and exchanges, in the plan's phase order.

Phase order of ``forward()``: a plan on the user's arrays first reshapes them to its own
(``reshape_in``: pack, exchange, unpack), then FFT stages in the description's order, each exchange (pack,
exchange, unpack) right after the stage that precedes it
(:func:`volfft.model.description.preceding_stage`). Pencil 3-D: ``fft2, row, fft1, column,
fft0``; slab 3-D: ``fft2, fft1, column, fft0``; 2-D: ``fft1, column, fft0``; last the
reshape to the user's output arrays (``reshape_out``). Phases do not overlap (blocking
engines); each phase costs its slowest rank, as the papers' tables ([Jagode2008], [Eleftheriou2005]) and volfft's timers report.

Compute: a length-N complex 1-D FFT costs ``N log2 N / fft_rate`` seconds ([Eleftheriou2005]'s
``8 N log2 N`` cycles when ``fft_rate = clock / 8``), a real one half of that; pack and
unpack each copy the rank's local data once at the memory bandwidth. On an oversubscribed
node (more tasks than cores) a task gets ``cores / tasks`` of a core.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .description import (check_description, local_bytes_before_exchange, nranks,
                          preceding_stage)
from .exchange import ExchangeEstimate, estimate_exchange
from .machine import Machine
from .placement import ResolvedPlacement, resolve_placement
from .traffic import exchange_traffic


@dataclass(frozen=True)
class Phase:
    """One phase of the forward transform."""

    name: str
    kind: str  # "fft", "pack", "exchange", "unpack"
    seconds: float


@dataclass
class TransformPrediction:
    """Per-phase predicted times of a forward transform."""

    phases: list[Phase]
    exchanges: list[ExchangeEstimate] = field(default_factory=list)
    estimator: str = ""

    @property
    def total(self) -> float:
        return float(sum(p.seconds for p in self.phases))

    def by_kind(self) -> dict[str, float]:
        """Seconds summed per phase kind (fft, pack, exchange, unpack)."""
        out: dict[str, float] = {}
        for p in self.phases:
            out[p.kind] = out.get(p.kind, 0.0) + p.seconds
        return out

    def table(self) -> str:
        """Text table: phase, milliseconds, share of total."""
        total = self.total or 1.0
        lines = [f"{'phase':<18}{'ms':>12}{'share':>9}"]
        for p in self.phases:
            lines.append(f"{p.name:<18}{p.seconds * 1e3:>12.4f}{p.seconds / total:>9.1%}")
        lines.append(f"{'total':<18}{self.total * 1e3:>12.4f}{1:>9.0%}")
        return "\n".join(lines)


def fft_stage_seconds(machine: Machine, stage: dict, core_share: float) -> float:
    """Slowest rank's time for one batch of 1-D FFTs."""
    n = int(stage["length"])
    if n < 2:
        return 0.0
    work = n * math.log2(n) * (0.5 if stage["kind"] == "r2c" else 1.0)
    count = int(np.max(stage["count_per_rank"])) if len(stage["count_per_rank"]) else 0
    return count * work / (machine.fft_rate_for(n) * core_share)


def predict_transform(desc: dict, machine: Machine, placement: Any = None,
                      estimator: str = "simulate", routing: str = "adaptive",
                      exchange_estimates: list[ExchangeEstimate] | None = None
                      ) -> TransformPrediction:
    """Predict each phase of a forward transform described by ``desc``.

    Parameters
    ----------
    desc:
        The plan description (``volfft.describe(...)``; contract in docs/model.md).
    machine:
        The machine, e.g. :func:`volfft.model.blue_gene_l` or a calibrated file.
    placement:
        A volfft.mapping placement, an array of node coordinates per world rank, a
        :class:`~volfft.model.placement.ResolvedPlacement`, or None for the default.
    estimator, routing:
        Exchange estimator (see :func:`volfft.model.exchange.estimate_exchange`).
    exchange_estimates:
        Already computed estimates, one per exchange, to reuse instead of estimating again.
    """
    desc = check_description(desc)
    P = nranks(desc)
    own = getattr(placement, "grid", None)
    if own is not None and hasattr(placement, "rank_order") and \
            tuple(int(p) for p in own) != tuple(desc["grid"]):
        raise ValueError(f"placement: it places the positions of a {own[0]}x{own[1]} grid, but "
                         f"the plan's grid is {desc['grid'][0]}x{desc['grid'][1]}")
    resolved = placement if isinstance(placement, ResolvedPlacement) else \
        resolve_placement(placement, machine, P)
    tasks_on_node = int(np.bincount(resolved.node_index).max())
    share = machine.core_share(tasks_on_node)
    stages = desc["stages"]
    exchanges = desc["exchanges"]
    after = [preceding_stage(desc, e) for e in range(len(exchanges))]
    phases: list[Phase] = []
    estimates: list[ExchangeEstimate] = []
    def reshape(ex: dict) -> None:
        # A reshape packs what each rank sends and unpacks what it receives (its own block is
        # one copy as well): the slowest rank's bytes at the memory bandwidth, each way.
        msgs = ex["messages"]
        sent = np.bincount(msgs[:, 0], weights=msgs[:, 2], minlength=P) if len(msgs) else np.zeros(P)
        received = np.bincount(msgs[:, 1], weights=msgs[:, 2], minlength=P) if len(msgs) else np.zeros(P)
        traffic = exchange_traffic(msgs, resolved)
        est = estimate_exchange(machine, traffic, P, estimator, routing, name=ex["name"])
        estimates.append(est)
        bandwidth = machine.memory_bandwidth * share
        phases.append(Phase(f"pack {ex['name']}", "pack", float(sent.max()) / bandwidth))
        phases.append(Phase(f"exchange {ex['name']}", "exchange", est.time))
        phases.append(Phase(f"unpack {ex['name']}", "unpack", float(received.max()) / bandwidth))

    reshapes = {ex["name"]: ex for ex in desc.get("reshapes", [])}
    if "reshape_in" in reshapes:
        reshape(reshapes["reshape_in"])
    for k, stage in enumerate(stages):
        phases.append(Phase(f"fft axis {stage['axis']}", "fft",
                            fft_stage_seconds(machine, stage, share)))
        for e in (e for e in range(len(exchanges)) if after[e] == k):
            ex = exchanges[e]
            local = local_bytes_before_exchange(desc, e)
            copy = float(np.max(local)) / (machine.memory_bandwidth * share) if local.size else 0.0
            if exchange_estimates is not None:
                est = exchange_estimates[e]
            else:
                traffic = exchange_traffic(ex["messages"], resolved)
                est = estimate_exchange(machine, traffic, P, estimator, routing, name=ex["name"])
            estimates.append(est)
            phases.append(Phase(f"pack {ex['name']}", "pack", copy))
            phases.append(Phase(f"exchange {ex['name']}", "exchange", est.time))
            phases.append(Phase(f"unpack {ex['name']}", "unpack", copy))
    if "reshape_out" in reshapes:
        reshape(reshapes["reshape_out"])
    return TransformPrediction(phases=phases, exchanges=estimates, estimator=estimator)
