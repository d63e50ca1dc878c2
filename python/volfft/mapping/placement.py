"""Placement: where each position of a p0 x p1 process grid sits on a machine, and which world
rank takes it.

Two arrays define a placement of ``P = p0 * p1`` tasks:

* ``grid_coords[g]``: the slot (node coordinates + core slot) of virtual grid position
  ``g = i * p1 + j`` (row-major over the grid; row i = the p1 positions sharing i);
* ``order[g]``: the world rank that takes position g (the *rank order*).

World rank r therefore sits at ``coords()[r]``, and map-file line r describes world rank r.
A placement can be realised in two ways, both described by the same object:

* by the launcher: give it a map file; then world rank r *is* grid position r
  (``order`` is the identity, what :func:`from_tree` and the FFT placements build);
* by volfft at plan time: launch with the launcher's default order and let the plan hand grid
  position g to world rank ``order[g]`` (see :meth:`Placement.for_launch`).

Stable accessors for other layers: :meth:`Placement.rank_order` (the C++ plan) and
:meth:`Placement.coords` (the performance model).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO

import numpy as np

from . import _checks
from . import mapfiles
from .machine import Machine
from .partition import Partition


def _grid(grid: Sequence[int]) -> tuple[int, int]:
    return _checks.grid_pair("Placement", grid)


class Placement:
    """A p0 x p1 process grid placed on a :class:`Machine`.

    Parameters
    ----------
    machine : Machine
        The torus or mesh, with its tasks per node.
    grid : (int, int)
        The process grid ``(p0, p1)``; a grid row is the p1 positions sharing row index i.
    grid_coords : array_like, shape (p0*p1, machine.ndim + 1)
        Slot of each grid position ``g = i * p1 + j``: node coordinates, then core slot.
    order : array_like of int, optional
        ``order[g]`` = world rank taking position g; a permutation of ``0..P-1``.
        Default: the identity (the launcher places ranks with a map file).
    name : str, optional
        A label for pictures and reports.

    Raises
    ------
    ValueError
        Wrong shapes, coordinates outside the machine, two positions on one slot, or an order
        that is not a permutation.
    """

    def __init__(self, machine: Machine, grid: Sequence[int], grid_coords: np.ndarray,
                 order: np.ndarray | Sequence[int] | None = None, name: str = "") -> None:
        if not isinstance(machine, Machine):
            raise TypeError(f"Placement: machine must be a volfft.mapping.Machine, got "
                            f"{type(machine).__name__}")
        p0, p1 = _grid(grid)
        count = p0 * p1
        coords = np.array(grid_coords, dtype=np.int64)
        if coords.shape != (count, machine.ndim + 1):
            raise ValueError(f"Placement: grid_coords must have shape ({count}, "
                             f"{machine.ndim + 1}) for grid {p0}x{p1} on a {machine.ndim}-D "
                             f"machine, got {coords.shape}")
        machine.check_coords(coords, "Placement: grid_coords")
        slots = machine.slot_index(coords)
        if np.unique(slots).size != count:
            dup = _first_duplicate(slots)
            raise ValueError(f"Placement: grid_coords puts two grid positions on the same slot "
                             f"{machine.slot_coords(np.array([dup]))[0].tolist()}")
        rank_order = np.arange(count, dtype=np.int64) if order is None else np.array(
            order, dtype=np.int64).reshape(-1)
        if rank_order.size != count or not np.array_equal(np.sort(rank_order),
                                                          np.arange(count)):
            raise ValueError(f"Placement: order must be a permutation of 0..{count - 1} "
                             f"(one world rank per grid position)")
        self.machine = machine
        self.grid = (p0, p1)
        self.name = name
        self._grid_coords = coords
        self._order = rank_order

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_tree(cls, machine: Machine, grid: Sequence[int], tree: Partition,
                  name: str = "") -> "Placement":
        """The placement written in a mapped partition tree (a Rubik ``torus`` after ``map``).

        Parameters
        ----------
        machine : Machine
        grid : (int, int)
        tree : Partition
            Root of shape ``machine.dims + (tasks_per_node,)`` (or ``machine.dims`` when there
            is one task per node) whose element list holds ranks ``0..p0*p1-1``. Element (app
            rank) g is taken to be grid position g, as an application using
            ``MPI_Cart_create`` without reordering sees it.
        """
        if not isinstance(tree, Partition):
            raise TypeError(f"from_tree(): tree must be a Partition, got {type(tree).__name__}")
        shape = tree.shape
        if shape != machine.slot_shape and not (machine.tasks_per_node == 1
                                                  and shape == machine.dims):
            raise ValueError(f"from_tree(): the tree's shape {shape} must be the machine's "
                             f"{machine.slot_shape} (node dims + tasks per node)")
        p0, p1 = _grid(grid)
        elements = tree.elements
        if not np.array_equal(np.sort(elements), np.arange(p0 * p1)):
            raise ValueError(f"from_tree(): the tree holds {elements.size} ranks but grid "
                             f"{p0}x{p1} needs ranks 0..{p0 * p1 - 1}; map an app box of that "
                             f"size onto it")
        coords = tree.element_coords()
        if coords.shape[1] == machine.ndim:
            coords = np.hstack([coords, np.zeros((coords.shape[0], 1), dtype=np.int64)])
        grid_coords = np.empty_like(coords)
        grid_coords[elements] = coords
        return cls(machine, (p0, p1), grid_coords, None, name)

    @classmethod
    def from_coords(cls, machine: Machine, grid: Sequence[int], coords: np.ndarray,
                    order: np.ndarray | Sequence[int] | None = None,
                    name: str = "") -> "Placement":
        """Build from the coordinates of each *world rank* (e.g. a map file read back).

        Parameters
        ----------
        coords : array_like, shape (P, ndim + 1) or (P, ndim)
            Row r = slot of world rank r (a missing slot column means slot 0).
        order : array_like of int, optional
            ``order[g]`` = world rank at grid position g (default identity).
        """
        c = np.array(coords, dtype=np.int64)
        if c.ndim == 2 and c.shape[1] == machine.ndim:
            c = np.hstack([c, np.zeros((c.shape[0], 1), dtype=np.int64)])
        p0, p1 = _grid(grid)
        if c.ndim != 2 or c.shape[0] != p0 * p1:
            raise ValueError(f"from_coords(): coords must have one row per rank ({p0 * p1}), "
                             f"got shape {c.shape}")
        rank_order = np.arange(p0 * p1) if order is None else np.asarray(order, dtype=np.int64)
        if rank_order.shape != (p0 * p1,) or not np.array_equal(np.sort(rank_order),
                                                              np.arange(p0 * p1)):
            raise ValueError(f"from_coords(): order must be a permutation of 0..{p0 * p1 - 1}")
        if c.shape[1] != machine.ndim + 1:
            raise ValueError(f"from_coords(): coords must have {machine.ndim + 1} columns, got "
                             f"{c.shape[1]}")
        return cls(machine, (p0, p1), c[rank_order], rank_order, name)

    @classmethod
    def from_rank_order(cls, machine: Machine, grid: Sequence[int],
                        order: np.ndarray | Sequence[int], name: str = "") -> "Placement":
        """The placement a rank order gives under the default launch.

        World rank r sits on slot r (row-major, cores fastest), and grid position g is taken
        by world rank ``order[g]``.
        """
        p0, p1 = _grid(grid)
        if p0 * p1 > machine.slots:
            raise ValueError(f"from_rank_order(): grid {p0}x{p1} needs {p0 * p1} slots, the "
                             f"machine has {machine.slots}")
        launch = machine.slot_coords(np.arange(p0 * p1))
        return cls.from_coords(machine, (p0, p1), launch, order, name)

    # ------------------------------------------------------------------ stable accessors
    @property
    def size(self) -> int:
        """Number of tasks, ``p0 * p1``."""
        return self.grid[0] * self.grid[1]

    def rank_order(self) -> np.ndarray:
        """``order[g]`` = the world rank taking virtual grid position ``g = i * p1 + j``.

        This is what the C++ plan takes (MPI_Comm_split keys). Returns a new int64 array.
        """
        return self._order.copy()

    def coords(self) -> np.ndarray:
        """Slot of each world rank: row r = (node coordinates..., core slot) of world rank r.

        This is what the performance model takes, and what map-file line r says.
        Returns a new int64 array of shape ``(P, machine.ndim + 1)``.
        """
        out = np.empty_like(self._grid_coords)
        out[self._order] = self._grid_coords
        return out

    def grid_coords(self) -> np.ndarray:
        """Slot of each grid position g (row g), a new array."""
        return self._grid_coords.copy()

    def rows(self) -> list[list[int]]:
        """World ranks of each grid row (row i: positions ``i*p1 .. i*p1 + p1 - 1``)."""
        p0, p1 = self.grid
        return self._order.reshape(p0, p1).tolist()

    def columns(self) -> list[list[int]]:
        """World ranks of each grid column (column j: positions ``j, p1 + j, ...``)."""
        p0, p1 = self.grid
        return self._order.reshape(p0, p1).T.tolist()

    def groups(self, which: str) -> list[list[int]]:
        """``rows()`` or ``columns()`` by name (``"rows"`` / ``"columns"``)."""
        if which == "rows":
            return self.rows()
        if which == "columns":
            return self.columns()
        raise ValueError(f"groups(): which must be 'rows' or 'columns', got {which!r}")

    # ------------------------------------------------------------------ realisations
    def for_launch(self, launch_coords: np.ndarray | None = None) -> "Placement":
        """The same layout, realised by reordering ranks after a launch that fixed where they sit.

        Parameters
        ----------
        launch_coords : array_like, optional
            Row r = slot where the launcher put world rank r. Default: the default launch
            (world rank r on slot r, row-major, cores fastest).

        Returns
        -------
        Placement
            Same :meth:`grid_coords`; ``rank_order()[g]`` is the world rank the launch put on
            grid position g's slot. Hand that order to the plan instead of a map file.
        """
        if launch_coords is None:
            if self.size > self.machine.slots:
                raise ValueError("for_launch(): more tasks than slots")
            launch = self.machine.slot_coords(np.arange(self.size))
        else:
            launch = np.asarray(launch_coords, dtype=np.int64)
            if launch.shape != (self.size, self.machine.ndim + 1):
                raise ValueError(f"for_launch(): launch_coords must have shape "
                                 f"({self.size}, {self.machine.ndim + 1}), got {launch.shape}")
        where = {s: r for r, s in enumerate(self.machine.slot_index(launch).tolist())}
        wanted = self.machine.slot_index(self._grid_coords).tolist()
        missing = [s for s in wanted if s not in where]
        if missing:
            raise ValueError(f"for_launch(): the launch leaves slot "
                             f"{self.machine.slot_coords(np.array(missing[:1]))[0].tolist()} "
                             f"empty, but the placement uses it")
        order = np.array([where[s] for s in wanted], dtype=np.int64)
        return Placement(self.machine, self.grid, self._grid_coords, order, self.name)

    def same_layout(self, other: "Placement") -> bool:
        """True when both put every grid position on the same slot (orders may differ)."""
        return (self.machine == other.machine and self.grid == other.grid
                and np.array_equal(self._grid_coords, other._grid_coords))

    # ------------------------------------------------------------------ map files
    def map_file(self, fmt: str = "rubik", hosts: Sequence[str] | None = None) -> str:
        """The text of a map file for this placement.

        Parameters
        ----------
        fmt : {"rubik", "mpich", "openmpi", "slurm", "order"}
            ``rubik``: line r = slot coordinates of world rank r (Rubik / Blue Gene mapfile).
            ``mpich``: Cray ``MPICH_RANK_ORDER`` (ranks listed in slot order, one line a node).
            ``openmpi``: rankfile lines ``rank r=HOST slot=S``.
            ``slurm``: ``SLURM_HOSTFILE`` for ``srun --distribution=arbitrary``, line r = host
            of rank r.
            ``order``: volfft rank order, line g = world rank taking grid position g.
        hosts : sequence of str, optional
            Node names in row-major node order (required for ``openmpi`` and ``slurm``).
        """
        return mapfiles.format_placement(self, fmt, hosts)

    def write(self, stream: IO[str] | str | os.PathLike[str], fmt: str = "rubik",
              hosts: Sequence[str] | None = None) -> None:
        """Write :meth:`map_file` to a path or an open text stream."""
        text = self.map_file(fmt, hosts)
        if isinstance(stream, (str, os.PathLike)):
            with open(stream, "w", encoding="ascii") as handle:
                handle.write(text)
        else:
            stream.write(text)

    def __repr__(self) -> str:
        p0, p1 = self.grid
        label = f" {self.name!r}" if self.name else ""
        return f"<Placement{label} grid {p0}x{p1} on {self.machine.describe()}>"


def _first_duplicate(values: np.ndarray) -> int:
    seen: set[int] = set()
    for v in values.tolist():
        if v in seen:
            return v
        seen.add(v)
    raise AssertionError("no duplicate")  # only called after a duplicate was detected
