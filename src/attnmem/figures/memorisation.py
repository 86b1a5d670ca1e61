"""Figures of bits stored per parameter by small trained models (issue 13 item 4)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style

# The two settings: cube, legend label, the slope's name in the title, colour, marker.
SETTINGS = (
    ("fact_capacity", "MLPs, random facts", "facts", style.STORED, "o"),
    ("sequence_capacity", "transformers, random sequences", "sequences", style.OBSERVED, "s"),
)


@figure(
    "memory-math/ch5-bits-per-parameter",
    title="Bits small trained models store per parameter",
    cubes=("fact_capacity", "sequence_capacity"),
)
def bits_per_parameter(cubes):
    """Bits stored against parameter count (log scales; one marker per seed and model size) by
    one-hidden-layer ReLU MLPs trained on random key -> value facts (violet circles) and by
    one-layer causal transformers trained to memorise uniform random token sequences (blue
    squares), with the lines of 2 and 3.6 bits per parameter the notes cite (red; measured on
    far larger transformers). The data always hold more bits than the models store, so what
    they store is what they can hold after the training budget; the title gives the fitted
    slope of bits against parameters, mean and sd over seeds."""
    fig, ax = plt.subplots(figsize=(5.5, 3.8), layout="constrained")
    sizes, slopes = [], []
    for cube, label, short, colour, marker in SETTINGS:
        ds = cubes[cube]
        p = ds["n_params"].values.ravel()
        ax.plot(p, ds["bits"].values.ravel(), marker, color=colour, alpha=0.7, label=label)
        sizes.append(p)
        slope = ds["slope"]
        slopes.append(
            f"{short} {float(slope.mean()):.2f} ± {float(slope.std(ddof=1)):.2f} "
            f"({slope.sizes['seed']} seeds)"
        )
    p = np.concatenate(sizes)
    grid = np.array([p.min() / 1.5, p.max() * 1.5])
    for rate, ls in ((3.6, "-"), (2.0, "--")):
        ax.plot(grid, rate * grid, ls, color=style.LIMIT, label=f"{rate:g} bits per parameter")
    ax.set_title("fitted slope, bits/param: " + "; ".join(slopes), fontsize=style.SMALL)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("parameters (log scale)")
    ax.set_ylabel("bits stored (bits, log scale)")
    ax.legend(fontsize=style.SMALL)
    return fig
