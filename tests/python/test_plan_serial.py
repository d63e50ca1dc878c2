"""volfft.Plan on one rank (MPI.COMM_SELF): the API, in-place use of arrays, every error message.

The distributed results are checked by tests/python/mpi (np 1-4, run_mpi_tests.sh).
"""
from __future__ import annotations

import numpy as np
import pytest

from volfft._native import native

try:
    native()
except ImportError as error:  # the reason is printed by pytest -rs
    pytest.skip(f"volfft extension not built ({error})", allow_module_level=True)

from mpi4py import MPI  # noqa: E402  (after the skip: MPI only when the extension exists)

import volfft  # noqa: E402

SELF = MPI.COMM_SELF


@pytest.fixture
def plan():
    with volfft.Plan(SELF, (4, 5, 6), effort="estimate") as p:
        yield p


@pytest.fixture
def r2c_plan():
    with volfft.Plan(SELF, (4, 5, 6), kind="r2c", effort="estimate") as p:
        yield p


# ---------------------------------------------------------------- results and geometry
@pytest.mark.parametrize("layout", ["transposed", "natural"])
@pytest.mark.parametrize("kind,dtype", [("c2c", np.complex128), ("c2c", np.complex64),
                                        ("r2c", np.float64), ("r2c", np.float32)])
@pytest.mark.parametrize("shape", [(4, 5, 6), (7, 3), (1, 1, 5)], ids=str)
def test_one_rank_matches_numpy(shape, kind, dtype, layout):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    if kind == "c2c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dtype)
    with volfft.Plan(SELF, shape, dtype=dtype, kind=kind, layout=layout, effort="estimate") as p:
        a = volfft.scatter(p, x)
        b = p.forward(a)
        spectrum = volfft.gather(p, b)
        back = p.backward(b)
    want = np.fft.rfftn(x.astype(np.float64)) if kind == "r2c" else np.fft.fftn(x.astype(complex))
    tol = 50 * np.finfo(dtype).eps
    assert np.linalg.norm(spectrum - want) <= tol * np.linalg.norm(want)
    assert np.linalg.norm(back - x) <= tol * np.linalg.norm(x)
    if layout == "natural":
        assert p.output_order == tuple(range(len(shape)))


def test_geometry_of_a_one_rank_plan(r2c_plan):
    p = r2c_plan
    assert p.shape == (4, 5, 6) and p.ndim == 3 and p.kind == "r2c"
    assert p.output_global_shape == (4, 5, 4)
    assert p.grid == (1, 1) and p.grid_position == (0, 0)
    assert p.input_dtype == np.float64 and p.output_dtype == np.complex128
    assert p.dtype == p.input_dtype
    assert p.input_box == ((0, 0, 0), (4, 5, 6))
    assert p.output_box == ((0, 0, 0), (4, 5, 4))
    assert sorted(p.input_order) == [0, 1, 2] and sorted(p.output_order) == [0, 1, 2]
    assert p.input_shape == (4, 5, 6) and p.output_shape == (4, 5, 4)  # global axes
    assert p.local_slice() == (slice(0, 4), slice(0, 5), slice(0, 6))
    assert p.local_slice(forward_output=True) == (slice(0, 4), slice(0, 5), slice(0, 4))
    assert p.engine in ("alltoallv", "alltoall", "alltoallw", "p2p")
    assert p.layout == "transposed" and p.scale_backward
    assert p.workspace_bytes >= 0
    assert "volfft.Plan(shape=(4, 5, 6)" in repr(p)


def test_allocated_arrays_are_zeroed_and_right(plan):
    a, b = plan.input_array(), plan.output_array()
    assert a.shape == plan.input_shape and a.dtype == np.complex128 and not a.any()
    assert b.shape == plan.output_shape and b.dtype == np.complex128 and not b.any()
    assert isinstance(a, volfft.LocalArray) and isinstance(b, volfft.LocalArray)
    assert a.memory.flags.c_contiguous and b.memory.flags.c_contiguous
    # 64-byte aligned, so that FFTW can run its SIMD plans (docs/conventions.md)
    assert a.ctypes.data % 64 == 0 and b.ctypes.data % 64 == 0
    assert plan.forward(a).ctypes.data % 64 == 0


