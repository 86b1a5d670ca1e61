"""Figures of soft-dictionary: the sharpness knob of one lookup and the full table of shares."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style


@figure(
    "soft-dictionary/lookup-sharpness",
    title="One lookup as the sharpness sweeps",
    cubes=("soft_lookup",),
    settings={"printed_betas": ("soft_lookup", "beta")},
)
def sharpness(cubes, printed_betas):
    """One query ("sat") looked up against the five hand-set keys of soft-dictionary as the
    sharpness beta sweeps its grid (log scale). Cat and mat, the two noun-like keys, take over
    as beta grows; at small beta every key gets about a fifth. Vertical lines and the three bar
    panels are the settings the note prints (0.1, 1 and 8), with the mixed 2-d value above each
    panel."""
    ds = cubes["soft_lookup"]
    w = ds["weight"].sel(query="sat")
    keys = [str(k) for k in ds["key"].values]
    colors = {"cat": style.STORED, "mat": style.OBSERVED}
    fig = plt.figure(figsize=(10, 4.2), layout="constrained")
    grid = fig.add_gridspec(2, 3, width_ratios=(1.5, 1, 1))
    ax = fig.add_subplot(grid[:, 0])
    for key in keys:
        ax.plot(
            ds["beta"],
            w.sel(key=key),
            label=key,
            color=colors.get(key, style.GREY),
            lw=2 if key in colors else 1,
            ls="-" if key in colors else "--",
        )
    for b in printed_betas:
        ax.axvline(b, color=style.QUERY, lw=0.8, alpha=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("sharpness β (log scale)")
    ax.set_ylabel("share of the query 'sat'")
    ax.set_title("one query, five keys: from average to lookup")
    ax.legend(title="key", loc="center left")
    for i, b in enumerate(printed_betas):
        sub = fig.add_subplot(grid[i // 2, 1 + i % 2])
        shares = w.sel(beta=b).values
        sub.bar(keys, shares, color=[colors.get(k, style.GREY) for k in keys])
        mixed = ds["mixed"].sel(query="sat", beta=b).values
        sub.set_title(f"β = {b:g}: mixed [{mixed[0]:.3f}, {mixed[1]:.3f}]", fontsize=style.SMALL)
        sub.set_ylim(0, 1.05)
        sub.set_ylabel("share")
        for x, s in enumerate(shares):
            sub.text(x, s + 0.02, f"{s:.3f}", ha="center", fontsize=style.SMALL)
    return fig


def _share_heatmap(ax, w, tokens, title):
    im = ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
    for i in range(len(tokens)):
        for j in range(len(tokens)):
            v = float(w[i, j])
            color = "white" if v > 0.5 else "black"
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", color=color, fontsize=style.SMALL)
    ax.set_xticks(np.arange(len(tokens)), tokens)
    ax.set_yticks(np.arange(len(tokens)), tokens)
    ax.set_xlabel("key (the token looked up)")
    ax.grid(False)
    ax.set_title(title, fontsize=style.SMALL)
    return im


@figure(
    "soft-dictionary/self-attention-table",
    title="Every token looks up every token",
    cubes=("soft_lookup",),
    settings={"table_beta": ("soft_lookup", "beta")},
)
def table(cubes, table_beta):
    """All five hand-set queries against all five keys at beta = 1 (left): each row is the
    shares one token spends on the others and sums to one; the "sat" row is the single lookup of
    the sharpness figure. The title reports the largest change of any token's output over all
    120 reorderings of the tokens. Right: the same scores with the causal mask of a next-token
    predictor, where a token may look only at itself and earlier tokens."""
    ds = cubes["soft_lookup"]
    tokens = [str(t) for t in ds["query"].values]
    err = float(ds["order_error"].sel(beta=table_beta))
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 5.0), layout="constrained")
    title = (
        f"shares at β = {table_beta:g}, rows sum to 1\n"
        f"reordering the tokens moves no output (max {err:.0e})"
    )
    im = _share_heatmap(axes[0], ds["weight"].sel(beta=table_beta).values, tokens, title)
    _share_heatmap(
        axes[1],
        ds["causal_weight"].sel(beta=table_beta).values,
        tokens,
        "with the causal mask: no share on later tokens",
    )
    axes[0].set_ylabel("query (the token asking)")
    fig.colorbar(im, ax=axes, label="share", shrink=0.8)
    return fig


@figure(
    "soft-dictionary/position-patch",
    title="A position code patches order-blindness",
    cubes=("position_lookup",),
    settings={"patch_beta": ("position_lookup", "beta")},
)
def position_patch(cubes, patch_beta):
    """The order-blindness patch of soft-dictionary, built by us because the capstone the note
    points to is missing: each token gets a one-hot position code, and each query asks for the
    position just before its own with the given strength (beta = 1). The band below the diagonal
    is the share each token puts on its predecessor; the first token has none and spreads
    evenly. Unlike the plain table, reordering the tokens now changes what they receive (the
    number in each title)."""
    ds = cubes["position_lookup"]
    strengths = [float(s) for s in ds["strength"].values]
    tokens = [str(t) for t in ds["query"].values]
    fig, axes = plt.subplots(
        1, len(strengths), figsize=(3.0 * len(strengths), 3.6), layout="constrained", squeeze=False
    )
    for ax, s in zip(axes[0], strengths, strict=True):
        w = ds["weight"].sel(strength=s, beta=patch_beta).values
        ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
        for i in range(len(tokens)):
            for j in range(len(tokens)):
                ax.text(
                    j,
                    i,
                    f"{w[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=style.SMALL,
                    color="white" if w[i, j] > 0.5 else "black",
                )
        ax.set_xticks(range(len(tokens)), tokens, fontsize=style.SMALL)
        ax.set_yticks(range(len(tokens)), tokens, fontsize=style.SMALL)
        ax.set_xlabel("key (position order)")
        ax.grid(False)
        err = float(ds["order_error"].sel(strength=s, beta=patch_beta))
        ax.set_title(
            f"strength {s:g}\nreordering changes outputs by {err:.2f}", fontsize=style.SMALL
        )
    axes[0][0].set_ylabel("query (position order)")
    fig.suptitle(
        f"with positions added, a query can ask for the token one back (β = {patch_beta:g})"
    )
    return fig


@figure("soft-dictionary/block-diagram", title="The transformer block, as a diagram")
def block_diagram(cubes):
    """The transformer block of soft-dictionary redrawn: token vectors with position information
    pass through self-attention and a per-token MLP, each followed by a residual add and a
    normalisation; the block repeats N times, and the last position's vector goes through one
    matrix and a softmax over the vocabulary. Copper is the lookup, violet what is stored and
    processed, green the result."""
    fig, ax = plt.subplots(figsize=(4.6, 6.4))
    ax.set_axis_off()
    boxes = [
        ("tokens + position information\n(one vector per token)", style.OBSERVED, 9.2),
        ("self-attention: every token\nsoft-looks-up every token", style.QUERY, 7.7),
        ("add the input back, normalise", style.GREY, 6.6),
        ("per-token MLP: each vector\nprocessed on its own", style.STORED, 5.4),
        ("add the input back, normalise", style.GREY, 4.3),
        ("final vector at the last position", style.STORED, 3.0),
        ("one more matrix, then a softmax\nover the vocabulary", style.RESULT, 1.8),
        ("a probability for every\npossible next token", style.RESULT, 0.6),
    ]
    for text, color, y in boxes:
        frame = {"boxstyle": "round,pad=0.4", "fc": "white", "ec": color, "lw": 2}
        ax.text(0.5, y, text, ha="center", va="center", fontsize=style.SMALL, bbox=frame)
    for (_, _, y0), (_, _, y1) in zip(boxes, boxes[1:], strict=False):
        ax.annotate(
            "",
            xy=(0.5, y1 + 0.42),
            xytext=(0.5, y0 - 0.42),
            arrowprops={"arrowstyle": "->", "color": style.GREY},
        )
    ax.add_patch(plt.Rectangle((0.06, 3.75), 0.88, 4.6, fill=False, ls="--", ec=style.GREY))
    ax.text(
        0.93,
        8.2,
        "one block,\nrepeat × N",
        ha="right",
        va="top",
        fontsize=style.SMALL,
        color=style.GREY,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 10)
    return fig
