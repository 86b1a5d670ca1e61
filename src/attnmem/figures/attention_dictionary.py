"""Figures of memory-math chapters 6-8: the soft dictionary on a circle, temperature, the rank
lift of the softmax, the gradient diagram, the trained key, and the block's two lookups."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ..experiments.attention_dictionary import CIRCLE_KEY_DEG, CIRCLE_VALUES, unit
from . import style

CIRCLE_DEFAULT_BETA = 4.0  # our default for the circle widget
CIRCLE_ANGLES = (0, 90, 180, 270)
RANK_DEFAULT_BETA = 1.0
WALK_DEFAULT_STEP = 20


def circle_lookup(cubes):
    """Small multiples over the query's angle: keys on the circle sized by their share, and the
    shares beside the values they multiply, with the output o."""
    ds = cubes["soft_dictionary_circle"].sel(beta=CIRCLE_DEFAULT_BETA)
    keys = unit(CIRCLE_KEY_DEG)
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.6), layout="constrained")
    for col, ang in enumerate(CIRCLE_ANGLES):
        pt = ds.sel(angle=ang)
        w = pt["weight"].values
        ax = axes[0, col]
        t = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color=style.GREY, lw=0.6)
        ax.scatter(keys[:, 0], keys[:, 1], s=30 + 900 * w, color=style.OBSERVED, zorder=3)
        for i, (x, y) in enumerate(keys):
            ax.text(
                1.25 * x,
                1.25 * y,
                f"v={CIRCLE_VALUES[i]:+.1f}",
                ha="center",
                va="center",
                fontsize=7,
                color=style.STORED,
            )
        q = unit(ang)
        ax.annotate(
            "", xy=q, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=style.QUERY, lw=2)
        )
        ax.set_aspect("equal")
        ax.set_xlim(-1.5, 1.5)
        ax.set_ylim(-1.5, 1.5)
        ax.set_title(f"query at {ang}°: o = {float(pt['output']):+.3f}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        bar = axes[1, col]
        x = np.arange(len(w))
        bar.bar(x - 0.2, w, width=0.4, color=style.OBSERVED, label="share a_i")
        bar.bar(x + 0.2, CIRCLE_VALUES, width=0.4, color=style.STORED, label="value v_i")
        bar.axhline(float(pt["output"]), color=style.RESULT, lw=1.5, label="output o")
        bar.set_xticks(x, [f"k{i + 1}" for i in x])
        bar.set_ylim(-1, 1)
        bar.set_ylabel("share or value (1)")
        if col == 0:
            bar.legend(fontsize=7, loc="lower left")
    fig.suptitle(
        f"soft dictionary on a circle of seven unit keys, β = {CIRCLE_DEFAULT_BETA:g} "
        "(dot size: share)"
    )
    return fig


def temperature(cubes):
    """Shares of the seven keys for one query as beta sweeps 0 to 14, with 1/7 dashed."""
    ds = cubes["soft_dictionary_circle"].sel(angle=90)
    ds = ds.sel(beta=[b for b in ds["beta"].values if b <= 14])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    for i, key in enumerate(ds["key"].values):
        ax.plot(
            ds["beta"],
            ds["weight"].sel(key=key),
            marker="o",
            ms=3,
            color=style.OBSERVED
            if i == int(np.argmax(ds["weight"].sel(beta=14).values))
            else style.GREY,
            label=str(key) if i < 7 else None,
        )
    ax.axhline(1 / 7, color=style.LIMIT, ls="--", lw=1, label="1/7")
    ax.set_xlabel("inverse temperature β (1)")
    ax.set_ylabel("share a_i (1)")
    ax.set_title("query at 90°: from an average to a lookup")
    ax.legend(fontsize=7, ncol=2)
    ax2.plot(ds["beta"], ds["output"], color=style.RESULT, marker="o", ms=3, label="soft output o")
    ax2.axhline(
        float(np.mean(CIRCLE_VALUES)),
        color=style.LIMIT,
        ls="--",
        lw=1,
        label="mean of the values (β = 0)",
    )
    ax2.axhline(
        float(ds["hard_output"].isel(beta=0)),
        color=style.STORED,
        ls=":",
        label="hard lookup (β → ∞)",
    )
    ax2.set_xlabel("inverse temperature β (1)")
    ax2.set_ylabel("output o (1)")
    ax2.legend(fontsize=8)
    ax2.set_title("the output moves from the mean to the best match's value")
    return fig


def rank_lift(cubes):
    """The rank-2 score matrix of one random example and its attention matrix at several beta,
    each titled with its numerical rank; the default beta = 1 is framed."""
    ds = cubes["attention_matrix_views"].isel(n=0, d_k=0)
    betas = [0.1, 1.0, 4.0, 14.0, 100.0]
    fig, axes = plt.subplots(1, len(betas) + 1, figsize=(15, 3.3), layout="constrained")
    s = ds["example_scores"].values
    axes[0].imshow(s, cmap="Blues")
    axes[0].set_title(f"scores Q K^T, rank {int(ds['score_rank_max'])}", fontsize=9)
    for ax, b in zip(axes[1:], betas, strict=True):
        a = ds["example_attention"].sel(beta=b).values
        ax.imshow(a, cmap="Purples", vmin=0, vmax=1)
        rank = int(ds["example_attention_rank"].sel(beta=b))
        ax.set_title(
            f"A at β = {b:g}: rank {rank}",
            fontsize=9,
            color=style.QUERY if b == RANK_DEFAULT_BETA else "black",
        )
        if b == RANK_DEFAULT_BETA:
            for side in ax.spines.values():
                side.set_visible(True)
                side.set_color(style.QUERY)
                side.set_linewidth(2.5)
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
        ax.set_xlabel("key j")
    axes[0].set_ylabel("query i")
    fig.suptitle(
        "the softmax lifts a rank-2 score matrix (n = 10, d_k = 2) to a full-rank "
        "mixing pattern; at very large β rows turn one-hot and the rank falls"
    )
    return fig


def _box(ax, xy, text, color, half=0.075):
    ax.add_patch(
        FancyBboxPatch(
            (xy[0] - half, xy[1] - 0.07),
            2 * half,
            0.14,
            boxstyle="round,pad=0.01",
            fc="white",
            ec=color,
            lw=1.5,
        )
    )
    ax.text(*xy, text, ha="center", va="center", fontsize=9)


def _arrow(ax, a, b, color, text=None, offset=(0, 0.05)):
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="->", mutation_scale=12, color=color, lw=1.4))
    if text:
        ax.text(
            (a[0] + b[0]) / 2 + offset[0],
            (a[1] + b[1]) / 2 + offset[1],
            text,
            ha="center",
            fontsize=8,
            color=color,
        )


def gradient_flow(cubes):
    """The chain of chapter 7: forward (grey) from q and the keys to the logits, shares, output
    and loss; backward (copper) with the gradient at each node; the FD errors of our check."""
    ds = cubes["attention_gradients"]
    fig, ax = plt.subplots(figsize=(11, 3.8), layout="constrained")
    nodes = {
        "q, k_i": (0.08, 0.5),
        "l_i = β q·k_i": (0.3, 0.5),
        "a = softmax(l)": (0.52, 0.5),
        "o = Σ a_i v_i": (0.74, 0.5),
        "L": (0.93, 0.5),
    }
    for name, xy in nodes.items():
        _box(ax, xy, name, style.GREY)
    xs = list(nodes.values())
    for a, b in zip(xs[:-1], xs[1:], strict=True):
        _arrow(ax, (a[0] + 0.08, a[1] + 0.03), (b[0] - 0.08, b[1] + 0.03), style.GREY)
    back = [
        "∂L/∂k_i = β (∂L/∂l_i) q\n∂L/∂q = β Σ (∂L/∂l_i) k_i",
        "∂L/∂l_i = a_i (v_i − o)·g",
        "∂a_i/∂l_j = a_i(δ_ij − a_j)",
        "g = ∂L/∂o;  ∂L/∂v_i = a_i g",
    ]
    for (a, b), text in zip(zip(xs[:-1], xs[1:], strict=True), back, strict=True):
        _arrow(
            ax, (b[0] - 0.08, b[1] - 0.04), (a[0] + 0.08, a[1] - 0.04), style.QUERY, text, (0, -0.2)
        )
    errs = {
        k: float(ds[k].max())
        for k in ("grad_v_fd_error", "grad_logit_fd_error", "grad_k_fd_error", "grad_q_fd_error")
    }
    ax.text(
        0.5,
        0.93,
        "largest relative gap to central differences over our random lookups: "
        + ", ".join(f"{k.split('_')[1]} {v:.0e}" for k, v in errs.items()),
        ha="center",
        fontsize=8,
        color=style.RESULT,
    )
    ax.text(
        0.5,
        0.15,
        "grey: forward pass; copper: backward pass, with the gradient it carries",
        ha="center",
        fontsize=8,
        color=style.GREY,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0.1, 1)
    ax.axis("off")
    return fig


def key_training(cubes):
    """Gradient steps on unit keys: the weight of the key holding the target, the output, and
    the angles of the keys to the query, with our default step marked."""
    ds = cubes["attention_gradients"].isel(seed=0)
    steps = ds["step"].values
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), layout="constrained")
    colors = [style.GREY, style.OBSERVED, style.GREY]
    for i, key in enumerate(ds["key"].values):
        axes[0].plot(
            steps,
            ds["walk_weight"].sel(key=key),
            color=colors[i],
            lw=2 if i == 1 else 1,
            label=f"a_{i + 1}",
        )
        axes[2].plot(
            steps,
            ds["walk_angle"].sel(key=key),
            color=colors[i],
            lw=2 if i == 1 else 1,
            label=f"key {i + 1}",
        )
    axes[1].plot(steps, ds["walk_output"], color=style.RESULT, label="output o")
    axes[1].axhline(1.0, color=style.STORED, ls="--", label="target value 1.0")
    for ax in axes:
        ax.axvline(WALK_DEFAULT_STEP, color=style.QUERY, lw=0.8)
        ax.set_xlabel("gradient steps on the keys")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("share (1)")
    axes[1].set_ylabel("output o (1)")
    axes[2].set_ylabel("angle to the query (degrees)")
    axes[0].set_title("the key holding 1.0 gains weight")
    axes[1].set_title("the output approaches the target")
    axes[2].set_title("that key rotates toward q")
    return fig


def block_bus(cubes):
    """One layer as two reads of the residual stream: attention (fast memory, the tokens) and
    the MLP (slow memory, the weights), each adding its recall back."""
    fig, ax = plt.subplots(figsize=(10, 3.6), layout="constrained")
    ax.annotate(
        "",
        xy=(0.97, 0.3),
        xytext=(0.03, 0.3),
        arrowprops=dict(arrowstyle="->", color=style.GREY, lw=6, alpha=0.5),
    )
    ax.text(0.03, 0.2, "residual stream x (one vector per position)", fontsize=9)
    for x0, name, mem, color in (
        (0.3, "Attn(LN x)", "fast memory:\nkeys, values of the tokens", style.QUERY),
        (0.7, "MLP(LN x)", "slow memory:\nthe layer's weights", style.STORED),
    ):
        _box(ax, (x0, 0.7), name, color)
        ax.text(x0, 0.92, mem, ha="center", fontsize=8, color=color)
        _arrow(ax, (x0 - 0.08, 0.32), (x0 - 0.06, 0.62), style.GREY, "read", (-0.05, 0))
        _arrow(ax, (x0 + 0.06, 0.62), (x0 + 0.08, 0.32), color, "add", (0.05, 0))
    ax.set_xlim(0, 1)
    ax.set_ylim(0.1, 1.02)
    ax.axis("off")
    ax.set_title("one pre-norm layer: two lookups, one bus")
    return fig
