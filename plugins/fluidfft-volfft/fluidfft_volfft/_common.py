"""What the 2-D and 3-D fluidfft classes over volfft share.

fluidfft's arrays are plain C-contiguous numpy arrays: real-space arrays indexed like the
global array (``(n0, n1[, n2])`` = ``(z,) y, x``), spectral arrays indexed in the axis order
``get_dimX_K()`` (spectral axis ``i`` is real-space axis ``dimX_K[i]``). volfft's local arrays
are views indexed by global axes over memory in the plan's order (``plan.input_order``,
``plan.output_order``). So a fluidfft spectral array of shape ``get_shapeK_loc()`` *is* the
memory of volfft's forward output when ``dimX_K == plan.output_order``: the classes choose it
so, and hand volfft ``fieldK.transpose(argsort(order))`` (a view, no copy), which volfft reads
back as memory in its own order, again without a copy.

Normalisation: fluidfft's ``fft`` is scaled by ``1/N`` and its ``ifft`` is not. Plans are made
with ``scale_forward=True, scale_backward=False`` (numpy's ``norm="forward"``): volfft folds the
``1/N`` into its first exchange's copies, so no pass over the spectral array is added.
"""
from __future__ import annotations

import os
import re
from time import perf_counter
from typing import Any, Dict, Optional, Tuple

import numpy as np
from mpi4py import MPI

#: Environment variable with volfft plan options for every plan the plugin makes, e.g.
#: ``FLUIDFFT_VOLFFT_OPTIONS="grid=2x2,engine=alltoallv,effort=estimate,threads=2"``.
#: fluidfft builds its FFT classes from the grid sizes only, so this (or a subclass's
#: ``plan_options``) is the way to choose volfft's options.
OPTIONS_VARIABLE = "FLUIDFFT_VOLFFT_OPTIONS"

# The plugin's defaults: FFTW_MEASURE, as fluidfft's own FFTW back-ends use.
DEFAULT_OPTIONS: Dict[str, Any] = {"effort": "measure"}

# Options the plugin sets itself: fluidfft fixes the transform (real, double, its scaling, one
# field per call, the input kept: only ifft_as_arg_destroy may overwrite it, and fluidsim relies
# on that).
_FIXED = ("scale_backward", "scale_forward", "in_place", "kind", "kinds", "dtype", "padding", "spectral_shape",
          "batch", "batch_layout", "destroy_input")

_ALIGNMENT = 64  # bytes: volfft plans FFTW on cache-line aligned buffers


