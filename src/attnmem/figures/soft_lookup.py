"""Figures of soft-dictionary: the sharpness knob of one lookup and the full table of shares."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import style

PRINTED_BETAS = (0.1, 1.0, 8.0)


def sharpness(cubes):
    """The shares of the query 'sat' over the five keys as beta sweeps, with the three printed
    settings drawn as bars (the note's widget becomes a sweep plus small multiples)."""
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
    for b in PRINTED_BETAS:
        ax.axvline(b, color=style.QUERY, lw=0.8, alpha=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("sharpness β (log scale)")
    ax.set_ylabel("share of the query 'sat' (1)")
    ax.set_title("one query, five keys: from average to lookup")
    ax.legend(title="key", loc="center left")
    for i, b in enumerate(PRINTED_BETAS):
        sub = fig.add_subplot(grid[i // 2, 1 + i % 2])
        shares = w.sel(beta=b).values
        sub.bar(keys, shares, color=[colors.get(k, style.GREY) for k in keys])
        mixed = ds["mixed"].sel(query="sat", beta=b).values
        sub.set_title(f"β = {b:g}: mixed [{mixed[0]:.3f}, {mixed[1]:.3f}]", fontsize=9)
        sub.set_ylim(0, 1.05)
        sub.set_ylabel("share (1)")
        for x, s in enumerate(shares):
            sub.text(x, s + 0.02, f"{s:.3f}", ha="center", fontsize=7)
    return fig


def _share_heatmap(ax, w, tokens, title):
    im = ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
    for i in range(len(tokens)):
        for j in range(len(tokens)):
            v = float(w[i, j])
            color = "white" if v > 0.5 else "black"
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", color=color, fontsize=8)
    ax.set_xticks(np.arange(len(tokens)), tokens)
    ax.set_yticks(np.arange(len(tokens)), tokens)
    ax.set_xlabel("key (the token looked up)")
    ax.grid(False)
    ax.set_title(title, fontsize=9)
    return im


def table(cubes):
    """Every query against every key at beta = 1: the table of shares, each row summing to one,
    and beside it the same table with the causal mask a next-token predictor uses."""
    ds = cubes["soft_lookup"]
    tokens = [str(t) for t in ds["query"].values]
    err = float(ds["order_error"].sel(beta=1.0))
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 4.4), layout="constrained")
    title = f"shares at β = 1, rows sum to 1\nreordering the tokens moves no output (max {err:.0e})"
    im = _share_heatmap(axes[0], ds["weight"].sel(beta=1.0).values, tokens, title)
    _share_heatmap(
        axes[1],
        ds["causal_weight"].sel(beta=1.0).values,
        tokens,
        "with the causal mask: no share on later tokens",
    )
    axes[0].set_ylabel("query (the token asking)")
    fig.colorbar(im, ax=axes, label="share (1)", shrink=0.8)
    return fig


def position_patch(cubes):
    """Shares of the same five tokens once a one-hot position code is appended and each query
    asks for the position before its own: the diagonal just below the main one lights up."""
    ds = cubes["position_lookup"]
    strengths = [float(s) for s in ds["strength"].values]
    tokens = [str(t) for t in ds["query"].values]
    fig, axes = plt.subplots(
        1, len(strengths), figsize=(3.0 * len(strengths), 3.3), layout="constrained", squeeze=False
    )
    for ax, s in zip(axes[0], strengths, strict=True):
        w = ds["weight"].sel(strength=s).isel(beta=0).values
        ax.imshow(w, cmap="Purples", vmin=0, vmax=1)
        for i in range(len(tokens)):
            for j in range(len(tokens)):
                ax.text(
                    j,
                    i,
                    f"{w[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if w[i, j] > 0.5 else "black",
                )
        ax.set_xticks(range(len(tokens)), tokens, fontsize=8)
        ax.set_yticks(range(len(tokens)), tokens, fontsize=8)
        ax.grid(False)
        err = float(ds["order_error"].sel(strength=s).isel(beta=0))
        ax.set_title(f"strength {s:g}\nreordering changes outputs by {err:.2f}", fontsize=9)
    axes[0][0].set_ylabel("query (position order)")
    fig.suptitle("with positions added, a query can ask for the token one back (β = 1)")
    return fig


def block_diagram(cubes):
    """The transformer block as boxes: attention gathers, the per-token MLP digests, each
    sublayer wrapped in a residual add and a normalisation, repeated N times."""
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
        ax.text(0.5, y, text, ha="center", va="center", fontsize=9, bbox=frame)
    for (_, _, y0), (_, _, y1) in zip(boxes, boxes[1:], strict=False):
        ax.annotate(
            "",
            xy=(0.5, y1 + 0.42),
            xytext=(0.5, y0 - 0.42),
            arrowprops={"arrowstyle": "->", "color": style.GREY},
        )
    ax.add_patch(plt.Rectangle((0.06, 3.75), 0.88, 4.6, fill=False, ls="--", ec=style.GREY))
    ax.text(0.93, 8.2, "one block,\nrepeat × N", ha="right", va="top", fontsize=8, color=style.GREY)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 10)
    return fig
