"""Errors that involve several ranks: each must raise the same message on every rank, no hang."""
from __future__ import annotations

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
    with pytest.raises(ValueError, match=r"rank_order must be a permutation of 0\.\."):
        volfft.Plan(comm, (4, 4, 4), placement=[0] * SIZE if SIZE > 1 else [1])


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
