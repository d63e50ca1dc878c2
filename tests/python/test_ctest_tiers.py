"""scripts/ctest-tiers.py, the test runner of scripts/test.sh: its tiers and order, its chunks,
and on a small CMake project of its own, that the smoke tier runs past the deadline, that the
rest is named as left out (not failed), and that a failing test fails the run."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "ctest-tiers.py")

_spec = importlib.util.spec_from_file_location("ctest_tiers", SCRIPT)
tiers_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tiers_module)
Entry = tiers_module.Test  # not "Test": pytest would try to collect it


def test_tiers_by_label_then_ranks_in_registration_order():
    tests = [Entry("big_np4", {"mpi"}, 4, 300.0), Entry("unit", {"unit", "smoke"}, 1, 60.0),
             Entry("forced_np2", {"mpi", "forced"}, 2, 120.0), Entry("np1", {"mpi"}, 1, 300.0),
             Entry("smoke_np2", {"mpi", "smoke"}, 2, 300.0), Entry("np2", {"mpi"}, 2, 300.0),
             Entry("install", {"install"}, 2, 600.0), Entry("np1_later", {"mpi"}, 1, 300.0)]
    names = [[t.name for t in tier] for tier in tiers_module.tiers(tests)]
    assert names == [["unit", "smoke_np2"], ["np1", "np1_later", "np2", "big_np4"],
                     ["forced_np2", "install"]]


def test_chunks_of_size_and_long_tests_alone():
    tests = [Entry(n, set(), 1, t) for n, t in
             [("a", 60.0), ("b", None), ("long", 900.0), ("c", 60.0), ("d", 60.0), ("e", 60.0)]]
    assert list(tiers_module.chunks(tests, 2)) == [["a", "b"], ["long"], ["c", "d"], ["e"]]


PROJECT = """cmake_minimum_required(VERSION 3.16)
project(tiers NONE)
enable_testing()
add_test(NAME smoke_ok COMMAND true)
set_tests_properties(smoke_ok PROPERTIES LABELS "unit;smoke")
add_test(NAME tier1_fails COMMAND false)
add_test(NAME tier1_ok COMMAND true)
add_test(NAME tier2_ok COMMAND true)
set_tests_properties(tier2_ok PROPERTIES LABELS install)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    if shutil.which("cmake") is None or shutil.which("ctest") is None:
        pytest.skip("cmake/ctest not on PATH (scripts/install-deps.sh installs them)")
    src = tmp_path_factory.mktemp("tiers")
    (src / "CMakeLists.txt").write_text(PROJECT)
    subprocess.run(["cmake", "-S", str(src), "-B", str(src / "b")], check=True,
                   capture_output=True)
    return str(src / "b")


def run_tiers(build_dir, *args):
    return subprocess.run([sys.executable, SCRIPT, build_dir, *args], capture_output=True,
                          text=True, timeout=300)


def test_a_failing_test_fails_the_run_and_is_named(project):
    run = run_tiers(project)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "4 of 4 tests ran, 1 failed" in run.stdout
    assert "ctest-tiers: failed: tier1_fails" in run.stdout


def test_past_the_deadline_only_the_smoke_tier_runs(project):
    run = run_tiers(project, "--start-by", "1")  # 1970: long past
    assert run.returncode == 0, run.stdout + run.stderr  # the failing test did not run
    assert "1 of 4 tests ran, 0 failed" in run.stdout
    assert "3 tests left out because the run's deadline passed" in run.stdout
    assert "ctest -R '^(tier1_fails|tier1_ok|tier2_ok)$'" in run.stdout


def test_bad_chunk_is_refused(project):
    run = run_tiers(project, "--chunk", "0")
    assert run.returncode == 2
    assert "--chunk: expected a positive number of tests, got 0" in run.stderr
