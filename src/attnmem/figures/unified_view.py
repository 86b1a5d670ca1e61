"""Figures of memory-math's unified view: the two-question grid with its impossible corner
(chapter 12, line 55) and the seven layers under the same four questions (chapter 13, line 57)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from ..views import figure
from . import style

# Our own short answers to the four questions, per layer (memory-math chapter 12's table).
FOUR_ANSWERS = {
    "linear layer": ("W, fixed", "SGD in training", "linear: W q", "by interference"),
    "MLP": ("two weight matrices", "SGD in training", "ReLU of key scores", "by interference"),
    "softmax attention": ("every pair, grows", "append", "softmax average", "nothing (blurs)"),
    "linear attention": ("S, fixed", "add v k^T", "linear: S q", "by interference"),
    "decayed / gated": ("S, fixed", "gamma S + v k^T", "linear: S q", "by decay (chosen)"),
    "delta rule": ("S, fixed", "correct the error", "linear: S q", "by overwriting"),
    "test-time training": ("a small model", "gradient step", "f_S(q)", "by learning"),
}
LAYER_COLOUR = {
    "linear layer": style.GREY,
    "MLP": style.STORED,
    "softmax attention": style.OBSERVED,
    "linear attention": style.QUERY,
    "decayed / gated": style.RESULT,
    "delta rule": style.LIMIT,
    "test-time training": "black",
}


@figure(
    "memory-math/ch12-corner",
    title="Layers sorted by state and read: the empty corner",
    cubes=("unified_view", "fast_weight_algebra"),
)
def corner(cubes):
    """Layers sorted by two questions: does the state stay fixed or grow with the sequence, and
    is the read linear in the query? Linear attention and state-space layers sit in the
    fixed-linear cell, the MLP in the fixed-nonlinear one, softmax attention in the
    growing-nonlinear one. The dashed corner is empty because a linear read of all stored pairs
    is the read of one fixed matrix; the printed gap is the largest difference between the two
    computations in the fast_weight_algebra cube."""
    uv, fw = cubes["unified_view"], cubes["fast_weight_algebra"]
    collapse = float(fw["polynomial_state_gap"].max())
    dpfp = float(uv["dpfp_state_gap"])
    fig, ax = plt.subplots(figsize=(7.6, 5.4), layout="constrained")
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 8.2)
    cells = {
        (0, 1): ("fixed state, linear read", "linear attention,\nstate-space layers", style.QUERY),
        (1, 1): ("fixed state, nonlinear read", "MLP (and TTT-MLP)", style.STORED),
        (1, 0): ("growing state, nonlinear read", "softmax attention", style.OBSERVED),
        (0, 0): ("growing state, linear read", "cannot exist:\nit is a fixed state", style.LIMIT),
    }
    for (col, row), (title, body, colour) in cells.items():
        x0, y0 = 1.0 + 4.4 * col, 0.6 + 3.6 * row
        dashed = (col, row) == (0, 0)
        ax.add_patch(
            Rectangle(
                (x0, y0),
                4.0,
                3.2,
                facecolor=colour,
                alpha=0.08 if dashed else 0.18,
                edgecolor=colour,
                linestyle="--" if dashed else "-",
                lw=1.5,
            )
        )
        ax.text(x0 + 2.0, y0 + 2.75, title, ha="center", weight="bold", color=colour)
        ax.text(x0 + 2.0, y0 + 1.6, body, ha="center", va="center", fontsize=style.LARGE)
    ax.add_patch(
        FancyArrowPatch(
            (3.0, 2.2),
            (3.0, 4.4),
            arrowstyle="-|>",
            mutation_scale=18,
            color=style.LIMIT,
            lw=1.8,
        )
    )
    ax.text(
        3.0,
        1.0,
        f"sum v_i (k_i.q) = (sum v_i k_i^T) q\nlargest gap computed: {collapse:.1e}",
        ha="center",
        fontsize=style.SMALL,
        color=style.LIMIT,
    )
    ax.text(
        7.4,
        1.0,
        f"a finite feature map (DPFP) compresses too:\ngap {dpfp:.1e}; the exp kernel cannot",
        ha="center",
        fontsize=style.SMALL,
        color=style.GREY,
    )
    ax.text(3.0, 8.0, "linear read", ha="center", weight="bold")
    ax.text(7.4, 8.0, "nonlinear read", ha="center", weight="bold")
    ax.text(0.5, 6.0, "fixed", rotation=90, va="center", weight="bold")
    ax.text(0.5, 2.2, "grows", rotation=90, va="center", weight="bold")
    return fig


@figure(
    "memory-math/ch13-seven-layers", title="Seven layers, four questions", cubes=("unified_view",)
)
def seven_layers(cubes):
    """Seven layers answer the same four questions in our own short words: what the state is,
    its write rule, its read rule and what it loses. On the right, the number of values each
    layer keeps after n tokens at width 64, on log axes: every fixed state stays flat (an MLP
    with 4d hidden units holds 8 d^2) while the softmax cache grows as 2 n d and passes them
    all."""
    uv = cubes["unified_view"]
    numbers = uv["layer_state_numbers"]
    layers = [str(x) for x in numbers["seven_layer"].values]
    n = numbers["context"].values.astype(float)
    fig = plt.figure(figsize=(12.5, 5.0), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=[1.45, 1.0])
    tab = fig.add_subplot(grid[0])
    tab.set_axis_off()
    tab.set_xlim(0, 10)
    tab.set_ylim(0, len(layers) + 1.2)
    heads = ("state", "write", "read", "forgets")
    xs = (3.25, 5.05, 6.85, 8.75)
    for x, h in zip(xs, heads, strict=True):
        tab.text(x, len(layers) + 0.5, h, ha="center", weight="bold")
    for i, name in enumerate(layers):
        y = len(layers) - 0.5 - i
        tab.text(0.0, y, name, weight="bold", color=LAYER_COLOUR[name], va="center")
        for x, answer in zip(xs, FOUR_ANSWERS[name], strict=True):
            tab.text(x, y, answer, ha="center", va="center", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[1])
    flat = [name for i, name in enumerate(layers) if name not in ("MLP", "softmax attention")]
    same = numbers.sel(seven_layer=flat).values
    if np.allclose(same, same[0]):  # the five fixed d x d states coincide: draw them once
        ax.plot(
            n,
            same[0],
            color=style.QUERY,
            lw=1.6,
            label="the five d x d states:\n" + ", ".join(flat),
        )
    else:
        for name in flat:
            ax.plot(n, numbers.sel(seven_layer=name).values, color=LAYER_COLOUR[name], label=name)
    for name in ("MLP", "softmax attention"):
        ax.plot(
            n, numbers.sel(seven_layer=name).values, color=LAYER_COLOUR[name], lw=2.0, label=name
        )
    ax.axvline(4096, color=style.GREY, ls=":", lw=1)
    ax.text(4096, ax.get_ylim()[1], " n = 4,096", color=style.GREY, va="top", fontsize=style.SMALL)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tokens read n (log scale)")
    ax.set_ylabel("numbers the layer keeps (log scale)")
    ax.set_title("state size at width d = 64")
    ax.legend(fontsize=style.SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    ax.set_ylim(50, 3e7)
    return fig
