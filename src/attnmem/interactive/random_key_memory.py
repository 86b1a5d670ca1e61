"""Interactive pages of first-principles Part B: the state a prediction needs as the gap grows
(B1), a gradient sent back through time at a chosen gain (B2), the random-key memory filling up
(B3), and keeping every pair against compressing them (B4); and memory-math chapter 3's recall
bars."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column
from bokeh.models import BoxAnnotation, ColumnDataSource, Span

from .. import palette
from ..views import page
from . import kit

MEMORY_D = 32  # the width of B3's closed form and of B4's fixed state (as the figure module)
FAR = 48  # the distance of the final name at L = 40 (B2)


@page("first-principles/B1-future-states", handles={"L": "drag"}, line=338)
def future_states(cubes, names_N, fillers_F, enumerated_F, shown_L, default_L):
    ds = cubes["future_states"].sel(N=names_N, F=fillers_F)
    gaps = ds["L"].values
    t = ds["t"].values
    plateau = ds["plateau_nats"].values
    steps = ColumnDataSource({"t": t, "nats": np.zeros(len(t))}, name="steps")
    band = BoxAnnotation(left=4.5, right=4.5 + default_L, fill_color=palette.GREY, fill_alpha=0.15)
    p = kit.plot(
        width=900,
        height=330,
        name="futures",
        x_range=(-0.5, len(t) + 1),
        y_range=(-0.1, 4.8),
        x_axis_label="tokens read t",
        y_axis_label="state needed, ln(distinct futures) (nats)",
    )
    p.add_layout(band)
    p.step("t", "nats", source=steps, mode="after", color=palette.STORED, line_width=2.5)
    for y in (np.log(8), np.log(56)):
        p.add_layout(
            Span(location=y, dimension="width", line_color=palette.GREY, line_dash="dotted")
        )
    pg = kit.Page()
    pg.handle("L", gaps, default_L, label="gap L", plot=p, xs=4.5 + gaps, ys=plateau)
    sel = {"N": names_N, "F": fillers_F, "L": "$L"}
    pg.column(steps, "nats", "future_states", "state_nats", sel, "t")
    pg.text("plateau", "plateau", "future_states", "plateau_nats", sel, fmt=".4f", unit="nats")
    pg.text("bits", "that is", "future_states", "plateau_bits", sel, fmt=".3f", unit="bits")
    pg.text("first", "after the first name", "future_states", "first_name_nats", sel, fmt=".4f")
    pg.text("distance", "copy distance", "future_states", "copy_distance", sel, fmt="d")
    pg.name(band, "band")
    pg.js("M.band.right = 4.5 + V.L[st.L];")
    pg.note = (
        "Drag the ring at the end of the shaded filler band: the line gets longer, not higher."
    )
    return pg.finish_layout(p)


@page("first-principles/B2-gradient-through-time", handles={"g": "slider"}, line=366)
def gradient_through_time(cubes, shown_g):
    ds = cubes["gradient_through_time"]
    gains = ds["g"].values
    dist = ds["D"].values
    zeros = np.zeros(len(dist))
    src = ColumnDataSource(
        {"D": dist, "linear": zeros, "median": zeros, "low": zeros, "high": zeros, "gate": zeros},
        name="curves",
    )
    p = kit.plot(
        width=760,
        height=380,
        y_axis_type="log",
        y_range=(1e-16, 1e3),
        x_axis_label="distance D (steps)",
        y_axis_label="gradient size (log scale)",
    )
    p.varea("D", "low", "high", source=src, fill_color="black", fill_alpha=0.15)
    p.line(
        "D", "linear", source=src, color=palette.STORED, line_width=2, legend_label="linear, g^D"
    )
    p.line("D", "median", source=src, color=palette.INK, legend_label="tanh, median of 20 nets")
    p.line(
        "D",
        "gate",
        source=src,
        color=palette.RESULT,
        line_dash="dashed",
        legend_label="forget gate 0.99",
    )
    p.add_layout(
        Span(location=FAR, dimension="height", line_color=palette.LIMIT, line_dash="dotted")
    )
    p.legend.location = "bottom_left"
    pg = kit.Page()
    pg.handle("g", gains, 1.0, label="gain g")
    one = {"g": "$g", "seed": 0}
    for col, var in (
        ("linear", "linear_exact"),
        ("median", "tanh_median"),
        ("low", "tanh_min"),
        ("high", "tanh_max"),
    ):
        pg.column(src, col, "gradient_through_time", var, one, "D")
    pg.column(src, "gate", "gradient_through_time", "gate_path", {**one, "forget": 0.99}, "D")
    at = {**one, "D": FAR}
    pg.text("linear48", "linear at D = 48", "gradient_through_time", "linear_exact", at, fmt=".4g")
    pg.text(
        "tanh48", "tanh median at D = 48", "gradient_through_time", "tanh_median", at, fmt=".4g"
    )
    return pg.finish_layout(p)


@page("first-principles/B3-random-key-memory", handles={"load": "drag"}, line=419)
def random_key_memory(cubes):
    ds = cubes["random_key_memory"]
    loads = ds["load"].values
    widths = ds["d"].values
    gauss = ds["accuracy_gaussian"].sel(d=MEMORY_D).isel(seed=0).values
    top = kit.plot(
        width=700,
        height=300,
        name="accuracy",
        y_range=(0, 1.05),
        y_axis_label="P(right name)",
        x_axis_label="stored pairs per key dimension, m/d",
    )
    bottom = kit.plot(
        width=700,
        height=260,
        x_range=top.x_range,
        y_axis_label="interference / signal (rms)",
        x_axis_label="stored pairs per key dimension, m/d",
    )
    for alpha, d in zip((0.35, 0.55, 0.8, 1.0), widths, strict=True):
        one = ds.sel(d=d)
        top.scatter(
            loads,
            one["accuracy"].mean("seed").values,
            color=palette.OBSERVED,
            alpha=alpha,
            size=5,
            legend_label=f"simulated, d = {d}",
        )
        bottom.scatter(
            loads,
            one["noise_ratio"].mean("seed").values,
            color=palette.OBSERVED,
            alpha=alpha,
            size=5,
        )
        bottom.line(
            loads, one["noise_ratio_formula"].isel(seed=0).values, color=palette.STORED, alpha=alpha
        )
    top.line(loads, gauss, color=palette.STORED, line_width=2, legend_label="Gaussian form, d = 32")
    top.add_layout(
        Span(location=1 / 8, dimension="width", line_color=palette.LIMIT, line_dash="dotted")
    )
    top.legend.location = "top_right"
    pg = kit.Page()
    pg.handle("load", loads, 1.0, label="m/d", plot=top, xs=loads, ys=gauss)
    mean = {"mean": "seed"}
    for d in widths:
        pg.text(
            f"acc{d}",
            f"P(right), d = {d}",
            "random_key_memory",
            "accuracy",
            {"d": d, "load": "$load"},
            reduce=mean,
            fmt=".3f",
        )
    at = {"d": MEMORY_D, "load": "$load"}
    pg.text(
        "gauss",
        "Gaussian form, d = 32",
        "random_key_memory",
        "accuracy_gaussian",
        {**at, "seed": 0},
        fmt=".3f",
    )
    pg.text(
        "ratio",
        "interference/signal, d = 32",
        "random_key_memory",
        "noise_ratio",
        at,
        reduce=mean,
        fmt=".3f",
    )
    pg.text(
        "formula",
        "sqrt((m-1)/d)",
        "random_key_memory",
        "noise_ratio_formula",
        {**at, "seed": 0},
        fmt=".3f",
    )
    pg.text("m", "m at d = 32", "random_key_memory", "m_pairs", {**at, "seed": 0}, fmt="d")
    return pg.finish_layout(column(top, bottom))


@page("first-principles/B4-keep-every-pair", handles={"m": "drag"}, line=438)
def keep_every_pair(cubes):
    ds = cubes["random_key_memory"].sel(d=MEMORY_D)
    loads = ds["load"].values
    m = ds["m_pairs"].isel(seed=0).values
    fixed = ds["accuracy"].mean("seed").values
    top = kit.plot(
        width=700,
        height=300,
        name="accuracy",
        y_range=(0, 1.05),
        x_axis_label="stored pairs m",
        y_axis_label="P(right name)",
    )
    top.line(
        m,
        fixed,
        color=palette.OBSERVED,
        line_dash="dashed",
        line_width=2,
        legend_label="fixed state, d = 32 (simulated)",
    )
    top.line(
        m,
        ds["lookback_accuracy"].mean("seed").values,
        color=palette.RESULT,
        line_width=2,
        legend_label="look back over every key",
    )
    top.legend.location = "bottom_left"
    sizes = ColumnDataSource(
        {
            "y": ["fixed state", "every key and value"],
            "right": [0.0, 0.0],
            "colour": [palette.OBSERVED, palette.LIMIT],
        },
        name="sizes",
    )
    full = float(ds["kept_numbers"].sel(load=loads[-1]).isel(seed=0))
    bars = kit.plot(
        width=700,
        height=170,
        y_range=["every key and value", "fixed state"],
        x_range=(0, full * 1.1),
        x_axis_label="numbers kept at the chosen m",
    )
    bars.hbar("y", right="right", height=0.6, color="colour", fill_alpha=0.6, source=sizes)
    bars.add_layout(
        Span(location=full, dimension="height", line_color=palette.LIMIT, line_dash="dashed")
    )
    pg = kit.Page()
    pg.handle(
        "m", loads, 1.0, label="m/d", labels=[f"{int(v)}" for v in m], plot=top, xs=m, ys=fixed
    )
    pg.text(
        "fixed",
        "fixed state, P(right)",
        "random_key_memory",
        "accuracy",
        {"d": MEMORY_D, "load": "$m"},
        reduce={"mean": "seed"},
        fmt=".3f",
    )
    pg.text(
        "back",
        "look back, P(right)",
        "random_key_memory",
        "lookback_accuracy",
        {"d": MEMORY_D, "load": "$m"},
        reduce={"mean": "seed"},
        fmt=".3f",
    )
    pg.text(
        "state",
        "fixed state keeps",
        "random_key_memory",
        "state_numbers",
        {"d": MEMORY_D, "seed": 0},
        fmt="d",
    )
    pg.text(
        "kept",
        "every pair keeps",
        "random_key_memory",
        "kept_numbers",
        {"d": MEMORY_D, "load": "$m", "seed": 0},
        fmt="d",
    )
    pg.js(
        "const a = +document.getElementById('r-state').dataset.value,"
        " b = +document.getElementById('r-kept').dataset.value;"
        " M.sizes.data = Object.assign({}, M.sizes.data, {right: [a, b]});"
    )
    return pg.finish_layout(column(top, bars))


@page("memory-math/ch3-recall-bars", handles={"M": "slider"}, line=14)
def recall_bars(cubes):
    ds = cubes["random_key_memory"].isel(seed=0)
    shown = ds["shown_m"].values
    top = int(shown.max())
    src = ColumnDataSource(
        {
            "i": np.arange(1, top + 1),
            "w": np.zeros(top),
            "colour": [palette.QUERY] + [palette.OBSERVED] * (top - 1),
        },
        name="bars",
    )
    p = kit.plot(
        width=820,
        height=320,
        name="recall",
        x_range=(0.3, top + 0.7),
        x_axis_label="stored pair i",
        y_axis_label="weight k_i · k_1 in the recall",
    )
    p.vbar("i", top="w", width=0.8, source=src, color="colour")
    pg = kit.Page()
    m = pg.handle("M", shown, shown[0], label="stored memories M")
    at = {"seed": 0, "shown_m": m.ref(), "pair": np.arange(top)}
    pg.column(src, "w", "random_key_memory", "recall_weights", at, "pair")
    pg.js(
        """
M.recall.x_range.end = V.M[st.M] + 0.7;
"""
    )
    pg.note = "One random draw per number of memories, as the cube keeps them (M = 4, 16, 32, 64)."
    return pg.finish_layout(p)
