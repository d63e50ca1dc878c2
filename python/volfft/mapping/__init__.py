"""volfft.mapping: Rubik-style process placement (pure Python + numpy, no MPI needed).

The language ([Bhatele2012]; exact contract in docs/rubik-semantics.md)::

    from volfft.mapping import box, div, mod
    X, Y, Z = 0, 1, 2
    app = box([16, 8, 16]); app.tile([16, 8, 1])
    torus = box([8, 8, 8, 4]); torus.tile([8, 8, 2, 1])
    torus.map(app); torus.tilt(Z, X, 1); torus.tilt(Z, Y, 1)
    torus.write_map_file("pf3d.map")

FFT placements ([Jagode2008])::

    from volfft.mapping import Machine, rows_on_blocks
    p = rows_on_blocks(Machine.torus((8, 8, 8)), grid=(64, 8), row_block=(2, 2, 2))
    p.rank_order(); p.coords(); p.rows(); p.write("fft.map", "rubik")

Pictures (:mod:`volfft.mapping.pictures`, needs matplotlib) are imported on demand.
"""
from __future__ import annotations

from .fft import default_placement, rows_on_blocks
from .hostlist import expand_hostlist, read_hosts
from .machine import Machine
from .mapfiles import FORMATS, format_placement, parse_placement
from .partition import Partition, box
from .placement import Placement
from .slicers import div, mod
from .textview import text_view

__all__ = [
    "FORMATS",
    "Machine",
    "Partition",
    "Placement",
    "box",
    "default_placement",
    "div",
    "expand_hostlist",
    "format_placement",
    "mod",
    "parse_placement",
    "read_hosts",
    "rows_on_blocks",
    "text_view",
]
