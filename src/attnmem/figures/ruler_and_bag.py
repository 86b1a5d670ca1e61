"""Figures of first-principles, opening to A2: the ruler's cost per position, the route of the
note and its two memories, and what a shuffle does to a bag of words and to the language."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from ..experiments import toylang as tl
from . import style

DEFAULT_L = 3  # the gap the note's ruler figure opens at (line 106)
DEFAULT_SWAPS = 4  # the number of swaps the shuffle figure opens at (line 161)


def _template_labels(gap: int) -> list[str]:
    fillers = [f"f{i + 1}" for i in range(gap)]
    return ["X", "gave", "Y", "a", "T", *fillers, "then", "Y", "thanked", "X", "."]


def _cell_roles(gap: int) -> list[str]:
    """random / copy / fixed for each position of a sentence with this gap."""
    roles = ["fixed"] * tl.length(gap)
    for p in (0, 2, 4, *range(5, 5 + gap)):
        roles[p] = "random"
    pos = tl.copy_positions(gap)
    roles[pos["Y"]] = roles[pos["X"]] = "copy"
    return roles


def _cell(ax, x, y, role, top, bottom, width=0.92, height=0.8):
    if role == "random":
        patch = Rectangle((x, y), width, height, fc=style.QUERY, ec=style.QUERY, alpha=0.35)
    elif role == "copy":
        patch = Rectangle((x, y), width, height, fc="white", ec=style.QUERY, ls="--", lw=1.5)
    elif role == "moved":
        patch = Rectangle((x, y), width, height, fc=style.OBSERVED, ec=style.OBSERVED, alpha=0.3)
    else:
        patch = Rectangle((x, y), width, height, fc="#e6e6e6", ec=style.GREY)
    ax.add_patch(patch)
    size = 8 if len(top) <= 5 else 6.5
    ax.text(x + width / 2, y + 0.55 * height, top, ha="center", va="center", fontsize=size)
    if bottom:
        ax.text(x + width / 2, y + 0.2 * height, bottom, ha="center", va="center", fontsize=7)


def ruler_costs(cubes):
    """Cells of a sentence with each position's true cost, for a few gaps (the note's drag
    handle becomes small multiples, L = 3 marked), and the sentence cost over every gap."""
    ds = cubes["ruler_costs"]
    n_names = 8
    gaps = [g for g in (0, DEFAULT_L, 6, 10) if g in ds["L"].values]
    fig = plt.figure(figsize=(12.5, 5.0), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(2.1, 1))
    ax = fig.add_subplot(grid[0])
    for row, gap in enumerate(gaps):
        costs = ds["position_cost"].sel(N=n_names, L=gap).values[: tl.length(gap)]
        y = -1.3 * row
        for p, (label, role) in enumerate(
            zip(_template_labels(gap), _cell_roles(gap), strict=True)
        ):
            _cell(ax, p, y, role, label, f"{costs[p]:.2f}")
        total = float(ds["sentence_nats"].sel(N=n_names, L=gap))
        mark = "  (the note's default)" if gap == DEFAULT_L else ""
        ax.text(
            -0.3,
            y + 0.4,
            f"L = {gap}",
            ha="right",
            va="center",
            fontsize=9,
            color=style.QUERY if gap == DEFAULT_L else "black",
            weight="bold" if gap == DEFAULT_L else "normal",
        )
        ax.text(
            tl.length(gap) + 0.2, y + 0.4, f"total {total:.2f} nats{mark}", va="center", fontsize=8
        )
    ax.set_xlim(-1.6, tl.length(max(gaps)) + 4.2)
    ax.set_ylim(-1.3 * (len(gaps) - 1) - 0.3, 1.3)
    ax.axis("off")
    ax.set_title(
        f"what the true process pays at each position (N = {n_names}, F = 6), in nats\n"
        "shaded copper: random choice; dashed copper: copy (free); grey: fixed by the template",
        fontsize=9,
    )

    right = fig.add_subplot(grid[1])
    L = ds["L"].values
    for n in ds["N"].values:
        is_default = n == n_names
        curve = ds["sentence_nats"].sel(N=n)
        right.plot(
            L,
            curve,
            color=style.QUERY if is_default else style.GREY,
            lw=2 if is_default else 0.8,
            label="N = 8" if is_default else None,
        )
        right.text(
            L[-1] + 0.3,
            float(curve[-1]),
            f"N={n}",
            fontsize=6.5,
            va="center",
            color=style.QUERY if is_default else style.GREY,
        )
    cost3 = float(ds["sentence_nats"].sel(N=n_names, L=DEFAULT_L))
    right.plot([DEFAULT_L], [cost3], "o", color=style.QUERY)
    right.annotate(
        f"L = 3: {cost3:.2f}",
        (DEFAULT_L, cost3),
        (8, cost3 - 6),
        fontsize=8,
        arrowprops={"arrowstyle": "->", "color": style.GREY},
    )
    copies = ds["x_copy_cost"].sel(N=n_names) + ds["y_copy_cost"].sel(N=n_names)
    right.plot(L, copies, color=style.RESULT, lw=2, label="both copies, N = 8")
    step = float(ds["filler_step_nats"].sel(N=n_names, L=DEFAULT_L))
    right.set_title(f"sentence cost over the gap: +{step:.3f} nats per filler", fontsize=9)
    right.set_xlabel("gap L (fillers)")
    right.set_ylabel("true-process cost per sentence (nats)")
    right.legend(fontsize=7, loc="upper left")
    return fig


def _box(ax, x, y, w, h, colour, title, lines, title_colour=None):
    ax.add_patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0.02", fc=to_rgba(colour, 0.15), ec=colour, lw=1.5
        )
    )
    ax.text(
        x + w / 2,
        y + h - 0.08,
        title,
        ha="center",
        va="top",
        fontsize=9,
        weight="bold",
        color=title_colour or "black",
    )
    ax.text(
        x + w / 2,
        y + h - 0.32,
        "\n".join(lines),
        ha="center",
        va="top",
        fontsize=7.5,
        linespacing=1.4,
    )


def route(cubes):
    """The five parts of the note as a chain, each part's model ending at the limit that the
    next part removes (the note's hover becomes one static diagram)."""
    parts = [
        (
            "A  counting",
            style.GREY,
            ["keeps: counts of words,", "pairs, a hidden class"],
            "cannot copy a name\nwritten in this sentence",
        ),
        (
            "B  recurrence",
            style.GREY,
            ["keeps: one state of", "fixed size"],
            "the state is too small\nfor every name",
        ),
        (
            "C  attention",
            style.QUERY,
            ["keeps: every earlier token;", "a query looks them up"],
            "order must be added;\ncost grows with length",
        ),
        (
            "D  two memories",
            style.STORED,
            ["weights and fast weights:", "who writes, what fades"],
            "a store of fixed size fills\nup: stored pairs interfere",
        ),
        (
            "E  a small computer",
            style.STORED,
            ["programs in the weights", "read and write context"],
            "what trained models\nreally write stays open",
        ),
    ]
    fig, ax = plt.subplots(figsize=(12, 3.8), layout="constrained")
    w, h, gap = 1.9, 1.0, 0.45
    for i, (title, colour, lines, limit) in enumerate(parts):
        x = i * (w + gap)
        _box(ax, x, 0.5, w, h, colour, title, lines)
        ax.text(x + w / 2, 0.38, limit, ha="center", va="top", fontsize=7.5, color=style.LIMIT)
        if i < len(parts) - 1:
            ax.add_patch(
                FancyArrowPatch(
                    (x + w + 0.03, 1.0),
                    (x + w + gap - 0.03, 1.0),
                    arrowstyle="-|>",
                    mutation_scale=14,
                    color="black",
                )
            )
    xc = 2 * (w + gap) + w / 2
    ax.text(
        xc,
        2.05,
        "the turn: keep the past as written\ninstead of in a summary",
        ha="center",
        va="bottom",
        fontsize=8,
        color=style.QUERY,
    )
    x0, x1 = 0.0, 2 * (w + gap) - gap / 2
    ax.annotate("", (x0, 2.0), (x1, 2.0), arrowprops={"arrowstyle": "-", "color": style.GREY})
    ax.text(
        (x0 + x1) / 2 - 0.2,
        2.05,
        "the past carried forward in a summary",
        ha="center",
        va="bottom",
        fontsize=8,
        color=style.GREY,
    )
    xd0, xd1 = 3 * (w + gap), 5 * (w + gap) - gap
    ax.annotate("", (xd0, 2.0), (xd1, 2.0), arrowprops={"arrowstyle": "-", "color": style.STORED})
    ax.text(
        (xd0 + xd1) / 2,
        2.05,
        "two memories on two clocks",
        ha="center",
        va="bottom",
        fontsize=8,
        color=style.STORED,
    )
    ax.set_xlim(-0.2, 5 * (w + gap))
    ax.set_ylim(-0.15, 2.45)
    ax.axis("off")
    ax.set_title(
        "the route: five parts, each picking up where the previous one stops (red: the limit)",
        fontsize=10,
    )
    return fig


def two_clocks(cubes):
    """The two memories of a transformer side by side: read by the same query-key-value
    lookup, written by different writers on different clocks."""
    fig, ax = plt.subplots(figsize=(10, 4.2), layout="constrained")
    _box(
        ax,
        0.0,
        0.8,
        3.2,
        1.8,
        style.STORED,
        "slow memory: the weights",
        [
            "written by training, a little per sentence,",
            "over millions of sentences",
            "",
            "lasts: the life of the model",
            "holds: the template and the program",
            "(names follow 'gave'; after 'thanked',",
            "fetch the first name)",
        ],
    )
    _box(
        ax,
        5.8,
        0.8,
        3.2,
        1.8,
        style.OBSERVED,
        "fast memory: the context",
        [
            "filled in by the forward pass,",
            "token by token",
            "",
            "lasts: one sentence",
            "holds: this sentence's data",
            "(Flo, Ann)",
        ],
    )
    ax.add_patch(
        FancyBboxPatch(
            (3.65, 1.0), 1.7, 1.0, boxstyle="round,pad=0.02", fc="white", ec=style.QUERY, lw=1.5
        )
    )
    ax.text(
        4.5,
        1.5,
        "the same read:\nquery → match keys\n→ return values",
        ha="center",
        va="center",
        fontsize=8,
        color=style.QUERY,
    )
    for x0, x1 in ((3.25, 3.62), (5.78, 5.38)):
        ax.add_patch(
            FancyArrowPatch(
                (x0, 1.5), (x1, 1.5), arrowstyle="-|>", mutation_scale=12, color=style.QUERY
            )
        )
    for x, label in ((1.6, "slow clock"), (7.4, "fast clock")):
        ax.add_patch(plt.Circle((x, 3.05), 0.28, fc="white", ec=style.GREY, lw=1.2))
        angle = 1.2 if "slow" in label else -0.3
        ax.plot([x, x + 0.2 * np.cos(angle)], [3.05, 3.05 + 0.2 * np.sin(angle)], color="black")
        ax.text(x + 0.4, 3.05, label, va="center", fontsize=8)
    ax.set_xlim(-0.2, 9.2)
    ax.set_ylim(0.6, 3.5)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        "two memories, two clocks: read alike, written by different writers for different spans",
        fontsize=10,
    )
    return fig


