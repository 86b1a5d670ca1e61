"""Interactive pages of memory-math chapters 6-7: the soft dictionary on a circle (drag the
query), the temperature (drag beta), the rank the softmax lifts (drag beta) and a key trained
toward the query (drag the number of steps)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..views import page
from . import kit


def _circle(name, title):
    p = kit.plot(
        width=380,
        height=380,
        name=name,
        x_range=(-1.5, 1.5),
        y_range=(-1.5, 1.5),
        match_aspect=True,
        title=title,
    )
    p.axis.visible = False
    p.grid.visible = False
    t = np.linspace(0, 2 * np.pi, 181)
    p.line(np.cos(t), np.sin(t), color=palette.GREY, line_width=0.6)
    return p


@page("memory-math/ch6-circle-lookup", handles={"angle": "drag"}, line=27)
def circle_lookup(cubes, circle_beta, circle_angles):
    ds = cubes["soft_dictionary_circle"].sel(beta=circle_beta)
    angles = ds["angle"].values
    keys = [str(k) for k in ds["key"].values]
    # the keys' places, read off the cube: the similarity at query 0 and 90 degrees is (cos, sin)
    kx = ds["similarity"].sel(angle=0).values
    ky = ds["similarity"].sel(angle=90).values
    circle = _circle("circle", f"β = {circle_beta:g}: dot size is a key's share")
    dots = ColumnDataSource(
        {"x": kx, "y": ky, "w": np.zeros(len(keys)), "size": np.full(len(keys), 6.0), "k": keys},
        name="dots",
    )
    circle.scatter("x", "y", size="size", source=dots, color=palette.OBSERVED)
    circle.add_layout(
        LabelSet(
            x="x", y="y", text="k", source=dots, x_offset=8, text_font_size=kit.PT[palette.SMALL]
        )
    )
    arrow = ColumnDataSource({"x": [0.0, 1.0], "y": [0.0, 0.0]}, name="arrow")
    circle.line("x", "y", source=arrow, color=palette.QUERY, line_width=2)
    bars = kit.plot(
        width=420, height=380, x_range=keys, y_range=(0, 1.05), title="each key's share a_i"
    )
    shares = ColumnDataSource({"k": keys, "w": np.zeros(len(keys))}, name="shares")
    bars.vbar("k", top="w", width=0.7, source=shares, color=palette.OBSERVED)
    out = kit.plot(
        width=800, height=240, x_axis_label="query angle (degrees)", y_axis_label="output o"
    )
    out.line(angles, ds["output"].values, color=palette.RESULT, line_width=2, legend_label="output")
    out.line(
        angles,
        ds["hard_output"].values,
        color=palette.GREY,
        line_dash="dashed",
        legend_label="hard lookup",
    )
    marker = Span(location=0, dimension="height", line_color=palette.QUERY)
    out.add_layout(marker)
    rad = np.deg2rad(angles)
    pg = kit.Page()
    a = pg.handle(
        "angle",
        angles,
        circle_angles[0],
        label="query angle (°)",
        plot=circle,
        xs=np.cos(rad),
        ys=np.sin(rad),
    )
    at = {"beta": circle_beta, "angle": a.ref()}
    pg.column(shares, "w", "soft_dictionary_circle", "weight", {**at, "key": keys}, "key")
    pg.text("o", "output o", "soft_dictionary_circle", "output", at, fmt=".4f")
    pg.text("hard", "hard lookup", "soft_dictionary_circle", "hard_output", at, fmt=".4f")
    pg.text("top", "largest share", "soft_dictionary_circle", "top_weight", at, fmt=".4f")
    pg.name(marker, "marker")
    pg.js(
        """
const th = V.angle[st.angle] * Math.PI / 180, w = M.shares.data.w;
M.dots.data = Object.assign({}, M.dots.data, {w: Array.from(w),
                            size: Array.from(w, x => 6 + 40 * Math.sqrt(x))});
