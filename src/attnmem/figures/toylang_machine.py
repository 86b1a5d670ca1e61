"""Figures of first-principles E2: the two instructions on the printed prompt, the registers
step by step, the attention maps over the sharpness, and the ablations."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from ..experiments import toylang_machine as tm
from ..views import figure
from . import style

N = 48
MACHINE_LABELS = {
    "program": "two-layer program",
    "no_position": "no position signal",
    "no_layer1": "no layer 1",
    "one_layer_slots": "one layer, fixed slots",
    "one_layer_recency": "one layer, recency",
    "linear": "linear attention",
}


def _words(ids) -> list[str]:
    vocab = tm.vocabulary(N)
    return [vocab[int(i)] for i in ids if np.isfinite(i)]


def _prompt(cubes, prompt_L, beta):
    """The printed prompt (a clause in front of the sentence) at one sharpness."""
    return cubes["toylang_program"].sel(beta=beta, L=prompt_L, layout="clause")


@figure(
    "first-principles/E2-program-steps",
    title="The hand-built program, step by step",
    cubes=("toylang_program",),
    settings={
        "prompt_L": ("toylang_program", "L"),
        "default_beta": ("toylang_program", "beta"),
    },
)
def program_steps(cubes, prompt_L, default_beta):
    """The hand-built program on the prompt that puts a clause before the ToyLang sentence (four
    fillers, beta = 12). Blue arcs: at every position the layer-1 head reads the position to its
    left and copies that token into the PREV register (position 0 reads itself). Copper arcs:
    the layer-2 head asks at 'then' for the position whose PREV is gave and copies its own token
    (Di), and asks at 'thanked' for the position whose token is gave and copies its PREV (Cy).
    The arcs are the largest attention weights of the run."""
    ds = _prompt(cubes, prompt_L, default_beta)
    words = _words(ds["token"].values)
    n = len(words)
    att = ds["attention"].values[:, :n, :n]
    fig, ax = plt.subplots(figsize=(12, 3.8), layout="constrained")
    for t, w in enumerate(words):
        ax.add_patch(Rectangle((t - 0.42, -0.3), 0.84, 0.6, fc="white", ec=style.OBSERVED))
        ax.text(t, 0, w, ha="center", va="center", fontsize=style.SMALL)
        ax.text(t, -0.45, str(t), ha="center", va="top", fontsize=style.SMALL, color=style.GREY)
    for t in range(1, n):
        j = int(np.argmax(att[0, t]))
        arrow = FancyArrowPatch(
            (t, -0.32),
            (j, -0.32),
            connectionstyle="arc3,rad=0.6",
            arrowstyle="->",
            color=style.OBSERVED,
            lw=0.8,
            mutation_scale=8,
        )
        ax.add_patch(arrow)
    ids = tm.word_ids(N)
    tokens = ds["token"].values[:n]
    for word in ("then", "thanked"):
        t = int(np.flatnonzero(tokens == ids[word])[0])
        j = int(np.argmax(att[1, t]))
        arrow = FancyArrowPatch(
            (t, 0.32),
            (j, 0.32),
            connectionstyle="arc3,rad=0.35",
            arrowstyle="->",
            color=style.QUERY,
            lw=1.8,
            mutation_scale=12,
        )
        ax.add_patch(arrow)
        fetched = tm.vocabulary(N)[int(ds["out_top"].values[t])]
        ax.text(
            -0.5,
            2.35 if word == "then" else 2.0,
            f"layer 2 at '{word}': read position {j} ({words[j]}), write {fetched} to OUT",
            ha="left",
            fontsize=style.SMALL,
            color=style.QUERY,
        )
    ax.text(
        -0.5,
        -1.6,
        "layer 1 at every position: read the position to the left, write its token to PREV",
        fontsize=style.SMALL,
        color=style.OBSERVED,
    )
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(-1.9, 2.6)
    ax.axis("off")
    ax.set_title(
        f"two instructions on the prompt with a clause in front (beta = {default_beta}): "
        "layer 1 leaves a note, layer 2 addresses by it",
        fontsize=style.NORMAL,
    )
    return fig


@figure(
    "first-principles/E2-registers",
    title="The registers of the residual stream, layer by layer",
    cubes=("toylang_program",),
    settings={
        "prompt_L": ("toylang_program", "L"),
        "default_beta": ("toylang_program", "beta"),
    },
)
def registers(cubes, prompt_L, default_beta):
    """The residual stream of the clause-first prompt as a table of registers after zero, one
    and two layers (beta = 12): each cell names the token with the largest weight in that
    register and the weight, shaded by it. Layer 1 fills PREV with the left neighbour at every
    position (position 0 copies itself); layer 2 fills OUT only where it is read, at 'then' and
    'thanked' (framed in copper, with the probability the readout gives the right name)."""
    ds = _prompt(cubes, prompt_L, default_beta)
    words = _words(ds["token"].values)
    n = len(words)
    vocab = tm.vocabulary(N)
    ids = tm.word_ids(N)
    tokens = ds["token"].values[:n]
    copy_rows = {
        int(np.flatnonzero(tokens == ids["then"])[0]): float(ds["prob"].sel(copy="Y")),
        int(np.flatnonzero(tokens == ids["thanked"])[0]): float(ds["prob"].sel(copy="X")),
    }
    fig, axes = plt.subplots(1, 3, figsize=(12, 6.2), layout="constrained", sharey=True)
    columns = ("TOK", "PREV", "OUT")
    for step, ax in enumerate(axes):
        for t in range(n):
            cells = [(words[t], 1.0)]
            cells.append(
                (vocab[int(ds["prev_top"].values[t])], float(ds["prev_weight"].values[t]))
                if step >= 1
                else ("", 0.0)
            )
            filled = step >= 2 and t in copy_rows
            cells.append(
                (vocab[int(ds["out_top"].values[t])], float(ds["out_weight"].values[t]))
                if filled
                else ("", 0.0)
            )
            for c, (label, weight) in enumerate(cells):
                color = (style.OBSERVED, style.STORED, style.RESULT)[c]
                ax.add_patch(
                    Rectangle((c, t), 1, 1, fc=color, alpha=0.08 + 0.5 * weight, ec="white")
                )
                if label:
                    ax.text(
                        c + 0.5,
                        t + 0.5,
                        f"{label} {weight:.2f}" if c else label,
                        ha="center",
                        va="center",
                        fontsize=style.SMALL,
                    )
            if filled:
                ax.add_patch(Rectangle((0, t), 3, 1, fill=False, ec=style.QUERY, lw=2))
                ax.text(
                    3.05,
                    t + 0.5,
                    f"p = {copy_rows[t]:.3f}",
                    va="center",
                    fontsize=style.SMALL,
                    color=style.QUERY,
                )
        ax.set_xlim(0, 3.6)
        ax.set_ylim(n, 0)
        ax.set_xticks(np.arange(3) + 0.5, columns)
        ax.set_yticks(
            np.arange(n) + 0.5, [f"{t} {w}" for t, w in enumerate(words)], fontsize=style.SMALL
        )
        ax.grid(False)
        ax.set_title(
            ("step 0: embedding (TOK, POS)", "step 1: after layer 1", "step 2: after layer 2")[
                step
            ],
            fontsize=style.NORMAL,
        )
    axes[0].set_ylabel("position and token")
    fig.suptitle(
        f"the program as a change of registers on the printed prompt (beta = {default_beta}; "
        "position 0 copies itself into PREV)",
        fontsize=style.NORMAL,
    )
    return fig


def _merge_fillers(att: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Attention with the filler rows averaged into one and the filler columns summed."""
    first_filler = tm.word_ids(N)["and"]
    is_filler = (tokens >= first_filler) & (tokens < first_filler + tm.F)
    keep, merged_at = [], None
    for t, f in enumerate(is_filler):
        if f and merged_at is not None:
            continue
        if f:
            merged_at = len(keep)
        keep.append(t)
    groups = [[t] for t in keep]
    if merged_at is not None:
        groups[merged_at] = list(np.flatnonzero(is_filler))
    rows = np.array([att[g].mean(axis=0) for g in groups])
    cols = np.array([rows[:, g].sum(axis=1) for g in groups]).T
    return cols, keep


