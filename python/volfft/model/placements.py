"""Small local builders for seed 000's placements, used until/unless volfft.mapping provides them.

These are deliberately minimal: the default order, rows on blocks (CO/VN), and tilts of a
placement. :mod:`volfft.mapping` is the full Rubik-style language; the model accepts its
placement objects directly (see :func:`volfft.model.placement.resolve_placement`), and
:func:`fft_placement` prefers it when it is importable and offers the same construction.

Conventions (shared with volfft.mapping): a task slot is ``(node coords..., core slot)``;
"default" puts consecutive world ranks on consecutive slots in C order over
``dims + (tasks_per_node,)`` (core slot fastest, then the last network dimension), which is
Rubik's default and Blue Gene's TXYZ order. Virtual rank ``g = i * p1 + j`` is world rank ``g``.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .machine import Machine
from .placement import ArrayPlacement


def _slot_shape(machine: Machine) -> tuple[int, ...]:
    return tuple(machine.dims) + (machine.tasks_per_node,)


def default_placement(machine: Machine, nranks: int | None = None) -> ArrayPlacement:
    """Consecutive ranks on consecutive task slots (core slot fastest, then last dimension).

    Parameters
    ----------
    machine:
        Machine to fill.
    nranks:
        Number of ranks; defaults to all task slots. Fewer ranks take the first slots.
    """
    nranks = machine.tasks if nranks is None else int(nranks)
    if not 1 <= nranks <= machine.tasks:
        raise ValueError(f"nranks: expected 1..{machine.tasks} (task slots of the machine), "
                         f"got {nranks}")
    slots = np.stack(np.unravel_index(np.arange(nranks), _slot_shape(machine)), axis=1)
    return ArrayPlacement(node_coords=slots.astype(np.int64), label="default")


def block_placement(machine: Machine, grid: Sequence[int], block: Sequence[int],
                    label: str | None = None) -> ArrayPlacement:
    """Seed 000's "rows on blocks": each grid row (p1 tasks) fills one block of task slots.

    Blocks of shape ``block`` (one extent per network dimension, plus optionally the number
    of core slots used, default 1) tile the machine's task slots; row ``i`` takes block ``i``
    (blocks in C order), member ``j`` of a row sits at the ``j``-th slot of its block (C order),
    so column ``j`` is the complementary pattern: the same relative slot in every block.

    Raises
    ------
    ValueError
        If the block does not hold exactly p1 tasks, does not divide the machine, or the grid
        does not fill the machine.
    """
    p0, p1 = (int(v) for v in grid)
    block = tuple(int(b) for b in block)
    if len(block) == machine.ndim:
        block = block + (1,)
    if len(block) != machine.ndim + 1:
        raise ValueError(f"block: expected {machine.ndim} extents (or {machine.ndim + 1} with the "
                         f"core-slot extent), got {len(block)}")
    shape = _slot_shape(machine)
    if any(b < 1 or s % b for b, s in zip(block, shape)):
        raise ValueError(f"block: extents {list(block)} must divide the task slots "
                         f"{list(shape)} (dims + tasks per node)")
    if math.prod(block) != p1:
        raise ValueError(f"block: a block of shape {list(block)} holds {math.prod(block)} tasks, "
                         f"but a grid row has p1={p1}")
    if p0 * p1 != machine.tasks:
        raise ValueError(f"grid: {p0}x{p1} = {p0 * p1} tasks do not fill the machine's "
                         f"{machine.tasks} task slots")
    blocks_per_dim = tuple(s // b for s, b in zip(shape, block))
    origin = np.stack(np.unravel_index(np.arange(p0), blocks_per_dim), axis=1) * np.asarray(block)
    offset = np.stack(np.unravel_index(np.arange(p1), block), axis=1)
    slots = (origin[:, None, :] + offset[None, :, :]).reshape(p0 * p1, len(shape))
    name = label or "rows on " + "x".join(map(str, block[:-1])) + (
        f"x{block[-1]}slots" if block[-1] > 1 else "")
    return ArrayPlacement(node_coords=slots.astype(np.int64), label=name)


def tilt_placement(placement: Any, machine: Machine, axis: int, along: int,
                   magnitude: int = 1) -> ArrayPlacement:
    """Shear a placement: the node at coordinate ``c`` on ``axis`` moves ``magnitude * c``
    along ``along`` (modulo the machine extent). Like Rubik's tilt applied to the whole torus,
    it keeps every node used exactly once but turns lines into diagonals.
    """
    if not (0 <= axis < machine.ndim and 0 <= along < machine.ndim) or axis == along:
        raise ValueError(f"axis/along: expected two different dimensions in 0..{machine.ndim - 1}, "
                         f"got {axis} and {along}")
    coords = np.array(placement.coords(), dtype=np.int64, copy=True)
    coords[:, along] = (coords[:, along] + magnitude * coords[:, axis]) % machine.dims[along]
    order = placement.rank_order() if hasattr(placement, "rank_order") else None
    base = getattr(placement, "label", "") or "placement"
    return ArrayPlacement(node_coords=coords, order=order,
                          label=f"{base} tilt({axis}->{along},{magnitude})")


def divisor_boxes(shape: Sequence[int], volume: int) -> list[tuple[int, ...]]:
    """All boxes (one extent per entry of ``shape``, each dividing it) holding ``volume`` cells."""
    shape = tuple(int(s) for s in shape)
    options = [[d for d in range(1, s + 1) if s % d == 0] for s in shape]
    boxes: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], remaining: int) -> None:
        k = len(prefix)
        if k == len(shape):
            if remaining == 1:
                boxes.append(prefix)
            return
        for d in options[k]:
            if remaining % d == 0:
                extend(prefix + (d,), remaining // d)

    extend((), int(volume))
    return boxes
