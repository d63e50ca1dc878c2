"""Randomized differential test: random plans against numpy on the gathered global array.

Each case is drawn from ``numpy.random.default_rng([seed, index])`` (so every rank draws the
same cases, and case ``index`` of a seed is the same whatever ``--cases`` says): a 2-D, 3-D or
4-D shape (primes, sizes 1, uneven sizes, sizes below the rank count so that some ranks hold
nothing), c2c, r2c or r2r, double or single precision (as a real or a complex dtype), per-axis
``kinds`` (dft, every DCT/DST type, none; always for r2r), a grid (slabs, pencils or "auto"),
every engine and backend the library names (:func:`volfft.plan_options`), layout, padding,
threads, placement, ``scale_backward``/``scale_forward``, ``batch`` 1-3 in either
``batch_layout``, ``in_place``, ``destroy_input``, ``min_memory``, the pipelined and node
engines' options, the user's own distribution of either side (``in_array``/``out_array``:
bricks, slabs, pencils or FFTW's blocks, in C or another memory order, the input sometimes with
ghost layers, which must be neither read nor written), ``out`` arrays, arrays not aligned for
SIMD, the split-phase calls, effort ``measure`` now and then, and a second round of calls on the
same plan (its requests, pipelines and buffers reused). Each is checked against numpy on rank 0, field by field: forward
against ``fftn``/``rfftn`` (padded: the kept m-box of the real grid's spectrum, spectral_box.py;
with kinds: the defining sums of test_kinds.py, which equal ``scipy.fft.dctn``/``dstn`` with
``norm=None``), backward of that output against numpy's inverse (with kinds: the input times
the scaling, docs/conventions.md), and neither call may modify its input unless it is in place
or allowed to (``destroy_input``).

One redistribution per four cases (``--cases // 4``) runs :class:`volfft.Reshape` alone: two
drawn distributions of a 2-D or 3-D array (memory orders, ghost layers on either side), every
dtype, engine and batch layout; execute must give every rank the global array's owned block and
reverse the input's, neither writing into ghost layers nor modifying its input.

A case the library must refuse (a 2-D array offered a pencil grid, r2c, padding or outer
fields on 4 axes, kinds with padding, ``dct1`` on one point, in place with padding or with an
r2c plan's inner fields, ``min_memory`` with backend auto, user arrays with padding or in place,
ghost layers on 4 axes) must be refused with the same message on every rank, matching the
library's documented reason. A case is skipped, with the library's reason printed, only when the
library says that its engine does not apply to the problem or that its backend is not part of
this build; any other error fails.

Options (tests/python/mpi/conftest.py): ``--seed S`` (default 17), ``--cases N`` and
``--case K`` (only case K, to replay a failure at the same np)::

    tests/python/run_mpi_tests.sh --np 4 -- -k random --seed 7 --cases 500
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from mpi4py import MPI

import volfft
from spectral_box import pad, truncate  # tests/python/mpi/spectral_box.py
from test_kinds import reference as kinds_reference  # the per-axis kinds' defining sums
from test_transforms import EPS, ROOT, ReversedPlacement, agree, factor_grids, random_global, rel_l2

SIZE = MPI.COMM_WORLD.size
_OPTIONS = volfft.plan_options()
ENGINES = list(_OPTIONS["engine"]["names"])  # "auto" included
BACKENDS = list(_OPTIONS["backend"]["names"])
LAYOUTS = list(_OPTIONS["layout"]["names"])
BATCH_LAYOUTS = list(_OPTIONS["batch_layout"]["names"])
R2R = [k for k in _OPTIONS["kinds"]["names"] if k[:3] in ("dct", "dst")]
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]
# Elements of the real grid at most (times the batch): keeps a case in the tens of
# milliseconds; one case in twenty may be larger (more planes for the pipelined engine, longer
# messages).
MAX_ELEMENTS = {2: 2500, 3: 5000, 4: 3000}
MAX_ELEMENTS_LARGE = 40000
# An engine may not apply to a problem, and the library then says so: a message larger than
# MPI's int counts, or engine pipelined on an in-place plan with one exchange (which grid "auto"
# or kinds "none" may give). Such a case is skipped, naming it.
NOT_APPLICABLE = re.compile(r"a message of the \w+ exchange would hold \d+ elements"
                            r"|engine 'pipelined' does not apply to an in-place plan with one exchange")
# ducc0 is optional at build time (VOLFFT_DUCC0); a build without it says so.
NOT_BUILT = re.compile(r"backend '(\w+)' is not part of this build")
# The user's distributions a case may give as in_array/out_array (volfft.distribution).
DISTRIBUTIONS = ["bricks", "slabs", "pencils", "fftw_blocks"]


def draw_size(rng: np.random.Generator, small: bool = False) -> int:
    r = rng.random()
    if r < 0.12:
        return 1
    if r < 0.35:
        return int(rng.choice(PRIMES[:5] if small else PRIMES))
    if r < 0.50 and SIZE > 1:
        return int(rng.integers(1, SIZE))  # fewer than the ranks: some ranks hold nothing
    if r < 0.90 or small:
        return int(rng.integers(2, 9 if small else 17))
    return int(rng.integers(17, 65))


def draw_kinds(rng: np.random.Generator, kind: str, ndim: int):
    """Per-axis kinds: r2r plans take DCT/DST kinds or none; c2c and r2c plans mix dft, the
    r2r kinds and none (an r2c plan's last axis is r2c)."""
    choices = R2R + ["none"] if kind == "r2r" else ["dft", "dft"] + R2R + ["none"]
    kinds = [str(rng.choice(choices)) for _ in range(ndim)]
    if kind == "r2c":
        kinds[-1] = "r2c"
    return tuple(kinds)


def logical_size(kind: str, n: int) -> int:
    """The axis's share of the scaling N (docs/conventions.md, "Transform kinds per axis")."""
    return {"dct1": 2 * (n - 1), "dst1": 2 * (n + 1), "none": 1}.get(
        kind, n if kind in ("dft", "r2c") else 2 * n)


def draw_case(seed: int, index: int) -> dict:
    """Case ``index`` of ``seed``: a dict of Plan arguments and how to call it."""
    rng = np.random.default_rng([seed, index])
    r = rng.random()
    ndim = 4 if r < 0.08 else 3 if r < 0.6 else 2
    kind = str(rng.choice(["c2c", "r2c", "r2r"], p=[0.45, 0.4, 0.15]))
    if ndim == 4 and kind == "r2c" and rng.random() < 0.9:
        kind = "c2c"  # refused (its halved axis would be a trailing one); now and then drawn
    kinds = None
    if kind == "r2r" or rng.random() < 0.2:
        kinds = draw_kinds(rng, kind, ndim)
    padding = None
    if rng.random() < 0.25 and ((ndim < 4 and kinds is None) or rng.random() < 0.05):
        factors = [1, 1.25, 1.5, 2]
        padding = (float(rng.choice(factors)) if rng.random() < 0.5
                   else tuple(float(f) for f in rng.choice(factors, ndim)))
    batch = 1
    batch_layout = None
    if rng.random() < 0.3:
        batch = int(rng.integers(1, 4))
        batch_layout = str(rng.choice(BATCH_LAYOUTS))
        if ndim == 4 and batch > 1 and rng.random() < 0.9:
            batch_layout = "inner"  # outer is refused there
    limit = MAX_ELEMENTS_LARGE if rng.random() < 0.05 else MAX_ELEMENTS[ndim]
    while True:
        shape = tuple(draw_size(rng, small=ndim == 4) for _ in range(ndim))
        if math.prod(real_grid(shape, padding)) * batch <= limit:
            break
    if kinds is not None and rng.random() < 0.95:
        # dct1 needs 2 points (refused on 1); now and then it is drawn there.
        kinds = tuple("dct2" if k == "dct1" and m < 2 else k for k, m in zip(kinds, shape))
    single = bool(rng.random() < 0.4)
    if kind == "c2c":
        dtype = "complex64" if single else "complex128"
    else:  # r2c and r2r plans take the precision as a real or a complex dtype
        dtype = str(rng.choice(["float32", "complex64"] if single else ["float64", "complex128"]))
    options = {"effort": "estimate"}
    if kinds is not None:
        options["kinds"] = list(kinds) if rng.random() < 0.5 else kinds
    if batch_layout is not None:
        options["batch"] = batch
        options["batch_layout"] = batch_layout
    # Grid: "auto", slabs or a pencil grid, as a pair, a list or "p0xp1". A 2-D array takes
    # slabs only; now and then it is offered pencils, which the library must refuse.
    if ndim == 2 and SIZE > 1 and rng.random() < 0.08:
        grid = tuple(factor_grids(SIZE)[int(rng.integers(1, len(factor_grids(SIZE))))])
    else:
        choices = ["auto", (SIZE, 1)] + (factor_grids(SIZE) if ndim >= 3 else [])
        grid = choices[int(rng.integers(len(choices)))]
    if grid != "auto":
        grid = [tuple(grid), list(grid), f"{grid[0]}x{grid[1]}"][int(rng.integers(3))]
    options["grid"] = grid
    options["engine"] = str(rng.choice(ENGINES))
    options["layout"] = str(rng.choice(LAYOUTS))
    if rng.random() < 0.15:
        options["backend"] = str(rng.choice(BACKENDS))
    if rng.random() < 0.3:
        options["threads"] = 2
    if rng.random() < 0.15:
        options["scale_backward"] = False
    if rng.random() < 0.1:
        options["scale_forward"] = True
    if options["engine"] == "pipelined" and rng.random() < 0.7:
        options["planes"] = [0, 1, 2, 3, "auto"][int(rng.integers(5))]
        options["max_in_flight"] = int(rng.integers(1, 5))
        options["pipeline_p2p"] = bool(rng.random() < 0.5)
    if options["engine"] == "node" and rng.random() < 0.6:
        options["ranks_per_node"] = int(rng.choice([0, 1, (SIZE + 1) // 2]))
    # In place: not with padding, nor (r2c) with interleaved fields; now and then drawn so.
    if rng.random() < 0.15:
        # Engine pipelined does not apply to an in-place plan with one exchange (skipped).
        slabs = ndim == 2 or (grid != "auto" and 1 in (tuple(grid) if not isinstance(grid, str) else
                                                       tuple(int(p) for p in grid.split("x"))))
        allowed = (padding is None and not (kind == "r2c" and batch_layout == "inner")
                   and not (options["engine"] == "pipelined" and slabs))
        if allowed or rng.random() < 0.1:
            options["in_place"] = True
    if rng.random() < 0.15:
        options["destroy_input"] = True
    if rng.random() < 0.08 and (options.get("backend") != "auto" or rng.random() < 0.1):
        options["min_memory"] = True
    placement = None
    if SIZE > 1 and rng.random() < 0.3:
        placement = ["reversed", [int(r) for r in rng.permutation(SIZE)]][int(rng.integers(2))]
    # The user's own distribution (in_array/out_array): a volfft.distribution of either side, in
    # C order or another memory order, sometimes with ghost layers; not with padding or in place.
    user = None
    if rng.random() < 0.15 and ((padding is None and not options.get("in_place")) or rng.random() < 0.1):
        user = {}
        for side in ("in", "out"):
            if rng.random() < 0.25:
                continue  # the plan's own for this side
            name = str(rng.choice(DISTRIBUTIONS))
            axis = int(rng.integers(min(ndim, 3)))
            order = None
            if rng.random() < 0.4:
                head = [int(a) for a in rng.permutation(min(ndim, 3))]
                order = head + list(range(3, ndim))
            ghosts = int(rng.integers(1, 3)) if side == "in" and batch == 1 and rng.random() < 0.3 else 0
            user[side] = {"name": name, "axis": axis, "order": order, "ghosts": ghosts}
    case = {"shape": shape, "kind": kind, "dtype": dtype, "padding": padding, "placement": placement,
            "options": options, "user": user, "split_phase": bool(rng.random() < 0.3),
            "out_arrays": bool(rng.random() < 0.3),
            "misaligned": bool(rng.random() < 0.2) and not options.get("in_place")}
    # The plan's second calls (persistent requests, pipelines and buffers reused) and effort
    # measure (timed FFTW plans, and with grid or engine "auto" timed candidates, which every
    # rank must agree on), drawn last so that the draws above stay those of earlier versions.
    case["repeat"] = bool(rng.random() < 0.2)
    if rng.random() < 0.05 and math.prod(shape) * batch <= MAX_ELEMENTS[ndim]:
        options["effort"] = "measure"
    return case


def misaligned_copy(array: volfft.LocalArray) -> np.ndarray:
    """A copy of a plan's array whose data starts one scalar (8 or 4 bytes) past a 64-byte
    boundary: aligned for its dtype, not for FFTW's SIMD plans (the library runs another plan
    for it). A plain numpy view in global axes over memory in the plan's order, as a user's own
    buffer would be."""
    memory = array.memory
    scalar = array.dtype.itemsize // (2 if array.dtype.kind == "c" else 1)
    raw = np.zeros(array.nbytes + 128, dtype=np.uint8)
    start = -raw.ctypes.data % 64 + scalar
    copy = raw[start:start + array.nbytes].view(array.dtype).reshape(memory.shape)
    copy[...] = memory
    return copy.transpose(np.argsort(array.memory_order))


def out_array(x, make, in_place: bool, case: dict):
    """The out array a case passes with input ``x``: none unless the case draws out arrays; in
    place ``x`` itself, else a new one from ``make`` (the plan's output_array or input_array),
    misaligned when the case is."""
    if not case["out_arrays"]:
        return None
    if in_place:
        return x
    out = make()
    return misaligned_copy(out) if case["misaligned"] else out


def call_checked(plan, forward: bool, x, out, case: dict, in_place: bool, destroy: bool,
                 problems: list):
    """One direction of ``plan`` on ``x`` (blocking, or split phase with a test() before the
    wait()), into ``out`` if given; what it got wrong goes into ``problems``: in place, an output
    that is not a view of the input's buffer; an out array it did not return; an input it
    modified where neither in place nor destroy_input allow it."""
    name = "forward" if forward else "backward"
    before = x.copy()
    if case["split_phase"]:
        request = (plan.forward_start if forward else plan.backward_start)(x, out=out)
        request.test()
        y = request.wait()
    else:
        y = (plan.forward if forward else plan.backward)(x, out=out)
    if in_place and x.size and y.size and not np.shares_memory(x, y):
        problems.append(f"in place: {name}'s output is not a view of its input's buffer")
    if out is not None and not in_place and y is not out:
        problems.append(f"{name} ignored its out array")
    if not in_place and not destroy and not np.array_equal(x, before, equal_nan=True):
        problems.append(f"{name} modified its input")
    return y


def real_grid(shape, padding):
    """The transform's grid: floor(m * padding) per axis, as Plan computes it."""
    if padding is None:
        return tuple(shape)
    factors = np.broadcast_to(np.asarray(padding, dtype=float), (len(shape),))
    return tuple(int(np.floor(m * f)) for m, f in zip(shape, factors))


def grid_of(case: dict):
    grid = case["options"]["grid"]
    if isinstance(grid, str) and grid != "auto":
        grid = tuple(int(p) for p in grid.split("x"))
    return grid if grid == "auto" else tuple(grid)


def expected_refusal(case: dict):
    """The messages (regular expressions) the library may refuse this case with (any one of
    them, the same on every rank), or None when it must make the plan."""
    grid, shape, opts = grid_of(case), case["shape"], case["options"]
    kinds = opts.get("kinds")
    ndim = len(shape)
    reasons = []
    if ndim == 2 and grid != "auto" and grid[1] != 1:
        reasons.append(re.escape(f"2-D arrays are decomposed in slabs only: grid must be {SIZE}x1; "
                                 f"got {grid[0]}x{grid[1]}"))
    if ndim > 3 and case["kind"] == "r2c":
        # Its user out_array, drawn over the halved last axis, is no whole trailing axis.
        reasons += [r"r2c", r"axes 3 and up must be whole"]
    if ndim > 3 and case["padding"] is not None:
        reasons.append(r"spectral_shape|padding")
    if ndim > 3 and opts.get("batch", 1) > 1 and opts.get("batch_layout") == "outer":
        reasons.append(r"batch")
    if kinds is not None and case["padding"] is not None:
        reasons.append(r"kinds")
    if kinds is not None and any(k == "dct1" and m < 2 for k, m in zip(kinds, shape)):
        reasons.append(r"kinds\[\d\]")
    if opts.get("in_place") and case["padding"] is not None:
        reasons.append(r"in_place|in place")
    if (opts.get("in_place") and case["kind"] == "r2c" and opts.get("batch", 1) > 1
            and opts.get("batch_layout") == "inner"):
        reasons.append(r"in_place|in place|inner")
    if opts.get("min_memory") and opts.get("backend") == "auto":
        reasons.append(r"min_memory")
    if ndim > 3 and any(spec["ghosts"] for spec in (case["user"] or {}).values()):
        reasons.append(r"a plan of \d axes takes no ghost layers")
    if case["user"] and (case["padding"] is not None or opts.get("in_place")):
        reasons.append(r"in_array/out_array: not with")
    return reasons or None


def side_shape(case: dict, n: tuple, output: bool) -> tuple:
    """One field's global shape on a side: the forward output of an r2c plan is halved."""
    if output and case["kind"] == "r2c":
        return tuple(case["shape"][:-1]) + (case["shape"][-1] // 2 + 1,)
    return tuple(case["shape"]) if output else n


def user_part(spec, shape, rank: int):
    """This rank's volfft.LocalBox of a drawn distribution of ``shape`` (more than 3 axes: the
    first three distributed, the others whole)."""
    if spec is None:
        return None
    head = shape[:3]
    if spec["name"] == "bricks":
        boxes = volfft.bricks(head, SIZE)
    else:
        boxes = getattr(volfft, spec["name"])(head, SIZE, spec["axis"])
    lo, hi = boxes[rank]
    box = (tuple(lo) + (0,) * (len(shape) - 3), tuple(hi) + tuple(shape[3:]))
    return volfft.LocalBox(box, order=spec["order"], ghosts=spec["ghosts"] or None)


def fields_of(glob: np.ndarray, batch: int, batch_layout) -> list:
    """The fields of a global array of a batched plan (its field axis first or last)."""
    if batch == 1:
        return [glob]
    return [glob[f] if batch_layout != "inner" else glob[..., f] for f in range(batch)]


def with_fields(fields: list, batch_layout):
    """The global array of the fields, with the field axis of a batched plan."""
    if len(fields) == 1:
        return fields[0]
    return np.stack(fields, axis=0 if batch_layout == "outer" else -1)


def numpy_reference(glob: np.ndarray, case: dict, n: tuple):
    """(forward output, backward of it) of one field as numpy computes them, in double precision."""
    opts = case["options"]
    r2c = case["kind"] == "r2c"
    m = case["shape"]
    real = case["kind"] != "c2c"
    x = glob.astype(np.float64 if real else np.complex128)
    kinds = opts.get("kinds")
    scale_forward = 1.0
    if kinds is not None:
        forward = kinds_reference(x, kinds)
        if case["kind"] == "r2r":
            forward = forward.real
        back = x
        big_n = math.prod(logical_size(k, s) for k, s in zip(kinds, n))
    else:
        full = np.fft.rfftn(x) if r2c else np.fft.fftn(x)
        forward = truncate(full, m, n, r2c)
        padded = pad(forward, m, n, r2c)
        axes = list(range(len(n)))
        back = np.fft.irfftn(padded, s=n, axes=axes) if r2c else np.fft.ifftn(padded, axes=axes)
        big_n = math.prod(n)
    if opts.get("scale_forward", False):
        scale_forward = 1.0 / big_n
        forward = forward * scale_forward
        back = back * scale_forward
    if not opts.get("scale_backward", True):
        back = back * big_n
    return forward, back


def place(plan, glob, output: bool, part):
    """Every rank's part of ``glob`` (root's) in a new plan array: volfft.scatter, or where the
    arrays have ghost layers by hand (the ghost layers filled with NaN, which the library must
    neither read nor write)."""
    if not plan._ghosts:
        return volfft.scatter(plan, glob, root=ROOT, forward_output=output)
    glob = plan.comm.bcast(glob, root=ROOT)
    a = plan.output_array() if output else plan.input_array()
    a[...] = np.nan
    owned = part.owned_slice()
    a[owned] = glob[tuple(slice(lo, hi) for lo, hi in zip(*part.box))]
    return a


def collect(plan, local, output: bool, part, shape):
    """``local`` gathered on root (None elsewhere): volfft.gather, or by hand with ghost layers."""
    if not plan._ghosts:
        return volfft.gather(plan, local, root=ROOT, forward_output=output)
    pieces = plan.comm.gather((part.box, np.array(local[part.owned_slice()])), root=ROOT)
    if plan.comm.rank != ROOT:
        return None
    whole = np.zeros(shape, dtype=local.dtype)
    for box, values in pieces:
        whole[tuple(slice(lo, hi) for lo, hi in zip(*box))] = values
    return whole


def has_ghosts(part) -> bool:
    return part is not None and part.box != part.storage


def ghosts_untouched(array, part) -> bool:
    """The ghost layers of a local array still hold the NaN they were filled with."""
    mask = np.ones(array.shape, dtype=bool)
    mask[part.owned_slice()] = False
    return bool(np.all(np.isnan(np.asarray(array)[mask])))


def run_case(comm, seed: int, index: int, case: dict) -> None:
    where = (f"seed={seed} case={index} np={comm.size}: {case}\n  replay: tests/python/run_mpi_tests.sh "
             f"--np {comm.size} -- -k random --seed {seed} --case {index}")
    # Every rank drew the same case (the draw depends on seed, index and np only).
    same = comm.allreduce(int(agree(comm, repr(case)) == repr(case)), op=MPI.MIN)
    assert same == 1, f"ranks drew different cases: {where}"

    placement = case["placement"]
    if placement == "reversed":
        placement = ReversedPlacement(comm.size)
    opts = case["options"]
    n = real_grid(case["shape"], case["padding"])
    batch, batch_layout = opts.get("batch", 1), opts.get("batch_layout")
    user = case["user"] or {}
    # Without placement a rank's part is that of its own rank (placement reorders the plan's
    # grid, not the user's boxes).
    in_part = user_part(user.get("in"), n, comm.rank)
    out_part = user_part(user.get("out"), side_shape(case, n, True), comm.rank)
    refusal = expected_refusal(case)
    try:
        plan = volfft.Plan(comm, case["shape"], dtype=case["dtype"], kind=case["kind"],
                           placement=placement, padding=case["padding"], in_array=in_part,
                           out_array=out_part, **opts)
    except (volfft.VolfftError, TypeError) as error:
        message = str(error)
        everyone = comm.allgather(message)
        assert len(set(everyone)) == 1, f"ranks refused with different messages {everyone}: {where}"
        if refusal is not None:
            assert any(re.search(r, message) for r in refusal), \
                f"refused with {message!r}, expected one of {refusal!r}: {where}"
            return
        if NOT_APPLICABLE.search(message):
            pytest.skip(f"engine {opts['engine']} does not apply: {message} ({where})")
        missing = NOT_BUILT.search(message)
        if missing and missing.group(1) == opts.get("backend"):
            pytest.skip(f"backend not in this build: {message} ({where})")
        raise AssertionError(f"plan refused: {message}: {where}") from None
    assert refusal is None, f"plan created, expected a refusal matching {refusal!r}: {where}"

    in_place = bool(opts.get("in_place"))
    destroy = bool(opts.get("destroy_input"))
    with plan:
        assert plan.shape == n and plan.spectral_shape == tuple(case["shape"]), where
        assert plan.grid[0] * plan.grid[1] == comm.size, f"grid {plan.grid}: {where}"
        assert plan.batch == batch, f"batch {plan.batch}: {where}"
        if opts["grid"] != "auto" and not user:
            want_grid = grid_of(case)
            assert plan.grid == want_grid, f"grid {plan.grid}: {where}"
        if opts["engine"] != "auto" and not opts.get("min_memory"):
            # planes=0 is the blocking alltoallv engine (docs/overlap.md).
            want_engine = "alltoallv" if opts.get("planes") == 0 else opts["engine"]
            assert plan.engine == want_engine, f"engine {plan.engine}, expected {want_engine}: {where}"
        if not user:
            assert plan.layout == opts["layout"], f"layout {plan.layout}: {where}"
        want_backend = opts.get("backend", "fftw")
        assert plan.backend == want_backend or (want_backend == "auto" and plan.backend in ("fftw", "ducc0")), \
            f"backend {plan.backend}: {where}"

        complex_dtype = np.dtype(np.complex64 if case["dtype"] in ("complex64", "float32") else np.complex128)
        fields = None
        if comm.rank == ROOT:
            random_kind = "c2c" if case["kind"] == "c2c" else "r2c"
            fields = [random_global(n, random_kind, complex_dtype.type, seed=[seed, index, f])
                      for f in range(batch)]
        glob = with_fields(fields, batch_layout) if fields is not None else None
        problems = []
        for _ in range(2 if case["repeat"] else 1):  # the last round's results are checked
            a = place(plan, glob, False, plan.input_part)
            if case["misaligned"]:
                a = misaligned_copy(a)
            out = out_array(a, plan.output_array, in_place, case)
            b = call_checked(plan, True, a, out, case, in_place, destroy, problems)
            # The spectrum now: backward may overwrite it (in place, destroy_input).
            spectrum = collect(plan, b, True, plan.output_part, side_shape(case, n, True))
            if case["misaligned"] and out is None:
                b = misaligned_copy(b)  # backward's input, misaligned too
            back_out = out_array(b, plan.input_array, in_place, case)
            if back_out is not None and not in_place:
                back_out[...] = np.nan if has_ghosts(in_part) else 0
            c = call_checked(plan, False, b, back_out, case, in_place, destroy, problems)
            if back_out is not None and has_ghosts(in_part) and not ghosts_untouched(c, in_part):
                problems.append("backward wrote into the ghost layers of its out array")
            back = collect(plan, c, False, plan.input_part, n)
        everyone = comm.allgather(problems)

    verdict = None
    if comm.rank == ROOT:
        got_forward = fields_of(spectrum, batch, batch_layout)
        got_back = fields_of(back, batch, batch_layout)
        errors = [0.0, 0.0]
        for field, spec, bk in zip(fields, got_forward, got_back):
            want_forward, want_back = numpy_reference(field, case, n)
            if spec.shape != want_forward.shape or spec.dtype.kind != want_forward.dtype.kind:
                errors = [f"spectrum of shape {spec.shape} and dtype {spec.dtype}, expected "
                          f"{want_forward.shape} and {want_forward.dtype}", 0.0]
                break
            errors = [max(errors[0], rel_l2(spec, want_forward)), max(errors[1], rel_l2(bk, want_back))]
        verdict = tuple(errors)
    forward_error, backward_error = agree(comm, verdict)
    assert not isinstance(forward_error, str), f"{forward_error}: {where}"
    tol = 8 * EPS[complex_dtype] * max(1.0, math.log2(max(2, math.prod(n))))
    assert forward_error <= tol, f"forward error {forward_error:.3g} > {tol:.3g}: {where}"
    assert backward_error <= tol, f"backward error {backward_error:.3g} > {tol:.3g}: {where}"
    assert not any(everyone), f"{everyone}: {where}"


def pytest_generate_tests(metafunc):
    if "case_index" in metafunc.fixturenames:
        seed = metafunc.config.getoption("--seed")
        one = metafunc.config.getoption("--case")
        indices = [one] if one is not None else range(metafunc.config.getoption("--cases"))
        metafunc.parametrize("case_index", list(indices), ids=[f"seed{seed}-case{k}" for k in indices])
    if "reshape_index" in metafunc.fixturenames:  # one reshape per four transform cases
        seed = metafunc.config.getoption("--seed")
        one = metafunc.config.getoption("--case")
        indices = [one] if one is not None else range(max(1, metafunc.config.getoption("--cases") // 4))
        metafunc.parametrize("reshape_index", list(indices), ids=[f"seed{seed}-reshape{k}" for k in indices])


def test_random_case(comm, request, case_index):
    seed = request.config.getoption("--seed")
    run_case(comm, seed, case_index, draw_case(seed, case_index))


def test_random_cases_cover_the_options(request):
    """The seed's first cases (at least 200; drawing them plans nothing) reach every engine,
    kind, precision, grid form and feature, so a change to the draw cannot quietly stop testing
    one of them."""
    seed = request.config.getoption("--seed")
    count = max(request.config.getoption("--cases"), 200)
    cases = [draw_case(seed, k) for k in range(count)]
    seen = set()
    for c in cases:
        o = c["options"]
        seen |= {("engine", o["engine"]), ("kind", c["kind"]), ("dtype", c["dtype"]),
                 ("ndim", len(c["shape"])), ("layout", o["layout"])}
        seen.add(("grid", "auto" if o["grid"] == "auto" else "explicit"))
        seen |= {("padding", c["padding"] is not None), ("split_phase", c["split_phase"]),
                 ("placement", c["placement"] is not None or SIZE == 1),
                 ("threads", o.get("threads", 1)), ("size 1", 1 in c["shape"]),
                 ("misaligned", c["misaligned"]), ("out_arrays", c["out_arrays"]),
                 ("backend", o.get("backend", "default")), ("batch", o.get("batch", 1)),
                 ("batch_layout", o.get("batch_layout", "outer")), ("in_place", o.get("in_place", False)),
                 ("destroy_input", o.get("destroy_input", False)), ("min_memory", o.get("min_memory", False)),
                 ("scale_forward", o.get("scale_forward", False)), ("refused", expected_refusal(c) is not None),
                 ("repeat", c["repeat"]), ("effort", o["effort"])}
        seen |= {("kinds", k) for k in o.get("kinds", ())}
        for side, spec in (c["user"] or {}).items():
            seen |= {("user", side), ("distribution", spec["name"]), ("ghosts", spec["ghosts"] > 0),
                     ("user order", spec["order"] is not None)}
        if SIZE > 1:
            seen |= {("below np", min(c["shape"]) < SIZE)}
    want = ({("engine", e) for e in ENGINES} | {("kind", k) for k in ("c2c", "r2c", "r2r")}
            | {("dtype", d) for d in ("complex128", "complex64", "float64", "float32")}
            | {("ndim", 2), ("ndim", 3), ("ndim", 4), ("grid", "auto"), ("grid", "explicit"),
               ("padding", True), ("split_phase", True), ("placement", True), ("threads", 2),
               ("size 1", True), ("misaligned", True), ("out_arrays", True), ("refused", True),
               ("in_place", True), ("destroy_input", True), ("min_memory", True), ("scale_forward", True),
               ("repeat", True), ("effort", "measure"),
               ("user", "in"), ("user", "out"), ("ghosts", True), ("user order", True)}
            | {("batch", k) for k in (1, 2, 3)} | {("batch_layout", name) for name in BATCH_LAYOUTS}
            | {("kinds", k) for k in R2R + ["dft", "none"]}
            | {("distribution", name) for name in DISTRIBUTIONS}
            | {("layout", name) for name in LAYOUTS} | {("backend", name) for name in BACKENDS})
    if SIZE > 1:
        want |= {("below np", True)}
    assert want <= seen, f"seed {seed}, {count} cases never draw {sorted(want - seen, key=str)}"
    reshapes = [draw_reshape(seed, k) for k in range(count // 4)]
    seen = {("engine", r["options"]["engine"]) for r in reshapes} | {("dtype", r["dtype"]) for r in reshapes}
    seen |= {("batch_layout", r["options"].get("batch_layout")) for r in reshapes}
    seen |= {("ghosts", side, r["sides"][side]["ghosts"] > 0) for r in reshapes for side in ("in", "out")}
    want = ({("engine", e) for e in RESHAPE_ENGINES} | {("dtype", d) for d in RESHAPE_DTYPES}
            | {("batch_layout", name) for name in BATCH_LAYOUTS} | {("ghosts", "in", True), ("ghosts", "out", True)})
    assert want <= seen, f"seed {seed}, {count // 4} reshapes never draw {sorted(want - seen, key=str)}"


# ------------------------------------------------------------------ volfft.Reshape alone
# One random redistribution per four transform cases (--cases // 4, at least 1): a 2-D or 3-D
# shape, every dtype, engine and batch layout, any two of the drawn distributions with memory
# orders and ghost layers on either side.
RESHAPE_ENGINES = ["auto", "alltoallv", "alltoall", "alltoallw", "p2p", "persistent"]
RESHAPE_DTYPES = ["complex128", "complex64", "float64", "float32"]


def draw_reshape(seed: int, index: int) -> dict:
    rng = np.random.default_rng([seed, index, 1])  # a stream of its own: the plans' cases stay
    ndim = 3 if rng.random() < 0.6 else 2
    batch = int(rng.integers(1, 4)) if rng.random() < 0.5 else 1
    while True:
        shape = tuple(draw_size(rng) for _ in range(ndim))
        if math.prod(shape) * batch <= MAX_ELEMENTS[ndim]:
            break
    sides = {}
    for side in ("in", "out"):
        order = [int(a) for a in rng.permutation(ndim)] if rng.random() < 0.4 else None
        sides[side] = {"name": str(rng.choice(DISTRIBUTIONS)), "axis": int(rng.integers(ndim)), "order": order,
                       "ghosts": int(rng.integers(1, 3)) if rng.random() < 0.25 else 0}
    options = {"engine": str(rng.choice(RESHAPE_ENGINES))}
    if batch > 1 or rng.random() < 0.1:
        options["batch"] = batch
        options["batch_layout"] = str(rng.choice(BATCH_LAYOUTS))
    if rng.random() < 0.2:
        options["threads"] = 2
    return {"shape": shape, "dtype": str(rng.choice(RESHAPE_DTYPES)), "sides": sides, "options": options,
            "split_phase": bool(rng.random() < 0.3), "out_arrays": bool(rng.random() < 0.5)}


def run_reshape(comm, seed: int, index: int, case: dict) -> None:
    where = (f"seed={seed} reshape case={index} np={comm.size}: {case}\n  replay: tests/python/run_mpi_tests.sh "
             f"--np {comm.size} -- -k random_reshape --seed {seed} --case {index}")
    shape, opts = case["shape"], case["options"]
    batch, inner = opts.get("batch", 1), opts.get("batch_layout") == "inner"
    dtype = np.dtype(case["dtype"])
    rng = np.random.default_rng([seed, index, 2])
    glob = rng.standard_normal((batch,) + shape) + (1j * rng.standard_normal((batch,) + shape)
                                                    if dtype.kind == "c" else 0)
    glob = glob.astype(dtype)  # every rank makes the same array
    parts = {side: user_part(spec, shape, comm.rank) for side, spec in case["sides"].items()}

    def fields(part, local):
        """The owned block of every field of a local array: (batch, *box extents)."""
        owned = part.owned_slice()
        if batch == 1:  # no field axis
            return np.asarray(local)[owned][None]
        block = np.asarray(local)[((slice(None),) + owned) if not inner else (owned + (slice(None),))]
        return np.moveaxis(block, -1, 0) if inner else block

    def owned_of(part):
        return glob[(slice(None),) + tuple(slice(lo, hi) for lo, hi in zip(*part.box))]

    def filled(array, part):
        array[...] = np.nan
        block = owned_of(part)
        owned = part.owned_slice()
        if batch == 1:
            array[owned] = block[0]
        elif inner:
            array[owned + (slice(None),)] = np.moveaxis(block, 0, -1)
        else:
            array[(slice(None),) + owned] = block
        return array

    def ghosts_nan(array, part) -> bool:
        if part.box == part.storage:
            return True
        total = int(np.isnan(np.asarray(array)).sum())
        owned = int(np.isnan(fields(part, array)).sum())
        ghost_cells = math.prod(array.shape) // batch - math.prod(hi - lo for lo, hi in zip(*part.box))
        return owned == 0 and total == ghost_cells * batch

    with volfft.Reshape(comm, shape, parts["in"], parts["out"], dtype=dtype, **opts) as reshape:
        problems = []
        a = filled(reshape.input_array(), parts["in"])
        a_before = a.copy()
        out = reshape.output_array() if case["out_arrays"] else None
        if out is not None:
            out[...] = np.nan
        b = (reshape.execute_start(a, out=out).wait() if case["split_phase"] else reshape.execute(a, out=out))
        if not np.array_equal(fields(parts["out"], b), owned_of(parts["out"])):
            problems.append("execute: the output's owned block is not the global array's")
        if out is not None and not ghosts_nan(b, parts["out"]):
            problems.append("execute wrote into the output's ghost layers")
        if not np.array_equal(a, a_before, equal_nan=True):
            problems.append("execute modified its input")
        back = reshape.input_array()
        back[...] = np.nan
        c = (reshape.reverse_start(b, out=back).wait() if case["split_phase"] else reshape.reverse(b, out=back))
        if not np.array_equal(fields(parts["in"], c), owned_of(parts["in"])):
            problems.append("reverse: the input's owned block is not the global array's")
        if not ghosts_nan(c, parts["in"]):
            problems.append("reverse wrote into the input's ghost layers")
        everyone = comm.allgather(problems)
    assert not any(everyone), f"{everyone}: {where}"


def test_random_reshape(comm, request, reshape_index):
    seed = request.config.getoption("--seed")
    run_reshape(comm, seed, reshape_index, draw_reshape(seed, reshape_index))
