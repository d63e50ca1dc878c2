"""Split-phase lifetimes from Python (Plan.forward_start/backward_start, Reshape.execute_start):
a plan closed, collected or left by an exception with a request pending, calls made while one is
pending, requests dropped and tested on one rank only. Every verdict is agreed over the ranks;
the suite's timeout catches a hang.
"""
from __future__ import annotations

import gc

import numpy as np
import pytest
from mpi4py import MPI

import volfft

SHAPE = (12, 10, 9)
ENGINES = ["alltoallv", "alltoall", "alltoallw", "p2p", "pipelined", "node"]


def agreed(comm, ok: bool) -> bool:
    """True when ``ok`` holds on every rank."""
    return bool(comm.allreduce(1 if ok else 0, op=MPI.MIN))


def brick_plan(comm, engine):
    """A c2c plan on bricks both ways: wait() runs a reshape after the transform's exchanges."""
    mine = volfft.bricks(SHAPE, comm.size)[comm.rank]
    return volfft.Plan(comm, SHAPE, in_array=mine, out_array=mine, engine=engine, effort="estimate")


def filled(plan):
    a = plan.input_array()
    a[...] = np.arange(a.size).reshape(a.shape) * (1 + 0.5j) + MPI.COMM_WORLD.rank
    return a


@pytest.mark.parametrize("engine", ENGINES)
def test_exception_on_one_rank_abandons_the_pending_transform(comm, engine):
    """Rank 0 leaves a ``with`` block by an exception while a transform is pending, the others
    meet it in a barrier and then raise too. Closing the plan on the way out must not wait for
    them (before: close() completed the transform, whose output reshape waited for ranks that
    were in the barrier, a hang, where python -m mpi4py would have aborted the job)."""
    caught = None
    request = None
    try:
        with brick_plan(comm, engine) as plan:
            request = plan.forward_start(filled(plan))
            if comm.rank == 0:
                raise RuntimeError("rank 0's own error")
            comm.Barrier()
            raise RuntimeError("the others' error, after the barrier")
    except RuntimeError as e:
        caught = str(e)
    if comm.rank == 0:
        comm.Barrier()
    assert agreed(comm, caught is not None and plan.closed)
    with pytest.raises(volfft.VolfftError, match="destroyed or closed"):
        request.wait()
    # And the job goes on: a fresh plan of the same engine works on every rank.
    with brick_plan(comm, engine) as again:
        a = filled(again)
        assert agreed(comm, np.array_equal(again.forward_start(a).wait(), again.forward(a)))


@pytest.mark.parametrize("engine", ENGINES)
def test_plan_closed_or_collected_with_a_request_pending(comm, engine):
    """close() completes the pending transform (collective) and the request's wait() then raises
    on every rank; a plan collected while its request is pending stays alive for it."""
    plan = brick_plan(comm, engine)
    a = filled(plan)
    want = plan.forward(a).copy()
    request = plan.forward_start(a)
    if comm.rank == 0:
        for _ in range(20):
            request.test()  # on one rank only: local
    plan.close()
    ok = np.array_equal(request._out, want)
    with pytest.raises(volfft.VolfftError, match="destroyed or closed"):
        request.wait()
    plan = brick_plan(comm, engine)
    request = plan.forward_start(a)
    del plan
    gc.collect()
    assert agreed(comm, ok and np.array_equal(request.wait(), want))


@pytest.mark.parametrize("engine", ENGINES)
def test_calls_while_pending_raise_everywhere(comm, engine):
    """One call at a time: a second start, a blocking call or a start of the other direction
    raises on every rank, and the pending transform is unharmed; a request dropped without
    wait() is finished where it goes."""
    with brick_plan(comm, engine) as plan:
        a = filled(plan)
        want = plan.forward(a).copy()
        request = plan.forward_start(a)
        for call in (lambda: plan.forward_start(a), lambda: plan.forward(a), lambda: plan.backward_start(want)):
            with pytest.raises(volfft.VolfftError, match="in progress"):
                call()
        ok = np.array_equal(request.wait(), want) and np.array_equal(request.wait(), want)
        out = plan.output_array()
        plan.forward_start(a, out=out)  # dropped at once
        assert agreed(comm, ok and np.array_equal(out, want))


@pytest.mark.parametrize("engine", ["alltoallv", "alltoall", "alltoallw", "p2p"])
def test_reshape_closed_with_a_request_pending(comm, engine):
    """close() finishes a pending execute_start; the request then tests done and its wait()
    raises on every rank, as a plan's request (test() raised there too)."""
    bricks, slabs = volfft.bricks(SHAPE, comm.size), volfft.slabs(SHAPE, comm.size, 1)
    reshape = volfft.Reshape(comm, SHAPE, bricks[comm.rank], slabs[comm.rank], engine=engine)
    a = reshape.input_array()
    a[...] = np.arange(a.size).reshape(a.shape) + comm.rank
    want = reshape.execute(a).copy()
    request = reshape.execute_start(a)
    reshape.close()
    ok = np.array_equal(request._out, want) and request.test()
    with pytest.raises(volfft.VolfftError, match="closed"):
        request.wait()
    assert agreed(comm, ok)
