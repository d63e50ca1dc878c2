"""Machine descriptions: network topology, link and memory speeds, 1-D FFT rate.

A :class:`Machine` is everything the estimators need to turn bytes and flops into seconds. It
is deliberately small and serialisable (JSON), so that a file written by
``volfft model calibrate`` on one machine can be read by ``volfft model predict`` anywhere.

Units: bytes, seconds, bytes per second. "MB" in the papers is ambiguous; this module never
uses it: every bandwidth is stored in bytes per second.
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

_SCHEMA = "volfft-machine/1"


@dataclass(frozen=True)
class Machine:
    """A machine: an n-D torus or mesh of nodes plus per-node compute speeds.

    Parameters
    ----------
    name:
        Free-form label printed in tables.
    dims:
        Number of nodes along each network dimension, e.g. ``(8, 8, 8)``.
    wrap:
        Per dimension, True where the dimension is a ring (torus links), False for an open line.
    tasks_per_node:
        MPI tasks placed on one node (Blue Gene/L: 1 in CO mode, 2 in VN mode).
    link_bandwidth:
        Raw bandwidth of one link in one direction, bytes/s.
    payload_efficiency:
        Fraction of the raw bandwidth that carries payload (packet headers and checksums cost
        the rest). See :func:`packet_efficiency`.
    hop_latency:
        Seconds added per router hop of the longest message of an exchange.
    message_latency:
        Seconds of software overhead per message a task sends (MPI call, matching, packet
        header preparation).
    memory_bandwidth:
        Bytes per second one task copies with one core to itself (read + write of the same
        bytes counts once); used for pack/unpack.
    fft_rate:
        1-D complex FFT speed of one core, in units of ``N log2 N`` per second (so a length-N
        transform takes ``N log2 N / fft_rate`` seconds). [Eleftheriou2005]'s bound of ``8 N log2 N``
        cycles gives ``fft_rate = clock / 8``.
    fft_rate_by_length:
        Optional measured rates for particular lengths (overrides ``fft_rate``; interpolated in
        log2 N between measured lengths).
    intranode_bandwidth:
        Aggregate bytes/s for messages between tasks of the same node (shared memory); None
        means unlimited (treated as free).
    injection_bandwidth:
        Bytes/s one task can push into the network; None means limited by links only.
    cores_per_node:
        Cores that run tasks; when ``tasks_per_node`` exceeds it, per-task compute and copy
        rates are shared (oversubscription).
    notes:
        Provenance of the numbers (paper, calibration run, ...).
    """

    name: str
    dims: tuple[int, ...]
    wrap: tuple[bool, ...]
    tasks_per_node: int = 1
    link_bandwidth: float = 1.0e9
    payload_efficiency: float = 1.0
    hop_latency: float = 0.0
    message_latency: float = 0.0
    memory_bandwidth: float = 1.0e9
    fft_rate: float = 1.0e8
    fft_rate_by_length: dict[int, float] = field(default_factory=dict)
    intranode_bandwidth: float | None = None
    injection_bandwidth: float | None = None
    cores_per_node: int | None = None
    notes: str = ""

    def __post_init__(self) -> None:
        dims = tuple(int(d) for d in self.dims)
        if not dims or any(d < 1 for d in dims):
            raise ValueError(f"dims: expected a non-empty sequence of positive ints, got {self.dims!r}")
        wrap = self.wrap
        if isinstance(wrap, bool):
            wrap = (wrap,) * len(dims)
        wrap = tuple(bool(w) for w in wrap)
        if len(wrap) != len(dims):
            raise ValueError(f"wrap: expected {len(dims)} flags (one per dimension of dims), "
                             f"got {len(wrap)}")
        # A ring of 1 or 2 nodes has no extra wrap-around link worth modelling; keep the flag
        # as given, routing handles it (distance n/2 ties are split evenly).
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "wrap", wrap)
        if int(self.tasks_per_node) < 1:
            raise ValueError(f"tasks_per_node: expected >= 1, got {self.tasks_per_node!r}")
        object.__setattr__(self, "tasks_per_node", int(self.tasks_per_node))
        for name in ("link_bandwidth", "memory_bandwidth", "fft_rate"):
            value = float(getattr(self, name))
            if not value > 0 or not math.isfinite(value):
                raise ValueError(f"{name}: expected a positive finite number, got {value!r}")
            object.__setattr__(self, name, value)
        if not 0 < float(self.payload_efficiency) <= 1:
            raise ValueError(f"payload_efficiency: expected a fraction in (0, 1], "
                             f"got {self.payload_efficiency!r}")
        for name in ("hop_latency", "message_latency"):
            if float(getattr(self, name)) < 0:
                raise ValueError(f"{name}: expected >= 0 seconds, got {getattr(self, name)!r}")
        for name in ("intranode_bandwidth", "injection_bandwidth"):
            value = getattr(self, name)
            if value is not None and not float(value) > 0:
                raise ValueError(f"{name}: expected a positive number or None, got {value!r}")
        rates = {int(k): float(v) for k, v in dict(self.fft_rate_by_length).items()}
        if any(k < 1 or v <= 0 for k, v in rates.items()):
            raise ValueError("fft_rate_by_length: expected {length >= 1: rate > 0}")
        object.__setattr__(self, "fft_rate_by_length", rates)

    # ----------------------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        """Number of network dimensions."""
        return len(self.dims)

    @property
    def nodes(self) -> int:
        """Number of nodes."""
        return int(np.prod(self.dims))

    @property
    def tasks(self) -> int:
        """Number of task slots (nodes x tasks per node)."""
        return self.nodes * self.tasks_per_node

    @property
    def effective_link_bandwidth(self) -> float:
        """Payload bytes per second through one link in one direction."""
        return self.link_bandwidth * self.payload_efficiency

    def core_share(self, tasks_on_node: int | None = None) -> float:
        """Fraction of a core each task gets (1 unless the node is oversubscribed)."""
        tasks = self.tasks_per_node if tasks_on_node is None else int(tasks_on_node)
        if self.cores_per_node is None or tasks <= self.cores_per_node:
            return 1.0
        return self.cores_per_node / tasks

    def fft_rate_for(self, length: int) -> float:
        """1-D FFT rate (``N log2 N`` per second) for transforms of ``length`` points."""
        if not self.fft_rate_by_length:
            return self.fft_rate
        lengths = np.array(sorted(self.fft_rate_by_length), dtype=float)
        rates = np.array([self.fft_rate_by_length[int(n)] for n in lengths])
        # Interpolate in log2(N): FFT rates vary smoothly with the number of butterfly levels.
        return float(np.interp(math.log2(max(length, 2)), np.log2(lengths), rates))

    def with_changes(self, **changes: Any) -> "Machine":
        """A copy with some fields replaced (e.g. another torus shape or tasks per node)."""
        if "dims" in changes and "wrap" not in changes:
            wrap = self.wrap[0] if len(set(self.wrap)) == 1 else None
            if wrap is None:
                raise ValueError("wrap: give wrap explicitly when changing dims of a machine "
                                 "whose dimensions mix torus and mesh")
            changes["wrap"] = (wrap,) * len(tuple(changes["dims"]))
        return dataclasses.replace(self, **changes)

    # ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (see :func:`load_machine` for the reverse)."""
        data = dataclasses.asdict(self)
        data["dims"] = list(self.dims)
        data["wrap"] = list(self.wrap)
        data["fft_rate_by_length"] = {str(k): v for k, v in self.fft_rate_by_length.items()}
        data["schema"] = _SCHEMA
        return data

    def save(self, path: str | Path) -> Path:
        """Write the machine as JSON to ``path`` and return the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n")
        return path


def packet_efficiency(packet_bytes: int, header_bytes: int, trailer_bytes: int = 0) -> float:
    """Payload fraction of a link whose packets carry headers and trailers.

    Blue Gene/L: 256-byte packets of which 16 bytes are header, plus 14 bytes of error control
    sent per packet: ``240 / 270 = 0.889`` ([Jagode2008], section 5.2).
    """
    if packet_bytes <= header_bytes:
        raise ValueError(f"packet_bytes: expected more than header_bytes={header_bytes}, "
                         f"got {packet_bytes}")
    return (packet_bytes - header_bytes) / (packet_bytes + trailer_bytes)


def machine_from_dict(data: dict[str, Any]) -> Machine:
    """Build a :class:`Machine` from a dictionary as written by :meth:`Machine.to_dict`."""
    if not isinstance(data, dict):
        raise TypeError(f"machine data: expected a dict, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(Machine)}
    unknown = set(data) - known - {"schema", "calibration"}
    if unknown:
        raise ValueError(f"machine data: unknown keys {sorted(unknown)}; expected some of "
                         f"{sorted(known)}")
    kwargs = {k: v for k, v in data.items() if k in known}
    for required in ("name", "dims", "wrap"):
        if required not in kwargs:
            raise ValueError(f"machine data: missing key {required!r}")
    kwargs["dims"] = tuple(kwargs["dims"])
    wrap = kwargs["wrap"]
    kwargs["wrap"] = wrap if isinstance(wrap, bool) else tuple(wrap)
    return Machine(**kwargs)


def load_machine(path: str | Path) -> Machine:
    """Read a machine JSON file (as written by ``volfft model calibrate``)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"machine file: {path} does not exist") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"machine file: {path} is not valid JSON ({err})") from None
    return machine_from_dict(data)