def shuffle(cubes):
    """A sentence after k random swaps (moved cells filled), and what the bag and the true
    process charge it over k (the note's handle becomes a sweep, 4 swaps marked)."""
    ds = cubes["bag_shuffle"]
    words = tl.vocabulary(8, 6)
    shown = [k for k in (0, 1, 2, DEFAULT_SWAPS, 8, 16) if k in ds["swaps"].values]
    fig = plt.figure(figsize=(13, 5.4), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=(1.5, 1))
    ax = fig.add_subplot(grid[:, 0])
    for row, k in enumerate(shown):
        tokens = ds["example_tokens"].sel(swaps=k).values
        moved = ds["example_moved"].sel(swaps=k).values
        true = float(ds["example_true_nats"].sel(swaps=k))
        y = -1.2 * row
        for p, (t, m) in enumerate(zip(tokens, moved, strict=True)):
            _cell(ax, p, y, "moved" if m else "fixed", words[int(t)], None)
        verdict = (
            f"sentence: {true:.2f} nats" if np.isfinite(true) else "not a sentence: impossible"
        )
        bold = k == DEFAULT_SWAPS
        ax.text(
            -0.3,
            y + 0.4,
            f"{k} swap" + ("" if k == 1 else "s"),
            ha="right",
            va="center",
            fontsize=9,
            weight="bold" if bold else "normal",
            color=style.QUERY if bold else "black",
        )
        ax.text(
            len(tokens) + 0.2,
            y + 0.4,
            verdict,
            va="center",
            fontsize=8,
            color=style.QUERY if np.isfinite(true) else style.LIMIT,
        )
    ax.set_xlim(-2.3, 20)
    ax.set_ylim(-1.2 * (len(shown) - 1) - 0.3, 1.0)
    ax.axis("off")
    ax.set_title(
        "one random shuffle per row (blue: cells that moved); 4 swaps is the note's opening",
        fontsize=9,
    )

    k = ds["swaps"].values
    cost = fig.add_subplot(grid[0, 1])
    cost.plot(k, ds["bag_nats"], color=style.STORED, lw=2, label="bag of words (any order)")
    true = ds["true_nats_sentence"].values
    cost.plot(
        k,
        true,
        color=style.QUERY,
        lw=2,
        marker="o",
        ms=3,
        label="true process, while still a sentence",
    )
    cost.axvline(DEFAULT_SWAPS, color=style.GREY, ls=":", lw=1)
    bag0 = float(ds["bag_nats"].sel(swaps=0))
    cost.text(k[-1], bag0 + 1.5, f"{bag0:.2f} nats", ha="right", fontsize=8, color=style.STORED)
    cost.text(
        0.2, float(true[0]) + 1.5, f"{float(true[0]):.2f} nats", fontsize=8, color=style.QUERY
    )
    cost.set_ylim(0, 50)
    cost.set_ylabel("cost of the sequence (nats)")
    cost.set_title(
        "the bag's cost never moves; otherwise the true process says impossible", fontsize=9
    )
    cost.legend(fontsize=7, loc="center right")
    frac = fig.add_subplot(grid[1, 1], sharex=cost)
    f = ds["fraction_sentence"].values
    trials = json.loads(ds.attrs["params"])["trials"]
    frac.plot(k[f > 0], f[f > 0], "o-", color=style.RESULT, ms=3)
    frac.set_yscale("log")
    frac.set_ylim(1.0 / (4 * trials), 2)
    frac.axvline(DEFAULT_SWAPS, color=style.GREY, ls=":", lw=1)
    frac.set_xlabel("number of random swaps")
    frac.set_ylabel("fraction still a sentence\n(log scale; 0 not drawn)")
    return fig
