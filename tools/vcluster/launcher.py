"""MPI jobs across the hosts of an emulated cluster: the launcher command line (Open MPI's
mpirun or MPICH's Hydra, entering the first host), its hosts file and ssh stand-in, running a
job with a timeout, and compiling MPI C programs for either MPI.
"""
from __future__ import annotations

import importlib.util
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from . import common, mpich
from .common import REPO_ROOT, run
from .network import kill_namespace_processes
from .topology import HOST_NET


def _volfft_launch() -> ModuleType:
    """``volfft._launch`` (launcher flags by MPI flavour): installed, or this checkout's file.

    The file is standard library only, so loading it alone works without volfft installed.
    """
    try:
        from volfft import _launch
        return _launch
    except ImportError:
        path = REPO_ROOT / "python" / "volfft" / "_launch.py"
        spec = importlib.util.spec_from_file_location("_volfft_launch", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def mpi_env(mpi: str, state: dict, k: int, shm: bool) -> dict[str, str]:
    """Environment for the launcher and (inherited through the agent) every rank."""
    env = _volfft_launch().launch_environment(mpi)
    if mpi == "mpich":
        mpich.mpich_environment(env, state["mpi_iface"])
    return env


def write_launch_files(state: dict, order: list[int], k: int, mpi: str) -> tuple[Path, Path]:
    """Hosts file (in rank order) and the ssh stand-in agent script; returns their paths."""
    run_dir = common.STATE_DIR / state["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    hosts = [state["hosts"][h] for h in order]
    hostfile = run_dir / f"hosts.{mpi}"
    if mpi == "openmpi":
        hostfile.write_text("".join(f"{h} slots={k}\n" for h in hosts))
    else:
        hostfile.write_text("".join(f"{h}:{k}\n" for h in hosts))
    agent = run_dir / "agent.sh"
    # Called like ssh: "agent [-options] HOST COMMAND...". It enters HOST's network namespace
    # and a fresh UTS namespace named HOST (so MPI sees one hostname per host and does not take
    # all hosts for one node), then runs COMMAND through sh as sshd would.
    agent.write_text(
        "#!/bin/sh\n"
        "# ssh stand-in for MPI launchers, written by tools.vcluster\n"
        'while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done\n'
        'host="$1"; shift\n'
        'exec ip netns exec "$host" unshare --uts -- sh -c \'hostname "$0" && exec sh -c "$*"\' "$host" "$@"\n')
    agent.chmod(0o755)
    return hostfile, agent


def mpirun_command(state: dict, program: list[str], k: int = 1, mpi: str = "openmpi",
                   order: list[int] | None = None, shm: bool = False, extra: list[str] | None = None,
                   real_finalize: bool = False) -> tuple[list[str], dict[str, str]]:
    """Command line (entering the first host's namespace) and environment of an MPI job.

    Parameters
    ----------
    state : dict
        From :func:`load_state`.
    program : list of str
        Executable and its arguments.
    k : int
        Ranks per host.
    mpi : {"openmpi", "mpich"}
    order : list of int, optional
        Host indices in rank order (rank r runs on host ``order[r // k]``); default all hosts.
    shm : bool
        Let ranks of the same host use shared memory (default: TCP between every pair).
    extra : list of str, optional
        More launcher options, placed before the program.
    real_finalize : bool
        MPICH only: do not preload ``mpich_finalize_shim`` (see that file for the hang it
        avoids).
    """
    if not program:
        raise ValueError("program: expected an executable after --")
    if k < 1:
        raise ValueError(f"-k: expected >= 1 ranks per host, got {k}")
    n = len(state["hosts"])
    order = list(range(n)) if order is None else list(order)
    if not order or any(not 0 <= h < n for h in order) or len(set(order)) != len(order):
        raise ValueError(f"--hosts: expected distinct host indices in 0..{n - 1}, got {order}")
    if shm and mpi == "mpich":
        raise ValueError("--shm: not available with MPICH here (UCX shared memory would connect "
                         "ranks of different hosts, bypassing the links); use Open MPI")
    hostfile, agent = write_launch_files(state, order, k, mpi)
    total = k * len(order)
    if mpi == "openmpi":
        btl = "tcp,vader,self" if shm and k > 1 else "tcp,self"
        launcher = ["mpirun", "--hostfile", str(hostfile), "-np", str(total), "--map-by", "slot",
                    # Every "node" is this machine: without this each host's daemon would pin
                    # its first rank to core 0.
                    "--bind-to", "none",
                    "--mca", "plm_rsh_agent", str(agent), "--mca", "plm_rsh_no_tree_spawn", "1",
                    "--mca", "pml", "ob1", "--mca", "btl", btl, "--mca", "osc", "^ucx",
                    # All hosts share this machine's few cores, but each daemon sees a whole
                    # machine and lets its ranks spin; spinning ranks starve the others for a
                    # scheduler tick (4 ms measured for a 1 KiB all-to-all of 4 ranks on 2 cores).
                    "--mca", "mpi_yield_when_idle", "1",
                    "--mca", "btl_tcp_if_include", HOST_NET, "--mca", "oob_tcp_if_include", HOST_NET]
    elif mpi == "mpich":
        launcher = [str(mpich.hydra()), "-f", str(hostfile), "-n", str(total), "-launcher", "ssh",
                    "-launcher-exec", str(agent)]
        if not real_finalize:
            # Preloaded into the ranks only (-genv), not into the launcher or this script.
            shim = build(mpich.FINALIZE_SHIM, "mpich", shared=True)
            launcher += ["-genv", "LD_PRELOAD", str(shim)]
    else:
        raise ValueError(f"--mpi: expected openmpi or mpich, got {mpi!r}")
    head = state["hosts"][order[0]]
    # The launcher runs on the first host (its namespace and hostname), so its control
    # connections use the cluster network like the daemons' do.
    cmd = ["ip", "netns", "exec", head, "unshare", "--uts", "--", "sh", "-c",
           'hostname "$0" && exec "$@"', head] + launcher + list(extra or []) + list(program)
    return cmd, mpi_env(mpi, state, k, shm)


def run_job(cmd: list[str], env: dict[str, str], timeout: float | None, namespaces: list[str],
            output=None) -> int:
    """Run an MPI launcher; on timeout stop it and every process left in ``namespaces``.

    ``output``: a file to receive the job's stdout and stderr (default: this process's).
    Returns the launcher's exit status, or 124 after a timeout (like coreutils ``timeout``).
    """
    if common.VERBOSE:
        print("+", shlex.join(cmd), file=sys.stderr)
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=output,
                            stderr=subprocess.STDOUT if output is not None else None)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"vcluster: job exceeded {timeout:g} s; stopping it", file=sys.stderr)
        _stop_group(proc)
        kill_namespace_processes(namespaces)
        return 124
    except BaseException:
        _stop_group(proc)
        kill_namespace_processes(namespaces)
        raise


