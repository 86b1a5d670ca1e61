"""Figures of memory-math's prologue and chapters 1-2: the two lookups, a matrix times a vector
read two ways, a product read four ways, a product as a sum of outer products, and how much of
a matrix its first singular terms keep. The notes' widgets become small multiples or sweeps with
the default position marked."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patches import FancyBboxPatch, Rectangle

from ..views import figure
from . import style

# Sign only, as in the note's grids: teal positive, brown negative.
SIGN = LinearSegmentedColormap.from_list("sign", list(style.SIGN))


def _grid(ax, m, title, vmax=None, fmt="{:.0f}", fontsize=style.SMALL):
    m = np.asarray(m)
    vmax = vmax or max(1e-9, float(np.max(np.abs(m))))
    ax.imshow(m, cmap=SIGN, vmin=-vmax, vmax=vmax)
    for (i, j), v in np.ndenumerate(m):
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=fontsize)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    ax.set_title(title, fontsize=style.SMALL)


def _outline(ax, rows, cols, color):
    for i in rows:
        for j in cols:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec=color, lw=2.2))


# ----------------------------------------------------------------------------- prologue


EXAMPLES = (
    ("The capital of France is", (), "France → Paris", "Paris"),
    ("Alice gave Bob a book . Then Bob thanked", (0,), "thanked → a person", "Alice"),
)


@figure(
    "memory-math/prologue-two-lookups",
    title="Two prompts: an answer from the weights, one from the context",
)
def two_lookups(cubes):
    """A schematic of the prologue's two prompts, not a measurement: for the capital question no
    earlier token holds the answer, so it has to come from what the weights stored (violet); for
    the thanks sentence the name is in the prompt and attention fetches it from an earlier
    position (blue). The copper box is the position where the next token is predicted."""
    fig, axes = plt.subplots(2, 1, figsize=(9, 3.6), layout="constrained")
    for ax, (prompt, read, weights, answer) in zip(axes, EXAMPLES, strict=True):
        tokens = prompt.split()
        x = 0.0
        centres = []
        for t, tok in enumerate(tokens):
            w = 0.12 + 0.075 * len(tok)
            last = t == len(tokens) - 1
            color = style.QUERY if last else (style.OBSERVED if t in read else "#eeeeee")
            ax.add_patch(
                FancyBboxPatch(
                    (x, 0.55),
                    w,
                    0.3,
                    boxstyle="round,pad=0.02",
                    fc=color,
                    ec="none",
                    alpha=0.9 if (last or t in read) else 1,
                )
            )
            ax.text(
                x + w / 2,
                0.7,
                tok,
                ha="center",
                va="center",
                fontsize=style.SMALL,
                color="white" if (last or t in read) else "black",
            )
            centres.append(x + w / 2)
            x += w + 0.08
        for t in read:
            ax.annotate(
                "",
                xy=(centres[t], 0.52),
                xytext=(centres[-1], 0.52),
                arrowprops=dict(
                    arrowstyle="->", color=style.OBSERVED, connectionstyle="arc3,rad=0.35"
                ),
            )
        ax.add_patch(
            FancyBboxPatch(
                (x + 0.2, 0.1), 1.7, 0.3, boxstyle="round,pad=0.02", fc=style.STORED, ec="none"
            )
        )
        ax.text(
            x + 1.05,
            0.25,
            f"weights: {weights}",
            ha="center",
            va="center",
            color="white",
            fontsize=style.SMALL,
        )
        ax.text(
            x + 0.2,
            0.7,
            f"→ {answer}",
            va="center",
            fontsize=style.NORMAL,
            color=style.RESULT,
            weight="bold",
        )
        label = "attention reads the context (blue)" if read else "no earlier token holds it"
        ax.text(0, 0.2, label, fontsize=style.SMALL, color=style.OBSERVED if read else style.GREY)
        ax.set_xlim(-0.1, x + 2.1)
        ax.set_ylim(0, 1)
        ax.axis("off")
    axes[0].set_title("two lookups for one prediction (illustration, not a measurement)")
    return fig


# ----------------------------------------------------------------------------- chapter 1


@figure(
    "memory-math/ch1-two-readings",
    title="A matrix times a vector, read by rows and by columns",
    cubes=("matrix_readings",),
)
def two_readings(cubes):
    """One random 3 x 4 integer matrix times a vector, with the first coordinate of the vector
    swept over the range of our entries (dashed line: the value in our draw). Read by rows,
    every output is a dot product with the vector and all three move; read by columns, only the
    term of the first column moves while the other column terms stay flat, and the two readings
    give the same outputs."""
    ds = cubes["matrix_readings"].isel(seed=0)
    w, x = ds["w"].values, ds["x"].values
    xs = ds["x1_value"].values
    y, parts = ds["sweep_y"].values, ds["sweep_parts"].values
    fig, axes = plt.subplots(
        1, 3, figsize=(11, 3.6), layout="constrained", gridspec_kw={"width_ratios": (1, 1.2, 1.2)}
    )
    _grid(axes[0], w, f"W (3 x 4) and default x = {x.astype(int).tolist()}")
    for i in range(y.shape[1]):
        axes[1].plot(xs, y[:, i], marker="o", ms=3, label=f"y_{i + 1} = w_{i + 1}·x")
    axes[1].axvline(x[0], color=style.QUERY, ls="--", lw=1, label="default x_1")
    axes[1].set_xlabel("first coordinate x_1")
    axes[1].set_ylabel("output")
    axes[1].set_title("rows: every output moves", fontsize=style.SMALL)
    axes[1].legend(fontsize=style.SMALL)
    for j in range(parts.shape[2]):
        color = style.QUERY if j == 0 else style.STORED
        axes[2].plot(
            xs,
            parts[:, 0, j],
            color=color,
            alpha=1 if j == 0 else 0.4 + 0.2 * j,
            label=f"x_{j + 1} c_{j + 1} (entry 1)",
        )
    axes[2].plot(xs, y[:, 0], color=style.RESULT, ls=":", lw=2, label="sum = y_1")
    axes[2].axvline(x[0], color=style.QUERY, ls="--", lw=1)
    axes[2].set_xlabel("first coordinate x_1")
    axes[2].set_ylabel("first entry of each column term")
    gap = float(cubes["matrix_readings"]["sweep_reading_gap"].max())
    axes[2].set_title(f"columns: only x_1 c_1 moves; same y (gap {gap:.0e})", fontsize=style.SMALL)
    axes[2].legend(fontsize=style.SMALL)
    return fig


# ----------------------------------------------------------------------------- chapter 2


@figure(
    "memory-math/ch2-four-readings",
    title="Four readings of one matrix product",
    cubes=("matrix_readings",),
)
def four_readings(cubes):
    """The same product C = AB of two small random integer matrices, shown once per reading: the
    outlined cells of A (blue) and B (copper) are what one step of that reading multiplies and
    the outlined cells of C (green) are what it produces. All four groupings agree with the
    product to the last bit; cells are teal when positive and brown when negative."""
    ds = cubes["matrix_readings"].isel(seed=0)
    a, b, c = ds["a"].values, ds["b"].values, ds["c"].values
    m, r = a.shape
    n = b.shape[1]
    cases = (
        ("row of A against column of B", ([0], range(r)), (range(r), [0]), ([0], [0])),
        (
            "row 1 of A weights the rows of B",
            ([0], range(r)),
            (range(r), range(n)),
            ([0], range(n)),
        ),
        (
            "column 1 of B weights the columns of A",
            (range(m), range(r)),
            (range(r), [0]),
            (range(m), [0]),
        ),
        ("column 1 of A times row 1 of B", (range(m), [0]), ([0], range(n)), (range(m), range(n))),
    )
    fig, axes = plt.subplots(
        4, 3, figsize=(9, 9), layout="constrained", gridspec_kw={"width_ratios": (r, n, n)}
    )
    names = ("entry", "row", "column", "outer")
    for row, (title, sa, sb, sc) in enumerate(cases):
        gap = float(cubes["matrix_readings"][f"{names[row]}_gap"].max())
        _grid(axes[row, 0], a, f"A (3 x 4) - {title}")
        _grid(axes[row, 1], b, "B (4 x 3)")
        _grid(axes[row, 2], c, f"C = AB (gap {gap:.0e})")
        _outline(axes[row, 0], *sa, style.OBSERVED)
        _outline(axes[row, 1], *sb, style.QUERY)
        _outline(axes[row, 2], *sc, style.RESULT)
        axes[row, 0].set_ylabel(names[row], fontsize=style.NORMAL)
    fig.suptitle(
        "one product, four groupings of the same sum (teal +, brown −)", fontsize=style.NORMAL
    )
    return fig


@figure(
    "memory-math/ch2-outer-sum",
    title="A product as a sum of outer products",
    cubes=("matrix_readings",),
)
def outer_sum(cubes):
    """The product AB of a 3 x 4 and a 4 x 3 integer matrix built up one outer product at a
    time: after each added term the distance to AB shrinks and after the fourth it is zero. The
    bar panel gives the rank of each partial sum for Gaussian factors: never more than the
    number of terms, and capped at three by the size of the product."""
    ds = cubes["matrix_readings"]
    s0 = ds.isel(seed=0)
    partial, c = s0["partial_sum"].values, s0["c"].values
    resid = s0["partial_residual"].values
    ranks = ds["partial_rank_gaussian"].isel(seed=0).values
    vmax = float(np.max(np.abs(np.concatenate([partial.ravel(), c.ravel()]))))
    fig, axes = plt.subplots(
        1,
        6,
        figsize=(13, 2.9),
        layout="constrained",
        gridspec_kw={"width_ratios": (1, 1, 1, 1, 1, 1.5)},
    )
    for t in range(4):
        _grid(
            axes[t],
            partial[t],
            f"first {t + 1} term{'s' if t else ''}\n|AB − sum|_F = {resid[t]:.2f}",
            vmax,
        )
    _grid(axes[4], c, "AB", vmax)
    axes[5].bar(np.arange(1, 5), ranks, color=style.STORED, label="rank (Gaussian A, B)")
    axes[5].plot(np.arange(1, 5), np.arange(1, 5), color=style.LIMIT, ls="--", label="bound t")
    axes[5].set_xlabel("outer products summed t")
    axes[5].set_ylabel("rank")
    axes[5].set_xticks(np.arange(1, 5))
    axes[5].legend(fontsize=style.SMALL)
    axes[5].set_title("rank ≤ terms, ≤ min(m, n) = 3", fontsize=style.SMALL)
    return fig


@figure(
    "memory-math/ch2-singular-values",
    title="Three singular terms keep almost all of a smooth pattern",
    cubes=("eckart_young",),
)
def singular_values(cubes):
    """Top left and the bottom row: our own 8 x 8 structured pattern (a smooth Gaussian band),
    its energy per singular term on a log scale, and the pattern rebuilt from its first one, two
    and three terms; three terms (the marked default) keep over 99 percent of its energy, more
    than a random Gaussian matrix keeps. Top right: for four random 8 x 8 matrices, the
    truncated SVD of rank three has a smaller squared error than each of 300 random rank-three
    matrices."""
    ds = cubes["eckart_young"]
    s0 = ds.isel(seed=0)
    sv, kept = s0["pattern_sv"].values, s0["pattern_energy_kept"].values
    rand_kept = ds["random_energy_kept"].values
    fig = plt.figure(figsize=(12, 6.2), layout="constrained")
    g = fig.add_gridspec(2, 4)
    ax = fig.add_subplot(g[0, 0])
    ax.bar(np.arange(1, sv.size + 1), sv**2, color=[style.STORED] * 3 + [style.GREY] * 5)
    ax.set_yscale("log")
    ax.set_xlabel("term k")
    ax.set_ylabel("energy μ_k² (1, log scale)")
    ax.set_title("pattern: energy per term", fontsize=style.SMALL)
    ax = fig.add_subplot(g[0, 1])
    ks = np.arange(kept.size)
    ax.plot(ks, kept, marker="o", color=style.STORED, label="our pattern")
    for row in rand_kept:
        ax.plot(ks, row, color=style.OBSERVED, alpha=0.4, lw=1)
    ax.plot(
        [],
        [],
        color=style.OBSERVED,
        alpha=0.4,
        label=f"random Gaussian A ({ds.sizes['seed']} seeds)",
    )
    ax.axvline(3, color=style.QUERY, ls="--", lw=1, label="default: 3 terms")
    ax.set_xlabel("terms kept k")
    ax.set_ylabel("share of energy kept")
    ax.set_title(f"3 terms keep {kept[3]:.1%} of the pattern", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL, loc="lower right", **style.FRAMED)
    ax = fig.add_subplot(g[0, 2:])
    err = ds["competitor_error"].values
    best = ds["svd_error"].values
    for i in range(err.shape[0]):
        ax.scatter(err[i], np.full(err.shape[1], i), s=4, color=style.GREY)
        ax.scatter([best[i]], [i], s=40, color=style.RESULT, marker="D")
    ax.scatter([], [], color=style.RESULT, marker="D", label="truncated SVD (rank 3)")
    ax.scatter([], [], color=style.GREY, s=4, label="300 random rank-3 matrices (best multiple)")
    ax.set_xlabel("squared Frobenius error |A − B|²")
    ax.set_ylabel("seed (random 8 x 8 A)")
    ax.set_yticks(range(err.shape[0]))
    ax.set_title("no competitor beats the truncated SVD", fontsize=style.SMALL)
    ax.legend(fontsize=style.SMALL, loc="upper left", bbox_to_anchor=(0, -0.22), ncols=2)
    trunc = s0["pattern_truncated"].values
    vmax = float(np.max(np.abs(s0["pattern"].values)))
    for col, k in enumerate((1, 2, 3)):
        _grid(
            fig.add_subplot(g[1, col]),
            trunc[k],
            f"first {k} term{'s' if k > 1 else ''} ({kept[k]:.1%} energy)",
            vmax,
            "{:.1f}",
        )
    _grid(
        fig.add_subplot(g[1, 3]),
        s0["pattern"].values,
        "our pattern (Gaussian band)",
        vmax,
        "{:.1f}",
    )
    return fig
