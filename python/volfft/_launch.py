"""The local MPI launcher: which one is installed, and the command line and environment that
start ``nprocs`` ranks of a program with it.

One place for what differs between launchers, used by ``volfft bench``, ``volfft model
calibrate``, the benchmarks and the emulated cluster (``tools/vcluster``):

* the flavour, from ``mpirun --version``: ``"openmpi"`` (Open MPI, OpenRTE), ``"mpich"``
  (MPICH's Hydra, Intel MPI) or ``"unknown"``;
* Open MPI refuses more ranks than cores unless given ``--oversubscribe`` (more ranks than
  cores is common on a workstation and in the tests), and refuses to run as root unless both
  ``OMPI_ALLOW_RUN_AS_ROOT`` and ``OMPI_ALLOW_RUN_AS_ROOT_CONFIRM`` are set. It also binds each
  rank to one core when a job has at most 2 ranks, which leaves a rank's threads sharing that
  core: ``--bind-to none`` (as ``scripts/mpirun.sh``). MPICH needs none of these.

Standard library only: imports neither MPI nor the compiled extension, and works when loaded
from its file alone (``tools/vcluster`` does that when volfft is not installed).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

OPENMPI = "openmpi"
MPICH = "mpich"
UNKNOWN = "unknown"


def find_mpirun(explicit: Optional[str] = None) -> Optional[str]:
    """The launcher to use: ``explicit``, else ``$MPIRUN``, else ``mpirun`` on the PATH (or None)."""
    return explicit or os.environ.get("MPIRUN") or shutil.which("mpirun")


def mpi_flavour(mpirun: str = "mpirun") -> str:
    """``"openmpi"``, ``"mpich"`` or ``"unknown"``, from ``mpirun --version``.

    ``"unknown"`` also when the launcher cannot be run or does not answer within 30 s.
    """
    try:
        text = subprocess.run([mpirun, "--version"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN
    lowered = text.lower()
    if "open mpi" in lowered or "open-mpi" in lowered or "openrte" in lowered:
        return OPENMPI
    if "hydra" in lowered or "mpich" in lowered or "intel(r) mpi" in lowered:
        return MPICH
    return UNKNOWN


def launch_command(nprocs: int, program: Sequence[str], mpirun: str = "mpirun",
                   flavour: Optional[str] = None) -> List[str]:
    """``mpirun -n NPROCS [--oversubscribe --bind-to none] PROGRAM...`` for the launcher's flavour.

    ``flavour`` defaults to :func:`mpi_flavour` of ``mpirun``.

    Raises
    ------
    ValueError
        If ``nprocs`` < 1.
    """
    if int(nprocs) < 1:
        raise ValueError(f"nprocs: expected >= 1, got {nprocs}")
    flavour = flavour or mpi_flavour(mpirun)
    command = [mpirun, "-n", str(int(nprocs))]
    if flavour == OPENMPI:
        command += ["--oversubscribe", "--bind-to", "none"]
    return command + list(program)


def launch_environment(flavour: str, base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) that lets the launcher run as root.

    For Open MPI run by root, both ``OMPI_ALLOW_RUN_AS_ROOT`` variables are set (values the
    caller already set are kept); otherwise the copy is unchanged.
    """
    env = dict(os.environ if base is None else base)
    if flavour == OPENMPI and hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def launch(nprocs: int, program: Sequence[str], mpirun: str = "mpirun",
           flavour: Optional[str] = None) -> Tuple[List[str], Dict[str, str]]:
    """:func:`launch_command` and :func:`launch_environment` together (one flavour test)."""
    flavour = flavour or mpi_flavour(mpirun)
    return launch_command(nprocs, program, mpirun, flavour), launch_environment(flavour)
