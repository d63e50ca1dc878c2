"""Smoke tests of ``volfft model`` (no MPI: calibrate is tested up to its mpirun command line,
and its timeout with a fake launcher)
and of the paper reproduction ``python3 -m benchmarks.model.validate``.

Descriptions come from the test fixture (``--describe test_model_describe_fixture:describe``) so
these run without the compiled core.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from volfft.model import Machine, load_machine
from volfft.model.calibrate import launch_command, machine_from_measurements
from volfft.model.cli import main

from benchmarks.model import validate

FIXTURE = "test_model_describe_fixture:describe"


def test_validate_prints_table1_and_the_appendix(capsys, tmp_path):
    assert validate.main(["--describe", FIXTURE, "--sizes", "64", "--plots", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "24 of 24 m_i values reproduced exactly" in out
    assert "Table 2 (rows)" in out and "Table 3 (columns)" in out
    entries = [l for l in out.splitlines() if "64^3" in l and l[:3] in ("CO ", "VN ")]
    assert len(entries) == 20  # ten cases x rows and columns
    assert "Fig. 1" in out
    assert (tmp_path / "jagode2008_rows_64.png").stat().st_size > 0
    assert (tmp_path / "links_64cube_rows_all-paths.png").stat().st_size > 0


def test_the_package_leaves_the_paper_reproduction_out():
    # volfft and volfft.model (CLI included) never import the reproduction under benchmarks/.
    code = ("import sys, volfft, volfft.model, volfft.model.cli; "
            "print([m for m in sys.modules if 'paper_data' in m or m.endswith('validate')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(__file__)).stdout
    assert out.strip() == "[]"
    with pytest.raises(SystemExit):
        main(["validate"])


def test_rank_writes_the_best_placement(capsys, tmp_path):
    # [Jagode2008]'s case: 8x8x8 torus, rows of 8. The default puts a row on a Z ring (m = 4) and
    # its columns on XY planes (m = 4); 2x2x2 cubes give rows m = 2, columns m = 4: first.
    out_map = tmp_path / "best.map"
    assert main(["rank", "--describe", FIXTURE, "--torus", "8x8x8", "--grid", "64x8",
                 "--shape", "256", "256", "256", "--simulate-top", "3", "--no-tilts", "--out",
                 str(out_map)]) == 0
    text = capsys.readouterr().out
    ranked = [l.split() for l in text.splitlines() if l[:3].strip().isdigit()]
    assert ranked[0][1:4] == ["rows", "on", "2x2x2"]
    assert any(r[1] == "default" for r in ranked)
    lines = out_map.read_text().splitlines()
    assert len(lines) == 512 and all(len(line.split()) == 4 for line in lines)
    # The map file is the 2x2x2 placement: ranks 0..7 (row 0) fill one 2x2x2 block.
    block = np.array([[int(v) for v in line.split()[:3]] for line in lines[:8]])
    assert (block.max(axis=0) - block.min(axis=0)).tolist() == [1, 1, 1]


def write_machine(tmp_path) -> str:
    machine = Machine(name="test node", dims=(1,), wrap=(False,), tasks_per_node=2,
                      memory_bandwidth=4e9, fft_rate=5e8, intranode_bandwidth=8e9,
                      message_latency=1e-6, cores_per_node=2)
    return str(machine.save(tmp_path / "machine.json"))


def test_predict_beside_measured(capsys, tmp_path):
    bench = {"forward": {"median_ms": 2.0, "phases": [
        {"name": "fft2", "ms": 0.5}, {"name": "pack_row", "ms": 0.2},
        {"name": "exchange_row", "ms": 0.3}, {"name": "unpack_row", "ms": 0.2},
        {"name": "fft10", "ms": 0.8}]}}
    (tmp_path / "bench.json").write_text(json.dumps(bench))
    out_json = tmp_path / "pred.json"
    # 4 ranks on a machine calibrated with 2: predict puts them all on the one node.
    assert main(["predict", "--describe", FIXTURE, "--machine", write_machine(tmp_path),
                 "--shape", "32", "32", "32", "--grid", "2x2", "--measured",
                 str(tmp_path / "bench.json"), "--plot", str(tmp_path / "bars.png"),
                 "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert "exchange row" in text and "measured ms" in text
    data = json.loads(out_json.read_text())
    assert data["total_s"] == pytest.approx(sum(p["seconds"] for p in data["phases"]))
    assert (tmp_path / "bars.png").stat().st_size > 0


def test_this_machine_preset(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("VOLFFT_MACHINE", write_machine(tmp_path))
    assert main(["predict", "--describe", FIXTURE, "--machine", "this", "--shape", "16", "16",
                 "--grid", "2x1"]) == 0
    assert "test node" in capsys.readouterr().out
    monkeypatch.setenv("VOLFFT_MACHINE", str(tmp_path / "missing.json"))
    assert main(["predict", "--describe", FIXTURE, "--machine", "this", "--shape", "16", "16",
                 "--grid", "2x1"]) == 2
    assert "volfft model calibrate" in capsys.readouterr().err


def test_predict_with_a_map_file(capsys, tmp_path):
    coords = np.stack(np.unravel_index(np.arange(8), (2, 2, 2)), axis=1)
    np.savetxt(tmp_path / "p.map", coords, fmt="%d")
    assert main(["predict", "--describe", FIXTURE, "--machine", "bluegene-l", "--torus",
                 "2x2x2", "--shape", "16", "16", "16", "--grid", "2x4", "--placement",
                 str(tmp_path / "p.map"), "--estimator", "bisection"]) == 0
    assert "total" in capsys.readouterr().out


def test_errors_are_messages_not_tracebacks(capsys):
    assert main(["predict", "--describe", "no_such_module:describe", "--machine",
                 "bluegene-l", "--shape", "8", "8", "8", "--grid", "2x2"]) == 2
    assert "no_such_module" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["rank", "--grid", "8", "--shape", "8"])


def test_calibrate_command_line_for_open_mpi_and_mpich():
    cmd, env = launch_command(64, ["out.json"], flavour="openmpi")
    assert cmd[:3] == ["mpirun", "-n", "64"] and "--oversubscribe" in cmd
    assert cmd[-2].endswith("calibration_script.py") and cmd[-1] == "out.json"
    if os.geteuid() == 0:
        assert env["OMPI_ALLOW_RUN_AS_ROOT"] == "1"
    cmd, _ = launch_command(2, ["out.json"], mpirun="mpiexec", flavour="mpich")
    assert cmd[:3] == ["mpiexec", "-n", "2"] and "--oversubscribe" not in cmd
    with pytest.raises(ValueError, match="nprocs"):
        launch_command(0, [])


def test_machine_from_calibration_measurements(tmp_path):
    data = {"ranks": 2, "host": "h", "latency_s": 5e-7, "pingpong_bandwidth": 1e10,
            "alltoall_bandwidth": 2e10, "memcpy_bandwidth": 6e9, "transpose_bandwidth": 3e9,
            "cores": 2,
            "fft_rate_by_length": {"64": 4e8, "1024": 8e8}}
    machine = machine_from_measurements(data)
    assert machine.nodes == 1 and machine.tasks_per_node == 2
    assert machine.intranode_bandwidth == 2e10 and machine.message_latency == 5e-7
    assert machine.fft_rate_for(1024) == 8e8
    assert machine.memory_bandwidth == 3e9  # pack/unpack priced at the transposing copy
    path = machine.save(tmp_path / "m.json")
    assert load_machine(path) == machine
    # Measured by 4 ranks on 2 cores: per-rank rates hold half a core; the machine stores
    # per-core rates (the model divides by the oversubscription itself).
    shared = machine_from_measurements({**data, "ranks": 4})
    assert shared.memory_bandwidth == 6e9 and shared.fft_rate_for(64) == 8e8


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the job's process tree is read from Linux's /proc")
def test_calibrate_past_its_timeout_stops_the_whole_job(tmp_path):
    """A calibration that runs past --timeout fails with the reason and leaves no rank behind:
    a fake launcher starts a 'rank' in a session of its own that ignores SIGTERM (as Open MPI's
    ranks sit in process groups of their own), which killing the launcher alone would orphan."""
    from volfft import _launch
    from volfft.model.calibrate import run_calibration

    pid_file = tmp_path / "rank.pid"
    launcher = tmp_path / "mpirun"
    launcher.write_text(
        f"#!{sys.executable}\n"
        "import signal, subprocess, sys, time\n"
        "if '--version' in sys.argv:\n"
        "    sys.exit(0)\n"
        "rank = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'], start_new_session=True)\n"
        f"open({str(pid_file)!r}, 'w').write(str(rank.pid))\n"
        "time.sleep(120)\n")
    launcher.chmod(0o755)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="did not finish within 10"):
        run_calibration(tmp_path / "machine.json", mpirun=str(launcher), timeout=10)
    # Killing the launcher alone would also wait for the rank, which holds the output pipe.
    assert time.monotonic() - start < 60
    rank = int(pid_file.read_text())
    fields = _launch._stat_fields(rank)
    assert fields is None or fields[0] == "Z", f"rank {rank} left running after the timeout"


def test_bad_files_and_counts_are_messages_not_tracebacks(capsys, tmp_path):
    args = ["predict", "--describe", FIXTURE, "--machine", "bluegene-l", "--torus", "2x2x2",
            "--shape", "16", "16", "16", "--grid", "2x4"]
    # --measured: missing file, not JSON, not a volfft-bench file.
    assert main(args + ["--measured", str(tmp_path / "missing.json")]) == 2
    assert "--measured" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    assert main(args + ["--measured", str(tmp_path / "bad.json")]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    (tmp_path / "empty.json").write_text("{}")
    assert main(args + ["--measured", str(tmp_path / "empty.json")]) == 2
    err = capsys.readouterr().err
    assert "volfft-bench" in err and "forward" in err
    # An output that cannot be written.
    assert main(args + ["--json", str(tmp_path / "no" / "dir" / "p.json")]) == 1
    assert "p.json" in capsys.readouterr().err
    # --tasks-per-node 0 is refused, not read as "the preset's default".
    with pytest.raises(SystemExit):
        main(args + ["--tasks-per-node", "0"])
    assert "--tasks-per-node" in capsys.readouterr().err


def test_shape_takes_two_or_three_extents(capsys):
    # The description of a plan of more axes lists the FFTs of its first three only.
    assert main(["predict", "--machine", "bluegene-l", "--torus", "2x2x2", "--shape", "16",
                 "16", "16", "4", "--grid", "2x4", "--estimator", "bisection"]) == 2
    assert "--shape: expected 2 or 3 extents, got 4" in capsys.readouterr().err


def test_rank_writes_an_order_the_plan_can_use(capsys, tmp_path):
    # --format order is for the plan under the default launch: it must realise the best
    # placement (rows on 2x2x2 cubes), not write the launcher's identity order.
    from volfft.mapping import Machine as Net
    from volfft.mapping import parse_placement, rows_on_blocks

    out = tmp_path / "best.order"
    assert main(["rank", "--describe", FIXTURE, "--torus", "8x8x8", "--grid", "64x8",
                 "--shape", "64", "64", "64", "--simulate-top", "3", "--no-tilts", "--out",
                 str(out), "--format", "order"]) == 0
    assert "rows on 2x2x2" in capsys.readouterr().out
    net = Net.torus((8, 8, 8))
    back = parse_placement(out.read_text(), "order", net, (64, 8))
    assert back.same_layout(rows_on_blocks(net, (64, 8), (2, 2, 2)))


def test_m_numbers_count_every_field():
    # D_T counts the values every element carries (a batch's fields), as the messages do.
    from volfft.model.description import total_bytes

    desc = {"shape": (8, 8, 8), "kind": "c2c", "element_bytes": 16, "fields": 3}
    assert total_bytes(desc) == 8 * 8 * 8 * 16 * 3
    assert total_bytes({k: v for k, v in desc.items() if k != "fields"}) == 8 * 8 * 8 * 16
