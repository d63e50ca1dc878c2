"""Per-axis transform kinds (``Plan(..., kinds=...)``) against the defining sums, at any rank count.

Rank 0 makes a random global array, scatters it into the plan's layout, and compares the
gathered forward output with a numpy reference: numpy.fft for ``dft``/``r2c`` axes and, for the
r2r axes, the matrix of FFTW's definition ("1d Real-even DFTs (DCTs)", "1d Real-odd DFTs
(DSTs)" in its manual; unnormalised, as scipy.fft.dct/dst with norm=None) applied along that
axis. The round trip backward(forward(x)) must give x back (backward applies the inverse kinds
and divides by the logical sizes). Invalid kinds must raise VolfftError on every rank.
Tolerances are a few units of eps * log2(N) in relative L2 norm, as in test_transforms.py.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from mpi4py import MPI

import volfft
from test_transforms import random_global, rel_l2  # the global arrays and norms of the MPI tests

SIZE = MPI.COMM_WORLD.size
ROOT = 0
R2R = ["dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4"]


def factor_grids(nprocs: int):
    """Every grid (p0, p1) with p0 * p1 == nprocs: slab first, then the pencils."""
    return [(nprocs // p1, p1) for p1 in range(1, nprocs + 1) if nprocs % p1 == 0]


GRIDS_3D = factor_grids(SIZE)
GRID_2D = (SIZE, 1)  # 2-D plans take slabs only
grid_id = lambda g: f"{g[0]}x{g[1]}"  # noqa: E731
kinds_id = lambda k: "-".join(k)  # noqa: E731


def r2r_matrix(kind: str, n: int) -> np.ndarray:
    """M[k, j] with Y_k = sum_j M[k, j] X_j: FFTW's REDFT00/10/01/11 and RODFT00/10/01/11."""
    j = np.arange(n, dtype=np.float64)[None, :]
    k = np.arange(n, dtype=np.float64)[:, None]
    alternating = (-1.0) ** np.arange(n)
    if kind == "dct1":  # X_0 + (-1)^k X_{n-1} + 2 sum_{j=1}^{n-2} X_j cos(pi j k / (n-1))
        m = 2 * np.cos(np.pi * j * k / (n - 1))
        m[:, 0], m[:, n - 1] = 1.0, alternating
        return m
    if kind == "dct2":  # 2 sum X_j cos(pi (j+1/2) k / n)
        return 2 * np.cos(np.pi * (j + 0.5) * k / n)
    if kind == "dct3":  # X_0 + 2 sum_{j=1}^{n-1} X_j cos(pi j (k+1/2) / n)
        m = 2 * np.cos(np.pi * j * (k + 0.5) / n)
        m[:, 0] = 1.0
        return m
    if kind == "dct4":  # 2 sum X_j cos(pi (j+1/2) (k+1/2) / n)
        return 2 * np.cos(np.pi * (j + 0.5) * (k + 0.5) / n)
    if kind == "dst1":  # 2 sum X_j sin(pi (j+1) (k+1) / (n+1))
        return 2 * np.sin(np.pi * (j + 1) * (k + 1) / (n + 1))
    if kind == "dst2":  # 2 sum X_j sin(pi (j+1/2) (k+1) / n)
        return 2 * np.sin(np.pi * (j + 0.5) * (k + 1) / n)
    if kind == "dst3":  # (-1)^k X_{n-1} + 2 sum_{j=0}^{n-2} X_j sin(pi (j+1) (k+1/2) / n)
        m = 2 * np.sin(np.pi * (j + 1) * (k + 0.5) / n)
        m[:, n - 1] = alternating
        return m
    if kind == "dst4":  # 2 sum X_j sin(pi (j+1/2) (k+1/2) / n)
        return 2 * np.sin(np.pi * (j + 0.5) * (k + 0.5) / n)
    raise ValueError(kind)


