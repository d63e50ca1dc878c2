"""``volfft model calibrate``: measure this machine under mpirun and write a machine file.

Launches :mod:`volfft.model.calibration_script` with the local ``mpirun`` (Open MPI or MPICH,
called as :mod:`volfft._launch` says) and turns its measurements into a :class:`Machine`: one
node (``dims=(1,)``) whose tasks exchange through shared memory at the measured all-to-all
bandwidth, with the measured message latency, transposing-copy bandwidth (pack/unpack) and FFT
rates. numpy's FFT (pocketfft) is typically 2-3x slower than FFTW, which volfft uses; when a
``volfft-bench`` binary is found (or given), the FFT rates are instead measured with it at
np 1 (``3 n^3 log2 n`` per whole local 3-D transform of ``n^3``), and numpy's are kept in the
record. The file records the raw measurements under ``"calibration"``.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from .. import _launch
from .machine import Machine


def launch_command(nprocs: int, script_args: Sequence[str], mpirun: str = "mpirun",
                   flavour: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The mpirun command line and environment to run the calibration script on ``nprocs``.

    Raises
    ------
    ValueError
        If ``nprocs`` < 1.
    """
    script = str(Path(__file__).with_name("calibration_script.py"))
    return _launch.launch(nprocs, [sys.executable, script, *script_args], mpirun, flavour)


def machine_from_measurements(data: dict[str, Any], name: str | None = None) -> Machine:
    """Turn the calibration script's JSON into a one-node :class:`Machine`."""
    ranks = int(data["ranks"])
    cores = int(data.get("cores") or os.cpu_count() or 1)
    # Rates measured by every rank at once on an oversubscribed node already include the
    # sharing of cores; the model applies cores/tasks itself, so store per-core rates.
    shared = max(1.0, ranks / cores)
    per_rank = "numpy" in str(data.get("fft_source", "numpy"))
    rates = {int(k): float(v) * (shared if per_rank else 1.0)
             for k, v in data["fft_rate_by_length"].items()}
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
        link_bandwidth=float(pingpong or data["memcpy_bandwidth"]),
        payload_efficiency=1.0,
        hop_latency=0.0,
        message_latency=float(data.get("latency_s") or 0.0),
        # pack/unpack reorder blocks: price them at the transposing copy's speed.
        memory_bandwidth=shared * float(data.get("transpose_bandwidth")
                                        or data["memcpy_bandwidth"]),
        fft_rate=float(sorted_rates[len(sorted_rates) // 2]),
        fft_rate_by_length=rates,
        intranode_bandwidth=None if intranode is None else float(intranode),
        injection_bandwidth=None,
        cores_per_node=cores,
        notes="volfft model calibrate: MPI ping-pong and alltoall, transposing copy; FFT rates "
              f"from {data.get('fft_source', 'numpy')}",
    )


def find_bench(explicit: str | None = None) -> str | None:
    """Path of a volfft-bench binary: ``explicit``, else on PATH, else ./build*/benchmarks/."""
    if explicit:
        if not Path(explicit).exists() and shutil.which(explicit) is None:
            raise ValueError(f"--bench: {explicit} does not exist")
        return shutil.which(explicit) or explicit
    found = shutil.which("volfft-bench")
    if found:
        return found
    local = sorted(Path.cwd().glob("build*/benchmarks/volfft-bench"))
    return str(local[0]) if local else None


def fft_rates_from_bench(bench: str, mpirun: str = "mpirun", sizes: Sequence[int] = (32, 64, 128),
                         timeout: float = 300) -> dict[int, float]:
    """FFTW's speed as volfft uses it: whole local 3-D c2c transforms at np 1 (median of 5)."""
    rates: dict[int, float] = {}
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "bench.json"
            cmd, env = launch_command(1, [], mpirun)
            cmd = cmd[: cmd.index(sys.executable)] + [
                bench, "c2c", "double", str(n), str(n), str(n), "--iters", "5", "--json", str(out)]
            # run_job: on a timeout the ranks are stopped too, not only mpirun.
            proc = _launch.run_job(cmd, env=env, timeout=timeout)
            if proc.returncode != 0 or not out.exists():
                raise RuntimeError(f"calibrate: {' '.join(cmd)} failed (exit {proc.returncode}):"
                                   f"\n{proc.stderr[-1000:]}")
            seconds = json.loads(out.read_text())["forward"]["median_ms"] / 1e3
        rates[n] = 3 * n ** 3 * math.log2(n) / seconds
    return rates


def run_calibration(out: str | Path, nprocs: int = 2, mpirun: str = "mpirun",
                    timeout: float = 600, quick: bool = False,
                    bench: str | None = None, use_bench: bool = True) -> Machine:
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
            proc = _launch.run_job(cmd, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"calibrate: {' '.join(cmd)} did not finish within {timeout} s") \
                from None
        if proc.returncode != 0 or not raw.exists():
            raise RuntimeError(f"calibrate: {' '.join(cmd)} failed (exit {proc.returncode}):\n"
                               f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        data = json.loads(raw.read_text())
    data["fft_source"] = "numpy"
    bench_path = find_bench(bench) if use_bench else None
    if bench_path:
        data["numpy_fft_rate_by_length"] = data["fft_rate_by_length"]
        data["fft_rate_by_length"] = {str(k): v for k, v in fft_rates_from_bench(
            bench_path, mpirun, (32, 64) if quick else (32, 64, 128, 256), timeout).items()}
        data["fft_source"] = f"volfft-bench ({bench_path}) at np 1"
    machine = machine_from_measurements(data)
    record = machine.to_dict()
    record["calibration"] = data
    Path(out).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return machine
