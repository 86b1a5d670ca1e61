"""Interactive pages of the fast memory: the Flo prompt written token by token into a small state
and read two ways, the readers against the gap, four stores against the number of pairs, the
error by age under a decay (first-principles D3-D4), and memory-math's figures of chapters 4, 9
and 10."""

from __future__ import annotations

import json

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..views import page
from . import kit

READERS = {
    "hebbian": ("add (Hebbian)", palette.LIMIT),
    "least_squares": ("least squares", palette.RESULT),
    "delta": ("delta rule, one pass", palette.QUERY),
    "softmax": ("softmax cache", palette.OBSERVED),
}
DEFAULT_GAP = 6  # the Flo prompt's gap, where the rings open (as the figure module)
DEFAULT_GAMMA = 0.9  # the decay of the Check


@page("first-principles/D3-two-readers", handles={"step": "drag"}, line=901)
def two_readers(cubes):
    ds = cubes["fast_weight_algebra"].isel(seed=0)
    words = list(kit.figure_constant("fast_weights", "FLO_WORDS"))
    steps = ds["step"].values
    n = ds.sizes["row"]
    rr, cc = np.meshgrid(ds["row"].values, ds["col"].values, indexing="ij")
    cells = ColumnDataSource(
        {
            "r": rr.ravel(),
            "c": cc.ravel(),
            "v": np.zeros(rr.size),
            "fill": ["white"] * rr.size,
            "alpha": np.zeros(rr.size),
        },
        name="state",
    )
    heat = kit.plot(
        width=300,
        height=300,
        x_range=(-0.5, n - 0.5),
        y_range=(n - 0.5, -0.5),
        title="the 8 x 8 state",
        x_axis_label="key coordinate",
        y_axis_label="value coordinate",
    )
    heat.rect(
        "c", "r", 0.95, 0.95, source=cells, fill_color="fill", fill_alpha="alpha", line_color=None
    )
    curves = kit.plot(
        width=640,
        height=300,
        name="cosines",
        x_range=(-0.5, len(words) - 0.5),
        y_range=(-0.1, 1.05),
        y_axis_label="cosine with a name",
        x_axis_label="tokens written",
    )
    lin_true = ds["flo_cos_true"].sel(reader="linear").values
    for reader, dash in (("linear", "solid"), ("softmax", "dashed")):
        curves.line(
            steps,
            ds["flo_cos_true"].sel(reader=reader).values,
            color=palette.QUERY,
            line_dash=dash,
            legend_label=f"Flo, {reader} read",
        )
        curves.line(
            steps,
            ds["flo_cos_wrong"].sel(reader=reader).values,
            color=palette.GREY,
            line_dash=dash,
            legend_label=f"best other name, {reader} read",
        )
    curves.xaxis.ticker = list(steps)
    curves.xaxis.major_label_overrides = {int(s): w for s, w in zip(steps, words, strict=True)}
    curves.xaxis.major_label_orientation = 0.9
    bars_src = ColumnDataSource(
        {
            "x": ["linear: Flo", "linear: other", "softmax: Flo", "softmax: other"],
            "top": np.zeros(4),
            "colour": [palette.QUERY, palette.GREY] * 2,
        },
        name="bars",
    )
    bars = kit.plot(
        width=420,
        height=300,
        x_range=list(bars_src.data["x"]),
        y_range=(-0.1, 1.05),
        title="after the chosen token: the taller bar wins",
    )
    bars.vbar("x", top="top", width=0.7, source=bars_src, color="colour")
    pg = kit.Page()
    h = pg.handle(
        "step", steps, steps[-1], label="after", labels=words, plot=curves, xs=steps, ys=lin_true
    )
    at = {"seed": 0, "step": h.ref()}
    pg.column(
        cells,
        "v",
        "fast_weight_algebra",
        "flo_states",
        {**at, "row": ds["row"].values, "col": ds["col"].values},
        ("row", "col"),
    )
    for reader in ("linear", "softmax"):
        for var, what in (("flo_cos_true", "Flo"), ("flo_cos_wrong", "best other")):
            pg.text(
                f"{reader}_{what[:4]}",
                f"{reader}: {what}",
                "fast_weight_algebra",
                var,
                {**at, "reader": reader},
                fmt=".3f",
            )
    pg.js(
        f"""
const c = Object.assign({{}}, M.state.data);
const top = Math.max(...Array.from(c.v, Math.abs)) || 1;
c.fill = Array.from(c.v, v => (v >= 0 ? '{palette.STORED}' : '{palette.GREY}'));
c.alpha = Array.from(c.v, v => Math.abs(v) / top);
M.state.data = c;
const get = n => +document.getElementById('r-' + n).dataset.value;
setColumn(M.bars, 'top', [get('linear_Flo'), get('linear_best'), get('softmax_Flo'),
                         get('softmax_best')]);
"""
    )
    pg.note = (
        "Drag the ring along the linear read's Flo curve to write the sentence token by token."
    )
    return pg.finish_layout(column(row(heat, bars), curves))


