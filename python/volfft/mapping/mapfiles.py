"""Map files: writing a placement for a launcher, and reading it back.

Formats (``fmt`` names):

``rubik``
    Rubik's only format, the Blue Gene mapfile: line r = the coordinates of world rank r,
    box-dimension order, single spaces, no header. For a placement the columns are the node
    coordinates then the core slot (``x y z t``).
``mpich``
    Cray MPICH ``MPICH_RANK_ORDER`` (use with ``MPICH_RANK_REORDER_METHOD=3``): world ranks
    listed in the order they are placed on PE slots (node by node in allocation order, cores
    within a node), comma-separated, one line per node.
``openmpi``
    Open MPI rankfile (``mpirun --rankfile FILE``): ``rank r=HOST slot=S``.
``slurm``
    ``SLURM_HOSTFILE`` for ``srun --distribution=arbitrary``: line r = host of world rank r.
    Slurm has no per-rank core here: the ranks of one host take its slots in rank order.
``order``
    volfft's rank order: line g = the world rank that takes virtual grid position g.

Host names: ``hosts[n]`` is the node whose row-major node number is n (the last node
dimension fastest), which is also the allocation order assumed by ``mpich``.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .machine import Machine

if TYPE_CHECKING:
    from .placement import Placement

FORMATS = ("rubik", "mpich", "openmpi", "slurm", "order")


# ---------------------------------------------------------------------- rubik
def format_rubik(coords: np.ndarray) -> str:
    """Rubik map file text: line r = row r of ``coords`` as space-separated integers."""
    coords = np.asarray(coords, dtype=np.int64)
    return "".join(" ".join(str(v) for v in row) + "\n" for row in coords.tolist())


def parse_rubik(text: str) -> np.ndarray:
    """Coordinates per rank from Rubik map file text (blank lines and ``#`` comments skipped).

    Raises
    ------
    ValueError
        A line holds something other than integers, or lines differ in length.
    """
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            rows.append([int(v) for v in line.split()])
        except ValueError:
            raise ValueError(f"rubik map file: line {number} must hold integers, got {line!r}") \
                from None
        if len(rows[-1]) != len(rows[0]):
            raise ValueError(f"rubik map file: line {number} has {len(rows[-1])} coordinates, "
                             f"line 1 has {len(rows[0])}")
    if not rows:
        return np.zeros((0, 0), dtype=np.int64)
    return np.array(rows, dtype=np.int64)


# ---------------------------------------------------------------------- mpich
def format_mpich(coords: np.ndarray, machine: Machine) -> str:
    """``MPICH_RANK_ORDER`` text for world ranks sitting at ``coords`` (one row per rank).

    Raises
    ------
    ValueError
        The ranks do not fill the first P slots: Cray MPICH packs the listed ranks onto PE
        slots in order, so holes in the placement cannot be expressed.
    """
    slots = machine.slot_index(coords)
    count = slots.size
    if not np.array_equal(np.sort(slots), np.arange(count)):
        raise ValueError(f"mpich format: the placement must use exactly the first {count} slots "
                         f"of the machine (MPICH_RANK_ORDER packs ranks onto slots in order and "
                         f"cannot leave holes)")
    by_slot = np.empty(count, dtype=np.int64)
    by_slot[slots] = np.arange(count)
    k = machine.tasks_per_node
    lines = [",".join(str(r) for r in by_slot[s:s + k].tolist()) for s in range(0, count, k)]
    return "\n".join(lines) + "\n"


def parse_mpich(text: str) -> np.ndarray:
    """World ranks in slot order from ``MPICH_RANK_ORDER`` text.

    Accepts commas and line breaks as separators, ranges ``a-b`` and ``#`` comments.
    """
    ranks: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        for item in re.split(r"[,\s]+", line.strip()):
            if not item:
                continue
            if m := re.fullmatch(r"(\d+)-(\d+)", item):
                lo, hi = int(m.group(1)), int(m.group(2))
                step = 1 if hi >= lo else -1
                ranks.extend(range(lo, hi + step, step))
            elif item.isdigit():
                ranks.append(int(item))
            else:
                raise ValueError(f"mpich rank order: line {number}: expected ranks or ranges "
                                 f"like 0-7, got {item!r}")
    return np.array(ranks, dtype=np.int64)


def mpich_coords(ranks_in_slot_order: np.ndarray, machine: Machine) -> np.ndarray:
    """Coordinates per world rank from a list of ranks in slot order."""
    ranks = np.asarray(ranks_in_slot_order, dtype=np.int64)
    count = ranks.size
    if count > machine.slots:
        raise ValueError(f"mpich rank order lists {count} ranks but the machine has "
                         f"{machine.slots} slots")
    if not np.array_equal(np.sort(ranks), np.arange(count)):
        raise ValueError(f"mpich rank order must list each of the ranks 0..{count - 1} once")
    coords = np.empty((count, machine.ndim + 1), dtype=np.int64)
    coords[ranks] = machine.slot_coords(np.arange(count))
    return coords


# ---------------------------------------------------------------------- hosts
def node_hosts(machine: Machine, hosts: Sequence[str] | None, fmt: str) -> list[str]:
    """The first ``machine.nodes`` host names, checked.

    Raises
    ------
    ValueError
        ``hosts`` is missing, too short, or repeats a name.
    """
    if hosts is None:
        raise ValueError(f"{fmt} format: hosts (the allocation's node names, in row-major node "
                         f"order) are required")
    names = [str(h) for h in hosts]
    if len(names) < machine.nodes:
        raise ValueError(f"{fmt} format: hosts has {len(names)} names but the machine has "
                         f"{machine.nodes} nodes")
    names = names[: machine.nodes]
    if len(set(names)) != len(names):
        raise ValueError(f"{fmt} format: hosts repeats a node name; each node needs its own")
    for name in names:
        if not name or any(ch.isspace() for ch in name) or "=" in name:
            raise ValueError(f"{fmt} format: host name {name!r} is empty or contains spaces "
                             f"or '='")
    return names


def _host_index(names: Sequence[str]) -> dict[str, int]:
    return {h: n for n, h in enumerate(names)}


# ---------------------------------------------------------------------- openmpi
def format_openmpi(coords: np.ndarray, machine: Machine, hosts: Sequence[str]) -> str:
    """Open MPI rankfile text: ``rank r=HOST slot=S`` for each world rank r."""
    names = node_hosts(machine, hosts, "openmpi")
    coords = np.asarray(coords, dtype=np.int64)
    machine.check_coords(coords, "openmpi format: coords")
    nodes = machine.node_index(coords)
    return "".join(f"rank {r}={names[n]} slot={s}\n"
                   for r, (n, s) in enumerate(zip(nodes.tolist(), coords[:, -1].tolist())))


_RANKFILE_LINE = re.compile(r"rank\s+(\d+)\s*=\s*(\S+)\s+slot\s*=\s*(\S+)\s*")


def parse_openmpi(text: str, machine: Machine, hosts: Sequence[str]) -> np.ndarray:
    """Coordinates per world rank from an Open MPI rankfile written by :func:`format_openmpi`.

    Only plain integer slots are understood (``slot=3``); socket:core forms raise ValueError.
    """
    index = _host_index(node_hosts(machine, hosts, "openmpi"))
    entries: dict[int, tuple[int, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = _RANKFILE_LINE.fullmatch(line)
        if not m:
            raise ValueError(f"openmpi rankfile: line {number}: expected 'rank R=HOST slot=S', "
                             f"got {line!r}")
        rank, host, slot = int(m.group(1)), m.group(2), m.group(3)
        if host not in index:
            raise ValueError(f"openmpi rankfile: line {number}: host {host!r} is not in hosts")
        if not slot.isdigit():
            raise ValueError(f"openmpi rankfile: line {number}: only integer slots are "
                             f"understood, got slot={slot}")
        if rank in entries:
            raise ValueError(f"openmpi rankfile: line {number}: rank {rank} appears twice")
        entries[rank] = (index[host], int(slot))
    count = len(entries)
    if sorted(entries) != list(range(count)):
        raise ValueError(f"openmpi rankfile: ranks must be 0..{count - 1}, each once")
    coords = np.empty((count, machine.ndim + 1), dtype=np.int64)
    for rank, (node, slot) in entries.items():
        coords[rank, :-1] = np.unravel_index(node, machine.dims)
        coords[rank, -1] = slot
    machine.check_coords(coords, "openmpi rankfile")
    return coords


# ---------------------------------------------------------------------- slurm
def format_slurm(coords: np.ndarray, machine: Machine, hosts: Sequence[str]) -> str:
    """``SLURM_HOSTFILE`` text: line r = host of world rank r."""
    names = node_hosts(machine, hosts, "slurm")
    coords = np.asarray(coords, dtype=np.int64)
    machine.check_coords(coords, "slurm format: coords")
    return "".join(names[n] + "\n" for n in machine.node_index(coords).tolist())


def parse_slurm(text: str, machine: Machine, hosts: Sequence[str]) -> np.ndarray:
    """Coordinates per world rank from a ``SLURM_HOSTFILE``.

    The core slot of each rank is its position among the ranks on the same host (the only
    information the file carries).
    """
    index = _host_index(node_hosts(machine, hosts, "slurm"))
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    coords = np.empty((len(lines), machine.ndim + 1), dtype=np.int64)
    used: dict[int, int] = {}
    for rank, host in enumerate(lines):
        if host not in index:
            raise ValueError(f"slurm host file: rank {rank}: host {host!r} is not in hosts")
        node = index[host]
        slot = used.get(node, 0)
        used[node] = slot + 1
        coords[rank, :-1] = np.unravel_index(node, machine.dims)
        coords[rank, -1] = slot
    machine.check_coords(coords, "slurm host file (more ranks on a host than tasks per node?)")
    return coords


# ---------------------------------------------------------------------- order
def format_order(order: np.ndarray) -> str:
    """volfft rank order text: line g = world rank taking grid position g."""
    return "".join(f"{int(r)}\n" for r in np.asarray(order).reshape(-1).tolist())


def parse_order(text: str) -> np.ndarray:
    """Rank order from text: integers separated by white space, ``#`` comments skipped."""
    values: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for item in line.split("#", 1)[0].split():
            if not re.fullmatch(r"\d+", item):
                raise ValueError(f"rank order: line {number}: expected a non-negative integer, "
                                 f"got {item!r}")
            values.append(int(item))
    order = np.array(values, dtype=np.int64)
    if not np.array_equal(np.sort(order), np.arange(order.size)):
        raise ValueError(f"rank order: must be a permutation of 0..{order.size - 1}")
    return order


# ---------------------------------------------------------------------- placements
def format_placement(placement: "Placement", fmt: str, hosts: Sequence[str] | None = None) -> str:
    """Map-file text of ``placement`` in format ``fmt`` (see the module docstring)."""
    machine = placement.machine
    if fmt == "rubik":
        return format_rubik(placement.coords())
    if fmt == "mpich":
        return format_mpich(placement.coords(), machine)
    if fmt == "openmpi":
        return format_openmpi(placement.coords(), machine, node_hosts(machine, hosts, fmt))
    if fmt == "slurm":
        return format_slurm(placement.coords(), machine, node_hosts(machine, hosts, fmt))
    if fmt == "order":
        return format_order(placement.rank_order())
    raise ValueError(f"map file: fmt must be one of {', '.join(FORMATS)}, got {fmt!r}")


def parse_placement(text: str, fmt: str, machine: Machine, grid: Sequence[int],
                    hosts: Sequence[str] | None = None, name: str = "") -> "Placement":
    """Read a placement back from map-file text.

    For ``rubik``, ``mpich``, ``openmpi`` and ``slurm`` the file gives where each world rank
    sits, and world rank g is taken to be grid position g (the launcher realises the
    placement). For ``order`` the file gives the rank order, and the ranks are taken to sit
    where the default launch puts them.
    """
    from .placement import Placement

    if fmt == "rubik":
        coords = parse_rubik(text)
    elif fmt == "mpich":
        coords = mpich_coords(parse_mpich(text), machine)
    elif fmt == "openmpi":
        coords = parse_openmpi(text, machine, node_hosts(machine, hosts, fmt))
    elif fmt == "slurm":
        coords = parse_slurm(text, machine, node_hosts(machine, hosts, fmt))
    elif fmt == "order":
        return Placement.from_rank_order(machine, grid, parse_order(text), name)
    else:
        raise ValueError(f"map file: fmt must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return Placement.from_coords(machine, grid, coords, None, name)
