"""Pictures of placements and trees: a 3-D box of nodes coloured by group, to PNG.

As in [Bhatele2012]'s figures, each group (a grid row or column, or a tree leaf) gets its own
colour, and inside a group the members are shaded from light (first) to dark (last). [Jagode2008]
draws one basic image and lets the reader imagine the displaced copies; ``highlight`` does the
same by drawing only the chosen groups in colour and the rest as faint grey dots.

matplotlib is imported here only, with the Agg backend, so the rest of volfft.mapping works
without it and no display is needed.
"""
from __future__ import annotations

import colorsys
import os
from collections.abc import Sequence

import numpy as np

from .partition import Partition
from .placement import Placement


def group_colours(count: int) -> np.ndarray:
    """``count`` distinct RGB colours (golden-ratio hue steps, two brightness levels)."""
    colours = []
    for g in range(count):
        hue = (g * 0.618033988749895) % 1.0
        value = 0.95 if g % 2 == 0 else 0.7
        colours.append(colorsys.hsv_to_rgb(hue, 0.85, value))
    return np.array(colours).reshape(count, 3)


def _shaded(base: np.ndarray, member: np.ndarray, size: np.ndarray) -> np.ndarray:
    # Lightest for the first member of a group, the pure colour for the last one.
    t = np.where(size > 1, member / np.maximum(size - 1, 1), 1.0)
    strength = 0.3 + 0.7 * t
    return 1.0 - strength[:, None] * (1.0 - base)


def _positions(coords: np.ndarray, ndim: int, slots: int) -> np.ndarray:
    """3-D points for slot coordinates: node coordinates plus a small offset per core slot."""
    nodes = np.zeros((coords.shape[0], 3))
    nodes[:, :ndim] = coords[:, :ndim]
    if slots > 1:
        offset = (coords[:, -1] / slots - 0.5 + 0.5 / slots) * 0.5
        nodes += offset[:, None]
    return nodes