def empty_aligned(shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised C-contiguous array whose data starts on a 64-byte boundary.

    volfft's FFTW plans are made for such buffers; an array of another alignment still works
    (a second, slower FFTW plan runs), so only the arrays made here need it.
    """
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.empty(count * dtype.itemsize + _ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


def _parse_value(text: str) -> Any:
    text = text.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?\d+(:[+-]?\d+)+", text):  # a list of integers (rank_order=3:2:1:0)
        return tuple(int(v) for v in text.split(":"))
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_options(text: Optional[str]) -> Dict[str, Any]:
    """``"grid=2x2,engine=alltoallv,threads=2"`` -> ``{"grid": "2x2", ...}``; integers become
    ints, true/false bools, colon-separated integers a tuple (``rank_order=3:2:1:0``)."""
    options: Dict[str, Any] = {}
    if not text:
        return options
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{OPTIONS_VARIABLE}: expected name=value items separated by commas, "
                             f"got {item!r} in {text!r}")
        options[key.strip()] = _parse_value(value)
    return options


def plan_options(cls_options: Dict[str, Any]) -> Dict[str, Any]:
    """The volfft options of a plan: defaults < the class's ``plan_options`` < environment."""
    options = dict(DEFAULT_OPTIONS)
    options.update(cls_options)
    options.update(parse_options(os.environ.get(OPTIONS_VARIABLE)))
    fixed = sorted(set(options) & set(_FIXED))
    if fixed:
        raise ValueError(f"fluidfft-volfft: {', '.join(fixed)} cannot be chosen: fluidfft fixes the "
                         "transform (real to complex, double precision, 1/N on the forward side, one "
                         "field per call, the input of ifft_as_arg kept)")
    return options


def k_adim_seq(n: int, is_r2c_axis: bool) -> np.ndarray:
    """fluidfft's integer wavenumbers of one axis: ``0 .. n//2`` on the r2c axis, else
    ``0, 1, .., n//2, -((n-1)//2), .., -1`` (fluidfft's convention: the Nyquist mode of an
    even axis counts as positive, where numpy's fftfreq says negative)."""
    if is_r2c_axis:
        return np.arange(n // 2 + 1)
    return np.r_[0:n // 2 + 1, -((n - 1) // 2):0]


class VolfftFFTBase:
    """The methods of a fluidfft FFT class over one volfft r2c plan (2-D or 3-D).

    Subclasses call :meth:`_use_plan` with a plan whose ``output_order`` fluidfft's operators
    understand; everything else (shapes, wavenumbers, transforms, reductions, gather/scatter)
    follows from the plan's boxes and orders.
    """

    #: volfft options for this class's plans (below the environment variable, above the
    #: defaults). A subclass may set e.g. ``{"grid": "2x2", "engine": "alltoallv"}``.
    plan_options: Dict[str, Any] = {}

    _dtype_spatial = np.float64
    _dtype_spectral = np.complex128

    # ------------------------------------------------------------------ setup
    def _use_plan(self, plan: Any) -> None:
        ndim = plan.ndim
        order = tuple(int(a) for a in plan.output_order)
        if tuple(plan.input_order) != tuple(range(ndim)):
            # fluidfft's real arrays are C order in global axes; volfft takes them without a
            # copy only when its input memory is C order too (every volfft plan's is).
            raise NotImplementedError(
                f"fluidfft-volfft: volfft input order {plan.input_order} is not C order")
        self._plan = plan
        self._comm = plan.comm
        self._ndim = ndim
        self._order = order
        # fieldK.transpose(self._K_to_global) is fluidfft's array seen by global axes: volfft's
        # view of the same memory (no copy).
        self._K_to_global = tuple(int(a) for a in np.argsort(order))
        self._shapeX_seq = tuple(int(n) for n in plan.shape)
        self._shapeX_loc = tuple(int(n) for n in plan.input_shape)
        self._shapeK_seq = tuple(int(plan.output_global_shape[a]) for a in order)
        self._shapeK_loc = tuple(int(plan.output_shape[a]) for a in order)
        self._first_X = tuple(int(v) for v in plan.input_box[0])
        first_K = [int(plan.output_box[0][a]) for a in order]
        # A rank holding no kx (the r2c axis; np > nx // 2 + 1) reports its first kx as 1,
        # not as its empty box's start. fluidfft's OperatorsPseudoSpectral3D (its spectra:
        # _compute_spectrum3d_loc) halves the plane kx = 0 where that start is 0 and the
        # Nyquist plane where start + nkx_loc == nx // 2 + 1 with nx even, indexing the local
        # array at 0 or -1 along kx: an IndexError on the empty rank alone, while the others
        # went on into the spectra's allreduce and waited (shape (2, 3, 4) at np 4: rank 3's
        # start was 3 == 4 // 2 + 1). 1 is neither (nx even: nx // 2 + 1 >= 2), and the start of
        # an empty block selects nothing anywhere else (get_k_adim_loc slices [1:1]).
        kx_axis = order.index(ndim - 1)
        if int(plan.output_shape[ndim - 1]) == 0:
            first_K[kx_axis] = 1
        self._first_K = tuple(first_K)
        self._coef_norm = int(np.prod(self._shapeX_seq, dtype=np.int64))
        self._inv_coef_norm = 1.0 / self._coef_norm
        self.shapeX = self._shapeX_loc  # what fluiddyn's BaseFFT.run_tests reads
        self.shapeK = self._shapeK_loc
        self.nb_proc = self._comm.size
        self.rank = self._comm.rank
        self.comm = self._comm
        # Decided from the communicator, the same on every rank: a rank that happens to hold
        # the whole real-space array (every other rank empty) must still take part in
        # gather_Xspace/scatter_Xspace's collectives.
        self._is_mpi_lib = self._comm.size > 1

        # The half spectrum: modes kx > 0 stand for themselves and their conjugates (weight
        # 2), but kx = 0 and, for even nx, the Nyquist mode kx = nx/2 appear once. Where those
        # planes lie in this rank's spectral array, as index tuples (None: not on this rank).
        last = ndim - 1  # the r2c axis (x), global
        axis = order.index(last)  # its position in fluidfft's spectral arrays
        lo, hi = plan.output_box[0][last], plan.output_box[1][last]
        nx = self._shapeX_seq[last]

        def plane(k: int) -> Optional[Tuple[Any, ...]]:
            if not lo <= k < hi:
                return None
            index: list = [slice(None)] * ndim
            index[axis] = k - lo
            return tuple(index)

        self._plane_kx0 = plane(0)
        self._plane_nyquist = plane(nx // 2) if nx % 2 == 0 and nx // 2 > 0 else None

    def close(self) -> None:
        """Free volfft's plan (collective). The object is unusable afterwards."""
        self._plan.close()

    @property
    def plan(self) -> Any:
        """The :class:`volfft.Plan` doing the work (grid, engine, timings, describe())."""
        return self._plan

    @property
    def _numpy_api(self):
        """The array module of this class's arrays (fluidfft's 2-D operators ask)."""
        return np

    def get_short_name(self) -> str:
        return self.__class__.__name__.lower()

    # ------------------------------------------------------------------ shapes
    def get_shapeX_loc(self) -> Tuple[int, ...]:
        """Local shape in real space (C order, global axes: (z,) y, x)."""
        return self._shapeX_loc

    def get_shapeX_seq(self) -> Tuple[int, ...]:
        """Global shape in real space."""
        return self._shapeX_seq

    def get_shapeK_loc(self) -> Tuple[int, ...]:
        """Local shape in spectral space, axes in the order ``get_dimX_K()``."""
        return self._shapeK_loc

    def get_shapeK_seq(self) -> Tuple[int, ...]:
        """Global shape in spectral space, axes in the order ``get_dimX_K()``."""
        return self._shapeK_seq

    def get_local_size_X(self) -> int:
        return int(np.prod(self._shapeX_loc, dtype=np.int64))

    def get_seq_indices_first_X(self) -> Tuple[int, ...]:
        """Global index of this rank's first real-space element."""
        return self._first_X

    def get_seq_indices_first_K(self) -> Tuple[int, ...]:
        """Global index (spectral axis order) of this rank's first spectral element."""
        return self._first_K

    def create_arrayX(self, value=None, shape=None) -> np.ndarray:
        """A real-space array (local shape unless ``shape``), filled with ``value`` if given."""
        field = empty_aligned(self._shapeX_loc if shape is None else tuple(shape), np.float64)
        if value is not None:
            field.fill(value)
        return field

    def create_arrayK(self, value=None, shape=None) -> np.ndarray:
        """A spectral array (local shape unless ``shape``), filled with ``value`` if given."""
        field = empty_aligned(self._shapeK_loc if shape is None else tuple(shape), np.complex128)
        if value is not None:
            field.fill(value)
        return field

    # ------------------------------------------------------------------ transforms
    def fft_as_arg(self, fieldX: np.ndarray, fieldK: np.ndarray) -> None:
        """Forward transform of ``fieldX`` into ``fieldK``, scaled by 1/N (fluidfft's fft).

        No allocation and no copy for C-contiguous arrays of the local shapes (fluidfft's):
        volfft reads ``fieldX`` and writes ``fieldK``'s memory directly, scaled on the way (the
        plan's ``scale_forward``). A non-contiguous ``fieldX`` is copied by volfft into a staging
        array kept by the plan; ``fieldK`` must be C-contiguous (volfft refuses otherwise).
        """
        try:
            self._plan.forward(fieldX, out=fieldK.transpose(self._K_to_global))
        except (TypeError, ValueError) as problem:
            self._explain("fft_as_arg", problem, (("fieldX", fieldX, False, False), ("fieldK", fieldK, True, True)))

    def ifft_as_arg(self, fieldK: np.ndarray, fieldX: np.ndarray) -> None:
        """Backward transform of ``fieldK`` into ``fieldX``, unscaled (fluidfft's ifft).

        ``fieldK`` is not modified (volfft's out-of-place backward keeps its input). No
        allocation and no copy for C-contiguous arrays; a non-contiguous ``fieldK`` is copied
        into the plan's staging array first.
        """
        try:
            self._plan.backward(fieldK.transpose(self._K_to_global), out=fieldX)
        except (TypeError, ValueError) as problem:
            self._explain("ifft_as_arg", problem, (("fieldK", fieldK, True, False), ("fieldX", fieldX, False, True)))

    # volfft's out-of-place backward leaves its input as it was: nothing faster to offer.
    ifft_as_arg_destroy = ifft_as_arg

    def _explain(self, method: str, problem: Exception, arguments) -> None:
        """Raise ``problem`` again in fluidfft's terms, on every rank alike.

        volfft refuses a bad array on every rank alike, but names its own arguments (``a``,
        ``out``) and shapes in its global axes, where fluidfft's arrays are ``fieldX``/``fieldK``
        of shapes ``get_shapeX_loc()``/``get_shapeK_loc()``. Every rank is here (the refusal was
        collective), so each checks its own arrays against fluidfft's terms and all raise the same
        message: the ranks whose arrays are wrong, and how. Only on this failing path: a good call
        pays nothing. Each argument: (name, array, spectral, written).
        """
        mine = []
        for name, array, spectral, written in arguments:
            shape = self._shapeK_loc if spectral else self._shapeX_loc
            dtype = np.dtype(np.complex128 if spectral else np.float64)
            if not isinstance(array, np.ndarray):
                mine.append(f"{name} is a {type(array).__name__}, not a numpy.ndarray")
                continue
            if array.dtype != dtype or tuple(array.shape) != shape:
                mine.append(f"{name} has shape {tuple(array.shape)} and dtype {array.dtype}, expected "
                            f"{'get_shapeK_loc()' if spectral else 'get_shapeX_loc()'} = {shape} and {dtype}")
            elif written and not array.flags.c_contiguous:
                mine.append(f"{name} is not C-contiguous (it is written in place: make it with "
                            f"{'create_arrayK' if spectral else 'create_arrayX'} or numpy.ascontiguousarray)")
            elif written and not array.flags.writeable:
                mine.append(f"{name} is read-only")
        everyone = self._comm.allgather("; ".join(mine)) if self._comm.size > 1 else ["; ".join(mine)]
        found = [f"rank {r}: {text}" if self._comm.size > 1 else text for r, text in enumerate(everyone) if text]
        if not found:
            raise problem
        raise type(problem)(f"{method}: " + "; ".join(found)) from problem

    def fft(self, fieldX: np.ndarray) -> np.ndarray:
        """Forward transform, scaled by 1/N; returns a new spectral array."""
        fieldK = empty_aligned(self._shapeK_loc, np.complex128)
        self.fft_as_arg(fieldX, fieldK)
        return fieldK

    def ifft(self, fieldK: np.ndarray) -> np.ndarray:
        """Backward transform, unscaled; returns a new real-space array."""
        fieldX = empty_aligned(self._shapeX_loc, np.float64)
        self.ifft_as_arg(fieldK, fieldX)
        return fieldX

    # ------------------------------------------------------------------ reductions
    def _allreduce(self, value):
        return self._comm.allreduce(value, op=MPI.SUM) if self._comm.size > 1 else value

    def sum_wavenumbers(self, fieldK: np.ndarray):
        """Sum over the whole spectrum of a field given on the half spectrum (kx >= 0).

        Each stored mode counts twice (itself and its conjugate) except the planes kx = 0
        and, for even nx, kx = nx/2. Summed without a weighted copy of the array. Collective.
        """
        total = 2 * fieldK.sum()
        if self._plane_kx0 is not None:
            total -= fieldK[self._plane_kx0].sum()
        if self._plane_nyquist is not None:
            total -= fieldK[self._plane_nyquist].sum()
        return self._allreduce(total)

    def compute_energy_from_X(self, fieldX: np.ndarray) -> float:
        """Mean of fieldX**2 / 2 over the whole domain. Collective."""
        local = float(np.vdot(fieldX, fieldX))
        return self._allreduce(local) * self._inv_coef_norm / 2

    def compute_energy_from_K(self, fieldK: np.ndarray) -> float:
        """sum_wavenumbers(|fieldK|**2) / 2, without the temporary |fieldK|**2. Collective."""
        local = 2 * np.vdot(fieldK, fieldK).real
        for plane in (self._plane_kx0, self._plane_nyquist):
            if plane is not None:
                part = fieldK[plane]
                local -= np.vdot(part, part).real
        return self._allreduce(float(local)) / 2

    compute_energy_from_spatial = compute_energy_from_X
    compute_energy_from_Fourier = compute_energy_from_K

    # ------------------------------------------------------------------ whole arrays
    def gather_Xspace(self, ff_loc: np.ndarray, root: Optional[int] = 0):
        """The global real-space array on ``root`` (None elsewhere); on every rank when
        ``root`` is None. Collective (volfft.gather: one message per rank)."""
        if not self._is_mpi_lib:
            return ff_loc
        import volfft

        local = np.ascontiguousarray(ff_loc, dtype=np.float64)
        whole = volfft.gather(self._plan, local, root=0 if root is None else root,
                              forward_output=False)
        if root is None:
            if whole is None:
                whole = np.empty(self._shapeX_seq, np.float64)
            self._comm.Bcast(whole, root=0)
        return whole

    def scatter_Xspace(self, ff_seq: Optional[np.ndarray], root: Optional[int] = 0) -> np.ndarray:
        """This rank's block of the global real-space array held by ``root`` (default 0).
        Collective (volfft.scatter)."""
        if not self._is_mpi_lib:
            return ff_seq
        import volfft

        root = 0 if root is None else root
        local = volfft.scatter(self._plan, ff_seq if self._comm.rank == root else None, root=root)
        return np.asarray(local)  # the plain C-contiguous array (input order is C order)

    # ------------------------------------------------------------------ checks and timings
    def run_tests(self) -> None:
        """Round trip and Parseval on a random field, as fluidfft's classes check themselves.

        Raises AssertionError on failure. Collective.
        """
        arr = np.random.rand(*self._shapeX_loc)
        arr_fft = self.fft(arr)
        arr = self.ifft(arr_fft)
        arr_fft = self.fft(arr)  # now exactly the spectrum of a real field
        nrj = self.compute_energy_from_X(arr)
        nrj_fft = self.compute_energy_from_K(arr_fft)
        assert np.allclose(nrj, nrj_fft), (nrj, nrj_fft)

        arr2_fft = np.zeros(self._shapeK_loc, dtype=np.complex128)
        self.fft_as_arg(arr, arr2_fft)
        assert np.allclose(nrj, self.compute_energy_from_K(arr2_fft))

        arr2 = np.empty(self._shapeX_loc)
        self.ifft_as_arg(arr_fft, arr2)
        assert np.allclose(nrj, self.compute_energy_from_X(arr2))
        assert np.allclose(arr, arr2)

    def run_benchs(self, nb_time_execute: int = 10):
        """Mean seconds of fft_as_arg and ifft_as_arg, the maximum over ranks (collective).

        Returns ``(t_fft, t_ifft)`` (on every rank); rank 0 prints them.
        """
        fieldX = self.create_arrayX(0.0)
        fieldK = self.create_arrayK(0.0)
        results = []
        for transform, args in ((self.fft_as_arg, (fieldX, fieldK)),
                                (self.ifft_as_arg, (fieldK, fieldX))):
            self._comm.Barrier()
            start = perf_counter()
            for _ in range(nb_time_execute):
                transform(*args)
            elapsed = (perf_counter() - start) / max(nb_time_execute, 1)
            results.append(self._comm.allreduce(elapsed, op=MPI.MAX))
        t_fft, t_ifft = results
        if self._comm.rank == 0:
            name = self.__class__.__name__
            print(f"Internal bench ({name})\ntime fft ({name}):  {t_fft:.6f} s\n"
                  f"time ifft ({name}): {t_ifft:.6f} s", flush=True)
        return t_fft, t_ifft
