"""Interactive pages of the capacity of a read: first-principles D5 (drag the softmax read's
crossing along the line at 1 to change beta) and memory-math chapter 6 (drag the key width)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColumnDataSource, Span

from .. import palette
from ..views import page
from . import kit

# The interference over signal of a read whose capacity is c, squared: (m - 1)/(c - 1). The page
# draws the root of it on a fine grid of m and checks it at the simulated m.
CURVE = "(m - 1) / (c - 1)"
SCORES = {
    "hebbian": ("linear (Hebbian)", palette.OBSERVED),
    "relu": ("ReLU", palette.GREY),
    "relu2": ("ReLU²", palette.QUERY),
    "relu3": ("ReLU³", palette.RESULT),
    "softmax_sqrt_d": ("softmax, β = √d", palette.STORED),
}


@page("first-principles/D5-softmax-capacity", handles={"beta": "drag"}, line=1050)
def softmax_capacity_d5(cubes, check_d, capacity_widths):
    cap = cubes["softmax_capacity"].sel(d=check_d)
    mc = cubes["softmax_interference_mc"].sel(d=check_d)
    betas = cap["beta"].values
    sampled = [float(b) for b in mc["beta"].values]
    capacity = cap["capacity_exact"].values
    fine = np.logspace(np.log10(2), 7, 120)
    m = mc["m"].values
    p = kit.plot(
        width=620,
        height=420,
        name="ratio",
        x_axis_type="log",
        y_axis_type="log",
        y_range=(1e-3, 30),
        x_range=(2, 1e7),
        x_axis_label="stored pairs m",
        y_axis_label="interference / signal (root mean square)",
    )
    hebb = float(cubes["softmax_capacity"]["score_capacity"].sel(d=check_d, score="hebbian"))
    p.line(
        fine,
        np.sqrt((fine - 1) / (hebb - 1)),
        color=palette.OBSERVED,
        legend_label=f"linear read (crosses at {hebb:.0f})",
    )
    p.scatter(m, np.sqrt(mc["ratio_hebbian"].mean("seed").values), color=palette.OBSERVED, size=5)
    curve = ColumnDataSource({"m": fine, "r": np.zeros(len(fine))}, name="curve")
    p.line(
        "m",
        "r",
        source=curve,
        color=palette.STORED,
        line_width=2.5,
        legend_label="softmax read at the chosen β",
    )
    at_m = ColumnDataSource(
        {"m": m, "sq": np.zeros(len(m)), "r": np.zeros(len(m)), "mc": np.zeros(len(m))},
        name="points",
    )
    p.scatter(
        "m",
        "mc",
        source=at_m,
        color=palette.STORED,
        size=6,
        legend_label="simulated (at the sampled β)",
    )
    p.add_layout(Span(location=1, dimension="width", line_color=palette.LIMIT, line_dash="dashed"))
    side = kit.plot(
        width=380,
        height=420,
        y_axis_type="log",
        x_axis_label="inverse temperature β",
        y_axis_label="capacity m* (pairs)",
    )
    for d, dash in zip(capacity_widths, ("solid", "dashed"), strict=True):
        one = cubes["softmax_capacity"].sel(d=d)
        side.line(
            betas,
            one["capacity_exact"].values,
            color=palette.STORED,
            line_dash=dash,
            legend_label=f"exact, d = {d}",
        )
        side.line(
            betas,
            one["capacity_gauss"].values,
            color=palette.QUERY,
            line_dash=dash,
            legend_label=f"Gaussian form, d = {d}",
        )
    marker = Span(location=4, dimension="height", line_color=palette.GREY, line_dash="dotted")
    side.add_layout(marker)
    side.legend.location = "top_left"
    pg = kit.Page()
    b = pg.handle("beta", betas, 4.0, label="β", plot=p, xs=capacity, ys=np.ones(len(betas)))
    at = {"d": check_d, "beta": b.ref()}
    pg.text(
        "capacity",
        "capacity (exact)",
        "softmax_capacity",
        "capacity_exact",
        at,
        fmt=".6g",
        unit="pairs",
    )
    pg.text(
        "gauss", "Gaussian form", "softmax_capacity", "capacity_gauss", at, fmt=".6g", unit="pairs"
    )
    pg.column(
        at_m,
        "sq",
        "softmax_interference_mc",
        "ratio_softmax_exact",
        {**at, "seed": 0, "m": m},
        "m",
        computed=True,
        when={"beta": sampled},
    )
    pg.column(
        at_m,
        "mc",
        "softmax_interference_mc",
        "ratio_softmax",
        {**at, "m": m},
        "m",
        reduce={"mean": "seed"},
        when={"beta": sampled},
    )
    pg.name(marker, "marker")
    pg.js(
        f"""
