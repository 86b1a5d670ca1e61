"""Figures of first-principles Part A, from the opening to A5: the route of the note and its two
memories, the true process's cost per position (A1), what a shuffle does to a bag of words and to
the language (A2), the staircase a window pays on the copies (A3), the table against the machine
and the rule, three ways of sharing strength (A4), and every model of Part A on the two copies as
the gap grows (A5)."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from ..experiments import toylang as tl
from ..views import figure
from . import style


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
    ax.text(x + width / 2, y + 0.55 * height, top, ha="center", va="center", fontsize=style.SMALL)
    if bottom:
        ax.text(
            x + width / 2, y + 0.2 * height, bottom, ha="center", va="center", fontsize=style.SMALL
        )


@figure(
    "first-principles/A1-ruler-costs",
    title="What the true process pays at each position",
    cubes=("ruler_costs",),
    settings={
        "names_N": ("ruler_costs", "N"),
        "ruler_rows_L": ("ruler_costs", "L"),
        "default_L": ("ruler_costs", "L"),
    },
)
def ruler_costs(cubes, names_N, ruler_rows_L, default_L):
    """Top: every position of a ToyLang sentence with N = 8 names and F = 6 fillers, for gaps
    of 0, 3 (the note's default, in bold), 6 and 10 fillers, with the true process's cost in
    nats under each token. Copper shading marks random choices, copper cells with dashed borders
    mark the two copied names, which cost nothing however long the gap, and grey cells are fixed
    by the template. Bottom: the cost of a whole sentence over every gap of the grid (N = 8 in
    copper, other N in grey), which rises by ln 6 per filler while the two copies (green) stay
    at zero. The note's drag handle becomes these small multiples and the sweep."""
    ds = cubes["ruler_costs"]
    n_names = names_N
    gaps = ruler_rows_L
    fig = plt.figure(figsize=(13, 8.6), layout="constrained")
    grid = fig.add_gridspec(2, 1, height_ratios=(1.25, 1))  # full-width rows: wide enough cells
    ax = fig.add_subplot(grid[0])
    for row, gap in enumerate(gaps):
        costs = ds["position_cost"].sel(N=n_names, L=gap).values[: tl.length(gap)]
        y = -1.3 * row
        for p, (label, role) in enumerate(
            zip(_template_labels(gap), _cell_roles(gap), strict=True)
        ):
            _cell(ax, p, y, role, label, f"{costs[p]:.2f}")
        total = float(ds["sentence_nats"].sel(N=n_names, L=gap))
        mark = "  (the note's default)" if gap == default_L else ""
        ax.text(
            -0.3,
            y + 0.4,
            f"L = {gap}",
            ha="right",
            va="center",
            fontsize=style.SMALL,
            color=style.QUERY if gap == default_L else "black",
            weight="bold" if gap == default_L else "normal",
        )
        ax.text(
            tl.length(gap) + 0.2,
            y + 0.4,
            f"total {total:.2f} nats{mark}",
            va="center",
            fontsize=style.SMALL,
        )
    ax.set_xlim(-1.6, tl.length(max(gaps)) + 4.2)
    ax.set_ylim(-1.3 * (len(gaps) - 1) - 0.3, 1.3)
    ax.axis("off")
    ax.set_title(
        f"what the true process pays at each position (N = {n_names}, F = 6), in nats\n"
        "shaded copper: random choice; dashed copper: copy (free); grey: fixed by the template",
        fontsize=style.SMALL,
    )

    right = fig.add_subplot(grid[1])
    L = ds["L"].values
    ends = ds["sentence_nats"].isel(L=-1).values
    top = float(ds["sentence_nats"].max())
    for n, y in zip(ds["N"].values, style.spread(ends, 0.04 * top), strict=True):
        is_default = n == n_names
        curve = ds["sentence_nats"].sel(N=n)
        right.plot(
            L,
            curve,
            color=style.QUERY if is_default else style.GREY,
            lw=2 if is_default else 0.8,
            label=f"N = {n_names}" if is_default else None,
        )
        # the ends of the small N lie closer than a line of type: a thin leader joins each
        # label to its own line's end, so that none reads as the label of its neighbour
        right.annotate(
            f"N={n}",
            (L[-1], float(curve[-1])),
            (L[-1] + 1.2, y),
            fontsize=style.SMALL,
            va="center",
            color=style.QUERY if is_default else style.GREY,
            arrowprops={"arrowstyle": "-", "color": style.GREY, "lw": 0.6, "shrinkA": 1},
        )
    cost3 = float(ds["sentence_nats"].sel(N=n_names, L=default_L))
    right.plot([default_L], [cost3], "o", color=style.QUERY)
    right.annotate(
        f"L = {default_L}: {cost3:.2f}",
        (default_L, cost3),
        (default_L + 5, cost3 - 0.15 * top),
        fontsize=style.SMALL,
        arrowprops={"arrowstyle": "->", "color": style.GREY},
    )
    copies = ds["x_copy_cost"].sel(N=n_names) + ds["y_copy_cost"].sel(N=n_names)
    right.plot(L, copies, color=style.RESULT, lw=2, label=f"both copies, N = {n_names}")
    step = float(ds["filler_step_nats"].sel(N=n_names, L=default_L))
    right.set_title(
        f"sentence cost over the gap: +{step:.3f} nats per filler", fontsize=style.SMALL
    )
    right.set_xlabel("gap L (fillers)")
    right.set_ylabel("true-process cost per sentence (nats)")
    right.legend(fontsize=style.SMALL, loc="upper left")
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
        fontsize=style.SMALL,
        weight="bold",
        color=title_colour or "black",
    )
    ax.text(
        x + w / 2,
        y + h - 0.32,
        "\n".join(lines),
        ha="center",
        va="top",
        fontsize=style.SMALL,
        linespacing=1.4,
    )


