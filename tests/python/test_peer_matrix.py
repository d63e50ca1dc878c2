"""benchmarks/peer_matrix.py on a tiny matrix: it runs every cell in every round, and its table
and JSON hold what the bench measured (ratios are volfft / FFTW-MPI's fastest mode)."""
from __future__ import annotations

import json

import pytest

import peer_matrix  # benchmarks/, on sys.path by conftest.py


def test_tiny_matrix(tmp_path, capsys, bench_driver):
    out = tmp_path / "m.json"
    try:
        code = peer_matrix.main(["--kinds", "c2c", "r2c", "--sizes", "8", "--np", "1", "2",
                                 "--rounds", "2", "--iters", "2", "--timeout", "120",
                                 "--bench", bench_driver, "--out", str(out)])
    except RuntimeError as error:
        if "built without FFTW-MPI" in str(error):
            pytest.skip("this volfft-bench has no FFTW-MPI peer (MPICH build: docs/mpich.md)")
        raise
    assert code == 0
    report = json.loads(out.read_text())
    cells = report["cells"]
    assert [(c["kind"], c["n"], c["np"]) for c in cells] == [
        ("c2c", 8, 1), ("c2c", 8, 2), ("r2c", 8, 1), ("r2c", 8, 2)]
    for cell in cells:
        assert len(cell["rounds"]) == 2
        for r in cell["rounds"]:
            assert r["ratio"] == pytest.approx(r["volfft_ms"] / r["fftw_mpi_ms"])
            assert r["ratio_in_place"] == pytest.approx(r["volfft_in_place_ms"] / r["fftw_mpi_ms"])
            assert len(r["fftw_mpi_modes"]) == 4
            totals = {m["mode"]: m["forward_median_ms"] + m["backward_median_ms"]
                      for m in r["fftw_mpi_modes"]}
            # The fastest by the bench's exact medians; the JSON rounds them to 6 digits, so a
            # near tie may order differently here.
            assert totals[r["fftw_mpi_mode"]] <= min(totals.values()) * (1 + 1e-5) + 1e-9
        ratios = [r["ratio"] for r in cell["rounds"]]
        assert cell["ratio_min"] == min(ratios) and cell["ratio_max"] == max(ratios)
    assert set(report["not_run"]) == {"mpi4py-fft", "dtFFT", "heFFTe"}
    table = capsys.readouterr().out
    assert "c2c double 8^3" in table and "not run: heFFTe" in table


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        peer_matrix.main(["--rounds", "0"])
    assert "--rounds, --iters, --sizes and --np take positive integers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        peer_matrix.main(["--bench", "/nonexistent/volfft-bench"])
    assert "--bench: no volfft-bench at /nonexistent/volfft-bench" in capsys.readouterr().err
