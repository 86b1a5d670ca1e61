"""Interactive pages of first-principles D1-D2 and memory-math chapter 5: the weights a read puts
on every stored value as pairs are added (Hebbian against least squares), the one-fact edit as
the keys grow uneven, and the leak of four scores as memories are added."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, Span

from .. import palette
from ..views import page
from . import kit


def _weight_bars(title: str, name: str, size: int):
    src = ColumnDataSource(
        {
            "pair": np.arange(1, size + 1),
            "w": np.zeros(size),
            "colour": [palette.QUERY] + [palette.OBSERVED] * (size - 1),
        },
        name=name,
    )
    p = kit.plot(
        width=820,
        height=220,
        title=title,
        y_range=(-1.05, 1.2),
        x_axis_label="stored pair",
        y_axis_label="weight in the read of pair 1",
    )
    p.vbar("pair", top="w", width=0.8, source=src, color="colour")
    return p, src


@page("first-principles/D1-store-weights", handles={"m": "slider"}, line=756)
def store_weights(cubes, store_d, shown_m):
    ds = cubes["linear_store_errors"].sel(d=store_d)
    ms = ds["m"].values
    size = int(ms.max())
    hebb, hebb_src = _weight_bars("Hebbian write: the other weights are key overlaps", "hebb", size)
    lsq, lsq_src = _weight_bars(
        "least-squares write: zero until the pairs outnumber d", "lsq", size
    )
    lsq.x_range = hebb.x_range
    errors = kit.plot(
        width=820,
        height=260,
        x_axis_type="log",
        y_axis_type="log",
        x_axis_label="stored pairs m",
        y_axis_label="squared error of a read",
    )
    for var, exp, colour, label in (
        ("hebb_err", "hebb_err_expected", palette.OBSERVED, "Hebbian"),
        ("lsq_err", "lsq_err_expected", palette.RESULT, "least squares"),
    ):
        errors.scatter(
            ms,
            ds[var].mean("seed").values,
            color=colour,
            size=5,
            legend_label=f"{label}, mean of seeds",
        )
        errors.line(ms, ds[exp].isel(seed=0).values, color=colour, legend_label=f"{label}, exact")
    errors.add_layout(
        Span(location=1, dimension="width", line_color=palette.LIMIT, line_dash="dashed")
    )
    marker = Span(location=8, dimension="height", line_color=palette.GREY, line_dash="dotted")
    errors.add_layout(marker)
    errors.legend.location = "bottom_right"
    pg = kit.Page()
    m = pg.handle("m", ms, 8, label="stored pairs m")
    draw = {"d": store_d, "m": m.ref(), "seed": 0, "pair": np.arange(size)}
    pg.column(hebb_src, "w", "linear_store_errors", "hebb_weights_draw", draw, "pair")
    pg.column(lsq_src, "w", "linear_store_errors", "lsq_weights_draw", draw, "pair")
    one = {"d": store_d, "m": m.ref(), "seed": 0}
    pg.text(
        "hebb_draw",
        "Hebbian, this draw's error",
        "linear_store_errors",
        "hebb_err_draw",
        one,
        fmt=".3f",
    )
    pg.text("hebb_exp", "exact mean", "linear_store_errors", "hebb_err_expected", one, fmt=".3f")
    pg.text(
        "lsq_draw",
        "least squares, this draw's error",
        "linear_store_errors",
        "lsq_err_draw",
        one,
        fmt=".3f",
    )
    pg.text("lsq_exp", "exact mean", "linear_store_errors", "lsq_err_expected", one, fmt=".3f")
    pg.name(marker, "marker")
    pg.js(
        """
