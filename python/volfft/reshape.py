"""The global redistribution of a distributed array from one cover of boxes to another, with no
transform: bricks to pencils, FFTW's slabs to volfft's pencils, a global transpose. Wraps the C++
``volfft::Reshape``: the messages are the intersections of the ranks' boxes, moved by the same
exchange engines as a :class:`volfft.Plan`'s.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from volfft._agree import agree_on_errors, allocated, fail_call, native_call
from volfft._local_array import LocalArray
from volfft._native import native
from volfft._request import Request
from volfft.distribution import LocalBox

__all__ = ["Reshape"]

# dtype -> (precision, values) as the library names them
_DTYPES = {
    np.dtype(np.complex128): ("double", "complex"),
    np.dtype(np.complex64): ("float", "complex"),
    np.dtype(np.float64): ("double", "real"),
    np.dtype(np.float32): ("float", "real"),
}
_OPTIONS = ("engine", "tune", "batch", "batch_layout", "threads", "verbose")


class Reshape:
    """Redistribute a global array of ``shape`` from the ranks' ``in_array`` boxes to their
    ``out_array`` boxes. Construction, :meth:`execute`, :meth:`reverse` and :meth:`close` are
    collective over ``comm``.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    shape : sequence of int
        The global array's shape (2 or 3 positive sizes), the same on every rank.
    in_array, out_array : (lo, hi) or volfft.LocalBox
        This rank's part before and after: a box, or a :class:`~volfft.LocalBox` with a memory
        order and ghost layers. Each side's boxes must cover the array exactly once (empty
        boxes allowed); a gap, an overlap or a box outside the array is the same VolfftError
        on every rank, naming the ranks and boxes.
    dtype : numpy dtype, default complex128
        complex128, complex64, float64 or float32.
    engine : {"auto", "alltoallv", "alltoall", "alltoallw", "p2p", "persistent"}
        ``"auto"`` is ``"alltoallv"``, or with ``tune > 0`` the fastest engine timed here.
    tune, batch, batch_layout, threads, verbose
        As for :class:`volfft.Plan`: ``batch`` fields per array (a field axis first for
        ``batch_layout="outer"``, last for ``"inner"``).

    The local arrays are indexed by global axes (``a[i, j, k]`` is global element
    ``storage_lo + (i, j, k)``, storage = the box unless ghost layers widen it), over memory in
    the side's order, as :meth:`input_array` and :meth:`output_array` make them.
    """

    def __init__(self, comm: Any, shape: Sequence[int], in_array: Any, out_array: Any,
                 dtype: Any = np.complex128, **options: Any) -> None:
        self._native = None
        from mpi4py import MPI

        from volfft.plan import VolfftError, _check_shape

        if not isinstance(comm, MPI.Comm):
            raise TypeError(f"comm: expected an mpi4py.MPI.Comm, got {type(comm).__name__}")
        if comm == MPI.COMM_NULL:
            raise VolfftError("comm: expected a valid communicator, got MPI.COMM_NULL")
        error: Optional[Exception] = None
        try:
            sizes = _check_shape(shape)
            if len(sizes) > 3:
                raise VolfftError(f"shape: a Reshape takes 2 or 3 axes, got {len(sizes)} ({tuple(sizes)})")
            try:
                dt = np.dtype(dtype)
            except TypeError:
                raise TypeError(f"dtype: expected a numpy dtype, got {dtype!r}") from None
            if dt not in _DTYPES:
                raise TypeError(f"dtype: expected complex128, complex64, float64 or float32, got {dt}")
            unknown = sorted(set(options) - set(_OPTIONS))
            if unknown:
                raise TypeError(f"Reshape: unknown option(s) {', '.join(unknown)}; it takes {', '.join(_OPTIONS)}")
            native().check_options(options)
            spec_in, spec_out = LocalBox.of(in_array, "in_array"), LocalBox.of(out_array, "out_array")
            for name, spec in (("in_array", spec_in), ("out_array", spec_out)):
                if spec.ndim != len(sizes):
                    raise VolfftError(f"{name}: expected a box of {len(sizes)} axes like shape, got {spec.box}")
            # Converted here, under the agreement: a value the extension cannot take must fail
            # every rank, not this one alone (LocalBox.native).
            native_in, native_out = spec_in.native(), spec_out.native()
        except (TypeError, ValueError) as e:
            error = e
        agree_on_errors(comm, error)
        precision, values = _DTYPES[dt]
        handle = native().Reshape(comm, list(sizes), native_in, native_out, precision, values,
                                  dict(options))
        d = len(sizes)
        self._comm = comm
        self._shape = tuple(sizes)
        self._dtype = dt
        self._input = LocalBox.from_native(handle.input_array(), d)
        self._output = LocalBox.from_native(handle.output_array(), d)
        self._batch = int(options.get("batch", 1))
        inner = options.get("batch_layout", "outer") == "inner"
        self._field_axis: Optional[int] = None if self._batch == 1 else (d if inner else 0)
        self._native = handle

    # ------------------------------------------------------------------ geometry
    def _side(self, output: bool):
        """(storage box, memory order, global shape) of a side's arrays, with the field axis."""
        spec = self._output if output else self._input
        box, order, shape = spec.storage, tuple(spec.order or range(spec.ndim)), self._shape
        f = self._field_axis
        if f is None:
            return box, order, shape
        insert = (lambda t, v: (v,) + tuple(t)) if f == 0 else (lambda t, v: tuple(t) + (v,))
        order = (0,) + tuple(a + 1 for a in order) if f == 0 else order + (f,)
        return (insert(box[0], 0), insert(box[1], self._batch)), order, insert(shape, self._batch)

    def _array_shape(self, output: bool) -> Tuple[int, ...]:
        (lo, hi), _, _ = self._side(output)
        return tuple(b - a for a, b in zip(lo, hi))

    @property
    def comm(self) -> Any:
        return self._comm

    @property
    def shape(self) -> Tuple[int, ...]:
        """The global array's shape."""
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def input(self) -> LocalBox:
        """This rank's input part (box, order, storage), as the library holds it."""
        return self._input

    @property
    def output(self) -> LocalBox:
        """This rank's output part."""
        return self._output

    @property
    def input_shape(self) -> Tuple[int, ...]:
        """Shape of this rank's input array (its storage extents in global axes; batched: with
        the field axis)."""
        return self._array_shape(False)

    @property
    def output_shape(self) -> Tuple[int, ...]:
        return self._array_shape(True)

    @property
    def engine(self) -> str:
        """The engine that moves the messages (never ``"auto"``)."""
        return self._live().engine()

    @property
    def workspace_bytes(self) -> int:
        """Bytes of the send and receive areas this rank holds (0 for engine alltoallw)."""
        return int(self._live().workspace_bytes())

    @property
    def sent_count(self) -> int:
        """Elements this rank sends to other ranks per :meth:`execute` (all fields)."""
        return int(self._live().sent_count())

    @property
    def received_count(self) -> int:
        return int(self._live().received_count())

    def tuning_report(self) -> str:
        """Rank 0's table of the engines timed (``tune > 0``), else empty."""
        return self._live().tuning_report()

    def input_array(self) -> LocalArray:
        """A zeroed, 64-byte aligned input array (global axes over memory in the input order)."""
        return self._new_array(False)

    def output_array(self) -> LocalArray:
        return self._new_array(True)

    def _new_array(self, output: bool) -> LocalArray:
        from volfft.plan import aligned_zeros

        self._live()
        box, order, shape = self._side(output)
        memory = aligned_zeros(tuple(box[1][a] - box[0][a] for a in order), self._dtype)
        return LocalArray.over(memory, shape, box, order)

    # ------------------------------------------------------------------ redistribution
    def _live(self):
        if self._native is None:
            from volfft.plan import VolfftError

            raise VolfftError("reshape: the reshape is closed; create a new Reshape")
        return self._native

    def _memory(self, name: str, array: Any, output: bool, writable: bool) -> np.ndarray:
        """The C-contiguous memory-order view of a caller's array (no copy), or an error that
        says what was expected."""
        from volfft.plan import VolfftError

        _, order, _ = self._side(output)
        side = "output" if output else "input"
        if not isinstance(array, np.ndarray):
            raise TypeError(f"{name}: expected a numpy.ndarray, got {type(array).__name__}")
        if array.dtype != self._dtype:
            raise TypeError(f"{name}: expected dtype {self._dtype}, got {array.dtype}")
        if array.shape != self._array_shape(output):
            raise VolfftError(f"{name}: expected this rank's {side} array, shape {self._array_shape(output)} in "
                              f"global axes (reshape.{side}_shape), got {array.shape}")
        memory = array.transpose(order)
        if not memory.flags.c_contiguous:
            raise VolfftError(f"{name}: expected an array whose memory is in the {side} order {order} (global "
                              f"axes, slowest first), as reshape.{side}_array() makes it")
        if writable and not array.flags.writeable:
            raise VolfftError(f"{name}: expected a writable array, got a read-only one")
        return memory

    def _start(self, given: Any, out: Any, reversed_: bool) -> Request:
        handle = self._live()
        name = "b" if reversed_ else "a"
        try:
            source = self._memory(name, given, reversed_, False)
            if out is None:
                out = allocated(lambda: self._new_array(not reversed_), "output" if not reversed_ else "input")
            elif isinstance(out, np.ndarray) and np.may_share_memory(given, out):
                from volfft.plan import VolfftError

                raise VolfftError(f"out: expected an array that does not overlap {name}")
            destination = self._memory("out", out, not reversed_, True)
        except (TypeError, ValueError) as problem:
            fail_call(handle, problem)  # the other ranks are in the library's call
        with native_call():
            handle.start(source, destination, reversed_)
        return Request(handle, (source, destination), out)

    def execute(self, a: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Redistribute: ``out`` (this rank's output part) receives the values of every rank's
        input part ``a``. Collective. ``a`` is not changed; ghost layers are neither read nor
        written. ``out`` is allocated when omitted. Returns ``out``."""
        return self.execute_start(a, out).wait()

    def reverse(self, b: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The inverse: ``out`` (an input-side array) receives the values of every rank's
        output part ``b``. Collective. Returns ``out``."""
        return self.reverse_start(b, out).wait()

    def execute_start(self, a: np.ndarray, out: Optional[np.ndarray] = None) -> Request:
        """Start :meth:`execute` (split phase: messages may be under way when this returns,
        engines alltoallv, persistent and p2p); finish with ``request.wait()``. Until then the
        arrays belong to volfft and the reshape takes no other call."""
        return self._start(a, out, False)

    def reverse_start(self, b: np.ndarray, out: Optional[np.ndarray] = None) -> Request:
        """Start :meth:`reverse`; see :meth:`execute_start`."""
        return self._start(b, out, True)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Free the reshape's communicators and areas. Collective; idempotent."""
        if self._native is not None:
            handle, self._native = self._native, None
            handle.close()

    @property
    def closed(self) -> bool:
        return self._native is None

    def __enter__(self) -> "Reshape":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"engine={self.engine!r}"
        return f"volfft.Reshape(shape={self._shape}, dtype={self._dtype}, {state})"
