"""Pictures (PNG, matplotlib with the Agg backend): predicted vs measured bars, link-load maps."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from .machine import Machine
from .simulator import SimulationResult


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt

    return plt


def plot_bars(labels: Sequence[str], predicted: Sequence[float],
              measured: Sequence[float | None], path: str | Path, title: str,
              ylabel: str = "ms", predicted_label: str = "predicted",
              measured_label: str = "measured") -> Path:
    """Grouped bars of predicted and measured values (missing measurements are left out)."""
    plt = _pyplot()
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 4.2))
    ax.bar(x - 0.2, predicted, 0.4, label=predicted_label, color="#4477aa")
    meas = np.array([np.nan if m is None else m for m in measured], dtype=float)
    ax.bar(x + 0.2, meas, 0.4, label=measured_label, color="#ee6677")
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def link_load_maps(result: SimulationResult, machine: Machine) -> list[np.ndarray]:
    """Per direction, the link loads (both senses) summed along every axis after the first two:
    [Bhatele2012] Fig. 12's projection of a 3-D torus onto a plane, bundles along the third axis."""
    maps = []
    for k in range(machine.ndim):
        loads = result.direction_loads(k)
        while loads.ndim > 2:
            loads = loads.sum(axis=-1)
        if loads.ndim == 1:
            loads = loads[:, None]
        maps.append(loads)
    return maps


def plot_link_loads(result: SimulationResult, machine: Machine, path: str | Path,
                    title: str = "") -> Path:
    """One panel per network direction: link bytes projected along the third axis (MB)."""
    plt = _pyplot()
    maps = link_load_maps(result, machine)
    vmax = max(float(m.max()) for m in maps) / 1e6 or 1.0
    names = "XYZABCDEF"
    fig, axes = plt.subplots(1, len(maps), figsize=(3.6 * len(maps) + 0.8, 3.6), squeeze=False)
    for k, (ax, m) in enumerate(zip(axes[0], maps)):
        image = ax.imshow(m.T / 1e6, origin="lower", cmap="viridis", vmin=0, vmax=vmax)
        ax.set_title(f"{names[k]} links (max {m.max() / 1e6:.3g} MB)", fontsize=9)
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1] if machine.ndim > 1 else "")
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.85, label="MB, summed along "
                 + (names[2] if machine.ndim > 2 else "-"))
    fig.suptitle(title or f"link loads ({result.routing} routing)", fontsize=10)
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
