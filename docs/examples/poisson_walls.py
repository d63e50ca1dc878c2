"""Solve a Poisson equation between two walls with volfft's per-axis kinds and check it.

    -laplace(u) = f   on [0, pi] x [0, 2*pi) x [0, 2*pi)

periodic in y and z, with walls at x = 0 and x = pi:

* ``--walls neumann`` (default): du/dx = 0 on the walls. The cosines cos(kx x), kx = 0, 1, ...,
  satisfy it, and on the cell-centred grid x_i = (i + 1/2) pi / n0 their samples are exactly
  the basis of the DCT-II, so the plan is ``kinds=("dct2", "dft", "r2c")`` (real data).
  Exact solution u = cos(2x) sin(y) cos(3z) + cos(x) cos(2z).
* ``--walls dirichlet``: u = 0 on the walls. The sines sin(kx x), kx = 1, 2, ..., sampled on
  the same grid are the basis of the DST-II: ``kinds=("dst2", "dft", "r2c")``.
  Exact solution u = sin(2x) sin(y) cos(3z) + sin(x) cos(2z).

In spectral space the equation is (kx^2 + ky^2 + kz^2) u_hat = f_hat. These are the continuous
eigenvalues, not those of a finite-difference Laplacian: a solution that is a finite sum of
the basis functions is represented exactly, so the error is at rounding level (about 1e-13).
As in poisson.py, the arrays are indexed by global axes and ``plan.wavenumbers()`` gives the
indices this rank holds, so the solver never looks at the decomposition.

Run (scripts/mpirun.sh is mpirun with Open MPI's consent to root and to more ranks than cores)::

    scripts/mpirun.sh -n 2 python3 docs/examples/poisson_walls.py            # 32^3, Neumann
    scripts/mpirun.sh -n 4 python3 docs/examples/poisson_walls.py --n 30 27 20 --grid 2x2
    scripts/mpirun.sh -n 3 python3 docs/examples/poisson_walls.py --walls dirichlet
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from mpi4py import MPI

import volfft

# The transform along x for each wall condition, and the wavenumber of its index k: the
# DCT-II's basis function k is cos(k x), the DST-II's is sin((k + 1) x) (its k = 0 is the
# first sine, the constant having no sine). plan.wavenumbers() gives the index k of r2r axes.
X_KIND = {"neumann": "dct2", "dirichlet": "dst2"}
X_SHIFT = {"dct2": 0, "dst2": 1}


def exact_solution(walls: str, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    wall = np.cos if walls == "neumann" else np.sin  # du/dx = 0 or u = 0 at x = 0 and pi
    return wall(2 * x) * np.sin(y) * np.cos(3 * z) + wall(x) * np.cos(2 * z)


def right_hand_side(walls: str, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    # -laplace of each term: (4 + 1 + 9) and (1 + 4) times the term.
    wall = np.cos if walls == "neumann" else np.sin
    return 14 * wall(2 * x) * np.sin(y) * np.cos(3 * z) + 5 * wall(x) * np.cos(2 * z)


def local_coordinates(plan: volfft.Plan) -> Tuple[np.ndarray, ...]:
    """This rank's grid points, broadcastable against its input block: the cell centres
    x_i = (i + 1/2) pi / n0 between the walls, and y_j = 2 pi j / n1, z_k = 2 pi k / n2."""
    coords = []
    for axis, piece in enumerate(plan.local_slice()):
        index = np.arange(piece.start, piece.stop)
        n = plan.shape[axis]
        x = (index + 0.5) * np.pi / n if axis == 0 else 2 * np.pi * index / n
        shape = [1] * plan.ndim
        shape[axis] = x.size  # the arrays are indexed by global axes
        coords.append(x.reshape(shape))
    return tuple(coords)


def solve(comm: MPI.Comm, shape: Sequence[int] = (32, 32, 32),
          grid: Union[str, Tuple[int, int]] = "auto", walls: str = "neumann",
          x_kind: Optional[str] = None) -> float:
    """Solve on ``comm`` and return the maximum pointwise error (the same on every rank).

    ``x_kind`` overrides the transform along x (``"dct2"`` or ``"dst2"``); the one that does
    not match the walls solves another problem, which the tests use to see a large error.
    """
    x_kind = x_kind or X_KIND[walls]
    with volfft.Plan(comm, shape, dtype=np.float64, kind="r2c", grid=grid,
                     kinds=(x_kind, "dft", "r2c")) as plan:
        x, y, z = local_coordinates(plan)
        f = plan.input_array()
        f[...] = right_hand_side(walls, x, y, z)

        f_hat = plan.forward(f)
        kx, ky, kz = plan.wavenumbers()
        # The domain is pi long in x with n0 cells of pi / n0: the wavenumber of the x index
        # is the index itself (plus the DST-II's shift); y and z are 2 pi periodic.
        k2 = (kx + X_SHIFT[x_kind]) ** 2 + ky**2 + kz**2
        # Neumann: k = 0 (the mean) is undetermined, as f's mean must be zero; u_hat stays 0
        # there (output_array() is zeroed). Dirichlet has no zero mode.
        u_hat = plan.output_array()
        np.divide(f_hat, k2, out=u_hat, where=k2 != 0)
        u = plan.backward(u_hat)  # the inverse kinds (DCT-III / DST-III), scaled by 1/N

        local_error = float(np.max(np.abs(u - exact_solution(walls, x, y, z)), initial=0.0))
    return comm.allreduce(local_error, op=MPI.MAX)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs=3, default=(32, 32, 32), metavar=("N0", "N1", "N2"),
                        help="grid points per axis (at least 3, 3 and 7 to resolve the solution)")
    parser.add_argument("--grid", default="auto", metavar="P0xP1",
                        help="process grid, as everywhere in volfft: 2x2, 4x1 or auto (default)")
    parser.add_argument("--walls", choices=sorted(X_KIND), default="neumann",
                        help="du/dx = 0 (neumann, default) or u = 0 (dirichlet) at x = 0 and pi")
    parser.add_argument("--tolerance", type=float, default=1e-10)
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    error = solve(comm, tuple(args.n), args.grid, args.walls)
    if comm.rank == 0:
        print(f"poisson_walls: walls={args.walls} kinds=({X_KIND[args.walls]}, dft, r2c) "
              f"n={tuple(args.n)} ranks={comm.size} max error={error:.3e} "
              f"({'ok' if error < args.tolerance else 'FAILED'})")
    return 0 if error < args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
