"""benchmarks/peer_matrix.py on a tiny matrix: it runs every cell in every round, and its table
and JSON hold what the bench measured (ratios are volfft / FFTW-MPI's fastest mode). The optional
peers (heFFTe through HEFFTE_SPEED3D_DIR, dtFFT through DTFFT_PYTHON, mpi4py-fft through
MPI4PY_FFT_PYTHON) are checked with fakes that print what the real programs print, so this runs
without them."""
from __future__ import annotations

import json
import os
import stat
import sys

import pytest

import peer_matrix  # benchmarks/, on sys.path by conftest.py


def run_matrix(argv):
    """peer_matrix.main(argv); skipped where this volfft-bench has no FFTW-MPI peer."""
    try:
        return peer_matrix.main(argv)
    except RuntimeError as error:
        if "built without FFTW-MPI" in str(error):
            pytest.skip("this volfft-bench has no FFTW-MPI peer (MPICH build: docs/mpich.md)")
        raise


def test_tiny_matrix(tmp_path, capsys, bench_driver, monkeypatch):
    monkeypatch.delenv("HEFFTE_SPEED3D_DIR", raising=False)
    monkeypatch.delenv("DTFFT_PYTHON", raising=False)
    monkeypatch.delenv("MPI4PY_FFT_PYTHON", raising=False)
    out = tmp_path / "m.json"
    code = run_matrix(["--kinds", "c2c", "r2c", "--sizes", "8", "--np", "1", "2",
                      "--rounds", "2", "--iters", "2", "--timeout", "120",
                      "--bench", bench_driver, "--out", str(out),
                      "--plot", str(tmp_path / "m.png")])
    assert code == 0
    assert (tmp_path / "m.png").stat().st_size > 5000  # the bar chart of the ratios
    report = json.loads(out.read_text())
    assert [s[0] for s in peer_matrix.plot_series(report["cells"])] == [
        "volfft default / FFTW-MPI", "volfft in place / FFTW-MPI"]  # no peer ran
    cells = report["cells"]
    assert [(c["kind"], c["n"], c["np"]) for c in cells] == [
        ("c2c", 8, 1), ("c2c", 8, 2), ("r2c", 8, 1), ("r2c", 8, 2)]
    for cell in cells:
        assert len(cell["rounds"]) == 2
        for r in cell["rounds"]:
            # The default's ratio is from the iterations volfft shared with FFTW-MPI's fastest
            # mode (volfft-bench's companion times), not from volfft's own loop.
            assert r["volfft_same_iterations_ms"] > 0
            assert r["ratio"] == pytest.approx(r["volfft_same_iterations_ms"] / r["fftw_mpi_ms"])
            assert r["ratio_in_place"] == pytest.approx(r["volfft_in_place_ms"] / r["fftw_mpi_ms"])
            assert len(r["fftw_mpi_modes"]) == 4
            totals = {m["mode"]: m["forward_median_ms"] + m["backward_median_ms"]
                      for m in r["fftw_mpi_modes"]}
            # The fastest by the bench's exact medians; the JSON rounds them to 6 digits, so a
            # near tie may order differently here.
            assert totals[r["fftw_mpi_mode"]] <= min(totals.values()) * (1 + 1e-5) + 1e-9
            assert r["volfft_best_ms"] == min(r["volfft_ms"], r["volfft_in_place_ms"])
            assert r["heffte_ms"] is None and r["ratio_heffte"] is None
            assert r["dtfft_ms"] is None and r["ratio_dtfft"] is None
            assert r["mpi4py_fft_ms"] is None and r["ratio_mpi4py_fft"] is None
        ratios = [r["ratio"] for r in cell["rounds"]]
        assert cell["ratio_min"] == min(ratios) and cell["ratio_max"] == max(ratios)
        assert cell["ratio_heffte_median"] is None and cell["ratio_dtfft_median"] is None
    assert set(report["not_run"]) == {"mpi4py-fft", "dtFFT", "heFFTe"}
    assert report["not_run"]["heFFTe"].startswith("HEFFTE_SPEED3D_DIR not set")
    assert report["not_run"]["dtFFT"].startswith("DTFFT_PYTHON not set")
    assert report["not_run"]["mpi4py-fft"].startswith("MPI4PY_FFT_PYTHON not set")
    assert report["peers_run"] == []
    table = capsys.readouterr().out
    assert "c2c double 8^3" in table and "not run: heFFTe: HEFFTE_SPEED3D_DIR not set" in table
    assert "not run: dtFFT: DTFFT_PYTHON not set" in table


