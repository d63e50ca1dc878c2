"""Partition trees: Rubik's data model (docs/rubik-semantics.md sections 1-5, 7, 8).

A tree is made of :class:`Partition` nodes. Only the root owns storage, an n-D integer array
holding one rank id per cell; every child's ``box`` is a strided numpy *view* of it, so that
permuting or filling a child writes into the root. Children are fixed regions of cells, not
fixed sets of ranks. The root also keeps the ordered element list that gives the line order of
map files (rank 0..N-1 for a fresh box; ``map`` copies the source's list).

All orderings are numpy row-major: the last dimension varies fastest.
"""
from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np

from . import _checks
from . import permutations as perm
from .slicers import div as div_slicer
from .slicers import mod as mod_slicer

Slicer = Callable[[np.ndarray, int, int, int], slice]


def box(dims: Sequence[int]) -> "Partition":
    """Build a one-node tree whose box has shape ``dims``, rank r at row-major position r.

    Parameters
    ----------
    dims : sequence of int
        Non-negative extents, any number >= 1 of them. ``box([X, Y, Z, T])`` is the Blue Gene
        style torus box whose map file has lines ``x y z t``.

    Returns
    -------
    Partition
        A root with no children. In ``box([4, 4, 4])`` rank 1 is at (0,0,1), rank 4 at (0,1,0).

    Raises
    ------
    TypeError
        ``dims`` is empty or holds a non-integer (Rubik also raises TypeError for ``[]``).
    ValueError
        An extent is negative.
    """
    extents = _checks.integer_list("box()", "dims", dims)
    if not extents:
        raise TypeError("box(): dims must list at least one extent, got an empty list")
    for i, n in enumerate(extents):
        if n < 0:
            raise ValueError(f"box(): dims[{i}] is {n}; negative dimensions are not allowed")
    size = int(np.prod(extents, dtype=np.int64))
    cells = np.arange(size, dtype=np.int64).reshape(extents)
    return Partition._root(cells, np.arange(size, dtype=np.int64))


