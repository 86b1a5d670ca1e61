"""Figures of first-principles A3, A4 and A5: the staircase a window pays on the copies, the table
against the machine and the rule, three ways of sharing strength, and every model of Part A on
the two copies as the gap grows."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import style

DEFAULT_L = 3  # the note's default ruler (A1); the drag handles of A3 and A4 open there
TABLE_L = 10  # the gap of the comparison table of A5 (line 318)
N, F = 8, 6  # the note's ruler

MODEL_LOOK = {
    "bag": ("bag of words", style.GREY, "-"),
    "pair_mixture": ("pair mixture", style.STORED, "-"),
    "window_1": ("window 1", style.OBSERVED, "-"),
    "window_2": ("window 2", style.OBSERVED, "--"),
    "window_L+8": ("window L+8", style.LIMIT, "-"),
    "hmm_by_hand": ("HMM by hand", style.QUERY, "--"),
    "neural_window": ("neural window", style.RESULT, "-"),
}


def staircase(cubes):
    """Cost of each copied name against the window r (N = 8, F = 6): the default gap L = 3 in
    violet (final X solid, second Y dashed, enumerated values as dots), every other gap of the
    sweep in grey; beside it, the windows a table needs to pay 0 on X, against L (log scale)."""
    ds = cubes["window_staircase"].sel(N=N, F=F)
    ds = ds.sel(r=ds["r"] >= 1)  # r = 0 is the bag of A2, off this scale
    gaps = [int(g) for g in ds["L"].values]
    r = ds["r"].values
    fig = plt.figure(figsize=(11, 4.4), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(2.2, 1))
    ax = fig.add_subplot(grid[0])
    for g in gaps:
        if g == DEFAULT_L:
            continue
        ax.step(r, ds["cost_X"].sel(L=g), where="post", color=style.GREY, lw=0.7, alpha=0.5)
        ax.step(
            r, ds["cost_Y"].sel(L=g), where="post", color=style.GREY, lw=0.7, alpha=0.35, ls="--"
        )
    d = ds.sel(L=DEFAULT_L)
    ax.step(r, d["cost_X"], where="post", color=style.STORED, lw=2.2, label="final X (L = 3)")
    ax.step(
        r, d["cost_Y"], where="post", color=style.STORED, lw=2.2, ls="--", label="second Y (L = 3)"
    )
    ax.plot(
        r,
        d["cost_X_enumerated"],
        "o",
        color=style.STORED,
        ms=4,
        mfc="white",
        label="enumerated language (36,288 sentences)",
    )
    ax.plot(r, d["cost_Y_enumerated"], "s", color=style.STORED, ms=3, mfc="white")
    ax.plot([], [], color=style.GREY, lw=0.7, label="other gaps L = 0..12")
    for y, text in ((np.log(N), "ln 8"), (np.log(N - 1), "ln 7")):
        ax.axhline(y, color=style.GREY, lw=0.5, ls=":")
        ax.text(23.8, y, text, ha="right", va="bottom", fontsize=8, color=style.GREY)
    zx, zy = float(d["zero_window_X"]), float(d["zero_window_Y"])
    ax.annotate(
        f"X free from r = L+8 = {zx:.0f}",
        (zx, 0),
        (zx + 2, 0.6),
        fontsize=8,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.annotate(
        f"Y free from r = L+4 = {zy:.0f}",
        (zy, 0),
        (zy - 6, 0.9),
        fontsize=8,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.set_xlim(0.5, 24)
    ax.set_ylim(-0.05, 2.4)
    ax.set_xlabel("window r (tokens before the copy)")
    ax.set_ylabel("cost of the copied name (nats)")
    ax.set_title("a window pays for the copies until it reaches their source", fontsize=10)
    ax.legend(fontsize=8, loc="center right", bbox_to_anchor=(1.0, 0.58))
    side = fig.add_subplot(grid[1])
    rows = ds["contexts_to_zero"]
    side.semilogy(gaps, rows, "o-", color=style.LIMIT, ms=3)
    for g in (DEFAULT_L, TABLE_L):
        v = float(rows.sel(L=g))
        side.plot([g], [v], "o", color=style.STORED if g == DEFAULT_L else style.LIMIT, ms=7)
        side.annotate(
            f"L = {g}: {v:,.0f}", (g, v), (g - 9 if g > 6 else g + 0.6, v * 3), fontsize=8
        )
    side.set_xlabel("gap L (fillers)")
    side.set_ylabel("windows needed to pay 0 on X (log scale)")
    growth = float(ds["context_growth"].sel(L=DEFAULT_L))
    side.set_title(f"×{growth:.0f} per filler", fontsize=10)
    return fig


def table_vs_rule(cubes):
    """Log-scale bars against the gap L (N = 8, F = 6): rows of the table that pays 0 on the
    final name, states of the hand-built machine, offsets a copy rule can point at; the note's
    default L = 3 and the paragraph's L = 10 are marked."""
    rows = cubes["window_staircase"]["contexts_to_zero"].sel(N=N, F=F)
    states = cubes["binding_hmm"]["n_states"].sel(N=N, F=F)
    rule = cubes["copy_rule"]["n_candidates"].sel(N=N, F=F)
    gaps = [int(g) for g in rows["L"].values if g in states["L"].values and g in rule["L"].values]
    x = np.arange(len(gaps))
    fig, ax = plt.subplots(figsize=(10, 4.4), layout="constrained")
    w = 0.27
    series = (
        (rows, "table rows to pay 0 on X", style.LIMIT),
        (states, "states of the hand-built HMM", style.QUERY),
        (rule, "offsets a copy rule can point at", style.RESULT),
    )
    for k, (da, label, color) in enumerate(series):
        values = [float(da.sel(L=g)) for g in gaps]
        ax.bar(x + (k - 1) * w, values, w, color=color, label=label)
    ax.set_yscale("log")
    ax.set_xticks(x, [str(g) for g in gaps])
    for g in (DEFAULT_L, TABLE_L):
        if g in gaps:
            i = gaps.index(g)
            ax.axvspan(i - 0.45, i + 0.45, color=style.GREY, alpha=0.12, lw=0)
            ratio = float(rows.sel(L=g)) / float(states.sel(L=g))
            ax.text(
                i,
                float(rows.sel(L=g)) * 4,
                f"L = {g}\n{ratio:,.0f} rows\nper state",
                ha="center",
                fontsize=7,
            )
    ax.set_ylim(1, float(rows.max()) * 300)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("count (log scale)")
    ax.set_title(
        "a table: one row per filler combination; a rule: one hypothesis per place to look",
        fontsize=10,
    )
    ax.legend(fontsize=8, loc="upper left")
    return fig