M.arrow.data = {x: [0, Math.cos(th)], y: [0, Math.sin(th)]};
M.marker.location = V.angle[st.angle];
"""
    )
    pg.note = "Drag the copper ring round the circle (the cube's query angles, every 15°)."
    return pg.finish_layout(column(row(circle, bars), out))


@page("memory-math/ch6-temperature", handles={"beta": "slider"}, line=29)
def temperature(cubes, temperature_angle, temperature_max_beta):
    ds = cubes["soft_dictionary_circle"].sel(angle=temperature_angle)
    betas = [b for b in ds["beta"].values if b <= temperature_max_beta]
    keys = [str(k) for k in ds["key"].values]
    shares = ColumnDataSource({"k": keys, "w": np.zeros(len(keys))}, name="shares")
    bars = kit.plot(
        width=480,
        height=360,
        x_range=keys,
        y_range=(0, 1.05),
        title=f"shares of a query at {temperature_angle}°",
    )
    bars.vbar("k", top="w", width=0.7, source=shares, color=palette.OBSERVED)
    bars.add_layout(
        Span(location=1 / len(keys), dimension="width", line_color=palette.GREY, line_dash="dashed")
    )
    sweep = kit.plot(width=420, height=360, x_axis_label="β", y_axis_label="output o")
    sub = ds.sel(beta=betas)
    sweep.line(betas, sub["output"].values, color=palette.RESULT, line_width=2)
    marker = Span(location=0, dimension="height", line_color=palette.GREY, line_dash="dotted")
    sweep.add_layout(marker)
    pg = kit.Page()
    b = pg.handle("beta", betas, betas[0], label="β")
    at = {"angle": temperature_angle, "beta": b.ref()}
    pg.column(shares, "w", "soft_dictionary_circle", "weight", {**at, "key": keys}, "key")
    pg.text("o", "output o", "soft_dictionary_circle", "output", at, fmt=".4f")
    pg.text("top", "largest share", "soft_dictionary_circle", "top_weight", at, fmt=".4f")
    pg.text("gap", "largest gap from 1/7", "soft_dictionary_circle", "uniform_gap", at, fmt=".4f")
    pg.name(marker, "marker")
    pg.js("M.marker.location = V.beta[st.beta];")
    return pg.finish_layout(row(bars, sweep))


@page("memory-math/ch6-rank-lift", handles={"beta": "slider"}, line=34)
def rank_lift(cubes, example_n, example_d_k):
    ds = cubes["attention_matrix_views"].sel(n=example_n, d_k=example_d_k)
    betas = ds["beta"].values
    n = ds.sizes["row"]
    rr, cc = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    plots, sources = [], {}
    for name, colour, title in (
        ("scores", palette.OBSERVED, "scores QKᵀ (rank 2)"),
        ("attention", palette.STORED, "attention A"),
    ):
        src = ColumnDataSource(
            {"r": rr.ravel(), "c": cc.ravel(), "v": np.zeros(rr.size), "a": np.zeros(rr.size)},
            name=name,
        )
        p = kit.plot(
            width=360, height=360, x_range=(-0.5, n - 0.5), y_range=(n - 0.5, -0.5), title=title
        )
        p.axis.visible = False
        p.rect("c", "r", 0.95, 0.95, source=src, fill_color=colour, fill_alpha="a", line_color=None)
        plots.append(p)
        sources[name] = src
    pg = kit.Page()
    b = pg.handle("beta", betas, 1.0, label="β")
    rc = {"row": ds["row"].values, "col": ds["col"].values}
    pg.column(
        sources["scores"],
        "v",
        "attention_matrix_views",
        "example_scores",
        {"n": example_n, "d_k": example_d_k, **rc},
        ("row", "col"),
    )
    at = {"n": example_n, "d_k": example_d_k, "beta": b.ref()}
    pg.column(
        sources["attention"],
        "v",
        "attention_matrix_views",
        "example_attention",
        {**at, **rc},
        ("row", "col"),
    )
    pg.text(
        "rank",
        "numerical rank of A",
        "attention_matrix_views",
        "example_attention_rank",
        at,
        fmt="d",
    )
    pg.text(
        "top",
        "mean largest share of a row",
        "attention_matrix_views",
        "example_top_share",
        at,
        fmt=".4f",
    )
    pg.js(
        """
for (const src of [M.scores, M.attention]) {
  const d = Object.assign({}, src.data), top = Math.max(...Array.from(d.v, Math.abs)) || 1;
  d.a = Array.from(d.v, v => Math.abs(v) / top);
  src.data = d;
}
"""
    )
    return pg.finish_layout(row(*plots))


@page("memory-math/ch7-key-training", handles={"step": "slider"}, line=43)
def key_training(cubes):
    ds = cubes["attention_gradients"].isel(seed=0)
    steps = ds["step"].values
    keys = [str(k) for k in ds["key"].values]
    shares = ColumnDataSource(
        {
            "k": keys,
            "w": np.zeros(len(keys)),
            "angle": np.zeros(len(keys)),
            "colour": [palette.GREY, palette.OBSERVED, palette.GREY],
        },
        name="shares",
    )
    bars = kit.plot(
        width=380, height=340, x_range=keys, y_range=(0, 1.05), title="each key's share"
    )
    bars.vbar("k", top="w", width=0.7, source=shares, color="colour")
    circle = _circle("dial", "angle of each key to the query (copper)")
    circle.line([0, 1], [0, 0], color=palette.QUERY, line_width=2)
    ends = ColumnDataSource(
        {
            "x": np.zeros(len(keys)),
            "y": np.zeros(len(keys)),
            "k": keys,
            "colour": [palette.GREY, palette.OBSERVED, palette.GREY],
        },
        name="ends",
    )
    circle.segment(0, 0, "x", "y", source=ends, color="colour", line_width=2)
    circle.add_layout(
        LabelSet(
            x="x", y="y", text="k", source=ends, x_offset=6, text_font_size=kit.PT[palette.SMALL]
        )
    )
    out = kit.plot(
        width=380, height=340, x_axis_label="gradient steps on the keys", y_axis_label="output o"
    )
    out.line(steps, ds["walk_output"].values, color=palette.RESULT, line_width=2)
    out.add_layout(
        Span(location=1.0, dimension="width", line_color=palette.STORED, line_dash="dashed")
    )
    marker = Span(location=0, dimension="height", line_color=palette.QUERY)
    out.add_layout(marker)
    pg = kit.Page()
    s = pg.handle("step", steps, 20, label="steps")
    at = {"seed": 0, "step": s.ref(), "key": keys}
    pg.column(shares, "w", "attention_gradients", "walk_weight", at, "key")
    pg.column(shares, "angle", "attention_gradients", "walk_angle", at, "key")
    pg.text(
        "o",
        "output o",
        "attention_gradients",
        "walk_output",
        {"seed": 0, "step": s.ref()},
        fmt=".4f",
    )
    pg.name(marker, "marker")
    pg.js(
        """
const ang = M.shares.data.angle, sign = [1, -1, 1];  // drawn on alternate sides of q
M.ends.data = Object.assign({}, M.ends.data, {
  x: Array.from(ang, a => Math.cos(a * Math.PI / 180)),
  y: Array.from(ang, (a, k) => sign[k] * Math.sin(a * Math.PI / 180))});
M.marker.location = V.step[st.step];
"""
    )
    pg.note = "Our three unit keys (the target 1.0 is held by k2); the dial shows unsigned angles."
    return pg.finish_layout(row(bars, circle, out))
