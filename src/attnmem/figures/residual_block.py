"""Figures of first-principles C3-C5: one head's read, the scale over key sizes, heads as a sum,
the hand-built ToyLang block, the decoder, the cache and the cost curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ..views import figure
from . import style

NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Flo", "Gus", "Hal")

# The four steps of one read through a head: each panel's title and what the step does (the
# interactive page shows these words when the pointer is over a step).
READ_STEPS = (
    (
        "query . key (keys read the position code)",
        "the query meets every visible key and gets a score",
    ),
    ("softmax weights", "the softmax turns the scores into weights that sum to one"),
    (
        "values blended: the subject copy",
        "the weights blend the value vectors into the copy of the subject",
    ),
    (
        "prediction after the gate",
        "the gate keeps the copy that is asked for: a prediction over the eight names",
    ),
)


def _block(cubes, block_N, block_kappa, printed_L, printed_beta):
    """The hand-built block on the printed sentence."""
    return cubes["toylang_block"].sel(N=block_N, kappa=block_kappa, L=printed_L, beta=printed_beta)


@figure(
    "first-principles/C3-one-head-read",
    title="One read through a head, step by step",
    cubes=("toylang_block",),
    settings={
        "block_N": ("toylang_block", "N"),
        "block_kappa": ("toylang_block", "kappa"),
        "printed_L": ("toylang_block", "L"),
        "printed_beta": ("toylang_block", "beta"),
    },
)
def one_head_read(cubes, **block):
    """The path of one read through a head, taken from the hand-built ToyLang block at the word
    'thanked' (gap 0, beta 6): the query meets every visible key and gets a score, the softmax
    turns the scores into weights, the weights blend the value vectors into the subject copy,
    and the gated copy becomes the prediction over the eight names."""
    ds = _block(cubes, **block)
    n = int(ds["thanked_visible"])
    words = ["Flo", "gave", "Gus", "a", "book", "then", "Gus", "thanked"][:n]
    scores = np.full(n, float(ds["thanked_score_other_max"]))
    scores[0] = float(ds["thanked_score_source"])
    weights = np.full(n, float(ds["thanked_w_other_max"]))
    weights[0] = float(ds["thanked_w_source"])
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), layout="constrained")
    axes[0].bar(range(n), scores, color=style.OBSERVED)
    axes[0].set_title(READ_STEPS[0][0], fontsize=style.SMALL)
    axes[0].set_ylabel("score")
    axes[1].bar(range(n), weights, color=style.QUERY)
    axes[1].set_title(READ_STEPS[1][0], fontsize=style.SMALL)
    axes[1].set_ylabel("weight")
    for ax in axes[:2]:
        ax.set_xticks(range(n), words, rotation=45, fontsize=style.SMALL)
        ax.set_xlabel("key position")
    axes[2].bar(NAMES, ds["thanked_sub_copy"].values, color=style.STORED)
    axes[2].set_title(READ_STEPS[2][0], fontsize=style.SMALL)
    axes[2].set_ylabel("copy")
    axes[3].bar(NAMES, ds["thanked_probs"].values, color=style.RESULT)
    axes[3].set_title(READ_STEPS[3][0], fontsize=style.SMALL)
    axes[3].set_ylabel("probability")
    for ax in axes[2:]:
        ax.tick_params(axis="x", rotation=45, labelsize=style.SMALL)
        ax.set_xlabel("name")
    fig.suptitle(
        "first-principles C3: one head, one read (head 1 at 'thanked', "
        f"beta = {block['printed_beta']:g})"
    )
    return fig


@figure(
    "first-principles/C3-scale-freeze",
    title="Without the square-root divide, wide keys freeze the softmax",
    cubes=("score_saturation",),
    settings={"shown_d_k": ("score_saturation", "d_k")},
)
def scale_freeze(cubes, shown_d_k):
    """One query against sixteen random keys as the key size doubles over its grid. Left: the
    weights of one draw (the first seed) with raw scores (top, red) and with scores divided by
    the square root of the key size (bottom, green). Right: mean entropy over 200 draws for each
    seeded run, the band one run's standard deviation, the dashed line the uniform ln 16 and the
    crosses the values the note prints."""
    ds = cubes["score_saturation"]
    sizes = shown_d_k
    fig = plt.figure(figsize=(15, 5.2), layout="constrained")
    grid = fig.add_gridspec(2, len(sizes) + 2)
    keys = ds["key"].values
    for col, dk in enumerate(sizes):
        for row, (var, color, label) in enumerate(
            (
                ("weights_raw_first", style.LIMIT, "raw"),
                ("weights_scaled_first", style.RESULT, "scaled"),
            )
        ):
            ax = fig.add_subplot(grid[row, col])
            w = ds[var].sel(d_k=dk).isel(seed=0).values
            ax.bar(keys, w, color=color)
            ax.set_ylim(0, 1)
            ax.set_xticks([])
            if row == 0:
                ax.set_title(f"d_k = {dk}", fontsize=style.SMALL)
            if col == 0:
                ax.set_ylabel(f"{label} weight", fontsize=style.SMALL)
            else:
                ax.set_yticklabels([])
            if row == 1:
                ax.set_xlabel("16 keys", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[:, len(sizes) :])
    dk = ds["d_k"].values
    for var, color, look, label in (
        ("entropy_raw", style.LIMIT, "o-", "raw scores"),
        ("entropy_scaled", style.RESULT, "s--", "scores / sqrt(d_k)"),
    ):
        mean = ds[var].mean("seed").values
        sd = ds[var].std("seed").values
        ax.plot(dk, mean, look, ms=3, color=color, label=label)
        ax.fill_between(dk, mean - sd, mean + sd, color=color, alpha=0.2)
    ax.axhline(float(ds["entropy_uniform"].isel(d_k=0, seed=0)), color=style.GREY, ls="--")
    ax.text(1.2, 2.65, "uniform, ln 16", color=style.GREY, fontsize=style.SMALL)
    for x, y in ((64, 0.41), (64, 2.35), (1024, 0.08)):
        ax.plot(x, y, "kx", ms=7)
    ax.plot([], [], "kx", label="printed")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("key size d_k (log scale)")
    ax.set_ylabel("mean entropy of the weights (nats)")
    ax.set_title("200 draws per run; band: one run's sd", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL)
    fig.suptitle("first-principles C3: without the scale the softmax freezes (seed 0's first draw)")
    return fig


@figure(
    "first-principles/C4-heads-add",
    title="Concatenating heads is adding their writes",
    cubes=("head_algebra",),
    settings={"shown_d": ("head_algebra", "d")},
)
def heads_add(cubes, shown_d):
    """Random attention layers of width 8 and 16 with 1, 2, 4 and 8 heads. Left: the largest
    difference between concatenating the heads and applying the output matrix, and adding each
    head's own write (log scale; exact zeros drawn at 1e-18). Right: the four projection
    matrices hold four times d squared numbers whatever the number of heads."""
    ds = cubes["head_algebra"]
    heads = ds["heads"].values
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    width = 0.38
    looks = ((-width / 2, style.STORED), (width / 2, style.OBSERVED))
    for (off, color), d in zip(looks, shown_d, strict=True):
        gap = np.maximum(ds["heads_sum_gap"].sel(d=d).values, 1e-18)
        axes[0].bar(np.arange(len(heads)) + off, gap, width, color=color, label=f"d = {d}")
    axes[0].axhline(1e-12, color=style.LIMIT, ls="--", lw=1)
    axes[0].text(-0.4, 2e-12, "1e-12", color=style.LIMIT, fontsize=style.SMALL)
    axes[0].set_yscale("log")
    axes[0].set_xticks(range(len(heads)), [str(h) for h in heads])
    axes[0].set_xlabel("heads n_h")
    axes[0].set_ylabel("largest |concat W_O - sum of writes| (log scale)")
    axes[0].set_title("the two forms agree to rounding (0 drawn at 1e-18)", fontsize=style.SMALL)
    axes[0].legend(fontsize=style.SMALL)
    axes[1].plot(
        heads, ds["heads_params_over_d2"].sel(d=shown_d[0]).values, "o-", color=style.STORED
    )
    axes[1].set_ylim(0, 5)
    axes[1].set_xticks(heads)
    axes[1].set_xlabel("heads n_h (d_k = d / n_h)")
    axes[1].set_ylabel("entries of W_Q, W_K, W_V, W_O over d^2")
    axes[1].set_title("parameters do not depend on n_h", fontsize=style.SMALL)
    fig.suptitle("first-principles C4: heads are pointers whose writes add")
    return fig


@figure(
    "first-principles/C4-block-diagram",
    title="What the hand-built block writes",
    cubes=("toylang_block",),
    settings={
        "block_N": ("toylang_block", "N"),
        "block_kappa": ("toylang_block", "kappa"),
        "printed_L": ("toylang_block", "L"),
        "printed_beta": ("toylang_block", "beta"),
    },
)
def block_diagram(cubes, **block):
    """The workspace of the hand-built block on 'Flo gave Gus a book then Gus thanked Flo .'
    (beta 6): what the two heads write into the subject and object copies at the two positions
    that need a lookup, and what the two groups of gate units keep. The head that is not asked
    spreads its weight evenly and its copy is cut off by the gate."""
    ds = _block(cubes, **block)
    fig, axes = plt.subplots(2, 4, figsize=(14, 5.4), layout="constrained", sharey=True)
    for row, at in enumerate(("thanked", "then")):
        for col, (var, color, label) in enumerate(
            (
                ("sub_copy", style.STORED, "subject copy (head 1)"),
                ("obj_copy", style.STORED, "object copy (head 2)"),
                ("gate_sub", style.RESULT, "subject gate: copy + [thanked] - 1"),
                ("gate_obj", style.RESULT, "object gate: copy + [then] - 1"),
            )
        ):
            ax = axes[row, col]
            values = ds[f"{at}_{var}"].values
            ax.bar(NAMES, values, color=color)
            # a dot on every bar: a value of zero shows as a dot on the baseline, not a gap
            ax.plot(NAMES, values, "o", color=color, ms=4, clip_on=False)
            if not np.any(np.round(values, 2)):
                ax.text(
                    0.5,
                    0.55,
                    "0 for every name",
                    transform=ax.transAxes,
                    ha="center",
                    fontsize=style.SMALL,
                    color=style.GREY,
                )
            ax.set_ylim(-0.04, 1.05)
            ax.tick_params(axis="x", rotation=45, labelsize=style.SMALL)
            ax.set_title(f"at '{at}': {label}", fontsize=style.SMALL)
            if col == 0:
                ax.set_ylabel("value in the stream")
    fig.suptitle(
        "first-principles C4: two pointers write two copies, the gate keeps the one asked for"
        f" (Flo gave Gus ..., beta = {block['printed_beta']:g})"
    )
    return fig


@figure(
    "first-principles/C4-block-steps",
    title="The hand-built block, stage by stage",
    cubes=("toylang_block",),
    settings={
        "block_N": ("toylang_block", "N"),
        "block_kappa": ("toylang_block", "kappa"),
        "printed_L": ("toylang_block", "L"),
        "printed_beta": ("toylang_block", "beta"),
        "curve_betas": ("toylang_block", "beta"),
    },
)
def block_steps(cubes, curve_betas, **block):
    """The hand-built block stage by stage at 'thanked' (top) and 'then' (bottom) on the printed
    sentence: the share of the first name, the second name and the six other names in the bare
    readout, the asked head's weights, the copy it writes, the gate and the prediction. Right:
    the probability of the right final name against the gap L for beta 6 and 9; the right name
    stays on top at every gap but its probability falls unless beta grows."""
    ds = _block(cubes, **block)
    bars = ds["stage_bars"]
    stages = list(bars["stage"].values)
    fig = plt.figure(figsize=(15, 6), layout="constrained")
    grid = fig.add_gridspec(2, len(stages) + 2)
    colors = (style.OBSERVED, style.QUERY, style.GREY)
    for row, at in enumerate(("thanked", "then")):
        for col, stage in enumerate(stages):
            ax = fig.add_subplot(grid[row, col])
            v = bars.sel(at=at, stage=stage).values
            ax.bar(range(3), v, color=colors)
            ax.set_ylim(0, 1.05)
            ax.set_xticks(range(3), ["X", "Y", "others"], fontsize=style.SMALL)
            if row == 0:
                ax.set_title(stage, fontsize=style.SMALL)
            if col == 0:
                ax.set_ylabel(f"at '{at}'", fontsize=style.SMALL)
            else:
                ax.set_yticklabels([])
    ax = fig.add_subplot(grid[:, len(stages) :])
    cube = cubes["toylang_block"].sel(N=block["block_N"], kappa=block["block_kappa"])
    L = cube["L"].values
    for beta, color in zip(curve_betas, (style.QUERY, style.STORED), strict=True):
        p = cube["thanked_p_correct"].sel(beta=beta).values
        ax.plot(L + 1, p, "o-", ms=3, color=color, label=f"beta = {beta}")
    worked = block["printed_L"] + 1
    ax.axvline(worked, color=style.GREY, ls=":")
    ax.text(
        1.1 * worked,
        0.3,
        f"worked example, L = {block['printed_L']}",
        color=style.GREY,
        fontsize=style.SMALL,
    )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("gap L + 1 (log scale)")
    ax.set_ylabel("probability of the right final name")
    ax.set_title(
        f"kappa = {block['block_kappa']:g}; the argmax is right at every L", fontsize=style.SMALL
    )
    ax.legend(fontsize=style.SMALL)
    fig.suptitle(
        "first-principles C4: the block stage by stage (X = Flo, Y = Gus, "
        f"beta {block['printed_beta']:g}, kappa {block['block_kappa']:g})"
        " and its probability against the gap"
    )
    return fig


@figure("first-principles/C4-decoder", title="The decoder, as a diagram")
def decoder(cubes):
    """A schematic of the decoder: tokens are embedded and given a position code, pass through a
    stack of identical blocks that each add a lookup and a per-token computation to the stream,
    and leave through the unembedding and a softmax whose cross-entropy is the training loss."""
    del cubes
    fig, ax = plt.subplots(figsize=(12, 3), layout="constrained")
    ax.set_axis_off()
    boxes = [
        ("tokens w_1..w_n", style.OBSERVED),
        ("embedding e(w_t)\n+ position code", style.OBSERVED),
        ("block 1\nx += Attn(LN x)\nx += MLP(LN x)", style.STORED),
        ("...", style.GREY),
        ("block N_b", style.STORED),
        ("unembedding W_U\n(d x |V|)", style.QUERY),
        ("softmax\np(w_t+1 | w_<=t)\nloss: mean -ln p", style.RESULT),
    ]
    for i, (text, color) in enumerate(boxes):
        x = i * 1.45
        ax.add_patch(
            FancyBboxPatch(
                (x, 0.2), 1.15, 0.6, boxstyle="round,pad=0.03", fc=color, alpha=0.2, ec=color
            )
        )
        ax.text(x + 0.575, 0.5, text, ha="center", va="center", fontsize=style.SMALL)
        if i:
            ax.add_patch(
                FancyArrowPatch((x - 0.3, 0.5), (x - 0.02, 0.5), arrowstyle="->", mutation_scale=12)
            )
    ax.set_xlim(-0.1, len(boxes) * 1.45)
    ax.set_ylim(0, 1)
    ax.set_title(
        "first-principles C4: the decoder, a block repeated between a way in and a way out"
    )
    return fig


@figure(
    "first-principles/C5-cache",
    title="A cache against recomputing the layer",
    cubes=("layer_cost",),
)
def cache(cubes):
    """Counted multiply-adds of one base-model layer (d 512, 8 heads, feed-forward 2048). Left:
    recomputing the layer for a new token against reading a key-value cache, on log scales
    against the number of tokens. Right: the numbers the cache keeps, per layer and for six
    layers."""
    ds = cubes["layer_cost"]
    n = ds["n"].values
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    ax = axes[0]
    ax.plot(n, ds["recompute_cost"].values, color=style.LIMIT, label="recompute the layer")
    ax.plot(n, ds["step_cost"].values, "--", color=style.RESULT, label="one new token with a cache")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("multiply-adds per layer (log scale)")
    ax.set_title("generating: the cache turns n^2 d into n d + d^2", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL)
    ax = axes[1]
    ax.plot(n, ds["kv_cache"].values, color=style.GREY, label="keys and values, 6 layers")
    ax.plot(n, ds["kv_per_layer"].values, color=style.STORED, label="one layer (2 n d)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("numbers kept (log scale)")
    ax.set_title("the price: memory that grows with n (d = 512)", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL)
    fig.suptitle("first-principles C5: training reuses nothing, generating reuses keys and values")
    return fig


@figure(
    "first-principles/C5-steps-pairs",
    title="Pairs grow as the square, cache and steps linearly",
    cubes=("layer_cost",),
    settings={"toylang_n": ("layer_cost", "n")},
)
def steps_pairs(cubes, toylang_n):
    """Counts against the number of tokens on log scales: the causal score entries of one head
    in one layer (slope 2), the key-value cache of a six-layer decoder of width 512 (slope 1),
    and the sequential steps of a recurrent net and of a six-layer transformer. The dots mark
    ToyLang at gaps 10 and 100 and the dotted line the length where the scores reach the size of
    the cache."""
    ds = cubes["layer_cost"]
    n = ds["n"].values
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    ax.plot(n, ds["causal_entries"].values, color=style.STORED, label="one head's causal scores")
    ax.plot(n, ds["kv_cache"].values, color=style.GREY, label="key-value cache, 6 layers, d 512")
    ax.plot(n, ds["rnn_steps"].values, color="black", label="sequential steps, RNN")
    ax.plot(n, ds["transformer_steps"].values, "k--", label="sequential steps, 6-layer stack")
    for m in toylang_n:  # a ToyLang sentence with gap L has L + 10 tokens
        text = f"L = {m - 10}"
        y = float(ds["causal_entries"].sel(n=m))
        ax.plot(m, y, "o", color=style.QUERY, ms=6)
        ax.text(m * 1.2, y / 3, text, color=style.QUERY, fontsize=style.SMALL)
    eq = float(ds["cache_equal_n"].isel(n=0))
    ax.axvline(eq, color=style.LIMIT, ls=":", lw=1)
    ax.text(eq * 1.1, 10, f"equal at n = {eq:,.0f}", color=style.LIMIT, fontsize=style.SMALL)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("count (log scale)")
    ax.legend(fontsize=style.SMALL)
    ax.set_title("first-principles C5: attention trades sequential steps for pairs")
    return fig