def _reader_curves(p, ds, gate):
    for reader, (label, colour) in READERS.items():
        mean = ds["accuracy"].sel(gate=gate, reader=reader).mean("seed").values
        p.line(ds["L"].values, mean, color=colour, line_width=2, legend_label=label)


@page("first-principles/D3-gap-accuracy", handles={"L": "drag"}, line=906)
def gap_accuracy(cubes):
    ds = cubes["toylang_readers"]
    gaps = ds["L"].values
    p = kit.plot(
        width=600,
        height=360,
        name="accuracy",
        y_range=(0, 1.05),
        x_axis_label="gap L (filler words)",
        y_axis_label="share of sentences, first word named",
    )
    _reader_curves(p, ds, "every_word")
    hebb = ds["accuracy"].sel(gate="every_word", reader="hebbian").mean("seed").values
    sizes = ColumnDataSource(
        {"x": ["state", "cache"], "top": [0.0, 0.0], "colour": [palette.STORED, palette.OBSERVED]},
        name="sizes",
    )
    bars = kit.plot(
        width=300,
        height=360,
        x_range=["state", "cache"],
        y_range=(0, float(ds["cache_numbers"].max()) * 1.1),
        title="numbers held at this gap",
    )
    bars.vbar("x", top="top", width=0.6, source=sizes, color="colour")
    pg = kit.Page()
    h = pg.handle("L", gaps, DEFAULT_GAP, label="gap L", plot=p, xs=gaps, ys=hebb)
    for reader, (label, _) in READERS.items():
        pg.text(
            reader,
            label,
            "toylang_readers",
            "accuracy",
            {"gate": "every_word", "reader": reader, "L": h.ref()},
            reduce={"mean": "seed"},
            fmt=".3f",
        )
    pg.text("state", "the state holds", "toylang_readers", "state_numbers", {"seed": 0}, fmt="d")
    pg.text(
        "cache",
        "the cache holds",
        "toylang_readers",
        "cache_numbers",
        {"seed": 0, "L": h.ref()},
        fmt="d",
    )
    pg.js(
        "const get = n => +document.getElementById('r-' + n).dataset.value;"
        " setColumn(M.sizes, 'top', [get('state'), get('cache')]);"
    )
    pg.note = "Drag the ring along the Hebbian curve (shares are the mean over the seeded runs)."
    return pg.finish_layout(row(p, bars))


