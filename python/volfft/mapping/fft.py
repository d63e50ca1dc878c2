"""Placements of a pencil FFT's p0 x p1 process grid ([Jagode2008], sections 4 and 7.1), one call each.

Grid convention: row i is the p1 positions ``g = i*p1 .. i*p1 + p1 - 1`` (the first exchange,
inside rows); column j is the p0 positions ``j, p1 + j, ...``. [Jagode2008] labels its grids by
*row size* first: its "Pr x Pc = 8 x 64" with 8-member rows on 2x2x2 cubes is our grid
``(64, 8)`` with ``row_block=(2, 2, 2)``, and its "64 x 8" with 64-cubes is our ``(8, 64)``
with ``row_block=(4, 4, 4)``.

Both constructions are written in the mapping language (an app box mapped onto the machine's
box), so they are Rubik mappings too.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _checks
from .machine import Machine
from .partition import box
from .placement import Placement


def default_placement(machine: Machine, grid: Sequence[int], name: str = "default") -> Placement:
    """Consecutive ranks on consecutive slots: cores of a node first, then along the last node
    dimension, then the next (lines, then planes, of the torus).

    Grid position g sits on slot g (row-major over ``dims + (tasks_per_node,)``), and world
    rank g takes it. With one task per node on an 8x8x8 torus, rows of 8 are lines along the
    last dimension and rows of 64 are planes of the last two.

    Parameters
    ----------
    machine : Machine
    grid : (int, int)
        ``p0 * p1`` must not exceed ``machine.slots``; a smaller grid uses the first slots.
    name : str
        Label for pictures and reports.
    """
    p0, p1 = _checks.grid_pair("placement", grid)
    if p0 * p1 > machine.slots:
        raise ValueError(f"default_placement(): grid {p0}x{p1} needs {p0 * p1} slots but the "
                         f"machine ({machine.describe()}) has {machine.slots}")
    if p0 * p1 == machine.slots:
        network = machine.box()
        network.map(box([p0, p1]))
        return Placement.from_tree(machine, (p0, p1), network, name)
    # A partly used machine: Rubik cannot map unequal sizes, so take the first slots directly.
    return Placement(machine, (p0, p1), machine.slot_coords(np.arange(p0 * p1)), None, name)


def rows_on_blocks(machine: Machine, grid: Sequence[int], row_block: Sequence[int],
                   name: str = "") -> Placement:
    """Each grid row on a sub-box of nodes of shape ``row_block``; blocks tile the machine.

    The blocks are the tiles of the machine box (row-major over tile index, so consecutive
    rows go to consecutive blocks); inside a block, a row's p1 ranks fill the block's slots in
    row-major order. Column j is therefore member j of every block: the complementary
    pattern of [Jagode2008], spread with period ``row_block`` over the whole machine.

    With several tasks per node (VN-like), a row uses ``c = p1 / prod(row_block)`` cores of
    each node of its block, and ``tasks_per_node / c`` rows share a block, on successive core
    groups ([Jagode2008]'s 8 x 128 VN case: two rows of 8 on one 2x2x2 cube).

    Parameters
    ----------
    machine : Machine
    grid : (int, int)
        ``p0 * p1`` must equal ``machine.slots``.
    row_block : sequence of int
        Node extents of a row's block, one per machine dimension (each must divide the
        machine's extent). A final extra entry, if given, is the number of cores c of each node
        that one row uses.
    name : str
        Label; default ``"rows on AxBxC"``.

    Raises
    ------
    ValueError
        The grid does not fill the machine, the block does not tile it, or a row does not fit
        its block exactly.
    """
    p0, p1 = _checks.grid_pair("placement", grid)
    block = _checks.integer_list("rows_on_blocks()", "row_block", row_block)
    nd, k = machine.ndim, machine.tasks_per_node
    if len(block) not in (nd, nd + 1):
        raise ValueError(f"rows_on_blocks(): row_block must have {nd} node extents (or {nd + 1} "
                         f"with cores per row last) for a {nd}-D machine, got {block}")
    for i, (b, n) in enumerate(zip(block, machine.dims)):
        if b <= 0 or n % b:
            raise ValueError(f"rows_on_blocks(): row_block[{i}] = {b} must be a positive divisor "
                             f"of the machine extent {n}")
    if p0 * p1 != machine.slots:
        raise ValueError(f"rows_on_blocks(): grid {p0}x{p1} has {p0 * p1} tasks but the machine "
                         f"({machine.describe()}) has {machine.slots} slots; the blocks must fill "
                         f"it")
    block_nodes = int(np.prod(block[:nd]))
    if len(block) == nd + 1:
        cores = block[nd]
        if cores <= 0 or k % cores:
            raise ValueError(f"rows_on_blocks(): cores per row (row_block[{nd}] = {cores}) must "
                             f"divide tasks_per_node = {k}")
    else:
        if p1 % block_nodes:
            raise ValueError(f"rows_on_blocks(): a row of p1 = {p1} tasks does not fit a block of "
                             f"{block_nodes} nodes; p1 must be block nodes x cores used per node")
        cores = p1 // block_nodes
        if cores > k or k % cores:
            raise ValueError(f"rows_on_blocks(): a row of p1 = {p1} tasks on {block_nodes} nodes "
                             f"needs {cores} cores per node, which must divide tasks_per_node = "
                             f"{k}")
    if block_nodes * cores != p1:
        raise ValueError(f"rows_on_blocks(): a block holds {block_nodes} nodes x {cores} cores = "
                         f"{block_nodes * cores} tasks, but a row has p1 = {p1}")
    app = box([p0, p1])
    app.tile([1, p1])  # one leaf per grid row
    network = machine.box()
    network.tile(block[:nd] + [cores])  # one leaf per (block, core group)
    network.map(app)
    label = name or "rows on " + "x".join(map(str, block[:nd]))
    return Placement.from_tree(machine, (p0, p1), network, label)