def reference(glob: np.ndarray, kinds) -> np.ndarray:
    """The forward transform of ``glob`` by ``kinds``, in double precision."""
    if kinds[-1] == "r2c":
        y = np.fft.rfft(glob.astype(np.float64), axis=-1)
    else:
        y = glob.astype(np.complex128)
    # Transforms along different axes commute; a real matrix acts on real and imaginary parts.
    for axis, kind in enumerate(kinds):
        if kind == "dft":
            y = np.fft.fft(y, axis=axis)
        elif kind in R2R:
            y = np.moveaxis(np.tensordot(r2r_matrix(kind, y.shape[axis]), y, axes=([1], [axis])),
                            0, axis)
    return y


def check_kinds(comm, shape, kinds, dtype=np.complex128, kind=None, **options):
    """Forward vs the reference, backward vs the input, input untouched; asserts on every rank.
    ``kind`` defaults to r2c when the last axis is r2c, else c2c; ``kind="r2r"`` makes a real
    plan (real arrays on both sides), whose spectrum is the reference's real part."""
    options.setdefault("effort", "estimate")
    kind = kind or ("r2c" if kinds[-1] == "r2c" else "c2c")
    in_place = options.get("in_place", False)
    glob = random_global(shape, "c2c" if kind == "c2c" else "r2c", dtype, seed=3) if comm.rank == ROOT else None
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, kinds=kinds, **options) as plan:
        problems = []
        if plan.kinds != tuple(kinds):
            problems.append(f"plan.kinds is {plan.kinds}")
        if kind == "r2r" and (plan.input_dtype.kind, plan.output_dtype.kind) != ("f", "f"):
            problems.append(f"r2r plan with dtypes {plan.input_dtype}, {plan.output_dtype}")
        a = volfft.scatter(plan, glob, root=ROOT)
        before = a.copy()
        b = plan.forward(a)
        if in_place and a.size and b.size and not np.shares_memory(a, b):
            problems.append("in place: forward's output is not a view of the input's buffer")
        spectrum = volfft.gather(plan, b, root=ROOT)
        c = plan.backward(b)
        if in_place and b.size and c.size and not np.shares_memory(b, c):
            problems.append("in place: backward's output is not a view of the same buffer")
        if not in_place and not np.array_equal(a, before):
            problems.append("forward modified its input")
        back = volfft.gather(plan, c, root=ROOT, forward_output=False)
        everyone = comm.allgather(problems)
    verdict = None
    if comm.rank == ROOT:
        want = reference(glob, kinds)
        if kind == "r2r":
            want = want.real  # the transform of real data by real matrices
        if spectrum.shape != want.shape or spectrum.dtype.kind != want.dtype.kind:
            verdict = (f"gathered spectrum of shape {spectrum.shape} and dtype {spectrum.dtype}, expected "
                       f"{want.shape} and {want.dtype}", 0.0)
        else:
            verdict = (rel_l2(spectrum, want), rel_l2(back, glob))
    forward_error, backward_error = comm.bcast(verdict, root=ROOT)
    where = (f"shape={shape} kinds={tuple(kinds)} dtype={np.dtype(dtype)} options={options} "
             f"np={comm.size}")
    assert not any(everyone), f"{everyone}: {where}"
    assert not isinstance(forward_error, str), f"{forward_error}: {where}"
    tol = 8 * np.finfo(dtype).eps * max(1.0, math.log2(math.prod(shape)))
    assert forward_error <= tol, f"forward error {forward_error:.3g} > {tol:.3g}: {where}"
    assert backward_error <= tol, f"round-trip error {backward_error:.3g} > {tol:.3g}: {where}"


# ---------------------------------------------------------------------------- transforms
@pytest.mark.parametrize("kind", R2R)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_every_r2r_kind_on_every_axis(comm, grid, kind):
    """One r2r axis among dft ones: each axis is in turn the first, middle and last stage."""
    for axis in range(3):
        kinds = ["dft"] * 3
        kinds[axis] = kind
        check_kinds(comm, (7, 6, 9), kinds, grid=grid)


