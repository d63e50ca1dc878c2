"""Randomized differential test: random plans against numpy.fft on the gathered global array.

Each case is drawn from ``numpy.random.default_rng([seed, index])`` (so every rank draws the
same cases, and case ``index`` of a seed is the same whatever ``--cases`` says): a 2-D or 3-D
shape (primes, sizes 1, uneven sizes, sizes below the rank count so that some ranks hold
nothing), c2c or r2c, double or single precision, a grid (slabs, pencils or "auto"), every
engine and backend the library names (:func:`volfft.plan_options`), layout, padding, threads,
placement, ``scale_backward``, the pipelined and node engines' options, ``out`` arrays, arrays
not aligned for SIMD and the split-phase calls. Each is checked against numpy on rank 0:
forward against ``fftn``/``rfftn`` (padded: the kept m-box of the real grid's spectrum, spectral_box.py),
backward of that output against numpy's inverse, and neither call may modify its input.

A 2-D case offered a pencil grid must be refused with the library's message for it. A case is
skipped, with the library's reason printed, only when the library says that its engine does
not apply to the problem or that its backend is not part of this build; any other error fails.

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
from test_transforms import EPS, ROOT, ReversedPlacement, agree, factor_grids, random_global, rel_l2

SIZE = MPI.COMM_WORLD.size
_OPTIONS = volfft.plan_options()
ENGINES = list(_OPTIONS["engine"]["names"])  # "auto" included
BACKENDS = list(_OPTIONS["backend"]["names"])
LAYOUTS = list(_OPTIONS["layout"]["names"])
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]
# Elements of the real grid at most: keeps a case in the tens of milliseconds; one case in
# twenty may be larger (more planes for the pipelined engine, longer messages).
MAX_ELEMENTS = {2: 2500, 3: 5000}
MAX_ELEMENTS_LARGE = 40000
# An engine may not apply to a problem, and the library then says so (the only refusal of
# that kind it has: a message larger than MPI's int counts). Such a case is skipped, naming it.
NOT_APPLICABLE = re.compile(r"a message of the \w+ exchange would hold \d+ elements")
# ducc0 is optional at build time (VOLFFT_DUCC0); a build without it says so.
NOT_BUILT = re.compile(r"backend '(\w+)' is not part of this build")


def draw_size(rng: np.random.Generator) -> int:
    r = rng.random()
    if r < 0.12:
        return 1
    if r < 0.35:
        return int(rng.choice(PRIMES))
    if r < 0.50 and SIZE > 1:
        return int(rng.integers(1, SIZE))  # fewer than the ranks: some ranks hold nothing
    if r < 0.90:
        return int(rng.integers(2, 17))
    return int(rng.integers(17, 65))


def draw_case(seed: int, index: int) -> dict:
    """Case ``index`` of ``seed``: a dict of Plan arguments and how to call it."""
    rng = np.random.default_rng([seed, index])
    ndim = 3 if rng.random() < 0.6 else 2
    padding = None
    if rng.random() < 0.25:
        factors = [1, 1.25, 1.5, 2]
        padding = (float(rng.choice(factors)) if rng.random() < 0.5
                   else tuple(float(f) for f in rng.choice(factors, ndim)))
    limit = MAX_ELEMENTS_LARGE if rng.random() < 0.05 else MAX_ELEMENTS[ndim]
    while True:
        shape = tuple(draw_size(rng) for _ in range(ndim))
        if math.prod(real_grid(shape, padding)) <= limit:
            break
    kind = str(rng.choice(["c2c", "r2c"]))
    single = bool(rng.random() < 0.4)
    if kind == "c2c":
        dtype = "complex64" if single else "complex128"
    else:  # an r2c plan takes the precision as a real or a complex dtype
        dtype = str(rng.choice(["float32", "complex64"] if single else ["float64", "complex128"]))
    options = {"effort": "estimate"}
    # Grid: "auto", slabs or a pencil grid, as a pair, a list or "p0xp1". A 2-D array takes
    # slabs only; now and then it is offered pencils, which the library must refuse.
    if ndim == 2 and SIZE > 1 and rng.random() < 0.08:
        grid = tuple(factor_grids(SIZE)[int(rng.integers(1, len(factor_grids(SIZE))))])
    else:
        choices = ["auto", (SIZE, 1)] + (factor_grids(SIZE) if ndim == 3 else [])
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
    if options["engine"] == "pipelined" and rng.random() < 0.7:
        options["planes"] = [0, 1, 2, 3, "auto"][int(rng.integers(5))]
        options["max_in_flight"] = int(rng.integers(1, 5))
        options["pipeline_p2p"] = bool(rng.random() < 0.5)
    if options["engine"] == "node" and rng.random() < 0.6:
        options["ranks_per_node"] = int(rng.choice([0, 1, (SIZE + 1) // 2]))
    placement = None
    if SIZE > 1 and rng.random() < 0.3:
        placement = ["reversed", [int(r) for r in rng.permutation(SIZE)]][int(rng.integers(2))]
    return {"shape": shape, "kind": kind, "dtype": dtype, "padding": padding, "placement": placement,
            "options": options, "split_phase": bool(rng.random() < 0.3),
            "out_arrays": bool(rng.random() < 0.3), "misaligned": bool(rng.random() < 0.2)}


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


def real_grid(shape, padding):
    """The transform's grid: floor(m * padding) per axis, as Plan computes it."""
    if padding is None:
        return tuple(shape)
    factors = np.broadcast_to(np.asarray(padding, dtype=float), (len(shape),))
    return tuple(int(np.floor(m * f)) for m, f in zip(shape, factors))