const m = V.m[st.m];
M.marker.location = m;
"""
    )
    pg.note = f"One random store in d = {store_d} dimensions (the first seed), read with key 1."
    return pg.finish_layout(column(hebb, lsq, errors))


@page("first-principles/D2-rank-one-edit", handles={"u": "drag"}, line=860)
def rank_one_edit(cubes):
    ds = cubes["memory_edit_checks"]
    u = ds["unevenness"].values
    keys = ds["key"].values
    plane = kit.plot(
        width=420,
        height=420,
        x_range=(-3.2, 3.2),
        y_range=(-3.2, 3.2),
        match_aspect=True,
        x_axis_label="along k* (copper)",
        y_axis_label="across, in the edit plane",
    )
    pts = ColumnDataSource(
        {
            "x": np.zeros(len(keys)),
            "y": np.zeros(len(keys)),
            "ring": np.zeros(len(keys)),
            "disc": np.zeros(len(keys)),
            "ring_r": np.zeros(len(keys)),
            "disc_r": np.zeros(len(keys)),
        },
        name="keys",
    )
    plane.segment(-3.2, 0, 3.2, 0, color=palette.QUERY)
    violet = ColumnDataSource({"x": [-3.2, 3.2], "y": [0.0, 0.0]}, name="violet")
    plane.line("x", "y", source=violet, color=palette.STORED, line_width=1.5)
    plane.circle(
        "x",
        "y",
        radius="ring_r",
        source=pts,
        fill_color=None,
        line_color=palette.GREY,
        line_width=1.2,
    )
    plane.circle(
        "x",
        "y",
        radius="disc_r",
        source=pts,
        fill_color=palette.STORED,
        fill_alpha=0.5,
        line_color=None,
    )
    plane.scatter("x", "y", source=pts, size=5, color=palette.OBSERVED)
    totals = kit.plot(
        width=460,
        height=420,
        name="totals",
        x_axis_label="unevenness u",
        y_axis_label="total change over the ten keys",
    )
    naive = ds["sweep_naive_total"].values
    totals.line(u, naive, color=palette.GREY, line_width=2, legend_label="naive edit (rings)")
    totals.line(
        u,
        ds["sweep_opt_total"].values,
        color=palette.STORED,
        line_width=2,
        legend_label="preconditioned edit (discs)",
    )
    totals.legend.location = "top_left"
    pg = kit.Page()
    h = pg.handle("u", u, 4.0, label="unevenness u", plot=totals, xs=u, ys=naive)
    at = {"unevenness": h.ref()}
    pg.column(
        pts,
        "x",
        "memory_edit_checks",
        "sweep_keys_plane",
        {**at, "plane_axis": "along_kstar", "key": keys},
        "key",
    )
    pg.column(
        pts,
        "y",
        "memory_edit_checks",
        "sweep_keys_plane",
        {**at, "plane_axis": "across", "key": keys},
        "key",
    )
    pg.column(pts, "ring", "memory_edit_checks", "sweep_naive_change", {**at, "key": keys}, "key")
    pg.column(pts, "disc", "memory_edit_checks", "sweep_opt_change", {**at, "key": keys}, "key")
    pg.text(
        "ratio", "preconditioned over naive", "memory_edit_checks", "sweep_ratio", at, fmt=".3f"
    )
    pg.text(
        "angle",
        "long axis off the violet line",
        "memory_edit_checks",
        "sweep_angle",
        at,
        fmt=".2f",
        unit="degrees (— for a round cloud)",
    )
    pg.text("naive", "naive total", "memory_edit_checks", "sweep_naive_total", at, fmt=".3f")
    pg.text("opt", "preconditioned total", "memory_edit_checks", "sweep_opt_total", at, fmt=".3f")
    directions = [ds["sweep_violet_dir"].sel(unevenness=x).values.tolist() for x in u]
    pg.js(
        f"""