def this_machine(path: str | Path | None = None) -> Machine:
    """The calibrated description of the machine we run on.

    Reads ``path``, else ``$VOLFFT_MACHINE``, else ``./machine.json``: the file written by
    ``volfft model calibrate``.
    """
    import os

    path = Path(path or os.environ.get("VOLFFT_MACHINE") or "machine.json")
    if not path.exists():
        raise ValueError(f"machine file: {path} does not exist; run `volfft model calibrate "
                         f"--out {path}` first (or set VOLFFT_MACHINE)")
    return load_machine(path)


def blue_gene_l(dims: Sequence[int] = (8, 8, 8), tasks_per_node: int = 1,
                torus: bool = True) -> Machine:
    """Blue Gene/L as [Jagode2008] describes it (section 5).

    Links: 2 bits per cycle per direction at 700 MHz. [Jagode2008] writes this as "167 MB/s" and
    the payload limit as "148 MB/s"; we take its numbers as 10^6 bytes (the issue's
    "148 MB/s"), i.e. 167e6 B/s raw x 240/270 = 148.4e6 B/s of payload. (Read as MiB they would
    be 4.9% larger and every predicted exchange time 4.7% shorter; see docs/model.md.)

    Compute: [Eleftheriou2005]'s idealised 1-D FFT bound of 8 N log2 N cycles at 700 MHz. Latencies are
    literature values for BG/L MPI (about 3 us per message, about 100 ns per hop), not fitted to
    any table. Memory copy bandwidth per core about 1 GB/s (PowerPC 440, L3-resident data).
    In VN mode (``tasks_per_node=2``) each task has its own core.
    """
    dims = tuple(int(d) for d in dims)
    return Machine(
        name=f"Blue Gene/L {'x'.join(map(str, dims))} {'torus' if torus else 'mesh'}"
             f" ({'CO' if tasks_per_node == 1 else 'VN'})",
        dims=dims,
        wrap=(bool(torus),) * len(dims),
        tasks_per_node=tasks_per_node,
        link_bandwidth=167.0e6,
        payload_efficiency=packet_efficiency(256, 16, 14),
        hop_latency=100e-9,
        message_latency=3e-6,
        memory_bandwidth=1.0e9,
        fft_rate=700e6 / 8.0,
        cores_per_node=2,
        notes="[Jagode2008] section 5 (links, packets), [Eleftheriou2005] section 2 (8 N log2 N cycles)",
    )