# The five parts of the note: title, role (its colour), what its model keeps, its limit. The
# interactive page shows the same words when the pointer is over a part.
ROUTE_PARTS = (
    ("A  counting", "grey", ["keeps: counts of words,", "pairs, a hidden class"],
     "cannot copy a name\nwritten in this sentence"),
    ("B  recurrence", "grey", ["keeps: one state of", "fixed size"],
     "the state is too small\nfor every name"),
    ("C  attention", "query", ["keeps: every earlier token;", "a query looks them up"],
     "order must be added;\ncost grows with length"),
    ("D  two memories", "stored", ["weights and fast weights:", "who writes, what fades"],
     "a store of fixed size fills\nup: stored pairs interfere"),
    ("E  a small computer", "stored", ["programs in the weights", "read and write context"],
     "what trained models\nreally write stays open"),
)  # fmt: skip
ROLE_COLOURS = {"grey": style.GREY, "query": style.QUERY, "stored": style.STORED}


@figure(
    "first-principles/route-parts", title="The route: five parts, each fixing the last one's limit"
)
def route(cubes):
    """The five parts of first-principles drawn as a chain of boxes, A to E. Each box names what
    that part's model keeps of the past, and the red line under it names the limit that the next
    part removes. The grey bracket covers the parts that carry the past in a summary, the copper
    label marks attention as the turn, and the violet bracket covers the two parts about two
    memories. The note's hover interaction is replaced by this one static diagram."""
    parts = [(title, ROLE_COLOURS[role], lines, limit) for title, role, lines, limit in ROUTE_PARTS]
    fig, ax = plt.subplots(figsize=(12, 3.8), layout="constrained")
    w, h, gap = 1.9, 1.0, 0.45
    for i, (title, colour, lines, limit) in enumerate(parts):
        x = i * (w + gap)
        _box(ax, x, 0.5, w, h, colour, title, lines)
        ax.text(
            x + w / 2, 0.38, limit, ha="center", va="top", fontsize=style.SMALL, color=style.LIMIT
        )
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
        fontsize=style.SMALL,
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
        fontsize=style.SMALL,
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
        fontsize=style.SMALL,
        color=style.STORED,
    )
    ax.set_xlim(-0.2, 5 * (w + gap))
    ax.set_ylim(-0.15, 2.45)
    ax.axis("off")
    ax.set_title(
        "the route: five parts, each picking up where the previous one stops (red: the limit)",
        fontsize=style.NORMAL,
    )
    return fig


