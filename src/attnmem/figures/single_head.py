"""Figures of every-word. The note prints tables, not pictures; these draw its printed tables
(the head over four tokens, the cost table, the scale table) from the cubes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style

TOKEN_LABELS = ("1 'year 4'", "2 '0'", "3 ': 235 ...'", "4 '7'")

# Printed values drawn as markers over our curves (every-word lines 279-282 and 312-315).
PRINTED_SCALE = {
    "spread_div": {4: 1.9694, 16: 2.0020, 64: 2.0555, 256: 2.0686},
    "spread_raw": {4: 3.9389, 16: 8.0078, 64: 16.4441, 256: 33.0969},
    "top_div": {4: 0.4993, 16: 0.5056, 64: 0.5123, 256: 0.5222},
    "top_raw": {4: 0.6570, 16: 0.8156, 64: 0.9071, 256: 0.9605},
    "pinned_div": {4: 0, 16: 0, 64: 0, 256: 0},
    "pinned_raw": {4: 20, 16: 160, 64: 477, 256: 746},
}
PRINTED_COST = {
    4: (192, 128, 320),
    8: (384, 512, 896),
    16: (768, 2048, 2816),
    32: (1536, 8192, 9728),
}


def _grid(ax, values, cmap, fmt="{:.4f}", vmin=None, vmax=None, rows=None, cols=None):
    """An annotated heatmap of a small matrix."""
    values = np.asarray(values, dtype=float)
    lim = np.max(np.abs(values)) or 1.0
    im = ax.imshow(
        values,
        cmap=cmap,
        vmin=0 if vmin is None else vmin,
        vmax=lim if vmax is None else vmax,
    )
    top = im.get_clim()[1]
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            ax.text(
                j,
                i,
                fmt.format(v),
                ha="center",
                va="center",
                fontsize=style.SMALL,
                color="white" if v > 0.6 * top else "black",
            )
    ax.set_xticks(
        range(values.shape[1]), cols or range(1, values.shape[1] + 1), fontsize=style.SMALL
    )
    ax.set_yticks(
        range(values.shape[0]), rows or range(1, values.shape[0] + 1), fontsize=style.SMALL
    )
    ax.grid(False)
    return im


@figure(
    "every-word/three-matrices-projections",
    title="The inputs and the three matrices of one head",
    cubes=("single_head",),
    settings={"printed_wq_3_1": ("single_head", "wq_3_1")},
)
def three_matrices(cubes, printed_wq_3_1):
    """The inputs of every-word's single head drawn as annotated heatmaps: the four numbers
    typed for each of the first four chronicle tokens, the three stored 4 x 4 matrices (row j
    holds the weights of output slot j, so a projection is the matrix times the token), and the
    query, key and value each token turns into. The text panel gives the matrix sizes, the
    pencil count of multiplications and additions for one token through one matrix, and whether
    a bias-free neuron layer reproduces the projections."""
    ds = cubes["single_head"].sel(scale=1, wq_3_1=printed_wq_3_1)
    fig, axes = plt.subplots(2, 4, figsize=(13, 6.4), layout="constrained")
    _grid(axes[0, 0], ds["x"].values, "Blues", fmt="{:.2f}", rows=list(TOKEN_LABELS))
    axes[0, 0].set_title("typed numbers of each token", fontsize=style.SMALL)
    axes[0, 0].set_xlabel("slot (digit, year, count, sentence)", fontsize=style.SMALL)
    axes[0, 0].set_ylabel("token", fontsize=style.SMALL)
    for ax, name, cmap in zip(
        axes[0, 1:], ("Wq", "Wk", "Wv"), ("Oranges", "Blues", "Purples"), strict=True
    ):
        _grid(ax, ds["weights"].sel(matrix=name).values, cmap)
        ax.set_title(f"{name}: row j = weights of output slot j", fontsize=style.SMALL)
        ax.set_xlabel("input slot", fontsize=style.SMALL)
        ax.set_ylabel("output slot", fontsize=style.SMALL)
    axes[1, 0].set_axis_off()
    n_each = int(ds["numbers_per_matrix"])
    n_all = int(ds["numbers_all_matrices"])
    axes[1, 0].text(
        0.0,
        0.5,
        f"{n_each} numbers a matrix, {n_all} stored in all\n"
        "projection = W @ token (no bias)\n"
        f"one token through one matrix:\n{int(ds['mults_per_projection'])} multiplications, "
        f"{int(ds['adds_per_projection'])} additions\n"
        f"zero-bias neuron layer agrees: {bool(ds['layer_matches'])}",
        fontsize=style.SMALL,
        va="center",
    )
    for ax, name, cmap, label in zip(
        axes[1, 1:],
        ("q", "k", "v"),
        ("Oranges", "Blues", "Purples"),
        ("query", "key", "value"),
        strict=True,
    ):
        _grid(ax, ds[name].values, cmap, rows=list(TOKEN_LABELS))
        ax.set_title(f"{label} of each token", fontsize=style.SMALL)
        ax.set_xlabel(f"{label} slot", fontsize=style.SMALL)
    axes[1, 1].set_ylabel("token", fontsize=style.SMALL)
    fig.suptitle("every-word: four typed tokens through three stored matrices")
    return fig


@figure(
    "every-word/score-square-shares",
    title="One head over four tokens, step by step",
    cubes=("single_head",),
    settings={
        "printed_wq_3_1": ("single_head", "wq_3_1"),
        "exercise_wq_3_1": ("single_head", "wq_3_1"),
    },
)
def score_square(cubes, printed_wq_3_1, exercise_wq_3_1):
    """The four-token head of every-word step by step. Top row: every query dotted with every
    key, the same square divided by 2 (the square root of 4, the key width), and the values
    mixed in the resulting shares. Bottom row: the shares with the divide and with it left off
    (rows sum to one; tokens 2 and 4 get identical rows because they carry identical numbers),
    and token 2's row before and after Exercise 1 raises one query weight from 0.5 to 2.5, which
    moves its largest share from token 1 to token 3."""
    ds = cubes["single_head"]
    base = ds.sel(wq_3_1=printed_wq_3_1)
    fig, axes = plt.subplots(2, 3, figsize=(13, 8), layout="constrained")
    rows = list(TOKEN_LABELS)
    _grid(axes[0, 0], base["raw"].sel(scale=1).values, "Oranges", rows=rows)
    axes[0, 0].set_title("query · key (raw scores)", fontsize=style.SMALL)
    _grid(axes[0, 1], base["scaled"].sel(scale=1).values, "Oranges", rows=rows)
    div = float(base["divisor"].sel(scale=1))
    axes[0, 1].set_title(f"the same divided by {div:g} = sqrt(4)", fontsize=style.SMALL)
    _grid(axes[0, 2], base["mixed"].sel(scale=1).values, "Greens", rows=rows)
    axes[0, 2].set_title("values mixed in the shares (with the divide)", fontsize=style.SMALL)
    axes[0, 2].set_xlabel("output slot (digit, year, count, sentence)", fontsize=style.SMALL)
    _grid(axes[1, 0], base["shares"].sel(scale=1).values, "Purples", vmin=0, vmax=1, rows=rows)
    axes[1, 0].set_title("shares with the divide (rows sum to 1)", fontsize=style.SMALL)
    _grid(axes[1, 1], base["shares"].sel(scale=0).values, "Purples", vmin=0, vmax=1, rows=rows)
    axes[1, 1].set_title("shares with the divide left off", fontsize=style.SMALL)
    for ax in (axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1]):
        ax.set_xlabel("key token", fontsize=style.SMALL)
        ax.set_ylabel("query token", fontsize=style.SMALL)
    ax = axes[1, 2]
    keys = np.arange(1, 5)
    width = 0.38
    for off, wq, color, label in (
        (-width / 2, printed_wq_3_1, style.GREY, f"as printed (Wq[3,1] = {printed_wq_3_1:g})"),
        (width / 2, exercise_wq_3_1, style.QUERY, f"Exercise 1 (Wq[3,1] = {exercise_wq_3_1:g})"),
    ):
        shares = ds["shares"].sel(scale=1, wq_3_1=wq, token=2).values
        ax.bar(keys + off, shares, width, color=color, label=label)
        for x, s in zip(keys + off, shares, strict=True):
            ax.text(x, s + 0.01, f"{s:.3f}", ha="center", fontsize=style.SMALL)
    ax.set_xticks(keys, [f"key {k}" for k in keys])
    ax.set_ylabel("share of token 2's row")
    ax.set_ylim(0, 0.7)
    ax.set_title("Exercise 1: one weight moves token 2's attention", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL, loc="upper right")
    fig.suptitle("every-word: the score square, the softmax and the mixing, four tokens")
    return fig


@figure(
    "every-word/cost-growth", title="What one head costs as the row grows", cubes=("head_cost",)
)
def cost_growth(cubes):
    """Multiply-adds of every-word's head as the row of tokens grows, with four numbers a token
    and keys four wide. Left (log-log): projections grow in a straight line and the pairwise
    scores and mixing as the square; dots are counted by the explicit-loop head, the rest is the
    formula, crosses are the printed cost table, and the dashed line is where the pairs overtake
    (n = 7). Middle: the share of the work spent on pairs, for this head and for a head 4000
    numbers wide, which crosses half near 6000 tokens. Right: each row's cost over the cost at
    half its length, with the printed ratios."""
    ds = cubes["head_cost"]
    n = ds["n"].values
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4), layout="constrained")
    ax = axes[0]
    counted = ds["counted"].values == 1
    for var, color, label in (
        ("project", style.OBSERVED, "projections (q, k, v)"),
        ("pairs", style.LIMIT, "pairs (scores + mixing)"),
        ("total", style.STORED, "all of it"),
    ):
        y = ds[var].values
        ax.plot(n, y, color=color, lw=1.5, label=label)
        ax.plot(n[counted], y[counted], "o", ms=2.5, color=color)
    for k, (p, q, t) in PRINTED_COST.items():
        ax.plot([k, k, k], [p, q, t], "kx", ms=6)
    ax.plot([], [], "kx", label="printed table")
    cross = float(ds["crossover"].isel(n=0))
    ax.axvline(cross, color=style.GREY, ls="--", lw=1)
    ax.text(
        cross * 1.1, 30, f"pairs overtake at n = {cross:g}", fontsize=style.SMALL, color=style.GREY
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens in the row n (log scale)")
    ax.set_ylabel("multiply-adds (log scale)")
    ax.set_title("D = d_k = 4; dots: counted by the loop head", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL)

    ax = axes[1]
    ax.plot(n, 100 * ds["pair_share"].values, color=style.LIMIT, label="this head (D = 4)")
    ax.plot(n, 100 * ds["wide_pair_share"].values, color=style.QUERY, label="D = 4000 head")
    for k, share in ((4, 40.0), (8, 57.1), (16, 72.7), (32, 84.2), (512, 98.8)):
        ax.plot(k, share, "kx", ms=6)
    ax.axhline(50, color=style.GREY, lw=0.8)
    wide = float(ds["crossover_wide"].isel(n=0))
    ax.axvline(wide, color=style.QUERY, ls="--", lw=1)
    ax.text(
        wide * 0.9,
        65,
        f"D = 4000 crosses\nat n = {wide:g}",
        fontsize=style.SMALL,
        color=style.QUERY,
        ha="right",
    )
    ax.set_xscale("log")
    ax.set_xlabel("tokens in the row n (log scale)")
    ax.set_ylabel("share of the work spent on pairs (%)")
    ax.set_title("pairs' share; x: printed", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL)

    ax = axes[2]
    even = ~np.isnan(ds["x_half"].values)
    ax.plot(n[even], ds["x_half"].values[even], "o-", ms=3, color=style.STORED, label="all of it")
    ax.plot(n[even], ds["project_x_half"].values[even], color=style.OBSERVED, label="projections")
    ax.plot(n[even], ds["pairs_x_half"].values[even], color=style.LIMIT, label="pairs")
    for k, r in ((8, 2.80), (16, 3.14), (32, 3.45), (256, 3.91), (512, 3.95), (1024, 3.98)):
        ax.plot(k, r, "kx", ms=6)
    ax.set_xscale("log")
    ax.set_ylim(1.5, 4.3)
    ax.set_xlabel("tokens in the row n (log scale)")
    ax.set_ylabel("cost at n over cost at n/2")
    ax.set_title("doubling the row: x2, x4, and the total toward 4", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL, loc="lower right")
    fig.suptitle("every-word: what one head costs as the row grows")
    return fig


@figure(
    "every-word/sqrt-divide-scale",
    title="What the square-root divide does to random rows",
    cubes=("score_scale", "pinned_width"),
)
def sqrt_divide_scale(cubes):
    """Rows of four random tokens (query and key entries standard normal) at every key width of
    the grid, scored with and without the division by the square root of the width. Lines are
    our mean over the seeded runs of 1000 rows, shaded bands one run's standard deviation, and
    the markers the note's single printed run at widths 4, 16, 64 and 256. Left: the spread of a
    row (largest minus smallest score, log scale); middle: the mean biggest share; right: rows
    out of 1000 whose biggest share passes 0.99, with the width where over half are pinned
    marked. Green solid: divided; red dashed: not divided."""
    ds = cubes["score_scale"]
    pw = cubes["pinned_width"]
    dk = ds["d_k"].values
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4), layout="constrained")
    panels = (
        ("spread", "mean spread of a row, max - min (log scale)", True, 1.0),
        ("top", "mean biggest share of a row", False, 1.0),
        ("pinned", "rows of 1000 with biggest share > 0.99", False, 1.0),
    )
    for ax, (stem, ylabel, logy, _) in zip(axes, panels, strict=True):
        for half, color, line, label in (  # green and red, solid and dashed
            ("div", style.RESULT, "-", "divided by sqrt(d_k)"),
            ("raw", style.LIMIT, "--", "divide left off"),
        ):
            var = ds[f"{stem}_{half}"]
            mean = var.mean("seed").values
            sd = var.std("seed", ddof=1).values
            ax.plot(dk, mean, line, color=color, lw=1.8, label=f"{label} (our mean)")
            ax.fill_between(dk, mean - sd, mean + sd, color=color, alpha=0.2, lw=0)
            printed = PRINTED_SCALE[f"{stem}_{half}"]
            ax.plot(
                list(printed),
                list(printed.values()),
                "kx" if half == "raw" else "k+",
                ms=7,
                label=f"printed, {label}",
            )
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log", base=2)
        ax.set_xlabel("key width d_k (log scale)")
        ax.set_ylabel(ylabel)
    axes[0].legend(fontsize=style.SMALL, loc="upper left")
    crossing = float(pw["crossing"].mean("seed"))
    axes[2].axhline(500, color=style.GREY, lw=0.8)
    axes[2].axvline(crossing, color=style.QUERY, ls="--", lw=1)
    axes[2].text(
        crossing * 1.1,
        80,
        f"half pinned at d_k ≈ {crossing:.0f}",
        fontsize=style.SMALL,
        color=style.QUERY,
    )
    axes[0].set_title("band: ±1 SD of one 1000-row run", fontsize=style.SMALL)
    axes[1].set_title(f"{ds.sizes['seed']} seeds per width", fontsize=style.SMALL)
    axes[2].set_title("pinned rows: the divide keeps them at 0", fontsize=style.SMALL)
    fig.suptitle("every-word: what the square-root divide does to rows of four random tokens")
    return fig