class Partition:
    """One node of a partition tree (use :func:`box` to make a root).

    Attributes
    ----------
    box : numpy.ndarray
        The node's cells (rank ids), a view into the root's storage. Writing into it writes
        into the root.
    children : numpy.ndarray
        Object array of child nodes, shaped like the divisor list of the last cut; size 0 for
        a leaf.
    parent : Partition or None
        The parent node (None at the root).
    index : tuple of int or None
        This node's index in its parent's children array.
    level : int
        Depth below the root (root = 0).
    """

    # ------------------------------------------------------------------ construction
    def __init__(self, cells: np.ndarray, parent: "Partition | None", index: tuple[int, ...] | None,
                 origin: np.ndarray, step: np.ndarray, elements: np.ndarray | None) -> None:
        self.box = cells
        self.parent = parent
        self.index = index
        self.level = 0 if parent is None else parent.level + 1
        # Root coordinate of local coordinate x along dim i: origin[i] + step[i] * x_i.
        self._origin = origin
        self._step = step
        self._elements = elements  # only the root keeps the element list
        self.children = np.empty(0, dtype=object)
        self._cut_args: tuple[tuple[int, ...], tuple[Slicer, ...]] | None = None

    @classmethod
    def _root(cls, cells: np.ndarray, elements: np.ndarray) -> "Partition":
        nd = cells.ndim
        return cls(cells, None, None, np.zeros(nd, dtype=np.int64), np.ones(nd, dtype=np.int64),
                   elements)

    # ------------------------------------------------------------------ basic properties
    @property
    def shape(self) -> tuple[int, ...]:
        """Local shape of this node's box."""
        return tuple(self.box.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions of the box."""
        return self.box.ndim

    @property
    def size(self) -> int:
        """Number of cells in this node's box."""
        return int(self.box.size)

    @property
    def root(self) -> "Partition":
        """The root of this node's tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    @property
    def is_root(self) -> bool:
        """True for the root node."""
        return self.parent is None

    @property
    def is_leaf(self) -> bool:
        """True when the children array is empty (a node cut with a 0 divisor is a leaf too)."""
        return self.children.size == 0

    @property
    def flat_index(self) -> int | None:
        """Row-major ordinal of this node among its siblings (None at the root)."""
        if self.parent is None or self.index is None:
            return None
        return int(np.ravel_multi_index(self.index, self.parent.children.shape))

    @property
    def elements(self) -> np.ndarray:
        """The ordered element list that gives the line order of map files.

        For the root, its own list; for a child, the root's list restricted to the ranks in
        this child (in root order), which is what :meth:`write_map_file` writes for a child.
        """
        root = self.root
        assert root._elements is not None  # internal invariant: every root owns a list
        if self is root:
            return root._elements.copy()
        return root._elements[np.isin(root._elements, self.box)]

    def ancestors(self) -> list["Partition"]:
        """The nodes from the parent up to the root."""
        out = []
        node = self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def depth(self) -> int:
        """A leaf has depth 1; otherwise 1 + the largest child depth."""
        if self.is_leaf:
            return 1
        return 1 + max(child.depth() for child in self.children.flat)

    def cell_coords(self) -> np.ndarray:
        """Root coordinates of this node's cells, in the node's local row-major order.

        Returns
        -------
        numpy.ndarray
            Shape ``(size, ndim)``, int64.
        """
        local = np.indices(self.shape, dtype=np.int64).reshape(self.ndim, -1).T
        return local * self._step + self._origin

    # ------------------------------------------------------------------ children access
    def __iter__(self) -> Iterator["Partition"]:
        """Yield the children (not the cells) in row-major order of child index."""
        return iter(list(self.children.flat))

    def __getitem__(self, key: Any) -> "Partition":
        """``p[i, j, k]`` is ``p.children[i, j, k]`` (the paper's notation; Rubik lacks it)."""
        if self.is_leaf:
            raise IndexError(f"Partition[{key!r}]: this node has no children; cut it first "
                             f"(div, mod, tile or cut)")
        try:
            child = self.children[key]
        except IndexError as err:
            raise IndexError(f"Partition[{key!r}]: index out of range for the children array of "
                             f"shape {self.children.shape}") from err
        if not isinstance(child, Partition):
            raise IndexError(f"Partition[{key!r}]: give one index per dimension of the children "
                             f"array (shape {self.children.shape}) to select one child; use "
                             f"p.children[...] for sub-arrays")
        return child

    def leaves(self) -> list["Partition"]:
        """Leaves, depth-first pre-order, children taken in row-major order."""
        if self.is_leaf:
            return [self]
        out: list[Partition] = []
        for child in self.children.flat:
            out.extend(child.leaves())
        return out

    # ------------------------------------------------------------------ partitioning
    def cut(self, divisors: Sequence[int], slicers: Slicer | Sequence[Slicer]) -> "Partition":
        """Replace this node's children by a ``divisors``-shaped array of sub-boxes.

        Parameters
        ----------
        divisors : sequence of int
            k <= ndim positive integers; dimension i < k is split into ``divisors[i]`` chunks,
            dimensions i >= k are not split.
        slicers : callable or sequence of callables
            One slicer for all dimensions, or at least k of them (extra ones are ignored).
            Use :func:`volfft.mapping.div` or :func:`volfft.mapping.mod`, or any callable
            ``(array, dim, chunk, nchunks) -> slice``.

        Returns
        -------
        Partition
            ``self``, so that calls can be chained.

        Raises
        ------
        IndexError
            More divisors than dimensions, or fewer slicers than divisors.
        ValueError
            A divisor is zero or negative (Rubik silently makes no children for 0).
        TypeError
            A slicer is not callable (e.g. the string ``'div'``).
        """
        divs = self._divisor_list("cut()", "divisors", divisors)
        for i, d in enumerate(divs):
            if d <= 0:
                raise ValueError(f"cut(): divisors[{i}] must be a positive integer, got {d}")
        self._cut(tuple(divs), self._slicer_list(slicers, len(divs)))
        return self

    def div(self, divisors: Sequence[int]) -> "Partition":
        """``cut(divisors, div)``: contiguous chunks, the last one absorbing any remainder."""
        divs = self._divisor_list("div()", "divisors", divisors)
        for i, d in enumerate(divs):
            if d <= 0:
                raise ValueError(f"div(): divisors[{i}] must be a positive integer, got {d}")
        self._cut(tuple(divs), (div_slicer,) * len(divs))
        return self

    def mod(self, divisors: Sequence[int]) -> "Partition":
        """``cut(divisors, mod)``: child c along dimension i holds x_i with x_i mod d_i == c."""
        divs = self._divisor_list("mod()", "divisors", divisors)
        for i, d in enumerate(divs):
            if d <= 0:
                raise ValueError(f"mod(): divisors[{i}] must be a positive integer, got {d}")
        self._cut(tuple(divs), (mod_slicer,) * len(divs))
        return self

    def tile(self, tile_dims: Sequence[int]) -> "Partition":
        """Split into tiles of extent ``tile_dims`` (``div`` with divisors ``floor(N_i / t_i)``).

        A list shorter than ndim is padded with 1s (tile extent 1, i.e. those dimensions are
        split completely), as Rubik does since 2014; the caller's list is not modified. A tile
        that does not divide the extent makes the last tile larger; a tile larger than the
        extent gives divisor 0, so the node stays one leaf (Rubik's result, kept).

        Raises
        ------
        IndexError
            More tile extents than dimensions.
        ValueError
            A tile extent is zero or negative.
        """
        tiles = self._divisor_list("tile()", "tile_dims", tile_dims)
        for i, t in enumerate(tiles):
            if t <= 0:
                raise ValueError(f"tile(): tile_dims[{i}] must be a positive tile extent, got {t}")
        tiles = tiles + [1] * (self.ndim - len(tiles))
        divs = tuple(n // t for n, t in zip(self.shape, tiles))
        self._cut(divs, (div_slicer,) * len(divs))
        return self

    def _divisor_list(self, op: str, name: str, values: Sequence[int]) -> list[int]:
        divs = _checks.integer_list(op, name, values)
        if len(divs) > self.ndim:
            raise IndexError(f"{op}: {name} has {len(divs)} entries but the box has only "
                             f"{self.ndim} dimensions")
        return divs

    @staticmethod
    def _slicer_list(slicers: Slicer | Sequence[Slicer], k: int) -> tuple[Slicer, ...]:
        if callable(slicers):
            return (slicers,) * k
        if isinstance(slicers, (str, bytes)) or not isinstance(slicers, Sequence):
            raise TypeError(f"cut(): slicers must be a slicer (volfft.mapping.div or mod, or a "
                            f"callable) or a list of them, got {slicers!r}")
        if len(slicers) < k:
            raise IndexError(f"cut(): slicers has {len(slicers)} entries but divisors has {k}; "
                             f"give one slicer per divisor")
        out = tuple(slicers[:k])
        for i, s in enumerate(out):
            if not callable(s):
                raise TypeError(f"cut(): slicers[{i}] must be a callable slicer such as "
                                f"volfft.mapping.div or volfft.mapping.mod, got {s!r}")
        return out

    def _cut(self, divisors: tuple[int, ...], slicers: tuple[Slicer, ...]) -> None:
        # Unchecked: divisors may contain 0 here (tile larger than the extent), which gives an
        # empty children array, i.e. a leaf, exactly as in Rubik.
        children = np.empty(divisors, dtype=object)
        for cidx in np.ndindex(*divisors):
            index: list[slice] = []
            origin = self._origin.copy()
            step = self._step.copy()
            for dim, (chunk, nchunks, slicer) in enumerate(zip(cidx, divisors, slicers)):
                piece = slicer(self.box, dim, chunk, nchunks)
                if not isinstance(piece, slice):
                    raise TypeError(f"cut(): slicer {slicer!r} must return a slice, got {piece!r}")
                start, _, stride = piece.indices(self.shape[dim])
                origin[dim] += self._step[dim] * start
                step[dim] *= stride
                index.append(piece)
            view = self.box[tuple(index)]
            children[cidx] = Partition(view, self, tuple(int(c) for c in cidx), origin, step, None)
        self.children = children
        self._cut_args = (divisors, slicers)

    # ------------------------------------------------------------------ permutations
    def _permute(self, new_cells: np.ndarray) -> "Partition":
        self.box[...] = new_cells  # in place: writes through to the root
        return self

    def tilt(self, axis: int, direction: int, slope: int) -> "Partition":
        """Tilt the hyperplanes ``x_axis = const`` along ``direction`` by ``slope``.

        Slab ``x_direction = i`` is rotated cyclically along ``axis`` by ``i * slope``:
        ``new[x] = old[x with x_axis -> (x_axis - slope * x_direction) mod N_axis]``.
        Uses this node's local coordinates; ranks may cross child boundaries.

        Raises
        ------
        IndexError
            ``axis`` or ``direction`` is not a dimension index of this box.
        ValueError
            ``axis == direction``.
        TypeError
            ``slope`` is not an integer.
        """
        a = _checks.dimension("tilt()", "axis", axis, self.ndim)
        d = _checks.dimension("tilt()", "direction", direction, self.ndim)
        s = _checks.integer("tilt()", "slope", slope)
        if a == d:
            raise ValueError(f"tilt(): axis cannot be the same as the tilt dimension (both are {a})")
        return self._permute(perm.tilt(self.box, a, d, s))

    def zigzag(self, axis: int, direction: int, depth: int = 1, stride: int = 1) -> "Partition":
        """Shift slabs along ``axis`` by a triangle wave of ``x_direction``.

        Slab i moves by ``depth - floor(|i - base(i)| * depth / stride)``, with
        ``base(i) = floor(i / (2 stride)) * 2 stride + stride``. ``depth`` and ``stride`` default
        to 1 (Rubik's public method requires all four arguments; the paper omits them).

        Raises
        ------
        IndexError
            ``axis`` or ``direction`` is not a dimension index of this box.
        ValueError
            ``axis == direction``, or ``stride`` is not positive.
        TypeError
            ``depth`` or ``stride`` is not an integer.
        """
        a = _checks.dimension("zigzag()", "axis", axis, self.ndim)
        d = _checks.dimension("zigzag()", "direction", direction, self.ndim)
        dep = _checks.integer("zigzag()", "depth", depth)
        stri = _checks.integer("zigzag()", "stride", stride)
        if a == d:
            raise ValueError(f"zigzag(): axis cannot be the zigzag dimension (both are {a})")
        if stri <= 0:
            raise ValueError(f"zigzag(): stride must be a positive integer, got {stri}")
        return self._permute(perm.zigzag(self.box, a, d, dep, stri))

    def shear(self, axis: int, direction: int, slope: int) -> "Partition":
        """Same operation as ``tilt(direction, axis, slope)``: slabs along ``axis`` rotate
        along ``direction``."""
        a = _checks.dimension("shear()", "axis", axis, self.ndim)
        d = _checks.dimension("shear()", "direction", direction, self.ndim)
        s = _checks.integer("shear()", "slope", slope)
        if a == d:
            raise ValueError(f"shear(): axis cannot be same as shear direction (both are {a})")
        return self._permute(perm.shear(self.box, a, d, s))

    def zorder(self) -> "Partition":
        """Lay this node's ranks, in row-major order, along a Z-curve (dimension 0 first).

        A permutation for any box size and dimension count (no bit truncation).
        """
        return self._permute(perm.zorder(self.box))

    def transpose(self, axes: Sequence[int] | None = None) -> "Partition":
        """numpy-transpose this node's box, then pour it back, row-major, into its shape.

        Parameters
        ----------
        axes : sequence of int, optional
            A permutation of ``0..ndim-1``; default reverses the dimensions.
        """
        if axes is not None:
            ax = _checks.integer_list("transpose()", "axes", axes)
            if sorted(ax) != list(range(self.ndim)):
                raise ValueError(f"transpose(): axes must be a permutation of 0..{self.ndim - 1}, "
                                 f"got {ax}")
            axes = ax
        return self._permute(perm.transpose(self.box, axes))

    # ------------------------------------------------------------------ mapping
    def compatible(self, other: "Partition") -> bool:
        """True when both trees have as many leaves and each depth-first pair has equal size."""
        mine, theirs = self.leaves(), other.leaves()
        return len(mine) == len(theirs) and all(a.size == b.size for a, b in zip(mine, theirs))

    def map(self, source: "Partition") -> "Partition":
        """Fill this tree's leaves with the ranks of ``source``'s leaves, pair by pair.

        Leaves are paired depth-first (children row-major). The j-th cell of target leaf k,
        in its row-major order, receives the j-th rank of source leaf k. Shapes and
        dimensionality may differ; sizes may not. This root's element list becomes the
        source's, so that map-file line r describes source rank r.

        Raises
        ------
        TypeError
            ``source`` is not a Partition.
        ValueError
            Either node is not a root (use ``copy()`` to make a subtree a root), the leaf counts
            or total sizes differ (Rubik's messages), or a pair of leaves differs in size
            (Rubik would silently duplicate and drop ranks).
        """
        if not isinstance(source, Partition):
            raise TypeError(f"map(): source must be a Partition, got {type(source).__name__}")
        if not self.is_root:
            raise ValueError("map(): the target must be a root node; mapping onto a child would "
                             "leave the root's element list stale (call map on the root)")
        if not source.is_root:
            raise ValueError("map(): the source must be a root node; use source.copy() to make a "
                             "subtree into a tree of its own")
        targets, sources = self.leaves(), source.leaves()
        if len(targets) != len(sources):
            raise ValueError("Attempted to map %d-leaf partition onto %d-leaf partition."
                             % (len(sources), len(targets)))
        if self.size != source.size:
            raise ValueError("Attempted to map size %d partition onto size %d partition."
                             % (source.size, self.size))
        for k, (t, s) in enumerate(zip(targets, sources)):
            if t.size != s.size:
                raise ValueError(f"map(): leaf {k} (depth-first) of the source has {s.size} cells "
                                 f"but leaf {k} of the target has {t.size}; paired leaves must "
                                 f"have equal sizes")
        # Read every source leaf before writing: source and target may be the same tree.
        payload = [s.box.reshape(-1).copy() for s in sources]
        for t, values in zip(targets, payload):
            t.box[...] = values.reshape(t.shape)
        self._elements = source.root.elements
        return self

    # ------------------------------------------------------------------ map files
    def element_coords(self) -> np.ndarray:
        """Root coordinates of each element of :attr:`elements`, in that order.

        Returns
        -------
        numpy.ndarray
            Shape ``(len(elements), ndim)``: row r is the coordinate written on map-file
            line r.
        """
        elements = self.elements
        values = self.box.reshape(-1)
        coords = self.cell_coords()
        sorter = np.argsort(values, kind="stable")
        pos = np.searchsorted(values[sorter], elements)
        pos = np.minimum(pos, max(values.size - 1, 0))
        if values.size and not np.array_equal(values[sorter][pos], elements):
            raise ValueError("write_map_file(): some ranks of the element list are in no cell; "
                             "the tree was filled inconsistently")
        return coords[sorter[pos]] if values.size else np.zeros((0, self.ndim), dtype=np.int64)

    def write_map_file(self, stream: IO[str] | str | os.PathLike[str] | None = None) -> None:
        """Write one line per element: its coordinates in box-dimension order.

        After ``map``, line r (0-based) describes rank r of the source. Called on a child, it
        writes that child's ranks (in root element-list order) with their *global*
        coordinates (Rubik writes child-relative ones).

        Parameters
        ----------
        stream : file object, path, or None
            Where to write; a path is opened for writing and closed; None means
            ``sys.stdout`` at call time.
        """
        text = "".join(" ".join(str(int(c)) for c in row) + "\n" for row in self.element_coords())
        if stream is None:
            sys.stdout.write(text)
        elif isinstance(stream, (str, os.PathLike)):
            with open(stream, "w", encoding="ascii") as handle:
                handle.write(text)
        else:
            stream.write(text)

    def map_file_text(self) -> str:
        """What :meth:`write_map_file` would write, as a string."""
        buf = io.StringIO()
        self.write_map_file(buf)
        return buf.getvalue()

    # ------------------------------------------------------------------ copying
    def copy(self) -> "Partition":
        """A new tree with the same cell contents and the same cuts replayed.

        Copying a subtree gives a new root whose shape is the subtree's and whose element list
        is the subtree's ranks in the original root's order.
        """
        return _rebuild(self.box.copy(), self.elements, _cut_plan(self))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickle the cells, the element list and the cuts, not the numpy views: unpickled views
        # would be copies and children would stop writing through to the root.
        return (_rebuild, (self.box.copy(), self.elements, _cut_plan(self)))

    def __repr__(self) -> str:
        kind = "root" if self.is_root else f"child {self.index}"
        return (f"Partition({kind}, shape={self.shape}, leaves={len(self.leaves())})\n"
                f"{self.box!s}")


def _cut_plan(node: Partition) -> Any:
    """Nested (divisors, slicers, [child plans]) describing a node's cuts, or None."""
    if node._cut_args is None:
        return None
    return (node._cut_args[0], node._cut_args[1], [_cut_plan(c) for c in node.children.flat])


def _apply_cut_plan(node: Partition, plan: Any) -> None:
    if plan is None:
        return
    divisors, slicers, children = plan
    node._cut(divisors, slicers)
    for child, sub in zip(node.children.flat, children):
        _apply_cut_plan(child, sub)


def _rebuild(cells: np.ndarray, elements: np.ndarray, plan: Any) -> Partition:
    """Unpickle: a root with these cells and elements, and the cuts replayed."""
    root = Partition._root(cells, elements)
    _apply_cut_plan(root, plan)
    return root
