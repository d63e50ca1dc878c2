"""The physical machine a placement lives on: an n-D torus or mesh of nodes with task slots.

A slot is (node coordinates..., core slot). Slots are numbered row-major over
``dims + (tasks_per_node,)``, so consecutive slot numbers fill one node's cores first, then move
along the *last* node dimension (Rubik's default, "TZYX" in Blue Gene terms for a box written
``[X, Y, Z, T]``). That numbering is also the order in which a launcher with no map file places
world ranks (the "default launch").
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _checks
from .partition import Partition, box


@dataclass(frozen=True)
class Machine:
    """An n-D torus or mesh of nodes, each running ``tasks_per_node`` tasks.

    Parameters
    ----------
    dims : tuple of int
        Node extents per dimension (e.g. ``(8, 8, 8)`` for a Blue Gene/L midplane).
    wrap : tuple of bool
        Per dimension, True where the dimension has wrap-around (torus) links.
    tasks_per_node : int
        Task slots per node: 1 for CO-like runs, more for VN-like runs.
    """

    dims: tuple[int, ...]
    wrap: tuple[bool, ...]
    tasks_per_node: int = 1

    def __post_init__(self) -> None:
        dims = tuple(_checks.integer_list("Machine()", "dims", list(self.dims)))
        if not dims:
            raise ValueError("Machine(): dims must list at least one node extent")
        for i, n in enumerate(dims):
            if n <= 0:
                raise ValueError(f"Machine(): dims[{i}] must be a positive node count, got {n}")
        wrap = tuple(bool(w) for w in self.wrap)
        if len(wrap) != len(dims):
            raise ValueError(f"Machine(): wrap has {len(wrap)} entries but dims has {len(dims)}; "
                             f"give one flag per dimension")
        k = _checks.integer("Machine()", "tasks_per_node", self.tasks_per_node)
        if k <= 0:
            raise ValueError(f"Machine(): tasks_per_node must be a positive integer, got {k}")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "wrap", wrap)
        object.__setattr__(self, "tasks_per_node", k)

    @classmethod
    def torus(cls, dims: Sequence[int], tasks_per_node: int = 1) -> "Machine":
        """A machine with wrap-around links in every dimension."""
        return cls(tuple(dims), (True,) * len(dims), tasks_per_node)

    @classmethod
    def mesh(cls, dims: Sequence[int], tasks_per_node: int = 1) -> "Machine":
        """A machine without wrap-around links."""
        return cls(tuple(dims), (False,) * len(dims), tasks_per_node)

    @property
    def ndim(self) -> int:
        """Number of node dimensions (the slot is not counted)."""
        return len(self.dims)

    @property
    def nodes(self) -> int:
        """Number of nodes."""
        return int(np.prod(self.dims, dtype=np.int64))

    @property
    def slots(self) -> int:
        """Number of task slots, ``nodes * tasks_per_node``."""
        return self.nodes * self.tasks_per_node

    @property
    def slot_shape(self) -> tuple[int, ...]:
        """``dims + (tasks_per_node,)``: the shape of :meth:`box`."""
        return self.dims + (self.tasks_per_node,)

    def box(self) -> Partition:
        """A fresh partition tree of the machine's slots, shape ``dims + (tasks_per_node,)``."""
        return box(list(self.slot_shape))

    def slot_index(self, coords: np.ndarray) -> np.ndarray:
        """Row-major slot numbers of slot coordinates (rows of node coords + core slot)."""
        coords = np.asarray(coords, dtype=np.int64).reshape(-1, self.ndim + 1)
        self.check_coords(coords, "coords")
        return np.ravel_multi_index(tuple(coords.T), self.slot_shape).astype(np.int64)

    def slot_coords(self, slots: np.ndarray) -> np.ndarray:
        """Slot coordinates (one row each) of row-major slot numbers."""
        slots = np.asarray(slots, dtype=np.int64).reshape(-1)
        if slots.size and (slots.min() < 0 or slots.max() >= self.slots):
            raise ValueError(f"slot numbers must be in 0..{self.slots - 1}")
        return np.stack(np.unravel_index(slots, self.slot_shape), axis=1).astype(np.int64)

    def node_index(self, coords: np.ndarray) -> np.ndarray:
        """Row-major node numbers of slot or node coordinates (the slot column is ignored)."""
        coords = np.asarray(coords, dtype=np.int64)
        coords = coords.reshape(-1, coords.shape[-1] if coords.ndim else 1)
        return np.ravel_multi_index(tuple(coords[:, : self.ndim].T), self.dims).astype(np.int64)

    def check_coords(self, coords: np.ndarray, name: str) -> None:
        """Raise ValueError unless every row is a valid (node coords..., slot) of this machine."""
        coords = np.asarray(coords)
        if coords.ndim != 2 or coords.shape[1] != self.ndim + 1:
            raise ValueError(f"{name} must have one row per rank with {self.ndim + 1} columns "
                             f"(node coordinates and core slot), got shape {coords.shape}")
        if coords.size == 0:
            return
        low = coords.min(axis=0)
        high = coords.max(axis=0)
        limits = np.array(self.slot_shape)
        if (low < 0).any() or (high >= limits).any():
            raise ValueError(f"{name} has coordinates outside the machine {self.describe()}: "
                             f"columns range {low.tolist()}..{high.tolist()}, limits "
                             f"{(limits - 1).tolist()}")

    def describe(self) -> str:
        """Short text such as ``torus 8x8x8, 2 tasks/node``."""
        kind = ("torus" if all(self.wrap) else "mesh" if not any(self.wrap)
                else "wrap " + "".join("T" if w else "M" for w in self.wrap))
        k = self.tasks_per_node
        return f"{kind} {'x'.join(map(str, self.dims))}, {k} task{'' if k == 1 else 's'}/node"
