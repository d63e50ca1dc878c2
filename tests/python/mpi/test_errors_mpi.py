"""Errors that involve several ranks: each must raise the same message on every rank, no hang."""
from __future__ import annotations

import re

import numpy as np
import pytest
from mpi4py import MPI

import volfft

SIZE = MPI.COMM_WORLD.size


def test_grid_not_matching_the_communicator(comm):
    with pytest.raises(ValueError, match=rf"grid {SIZE + 1}x1 has {SIZE + 1} ranks but the "
                                         rf"communicator has {SIZE}"):
        volfft.Plan(comm, (8, 8, 8), grid=(SIZE + 1, 1))


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_shape_differing_across_ranks(comm):
    shape = (8, 8, 8) if comm.rank == 0 else (8, 8, 9)
    with pytest.raises(ValueError, match=r"plan arguments differ across ranks: shape is \(8, 8, 8\) "
                                         r"on rank 0 but \(8, 8, 9\) on rank 1"):
        volfft.Plan(comm, shape)


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_python_type_error_on_one_rank_raises_everywhere(comm):
    dtype = np.complex128 if comm.rank == 0 else np.int32
    with pytest.raises(TypeError, match=r"dtype: expected complex128 or complex64 \(c2c\), "
                                        r"float64 or float32 \(r2c, r2r\), got int32"):
        volfft.Plan(comm, (4, 4, 4), dtype=dtype)


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_engine_differing_across_ranks(comm):
    engine = "alltoallv" if comm.rank == 0 else "p2p"
    with pytest.raises(ValueError, match=r"differ across ranks: engine is 'alltoallv' on rank 0 "
                                         r"but 'p2p' on rank 1"):
        volfft.Plan(comm, (4, 4, 4), engine=engine)


def test_placement_not_a_permutation(comm):
    with pytest.raises(ValueError, match=r"placement: expected a permutation of 0\.\."):
        volfft.Plan(comm, (4, 4, 4), placement=[0] * SIZE if SIZE > 1 else [1])


def test_placement_not_a_permutation_on_one_rank(comm):
    """Checked in Python, and still agreed: every rank raises, the failing one named."""
    if SIZE < 2:
        pytest.skip("needs 2 ranks: one placement wrong, the others right")
    order = list(range(SIZE)) if comm.rank < SIZE - 1 else [0] * SIZE
    with pytest.raises(ValueError, match=rf"placement: expected a permutation of 0\.\.{SIZE - 1}, got "
                                         rf"\[0(, 0)*\] \(on rank {SIZE - 1}\)"):
        volfft.Plan(comm, (4, 4, 4), placement=order)


def test_placement_differing_across_ranks_is_named(comm):
    """The error names placement, the argument given, not the rank_order it becomes."""
    if SIZE < 2:
        pytest.skip("needs 2 ranks: one placement differing from another")
    order = list(range(SIZE)) if comm.rank == 0 else list(reversed(range(SIZE)))
    expected = (f"placement: every rank must pass the same value; rank 0 passed {list(range(SIZE))}, "
                f"rank 1 passed {list(reversed(range(SIZE)))}")
    with pytest.raises(ValueError, match=re.escape(expected)):
        volfft.Plan(comm, (4, 4, 4), placement=order, effort="estimate")


def test_placement_for_another_grid_raises_everywhere(comm):
    from volfft.mapping import Machine, default_placement

    placement = default_placement(Machine.torus((SIZE,)), (1, SIZE)).for_launch()
    if SIZE > 1:
        with pytest.raises(ValueError, match=rf"placement: it places the positions of a 1x{SIZE} "
                                             rf"grid, but the plan's grid is {SIZE}x1"):
            volfft.Plan(comm, (4, 4, 4), grid=(SIZE, 1), placement=placement)
    with volfft.Plan(comm, (4, 4, 4), placement=placement, effort="estimate") as plan:
        assert plan.grid == (1, SIZE)


def test_scatter_bad_global_array_on_root_raises_everywhere(comm):
    with volfft.Plan(comm, (4, 5, 6), effort="estimate") as plan:
        wrong = np.zeros((4, 5, 7), np.complex128) if comm.rank == 0 else None
        with pytest.raises(ValueError, match=r"global_array: expected the global shape "
                                             r"\(4, 5, 6\), got \(4, 5, 7\)"):
            volfft.scatter(plan, wrong)
        real_for_complex = np.zeros((4, 5, 6), np.complex128) if comm.rank == 0 else None
    with volfft.Plan(comm, (4, 5, 6), kind="r2c", effort="estimate") as plan:
        with pytest.raises(TypeError, match=r"global_array: expected a dtype that casts to "
                                            r"float64, got complex128"):
            volfft.scatter(plan, real_for_complex)


def test_gather_wrong_local_array_on_one_rank_raises_everywhere(comm):
    with volfft.Plan(comm, (6, 5, 4), effort="estimate") as plan:
        local = plan.output_array()
        if comm.rank == SIZE - 1:
            local = np.zeros(local.shape + (1,), local.dtype)
        with pytest.raises(ValueError, match=r"local_array: expected this rank's block of the forward output"):
            volfft.gather(plan, local)