# What heFFTe's speed3d_c2c prints (rank 0), from a run of heFFTe built with FFTW.
SPEED3D_OUTPUT = """
-----------------------------------------------------------------------------
heFFTe performance test
-----------------------------------------------------------------------------
Backend:   fftw
Size:      128x128x128
MPI ranks:    2
Grids: (1, 1, 2)  -  -  (1, 2, 1)  -
Num runs:     10
Time per run: {seconds} (s)
Performance:  1.17752 GFlops/s
Memory usage: 80MB/rank
Tolerance:    1e-11
Max error:    3.73312e-15

"""


def test_parse_speed3d():
    report = peer_matrix.parse_speed3d(SPEED3D_OUTPUT.format(seconds="0.0187004"))
    assert report["seconds_per_transform"] == pytest.approx(0.0187004)
    assert report["grids"] == "(1, 1, 2)  -  -  (1, 2, 1)  -"
    assert report["max_error"] == pytest.approx(3.73312e-15)
    assert peer_matrix.parse_speed3d(
        SPEED3D_OUTPUT.format(seconds="2.5e-05"))["seconds_per_transform"] == pytest.approx(2.5e-5)
    with pytest.raises(ValueError, match="no 'Time per run'"):
        peer_matrix.parse_speed3d("heFFTe performance test\n")
    with pytest.raises(ValueError, match="no runs"):
        peer_matrix.parse_speed3d(SPEED3D_OUTPUT.format(seconds="0"))
    with pytest.raises(peer_matrix.WrongResult, match="exceeds its tolerance"):
        peer_matrix.parse_speed3d(SPEED3D_OUTPUT.format(seconds="0.01") +
                                  "ERROR: observed error after heFFTe benchmark exceeds the tolerance\n")


