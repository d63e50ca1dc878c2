"""Run fluidfft's test classes (and the value checks) for the volfft plugin on every rank.

    mpirun -n 4 python -m mpi4py plugins/fluidfft-volfft/tests/run_fluidfft_tests.py [-k NAME]

Every rank runs the same tests in the same order (they are collective). Rank 0 prints the
report; another rank prints its own only when something failed there. The last line says
``fluidfft-volfft tests: N run at np=P: OK`` (or FAILED); the exit status is 0 only when every
rank passed.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import unittest

# Collect before anything else prints: a rank's output is its own until the end.
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import test_volfft_plugin  # noqa: E402  (the test classes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default=None, help="run only tests whose id contains this")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    comm = MPI.COMM_WORLD
    loader = unittest.TestLoader()  # sorted names: the same order on every rank
    suite = unittest.TestSuite()
    for case in (test_volfft_plugin.TestsFluidfft3D, test_volfft_plugin.TestsFluidfft2D,
                 test_volfft_plugin.Values):
        for test in loader.loadTestsFromTestCase(case):
            if args.k is None or args.k in test.id():
                suite.addTest(test)

    stream = sys.stdout if comm.rank == 0 else io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=2 if args.verbose else 1).run(suite)
    passed = comm.allreduce(int(result.wasSuccessful()), op=MPI.MIN)
    mine = result.wasSuccessful()
    if comm.rank != 0 and not mine:
        sys.stderr.write(f"--- rank {comm.rank}:\n{stream.getvalue()}")
        sys.stderr.flush()
    comm.Barrier()
    if comm.rank == 0:
        print(f"fluidfft-volfft tests: {result.testsRun} run at np={comm.size}: "
              f"{'OK' if passed else 'FAILED'}", flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
