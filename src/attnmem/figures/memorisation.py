"""Figures of bits stored per parameter by small trained models (issue 13 item 4)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import style
from .catalog import figure


@figure(
    "memory-math/ch5-bits-per-parameter",
    title="Bits a small trained MLP stores per parameter",
    cubes=("fact_capacity",),
)
def bits_per_parameter(cubes):
    """Bits of random key -> value facts stored by one-hidden-layer ReLU MLPs against their
    parameter count (violet, one marker per seed and width; log scales), with the lines of 2
    and 3.6 bits per parameter the notes cite (red; measured on far larger transformers).
    The facts always hold 8 bits per parameter, so the models are at capacity: what they store
    is what they can hold after the training budget."""
    ds = cubes["fact_capacity"]
    fig, ax = plt.subplots(figsize=(5.5, 3.8), layout="constrained")
    p = ds["n_params"].values.ravel()
    ax.plot(p, ds["bits"].values.ravel(), "o", color=style.STORED, alpha=0.7, label="trained MLPs")
    grid = np.array([p.min() / 1.5, p.max() * 1.5])
    for rate, ls in ((3.6, "-"), (2.0, "--")):
        ax.plot(grid, rate * grid, ls, color=style.LIMIT, label=f"{rate:g} bits per parameter")
    slope = ds["slope"]
    ax.set_title(
        f"fitted slope {float(slope.mean()):.2f} ± {float(slope.std(ddof=1)):.2f} "
        f"bits/param (sd over {slope.sizes['seed']} seeds)",
        fontsize=style.SMALL,
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("parameters (log scale)")
    ax.set_ylabel("bits stored (bits, log scale)")
    ax.legend(fontsize=style.SMALL)
    return fig
