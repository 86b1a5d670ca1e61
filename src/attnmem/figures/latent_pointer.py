"""Figures of first-principles C1 and C2: the soft dictionary on a circle, the attention matrix
and its ranks, the pointer on ToyLang against beta and against the gap, the output strips of a
random model under swaps, and the prefixes xi and xi' under masks and positions."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..experiments.latent_pointer import PROMPT
from ..views import figure
from . import style


@figure(
    "first-principles/C1-circle-lookup",
    title="A query on a circle of keys, hard and soft",
    cubes=("circle_lookup",),
    settings={"circle_betas": ("circle_lookup", "beta")},
)
def circle_lookup(cubes, circle_betas):
    """A soft dictionary of six unit keys on a circle (blue, dot size is the weight) read by a
    query at 60 degrees (copper arrow), in the hard setting and at sharpness 8 and 1. Only the
    keys at 20 and 85 degrees are printed in the note; the other four keys and most values are
    our choice, made so that the printed readings come out. Right: the blended answer as the
    query goes round the circle, a staircase in the hard limit that smooths into a gentle wave
    near the plain mean as beta falls."""
    ds = cubes["circle_lookup"]
    keys = ds["key"].values.astype(float)
    values = {
        20: 0.8,
        85: -0.5,
    }  # the two printed keys, labelled in the figure
    fig = plt.figure(figsize=(12, 4.2), layout="constrained")
    grid = fig.add_gridspec(1, 4, width_ratios=(1, 1, 1, 1.7))
    panels = [("hard (β = ∞)", None), *((f"β = {b}", b) for b in circle_betas)]
    for i, (title, beta) in enumerate(panels):
        ax = fig.add_subplot(grid[i], aspect="equal")
        t = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color=style.GREY, lw=0.6)
        if beta is None:
            best = float(ds["circle_best_angle"].isel(beta=0))  # the same at every beta
            w = (keys == best).astype(float)
            answer = float(ds["circle_hard_answer"].isel(beta=0))
        else:
            w = ds["circle_weight"].sel(beta=beta).values
            answer = float(ds["circle_answer"].sel(beta=beta))
        rad = np.deg2rad(keys)
        sizes = 20 + 600 * w
        ax.scatter(np.cos(rad), np.sin(rad), s=sizes, color=style.OBSERVED, zorder=3)
        for k, wk, r, size in zip(keys, w, rad, sizes, strict=True):
            label = f"{k:.0f}°: {wk:.3f}" if wk >= 0.001 else f"{k:.0f}°"
            style.ring_label(ax, (np.cos(r), np.sin(r)), label, size)
        q = np.deg2rad(60)
        ax.annotate(
            "",
            (np.cos(q), np.sin(q)),
            (0, 0),
            arrowprops={"arrowstyle": "->", "color": style.QUERY},
        )
        ax.set_xlim(-1.9, 1.9)
        ax.set_ylim(-1.6, 1.6)
        ax.set_axis_off()
        ax.set_title(f"{title}\nanswer o = {answer:+.2f}", fontsize=style.SMALL)
    ax = fig.add_subplot(grid[3])
    angle = ds["angle"].values
    ax.plot(angle, ds["circle_hard_sweep"].isel(beta=0), color=style.GREY, label="hard (β = ∞)")
    for beta, color in zip(circle_betas, (style.STORED, style.RESULT), strict=True):
        ax.plot(angle, ds["circle_answer_sweep"].sel(beta=beta), color=color, label=f"β = {beta}")
    mean = float(ds["circle_mean_value"].isel(beta=0))
    ax.axhline(mean, color=style.GREY, ls=":", lw=0.8, label=f"plain mean {mean:.2f}")
    ax.axvline(60, color=style.QUERY, lw=0.8, label="query at 60°")
    for k, v in values.items():  # above the top step, below the bottom one
        ax.annotate(
            f"key {k}°, v = {v:+.1f}",
            (k, v),
            xytext=(0, 9 if v > 0 else -9),
            textcoords="offset points",
            va="center",
            fontsize=style.SMALL,
            color=style.OBSERVED,
            bbox=style.LABEL_BOX,
        )
    ax.set_ylim(-0.75, 1.0)
    ax.set_xlabel("query angle (degrees)")
    ax.set_ylabel("answer o (value units)")
    ax.set_title("the blended answer as the query goes round")
    ax.legend(fontsize=style.SMALL, loc="lower right")
    return fig


def _heat(ax, w, title, vmax=1.0, cmap="Purples"):
    ax.imshow(w, cmap=cmap, vmin=0 if vmax == 1.0 else -vmax, vmax=vmax)
    n = w.shape[0]
    for i in range(n):
        for j in range(n):
            v = float(w[i, j])
            ax.text(
                j,
                i,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=style.SMALL,
                color="white" if abs(v) > 0.6 * vmax else "black",
            )
    ax.set_xticks(range(n), range(1, n + 1))  # ticks, labels and titles as in the line panels
    ax.set_yticks(range(n), range(1, n + 1))
    ax.set_xlabel("key (column)")
    ax.set_ylabel("query (row)")
    ax.set_title(title)
    ax.grid(False)


@figure(
    "first-principles/C1-attention-matrix",
    title="The attention matrix as sharpness grows",
    cubes=("circle_lookup",),
    settings={"matrix_betas": ("circle_lookup", "beta"), "causal_beta": ("circle_lookup", "beta")},
)
def attention_matrix(cubes, matrix_betas, causal_beta):
    """Eight queries against eight keys, both two-dimensional unit arrows of our choice fitted
    to the readings the note prints at beta = 3. Top: the weights at beta 0, 1, 3 and 10; every
    row is its own softmax, uniform at 0 and gathering on its best key as beta grows. Bottom:
    the causal weights at beta 3, the raw scores (rank 2), the rank of the weights against beta
    (1 at zero, 8 beyond), and the rank of the exponential's power series cut after k terms,
    which climbs by two per frequency."""
    ds = cubes["circle_lookup"]
    fig = plt.figure(figsize=(13, 7), layout="constrained")
    grid = fig.add_gridspec(2, 4)
    for i, beta in enumerate(matrix_betas):
        ax = fig.add_subplot(grid[0, i])
        _heat(ax, ds["matrix_weight"].sel(beta=beta).values, f"weights A at β = {beta}")
    _heat(
        fig.add_subplot(grid[1, 0]),
        ds["matrix_causal_weight"].sel(beta=causal_beta).values,
        f"causal weights at β = {causal_beta}",
    )
    _heat(
        fig.add_subplot(grid[1, 1]),
        ds["matrix_score"].isel(beta=0).values,  # the same at every beta
        "raw scores QKᵀ (rank 2)",
        vmax=1.0001,
        cmap="PuOr",
    )
    ax = fig.add_subplot(grid[1, 2])
    ax.plot(ds["beta"], ds["rank_weight"], "o-", color=style.STORED, label="weights A")
    ax.plot(ds["beta"], ds["rank_score"], "s-", color=style.OBSERVED, label="scores QKᵀ")
    ax.set_xlabel("sharpness β")
    ax.set_ylabel("rank")
    ax.set_ylim(0, 9)
    ax.set_title("rank against β")
    ax.legend(fontsize=style.SMALL)
    ax = fig.add_subplot(grid[1, 3])
    order = ds["order"].values
    ax.plot(
        order, ds["rank_taylor"].sel(beta=causal_beta), "o-", color=style.RESULT, label="series cut"
    )
    ax.plot(order, np.minimum(2 * order + 1, 8), ":", color=style.GREY, label="min(2k+1, n)")
    ax.set_xlabel("last power k kept in the series of exp")
    ax.set_ylabel("rank")
    ax.set_title("two more per angular\nfrequency (β = 3)")
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/C1-toylang-pointer",
    title="A pointer that finds the subject across the gap",
    cubes=("latent_pointer",),
    settings={
        "pointer_L": ("latent_pointer", "L"),
        "pointer_betas": ("latent_pointer", "beta"),
        "annotated_betas": ("latent_pointer", "beta"),
    },
)
def toylang_pointer(cubes, pointer_L, pointer_betas, annotated_betas):
    """The hand-set pointer on the ToyLang prompt with ten fillers: the query at 'thanked' asks
    for the subject slot and spreads its weight over the eighteen earlier tokens (violet bars,
    darker for a larger beta; the dotted line is one eighteenth). As beta grows the weight moves
    onto the first name and the cost of copying it falls below the bag of words (red) and the
    8-token window (blue)."""
    ds = cubes["latent_pointer"].sel(L=pointer_L)
    m = int(ds["n_items"].isel(beta=0))
    words = PROMPT.split()[:m]
    fig = plt.figure(figsize=(12, 4.4), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(1.8, 1))
    ax = fig.add_subplot(grid[0])
    width = 0.8 / len(pointer_betas)
    for i, beta in enumerate(pointer_betas):
        w = ds["weight"].sel(beta=beta).values[:m]
        ax.bar(
            np.arange(m) + (i - (len(pointer_betas) - 1) / 2) * width,
            w,
            width,
            color=style.STORED,
            alpha=0.25 + 0.75 * i / (len(pointer_betas) - 1),
            label=f"β = {beta}",
        )
    ax.axhline(1 / m, color=style.GREY, ls=":", lw=0.8, label="1/m")
    ax.set_xticks(range(m), [f"{w}\n{j}" for j, w in enumerate(words)], fontsize=style.SMALL)
    ax.set_ylabel("pointer weight a_j")
    ax.set_xlabel("earlier token and its position (key (1,0) at 0, (0,1) at 2, else 0)")
    ax.set_title(f"query (1,0) at 'thanked' (L = {pointer_L}, m = {m})")
    ax.legend(fontsize=style.SMALL, ncol=3)
    ax = fig.add_subplot(grid[1])
    beta = ds["beta"].values
    ax.plot(beta, ds["cost_final"], "o-", color=style.RESULT, label="cost of the final name")
    ax.axhline(float(ds["bag_cost"].isel(beta=0)), color=style.LIMIT, ls="--", label="bag of words")
    ax.axhline(
        float(ds["window_cost"].isel(beta=0)), color=style.OBSERVED, ls="--", label="8-token window"
    )
    for b in annotated_betas:
        c = float(ds["cost_final"].sel(beta=b))
        ax.annotate(
            f"{c:.3g}",
            (b, c),
            xytext=(5, 5),
            textcoords="offset points",
            fontsize=style.SMALL,
            bbox=style.LABEL_BOX,
        )
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_ylim(top=30)  # room above the bag's line for the first label
    ax.set_xlabel("sharpness β")
    ax.set_ylabel("cost (nats, symmetric log scale)")
    ax.set_title("cost falls as the weight moves to the source")
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/C1-pointer-vs-window",
    title="A pointer reaches any distance, a window does not",
    cubes=("latent_pointer",),
    settings={"window_beta": ("latent_pointer", "beta"), "gap_bars": ("latent_pointer", "L")},
)
def pointer_vs_window(cubes, window_beta, gap_bars):
    """What the final name costs as the gap L grows: the bag of words pays more and more, a
    table over the 8 tokens before the name pays ln 7 as soon as the source falls out of its
    reach after L = 0, and the pointer at beta = 8 stays below 0.02 nats out to L = 40 and
    beyond. Right: the pointer's weights at L = 0, 10 and 40 with the window's eight cells
    shaded; the weight stays on the source."""
    ds = cubes["latent_pointer"].sel(beta=window_beta)
    fig = plt.figure(figsize=(12, 4.6), layout="constrained")
    grid = fig.add_gridspec(len(gap_bars), 2, width_ratios=(1.2, 1))
    ax = fig.add_subplot(grid[:, 0])
    gap = ds["L"].values
    ax.plot(gap, ds["bag_cost"], color=style.LIMIT, label="bag of words")
    ax.step(gap, ds["window_cost"], where="post", color=style.OBSERVED, label="8-token window")
    ax.plot(
        gap, ds["cost_final"], "o-", color=style.RESULT, ms=3, label=f"attention, β = {window_beta}"
    )
    ax.axhline(0.02, color=style.GREY, ls=":", lw=0.8)
    ax.annotate(
        "0.02 nats",
        (gap.max(), 0.02),
        xytext=(0, 5),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=style.SMALL,
        color=style.GREY,
        bbox=style.LABEL_BOX,
    )
    ax.axvline(max(gap_bars), color=style.QUERY, lw=0.6)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("cost of the final name (nats)")
    ax.set_title("a pointer reaches any distance")
    ax.legend(fontsize=style.SMALL)
    for i, g in enumerate(gap_bars):
        sub = fig.add_subplot(grid[i, 1])
        w = ds["weight"].sel(L=g).values
        m = g + 8
        w = w[:m]
        sub.bar(np.arange(m), w, color=style.STORED, width=0.9)
        sub.axvspan(m - 8 - 0.5, m - 0.5, color=style.OBSERVED, alpha=0.12)
        sub.annotate(
            "X",
            (0, w[0]),
            (1.5, 0.7),
            fontsize=style.SMALL,
            color=style.OBSERVED,
            arrowprops={"arrowstyle": "->", "color": style.OBSERVED},
        )
        sub.set_xlim(-1, m + 1)
        sub.set_ylim(0, 1.05)
        sub.set_ylabel("weight", fontsize=style.SMALL)
        sub.set_title(f"L = {g}: shaded = the window's 8 cells, '?' at {m}", fontsize=style.SMALL)
    sub.set_xlabel("earlier position")
    return fig


@figure(
    "first-principles/C2-equivariance-strips",
    title="Without positions, outputs move with their tokens",
    cubes=("set_equivariance",),
    settings={"model_width": ("set_equivariance", "width")},
)
def equivariance_strips(cubes, model_width):
    """Output rows of a random two-layer model of width 8 for the two copies of Flo and of Ann
    in a ten-token sentence, found again wherever 0 to 5 random swaps moved them. Without
    positions (top) every strip travels unchanged with its token and the two copies of a name
    are identical; with a sinusoidal position code added (bottom) the strips change with the
    swaps and the copies differ."""
    ds = cubes["set_equivariance"].sel(width=model_width)
    s = ds["strips"]
    vmax = float(np.nanmax(np.abs(s.values)))
    fig, axes = plt.subplots(2, len(ds["swap"]), figsize=(13, 5), layout="constrained")
    for r, code in enumerate(ds["code"].values):
        for k in ds["swap"].values:
            ax = axes[r, k]
            rows = s.sel(code=code, swap=k).values
            strips = ax.imshow(rows, cmap="PuOr_r", vmin=-vmax, vmax=vmax, aspect="auto")
            ax.set_yticks(range(4), ds["token"].values, fontsize=style.SMALL)
            ax.set_xticks([])
            ax.grid(False)
            gf = np.linalg.norm(rows[0] - rows[1])
            ga = np.linalg.norm(rows[2] - rows[3])
            ax.set_title(f"{k} swaps\ngaps Flo {gf:.2f}, Ann {ga:.2f}", fontsize=style.SMALL)
            if k == 0:
                ax.set_ylabel(f"positions: {code}", fontsize=style.SMALL)
            if r == len(ds["code"]) - 1:
                ax.set_xlabel(f"feature, 1 to {model_width}", fontsize=style.SMALL)
    fig.colorbar(strips, ax=axes, label="output value", shrink=0.8)
    fig.suptitle(
        f"output rows ({model_width} features, colour = sign and size) follow their tokens; "
        "with positions the copies differ",
        fontsize=style.SMALL,
    )
    return fig


@figure(
    "first-principles/C2-mask-positions",
    title="Masks and positions break the symmetry",
    cubes=("set_equivariance",),
    settings={"model_width": ("set_equivariance", "width")},
)
def mask_positions(cubes, model_width):
    """How far apart the outputs at 'then' are for a prefix and its copy with the first two
    names exchanged, for five mask configurations of a random two-layer model (bars: model 0;
    dots: all eight models; log scale). Without positions only a mask in the first layer
    separates the two; with a sinusoidal code every configuration does. A model that cannot
    separate them pays at least ln 2."""
    ds = cubes["set_equivariance"].sel(width=model_width)
    masks = list(ds["mask"].values)
    labels = {
        "none": "no mask",
        "layer2": "mask layer 2",
        "one_layer": "one masked layer",
        "layer1": "mask layer 1",
        "both": "mask both",
    }
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained", sharey=True)
    floor = 1e-17
    for ax, code, color in zip(axes, ds["code"].values, (style.STORED, style.QUERY), strict=True):
        g = ds["prefix_gap"].sel(code=code).values
        x = np.arange(len(masks))
        ax.bar(x, np.maximum(g[0], floor), color=color, alpha=0.7, label="model 0")
        for j in range(g.shape[0]):
            ax.plot(x, np.maximum(g[j], floor), ".", color=style.GREY, ms=4)
        ax.plot([], [], ".", color=style.GREY, label="all 8 models")
        ax.axhline(1e-15, color=style.LIMIT, ls=":", lw=0.8, label="1e-15")
        ax.set_yscale("log")
        ax.set_xticks(x, [labels[m] for m in masks], rotation=20, fontsize=style.SMALL)
        ax.set_title(f"positions: {code}")
        ax.legend(fontsize=style.SMALL)
    axes[0].set_ylabel("|output(ξ) - output(ξ')| at 'then' (log scale)")
    fig.suptitle(
        f"the ln 2 floor a position-free model pays: {float(ds['floor_min']):.4f} nats",
        fontsize=style.SMALL,
    )
    return fig