def _stop_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def build(source: Path, mpi: str = "openmpi", out_dir: Path | None = None, shared: bool = False) -> Path:
    """Compile an MPI C program for ``mpi`` into the (git-ignored) build directory.

    Rebuilds only when the source is newer than the output. With ``shared`` the output is a
    preloadable library ``libNAME.so`` instead of an executable.
    """
    source = Path(source).resolve()
    if not source.exists():
        raise ValueError(f"source: no such file {source}")
    out_dir = Path(out_dir or common.BUILD_DIR / mpi)
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / (f"lib{source.stem}.so" if shared else source.stem)
    if exe.exists() and exe.stat().st_mtime >= source.stat().st_mtime:
        return exe
    kind = ["-shared", "-fPIC"] if shared else []
    if mpi == "openmpi":
        cmd = ["mpicc", *kind, "-O2", "-std=gnu99", "-Wall", "-o", str(exe), str(source), "-lm"]
    elif mpi == "mpich":
        inc, lib = mpich.include_and_lib_dirs()
        # The packaged mpicc.mpich hard-codes /usr; compile directly against the side prefix.
        cmd = ["cc", *kind, "-O2", "-std=gnu99", "-Wall", f"-I{inc}", "-o", str(exe), str(source),
               f"-L{lib}", f"-Wl,-rpath,{lib}", "-lmpich", "-lm"]
    else:
        raise ValueError(f"--mpi: expected openmpi or mpich, got {mpi!r}")
    run(cmd)
    return exe
