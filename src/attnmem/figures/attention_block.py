"""Figures of first-principles C3-C5: one head's read, the scale over key sizes, heads as a sum,
the hand-built ToyLang block, the decoder, the cache and the cost curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from . import style

BLOCK = {"N": 8, "L": 0, "beta": 6, "kappa": 10}
NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Flo", "Gus", "Hal")


def _block(cubes, **over):
    return cubes["toylang_block"].sel({**BLOCK, **over})


def one_head_read(cubes):
    """Head 1 at 'thanked' on the printed sentence: scores, weights, the value blend, logits."""
    ds = _block(cubes)
    n = int(ds["thanked_visible"])
    words = ["Flo", "gave", "Gus", "a", "book", "then", "Gus", "thanked"][:n]
    scores = np.full(n, float(ds["thanked_score_other_max"]))
    scores[0] = float(ds["thanked_score_source"])
    weights = np.full(n, float(ds["thanked_w_other_max"]))
    weights[0] = float(ds["thanked_w_source"])
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), layout="constrained")
    axes[0].bar(range(n), scores, color=style.OBSERVED)
    axes[0].set_title("query . key (keys read the position code)", fontsize=9)
    axes[0].set_ylabel("score (1)")
    axes[1].bar(range(n), weights, color=style.QUERY)
    axes[1].set_title("softmax weights", fontsize=9)
    axes[1].set_ylabel("weight (1)")
    for ax in axes[:2]:
        ax.set_xticks(range(n), words, rotation=45, fontsize=8)
        ax.set_xlabel("key position")
    axes[2].bar(NAMES, ds["thanked_sub_copy"].values, color=style.STORED)
    axes[2].set_title("values blended: the subject copy", fontsize=9)
    axes[2].set_ylabel("copy (1)")
    axes[3].bar(NAMES, ds["thanked_probs"].values, color=style.RESULT)
    axes[3].set_title("prediction after the gate", fontsize=9)
    axes[3].set_ylabel("probability (1)")
    for ax in axes[2:]:
        ax.tick_params(axis="x", rotation=45, labelsize=8)
        ax.set_xlabel("name")
    fig.suptitle("first-principles C3: one head, one read (head 1 at 'thanked', beta = 6)")
    return fig


def scale_freeze(cubes):
    """One draw's weights over 16 keys at growing key size, raw (top) and scaled (bottom), and
    the mean entropy over draws against the key size."""
    ds = cubes["score_saturation"]
    sizes = [1, 4, 16, 64, 256, 1024]
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
            w = ds[var].sel(d_k=dk, seed=0).values
            ax.bar(keys, w, color=color)
            ax.set_ylim(0, 1)
            ax.set_xticks([])
            if row == 0:
                ax.set_title(f"d_k = {dk}", fontsize=9)
            if col == 0:
                ax.set_ylabel(f"{label} weight (1)", fontsize=8)
            else:
                ax.set_yticklabels([])
            if row == 1:
                ax.set_xlabel("16 keys", fontsize=8)
    ax = fig.add_subplot(grid[:, len(sizes) :])
    dk = ds["d_k"].values
    for var, color, label in (
        ("entropy_raw", style.LIMIT, "raw scores"),
        ("entropy_scaled", style.RESULT, "scores / sqrt(d_k)"),
    ):
        mean = ds[var].mean("seed").values
        sd = ds[var].std("seed").values
        ax.plot(dk, mean, "o-", ms=3, color=color, label=label)
        ax.fill_between(dk, mean - sd, mean + sd, color=color, alpha=0.2)
    ax.axhline(float(ds["entropy_uniform"].isel(d_k=0, seed=0)), color=style.GREY, ls="--")
    ax.text(1.2, 2.65, "uniform, ln 16", color=style.GREY, fontsize=8)
    for x, y in ((64, 0.41), (64, 2.35), (1024, 0.08)):
        ax.plot(x, y, "kx", ms=7)
    ax.plot([], [], "kx", label="printed")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("key size d_k (log scale)")
    ax.set_ylabel("mean entropy of the weights (nats)")
    ax.set_title("200 draws per run; band: one run's sd", fontsize=9)
    ax.legend(fontsize=8)
    fig.suptitle("first-principles C3: without the scale the softmax freezes (seed 0's first draw)")
    return fig


def heads_add(cubes):
    """Concatenate-then-W_O against the sum of per-head writes, and the constant parameters."""
    ds = cubes["head_algebra"]
    heads = ds["heads"].values
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    width = 0.38
    for off, d, color in ((-width / 2, 8, style.STORED), (width / 2, 16, style.OBSERVED)):
        gap = np.maximum(ds["heads_sum_gap"].sel(d=d).values, 1e-18)
        axes[0].bar(np.arange(len(heads)) + off, gap, width, color=color, label=f"d = {d}")
    axes[0].axhline(1e-12, color=style.LIMIT, ls="--", lw=1)
    axes[0].text(-0.4, 2e-12, "1e-12", color=style.LIMIT, fontsize=8)
    axes[0].set_yscale("log")
    axes[0].set_xticks(range(len(heads)), [str(h) for h in heads])
    axes[0].set_xlabel("heads n_h")
    axes[0].set_ylabel("largest |concat W_O - sum of writes| (log scale)")
    axes[0].set_title("the two forms agree to rounding (0 drawn at 1e-18)", fontsize=9)
    axes[0].legend(fontsize=8)
    axes[1].plot(heads, ds["heads_params_over_d2"].sel(d=8).values, "o-", color=style.STORED)
    axes[1].set_ylim(0, 5)
    axes[1].set_xticks(heads)
    axes[1].set_xlabel("heads n_h (d_k = d / n_h)")
    axes[1].set_ylabel("entries of W_Q, W_K, W_V, W_O over d^2")
    axes[1].set_title("parameters do not depend on n_h", fontsize=9)
    fig.suptitle("first-principles C4: heads are pointers whose writes add")
    return fig


def block_diagram(cubes):
    """The two copies and the two gate groups at the two lookup positions."""
    ds = _block(cubes)
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
            ax.bar(NAMES, ds[f"{at}_{var}"].values, color=color)
            ax.set_ylim(0, 1.05)
            ax.tick_params(axis="x", rotation=45, labelsize=8)
            ax.set_title(f"at '{at}': {label}", fontsize=9)
            if col == 0:
                ax.set_ylabel("value in the stream (1)")
    fig.suptitle(
        "first-principles C4: two pointers write two copies, the gate keeps the one asked for"
        " (Flo gave Gus ..., beta = 6)"
    )
    return fig


def block_steps(cubes):
    """Bars at each stage for the two lookups, and the right name's probability against L."""
    ds = _block(cubes)
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
            ax.set_xticks(range(3), ["X", "Y", "others"], fontsize=8)
            if row == 0:
                ax.set_title(stage, fontsize=9)
            if col == 0:
                ax.set_ylabel(f"at '{at}' (1)", fontsize=9)
            else:
                ax.set_yticklabels([])
    ax = fig.add_subplot(grid[:, len(stages) :])
    cube = cubes["toylang_block"].sel(N=8, kappa=10)
    L = cube["L"].values
    for beta, color in ((6, style.QUERY), (9, style.STORED)):
        p = cube["thanked_p_correct"].sel(beta=beta).values
        ax.plot(L + 1, p, "o-", ms=3, color=color, label=f"beta = {beta}")
    ax.axvline(1, color=style.GREY, ls=":")
    ax.text(1.1, 0.3, "worked example, L = 0", color=style.GREY, fontsize=8)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("gap L + 1 (log scale)")
    ax.set_ylabel("probability of the right final name (1)")
    ax.set_title("kappa = 10; the argmax is right at every L", fontsize=9)
    ax.legend(fontsize=8)
    fig.suptitle(
        "first-principles C4: the block stage by stage (X = Flo, Y = Gus, beta 6, kappa 10)"
        " and its probability against the gap"
    )
    return fig


