"""Figures of one-matrix memories: the Hebbian and least-squares weights (first-principles D1),
the preconditioned edit (first-principles D2), and the MLP as a lookup with the leak of four
score functions (memory-math chapter 5). Interactive handles become small multiples."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Circle

from ..views import figure
from . import style

# The unevenness of D2 and the memories M of chapter 5 are coordinates the science computes, not
# config grids: the figures keep their panels here.
EDIT_PANELS = (0.0, 2.0, 3.0, 4.0)  # unevenness positions drawn (4 is the Check's)
LEAK_PANELS = (32, 128, 512)  # memories shown for the four-score figure
SCORE_LABELS = {"linear": "linear", "relu": "ReLU", "relu2": "ReLU$^2$", "relu3": "ReLU$^3$"}


def _bars(ax, weights, title):
    """Bars of the weight on each stored value; pair 1 (the target) in copper."""
    w = np.asarray(weights)
    w = w[~np.isnan(w)]
    colors = [style.QUERY] + [style.STORED] * (len(w) - 1)
    ax.bar(np.arange(1, len(w) + 1), w, color=colors, width=0.8)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_title(title, fontsize=style.SMALL)
    ax.set_ylim(-0.8, 1.2)


@figure(
    "first-principles/D1-store-weights",
    title="The weights a store gives its pairs when read",
    cubes=("linear_store_errors",),
    settings={"store_d": ("linear_store_errors", "d"), "shown_m": ("linear_store_errors", "m")},
)
def store_weights(cubes, store_d, shown_m):
    """One random store of m unit key-value pairs in 8 dimensions, read with the first key. Each
    bar is the weight the read gives a stored value (copper: the pair asked for). Top row:
    Hebbian write, where the other weights are key overlaps; middle row: least-squares write,
    exact until m passes 8. Panel titles give this draw's squared error of pair 1 and the exact
    mean. Bottom: mean squared error against m (log scale) over every seeded run, with the exact
    laws (m-1)/d and 1-d/m."""
    ds = cubes["linear_store_errors"].sel(d=store_d)
    fig = plt.figure(figsize=(13, 8.2), layout="constrained")
    grid = fig.add_gridspec(3, len(shown_m), height_ratios=(1, 1, 1.2))
    for col, m in enumerate(shown_m):
        point = ds.sel(m=m).isel(seed=0)
        for row, (var, err, exp, name) in enumerate(
            (
                ("hebb_weights_draw", "hebb_err_draw", "hebb_err_expected", "Hebbian"),
                ("lsq_weights_draw", "lsq_err_draw", "lsq_err_expected", "least squares"),
            )
        ):
            ax = fig.add_subplot(grid[row, col])
            title = (
                f"{name}, m = {m}\nthis draw: error {float(point[err]):.3f}; "
                f"mean {float(point[exp]):.3f}"
            )
            _bars(ax, point[var].values[:m], title)
            ax.set_xlabel("stored pair", fontsize=style.SMALL)
            if col == 0:
                ax.set_ylabel("weight in the read of pair 1", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[2, :])
    ms = ds["m"].values
    for var, exp, color, name in (
        ("hebb_err", "hebb_err_expected", style.OBSERVED, "Hebbian"),
        ("lsq_err", "lsq_err_expected", style.RESULT, "least squares"),
    ):
        mean = ds[var].mean("seed").values
        ax.plot(
            ms,
            mean,
            "o",
            color=color,
            ms=4,
            label=f"{name}, simulated (mean of {ds.sizes['seed']} seeds)",
        )
        ax.plot(ms, ds[exp].isel(seed=0).values, "-", color=color, lw=1.2, label=f"{name}, exact")
    ax.axhline(1, color=style.LIMIT, ls="--", lw=1, label="error of answering zero")
    ax.axvline(store_d, color=style.GREY, ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("symlog", linthresh=0.1)
    ax.set_xlabel(f"stored pairs m (log scale); dotted line at m = d = {store_d}")
    ax.set_ylabel("mean squared read error (symlog scale)")
    ax.legend(fontsize=style.SMALL, ncol=2)
    fig.suptitle(
        f"One {store_d} x {store_d} matrix as a memory: Hebbian versus least-squares writes"
    )
    return fig


@figure(
    "first-principles/D2-rank-one-edit",
    title="A one-fact edit and the keys it disturbs",
    cubes=("memory_edit_checks",),
)
def rank_one_edit(cubes):
    """The one-fact edit of an 8-by-8 matrix with target key (1,...,1), as the typical keys'
    second-moment matrix becomes uneven (eigenvalues decaying as exp(-u j/7), mean square
    fixed). Panels: six of ten typical keys in the plane of the two edit directions; grey rings
    show how far the naive edit moves each key, violet discs the preconditioned edit. Right:
    totals over the ten keys across u, with the Check's u = 4 marked."""
    ds = cubes["memory_edit_checks"]
    fig = plt.figure(figsize=(14, 4.4), layout="constrained")
    grid = fig.add_gridspec(1, len(EDIT_PANELS) + 1, width_ratios=(1,) * len(EDIT_PANELS) + (1.5,))
    for col, u in enumerate(EDIT_PANELS):
        point = ds.sel(unevenness=u)
        keys = point["sweep_keys_plane"].values
        ring = point["sweep_naive_change"].values
        disc = point["sweep_opt_change"].values
        violet = point["sweep_violet_dir"].values
        ax = fig.add_subplot(grid[col])
        lim = 3.2
        for t, dirn, color, ls in (
            (lim, np.array([1.0, 0.0]), style.QUERY, "-"),
            (lim, violet, style.STORED, "-"),
            (lim, np.array([-violet[1], violet[0]]), style.STORED, ":"),
        ):
            ax.plot([-t * dirn[0], t * dirn[0]], [-t * dirn[1], t * dirn[1]], ls, color=color, lw=1)
        for (x, y), rr, dd in list(zip(keys, ring, disc, strict=True))[:6]:
            ax.add_patch(Circle((x, y), 0.35 * rr, fill=False, ec=style.GREY, lw=1.2))
            ax.add_patch(Circle((x, y), 0.35 * dd, color=style.STORED, alpha=0.55))
            ax.plot(x, y, "o", color=style.OBSERVED, ms=3)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
        angle = float(point["sweep_angle"])
        angle_text = "round cloud" if np.isnan(angle) else f"long axis {angle:.1f} deg off"
        ax.set_title(
            f"unevenness {u:g}: ratio {float(point['sweep_ratio']):.2f}\n{angle_text}",
            fontsize=style.SMALL,
        )
        ax.set_xlabel("along k* (copper)", fontsize=style.SMALL)
        if col == 0:
            ax.set_ylabel("across, in the edit plane", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[-1])
    u = ds["unevenness"].values
    ax.plot(u, ds["sweep_naive_total"], color=style.GREY, label="naive edit (rings)")
    ax.plot(u, ds["sweep_opt_total"], color=style.STORED, label="preconditioned edit (discs)")
    ax.axvline(4.0, color=style.LIMIT, ls=":", lw=1, label="the Check's unevenness 4")
    ax.set_xlabel("unevenness u of the typical keys")
    ax.set_ylabel("total change over the ten keys")
    ax.legend(fontsize=style.SMALL)
    fig.suptitle(
        "Editing one fact: violet line = preconditioned direction, dotted = keys it leaves alone"
    )
    return fig


