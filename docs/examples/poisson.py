"""Solve a periodic Poisson equation spectrally with volfft and check it against the exact answer.

    -laplace(u) = f   on the periodic box [0, 2*pi)^3

with f built from the known solution u(x, y, z) = sin(x) cos(2y) sin(3z) + cos(4x + y).
In Fourier space the equation is |k|^2 u_hat = f_hat, so u_hat = f_hat / |k|^2 (and the mean,
k = 0, is set to zero). The real-to-complex transform halves the work. volfft's arrays are
indexed by global axes and ``plan.wavenumbers()`` gives the frequencies of whatever this rank
holds, so the solver reads as on one rank and never looks at the decomposition.

Run (scripts/mpirun.sh is mpirun with Open MPI's consent to root and to more ranks than cores)::

    scripts/mpirun.sh -n 2 python3 docs/examples/poisson.py            # 32^3 on 2 ranks
    scripts/mpirun.sh -n 4 python3 docs/examples/poisson.py --n 30 27 20 --grid 2x2
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence, Tuple, Union

import numpy as np
from mpi4py import MPI

import volfft


def exact_solution(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    return np.sin(x) * np.cos(2 * y) * np.sin(3 * z) + np.cos(4 * x + y)


def right_hand_side(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    # -laplace of each term: (1 + 4 + 9) and (16 + 1) times the term.
    return 14 * np.sin(x) * np.cos(2 * y) * np.sin(3 * z) + 17 * np.cos(4 * x + y)


def local_coordinates(plan: volfft.Plan) -> Tuple[np.ndarray, ...]:
    """Grid points x_d = 2*pi*i/n_d of this rank's input block, broadcastable against it."""
    coords = []
    for axis, piece in enumerate(plan.local_slice()):
        x = 2 * np.pi * np.arange(piece.start, piece.stop) / plan.shape[axis]
        shape = [1] * plan.ndim
        shape[axis] = x.size  # the arrays are indexed by global axes
        coords.append(x.reshape(shape))
    return tuple(coords)


def solve(comm: MPI.Comm, shape: Sequence[int] = (32, 32, 32),
          grid: Union[str, Tuple[int, int]] = "auto") -> float:
    """Solve on ``comm`` and return the maximum pointwise error (the same on every rank)."""
    with volfft.Plan(comm, shape, kind="r2c", grid=grid) as plan:
        x, y, z = local_coordinates(plan)
        f = plan.input_array()
        f[...] = right_hand_side(x, y, z)

        f_hat = plan.forward(f)
        kx, ky, kz = plan.wavenumbers()
        k2 = kx**2 + ky**2 + kz**2
        u_hat = plan.output_array()  # zeroed and 64-byte aligned: u_hat[k = 0] stays 0
        np.divide(f_hat, k2, out=u_hat, where=k2 != 0)
        u = plan.backward(u_hat)

        local_error = float(np.max(np.abs(u - exact_solution(x, y, z)), initial=0.0))
    return comm.allreduce(local_error, op=MPI.MAX)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs=3, default=(32, 32, 32), metavar=("N0", "N1", "N2"),
                        help="grid points per axis (at least 9 to resolve the solution)")
    parser.add_argument("--grid", default="auto", metavar="P0xP1",
                        help="process grid, as everywhere in volfft: 2x2, 4x1 or auto (default)")
    parser.add_argument("--tolerance", type=float, default=1e-10)
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    error = solve(comm, tuple(args.n), args.grid)
    if comm.rank == 0:
        print(f"poisson: n={tuple(args.n)} ranks={comm.size} max error={error:.3e} "
              f"({'ok' if error < args.tolerance else 'FAILED'})")
    return 0 if error < args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
