"""Interactive pages of first-principles C3-C5: one read through a head (hover a step), the
softmax freezing without the scale as the keys widen, the hand-built block stage by stage, and
the pairs, cache and steps against the number of tokens."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..views import page
from . import kit

NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Flo", "Gus", "Hal")


@page("first-principles/C3-one-head-read", handles={"step": "hover"}, line=634)
def one_head_read(cubes, block_N, block_kappa, printed_L, printed_beta):
    steps = kit.figure_constant("residual_block", "READ_STEPS")
    p = kit.plot(width=940, height=220, x_range=(-0.2, 9.8), y_range=(0, 1.6), name="path")
    p.axis.visible = False
    p.grid.visible = False
    xs = [1.1 + 2.5 * i for i in range(len(steps))]
    colours = [palette.OBSERVED, palette.QUERY, palette.STORED, palette.RESULT]
    src = ColumnDataSource(
        {
            "x": xs,
            "y": [0.8] * len(xs),
            "colour": colours,
            "title": [t.split(" (")[0] for t, _ in steps],
        }
    )
    boxes = p.rect(
        "x",
        "y",
        2.0,
        0.9,
        source=src,
        fill_color="colour",
        fill_alpha=0.15,
        line_color="colour",
        line_width=2,
        hover_fill_alpha=0.5,
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="title",
            source=src,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    for x in xs[:-1]:
        p.segment(x + 1.0, 0.8, x + 1.5, 0.8, color=palette.INK, line_width=1.5)
    pg = kit.Page()
    pg.handle(
        "step",
        range(len(steps)),
        0,
        label="step",
        labels=[t for t, _ in steps],
        plot=p,
        xs=xs,
        ys=[0.8] * len(xs),
        renderer=boxes,
        texts=[f"<b>{t}</b><br>{what}" for t, what in steps],
    )
    at = {"N": block_N, "kappa": block_kappa, "L": printed_L, "beta": printed_beta}
    pg.text(
        "score", "score of the source key", "toylang_block", "thanked_score_source", at, fmt=".3f"
    )
    pg.text(
        "others", "of the best other key", "toylang_block", "thanked_score_other_max", at, fmt=".3f"
    )
    pg.text("weight", "weight on the source", "toylang_block", "thanked_w_source", at, fmt=".4f")
    pg.text(
        "copy",
        "copy of the subject (Flo)",
        "toylang_block",
        "thanked_sub_copy",
        {**at, "name": "Flo"},
        fmt=".4f",
    )
    pg.text(
        "p",
        "probability of Flo",
        "toylang_block",
        "thanked_probs",
        {**at, "name": "Flo"},
        fmt=".4f",
    )
    pg.note = (
        f"Head 1 at 'thanked' in the hand-built block (L = {printed_L}, β = {printed_beta}). "
        "Point at a step to follow the read."
    )
    return pg.finish_layout(p)


@page("first-principles/C3-scale-freeze", handles={"d_k": "slider"}, line=658)
def scale_freeze(cubes, shown_d_k):
    ds = cubes["score_saturation"]
    keys = ds["key"].values
    sizes = ds["d_k"].values
    raw = ColumnDataSource({"k": keys, "w": np.zeros(len(keys))}, name="raw")
    scaled = ColumnDataSource({"k": keys, "w": np.zeros(len(keys))}, name="scaled")
    plots = []
    for src, colour, title in (
        (raw, palette.LIMIT, "raw scores"),
        (scaled, palette.RESULT, "scores / sqrt(d_k)"),
    ):
        p = kit.plot(
            width=420,
            height=220,
            y_range=(0, 1.02),
            title=title,
            y_axis_label="weight",
            x_axis_label="16 keys (the first draw)",
        )
        p.vbar("k", top="w", width=0.8, source=src, color=colour)
        plots.append(p)
    ent = kit.plot(
        width=420,
        height=440,
        x_axis_type="log",
        x_axis_label="key size d_k",
        y_axis_label="mean entropy of the weights (nats)",
    )
    for var, colour, label in (
        ("entropy_raw", palette.LIMIT, "raw"),
        ("entropy_scaled", palette.RESULT, "scaled"),
    ):
        ent.line(sizes, ds[var].mean("seed").values, color=colour, line_width=2, legend_label=label)
    ent.add_layout(
        Span(
            location=float(np.log(16)),
            dimension="width",
            line_color=palette.GREY,
            line_dash="dashed",
        )
    )
    marker = Span(location=64, dimension="height", line_color=palette.GREY, line_dash="dotted")
    ent.add_layout(marker)
    pg = kit.Page()
    d = pg.handle("d_k", sizes, 64, label="key size d_k")
    first = {"d_k": d.ref(), "seed": 0, "key": keys}
    pg.column(raw, "w", "score_saturation", "weights_raw_first", first, "key")
    pg.column(scaled, "w", "score_saturation", "weights_scaled_first", first, "key")
    one = {"d_k": d.ref(), "seed": 0}
    pg.text(
        "h_raw",
        "entropy of this draw, raw",
        "score_saturation",
        "entropy_raw_first",
        one,
        fmt=".4f",
        unit="nats",
    )
    mean = {"mean": "seed"}
    pg.text(
        "m_raw",
        "mean over draws, raw",
        "score_saturation",
        "entropy_raw",
        {"d_k": d.ref()},
        reduce=mean,
        fmt=".3f",
        unit="nats",
    )
    pg.text(
        "m_scaled",
        "scaled",
        "score_saturation",
        "entropy_scaled",
        {"d_k": d.ref()},
        reduce=mean,
        fmt=".3f",
        unit="nats",
    )
    pg.name(marker, "marker")
    pg.js("M.marker.location = V.d_k[st.d_k];")
    return pg.finish_layout(row(column(*plots), ent))


@page("first-principles/C4-block-steps", handles={"stage": "slider"}, line=697)
def block_steps(cubes, block_N, block_kappa, printed_L, printed_beta, curve_betas):
    ds = cubes["toylang_block"].sel(N=block_N, kappa=block_kappa, L=printed_L, beta=printed_beta)
    stages = [str(s) for s in ds["stage"].values]
    bars = [str(b) for b in ds["bar"].values]
    plots, sources = [], {}
    for at in ("thanked", "then"):
        now = ColumnDataSource(
            {
                "b": bars,
                "v": np.zeros(3),
                "colour": [palette.OBSERVED, palette.QUERY, palette.GREY],
            },
            name=f"now_{at}",
        )
        before = ColumnDataSource({"b": bars, "v": np.zeros(3)}, name=f"before_{at}")
        p = kit.plot(
            width=420,
            height=300,
            x_range=bars,
            y_range=(0, 1.05),
            title=f"at '{at}'",
            y_axis_label="share",
        )
        p.vbar(
            "b",
            top="v",
            width=0.8,
            source=before,
            fill_color=palette.GREY,
            fill_alpha=0.15,
            line_color=palette.GREY,
            line_dash="dashed",
        )
        p.vbar("b", top="v", width=0.55, source=now, color="colour")
        plots.append(p)
        sources[at] = (now, before)
    pg = kit.Page()
    s = pg.handle("stage", stages, stages[0], label="stage")
    sel = {"N": block_N, "kappa": block_kappa, "L": printed_L, "beta": printed_beta}
    for at, (now, _before) in sources.items():
        pg.column(
            now,
            "v",
            "toylang_block",
            "stage_bars",
            {**sel, "at": at, "stage": s.ref(), "bar": bars},
            "bar",
        )
        pg.text(
            f"p_{at}", f"right name at '{at}'", "toylang_block", f"{at}_p_correct", sel, fmt=".4f"
        )
    # the faint bars: the stage before (at embed, embed itself)
    table = ds["stage_bars"]
    previous = {
        at: [
            table.sel(at=at, stage=stages[max(i - 1, 0)]).values.tolist()
            for i in range(len(stages))
        ]
        for at in sources
    }
    pg.js(
        f"""