@figure(
    "memory-math/ch5-mlp-lookup",
    title="A small MLP read as a lookup",
    cubes=("memory_edit_checks",),
)
def mlp_lookup(cubes):
    """A small random ReLU MLP (4 input features, 6 hidden units) read as a lookup: each row of
    the first matrix is a key, its dot product with the input is passed through the ReLU and
    weights the matching row of values; the weighted values add up to the same output as the
    matrix product."""
    ds = cubes["memory_edit_checks"]
    keys = ds["mlp_keys"].values
    values = ds["mlp_values"].values
    x = ds["mlp_x"].values
    scores = ds["mlp_scores"].values
    weights = ds["mlp_weights"].values
    out = ds["mlp_out"].values
    fig, axes = plt.subplots(
        1,
        5,
        figsize=(14, 3.8),
        layout="constrained",
        gridspec_kw={"width_ratios": (1, 0.35, 1, 1, 1)},
    )
    lim = max(np.abs(keys).max(), np.abs(values).max())
    axes[0].imshow(keys, cmap="Blues", vmin=-lim, vmax=lim)
    axes[0].set_title("keys: rows of W1", fontsize=style.SMALL)
    axes[0].set_ylabel("hidden unit")
    axes[0].set_xlabel("input feature")
    axes[1].imshow(x[:, None], cmap="Oranges")
    axes[1].set_title("input x", fontsize=style.SMALL)
    axes[1].set_xticks([])
    units = np.arange(len(scores))
    axes[2].barh(units, scores, color=style.OBSERVED, alpha=0.4, label="k_i . x")
    axes[2].barh(units, weights, color=style.QUERY, height=0.45, label="ReLU(k_i . x)")
    axes[2].invert_yaxis()
    axes[2].set_title("score and weight of each unit", fontsize=style.SMALL)
    axes[2].legend(fontsize=style.SMALL)
    axes[3].imshow(values, cmap="Purples", vmin=-lim, vmax=lim)
    axes[3].set_title("values: columns of W2", fontsize=style.SMALL)
    axes[3].set_xlabel("output feature")
    feats = np.arange(len(out))
    axes[4].bar(feats - 0.2, out, width=0.4, color=style.RESULT, label="W2 ReLU(W1 x)")
    summed = (weights[:, None] * values).sum(axis=0)
    axes[4].bar(feats + 0.2, summed, width=0.4, color=style.STORED, label="sum of weighted values")
    axes[4].set_title(f"output (largest gap {float(ds['mlp_sum_gap']):.1g})", fontsize=style.SMALL)
    axes[4].set_xlabel("output feature")
    axes[4].legend(fontsize=style.SMALL)
    for ax, mat in ((axes[0], keys), (axes[1], x[:, None]), (axes[3], values)):
        ax.grid(False)
        for (i, j), v in np.ndenumerate(mat):
            ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=style.SMALL)
    axes[1].set_yticks(range(len(x)), [f"feature {i}" for i in range(len(x))], fontsize=style.SMALL)
    fig.suptitle("A two-layer MLP is a lookup in two matrices")
    return fig


