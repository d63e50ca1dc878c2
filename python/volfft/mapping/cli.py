"""``volfft map``: build a placement and write it as a map file, a text view or a picture.

Examples::

    volfft map --torus 8x8x8 --grid 64x8 --row-block 2x2x2 --format rubik --output rows8.map
    volfft map --torus 8x8x8 --grid 8x64 --row-block 4x4x4 --show rows64.png
    volfft map --mesh 4x4 --grid 4x4 --row-block 2x2 --text
    volfft map --torus 8x8x8 --variant vn --grid 64x16 --row-block 2x2x2 --format mpich
    volfft map --script pf3d.py --format rubik

A ``--script`` file is run with the whole mapping language in scope (``box``, ``div``, ``mod``,
``Machine``, ``Placement``, ``default_placement``, ``rows_on_blocks``, ...) and, when the
flags give them, ``machine`` (a Machine) and ``grid`` (a (p0, p1) tuple). It must define either
``placement`` (a Placement), or, Rubik style, ``torus`` (a mapped partition tree whose shape is
the machine's node dimensions followed by tasks per node).
"""
from __future__ import annotations

import argparse
import runpy
import sys
from collections.abc import Sequence

from . import mapfiles
from .fft import default_placement, rows_on_blocks
from .hostlist import read_hosts
from .machine import Machine
from .partition import Partition
from .placement import Placement
from .textview import text_view


class _UsageError(Exception):
    """A flag combination that cannot work; reported like argparse errors (exit status 2)."""


def _extents(flag: str, text: str, count: int | None = None) -> list[int]:
    parts = text.lower().split("x")
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise _UsageError(f"{flag}: expected positive extents separated by 'x' (like 8x8x8), "
                          f"got {text!r}")
    values = [int(p) for p in parts]
    if count is not None and len(values) != count:
        raise _UsageError(f"{flag}: expected {count} extents (like 64x8), got {text!r}")
    return values


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="volfft map",
        description="Build a placement of a p0 x p1 process grid on a torus or mesh and write it "
                    "as a map file (Rubik/Blue Gene, Cray MPICH_RANK_ORDER, Open MPI rankfile, "
                    "Slurm host file, or volfft rank order), a text view, or a PNG picture.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--torus", metavar="DIMS", help="torus node extents, e.g. 8x8x8")
    where.add_argument("--mesh", metavar="DIMS", help="mesh (no wrap-around) node extents")
    parser.add_argument("--grid", metavar="P0xP1", help="process grid; a row is the P1 ranks "
                        "sharing a row index")
    parser.add_argument("--row-block", metavar="DIMS", help="place each grid row on a sub-box of "
                        "nodes of this shape (default: consecutive ranks on consecutive slots)")
    parser.add_argument("--tasks-per-node", type=int, metavar="K",
                        help="task slots per node (default 1, or 2 with --variant vn)")
    parser.add_argument("--variant", choices=("co", "vn"), help="co: one task per node; vn: "
                        "several (--tasks-per-node, default 2)")
    parser.add_argument("--script", metavar="FILE", help="Python file using the mapping "
                        "language; must define 'placement' (or a mapped tree 'torus')")
    parser.add_argument("--format", choices=mapfiles.FORMATS, default="rubik",
                        help="map-file format (default rubik)")
    parser.add_argument("--output", metavar="FILE", help="write the map file here (default: "
                        "standard output, unless --text or --show is given)")
    parser.add_argument("--hosts", metavar="HOSTS", help="node names in row-major node order, for "
                        "openmpi and slurm: a file (one per line) or a list like nid[001-512]")
    parser.add_argument("--realise", choices=("mapfile", "reorder"), default="mapfile",
                        help="mapfile: world rank g takes grid position g and the launcher places "
                        "it; reorder: ranks stay where a default launch puts them and the rank "
                        "order hands grid positions to them (default mapfile)")
    parser.add_argument("--show", metavar="FILE.png", help="draw the machine coloured by group")
    parser.add_argument("--groups", choices=("rows", "columns"), default="rows",
                        help="groups coloured in --show and labelled in --text (default rows)")
    parser.add_argument("--highlight", metavar="I,J,...", help="with --show: colour only these "
                        "group indices, the rest faint")
    parser.add_argument("--text", action="store_true", help="print a text view (2-D machines as "
                        "a table, more dimensions as 2-D slices)")
    return parser


