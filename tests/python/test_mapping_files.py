"""Map files for launchers: exact text of each format on a small case worked by hand, round trips
on random placements, host-list expansion and reader errors."""
import numpy as np
import pytest

from volfft.mapping import (Machine, Placement, default_placement, expand_hostlist,
                            parse_placement, read_hosts, rows_on_blocks)
from volfft.mapping import mapfiles

# A 2x2 mesh, 2 tasks per node, grid 2x4, each row on one 1x2 block (the nodes (i, 0), (i, 1)):
# row 0 -> nodes (0,0), (0,1) with cores 0,1 each; in a 1x2 block of 2 cores the row-major
# slot order is (0,0,c0) (0,0,c1) (0,1,c0) (0,1,c1) -- which is also the default order, so
# rank r sits on slot r. Reversing the ranks gives a non-trivial case worked by hand below.
MACHINE = Machine.mesh((2, 2), 2)
HOSTS = ["a0", "a1", "b0", "b1"]


def reversed_placement():
    # grid position g on slot 7 - g: node (1,1) core 1 first ... node (0,0) core 0 last
    coords = MACHINE.slot_coords(np.arange(7, -1, -1))
    return Placement(MACHINE, (2, 4), coords)


def test_rubik_text():
    assert reversed_placement().map_file("rubik").splitlines()[:3] == ["1 1 1", "1 1 0", "1 0 1"]


def test_mpich_text_lists_ranks_in_slot_order_one_node_a_line():
    # slot 0 (node 0, core 0) holds rank 7, slot 1 rank 6, ...
    assert reversed_placement().map_file("mpich") == "7,6\n5,4\n3,2\n1,0\n"


def test_openmpi_text():
    text = reversed_placement().map_file("openmpi", HOSTS)
    assert text.splitlines()[:3] == ["rank 0=b1 slot=1", "rank 1=b1 slot=0", "rank 2=b0 slot=1"]


def test_slurm_text():
    assert reversed_placement().map_file("slurm", HOSTS) == "b1\nb1\nb0\nb0\na1\na1\na0\na0\n"


def test_order_text_is_the_rank_order():
    p = rows_on_blocks(Machine.mesh((2, 2)), (2, 2), (2, 1)).for_launch()
    # rows are columns of the mesh: row 0 = nodes (0,0), (1,0) = default slots 0 and 2
    assert p.map_file("order") == "0\n2\n1\n3\n"


def placements_for_round_trips():
    rng = np.random.default_rng(7)
    out = []
    for dims, k, grid in [((2, 3), 2, (3, 4)), ((2, 2, 2), 1, (2, 4)), ((4,), 3, (6, 2))]:
        m = Machine.torus(dims, k)
        perm = rng.permutation(m.slots)
        out.append(Placement(m, grid, m.slot_coords(perm)))
        out.append(default_placement(m, grid))
    out.append(rows_on_blocks(Machine.torus((4, 4, 4), 2), (16, 8), (2, 2, 1)))
    return out


@pytest.mark.parametrize("fmt", ["rubik", "mpich", "openmpi"])
def test_coordinate_formats_round_trip(fmt):
    for p in placements_for_round_trips():
        hosts = [f"n{i:03d}" for i in range(p.machine.nodes)]
        back = parse_placement(p.map_file(fmt, hosts), fmt, p.machine, p.grid, hosts)
        assert np.array_equal(back.coords(), p.coords()), fmt
        assert back.map_file(fmt, hosts) == p.map_file(fmt, hosts)


def test_slurm_round_trip_keeps_nodes_and_orders_cores_by_rank():
    for p in placements_for_round_trips():
        hosts = [f"n{i}" for i in range(p.machine.nodes)]
        back = parse_placement(p.map_file("slurm", hosts), "slurm", p.machine, p.grid, hosts)
        assert np.array_equal(back.coords()[:, :-1], p.coords()[:, :-1])
        for node in {tuple(c) for c in back.coords()[:, :-1].tolist()}:
            ranks = [r for r, c in enumerate(back.coords().tolist()) if tuple(c[:-1]) == node]
            assert [back.coords()[r, -1] for r in ranks] == list(range(len(ranks)))
        assert back.map_file("slurm", hosts) == p.map_file("slurm", hosts)


