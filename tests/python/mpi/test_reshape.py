"""Reshape and plans on the user's own arrays, from Python: random covers (irregular boxes,
empty boxes, ranks in any order), memory orders, ghost layers, the four dtypes, batched fields,
every engine, reverse and split phase, checked element by element against the global array;
plans on bricks, slabs and FFTW's blocks against numpy.fft; bad covers and bad arrays raise the
same error on every rank. Every verdict is agreed over the ranks, so a failure on one rank fails
all of them instead of leaving the others in the next collective.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from mpi4py import MPI

import volfft

SIZE = MPI.COMM_WORLD.size
DTYPES = [np.complex128, np.complex64, np.float64, np.float32]
ENGINES = ["alltoallv", "alltoall", "alltoallw", "p2p", "persistent"]


def agreed(comm, ok: bool) -> bool:
    """True when ``ok`` holds on every rank."""
    return bool(comm.allreduce(1 if ok else 0, op=MPI.MIN))


def slices(box):
    return tuple(slice(lo, hi) for lo, hi in zip(*box))


def global_values(shape, dtype, fields=None):
    """A deterministic global array: every element different (exact in float32 for small shapes)."""
    full = shape if fields is None else fields
    values = np.arange(math.prod(full), dtype=np.float64).reshape(full)
    if np.dtype(dtype).kind == "c":
        values = values - 0.5j * values
    return values.astype(dtype)


def random_cover(rng, shape, nprocs):
    """Every rank's box of a random cover: a random grid whose product is nprocs, random cuts
    (empty parts included), blocks dealt to ranks in a random order."""
    d = len(shape)
    grids = [g for g in itertools.product(range(1, nprocs + 1), repeat=d) if math.prod(g) == nprocs]
    grid = grids[rng.integers(len(grids))]
    cuts = []
    for n, p in zip(shape, grid):
        inner = np.sort(rng.integers(0, n + 1, size=p - 1))
        cuts.append([0, *inner.tolist(), n])
    blocks = [tuple(zip(*[(cuts[a][i[a]], cuts[a][i[a] + 1]) for a in range(d)]))
              for i in itertools.product(*[range(p) for p in grid])]
    owner = rng.permutation(nprocs)
    boxes = [None] * nprocs
    for block, rank in zip(blocks, owner):
        boxes[rank] = (tuple(block[0]), tuple(block[1]))
    return boxes


def random_order(rng, ndim):
    """A memory order for one side (the same on every rank, as the library requires)."""
    return tuple(rng.permutation(ndim).tolist()) if rng.integers(2) else None


def random_part(rng, box, ndim, order):
    ghosts = tuple(rng.integers(0, 3, size=ndim).tolist()) if rng.integers(2) else None
    return volfft.LocalBox(box, order=order, ghosts=ghosts)


@pytest.mark.parametrize("case", range(12))
def test_random_covers(comm, case):
    rng = np.random.default_rng(1000 + case)  # the same on every rank
    ndim = 2 + case % 2
    shape = tuple(rng.integers(1, 12, size=ndim).tolist())
    dtype = DTYPES[case % 4]
    engine = ENGINES[case % len(ENGINES)]
    boxes_in, boxes_out = random_cover(rng, shape, comm.size), random_cover(rng, shape, comm.size)
    order_in, order_out = random_order(rng, ndim), random_order(rng, ndim)
    parts = ([random_part(rng, b, ndim, order_in) for b in boxes_in],
             [random_part(rng, b, ndim, order_out) for b in boxes_out])
    part_in, part_out = parts[0][comm.rank], parts[1][comm.rank]
    g = global_values(shape, dtype)
    with volfft.Reshape(comm, shape, part_in, part_out, dtype, engine=engine) as reshape:
        assert reshape.engine == engine
        a = reshape.input_array()
        sentinel = np.asarray(-7, dtype)
        a[...] = sentinel
        a[part_in.owned_slice()] = g[slices(part_in.box)]
        out = reshape.output_array()
        out[...] = sentinel
        result = reshape.execute(a, out)
        ok = result is out and np.array_equal(out[part_out.owned_slice()], g[slices(part_out.box)])
        ghosts = np.ones(out.shape, bool)
        ghosts[part_out.owned_slice()] = False
        ok = ok and bool(np.all(out[ghosts] == sentinel))  # ghost layers never written
        back = reshape.reverse(out)
        ok = ok and np.array_equal(back[part_in.owned_slice()], g[slices(part_in.box)])
    assert agreed(comm, ok), f"case {case}: shape {shape}, {np.dtype(dtype)}, engine {engine}"


@pytest.mark.parametrize("layout", ["outer", "inner"])
def test_batch_split_phase_and_tuning(comm, layout):
    shape = (7, 5, 6)
    k = 3
    bricks, pencils = volfft.bricks(shape, comm.size), volfft.pencils(shape, comm.size, 2)
    fields = (k, *shape) if layout == "outer" else (*shape, k)
    g = global_values(shape, np.complex128, fields)

    def block(box):
        return (slice(None), *slices(box)) if layout == "outer" else (*slices(box), slice(None))

    with volfft.Reshape(comm, shape, bricks[comm.rank], pencils[comm.rank], batch=k, batch_layout=layout,
                        tune=1) as reshape:
        assert reshape.engine in ENGINES
        a = reshape.input_array()
        a[...] = g[block(bricks[comm.rank])]
        request = reshape.execute_start(a)
        request.test()
        out = request.wait()
        ok = out.shape == reshape.output_shape and np.array_equal(out, g[block(pencils[comm.rank])])
        back = reshape.reverse_start(out).wait()
        ok = ok and np.array_equal(back, a)
        # the workspace is exact: none for alltoallw, else a send and a receive area as large as
        # the larger of what this rank sends and receives (alltoall: padded blocks, at least that)
        moved = 2 * max(reshape.sent_count, reshape.received_count) * np.dtype(np.complex128).itemsize
        want_ok = {"alltoallw": reshape.workspace_bytes == 0,
                   "alltoall": reshape.workspace_bytes >= moved}.get(reshape.engine,
                                                                     reshape.workspace_bytes == moved)
        ok = ok and want_ok
    assert agreed(comm, ok)


@pytest.mark.parametrize("kind,dtype", [("c2c", np.complex128), ("r2c", np.float64), ("c2c", np.complex64)])
@pytest.mark.parametrize("layouts", [("bricks", "bricks"), ("slabs", "pencils"), ("fftw", "fftw")])
def test_plan_on_user_arrays(comm, kind, dtype, layouts):
    shape = (9, 7, 10)
    out_shape = shape[:-1] + (shape[-1] // 2 + 1,) if kind == "r2c" else shape
    named = {"bricks": lambda s: volfft.bricks(s, comm.size),
             "slabs": lambda s: volfft.slabs(s, comm.size, 1),
             "pencils": lambda s: volfft.pencils(s, comm.size, 0),
             "fftw": lambda s: volfft.fftw_blocks(s, comm.size, 0)}
    box_in, box_out = named[layouts[0]](shape)[comm.rank], named[layouts[1]](out_shape)[comm.rank]
    part_in = volfft.LocalBox(box_in, ghosts=1)  # a halo of one on every side
    part_out = volfft.LocalBox(box_out, order=(2, 1, 0))
    rng = np.random.default_rng(3)
    g = rng.standard_normal(shape)
    if kind == "c2c":
        g = g + 1j * rng.standard_normal(shape)
    g = g.astype(dtype)
    want = np.fft.rfftn(g) if kind == "r2c" else np.fft.fftn(g)
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, in_array=part_in, out_array=part_out) as plan:
        assert plan.input_box == box_in and plan.output_box == box_out
        assert plan.input_part == part_in and plan.output_part == part_out
        # (a side whose boxes are the plan's own is read in place, ghost layers and all, or laid
        # out in the given order, rather than reshaped: plan.reshapes says which)
        a = plan.input_array()
        a[part_in.owned_slice()] = g[slices(box_in)]
        y = plan.forward(a)
        tol = (1e-4 if np.dtype(dtype) == np.complex64 else 1e-12) * np.abs(want).max()
        ok = y.shape == tuple(h - l for l, h in zip(*box_out)) and y.memory_order == (2, 1, 0)
        ok = ok and np.abs(y - want[slices(box_out)]).max(initial=0) <= tol
        z = plan.backward(y)
        ok = ok and np.abs(z[part_in.owned_slice()] - g[slices(box_in)]).max(initial=0) <= tol / math.prod(shape) * 10
        names = [r["name"] for r in plan.describe()["reshapes"]]
        ok = ok and names == [n for n, r in zip(("reshape_in", "reshape_out"), plan.reshapes) if r]
    assert agreed(comm, ok), f"{kind} {np.dtype(dtype)} {layouts}"


def test_own_arrays_are_not_reshaped(comm):
    shape = (8, 6, 5)
    with volfft.Plan(comm, shape) as own:
        mine_in, mine_out = own.input_part, own.output_part
    with volfft.Plan(comm, shape, in_array=mine_in, out_array=mine_out) as plan:
        assert plan.reshapes == (False, False)
        rng = np.random.default_rng(0)
        g = rng.standard_normal(shape) + 0j
        y = plan.forward(volfft.scatter(plan, g if comm.rank == 0 else None))
        spectrum = volfft.gather(plan, y)
    if comm.rank == 0:
        assert np.allclose(spectrum, np.fft.fftn(g), atol=1e-10)


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_empty_user_boxes_are_reported_as_given(comm, kind):
    """A rank whose box is empty on another axis than the plan's own empty box (FFTW's blocks of
    a short axis 2 leave ranks 1.. empty) keeps its box: input_box/output_box and the arrays'
    shapes are the user's, so an array of the user's own box shape is taken."""
    shape = (2, 1, 1)
    dtype = np.complex128 if kind == "c2c" else np.float64
    mine = volfft.fftw_blocks(shape, comm.size, axis=2)[comm.rank]
    out_shape = shape if kind == "c2c" else shape[:-1] + (shape[-1] // 2 + 1,)
    theirs = volfft.fftw_blocks(out_shape, comm.size, axis=2)[comm.rank]
    with volfft.Plan(comm, shape, dtype=dtype, kind=kind, in_array=mine, out_array=theirs,
                     effort="estimate") as plan:
        ok = plan.input_box == mine and plan.output_box == theirs
        a = np.ones(tuple(h - l for l, h in zip(*mine)), dtype)
        out = np.zeros(tuple(h - l for l, h in zip(*theirs)), plan.output_dtype)
        try:
            plan.forward(a, out=out)
        except volfft.VolfftError:
            ok = False
    assert comm.allreduce(int(ok), op=MPI.MIN) == 1


def test_distributions_cover_once(comm):
    for shape in [(7, 5, 3), (2, 9), (1, 1, 4), (16, 16, 16)]:
        for nprocs in range(1, 9):
            covers = {"bricks": volfft.bricks(shape, nprocs), "fftw": volfft.fftw_blocks(shape, nprocs, 0)}
            for axis in range(len(shape)):
                covers[f"slabs{axis}"] = volfft.slabs(shape, nprocs, axis)
                covers[f"pencils{axis}"] = volfft.pencils(shape, nprocs, axis)
            for name, boxes in covers.items():
                assert len(boxes) == nprocs, name
                count = np.zeros(shape, int)
                for box in boxes:
                    count[slices(box)] += 1
                assert np.all(count == 1), f"{name} of {shape} over {nprocs}"
    # FFTW's block size ceil(n / P): 10 points over 4 ranks are 3, 3, 3, 1; over 6: 2 x 5, one empty
    assert [hi[0] - lo[0] for lo, hi in volfft.fftw_blocks((10, 4), 4)] == [3, 3, 3, 1]
    assert [hi[0] - lo[0] for lo, hi in volfft.fftw_blocks((10, 4), 6)] == [2, 2, 2, 2, 2, 0]
    with pytest.raises(volfft.VolfftError, match="axis"):
        volfft.pencils((4, 4, 4), 2, 3)
    with pytest.raises(TypeError, match="nprocs"):
        volfft.bricks((4, 4, 4), "2")


def test_errors_on_every_rank(comm):
    shape = (8, 6, 5)
    slabs = volfft.slabs(shape, comm.size, 0)
    # rank 0 claims the whole array: an overlap with every other rank (np 1: a box outside)
    bad = ((0, 0, 0), (8 if comm.size > 1 else 9, 6, 5)) if comm.rank == 0 else slabs[comm.rank]
    with pytest.raises(volfft.VolfftError, match="overlap" if comm.size > 1 else "not inside the array"):
        volfft.Reshape(comm, shape, bad, slabs[comm.rank])
    with pytest.raises(volfft.VolfftError, match="overlap" if comm.size > 1 else "not inside the array"):
        volfft.Plan(comm, shape, in_array=bad)
    # a gap: the last rank holds nothing where it should hold something
    if comm.size > 1:
        gap = ((0, 0, 0), (0, 0, 0)) if comm.rank == comm.size - 1 else slabs[comm.rank]
        with pytest.raises(volfft.VolfftError, match="gap|cover"):
            volfft.Reshape(comm, shape, gap, slabs[comm.rank])
    # four axes: named as such (it said "box lo: expected 3 entries")
    with pytest.raises(volfft.VolfftError, match=r"shape: a Reshape takes 2 or 3 axes, got 4"):
        volfft.Reshape(comm, (8, 6, 5, 2), ((0, 0, 0, 0), (8, 6, 5, 2)), ((0, 0, 0, 0), (8, 6, 5, 2)))
    # shapes that differ between ranks
    with pytest.raises(volfft.VolfftError, match="shape"):
        volfft.Reshape(comm, (8, 6, 5 + (comm.rank == comm.size - 1)), slabs[comm.rank], slabs[comm.rank])
    # a wrong option type on one rank, a wrong box type on another
    with pytest.raises(TypeError):
        volfft.Reshape(comm, shape, slabs[comm.rank] if comm.rank else "nope", slabs[comm.rank])
    with pytest.raises(TypeError, match="unknown option"):
        volfft.Reshape(comm, shape, slabs[comm.rank], slabs[comm.rank], layout="natural")
    with pytest.raises(TypeError, match="in_place"):
        volfft.Plan(comm, shape, in_array=slabs[comm.rank], in_place=True)
    with volfft.Reshape(comm, shape, slabs[comm.rank], volfft.bricks(shape, comm.size)[comm.rank]) as reshape:
        a = reshape.input_array()
        given = a if comm.rank != comm.size - 1 else np.zeros(a.shape + (2,), a.dtype)
        with pytest.raises(volfft.VolfftError, match="input array"):
            reshape.execute(given)
        # the rank with the wrong dtype raises TypeError, the others the agreed VolfftError
        with pytest.raises((TypeError, volfft.VolfftError), match="expected dtype complex128"):
            reshape.execute(a.astype(np.complex64) if comm.rank == 0 else a)
        reshape.execute(a)  # still usable afterwards
    with pytest.raises(volfft.VolfftError, match="closed"):
        reshape.execute(a)
    with volfft.Plan(comm, shape, in_array=volfft.LocalBox(slabs[comm.rank], ghosts=1)) as plan:
        with pytest.raises(volfft.VolfftError, match="ghost layers"):
            volfft.scatter(plan, np.zeros(shape, complex) if comm.rank == 0 else None)


@pytest.mark.parametrize("what", ["box", "ghosts", "storage", "order"])
def test_out_of_range_box_on_one_rank(comm, what):
    """A bound past 64 bits (an order entry past a C int) on one rank only: the extension could not
    convert it, and that rank raised TypeError alone while the others waited in the collective
    constructor (a hang, Reshape and Plan alike). Now the same VolfftError everywhere."""
    shape = (6, 4, 5)
    box = volfft.slabs(shape, comm.size, 0)[comm.rank]
    part = volfft.LocalBox(box)
    if comm.rank == comm.size - 1:
        lo, hi = box
        part = {"box": volfft.LocalBox((lo, (hi[0], hi[1], 2**64))),
                "ghosts": volfft.LocalBox(box, ghosts=2**63),
                "storage": volfft.LocalBox(box, storage=((-2**63 - 1, 0, 0), hi)),
                "order": volfft.LocalBox(box, order=(0, 1, 2**40))}[what]
    message = "order" if what == "order" else "64 bits"
    with pytest.raises(volfft.VolfftError, match=message):
        volfft.Reshape(comm, shape, part, box)
    with pytest.raises(volfft.VolfftError, match=message):
        volfft.Plan(comm, shape, in_array=part)


def test_output_allocation_failing_on_one_rank(comm):
    """execute() without out= allocates the output: a MemoryError on one rank only was raised there
    alone while the others waited in the call (a hang; Plan.forward alike). Now a VolfftError on
    every rank, and both stay usable."""
    shape = (6, 4, 5)
    slabs, pencils = volfft.slabs(shape, comm.size, 0), volfft.pencils(shape, comm.size, 2)

    def no_memory(*args, **kwargs):
        raise MemoryError()

    for make, call in ((lambda: volfft.Reshape(comm, shape, slabs[comm.rank], pencils[comm.rank]), "execute"),
                       (lambda: volfft.Plan(comm, shape), "forward")):
        with make() as target:
            a = target.input_array()
            if comm.rank == comm.size - 1:
                target._new_array = no_memory
            with pytest.raises(volfft.VolfftError, match="cannot allocate this rank's output array"):
                getattr(target, call)(a)
            target.__dict__.pop("_new_array", None)
            getattr(target, call)(a)


@pytest.mark.parametrize("engine", ["alltoallv", "p2p", "alltoallw"])
def test_dropped_split_phase_request_is_finished(comm, engine):
    """A request dropped without wait(): it is finished where it goes (as Plan's requests are),
    its output array stays alive until then, and the reshape takes calls again (before, the
    arrays were freed under the pending call, and its finish at close wrote into freed memory:
    a crash with alltoallv and p2p; and every later execute failed)."""
    shape = (6, 5, 4)
    bricks, pencils = volfft.bricks(shape, comm.size), volfft.pencils(shape, comm.size, 2)
    g = global_values(shape, np.complex128)
    with volfft.Reshape(comm, shape, bricks[comm.rank], pencils[comm.rank], engine=engine) as reshape:
        a = reshape.input_array()
        a[...] = g[slices(bricks[comm.rank])]
        reshape.execute_start(a)  # dropped at once
        fillers = [np.full(64, 7.0) for _ in range(32)]  # memory the freed arrays would have become
        out = reshape.execute(a)
        ok = np.array_equal(out, g[slices(pencils[comm.rank])]) and all((f == 7.0).all() for f in fillers)
    assert agreed(comm, ok)
