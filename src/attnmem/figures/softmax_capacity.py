"""Figures of the capacity of a read: first-principles D5, memory-math chapter 6 over d and the
classical Hopfield threshold, and every-layer-a-store's two recall criteria."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
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


@figure(
    "first-principles/D5-softmax-capacity",
    title="Interference over signal for a softmax read",
    cubes=("softmax_capacity", "softmax_interference_mc"),
    settings={
        "check_d": [("softmax_capacity", "d"), ("softmax_interference_mc", "d")],
        "capacity_widths": ("softmax_capacity", "d"),
    },
)
def softmax_capacity_d5(cubes, check_d, capacity_widths):
    """Left: root mean squared interference over signal for a read of one stored pair at width
    16, against the number of stored pairs on log axes. Solid lines use the exact moment of the
    overlap density, dotted lines the Gaussian shortcut, dots are simulated means over the
    seeds, 100 draws each. Every curve rises like the square root of the pairs; ringed dots mark
    where each crosses 1 (the linear read at 17). Right: the capacity over the inverse
    temperature at widths 16 and 64, exact against Gaussian, with the printed Check points; the
    Gaussian form turns down past beta = d/2 while the exact one keeps rising."""
    cap = cubes["softmax_capacity"]
    mc = cubes["softmax_interference_mc"].sel(d=check_d)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    m = np.logspace(np.log10(2), 6, 300)
    hebb = float(cap["score_capacity"].sel(d=check_d, score="hebbian"))
    ax.plot(m, _ratio_curve(m, hebb), color=style.OBSERVED, label=f"linear (crosses at {hebb:.0f})")
    ax.plot(mc["m"], np.sqrt(mc["ratio_hebbian"].mean("seed")), "o", color=style.OBSERVED, ms=4)
    shades = plt.cm.Purples(np.linspace(0.45, 0.95, 4))
    for colour, beta in zip(shades, (1.0, 2.0, 4.0, 8.0), strict=True):
        c = float(cap["capacity_exact"].sel(d=check_d, beta=beta))
        g = float(cap["capacity_gauss"].sel(d=check_d, beta=beta))
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
    ax.set_title(
        f"d = {check_d}: solid exact, dotted Gaussian form, dots simulated", fontsize=style.NORMAL
    )
    ax.legend(fontsize=style.SMALL, loc="lower right")

    for d, ls in zip(capacity_widths, ("-", "--"), strict=True):
        sub = cap.sel(d=d)
        bx.plot(sub["beta"], sub["capacity_exact"], ls, color=style.STORED, label=f"exact, d={d}")
        bx.plot(sub["beta"], sub["capacity_gauss"], ls, color=style.QUERY, label=f"Gaussian, d={d}")
    for beta in (2, 4, 8, 12):
        bx.plot(
            beta, float(cap["capacity_exact"].sel(d=check_d, beta=beta)), "o", color=style.STORED
        )
        bx.plot(
            beta, float(cap["capacity_gauss"].sel(d=check_d, beta=beta)), "o", color=style.QUERY
        )
    bx.axvline(check_d / 2, color=style.GREY, lw=0.8, ls=":")
    bx.text(
        check_d / 2 + 0.2,
        3,
        f"peak of Gaussian form at d/2 (d = {check_d})",
        fontsize=style.SMALL,
        color=style.GREY,
    )
    bx.set_yscale("log")
    bx.set_xlabel(r"inverse temperature $\beta$")
    bx.set_ylabel("capacity m* (pairs, log scale)")
    bx.set_title("capacity over beta; dots: the printed Check points", fontsize=style.NORMAL)
    bx.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch6-capacity-over-d",
    title="Capacity of five reads at four key widths",
    cubes=("softmax_capacity",),
    settings={"panel_widths": ("softmax_capacity", "d"), "worked_d": ("softmax_capacity", "d")},
)
def capacity_over_d(cubes, panel_widths, worked_d):
    """One panel per key width (16, 32, 64, 128): interference over signal against stored pairs
    for the linear, ReLU, squared-ReLU, cubed-ReLU and softmax reads (softmax at beta =
    sqrt(d)), all with exact moments of a random unit overlap. The dashed line is where
    interference equals signal; each read's crossing is marked with its capacity. At width 128
    the softmax read crosses beyond the chart."""
    cap = cubes["softmax_capacity"]
    widths = panel_widths
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
                ax.annotate(  # on three levels, so that neighbouring capacities stay apart
                    f"{c:,.0f}",
                    (c, 1.0),
                    textcoords="offset points",
                    xytext=(0, (10, -10, 10, -10, 24)[k]),
                    ha="center",
                    va="center",
                    fontsize=style.SMALL,
                    color=colour,
                    bbox=style.LABEL_BOX,
                )
            else:
                ax.text(
                    m[-1],
                    0.02,
                    f"softmax: {c:.2g}\n(off the chart)",
                    ha="right",
                    fontsize=style.SMALL,
                    bbox=style.LABEL_BOX,
                )
        ax.axhline(1.0, color=style.LIMIT, ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 1e2)
        ax.set_title(
            f"d = {d}" + (" (the worked example's width)" if d == worked_d else ""),
            fontsize=style.NORMAL,
        )
        ax.set_xlabel("stored pairs M (log scale)")
    for ax in axes[::2]:
        ax.set_ylabel("interference / signal (log scale)")
    axes[0].legend(fontsize=style.SMALL, loc="upper left")
    return fig


@figure(
    "memory-math/further-reading-hopfield-capacity",
    title="A Hopfield network loses its patterns past the threshold",
    cubes=("capacity_checks",),
)
def hopfield_capacity(cubes):
    """A classical Hebbian Hopfield network of 1000 binary neurons is started on one of its
    stored patterns and updated in parallel; the plot gives the final overlap with that pattern
    against the load (patterns per neuron), mean over the seeds, 5 networks each with two
    standard errors. The dashed line is the zero-temperature storage threshold solved from the
    replica-symmetric equations (0.138), the square its retrieval overlap; a finite network
    loses retrieval gradually and a little later."""
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
    ax.set_title("Hebbian Hopfield network, 1000 neurons, parallel updates", fontsize=style.NORMAL)
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "every-layer-a-store/one-head-two-criteria",
    title="One head, two ways of counting a correct recall",
    cubes=("capacity_checks",),
)
def two_criteria(cubes):
    """Share of stored pairs whose own value scores highest among all stored values, for a
    128-dimensional store written as a sum of outer products or as the least-squares map, at 128
    and 256 pairs (the clean-vector counts) and at the two n where d squared over n ln n equals
    8 and 2. Means over the seeds with two standard errors; random Gaussian keys and values."""
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
        ax.text(n, 0.72, f" {text}\n n={n}", fontsize=style.SMALL, color=style.GREY)
    ax.set_xscale("log")
    ax.set_ylim(0.4, 1.02)
    ax.set_xlabel("stored pairs n (log scale)")
    ax.set_ylabel("share of pairs whose own value wins")
    ax.set_title("d = 128: recall by winning among the stored values", fontsize=style.NORMAL)
    ax.legend(fontsize=style.SMALL, loc="lower left")
    return fig
