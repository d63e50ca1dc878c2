"""Where each virtual grid position sits on the network, as the model needs it.

The model accepts either a placement object from :mod:`volfft.mapping` (duck-typed: anything
with ``coords()`` and optionally ``rank_order()``) or plain arrays. A placement, for the model,
is the node coordinate of every world rank; ranks that share a node coordinate exchange data
through memory, not links. ``rank_order()[g]`` is the world rank at virtual grid position
``g = i * p1 + j`` (identity when absent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .machine import Machine


@dataclass(frozen=True)
class ArrayPlacement:
    """A placement given as arrays: node coordinates per world rank and a rank order.

    Parameters
    ----------
    node_coords:
        int array (P, ndim): the node of each world rank.
    order:
        int array (P,): ``order[g]`` is the world rank at virtual position ``g``; None means
        the identity.
    label:
        Name shown in tables.
    """

    node_coords: np.ndarray
    order: np.ndarray | None = None
    label: str = ""

    def coords(self) -> np.ndarray:
        """Node coordinates, one row per world rank."""
        return self.node_coords

    def rank_order(self) -> np.ndarray:
        """World rank at each virtual grid position."""
        if self.order is None:
            return np.arange(len(self.node_coords), dtype=np.int64)
        return self.order


@dataclass(frozen=True)
class ResolvedPlacement:
    """A placement checked against a machine, indexed by virtual rank.

    Attributes
    ----------
    node_coords:
        int64 (P, ndim): node coordinate of the task at each *virtual* rank.
    node_index:
        int64 (P,): C-order linear index of that node.
    """

    node_coords: np.ndarray
    node_index: np.ndarray

    @property
    def size(self) -> int:
        return int(self.node_index.shape[0])


def resolve_placement(placement: Any, machine: Machine, nranks: int) -> ResolvedPlacement:
    """Turn a placement (mapping object, :class:`ArrayPlacement` or array) into node coords.

    Parameters
    ----------
    placement:
        An object with ``coords()`` (and optionally ``rank_order()``), or an int array of shape
        (P, ndim) or (P, ndim + 1) (the extra last column, a core slot, is ignored), or None for
        the default placement (consecutive ranks fill a node's slots first, then the last
        network dimension, as Rubik's and Blue Gene's default order does).
    machine:
        The machine whose dims bound the coordinates.
    nranks:
        Number of ranks of the plan (P = p0 * p1).
    """
    if placement is None:
        from .placements import default_placement

        placement = default_placement(machine, nranks)
    if hasattr(placement, "coords"):
        coords = np.asarray(placement.coords())
        order = (np.asarray(placement.rank_order(), dtype=np.int64)
                 if hasattr(placement, "rank_order") else None)
    else:
        coords = np.asarray(placement)
        order = None
    if coords.ndim != 2 or not np.issubdtype(coords.dtype, np.integer):
        raise TypeError(f"placement: expected integer coordinates of shape (P, {machine.ndim}) "
                        f"or (P, {machine.ndim + 1}), got array of shape {coords.shape} "
                        f"and dtype {coords.dtype}")
    if coords.shape[1] == machine.ndim + 1:
        coords = coords[:, :machine.ndim]  # drop the core slot: it does not touch links
    elif coords.shape[1] != machine.ndim:
        raise ValueError(f"placement: expected {machine.ndim} (or {machine.ndim + 1} with a core "
                         f"slot) coordinates per rank for a {machine.ndim}-D machine, got "
                         f"{coords.shape[1]}")
    if coords.shape[0] != nranks:
        raise ValueError(f"placement: expected coordinates for {nranks} ranks (the plan's grid), "
                         f"got {coords.shape[0]}")
    dims = np.asarray(machine.dims)
    if np.any(coords < 0) or np.any(coords >= dims):
        bad = int(np.argmax(np.any((coords < 0) | (coords >= dims), axis=1)))
        raise ValueError(f"placement: rank {bad} has coordinates {coords[bad].tolist()} outside "
                         f"the machine {list(machine.dims)}")
    if order is None:
        order = np.arange(nranks, dtype=np.int64)
    if order.shape != (nranks,) or not np.array_equal(np.sort(order), np.arange(nranks)):
        raise ValueError(f"placement: rank_order() must be a permutation of 0..{nranks - 1}")
    node_coords = coords[order].astype(np.int64)
    node_index = np.ravel_multi_index(tuple(node_coords.T), machine.dims).astype(np.int64)
    return ResolvedPlacement(node_coords=node_coords, node_index=node_index)