def test_forward_writes_into_out_without_copies(plan):
    a = plan.input_array()
    a[0, 0, 0] = 1.0  # a delta: the spectrum is all ones
    out = plan.output_array()
    address = out.__array_interface__["data"][0]
    result = plan.forward(a, out)
    assert result is out and out.__array_interface__["data"][0] == address
    assert np.allclose(out, 1.0)
    back = plan.input_array()
    assert plan.backward(out, back) is back
    assert np.allclose(back, a)


def test_read_only_inputs_are_accepted(plan):
    a = plan.input_array()
    a[0, 0, 0] = 2.0
    a.flags.writeable = False
    spectrum = plan.forward(a)
    spectrum.flags.writeable = False
    assert np.allclose(plan.backward(spectrum), a)


def test_wavenumbers_one_rank(r2c_plan):
    k = r2c_plan.wavenumbers()
    assert len(k) == 3 and all(w.dtype == np.int64 for w in k)
    want = [np.fft.fftfreq(4, 1 / 4), np.fft.fftfreq(5, 1 / 5), np.arange(4)]
    for axis in range(3):
        assert k[axis].shape[axis] == k[axis].size  # global axes, like the output
        assert np.array_equal(k[axis].reshape(-1), want[axis])
    full = k[0] ** 2 + k[1] ** 2 + k[2] ** 2
    assert full.shape == r2c_plan.output_shape


def test_timings_one_rank(plan):
    plan.forward(plan.input_array())
    phases = plan.timings()
    assert phases and all(isinstance(v, float) and v >= 0 for v in phases.values())
    assert plan.timings("forward", max_over_ranks=True).keys() == phases.keys()


def test_close_is_idempotent_and_context_manager_closes():
    with volfft.Plan(SELF, (3, 4), effort="estimate") as p:
        assert not p.closed
    assert p.closed
    p.close()
    assert p.closed and "closed" in repr(p)


def test_describe_of_a_plan_equals_the_pure_describe(r2c_plan):
    live = r2c_plan.describe()
    pure = volfft.describe((4, 5, 6), grid=(1, 1), kind="r2c")
    assert live["shape"] == pure["shape"] == (4, 5, 6)
    assert [s["axis"] for s in live["stages"]] == [s["axis"] for s in pure["stages"]]
    assert live["exchanges"] == [] == pure["exchanges"]


def test_version_string():
    text = native().version_string()
    assert text.startswith("volfft ") and "fftw" in text.lower()


