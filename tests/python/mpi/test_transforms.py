"""Distributed transforms against numpy.fft on the gathered array, at any number of ranks.

Rank 0 makes a random global array, scatters it into the plan's layout, and compares the
gathered forward output with numpy.fft.fftn/rfftn (and the gathered backward output with the
input). Tolerances are a few units of eps * log2(N) in relative L2 norm.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from mpi4py import MPI

import volfft

SIZE = MPI.COMM_WORLD.size
ROOT = 0


def factor_grids(nprocs: int):
    """Every grid (p0, p1) with p0 * p1 == nprocs: slab first, then the pencils."""
    return [(nprocs // p1, p1) for p1 in range(1, nprocs + 1) if nprocs % p1 == 0]


GRIDS_3D = factor_grids(SIZE)
ENGINES = ["alltoallv", "alltoall", "alltoallw", "p2p", "pipelined", "persistent", "node"]
LAYOUTS = ["transposed", "natural"]
SHAPES_3D = [(8, 8, 8), (7, 9, 11), (1, 5, 6), (5, 1, 3), (3, 4, 2), (16, 12, 10), (2, 3, 1)]
SHAPES_2D = [(8, 8), (7, 9), (1, 5), (5, 1), (3, 2), (13, 6), (2, 1)]
EPS = {np.dtype(np.complex128): np.finfo(np.float64).eps,
       np.dtype(np.complex64): np.finfo(np.float32).eps}


def random_global(shape, kind, dtype, seed=1):
    rng = np.random.default_rng(seed)
    real = rng.standard_normal(shape)
    if kind == "r2c":
        return real.astype(np.float32 if dtype == np.complex64 else np.float64)
    return (real + 1j * rng.standard_normal(shape)).astype(dtype)


def rel_l2(got, want):
    scale = np.linalg.norm(want)
    return float(np.linalg.norm(got - want) / (scale if scale > 0 else 1.0))


def agree(comm, value):
    """Rank 0's value on every rank (so every rank asserts the same thing)."""
    return comm.bcast(value, root=ROOT)


def check_roundtrip(comm, shape, kind="c2c", dtype=np.complex128, **options):
    """Forward vs numpy, backward vs the input, input untouched (unless destroy_input allows
    otherwise); asserts on every rank."""
    options.setdefault("effort", "estimate")
    glob = random_global(shape, kind, dtype) if comm.rank == ROOT else None
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, **options) as plan:
        a = volfft.scatter(plan, glob, root=ROOT)
        before = a.copy()
        b = plan.forward(a)
        spectrum = volfft.gather(plan, b, root=ROOT)
        c = plan.backward(b)
        back = volfft.gather(plan, c, root=ROOT, forward_output=False)
        untouched = comm.allreduce(int(np.array_equal(a, before)), op=MPI.MIN)
    verdict = None
    if comm.rank == ROOT:
        if kind == "r2c":
            want = np.fft.rfftn(glob.astype(np.float64))
        else:
            want = np.fft.fftn(glob.astype(np.complex128))
        verdict = (rel_l2(spectrum, want), rel_l2(back, glob))
    forward_error, backward_error = agree(comm, verdict)
    n = math.prod(shape)
    tol = 8 * EPS[np.dtype(dtype)] * max(1.0, math.log2(n))
    where = f"shape={shape} kind={kind} dtype={np.dtype(dtype)} options={options} np={comm.size}"
    assert forward_error <= tol, f"forward error {forward_error:.3g} > {tol:.3g}: {where}"
    assert backward_error <= tol, f"round-trip error {backward_error:.3g} > {tol:.3g}: {where}"
    if not options.get("destroy_input"):
        assert untouched == 1, f"forward modified its input: {where}"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", [(8, 8, 8), (7, 9, 11)], ids=str)
def test_engine_grid_layout_3d(comm, shape, kind, grid, engine, layout):
    check_roundtrip(comm, shape, kind, grid=grid, engine=engine, layout=layout)


