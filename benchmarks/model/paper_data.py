"""Numbers printed in [Jagode2008] and [Bhatele2012] (docs/references.md), kept only to compare predictions with (never used to predict).

[Jagode2008] labels a grid by its *row size first*: its "8 x 64" has rows of 8 tasks (on 2x2x2
cubes), its "64 x 8" rows of 64 (on 4x4x4 cubes). In volfft's ``(p0, p1)`` convention (rows hold
p1 tasks) these are ``(64, 8)`` and ``(8, 64)``; volfft.mapping documents the same reading.
([Jagode2008]'s section 3.2 words it the other way round, but its Table 1, Fig. 4 and section 7.1
only make sense with rows of 8 on 8-cubes.)
"""
from __future__ import annotations

from dataclasses import dataclass

# [Jagode2008] Table 1: m_x, m_y, m_z of rows and columns for the CO mappings of Fig. 4.
TABLE1 = {
    "8x64 customized": {"rows": (2, 2, 2), "columns": (4, 4, 4)},
    "8x64 default": {"rows": (0, 0, 4), "columns": (4, 4, 0)},
    "64x8 customized": {"rows": (4, 4, 4), "columns": (4, 4, 4)},
    "64x8 default": {"rows": (0, 4, 4), "columns": (4, 0, 0)},
}

SIZES = (64, 128, 256, 512, 1024)


@dataclass(frozen=True)
class JagodeCase:
    """One line of [Jagode2008]'s appendix tables and the placement it used."""

    label: str                 # as printed in [Jagode2008]
    tasks_per_node: int        # CO: 1, VN: 2
    grid: tuple[int, int]      # volfft (p0, p1): rows hold p1 tasks
    row_block: tuple[int, ...] | None  # None: default placement; else node extents (+ cores)
    total_ms: tuple[float | None, ...]
    rows_ms: tuple[float | None, ...]
    columns_ms: tuple[float | None, ...]


_ = None
CASES = (
    JagodeCase("CO 8x64 cust.", 1, (64, 8), (2, 2, 2),
                (0.359, 2.20, 18.9, 188, 1780), (0.089, 0.339, 2.622, 23.25, 185),
                (0.178, 0.667, 3.891, 28.32, 226)),
    JagodeCase("CO 8x64 def.", 1, (64, 8), None,
                (0.356, 2.31, 19.8, 193, 1820), (0.112, 0.508, 3.544, 28.21, 227),
                (0.154, 0.627, 3.675, 28.85, 226)),
    JagodeCase("VN 16x64 cust.", 2, (64, 16), (2, 2, 2),
                (0.382, 1.66, 11.4, 128, 1210), (0.134, 0.327, 1.894, 14.71, 120),
                (0.184, 0.683, 3.761, 29.13, 227)),
    JagodeCase("VN 16x64 def.", 2, (64, 16), None,
                (0.400, 1.93, 13.3, 142, 1340), (0.165, 0.597, 3.743, 29.31, 232),
                (0.171, 0.670, 3.865, 29.95, 227)),
    JagodeCase("VN 8x128 cust.", 2, (128, 8), (2, 2, 2, 1),
                (_, 1.68, 11.7, 128, 1200), (_, 0.280, 1.827, 14.39, 117),
                (_, 0.732, 4.023, 30.66, 223)),
    JagodeCase("CO 64x8 cust.", 1, (8, 64), (4, 4, 4),
                (0.383, 2.54, 21.9, 203, 1940), (0.158, 0.632, 4.314, 35.07, 277),
                (0.130, 0.686, 4.516, 34.60, 274)),
    JagodeCase("CO 64x8 def.", 1, (8, 64), None,
                (0.355, 2.44, 20.3, 191, 1840), (0.160, 0.609, 3.687, 28.34, 230),
                (0.105, 0.612, 3.863, 29.41, 237)),
    JagodeCase("VN 128x8 cust.", 2, (8, 128), (4, 4, 4),
                (_, 1.89, 14.4, 147, 1370), (_, 0.686, 4.423, 34.54, 276),
                (_, 0.517, 3.943, 30.40, 232)),
    JagodeCase("VN 128x8 def.", 2, (8, 128), None,
                (_, 1.91, 14.1, 143, 1360), (_, 0.705, 4.159, 28.98, 228),
                (_, 0.476, 4.057, 30.44, 225)),
    JagodeCase("VN 64x16 cust.", 2, (16, 64), (4, 4, 4, 1),
                (0.410, 1.86, 13.9, 145, 1350), (0.174, 0.613, 4.231, 33.12, 265),
                (0.173, 0.573, 3.830, 28.88, 221)),
)

# The four CO mappings of Table 1, by their Table 1 name.
TABLE1_CASES = {
    "8x64 customized": CASES[0],
    "8x64 default": CASES[1],
    "64x8 customized": CASES[5],
    "64x8 default": CASES[6],
}

# [Bhatele2012] Fig. 1 (Blue Gene/P, 8x16x32 torus, 16 nodes, 1 MB messages). The figure's bars are
# not in the text; these relative times are what section II's sentences say, relative to the
# 16-node line on a mesh: the ring "improves the performance by 50%", the 8x2 mesh "the same",
# wrapping the 8x2's long side "an additional 22%", the 4x4 and 4x2x2 "the same performance
# boost"; elsewhere "75% reduction ... for the all-to-all" with the best mapping.
FIG1_TEXT = {
    "16x1 line, mesh": 1.00,
    "16x1 line, torus": 0.50,
    "8x2 plane, mesh": 0.50,
    "8x2 plane, long side torus": 0.39,
    "4x4 plane": None,
    "4x2x2 box": None,
}
FIG1_BEST_TEXT = 0.25
