"""Figures of first-principles Part B (the state a prediction needs, the gradient through time,
the random-key memory, keeping every pair, the soft look-back) and of memory-math chapter 3 (the
recall of an outer-product store as a signal plus leaked values)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style

FAR = 48  # distance of the final name at L = 40
MEMORY_D = 32  # the width of the closed-form curve (B3) and of the fixed state (B4)
LOOKBACK_M = 256  # the size frame of B4


@figure(
    "first-principles/B1-future-states",
    title="The state a prediction needs across the gap",
    cubes=("future_states",),
    settings={
        "names_N": ("future_states", "N"),
        "fillers_F": ("future_states", "F"),
        "enumerated_F": ("future_states", "F"),
        "shown_L": ("future_states", "L"),
        "default_L": ("future_states", "L"),
    },
)
def future_states(cubes, names_N, fillers_F, enumerated_F, shown_L, default_L):
    """How much a model must carry at each point of a ToyLang sentence with eight names: the
    natural log of the number of distinct futures among all prefixes of that length, one panel
    per gap length (L = 0, 3, 12, 40; 3 is the default ruler). The shaded band is the run of
    fillers. The step rises to ln 8 after the first name and to ln 56 after the second, stays
    flat through the whole band and drops back once the copies are written, so a longer gap only
    stretches the plateau. Open circles are exact counts from grouping every prefix of an
    enumerated language (two fillers, which gives the same counts) by its set of completions."""
    ds = cubes["future_states"]
    fig, axes = plt.subplots(
        1,
        len(shown_L),
        figsize=(13, 3.6),
        layout="constrained",
        sharey=True,
        width_ratios=[10 + g for g in shown_L],
    )
    for ax, gap in zip(axes, shown_L, strict=True):
        d = ds.sel(N=names_N, F=fillers_F, L=gap)
        t = np.arange(11 + gap)
        nats = d["state_nats"].values[: len(t)]
        ax.axvspan(4.5, 4.5 + gap, color=style.GREY, alpha=0.15, lw=0)
        ax.step(t, nats, where="post", color=style.STORED, lw=2.2 if gap == default_L else 1.6)
        enum = ds.sel(N=names_N, F=enumerated_F, L=gap)
        if float(enum["enumerated"]) == 1:
            ax.plot(
                t,
                np.log(enum["futures"].values[: len(t)]),
                "o",
                ms=4,
                mfc="white",
                color=style.STORED,
                label=f"enumerated (F = {enumerated_F})",
            )
        for y, text in ((np.log(8), "ln 8"), (np.log(56), "ln 56")):
            ax.axhline(y, color=style.GREY, lw=0.6, ls=":")
            ax.text(
                len(t) - 0.5, y + 0.05, text, ha="right", fontsize=style.SMALL, color=style.GREY
            )
        title = f"L = {gap}" + (" (default)" if gap == default_L else "")
        ax.set_title(title)
        ax.set_xlabel("tokens read t")
        ax.set_xlim(-0.3, len(t) - 0.5)
    axes[0].set_ylabel("state needed, ln(distinct futures) (nats)")
    axes[0].set_ylim(-0.1, 4.6)
    keys = {}  # one legend for the panels, below them, clear of every step
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            keys.setdefault(label, handle)
    fig.legend(keys.values(), keys.keys(), loc="outside lower center", fontsize=style.SMALL)
    fig.suptitle("The state a prediction needs stays at ln 56 across the filler band (shaded)")
    return fig


@figure(
    "first-principles/B2-gradient-through-time",
    title="Gradients through time vanish or explode",
    cubes=("gradient_through_time",),
    settings={"shown_g": ("gradient_through_time", "g")},
)
def gradient_through_time(cubes, shown_g):
    """Size of a unit gradient after it is sent back D steps through a 16-unit recurrent net
    whose transition is a gain g times a random orthogonal matrix, on a log scale, one panel per
    gain. Violet is the linear net, exactly g to the power D. Black is the median of 20 tanh
    nets driven by small random inputs, with the band from the smallest to the largest; it never
    rises above the linear line. The green dashed line is the direct cell path of a gated memory
    whose forget gate is 0.99. The dotted red line marks 48 steps, how far back the final name's
    source lies at L = 40."""
    ds = cubes["gradient_through_time"]
    dist = ds["D"].values
    fig, axes = plt.subplots(1, len(shown_g), figsize=(14, 3.8), layout="constrained", sharey=True)
    for ax, g in zip(axes, shown_g, strict=True):
        d = ds.sel(g=g).isel(seed=0)
        ax.semilogy(dist, d["linear_exact"], color=style.STORED, lw=2, label="linear, g^D")
        ax.fill_between(dist, d["tanh_min"], d["tanh_max"], color="black", alpha=0.15, lw=0)
        ax.semilogy(dist, d["tanh_median"], color="black", lw=1.2, label="tanh, 20 nets")
        ax.semilogy(
            dist,
            d["gate_path"].sel(forget=0.99),
            color=style.RESULT,
            ls="--",
            label="forget gate 0.99",
        )
        ax.axvline(FAR, color=style.LIMIT, ls=":", lw=1)
        ax.set_title(f"g = {g:g}" + (" (knife edge)" if g == 1.0 else ""))
        ax.set_xlabel("distance D (steps)")
        ax.set_ylim(1e-16, 1e3)
    axes[0].set_ylabel("gradient size (log scale)")
    axes[0].legend(fontsize=style.SMALL, loc="lower left")
    return fig


@figure(
    "first-principles/B3-random-key-memory",
    title="A memory of random keys fills up",
    cubes=("random_key_memory",),
)
def random_key_memory(cubes):
    """A memory that adds m outer products of random unit keys in d dimensions with one-hot
    codes of eight names, read back with stored keys. Top: the chance that the largest score
    names the right name against m/d, simulated at widths 8, 16, 32 and 64 (blue marks, mean of
    our replicates of 200 trials with 8 reads each) beside the Gaussian closed form at d = 32
    (violet), with a uniform guess in red. Bottom: the measured root-mean-square interference
    over the signal against the exact sqrt((m-1)/d) (violet lines, one per width). Plotted
    against m/d the widths fall on one curve."""
    ds = cubes["random_key_memory"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 7), layout="constrained", sharex=True)
    loads = ds["load"].values
    near = loads <= 4 + 1e-9
    shades = dict(zip(ds["d"].values, (0.35, 0.55, 0.8, 1.0), strict=True))
    markers = dict(zip(ds["d"].values, ("o", "s", "^", "D"), strict=True))
    for d in ds["d"].values:
        sel = ds.sel(d=d)
        acc = sel["accuracy"].mean("seed").values[near]
        top.plot(
            loads[near],
            acc,
            markers[d],
            ms=4,
            color=style.OBSERVED,
            alpha=shades[d],
            label=f"simulated, d = {d}",
        )
        ratio = sel["noise_ratio"].mean("seed").values[near]
        bottom.plot(
            loads[near],
            ratio,
            markers[d],
            ms=4,
            color=style.OBSERVED,
            alpha=shades[d],
            label=f"measured, d = {d}",
        )
        bottom.plot(
            loads[near],
            sel["noise_ratio_formula"].isel(seed=0).values[near],
            color=style.STORED,
            lw=1,
            alpha=shades[d],
        )
    gauss = ds.sel(d=MEMORY_D)["accuracy_gaussian"].isel(seed=0).values[near]
    top.plot(loads[near], gauss, color=style.STORED, lw=2, label="Gaussian form, d = 32")
    top.axhline(1 / 8, color=style.LIMIT, ls=":", lw=1, label="guess, 1/8")
    for ax in (top, bottom):
        ax.axvline(1, color=style.GREY, lw=0.8, ls="--")
    bottom.axhline(1, color=style.LIMIT, lw=0.8, ls=":")
    top.set_ylabel("P(right name)")
    top.set_ylim(0, 1.02)
    top.legend(fontsize=style.SMALL)
    bottom.plot([], [], color=style.STORED, label="sqrt((m-1)/d)")
    bottom.legend(fontsize=style.SMALL, loc="upper left")
    bottom.set_ylabel("interference / signal (rms)")
    bottom.set_xlabel("stored pairs per key dimension, m/d")
    return fig


@figure(
    "first-principles/B4-keep-every-pair",
    title="Keeping every pair against compressing them",
    cubes=("random_key_memory",),
)
def keep_every_pair(cubes):
    """Keeping every pair against compressing them into one matrix, with 32-dimensional random
    keys and eight names. Top: how often the correct name comes back as the number of stored
    pairs m grows, for the fixed outer-product state (blue dashed, simulated) and for the
    look-back that returns the value of the most similar stored key (green, right every time).
    Bottom: numbers kept at m = 256, the 256 of the fixed state against m(d + N) = 10,240 for
    storing every key and value."""
    ds = cubes["random_key_memory"].sel(d=MEMORY_D)
    m = ds["m_pairs"].isel(seed=0).values
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7.5, 6.5), layout="constrained", height_ratios=(2, 1)
    )
    top.plot(
        m,
        ds["accuracy"].mean("seed"),
        "--o",
        ms=3,
        color=style.OBSERVED,
        label="fixed state, d = 32 (simulated)",
    )
    top.plot(
        m,
        ds["lookback_accuracy"].mean("seed"),
        "-",
        color=style.RESULT,
        lw=2,
        label="look back over every key",
    )
    top.axvline(LOOKBACK_M, color=style.GREY, lw=0.8, ls=":")
    top.set_xlabel("stored pairs m")
    top.set_ylabel("P(right name)")
    top.set_ylim(0, 1.05)
    top.legend(fontsize=style.SMALL, loc="lower left")
    at = ds.sel(load=LOOKBACK_M / MEMORY_D)
    fixed = float(at["state_numbers"].isel(seed=0))
    kept = float(at["kept_numbers"].isel(seed=0))
    bars = bottom.barh([1, 0], [fixed, kept], color=[style.OBSERVED, style.LIMIT])
    bars[0].set_alpha(0.5)
    bottom.set_yticks([1, 0], ["fixed state, N d", "every key and value, m (d + N)"])
    for y, v in ((1, fixed), (0, kept)):
        bottom.text(v, y, f" {v:,.0f}", va="center", fontsize=style.SMALL)
    bottom.set_xlabel(f"numbers kept at m = {LOOKBACK_M}")
    bottom.set_xlim(0, kept * 1.2)
    return fig


@figure("first-principles/B4-soft-lookback", title="The soft look-back, as a diagram")
def soft_lookback(cubes):
    """Schematic of the soft look-back: a query (copper) is scored against every stored state
    (blue), the softmax turns the scores into weights that sum to one (violet, drawn as line
    widths, with made-up values for illustration), and the context (green) is the weighted sum
    of the states."""
    del cubes
    fig, ax = plt.subplots(figsize=(8, 3.4), layout="constrained")
    n = 6
    xs = np.arange(n) * 1.3
    weights = np.array([0.82, 0.05, 0.03, 0.04, 0.02, 0.04])  # illustrative only
    for x, w in zip(xs, weights, strict=True):
        ax.add_patch(plt.Rectangle((x - 0.4, 0), 0.8, 0.8, fc="white", ec=style.OBSERVED, lw=1.5))
        ax.annotate(
            "",
            (x, 0.85),
            (xs.mean(), 2.4),
            arrowprops={"arrowstyle": "-", "color": style.STORED, "lw": 0.5 + 8 * w},
        )
        ax.text(x, -0.35, f"a = {w:.2f}", ha="center", fontsize=style.SMALL, color=style.STORED)
    for k, x in enumerate(xs):
        ax.text(x, 0.4, f"h{k + 1}", ha="center", va="center", color=style.OBSERVED)
    ax.add_patch(plt.Rectangle((xs.mean() - 0.5, 2.4), 1.0, 0.7, fc="white", ec=style.QUERY, lw=2))
    ax.text(xs.mean(), 2.75, "query q", ha="center", va="center", color=style.QUERY)
    ax.add_patch(plt.Rectangle((xs[-1] + 1.2, 1.2), 1.6, 0.8, fc="white", ec=style.RESULT, lw=2))
    ax.text(
        xs[-1] + 2.0,
        1.6,
        "context\nsum a h",
        ha="center",
        va="center",
        color=style.RESULT,
        fontsize=style.SMALL,
    )
    ax.annotate(
        "",
        (xs[-1] + 1.2, 1.6),
        (xs[-1] + 0.45, 0.4),
        arrowprops={"arrowstyle": "->", "color": style.RESULT, "lw": 1.5},
    )
    ax.set_xlim(-0.8, xs[-1] + 3.2)
    ax.set_ylim(-0.7, 3.3)
    ax.axis("off")
    ax.set_title("Look back: weights from the softmax of the scores (illustrative numbers)")
    return fig


@figure(
    "memory-math/ch3-recall-bars",
    title="How much each stored pair leaks into a read",
    cubes=("random_key_memory",),
)
def recall_bars(cubes):
    """Recall from an outer-product memory with random unit keys in 32 dimensions, one random
    draw per panel for 4, 16, 32 and 64 stored pairs. Each bar is the weight with which a stored
    value enters the answer when pair 1 is asked for: the copper bar is the requested pair and
    stays at exactly one, the blue bars are overlaps of the other keys with the query, which
    leak their values into the answer. Their number and their total absolute size (printed above
    each panel) grow with M."""
    ds = cubes["random_key_memory"].isel(seed=0)
    shown = ds["shown_m"].values
    fig, axes = plt.subplots(
        1,
        len(shown),
        figsize=(13, 3.2),
        layout="constrained",
        sharey=True,
        width_ratios=[max(int(m), 16) for m in shown],
    )
    for ax, m in zip(axes, shown, strict=True):
        w = ds["recall_weights"].sel(shown_m=m).values[: int(m)]
        colors = [style.QUERY] + [style.OBSERVED] * (int(m) - 1)
        ax.bar(np.arange(1, int(m) + 1), w, color=colors, width=0.8)
        leak = float(np.sum(np.abs(w[1:])))
        ax.set_title(f"M = {int(m)}\ntotal leak {leak:.2f}")
        ax.set_xlabel("stored pair i")
        ax.axhline(0, color="black", lw=0.6)
    axes[0].set_ylabel("weight k_i . k_1 in the recall")
    return fig
