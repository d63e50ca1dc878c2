"""The plan description the model reads: what the library will do, from the C++ core.

The description comes from ``volfft.describe(shape, grid=..., kind=...)`` (the binding of the
core's MPI-free plan logic). This module only checks it and derives the few quantities the
estimators need; it never recomputes the decomposition. The contract is documented in
docs/model.md::

    {"shape": (n0, n1[, n2]), "kind": "c2c"|"r2c"|"r2r", "element_bytes": 16 (8 for r2r), "grid": (p0, p1),
     "exchanges": [{"name": "row"|"column"|"slab",
                    "messages": int64 (M, 3): src virtual rank, dst virtual rank, bytes}, ...],
     "stages": [{"axis": a, "length": n, "count_per_rank": int64 (P,), "kind": "c2c"|"r2c"}, ...],
     "pack_bytes_per_rank": optional, one int64 (P,) array per exchange}
"""
from __future__ import annotations

import importlib
import math
from typing import Any, Callable

import numpy as np

DescribeFn = Callable[..., dict]


def check_description(desc: Any) -> dict:
    """Validate a plan description and return it with arrays as int64 numpy arrays.

    Raises
    ------
    TypeError, ValueError
        Naming the key that does not match the contract.
    """
    if not isinstance(desc, dict):
        raise TypeError(f"description: expected a dict (see docs/model.md), got {type(desc).__name__}")
    for key in ("shape", "kind", "element_bytes", "grid", "exchanges", "stages"):
        if key not in desc:
            raise ValueError(f"description: missing key {key!r}")
    shape = tuple(int(n) for n in desc["shape"])
    if len(shape) not in (2, 3) or min(shape) < 1:
        raise ValueError(f"description['shape']: expected 2 or 3 positive extents, got {shape}")
    grid = tuple(int(p) for p in desc["grid"])
    if len(grid) != 2 or min(grid) < 1:
        raise ValueError(f"description['grid']: expected (p0, p1) positive, got {grid}")
    if desc["kind"] not in ("c2c", "r2c", "r2r"):
        raise ValueError(f"description['kind']: expected 'c2c', 'r2c' or 'r2r', got {desc['kind']!r}")
    nranks = grid[0] * grid[1]
    def checked(key: str) -> list:
        result = []
        for k, ex in enumerate(desc.get(key, [])):
            msgs = np.asarray(ex["messages"], dtype=np.int64).reshape(-1, 3)
            if msgs.size and (msgs[:, :2].min() < 0 or msgs[:, :2].max() >= nranks):
                raise ValueError(f"description[{key!r}][{k}]['messages']: ranks must be in "
                                 f"0..{nranks - 1}")
            if msgs.size and msgs[:, 2].min() < 0:
                raise ValueError(f"description[{key!r}][{k}]['messages']: bytes must be >= 0")
            result.append({"name": str(ex.get("name", f"{key}{k}")), "messages": msgs})
        return result

    exchanges = checked("exchanges")
    # A plan on the user's arrays: the reshapes before its first stage ("reshape_in") and after
    # its last ("reshape_out"); optional (plans on their own arrays have none).
    reshapes = checked("reshapes")
    stages = []
    for k, st in enumerate(desc["stages"]):
        counts = np.asarray(st["count_per_rank"], dtype=np.int64)
        if counts.shape != (nranks,):
            raise ValueError(f"description['stages'][{k}]['count_per_rank']: expected {nranks} "
                             f"entries (one per rank), got shape {counts.shape}")
        stages.append({"axis": int(st["axis"]), "length": int(st["length"]),
                       "count_per_rank": counts, "kind": str(st.get("kind", "c2c"))})
    out = dict(desc)
    out.update(shape=shape, grid=grid, element_bytes=int(desc["element_bytes"]),
               exchanges=exchanges, stages=stages, reshapes=reshapes)
    return out


def nranks(desc: dict) -> int:
    """Number of ranks of the plan's grid."""
    p0, p1 = desc["grid"]
    return int(p0) * int(p1)


def total_bytes(desc: dict) -> int:
    """Bytes of the whole array an exchange redistributes (complex; real for r2r): [Jagode2008]'s D_T.

    Every element carries ``desc["fields"]`` values (a batch's fields; 1 when absent), as the
    messages do.
    """
    shape = list(desc["shape"])
    if desc["kind"] == "r2c":
        shape[-1] = shape[-1] // 2 + 1
    return int(math.prod(shape)) * int(desc["element_bytes"]) * int(desc.get("fields", 1))


def stage_output_length(stage: dict) -> int:
    """Complex points a stage writes per transform (r2c: n//2 + 1)."""
    return stage["length"] // 2 + 1 if stage["kind"] == "r2c" else stage["length"]


def preceding_stage(desc: dict, index: int) -> int:
    """Index of the FFT stage that runs just before exchange ``index`` in forward order.

    By name: a ``"row"`` exchange follows the first stage (axis 2 of a pencil), a
    ``"column"`` or ``"slab"`` exchange follows the second-to-last stage (the last stage
    transforms the axis the exchange made whole). The library omits exchanges inside groups of
    one rank, so positions are not enough. Other names: the first ``S - E`` stages run, then
    exchange ``e`` follows stage ``S - E - 1 + e``.
    """
    nstages = len(desc["stages"])
    name = desc["exchanges"][index]["name"]
    if name == "row":
        return 0
    if name in ("column", "slab"):
        return nstages - 2
    lead = nstages - len(desc["exchanges"])
    if lead < 1:
        raise ValueError("description: an exchange must follow at least one FFT stage")
    return lead - 1 + index


def local_bytes_before_exchange(desc: dict, index: int) -> np.ndarray:
    """Bytes each rank holds when exchange ``index`` starts (what pack reads, unpack writes).

    Uses ``pack_bytes_per_rank`` when the description has it, otherwise the output of the
    stage that precedes the exchange in forward order.
    """
    packed = desc.get("pack_bytes_per_rank")
    if packed is not None and len(packed) > index:
        return np.asarray(packed[index], dtype=np.int64)
    stage = desc["stages"][preceding_stage(desc, index)]
    return stage["count_per_rank"] * stage_output_length(stage) * int(desc["element_bytes"])


def load_describe(spec: str = "volfft:describe") -> DescribeFn:
    """Import the function that produces plan descriptions, ``"module:function"``.

    The default is the binding's ``volfft.describe``; tests and offline studies may point to
    another provider with the same signature ``describe(shape, grid=(p0, p1), kind=...)``.
    """
    if ":" not in spec:
        raise ValueError(f"describe: expected 'module:function', got {spec!r}")
    module_name, func_name = spec.split(":", 1)
    try:
        module = importlib.import_module(module_name)
        func = getattr(module, func_name)
    except Exception as err:  # the binding may be missing its native part: say which and why
        raise RuntimeError(
            f"describe: cannot load {spec!r} ({type(err).__name__}: {err}). The plan "
            "description comes from the compiled core (volfft.describe); build it, or pass "
            "--describe MODULE:FUNCTION naming another provider of the same contract.") from err
    return func


def describe_plan(describe: DescribeFn, shape: tuple[int, ...], grid: tuple[int, int],
                  kind: str = "c2c", **extra: Any) -> dict:
    """Call a description provider and check what it returns.

    ``extra`` keywords (e.g. ``dtype=np.complex64`` for single precision) are passed on.
    """
    return check_description(describe(tuple(shape), grid=tuple(grid), kind=kind, **extra))