def test_order_round_trip_under_the_default_launch():
    for p in placements_for_round_trips():
        q = p.for_launch()
        back = parse_placement(q.map_file("order"), "order", p.machine, p.grid)
        assert np.array_equal(back.rank_order(), q.rank_order())
        assert back.same_layout(p)


def test_files_written_to_disk(tmp_path):
    p = rows_on_blocks(Machine.torus((8, 8, 8)), (64, 8), (2, 2, 2))
    path = tmp_path / "rows8.map"
    p.write(path)
    lines = path.read_text().splitlines()
    assert len(lines) == 512 and all(len(line.split()) == 4 for line in lines)
    assert lines[:2] == ["0 0 0 0", "0 0 1 0"]   # rank 1 = second cell of block 0, row-major
    p.write(str(tmp_path / "order.txt"), "order")
    assert (tmp_path / "order.txt").read_text() == "".join(f"{r}\n" for r in range(512))


def test_parsers_accept_ranges_comments_and_blank_lines():
    assert mapfiles.parse_mpich("# header\n0-3,7\n6 ,5-4\n").tolist() == [0, 1, 2, 3, 7, 6, 5, 4]
    assert mapfiles.parse_rubik("# x y\n0 1\n\n1 0\n").tolist() == [[0, 1], [1, 0]]
    assert mapfiles.parse_order("2 0\n1 # tail\n").tolist() == [2, 0, 1]


def test_reader_and_writer_errors():
    with pytest.raises(ValueError, match="rubik map file: line 2 has 1 coordinates"):
        mapfiles.parse_rubik("0 1\n2\n")
    with pytest.raises(ValueError, match="rubik map file: line 1 must hold integers"):
        mapfiles.parse_rubik("0 x\n")
    with pytest.raises(ValueError, match="mpich rank order: line 1: expected ranks"):
        mapfiles.parse_mpich("0,a\n")
    with pytest.raises(ValueError, match="must list each of the ranks 0..2 once"):
        mapfiles.mpich_coords(np.array([0, 0, 2]), MACHINE)
    with pytest.raises(ValueError, match="rank order: must be a permutation of 0..2"):
        mapfiles.parse_order("0 1 1\n")
    with pytest.raises(ValueError, match="openmpi rankfile: line 1: expected 'rank R=HOST"):
        mapfiles.parse_openmpi("rank zero=a0\n", MACHINE, HOSTS)
    with pytest.raises(ValueError, match="only integer slots"):
        mapfiles.parse_openmpi("rank 0=a0 slot=0:1\n", MACHINE, HOSTS)
    with pytest.raises(ValueError, match="host 'zz' is not in hosts"):
        mapfiles.parse_slurm("zz\n", MACHINE, HOSTS)
    with pytest.raises(ValueError, match="openmpi format: hosts .* are required"):
        reversed_placement().map_file("openmpi")
    with pytest.raises(ValueError, match="slurm format: hosts has 3 names but the machine has 4"):
        reversed_placement().map_file("slurm", HOSTS[:3])
    with pytest.raises(ValueError, match="repeats a node name"):
        reversed_placement().map_file("slurm", ["a", "a", "b", "c"])
    with pytest.raises(ValueError, match="fmt must be one of rubik, mpich"):
        reversed_placement().map_file("bgq")
    holes = Placement(Machine.mesh((2, 2)), (1, 2), [[0, 0, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="mpich format: the placement must use exactly the first"):
        holes.map_file("mpich")


def test_expand_hostlist():
    assert expand_hostlist("nid[001-003,007],login1") == ["nid001", "nid002", "nid003",
                                                         "nid007", "login1"]
    assert expand_hostlist("r[1-2]n[0-1]") == ["r1n0", "r1n1", "r2n0", "r2n1"]
    assert expand_hostlist("a,b") == ["a", "b"]
    with pytest.raises(ValueError, match="unbalanced"):
        expand_hostlist("nid[1-2")
    with pytest.raises(ValueError, match="runs backwards"):
        expand_hostlist("nid[5-2]")
    with pytest.raises(ValueError, match="expected numbers or ranges"):
        expand_hostlist("nid[a-b]")


def test_read_hosts_from_file(tmp_path):
    path = tmp_path / "hosts"
    path.write_text("# allocation\nn[0-1]\nn5\n")
    assert read_hosts(str(path)) == ["n0", "n1", "n5"]
    assert read_hosts("x[1-2]") == ["x1", "x2"]
