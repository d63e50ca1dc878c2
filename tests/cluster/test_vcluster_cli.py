"""vcluster's argument checks and launcher command lines (pure: nothing is created)."""
from __future__ import annotations

import pytest

import tools.vcluster as V
from tools.vcluster import common


@pytest.mark.parametrize("text,bits", [("100mbit", 100_000_000), ("1gbit", 1_000_000_000),
                                       ("2.5Mbit", 2_500_000), ("64kbit", 64_000)])
def test_parse_rate(text, bits):
    assert V.parse_rate(text) == bits


@pytest.mark.parametrize("text", ["100", "fast", "100mb", "1kbit"])
def test_parse_rate_rejects(text):
    with pytest.raises(ValueError, match="--rate"):
        V.parse_rate(text)


@pytest.mark.parametrize("text,seconds", [("50us", 50e-6), ("1ms", 1e-3), ("0", 0.0), ("2s", 2.0)])
def test_parse_delay(text, seconds):
    assert V.parse_delay(text) == pytest.approx(seconds)


@pytest.mark.parametrize("name", ["", "has-dash", "UPPER", "toolong7"])
def test_cluster_names_are_short_and_plain(name):
    with pytest.raises(ValueError, match="cluster name"):
        V.check_name(name)


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "STATE_DIR", tmp_path)
    return {"name": "tst", "hosts": [V.host_ns("tst", h) for h in range(4)], "mpi_iface": "eth0",
            "status": "ready"}


def test_openmpi_command_enters_first_host_and_keeps_tcp_on_cluster_net(state, tmp_path):
    cmd, env = V.mpirun_command(state, ["./prog", "x"], k=2, order=[2, 0, 1])
    assert cmd[:4] == ["ip", "netns", "exec", "vc-tst-h2"]
    assert cmd[-2:] == ["./prog", "x"]
    joined = " ".join(cmd)
    for needle in ("btl_tcp_if_include 10.77.0.0/16", "oob_tcp_if_include 10.77.0.0/16",
                   "--bind-to none", "-np 6", "btl tcp,self"):
        assert needle in joined
    hosts = (tmp_path / "tst" / "hosts.openmpi").read_text().split("\n")
    assert hosts[:3] == ["vc-tst-h2 slots=2", "vc-tst-h0 slots=2", "vc-tst-h1 slots=2"]
    agent = (tmp_path / "tst" / "agent.sh").read_text()
    assert "ip netns exec" in agent and "unshare --uts" in agent


def test_mpich_refuses_shared_memory(state):
    with pytest.raises(ValueError, match="--shm"):
        V.mpirun_command(state, ["./prog"], k=2, mpi="mpich", shm=True)


@pytest.mark.parametrize("order", [[0, 0], [4], []])
def test_bad_host_orders(state, order):
    with pytest.raises(ValueError, match="--hosts"):
        V.mpirun_command(state, ["./prog"], order=order)


def test_missing_program(state):
    with pytest.raises(ValueError, match="program"):
        V.mpirun_command(state, [])
