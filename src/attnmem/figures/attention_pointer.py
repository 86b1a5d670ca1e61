"""Figures of first-principles C1 and C2: the soft dictionary on a circle, the attention matrix
and its ranks, the pointer on ToyLang against beta and against the gap, the output strips of a
random model under swaps, and the prefixes xi and xi' under masks and positions."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..experiments.latent_pointer import PROMPT
from . import style

CIRCLE_BETAS = (8, 1)  # the note's sharp and soft buttons (the hard one is drawn apart)
MATRIX_BETAS = (0, 1, 3, 10)
POINTER_BETAS = (0, 2, 4, 6, 8)
GAP_BARS = (0, 10, 40)


def circle_lookup(cubes):
    """Six keys on the unit circle with the query at 60 degrees: weights as dot sizes for the
    hard, sharp and soft settings, and the answer as the query goes round."""
    ds = cubes["circle_lookup"]
    keys = ds["key"].values.astype(float)
    values = {
        20: 0.8,
        85: -0.5,
    }  # the two printed keys, labelled in the figure
    fig = plt.figure(figsize=(12, 4.2), layout="constrained")
    grid = fig.add_gridspec(1, 4, width_ratios=(1, 1, 1, 1.7))
    settings = [("hard (β = ∞)", None), *((f"β = {b}", b) for b in CIRCLE_BETAS)]
    for i, (title, beta) in enumerate(settings):
        ax = fig.add_subplot(grid[i], aspect="equal")
        t = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(t), np.sin(t), color=style.GREY, lw=0.6)
        if beta is None:
            best = float(ds["circle_best_angle"].sel(beta=8))
            w = (keys == best).astype(float)
            answer = float(ds["circle_hard_answer"].sel(beta=8))
        else:
            w = ds["circle_weight"].sel(beta=beta).values
            answer = float(ds["circle_answer"].sel(beta=beta))
        rad = np.deg2rad(keys)
        ax.scatter(np.cos(rad), np.sin(rad), s=20 + 600 * w, color=style.OBSERVED, zorder=3)
        for k, wk, r in zip(keys, w, rad, strict=True):
            label = f"{k:.0f}°: {wk:.3f}" if wk >= 0.001 else f"{k:.0f}°"
            ax.text(1.25 * np.cos(r), 1.25 * np.sin(r), label, ha="center", fontsize=7)
        q = np.deg2rad(60)
        ax.annotate(
            "",
            (np.cos(q), np.sin(q)),
            (0, 0),
            arrowprops={"arrowstyle": "->", "color": style.QUERY},
        )
        ax.set_xlim(-1.6, 1.6)
        ax.set_ylim(-1.6, 1.6)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
        ax.set_title(f"{title}\nanswer o = {answer:+.2f}", fontsize=9)
    ax = fig.add_subplot(grid[3])
    angle = ds["angle"].values
    ax.plot(angle, ds["circle_hard_sweep"].sel(beta=8), color=style.GREY, label="hard (β = ∞)")
    for beta, color in zip(CIRCLE_BETAS, (style.STORED, style.RESULT), strict=True):
        ax.plot(angle, ds["circle_answer_sweep"].sel(beta=beta), color=color, label=f"β = {beta}")
    mean = float(ds["circle_mean_value"].sel(beta=1))
    ax.axhline(mean, color=style.GREY, ls=":", lw=0.8, label=f"plain mean {mean:.2f}")
    ax.axvline(60, color=style.QUERY, lw=0.8, label="query at 60°")
    for k, v in values.items():
        ax.annotate(f"key {k}°, v = {v:+.1f}", (k, v), fontsize=7, color=style.OBSERVED)
    ax.set_xlabel("query angle (degrees)")
    ax.set_ylabel("answer o (value units)")
    ax.set_title("the blended answer as the query goes round")
    ax.legend(fontsize=7, loc="lower right")
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
                fontsize=5.5,
                color="white" if abs(v) > 0.6 * vmax else "black",
            )
    ax.set_xticks(range(n), range(1, n + 1), fontsize=7)
    ax.set_yticks(range(n), range(1, n + 1), fontsize=7)
    ax.set_xlabel("key (column)", fontsize=8)
    ax.set_ylabel("query (row)", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(False)


def attention_matrix(cubes):
    """The 8 x 8 weights at beta 0, 1, 3 and 10, the causal weights and raw scores at beta 3,
    and the ranks against beta."""
    ds = cubes["circle_lookup"]
    fig = plt.figure(figsize=(13, 7), layout="constrained")
    grid = fig.add_gridspec(2, 4)
    for i, beta in enumerate(MATRIX_BETAS):
        ax = fig.add_subplot(grid[0, i])
        _heat(ax, ds["matrix_weight"].sel(beta=beta).values, f"weights A at β = {beta}")
    _heat(
        fig.add_subplot(grid[1, 0]),
        ds["matrix_causal_weight"].sel(beta=3).values,
        "causal weights at β = 3",
    )
    _heat(
        fig.add_subplot(grid[1, 1]),
        ds["matrix_score"].sel(beta=3).values,
        "raw scores QKᵀ (rank 2)",
        vmax=1.0001,
        cmap="PuOr",
    )
    ax = fig.add_subplot(grid[1, 2])
    ax.plot(ds["beta"], ds["rank_weight"], "o-", color=style.STORED, label="weights A")
    ax.plot(ds["beta"], ds["rank_score"], "s-", color=style.OBSERVED, label="scores QKᵀ")
    ax.set_xlabel("sharpness β")
    ax.set_ylabel("rank (1)")
    ax.set_ylim(0, 9)
    ax.set_title("rank against β")
    ax.legend(fontsize=8)
    ax = fig.add_subplot(grid[1, 3])
    order = ds["order"].values
    ax.plot(order, ds["rank_taylor"].sel(beta=3), "o-", color=style.RESULT, label="series cut")
    ax.plot(order, np.minimum(2 * order + 1, 8), ":", color=style.GREY, label="min(2k+1, n)")
    ax.set_xlabel("last power k kept in the series of exp")
    ax.set_ylabel("rank (1)")
    ax.set_title("two more per angular frequency (β = 3)")
    ax.legend(fontsize=8)
    return fig


def toylang_pointer(cubes):
    """Weights of the hand-set pointer over the 18 earlier tokens of the prompt (L = 10) at
    several beta, and the cost of the copied name against beta."""
    ds = cubes["latent_pointer"].sel(L=10)
    m = int(ds["n_items"].sel(beta=0))
    words = PROMPT.split()[:m]
    fig = plt.figure(figsize=(12, 4.4), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(1.8, 1))
    ax = fig.add_subplot(grid[0])
    width = 0.8 / len(POINTER_BETAS)
    for i, beta in enumerate(POINTER_BETAS):
        w = ds["weight"].sel(beta=beta).values[:m]
        ax.bar(
            np.arange(m) + (i - 2) * width,
            w,
            width,
            color=style.STORED,
            alpha=0.25 + 0.75 * i / (len(POINTER_BETAS) - 1),
            label=f"β = {beta}",
        )
    ax.axhline(1 / m, color=style.GREY, ls=":", lw=0.8, label="1/m")
    ax.set_xticks(range(m), [f"{w}\n{j}" for j, w in enumerate(words)], fontsize=6.5)
    ax.set_ylabel("pointer weight a_j (1)")
    ax.set_xlabel("earlier token and its position (key (1,0) at 0, (0,1) at 2, else 0)")
    ax.set_title("query (1,0) at 'thanked' (L = 10, m = 18)")
    ax.legend(fontsize=7, ncol=3)
    ax = fig.add_subplot(grid[1])
    beta = ds["beta"].values
    ax.plot(beta, ds["cost_final"], "o-", color=style.RESULT, label="cost of the final name")
    ax.axhline(float(ds["bag_cost"].sel(beta=8)), color=style.LIMIT, ls="--", label="bag of words")
    ax.axhline(
        float(ds["window_cost"].sel(beta=8)), color=style.OBSERVED, ls="--", label="8-token window"
    )
    for b in (0, 6, 9):
        c = float(ds["cost_final"].sel(beta=b))
        ax.annotate(f"{c:.3g}", (b, c), (b + 0.3, c + 0.25), fontsize=7)
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_xlabel("sharpness β")
    ax.set_ylabel("cost (nats, symmetric log scale)")
    ax.set_title("cost falls as the weight moves to the source")
    ax.legend(fontsize=7)
    return fig


def pointer_vs_window(cubes):
    """Cost of the final name against the gap for attention at beta 8, the 8-token window and
    the bag, with the weights at three gaps."""
    ds = cubes["latent_pointer"].sel(beta=8)
    fig = plt.figure(figsize=(12, 4.6), layout="constrained")
    grid = fig.add_gridspec(len(GAP_BARS), 2, width_ratios=(1.2, 1))
    ax = fig.add_subplot(grid[:, 0])
    gap = ds["L"].values
    ax.plot(gap, ds["bag_cost"], color=style.LIMIT, label="bag of words")
    ax.step(gap, ds["window_cost"], where="post", color=style.OBSERVED, label="8-token window")
    ax.plot(gap, ds["cost_final"], "o-", color=style.RESULT, ms=3, label="attention, β = 8")
    ax.axhline(0.02, color=style.GREY, ls=":", lw=0.8)
    ax.text(gap.max(), 0.025, "0.02 nats", ha="right", fontsize=7, color=style.GREY)
    ax.axvline(40, color=style.QUERY, lw=0.6)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("cost of the final name (nats)")
    ax.set_title("a pointer reaches any distance")
    ax.legend(fontsize=8)
    for i, g in enumerate(GAP_BARS):
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
            fontsize=8,
            color=style.OBSERVED,
            arrowprops={"arrowstyle": "->", "color": style.OBSERVED},
        )
        sub.set_xlim(-1, m + 1)
        sub.set_ylim(0, 1.05)
        sub.set_ylabel("weight", fontsize=8)
        sub.set_title(f"L = {g}: shaded = the window's 8 cells, '?' at {m}", fontsize=8)
    sub.set_xlabel("earlier position")
    return fig


def equivariance_strips(cubes):
    """Output rows of the two Flo and two Ann tokens of model 0 after 0 to 5 swaps, without and
    with sinusoidal positions."""
    ds = cubes["set_equivariance"].sel(width=8)
    s = ds["strips"]
    vmax = float(np.nanmax(np.abs(s.values)))
    fig, axes = plt.subplots(2, len(ds["swap"]), figsize=(13, 5), layout="constrained")
    for r, code in enumerate(ds["code"].values):
        for k in ds["swap"].values:
            ax = axes[r, k]
            rows = s.sel(code=code, swap=k).values
            ax.imshow(rows, cmap="PuOr_r", vmin=-vmax, vmax=vmax, aspect="auto")
            ax.set_yticks(range(4), ds["token"].values, fontsize=7)
            ax.set_xticks([])
            ax.grid(False)
            gf = np.linalg.norm(rows[0] - rows[1])
            ga = np.linalg.norm(rows[2] - rows[3])
            ax.set_title(f"{k} swaps\ngaps Flo {gf:.2f}, Ann {ga:.2f}", fontsize=7)
            if k == 0:
                ax.set_ylabel(f"positions: {code}", fontsize=8)
    fig.suptitle(
        "output rows (8 features, colour = sign and size) follow their tokens; "
        "with positions the copies differ",
        fontsize=9,
    )
    return fig


def mask_positions(cubes):
    """Distance between the outputs at 'then' for the prefix and its name-swapped copy, per mask
    configuration, without and with positions (model 0 as bars, all models as dots)."""
    ds = cubes["set_equivariance"].sel(width=8)
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
        ax.set_xticks(x, [labels[m] for m in masks], rotation=20, fontsize=8)
        ax.set_title(f"positions: {code}")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("|output(ξ) - output(ξ')| at 'then' (log scale)")
    fig.suptitle(
        f"the ln 2 floor a position-free model pays: {float(ds['floor_min']):.4f} nats", fontsize=9
    )
    return fig