def _script(path, text):
    path.write_text(f"#!{sys.executable}\n" + text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


# A fake speed3d: rank 0 prints heFFTe's report; the time depends on the options (-io_pencils
# 5 ms per transform, otherwise 9 ms), so the matrix must keep the faster mode. The arguments are
# logged so the test can check the command line.
FAKE_SPEED3D = """import os, sys
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
if rank == "0":
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\\n")
    seconds = 0.005 if "-io_pencils" in sys.argv else 0.009
    print(TEXT.format(seconds=seconds)%s)
"""

# A fake dtFFT python: `-c "import dtfft, mpi4py"` succeeds; benchmarks/dtfft_peer.py prints its
# JSON (forward 3 ms + backward 4 ms).
FAKE_DTFFT_PYTHON = """import json, os, sys
if sys.argv[1] == "-c":
    sys.exit(0)
assert sys.argv[1].endswith("dtfft_peer.py"), sys.argv
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
if rank == "0":
    mode = {"mode": "dtFFT patient, in-place", "forward_median_ms": 3.0, "backward_median_ms": 4.0}
    print("dtFFT's own log line")
    print(json.dumps({"schema": "volfft-dtfft-peer/1", "ok": True, "modes": [mode], **mode}))
"""

# A fake mpi4py-fft python, the same way (forward 2 ms + backward 3.5 ms); its round trip is
# wrong in r2c cells (ok false), so the matrix has no time for it there and says why.
FAKE_MPI4PY_FFT_PYTHON = """import json, os, sys
if sys.argv[1] == "-c":
    sys.exit(0)
assert sys.argv[1].endswith("mpi4py_fft_peer.py"), sys.argv
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
if rank == "0":
    mode = {"mode": "mpi4py-fft slabs, collapse=True", "forward_median_ms": 2.0, "backward_median_ms": 3.5}
    print(json.dumps({"schema": "volfft-mpi4py-fft-peer/1", "ok": sys.argv[2] == "c2c",
                      "modes": [mode], **mode}))
"""


def test_fake_peers_in_the_matrix(tmp_path, capsys, bench_driver, monkeypatch):
    folder = tmp_path / "heffte"
    folder.mkdir()
    text = f"TEXT = {SPEED3D_OUTPUT!r}\n"
    _script(folder / "speed3d_c2c", text + FAKE_SPEED3D % "")
    # r2c fails its error check: heFFTe has no time there, with the reason, and keeps its c2c cells
    # (the r2c cells come after the c2c ones, and each is tried).
    _script(folder / "speed3d_r2c", text + FAKE_SPEED3D % (
        ' + "ERROR: observed error after heFFTe benchmark exceeds the tolerance"'))
    log = tmp_path / "speed3d.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("HEFFTE_SPEED3D_DIR", str(folder))
    monkeypatch.setenv("DTFFT_PYTHON", _script(tmp_path / "python", FAKE_DTFFT_PYTHON))
    monkeypatch.setenv("MPI4PY_FFT_PYTHON", _script(tmp_path / "python-m4f", FAKE_MPI4PY_FFT_PYTHON))
    out = tmp_path / "m.json"
    code = run_matrix(["--kinds", "c2c", "r2c", "--sizes", "8", "--np", "1", "2",
                      "--rounds", "1", "--iters", "2", "--timeout", "120",
                      "--heffte-modes=-no-reorder, -io_pencils  -a2a",
                      "--bench", bench_driver, "--out", str(out), "--plot", str(tmp_path / "m.png")])
    assert code == 0
    assert (tmp_path / "m.png").stat().st_size > 5000
    report = json.loads(out.read_text())
    # The plot's bars: FFTW-MPI's two ratios and each peer's once.
    assert [s[0] for s in peer_matrix.plot_series(report["cells"])] == [
        "volfft default / FFTW-MPI", "volfft in place / FFTW-MPI", "volfft best / heFFTe",
        "volfft best / dtFFT", "volfft best / mpi4py-fft"]
    assert report["peers_run"] == ["dtFFT", "heFFTe", "mpi4py-fft"]
    assert report["heffte_modes"] == ["-no-reorder", "-io_pencils -a2a"]
    for cell in report["cells"]:
        (r,) = cell["rounds"]
        assert r["dtfft_ms"] == pytest.approx(7.0) and r["dtfft_mode"] == "dtFFT patient, in-place"
        assert r["ratio_dtfft"] == pytest.approx(r["volfft_best_ms"] / 7.0)
        assert cell["ratio_dtfft_median"] == pytest.approx(r["ratio_dtfft"])
        if cell["kind"] == "c2c":
            assert r["mpi4py_fft_ms"] == pytest.approx(5.5)
            assert r["mpi4py_fft_mode"] == "mpi4py-fft slabs, collapse=True"
            assert r["ratio_mpi4py_fft"] == pytest.approx(r["volfft_best_ms"] / 5.5)
            # 2 x 5 ms per transform, the faster of the two modes.
            assert r["heffte_ms"] == pytest.approx(10.0)
            assert r["heffte_mode"] == "-io_pencils -a2a"
            assert [m["ms"] for m in r["heffte_modes"]] == pytest.approx([18.0, 10.0])
            assert r["heffte_modes"][0]["grids"] == "(1, 1, 2)  -  -  (1, 2, 1)  -"
            assert r["ratio_heffte"] == pytest.approx(r["volfft_best_ms"] / 10.0)
            assert cell["heffte_ms_median"] == pytest.approx(10.0)
        else:
            assert r["heffte_ms"] is None and r["ratio_heffte"] is None
            assert r["mpi4py_fft_ms"] is None and r["ratio_mpi4py_fft"] is None
    assert report["not_run"] == {}
    failures = report["peer_failures"]
    assert set(failures) == {"mpi4py-fft", "heFFTe"}
    for name, why in (("mpi4py-fft", "mpi4py-fft's round trip is wrong"), ("heFFTe", "exceeds its tolerance")):
        assert [f.split(":")[0] for f in failures[name]] == ["r2c double 8^3 np 1", "r2c double 8^3 np 2"]
        assert all(why in f for f in failures[name])
    calls = log.read_text().splitlines()
    assert calls[:2] == ["fftw double 8 8 8 -nruns2 -no-reorder",
                         "fftw double 8 8 8 -nruns2 -io_pencils -a2a"]
    assert len(calls) == 2 * 2 + 2  # c2c np 1 and 2, two modes each; each r2c cell fails at once
    table = capsys.readouterr().out
    assert "heFFTe ms" in table and "dtFFT ms" in table and "mpi4py-fft ms" in table
    assert "wrong, no time: heFFTe in r2c double 8^3 np 1:" in table


def test_batch_matrix_times_fftw_mpi_with_howmany(tmp_path, bench_driver, monkeypatch):
    """--batch K: volfft's batch against FFTW-MPI's howmany K in the same job; the one-field
    peers are not run, and say why."""
    monkeypatch.setenv("HEFFTE_SPEED3D_DIR", str(tmp_path))
    monkeypatch.setenv("DTFFT_PYTHON", _script(tmp_path / "python", FAKE_DTFFT_PYTHON))
    monkeypatch.setenv("MPI4PY_FFT_PYTHON", _script(tmp_path / "python-m4f", FAKE_MPI4PY_FFT_PYTHON))
    out = tmp_path / "m.json"
    code = run_matrix(["--kinds", "c2c", "--sizes", "8", "--np", "2", "--rounds", "1",
                      "--iters", "2", "--batch", "3", "--timeout", "120",
                      "--bench", bench_driver, "--out", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["batch"] == 3 and report["peers_run"] == []
    assert report["not_run"]["dtFFT"] == "--batch 3: its driver times one field per call"
    assert report["not_run"]["mpi4py-fft"] == "--batch 3: its driver times one field per call"
    (cell,) = report["cells"]
    (r,) = cell["rounds"]
    assert all("howmany 3" in m["mode"] for m in r["fftw_mpi_modes"]), r["fftw_mpi_modes"]


def test_find_peers(tmp_path):
    found, missing = peer_matrix.find_peers({})
    assert found == {} and set(missing) == {"heFFTe", "dtFFT", "mpi4py-fft"}
    assert "docs/performance.md" in missing["heFFTe"] and "dtfft-fftw-openmpi" in missing["dtFFT"]
    assert "pip install mpi4py-fft" in missing["mpi4py-fft"]
    no_dtfft = _script(tmp_path / "python", "import sys\n"
                       "sys.exit(\"ModuleNotFoundError: No module named 'dtfft'\")\n")
    found, missing = peer_matrix.find_peers({"HEFFTE_SPEED3D_DIR": str(tmp_path),
                                             "DTFFT_PYTHON": no_dtfft})
    assert found == {}
    assert "has no executable speed3d_c2c or speed3d_r2c" in missing["heFFTe"]
    assert missing["dtFFT"].startswith(f"DTFFT_PYTHON={no_dtfft} cannot import dtfft and mpi4py: "
                                       "ModuleNotFoundError: No module named 'dtfft'")
    found, missing = peer_matrix.find_peers({"DTFFT_PYTHON": os.path.join(str(tmp_path), "none")})
    assert "cannot import dtfft and mpi4py" in missing["dtFFT"]
    # One python for both, which has mpi4py_fft but not dtfft: each peer checks its own module.
    only_m4f = _script(tmp_path / "python-m4f", "import sys\n"
                       "if 'dtfft' in sys.argv[-1]:\n"
                       "    sys.exit(\"ModuleNotFoundError: No module named 'dtfft'\")\n")
    found, missing = peer_matrix.find_peers({"DTFFT_PYTHON": only_m4f, "MPI4PY_FFT_PYTHON": only_m4f})
    assert found == {"mpi4py-fft": only_m4f}
    assert missing["dtFFT"].startswith(f"DTFFT_PYTHON={only_m4f} cannot import dtfft and mpi4py")
    found, missing = peer_matrix.find_peers({"MPI4PY_FFT_PYTHON": no_dtfft})
    assert missing["mpi4py-fft"].startswith(f"MPI4PY_FFT_PYTHON={no_dtfft} cannot import mpi4py_fft and mpi4py")


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        peer_matrix.main(["--rounds", "0"])
    assert "--rounds, --iters, --batch, --sizes and --np take positive integers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        peer_matrix.main(["--batch", "0"])
    assert "--batch, --sizes" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        peer_matrix.main(["--bench", "/nonexistent/volfft-bench"])
    assert "--bench: no volfft-bench at /nonexistent/volfft-bench" in capsys.readouterr().err