def expected_refusal(case: dict):
    """The message the library must refuse this case with, or None."""
    grid = case["options"]["grid"]
    if isinstance(grid, str) and grid != "auto":
        grid = tuple(int(p) for p in grid.split("x"))
    if len(case["shape"]) == 2 and grid != "auto" and tuple(grid)[1] != 1:
        return (f"2-D arrays are decomposed in slabs only: grid must be {SIZE}x1; "
                f"got {grid[0]}x{grid[1]}")
    return None


def numpy_reference(glob: np.ndarray, case: dict, n: tuple):
    """(forward output, backward of it) as numpy computes them, in double precision."""
    r2c = case["kind"] == "r2c"
    x = glob.astype(np.float64 if r2c else np.complex128)
    full = np.fft.rfftn(x) if r2c else np.fft.fftn(x)
    m = case["shape"]
    forward = truncate(full, m, n, r2c)
    padded = pad(forward, m, n, r2c)
    axes = list(range(len(n)))
    back = np.fft.irfftn(padded, s=n, axes=axes) if r2c else np.fft.ifftn(padded, axes=axes)
    if not case["options"].get("scale_backward", True):
        back = back * math.prod(n)
    return forward, back


def run_case(comm, seed: int, index: int, case: dict) -> None:
    where = (f"seed={seed} case={index} np={comm.size}: {case}\n  replay: tests/python/run_mpi_tests.sh "
             f"--np {comm.size} -- -k random --seed {seed} --case {index}")
    # Every rank drew the same case (the draw depends on seed, index and np only).
    same = comm.allreduce(int(agree(comm, repr(case)) == repr(case)), op=MPI.MIN)
    assert same == 1, f"ranks drew different cases: {where}"

    placement = case["placement"]
    if placement == "reversed":
        placement = ReversedPlacement(comm.size)
    refusal = expected_refusal(case)
    try:
        plan = volfft.Plan(comm, case["shape"], dtype=case["dtype"], kind=case["kind"],
                           placement=placement, padding=case["padding"], **case["options"])
    except volfft.VolfftError as error:
        message = str(error)
        if refusal is not None:
            assert refusal in message, f"refused with {message!r}, expected {refusal!r}: {where}"
            return
        if NOT_APPLICABLE.search(message):
            pytest.skip(f"engine {case['options']['engine']} does not apply: {message} ({where})")
        missing = NOT_BUILT.search(message)
        if missing and missing.group(1) == case["options"].get("backend"):
            pytest.skip(f"backend not in this build: {message} ({where})")
        raise AssertionError(f"plan refused: {message}: {where}") from None
    assert refusal is None, f"plan created, expected the refusal {refusal!r}: {where}"

    with plan:
        n = real_grid(case["shape"], case["padding"])
        opts = case["options"]
        assert plan.shape == n and plan.spectral_shape == tuple(case["shape"]), where
        assert plan.grid[0] * plan.grid[1] == comm.size, f"grid {plan.grid}: {where}"
        if opts["grid"] != "auto":
            want_grid = opts["grid"] if not isinstance(opts["grid"], str) else opts["grid"].split("x")
            assert plan.grid == tuple(int(p) for p in want_grid), f"grid {plan.grid}: {where}"
        if opts["engine"] != "auto":
            # planes=0 is the blocking alltoallv engine (docs/overlap.md).
            want_engine = "alltoallv" if opts.get("planes") == 0 else opts["engine"]
            assert plan.engine == want_engine, f"engine {plan.engine}, expected {want_engine}: {where}"
        assert plan.layout == opts["layout"], f"layout {plan.layout}: {where}"
        want_backend = opts.get("backend", "fftw")
        assert plan.backend == want_backend or (want_backend == "auto" and plan.backend in ("fftw", "ducc0")), \
            f"backend {plan.backend}: {where}"

        complex_dtype = plan.output_dtype.type
        glob = random_global(n, case["kind"], complex_dtype, seed=[seed, index]) if comm.rank == ROOT else None
        a = volfft.scatter(plan, glob, root=ROOT)
        if case["misaligned"]:
            a = misaligned_copy(a)
        a_before = a.copy()
        out = plan.output_array() if case["out_arrays"] else None
        if out is not None and case["misaligned"]:
            out = misaligned_copy(out)
        if case["split_phase"]:
            request = plan.forward_start(a, out=out)
            request.test()
            b = request.wait()
        else:
            b = plan.forward(a, out=out)
        if case["misaligned"] and out is None:
            b = misaligned_copy(b)  # backward's input, misaligned too
        b_before = b.copy()
        back_out = plan.input_array() if case["out_arrays"] else None
        if back_out is not None and case["misaligned"]:
            back_out = misaligned_copy(back_out)
        if case["split_phase"]:
            c = plan.backward_start(b, out=back_out).wait()
        else:
            c = plan.backward(b, out=back_out)
        used_out = (out is None or b is out) and (back_out is None or c is back_out)
        untouched = np.array_equal(a, a_before) and np.array_equal(b, b_before)
        local_ok = comm.allreduce(int(used_out and untouched), op=MPI.MIN)
        spectrum = volfft.gather(plan, b, root=ROOT)
        back = volfft.gather(plan, c, root=ROOT, forward_output=False)

    verdict = None
    if comm.rank == ROOT:
        want_forward, want_back = numpy_reference(glob, case, n)
        verdict = (rel_l2(spectrum, want_forward), rel_l2(back, want_back))
    forward_error, backward_error = agree(comm, verdict)
    tol = 8 * EPS[np.dtype(complex_dtype)] * max(1.0, math.log2(math.prod(n)))
    assert forward_error <= tol, f"forward error {forward_error:.3g} > {tol:.3g}: {where}"
    assert backward_error <= tol, f"backward error {backward_error:.3g} > {tol:.3g}: {where}"
    assert local_ok == 1, (f"a call modified its input or ignored its out array "
                           f"(on some rank): {where}")