@figure(
    "first-principles/E2-attention-maps",
    title="Attention maps of the program as sharpness falls",
    cubes=("toylang_program",),
    settings={"map_L": ("toylang_program", "L"), "map_betas": ("toylang_program", "beta")},
)
def attention_maps(cubes, map_L, map_betas):
    """Attention of both layers on 'Ann gave Ben a pen' followed by eight fillers, 'then Ben
    thanked Ann .', at beta = 12, 4 and 2 (rows: the position asking; columns: the position
    read; fillers averaged into one row and summed into one column; weights from 0.15 printed).
    Layer 1 is a band just under the diagonal; of layer 2, the framed rows are the ones the
    readout uses, and they point at the name after gave and at gave. Right: the probability of
    each answer against the gap L, the interactive handle of the note drawn as a sweep with L =
    8 marked."""
    ds = cubes["toylang_program"]
    fig = plt.figure(figsize=(13, 10.5), layout="constrained")
    grid = fig.add_gridspec(3, 3, width_ratios=(1, 1, 0.9))
    ids = tm.word_ids(N)
    vocab = tm.vocabulary(N)
    maps = []
    for r, beta in enumerate(map_betas):
        d = ds.sel(beta=beta, L=map_L, layout="plain")
        tokens = d["token"].values
        n = int(np.isfinite(tokens).sum())
        tokens = tokens[:n].astype(int)
        for layer in (1, 2):
            att = d["attention"].sel(layer=layer).values[:n, :n]
            merged, keep = _merge_fillers(att, tokens)
            labels = [vocab[tokens[t]] for t in keep]
            labels = [
                "fillers" if tokens[t] >= ids["and"] and tokens[t] < ids["and"] + tm.F else w
                for t, w in zip(keep, labels, strict=True)
            ]
            ax = fig.add_subplot(grid[r, layer - 1])
            maps.append(ax)
            shown = np.where(np.tril(np.ones_like(merged)) > 0, merged, np.nan)
            image = ax.imshow(shown, cmap="Purples", vmin=0, vmax=1)
            for i in range(len(keep)):
                for j in range(i + 1):
                    if merged[i, j] >= 0.15:
                        ax.text(  # no leading zero: ".50" fits a cell, "0.50" does not
                            j,
                            i,
                            f"{merged[i, j]:.2f}".removeprefix("0"),
                            ha="center",
                            va="center",
                            fontsize=style.SMALL,
                            color="white" if merged[i, j] > 0.6 else "black",
                        )
            if layer == 2:
                for i, t in enumerate(keep):
                    if tokens[t] in (ids["then"], ids["thanked"]):
                        ax.add_patch(
                            Rectangle(
                                (-0.5, i - 0.5), len(keep), 1, fill=False, ec=style.QUERY, lw=1.8
                            )
                        )
            ax.set_xticks(range(len(keep)), labels, rotation=90, fontsize=style.SMALL)
            ax.set_yticks(range(len(keep)), labels, fontsize=style.SMALL)
            ax.grid(False)
            py, px = float(d["prob"].sel(copy="Y")), float(d["prob"].sel(copy="X"))
            title = f"layer {layer}, beta = {beta}"
            if layer == 2:
                title += f": p(Ben) = {py:.3f}, p(Ann) = {px:.3f}"
            ax.set_title(title, fontsize=style.SMALL)
            ax.set_xlabel("position looked at")
            ax.set_ylabel("position asking")
    # the weights under 0.15 are not printed: the colour bar reads them
    fig.colorbar(image, ax=maps, label="attention weight", location="bottom", shrink=0.5)
    side = fig.add_subplot(grid[:, 2])
    looks = zip((style.RESULT, style.STORED, style.LIMIT), "os^", strict=True)
    for beta, (color, marker) in zip(map_betas, looks, strict=True):  # a marker per beta
        d = ds.sel(beta=beta, layout="plain")
        side.plot(
            d["L"],
            d["prob"].sel(copy="Y"),
            "-",
            marker=marker,
            ms=3,
            color=color,
            label=f"beta = {beta}, second Y (after then)",
        )
        side.plot(
            d["L"],
            d["prob"].sel(copy="X"),
            "--",
            marker=marker,
            ms=3,
            mfc="white",
            color=color,
            label=f"beta = {beta}, final X (after thanked)",
        )
    side.axvline(map_L, color=style.GREY, ls=":", lw=1)
    side.text(map_L + 0.3, 0.02, f"L = {map_L} (maps)", fontsize=style.SMALL, color=style.GREY)
    side.set_xlabel("gap L (fillers)")
    side.set_ylabel("probability of the answer")
    side.set_ylim(0, 1.02)
    side.legend(fontsize=style.SMALL, loc="center right")
    side.set_title("the handle: probability of each answer over L", fontsize=style.SMALL)
    return fig