def _machine(args: argparse.Namespace) -> Machine | None:
    if args.variant == "co" and args.tasks_per_node not in (None, 1):
        raise _UsageError(f"--variant co means one task per node; got --tasks-per-node "
                          f"{args.tasks_per_node}")
    if args.variant == "vn" and args.tasks_per_node is not None and args.tasks_per_node < 2:
        raise _UsageError(f"--variant vn needs --tasks-per-node of 2 or more, got "
                          f"{args.tasks_per_node}")
    if args.tasks_per_node is not None and args.tasks_per_node <= 0:
        raise _UsageError(f"--tasks-per-node must be positive, got {args.tasks_per_node}")
    k = args.tasks_per_node or (2 if args.variant == "vn" else 1)
    if args.torus:
        return Machine.torus(_extents("--torus", args.torus), k)
    if args.mesh:
        return Machine.mesh(_extents("--mesh", args.mesh), k)
    return None


def _from_script(args: argparse.Namespace, machine: Machine | None,
                 grid: tuple[int, int] | None) -> Placement:
    import volfft.mapping as language

    scope = {name: getattr(language, name) for name in language.__all__}
    scope.update(machine=machine, grid=grid)
    try:
        result = runpy.run_path(args.script, init_globals=scope, run_name="__volfft_map__")
    except FileNotFoundError as err:
        raise _UsageError(f"--script: cannot read {args.script!r}: {err.strerror}") from None
    placement = result.get("placement")
    if isinstance(placement, Placement):
        return placement
    if placement is not None:
        raise _UsageError(f"--script: 'placement' must be a volfft.mapping.Placement, got "
                          f"{type(placement).__name__}")
    tree = result.get("torus")
    if not isinstance(tree, Partition):
        raise _UsageError(f"--script: {args.script!r} must define 'placement' (a Placement) or "
                          f"'torus' (a mapped partition tree)")
    if machine is None:
        # Rubik's convention: the torus box is node dimensions followed by tasks per node.
        if tree.ndim < 2:
            raise _UsageError("--script: a 'torus' tree needs node dimensions and a last "
                              "tasks-per-node dimension, or give --torus/--mesh")
        machine = Machine.torus(tree.shape[:-1], tree.shape[-1])
    count = tree.elements.size
    return Placement.from_tree(machine, grid or (1, count), tree, f"script {args.script}")


def _build(args: argparse.Namespace) -> Placement:
    machine = _machine(args)
    grid = tuple(_extents("--grid", args.grid, 2)) if args.grid else None
    if args.script:
        if args.row_block:
            raise _UsageError("--row-block builds a placement from flags; it cannot be combined "
                              "with --script")
        return _from_script(args, machine, grid)  # type: ignore[arg-type]
    if machine is None:
        raise _UsageError("give the machine with --torus DIMS or --mesh DIMS (or use --script)")
    if grid is None:
        raise _UsageError("give the process grid with --grid P0xP1")
    if args.row_block:
        block = _extents("--row-block", args.row_block)
        return rows_on_blocks(machine, grid, block)
    return default_placement(machine, grid)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``volfft map`` with ``argv`` (without the program name); return the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        placement = _build(args)
        if args.realise == "reorder":
            placement = placement.for_launch()
        hosts = read_hosts(args.hosts) if args.hosts else None
        if args.format in ("openmpi", "slurm") and hosts is None:
            raise _UsageError(f"--format {args.format} needs --hosts (the allocation's node "
                              f"names)")
        text = placement.map_file(args.format, hosts)
        if args.output and args.output != "-":
            with open(args.output, "w", encoding="ascii") as handle:
                handle.write(text)
        elif args.output == "-" or not (args.text or args.show):
            sys.stdout.write(text)
        if args.text:
            sys.stdout.write(text_view(placement, args.groups))
        if args.show:
            from .pictures import draw_placement

            highlight = None
            if args.highlight:
                try:
                    highlight = [int(v) for v in args.highlight.split(",")]
                except ValueError:
                    raise _UsageError(f"--highlight: expected group indices like 0,1, got "
                                      f"{args.highlight!r}") from None
            draw_placement(placement, args.show, args.groups, highlight)
    except _UsageError as err:
        parser.print_usage(sys.stderr)
        print(f"volfft map: error: {err}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, IndexError) as err:
        # The library names the offending argument; the flags map one to one onto arguments.
        print(f"volfft map: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"volfft map: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
