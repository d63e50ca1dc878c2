"""A Python error on one rank ends the job, whatever plans are alive (no mpirun needed to run
this file: it launches its own small jobs, each under a timeout).

Under ``python -m mpi4py``, an exception on one rank makes that rank call MPI_Abort at exit.
Python frees the failing rank's plans while it unwinds and prints the traceback, before the
abort: if freeing a plan communicated (engine node's shared memory once did, with
MPI_Win_free), that rank waited for ranks that wait elsewhere, and the job hung instead of
ending.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest

volfft = pytest.importorskip("volfft")
pytest.importorskip("mpi4py")
from volfft._launch import find_mpirun, launch, run_job  # noqa: E402

SCRIPT = textwrap.dedent("""
    import numpy as np
    from mpi4py import MPI
    import volfft

    comm = MPI.COMM_WORLD

    def work(engine, split):
        plan = volfft.Plan(comm, (16, 12, 10), np.complex128, "c2c", engine=engine, effort="estimate")
        x = np.ones(plan.input_shape, np.complex128)
        plan.forward(x)
        if comm.rank == 0:
            raise RuntimeError("the user's own error on rank 0")
        comm.Barrier()  # the other ranks wait here, holding their plans

    work("{engine}", False)
""")


@pytest.mark.parametrize("engine", ["node", "alltoallv", "persistent", "p2p", "pipelined"])
def test_error_on_one_rank_aborts_the_job(tmp_path, engine):
    mpirun = find_mpirun()
    if mpirun is None or shutil.which(mpirun) is None:
        pytest.skip("no mpirun on the PATH (this test launches a 3-rank job)")
    script = tmp_path / "one_rank_fails.py"
    script.write_text(SCRIPT.replace("{engine}", engine))
    command, env = launch(3, [sys.executable, "-m", "mpi4py", str(script)], mpirun)
    try:
        done = run_job(command, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"engine {engine}: the job hung after rank 0 raised (no abort within 60 s)")
    assert done.returncode != 0, f"engine {engine}: the job did not fail:\n{done.stdout}\n{done.stderr}"
    assert "the user's own error on rank 0" in done.stderr
