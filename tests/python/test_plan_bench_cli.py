"""`volfft bench`: driver lookup, the mpirun command line, pass-through, JSON, the stacked plot.

A stand-in driver (a small Python script) makes these tests independent of the C++ build; one
test runs the real volfft-bench when it is built.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import sys
import textwrap

import pytest

import volfft
from volfft import _launch, bench_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = shutil.which("mpirun")

FAKE_DRIVER = textwrap.dedent('''\
    #!{python}
    """Stand-in for volfft-bench: echoes its arguments, writes the JSON schema's essentials."""
    import json, sys
    args = sys.argv[1:]
    print("fake-bench args: " + " ".join(args))
    if "--fail" in args:
        sys.exit(3)
    if "--json" in args:
        report = {{
            "config": {{"kind": args[0], "precision": args[1], "shape": [8, 8, 8], "ranks": 2,
                        "grid": [2, 1]}},
            "forward": {{"median_ms": 3.0, "phases": [{{"name": "fft21", "ms": 1.0}},
                                                     {{"name": "exchange_column", "ms": 2.0}}]}},
            "backward": {{"median_ms": 3.5, "phases": [{{"name": "exchange_column", "ms": 2.5}},
                                                      {{"name": "fft12", "ms": 1.0}}]}},
            "compare": {{"fftw-mpi": {{"forward_median_ms": 2.9, "backward_median_ms": 3.1}}}},
        }}
        with open(args[args.index("--json") + 1], "w") as f:
            json.dump(report, f)
