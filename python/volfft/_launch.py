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
  core: ``--bind-to none`` (as ``scripts/mpirun.sh``). MPICH needs none of these;
* a job that runs past its time is stopped whole (:func:`stop_job`, :func:`run_job`): the
  launcher and the ranks it started, which ``subprocess.run(timeout=...)`` would leave running.

Standard library only: imports neither MPI nor the compiled extension, and works when loaded
from its file alone (``tools/vcluster`` does that when volfft is not installed).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

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


def _stat_fields(pid: Union[int, str]) -> Optional[List[str]]:
    """The fields of ``/proc/PID/stat`` after ``pid (comm)``: [0] the state, [1] the parent's
    pid, [19] the start time; None when the process is gone or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _process_tree(pid: int) -> List[Tuple[int, str]]:
    """Every descendant of ``pid`` now, as (pid, start time) pairs: empty without Linux's /proc.

    The start time tells a process from a later one given the same pid.
    """
    try:
        entries = [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []
    children: Dict[int, List[Tuple[int, str]]] = {}
    for entry in entries:
        fields = _stat_fields(entry)
        if fields is not None:  # else gone meanwhile
            children.setdefault(int(fields[1]), []).append((int(entry), fields[19]))
    tree, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            tree.append(child)
            todo.append(child[0])
    return tree


def stop_job(process: "subprocess.Popen", grace: float = 10.0) -> None:
    """Stop a launcher and every process it started; returns once the launcher has exited and
    the processes it had to kill are gone (or zombies; 5 s at most).

    The launcher is asked first (SIGTERM: mpirun and Hydra forward it to the ranks and clean
    up); whatever of its process tree is left after ``grace`` seconds is killed. The tree is
    read before asking, because Open MPI's ranks sit in process groups of their own and, once
    mpirun has gone, are no longer its children: killing mpirun alone (what
    ``subprocess.run(timeout=...)`` does) leaves them running and holding its output pipes.
    """
    tree = _process_tree(process.pid)
    try:
        process.terminate()
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    killed = []
    for pid, started in tree:
        fields = _stat_fields(pid)
        if fields is not None and fields[19] == started:  # the process we saw, not a new one
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append((pid, started))
            except OSError:
                pass
    # SIGKILL takes effect when the kernel next runs the process, which on a loaded machine can
    # be after kill() returns: wait (briefly) until each is gone or a zombie, so that the job no
    # longer holds its cores when this returns.
    deadline = time.monotonic() + 5.0
    for pid, started in killed:
        while time.monotonic() < deadline:
            fields = _stat_fields(pid)
            if fields is None or fields[19] != started or fields[0] == "Z":
                break
            time.sleep(0.01)


def run_job(command: Sequence[str], *, timeout: float, env: Optional[Mapping[str, str]] = None,
            cwd: Optional[str] = None, grace: float = 10.0) -> "subprocess.CompletedProcess[str]":
    """Run ``command`` (a launcher, or any program that may start one) to its end, its stdout and
    stderr captured as text; at most ``timeout`` seconds.

    Raises
    ------
    subprocess.TimeoutExpired
        After ``timeout`` s, once the whole job has been stopped (:func:`stop_job` with
        ``grace``); it carries what the job had printed (``output``, ``stderr``).

    The output goes through temporary files, not pipes, so that no process outliving the
    launcher can keep this call waiting for an end of file.
    """
    def text(handle) -> str:
        handle.seek(0)
        return handle.read().decode("utf-8", errors="replace")

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(list(command), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   env=None if env is None else dict(env), cwd=cwd)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_job(process, grace)
            raise subprocess.TimeoutExpired(list(command), timeout, output=text(out),
                                            stderr=text(err)) from None
        except BaseException:  # interrupted (Ctrl-C, a test's own time limit): nothing left behind
            stop_job(process, grace)
            raise
        return subprocess.CompletedProcess(list(command), code, text(out), text(err))
