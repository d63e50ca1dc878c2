"""volfft-bench --floor: the copy bandwidth (the faster of memcpy and streamed stores), each
phase's bytes and floor time as the report's own numbers imply (one read and one write of the
array per FFT phase and per exchange, whose own blocks are copied as its messages are), and each
FFT phase's in-cache time from the measured lines of its axes; --floor with --pad is refused."""
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
    assert bandwidth == max(floor["memcpy_bytes_per_second"], floor["streamed_bytes_per_second"])
    assert min(floor["memcpy_bytes_per_second"], floor["streamed_bytes_per_second"]) > 1e8
    assert floor["workers"] == 2
    # Every transformed axis, both directions, measured: the r2c axis as r2c, the others dft.
    lines = {(line["axis"], line["direction"]): line for line in floor["lines"]}
    assert set(lines) == {(a, d) for a in range(3) for d in ("forward", "backward")}
    for (axis, _), line in lines.items():
        assert line["n"] == n[axis] and line["seconds"] > 0
        assert line["kind"] == ("r2c" if kind == "r2c" and axis == 2 else "dft")
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
            # The in-cache time: each axis of the phase ("fft21": axes 2 and 1), its lines times
            # the measured time of one, over the 2 workers. The r2c axis has total / n2 lines.
            axes = [int(c) for c in row["phase"][3:]]
            assert axes and set(axes) <= {0, 1, 2}
            in_cache = sum((total if lines[(a, direction)]["kind"] == "r2c" else spectral) / n[a]
                           * lines[(a, direction)]["seconds"] for a in axes) / 2
            assert row["in_cache_ms"] == pytest.approx(in_cache * 1e3, rel=1e-4)
        exchange = [r for r in rows if r["phase"].startswith("pack+exchange+unpack")]
        # The whole array, read and written once: the messages and each rank's own block.
        assert len(exchange) == 1 and exchange[0]["bytes"] == 2 * spectral * 16 > 2 * messages
        assert exchange[0]["in_cache_ms"] == 0
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