@figure("first-principles/route-two-clocks", title="Two memories on two clocks")
def two_clocks(cubes):
    """The two memories of a transformer side by side. On the left, the weights: written slowly
    by training and kept for the life of the model, they hold the ToyLang template and the
    copying program. On the right, the context: filled in token by token during the forward pass
    and discarded when the sentence ends, it holds this sentence's names. Both are read by the
    same query-key-value lookup (copper), drawn in the middle. A schematic: no number is
    plotted."""
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
        fontsize=style.SMALL,
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
        ax.text(x + 0.4, 3.05, label, va="center", fontsize=style.SMALL)
    ax.set_xlim(-0.2, 9.2)
    ax.set_ylim(0.6, 3.5)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        "two memories, two clocks: read alike, written by different writers for different spans",
        fontsize=style.NORMAL,
    )
    return fig


@figure(
    "first-principles/A2-shuffle",
    title="Shuffled sentences: the bag does not notice",
    cubes=("bag_shuffle",),
    settings={
        "shown_swaps": ("bag_shuffle", "swaps"),
        "default_swaps": ("bag_shuffle", "swaps"),
    },
)
def shuffle(cubes, shown_swaps, default_swaps):
    """The A1 example sentence (Ann gave Ben a book, three different fillers) after k random
    swaps of two positions. Top: one random shuffle for each of several k, with moved cells in
    blue; 4 swaps is where the note's handle opens. Bottom left: over 2,000 shuffles per k, the
    fitted bag of words charges every shuffle the same 39.29 nats, while the true process
    charges 10.50 nats to a shuffle that is still a sentence and gives probability zero to every
    other one. Bottom right: the fraction of shuffles that are still sentences, on a log scale
    (points at zero are not drawn)."""
    ds = cubes["bag_shuffle"]
    words = tl.vocabulary(8, 6)
    shown = shown_swaps
    fig = plt.figure(figsize=(13, 8.4), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=(1.3, 1))  # full-width rows: wide enough cells
    ax = fig.add_subplot(grid[0, :])
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
        bold = k == default_swaps
        ax.text(
            -0.3,
            y + 0.4,
            f"{k} swap" + ("" if k == 1 else "s"),
            ha="right",
            va="center",
            fontsize=style.SMALL,
            weight="bold" if bold else "normal",
            color=style.QUERY if bold else "black",
        )
        ax.text(
            len(tokens) + 0.2,
            y + 0.4,
            verdict,
            va="center",
            fontsize=style.SMALL,
            color=style.QUERY if np.isfinite(true) else style.LIMIT,
        )
    ax.set_xlim(-2.3, 20)
    ax.set_ylim(-1.2 * (len(shown) - 1) - 0.3, 1.0)
    ax.axis("off")
    ax.set_title(
        f"one random shuffle per row (blue: cells that moved); {default_swaps} swaps is the note's "
        "opening",
        fontsize=style.SMALL,
    )

    k = ds["swaps"].values
    cost = fig.add_subplot(grid[1, 0])
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
    cost.axvline(default_swaps, color=style.GREY, ls=":", lw=1)
    bag0 = float(ds["bag_nats"].isel(swaps=0))  # the same at every number of swaps
    cost.text(
        k[-1], bag0 + 1.5, f"{bag0:.2f} nats", ha="right", fontsize=style.SMALL, color=style.STORED
    )
    cost.text(
        0.2,
        float(true[0]) + 1.5,
        f"{float(true[0]):.2f} nats",
        fontsize=style.SMALL,
        color=style.QUERY,
    )
    cost.set_ylim(0, 50)
    cost.set_ylabel("cost of the sequence (nats)")
    cost.set_xlabel("number of random swaps")
    cost.set_title(
        "the bag's cost never moves; otherwise the true process says impossible",
        fontsize=style.SMALL,
    )
    cost.legend(fontsize=style.SMALL, loc="center right")
    frac = fig.add_subplot(grid[1, 1], sharex=cost)
    frac.set_title("shuffles that are still sentences", fontsize=style.SMALL)
    f = ds["fraction_sentence"].values
    trials = json.loads(ds.attrs["params"])["trials"]
    frac.plot(k[f > 0], f[f > 0], "o-", color=style.RESULT, ms=3)
    frac.set_yscale("log")
    frac.set_ylim(1.0 / (4 * trials), 2)
    frac.axvline(default_swaps, color=style.GREY, ls=":", lw=1)
    frac.set_xlabel("number of random swaps")
    frac.set_ylabel("fraction still a sentence\n(log scale; 0 not drawn)")
    return fig


