"""map() and write_map_file(): [Bhatele2012]'s pF3D and Qbox scripts (as docs/rubik-semantics.md says they
run: box([X,Y,Z,T]) with X, Y, Z = 0, 1, 2), and the map rules of docs/rubik-semantics.md section 5."""
import io
import itertools

import numpy as np
import pytest

from volfft.mapping import box, div, mod

X, Y, Z, T = 0, 1, 2, 3


def coords_of_each_rank(cells):
    """Expected map-file lines: line r = coordinates of the cell holding rank r."""
    lines = {}
    for idx in itertools.product(*[range(n) for n in cells.shape]):
        lines[int(cells[idx])] = idx
    return "".join(" ".join(map(str, lines[r])) + "\n" for r in range(len(lines)))


def pf3d_expected():
    """Rank at (x, y, z, t) after tile/map, before the tilts (derived by hand).

    Torus leaf k = 4*cz + t (tile [8,8,2,1] -> divisors [1,1,4,4]) holds x, y, z in {2cz, 2cz+1};
    its j-th cell (j = 16x + 2y + z%2) receives the j-th rank of app plane k, the rank at
    (a, b, k) = (j // 8, j % 8, k) of box([16, 8, 16]), i.e. 128a + 16b + k.
    """
    cells = np.zeros((8, 8, 8, 4), dtype=int)
    for x, y, z, t in itertools.product(range(8), range(8), range(8), range(4)):
        k = 4 * (z // 2) + t
        j = 16 * x + 2 * y + z % 2
        cells[x, y, z, t] = 128 * (j // 8) + 16 * (j % 8) + k
    return cells


def test_pf3d_tiled_mapping_2048_cores():
    app = box([16, 8, 16])
    app.tile([16, 8, 1])
    torus = box([8, 8, 8, 4])
    torus.tile([8, 8, 2, 1])
    torus.map(app)
    assert torus.box.tolist() == pf3d_expected().tolist()
    assert torus.map_file_text() == coords_of_each_rank(pf3d_expected())


def test_pf3d_tiltxy_mapping_2048_cores():
    app = box([16, 8, 16])
    app.tile([16, 8, 1])
    torus = box([8, 8, 8, 4])
    torus.tile([8, 8, 2, 1])
    torus.map(app)
    torus.tilt(Z, X, 1)   # tilt XY planes along X
    torus.tilt(Z, Y, 1)   # tilt XY planes along Y
    before = pf3d_expected()
    expected = np.zeros_like(before)
    for x, y, z, t in itertools.product(range(8), range(8), range(8), range(4)):
        expected[x, y, z, t] = before[x, y, (z - x - y) % 8, t]
    assert torus.box.tolist() == expected.tolist()
    out = io.StringIO()
    torus.write_map_file(out)
    text = out.getvalue()
    assert text == coords_of_each_rank(expected)
    assert len(text.splitlines()) == 2048 and text.endswith("\n")
    assert all(len(line.split()) == 4 for line in text.splitlines())


def test_qbox_interleaved_columns_mapping():
    app = box([256, 8])
    app.tile([256, 1])                       # 8 columns of 256 tasks
    torus = box([8, 8, 8, 4])
    torus.cut([2, 1, 4, 1], [mod, div, div, div])
    torus.map(app)
    expected = np.zeros((8, 8, 8, 4), dtype=int)
    for x, y, z, t in itertools.product(range(8), range(8), range(8), range(4)):
        k = 4 * (x % 2) + z // 2             # leaf (cx, 0, cz, 0): x = cx + 2*xl, z = 2cz + zl
        j = 64 * (x // 2) + 8 * y + 4 * (z % 2) + t
        expected[x, y, z, t] = 8 * j + k     # app rank at (j, k) of box([256, 8])
    assert torus.box.tolist() == expected.tolist()
    assert torus.map_file_text() == coords_of_each_rank(expected)


# ----------------------------------------------------------------------------- section 5
def test_map_pairs_leaves_depth_first_and_fills_row_major():
    src = box([4])
    src.div([2])
    src[0].div([2])               # leaves [0], [1], [2, 3]
    dst = box([2, 2])
    dst.div([2, 1])
    dst[0, 0].div([1, 2])         # leaves (0,0), (0,1), row 1
    dst.map(src)
    assert dst.box.tolist() == [[0, 1], [2, 3]]
    rev = box([2, 2])
    rev.mod([1, 2])
    rev[0, 1].div([2, 1])         # leaves column 0 (2 cells) then (0,1), (1,1): sizes 2,1,1
    with pytest.raises(ValueError, match="leaf 0"):
        rev.map(src)


def test_map_across_dimensionalities_planes_into_4d():
    app = box([4, 8])
    app.tile([1, 8])
    net = box([2, 2, 2, 4])
    net.div([2, 2])               # 4 leaves of 2x4 cells
    net.map(app)
    for k, (a, b) in enumerate(itertools.product(range(2), range(2))):
        assert net.box[a, b].reshape(-1).tolist() == list(range(8 * k, 8 * k + 8))


def test_permuting_the_target_before_map_has_no_effect_but_the_source_does():
    app = box([4, 4])
    app.div([2, 1])
    plain = box([4, 4])
    plain.mod([2, 1])
    plain.map(app)
    tilted = box([4, 4])
    tilted.mod([2, 1])
    tilted.tilt(0, 1, 1)
    tilted.map(app)
    assert np.array_equal(tilted.box, plain.box)
    app.tilt(0, 1, 1)
    moved = box([4, 4])
    moved.mod([2, 1])
    moved.map(app)
    # leaf 0 of moved (rows 0 and 2) receives app leaf 0 (rows 0, 1 of the tilted app)
    assert moved.box[0].tolist() == [0, 13, 10, 7] and moved.box[2].tolist() == [4, 1, 14, 11]


def test_map_takes_the_source_element_list_and_leaves_the_source_alone():
    app = box([2, 4])
    app.tile([1, 4])
    app.tilt(1, 0, 1)
    snapshot = app.box.copy()
    net = box([8])
    net.mod([2])
    net.map(app)
    assert np.array_equal(app.box, snapshot)
    assert net.elements.tolist() == list(range(8))
    # leaf 0 = even cells gets app row 0 = [0, 1, 2, 3]; leaf 1 = odd cells gets row 1
    assert net.box.tolist() == [0, 7, 1, 4, 2, 5, 3, 6]
    assert net.map_file_text() == "".join(f"{c}\n" for c in [0, 2, 4, 6, 3, 5, 7, 1])


def test_map_chain_keeps_the_first_element_list():
    a = box([6])
    a.div([2])
    b = box([2, 3])
    b.div([2, 1])
    b.map(a)
    c = box([3, 2])
    c.div([1, 2])
    c.map(b)
    assert c.elements.tolist() == list(range(6))
    assert c.box.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_compatible():
    a = box([4, 4])
    a.tile([2, 4])
    b = box([2, 8])
    b.tile([1, 8])
    c = box([16])
    c.div([3])
    assert a.compatible(b) and b.compatible(a)
    assert not a.compatible(c)
    assert not a.compatible(box([16]))


def test_write_map_file_targets_path_stream_and_stdout(tmp_path, capsys):
    b = box([2, 2])
    b.tilt(0, 1, 1)
    path = tmp_path / "m.map"
    b.write_map_file(str(path))
    assert path.read_text() == "0 0\n1 1\n1 0\n0 1\n"
    b.write_map_file(path)
    assert path.read_text() == "0 0\n1 1\n1 0\n0 1\n"
    b.write_map_file()
    assert capsys.readouterr().out == "0 0\n1 1\n1 0\n0 1\n"


@pytest.mark.parametrize("cores, nz, torus_dims, tiles, tilts", [
    # [Bhatele2012] Table II: the best pF3D mapping per core count (X, Y, Z = 0, 1, 2)
    (2048, 16, [8, 8, 8, 4], [8, 8, 2, 1], [(Z, X), (Z, Y)]),
    (4096, 32, [8, 8, 16, 4], [1, 8, 16, 1], [(X, Y), (X, Z)]),
    (8192, 64, [8, 8, 32, 4], [8, 8, 2, 1], [(X, Y)]),
    (16384, 128, [8, 16, 32, 4], [8, 16, 1, 1], []),
    (32768, 256, [8, 32, 32, 4], [2, 8, 8, 1], [(X, Y), (X, Z)]),
])
def test_pf3d_table2_mappings_keep_planes_together_before_tilting(cores, nz, torus_dims, tiles,
                                                                  tilts):
    app = box([16, 8, nz])
    app.tile([16, 8, 1])
    torus = box(torus_dims)
    torus.tile(tiles)
    assert torus.size == cores and len(torus.leaves()) == nz
    torus.map(app)
    for k, leaf in enumerate(torus.leaves()):   # every torus tile holds exactly pF3D plane k
        assert sorted(leaf.box.reshape(-1).tolist()) == sorted(range(k, cores, nz))
    for a, d in tilts:
        torus.tilt(a, d, 1)
    lines = torus.map_file_text().splitlines()
    assert len(lines) == cores
    assert len(set(lines)) == cores            # still one rank per torus slot
