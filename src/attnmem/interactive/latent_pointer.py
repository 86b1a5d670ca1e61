"""Interactive pages of first-principles C1: the soft dictionary on a circle (drag the query,
press a sharpness), the attention matrix (click a row, press causal, drag beta), the pointer on
ToyLang against beta, and the pointer against a window as the gap grows."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..experiments.latent_pointer import PROMPT
from ..views import page
from . import kit

HARD = "hard"


@page("first-principles/C1-circle-lookup", handles={"query": "drag", "beta": "buttons"}, line=459)
def circle_lookup(cubes, circle_betas):
    ds = cubes["circle_lookup"]
    keys = ds["key"].values.astype(float)
    values = ds["circle_value"].isel(beta=0).values
    angles = ds["angle"].values
    rad = np.deg2rad(keys)
    circle = kit.plot(
        width=380,
        height=380,
        name="circle",
        x_range=(-1.6, 1.6),
        y_range=(-1.6, 1.6),
        match_aspect=True,
        title="keys (blue, size = weight) and the query (copper)",
    )
    circle.axis.visible = False
    circle.grid.visible = False
    t = np.linspace(0, 2 * np.pi, 181)
    circle.line(np.cos(t), np.sin(t), color=palette.GREY, line_width=0.6)
    dots = ColumnDataSource(
        {
            "x": np.cos(rad),
            "y": np.sin(rad),
            "w": np.zeros(len(keys)),
            "size": np.full(len(keys), 6.0),
            "label": [f"{k:.0f}°, v = {v:+.1f}" for k, v in zip(keys, values, strict=True)],
        },
        name="dots",
    )
    circle.scatter("x", "y", size="size", source=dots, color=palette.OBSERVED)
    circle.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="label",
            source=dots,
            x_offset=8,
            y_offset=6,
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    arrow = ColumnDataSource({"x": [0.0, 0.5], "y": [0.0, 0.866]}, name="arrow")
    circle.line("x", "y", source=arrow, color=palette.QUERY, line_width=2)
    bars = kit.plot(
        width=420,
        height=380,
        x_range=[f"{k:.0f}°" for k in keys],
        y_range=(0, 1.05),
        title="weight of each key",
        y_axis_label="weight a_j",
    )
    weights = ColumnDataSource(
        {"k": [f"{k:.0f}°" for k in keys], "w": np.zeros(len(keys))}, name="weights"
    )
    bars.vbar("k", top="w", width=0.7, source=weights, color=palette.OBSERVED)
    sweep = kit.plot(
        width=800,
        height=260,
        x_axis_label="query angle (degrees)",
        y_axis_label="answer o",
        y_range=(-0.75, 1.0),
    )
    sweep.line(
        angles,
        ds["circle_hard_sweep"].isel(beta=0).values,
        color=palette.GREY,
        legend_label="hard (β = ∞)",
    )
    for beta, colour in zip(circle_betas, (palette.STORED, palette.RESULT), strict=True):
        sweep.line(
            angles,
            ds["circle_answer_sweep"].sel(beta=beta).values,
            color=colour,
            legend_label=f"β = {beta:g}",
        )
    answer = ColumnDataSource({"x": [60.0], "y": [0.0]}, name="answer")
    sweep.scatter("x", "y", source=answer, marker="diamond", size=14, color=palette.STORED)
    sweep.legend.location = "bottom_right"
    pg = kit.Page()
    q = pg.handle(
        "query",
        angles,
        60.0,
        label="query angle (°)",
        plot=circle,
        xs=np.cos(np.deg2rad(angles)),
        ys=np.sin(np.deg2rad(angles)),
    )
    b = pg.handle(
        "beta",
        [HARD, *circle_betas],
        circle_betas[0],
        label="β",
        labels=["hard (β = ∞)", *(f"β = {x:g}" for x in circle_betas)],
    )
    soft = {"beta": list(circle_betas)}
    pg.column(
        weights,
        "w",
        "circle_lookup",
        "circle_weight",
        {"beta": b.ref()},
        "key",
        computed=True,
        when={**soft, "query": [60.0]},
    )
    pg.text(
        "answer",
        "answer o",
        "circle_lookup",
        "circle_answer_sweep",
        {"beta": b.ref(), "angle": q.ref()},
        computed=True,
        when=soft,
        fmt=".3f",
    )
    pg.text(
        "answer",
        "answer o",
        "circle_lookup",
        "circle_hard_sweep",
        {"beta": 0, "angle": q.ref()},
        computed=True,
        when={"beta": [HARD]},
        fmt=".3f",
    )
    pg.js(
        f"""