const PREV = {kit.json_literal(previous)};
for (const at of ['thanked', 'then'])
  setColumn(M['before_' + at], 'v', PREV[at][st.stage]);
"""
    )
    pg.note = "The faint dashed bars are the stage before; the bars: first name, second, others."
    return pg.finish_layout(row(*plots))


@page("first-principles/C5-steps-pairs", handles={"n": "drag"}, line=723)
def steps_pairs(cubes, toylang_n):
    ds = cubes["layer_cost"]
    n = ds["n"].values
    entries = ds["causal_entries"].values
    p = kit.plot(
        width=760,
        height=440,
        name="counts",
        x_axis_type="log",
        y_axis_type="log",
        x_axis_label="tokens n",
        y_axis_label="count",
    )
    p.line(n, entries, color=palette.STORED, line_width=2, legend_label="one head's causal scores")
    p.line(
        n,
        ds["kv_cache"].values,
        color=palette.GREY,
        line_width=2,
        legend_label="key-value cache, 6 layers, d 512",
    )
    p.line(n, ds["rnn_steps"].values, color=palette.INK, legend_label="sequential steps, RNN")
    p.line(
        n,
        ds["transformer_steps"].values,
        color=palette.INK,
        line_dash="dashed",
        legend_label="sequential steps, 6-layer stack",
    )
    p.legend.location = "top_left"
    pg = kit.Page()
    h = pg.handle("n", n, 20, label="tokens n", plot=p, xs=n, ys=entries)
    pg.text(
        "scores",
        "causal scores n(n+1)/2",
        "layer_cost",
        "causal_entries",
        {"n": h.ref()},
        fmt="d",
        computed=True,
    )
    pg.text("cache", "key-value cache", "layer_cost", "kv_cache", {"n": h.ref()}, fmt="d")
    pg.text("rnn", "RNN steps", "layer_cost", "rnn_steps", {"n": h.ref()}, fmt="d")
    pg.text("stack", "stack steps", "layer_cost", "transformer_steps", {"n": h.ref()}, fmt="d")
    pg.js(
        """
const n = V.n[st.n];
put('scores', n * (n + 1) / 2);  // one head's causal score entries
"""
    )
    pg.mutation("n * (n + 1) / 2", "n * n / 2")
    pg.note = "Drag the ring along the score curve (20 and 110 tokens are ToyLang at L = 10, 100)."
    return pg.finish_layout(p)