# ---------------------------------------------------------------- construction errors
@pytest.mark.parametrize("kwargs,error,message", [
    ({"kind": "c2r"}, ValueError, r"kind: expected 'c2c', 'r2c' or 'r2r', got 'c2r'"),
    ({"shape": 5}, TypeError, r"shape: expected a sequence of at least 2 ints, got 5"),
    ({"shape": (4,)}, ValueError, r"shape must have at least 2 entries \(a 2-D or larger array\); got 1"),
    ({"shape": (4, 4, 4, 4), "kind": "r2c", "dtype": np.float64}, ValueError, r"r2c plans take 2 or 3 axes; got shape with 4"),
    ({"shape": (4, 0, 4)}, ValueError, r"shape\[1\] must be a positive size; got 0"),
    ({"dtype": np.int32}, TypeError,
     r"dtype: expected complex128 or complex64 \(c2c\), float64 or float32 \(r2c, r2r\), got int32"),
    ({"dtype": "nonsense"}, TypeError, r"dtype: expected a numpy dtype, got 'nonsense'"),
    ({"dtype": np.float64}, TypeError,
     r"dtype: a c2c plan transforms complex arrays: expected complex128 or complex64, got "
     r"float64 \(use kind='r2c' for real input\)"),
    ({"grid": "slab"}, ValueError, r"grid: expected 'auto', 'p0xp1' or a pair \(p0, p1\), got 'slab'"),
    ({"grid": "2x1"}, ValueError, r"grid 2x1 has 2 ranks but the communicator has 1"),
    ({"grid": (True, 1)}, TypeError, r"grid: expected 'auto' or a pair of ints"),
    ({"nonsense": 1}, TypeError, r"unexpected option 'nonsense'; the options are: grid, engine, "),
    ({"spectral_shape": (2, 2, 2)}, TypeError, r"spectral_shape: Python plans take padding= instead"),
    ({"placement": [0], "rank_order": [0]}, TypeError, r"placement: give either placement or rank_order"),
    ({"threads": 2000}, ValueError, r"threads must be an integer between 1 and 1024; got 2000"),
    ({"verbose": "yes"}, TypeError, r"verbose: expected True or False, got 'yes'"),
    ({"grid": (1,)}, ValueError, r"grid: expected 'auto' or a pair \(p0, p1\) of ints >= 1, got \(1,\)"),
    ({"grid": (1.5, 1)}, TypeError, r"grid: expected 'auto' or a pair of ints \(p0, p1\), got \(1.5, 1\)"),
    ({"grid": (2, 1)}, ValueError,
     r"grid 2x1 has 2 ranks but the communicator has 1 \(p0\*p1 must equal the communicator size\)"),
    ({"engine": "mpi"}, ValueError,
     r"engine must be one of 'auto', 'alltoallv', 'alltoall', 'alltoallw', 'p2p', .*; got 'mpi'"),
    ({"engine": 3}, TypeError, r"engine: expected a string, got 3"),
    ({"layout": "fortran"}, ValueError, r"layout must be one of 'transposed', 'natural'; got 'fortran'"),
    ({"effort": "exhaustive"}, ValueError,
     r"effort must be one of 'estimate', 'measure', 'patient'; got 'exhaustive'"),
    # Named as placement, the argument given (the library's message named rank_order).
    ({"placement": [0, 1]}, ValueError, r"placement: expected 1 entries \(one per rank\), got 2"),
    ({"placement": [1]}, ValueError, r"placement: expected a permutation of 0\.\.0, got \[1\]"),
    ({"rank_order": [1]}, ValueError, r"rank_order must be a permutation of 0\.\.0; entry 1 is out of range"),
    ({"placement": ["a"]}, TypeError, r"placement: expected None, an object with rank_order\(\)"),
])
def test_construction_errors(kwargs, error, message):
    arguments = {"shape": (4, 4, 4), "effort": "estimate"}
    arguments.update(kwargs)
    shape = arguments.pop("shape")
    with pytest.raises(error, match=message):
        volfft.Plan(SELF, shape, **arguments)


def test_comm_must_be_an_mpi4py_communicator():
    with pytest.raises(TypeError, match=r"comm: expected an mpi4py.MPI.Comm \(e.g. MPI.COMM_WORLD\), got int"):
        volfft.Plan(1, (4, 4, 4))
    with pytest.raises(ValueError, match=r"comm: expected a valid communicator, got MPI.COMM_NULL"):
        volfft.Plan(MPI.COMM_NULL, (4, 4, 4))


def test_value_errors_are_volfft_errors():
    assert issubclass(volfft.VolfftError, ValueError)
    with pytest.raises(volfft.VolfftError):
        volfft.Plan(SELF, (4, 4, 4), grid=(3, 1))


# ---------------------------------------------------------------- transform errors
def test_forward_argument_errors(plan):
    a, out = plan.input_array(), plan.output_array()
    with pytest.raises(TypeError, match=r"a: expected a numpy.ndarray, got list"):
        plan.forward(a.tolist())
    with pytest.raises(TypeError, match=r"a: expected dtype complex128 \(a c2c plan in double "
                                        r"precision\), got complex64"):
        plan.forward(a.astype(np.complex64))
    with pytest.raises(ValueError, match=r"a: expected this rank's block of the forward input, "
                                         r"shape \(4, 5, 6\) in global axes \(plan.input_shape\), "
                                         r"got \(4, 5, 7\)"):
        plan.forward(np.zeros((4, 5, 7), np.complex128))
    # An input with other memory (a strided view, the result of broadcasting) is copied into
    # the plan's staging array, once per call; an out array must have the plan's memory.
    x = np.zeros((4, 5, 12), np.complex128)
    x[0, 0, 0] = 1.0
    assert np.allclose(plan.forward(x[:, :, ::2]), 1.0)
    assert plan.staging_bytes == a.nbytes
    with pytest.raises(ValueError, match=r"out: expected an array whose memory is in the plan's "
                                         r"output order \(0, 1, 2\) \(global axes, slowest "
                                         r"first\), as plan.output_array\(\) makes it"):
        plan.forward(a, np.zeros((4, 5, 12), np.complex128)[:, :, ::2])
    with pytest.raises(TypeError, match=r"out: expected dtype complex128"):
        plan.forward(a, out.real.copy())
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"out: expected a writable array, got a read-only one"):
        plan.forward(a, out)