''')


@pytest.fixture
def fake_driver(tmp_path):
    path = tmp_path / "volfft-bench"
    path.write_text(FAKE_DRIVER.format(python=sys.executable))
    path.chmod(0o755)
    return str(path)


def run_cli(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_"))}
    # (conftest.py has put python/ on PYTHONPATH when volfft is not installed)
    env.update(env_extra or {})
    return _launch.run_job([sys.executable, "-m", "volfft", "bench", *args], timeout=180, env=env,
                           cwd=ROOT)


def test_launch_command_per_mpi_flavor():
    assert _launch.launch_command(4, ["volfft-bench", "c2c"], "mpirun", "openmpi") == [
        "mpirun", "-n", "4", "--oversubscribe", "--bind-to", "none", "volfft-bench", "c2c"]
    assert _launch.launch_command(3, ["volfft-bench"], "mpiexec", "mpich") == [
        "mpiexec", "-n", "3", "volfft-bench"]
    with pytest.raises(ValueError, match="nprocs"):
        _launch.launch_command(0, ["volfft-bench"], "mpirun", "openmpi")


@pytest.mark.parametrize("version,flavour", [
    ("mpirun (Open MPI) 4.1.4\n", "openmpi"), ("mpirun (OpenRTE) 1.6\n", "openmpi"),
    ("HYDRA build details:\n    Version: 4.0.2\n", "mpich"),
    ("Intel(R) MPI Library for Linux* OS, Version 2021\n", "mpich"), ("something else\n", "unknown")])
def test_mpi_flavour_from_version_text(tmp_path, version, flavour):
    fake = tmp_path / "mpirun"
    fake.write_text(f"#!/bin/sh\nprintf '{version}'\n")
    fake.chmod(0o755)
    assert _launch.mpi_flavour(str(fake)) == flavour
    assert _launch.mpi_flavour(str(tmp_path / "missing")) == "unknown"


def test_open_mpi_as_root_is_allowed_through_its_environment(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.delenv("OMPI_ALLOW_RUN_AS_ROOT", raising=False)
    env = _launch.launch_environment("openmpi")
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == "1" and env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    assert "OMPI_ALLOW_RUN_AS_ROOT" not in _launch.launch_environment("mpich")


def test_find_driver_order(fake_driver, monkeypatch):
    monkeypatch.setenv("VOLFFT_BENCH", fake_driver)
    assert bench_cli.find_driver() == fake_driver
    monkeypatch.setenv("VOLFFT_BENCH", "/nonexistent/volfft-bench")
    monkeypatch.setenv("PATH", "/nonexistent")
    if os.path.exists(os.path.join(os.path.dirname(bench_cli.__file__), "bin", "volfft-bench")):
        pytest.skip("an installed volfft-bench inside the package would be found")
    with pytest.raises(FileNotFoundError, match=r"cannot find the volfft-bench executable; "
                                                r"searched --bench \(not set\), \$VOLFFT_BENCH"):
        bench_cli.find_driver()


def test_missing_driver_is_reported():
    result = run_cli("-n", "1", "c2c", "double", "8", "8", "8", "--bench", "/nonexistent",
                     env_extra={"VOLFFT_BENCH": "/nonexistent", "PATH": os.path.dirname(sys.executable)})
    if "searched" not in result.stderr:
        pytest.skip("a volfft-bench installed inside the package is found first")
    assert result.returncode == 2
    assert "cannot find the volfft-bench executable" in result.stderr


def test_arguments_are_required():
    result = run_cli("-n", "2")
    assert result.returncode == 2
    assert "expected the volfft-bench arguments" in result.stderr


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
def test_bench_passes_arguments_and_plots(fake_driver, tmp_path):
    png = tmp_path / "phases.png"
    result = run_cli("-n", "2", "--bench", fake_driver, "c2c", "double", "8", "8", "8",
                     "--grid", "2x1", "--plot", str(png))
    assert result.returncode == 0, result.stdout + result.stderr
    # One line per rank. Counted, not split into lines: MPICH's launcher may forward the two
    # ranks' output without a line break between them.
    assert result.stdout.count("fake-bench args: c2c double 8 8 8 --grid 2x1 --json ") == 2, result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    height, width = matplotlib.image.imread(str(png)).shape[:2]
    assert width > 300 and height > 200


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
def test_user_json_is_kept_and_driver_failure_is_passed_on(fake_driver, tmp_path):
    report = tmp_path / "mine.json"
    result = run_cli("--bench", fake_driver, "r2c", "float", "8", "8", "--json", str(report),
                     "--plot", str(tmp_path / "p.png"))
    assert result.returncode == 0, result.stderr
    assert json.loads(report.read_text())["config"]["kind"] == "r2c"
    failed = run_cli("--bench", fake_driver, "c2c", "double", "8", "8", "--fail")
    assert failed.returncode == 3 and "exited with status 3" in failed.stderr


def test_plot_bars_have_the_height_of_their_label(tmp_path):
    pytest.importorskip("matplotlib")
    # Phase medians summing to 10 ms while the call's median is 8 ms: the bar is 8 ms tall, as
    # its label says, split in the phases' shares; the hidden (overlapped) phase adds nothing.
    report = {"forward": {"median_ms": 8.0, "phases": [{"name": "fft2", "ms": 4.0},
                                                       {"name": "exchange_row", "ms": 6.0},
                                                       {"name": "hidden_row", "ms": 3.0}]},
              "backward": {"median_ms": 5.0, "phases": [{"name": "fft2", "ms": 5.0}]}}
    heights = bench_cli.plot_phases(report, str(tmp_path / "p.png"))
    assert heights == pytest.approx({"forward": 8.0, "backward": 5.0})


def test_missing_matplotlib_is_found_before_the_benchmark_runs(fake_driver, tmp_path):
    blocker = tmp_path / "no_matplotlib"
    blocker.mkdir()
    (blocker / "matplotlib.py").write_text("raise ImportError('matplotlib is not installed')\n")
    path = os.pathsep.join(p for p in [str(blocker), os.environ.get("PYTHONPATH", "")] if p)
    result = run_cli("-n", "1", "--bench", fake_driver, "c2c", "double", "8", "8", "8",
                     "--plot", str(tmp_path / "p.png"), env_extra={"PYTHONPATH": path})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "needs matplotlib" in result.stderr
    assert "fake-bench args:" not in result.stdout  # the driver never ran


def test_plot_without_phases_is_an_error(tmp_path):
    with pytest.raises(ValueError, match=r"the driver's JSON holds no phases to plot"):
        bench_cli.plot_phases({"config": {}}, str(tmp_path / "x.png"))


def _built_driver():
    try:
        return bench_cli.find_driver()
    except FileNotFoundError:
        built = glob.glob(os.path.join(ROOT, "build*", "benchmarks", "volfft-bench"))
        return built[0] if built else None


@pytest.mark.skipif(MPIRUN is None or _built_driver() is None,
                    reason="needs mpirun and a built volfft-bench")
def test_real_driver(tmp_path):
    png = tmp_path / "real.png"
    result = run_cli("-n", "2", "--bench", _built_driver(), "--timeout", "120", "c2c", "double",
                     "12", "10", "8", "--grid", "2x1", "--iters", "2", "--effort", "estimate",
                     "--plot", str(png))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verify:" in result.stdout and "OK" in result.stdout
    assert png.stat().st_size > 1000


@pytest.mark.skipif(MPIRUN is None or _built_driver() is None,
                    reason="needs mpirun and a built volfft-bench")
def test_every_engine_of_the_library_is_in_help_and_in_engine_all():
    """The driver's engine list comes from the library's catalogue: none missing, none extra."""
    names = volfft.plan_options()["engine"]["names"]
    shown = _launch.run_job([_built_driver(), "--help"], timeout=60)
    help_text = shown.stdout + shown.stderr
    assert "--engine " + "|".join(names) + "|all]" in help_text, help_text
    result = run_cli("-n", "2", "--bench", _built_driver(), "--timeout", "120", "c2c", "double", "8", "6", "5",
                     "--engine", "all", "--iters", "1", "--effort", "estimate")
    assert result.returncode == 0, result.stdout + result.stderr
    for engine in names[1:]:  # every engine but "auto": measured, or skipped with its reason
        assert re.search(rf"\b{engine}\b", result.stdout), engine


@pytest.mark.skipif(MPIRUN is None, reason="mpirun is not on PATH")
def test_timeout_stops_the_run(tmp_path):
    slow = tmp_path / "volfft-bench"
    slow.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    slow.chmod(0o755)
    result = run_cli("--bench", str(slow), "--timeout", "3", "c2c", "double", "8", "8")
    assert result.returncode == 124 and "stopped after 3.0 s (--timeout)" in result.stderr


@pytest.mark.skipif(_built_driver() is None or not hasattr(os, "sched_setaffinity"),
                    reason="needs a built volfft-bench and Linux CPU affinity")
def test_driver_warns_when_threads_share_a_core():
    """--threads 2 on a rank pinned to one core (Open MPI pins 1- and 2-rank jobs) changes
    nothing; the driver says so, and how to launch instead."""
    env = _launch.launch_environment("openmpi")
    driver = [_built_driver(), "c2c", "double", "8", "8", "8", "--threads", "2", "--iters", "1",
              "--effort", "estimate"]
    # The driver, pinned to one core, through an interpreter that pins itself and then becomes
    # the driver (run_job: a singleton's MPI runtime may start a process of its own).
    pin_and_exec = ("import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
                    "os.execv(sys.argv[1], sys.argv[1:])")
    result = _launch.run_job([sys.executable, "-c", pin_and_exec, *driver], timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"warning: 2 thread\(s\) per rank, but a rank may run on 1 core\(s\) only "
                     r"\(its CPU affinity\).*`mpirun --bind-to none`.*--map-by slot:PE=2",
                     result.stdout), result.stdout


@pytest.mark.skipif(MPIRUN is None or _built_driver() is None,
                    reason="needs mpirun and a built volfft-bench")
def test_fftw_mpi_peer_runs_in_every_mode_and_the_fastest_is_compared(tmp_path):
    out = tmp_path / "peer.json"
    command, env = _launch.launch(2, [_built_driver(), "r2c", "double", "16", "12", "10",
                                      "--iters", "3", "--effort", "estimate", "--compare",
                                      "fftw-mpi", "--json", str(out)], MPIRUN)
    result = _launch.run_job(command, timeout=180, env=env)
    if "built without FFTW-MPI" in result.stdout + result.stderr:
        # An MPI without FFTW-MPI (MPICH beside Debian's Open MPI FFTW-MPI: docs/mpich.md).
        pytest.skip("this volfft-bench was built without FFTW-MPI (VOLFFT_BENCH_FFTW_MPI=OFF)")
    assert result.returncode == 0, result.stdout + result.stderr
    peer = json.loads(out.read_text())["compare"]["fftw-mpi"]
    modes = peer["modes"]
    assert sorted(m["mode"] for m in modes) == sorted(
        f"FFTW-MPI slab, {place}, {order}" for place in ("out-of-place", "in-place")
        for order in ("TRANSPOSED_OUT/IN", "natural order"))
    assert all(m["forward_median_ms"] > 0 and m["backward_median_ms"] > 0 for m in modes)
    # FFTW's account of each plan that ran (fftw_sprint_plan): its MPI solvers, quotes and
    # newlines of the text kept through the JSON.
    for m in modes:
        for key in ("fftw_plan_forward", "fftw_plan_backward"):
            assert m[key].startswith("(mpi-") and m[key].endswith(")"), (m["mode"], key, m[key])
    assert any("\n" in m["fftw_plan_forward"] for m in modes)
    totals = {m["mode"]: m["forward_median_ms"] + m["backward_median_ms"] for m in modes}
    # The fastest by the bench's exact medians (the JSON rounds them to 6 digits: a near tie
    # may order differently here).
    assert totals[peer["mode"]] <= min(totals.values()) * (1 + 1e-5) + 1e-9
    assert "<- fastest" in result.stdout and "(its fastest mode, same iterations)" in result.stdout
    # volfft timed in each mode's own iterations, and the ratios from those times.
    assert all(m["volfft_forward_median_ms"] > 0 and m["volfft_backward_median_ms"] > 0 for m in modes)
    volfft_ms = peer["volfft_forward_median_ms"] + peer["volfft_backward_median_ms"]
    assert peer["ratio_total"] == pytest.approx(volfft_ms / totals[peer["mode"]], rel=1e-4)
    assert peer["ratio_forward"] == pytest.approx(peer["volfft_forward_median_ms"] / peer["forward_median_ms"],
                                                  rel=1e-4)


@pytest.mark.skipif(MPIRUN is None or _built_driver() is None,
                    reason="needs mpirun and a built volfft-bench")
@pytest.mark.parametrize("extra", [["--batch", "3"], ["--batch", "2", "--batch-layout", "inner"],
                                   ["--batch", "2", "--in-place"], ["--in-place"],
                                   ["--kinds", "dct2,dft,r2c"]], ids=" ".join)
def test_batch_in_place_and_kinds_are_verified(tmp_path, extra):
    """--batch/--in-place/--kinds plans pass the bench's own checks; --batch also times K
    single-field calls in the same iterations and reports the ratio."""
    out = tmp_path / "b.json"
    command, env = _launch.launch(2, [_built_driver(), "r2c", "double", "12", "10", "8", "--iters", "2",
                                      "--effort", "estimate", "--json", str(out), *extra], MPIRUN)
    result = _launch.run_job(command, timeout=180, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["verify"]["ok"]
    batch = int(extra[extra.index("--batch") + 1]) if "--batch" in extra else 1
    assert report["config"]["batch"] == batch and report["config"]["in_place"] == ("--in-place" in extra)
    if batch > 1:
        assert report["batch_single"]["calls"] == batch
        assert re.search(r"ratio batch/\d calls: [0-9.]+", result.stdout)
    else:
        assert "batch_single" not in report


@pytest.mark.skipif(MPIRUN is None or _built_driver() is None,
                    reason="needs mpirun and a built volfft-bench")
@pytest.mark.parametrize("problem", [["c2c", "double", "6", "5", "4", "3"],
                                     ["r2r", "double", "6", "5", "4", "3", "2", "--kinds", "dct2,dst2,dct1,dct2,none"]],
                         ids=lambda p: p[0])
def test_more_than_three_sizes_are_checked_by_their_round_trip(tmp_path, problem):
    """volfft-bench of a 4-D and a 5-D plan: the round trip passes and the report says the
    forward is not checked; --batch is refused for them."""
    out = tmp_path / "nd.json"
    command, env = _launch.launch(2, [_built_driver(), *problem, "--iters", "2", "--effort", "estimate",
                                      "--json", str(out)], MPIRUN)
    result = _launch.run_job(command, timeout=180, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["verify"]["ok"] and report["config"]["shape"] == [int(n) for n in problem[2:] if n.isdigit()]
    assert "forward not checked" in result.stdout
    command, env = _launch.launch(1, [_built_driver(), *problem, "--batch", "2"], MPIRUN)
    refused = _launch.run_job(command, timeout=60, env=env)
    assert refused.returncode != 0 and "--batch takes 2 or 3 sizes" in refused.stdout + refused.stderr