def blue_gene_p(dims: Sequence[int] = (8, 16, 32), tasks_per_node: int = 1) -> Machine:
    """Blue Gene/P torus ([Bhatele2012], Fig. 1): 425 MB/s per link direction, 850 MHz cores."""
    dims = tuple(int(d) for d in dims)
    return Machine(
        name=f"Blue Gene/P {'x'.join(map(str, dims))} torus",
        dims=dims,
        wrap=(True,) * len(dims),
        tasks_per_node=tasks_per_node,
        link_bandwidth=425e6,
        payload_efficiency=packet_efficiency(256, 16, 14),
        hop_latency=100e-9,
        message_latency=3e-6,
        memory_bandwidth=2.0e9,
        fft_rate=850e6 / 8.0,
        cores_per_node=4,
        notes="[Bhatele2012] Fig. 1 setting; BG/P link speed 425 MB/s per direction",
    )


def parse_dims(text: str) -> tuple[int, ...]:
    """Parse ``"8x8x8"`` into ``(8, 8, 8)``."""
    try:
        dims = tuple(int(part) for part in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"dims: expected integers joined by 'x' such as 8x8x8, got {text!r}") from None
    if not dims or any(d < 1 for d in dims):
        raise ValueError(f"dims: expected positive integers such as 8x8x8, got {text!r}")
    return dims
