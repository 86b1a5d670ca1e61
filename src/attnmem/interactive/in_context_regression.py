"""Interactive pages of in-context learning and induction: linear-attention layers as gradient
steps (first-principles E3, memory-math chapter 11: drag the number of layers) and the hand-set
induction circuit (first-principles E4: drag the query along the second copy)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..experiments.induction_circuit import VOCAB
from ..views import page
from . import kit


def _steps(cubes, drawn_d, kind, colour):
    one = cubes["icl_stack_gd"].sel(d=drawn_d).isel(seed=0)
    layers = one["layer"].values
    slopes = one["slope"].values
    p = kit.plot(
        width=520,
        height=420,
        name="examples",
        x_range=(-1.2, 1.25),
        y_range=(-1.4, 1.4),
        x_axis_label="input x",
        y_axis_label="label y",
    )
    p.scatter(
        one["x"].values, one["y"].values, color=palette.OBSERVED, size=8, legend_label="examples"
    )
    p.add_layout(
        Span(
            location=float(one["x_q"]),
            dimension="height",
            line_color=palette.QUERY,
            line_dash="dotted",
        )
    )
    ls = float(one["ls_slope"])
    p.line(
        [-1.1, 1.1],
        [-1.1 * ls, 1.1 * ls],
        color=palette.INK,
        line_dash="dashed",
        legend_label="least squares",
    )
    model = ColumnDataSource({"x": [-1.1, 1.1], "y": [0.0, 0.0]}, name="model")
    p.line("x", "y", source=model, color=colour, line_width=2.5, legend_label="the model")
    p.legend.location = "top_left"
    curves = kit.plot(
        width=420,
        height=420,
        y_axis_type="log",
        x_axis_label="layers",
        y_axis_label="loss on the examples (log scale)",
    )
    curves.line(layers, one["loss"].values, color=palette.LIMIT, line_width=2, legend_label="loss")
    curves.add_layout(
        Span(
            location=float(one["ls_loss"]),
            dimension="width",
            line_color=palette.LIMIT,
            line_dash="dotted",
        )
    )
    marker = Span(location=0, dimension="height", line_color=palette.GREY, line_dash="dotted")
    curves.add_layout(marker)
    pg = kit.Page()
    if kind == "drag":  # the ring sits on the model's line at its right end, x = 1.1
        h = pg.handle(
            "layers",
            layers,
            0,
            label="layers",
            plot=p,
            xs=np.full(len(layers), 1.1),
            ys=1.1 * slopes,
        )
    else:
        h = pg.handle("layers", layers, 0, label="layers")
    at = {"d": drawn_d, "seed": 0, "layer": h.ref()}
    pg.text("slope", "slope", "icl_stack_gd", "slope", at, fmt=".4f")
    pg.text(
        "ls",
        "least-squares slope",
        "icl_stack_gd",
        "ls_slope",
        {"d": drawn_d, "seed": 0},
        fmt=".4f",
    )
    pg.text("loss", "loss on the examples", "icl_stack_gd", "loss", at, fmt=".5f")
    pg.text(
        "floor",
        "least-squares floor",
        "icl_stack_gd",
        "ls_loss",
        {"d": drawn_d, "seed": 0},
        fmt=".5f",
    )
    pg.name(marker, "marker")
    pg.js(
        """
const k = +document.getElementById('r-slope').dataset.value;
M.model.data = {x: [-1.1, 1.1], y: [-1.1 * k, 1.1 * k]};
M.marker.location = V.layers[st.layers];
"""
    )
    return pg, row(p, curves)


@page("first-principles/E3-gradient-steps", handles={"layers": "drag"}, line=1262)
def e3_gradient_steps(cubes, drawn_d):
    pg, layout = _steps(cubes, drawn_d, "drag", palette.STORED)
    pg.note = (
        "Our own eight examples (the note prints none). Drag the ring up the right end of the "
        "violet line: each layer is one gradient step on the examples."
    )
    return pg.finish_layout(layout)


@page("memory-math/ch11-gradient-steps", handles={"layers": "slider"}, line=53)
def ch11_gradient_steps(cubes, drawn_d):
    pg, layout = _steps(cubes, drawn_d, "slider", palette.QUERY)
    pg.note = "Our own eight examples (the note prints none); k layers are k gradient steps."
    return pg.finish_layout(layout)


@page("first-principles/E4-induction", handles={"query": "drag"}, line=1278)
def e4_induction(cubes, arc_beta):
    ds = cubes["induction_circuit"].sel(beta=arc_beta)
    tokens = [str(q).split(" ", 1)[1] for q in ds["query"].values]
    prev = [VOCAB[int(i)] for i in ds["prev_token"].values]
    n = len(tokens)
    second = [str(q) for q in ds["second_copy"].values]
    where = [int(q.split(" ")[0]) for q in second]
    p = kit.plot(
        width=900,
        height=300,
        name="sentence",
        x_range=(-1.5, n - 0.5),
        y_range=(-2.2, 2.2),
        title=f"β = {arc_beta:g}: TOK (blue), PREV (grey)",
    )
    p.axis.visible = False
    p.grid.visible = False
    row_src = ColumnDataSource(
        {"x": np.arange(n), "tok": tokens, "prev": prev, "y0": np.zeros(n), "y1": np.full(n, -0.7)}
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y0",
            text="tok",
            source=row_src,
            text_align="center",
            text_baseline="middle",
            text_color=palette.OBSERVED,
            text_font_size=kit.PT[palette.LARGE],
        )
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y1",
            text="prev",
            source=row_src,
            text_align="center",
            text_baseline="middle",
            text_color=palette.GREY,
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    arc = ColumnDataSource({"x0": [0.0], "x1": [0.0], "cx": [0.0], "cy": [1.8]}, name="arc")
    p.quadratic(
        x0="x0",
        y0=0.35,
        x1="x1",
        y1=0.35,
        cx="cx",
        cy="cy",
        source=arc,
        color=palette.QUERY,
        line_width=2,
    )
    target = ColumnDataSource({"x": [0.0], "y": [0.0]}, name="target")
    p.scatter(
        "x", "y", source=target, marker="square", size=26, fill_alpha=0.15, color=palette.QUERY
    )
    pg = kit.Page()
    q = pg.handle(
        "query",
        second,
        second[-1],
        label="query",
        labels=second,
        plot=p,
        xs=where,
        ys=np.full(len(where), 0.9),
    )
    at = {"beta": arc_beta, "second_copy": q.ref()}
    pg.text("target", "reads position", "induction_circuit", "target_position", at, fmt="d")
    pg.text("weight", "with weight", "induction_circuit", "target_weight", at, fmt=".3f")
    pg.text(
        "prob", "probability of the copied token", "induction_circuit", "answer_prob", at, fmt=".3f"
    )
    pg.js(
        f"""
const W = {kit.json_literal(where)};
const qx = W[st.query], t = +document.getElementById('r-target').dataset.value;
M.arc.data = {{x0: [qx], x1: [t], cx: [(qx + t) / 2], cy: [1.8]}};
M.target.data = {{x: [t], y: [0]}};
"""
    )
    pg.note = "Drag the ring along the second copy: the arc runs to the position it reads."
    return pg.finish_layout(p)
