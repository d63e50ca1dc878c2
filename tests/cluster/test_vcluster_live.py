"""The emulated cluster for real: shaped rates, multi-hop routes, cleanup, the MPI harness.

Needs root and network namespaces; skipped with the reason otherwise. Takes about 30 s.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import tools.vcluster as V
from tools.vcluster import network
from tools.vcluster import topology as T

HERE = Path(__file__).resolve().parent


REASON = V.namespaces_unusable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"emulated cluster: {REASON}")


def _tx_bytes(ns: str, dev: str) -> int:
    out = subprocess.run(["ip", "-n", ns, "-s", "link", "show", dev], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    # "TX:  bytes packets ..." is followed by the numbers line.
    i = next(k for k, line in enumerate(out) if line.strip().startswith("TX:"))
    return int(out[i + 1].split()[0])


def test_line_is_shaped_and_routes_through_the_middle_host():
    name = f"pt{os.getpid() % 10000}"
    V.destroy(name)
    try:
        V.create(name, T.parse_topology("line", n_hosts=3), rate="20mbit", delay="0")
        middle = V.host_ns(name, 1)
        before = _tx_bytes(middle, "l0p")
        result = V.probe(name, 0, 2, pings=20, sizes=[1 << 20], reps=3)
        forwarded = _tx_bytes(middle, "l0p") - before
        rate = result["transfers"][str(1 << 20)]["mbit_per_s"]
        # TCP payload over a 20 Mbit/s link: a little less than 20 (headers, slow start),
        # and never more (the shaper works).
        assert 14.0 < rate < 20.5, rate
        assert forwarded > 3 * (1 << 20), f"host 1 forwarded only {forwarded} bytes"
        assert result["path"] == [0, 1, 2]
    finally:
        V.destroy(name)
    assert not [x for x in V.leftovers() if f"vc-{name}-" in x or f"/{name}" in x]


def test_failed_create_leaves_nothing(monkeypatch):
    name = f"pf{os.getpid() % 10000}"
    calls = []

    def failing_shape(*args, **kwargs):
        calls.append(args)
        if len(calls) == 3:
            raise V.ClusterError("injected failure while shaping")
        return original(*args, **kwargs)

    original = network.shape_link
    monkeypatch.setattr(network, "shape_link", failing_shape)
    with pytest.raises(V.ClusterError, match="injected"):
        V.create(name, T.parse_topology("ring", n_hosts=3), rate="100mbit", delay="0")
    assert len(calls) == 3
    assert not [x for x in V.leftovers() if f"vc-{name}-" in x or f"/{name}" in x]


@pytest.mark.skipif(shutil.which("mpicc") is None or shutil.which("mpirun") is None,
                    reason="emulated cluster harness: needs Open MPI (mpicc, mpirun)")
def test_harness_passes_good_and_fails_bad_programs(tmp_path):
    hello = V.build(HERE / "mpi_hello.c", "openmpi", out_dir=tmp_path)
    bad_src = tmp_path / "exit3.c"
    bad_src.write_text("#include <mpi.h>\nint main(int c, char **v) { int r; MPI_Init(&c, &v);\n"
                       "MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Finalize(); return r == 1 ? 3 : 0; }\n")
    bad = V.build(bad_src, "openmpi", out_dir=tmp_path)
    harness = HERE / "run_multihost.sh"
    good = subprocess.run([str(harness), "--timeout", "60", str(hello)], capture_output=True, text=True,
                          timeout=180)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "1 passed, 0 failed; cluster removed: yes" in good.stdout
    assert "rank 3 on vc-mh" in good.stdout  # four distinct hosts
    failed = subprocess.run([str(harness), "--timeout", "60", str(hello), str(bad)], capture_output=True,
                            text=True, timeout=180)
    assert failed.returncode == 1
    assert "1 passed, 1 failed; cluster removed: yes" in failed.stdout
    assert not [x for x in V.leftovers() if "vc-mh" in x]