const DIR = {kit.json_literal(directions)}, v = DIR[st.u];
M.violet.data = {{x: [-3.2 * v[0], 3.2 * v[0]], y: [-3.2 * v[1], 3.2 * v[1]]}};
const d = Object.assign({{}}, M.keys.data);
d.ring_r = Array.from(d.ring, r => 0.35 * r); d.disc_r = Array.from(d.disc, r => 0.35 * r);
M.keys.data = d;  // the figure's scale: a radius of 0.35 per unit of change
"""
    )
    pg.note = "Drag the ring along the naive total: the keys flatten, the discs shrink."
    return pg.finish_layout(row(plane, totals))


SCORES = {
    "linear": ("linear", palette.GREY, 0),
    "relu": ("ReLU", palette.OBSERVED, 1),
    "relu2": ("ReLU²", palette.STORED, 2),
    "relu3": ("ReLU³", palette.RESULT, 3),
}


@page("memory-math/ch5-score-leak", handles={"M": "slider"}, line=25)
def score_leak(cubes, leak_d):
    sim = cubes["score_interference"].sel(d=leak_d).isel(seed=0)
    memory = sim["memory"].values
    top = int(sim["M"].values.max())
    grid = [int(m) for m in sim["M"].values]
    dots = ColumnDataSource({"i": memory + 1, "s": np.zeros(len(memory))}, name="dots")
    panels, sources = [], {}
    for score, (label, colour, _) in SCORES.items():
        src = ColumnDataSource({"i": memory + 1, "w": np.zeros(len(memory))}, name=f"w_{score}")
        p = kit.plot(
            width=440,
            height=200,
            title=label,
            y_range=(-0.8, 1.1),
            x_range=(-1, 40),
            name=f"panel_{score}",
        )
        p.vbar(x=[0], top=[1.0], width=0.8, color=palette.QUERY)
        p.segment("i", 0, "i", "w", source=src, color=colour, line_width=1.5)
        panels.append(p)
        sources[score] = src
    isr = ColumnDataSource({"score": list(SCORES), "isr": np.zeros(len(SCORES))}, name="isr")
    pg = kit.Page()
    h = pg.handle("M", range(2, top + 1), 32, label="stored memories M")
    pg.column(
        dots,
        "s",
        "score_interference",
        "draw_dots",
        {"d": leak_d, "seed": 0, "memory": memory},
        "memory",
    )
    pg.column(
        isr,
        "isr",
        "score_interference",
        "draw_isr",
        {"d": leak_d, "seed": 0, "M": h.ref(), "score": list(SCORES)},
        "score",
        computed=True,
        when={"M": grid},
    )
    for score, (label, _, _) in SCORES.items():
        pg.text(
            score,
            f"{label}: interference / signal",
            "score_interference",
            "draw_isr",
            {"d": leak_d, "seed": 0, "M": h.ref(), "score": score},
            fmt=".4f",
            computed=True,
            when={"M": grid},
        )
    powers = {s: p for s, (_, _, p) in SCORES.items()}
    pg.js(
        f"""
const m = V.M[st.M], s = M.dots.data.s, P = {kit.json_literal(powers)};
const ratios = [];
for (const [name, p] of Object.entries(P)) {{
  // each of the m - 1 other memories weighs its score of its overlap with the query
  const w = Array.from(s, (x, k) => (k < m - 1 ? (p === 0 ? x : Math.max(x, 0) ** p) : NaN));
  setColumn(M['w_' + name], 'w', w);
  let sq = 0;
  for (let k = 0; k < m - 1; k++) sq += w[k] * w[k];
  ratios.push(Math.sqrt(sq));
  put(name, Math.sqrt(sq));
}}
setColumn(M.isr, 'isr', ratios);
for (const name of Object.keys(P)) M['panel_' + name].x_range.end = m + 0.5;
"""
    )
    pg.mutation("sq += w[k] * w[k]", "sq += Math.abs(w[k])")
    pg.note = (
        f"One draw of random unit keys in d = {leak_d}; the target (copper) weighs one. The "
        "page computes each score's weights and the ratio from the draw's 1,023 overlaps."
    )
    return pg.finish_layout(column(row(*panels[:2]), row(*panels[2:])))
