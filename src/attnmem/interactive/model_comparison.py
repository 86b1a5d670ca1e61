"""Interactive pages of first-principles Part A: the route of the note (hover a part), the true
process's cost per position as the gap grows (A1), a sentence shuffled swap by swap (A2), the
window's staircase (A3), the table against the machine and the rule (A4), and every model of
Part A on the copies (A5)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Range1d, Span

from .. import palette
from ..experiments import toylang as tl
from ..views import page
from . import kit


@page("first-principles/route-parts", handles={"part": "hover"}, line=21)
def route(cubes):
    parts = kit.figure_constant("model_comparison", "ROUTE_PARTS")
    p = kit.plot(width=900, height=230, x_range=(-0.3, 12.0), y_range=(-0.2, 1.7))
    p.axis.visible = False
    p.grid.visible = False
    xs = [i * 2.4 + 0.95 for i in range(len(parts))]
    colours = [kit.ROLE[role] for _, role, _, _ in parts]
    tips = [
        f"<b>{title}</b><br>{' '.join(lines)}<br><span style='color:{palette.LIMIT}'>"
        f"limit: {limit.replace(chr(10), ' ')}</span>"
        for title, _, lines, limit in parts
    ]
    src = ColumnDataSource(
        {"x": xs, "y": [0.9] * len(xs), "colour": colours, "title": [t for t, *_ in parts]}
    )
    boxes = p.rect(
        "x",
        "y",
        1.9,
        1.0,
        source=src,
        fill_color="colour",
        fill_alpha=0.15,
        line_color="colour",
        line_width=2,
        hover_fill_alpha=0.45,
        hover_line_color="colour",
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="title",
            source=src,
            text_align="center",
            text_font_size=kit.PT[palette.NORMAL],
            y_offset=18,
        )
    )
    limits = ColumnDataSource(
        {"x": xs, "y": [0.18] * len(xs), "t": [lim.replace("\n", " ") for *_, lim in parts]}
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="t",
            source=limits,
            text_align="center",
            text_color=palette.LIMIT,
            text_font_size="7pt",
        )
    )
    pg = kit.Page()
    pg.handle(
        "part",
        range(len(parts)),
        label="part",
        labels=[t for t, *_ in parts],
        plot=p,
        xs=xs,
        ys=[0.9] * len(xs),
        texts=tips,
        renderer=boxes,
    )
    p.name = "route"
    pg.layout = p
    pg.note = "Point at a part: what its model keeps, and the limit the next part removes."
    return pg


def _template(gap: int) -> tuple[list[str], list[str]]:
    """Words and roles (random, copy, fixed) of the positions of a sentence with this gap."""
    words = ["X", "gave", "Y", "a", "T", *[f"f{i + 1}" for i in range(gap)]]
    words += ["then", "Y", "thanked", "X", "."]
    roles = ["fixed"] * tl.length(gap)
    for p in (0, 2, 4, *range(5, 5 + gap)):
        roles[p] = "random"
    where = tl.copy_positions(gap)
    roles[where["X"]] = roles[where["Y"]] = "copy"
    return words, roles


@page("first-principles/A1-ruler-costs", handles={"L": "drag"}, line=106)
def ruler_costs(cubes, names_N, ruler_rows_L, default_L):
    ds = cubes["ruler_costs"].sel(N=names_N)
    gaps = ds["L"].values
    positions = ds["position"].values
    # each gap's words and roles, laid out over every position of the cube (blank past the end)
    words, fills, lines = [], [], []
    look = {
        "random": (palette.QUERY, palette.QUERY),
        "copy": ("white", palette.QUERY),
        "fixed": ("#e6e6e6", palette.GREY),
    }
    for gap in gaps:
        w, r = _template(int(gap))
        pad = len(positions) - len(w)
        words.append(w + [""] * pad)
        fills.append([look[x][0] for x in r] + ["white"] * pad)
        lines.append([look[x][1] for x in r] + ["white"] * pad)
    start = list(gaps).index(default_L)
    cells = ColumnDataSource(
        {
            "x": positions,
            "y": np.zeros(len(positions)),
            "cost": np.zeros(len(positions)),
            "text": [""] * len(positions),
            "word": words[start],
            "fill": fills[start],
            "line": lines[start],
        },
        name="cells",
    )
    top = kit.plot(
        width=960,
        height=150,
        x_range=(-0.6, len(positions) - 0.4),
        y_range=(-0.75, 0.6),
        title="cost of each token (nats); copper: random "
        "choice, white with copper border: copy, grey: fixed",
    )
    top.axis.visible = False
    top.grid.visible = False
    top.rect(
        "x",
        "y",
        0.92,
        0.9,
        source=cells,
        fill_color="fill",
        line_color="line",
        fill_alpha=0.55,
        line_width=1.5,
    )
    top.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="word",
            source=cells,
            text_align="center",
            text_font_size=kit.PT[palette.SMALL],
            y_offset=4,
        )
    )
    top.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="text",
            source=cells,
            text_align="center",
            text_font_size=kit.PT[palette.SMALL],
            y_offset=-14,
        )
    )
    total = ds["sentence_nats"].values
    bottom = kit.plot(
        width=620,
        height=300,
        name="sweep",
        x_axis_label="gap L (fillers)",
        y_axis_label="true-process cost per sentence (nats)",
    )
    for n in cubes["ruler_costs"]["N"].values:
        if n != names_N:
            bottom.line(
                gaps,
                cubes["ruler_costs"]["sentence_nats"].sel(N=n).values,
                color=palette.GREY,
                line_width=0.8,
            )
    bottom.line(gaps, total, color=palette.QUERY, line_width=2, legend_label=f"N = {names_N}")
    copies = (ds["x_copy_cost"] + ds["y_copy_cost"]).values
    bottom.line(gaps, copies, color=palette.RESULT, line_width=2, legend_label="both copies")
    bottom.legend.location = "top_left"
    pg = kit.Page()
    pg.handle("L", gaps, default_L, label="gap L", plot=bottom, xs=gaps, ys=total)
    pg.column(
        cells,
        "cost",
        "ruler_costs",
        "position_cost",
        {"N": names_N, "L": "$L"},
        "position",
        fmt=".2f",
    )
    pg.text(
        "total",
        "sentence",
        "ruler_costs",
        "sentence_nats",
        {"N": names_N, "L": "$L"},
        fmt=".2f",
        unit="nats",
    )
    pg.text(
        "copyX",
        "final copy X",
        "ruler_costs",
        "x_copy_cost",
        {"N": names_N, "L": "$L"},
        fmt=".2f",
        unit="nats",
    )
    pg.text(
        "copyY",
        "second copy Y",
        "ruler_costs",
        "y_copy_cost",
        {"N": names_N, "L": "$L"},
        fmt=".2f",
        unit="nats",
    )
    pg.text(
        "step",
        "per filler",
        "ruler_costs",
        "filler_step_nats",
        {"N": names_N, "L": "$L"},
        fmt=".3f",
        unit="nats",
    )
    pg.name(cells, "cells")
    pg.js(
        f"""
