"""Messages of one exchange placed on the network: node pairs, bytes and minimal displacements.

Shared by all estimators. Everything is vectorised over messages; nothing loops in Python per
message.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .machine import Machine
from .placement import ResolvedPlacement


@dataclass(frozen=True)
class Traffic:
    """One exchange's messages with their nodes.

    Attributes
    ----------
    src, dst:
        Virtual ranks (int64, (M,)).
    src_coords, dst_coords:
        Node coordinates (int64, (M, ndim)).
    src_node, dst_node:
        Linear node indices (int64, (M,)).
    nbytes:
        Payload bytes (float64, (M,)).
    """

    src: np.ndarray
    dst: np.ndarray
    src_coords: np.ndarray
    dst_coords: np.ndarray
    src_node: np.ndarray
    dst_node: np.ndarray
    nbytes: np.ndarray

    @property
    def size(self) -> int:
        return int(self.src.shape[0])

    def between_nodes(self) -> "Traffic":
        """Only the messages that leave their node (the ones that use links)."""
        keep = self.src_node != self.dst_node
        return Traffic(*(getattr(self, f)[keep] for f in
                         ("src", "dst", "src_coords", "dst_coords", "src_node", "dst_node",
                          "nbytes")))


def exchange_traffic(messages: np.ndarray, placement: ResolvedPlacement) -> Traffic:
    """Attach node coordinates to an exchange's messages (``(M, 3)``: src, dst, bytes)."""
    msgs = np.asarray(messages, dtype=np.int64).reshape(-1, 3)
    msgs = msgs[(msgs[:, 2] > 0) & (msgs[:, 0] != msgs[:, 1])]
    src, dst = msgs[:, 0], msgs[:, 1]
    return Traffic(src=src, dst=dst,
                   src_coords=placement.node_coords[src], dst_coords=placement.node_coords[dst],
                   src_node=placement.node_index[src], dst_node=placement.node_index[dst],
                   nbytes=msgs[:, 2].astype(np.float64))


def minimal_steps(machine: Machine, src: np.ndarray, dst: np.ndarray, dim: int) -> np.ndarray:
    """Signed minimal number of hops from ``src`` to ``dst`` coordinates along ``dim``.

    On a ring the shorter way round is taken; at exactly half the ring (a tie) the positive
    way is returned: callers that care split ties with :func:`tie_mask`.
    """
    n = machine.dims[dim]
    delta = dst - src
    if not machine.wrap[dim]:
        return delta
    delta = np.mod(delta, n)
    return np.where(delta > n // 2, delta - n, delta)  # delta == n/2 stays positive (a tie)


def tie_mask(machine: Machine, steps: np.ndarray, dim: int) -> np.ndarray:
    """True where a ring displacement is exactly half the ring: both ways are minimal."""
    n = machine.dims[dim]
    if not machine.wrap[dim] or n % 2:
        return np.zeros(steps.shape, dtype=bool)
    return np.abs(steps) == n // 2


def hop_counts(machine: Machine, src_coords: np.ndarray, dst_coords: np.ndarray) -> np.ndarray:
    """Minimal number of hops of each message (int64, (M,))."""
    total = np.zeros(src_coords.shape[0], dtype=np.int64)
    for k in range(machine.ndim):
        total += np.abs(minimal_steps(machine, src_coords[:, k], dst_coords[:, k], k))
    return total


def split_ties(machine: Machine, traffic: Traffic,
               ties: str = "split") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimal displacement vectors, with half-ring ties split evenly both ways.

    With ``ties="positive"`` a tie always goes the + way instead (a deterministic router's
    choice; the worst case for messages between antipodes).

    Returns
    -------
    index:
        int64 (M',): the message each variant belongs to.
    steps:
        int64 (M', ndim): signed hops per dimension.
    weight:
        float64 (M',): fraction of the message taking this variant (sums to 1 per message).
    """
    index = np.arange(traffic.size, dtype=np.int64)
    steps = np.stack([minimal_steps(machine, traffic.src_coords[:, k], traffic.dst_coords[:, k], k)
                      for k in range(machine.ndim)], axis=1) if traffic.size else \
        np.zeros((0, machine.ndim), dtype=np.int64)
    weight = np.ones(traffic.size, dtype=np.float64)
    if ties not in ("split", "positive"):
        raise ValueError(f"ties: expected 'split' or 'positive', got {ties!r}")
    if ties == "positive":
        return index, steps, weight
    for k in range(machine.ndim):
        tie = tie_mask(machine, steps[:, k], k)
        if not tie.any():
            continue
        # Each tied variant becomes two: one each way round the ring, half the bytes each.
        flipped = steps[tie].copy()
        flipped[:, k] = -flipped[:, k]
        weight[tie] *= 0.5
        index = np.concatenate([index, index[tie]])
        steps = np.concatenate([steps, flipped])
        weight = np.concatenate([weight, weight[tie]])
    return index, steps, weight
