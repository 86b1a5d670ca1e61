"""Figures of linear self-attention trained on in-context regression (issue 13 item 3)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style


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
    ds = cubes["icl_trained"]
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
    ax.set_ylabel("query MSE / mean y_q^2")
    ax.legend(fontsize=style.SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=2)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_xlabel("examples per prompt m (log scale)")
    bx.set_ylabel("gap to one step / its variance\n(1, log)")
    bx.legend(fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/E3-softmax-vs-linear",
    title="Trained softmax and linear layers against one gradient step",
    cubes=("icl_softmax_trained",),
)
def softmax_vs_linear(cubes):
    """One softmax and one linear self-attention layer trained alike on noiseless regression
    prompts (d = 4), each compared with one gradient step at its best size on held-out
    prompts. Left: mean squared gap between the layer's and the step's predictions over the
    variance of the step's, per seed (violet linear, copper softmax; log scale). Right: query
    error over mean y_q^2 of the two layers and of the step (green line)."""
    ds = cubes["icl_softmax_trained"]
    d = ds["d"].values[0]
    one = ds.sel(d=d)
    m = one["m"].values
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
    for k, s in enumerate(one["seed"].values):
        seed = one.sel(seed=s)
        first = k == 0
        for var, colour, mark, name in (
            ("linear", style.STORED, "o", "linear layer"),
            ("softmax", style.QUERY, "s", "softmax layer"),
        ):
            label = name if first else None
            ax.plot(m, seed[f"gap_{var}"], mark, color=colour, alpha=0.7, label=label)
            bx.plot(m, seed[f"loss_{var}"], mark, color=colour, alpha=0.7, label=label)
        label = "one step, best size" if first else None
        bx.plot(m, seed["loss_gd"], "-", color=style.RESULT, alpha=0.6, label=label)
    for axis in (ax, bx):
        axis.set_xscale("log", base=2)
        axis.set_xticks(m, [str(v) for v in m])
        axis.set_xlabel(f"examples per prompt m (d = {d})")
    ax.set_yscale("log")
    ax.set_ylabel("gap to one step / its variance\n(1, log)")
    ax.legend(fontsize=style.SMALL)
    bx.set_ylabel("query MSE / mean y_q^2")
    bx.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch11-trained-layers-gdpp",
    title="Trained linear self-attention layers against K plain steps and GD++",
    cubes=("icl_depth_trained",),
)
def layers_against_gdpp(cubes):
    """K linear self-attention layers trained together on noiseless regression prompts, each
    run (one per seed and setting) compared on held-out prompts with K plain descent steps of
    one best size (green circles), K steps with a best size each (green triangles) and K
    layers of GD++ at their best (copper squares). Left: mean squared gap between the trained
    predictions and each algorithm's over the variance of the algorithm's (log scale). Right:
    query error over mean y_q^2 of the trained layers (violet diamonds) and of the
    algorithms.
    A run whose trained error stays well above GD++'s has not finished training."""
    ds = cubes["icl_depth_trained"]
    runs = ds.stack(run=("d", "m", "layers", "seed")).transpose("run", ...)
    labels = [
        f"d{d} m{m} K{k}\nseed {s}"
        for d, m, k, s in zip(*(runs[c].values for c in ("d", "m", "layers", "seed")), strict=True)
    ]
    x = np.arange(len(labels))
    algorithms = (
        ("gd", "o", style.RESULT, "K steps, one size"),
        ("gd_free", "^", style.RESULT, "K steps, a size each"),
        ("gdpp", "s", style.QUERY, "GD++, K layers"),
    )
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    bx.plot(x, runs["loss_trained"], "D", color=style.STORED, ms=9, label="trained layers")
    for var, mark, colour, name in algorithms:
        ax.plot(x, runs[f"gap_{var}"], mark, color=colour, ms=7, alpha=0.8, label=name)
        bx.plot(x, runs[f"loss_{var}"], mark, color=colour, ms=7, alpha=0.8, label=name)
    for axis in (ax, bx):
        axis.set_xticks(x, labels, fontsize=style.SMALL)
    ax.set_yscale("log")
    ax.set_ylabel("gap to the algorithm / its variance (1, log)")
    ax.legend(fontsize=style.SMALL)
    bx.set_yscale("log")
    bx.set_ylabel("query MSE / mean y_q^2 (1, log)")
    bx.legend(fontsize=style.SMALL)
    return fig
