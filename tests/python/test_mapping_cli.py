"""`volfft map` (volfft.mapping.cli.main), the text view and the PNG pictures."""
import pytest

from volfft.mapping import Machine, box, rows_on_blocks, text_view
from volfft.mapping.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- text view
def test_text_view_of_a_tree_matches_the_spec_layout():
    b = box([4, 4])
    b.tilt(0, 1, 1)
    assert text_view(b) == (" 0 13 10  7\n 4  1 14 11\n 8  5  2 15\n12  9  6  3\n")


def test_text_view_of_a_placement_labels_rows_columns_and_ranks():
    p = rows_on_blocks(Machine.mesh((4, 4)), (4, 4), (2, 2))
    lines = text_view(p).splitlines()
    assert lines[1:] == ["0 0 1 1", "0 0 1 1", "2 2 3 3", "2 2 3 3"]
    cols = text_view(p, "columns").splitlines()
    assert cols[1:] == ["0 1 0 1", "2 3 2 3", "0 1 0 1", "2 3 2 3"]
    ranks = text_view(p, what="rank").splitlines()
    assert ranks[1].split() == ["0", "1", "4", "5"]


def test_text_view_vn_and_3d_slices():
    p = rows_on_blocks(Machine.mesh((2, 2), 2), (2, 4), (1, 2))
    assert text_view(p).splitlines()[1:] == ["0/0 0/0", "1/1 1/1"]
    q = rows_on_blocks(Machine.torus((2, 2, 2)), (2, 4), (1, 2, 2))
    assert text_view(q).splitlines()[1:] == ["[n0=0]", "0 0", "0 0", "[n0=1]", "1 1", "1 1"]
    with pytest.raises(ValueError, match="what must be 'group' or 'rank'"):
        text_view(p, what="colour")


# ----------------------------------------------------------------------------- command
def test_cli_default_rubik_to_stdout(capsys):
    code, out, _ = run(capsys, "--torus", "2x2x2", "--grid", "2x4")
    assert code == 0
    assert out.splitlines() == [f"{r // 4} {r // 2 % 2} {r % 2} 0" for r in range(8)]


def test_cli_rows_on_blocks_to_file_and_picture(tmp_path, capsys):
    out_file = tmp_path / "rows8.map"
    png = tmp_path / "rows8.png"
    code, out, _ = run(capsys, "--torus", "8x8x8", "--grid", "64x8", "--row-block", "2x2x2",
                       "--output", str(out_file), "--show", str(png), "--highlight", "0,1")
    assert code == 0 and out == ""
    expected = rows_on_blocks(Machine.torus((8, 8, 8)), (64, 8), (2, 2, 2)).map_file("rubik")
    assert out_file.read_text() == expected
    assert png.read_bytes()[:8] == PNG_SIGNATURE and png.stat().st_size > 10_000


def test_cli_vn_variant_and_formats(capsys, tmp_path):
    code, out, _ = run(capsys, "--torus", "2x2", "--variant", "vn", "--grid", "2x4",
                       "--row-block", "2x2", "--format", "mpich")
    assert code == 0
    # rows of 4 on the whole 2x2 block, one core each: row 0 on cores 0, row 1 on cores 1
    assert out == "0,4\n1,5\n2,6\n3,7\n"
    code, out, _ = run(capsys, "--torus", "2x2", "--variant", "vn", "--grid", "2x4",
                       "--row-block", "2x2", "--format", "order", "--realise", "reorder")
    assert out.split() == ["0", "2", "4", "6", "1", "3", "5", "7"]
    code, out, _ = run(capsys, "--mesh", "2x2", "--grid", "2x2", "--format", "openmpi",
                       "--hosts", "h[1-4]")
    assert out.splitlines() == [f"rank {r}=h{r + 1} slot=0" for r in range(4)]
    hosts = tmp_path / "hosts"
    hosts.write_text("h1\nh2\nh3\nh4\n")
    code, out, _ = run(capsys, "--mesh", "2x2", "--grid", "2x2", "--format", "slurm",
                       "--hosts", str(hosts))
    assert out == "h1\nh2\nh3\nh4\n"