def three_ways(cubes):
    """What the three answers of A4 to the table's size keep at the comparison table's gap
    (L = 10, N = 8): a bag per pair of names, a state per pair and phase, a weight matrix over
    embedded windows. The note's own drawing is lost; this shows only what the text fixes."""
    ds = cubes["model_comparison"].sel(N=N, F=F, L=TABLE_L)
    ways = (
        ("pair_mixture", "hidden topic:\none bag per pair of names"),
        ("hmm_by_hand", "hidden state that moves:\n(pair, phase)"),
        ("neural_window", "embeddings:\none function of r embedded tokens"),
    )
    table = float(ds["stores"].sel(model="window_L+8"))
    fig, ax = plt.subplots(figsize=(9, 3.8), layout="constrained")
    for i, (model, text) in enumerate(ways):
        label, color, _ = MODEL_LOOK[model]
        stores = float(ds["stores"].sel(model=model))
        cost = float(ds["copy_nats"].sel(model=model))
        cost_text = "copy cost not computed" if np.isnan(cost) else f"{cost:.3f} nats on the copies"
        ax.barh(i, stores, color=color, alpha=0.85)
        ax.text(
            stores * 1.3,
            i,
            f"{label}: {stores:,.0f} kept; {cost_text}\n{text}",
            va="center",
            fontsize=8,
        )
    ax.axvline(table, color=style.LIMIT, ls="--", lw=1)
    ax.text(
        table,
        2.55,
        f"table spanning the gap:\n{table:.2e} rows",
        ha="right",
        fontsize=8,
        color=style.LIMIT,
    )
    ax.set_xscale("log")
    ax.set_xlim(5, table * 5)
    ax.set_ylim(-0.6, 3.1)
    ax.set_yticks([])
    ax.set_xlabel("bags, states or weights kept at L = 10, N = 8 (log scale)")
    ax.set_title("three ways to share strength; none reads the binding by its content", fontsize=10)
    return fig