MIXES_WITH_NONE = [("none", "dct2", "dft"), ("dst2", "none", "none"), ("none", "none", "dst4"),
                   ("dct3", "dft", "none"), ("none", "none", "none"), ("dct1", "none", "dst1")]


@pytest.mark.parametrize("kinds", MIXES_WITH_NONE, ids=kinds_id)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_mixes_with_none(comm, grid, kinds):
    check_kinds(comm, (7, 6, 9), kinds, grid=grid)


R2C_MIXES = [("dct2", "dft", "r2c"), ("dst1", "none", "r2c"), ("none", "dct4", "r2c"),
             ("dct1", "dst3", "r2c"), ("none", "dft", "r2c"),
             # only the last axis transformed: the backward's c2r is its one step
             ("none", "none", "r2c")]


@pytest.mark.parametrize("kinds", R2C_MIXES, ids=kinds_id)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_r2c_with_r2r_axes(comm, grid, kinds):
    check_kinds(comm, (7, 6, 9), kinds, dtype=np.float64, grid=grid)


@pytest.mark.parametrize("kinds", [("dct2", "dst3"), ("dst1", "r2c"), ("none", "dct1"),
                                   ("dct4", "none"), ("dft", "dst2"), ("dct3", "dft"),
                                   ("none", "r2c")], ids=kinds_id)
def test_2d_plans(comm, kinds):
    dtype = np.float64 if kinds[-1] == "r2c" else np.complex128
    check_kinds(comm, (9, 8), kinds, dtype=dtype, grid=GRID_2D)


@pytest.mark.parametrize("shape,kinds", [
    ((7, 6, 9), ("dct2", "dst1", "dft")),
    ((7, 6, 9), ("dst4", "none", "dct3")),
    ((7, 6, 9), ("dct1", "dst2", "r2c")),
    ((9, 8), ("dst3", "dct4")),
    ((9, 8), ("dct2", "r2c")),
], ids=lambda v: "x".join(map(str, v)) if isinstance(v[0], int) else kinds_id(v))
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_single_precision(comm, grid, shape, kinds):
    if len(shape) == 2 and grid != GRID_2D:
        pytest.skip("2-D plans take slab grids only")
    check_kinds(comm, shape, kinds, dtype=np.complex64, grid=grid)


@pytest.mark.parametrize("kinds", [("dct1", "dst4", "dct3"), ("dct1", "dst2", "r2c"),
                                   ("dst1", "none", "dct2")], ids=kinds_id)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_small_shape_leaves_ranks_empty(comm, grid, kinds):
    """(2, 3, 4) on 3 or 4 ranks: some blocks are empty; dct1 on 2 points is X_0 +- X_1."""
    dtype = np.float64 if kinds[-1] == "r2c" else np.complex128
    check_kinds(comm, (2, 3, 4), kinds, dtype=dtype, grid=grid)


@pytest.mark.parametrize("shape,kinds", [((7, 6, 9), ("dct2", "dft", "r2c")),
                                         ((7, 6, 9), ("dst3", "none", "dct1")),
                                         ((9, 8), ("dst2", "r2c"))],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v[0], int) else kinds_id(v))
def test_in_place(comm, shape, kinds):
    """In place on the pencil grid (slabs for 2-D): forward and backward reuse one buffer."""
    dtype = np.float64 if kinds[-1] == "r2c" else np.complex128
    grid = GRIDS_3D[-1] if len(shape) == 3 else GRID_2D
    check_kinds(comm, shape, kinds, dtype=dtype, grid=grid, in_place=True)


@pytest.mark.parametrize("layout", ["transposed", "natural"])
def test_natural_layout(comm, layout):
    check_kinds(comm, (7, 6, 9), ("dct4", "dst1", "r2c"), dtype=np.float64,
                grid=GRIDS_3D[-1], layout=layout)


@pytest.mark.parametrize("engine", ["alltoallv", "alltoall", "alltoallw", "p2p", "pipelined",
                                    "persistent", "node"])