def test_cli_text_view(capsys):
    code, out, _ = run(capsys, "--mesh", "4x4", "--grid", "4x4", "--row-block", "2x2", "--text")
    assert code == 0
    assert out.splitlines()[1:] == ["0 0 1 1", "0 0 1 1", "2 2 3 3", "2 2 3 3"]


def test_cli_script_defining_placement(tmp_path, capsys):
    script = tmp_path / "place.py"
    script.write_text("placement = rows_on_blocks(machine, grid, (2, 1))\n")
    code, out, _ = run(capsys, "--mesh", "4x2", "--grid", "4x2", "--script", str(script),
                       "--format", "order")
    assert code == 0
    assert out.split() == [str(r) for r in range(8)]


def test_cli_rubik_style_pf3d_script(tmp_path, capsys):
    script = tmp_path / "pf3d.py"
    script.write_text(
        "X, Y, Z = 0, 1, 2\n"
        "app = box([16, 8, 16])\napp.tile([16, 8, 1])\n"
        "torus = box([8, 8, 8, 4])\ntorus.tile([8, 8, 2, 1])\n"
        "torus.map(app)\ntorus.tilt(Z, X, 1)\ntorus.tilt(Z, Y, 1)\n")
    code, out, _ = run(capsys, "--script", str(script))
    assert code == 0
    app = box([16, 8, 16])
    app.tile([16, 8, 1])
    torus = box([8, 8, 8, 4])
    torus.tile([8, 8, 2, 1])
    torus.map(app)
    torus.tilt(2, 0, 1)
    torus.tilt(2, 1, 1)
    assert out == torus.map_file_text()


@pytest.mark.parametrize("argv, message", [
    (["--grid", "2x2"], "give the machine with --torus DIMS or --mesh DIMS"),
    (["--torus", "2x2"], "give the process grid with --grid P0xP1"),
    (["--torus", "8x0x8", "--grid", "2x2"], "--torus: expected positive extents"),
    (["--torus", "2x2", "--grid", "4"], "--grid: expected 2 extents"),
    (["--torus", "2x2", "--grid", "2x2", "--variant", "co", "--tasks-per-node", "2"],
     "--variant co means one task per node"),
    (["--torus", "2x2", "--grid", "2x2", "--variant", "vn", "--tasks-per-node", "1"],
     "--variant vn needs --tasks-per-node of 2 or more"),
    (["--torus", "2x2", "--grid", "2x2", "--format", "slurm"], "--format slurm needs --hosts"),
    (["--torus", "8x8x8", "--grid", "64x8", "--row-block", "3x2x2"],
     "row_block[0] = 3 must be a positive divisor"),
    (["--torus", "2x2", "--grid", "2x2", "--show", "x.png", "--highlight", "a"],
     "--highlight: expected group indices"),
    (["--torus", "2x2", "--grid", "2x2", "--script", "/nonexistent/s.py"], "cannot read"),
    (["--torus", "2x2", "--grid", "2x2", "--bogus"], "unrecognized arguments: --bogus"),
    (["--torus", "2x2", "--grid", "2x2", "--format", "bgq"], "invalid choice: 'bgq'"),
])
def test_cli_errors_exit_2_with_a_message(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_cli_script_without_placement(tmp_path, capsys):
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    code, _, err = run(capsys, "--script", str(script))
    assert code == 2 and "must define 'placement'" in err


# ----------------------------------------------------------------------------- pictures
def test_draw_tree_and_placement_errors(tmp_path):
    from volfft.mapping.pictures import draw_placement, draw_tree

    t = box([4, 4, 4, 2])
    t.div([2, 2, 1, 1])
    draw_tree(t, tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == PNG_SIGNATURE
    p = rows_on_blocks(Machine.mesh((4, 4)), (4, 4), (2, 2))
    draw_placement(p, tmp_path / "p.png", groups="columns")
    assert (tmp_path / "p.png").read_bytes()[:8] == PNG_SIGNATURE
    with pytest.raises(ValueError, match=r"highlight holds group indices \[7\] outside 0..3"):
        draw_placement(p, tmp_path / "bad.png", highlight=[7])
    four_d = rows_on_blocks(Machine.torus((2, 2, 2, 2)), (2, 8), (2, 2, 2, 1))
    with pytest.raises(ValueError, match="pictures show 1- to 3-D machines; this one is 4-D"):
        draw_placement(four_d, tmp_path / "x.png")