def test_wrong_kind_of_array_for_r2c(r2c_plan):
    complex_input = np.zeros(r2c_plan.input_shape, np.complex128)
    with pytest.raises(TypeError, match=r"a: expected dtype float64 \(a r2c plan in double "
                                        r"precision\), got complex128"):
        r2c_plan.forward(complex_input)
    spectrum = r2c_plan.output_array()
    with pytest.raises(TypeError, match=r"out: expected dtype float64 \(a r2c plan in double "
                                        r"precision\), got complex128"):
        r2c_plan.backward(spectrum, np.zeros(r2c_plan.input_shape, np.complex128))
    with pytest.raises(ValueError, match=r"b: expected this rank's block of the forward output"):
        r2c_plan.backward(np.zeros(r2c_plan.input_shape, np.complex128))


def test_overlapping_out_is_refused():
    with volfft.Plan(SELF, (4, 4), layout="natural", effort="estimate") as p:
        a = p.input_array()
        with pytest.raises(ValueError, match=r"out: expected an array that does not overlap a"):
            p.forward(a, out=a)
        with pytest.raises(ValueError, match=r"out: expected an array that does not overlap b"):
            p.backward(a, out=a)


def test_closed_plan_errors():
    p = volfft.Plan(SELF, (4, 4, 4), effort="estimate")
    a = p.input_array()
    p.close()
    for call in (lambda: p.forward(a), lambda: p.backward(a), p.input_array, p.output_array,
                 p.timings, p.describe):
        with pytest.raises(ValueError, match=r"plan: the plan is closed; create a new Plan"):
            call()


def test_timings_direction_error(plan):
    with pytest.raises(ValueError, match=r"direction: expected 'forward' or 'backward', got 'sideways'"):
        plan.timings("sideways")


def test_native_byte_check_guards_direct_calls(plan):
    # volfft.Plan checks first; the binding still refuses buffers of the wrong size.
    with pytest.raises(ValueError, match=r"a: expected 1920 bytes, got 16"):
        plan._native.forward(np.zeros(1, np.complex128), plan.output_array())


# ---------------------------------------------------------------- scatter / gather errors
def test_scatter_gather_errors(plan):
    with pytest.raises(TypeError, match=r"global_array: expected a numpy.ndarray on the root rank, got NoneType"):
        volfft.scatter(plan, None)
    with pytest.raises(TypeError, match=r"root: expected an int rank, got '0'"):
        volfft.scatter(plan, np.zeros(plan.shape, complex), root="0")
    with pytest.raises(ValueError, match=r"root: expected a rank in 0\.\.0, got 1"):
        volfft.gather(plan, plan.output_array(), root=1)
    with pytest.raises(TypeError, match=r"local_array: expected dtype complex128 \(a c2c plan in double precision\), got complex64"):
        volfft.gather(plan, plan.output_array().astype(np.complex64))
    with pytest.raises(TypeError, match=r"local_array: expected a numpy.ndarray, got list"):
        volfft.gather(plan, [1, 2])


def test_scatter_casts_same_kind(r2c_plan):
    x = np.arange(4 * 5 * 6, dtype=np.int64).reshape(4, 5, 6)
    local = volfft.scatter(r2c_plan, x)
    assert local.dtype == np.float64
    assert np.array_equal(volfft.gather(r2c_plan, local, forward_output=False), x)


# ---------------------------------------------------------------- pure describe errors
def test_describe_errors():
    with pytest.raises(ValueError, match=r"nprocs: expected the number of ranks when grid='auto'"):
        volfft.describe((8, 8, 8))
    with pytest.raises(ValueError, match=r"nprocs: expected at least 1 rank, got 0"):
        volfft.describe((8, 8, 8), nprocs=0)
    with pytest.raises(TypeError, match=r"nprocs: expected an int, got 2.5"):
        volfft.describe((8, 8, 8), nprocs=2.5)
    with pytest.raises(ValueError, match=r"2-D arrays are decomposed in slabs only: grid must be 4x1; got 2x2"):
        volfft.describe((8, 8), grid=(2, 2))
    # a 2-D plan has one exchange, the column exchange of its P x 1 grid (it said "row")
    with pytest.raises(ValueError, match=r"a message of the column exchange would hold 2147549184 elements"):
        volfft.describe((2**17, 2**17), kind="r2c", dtype="float64", nprocs=2)


