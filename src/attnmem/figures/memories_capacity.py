"""Figures of the capacity of a read: first-principles D5, memory-math chapter 6 over d and the
classical Hopfield threshold, and every-layer-a-store's two recall criteria."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import style

SCORE_LABELS = {
    "hebbian": "linear (Hebbian)",
    "relu": "ReLU",
    "relu2": "ReLU$^2$",
    "relu3": "ReLU$^3$",
    "softmax_sqrt_d": r"softmax, $\beta=\sqrt{d}$",
}
SCORE_COLOURS = {
    "hebbian": style.OBSERVED,
    "relu": style.GREY,
    "relu2": style.QUERY,
    "relu3": style.RESULT,
    "softmax_sqrt_d": style.STORED,
}


def _ratio_curve(m: np.ndarray, capacity: float) -> np.ndarray:
    """Root mean squared interference over signal: sqrt((m - 1) / (capacity - 1))."""
    return np.sqrt((m - 1.0) / (capacity - 1.0))


def softmax_capacity_d5(cubes):
    """Left: interference over signal against stored pairs at d = 16 (log axes), exact curves
    for the linear read and the softmax read at beta = 1, 2, 4, 8, simulated means as dots.
    Right: exact and Gaussian capacity over beta at d = 16 and 64."""
    cap = cubes["softmax_capacity"]
    mc = cubes["softmax_interference_mc"].sel(d=16)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    m = np.logspace(np.log10(2), 6, 300)
    hebb = float(cap["score_capacity"].sel(d=16, score="hebbian"))
    ax.plot(m, _ratio_curve(m, hebb), color=style.OBSERVED, label=f"linear (crosses at {hebb:.0f})")
    ax.plot(mc["m"], np.sqrt(mc["ratio_hebbian"].mean("seed")), "o", color=style.OBSERVED, ms=4)
    shades = plt.cm.Purples(np.linspace(0.45, 0.95, 4))
    for colour, beta in zip(shades, (1.0, 2.0, 4.0, 8.0), strict=True):
        c = float(cap["capacity_exact"].sel(d=16, beta=beta))
        g = float(cap["capacity_gauss"].sel(d=16, beta=beta))
        ax.plot(m, _ratio_curve(m, c), color=colour, label=rf"softmax $\beta$={beta:g} ({c:,.0f})")
        ax.plot(m, _ratio_curve(m, g), color=colour, ls=":", lw=1)
        ax.plot(
            mc["m"],
            np.sqrt(mc["ratio_softmax"].sel(beta=beta).mean("seed")),
            "o",
            color=colour,
            ms=4,
        )
        ax.plot([c], [1.0], "o", color=colour, mec="black", ms=7)
    ax.axhline(1.0, color=style.LIMIT, ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 30)
    ax.set_xlabel("stored pairs m (log scale)")
    ax.set_ylabel("interference / signal, root mean square (log scale)")
    ax.set_title("d = 16: solid exact, dotted Gaussian form, dots simulated", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")

    for d, ls in ((16, "-"), (64, "--")):
        sub = cap.sel(d=d)
        bx.plot(sub["beta"], sub["capacity_exact"], ls, color=style.STORED, label=f"exact, d={d}")
        bx.plot(sub["beta"], sub["capacity_gauss"], ls, color=style.QUERY, label=f"Gaussian, d={d}")
    for beta in (2, 4, 8, 12):
        bx.plot(beta, float(cap["capacity_exact"].sel(d=16, beta=beta)), "o", color=style.STORED)
        bx.plot(beta, float(cap["capacity_gauss"].sel(d=16, beta=beta)), "o", color=style.QUERY)
    bx.axvline(8, color=style.GREY, lw=0.8, ls=":")
    bx.text(8.2, 3, "peak of Gaussian form at d/2 (d = 16)", fontsize=8, color=style.GREY)
    bx.set_yscale("log")
    bx.set_xlabel(r"inverse temperature $\beta$")
    bx.set_ylabel("capacity m* (pairs, log scale)")
    bx.set_title("capacity over beta; dots: the printed Check points", fontsize=10)
    bx.legend(fontsize=8)
    return fig


def capacity_over_d(cubes):
    """One panel per width: each read's interference over signal against stored pairs, with its
    crossing of 1 marked and labelled (exact moments; softmax at beta = sqrt(d))."""
    cap = cubes["softmax_capacity"]
    widths = [d for d in (16, 32, 64, 128) if d in cap["d"].values]
    fig, axes = plt.subplots(2, 2, figsize=(10, 8), layout="constrained")
    axes = axes.ravel()[: len(widths)]
    m = np.logspace(0.3, 7, 300)
    for ax, d in zip(np.atleast_1d(axes), widths, strict=True):
        for k, (score, label) in enumerate(SCORE_LABELS.items()):
            c = float(cap["score_capacity"].sel(d=d, score=score))
            colour = SCORE_COLOURS[score]
            ax.plot(m, _ratio_curve(m, c), color=colour, label=label)
            if c < m[-1]:
                ax.plot([c], [1.0], "o", color=colour, mec="black")
                ax.annotate(
                    f"{c:,.0f}",
                    (c, 1.0),
                    textcoords="offset points",
                    xytext=(-8, 8 if k % 2 == 0 else -16),
                    fontsize=8,
                    color=colour,
                )
            else:
                ax.text(m[-1], 0.02, f"softmax: {c:.2g}\n(off the chart)", ha="right", fontsize=7)
        ax.axhline(1.0, color=style.LIMIT, ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 1e2)
        ax.set_title(f"d = {d}" + (" (the worked example's width)" if d == 64 else ""), fontsize=10)
        ax.set_xlabel("stored pairs M (log scale)")
    for ax in axes[::2]:
        ax.set_ylabel("interference / signal (log scale)")
    axes[0].legend(fontsize=8, loc="upper left")
    return fig


def hopfield_capacity(cubes):
    """Final overlap with the stored pattern against the load alpha = P/N, simulated, with the
    zero-temperature threshold of the replica theory."""
    ds = cubes["capacity_checks"]
    fig, ax = plt.subplots(figsize=(6.5, 4.2), layout="constrained")
    mean = ds["hopfield_overlap"].mean("seed")
    se = ds["hopfield_overlap"].std("seed") / np.sqrt(ds.sizes["seed"])
    ax.errorbar(ds["alpha"], mean, yerr=2 * se, fmt="o-", color=style.STORED, label="simulated")
    alpha_c = float(ds["alpha_c"].isel(seed=0))
    m_c = float(ds["overlap_at_alpha_c"].isel(seed=0))
    ax.axvline(alpha_c, color=style.LIMIT, ls="--", label=rf"theory $\alpha_c$ = {alpha_c:.3f}")
    ax.plot([alpha_c], [m_c], "s", color=style.LIMIT)
    ax.set_xlabel(r"load $\alpha$ = stored patterns / neurons")
    ax.set_ylabel("final overlap with the stored pattern")
    ax.set_title("Hebbian Hopfield network, 1000 neurons, parallel updates", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def two_criteria(cubes):
    """Share of pairs whose own value wins among all stored values at d = 128, for the outer
    product and the least-squares map, at the clean-vector counts and the two thresholds."""
    ds = cubes["capacity_checks"]
    fig, ax = plt.subplots(figsize=(6.5, 4.2), layout="constrained")
    pairs = ds["pairs"].values
    for name, colour in (("outer_product", style.OBSERVED), ("least_squares", style.STORED)):
        sel = ds["win_recall"].sel(map=name)
        ax.errorbar(
            pairs,
            sel.mean("seed"),
            yerr=2 * sel.std("seed") / np.sqrt(ds.sizes["seed"]),
            fmt="o-",
            color=colour,
            label=name.replace("_", " "),
        )
    for n, text in zip(pairs, ("d", "2d", "d²/(n ln n) = 8", "d²/(n ln n) = 2"), strict=True):
        ax.axvline(n, color=style.GREY, lw=0.7, ls=":")
        ax.text(n, 0.72, f" {text}\n n={n}", fontsize=7, color=style.GREY)
    ax.set_xscale("log")
    ax.set_ylim(0.4, 1.02)
    ax.set_xlabel("stored pairs n (log scale)")
    ax.set_ylabel("share of pairs whose own value wins")
    ax.set_title("d = 128: recall by winning among the stored values", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    return fig
