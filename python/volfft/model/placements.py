"""[Jagode2008]'s placements and the placement search space, built with :mod:`volfft.mapping`.

The model itself accepts any placement (see :mod:`volfft.model.placement`); this module is the
bridge to the mapping language for the placements the model studies: the default order, rows on
blocks (CO/VN), and tilts of those. Conventions are volfft.mapping's: a task slot is
``(node coords..., core slot)``; the default puts consecutive ranks on consecutive slots (core
slot fastest, then the last network dimension); row ``i`` of a ``p0 x p1`` grid is the ``p1``
positions ``i*p1 .. i*p1+p1-1`` (the first exchange).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from .. import mapping
from .machine import Machine


def mapping_machine(machine: Machine) -> "mapping.Machine":
    """The :class:`volfft.mapping.Machine` with the same dims, wrap and tasks per node."""
    return mapping.Machine(tuple(machine.dims), tuple(machine.wrap), machine.tasks_per_node)


def default_placement(machine: Machine, nranks: int | None = None) -> "mapping.Placement":
    """volfft.mapping's default placement of ``nranks`` tasks (all slots by default) as a slab
    grid ``(nranks, 1)``; only the node of each world rank matters to the model."""
    nranks = machine.tasks if nranks is None else int(nranks)
    if not 1 <= nranks <= machine.tasks:
        raise ValueError(f"nranks: expected 1..{machine.tasks} (task slots of the machine), "
                         f"got {nranks}")
    return mapping.default_placement(mapping_machine(machine), (nranks, 1))


def fft_placement(machine: Machine, grid: Sequence[int],
                  row_block: Sequence[int] | None = None,
                  tilt: tuple[int, int] | None = None) -> "mapping.Placement":
    """[Jagode2008]'s placements: the default order, or rows on blocks of shape ``row_block``.

    Parameters
    ----------
    machine:
        The machine (its dims, wrap and tasks per node are used).
    grid:
        ``(p0, p1)``; rows hold p1 tasks.
    row_block:
        None for the default; else node extents of a row's block, optionally followed by the
        number of cores of each node one row uses (volfft.mapping.rows_on_blocks).
    tilt:
        Optional ``(axis, direction)``: after mapping, tilt the machine's hyperplanes
        ``x_axis = const`` along ``direction`` by slope 1 (Rubik's tilt), turning blocks into
        sheared blocks and lines into diagonals.
    """
    mm = mapping_machine(machine)
    p0, p1 = (int(v) for v in grid)
    if tilt is None:
        if row_block is None:
            return mapping.default_placement(mm, (p0, p1))
        return mapping.rows_on_blocks(mm, (p0, p1), tuple(row_block))
    axis, direction = tilt
    network = mm.box()
    if row_block is not None:
        block = list(row_block)
        nodes = math.prod(block[: machine.ndim])
        cores = block[machine.ndim] if len(block) > machine.ndim else p1 // nodes
        network.tile(block[: machine.ndim] + [cores])
    app = mapping.box([p0, p1])
    if row_block is not None:
        app.tile([1, p1])
    network.map(app)
    network.tilt(int(axis), int(direction), 1)
    base = "default" if row_block is None else "rows on " + "x".join(
        map(str, list(row_block)[: machine.ndim]))
    return mapping.Placement.from_tree(mm, (p0, p1), network,
                                       f"{base} tilt({axis}->{direction})")


@dataclass(frozen=True)
class Candidate:
    """One placement of the search space and how it was built."""

    label: str
    row_block: tuple[int, ...] | None
    tilt: tuple[int, int] | None

    def build(self, machine: Machine, grid: Sequence[int]) -> "mapping.Placement":
        return fft_placement(machine, grid, self.row_block, self.tilt)


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


def candidates(machine: Machine, grid: Sequence[int], tilts: bool = True) -> Iterator[Candidate]:
    """The search space of ``volfft model rank``.

    The default order; rows on every block shape (node extents x cores per node used by a
    row) that tiles the machine's slots and holds exactly p1 tasks (every orientation is a
    separate shape); and, with ``tilts``, each of those tilted once along every ordered pair of
    network dimensions (Rubik's tilt, slope 1), which changes the columns' pattern.
    """
    p0, p1 = (int(v) for v in grid)
    if p0 * p1 != machine.tasks:
        raise ValueError(f"grid: {p0}x{p1} = {p0 * p1} tasks must fill the machine's "
                         f"{machine.tasks} task slots to search placements")
    blocks = divisor_boxes(tuple(machine.dims) + (machine.tasks_per_node,), p1)
    yield Candidate("default", None, None)
    for block in blocks:
        name = "rows on " + "x".join(map(str, block[:-1])) + (
            f" ({block[-1]} cores)" if machine.tasks_per_node > 1 else "")
        yield Candidate(name, block, None)
    if not tilts:
        return
    pairs = [(a, d) for a in range(machine.ndim) for d in range(machine.ndim) if a != d]
    for axis, direction in pairs:
        yield Candidate(f"default tilt({axis}->{direction})", None, (axis, direction))
    for block in blocks:
        for axis, direction in pairs:
            name = "rows on " + "x".join(map(str, block[:-1])) + (
                f" ({block[-1]} cores)" if machine.tasks_per_node > 1 else "")
            yield Candidate(f"{name} tilt({axis}->{direction})", block, (axis, direction))
