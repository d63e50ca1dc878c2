"""--report-only of every cluster experiment: without an earlier run in --out it stops with what
to do (not a traceback); with one it reads what that run wrote. Pure: no root, no cluster."""
from __future__ import annotations

import importlib
import json

import pytest

from benchmarks.cluster import experiment as X

EXPERIMENTS = ["exp_fig1", "exp_floor", "exp_beowulf2d", "exp_torus_fft"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_report_only_without_an_earlier_run_says_so(name, tmp_path):
    main = importlib.import_module(f"benchmarks.cluster.{name}").main
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path), "--report-only"])
    assert "--report-only: no readable results.json in" in str(stop.value.code)
    assert str(tmp_path) in str(stop.value.code)


def test_earlier_results_reads_what_a_run_wrote(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"rows": [{"hosts": 4}]}))
    assert X.earlier_results(tmp_path) == {"rows": [{"hosts": 4}]}
    (tmp_path / "results.json").write_text("{ cut short")
    with pytest.raises(SystemExit):
        X.earlier_results(tmp_path)