def test_root_out_of_range(comm):
    with volfft.Plan(comm, (4, 4, 4), effort="estimate") as plan:
        with pytest.raises(ValueError, match=rf"root: expected a rank in 0\.\.{SIZE - 1}, got {SIZE}"):
            volfft.gather(plan, plan.output_array(), root=SIZE)


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
@pytest.mark.parametrize("which", ["scatter", "gather"])
@pytest.mark.parametrize("argument", ["root", "forward_output"])
def test_scatter_gather_arguments_differing_across_ranks(comm, which, argument):
    """root and forward_output decide who sends what to whom: differing, they raise on every rank
    (they hung, lost the data or misplaced it silently)."""
    root = 1 if comm.rank == 0 and argument == "root" else 0
    side = comm.rank == 1 if argument == "forward_output" else (which == "gather")
    with volfft.Plan(comm, (4, 5, 6), effort="estimate") as plan:
        with pytest.raises(ValueError, match=rf"{argument}: every rank must pass the same value; rank 0 passed"):
            if which == "scatter":
                volfft.scatter(plan, np.zeros((4, 5, 6), complex) if comm.rank == root else None, root=root,
                               forward_output=side)
            else:
                volfft.gather(plan, plan.output_array() if side else plan.input_array(), root=root,
                              forward_output=side)


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_padding_differing_across_ranks_is_named(comm):
    """padding becomes the library's grid: the message named a shape no rank had passed."""
    padding = 1.5 if comm.rank == SIZE - 1 else None
    with pytest.raises(ValueError, match=r"padding: every rank must pass the same value; rank 0 passed None, "
                                         rf"rank {SIZE - 1} passed 1\.5"):
        volfft.Plan(comm, (7, 5, 3), padding=padding, effort="estimate")


def test_padding_as_an_array_is_compared_by_value(comm):
    """The comparison of padding between ranks once compared numpy arrays with != and raised
    numpy's "truth value of an array is ambiguous" for a valid padding."""
    with volfft.Plan(comm, (8, 6, 4), padding=np.array([1.5, 1.5, 1.5]), effort="estimate") as plan:
        assert plan.shape == (12, 9, 6)


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
@pytest.mark.parametrize("side", ["in_array", "out_array"])
def test_user_array_on_some_ranks_only(comm, side):
    """An array on one rank and None on the others took two constructors with different
    collectives: every rank hung. Now the same error everywhere."""
    box = volfft.bricks((4, 3, 2), SIZE)[comm.rank] if comm.rank == SIZE - 1 else None
    which = "in" if side == "in_array" else "out"
    with pytest.raises(ValueError, match=rf"the {which} array is given on some ranks but not on others"):
        volfft.Plan(comm, (4, 3, 2), effort="estimate", **{side: box})


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_call_type_error_on_one_rank_is_a_type_error_everywhere(comm):
    """A wrong dtype on one rank's forward: TypeError on every rank (the others raised
    VolfftError), with that rank's message."""
    with volfft.Plan(comm, (4, 5, 6), effort="estimate") as plan:
        a = plan.input_array()
        if comm.rank == SIZE - 1:
            a = np.zeros(a.shape, np.complex64)
        with pytest.raises(TypeError, match=r"complex128"):
            plan.forward(a)
        plan.forward(plan.input_array())  # the plan takes calls again


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_timings_over_ranks_with_a_bad_direction_on_one_rank(comm):
    with volfft.Plan(comm, (4, 5, 6), effort="estimate") as plan:
        plan.forward(plan.input_array())
        with pytest.raises(ValueError, match=r"direction: expected 'forward' or 'backward'"):
            plan.timings("sideways" if comm.rank == SIZE - 1 else "forward", max_over_ranks=True)
        assert plan.timings("forward", max_over_ranks=True)


@pytest.mark.parametrize("which", ["scatter", "gather"])
def test_scatter_gather_unaligned_arrays(comm, which):
    """Arrays at an odd byte offset (a view of a byte buffer, a memory map): mpi4py cannot send
    them as they are, which failed the sending rank alone and left the receiver waiting; now they
    are copied, and the values arrive."""
    shape = (4, 5, 6)
    with volfft.Plan(comm, shape, effort="estimate") as plan:
        if which == "scatter":
            whole = None
            if comm.rank == 0:
                raw = np.zeros(np.prod(shape) * 16 + 1, np.uint8)
                whole = np.frombuffer(raw.data, np.complex128, count=int(np.prod(shape)), offset=1).reshape(shape)
                assert not whole.flags.aligned
                whole[...] = np.arange(np.prod(shape)).reshape(shape)
            local = volfft.scatter(plan, whole)
            expected = np.arange(np.prod(shape)).reshape(shape)[local.local_slice()]
            assert np.array_equal(local, expected)
        else:
            local = plan.input_array()
            local[...] = np.arange(np.prod(shape)).reshape(shape)[local.local_slice()]
            raw = np.zeros(local.nbytes + 1, np.uint8)
            odd = np.frombuffer(raw.data, local.dtype, count=local.size, offset=1).reshape(local.memory.shape)
            odd[...] = local.memory
            view = odd.transpose(np.argsort(plan.input_order))
            assert not view.flags.aligned
            whole = volfft.gather(plan, view, forward_output=False)
            if comm.rank == 0:
                assert np.array_equal(whole, np.arange(np.prod(shape)).reshape(shape))


@pytest.mark.skipif(SIZE < 2, reason="needs 2 ranks to pass different arguments")
def test_min_memory_differing_across_ranks_is_named(comm):
    """min_memory changes the engine the plan runs: differing, the error names min_memory (it
    named engine, which the user never set)."""
    with pytest.raises(ValueError, match=r"differ across ranks: min_memory is"):
        volfft.Plan(comm, (4, 4, 4), min_memory=comm.rank == 0, effort="estimate")


def test_an_error_of_every_rank_has_the_same_text_everywhere(comm):
    # Every rank passes the same bad placement: the same TypeError text on every rank (no
    # "(on rank 0)" on some of them only).
    with pytest.raises(TypeError) as caught:
        volfft.Plan(comm, (4, 4, 4), placement="abc")
    texts = comm.allgather(str(caught.value))
    assert len(set(texts)) == 1 and "(on rank" not in texts[0], texts