@page("first-principles/D4-gated-write", handles={"L": "drag"}, line=1012)
def gated_write(cubes):
    ds = cubes["toylang_readers"]
    gaps = ds["L"].values
    p = kit.plot(
        width=700,
        height=360,
        name="accuracy",
        y_range=(0, 1.05),
        x_axis_label="gap L (filler words)",
        y_axis_label="share of sentences, first word named",
    )
    every = ds["accuracy"].sel(gate="every_word", reader="hebbian").mean("seed").values
    gated = ds["accuracy"].sel(gate="gated", reader="hebbian").mean("seed").values
    p.line(gaps, every, color=palette.GREY, line_width=2, legend_label="every word written")
    p.line(gaps, gated, color=palette.INK, line_width=2, legend_label="gated write")
    pg = kit.Page()
    h = pg.handle("L", gaps, DEFAULT_GAP, label="gap L", plot=p, xs=gaps, ys=gated)
    for gate, label in (("every_word", "every word written"), ("gated", "gated write")):
        pg.text(
            gate,
            label,
            "toylang_readers",
            "accuracy",
            {"gate": gate, "reader": "hebbian", "L": h.ref()},
            reduce={"mean": "seed"},
            fmt=".3f",
        )
        pg.text(
            f"pairs_{gate}",
            "pairs written",
            "toylang_readers",
            "pairs_written",
            {"gate": gate, "L": h.ref(), "seed": 0},
            fmt="d",
        )
    pg.note = "Drag the ring along the gated curve: with the gate the state holds four pairs."
    return pg.finish_layout(p)


def _stores(cubes, var, title, dots_label, line, name="m", default=16):
    ds, ex = cubes["write_rule_streams"], cubes["fast_memory_exact"]
    m = ds["pairs"].values
    p = kit.plot(
        width=700,
        height=380,
        name="errors",
        title=title,
        y_range=(-0.05, 2.6),
        x_axis_label="stored pairs m (d = 16)",
        y_axis_label="squared error of the recalled value",
    )
    hebb = ex["hebbian_closed_error"].values
    p.line(m, hebb, color=palette.LIMIT, legend_label="(m - 1)/d")
    p.line(
        m,
        ex["least_squares_closed_error"].values,
        color=palette.RESULT,
        line_dash="dashed",
        legend_label="max(0, 1 - d/m)",
    )
    stores = list(READERS) if line else ["hebbian", "least_squares"]
    data = ds[var].mean("seed") if var == "store_error" else ds[var].isel(seed=0)
    for store in stores:
        label, colour = READERS[store]
        p.scatter(
            m,
            data.sel(store=store).values,
            color=colour,
            size=5,
            legend_label=f"{label}, {dots_label}",
        )
    p.add_layout(Span(location=1, dimension="width", line_color=palette.GREY, line_dash="dotted"))
    pg = kit.Page()
    h = pg.handle(name, m, default, label=f"stored pairs {name}", plot=p, xs=m, ys=hebb)
    reduce = {"mean": "seed"} if var == "store_error" else {}
    sel = {"pairs": h.ref()} if var == "store_error" else {"pairs": h.ref(), "seed": 0}
    for store in stores:
        pg.text(
            store,
            READERS[store][0],
            "write_rule_streams",
            var,
            {**sel, "store": store},
            reduce=reduce,
            fmt=".3f",
        )
    pg.text(
        "hebb_closed",
        "(m - 1)/d",
        "fast_memory_exact",
        "hebbian_closed_error",
        {"pairs": h.ref()},
        fmt=".4f",
    )
    pg.text(
        "ls_closed",
        "max(0, 1 - d/m)",
        "fast_memory_exact",
        "least_squares_closed_error",
        {"pairs": h.ref()},
        fmt=".4f",
    )
    return pg, p


@page("first-principles/D4-four-ways", handles={"m": "drag"}, line=1009)
def four_ways(cubes):
    pg, p = _stores(
        cubes, "store_error", "four ways to store the same pairs", "mean of every draw", True
    )
    pg.note = "Drag the ring along the Hebbian line."
    return pg.finish_layout(p)


@page("memory-math/ch4-careful-write", handles={"M": "slider"}, line=19)
def careful_write(cubes):
    pg, p = _stores(
        cubes,
        "store_error_few",
        "outer product against least squares",
        "mean of three draws",
        False,
        name="M",
    )
    return pg.finish_layout(p)