const W_ = {kit.json_literal(words)}, F_ = {kit.json_literal(fills)},
      C_ = {kit.json_literal(lines)};
const c = M.cells, d = Object.assign({{}}, c.data), i = st.L;
d.word = W_[i]; d.fill = F_[i]; d.line = C_[i];
d.text = Array.from(d.cost, (v, k) => W_[i][k] === '' || Number.isNaN(v) ? '' : v.toFixed(2));
c.data = d;
"""
    )
    pg.layout = column(top, bottom)
    pg.note = "Drag the copper ring along the sentence cost (or use the slider)."
    return pg


@page("first-principles/A2-shuffle", handles={"swaps": "slider"}, line=161)
def shuffle(cubes, shown_swaps, default_swaps):
    ds = cubes["bag_shuffle"]
    vocab = tl.vocabulary(8, 6)
    swaps = ds["swaps"].values
    tokens = ds["example_tokens"].values.astype(int)
    moved = ds["example_moved"].values.astype(bool)
    words = [[vocab[t] for t in row] for row in tokens]
    fills = [[palette.OBSERVED if m else "#e6e6e6" for m in row] for row in moved]
    start = list(swaps).index(default_swaps)
    n = tokens.shape[1]
    cells = ColumnDataSource(
        {"x": np.arange(n), "y": np.zeros(n), "word": words[start], "fill": fills[start]},
        name="cells",
    )
    top = kit.plot(
        width=760,
        height=110,
        x_range=(-0.6, n - 0.4),
        y_range=(-0.6, 0.6),
        title="the sentence after the swaps (blue: moved)",
    )
    top.axis.visible = False
    top.grid.visible = False
    top.rect(
        "x",
        "y",
        0.92,
        0.9,
        source=cells,
        fill_color="fill",
        fill_alpha=0.45,
        line_color=palette.GREY,
    )
    top.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="word",
            source=cells,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    costs = kit.plot(
        width=520,
        height=300,
        x_axis_label="number of random swaps",
        y_axis_label="cost of the sequence (nats)",
        y_range=(0, 50),
    )
    costs.line(
        swaps,
        ds["bag_nats"].values,
        color=palette.STORED,
        line_width=2,
        legend_label="bag of words (any order)",
    )
    true = ds["true_nats_sentence"].values
    costs.line(
        swaps,
        true,
        color=palette.QUERY,
        line_width=2,
        legend_label="true process, while still a sentence",
    )
    costs.legend.location = "center_right"
    bar = kit.plot(
        width=300,
        height=300,
        x_range=["bag of words", "true process"],
        y_range=(0, 50),
        title="this shuffle",
    )
    bag_src = ColumnDataSource({"x": ["bag of words"], "top": [0.0]}, name="bag_bar")
    true_src = ColumnDataSource({"x": ["true process"], "top": [0.0]}, name="true_bar")
    bar.vbar("x", top="top", width=0.6, source=bag_src, color=palette.STORED)
    bar.vbar("x", top="top", width=0.6, source=true_src, color=palette.QUERY)
    marker = Span(
        location=default_swaps, dimension="height", line_color=palette.GREY, line_dash="dotted"
    )
    costs.add_layout(marker)
    pg = kit.Page()
    pg.handle("swaps", swaps, default_swaps, label="random swaps")
    pg.column(bag_src, "top", "bag_shuffle", "bag_nats", {"swaps": "$swaps"}, ())
    pg.text(
        "bag",
        "bag of words",
        "bag_shuffle",
        "bag_nats",
        {"swaps": "$swaps"},
        fmt=".2f",
        unit="nats",
    )
    pg.text(
        "true",
        "true process on this shuffle",
        "bag_shuffle",
        "example_true_nats",
        {"swaps": "$swaps"},
        fmt=".2f",
        unit="nats (∞: not a sentence)",
    )
    pg.text(
        "fraction",
        "share of 2,000 shuffles still sentences",
        "bag_shuffle",
        "fraction_sentence",
        {"swaps": "$swaps"},
        fmt=".4f",
    )
    pg.name(marker, "marker")
    pg.js(
        f"""