@figure(
    "first-principles/E2-ablations",
    title="What each part of the program is worth",
    cubes=("program_ablation",),
    settings={
        "ablation_betas": ("program_ablation", "beta"),
        "default_beta": ("program_ablation", "beta"),
    },
)
def ablations(cubes, ablation_betas, default_beta):
    """Copies right out of 200 (second Y and final X on 100 drawn sentences, L = 20, 48 names)
    for six machines: the program, the program without its position block, without layer 1, two
    one-layer heads that follow the template (fixed slots, recency) and the program with linear
    attention. Grey bars are plain sentences, hatched bars the same sentences behind a clause
    whose names are drawn independently; one panel per sharpness, beta = 12 being the one the
    text reads. The same 100 sentences are used at every beta."""
    ds = cubes["program_ablation"]
    betas = ablation_betas
    fig, axes = plt.subplots(1, len(betas), figsize=(15, 4.8), layout="constrained", sharey=True)
    y = np.arange(len(tm.MACHINES))
    for ax, beta in zip(np.atleast_1d(axes), betas, strict=True):
        d = ds.sel(beta=beta)
        plain = d["right"].sel(layout="plain").sum("copy").values
        clause = d["right"].sel(layout="clause_independent").sum("copy").values
        ax.barh(y - 0.2, plain, 0.38, color=style.GREY, label="plain ToyLang")
        ax.barh(
            y + 0.2,
            clause,
            0.38,
            color="white",
            ec=style.QUERY,
            hatch="///",
            label="clause in front",
        )
        for k in range(len(y)):
            ax.text(plain[k] + 2, y[k] - 0.2, f"{plain[k]:.0f}", va="center", fontsize=style.SMALL)
            ax.text(
                clause[k] + 2, y[k] + 0.2, f"{clause[k]:.0f}", va="center", fontsize=style.SMALL
            )
        ax.set_yticks(y, [MACHINE_LABELS[m] for m in tm.MACHINES])
        ax.set_xlim(0, 230)
        ax.axvline(200, color=style.GREY, lw=0.6, ls=":")
        ax.set_xlabel("copies right (of 200)")
        mark = " (the text's reading)" if beta == default_beta else ""
        ax.set_title(
            f"beta = {beta}{mark}",
            fontsize=style.NORMAL,
            color=style.RESULT if beta == default_beta else "black",
        )
    np.atleast_1d(axes)[0].invert_yaxis()  # shared: once for all panels
    handles, labels = np.atleast_1d(axes)[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=style.SMALL)
    return fig