def comparison(cubes):
    """Copy nats of every model of Part A against the gap L (N = 8, F = 6; the note's handle
    becomes the sweep), with the mixture's tie with the window of one token marked, and the
    bars at the comparison table's L = 10."""
    ds = cubes["model_comparison"].sel(N=N, F=F)
    gaps = ds["L"].values
    models = [str(m) for m in ds["model"].values]
    fig = plt.figure(figsize=(12, 4.6), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(1.5, 1))
    ax = fig.add_subplot(grid[0])
    for m in models:
        label, color, ls = MODEL_LOOK[m]
        y = ds["copy_nats"].sel(model=m)
        if np.all(np.isnan(y)):
            continue
        ax.plot(gaps, y, ls, color=color, marker="o", ms=3, label=label)
    tie = float(ds["tie_L"])
    tie_y = float(ds["copy_nats"].sel(model="window_1", L=tie))
    ax.plot([tie], [tie_y], "o", ms=11, mfc="none", color=style.STORED)
    ax.annotate(
        f"mixture ties window 1 at L = {tie:.0f}\n(both 2 ln 8 = {tie_y:.3f})",
        (tie, tie_y),
        (tie + 0.8, tie_y - 1.6),
        fontsize=8,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.axvline(DEFAULT_L, color=style.GREY, lw=0.8, ls=":")
    ax.text(DEFAULT_L, 7.9, " L = 3", fontsize=8, color=style.GREY)
    ax.axvline(TABLE_L, color=style.GREY, lw=0.8, ls=":")
    ax.text(TABLE_L, 7.9, " L = 10 (table)", fontsize=8, color=style.GREY)
    ax.set_ylim(-0.2, 8.4)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("cost of the two copied names (nats)")
    ax.set_title("what each model pays on the copies with unlimited data", fontsize=10)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 0.07), ncols=2)
    bars = fig.add_subplot(grid[1])
    at = ds.sel(L=TABLE_L)
    for i, m in enumerate(models):
        label, color, _ = MODEL_LOOK[m]
        v = float(at["copy_nats"].sel(model=m))
        stores = float(at["stores"].sel(model=m))
        if np.isnan(v):
            bars.text(i, 0.15, "not\ncomputed", ha="center", fontsize=7, color=color)
        else:
            bars.bar(i, v, color=color)
            bars.text(i, v + 0.1, f"{v:.3f}", ha="center", fontsize=7)
        bars.text(
            i,
            -1.1,
            f"{stores:,.0f}" if stores < 1e6 else f"{stores:.2e}",
            ha="center",
            fontsize=6,
            rotation=30,
        )
    bars.set_xticks(
        range(len(models)), [MODEL_LOOK[m][0] for m in models], rotation=35, ha="right", fontsize=8
    )
    bars.set_ylim(-1.6, 8.4)
    bars.axhline(0, color="black", lw=0.6)
    bars.set_ylabel("copy nats at L = 10 (stores below the axis)")
    bars.set_title("the comparison table, L = 10, N = 8", fontsize=10)
    return fig