def decoder(cubes):
    """Schematic: embedding plus position code, N_b blocks, unembedding and softmax."""
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
        ax.text(x + 0.575, 0.5, text, ha="center", va="center", fontsize=8)
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


def cache(cubes):
    """Work for one new token with and without the cache, and the cache's size, against n."""
    ds = cubes["layer_cost"]
    n = ds["n"].values
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    ax = axes[0]
    ax.plot(n, ds["recompute_cost"].values, color=style.LIMIT, label="recompute the layer")
    ax.plot(n, ds["step_cost"].values, color=style.RESULT, label="one new token with a cache")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("multiply-adds per layer (log scale)")
    ax.set_title("generating: the cache turns n^2 d into n d + d^2", fontsize=9)
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.plot(n, ds["kv_cache"].values, color=style.GREY, label="keys and values, 6 layers")
    ax.plot(n, ds["kv_per_layer"].values, color=style.STORED, label="one layer (2 n d)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("numbers kept (log scale)")
    ax.set_title("the price: memory that grows with n (d = 512)", fontsize=9)
    ax.legend(fontsize=8)
    fig.suptitle("first-principles C5: training reuses nothing, generating reuses keys and values")
    return fig


def steps_pairs(cubes):
    """Causal scores of one head, the six-layer cache and the sequential steps against n."""
    ds = cubes["layer_cost"]
    n = ds["n"].values
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    ax.plot(n, ds["causal_entries"].values, color=style.STORED, label="one head's causal scores")
    ax.plot(n, ds["kv_cache"].values, color=style.GREY, label="key-value cache, 6 layers, d 512")
    ax.plot(n, ds["rnn_steps"].values, color="black", label="sequential steps, RNN")
    ax.plot(n, ds["transformer_steps"].values, "k--", label="sequential steps, 6-layer stack")
    for m, text in ((20, "L = 10"), (110, "L = 100")):
        y = float(ds["causal_entries"].sel(n=m))
        ax.plot(m, y, "o", color=style.QUERY, ms=6)
        ax.text(m * 1.2, y / 3, text, color=style.QUERY, fontsize=8)
    eq = float(ds["cache_equal_n"].isel(n=0))
    ax.axvline(eq, color=style.LIMIT, ls=":", lw=1)
    ax.text(eq * 1.1, 10, f"equal at n = {eq:,.0f}", color=style.LIMIT, fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens n (log scale)")
    ax.set_ylabel("count (log scale)")
    ax.legend(fontsize=8)
    ax.set_title("first-principles C5: attention trades sequential steps for pairs")
    return fig
