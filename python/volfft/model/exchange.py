"""Time of one exchange: a network estimator plus node limits and latency.

``time = max(network, injection, intranode) + latency`` where

* ``network`` comes from one of the three estimators: ``"bisection"`` ([Jagode2008], generalised),
  ``"alltoall-bound"`` ([Eleftheriou2005]) or ``"simulate"`` (link-level flows);
* ``injection`` is the busiest task's bytes to other nodes over the machine's injection
  bandwidth (0 when the machine gives none);
* ``intranode`` is the busiest node's bytes between its own tasks over its shared-memory
  bandwidth (0 when the machine gives none);
* ``latency`` is ``message_latency`` x the most messages any task sends, plus ``hop_latency``
  x the longest route.

Bandwidth terms take the max, not the sum: links, injection and memory work concurrently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .alltoall_bound import alltoall_bound
from .bisection import bisection_time
from .machine import Machine
from .simulator import simulate
from .traffic import Traffic, hop_counts

ESTIMATORS = ("bisection", "alltoall-bound", "simulate")


@dataclass(frozen=True)
class ExchangeEstimate:
    """The predicted time of one exchange and its parts (seconds)."""

    name: str
    estimator: str
    network: float
    injection: float
    intranode: float
    latency: float
    detail: Any

    @property
    def time(self) -> float:
        return max(self.network, self.injection, self.intranode) + self.latency


def latency_time(machine: Machine, traffic: Traffic, nranks: int) -> float:
    """Per-message software cost of the busiest sender plus hop latency of the longest route."""
    if traffic.size == 0:
        return 0.0
    per_task = np.bincount(traffic.src, minlength=nranks)
    longest = int(hop_counts(machine, traffic.src_coords, traffic.dst_coords).max())
    return machine.message_latency * int(per_task.max()) + machine.hop_latency * longest


def node_limits(machine: Machine, traffic: Traffic, nranks: int) -> tuple[float, float]:
    """``(injection, intranode)`` times of an exchange (0 where the machine sets no limit)."""
    if traffic.size == 0:
        return 0.0, 0.0
    remote = traffic.src_node != traffic.dst_node
    injection = 0.0
    if machine.injection_bandwidth is not None and remote.any():
        sent = np.bincount(traffic.src[remote], weights=traffic.nbytes[remote], minlength=nranks)
        injection = float(sent.max()) / machine.injection_bandwidth
    intranode = 0.0
    if machine.intranode_bandwidth is not None and (~remote).any():
        local = np.bincount(traffic.src_node[~remote], weights=traffic.nbytes[~remote],
                            minlength=machine.nodes)
        intranode = float(local.max()) / machine.intranode_bandwidth
    return injection, intranode


def estimate_exchange(machine: Machine, traffic: Traffic, nranks: int,
                      estimator: str = "simulate", routing: str = "adaptive",
                      name: str = "") -> ExchangeEstimate:
    """Predict one exchange's time with the chosen estimator.

    Parameters
    ----------
    machine, traffic:
        The network and the placed messages.
    nranks:
        Ranks of the plan (for per-task counts).
    estimator:
        ``"bisection"``, ``"alltoall-bound"`` or ``"simulate"``.
    routing:
        Routing policy for ``"simulate"`` (see :mod:`volfft.model.simulator`).
    """
    if estimator == "bisection":
        detail: Any = bisection_time(machine, traffic)
    elif estimator == "alltoall-bound":
        detail = alltoall_bound(machine, traffic, nranks)
    elif estimator == "simulate":
        detail = simulate(machine, traffic, routing=routing)
    else:
        raise ValueError(f"estimator: expected one of {ESTIMATORS}, got {estimator!r}")
    injection, intranode = node_limits(machine, traffic, nranks)
    return ExchangeEstimate(name=name, estimator=estimator, network=float(detail.time),
                            injection=injection, intranode=intranode,
                            latency=latency_time(machine, traffic, nranks), detail=detail)