def test_engines(comm, engine):
    """The exchanges move r2r spectra as they move DFT ones, on the pencil grid."""
    check_kinds(comm, (7, 6, 9), ("dst2", "dct1", "r2c"), dtype=np.float64,
                grid=GRIDS_3D[-1], engine=engine)


# ---------------------------------------------------------------------------- r2r plans: real data
@pytest.mark.parametrize("kind", R2R)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_r2r_plan_every_kind_on_every_axis(comm, grid, kind):
    """kind="r2r": real arrays throughout; each r2r kind at each axis among dct2 axes."""
    for axis in range(3):
        kinds = ["dct2"] * 3
        kinds[axis] = kind
        check_kinds(comm, (5, 4, 6), tuple(kinds), dtype=np.float64, kind="r2r", grid=grid)


@pytest.mark.parametrize("kinds", [("none", "dct1", "dst2"), ("dst3", "none", "none"),
                                   ("none", "none", "none"), ("dct4", "dst4", "dct3")], ids=kinds_id)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_r2r_plan_mixes_and_empty_ranks(comm, grid, kinds):
    check_kinds(comm, (7, 6, 9), kinds, dtype=np.float64, kind="r2r", grid=grid)
    check_kinds(comm, (2, 3, 2), kinds, dtype=np.float64, kind="r2r", grid=grid)  # ranks left empty


@pytest.mark.parametrize("engine", ["alltoallv", "alltoall", "alltoallw", "p2p", "pipelined",
                                    "persistent", "node"])
def test_r2r_plan_engines(comm, engine):
    """Every engine moves reals for an r2r plan, single precision too."""
    check_kinds(comm, (7, 6, 9), ("dst2", "dct1", "dct2"), dtype=np.float64, kind="r2r",
                grid=GRIDS_3D[-1], engine=engine)
    check_kinds(comm, (7, 6, 9), ("dst2", "dct1", "dct2"), dtype=np.float32, kind="r2r",
                grid=GRIDS_3D[-1], engine=engine)


@pytest.mark.parametrize("shape,kinds", [((7, 6, 9), ("dct2", "dct2", "dct2")), ((9, 8), ("dst1", "dct3"))],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v[0], int) else kinds_id(v))
def test_r2r_plan_in_place(comm, shape, kinds):
    grid = GRIDS_3D[-1] if len(shape) == 3 else GRID_2D
    check_kinds(comm, shape, kinds, dtype=np.float64, kind="r2r", grid=grid, in_place=True)


def test_r2r_plan_moves_half_the_bytes(comm):
    """The same kinds on complex data move complex values: twice an r2r plan's bytes."""
    with volfft.Plan(comm, (8, 6, 10), np.float64, "r2r", kinds=("dct2",) * 3, effort="estimate") as plan:
        real = plan.describe()
    with volfft.Plan(comm, (8, 6, 10), kinds=("dct2",) * 3, effort="estimate") as plan:
        complex_ = plan.describe()
    assert real["element_bytes"] == 8 and complex_["element_bytes"] == 16
    got = [2 * np.asarray(e["messages"])[:, 2] for e in real["exchanges"]]
    want = [np.asarray(e["messages"])[:, 2] for e in complex_["exchanges"]]
    assert len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want))


def test_r2r_plan_refuses_complex_arrays(comm):
    with volfft.Plan(comm, (6, 5, 4), np.float64, "r2r", kinds=("dct2",) * 3, effort="estimate") as plan:
        a = np.zeros(plan.input_shape, np.complex128)  # the same on every rank: raises everywhere
        with pytest.raises(TypeError, match="expected dtype float64"):
            plan.forward(a)


# ---------------------------------------------------------------------------- plan attributes
def test_default_kinds(comm):
    with volfft.Plan(comm, (4, 5, 6), effort="estimate") as c2c, \
            volfft.Plan(comm, (4, 5, 6), np.float64, "r2c", effort="estimate") as r2c, \
            volfft.Plan(comm, (4, 5), np.float64, "r2c", effort="estimate") as r2c_2d:
        got = (c2c.kinds, r2c.kinds, r2c_2d.kinds)
    assert got == (("dft", "dft", "dft"), ("dft", "dft", "r2c"), ("dft", "r2c")), got


