"""volfft-bench --floor: the copy bandwidth, and each phase's bytes and floor time as the
report's own numbers imply (one read and one write of the array per FFT phase, one copy of the
messages per exchange); --floor with --pad is refused."""
from __future__ import annotations

import pytest

import peer_matrix  # benchmarks/, on sys.path by conftest.py


@pytest.mark.parametrize("kind", ["c2c", "r2c"])
def test_floor_rows(bench_driver, kind):
    n = (16, 12, 10)
    report = peer_matrix.run_bench(bench_driver, 2, [kind, "double", *map(str, n), "--iters", "2",
                                                     "--effort", "estimate", "--floor"], timeout=120)
    floor = report["floor"]
    bandwidth = floor["copy_bytes_per_second"]
    assert bandwidth > 1e8 and floor["buffer_bytes_per_rank"] >= 64 << 20
    total = n[0] * n[1] * n[2]
    spectral = total // n[2] * (n[2] // 2 + 1) if kind == "r2c" else total
    messages = sum(e["bytes"] for e in report["exchanges"])
    for direction in ("forward", "backward"):
        rows = floor[direction]
        ffts = [r for r in rows if r["phase"].startswith("fft")]
        assert len(ffts) == 2  # a slab plan: two FFT phases around one exchange
        real_side = ffts[0] if direction == "forward" else ffts[-1]
        for row in ffts:
            expected = total * 8 + spectral * 16 if (kind == "r2c" and row is real_side) else 2 * spectral * 16
            assert row["bytes"] == expected
        exchange = [r for r in rows if r["phase"].startswith("pack+exchange+unpack")]
        assert len(exchange) == 1 and exchange[0]["bytes"] == 2 * messages
        phase_ms = {p["name"]: p["ms"] for p in report[direction]["phases"]}
        assert exchange[0]["ms"] == pytest.approx(sum(v for k, v in phase_ms.items()
                                                      if k.endswith("_column") and not k.startswith("hidden_")),
                                                  rel=1e-4, abs=1e-5)
        for row in rows:
            assert row["floor_ms"] == pytest.approx(row["bytes"] / bandwidth * 1e3, rel=1e-4)


def test_floor_refuses_padding(bench_driver):
    with pytest.raises(RuntimeError, match="--floor is for unpadded plans"):
        peer_matrix.run_bench(bench_driver, 1, ["c2c", "double", "8", "8", "8", "--pad", "12", "12", "12",
                                                "--floor"], timeout=60)