def test_plan_left_open_at_exit_does_not_crash_the_interpreter():
    # mpi4py finalizes MPI at exit, possibly before the plan is collected: the plan must then be
    # abandoned, not freed (freeing communicators after MPI_Finalize aborts the process).
    import os
    import sys

    from volfft._launch import run_job

    code = ("import volfft\nfrom mpi4py import MPI\n"
            "kept = volfft.Plan(MPI.COMM_WORLD, (8, 8, 8), effort='estimate')\n"
            "dup = volfft.Plan(MPI.COMM_WORLD.Dup(), (4, 4), effort='estimate')\nprint('done')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    result = run_job([sys.executable, "-c", code], timeout=120, env=env)
    assert result.returncode == 0 and "done" in result.stdout, result.stderr


# ---------------------------------------------------------------- threads and cores
def test_threads_beyond_the_ranks_cores_warn(monkeypatch):
    """threads=2 on a rank pinned to one core (Open MPI pins the ranks of 1- and 2-rank jobs)
    would run no faster, silently: the plan says so, with the launch that fixes it."""
    monkeypatch.setattr(volfft.plan.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    with pytest.warns(RuntimeWarning, match=r"threads=2, but this rank may run on 1 core\(s\) only "
                                            r"\(its CPU affinity\).*--bind-to none.*"
                                            r"--map-by slot:PE=2"):
        volfft.Plan(SELF, (4, 4, 4), threads=2, effort="estimate").close()
    monkeypatch.setattr(volfft.plan.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        volfft.Plan(SELF, (4, 4, 4), threads=2, effort="estimate").close()


# ---------------------------------------------------------------- LocalArray
def test_local_array_behaves_like_numpy(plan):
    """Arithmetic keeps the block's place (same shape), slices and reductions do not claim it,
    reductions are numpy scalars, and pickling (mpi4py's lowercase calls) sends plain arrays."""
    import pickle

    a = plan.input_array()
    a[...] = 2.0
    doubled = a * 2
    assert isinstance(doubled, volfft.LocalArray) and doubled.offset == a.offset
    assert doubled.global_shape == plan.shape and doubled.memory_order == plan.input_order
    part = a[1:]
    assert part.offset is None and part.global_shape is None
    with pytest.raises(ValueError, match=r"local_slice: this array is no longer a whole block"):
        part.local_slice()
    with pytest.raises(ValueError, match=r"memory: this array is no longer a whole block"):
        part.memory
    assert isinstance(a.sum(), np.complexfloating) and a.sum() == 2.0 * a.size
    assert isinstance(np.max(np.abs(a)), np.floating)
    copy = pickle.loads(pickle.dumps(a))
    assert type(copy) is np.ndarray and np.array_equal(copy, a)
    assert a.local_slice() == plan.local_slice()


def test_local_array_layout_follows_its_memory():
    """A copy in C order keeps the block's place and says its memory order, whose .memory view is
    C-contiguous (it claimed the plan's order, and its .memory was not contiguous); views that
    index the memory another way (reversed, transposed on a cubic block) claim no place."""
    # A rank's block of a pencil plan's spectrum: global axes (1, 2, 0) slowest to fastest.
    order = (1, 2, 0)
    memory = np.arange(64, dtype=np.complex128).reshape(4, 4, 4)
    u = volfft.LocalArray.over(memory, (8, 4, 4), ((4, 0, 0), (8, 4, 4)), order)
    for same, want in ((u.copy(), np.asarray(u)), (u * np.ones(u.shape), np.asarray(u)), (-u, -np.asarray(u))):
        assert same.offset == u.offset and same.global_shape == u.global_shape
        assert same.memory.flags.c_contiguous
        assert np.array_equal(same.memory.transpose(np.argsort(same.memory_order)), want)
        assert np.array_equal(same, want)
    assert u.copy().memory_order == (0, 1, 2) and (u * 2).memory_order == order
    for other in (u[::-1], u.T, u.transpose(1, 0, 2)):
        assert other.offset is None and other.memory_order is None
        with pytest.raises(ValueError, match=r"local_slice: this array is no longer a whole block"):
            other.local_slice()