@figure(
    "memory-math/ch5-score-leak",
    title="Sharper scores leak less",
    cubes=("score_interference", "score_capacity"),
    settings={"leak_d": [("score_interference", "d"), ("score_capacity", "d")]},
)
def score_leak(cubes, leak_d):
    """One draw of random unit keys in 32 dimensions, read with a query equal to the target key
    through four score functions (linear, ReLU, squared and cubed ReLU), each normalised so the
    target weighs one, at 32, 128 and 512 stored memories; each title gives the
    interference-to-signal ratio. Bottom: the exact ratio against the number of memories (log
    scales), the draw's values as dots, and the exact capacities dotted."""
    sim = cubes["score_interference"].sel(d=leak_d).isel(seed=0)
    exact = cubes["score_capacity"].sel(d=leak_d)
    scores = [str(s) for s in sim["score"].values]
    dots = sim["draw_dots"].values
    fig = plt.figure(figsize=(14, 9), layout="constrained")
    grid = fig.add_gridspec(len(LEAK_PANELS) + 1, len(scores), height_ratios=(1,) * 3 + (1.3,))
    for row, m in enumerate(LEAK_PANELS):
        for col, name in enumerate(scores):
            p = {"linear": None, "relu": 1, "relu2": 2, "relu3": 3}[name]
            s = dots[: m - 1]
            w = s if p is None else np.maximum(s, 0.0) ** p
            ax = fig.add_subplot(grid[row, col])
            ax.bar([0], [1.0], color=style.QUERY, width=max(1.0, m / 60))
            # one line collection, not m bar patches: hundreds of bars made this figure slow
            ax.vlines(np.arange(1, m), 0.0, w, color=style.STORED, lw=max(0.4, 120 / m))
            isr = float(sim["draw_isr"].sel(score=name, M=m))
            ax.set_title(f"{SCORE_LABELS[name]}, M = {m}: ratio {isr:.2f}", fontsize=style.SMALL)
            ax.set_ylim(-0.75, 1.1)
            if col == 0:
                ax.set_ylabel("weight (target = 1)", fontsize=style.SMALL)
            if row == len(LEAK_PANELS) - 1:
                ax.set_xlabel("memory", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[-1, :])
    ms = sim["M"].values
    colors = (style.GREY, style.OBSERVED, style.STORED, style.RESULT)
    grid_m = np.geomspace(2, 1e5, 200)
    for name, color in zip(scores, colors, strict=True):
        e = float(exact["sigma2"].sel(score=name))
        ax.plot(
            grid_m, np.sqrt((grid_m - 1) * e), color=color, label=f"{SCORE_LABELS[name]}, exact"
        )
        ax.plot(ms, sim["draw_isr"].sel(score=name), "o", color=color, ms=4)
        cap = float(exact["capacity_exact"].sel(score=name))
        ax.axvline(cap, color=color, ls=":", lw=1)
    ax.axhline(1, color=style.LIMIT, ls="--", lw=1, label="ratio one (capacity)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("stored memories M (log scale); dotted lines: exact capacities")
    ax.set_ylabel("interference / signal (log scale)")
    ax.legend(fontsize=style.SMALL, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.suptitle(f"Sharper scores leak less (d = {leak_d}; dots: the draw above)")
    return fig