const K = {kit.json_literal(keys.tolist())}, VAL = {kit.json_literal(values.tolist())};
const th = V.query[st.query], beta = V.beta[st.beta];
// the scores of unit keys against a unit query, then the softmax (the hard lookup: the best)
const s = K.map(k => Math.cos((th - k) * Math.PI / 180));
let w;
if (beta === '{HARD}') {{
  const best = s.indexOf(Math.max(...s));
  w = s.map((_, j) => (j === best ? 1 : 0));
}} else {{
  const top = Math.max(...s), e = s.map(x => Math.exp(beta * (x - top)));
  const z = e.reduce((a, c) => a + c, 0);
  w = e.map(x => x / z);
}}
const o = w.reduce((a, c, j) => a + c * VAL[j], 0);
setColumn(M.weights, 'w', w);
M.dots.data = Object.assign({{}}, M.dots.data, {{w: w, size: w.map(x => 6 + 40 * Math.sqrt(x))}});
M.arrow.data = {{x: [0, Math.cos(th * Math.PI / 180)], y: [0, Math.sin(th * Math.PI / 180)]}};
M.answer.data = {{x: [th], y: [o]}};
put('answer', o);
"""
    )
    pg.mutation("Math.exp(beta * (x - top))", "Math.exp(beta * (x - top) / 2)")
    pg.mutation("a + c * VAL[j]", "a + c * VAL[(j + 1) % VAL.length]")
    pg.note = "Drag the copper ring round the circle; the buttons set the sharpness."
    return pg.finish_layout(column(row(circle, bars), sweep))


@page(
    "first-principles/C1-attention-matrix",
    handles={"row": "click", "causal": "buttons", "beta": "slider"},
    line=462,
)
def attention_matrix(cubes, matrix_betas, causal_beta):
    ds = cubes["circle_lookup"]
    betas = ds["beta"].values
    rows = ds["row"].values
    cols = ds["col"].values
    rr, cc = np.meshgrid(rows, cols, indexing="ij")
    cells = ColumnDataSource(
        {"r": rr.ravel(), "c": cc.ravel(), "w": np.zeros(rr.size), "text": [""] * rr.size},
        name="cells",
    )
    grid = kit.plot(
        width=470,
        height=470,
        name="weights",
        x_range=(-0.6, 8.5),
        y_range=(8.5, 0.5),
        title="weights: row i (query) on column j (key)",
        x_axis_label="key j",
    )
    grid.rect(
        "c",
        "r",
        0.95,
        0.95,
        source=cells,
        fill_color=palette.STORED,
        fill_alpha="w",
        line_color=None,
    )
    grid.add_layout(
        LabelSet(
            x="c",
            y="r",
            text="text",
            source=cells,
            text_align="center",
            text_baseline="middle",
            text_font_size="7pt",
        )
    )
    heads = ColumnDataSource(
        {"x": np.zeros(len(rows)), "y": rows, "label": [f"row {r}" for r in rows]}, name="heads"
    )
    tabs = grid.rect(
        "x",
        "y",
        0.9,
        0.9,
        source=heads,
        fill_color=palette.QUERY,
        fill_alpha=0.3,
        line_color=palette.QUERY,
        selection_fill_alpha=0.9,
        nonselection_fill_alpha=0.3,
    )
    grid.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="y",
            source=heads,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    scores = ColumnDataSource(
        {"r": rr.ravel(), "c": cc.ravel(), "s": np.zeros(rr.size), "label": [""] * rr.size},
        name="scores",
    )
    raw = kit.plot(
        width=300,
        height=300,
        x_range=(0.5, 8.5),
        y_range=(8.5, 0.5),
        title="raw scores QKᵀ (rank 2)",
    )
    raw.rect(
        "c",
        "r",
        0.95,
        0.95,
        source=scores,
        fill_color=palette.OBSERVED,
        fill_alpha=0.5,
        line_color=None,
    )
    raw.add_layout(
        LabelSet(
            x="c",
            y="r",
            text="label",
            source=scores,
            text_align="center",
            text_baseline="middle",
            text_font_size="6pt",
        )
    )
    pg = kit.Page()
    r = pg.handle(
        "row", rows, 6, label="row", plot=grid, xs=np.zeros(len(rows)), ys=rows, renderer=tabs
    )
    pg.handle("causal", [0, 1], 0, label="mask", labels=["all keys", "causal"])
    b = pg.handle("beta", betas, 3.0, label="β")
    at = {"beta": b.ref()}
    pg.column(
        cells, "w", "circle_lookup", "matrix_weight", at, ("row", "col"), when={"causal": [0]}
    )
    pg.column(
        cells,
        "w",
        "circle_lookup",
        "matrix_causal_weight",
        at,
        ("row", "col"),
        when={"causal": [1]},
    )
    pg.column(scores, "s", "circle_lookup", "matrix_score", at, ("row", "col"))
    pg.text(
        "answer",
        "the row's answer o",
        "circle_lookup",
        "matrix_answer",
        {**at, "row": r.ref()},
        fmt=".3f",
        when={"causal": [0]},
    )
    pg.text(
        "answer",
        "the row's answer o",
        "circle_lookup",
        "matrix_causal_answer",
        {**at, "row": r.ref()},
        fmt=".3f",
        when={"causal": [1]},
    )
    pg.text(
        "top",
        "its largest weight",
        "circle_lookup",
        "matrix_top_weight",
        {**at, "row": r.ref()},
        fmt=".3f",
        when={"causal": [0]},
    )
    pg.text(
        "rank",
        "rank of the weights",
        "circle_lookup",
        "rank_weight",
        at,
        fmt="d",
        when={"causal": [0]},
    )
    pg.text(
        "rank",
        "rank of the weights",
        "circle_lookup",
        "rank_causal_weight",
        at,
        fmt="d",
        when={"causal": [1]},
    )
    pg.js(
        """
