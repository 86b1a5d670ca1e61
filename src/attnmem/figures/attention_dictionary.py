"""Figures of memory-math chapters 6-8: the soft dictionary on a circle, temperature, the rank
lift of the softmax, the gradient diagram, the trained key, and the block's two lookups."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ..experiments.attention_dictionary import CIRCLE_KEY_DEG, CIRCLE_VALUES, unit
from ..views import figure
from . import style

# The betas of the rank figure are a sweep of the cube's own (not a config grid), as is the step.
RANK_BETAS = (0.1, 1.0, 4.0, 14.0, 100.0)
RANK_DEFAULT_BETA = 1.0
WALK_DEFAULT_STEP = 20


@figure(
    "memory-math/ch6-circle-lookup",
    title="A soft dictionary on a circle, read from four angles",
    cubes=("soft_dictionary_circle",),
    settings={
        "circle_beta": ("soft_dictionary_circle", "beta"),
        "circle_angles": ("soft_dictionary_circle", "angle"),
    },
)
def circle_lookup(cubes, circle_beta, circle_angles):
    """The soft dictionary of memory-math chapter 6 redrawn as small multiples: seven unit keys
    on a circle (our layout and values, the note's widget prints neither) and a unit query at
    four angles, at beta = 4. Dot size is a key's share; the bars put each share beside the
    value it multiplies, and the green line is the output, which follows the values of the keys
    nearest the query."""
    ds = cubes["soft_dictionary_circle"].sel(beta=circle_beta)
    keys = unit(CIRCLE_KEY_DEG)
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.6), layout="constrained")
    for col, ang in enumerate(circle_angles):
        pt = ds.sel(angle=ang)
        w = pt["weight"].values
        ax = axes[0, col]
        t = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color=style.GREY, lw=0.6)
        sizes = 30 + 900 * w
        ax.scatter(keys[:, 0], keys[:, 1], s=sizes, color=style.OBSERVED, zorder=3)
        for i, xy in enumerate(keys):
            style.ring_label(ax, xy, f"v={CIRCLE_VALUES[i]:+.1f}", sizes[i], color=style.STORED)
        q = unit(ang)
        ax.annotate(
            "", xy=q, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=style.QUERY, lw=2)
        )
        ax.set_aspect("equal")
        ax.set_xlim(-1.75, 1.75)
        ax.set_ylim(-1.6, 1.6)
        ax.set_title(f"query at {ang}°: o = {float(pt['output']):+.3f}", fontsize=style.SMALL)
        ax.set_axis_off()
        bar = axes[1, col]
        x = np.arange(len(w))
        bar.bar(x - 0.2, w, width=0.4, color=style.OBSERVED, label="share a_i")
        bar.bar(x + 0.2, CIRCLE_VALUES, width=0.4, color=style.STORED, label="value v_i")
        bar.axhline(float(pt["output"]), color=style.RESULT, lw=1.5, label="output o")
        bar.set_xticks(x, [f"k{i + 1}" for i in x])
        bar.set_ylim(-1, 1)
        bar.set_ylabel("share or value")

    fig.legend(
        *axes[1, 0].get_legend_handles_labels(),
        fontsize=style.SMALL,
        loc="outside lower center",
        ncols=3,
    )
    fig.suptitle(
        f"soft dictionary on a circle of seven unit keys, β = {circle_beta:g} (dot size: share)"
    )
    return fig


@figure(
    "memory-math/ch6-temperature",
    title="Sharpness turns an average into a lookup",
    cubes=("soft_dictionary_circle",),
    settings={
        "temperature_angle": ("soft_dictionary_circle", "angle"),
        "temperature_max_beta": ("soft_dictionary_circle", "beta"),
    },
)
def temperature(cubes, temperature_angle, temperature_max_beta):
    """The temperature widget of memory-math chapter 6 as a sweep of beta up to 14 for one query
    at 90 degrees: at beta = 0 all seven shares sit on the dashed 1/7 line and the output is the
    mean of the values; as beta grows the best-matching key takes over and the output approaches
    the value a hard lookup would return."""
    ds = cubes["soft_dictionary_circle"].sel(angle=temperature_angle)
    ds = ds.sel(beta=[b for b in ds["beta"].values if b <= temperature_max_beta])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    best = int(np.argmax(ds["weight"].sel(beta=temperature_max_beta).values))
    for i, key in enumerate(ds["key"].values):
        first_other = i == (1 if best == 0 else 0)
        ax.plot(
            ds["beta"],
            ds["weight"].sel(key=key),
            marker="o",
            ms=3,
            color=style.OBSERVED if i == best else style.GREY,
            label=f"{key}, the best match"
            if i == best
            else "the other keys"
            if first_other
            else None,
        )
    ax.axhline(1 / 7, color=style.LIMIT, ls="--", lw=1, label="1/7")
    ax.set_xlabel("inverse temperature β")
    ax.set_ylabel("share a_i")
    ax.set_title(f"query at {temperature_angle}°: from an average to a lookup")
    ax.legend(fontsize=style.SMALL)
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
    ax2.set_xlabel("inverse temperature β")
    ax2.set_ylabel("output o")
    ax2.legend(fontsize=style.SMALL, loc="lower left", bbox_to_anchor=(0, 0.08))
    ax2.set_title("the output moves from the mean\nto the best match's value")
    return fig


@figure(
    "memory-math/ch6-rank-lift",
    title="The softmax lifts a rank-2 score matrix to full rank",
    cubes=("attention_matrix_views",),
    settings={
        "example_n": ("attention_matrix_views", "n"),
        "example_d_k": ("attention_matrix_views", "d_k"),
    },
)
def rank_lift(cubes, example_n, example_d_k):
    """The rank widget of memory-math chapter 6 as small multiples over beta for one random
    example with n = 10 tokens and key width 2: the score matrix has rank 2, the attention
    matrix has full numerical rank from small to moderate beta (our default 1 is framed), and as
    rows turn one-hot at large beta the rank falls, because only a few keys can win a row."""
    ds = cubes["attention_matrix_views"].sel(n=example_n, d_k=example_d_k)
    betas = RANK_BETAS
    fig, axes = plt.subplots(1, len(betas) + 1, figsize=(15, 3.3), layout="constrained")
    s = ds["example_scores"].values
    scores = axes[0].imshow(s, cmap="Blues")
    axes[0].set_title(f"scores Q K^T, rank {int(ds['score_rank_max'])}", fontsize=style.SMALL)
    for ax, b in zip(axes[1:], betas, strict=True):
        a = ds["example_attention"].sel(beta=b).values
        weights = ax.imshow(a, cmap="Purples", vmin=0, vmax=1)
        rank = int(ds["example_attention_rank"].sel(beta=b))
        ax.set_title(
            f"A at β = {b:g}: rank {rank}",
            fontsize=style.SMALL,
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
    fig.colorbar(scores, ax=axes[0], label="score", location="bottom", shrink=0.8)
    fig.colorbar(weights, ax=axes[1:], label="attention weight", location="bottom", shrink=0.4)
    fig.suptitle(
        f"the softmax lifts a rank-2 score matrix (n = {example_n}, d_k = {example_d_k}) to a "
        "full-rank mixing pattern; at very large β rows turn one-hot and the rank falls"
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
    ax.text(*xy, text, ha="center", va="center", fontsize=style.SMALL)


def _arrow(ax, a, b, color, text=None, offset=(0, 0.05)):
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="->", mutation_scale=12, color=color, lw=1.4))
    if text:
        ax.text(
            (a[0] + b[0]) / 2 + offset[0],
            (a[1] + b[1]) / 2 + offset[1],
            text,
            ha="center",
            fontsize=style.SMALL,
            color=color,
        )


@figure(
    "memory-math/ch7-gradient-flow",
    title="Where the gradient of a soft lookup flows",
    cubes=("attention_gradients",),
)
def gradient_flow(cubes):
    """The gradient diagram of memory-math chapter 7: grey arrows carry the forward pass from
    query and keys through logits, shares and output to the loss; copper arrows carry each
    gradient back, with its formula. The green line reports the largest relative gap of our
    finite-difference checks."""
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
        fontsize=style.SMALL,
        color=style.RESULT,
    )
    ax.text(
        0.5,
        0.15,
        "grey: forward pass; copper: backward pass, with the gradient it carries",
        ha="center",
        fontsize=style.SMALL,
        color=style.GREY,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0.1, 1)
    ax.axis("off")
    return fig


@figure(
    "memory-math/ch7-key-training",
    title="Training a key pulls its share up",
    cubes=("attention_gradients",),
)
def key_training(cubes):
    """The key-training widget of memory-math chapter 7 as a sweep over 40 gradient steps on
    three unit keys (our layout; the target 1.0 is held by key 2): that key's share grows, the
    output climbs toward the target, and the key turns toward the query while the others turn
    away. Our default of 20 steps is marked."""
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
        ax.legend(fontsize=style.SMALL)
    axes[0].set_ylabel("share")
    axes[1].set_ylabel("output o")
    axes[2].set_ylabel("angle to the query (degrees)")
    axes[0].set_title("the key holding 1.0 gains weight")
    axes[1].set_title("the output approaches the target")
    axes[2].set_title("that key rotates toward q")
    return fig


@figure(
    "memory-math/ch8-block-bus",
    title="A block as a bus: attention and MLP read and write the stream",
)
def block_bus(cubes):
    """The block diagram of memory-math chapter 8: the residual stream runs left to right; the
    attention sublayer reads it, consults the fast memory built from the tokens, and adds its
    recall back; the MLP sublayer does the same with the slow memory held in its own weights."""
    fig, ax = plt.subplots(figsize=(10, 3.6), layout="constrained")
    ax.annotate(
        "",
        xy=(0.97, 0.3),
        xytext=(0.03, 0.3),
        arrowprops=dict(arrowstyle="->", color=style.GREY, lw=6, alpha=0.5),
    )
    ax.text(0.03, 0.2, "residual stream x (one vector per position)", fontsize=style.SMALL)
    for x0, name, mem, color in (
        (0.3, "Attn(LN x)", "fast memory:\nkeys, values of the tokens", style.QUERY),
        (0.7, "MLP(LN x)", "slow memory:\nthe layer's weights", style.STORED),
    ):
        _box(ax, (x0, 0.7), name, color)
        ax.text(x0, 0.92, mem, ha="center", fontsize=style.SMALL, color=color)
        _arrow(ax, (x0 - 0.08, 0.32), (x0 - 0.06, 0.62), style.GREY, "read", (-0.05, 0))
        _arrow(ax, (x0 + 0.06, 0.62), (x0 + 0.08, 0.32), color, "add", (0.05, 0))
    ax.set_xlim(0, 1)
    ax.set_ylim(0.1, 1.02)
    ax.axis("off")
    ax.set_title("one pre-norm layer: two lookups, one bus")
    return fig