const c = +document.getElementById('r-capacity').dataset.value, beta = V.beta[st.beta];
const sq = m => {CURVE};
setColumn(M.curve, 'r', Array.from(M.curve.data.m, m => Math.sqrt(sq(m))));
const d = Object.assign({{}}, M.points.data);
d.sq = Array.from(d.m, sq);
const SAMPLED = {kit.json_literal(sampled)};
if (SAMPLED.includes(beta)) d.r = Array.from(d.mc, Math.sqrt);
else {{ d.mc = Array.from(d.m, () => NaN); d.r = d.mc; }}
M.points.data = d;
M.marker.location = beta;
"""
    )
    pg.mutation(CURVE, "(m - 1) / c")
    pg.note = (
        f"d = {check_d}. Drag the violet ring along the line at 1: where the softmax read's "
        "curve crosses it is its capacity, and β follows. The curve is drawn in the page from "
        "the capacity; dots are simulated at β = 0, 1, 2, 4, 8."
    )
    return pg.finish_layout(row(p, side))


@page(
    "memory-math/ch6-capacity-over-d",
    handles={"d": "slider"},
    line=32,
    cubes=("softmax_interference_mc",),
)
def capacity_over_d(cubes, panel_widths, worked_d):
    cap = cubes["softmax_capacity"]
    widths = cap["d"].values
    simulated = [int(d) for d in cubes["softmax_interference_mc"]["d"].values]
    fine = np.logspace(0.3, 7, 120)
    p = kit.plot(
        width=760,
        height=440,
        x_axis_type="log",
        y_axis_type="log",
        y_range=(1e-3, 1e2),
        x_range=(2, 1e7),
        x_axis_label="stored pairs M",
        y_axis_label="interference / signal",
    )
    curves = ColumnDataSource(
        {"m": fine, **{s: np.zeros(len(fine)) for s in SCORES}}, name="curves"
    )
    for score, (label, colour) in SCORES.items():
        p.line("m", score, source=curves, color=colour, line_width=2, legend_label=label)
    p.add_layout(Span(location=1, dimension="width", line_color=palette.LIMIT, line_dash="dashed"))
    p.legend.location = "top_left"
    m = cubes["softmax_interference_mc"]["m"].values
    hebb = ColumnDataSource({"m": m, "sq": np.zeros(len(m))}, name="hebbian_check")
    pg = kit.Page()
    h = pg.handle("d", widths, worked_d, label="key width d")
    for score, (label, _) in SCORES.items():
        pg.text(
            score,
            label,
            "softmax_capacity",
            "score_capacity",
            {"d": h.ref(), "score": score},
            fmt=".6g",
        )
    pg.column(
        hebb,
        "sq",
        "softmax_interference_mc",
        "ratio_hebbian_exact",
        {"d": h.ref(), "seed": 0, "m": m},
        "m",
        computed=True,
        when={"d": simulated},
    )
    pg.js(
        f"""
const S = {kit.json_literal(list(SCORES))};
const cap = s => +document.getElementById('r-' + s).dataset.value;
const data = Object.assign({{}}, M.curves.data);
for (const s of S) {{ const c = cap(s); data[s] = Array.from(data.m, m => Math.sqrt({CURVE})); }}
M.curves.data = data;
const c = cap('hebbian');
setColumn(M.hebbian_check, 'sq', Array.from(M.hebbian_check.data.m, m => {CURVE}));
"""
    )
    pg.mutation(CURVE, "(m - 1) / c")
    pg.note = "Each curve is drawn in the page from its read's capacity, printed below."
    return pg.finish_layout(p)
