"""MPICH beside Open MPI on the emulated cluster: where it lives, how to unpack it, and the
environment its ranks need.

Open MPI is the system MPI; MPICH is unpacked from Debian's packages into ``/opt/mpich``
(``mpich_setup``) so that it registers no ``mpirun``/``mpicc`` alternatives and no second
``mpi.h``. Its ranks talk through UCX over TCP only, and a preloaded shim
(``mpich_finalize_shim.c``, next to this file) replaces ``MPI_Finalize`` by a barrier.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from .common import COMMAND, ClusterError, require_root, run

MPICH_PREFIX = Path(os.environ.get("VCLUSTER_MPICH_PREFIX", "/opt/mpich/usr"))
MPICH_PACKAGES = ("mpich", "libmpich12", "libmpich-dev", "libslurm38")
FINALIZE_SHIM = Path(__file__).resolve().parent / "mpich_finalize_shim.c"


def hydra() -> Path:
    """MPICH's launcher ``mpiexec.hydra``.

    Raises
    ------
    ClusterError
        When MPICH was not unpacked (the message says how to).
    """
    path = MPICH_PREFIX / "bin" / "mpiexec.hydra"
    if not path.exists():
        raise ClusterError(f"MPICH not found at {MPICH_PREFIX} (no {path}); run: {COMMAND} mpich-setup")
    return path


def include_and_lib_dirs() -> tuple[Path, Path]:
    """MPICH's header and library folders, for compiling against it directly."""
    inc = MPICH_PREFIX / "include" / "x86_64-linux-gnu" / "mpich"
    lib = MPICH_PREFIX / "lib" / "x86_64-linux-gnu"
    if not (inc / "mpi.h").exists():
        raise ClusterError(f"MPICH headers not found in {inc}; run: {COMMAND} mpich-setup")
    return inc, lib


def mpich_environment(env: dict[str, str], mpi_iface: str) -> dict[str, str]:
    """``env`` with what MPICH's launcher and ranks need here (changed in place, returned)."""
    lib = str(MPICH_PREFIX / "lib" / "x86_64-linux-gnu")
    env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["PATH"] = str(MPICH_PREFIX / "bin") + ":" + env.get("PATH", "")
    # MPICH here is ch4:ucx. UCX takes every namespace for the same machine, so its
    # shared-memory transports would carry traffic between hosts: TCP only.
    env["UCX_TLS"] = "tcp,self"
    env["UCX_NET_DEVICES"] = mpi_iface
    # UCX 1.13's default TCP rendezvous leaves ranks spinning in MPI_Finalize after large
    # messages among 3 or more ranks (also without namespaces); the active-message scheme
    # does not. A value set by the user wins.
    env.setdefault("UCX_RNDV_SCHEME", "am")
    return env


def mpich_setup(prefix_root: Path = Path("/opt/mpich")) -> None:
    """Unpack Debian's MPICH into ``prefix_root`` without installing it.

    ``apt-get install mpich`` would register mpirun/mpicc alternatives and a second mpi.h
    beside Open MPI's; unpacking with ``dpkg -x`` keeps Open MPI the only system MPI.
    """
    require_root()
    missing = [p for p in ("libhwloc15", "libucx0", "libgfortran5")
               if run(["dpkg", "-s", p], check=False).returncode != 0]
    if missing:
        raise ClusterError(f"MPICH needs these installed first: apt-get install {' '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # apt's sandbox user must be able to write the .deb files
        if subprocess.run(["apt-get", "download", *MPICH_PACKAGES], cwd=tmp).returncode != 0:
            raise ClusterError(f"apt-get download {' '.join(MPICH_PACKAGES)} failed (run apt-get update?)")
        for deb in sorted(Path(tmp).glob("*.deb")):
            run(["dpkg", "-x", str(deb), str(prefix_root)])
    relocate_wrappers(prefix_root / "usr")
    print(f"MPICH unpacked into {prefix_root}; mpiexec: {prefix_root}/usr/bin/mpiexec.hydra")


def relocate_wrappers(prefix: Path) -> None:
    """Point the unpacked compiler wrappers (``mpicc.mpich``, ``mpicxx.mpich``, ...) at ``prefix``.

    Debian's wrappers name ``/usr`` for their headers and libraries, where Open MPI's are; an
    unpacked copy must use its own, so that CMake's FindMPI (``-DMPI_CXX_COMPILER=...``) and
    ``mpi4py``'s build (``MPICC=...``) compile against MPICH. Idempotent.
    """
    for wrapper in sorted((prefix / "bin").glob("mpi*.mpich")):
        if wrapper.is_symlink() or b"\0" in wrapper.read_bytes():
            continue  # mpiexec.mpich: the launcher itself, not a shell wrapper
        text = wrapper.read_text()
        fixed = (text.replace("prefix=/usr\n", f"prefix={prefix}\n")
                 .replace("includedir=/usr/include", f"includedir={prefix}/include")
                 .replace("libdir=/usr/lib", f"libdir={prefix}/lib"))
        if fixed != text:
            wrapper.write_text(fixed)


