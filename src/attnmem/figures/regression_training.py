"""Figures of linear self-attention trained on in-context regression (issue 13 item 3)."""

from __future__ import annotations

import matplotlib.pyplot as plt

from . import style
from .catalog import figure


@figure(
    "first-principles/E3-trained-lsa",
    title="Trained linear self-attention against one gradient step",
    cubes=("icl_trained",),
)
def trained_lsa(cubes):
    """One linear self-attention layer trained from random weights on noiseless regression
    prompts (x and w standard normal), against one gradient step at its best step and least
    squares. Left: query error over mean y_q^2 against prompt length, one panel line per
    dimension, each seed a marker (violet trained, green descent, black dashed least squares,
    which is exact here once m >= d). Right: mean squared gap between the trained and descent
    predictions over the variance of descent's, per seed; the runs far above the others
    stalled away from the descent solution within the training budget."""
    ds = cubes["icl_trained"].sel(layers=1)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    for i, d in enumerate(ds["d"].values):
        one = ds.sel(d=d)
        m = one["m"].values
        mark = "o^sD"[i % 4]
        for k, s in enumerate(one["seed"].values):
            first = k == 0
            seed = one.sel(seed=s)
            label = f"trained, d = {d}" if first else None
            ax.plot(m, seed["loss_trained"], mark, color=style.STORED, alpha=0.6, label=label)
            label = f"one step, d = {d}" if first else None
            ax.plot(m, seed["loss_gd"], "-", color=style.RESULT, alpha=0.5, label=label)
            label = f"d = {d}" if first else None
            bx.plot(m, seed["gap_gd"], mark, color=style.STORED, alpha=0.7, label=label)
        ax.plot(
            m,
            one["loss_ls"].mean("seed"),
            "--",
            color="black",
            label="least squares" if i == 0 else None,
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("examples per prompt m (log scale)")
    ax.set_ylabel("query MSE / mean y_q^2 (1)")
    ax.legend(fontsize=style.SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=2)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_xlabel("examples per prompt m (log scale)")
    bx.set_ylabel("gap to one step / its variance (1, log)")
    bx.legend(fontsize=style.SMALL)
    return fig
