"""[Eleftheriou2005]'s all-to-all bound: ``T = V_received * N_hops / (N_links * BW * f)`` (section 2).

For an all-to-all among the nodes of a line, plane or volume of a torus whose every dimension
has ``p`` nodes, [Eleftheriou2005] gives ``N_hops = p/4, p/2, 3p/4`` and ``N_links = 2, 4, 6``
(:func:`closed_form_time`). :func:`alltoall_bound` evaluates the same expression for any
placement: each communicator (connected group of an exchange's messages) gets

* ``V_received``: the most bytes any of its nodes receives from other nodes (all groups
  sharing that node together: they share its links),
* ``N_hops``: the byte-weighted mean minimal hop count of its messages,
* ``N_links``: per network dimension the group spans, 2 links when its coordinates go round
  a ring (torus) leaving no half of it empty (a whole ring, or members spread evenly round
  it), 1 otherwise (an open line or a compact part of a ring: [Eleftheriou2005] notes that mesh
  bandwidth is half the torus's),

and the exchange takes the slowest group's time. On full rings, planes and volumes of a torus
this is exact (it equals the simulator's maximum link load); elsewhere it is an estimate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .machine import Machine
from .traffic import Traffic, hop_counts

_HOPS_PER_P = {"line": 0.25, "plane": 0.5, "volume": 0.75}
_LINKS = {"line": 2, "plane": 4, "volume": 6}


def closed_form_time(kind: str, p: int, bytes_per_node: float, bandwidth: float,
                     utilization: float = 1.0) -> float:
    """[Eleftheriou2005]'s expression for an all-to-all on a torus line, plane or volume of side ``p``.

    Parameters
    ----------
    kind:
        ``"line"``, ``"plane"`` or ``"volume"``.
    p:
        Nodes per dimension.
    bytes_per_node:
        ``V_received``: bytes each node receives, counting what it keeps for itself
        (``p**d`` equal blocks of which one stays), consistent with ``N_hops`` averaged over
        all ``p**d`` destinations including itself.
    bandwidth:
        Link bandwidth per direction (bytes/s).
    utilization:
        [Eleftheriou2005]'s link utilisation ``f``.
    """
    if kind not in _LINKS:
        raise ValueError(f"kind: expected one of {sorted(_LINKS)}, got {kind!r}")
    if p < 1:
        raise ValueError(f"p: expected >= 1, got {p}")
    return bytes_per_node * _HOPS_PER_P[kind] * p / (_LINKS[kind] * bandwidth * utilization)


def connected_groups(traffic: Traffic, nranks: int) -> np.ndarray:
    """Label each virtual rank with the smallest rank of its communicator (message graph
    component). Vectorised label propagation; all-to-all groups converge in two sweeps."""
    labels = np.arange(nranks, dtype=np.int64)
    if traffic.size == 0:
        return labels
    src, dst = traffic.src, traffic.dst
    while True:
        low = np.minimum(labels[src], labels[dst])
        new = labels.copy()
        np.minimum.at(new, src, low)
        np.minimum.at(new, dst, low)
        new = new[new]  # pointer jumping
        if np.array_equal(new, labels):
            return labels
        labels = new


@dataclass(frozen=True)
class AlltoallBoundResult:
    """[Eleftheriou2005]'s bound for one exchange (slowest communicator)."""

    time: float
    received_bytes: float
    mean_hops: float
    links: int
    groups: int


def alltoall_bound(machine: Machine, traffic: Traffic, nranks: int,
                   utilization: float = 1.0) -> AlltoallBoundResult:
    """[Eleftheriou2005]'s expression evaluated from a placed exchange (see module docstring).

    ``BW * f`` is the machine's effective link bandwidth times ``utilization`` (1 by default:
    the payload efficiency is already in the effective bandwidth; [Eleftheriou2005] used f = 0.8 on the
    raw bandwidth).
    """
    moving = traffic.between_nodes()
    if moving.size == 0:
        return AlltoallBoundResult(0.0, 0.0, 0.0, 0, 0)
    labels = connected_groups(traffic, nranks)
    group = labels[moving.src]
    _, group = np.unique(group, return_inverse=True)
    group = group.reshape(-1)
    ngroups = int(group.max()) + 1
    received = np.bincount(moving.dst_node, weights=moving.nbytes, minlength=machine.nodes)
    # V_received of a group: its busiest receiving node (all groups on that node counted).
    v_group = np.zeros(ngroups)
    np.maximum.at(v_group, group, received[moving.dst_node])
    hops = hop_counts(machine, moving.src_coords, moving.dst_coords).astype(np.float64)
    bytes_group = np.bincount(group, weights=moving.nbytes, minlength=ngroups)
    hops_group = np.bincount(group, weights=moving.nbytes * hops, minlength=ngroups) / bytes_group
    links = np.zeros(ngroups, dtype=np.int64)
    coords = np.concatenate([moving.src_coords, moving.dst_coords])
    owner = np.concatenate([group, group])
    for k, n in enumerate(machine.dims):
        key = np.unique(owner * n + coords[:, k])  # sorted by group, then coordinate
        grp, coord = key // n, key % n
        span = np.bincount(grp, minlength=ngroups)
        # Largest empty stretch of the ring between a group's coordinates (cyclically): when
        # no half of the ring is empty, minimal routes use both ways round it (2 links).
        gap = np.zeros(ngroups, dtype=np.int64)
        same = grp[1:] == grp[:-1]
        np.maximum.at(gap, grp[1:][same], (coord[1:] - coord[:-1])[same])
        first = np.searchsorted(grp, np.arange(ngroups))
        last = np.searchsorted(grp, np.arange(ngroups), side="right") - 1
        has = span > 0
        wrap_gap = np.where(has, coord[np.minimum(first, key.size - 1)] + n
                            - coord[np.maximum(last, 0)], 0)
        gap = np.maximum(gap, wrap_gap)
        ring = machine.wrap[k] and n > 1
        links += np.where(span > 1, np.where(ring & (gap <= n // 2), 2, 1), 0)
    bandwidth = machine.effective_link_bandwidth * utilization
    times = v_group * hops_group / (np.maximum(links, 1) * bandwidth)
    worst = int(np.argmax(times))
    return AlltoallBoundResult(time=float(times[worst]), received_bytes=float(v_group[worst]),
                               mean_hops=float(hops_group[worst]), links=int(links[worst]),
                               groups=ngroups)
