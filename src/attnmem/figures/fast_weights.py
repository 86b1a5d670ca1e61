"""Figures of the fast memory: linear attention as a recurrent state, the ToyLang readers, the
add / decay / correct writes and the gated write (first-principles D3-D4), and memory-math's
figures of chapters 4, 9 and 10."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style

# label, colour, line style, marker: red and green also differ in line and marker
STORE_LOOK = {
    "hebbian": ("add (Hebbian)", style.LIMIT, "-", "o"),
    "least_squares": ("least squares", style.RESULT, "--", "s"),
    "delta": ("delta rule, one pass", style.QUERY, "-.", "^"),
    "softmax": ("softmax cache", style.OBSERVED, "-", "D"),
}
DEFAULT_GAP = 6  # the gap of the Flo prompt (line 864), where the drag rings open
DEFAULT_GAMMA = 0.9  # the decay of the Check (line 976)


def _mean_sd(da):
    return da.mean("seed").values, da.std("seed", ddof=1).values


@figure(
    "first-principles/D3-two-memories", title="Two stores in one layer: slow weights, fast context"
)
def two_memories(cubes):
    """A schematic of the two stores of a layer. Both are read the same way, as a sum of values
    weighted by a score of key against query; the feed-forward weights are written by training
    and kept for the model's life, the attention cache is written by the forward pass, one pair
    per token, and dropped after the sequence."""
    fig, ax = plt.subplots(figsize=(9.5, 3.6), layout="constrained")
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 4.2)
    ax.text(
        5,
        3.95,
        "one read: output = sum over pairs of value x score(key . query)",
        ha="center",
        fontsize=style.LARGE,
        color=style.STORED,
    )
    rows = [
        ("keys", "rows of the first weight matrix", "W_K x for each earlier token"),
        ("values", "columns of the second weight matrix", "W_V x for each earlier token"),
        ("written by", "gradient descent in training", "the forward pass, one pair a token"),
        ("lasts", "as long as the model", "one sequence"),
        ("size", "fixed: m pairs a layer", "grows: one pair a token"),
    ]
    ax.text(3.0, 3.3, "MLP: slow memory", ha="center", weight="bold", color=style.STORED)
    ax.text(7.6, 3.3, "attention: fast memory", ha="center", weight="bold", color=style.OBSERVED)
    for i, (what, slow, fast) in enumerate(rows):
        y = 2.75 - 0.55 * i
        ax.text(0.1, y, what, weight="bold", color=style.GREY)
        ax.text(3.0, y, slow, ha="center")
        ax.text(7.6, y, fast, ha="center")
    return fig


# The Flo prompt as the readers see it, token by token (the interactive page's cursor too).
FLO_WORDS = (
    "Flo",
    "gave",
    "Ann",
    "a",
    "pen",
    "and",
    "yes",
    "well",
    "well",
    "and",
    "so",
    "then",
    "Ann",
    "thanked",
)


@figure(
    "first-principles/D3-two-readers",
    title="One prompt written into a small state, token by token",
    cubes=("fast_weight_algebra",),
)
def two_readers(cubes):
    """The Flo prompt written into an 8 x 8 state one token at a time, each word under a fresh
    random unit key with a random unit embedding as its value (first seed's draw). Left, the
    state after 'thanked'; right, after each token, the cosine of each reader's answer to the
    query "position 0" with Flo (copper) and with the closest other name (grey), for the linear
    read of the state and the softmax read of the cache."""
    ds = cubes["fast_weight_algebra"].isel(seed=0)
    words = FLO_WORDS
    fig, axes = plt.subplots(
        1, 3, figsize=(13, 4), layout="constrained", gridspec_kw={"width_ratios": (1, 1.6, 1.6)}
    )
    S = ds["flo_state"].values
    lim = np.abs(S).max()
    state = axes[0].imshow(S, cmap="PuOr_r", vmin=-lim, vmax=lim)
    fig.colorbar(state, ax=axes[0], label="entry of the state", shrink=0.8)
    axes[0].set_title("state after 'thanked' (8 x 8)")
    axes[0].set_xlabel("key coordinate")
    axes[0].set_ylabel("value coordinate")
    axes[0].grid(False)
    steps = np.arange(len(words))
    for ax, reader, title in zip(
        axes[1:],
        ("linear", "softmax"),
        ("linear read of the state", "softmax read of the cache"),
        strict=True,
    ):
        ax.plot(
            steps,
            ds["flo_cos_true"].sel(reader=reader),
            "o-",
            color=style.QUERY,
            label="cosine with Flo (true first name)",
        )
        ax.plot(
            steps,
            ds["flo_cos_wrong"].sel(reader=reader),
            "s--",
            color=style.GREY,
            label="closest other name",
        )
        ax.set_xticks(steps, words, rotation=60, fontsize=style.SMALL)
        ax.set_ylim(-0.1, 1.05)
        ax.set_ylabel("cosine")
        ax.set_title(title)
    axes[1].legend(loc="lower left", fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/D3-gap-accuracy",
    title="A fixed state forgets with the gap, a cache does not",
    cubes=("toylang_readers",),
)
def gap_accuracy(cubes):
    """Share of 300 random ToyLang sentences in which each reader names the first word, with
    every word written, against the gap L (mean over the seeded runs, band one standard
    deviation of a run; the thin line marks L = 6, the Flo prompt). The softmax cache stays at
    the top while the fixed 8 x 8 state falls towards the 1-in-8 guess; the one-pass delta rule,
    which favours the newest writes, does worst. Right, the numbers each memory holds when
    asked."""
    ds = cubes["toylang_readers"]
    L = ds["L"].values
    fig, (ax, bx) = plt.subplots(
        1, 2, figsize=(12, 4.2), layout="constrained", gridspec_kw={"width_ratios": (1.6, 1)}
    )
    for reader in ("hebbian", "delta", "least_squares", "softmax"):
        label, color, ls, _ = STORE_LOOK[reader]
        m, s = _mean_sd(ds["accuracy"].sel(gate="every_word", reader=reader))
        ax.plot(L, m, ls, color=color, label=label.replace(", one pass", ""))
        ax.fill_between(L, m - s, m + s, color=color, alpha=0.15)
    ax.axhline(float(ds["chance"].isel(seed=0)), color=style.GREY, ls=":", label="guess (1/8)")
    ax.axvline(DEFAULT_GAP, color=style.GREY, lw=0.8)
    ax.set_xlabel("gap L (filler words)")
    ax.set_ylabel("share of sentences, first word named")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=style.SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=3)
    ax.set_title("8 x 8 state against a cache, every word written")
    bx.plot(L, ds["cache_numbers"].isel(seed=0), color=style.OBSERVED, label="cache: 2 d (8 + L)")
    bx.axhline(float(ds["state_numbers"].isel(seed=0)), color=style.STORED, label="state: d^2 = 64")
    bx.set_xlabel("gap L (filler words)")
    bx.set_ylabel("numbers held (numbers)")
    bx.legend(fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/D4-forget-then-write",
    title="Adding keeps the old value, the delta rule replaces it",
    cubes=("fast_memory_exact",),
)
def forget_then_write(cubes):
    """The hand-worked writes under one key. Left, Ann = 3 and then Cy = 5: adding reads back
    their sum 8, the delta rule reads back the newest value 5. Right, a neighbour pair (7 under
    a key overlapping by 0.6) read before and after the delta write of Ann, which moves it by
    the overlap times the corrected error, to 6.28."""
    ds = cubes["fast_memory_exact"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    reads = [float(ds["hebbian_read_ann_cy"]), float(ds["delta_read_cy"])]
    ax.bar(["add", "correct (delta)"], reads, color=[style.LIMIT, style.RESULT])
    ax.axhline(5, color=style.QUERY, ls="--", label="Cy = 5, the newest value")
    ax.set_ylabel("read at the shared key")
    ax.set_title("Ann = 3, then Cy = 5, one key")
    ax.legend(fontsize=style.SMALL)
    vals = [7.0, float(ds["neighbour_read_kprime"])]
    bx.bar(["before", "after writing Ann"], vals, color=[style.STORED, style.QUERY])
    bx.set_ylabel("read at the neighbour's key k'")
    bx.set_title("a neighbour moves by overlap x error")
    for i, v in enumerate(vals):
        bx.text(i, v + 0.1, f"{v:.2f}", ha="center")
    return fig


@figure(
    "first-principles/D4-four-ways",
    title="Four ways to store pairs, and their recall error",
    cubes=("write_rule_streams", "fast_memory_exact"),
)
def four_ways(cubes):
    """Squared error of the recalled value against the number of random pairs stored in 16
    dimensions, for four ways of storing them: adding outer products, least squares, one pass of
    the delta rule and a softmax cache (markers, Monte Carlo over every draw of every seed;
    lines, the closed forms of the two linear stores). The dotted line at 1 is the error of
    answering nothing."""
    ds = cubes["write_rule_streams"]
    ex = cubes["fast_memory_exact"]
    m = ds["pairs"].values
    fig, ax = plt.subplots(figsize=(8, 4.4), layout="constrained")
    for store, (label, color, _, marker) in STORE_LOOK.items():
        mean = ds["store_error"].sel(store=store).mean("seed")
        ax.plot(m, mean, marker, ms=3, color=color, label=label)
    ax.plot(m, ex["hebbian_closed_error"], "-", color=style.LIMIT, lw=1, label="(m - 1)/d")
    ax.plot(
        m, ex["least_squares_closed_error"], "--", color=style.RESULT, lw=1, label="max(0, 1 - d/m)"
    )
    ax.axhline(1, color=style.GREY, ls=":", label="answering nothing")
    ax.axvline(16, color=style.GREY, lw=0.8)
    ax.set_xlabel("stored pairs m (d = 16)")
    ax.set_ylabel("squared error of the recalled value")
    ax.legend(fontsize=style.SMALL)
    return fig


def _age_panel(ax, ds, ex, gamma):
    age = ds["age"].values
    cl = ex["decay_closed_error"]
    ax.plot(
        age,
        ds["decay_age_error"].sel(gamma=1.0).mean("seed"),
        "o",
        ms=3,
        color=style.LIMIT,
        label="add",
    )
    ax.plot(age, cl.sel(gamma=1.0), "-", color=style.LIMIT, lw=1)
    ax.plot(
        age,
        ds["decay_age_error"].sel(gamma=gamma).mean("seed"),
        "s",
        ms=3,
        color=style.OBSERVED,
        label=f"decay, gamma = {gamma:g}",
    )
    ax.plot(age, cl.sel(gamma=gamma), "--", color=style.OBSERVED, lw=1)
    ax.plot(
        age, ds["delta_age_error"].mean("seed"), "^-.", ms=3, color=style.QUERY, label="delta rule"
    )
    ax.plot(
        age,
        ds["softmax_age_error"].mean("seed"),
        "D:",
        ms=3,
        color=style.RESULT,
        label="softmax cache",
    )
    ax.axhline(1, color=style.GREY, ls=":")
    ax.set_xlabel("age of the pair (writes since)")
    ax.set_ylabel("squared error of the read")
    ax.set_ylim(0, 3.1)


@figure(
    "first-principles/D4-error-by-age",
    title="Recall error by the age of a pair",
    cubes=("write_rule_streams", "fast_memory_exact"),
)
def error_by_age(cubes):
    """Squared error of each pair's read against how many writes ago it was stored, 24 random
    pairs in 8 dimensions: adding (red), decay with gamma = 0.9 (blue), the delta rule (copper)
    and a softmax cache (green). Dots are Monte Carlo means over every stream of every run,
    lines the closed form of the decayed state; the decayed line crosses 1 between ages 8 and 9."""
    ds, ex = cubes["write_rule_streams"], cubes["fast_memory_exact"]
    fig, ax = plt.subplots(figsize=(8, 4.4), layout="constrained")
    _age_panel(ax, ds, ex, DEFAULT_GAMMA)
    ax.legend(fontsize=style.SMALL, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


@figure(
    "first-principles/D4-gated-write",
    title="A gate that writes only what matters",
    cubes=("toylang_readers",),
)
def gated_write(cubes):
    """How often (out of 300 ToyLang sentences) the Hebbian state recovers the first word when
    all words are written (grey) and under a hand-set gate that writes only the names and the
    thing (black), against the gap L (mean over the seeded runs, band one standard deviation of
    a run). Dashed, the gated delta rule and gated least squares. With the gate the state holds
    four pairs whatever the gap, so its accuracy no longer moves with L."""
    ds = cubes["toylang_readers"]
    L = ds["L"].values
    fig, ax = plt.subplots(figsize=(8, 4.2), layout="constrained")
    for gate, color, label in (
        ("every_word", style.GREY, "Hebbian, every word written"),
        ("gated", "black", "Hebbian, gated write"),
    ):
        m, s = _mean_sd(ds["accuracy"].sel(gate=gate, reader="hebbian"))
        ax.plot(L, m, color=color, label=label)
        ax.fill_between(L, m - s, m + s, color=color, alpha=0.15)
    for reader in ("delta", "least_squares"):
        lab, color, _, _ = STORE_LOOK[reader]
        ax.plot(
            L,
            ds["accuracy"].sel(gate="gated", reader=reader).mean("seed"),
            "--",
            color=color,
            label=f"{lab.replace(', one pass', '')}, gated",
        )
    ax.axvline(DEFAULT_GAP, color=style.GREY, lw=0.8)
    ax.set_xlabel("gap L (filler words)")
    ax.set_ylabel("share of sentences, first word named")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=style.SMALL, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


@figure(
    "memory-math/ch4-careful-write",
    title="Least squares is exact until the store is full",
    cubes=("write_rule_streams", "fast_memory_exact"),
)
def careful_write(cubes):
    """Recall error of an outer-product store and a least-squares store against the number of
    stored random pairs with 16-dimensional keys, mean over three draws (dots), with the closed
    forms (m - 1)/d and max(0, 1 - d/m) as lines. The least-squares store is exact until the
    number of pairs reaches the key dimension; the outer-product store errs from the second pair
    on."""
    ds, ex = cubes["write_rule_streams"], cubes["fast_memory_exact"]
    m = ds["pairs"].values
    few = ds["store_error_few"].isel(seed=0)
    fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
    ax.plot(m, few.sel(store="hebbian"), "o", ms=3, color=style.LIMIT, label="outer product")
    ax.plot(m, few.sel(store="least_squares"), "s", ms=3, color=style.RESULT, label="least squares")
    ax.plot(m, ex["hebbian_closed_error"], "-", color=style.LIMIT, lw=1)
    ax.plot(m, ex["least_squares_closed_error"], "--", color=style.RESULT, lw=1)
    ax.axvline(16, color=style.GREY, lw=0.8, ls="--")
    ax.set_xlabel("stored memories M (d_k = 16)")
    ax.set_ylabel("squared recall error")
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch9-cache-vs-state",
    title="A growing cache against a fixed state",
    cubes=("write_rule_streams",),
)
def cache_vs_state(cubes):
    """Left, the numbers a key-value cache holds as tokens are read (two rows of 4 per token)
    against a 4 x 4 state that never grows. Right, the squared error each memory makes when
    asked for the first value, as the number of tokens read grows (mean over every draw of every
    seed): the state's linear read reaches 1 at five tokens while the softmax read of the cache
    stays near 0.1."""
    ds = cubes["write_rule_streams"]
    t = ds["tokens"].values
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    ax.bar(t - 0.2, 2 * 4 * t, width=0.4, color=style.OBSERVED, label="cache: 2 x 4 per token")
    ax.bar(t + 0.2, np.full_like(t, 16), width=0.4, color=style.STORED, label="state: 4 x 4")
    ax.set_xlabel("tokens read")
    ax.set_ylabel("numbers held (numbers)")
    ax.legend(fontsize=style.SMALL)
    err = ds["first_value_error"].mean("seed")
    bx.plot(t, err.sel(memory="state"), "o-", color=style.STORED, label="state, linear read")
    bx.plot(t, err.sel(memory="cache"), "o-", color=style.OBSERVED, label="cache, softmax read")
    bx.axhline(1, color=style.GREY, ls=":")
    bx.set_xlabel("tokens read")
    bx.set_ylabel("squared error on the first value")
    bx.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch9-cache-vs-weights",
    title="When the cache outgrows the weights",
    cubes=("fast_memory_exact",),
)
def cache_vs_weights(cubes):
    """Memory of a model with width 4096 and 32 layers in 16-bit numbers: the parameters stay at
    about 12.9 GB whatever the context, while the key-value cache grows by 0.52 MB per token and
    passes them at 24,576 tokens (dashed). Both axes are on a log scale, with context lengths in
    powers of two."""
    ds = cubes["fast_memory_exact"]
    n = ds["context"].values
    fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
    ax.loglog(
        n, ds["cache_bytes"] / 1e9, "o-", color=style.OBSERVED, base=2, label="key-value cache"
    )
    ax.axhline(float(ds["param_bytes"]) / 1e9, color=style.STORED, label="parameters")
    ax.axvline(
        float(ds["n_star"]),
        color=style.LIMIT,
        ls="--",
        label=f"crossing, {float(ds['n_star']):,.0f} tokens",
    )
    ax.set_xlabel("context length (tokens, log scale)")
    ax.set_ylabel("memory (GB, log scale)")
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch10-error-by-age",
    title="Decay trades lost signal for less noise",
    cubes=("write_rule_streams", "fast_memory_exact"),
)
def age_sweep(cubes):
    """Recall error against the age of the pair in a stream of 24 random pairs in 8 dimensions,
    one panel per decay gamma (in place of the note's drag handle): adding (red) is wrong
    everywhere, decay (blue) trades lost signal for less noise, the delta rule (copper) is exact
    for the newest pair and worsens with age, and a softmax cache (green) keeps every pair."""
    ds, ex = cubes["write_rule_streams"], cubes["fast_memory_exact"]
    gammas = [g for g in ds["gamma"].values if g < 1]
    fig, axes = plt.subplots(
        1, len(gammas), figsize=(3.2 * len(gammas), 3.6), layout="constrained", sharey=True
    )
    for ax, g in zip(axes, gammas, strict=True):
        _age_panel(ax, ds, ex, float(g))
        ax.set_title(f"gamma = {g:g}" + (" (default)" if g == DEFAULT_GAMMA else ""))
    handles, labels = axes[0].get_legend_handles_labels()
    labels = ["decay, the panel's gamma" if s.startswith("decay") else s for s in labels]
    fig.legend(handles, labels, fontsize=style.SMALL, loc="outside right upper")
    return fig