@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_wavenumbers_follow_the_kinds(comm, grid):
    """dft: fftfreq(n) * n; r2c last axis: 0 .. n // 2; r2r and none: the index 0 .. n - 1."""
    shape, kinds = (7, 6, 9), ("dct2", "dft", "r2c")
    with volfft.Plan(comm, shape, np.float64, "r2c", kinds=kinds, grid=grid,
                     effort="estimate") as plan:
        k = plan.wavenumbers()
        block = plan.local_slice(True)
        out_shape = plan.output_shape
    want = [np.arange(7), np.fft.fftfreq(6, 1 / 6).astype(np.int64), np.arange(9 // 2 + 1)]
    wrong = [axis for axis in range(3)
             if not np.array_equal(np.broadcast_to(k[axis], out_shape),
                                   np.broadcast_to(np.expand_dims(want[axis][block[axis]],
                                                                  [d for d in range(3) if d != axis]),
                                                   out_shape))]
    everyone = comm.allgather(wrong)
    assert not any(everyone), f"wavenumbers wrong on axes {everyone} (per rank), grid {grid}"
    with volfft.Plan(comm, (5, 4), kinds=("none", "dst1"), effort="estimate") as plan:
        k = plan.wavenumbers()
        block = plan.local_slice(True)
    ok = (np.array_equal(k[0].ravel(), np.arange(5)[block[0]])
          and np.array_equal(k[1].ravel(), np.arange(4)[block[1]]))
    assert all(comm.allgather(ok)), "none/dst1 axes: wavenumbers are not the index"


# ---------------------------------------------------------------------------- errors
BAD_KINDS = [
    ("wrong length", (7, 6, 9), "c2c", ("dct2", "dft"), r"kinds must have one entry per axis"),
    ("too long", (7, 6), "c2c", ("dft", "dft", "dft"), r"kinds must have one entry per axis"),
    ("r2c in c2c", (7, 6, 9), "c2c", ("dft", "r2c", "dft"), r"r2c"),
    ("r2c not last", (7, 6, 9), "r2c", ("r2c", "dft", "r2c"), r"only the last axis can be r2c"),
    ("r2c last not r2c", (7, 6, 9), "r2c", ("dft", "dft", "dct2"), r"last axis must be 'r2c'"),
    ("r2c last none", (7, 6, 9), "r2c", ("dft", "none", "none"), r"last axis must be 'r2c'"),
    ("dct1 on 1 point", (1, 6, 9), "c2c", ("dct1", "dft", "dft"), r"DCT-I needs at least 2 points"),
    ("dct1 on 1 point r2c", (5, 1, 4), "r2c", ("dft", "dct1", "r2c"),
     r"DCT-I needs at least 2 points"),
    ("unknown name", (7, 6, 9), "c2c", ("dct2", "dct5", "dft"), r"kinds must be one of"),
    ("r2r without kinds", (7, 6, 9), "r2r", (), r"an r2r plan needs kinds"),
    ("dft in r2r", (7, 6, 9), "r2r", ("dct2", "dft", "dct2"), r"an r2r plan's data is real"),
    ("r2c in r2r", (7, 6, 9), "r2r", ("dct2", "dct2", "r2c"), r"the plan's kind is r2r"),
    ("upper case", (7, 6, 9), "c2c", ("DCT2", "dft", "dft"), r"kinds must be one of"),
]


def refusals(comm, make):
    """Every rank's VolfftError message from ``make()`` (None where it did not raise)."""
    try:
        make()
        message = None
    except volfft.VolfftError as error:
        message = str(error)
    return comm.allgather(message)


@pytest.mark.parametrize("case", BAD_KINDS, ids=lambda c: c[0])
def test_bad_kinds_raise_on_every_rank(comm, case):
    _, shape, kind, kinds, pattern = case
    dtype = np.complex128 if kind == "c2c" else np.float64

    def make():
        volfft.Plan(comm, shape, dtype, kind, kinds=kinds, effort="estimate").close()

    messages = refusals(comm, make)
    assert all(m is not None and re.search(pattern, m) for m in messages), (
        f"kinds={kinds}: expected VolfftError matching {pattern!r} on every rank, got {messages}")


@pytest.mark.skipif(SIZE == 1, reason="needs ranks that disagree")
def test_kinds_differing_between_ranks_raise_on_every_rank(comm):
    kinds = ("dct2", "dft", "dft") if comm.rank == 0 else ("dct3", "dft", "dft")

    def make():
        volfft.Plan(comm, (7, 6, 9), kinds=kinds, effort="estimate").close()

    messages = refusals(comm, make)
    assert all(m is not None and "differ across ranks" in m for m in messages), messages


def test_kinds_must_be_a_sequence_of_strings(comm):
    with pytest.raises(TypeError, match="kinds"):
        volfft.Plan(comm, (7, 6, 9), kinds="dct2", effort="estimate")


# ------------------------------------------------------------------ more than three axes
ND_CASES = [
    ((5, 4, 3, 6), ("dft",) * 4, "c2c"),
    ((3, 4, 5, 2, 3), ("dft",) * 5, "c2c"),
    ((2, 7, 3, 5), ("dft", "dct2", "none", "dst1"), "c2c"),
    ((6, 5, 4, 3), ("dct2", "dst2", "dct1", "dct3"), "r2r"),
    ((4, 3, 5, 3, 2), ("dct2", "none", "dst4", "dct4", "none"), "r2r"),
]


@pytest.mark.parametrize("shape,kinds,kind", ND_CASES, ids=lambda c: "x".join(map(str, c)) if isinstance(c, tuple) and isinstance(c[0], int) else None)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=grid_id)
def test_more_than_three_axes(comm, shape, kinds, kind, grid):
    """A plan of 4 or 5 axes (the first three distributed, the rest whole on every rank) against
    the numpy reference over every axis, on every grid; a first axis of 2 leaves ranks empty."""
    check_kinds(comm, shape, kinds, kind=kind, grid=grid)


@pytest.mark.parametrize("options", [{"in_place": True}, {"layout": "natural"}, {"engine": "p2p"}], ids=str)
def test_more_than_three_axes_with_options(comm, options):
    check_kinds(comm, (5, 4, 6, 3), ("dft", "dft", "dft", "dct2"), **options)


def test_more_than_three_axes_with_interleaved_fields(comm):
    """batch=2, batch_layout="inner": the arrays carry the field index last, after the trailing axes."""
    shape = (5, 4, 3, 6)
    glob = random_global(shape + (2,), "c2c", np.complex128, seed=5) if comm.rank == ROOT else None
    glob = comm.bcast(glob, root=ROOT)
    with volfft.Plan(comm, shape, batch=2, batch_layout="inner", effort="estimate") as plan:
        assert plan.input_shape[-2:] == (6, 2) and plan.output_shape[-2:] == (6, 2)
        (lo, hi) = plan.input_box
        a = np.ascontiguousarray(glob[tuple(slice(l, h) for l, h in zip(lo, hi))])
        b = plan.forward(a)
        (lo, hi) = plan.output_box
        want = np.fft.fftn(glob, axes=(0, 1, 2, 3))[tuple(slice(l, h) for l, h in zip(lo, hi))]
        assert b.shape == want.shape  # arrays are indexed by global axes, whatever their memory order
        assert rel_l2(b, want) < 1e-13
        assert rel_l2(plan.backward(b), a) < 1e-13


def test_more_than_three_axes_in_single_precision(comm):
    check_kinds(comm, (5, 4, 6, 3), ("dft",) * 4, dtype=np.complex64)


@pytest.mark.parametrize("make,pattern", [
    (lambda comm: volfft.Plan(comm, (4, 3, 5, 2), np.float64, "r2c"), r"r2c plans take 2 or 3 axes; got shape with 4"),
    (lambda comm: volfft.Plan(comm, (4, 3, 5, 2), batch=2), r"batch with batch_layout 'outer' takes 2-D and 3-D plans"),
    (lambda comm: volfft.Plan(comm, (4, 3, 5, 2), padding=1.5), r"spectral_shape \(padding\) takes 2-D and 3-D plans"),
], ids=["r2c", "batch outer", "padding"])
def test_more_than_three_axes_refusals(comm, make, pattern):
    messages = refusals(comm, lambda: make(comm).close())
    assert all(m is not None and re.search(pattern, m) for m in messages), messages


@pytest.mark.parametrize("shape,options", [
    ((6, 5, 4), {"kinds": ("dft", "dft", "none")}),
    ((6, 5, 4), {"kinds": ("dft", "none", "dft"), "batch": 3}),
    ((6, 5, 4, 3), {}),
    ((6, 5, 4, 3), {"kinds": ("dft", "dft", "none", "none")}),
], ids=str)
def test_describe_of_relabelled_and_nd_plans(comm, shape, options):
    """A plan whose untransformed axes went first (its input may split the last axis) and an N-D
    plan describe themselves; the exchanges' bytes add up to the output boxes (checked inside)."""
    with volfft.Plan(comm, shape, effort="estimate", **options) as plan:
        d = plan.describe()
    values = math.prod(shape[3:]) * options.get("batch", 1)
    assert d["fields"] == values and d["shape"] == tuple(shape[:3])


def test_more_than_three_axes_on_user_arrays(comm):
    """Your own distribution of a 4-D array: bricks of the first three axes in, slabs of axis 1
    out, the fourth whole in every box; against numpy; a box that splits the fourth axis is
    refused on every rank."""
    shape = (5, 4, 6, 3)
    whole = ((0,), (3,))
    brick = volfft.bricks(shape[:3], comm.size)[comm.rank]
    slab = volfft.slabs(shape[:3], comm.size, 1)[comm.rank]
    in_box = (tuple(brick[0]) + whole[0], tuple(brick[1]) + whole[1])
    out_box = (tuple(slab[0]) + whole[0], tuple(slab[1]) + whole[1])
    glob = comm.bcast(random_global(shape, "c2c", np.complex128, seed=7) if comm.rank == ROOT else None, root=ROOT)
    with volfft.Plan(comm, shape, in_array=in_box, out_array=out_box, effort="estimate") as plan:
        assert plan.input_box == in_box and plan.output_box == out_box
        a = np.ascontiguousarray(glob[tuple(slice(l, h) for l, h in zip(*in_box))])
        b = plan.forward(a)
        want = np.fft.fftn(glob)[tuple(slice(l, h) for l, h in zip(*out_box))]
        assert b.shape == want.shape and rel_l2(b, want) < 1e-13
        assert rel_l2(plan.backward(b), a) < 1e-13
    split = (in_box[0][:3] + (0,), in_box[1][:3] + (2,))
    messages = refusals(comm, lambda: volfft.Plan(comm, shape, in_array=split).close())
    assert all(m is not None and "axes 3 and up must be whole, (0, 3), in every box" in m for m in messages), messages


def test_more_than_three_axes_refuse_ghosts_on_trailing_axes(comm):
    """Ghost layers on a trailing axis of a 4-D plan's user array are refused on every rank, as
    those on axes 0-2 are (they were dropped: the plan made arrays without them)."""
    shape = (5, 4, 6, 3)
    slab = volfft.slabs(shape[:3], comm.size, 0)[comm.rank]
    box = (tuple(slab[0]) + (0,), tuple(slab[1]) + (3,))
    for ghosts in [(0, 0, 0, 1), (1, 0, 0, 0)]:
        messages = refusals(comm, lambda: volfft.Plan(comm, shape, in_array=volfft.LocalBox(box, ghosts=ghosts),
                                                      effort="estimate").close())
        assert all(m is not None and "ghost layers" in m for m in messages), (ghosts, messages)