MODEL_LOOK = {
    "bag": ("bag of words", style.GREY, "-"),
    "pair_mixture": ("pair mixture", style.STORED, "-"),
    "window_1": ("window 1", style.OBSERVED, "-"),
    "window_2": ("window 2", style.OBSERVED, "--"),
    "window_L+8": ("window L+8", style.LIMIT, "-"),
    "hmm_by_hand": ("HMM by hand", style.QUERY, "--"),
    "neural_window": ("neural window", style.RESULT, "-"),
}


@figure(
    "first-principles/A3-window-staircase",
    title="A window pays for the copies until it reaches their source",
    cubes=("window_staircase",),
    settings={
        "names_N": ("window_staircase", "N"),
        "fillers_F": ("window_staircase", "F"),
        "default_L": ("window_staircase", "L"),
        "table_L": ("window_staircase", "L"),
    },
)
def staircase(cubes, names_N, fillers_F, default_L, table_L):
    """What a model that sees only the last r tokens pays, with unlimited data, on each of the
    two copied names of ToyLang (N = 8, F = 6), against r. Violet is the default gap L = 3: the
    final name (solid) costs ln 8 with one token of window, ln 7 once the window also holds the
    second Y, and nothing once it reaches position 0, L+8 tokens back; the second Y (dashed)
    costs ln 8 until the window reaches the first Y, L+4 back. Open markers are the same costs
    computed exactly from all 36,288 sentences. Grey lines are the other gaps of the sweep: each
    filler moves both steps one token to the right. The side panel counts the distinct windows a
    table must hold to pay nothing on the final name, one per sentence, on a log scale: six
    times more per filler."""
    N = names_N
    ds = cubes["window_staircase"].sel(N=N, F=fillers_F)
    ds = ds.sel(r=ds["r"] >= 1)  # r = 0 is the bag of A2, off this scale
    gaps = [int(g) for g in ds["L"].values]
    r = ds["r"].values
    fig = plt.figure(figsize=(11, 4.4), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=(2.2, 1))
    ax = fig.add_subplot(grid[0])
    for g in gaps:
        if g == default_L:
            continue
        ax.step(r, ds["cost_X"].sel(L=g), where="post", color=style.GREY, lw=0.7, alpha=0.5)
        ax.step(
            r, ds["cost_Y"].sel(L=g), where="post", color=style.GREY, lw=0.7, alpha=0.35, ls="--"
        )
    d = ds.sel(L=default_L)
    ax.step(
        r, d["cost_X"], where="post", color=style.STORED, lw=2.2, label=f"final X (L = {default_L})"
    )
    ax.step(
        r,
        d["cost_Y"],
        where="post",
        color=style.STORED,
        lw=2.2,
        ls="--",
        label=f"second Y (L = {default_L})",
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
    ax.plot([], [], color=style.GREY, lw=0.7, label=f"other gaps L = {gaps[0]}..{gaps[-1]}")
    for y, text in ((np.log(N), f"ln {N}"), (np.log(N - 1), f"ln {N - 1}")):
        ax.axhline(y, color=style.GREY, lw=0.5, ls=":")
        ax.text(23.8, y, text, ha="right", va="bottom", fontsize=style.SMALL, color=style.GREY)
    zx, zy = float(d["zero_window_X"]), float(d["zero_window_Y"])
    ax.annotate(
        f"X free from r = L+8 = {zx:.0f}",
        (zx, 0),
        (zx + 2, 0.6),
        fontsize=style.SMALL,
        bbox=style.LABEL_BOX,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.annotate(
        f"Y free from r = L+4 = {zy:.0f}",
        (zy, 0),
        (zy - 6, 0.9),
        fontsize=style.SMALL,
        bbox=style.LABEL_BOX,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.set_xlim(0.5, 24)
    ax.set_ylim(-0.05, 2.95)  # headroom above ln N for the legend, clear of every line
    ax.set_xlabel("window r (tokens before the copy)")
    ax.set_ylabel("cost of the copied name (nats)")
    ax.set_title(
        "a window pays for the copies until it reaches their source", fontsize=style.NORMAL
    )
    ax.legend(fontsize=style.SMALL, loc="upper center", ncols=2)
    side = fig.add_subplot(grid[1])
    rows = ds["contexts_to_zero"]
    side.semilogy(gaps, rows, "o-", color=style.LIMIT, ms=3)
    for g in (default_L, table_L):
        v = float(rows.sel(L=g))
        side.plot([g], [v], "o", color=style.STORED if g == default_L else style.LIMIT, ms=7)
        side.annotate(
            f"L = {g}: {v:,.0f}",
            (g, v),
            (g - 9 if g > 6 else g + 1, v * 3 if g > 6 else v / 8),
            fontsize=style.SMALL,
        )
    side.set_xlabel("gap L (fillers)")
    side.set_ylabel("windows needed to pay 0 on X (log scale)")
    growth = float(ds["context_growth"].sel(L=default_L))
    side.set_title(f"×{growth:.0f} per filler", fontsize=style.NORMAL)
    return fig


@figure(
    "first-principles/A4-table-vs-rule",
    title="A table grows with the gap, a rule does not",
    cubes=("window_staircase", "binding_hmm", "copy_rule"),
    settings={
        "names_N": [("window_staircase", "N"), ("binding_hmm", "N"), ("copy_rule", "N")],
        "fillers_F": [("window_staircase", "F"), ("binding_hmm", "F"), ("copy_rule", "F")],
        "default_L": [("window_staircase", "L"), ("binding_hmm", "L")],
        "table_L": [("window_staircase", "L"), ("binding_hmm", "L")],
    },
)
def table_vs_rule(cubes, names_N, fillers_F, default_L, table_L):
    """Three sizes against the gap L for ToyLang with 8 names and 6 fillers, on a log scale: the
    rows a window table needs to pay nothing on the final name (red, one per full prefix, six
    times more per filler), the states of the hand-built HMM that holds the ordered pair of
    names and the phase (copper, 56 more states per filler, one per ordered pair of names), and
    the offsets a "copy the token d back" rule can choose from (green, L+8). Shaded: the default
    gap L = 3 and the gap L = 10 the text uses, with the number of table rows per machine state."""
    N, F = names_N, fillers_F
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
    for g in (default_L, table_L):
        if g in gaps:
            i = gaps.index(g)
            ax.axvspan(i - 0.45, i + 0.45, color=style.GREY, alpha=0.12, lw=0)
            ratio = float(rows.sel(L=g)) / float(states.sel(L=g))
            ax.text(
                i,
                float(rows.sel(L=g)) * 4,
                f"L = {g}\n{ratio:,.0f} rows\nper state",
                ha="center",
                fontsize=style.SMALL,
            )
    ax.set_ylim(1, float(rows.max()) * 300)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("count (log scale)")
    ax.set_title(
        "a table: one row per filler combination; a rule: one hypothesis per place to look",
        fontsize=style.NORMAL,
    )
    ax.legend(fontsize=style.SMALL, loc="upper left")
    return fig


@figure(
    "first-principles/A4-three-ways",
    title="Three ways of sharing strength",
    cubes=("model_comparison",),
    settings={
        "names_N": ("model_comparison", "N"),
        "fillers_F": ("model_comparison", "F"),
        "table_L": ("model_comparison", "L"),
    },
)
def three_ways(cubes, names_N, fillers_F, table_L):
    """The note closes A4 with a figure on three ways of sharing strength whose drawing did not
    survive in the text. This redraw shows only what the text fixes, at the comparison table's
    setting (N = 8, L = 10): a hidden topic with one bag per pair of names (28 bags), a hidden
    state that moves through the sentence (1,120 hand-built states) and a neural window over
    embedded tokens (5,542 weights), each with what it pays on the two copies, against the ten
    billion rows of a table that spans the gap (dashed). None of them looks the binding up by
    its content."""
    ds = cubes["model_comparison"].sel(N=names_N, F=fillers_F, L=table_L)
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
            fontsize=style.SMALL,
        )
    ax.axvline(table, color=style.LIMIT, ls="--", lw=1)
    ax.annotate(  # a few points left of its line, not touching it
        f"table spanning the gap:\n{table:.2e} rows",
        (table, 2.55),
        xytext=(-5, 0),
        textcoords="offset points",
        ha="right",
        fontsize=style.SMALL,
        color=style.LIMIT,
    )
    ax.set_xscale("log")
    ax.set_xlim(5, table * 5)
    ax.set_ylim(-0.6, 3.1)
    ax.set_yticks([])
    ax.set_xlabel(f"bags, states or weights kept at L = {table_L}, N = {names_N} (log scale)")
    ax.set_title(
        "three ways to share strength; none reads the binding by its content", fontsize=style.NORMAL
    )
    return fig


@figure(
    "first-principles/A5-model-comparison",
    title="Every model of Part A on the copied names",
    cubes=("model_comparison",),
    settings={
        "names_N": ("model_comparison", "N"),
        "fillers_F": ("model_comparison", "F"),
        "default_L": ("model_comparison", "L"),
        "table_L": ("model_comparison", "L"),
    },
)
def comparison(cubes, names_N, fillers_F, default_L, table_L):
    """What every model of Part A pays on the two copied names together, with unlimited data, as
    the gap L grows (N = 8, F = 6; the note's drag handle becomes the sweep, L = 3 and L = 10
    marked). The bag and the pair mixture pay more as L grows, since the names form a smaller
    share of a longer sentence; the windows of one and two tokens stay flat at 2 ln 8 and ln 8 +
    ln 7 because they never see a source; a window of L+8 tokens and the hand-built HMM pay
    nothing. The mixture is cheaper than the one-token window below L = 6, ties it exactly there
    (circle) and is dearer beyond. Right: the bars at L = 10 with what each model stores written
    under the axis; the neural window's cost is not computed in the note."""
    ds = cubes["model_comparison"].sel(N=names_N, F=fillers_F)
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
        fontsize=style.SMALL,
        bbox=style.LABEL_BOX,
        arrowprops={"arrowstyle": "->", "color": style.STORED},
    )
    ax.axvline(default_L, color=style.GREY, lw=0.8, ls=":")
    ax.text(default_L, 7.9, f" L = {default_L}", fontsize=style.SMALL, color=style.GREY)
    ax.axvline(table_L, color=style.GREY, lw=0.8, ls=":")
    ax.text(table_L, 7.9, f" L = {table_L} (table)", fontsize=style.SMALL, color=style.GREY)
    ax.set_ylim(-0.2, 8.4)
    ax.set_xlabel("gap L (fillers)")
    ax.set_ylabel("cost of the two copied names (nats)")
    ax.set_title("what each model pays on the copies with unlimited data", fontsize=style.NORMAL)
    ax.legend(fontsize=style.SMALL, loc="lower right", bbox_to_anchor=(1.0, 0.07), ncols=2)
    bars = fig.add_subplot(grid[1])
    at = ds.sel(L=table_L)
    for i, m in enumerate(models):
        label, color, _ = MODEL_LOOK[m]
        v = float(at["copy_nats"].sel(model=m))
        stores = float(at["stores"].sel(model=m))
        if np.isnan(v):
            bars.text(i, 0.15, "not\ncomputed", ha="center", fontsize=style.SMALL, color=color)
        else:
            bars.bar(i, v, color=color)
            bars.text(i, v + 0.1, f"{v:.3f}", ha="center", fontsize=style.SMALL)
        bars.text(
            i,
            -1.1,
            f"{stores:,.0f}" if stores < 1e6 else f"{stores:.2e}",
            ha="center",
            fontsize=style.SMALL,
            rotation=30,
        )
    bars.set_xticks(
        range(len(models)),
        [MODEL_LOOK[m][0] for m in models],
        rotation=35,
        ha="right",
        fontsize=style.SMALL,
    )
    bars.set_ylim(-1.6, 8.4)
    bars.axhline(0, color="black", lw=0.6)
    bars.set_ylabel(f"copy nats at L = {table_L} (stores below the axis)")
    bars.set_title(f"the comparison table, L = {table_L}, N = {names_N}", fontsize=style.NORMAL)
    return fig
