"""Figures of in-context learning and induction: first-principles E3 and E4, memory-math ch. 11.

The notes' figures are interactive (drag the number of layers; drag the query along the second
copy); here they become small multiples over the handle's range."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch

from ..experiments.in_context_regression import FIGURE_LAYERS, FIGURE_LOSSES, FIGURE_SLOPES
from ..experiments.induction_circuit import VOCAB
from ..views import figure
from . import style

SHOWN_LAYERS = (0, 1, 3, 10)


def _draw(ds, d):
    """Our draw at width ``d`` (one-dimensional in the figures), first seed, of the stacked-layer
    cube."""
    return ds.sel(d=d).isel(seed=0)


def _lines(ax, one, layers, colour, label_fmt):
    x, y = one["x"].values, one["y"].values
    grid = np.array([-1.1, 1.1])
    ax.scatter(x, y, color=style.OBSERVED, zorder=3, label="examples")
    ax.axvline(float(one["x_q"]), color=style.QUERY, ls=":", label="query x_q")
    for i, ell in enumerate(layers):
        slope = float(one["slope"].sel(layer=ell))
        ax.plot(
            grid,
            slope * grid,
            color=colour,
            alpha=0.3 + 0.7 * (i + 1) / len(layers),
            label=label_fmt.format(ell),
        )
    ax.plot(grid, float(one["ls_slope"]) * grid, color="black", ls="--", label="least squares")
    ax.set_xlabel("input x")
    ax.set_ylabel("label y")


@figure(
    "first-principles/E3-gradient-steps",
    title="Linear-attention layers as gradient steps on the examples",
    cubes=("icl_stack_gd", "icl_worked_line"),
    settings={"drawn_d": ("icl_stack_gd", "d")},
)
def e3_gradient_steps(cubes, drawn_d):
    """In-context regression run by identical linear-attention layers, each one a gradient step
    on the examples (first-principles E3). Top left: our own eight examples (blue, x uniform on
    [-1, 1], slope 1, noise sd 0.1), the query position (copper, dotted), the model after 0, 1,
    3 and 10 layers (violet, darker for more layers) and the least-squares line (dashed); the
    note's layer handle becomes these four settings. Top right: the slope of our draw climbing
    to the least-squares slope and its loss falling to the floor over 20 layers. Bottom: the
    note's printed readings (green dots; its eight examples are not printed) on the closed form
    of the one-dimensional data set that fits all nine readings at once; the largest miss is
    0.61 half units of the last printed digit, while reading the first loss as the one-layer
    value misses by about 79."""
    style.apply()
    one = _draw(cubes["icl_stack_gd"], drawn_d)
    line = cubes["icl_worked_line"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), layout="constrained")
    _lines(axes[0, 0], one, SHOWN_LAYERS, style.STORED, "after {} layers")
    axes[0, 0].set_title("our draw: 8 examples, step 0.5 on the mean loss", fontsize=style.SMALL)
    axes[0, 0].legend(fontsize=style.SMALL, loc="upper left")

    ax = axes[0, 1]
    layers = one["layer"].values
    ax.plot(layers, one["slope"], color=style.STORED, marker="o", ms=3, label="slope")
    ax.axhline(float(one["ls_slope"]), color="black", ls="--", label="least-squares slope")
    ax.set_xlabel("layers = gradient steps")
    ax.set_ylabel("slope")
    ax2 = ax.twinx()
    ax2.semilogy(layers, one["loss"], color=style.LIMIT, label="loss")
    ax2.axhline(float(one["ls_loss"]), color=style.LIMIT, ls=":", label="floor")
    ax2.set_ylabel("mean loss (1/2m) sum r^2 (log scale)")
    ax2.grid(False)
    ax.legend(loc="center right", bbox_to_anchor=(1.0, 0.6), fontsize=style.SMALL)
    ax2.legend(loc="center right", bbox_to_anchor=(1.0, 0.4), fontsize=style.SMALL)
    ax.set_title("our draw: slope climbs, loss falls to the floor", fontsize=style.SMALL)

    fl = line["fig_layer"].values
    ax = axes[1, 0]
    ax.plot(fl, line["fig_slope_curve"], color=style.STORED, label="closed form, fitted data")
    slopes = [float(t) for t in FIGURE_SLOPES]
    ax.plot(FIGURE_LAYERS, slopes[:3], "o", color=style.RESULT, label="printed 1, 3, 10 layers")
    ax.axhline(slopes[3], color="black", ls="--", label=f"printed least squares {slopes[3]}")
    ax.set_xlabel("layers")
    ax.set_ylabel("slope")
    ax.legend(fontsize=style.SMALL)
    ax.set_title("note's readings: one data set fits every slope", fontsize=style.SMALL)

    ax = axes[1, 1]
    ax.semilogy(fl, line["fig_loss_curve"], color=style.LIMIT, label="closed form, fitted data")
    losses = [float(t) for t in FIGURE_LOSSES]
    ax.plot(
        (0, *FIGURE_LAYERS),
        losses[:4],
        "o",
        color=style.RESULT,
        label="printed losses at 0, 1, 3, 10 layers",
    )
    ax.axhline(losses[4], color=style.LIMIT, ls=":", label=f"printed floor {losses[4]}")
    ax.set_xlabel("layers")
    ax.set_ylabel("loss on the examples (log scale)")
    miss = line["fig_worst_miss"].values
    ax.set_title(
        f"largest miss {miss[0]:.2f} half units (losses from 1 layer: {miss[1]:.0f})",
        fontsize=style.SMALL,
    )
    ax.legend(fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch11-gradient-steps",
    title="k layers, k gradient steps",
    cubes=("icl_stack_gd",),
    settings={"drawn_d": ("icl_stack_gd", "d")},
)
def ch11_gradient_steps(cubes, drawn_d):
    """Memory-math chapter 11: stacked linear-attention layers as gradient steps on the
    in-context regression loss. Each panel shows our eight examples (blue), the query position
    (copper, dotted), the model after k layers (copper line, k = 0, 1, 2, 3, 5, 10, replacing
    the note's layer handle) and the least-squares line (dashed black). The line starts flat at
    zero and turns toward the least-squares fit as layers are added; the examples are our own
    draw since the note prints none."""
    style.apply()
    one = _draw(cubes["icl_stack_gd"], drawn_d)
    ks = (0, 1, 2, 3, 5, 10)
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.5), layout="constrained", sharey=True)
    for ax, k in zip(axes.ravel(), ks, strict=True):
        _lines(ax, one, (k,), style.QUERY, "after {} steps")
        ax.set_title(f"k = {k} layers = {k} gradient steps", fontsize=style.SMALL)
    axes[0, 0].legend(fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/E4-induction",
    title="A hand-set induction circuit copies the next token",
    cubes=("induction_circuit",),
    settings={"arc_beta": ("induction_circuit", "beta")},
)
def e4_induction(cubes, arc_beta):
    """The hand-set induction circuit of first-principles E4 on the sentence read twice after a
    full stop. Top: each token (blue) with what layer 1 wrote into its PREV register (grey);
    arcs run from every token of the second copy to the position whose PREV equals it, with the
    layer-2 attention weight and the probability of the copied token at beta = 12 (the note's
    draggable query becomes one arc per position). Bottom left: the whole layer-2 attention
    matrix at beta = 12; the first copy finds no match and spreads its weight. Bottom right: the
    smallest weight and probability along the second copy and the share of right copies on 50
    random repeated sequences, over beta (log scale), against the hard limit e^10/(e^10+62)."""
    style.apply()
    ds = cubes["induction_circuit"]
    at = ds.sel(beta=arc_beta)
    tokens = [str(q).split(" ", 1)[1] for q in ds["query"].values]
    prev = [VOCAB[int(i)] for i in at["prev_token"].values]
    fig = plt.figure(figsize=(12, 8), layout="constrained")
    gs = fig.add_gridspec(2, 2, height_ratios=(1, 1.3))
    ax = fig.add_subplot(gs[0, :])
    n = len(tokens)
    for i, (w, p) in enumerate(zip(tokens, prev, strict=True)):
        ax.text(i, 0, w, ha="center", va="center", color=style.OBSERVED, fontsize=style.LARGE)
        ax.text(i, -0.6, p, ha="center", va="center", color=style.GREY, fontsize=style.SMALL)
        ax.text(i, -1.1, str(i), ha="center", va="center", color="black", fontsize=style.SMALL)
    ax.text(-0.9, -0.6, "PREV", ha="right", va="center", color=style.GREY, fontsize=style.SMALL)
    ax.text(-0.9, 0, "TOK", ha="right", va="center", color=style.OBSERVED, fontsize=style.SMALL)
    for c, q in enumerate(at["second_copy"].values):
        qi = int(str(q).split(" ")[0])
        t = int(at["target_position"].values[c])
        w = float(at["target_weight"].values[c])
        p = float(at["answer_prob"].values[c])
        ax.add_patch(
            FancyArrowPatch(
                (qi, 0.25),
                (t, 0.25),
                connectionstyle="arc3,rad=0.4",
                arrowstyle="-|>",
                mutation_scale=12,
                color=style.QUERY,
                lw=1.2,
            )
        )
        ax.text(
            qi,
            -1.6,
            f"weight {w:.3f}\np = {p:.3f}\n-> {tokens[t]}",
            ha="center",
            va="top",
            fontsize=style.SMALL,
            color=style.QUERY,
        )
    ax.text(-0.9, -1.6, "query row", ha="right", va="top", color=style.QUERY, fontsize=style.SMALL)
    ax.set_xlim(-2, n)
    ax.set_ylim(-2.6, 2.4)
    ax.set_axis_off()
    ax.set_title(
        f"beta = {arc_beta:g}: each second-copy token (arc start) reads the position whose PREV "
        "equals it; below: its attention weight and the probability of the copied token",
        fontsize=style.SMALL,
    )

    ax = fig.add_subplot(gs[1, 0])
    im = ax.imshow(at["attention2"].values, cmap="Oranges", vmin=0, vmax=1)
    labels = [f"{i} {w}" for i, w in enumerate(tokens)]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=style.SMALL)
    ax.set_yticks(range(n), labels, fontsize=style.SMALL)
    ax.set_xlabel("position looked at (key)")
    ax.set_ylabel("position asking (query)")
    ax.set_title(f"layer-2 attention at beta = {arc_beta:g}", fontsize=style.SMALL)
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="attention weight", shrink=0.8)

    ax = fig.add_subplot(gs[1, 1])
    beta = ds["beta"].values
    ax.plot(
        beta,
        ds["target_weight"].min("second_copy"),
        color=style.QUERY,
        marker="o",
        label="smallest weight on the target",
    )
    ax.plot(
        beta,
        ds["answer_prob"].min("second_copy"),
        color=style.RESULT,
        marker="s",
        label="smallest probability of the copied token",
    )
    ax.plot(
        beta,
        ds["random_accuracy"],
        color=style.OBSERVED,
        marker="^",
        ls="--",
        label="share right, 50 random repeats of 20 tokens",
    )
    ax.axhline(
        float(ds["exact_prob"].isel(beta=0)),
        color=style.LIMIT,
        ls=":",
        label="hard limit e^10/(e^10+62)",
    )
    ax.axvline(arc_beta, color=style.GREY, lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("sharpness beta (log scale)")
    ax.set_ylabel("weight, probability or share")
    ax.legend(fontsize=style.SMALL, loc="lower right", **style.FRAMED)
    ax.set_title(f"second copy over beta ({arc_beta:g} marked)", fontsize=style.SMALL)
    return fig
