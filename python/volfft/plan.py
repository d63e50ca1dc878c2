"""Distributed 2-D, 3-D and N-D FFTs of numpy arrays over an mpi4py communicator.

:class:`Plan` wraps the C++ ``volfft::Plan``. Every local array it gives or takes is indexed by
global axes (a :class:`LocalArray`: ``u_hat[i, j, k]`` is the same element on any number of
ranks and in every layout) and is a view of memory in the plan's order for that side
(:attr:`Plan.input_order`, :attr:`Plan.output_order`), handed to the library without a copy.

Conventions (those of ``numpy.fft``): ``forward`` computes the unscaled transform with
``exp(-2j*pi*k*x/n)``; ``backward`` the inverse, scaled by ``1/N`` unless
``scale_backward=False``, so ``backward(forward(a))`` returns ``a``. For ``kind="r2c"`` the last
axis of the output holds ``n // 2 + 1`` complex values, as in ``numpy.fft.rfftn``.
"""
from __future__ import annotations

import math
import numbers
import operator
import os
import warnings
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from volfft._describe import model_description
from volfft._agree import agree_on_errors, allocated, fail_call, native_call
from volfft._distribute import gather, scatter
from volfft._local_array import LocalArray
from volfft._native import native
from volfft._request import Request
from volfft.distribution import LocalBox

__all__ = ["Plan", "LocalArray", "describe", "plan_options", "scatter", "gather", "VolfftError",
           "MpiError"]

#: Raised for invalid argument values (a subclass of ValueError). Wrong types raise TypeError.
VolfftError = native().VolfftError  # bad arguments (a ValueError), raised on every rank alike
MpiError = native().MpiError  # a failed MPI call (a RuntimeError), on the ranks where it failed
# Shown (tracebacks, repr) where users import them from: volfft.VolfftError, volfft.MpiError.
for _error in (VolfftError, MpiError):
    _error.__module__ = "volfft"

_KINDS = ("c2c", "r2c", "r2r")

# numpy dtype -> (precision name understood by the library, complex dtype of that precision)
_PRECISIONS = {
    np.dtype(np.complex128): ("double", np.dtype(np.complex128)),
    np.dtype(np.float64): ("double", np.dtype(np.complex128)),
    np.dtype(np.complex64): ("float", np.dtype(np.complex64)),
    np.dtype(np.float32): ("float", np.dtype(np.complex64)),
}

Grid = Union[str, Tuple[int, int], Sequence[int]]

# The library plans FFTW on 64-byte aligned buffers and runs a second, slower plan for arrays of
# another FFTW alignment (docs/conventions.md). numpy's 16 bytes happen to suffice for FFTW's
# SIMD codelets, but nothing guarantees it: the plan's own arrays are cache-line aligned.
_ALIGNMENT = 64