const d = Object.assign({}, M.cells.data), sel = V.row[st.row];
d.text = Array.from(d.w, (v, k) => (d.r[k] === sel ? v.toFixed(2) : ''));
M.cells.data = d;
const s = Object.assign({}, M.scores.data);
s.label = Array.from(s.s, v => v.toFixed(2));
M.scores.data = s;
M.heads.selected.indices = [st.row];
"""
    )
    pg.note = "Click a row number to spell out its lookup; the buttons mask the future."
    return pg.finish_layout(row(grid, raw))


@page("first-principles/C1-toylang-pointer", handles={"beta": "slider"}, line=477)
def toylang_pointer(cubes, pointer_L, pointer_betas, annotated_betas):
    ds = cubes["latent_pointer"].sel(L=pointer_L)
    m = int(ds["n_items"].isel(beta=0))
    words = PROMPT.split()[:m]
    positions = ds["position"].values[:m]
    bars_src = ColumnDataSource(
        {"x": [f"{j} {w}" for j, w in enumerate(words)], "w": np.zeros(m)}, name="bars"
    )
    bars = kit.plot(
        width=820,
        height=320,
        x_range=list(bars_src.data["x"]),
        y_range=(0, 1.05),
        y_axis_label="pointer weight a_j",
        title=f"the query at 'thanked' (L = {pointer_L}, m = {m})",
    )
    bars.vbar("x", top="w", width=0.8, source=bars_src, color=palette.STORED)
    bars.add_layout(
        Span(location=1 / m, dimension="width", line_color=palette.GREY, line_dash="dotted")
    )
    bars.xaxis.major_label_orientation = 0.9
    beta = ds["beta"].values
    cost = kit.plot(
        width=420,
        height=320,
        x_axis_label="sharpness β",
        y_axis_label="cost of the final name (nats)",
    )
    cost.line(
        beta, ds["cost_final"].values, color=palette.RESULT, line_width=2, legend_label="pointer"
    )
    cost.add_layout(
        Span(
            location=float(ds["bag_cost"].isel(beta=0)),
            dimension="width",
            line_color=palette.LIMIT,
            line_dash="dashed",
        )
    )
    cost.add_layout(
        Span(
            location=float(ds["window_cost"].isel(beta=0)),
            dimension="width",
            line_color=palette.OBSERVED,
            line_dash="dashed",
        )
    )
    marker = Span(location=0, dimension="height", line_color=palette.GREY, line_dash="dotted")
    cost.add_layout(marker)
    pg = kit.Page()
    b = pg.handle("beta", beta, 8, label="β")
    at = {"L": pointer_L, "beta": b.ref()}
    pg.column(bars_src, "w", "latent_pointer", "weight", {**at, "position": positions}, "position")
    pg.text("source", "weight on the first name", "latent_pointer", "source_weight", at, fmt=".4f")
    pg.text(
        "cost",
        "cost of the copied name",
        "latent_pointer",
        "cost_final",
        at,
        fmt=".4g",
        unit="nats",
    )
    pg.text("bag", "bag of words", "latent_pointer", "bag_cost", at, fmt=".3f", unit="nats")
    pg.text("window", "8-token window", "latent_pointer", "window_cost", at, fmt=".3f", unit="nats")
    pg.name(marker, "marker")
    pg.js("M.marker.location = V.beta[st.beta];")
    return pg.finish_layout(row(bars, cost))


@page("first-principles/C1-pointer-vs-window", handles={"L": "slider"}, line=529)
def pointer_vs_window(cubes, window_beta, gap_bars):
    ds = cubes["latent_pointer"].sel(beta=window_beta)
    gaps = ds["L"].values
    positions = ds["position"].values
    costs = kit.plot(
        width=480,
        height=340,
        x_axis_label="gap L (fillers)",
        y_axis_label="cost of the final name (nats)",
    )
    costs.line(gaps, ds["bag_cost"].values, color=palette.LIMIT, legend_label="bag of words")
    costs.step(
        gaps,
        ds["window_cost"].values,
        mode="after",
        color=palette.OBSERVED,
        legend_label="8-token window",
    )
    costs.line(
        gaps,
        ds["cost_final"].values,
        color=palette.RESULT,
        line_width=2,
        legend_label=f"attention, β = {window_beta}",
    )
    costs.legend.location = "top_left"
    marker = Span(location=0, dimension="height", line_color=palette.QUERY)
    costs.add_layout(marker)
    w = ColumnDataSource({"x": positions, "w": np.zeros(len(positions))}, name="pointer")
    window = ColumnDataSource({"left": [0.0], "right": [0.0]}, name="window")
    bars = kit.plot(
        width=520,
        height=340,
        y_range=(0, 1.05),
        x_range=(-1, 30),
        name="bars",
        x_axis_label="earlier position",
        y_axis_label="weight",
        title="the pointer's weights; shaded: the window's 8 cells",
    )
    bars.quad(
        left="left",
        right="right",
        bottom=0,
        top=1.05,
        source=window,
        fill_color=palette.OBSERVED,
        fill_alpha=0.12,
        line_color=None,
    )
    bars.vbar("x", top="w", width=0.9, source=w, color=palette.STORED)
    pg = kit.Page()
    g = pg.handle("L", gaps, 10, label="gap L")
    at = {"beta": window_beta, "L": g.ref()}
    pg.column(w, "w", "latent_pointer", "weight", {**at, "position": positions}, "position")
    pg.text("pointer", "attention", "latent_pointer", "cost_final", at, fmt=".4f", unit="nats")
    pg.text("window", "8-token window", "latent_pointer", "window_cost", at, fmt=".4f", unit="nats")
    pg.text("bag", "bag of words", "latent_pointer", "bag_cost", at, fmt=".4f", unit="nats")
    pg.name(marker, "marker")
    pg.js(
        """
const L = V.L[st.L], m = L + 8;
M.marker.location = L;
M.window.data = {left: [m - 8 - 0.5], right: [m - 0.5]};
M.bars.x_range.end = m + 1;
"""
    )
    pg.note = "The bars run to the answer slot at L + 8; beyond it the weights are blank."
    return pg.finish_layout(row(costs, bars))
