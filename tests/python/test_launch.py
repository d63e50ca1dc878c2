"""volfft._launch.run_job and stop_job: a job past its time is stopped whole, ranks included,
and no process it leaves behind can keep the caller waiting."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from volfft import _launch

MPIRUN = _launch.find_mpirun()


def _alive(pid: int) -> bool:
    fields = _launch._stat_fields(pid)
    return fields is not None and fields[0] != "Z"  # a zombie has ended


def test_output_and_status_are_returned():
    done = _launch.run_job([sys.executable, "-c", "import sys; print('out'); "
                            "print('err', file=sys.stderr); sys.exit(3)"], timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


def test_a_process_left_holding_the_output_does_not_block():
    # The shell exits at once; its background child keeps stdout open for 60 s. With pipes
    # (subprocess.run(capture_output=True)) the call would wait for that child.
    start = time.monotonic()
    done = _launch.run_job(["sh", "-c", "sleep 60 & echo $!"], timeout=30)
    elapsed = time.monotonic() - start
    os.kill(int(done.stdout), signal.SIGKILL)  # the background sleep, left running on purpose
    assert done.returncode == 0
    assert elapsed < 20


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the process tree is read from Linux's /proc")
def test_timeout_stops_the_whole_tree(tmp_path):
    # A child that ignores SIGTERM, as a rank stuck in MPI may: killed after the grace period.
    script = ("import os, signal, subprocess, sys, time\n"
              "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
              "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'], start_new_session=True)\n"
              f"open({str(tmp_path / 'pids')!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
              "print('running', flush=True)\n"
              "time.sleep(120)\n")
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as stopped:
        # 10 s: ample for two interpreters to start, even on a slow machine.
        _launch.run_job([sys.executable, "-c", script], timeout=10, grace=1)
    assert time.monotonic() - start < 60
    assert "running" in stopped.value.output
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    time.sleep(0.5)
    assert not any(_alive(pid) for pid in pids), pids


@pytest.mark.skipif(MPIRUN is None or not os.path.isdir("/proc"),
                    reason="needs mpirun and Linux's /proc")
def test_timeout_stops_mpirun_and_its_ranks(tmp_path):
    # Each rank notes its pid (a shell's, which sleep then replaces) and sleeps.
    program = ["sh", "-c", f'touch "{tmp_path}/$$"; exec sleep 120']
    command, env = _launch.launch(2, program, MPIRUN)
    deadline = 15  # ample for mpirun to start two shells, even on a slow machine
    with pytest.raises(subprocess.TimeoutExpired):
        _launch.run_job(command, timeout=deadline, env=env)
    ranks = [int(p.name) for p in tmp_path.iterdir()]
    assert len(ranks) == 2, f"{len(ranks)} of 2 ranks had started within {deadline} s"
    time.sleep(0.5)
    assert not any(_alive(pid) for pid in ranks), ranks