def aligned_zeros(shape: Tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A zeroed C-contiguous array whose data starts on a 64-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.zeros(nbytes + _ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _check_kind(kind: Any) -> str:
    if not isinstance(kind, str) or kind not in _KINDS:
        raise VolfftError(f"kind: expected 'c2c', 'r2c' or 'r2r', got {kind!r}")
    return kind


# The library's sizes are signed 64-bit; larger ones could not even be passed to it.
_INDEX_LIMIT = 2**63


def _check_shape(shape: Any) -> Tuple[int, ...]:
    # Types and the 64-bit range here; the library checks the values (2 or more positive sizes
    # whose product it can address) and names the size that is too large.
    try:
        if isinstance(shape, (str, bytes)) or any(isinstance(n, (bool, np.bool_)) for n in shape):
            raise TypeError
        sizes = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape: expected a sequence of at least 2 ints, got {shape!r}") from None
    for axis, n in enumerate(sizes):
        if not -_INDEX_LIMIT <= n < _INDEX_LIMIT:
            raise VolfftError(f"shape: shape[{axis}] = {n} is too large (sizes must be below 2^63, "
                              f"and their product below 2^58)")
    return sizes


def _check_dtype(dtype: Any, kind: str) -> Tuple[str, np.dtype, np.dtype]:
    """(precision name, input dtype, output dtype) of a plan."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: expected a numpy dtype, got {dtype!r}") from None
    if dt not in _PRECISIONS:
        raise TypeError(
            f"dtype: expected complex128 or complex64 (c2c), float64 or float32 (r2c, r2r), got {dt}"
        )
    precision, complex_dtype = _PRECISIONS[dt]
    if kind == "c2c":
        if dt.kind != "c":
            raise TypeError(
                f"dtype: a c2c plan transforms complex arrays: expected complex128 or complex64, "
                f"got {dt} (use kind='r2c' for real input)"
            )
        return precision, dt, complex_dtype
    # r2c, r2r: the dtype selects the precision; the input (and r2r's output) is real.
    real_dtype = np.dtype(np.float64 if precision == "double" else np.float32)
    return precision, real_dtype, real_dtype if kind == "r2r" else complex_dtype


def _check_grid(grid: Grid) -> Tuple[int, int]:
    if isinstance(grid, str):
        if grid == "auto":
            return (0, 0)
        parts = grid.lower().split("x")
        if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
            grid = tuple(int(p) for p in parts)
        else:
            raise VolfftError(f"grid: expected 'auto', 'p0xp1' or a pair (p0, p1), got {grid!r}")
    try:
        if any(isinstance(p, (bool, np.bool_)) for p in grid):
            raise TypeError
        pair = tuple(operator.index(p) for p in grid)
    except TypeError:
        raise TypeError(f"grid: expected 'auto' or a pair of ints (p0, p1), got {grid!r}") from None
    if len(pair) != 2 or min(pair) < 1:
        raise VolfftError(f"grid: expected 'auto' or a pair (p0, p1) of ints >= 1, got {grid!r}")
    return pair  # type: ignore[return-value]


def _padded_grid(spectral: Tuple[int, ...], padding: Any) -> Tuple[int, ...]:
    """The real grid of a padded plan: floor(m * padding) per axis (mpi4py-fft's rule)."""
    if padding is None:
        return spectral
    try:
        factors = (padding,) * len(spectral) if np.isscalar(padding) else tuple(padding)
    except TypeError:
        raise TypeError(f"padding: expected a number or a sequence of numbers, got {padding!r}") from None
    if len(factors) != len(spectral):
        raise VolfftError(f"padding: expected a number or {len(spectral)} numbers, got {padding!r}")
    # Numbers only: float("2") would accept a string, and bool is an int by accident.
    if not all(isinstance(f, (numbers.Real, np.floating, np.integer)) and not isinstance(f, (bool, np.bool_))
               for f in factors):
        raise TypeError(f"padding: expected numbers >= 1, got {padding!r}")
    factors = tuple(float(f) for f in factors)
    if not all(math.isfinite(f) for f in factors):
        raise VolfftError(f"padding: expected finite factors >= 1, got {padding!r}")
    if min(factors) < 1:
        raise VolfftError(f"padding: expected factors >= 1 (the real grid is larger), got {padding!r}")
    return tuple(int(np.floor(m * f)) for m, f in zip(spectral, factors))


def plan_options() -> Dict[str, Dict[str, Any]]:
    """The plan options the library takes, as it describes them (name -> type, default, doc,
    accepted names): the keywords of :class:`Plan` beyond ``dtype``, ``kind``, ``placement`` and
    ``padding`` (``spectral_shape`` excepted: Python plans take ``padding``). Derived from the
    library's one option table, never retyped here."""
    return {spec["name"]: spec for spec in native().option_specs()}


def _library_options(options: Dict[str, Any], placement: Any, spectral: Optional[Tuple[int, ...]]) -> Dict[str, Any]:
    """The keyword options as the library's option table takes them; Python's conveniences
    (grid "auto"/"2x1", planes "auto", path-like wisdom_file, placement, padding) resolved."""
    out = dict(options)
    if "spectral_shape" in out:
        # The plan's Python side derives its array shapes from padding; a spectral box given
        # directly would leave them wrong.
        raise TypeError("spectral_shape: Python plans take padding= instead (the real grid is "
                        "floor(shape * padding), the spectral box is shape)")
    pair = _check_grid(out.get("grid", "auto"))
    if "grid" in out:
        out["grid"] = list(pair)
    if out.get("planes") == "auto":
        out["planes"] = -1
    if "wisdom_file" in out:
        out["wisdom_file"] = "" if out["wisdom_file"] is None else os.fspath(out["wisdom_file"])
    if placement is not None:
        if "rank_order" in out:
            raise TypeError("placement: give either placement or rank_order, not both")
        out["rank_order"] = _rank_order(placement)
        pair = _placement_grid(placement, pair)
        if pair != (0, 0):
            out["grid"] = list(pair)
    if spectral is not None:
        out["spectral_shape"] = list(spectral)
    return out


def _warn_if_threads_share_cores(threads: int) -> None:
    """Warn when this rank may run on fewer cores than its threads (its CPU affinity).

    Open MPI binds each rank to one core when a job has at most 2 ranks, so ``threads=2``
    under a plain ``mpirun -n 1`` runs both threads on one core: no faster, and nothing else
    would say so.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux: no affinity to read
        return
    if threads > cores:
        warnings.warn(
            f"threads={threads}, but this rank may run on {cores} core(s) only (its CPU "
            "affinity): the threads take turns on them. Open MPI binds each rank to one core when "
            "a job has at most 2 ranks; launch with `mpirun --bind-to none` (scripts/mpirun.sh "
            f"does) or `--map-by slot:PE={threads}`",
            RuntimeWarning, stacklevel=3)


def _placement_grid(placement: Any, pair: Tuple[int, int]) -> Tuple[int, int]:
    """The plan's grid with a placement: a placement that knows its grid (a
    volfft.mapping.Placement's ``grid``) places the positions of that grid, so an automatic grid
    becomes it and another grid is refused. Placements without a grid leave ``pair`` as it is."""
    own = getattr(placement, "grid", None)
    if own is None or not hasattr(placement, "rank_order"):
        return pair
    own = _check_grid(own)
    if pair == (0, 0):
        return own
    if pair != own:
        raise VolfftError(
            f"placement: it places the positions of a {own[0]}x{own[1]} grid, but the plan's grid "
            f"is {pair[0]}x{pair[1]}; give grid={own} (or leave grid automatic)")
    return pair


def _check_placement(order: list, size: int) -> None:
    """A placement's rank order: one entry per rank, a permutation of 0..size-1 (checked here so
    that the message names placement, the argument given, not the library's rank_order)."""
    if not order:
        return
    if len(order) != size:
        raise VolfftError(f"placement: expected {size} entries (one per rank), got {len(order)}")
    if sorted(order) != list(range(size)):
        raise VolfftError(f"placement: expected a permutation of 0..{size - 1}, got {order}")


def _rank_order(placement: Any) -> list:
    """The rank order of a placement: None, an object with rank_order(), or ints."""
    if placement is None:
        return []
    if hasattr(placement, "rank_order"):
        placement = placement.rank_order()
    try:
        return [operator.index(r) for r in np.asarray(placement).reshape(-1).tolist()]
    except TypeError:
        raise TypeError(
            "placement: expected None, an object with rank_order() (volfft.mapping.Placement) "
            f"or a sequence of ints, got {placement!r}"
        ) from None


def _user_arrays(in_array: Any, out_array: Any, shape: Tuple[int, ...], padding: Any,
                 options: Dict[str, Any]) -> Tuple[Optional[tuple], Optional[tuple]]:
    """The plan's ``in_array``/``out_array`` as the extension takes them (None: the plan's own).
    A plan of more than 3 axes distributes the first three: the others must be whole in every
    box, and the extension gets the boxes of the first three."""
    ndim = len(shape)
    if in_array is None and out_array is None:
        return None, None
    if padding is not None:
        raise TypeError("in_array/out_array: not with padding= in Python (the C++ and C APIs have it)")
    if options.get("in_place"):
        raise TypeError("in_array/out_array: not with in_place=True in Python (the C++ and C APIs have it)")
    result = []
    for name, value in (("in_array", in_array), ("out_array", out_array)):
        if value is None:
            result.append(None)
            continue
        part = LocalBox.of(value, name)
        if part.ndim != ndim:
            raise VolfftError(f"{name}: expected a box of {ndim} axes like shape, got {part.box}")
        native = part.native()
        if ndim > 3:
            lo, hi = part.box
            if tuple(lo[3:]) != (0,) * (ndim - 3) or tuple(hi[3:]) != tuple(shape[3:]):
                # Each trailing axis's range, as the box writes it: (0, 4), not (0, (4,)).
                whole = ", ".join(f"(0, {n})" for n in shape[3:])
                raise VolfftError(f"{name}: a plan of {ndim} axes distributes its first three; axes 3 and up "
                                  f"must be whole, {whole}, in every box; got {part.box}")
            slo, shi = part.storage
            if tuple(slo[3:]) != tuple(lo[3:]) or tuple(shi[3:]) != tuple(hi[3:]):
                # The extension sees the first three axes only: ghost layers or padding on the
                # others would be dropped silently instead of refused as on axes 0-2.
                raise VolfftError(f"{name}: a plan of {ndim} axes takes no ghost layers or padding on axes 3 "
                                  f"and up (the trailing transforms run on the whole array); got storage "
                                  f"{part.storage} around the box {part.box}")
            native = (native[0][:3], native[1][:3], native[2], native[3][:3], native[4][:3])
        result.append(native)
    return result[0], result[1]


def describe(
    shape: Sequence[int],
    grid: Grid = "auto",
    kind: str = "c2c",
    dtype: Any = np.complex128,
    engine: str = "auto",
    layout: str = "transposed",
    placement: Any = None,
    nprocs: Optional[int] = None,
) -> Dict[str, Any]:
    """What a plan would do, without MPI: grid, FFT stages, every message of every exchange.

    Pure: needs the compiled extension but no communicator (runs on a login node, for any
    number of ranks).

    Parameters
    ----------
    shape, grid, kind, dtype, engine, layout, placement
        As for :class:`Plan`.
    nprocs : int, optional
        Number of ranks of the communicator. Defaults to ``p0 * p1`` of ``grid``; required
        when ``grid="auto"``.

    Returns
    -------
    dict
        ``{"shape", "kind", "precision", "element_bytes", "fields", "grid", "engine", "layout",
        "exchanges": [{"name", "messages"}], "stages": [{"axis", "length", "count_per_rank",
        "kind"}], "pack_bytes_per_rank", "input_boxes", "output_boxes", "input_order",
        "output_order"}``. ``messages`` is an int64 array of rows (source, destination, bytes)
        in virtual ranks ``g = i * p1 + j``; ``count_per_rank`` an int64 array: how many 1-D
        transforms of ``length`` points each virtual rank does in that stage. A shape of more
        than three axes is described as the plan of its first three axes whose elements carry
        the trailing axes' values (``fields``; its messages count their bytes). See
        docs/python.md.

    Raises
    ------
    VolfftError
        Invalid values (the messages :class:`Plan` gives), or ``nprocs`` missing or not
        matching ``grid``.
    TypeError
        Arguments of the wrong type.
    """
    kind = _check_kind(kind)
    sizes = _check_shape(shape)
    precision, _, _ = _check_dtype(dtype, kind)
    pair = _placement_grid(placement, _check_grid(grid))
    if nprocs is None:
        if pair == (0, 0):
            raise VolfftError("nprocs: expected the number of ranks when grid='auto'")
        nprocs = pair[0] * pair[1]
    try:
        nprocs = operator.index(nprocs)
    except TypeError:
        raise TypeError(f"nprocs: expected an int, got {nprocs!r}") from None
    if nprocs < 1:
        raise VolfftError(f"nprocs: expected at least 1 rank, got {nprocs}")
    order = _rank_order(placement)
    _check_placement(order, nprocs)
    options = {"grid": list(pair), "engine": engine, "layout": layout, "effort": "estimate",
               "rank_order": order}
    raw = native().describe(nprocs, list(sizes), kind, precision, options)
    return model_description(raw)


class Plan:
    """A distributed FFT of a global C-order array of shape ``(n0, n1)`` or ``(n0, n1, n2)``.

    Construction, :meth:`forward`, :meth:`backward` and :meth:`close` are collective over
    ``comm``: every rank calls them, with the same arguments.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The ranks sharing the array. Kept alive by the plan.
    shape : sequence of int
        Global shape, 2 or more positive sizes. Any sizes work (primes, sizes smaller than the
        number of ranks: some ranks then hold nothing). More than 3 (c2c and r2r): the first
        three axes are distributed as in a 3-D plan and the others are whole on every rank
        (docs/conventions.md, "More than three axes").
    dtype : numpy dtype, default complex128
        ``complex128``/``complex64`` for c2c; for r2c and r2r the precision (``float64`` or
        ``complex128`` -> double, ``float32`` or ``complex64`` -> single).
    kind : {"c2c", "r2c", "r2r"}
        Complex-to-complex; real-to-complex forward with complex-to-real backward; or
        real-to-real (``kinds`` required, each a DCT/DST type or ``"none"``): real arrays on
        both sides, and the data stays real in between, so the exchanges move half the bytes
        of the same kinds on complex data.
    grid : "auto", "p0xp1" or (p0, p1)
        Process grid (``"auto"``: chosen by rule, or by timing with ``tune``); ``p1 == 1`` is
        the slab decomposition, otherwise pencils. ``p0 * p1``
        must equal ``comm.size``; 2-D arrays take slabs only, ``(comm.size, 1)``.
    engine : {"auto", "alltoallv", "alltoall", "alltoallw", "p2p", "pipelined", "persistent", "node"}
        Exchange strategy (docs/conventions.md). ``"auto"`` is ``"node"`` where ranks share a
        node (``"alltoallv"`` where none does, or where ``node`` cannot have its shared memory),
        or with ``tune`` the fastest candidate.
    layout : {"transposed", "natural"}
        Memory order of the forward output: the fastest one (default), or C order.
    effort : {"estimate", "measure", "patient"}
        FFTW planner effort.
    tune : int, default 0
        Seconds the planner may spend timing candidate grids and engines when ``grid`` or
        ``engine`` is ``"auto"`` (simplest first; the fastest is kept, the simpler one within
        the noise); 0 chooses by rule and times nothing (docs/overlap.md#autotuning).
    scale_backward : bool, default True
        Scale :meth:`backward` by ``1/N`` (numpy's default ``norm="backward"``).
    scale_forward : bool, default False
        Scale :meth:`forward` by ``1/N``; with ``scale_backward=False`` this is numpy's
        ``norm="forward"`` (fluidfft's convention). The factor rides on the first exchange's
        copies where the plan has one, so it costs no pass over the output.
    kinds : sequence of str, optional
        The transform along each axis: ``"dft"``, ``"r2c"`` (an r2c plan's last axis, and only
        there), ``"dct1"``..``"dct4"``, ``"dst1"``..``"dst4"`` (FFTW's REDFT00/10/01/11 and
        RODFT00/10/01/11, as ``scipy.fft.dct(x, type)`` with ``norm=None``; backward applies the
        inverse type and divides by the logical size, ``2(n-1)`` for type-I DCT, ``2(n+1)`` for
        type-I DST, ``2n`` for the others), or ``"none"`` (not transformed). Default: every axis
        ``"dft"`` (r2c: the last one ``"r2c"``). r2r axes of complex data transform the real and
        imaginary parts; ``kinds=("dct2", "dft", "r2c")`` is a real field with walls in x, and
        ``kind="r2r", kinds=("dct2", "dct2", "dct2")`` a real field with walls everywhere.
    in_place : bool, default False
        Transform in place, as FFTW's in-place plans: :meth:`forward` writes the spectrum into
        the memory of the array it is given and returns it as the output view of that memory;
        :meth:`backward` likewise. Arrays come from :meth:`input_array`/:meth:`output_array`
        (one buffer of :attr:`in_place_bytes` each); an r2c input's rows hold
        ``2 * (n // 2 + 1)`` reals, the array being the view of the first ``n``. At one rank the
        FFTs are FFTW's in-place plans, its fastest. Not with ``padding``.
    destroy_input : bool, default False
        An out-of-place :meth:`forward` or :meth:`backward` may overwrite the array it is
        given (FFTW's ``FFTW_DESTROY_INPUT``): the FFTW plans that read it may use it as
        scratch, and at one rank an r2c plan's backward is one c2r plan reading the spectrum,
        instead of a c2c plan into a buffer and a c2r plan from there. Without it the input is
        left as it was.
    min_memory : bool, default False
        Hold the plan's buffers and nothing more, also while planning: engine ``"auto"``
        becomes ``"alltoallw"`` (no send area) and the FFTs are planned without arrays
        (``backend="ducc0"``, or FFTW's estimated plans). With ``in_place=True`` a rank holds
        its array and one buffer. Not with ``backend="auto"`` nor ``tune``.
    in_array, out_array : None, (lo, hi) or volfft.LocalBox
        Your own distribution ("bring your own boxes"): this rank's part of the forward input
        (``in_array``) and of the forward output (``out_array``), as a box or a
        :class:`~volfft.LocalBox` with a memory order and ghost layers; None keeps the plan's
        own on that side. Each side's boxes must cover its global array exactly once (empty
        boxes allowed), else the same VolfftError on every rank names the ranks and boxes.
        The plan reshapes from your input to its first stage and from its last stage to your
        output (backward the reverse), and skips a side that is its own already
        (:attr:`reshapes`); the named distributions :func:`volfft.bricks`,
        :func:`~volfft.slabs`, :func:`~volfft.pencils`, :func:`~volfft.fftw_blocks` give the
        boxes. With ghost layers the arrays are the whole local arrays (ghosts included; only
        the box is read or written) and :func:`volfft.scatter`/:func:`~volfft.gather` refuse
        them. Not with ``in_place`` or ``padding`` here (the C++ and C APIs have both).
    placement : None, volfft.mapping.Placement or sequence of int
        Rank order: ``order[g]`` is the rank of ``comm`` that takes virtual grid position
        ``g = i * p1 + j``. Anything with a ``rank_order()`` method is accepted.
    padding : None, float or sequence of float
        Zero-padded ("pruned") transform, as for dealiasing: ``shape`` is then the spectral box
        ``m`` (low frequencies in numpy's order) and the real grid is ``floor(m * padding)``
        per axis (:attr:`shape`). forward() keeps the m-box of the real grid's spectrum;
        backward() pads it with zeros. backward scales by ``1/N`` of the real grid, so
        ``forward(backward(u_hat)) == u_hat`` (r2c: for the spectrum of a real field). Along an
        axis with an even m, index m/2 (numpy's -m/2) stands for both -m/2 and +m/2 of the real
        grid: forward adds the two, backward puts half on each (docs/python.md). Lines holding
        only zeros are never transformed nor exchanged (docs/conventions.md).
    planes : "auto" or int
        Engine ``"pipelined"``: planes per chunk (``"auto"``: about eight chunks; 0: blocking).
    max_in_flight : int, default 4
        Engine ``"pipelined"``: chunks whose exchange may be outstanding at once.
    pipeline_p2p : bool, default False
        Engine ``"pipelined"``: ``MPI_Isend``/``MPI_Irecv`` instead of ``MPI_Ialltoallv``.
    threads : int, default 1
        Threads per rank for the FFTs and the pack/unpack copies.
    backend : {"fftw", "ducc0", "auto"}
        1-D FFT library (``"auto"``: timed once per plan, the same on every rank).
    ranks_per_node : int, default 0
        Engine ``"node"``: pretend nodes of this many ranks (0: the real nodes).
    wisdom_file : str or path, optional
        Autotuning memory (JSON): earlier choices are reused without measuring.
    verbose : bool, default False
        Print the autotuner's candidate table on rank 0 (also :meth:`tuning_report`).

    The keyword options are those of the library's option table (:func:`plan_options` lists
    them with their types and defaults; an unknown keyword is a TypeError naming them all);
    ``placement`` and ``padding`` are Python's forms of ``rank_order`` and ``spectral_shape``.

    Raises
    ------
    VolfftError
        (a ValueError) invalid values: shape, grid not matching ``comm.size``, unknown names,
        a placement that is not a permutation, arguments differing between ranks.
    TypeError
        Arguments of the wrong type (``comm`` not an mpi4py communicator, ``dtype`` not one of
        the four supported, real dtype for c2c).

    Examples
    --------
    >>> from mpi4py import MPI
    >>> with volfft.Plan(MPI.COMM_WORLD, (64, 64, 64)) as plan:
    ...     u = volfft.scatter(plan, global_array)
    ...     u_hat = plan.forward(u)
    """

    def __init__(
        self,
        comm: Any,
        shape: Sequence[int],
        dtype: Any = np.complex128,
        kind: str = "c2c",
        *,
        placement: Any = None,
        padding: Any = None,
        in_array: Any = None,
        out_array: Any = None,
        **options: Any,
    ) -> None:
        self._native = None  # set last: a failed construction leaves a closed plan
        from mpi4py import MPI

        if not isinstance(comm, MPI.Comm):
            raise TypeError(
                f"comm: expected an mpi4py.MPI.Comm (e.g. MPI.COMM_WORLD), got {type(comm).__name__}"
            )
        if comm == MPI.COMM_NULL:
            raise VolfftError("comm: expected a valid communicator, got MPI.COMM_NULL")
        # Check types and names on every rank, then agree: an argument wrong on one rank only
        # must raise everywhere, not leave the other ranks waiting inside the library.
        error: Optional[Exception] = None
        given_padding = None  # padding as compared between ranks: a number or a tuple, never an array
        placed = None  # the placement's rank order, compared here to name placement, not rank_order
        try:
            kind = _check_kind(kind)
            sizes = _check_shape(shape)
            precision, input_dtype, output_dtype = _check_dtype(dtype, kind)
            spectral = sizes
            real_grid = _padded_grid(sizes, padding)
            if padding is not None:
                given_padding = padding if np.isscalar(padding) else tuple(padding)
            library_options = _library_options(options, placement, spectral if padding is not None else None)
            if placement is not None:
                placed = library_options["rank_order"]
                _check_placement(placed, comm.Get_size())
            native().check_options(library_options)  # types and values, by the library's table
            user = _user_arrays(in_array, out_array, tuple(sizes), padding, library_options)
        except (TypeError, ValueError) as e:
            error = e
        # padding becomes the grid the library is given: compared as the user gave it, or the
        # library's message would name a shape no rank passed.
        agree_on_errors(comm, error, same={"padding": given_padding, "placement": placed})
        handle = native().Plan(comm, list(real_grid), kind, precision, library_options, *user)
        scale_backward = library_options.get("scale_backward", True)
        scale_forward = library_options.get("scale_forward", False)
        self._comm = comm
        self._shape = tuple(real_grid)   # the transform's grid: the forward input
        self._spectral = tuple(spectral)  # the forward output's global box (padded: smaller)
        self._kind = kind
        self._input_dtype = input_dtype
        self._output_dtype = output_dtype
        self._scale_backward = bool(scale_backward)
        self._scale_forward = bool(scale_forward)
        self._precision = precision
        # Geometry is fixed for the plan's life: read it once, so each call checks arrays
        # against Python tuples instead of crossing into C++.
        d = len(sizes)
        self._grid = tuple(handle.grid())
        self._engine = handle.engine()
        self._layout = handle.layout()
        self._backend = handle.backend()
        self._grid_position = tuple(handle.grid_position())
        # Each side's array: the owned box (input_box/output_box), and the box of the local array
        # (larger with the user's ghost layers), which the arrays' shapes and views follow.
        # (A plan of more than 3 axes: the extension's boxes are those of the first three axes, and
        # every rank holds the trailing axes whole.)
        trailing = tuple(real_grid[3:])
        self._input_part = LocalBox.from_native(handle.input_array(), d, trailing)
        self._output_part = LocalBox.from_native(handle.output_array(), d, trailing)
        # (An in-place r2c plan's own input storage is its padded rows: its arrays are views of
        # the box, which _in_place_view makes; only the user's storage widens the arrays.)
        sides = [part.storage if given is not None else part.box
                 for part, given in ((self._input_part, user[0]), (self._output_part, user[1]))]
        self._input_box, self._output_box = sides
        self._ghosts = any(box != part.box for box, part in zip(sides, (self._input_part, self._output_part)))
        self._reshapes = tuple(bool(r) for r in handle.reshapes())
        self._input_order = tuple(handle.input_order())
        self._output_order = tuple(handle.output_order())
        # Batched fields: the arrays carry one more axis, the field index, slowest (batch_layout
        # "outer") or fastest ("inner"); the boxes and orders above stay those of one field.
        self._batch = int(library_options.get("batch", 1))
        inner = library_options.get("batch_layout", "outer") == "inner"
        self._field_axis: Optional[int] = None if self._batch == 1 else (d if inner else 0)
        self._input_shape = self._with_field(self._extents(self._input_box), self._batch)
        self._output_shape = self._with_field(self._extents(self._output_box), self._batch)
        self._workspace_bytes = int(handle.workspace_bytes())
        self._in_place = bool(library_options.get("in_place", False))
        self._destroy_input = bool(library_options.get("destroy_input", False))
        given_kinds = library_options.get("kinds") or ()
        self._kinds = tuple(str(k) for k in given_kinds) or tuple(
            "r2c" if kind == "r2c" and a == len(sizes) - 1 else "dft" for a in range(len(sizes)))
        self._in_place_bytes = int(handle.in_place_bytes())
        # [input side, output side]: where an input with other memory is copied (_memory).
        self._staging: list = [None, None]
        self._native = handle
        _warn_if_threads_share_cores(int(library_options.get("threads", 1)))

    # ------------------------------------------------------------------ geometry
    def _with_field(self, values: Tuple[int, ...], field: int) -> Tuple[int, ...]:
        """``values`` (one per axis) with ``field`` inserted at the field axis (batched plans)."""
        if self._field_axis is None:
            return tuple(values)
        values = list(values)
        values.insert(self._field_axis, field)
        return tuple(values)

    @staticmethod
    def _extents(box: Tuple[Tuple[int, ...], Tuple[int, ...]]) -> Tuple[int, ...]:
        lo, hi = box
        return tuple(b - a for a, b in zip(lo, hi))

    @property
    def comm(self) -> Any:
        """The plan's communicator."""
        return self._comm

    @property
    def shape(self) -> Tuple[int, ...]:
        """Global shape of the forward input."""
        return self._shape

    @property
    def output_global_shape(self) -> Tuple[int, ...]:
        """Global shape of the forward output (r2c: last axis ``m // 2 + 1``); with ``padding``
        the spectral box ``m`` (the ``shape`` given), else the transform's ``shape``."""
        if self._kind == "r2c":
            return self._spectral[:-1] + (self._spectral[-1] // 2 + 1,)
        return self._spectral

    @property
    def spectral_shape(self) -> Tuple[int, ...]:
        """The spectral box ``m``: the ``shape`` given with ``padding``, else :attr:`shape`."""
        return self._spectral

    def tuning_report(self) -> str:
        """What the autotuner measured and chose ("" when the plan was not tuned)."""
        return self._live().tuning_report()

    @property
    def ndim(self) -> int:
        """2 or 3."""
        return len(self._shape)

    @property
    def kind(self) -> str:
        """``"c2c"``, ``"r2c"`` or ``"r2r"``."""
        return self._kind

    @property
    def dtype(self) -> np.dtype:
        """dtype of the forward input (same as :attr:`input_dtype`)."""
        return self._input_dtype

    @property
    def input_dtype(self) -> np.dtype:
        """dtype of the forward input / backward output (real for r2c and r2r)."""
        return self._input_dtype

    @property
    def output_dtype(self) -> np.dtype:
        """dtype of the forward output / backward input (complex; real for r2r)."""
        return self._output_dtype

    @property
    def grid(self) -> Tuple[int, int]:
        """The process grid ``(p0, p1)`` in use (chosen when ``grid="auto"``)."""
        return self._grid  # type: ignore[return-value]

    @property
    def grid_position(self) -> Tuple[int, int]:
        """This rank's position ``(i, j)`` in the library's virtual grid."""
        return self._grid_position  # type: ignore[return-value]

    @property
    def engine(self) -> str:
        """The exchange engine in use (chosen when ``engine="auto"``)."""
        return self._engine

    @property
    def layout(self) -> str:
        """``"transposed"`` or ``"natural"``."""
        return self._layout

    @property
    def backend(self) -> str:
        """The FFT backend in use, ``"fftw"`` or ``"ducc0"`` (chosen when ``backend="auto"``; FFTW
        where ducc0 cannot run on some rank, see docs/performance.md)."""
        return self._backend

    @property
    def scale_backward(self) -> bool:
        """Whether :meth:`backward` multiplies by ``1/N``."""
        return self._scale_backward

    @property
    def scale_forward(self) -> bool:
        """Whether :meth:`forward` multiplies by ``1/N``."""
        return self._scale_forward

    @property
    def input_order(self) -> Tuple[int, ...]:
        """Memory order of the local input: global axes from slowest to fastest."""
        return self._input_order

    @property
    def output_order(self) -> Tuple[int, ...]:
        """Memory order of the local output: global axes from slowest to fastest.

        The output array's memory is ``global_output[plan.local_slice(True)].transpose(order)``
        (its :attr:`LocalArray.memory`).
        """
        return self._output_order

    @property
    def input_shape(self) -> Tuple[int, ...]:
        """Shape of this rank's input array: its box extents, in global axis order."""
        return self._input_shape

    @property
    def output_shape(self) -> Tuple[int, ...]:
        """Shape of this rank's output array: its box extents, in global axis order."""
        return self._output_shape

    @property
    def input_box(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """This rank's input index box ``(lo, hi)`` in global axes, half-open (the owned box:
        without the ghost layers of an ``in_array`` that has them)."""
        return self._input_part.box

    @property
    def output_box(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """This rank's output index box ``(lo, hi)`` in global axes, half-open (the owned box)."""
        return self._output_part.box

    @property
    def input_part(self) -> LocalBox:
        """This rank's input array: box, memory order and storage (with ghost layers)."""
        return self._input_part

    @property
    def output_part(self) -> LocalBox:
        """This rank's output array: box, memory order and storage."""
        return self._output_part

    @property
    def reshapes(self) -> Tuple[bool, bool]:
        """Whether the plan reshapes between the user's arrays and its own, (input, output):
        False on a side whose ``in_array``/``out_array`` is the plan's own on every rank."""
        return self._reshapes

    @property
    def workspace_bytes(self) -> int:
        """Bytes of workspace the plan holds on this rank."""
        return self._workspace_bytes

    @property
    def batch(self) -> int:
        """Fields per array (``batch=``); above 1 the arrays have a field axis: the first
        (``batch_layout="outer"``, shape ``(batch, ...)``) or the last (``"inner"``)."""
        return self._batch

    @property
    def kinds(self) -> Tuple[str, ...]:
        """The transform along each axis: ``"dft"``, ``"r2c"``, ``"dct1"``..``"dst4"`` or ``"none"``."""
        return self._kinds

    @property
    def in_place(self) -> bool:
        """Whether this is an in-place plan (``in_place=True``)."""
        return self._in_place

    @property
    def in_place_bytes(self) -> int:
        """Bytes of the one buffer an in-place plan transforms on this rank: the larger side."""
        return self._in_place_bytes

    @property
    def staging_bytes(self) -> int:
        """Bytes of the staging arrays this Plan object holds on this rank.

        0 until a transform is given an input whose memory is not in the plan's order (then a
        copy of it is made there, once per call, into an array kept for the next time).
        """
        return sum(a.nbytes for a in self._staging if a is not None)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._native is None

    def local_slice(self, forward_output: bool = False) -> Tuple[slice, ...]:
        """The global index slices this rank holds, in global axis order.

        Parameters
        ----------
        forward_output : bool
            False: the forward input (backward output); True: the forward output.

        Returns
        -------
        tuple of slice
            ``global_array[plan.local_slice()]`` is this rank's block (the local arrays are
            indexed the same way).
        """
        (lo, hi), _, _, _ = self._side(forward_output)
        return tuple(slice(a, b) for a, b in zip(lo, hi))

    def input_array(self) -> LocalArray:
        """A zeroed array for the forward input: :attr:`input_shape`, :attr:`input_dtype`.

        Indexed by global axes over memory in :attr:`input_order`. Its data is 64-byte aligned,
        which lets FFTW use its SIMD plans; other arrays with memory in that order are accepted
        too but may run a slower plan.
        """
        self._live()
        return self._new_array(forward_output=False)

    def output_array(self) -> LocalArray:
        """A zeroed array for the forward output: :attr:`output_shape`, :attr:`output_dtype`.

        Indexed by global axes over memory in :attr:`output_order`; 64-byte aligned, like
        :meth:`input_array`.
        """
        self._live()
        return self._new_array(forward_output=True)

    def _new_array(self, forward_output: bool) -> LocalArray:
        if self._in_place:  # one buffer that holds both sides
            return self._in_place_view(aligned_zeros((self._in_place_bytes,), np.uint8), forward_output)
        box, order, dtype, shape = self._side(forward_output)
        memory = aligned_zeros(tuple(box[1][a] - box[0][a] for a in order), dtype)
        return LocalArray.over(memory, shape, box, order)

    def _in_place_memory_shape(self, forward_output: bool) -> Tuple[int, ...]:
        """Shape of one side's memory in an in-place buffer (r2c input: padded rows; a batch's
        fields outermost)."""
        box, order, _, _ = self._side(forward_output)
        shape = tuple(box[1][a] - box[0][a] for a in order)
        if not forward_output and self._kind == "r2c":
            shape = shape[:-1] + (2 * (self._shape[-1] // 2 + 1),)
        return shape

    def _in_place_view(self, buffer: np.ndarray, forward_output: bool) -> LocalArray:
        """One side's global-axes view of an in-place buffer (1-D uint8, in_place_bytes)."""
        box, order, dtype, shape = self._side(forward_output)
        memory_shape = self._in_place_memory_shape(forward_output)
        count = int(np.prod(memory_shape, dtype=np.int64))
        memory = buffer[:count * dtype.itemsize].view(dtype).reshape(memory_shape)
        if not forward_output and self._kind == "r2c":
            memory = memory[..., :box[1][-1] - box[0][-1]]  # the data, without the row padding
        return LocalArray.over(memory, shape, box, order)

    def _check_array(self, name: str, array: Any, forward_output: bool) -> None:
        """Type, dtype and local shape of a caller's array for one side (TypeError/VolfftError)."""
        _, _, dtype, _ = self._side(forward_output)
        shape = self._output_shape if forward_output else self._input_shape
        side = "output" if forward_output else "input"
        if not isinstance(array, np.ndarray):
            raise TypeError(f"{name}: expected a numpy.ndarray, got {type(array).__name__}")
        if array.dtype != dtype:
            raise TypeError(
                f"{name}: expected dtype {dtype} (a {self._kind} plan in {self._precision} "
                f"precision), got {array.dtype}"
            )
        if array.shape != shape:
            raise VolfftError(
                f"{name}: expected this rank's block of the forward {side}, shape {shape} in "
                f"global axes (plan.{side}_shape), got {array.shape}"
            )

    def _in_place_buffer(self, name: str, array: Any, forward_output: bool) -> np.ndarray:
        """The in-place buffer (1-D uint8 of in_place_bytes) that ``array`` is the view of."""
        self._check_array(name, array, forward_output)
        _, order, dtype, _ = self._side(forward_output)
        side = "output" if forward_output else "input"
        # The strides of the plan's view, in global axes: C order over the memory shape.
        memory_shape = self._in_place_memory_shape(forward_output)
        memory_strides = [dtype.itemsize] * len(memory_shape)
        for k in range(len(memory_shape) - 2, -1, -1):
            memory_strides[k] = memory_strides[k + 1] * memory_shape[k + 1]
        strides = [0] * len(order)
        for k, axis in enumerate(order):
            strides[axis] = memory_strides[k]
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        offset = array.ctypes.data - root.ctypes.data
        same_layout = array.size == 0 or all(e <= 1 or st == want
                                             for e, st, want in zip(array.shape, array.strides, strides))
        made_here = (same_layout
                     and root.flags.c_contiguous and 0 <= offset
                     and offset + self._in_place_bytes <= root.nbytes)
        if not made_here:
            raise VolfftError(
                f"{name}: an in-place plan transforms the buffer behind its arrays: expected an array from "
                f"plan.{side}_array() or returned by forward/backward (a view of {self._in_place_bytes} bytes, "
                f"plan.in_place_bytes)")
        if not array.flags.writeable:
            raise VolfftError(f"{name}: expected a writable array, got a read-only one")
        return np.ndarray((self._in_place_bytes,), np.uint8, buffer=root.reshape(-1).view(np.uint8), offset=offset)

    def _run_in_place(self, name: str, given: Any, out: Any, forward: bool, split: bool) -> Any:
        """forward/backward (split: their _start forms) of an in-place plan."""
        handle = self._live()
        try:
            buffer = self._in_place_buffer(name, given, forward_output=not forward)
            if out is not None and (not isinstance(out, np.ndarray) or out.ctypes.data != given.ctypes.data):
                raise VolfftError(f"out: an in-place plan writes its result into {name}'s memory; pass out={name} "
                                  f"or leave it out")
        except (TypeError, ValueError) as problem:
            fail_call(handle, problem)
        result = self._in_place_view(buffer, forward_output=forward)
        with native_call():
            if split:
                return Request(handle.in_place_start(forward, buffer), (buffer, buffer), result)
            handle.in_place(forward, buffer)
        return result

    def _side(self, forward_output: bool):
        """(box, memory order, dtype, global shape) of the forward output's or input's arrays:
        with the field axis of a batched plan (global index 0 .. batch - 1 on every rank)."""
        if forward_output:
            box, order, dtype, shape = self._output_box, self._output_order, self._output_dtype, self.output_global_shape
        else:
            box, order, dtype, shape = self._input_box, self._input_order, self._input_dtype, self._shape
        if self._field_axis is None:
            return box, order, dtype, shape
        f = self._field_axis
        order = (0,) + tuple(a + 1 for a in order) if f == 0 else tuple(order) + (f,)
        return ((self._with_field(box[0], 0), self._with_field(box[1], self._batch)), order, dtype,
                self._with_field(shape, self._batch))

    def wavenumbers(self) -> Tuple[np.ndarray, ...]:
        """Integer frequencies of this rank's output, one array per global axis.

        ``k[d]`` holds the frequency along global axis ``d`` (numpy's ``fftfreq(n) * n``:
        ``0, 1, ..., -2, -1``; the r2c last axis ``0 .. n // 2``; an r2r or ``none`` axis the
        index ``0 .. n - 1``: a ``dct2`` of ``n`` points spaced ``h`` has the wavenumber
        ``pi * k / (n h)``, other kinds their own), shaped ``1`` on every other
        axis to broadcast against the output (indexed by global axes, as numpy's meshgrid with
        ``sparse=True``): ``(k[0]**2 + k[1]**2 + k[2]**2) * u_hat``.

        Returns
        -------
        tuple of numpy.ndarray (int64)
            ``ndim`` arrays, indexed by global axis.
        """
        lo, hi = self._output_box
        waves = []
        for axis, n in enumerate(self._spectral):
            index = np.arange(lo[axis], hi[axis], dtype=np.int64)
            if self._kinds[axis] == "dft":
                index = np.where(index < (n + 1) // 2, index, index - n)
            shape = [1] * self.ndim
            shape[axis] = index.size
            waves.append(index.reshape(self._with_field(tuple(shape), 1)))  # batched: broadcast over fields
        return tuple(waves)

    # ------------------------------------------------------------------ transforms
    def _live(self):
        if self._native is None:
            raise VolfftError("plan: the plan is closed; create a new Plan")
        return self._native

    def _memory(self, name: str, array: Any, forward_output: bool, writable: bool,
                staging: Optional[str] = None, scratch: bool = False) -> np.ndarray:
        """The C-contiguous memory-order view of a caller's array in global axes.

        Accepted without a copy: an ndarray of the side's dtype and local shape (global axes)
        whose memory is in the side's order, as every array volfft gives out is. An array of
        that shape and dtype with other memory (``-k2 * u_hat``: numpy lays out the results of
        broadcasting in C order) is copied when ``staging`` allows it: ``"plan"`` (a transform's
        input, which it does not modify) into the plan's staging array for that side, allocated
        on first need and reused; ``"new"`` into a new array. Anything else is refused with what
        was expected. ``scratch``: the library may write into the array (``destroy_input``), so a
        read-only one is copied too (into the staging array; a read-only memory map would
        otherwise crash the process, and a read-only numpy array change behind its flag).
        """
        self._check_array(name, array, forward_output)
        _, order, _, _ = self._side(forward_output)
        side = "output" if forward_output else "input"
        memory = array.transpose(order)
        if not memory.flags.c_contiguous and staging == "new":
            return np.ascontiguousarray(memory)
        copy = not memory.flags.c_contiguous or (scratch and not array.flags.writeable)
        if copy and staging == "plan":
            if self._staging[forward_output] is None:
                self._staging[forward_output] = self._new_array(forward_output)
            np.copyto(self._staging[forward_output], array)
            return self._staging[forward_output].memory
        if not memory.flags.c_contiguous:
            raise VolfftError(
                f"{name}: expected an array whose memory is in the plan's {side} order {order} "
                f"(global axes, slowest first), as plan.{side}_array() makes it"
            )
        if writable and not array.flags.writeable:
            raise VolfftError(f"{name}: expected a writable array, got a read-only one")
        return memory

    def _arrays(self, name: str, given: Any, out: Optional[np.ndarray], forward: bool):
        """Checks a call's arrays (allocating ``out`` when omitted).

        Returns (native plan, memory of ``given``, ``out``, memory of ``out``). A problem is
        agreed with the other ranks before it is raised (the same collective the library runs
        on its own checks), so one rank's bad array fails every rank's call instead of leaving
        the others waiting in the transform.
        """
        handle = self._live()
        try:
            given_memory = self._memory(name, given, not forward, False, staging="plan",
                                        scratch=self._destroy_input)
            if out is None:
                out = allocated(lambda: self._new_array(forward_output=forward), "output" if forward else "input")
                return handle, given_memory, out, out.memory
            if isinstance(out, np.ndarray) and np.may_share_memory(given, out):
                raise VolfftError(f"out: expected an array that does not overlap {name} (make the plan with "
                                  f"in_place=True to transform in place)")
            out_memory = self._memory("out", out, forward, True)
            return handle, given_memory, out, out_memory
        except (TypeError, ValueError) as problem:
            fail_call(handle, problem)

    def forward(self, a: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Forward transform (unscaled). Collective.

        Parameters
        ----------
        a : numpy.ndarray
            This rank's input in global axes (:meth:`input_array`, :func:`volfft.scatter` or
            what :meth:`backward` returned): shape :attr:`input_shape`, dtype
            :attr:`input_dtype`, memory in :attr:`input_order`. Not modified (in-place plans:
            overwritten; ``a`` must then be a view of an in-place buffer, see ``in_place``).
        out : numpy.ndarray, optional
            Where to write the output (:meth:`output_array`): shape :attr:`output_shape`,
            dtype :attr:`output_dtype`, memory in :attr:`output_order`, not overlapping ``a``.
            Allocated when omitted. In-place plans: ``a`` itself, or omitted.

        Returns
        -------
        LocalArray
            ``out``: this rank's block of the spectrum, indexed by global axes (in-place plans:
            the output view of ``a``'s buffer).
        """
        if self._in_place:
            return self._run_in_place("a", a, out, forward=True, split=False)
        handle, memory, out, out_memory = self._arrays("a", a, out, forward=True)
        with native_call():
            handle.forward(memory, out_memory)
        return out

    def backward(self, b: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Backward transform, scaled by ``1/N`` when ``scale_backward``. Collective.

        Parameters
        ----------
        b : numpy.ndarray
            This rank's spectrum, as :meth:`forward` returned it (or :meth:`output_array`):
            shape :attr:`output_shape` in global axes, dtype :attr:`output_dtype`, memory in
            :attr:`output_order`. Not modified (in-place plans: overwritten).
        out : numpy.ndarray, optional
            Shape :attr:`input_shape`, dtype :attr:`input_dtype`, memory in
            :attr:`input_order`, not overlapping ``b``. Allocated when omitted. In-place
            plans: ``b`` itself, or omitted.

        Returns
        -------
        LocalArray
            ``out`` (in-place plans: the input view of ``b``'s buffer).
        """
        if self._in_place:
            return self._run_in_place("b", b, out, forward=False, split=False)
        handle, memory, out, out_memory = self._arrays("b", b, out, forward=False)
        with native_call():
            handle.backward(memory, out_memory)
        return out

    def forward_start(self, a: np.ndarray, out: Optional[np.ndarray] = None) -> "Request":
        """Start :meth:`forward` and return before it completes (split phase). Collective.

        The first exchange is in flight when this returns (engines alltoallv, persistent and
        p2p; other engines finish it here). Compute something else, call ``request.test()`` now and
        then to let MPI progress, and ``request.wait()`` to finish; it returns ``out``. Until
        then ``a`` and ``out`` belong to volfft and the plan takes no other call.
        """
        if self._in_place:
            return self._run_in_place("a", a, out, forward=True, split=True)
        handle, memory, out, out_memory = self._arrays("a", a, out, forward=True)
        with native_call():
            return Request(handle.forward_start(memory, out_memory), (memory, out_memory), out)

    def backward_start(self, b: np.ndarray, out: Optional[np.ndarray] = None) -> "Request":
        """Start :meth:`backward` and return before it completes; see :meth:`forward_start`."""
        if self._in_place:
            return self._run_in_place("b", b, out, forward=False, split=True)
        handle, memory, out, out_memory = self._arrays("b", b, out, forward=False)
        with native_call():
            return Request(handle.backward_start(memory, out_memory), (memory, out_memory), out)

    # ------------------------------------------------------------------ measuring
    def timings(self, direction: str = "forward", max_over_ranks: bool = False) -> Dict[str, float]:
        """Seconds per phase of the last :meth:`forward` or :meth:`backward` call.

        Parameters
        ----------
        direction : {"forward", "backward"}
        max_over_ranks : bool
            False: this rank's times. True: each phase's maximum over the ranks (collective).

        Returns
        -------
        dict
            Phase name (``"fft2"``, ``"pack_row"``, ``"exchange_row"``, ...) -> seconds, in
            pipeline order.
        """
        handle = self._live()
        problem = None
        if direction not in ("forward", "backward"):
            problem = VolfftError(f"direction: expected 'forward' or 'backward', got {direction!r}")
        if max_over_ranks:  # collective: a bad direction on one rank fails every rank
            if problem is not None:
                fail_call(handle, problem)
            with native_call():
                handle.agree_on_problem("")
        elif problem is not None:
            raise problem
        return dict(handle.timings(direction, bool(max_over_ranks)))

    def describe(self) -> Dict[str, Any]:
        """This plan's description (the dict :func:`describe` returns), as it was built."""
        return model_description(self._live().description())

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Free the plan's FFTW plans, buffers and communicators. Collective; idempotent."""
        self._release(unwinding=False)

    def _release(self, unwinding: bool) -> None:
        """close(); ``unwinding``: this rank leaves by an exception, maybe alone, so a split-phase
        transform still pending is abandoned rather than completed (completing it is collective,
        and the other ranks may never come), as C++ destroys a plan while unwinding. Its
        request's wait() then raises; the plan is closed either way."""
        if self._native is not None:
            handle, self._native = self._native, None
            self._staging = [None, None]
            if unwinding:
                handle.close_unwinding()
            else:
                handle.close()

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, exc_type: Any, *exc_info: Any) -> None:
        self._release(unwinding=exc_type is not None)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"grid={self._grid}, engine={self._engine!r}"
        return (
            f"volfft.Plan(shape={self._shape}, kind={self._kind!r}, dtype={self._input_dtype}, "
            f"layout={self._layout!r}, {state})"
        )
