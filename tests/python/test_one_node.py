"""benchmarks/one_node.py on a tiny node: every split runs in every round, the 1 x cores job
times FFTW's threaded plan, the cores x 1 job FFTW-MPI, and the ratios are against that round's
FFTW threaded plan."""
from __future__ import annotations

import json

import pytest

import one_node  # benchmarks/, on sys.path by conftest.py


def test_tiny_node(tmp_path, capsys, bench_driver):
    out = tmp_path / "n.json"
    args = ["--kinds", "c2c", "r2c", "--sizes", "8", "--cores", "2", "--rounds", "2",
            "--iters", "2", "--effort", "estimate", "--timeout", "120", "--bench", bench_driver,
            "--out", str(out)]
    try:
        code = one_node.main(args)
    except RuntimeError as error:
        if "built without FFTW-MPI" not in str(error):
            raise
        code = one_node.main(args + ["--no-fftw-mpi"])  # MPICH build: docs/mpich.md
    assert code == 0
    report = json.loads(out.read_text())
    assert report["schema"] == "volfft-one-node/1" and not report["partial"]
    cells = report["cells"]
    assert [(c["kind"], c["ranks"], c["threads"], c["mode"]) for c in cells] == [
        (kind, ranks, threads, mode) for kind in ("c2c", "r2c") for ranks, threads in ((1, 2), (2, 1))
        for mode in ("out-of-place", "in-place")]
    for cell in cells:
        assert len(cell["rounds"]) == 2
        for r in cell["rounds"]:
            assert r["ratio"] == pytest.approx(r["volfft_ms"] / r["fftw_threads_ms"])
            assert r["in_place"] == (cell["mode"] == "in-place")  # the job ran the mode it names
            assert not r["destroy_input"]
        if cell["ranks"] == 1 and cell["mode"] == "out-of-place":  # the job that timed FFTW's threaded plan
            for r in cell["rounds"]:
                modes = r["compare"]["fftw-threads"]["modes"]
                assert len(modes) == 2 and all("2 thread(s)" in m["mode"] for m in modes)
                assert r["fftw_threads_ms"] == pytest.approx(
                    one_node.total_ms(r["compare"]["fftw-threads"]))
    table = capsys.readouterr().out
    assert "c2c double 8^3" in table and "2x1" in table and "in-place" in table


def test_destroy_input_mode(tmp_path, bench_driver):
    """--modes destroy-input runs volfft-bench --destroy-input (its JSON says so) and keeps the
    ratio against FFTW's threaded plan, timed in that mode's job as the first mode."""
    out = tmp_path / "d.json"
    code = one_node.main(["--kinds", "r2c", "--sizes", "8", "--cores", "2", "--splits", "1x2",
                          "--modes", "destroy-input", "--iters", "2", "--effort", "estimate",
                          "--timeout", "120", "--bench", bench_driver, "--out", str(out)])
    assert code == 0
    (cell,) = json.loads(out.read_text())["cells"]
    assert cell["mode"] == "destroy-input"
    (r,) = cell["rounds"]
    assert r["destroy_input"] and not r["in_place"]
    assert r["ratio"] == pytest.approx(r["volfft_ms"] / r["fftw_threads_ms"])


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        one_node.main(["--splits", "2by8"])
    assert "--splits" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        one_node.main(["--bench", "/nonexistent/volfft-bench"])
    assert "no volfft-bench" in capsys.readouterr().err