def _by_age(cubes, name, kind_line):
    ds, ex = cubes["write_rule_streams"], cubes["fast_memory_exact"]
    age = ds["age"].values
    gammas = ex["gamma"].values
    sampled = [float(g) for g in ds["gamma"].values]
    params = json.loads(ex.attrs["params"])
    d, n = int(params["age_dim"]), int(params["age_pairs"])
    p = kit.plot(
        width=720,
        height=380,
        name="ages",
        y_range=(0, 3.1),
        x_axis_label="age of the pair (writes since)",
        y_axis_label="squared error of the read",
    )
    p.line(
        age, ex["decay_closed_error"].sel(gamma=1.0).values, color=palette.LIMIT, legend_label="add"
    )
    p.line(
        age,
        ds["delta_age_error"].mean("seed").values,
        color=palette.QUERY,
        line_dash="dashdot",
        legend_label="delta rule",
    )
    p.line(
        age,
        ds["softmax_age_error"].mean("seed").values,
        color=palette.RESULT,
        line_dash="dotted",
        legend_label="softmax cache",
    )
    src = ColumnDataSource(
        {"age": age, "closed": np.zeros(len(age)), "mc": np.zeros(len(age))}, name="decay"
    )
    p.line(
        "age",
        "closed",
        source=src,
        color=palette.OBSERVED,
        line_width=2.5,
        legend_label="decay, closed form",
    )
    p.scatter(
        "age",
        "mc",
        source=src,
        color=palette.OBSERVED,
        size=6,
        legend_label="decay, Monte Carlo (at the sampled γ)",
    )
    p.add_layout(Span(location=1, dimension="width", line_color=palette.GREY, line_dash="dotted"))
    p.legend.location = "top_left"
    pg = kit.Page()
    if kind_line == "drag":
        closed = ex["decay_closed_error"].values
        # the ring sits on the decayed line where it crosses 1 (or at its oldest pair)
        where = [int(np.argmax(row >= 1)) if (row >= 1).any() else len(age) - 1 for row in closed]
        g = pg.handle(
            name,
            gammas,
            DEFAULT_GAMMA,
            label="decay γ",
            plot=p,
            xs=[age[i] for i in where],
            ys=[closed[k, i] for k, i in enumerate(where)],
        )
    else:
        g = pg.handle(name, gammas, DEFAULT_GAMMA, label="decay γ")
    pg.column(
        src,
        "closed",
        "fast_memory_exact",
        "decay_closed_error",
        {"gamma": g.ref(), "age": age},
        "age",
        computed=True,
    )
    pg.column(
        src,
        "mc",
        "write_rule_streams",
        "decay_age_error",
        {"gamma": g.ref(), "age": age},
        "age",
        reduce={"mean": "seed"},
        when={name: sampled},
    )
    pg.text(
        "oldest",
        "closed form, oldest pair",
        "fast_memory_exact",
        "decay_closed_error",
        {"gamma": g.ref(), "age": int(age[-1])},
        fmt=".4f",
        computed=True,
    )
    pg.js(
        f"""
const g = V.{name}[st.{name}], d = {d}, n = {n};
let total = 0;
for (let b = 0; b < n; b++) total += Math.pow(g, 2 * b);
// the decayed state's expected squared error by age: lost signal plus the noise left
const err = Array.from(M.decay.data.age,
                      a => (1 - Math.pow(g, a)) ** 2 + (total - Math.pow(g, 2 * a)) / d);
setColumn(M.decay, 'closed', err);
put('oldest', err[err.length - 1]);
const SAMPLED = {kit.json_literal(sampled)};
if (!SAMPLED.includes(g)) setColumn(M.decay, 'mc', Array.from(M.decay.data.age, () => NaN));
"""
    )
    pg.mutation("(1 - Math.pow(g, a)) ** 2", "(1 - Math.pow(g, a))")
    pg.mutation("(total - Math.pow(g, 2 * a)) / d", "(total - Math.pow(g, a)) / d")
    return pg, p


@page("first-principles/D4-error-by-age", handles={"gamma": "drag"}, line=1009)
def error_by_age(cubes):
    pg, p = _by_age(cubes, "gamma", "drag")
    pg.note = (
        "Drag the ring on the decay line (it sits where the line first reaches 1). The line is "
        "the closed form computed in the page; dots appear at the γ the streams were run at."
    )
    return pg.finish_layout(p)