def pytest_generate_tests(metafunc):
    if "case_index" in metafunc.fixturenames:
        seed = metafunc.config.getoption("--seed")
        one = metafunc.config.getoption("--case")
        indices = [one] if one is not None else range(metafunc.config.getoption("--cases"))
        metafunc.parametrize("case_index", list(indices), ids=[f"seed{seed}-case{k}" for k in indices])


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
                 ("backend", o.get("backend", "default"))}
        if SIZE > 1:
            seen |= {("below np", min(c["shape"]) < SIZE), ("refused", expected_refusal(c) is not None)}
    want = ({("engine", e) for e in ENGINES} | {("kind", "c2c"), ("kind", "r2c")}
            | {("dtype", d) for d in ("complex128", "complex64", "float64", "float32")}
            | {("ndim", 2), ("ndim", 3), ("grid", "auto"), ("grid", "explicit"),
               ("padding", True), ("split_phase", True), ("placement", True), ("threads", 2),
               ("size 1", True), ("misaligned", True), ("out_arrays", True)}
            | {("layout", name) for name in LAYOUTS} | {("backend", name) for name in BACKENDS})
    if SIZE > 1:
        want |= {("below np", True), ("refused", True)}
    assert want <= seen, f"seed {seed}, {count} cases never draw {sorted(want - seen, key=str)}"