const W_ = {kit.json_literal(words)}, F_ = {kit.json_literal(fills)};
const d = Object.assign({{}}, M.cells.data);
d.word = W_[st.swaps]; d.fill = F_[st.swaps]; M.cells.data = d;
M.marker.location = V.swaps[st.swaps];
const t = +document.getElementById('r-true').dataset.value;  // Infinity: not a sentence
M.true_bar.data = {{x: ['true process'], top: [Number.isFinite(t) ? t : 0]}};
"""
    )
    pg.layout = column(top, row(costs, bar))
    pg.note = "A shuffle that is no longer a sentence costs the true process infinitely much."
    return pg


@page("first-principles/A3-window-staircase", handles={"L": "slider"}, line=263)
def staircase(cubes, names_N, fillers_F, default_L, table_L):
    ds = cubes["window_staircase"].sel(N=names_N, F=fillers_F)
    ds = ds.sel(r=ds["r"] >= 1)
    r = ds["r"].values
    gaps = ds["L"].values
    steps = ColumnDataSource({"r": r, "x": np.zeros(len(r)), "y": np.zeros(len(r))}, name="steps")
    p = kit.plot(
        width=620,
        height=330,
        x_range=(0.5, 24),
        y_range=(-0.05, 2.3),
        x_axis_label="window r (tokens before the copy)",
        y_axis_label="cost of the copied name (nats)",
    )
    for g in gaps:
        p.step(r, ds["cost_X"].sel(L=g).values, mode="after", color=palette.GREY, alpha=0.35)
    p.step(
        "r",
        "x",
        source=steps,
        mode="after",
        color=palette.STORED,
        line_width=2.5,
        legend_label="final name X",
    )
    p.step(
        "r",
        "y",
        source=steps,
        mode="after",
        color=palette.STORED,
        line_width=2.5,
        line_dash="dashed",
        legend_label="second name Y",
    )
    p.legend.location = "top_right"
    side = kit.plot(
        width=330,
        height=330,
        y_axis_type="log",
        x_axis_label="gap L (fillers)",
        y_axis_label="windows needed to pay 0 on X",
    )
    rows = ds["contexts_to_zero"].values
    side.line(gaps, rows, color=palette.LIMIT)
    side.scatter(gaps, rows, color=palette.LIMIT, size=4)
    dot = ColumnDataSource({"x": [0.0], "y": [1.0]}, name="dot")
    side.scatter("x", "y", source=dot, size=12, color=palette.STORED)
    pg = kit.Page()
    pg.handle("L", gaps, default_L, label="gap L")
    sel = {"N": names_N, "F": fillers_F, "L": "$L"}
    pg.column(steps, "x", "window_staircase", "cost_X", {**sel, "r": r}, "r")
    pg.column(steps, "y", "window_staircase", "cost_Y", {**sel, "r": r}, "r")
    pg.column(dot, "y", "window_staircase", "contexts_to_zero", sel, ())
    pg.text("zx", "X free from r =", "window_staircase", "zero_window_X", sel, fmt="d")
    pg.text("zy", "Y free from r =", "window_staircase", "zero_window_Y", sel, fmt="d")
    pg.text("rows", "windows a table needs", "window_staircase", "contexts_to_zero", sel, fmt="d")
    pg.text("growth", "growth per filler", "window_staircase", "context_growth", sel, fmt=".4g")
    pg.js("M.dot.data = {x: [V.L[st.L]], y: M.dot.data.y};")
    pg.layout = row(p, side)
    return pg


@page("first-principles/A4-table-vs-rule", handles={"L": "slider"}, line=302)
def table_vs_rule(cubes, names_N, fillers_F, default_L, table_L):
    sel = {"N": names_N, "F": fillers_F, "L": "$L"}
    rows = cubes["window_staircase"]["contexts_to_zero"].sel(N=names_N, F=fillers_F)
    states = cubes["binding_hmm"]["n_states"].sel(N=names_N, F=fillers_F)
    rule = cubes["copy_rule"]["n_candidates"].sel(N=names_N, F=fillers_F)
    gaps = [int(g) for g in rows["L"].values if g in states["L"].values and g in rule["L"].values]
    names = ["table rows", "HMM states", "copy-rule offsets"]
    p = kit.plot(
        width=560,
        height=360,
        x_range=names,
        y_axis_type="log",
        y_range=Range1d(1, float(rows.max()) * 10),
        y_axis_label="count (log scale)",
        title="at the chosen gap",
    )
    sources = []
    for name, colour, cube, var in zip(
        names,
        (palette.LIMIT, palette.QUERY, palette.RESULT),
        ("window_staircase", "binding_hmm", "copy_rule"),
        ("contexts_to_zero", "n_states", "n_candidates"),
        strict=True,
    ):
        src = ColumnDataSource({"x": [name], "top": [1.0]}, name=f"bar:{var}")
        p.vbar("x", top="top", bottom=1, width=0.6, source=src, color=colour)
        sources.append((src, cube, var))
    pg = kit.Page()
    pg.handle("L", gaps, default_L, label="gap L")
    for (src, cube, var), label in zip(sources, names, strict=True):
        pg.column(src, "top", cube, var, sel, ())
        pg.text(var, label, cube, var, sel, fmt="d")
    pg.layout = p
    return pg


MODELS = {
    "bag": ("bag of words", palette.GREY),
    "pair_mixture": ("pair mixture", palette.STORED),
    "window_1": ("window 1", palette.OBSERVED),
    "window_2": ("window 2", palette.OBSERVED),
    "window_L+8": ("window L+8", palette.LIMIT),
    "hmm_by_hand": ("HMM by hand", palette.QUERY),
    "neural_window": ("neural window", palette.RESULT),
}


@page("first-principles/A5-model-comparison", handles={"L": "slider"}, line=330)
def comparison(cubes, names_N, fillers_F, default_L, table_L):
    ds = cubes["model_comparison"].sel(N=names_N, F=fillers_F)
    gaps = ds["L"].values
    models = [str(m) for m in ds["model"].values]
    lines = kit.plot(
        width=560,
        height=340,
        x_axis_label="gap L (fillers)",
        y_axis_label="cost of the two copied names (nats)",
        y_range=(-0.2, 8.4),
    )
    for m in models:
        label, colour = MODELS[m]
        y = ds["copy_nats"].sel(model=m).values
        if not np.all(np.isnan(y)):
            lines.line(gaps, y, color=colour, line_width=2, legend_label=label)
    lines.legend.location = "bottom_right"
    lines.legend.label_text_font_size = kit.PT[palette.SMALL]
    marker = Span(
        location=default_L, dimension="height", line_color=palette.GREY, line_dash="dotted"
    )
    lines.add_layout(marker)
    labels = [MODELS[m][0] for m in models]
    bars_src = ColumnDataSource(
        {"x": labels, "top": np.zeros(len(models)), "colour": [MODELS[m][1] for m in models]},
        name="bars",
    )
    bars = kit.plot(
        width=400, height=340, x_range=labels, y_range=(0, 8.4), title="at the chosen gap"
    )
    bars.vbar("x", top="top", width=0.7, color="colour", source=bars_src)
    bars.xaxis.major_label_orientation = 0.7
    pg = kit.Page()
    pg.handle("L", gaps, default_L, label="gap L")
    sel = {"N": names_N, "F": fillers_F, "L": "$L"}
    pg.column(bars_src, "top", "model_comparison", "copy_nats", {**sel, "model": models}, "model")
    pg.text(
        "mixture",
        "pair mixture minus window 1",
        "model_comparison",
        "mixture_minus_window1",
        sel,
        fmt=".3f",
        unit="nats",
    )
    pg.text(
        "bag",
        "bag of words",
        "model_comparison",
        "copy_nats",
        {**sel, "model": "bag"},
        fmt=".3f",
        unit="nats",
    )
    pg.name(marker, "marker")
    pg.js("M.marker.location = V.L[st.L];")
    pg.layout = row(lines, bars)
    return pg
