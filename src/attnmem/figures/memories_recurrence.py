"""Figures of first-principles Part B (the state a prediction needs, the gradient through time,
the random-key memory, keeping every pair, the soft look-back) and of memory-math chapter 3 (the
recall of an outer-product store as a signal plus leaked values)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import style

N_NAMES, FILLERS = 8, 6
GAPS_SHOWN = (0, 3, 12, 40)  # the drag handle of B1 swept; L = 3 is the default ruler
GAINS_SHOWN = (0.5, 0.9, 1.0, 1.05, 1.1)  # the drag handle of B2 swept
FAR = 48  # distance of the final name at L = 40
MEMORY_D = 32  # the width of the closed-form curve (B3) and of the fixed state (B4)
LOOKBACK_M = 256  # the size frame of B4


def future_states(cubes):
    """ln(distinct futures) after t tokens at N = 8, one panel per gap L, the filler band
    shaded; open dots are exact counts from enumerated languages (F = 2, same counts)."""
    ds = cubes["future_states"]
    fig, axes = plt.subplots(
        1,
        len(GAPS_SHOWN),
        figsize=(13, 3.6),
        layout="constrained",
        sharey=True,
        width_ratios=[10 + g for g in GAPS_SHOWN],
    )
    for ax, gap in zip(axes, GAPS_SHOWN, strict=True):
        d = ds.sel(N=N_NAMES, F=FILLERS, L=gap)
        t = np.arange(11 + gap)
        nats = d["state_nats"].values[: len(t)]
        ax.axvspan(4.5, 4.5 + gap, color=style.GREY, alpha=0.15, lw=0)
        ax.step(t, nats, where="post", color=style.STORED, lw=2.2 if gap == 3 else 1.6)
        enum = ds.sel(N=N_NAMES, F=2, L=gap)
        if float(enum["enumerated"]) == 1:
            ax.plot(
                t,
                np.log(enum["futures"].values[: len(t)]),
                "o",
                ms=4,
                mfc="white",
                color=style.STORED,
                label="enumerated (F = 2)",
            )
            ax.legend(loc="lower center", fontsize=8)
        for y, text in ((np.log(8), "ln 8"), (np.log(56), "ln 56")):
            ax.axhline(y, color=style.GREY, lw=0.6, ls=":")
            ax.text(len(t) - 0.5, y + 0.05, text, ha="right", fontsize=8, color=style.GREY)
        title = f"L = {gap}" + (" (default)" if gap == 3 else "")
        ax.set_title(title)
        ax.set_xlabel("tokens read t")
        ax.set_xlim(-0.3, len(t) - 0.5)
    axes[0].set_ylabel("state needed, ln(distinct futures) (nats)")
    axes[0].set_ylim(-0.1, 4.6)
    fig.suptitle("The state a prediction needs stays at ln 56 across the filler band (shaded)")
    return fig


def gradient_through_time(cubes):
    """Gradient size against distance D (log scale), one panel per gain g: the linear net
    (violet, g^D), tanh nets (black median of one batch of 20 with its min-max band), the
    forget-gate path at f = 0.99 (dashed); the dotted line marks D = 48."""
    ds = cubes["gradient_through_time"]
    dist = ds["D"].values
    fig, axes = plt.subplots(
        1, len(GAINS_SHOWN), figsize=(14, 3.8), layout="constrained", sharey=True
    )
    for ax, g in zip(axes, GAINS_SHOWN, strict=True):
        d = ds.sel(g=g, method="nearest").isel(seed=0)
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
    axes[0].legend(fontsize=8, loc="lower left")
    return fig


def random_key_memory(cubes):
    """Top: probability that the correct one of 8 names scores highest, over m/d, simulated at four
    widths (dots, seed means) and the Gaussian closed form at d = 32 (violet). Bottom: the
    interference-to-signal ratio measured (dots) against sqrt((m-1)/d) (violet lines)."""
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
    top.legend(fontsize=8)
    bottom.plot([], [], color=style.STORED, label="sqrt((m-1)/d)")
    bottom.legend(fontsize=8, loc="upper left")
    bottom.set_ylabel("interference / signal (rms)")
    bottom.set_xlabel("stored pairs per key dimension, m/d")
    return fig


def keep_every_pair(cubes):
    """Top: chance of the right name against m at d = 32, the fixed state (dashed, simulated)
    and the look-back over every stored key (solid). Bottom: numbers kept at m = 256."""
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
    top.legend(fontsize=8, loc="lower left")
    at = ds.sel(load=LOOKBACK_M / MEMORY_D)
    fixed = float(at["state_numbers"].isel(seed=0))
    kept = float(at["kept_numbers"].isel(seed=0))
    bars = bottom.barh([1, 0], [fixed, kept], color=[style.OBSERVED, style.LIMIT])
    bars[0].set_alpha(0.5)
    bottom.set_yticks([1, 0], ["fixed state, N d", "every key and value, m (d + N)"])
    for y, v in ((1, fixed), (0, kept)):
        bottom.text(v, y, f" {v:,.0f}", va="center", fontsize=9)
    bottom.set_xlabel(f"numbers kept at m = {LOOKBACK_M}")
    bottom.set_xlim(0, kept * 1.2)
    return fig


def soft_lookback(cubes):
    """Schematic of the soft look-back: a query scores every stored state, the softmax turns
    the scores into weights, and the context averages the states with those weights."""
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
        ax.text(x, -0.35, f"a = {w:.2f}", ha="center", fontsize=8, color=style.STORED)
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
        fontsize=9,
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


def recall_bars(cubes):
    """memory-math chapter 3: the weights k_i . k_1 with which each stored value enters the
    recall of pair 1 (d = 32, one draw), one panel per number of stored memories M."""
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
