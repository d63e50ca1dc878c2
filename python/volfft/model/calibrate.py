"""``volfft model calibrate``: measure this machine under mpirun and write a machine file.

Launches :mod:`volfft.model.calibration_script` with the local ``mpirun`` (Open MPI or MPICH,
detected from ``mpirun --version``) and turns its measurements into a :class:`Machine`: one
node (``dims=(1,)``) whose tasks exchange through shared memory at the measured all-to-all
bandwidth, with the measured message latency, copy bandwidth and numpy FFT rates. The file
records the raw measurements under ``"calibration"`` as well.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from .machine import Machine


def detect_mpi(mpirun: str = "mpirun") -> str:
    """``"openmpi"``, ``"mpich"`` or ``"unknown"``, from ``mpirun --version``."""
    try:
        text = subprocess.run([mpirun, "--version"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lowered = text.lower()
    if "open mpi" in lowered or "open-mpi" in lowered or "openrte" in lowered:
        return "openmpi"
    if "hydra" in lowered or "mpich" in lowered or "intel(r) mpi" in lowered:
        return "mpich"
    return "unknown"


def launch_command(nprocs: int, script_args: Sequence[str], mpirun: str = "mpirun",
                   flavour: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The mpirun command line and environment to run the calibration script on ``nprocs``."""
    if nprocs < 1:
        raise ValueError(f"nprocs: expected >= 1, got {nprocs}")
    flavour = flavour or detect_mpi(mpirun)
    env = dict(os.environ)
    cmd = [mpirun, "-n", str(nprocs)]
    if flavour == "openmpi":
        if nprocs > (os.cpu_count() or 1):
            cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # Open MPI refuses to run as root unless told it is deliberate.
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    script = str(Path(__file__).with_name("calibration_script.py"))
    return cmd + [sys.executable, script, *script_args], env


def machine_from_measurements(data: dict[str, Any], name: str | None = None) -> Machine:
    """Turn the calibration script's JSON into a one-node :class:`Machine`."""
    ranks = int(data["ranks"])
    rates = {int(k): float(v) for k, v in data["fft_rate_by_length"].items()}
    sorted_rates = sorted(rates.values())
    pingpong = data.get("pingpong_bandwidth") or data.get("alltoall_bandwidth")
    intranode = data.get("alltoall_bandwidth")
    return Machine(
        name=name or f"this machine ({data.get('host', socket.gethostname())}, calibrated at "
                     f"np {ranks})",
        dims=(1,),
        wrap=(False,),
        tasks_per_node=ranks,
        # One node: no link is used. Keep the ping-pong bandwidth here so that a multi-node
        # description built from this file starts from a measured number.
        link_bandwidth=float(pingpong or data["memory_bandwidth"]),
        payload_efficiency=1.0,
        hop_latency=0.0,
        message_latency=float(data.get("latency_s") or 0.0),
        memory_bandwidth=float(data["memory_bandwidth"]),
        fft_rate=float(sorted_rates[len(sorted_rates) // 2]),
        fft_rate_by_length=rates,
        intranode_bandwidth=None if intranode is None else float(intranode),
        injection_bandwidth=None,
        cores_per_node=os.cpu_count() or 1,
        notes="volfft model calibrate: MPI ping-pong and alltoall, numpy FFT, np.copyto",
    )


def run_calibration(out: str | Path, nprocs: int = 2, mpirun: str = "mpirun",
                    timeout: float = 600, quick: bool = False) -> Machine:
    """Run the measurements under mpirun and write the machine file ``out``.

    Raises
    ------
    RuntimeError
        If mpirun is missing, fails, or times out (its output is included).
    """
    if shutil.which(mpirun) is None:
        raise RuntimeError(f"mpirun: {mpirun!r} not found on PATH; install MPI or pass --mpirun")
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "calibration.json"
        cmd, env = launch_command(nprocs, [str(raw)] + (["--quick"] if quick else []), mpirun)
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"calibrate: {' '.join(cmd)} did not finish within {timeout} s") \
                from None
        if proc.returncode != 0 or not raw.exists():
            raise RuntimeError(f"calibrate: {' '.join(cmd)} failed (exit {proc.returncode}):\n"
                               f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        data = json.loads(raw.read_text())
    machine = machine_from_measurements(data)
    record = machine.to_dict()
    record["calibration"] = data
    Path(out).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return machine