@pytest.mark.parametrize("grid", ["auto"] + GRIDS_3D, ids=str)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["double", "float"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", SHAPES_3D, ids=str)
def test_uneven_shapes_3d(comm, shape, kind, dtype, grid):
    check_roundtrip(comm, shape, kind, dtype, grid=grid)


@pytest.mark.parametrize("backend", ["fftw", "ducc0"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", [(8, 8, 8), (7, 9, 11), (13, 4)], ids=str)
def test_destroy_input_keeps_the_results(comm, shape, kind, backend):
    """destroy_input=True: forward and backward may overwrite their input (FFTW plans made with
    FFTW_DESTROY_INPUT; at one rank an r2c backward is one c2r plan reading the spectrum); the
    spectrum and the round trip stay right, in double and single precision."""
    try:
        volfft.Plan(MPI.COMM_SELF, (2, 2, 2), backend=backend, effort="estimate").close()
    except volfft.VolfftError as exc:  # a build without ducc0 (VOLFFT_DUCC0=OFF) says so
        pytest.skip(str(exc))
    check_roundtrip(comm, shape, kind, destroy_input=True, backend=backend)
    check_roundtrip(comm, shape, kind, np.complex64, destroy_input=True, backend=backend)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["double", "float"])
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", SHAPES_2D, ids=str)
def test_shapes_2d(comm, shape, kind, dtype):
    check_roundtrip(comm, shape, kind, dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_engine_layout_2d(comm, kind, engine, layout):
    check_roundtrip(comm, (7, 9), kind, grid=(SIZE, 1), engine=engine, layout=layout)


def test_larger_pencil_single_precision(comm):
    check_roundtrip(comm, (32, 24, 20), "r2c", np.complex64, grid=GRIDS_3D[-1])


class ReversedPlacement:
    """Anything with rank_order() is a placement (volfft.mapping.Placement is one)."""

    def __init__(self, nprocs):
        self.nprocs = nprocs

    def rank_order(self):
        return np.arange(self.nprocs)[::-1]


@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
def test_placement_object_and_sequence(comm, grid):
    check_roundtrip(comm, (6, 7, 5), "c2c", grid=grid, placement=ReversedPlacement(comm.size))
    check_roundtrip(comm, (6, 7, 5), "r2c", grid=grid,
                    placement=[(r + 1) % comm.size for r in range(comm.size)])


def test_scale_backward_false_gives_n_times_input(comm):
    shape = (5, 6, 7)
    glob = random_global(shape, "c2c", np.complex128) if comm.rank == ROOT else None
    with volfft.Plan(comm, shape, scale_backward=False, effort="estimate") as plan:
        a = volfft.scatter(plan, glob)
        back = volfft.gather(plan, plan.backward(plan.forward(a)), forward_output=False)
    error = agree(comm, rel_l2(back, math.prod(shape) * glob) if comm.rank == ROOT else None)
    assert error < 1e-13, f"unscaled round trip differs from N * input by {error:.3g}"


@pytest.mark.parametrize("kind,dtype", [("c2c", np.complex128), ("r2c", np.float64)])
def test_scale_forward_is_numpys_forward_norm(comm, kind, dtype):
    """scale_forward=True, scale_backward=False: numpy's norm="forward" both ways."""
    shape = (5, 6, 7)
    glob = random_global(shape, kind, dtype) if comm.rank == ROOT else None
    with volfft.Plan(comm, shape, dtype, kind, scale_forward=True, scale_backward=False,
                     effort="estimate") as plan:
        flags = (plan.scale_forward, plan.scale_backward)
        a = volfft.scatter(plan, glob)
        b = plan.forward(a)
        spectrum = volfft.gather(plan, b)
        back = volfft.gather(plan, plan.backward(b), forward_output=False)
    errors = None
    if comm.rank == ROOT:
        fft = np.fft.rfftn if kind == "r2c" else np.fft.fftn
        errors = (rel_l2(spectrum, fft(glob, norm="forward")), rel_l2(back, glob))
    forward_error, round_trip = agree(comm, errors)
    assert flags == (True, False), flags
    assert forward_error < 1e-13, f"forward differs from numpy's norm='forward' by {forward_error:.3g}"
    assert round_trip < 1e-13, f"round trip off by {round_trip:.3g}"


def test_out_arrays_are_used_in_place(comm):
    with volfft.Plan(comm, (6, 5, 4), kind="r2c", effort="estimate") as plan:
        a = plan.input_array()
        a[...] = 1.0
        out = plan.output_array()
        result = plan.forward(a, out=out)
        same = result is out
        back = plan.input_array()
        same_back = plan.backward(out, out=back) is back
        ok = comm.allreduce(int(same and same_back and np.allclose(back, 1.0)), op=MPI.MIN)
    assert ok == 1, "forward/backward must write into and return the given out arrays"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
def test_wavenumbers_match_fftfreq(comm, grid, kind, layout):
    shape = (6, 5, 7)
    with volfft.Plan(comm, shape, kind=kind, grid=grid, layout=layout, effort="estimate") as plan:
        k = plan.wavenumbers()
        gathered = []
        for axis in range(3):
            # broadcast each axis' frequencies over the local output, then gather globally
            local = plan.output_array()
            local[...] = k[axis]
            gathered.append(volfft.gather(plan, local))
        verdict = None
        if comm.rank == ROOT:
            last = np.arange(shape[2] // 2 + 1) if kind == "r2c" else np.fft.fftfreq(shape[2], 1 / shape[2])
            axes = [np.fft.fftfreq(shape[0], 1 / shape[0]), np.fft.fftfreq(shape[1], 1 / shape[1]), last]
            want = np.meshgrid(*axes, indexing="ij")
            verdict = all(np.array_equal(g.real, w) for g, w in zip(gathered, want))
    assert agree(comm, verdict), f"wavenumbers differ from numpy.fft.fftfreq (grid {grid}, {kind}, {layout})"


@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
def test_local_slices_tile_the_global_array(comm, grid):
    shape = (7, 5, 6)
    with volfft.Plan(comm, shape, kind="r2c", grid=grid, effort="estimate") as plan:
        sides = [(plan.local_slice(False), plan.input_shape, plan.input_order, plan.shape),
                 (plan.local_slice(True), plan.output_shape, plan.output_order,
                  plan.output_global_shape)]
        everything = comm.gather(sides, root=ROOT)
    verdict = None
    if comm.rank == ROOT:
        verdict = True
        for side in range(2):
            cover = np.zeros(everything[0][side][3], dtype=int)
            for rank_sides in everything:
                block, local_shape, order, _ = rank_sides[side]
                cover[block] += 1
                extents = [block[a].stop - block[a].start for a in range(3)]
                verdict &= tuple(extents) == tuple(local_shape)  # arrays in global axes
            verdict &= bool(np.all(cover == 1))
    assert agree(comm, verdict), "local slices must tile each global array exactly once"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("shape", [(7, 6, 5), (9, 4)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
def test_arrays_are_indexed_by_global_axes(comm, grid, shape, kind, layout):
    """forward's output is this rank's block of numpy's spectrum, index for index, on any grid
    and layout: a view in global axes over the plan's memory order, which backward and gather
    take back as it is."""
    if len(shape) == 2 and grid[1] != 1:
        pytest.skip("2-D plans take slab grids only")
    glob = comm.bcast(random_global(shape, kind, np.complex128) if comm.rank == ROOT else None)
    want = np.fft.rfftn(glob) if kind == "r2c" else np.fft.fftn(glob)
    with volfft.Plan(comm, shape, kind=kind, grid=grid, layout=layout, effort="estimate") as plan:
        a = volfft.scatter(plan, glob if comm.rank == ROOT else None)
        b = plan.forward(a)
        mine = want[plan.local_slice(True)]
        problems = []
        if not isinstance(b, volfft.LocalArray) or b.shape != mine.shape:
            problems.append(f"output {type(b).__name__} of shape {b.shape}, expected {mine.shape}")
        elif not np.allclose(b, mine, rtol=0, atol=1e-12 * np.abs(want).max()):
            problems.append("output differs from numpy's spectrum at the same global indices")
        if (b.global_shape, b.offset, b.memory_order) != (
                plan.output_global_shape, plan.output_box[0], plan.output_order):
            problems.append(f"attributes {b.global_shape} {b.offset} {b.memory_order}")
        if b.local_slice() != plan.local_slice(True):
            problems.append(f"local_slice {b.local_slice()}")
        if not (b.memory.flags.c_contiguous and (b.size == 0 or np.shares_memory(b, b.memory))):
            problems.append("memory is not a contiguous view of the same data")
        if not problems and not np.allclose(b.memory, mine.transpose(plan.output_order), rtol=0,
                                            atol=1e-12 * np.abs(want).max()):
            problems.append("memory is not the block in output_order")
        k = plan.wavenumbers()
        for axis, n in enumerate(plan.output_global_shape):
            freq = np.arange(n) if kind == "r2c" and axis == len(shape) - 1 else np.fft.fftfreq(n, 1 / n)
            if not np.array_equal(np.broadcast_to(k[axis], b.shape),
                                  np.broadcast_to(np.expand_dims(
                                      freq[plan.local_slice(True)[axis]],
                                      [d for d in range(len(shape)) if d != axis]), b.shape)):
                problems.append(f"wavenumbers of axis {axis} do not match the output's indices")
        back = plan.backward(b)
        if not np.allclose(back, glob[plan.local_slice()], rtol=0, atol=1e-12):
            problems.append("backward of forward's output is not the input block")
        # A C-order copy in global axes has other memory than the plan's whenever the order is
        # not the identity (and the block not flat): as an input it is copied into the plan's
        # staging array and transformed right; as an out array it is refused on every rank.
        copy = np.ascontiguousarray(b)
        wrong = comm.allreduce(int(not copy.transpose(plan.output_order).flags.c_contiguous),
                               op=MPI.MAX)
        if not np.allclose(plan.backward(copy), back, rtol=0, atol=1e-12):
            problems.append("backward of a C-order copy differs")
        if wrong:
            with pytest.raises(ValueError, match=r"out: expected an array whose memory is in the "
                                                 r"plan's output order|rank"):
                plan.forward(back, out=copy)
    everyone = comm.allgather(problems)
    assert not any(everyone), f"grid {grid} {kind} {layout}: {everyone}"


def test_timings_report_phases(comm):
    with volfft.Plan(comm, (8, 8, 8), effort="estimate", grid=GRIDS_3D[-1]) as plan:
        a = plan.input_array()
        b = plan.forward(a)
        mine = plan.timings("forward")
        worst = plan.timings("forward", max_over_ranks=True)
        plan.backward(b)
        back = plan.timings("backward", max_over_ranks=True)
    assert mine and back, "expected per-phase timings after forward and backward"
    assert list(mine) == list(worst), "max-over-ranks timings must list the same phases"
    assert all(worst[p] >= mine[p] >= 0 for p in mine), (mine, worst)
    assert any(name.startswith("fft") for name in mine), f"no FFT phase in {list(mine)}"
    if comm.size > 1:
        assert any("exchange" in name for name in mine), f"no exchange phase in {list(mine)}"


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
@pytest.mark.parametrize("grid", GRIDS_3D, ids=lambda g: f"{g[0]}x{g[1]}")
def test_describe_matches_the_live_plan(comm, grid, kind):
    shape = (7, 6, 9)
    with volfft.Plan(comm, shape, kind=kind, grid=grid, effort="estimate") as plan:
        live = plan.describe()
        mine = (plan.grid_position, plan.input_box, plan.output_box)
        everyone = comm.allgather(mine)
    pure = volfft.describe(shape, grid=grid, kind=kind)
    assert live["grid"] == pure["grid"] == tuple(grid)
    for a, b in zip(live["exchanges"], pure["exchanges"]):
        assert a["name"] == b["name"] and np.array_equal(a["messages"], b["messages"])
    for (i, j), (in_lo, in_hi), (out_lo, out_hi) in everyone:
        g = i * grid[1] + j
        assert np.array_equal(pure["input_boxes"][g], [in_lo, in_hi]), f"input box of {g}"
        assert np.array_equal(pure["output_boxes"][g], [out_lo, out_hi]), f"output box of {g}"


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_destroy_input_leaves_a_read_only_input_alone(comm, kind):
    """destroy_input lets the library write into what it is given; a read-only array is then
    transformed from a copy (it was written through its read-only flag, and a read-only memory
    map crashed the process)."""
    shape = (8, 6, 5)
    dtype = np.complex128 if kind == "c2c" else np.float64
    glob = random_global(shape, kind, np.complex128) if comm.rank == ROOT else None
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, destroy_input=True, effort="estimate") as plan:
        a = volfft.scatter(plan, glob, root=ROOT)
        b = plan.forward(a)
        frozen = b.view()
        frozen.flags.writeable = False
        kept = np.array(b)
        c = plan.backward(frozen)
        unchanged = comm.allreduce(int(np.array_equal(np.asarray(b), kept)), op=MPI.MIN)
        back = volfft.gather(plan, c, root=ROOT, forward_output=False)
    error = agree(comm, rel_l2(back, glob) if comm.rank == ROOT else None)
    assert unchanged == 1, "backward wrote into a read-only spectrum"
    assert error <= 8 * EPS[np.dtype(np.complex128)] * 10, f"round trip error {error}"
