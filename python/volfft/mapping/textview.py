"""Plain-text views of trees and placements (2-D as a table; more dimensions as 2-D slices)."""
from __future__ import annotations

import itertools

import numpy as np

from .partition import Partition
from .placement import Placement


def _table(cells: np.ndarray, width: int) -> list[str]:
    """Right-aligned table of a 1-D or 2-D array of strings (rows = dimension 0)."""
    if cells.ndim == 1:
        cells = cells.reshape(1, -1)
    return [" ".join(c.rjust(width) for c in row) for row in cells.tolist()]


def _slices(cells: np.ndarray, names: str) -> list[str]:
    """Tables of the last two dimensions, one per index of the leading ones."""
    # One width for every slice, so that stacked slices line up.
    width = max((len(c) for c in cells.reshape(-1).tolist()), default=1)
    if cells.ndim <= 2:
        return _table(cells, width)
    lines: list[str] = []
    for lead in itertools.product(*[range(n) for n in cells.shape[:-2]]):
        label = ", ".join(f"{names}{d}={v}" for d, v in enumerate(lead))
        lines.append(f"[{label}]")
        lines.extend(_table(cells[lead], width))
    return lines


def text_view(obj: Partition | Placement, groups: str = "rows", what: str = "group") -> str:
    """A text picture of a tree's ranks or of a placement's groups.

    Parameters
    ----------
    obj : Partition or Placement
        A tree: its rank ids are printed, dimension 0 down, the last dimension across (as in
        the 4x4 examples of docs/rubik-semantics.md). A placement: one cell per node of the machine.
    groups : {"rows", "columns"}
        For a placement with ``what="group"``: label each task by its grid row or column index.
    what : {"group", "rank"}
        For a placement: print the group index, or the world rank, of each task; tasks of one
        node are joined by ``/`` (core slot order).

    Returns
    -------
    str
        Lines ending with a newline. Boxes of more than 2 dimensions are shown as 2-D slices
        of the last two dimensions, labelled by the leading coordinates.
    """
    if isinstance(obj, Partition):
        return "\n".join(_slices(obj.box.astype(str), "x")) + "\n"
    if not isinstance(obj, Placement):
        raise TypeError(f"text_view(): obj must be a Partition or a Placement, got "
                        f"{type(obj).__name__}")
    if what not in ("group", "rank"):
        raise ValueError(f"text_view(): what must be 'group' or 'rank', got {what!r}")
    machine = obj.machine
    label = np.full(machine.slot_shape, ".", dtype=object)
    coords = obj.coords()
    if what == "rank":
        values = np.arange(obj.size)
    else:
        members = obj.groups(groups)
        values = np.empty(obj.size, dtype=np.int64)
        for gid, ranks in enumerate(members):
            values[ranks] = gid
    for c, v in zip(coords.tolist(), values.tolist()):
        label[tuple(c)] = str(v)
    node_cells = np.empty(machine.dims, dtype=object)
    for idx in np.ndindex(*machine.dims):
        node_cells[idx] = "/".join(label[idx])
    title = (f"{obj!r}: {'world rank' if what == 'rank' else groups[:-1] + ' index'} per node "
             f"(dimension 0 down, last dimension across)")
    return "\n".join([title] + _slices(node_cells.astype(str), "n")) + "\n"
