"""benchmarks.cluster.exp_floor: the link-rate bound's arithmetic, the summary of a run's reports
(pure), and, as root with network namespaces and a built volfft-bench, one short run on a
4-host switch (about 15 s)."""
from __future__ import annotations

import json
import shutil

import pytest

from benchmarks.cluster import exp_floor as F
from benchmarks.cluster import experiment as X
from tools import vcluster


def test_block_is_the_slab_exchange_block():
    # 128^3 complex doubles over 4 ranks: 32 x 32 x 128 values of 16 bytes to each other rank.
    assert F.block_bytes(128, 4) == 32 * 32 * 128 * 16
    with pytest.raises(ValueError, match="divisible by the host count 3"):
        F.block_bytes(128, 3)


def test_bound_counts_frames_through_one_port():
    # 3 blocks of 2 MiB leave each of 4 hosts; 1448 payload bytes ride in each 1514-byte frame.
    seconds = F.bound_seconds(2 * 2**20, 4, 1e9)
    assert seconds == pytest.approx(3 * 2 * 2**20 * 1514 / 1448 * 8 / 1e9)
    assert 0.0526 < seconds < 0.0527
    # Twice the rate, half the time; more hosts, more blocks through the port.
    assert F.bound_seconds(2 * 2**20, 4, 2e9) == pytest.approx(seconds / 2)
    assert F.bound_seconds(2 * 2**20, 8, 1e9) == pytest.approx(seconds * 7 / 3)


def _report(exchange_ms: float, pack_ms: float, total_ms: float) -> dict:
    phases = [{"name": "fft21", "ms": 1.0}, {"name": "pack_column", "ms": pack_ms},
              {"name": "exchange_column", "ms": exchange_ms}, {"name": "unpack_column", "ms": pack_ms},
              {"name": "fft0", "ms": 1.0}]
    side = {"median_ms": total_ms, "phases": phases}
    return {"forward": side, "backward": side, "exchanges": [{"name": "column", "bytes": 123}]}


def test_summary_takes_medians_over_rounds_and_ratios_against_the_bound():
    runs = [_report(60, 3, 70), _report(66, 4, 75), _report(62, 5, 80)]
    a2a = [{"sizes": [{"median_s": 0.080}]}, {"sizes": [{"median_s": 0.090}]}]
    row = F.summarise(4, "p2p", 128, 1e9, runs, a2a)
    bound_ms = F.bound_seconds(F.block_bytes(128, 4), 4, 1e9) * 1e3
    assert row["engine"] == "p2p" and row["rounds"] == 3
    assert row["volfft_forward_exchange_ms"] == 62
    assert row["volfft_forward_copies_ms"] == 8  # pack + unpack, median over rounds
    assert row["volfft_forward_total_ms"] == 75
    assert row["alltoallv_ms"] == pytest.approx(85.0)
    assert row["volfft_exchange_over_bound"] == pytest.approx(62 / bound_ms)
    assert row["alltoallv_over_bound"] == pytest.approx(85 / bound_ms)
    assert row["volfft_exchange_over_alltoallv"] == pytest.approx(62 / 85)
    assert row["volfft_bytes_moved"] == 123


def test_report_writes_the_table_and_marks_missing_runs(tmp_path):
    config = {"n": 128, "rate": "1gbit", "rounds": 1, "iters": 2}
    rows = [F.summarise(4, "alltoallv", 128, 1e9, [_report(60, 3, 70)], []),
            F.summarise(8, "alltoallv", 128, 1e9, [], [])]
    table = F.report({"config": config, "rows": rows}, tmp_path)
    lines = table.splitlines()
    assert "switch at 1gbit" in lines[0]
    assert lines[3].split()[:2] == ["4", "alltoallv"] and "n/a" in lines[3]  # no MPI_Alltoallv run
    assert lines[4].split()[:2] == ["8", "alltoallv"] and lines[4].count("n/a") >= 5
    assert (tmp_path / "table.txt").read_text().strip() == table.strip()
    assert json.loads((tmp_path / "results.json").read_text())["rows"][0]["hosts"] == 4


def test_report_names_a_cluster_shaped_other_than_by_default(tmp_path):
    rows = [F.summarise(8, "alltoallv", 128, 1e9, [_report(60, 3, 70)], [])]
    title = F.report({"config": {"n": 128, "rate": "1gbit", "rounds": 1, "iters": 2, "gso": "on", "burst": "4ms"},
                      "rows": rows}, tmp_path).splitlines()[0]
    assert "switch at 1gbit, --gso on, --burst 4ms;" in title
    title = F.report({"config": {"n": 128, "rate": "1gbit", "rounds": 1, "iters": 2, "gso": "auto", "burst": "auto"},
                      "rows": rows}, tmp_path).splitlines()[0]
    assert "switch at 1gbit;" in title


def test_host_counts_must_divide_the_size():
    with pytest.raises(SystemExit):
        F.main(["--hosts", "3", "--n", "128", "--report-only"])


def _live_reason() -> str | None:
    if not shutil.which("mpicc"):
        return "needs mpicc"
    if X.find_volfft_bench() is None:
        return "needs a built volfft-bench (README build)"
    return vcluster.namespaces_unusable()


@pytest.mark.skipif(_live_reason() is not None, reason=f"live run: {_live_reason()}")
def test_a_short_run_on_four_hosts(tmp_path):
    # --gso on and --burst 1ms are what 1 Gbit/s gets by default: passed to exercise the options.
    rc = F.main(["--hosts", "4", "--n", "64", "--rate", "1gbit", "--gso", "on", "--burst", "1ms", "--engines",
                 "alltoallv", "--rounds", "1", "--iters", "3", "--out", str(tmp_path)])
    assert rc == 0
    (row,) = json.loads((tmp_path / "results.json").read_text())["rows"]
    bound_ms = F.bound_seconds(F.block_bytes(64, 4), 4, 1e9) * 1e3  # 6.6 ms
    assert row["bound_ms"] == pytest.approx(bound_ms)
    # Nothing moves faster than its link: the bare collective takes at least the bound less the
    # shaper's burst (1 ms at the link rate, vcluster's default). The transform moved the same bytes.
    assert row["alltoallv_ms"] >= bound_ms - 1.0
    assert row["volfft_bytes_moved"] == pytest.approx(4 * 3 * F.block_bytes(64, 4), rel=1e-5)  # JSON: 6 digits