@page("memory-math/ch10-error-by-age", handles={"gamma": "slider"}, line=51)
def age_sweep(cubes):
    pg, p = _by_age(cubes, "gamma", "slider")
    pg.note = "The decay line is the closed form computed in the page; dots: Monte Carlo."
    return pg.finish_layout(p)


@page("memory-math/ch9-cache-vs-state", handles={"tokens": "slider"}, line=47)
def cache_vs_state(cubes):
    ds = cubes["write_rule_streams"]
    t = ds["tokens"].values
    sizes = ColumnDataSource(
        {"x": ["cache", "state"], "top": [0.0, 16.0], "colour": [palette.OBSERVED, palette.STORED]},
        name="sizes",
    )
    held = kit.plot(
        width=320,
        height=340,
        x_range=["cache", "state"],
        y_range=(0, 2 * 4 * 10 + 8),
        title="numbers held",
    )
    held.vbar("x", top="top", width=0.6, source=sizes, color="colour")
    held.add_layout(
        LabelSet(
            x="x",
            y="top",
            text="top",
            source=sizes,
            text_align="center",
            y_offset=4,
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    err = kit.plot(
        width=560,
        height=340,
        x_axis_label="tokens read",
        y_axis_label="squared error on the first value",
    )
    e = ds["first_value_error"].mean("seed")
    err.line(t, e.sel(memory="state").values, color=palette.STORED, legend_label="state, linear")
    err.line(t, e.sel(memory="cache").values, color=palette.OBSERVED, legend_label="cache, softmax")
    marker = Span(location=1, dimension="height", line_color=palette.GREY, line_dash="dotted")
    err.add_layout(marker)
    pg = kit.Page()
    h = pg.handle("tokens", t, 5, label="tokens read")
    for memory in ("state", "cache"):
        pg.text(
            memory,
            f"{memory}, error on the first value",
            "write_rule_streams",
            "first_value_error",
            {"memory": memory, "tokens": h.ref()},
            reduce={"mean": "seed"},
            fmt=".3f",
        )
    pg.name(marker, "marker")
    pg.js(
        "const n = V.tokens[st.tokens]; M.marker.location = n;"
        " setColumn(M.sizes, 'top', [2 * 4 * n, 16]);"
    )
    return pg.finish_layout(row(held, err))


@page("memory-math/ch9-cache-vs-weights", handles={"context": "slider"}, line=49)
def cache_vs_weights(cubes):
    ds = cubes["fast_memory_exact"]
    n = ds["context"].values
    p = kit.plot(
        width=700,
        height=380,
        x_axis_type="log",
        y_axis_type="log",
        x_axis_label="context length (tokens)",
        y_axis_label="memory (bytes)",
    )
    p.line(
        n,
        ds["cache_bytes"].values,
        color=palette.OBSERVED,
        line_width=2,
        legend_label="key-value cache",
    )
    p.add_layout(
        Span(location=float(ds["param_bytes"]), dimension="width", line_color=palette.STORED)
    )
    p.add_layout(
        Span(
            location=float(ds["n_star"]),
            dimension="height",
            line_color=palette.LIMIT,
            line_dash="dashed",
        )
    )
    marker = Span(location=4096, dimension="height", line_color=palette.GREY, line_dash="dotted")
    p.add_layout(marker)
    p.legend.location = "top_left"
    pg = kit.Page()
    h = pg.handle("context", n, 4096, label="context (tokens)")
    pg.text(
        "cache",
        "cache",
        "fast_memory_exact",
        "cache_bytes",
        {"context": h.ref()},
        fmt="d",
        unit="bytes",
    )
    pg.text("params", "parameters", "fast_memory_exact", "param_bytes", {}, fmt="d", unit="bytes")
    pg.text("n_star", "they cross at", "fast_memory_exact", "n_star", {}, fmt="d", unit="tokens")
    pg.name(marker, "marker")
    pg.js("M.marker.location = V.context[st.context];")
    return pg.finish_layout(p)
