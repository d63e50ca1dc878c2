"""Machine descriptions, the description contract, and whole-transform prediction."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from test_model_describe_fixture import describe

from volfft.model import (Machine, blue_gene_l, check_description, estimate_exchange,
                          exchange_traffic, load_machine, packet_efficiency, predict_transform,
                          resolve_placement)
from volfft.model.description import preceding_stage


def one_node(tasks=4, **kw):
    base = dict(name="node", dims=(1,), wrap=(False,), tasks_per_node=tasks, memory_bandwidth=2e9,
                fft_rate=1e8, intranode_bandwidth=4e9, message_latency=1e-6, cores_per_node=4)
    base.update(kw)
    return Machine(**base)


def test_blue_gene_l_payload_bandwidth():
    assert packet_efficiency(256, 16, 14) == pytest.approx(240 / 270)
    bgl = blue_gene_l()
    assert bgl.nodes == 512 and bgl.wrap == (True, True, True)
    assert bgl.effective_link_bandwidth == pytest.approx(167e6 * 240 / 270)
    assert 147e6 < bgl.effective_link_bandwidth < 149e6  # [Jagode2008]: "about 148 MB/s"


def test_machine_json_round_trip(tmp_path):
    m = one_node(fft_rate_by_length={64: 5e8, 1024: 1e9})
    path = m.save(tmp_path / "m.json")
    assert load_machine(path) == m
    # Interpolation in log2 N between measured lengths.
    assert m.fft_rate_for(256) == pytest.approx(0.5 * (5e8 + 1e9))


def test_machine_errors_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="wrap"):
        Machine(name="x", dims=(2, 2), wrap=(True,))
    with pytest.raises(ValueError, match="link_bandwidth"):
        Machine(name="x", dims=(2,), wrap=True, link_bandwidth=0)
    with pytest.raises(ValueError, match="payload_efficiency"):
        Machine(name="x", dims=(2,), wrap=True, payload_efficiency=1.5)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "dims": [2], "wrap": [True], "colour": 1}))
    with pytest.raises(ValueError, match="colour"):
        load_machine(bad)


def test_description_errors():
    desc = describe((8, 8, 8), grid=(2, 2))
    with pytest.raises(ValueError, match="grid"):
        check_description({**desc, "grid": (2,)})
    broken = {**desc, "stages": [{**desc["stages"][0], "count_per_rank": np.ones(3)}]}
    with pytest.raises(ValueError, match="count_per_rank"):
        check_description(broken)
    with pytest.raises(TypeError, match="description"):
        check_description([desc])


def test_placement_errors():
    machine = blue_gene_l((2, 2, 2))
    with pytest.raises(ValueError, match="outside"):
        resolve_placement(np.full((8, 3), 2), machine, 8)
    with pytest.raises(ValueError, match="8 ranks"):
        resolve_placement(np.zeros((4, 3), dtype=np.int64), machine, 8)


def test_phase_order_follows_exchange_names():
    pencil = check_description(describe((8, 8, 8), grid=(2, 2)))
    assert [preceding_stage(pencil, e) for e in range(2)] == [0, 1]
    slab = check_description(describe((8, 8, 8), grid=(4, 1)))
    pred = predict_transform(slab, one_node(), None)
    assert [p.name for p in pred.phases] == ["fft axis 2", "fft axis 1", "pack column",
                                             "exchange column", "unpack column", "fft axis 0"]


def test_predicted_phases_on_one_node():
    # 4 tasks on one 4-core node: no links; exchanges through shared memory.
    machine = one_node()
    desc = check_description(describe((16, 16, 16), grid=(2, 2)))
    pred = predict_transform(desc, machine, None)
    kinds = pred.by_kind()
    # FFT: 3 stages of 16*16*16/4 points per rank, N log2 N / rate each.
    assert kinds["fft"] == pytest.approx(3 * (4096 / 4 / 16) * 16 * 4 / 1e8)
    # Pack and unpack copy each rank's 1024 * 16 bytes once per exchange.
    assert kinds["pack"] == pytest.approx(2 * 1024 * 16 / 2e9)
    assert kinds["unpack"] == kinds["pack"]
    # Each exchange: a node moves 4 ranks x half their data; one message per rank.
    for est in pred.exchanges:
        assert est.network == 0
        assert est.intranode == pytest.approx(4 * 512 * 16 / 4e9)
        assert est.latency == pytest.approx(1e-6)
    assert pred.total == pytest.approx(sum(p.seconds for p in pred.phases))


def test_oversubscribed_node_shares_cores():
    desc = check_description(describe((16, 16, 16), grid=(2, 2)))
    fast = predict_transform(desc, one_node(cores_per_node=4), None).by_kind()["fft"]
    slow = predict_transform(desc, one_node(cores_per_node=2), None).by_kind()["fft"]
    assert slow == pytest.approx(2 * fast)


def test_r2c_stage_costs_half():
    machine = one_node(tasks=1)
    c2c = predict_transform(check_description(describe((16, 16, 16), grid=(1, 1))), machine)
    r2c = predict_transform(check_description(describe((16, 16, 16), grid=(1, 1), kind="r2c")),
                            machine)
    first = 16 * 16 * 16 * math.log2(16) / 1e8
    assert c2c.phases[0].seconds == pytest.approx(first)
    assert r2c.phases[0].seconds == pytest.approx(first / 2)


def test_latency_counts_messages_and_hops():
    machine = blue_gene_l((8, 1, 1))
    desc = check_description(describe((64, 64, 64), grid=(1, 8)))
    placed = resolve_placement(np.stack([np.arange(8), np.zeros(8, int), np.zeros(8, int)],
                                        axis=1).astype(np.int64), machine, 8)
    est = estimate_exchange(machine, exchange_traffic(desc["exchanges"][0]["messages"], placed),
                            8, "simulate")
    assert est.latency == pytest.approx(7 * machine.message_latency + 4 * machine.hop_latency)
    assert est.time == pytest.approx(est.network + est.latency)


def test_reshapes_are_priced_first_and_last():
    """A plan on the user's arrays: reshape_in before the first FFT, reshape_out after the last,
    each a pack (bytes the slowest rank sends), an exchange and an unpack (bytes it receives)."""
    machine = one_node()
    plain = describe((16, 16, 16), grid=(2, 2))
    desc = dict(plain)
    desc["reshapes"] = [{"name": "reshape_in", "messages": [[0, 1, 4000], [1, 0, 2000], [2, 2, 8000]]},
                        {"name": "reshape_out", "messages": [[3, 0, 1000]]}]
    pred = predict_transform(check_description(desc), machine, None)
    base = predict_transform(check_description(plain), machine, None)
    names = [p.name for p in pred.phases]
    assert names[:3] == ["pack reshape_in", "exchange reshape_in", "unpack reshape_in"]
    assert names[-3:] == ["pack reshape_out", "exchange reshape_out", "unpack reshape_out"]
    assert names[3:-3] == [p.name for p in base.phases]
    assert pred.phases[0].seconds == pytest.approx(8000 / 2e9)  # rank 2 sends the most
    assert pred.phases[2].seconds == pytest.approx(8000 / 2e9)
    assert pred.phases[-1].seconds == pytest.approx(1000 / 2e9)
    assert pred.total > base.total
    desc["reshapes"] = [{"name": "reshape_in", "messages": [[0, 4, 10]]}]
    with pytest.raises(ValueError, match="'reshapes'.*ranks must be in 0..3"):
        check_description(desc)


def test_a_placement_for_another_grid_is_refused():
    from volfft.mapping import Machine as Net
    from volfft.mapping import rows_on_blocks
    from volfft.model import blue_gene_l, predict_transform
    from test_model_describe_fixture import describe

    placement = rows_on_blocks(Net.torus((2, 2, 2)), (2, 4), (1, 2, 2))
    desc = describe((16, 16, 16), grid=(4, 2))
    with pytest.raises(ValueError, match=r"placement: it places the positions of a 2x4 grid, "
                                         r"but the plan's grid is 4x2"):
        predict_transform(desc, blue_gene_l((2, 2, 2)), placement)
    assert predict_transform(describe((16, 16, 16), grid=(2, 4)), blue_gene_l((2, 2, 2)),
                             placement).total > 0