def _panel(fig, spec: tuple[int, int, int], points: np.ndarray, colours: np.ndarray, lit: np.ndarray,
           extent: Sequence[int], title: str, marker_size: float) -> None:
    ax = fig.add_subplot(*spec, projection="3d")
    dim = ~lit
    if dim.any():
        ax.scatter(points[dim, 0], points[dim, 1], points[dim, 2], s=marker_size * 0.15,
                   c=[(0.6, 0.6, 0.6)], alpha=0.25, depthshade=False, marker="o")
    ax.scatter(points[lit, 0], points[lit, 1], points[lit, 2], s=marker_size, c=colours[lit],
               marker="s", edgecolors="k", linewidths=0.3, alpha=0.95, depthshade=True)
    ax.set_xlim(-0.5, extent[0] - 0.5)
    ax.set_ylim(-0.5, extent[1] - 0.5)
    ax.set_zlim(-0.5, extent[2] - 0.5)
    ax.set_box_aspect(tuple(max(e, 1) for e in extent))
    ax.set_xlabel("dim 0")
    ax.set_ylabel("dim 1")
    ax.set_zlabel("dim 2")
    for axis, e in zip((ax.xaxis, ax.yaxis, ax.zaxis), extent):
        axis.set_ticks(range(e) if e <= 16 else range(0, e, max(e // 8, 1)))
    # 3-D axes ignore tight_layout for titles; anchor the title inside the panel instead.
    ax.text2D(0.5, 0.97, title, transform=ax.transAxes, ha="center", va="top", fontsize=9)


def _placement_panel_data(placement: Placement, groups: str,
                          highlight: Sequence[int] | None) -> tuple[np.ndarray, ...]:
    machine = placement.machine
    if machine.ndim > 3:
        raise ValueError(f"draw_placement(): pictures show 1- to 3-D machines; this one is "
                         f"{machine.ndim}-D (use text_view for a slice-by-slice view)")
    members = placement.groups(groups)
    coords = placement.coords()
    group_of = np.empty(placement.size, dtype=np.int64)
    member_of = np.empty(placement.size, dtype=np.int64)
    size_of = np.empty(placement.size, dtype=np.int64)
    for gid, ranks in enumerate(members):
        group_of[ranks] = gid
        member_of[ranks] = np.arange(len(ranks))
        size_of[ranks] = len(ranks)
    base = group_colours(len(members))[group_of]
    colours = _shaded(base, member_of, size_of)
    if highlight is None:
        lit = np.ones(placement.size, dtype=bool)
    else:
        chosen = [int(h) for h in highlight]
        bad = [h for h in chosen if not 0 <= h < len(members)]
        if bad:
            raise ValueError(f"draw_placement(): highlight holds group indices {bad} outside "
                             f"0..{len(members) - 1}")
        lit = np.isin(group_of, chosen)
    points = _positions(coords, machine.ndim, machine.tasks_per_node)
    extent = list(machine.dims) + [1] * (3 - machine.ndim)
    return points, colours, lit, np.array(extent)


def draw_placements(placements: Sequence[Placement], path: str | os.PathLike[str],
                    groups: str = "rows", highlight: Sequence[int] | None = None,
                    titles: Sequence[str] | None = None, dpi: int = 120) -> None:
    """Draw one or more placements side by side, coloured by grid row or column, to a PNG.

    Parameters
    ----------
    placements : sequence of Placement
        Machines of 1 to 3 node dimensions.
    path : path
        Output PNG file.
    groups : {"rows", "columns"}
        Which groups get the colours.
    highlight : sequence of int, optional
        Group indices to draw in colour; the others are faint grey dots. Default: all.
    titles : sequence of str, optional
        One per placement; default: the placement's repr.
    dpi : int
        Resolution.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    count = len(placements)
    if count == 0:
        raise ValueError("draw_placements(): give at least one placement")
    fig = plt.figure(figsize=(5.5 * count, 5.5))
    for n, placement in enumerate(placements):
        points, colours, lit, extent = _placement_panel_data(placement, groups, highlight)
        p0, p1 = placement.grid
        title = (titles[n] if titles else f"{placement.name or 'placement'}: grid {p0}x{p1}\n"
                 f"{placement.machine.describe()}; colour = {groups[:-1]}")
        marker = 2400.0 / max(extent.max(), 1) ** 1.2
        _panel(fig, (1, count, n + 1), points, colours, lit, extent, title, marker)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def draw_placement(placement: Placement, path: str | os.PathLike[str], groups: str = "rows",
                   highlight: Sequence[int] | None = None, title: str | None = None) -> None:
    """Draw one placement to a PNG (see :func:`draw_placements`)."""
    draw_placements([placement], path, groups, highlight, [title] if title else None)


def draw_tree(tree: Partition, path: str | os.PathLike[str], title: str | None = None) -> None:
    """Draw a tree's cells coloured by leaf, shaded by rank inside each leaf, as Rubik's viewer.

    A 4-D tree is drawn as a 3-D box of nodes whose last dimension is the core slot.

    Raises
    ------
    ValueError
        The tree has more than 4 dimensions.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root_shape = tree.root.shape
    if tree.ndim > 4:
        raise ValueError(f"draw_tree(): pictures show trees of 1 to 4 dimensions, got "
                         f"{tree.ndim}")
    leaves = tree.leaves()
    coords_list, group_list, member_list, size_list = [], [], [], []
    for gid, leaf in enumerate(leaves):
        ranks = leaf.box.reshape(-1)
        rank_order = np.argsort(np.argsort(ranks, kind="stable"), kind="stable")
        coords_list.append(leaf.cell_coords())
        group_list.append(np.full(leaf.size, gid))
        member_list.append(rank_order)
        size_list.append(np.full(leaf.size, leaf.size))
    coords = np.vstack(coords_list) if coords_list else np.zeros((0, tree.ndim), dtype=np.int64)
    if tree.ndim == 4:
        node_dims, slots = 3, root_shape[3]
        points = _positions(coords, 3, slots)
        extent = np.array(root_shape[:3])
    else:
        node_dims = tree.ndim
        padded = np.hstack([coords, np.zeros((coords.shape[0], 1), dtype=np.int64)])
        points = _positions(padded, node_dims, 1)
        extent = np.array(list(root_shape) + [1] * (3 - node_dims))
    base = group_colours(max(len(leaves), 1))[np.concatenate(group_list)]
    colours = _shaded(base, np.concatenate(member_list), np.concatenate(size_list))
    fig = plt.figure(figsize=(5.5, 5.5))
    marker = 2400.0 / max(int(extent.max()), 1) ** 1.2
    _panel(fig, (1, 1, 1), points, colours, np.ones(len(points), dtype=bool), extent,
           title or f"tree of shape {tree.shape}, {len(leaves)} leaves", marker)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
