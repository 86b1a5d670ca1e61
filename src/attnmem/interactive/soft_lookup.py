"""Interactive page of soft-dictionary: the widget whose caption the note lost (line 90 says
the hand-set keys and queries are "the exact numbers inside the widget below"): one query
token looked up against the five tokens as the sharpness moves."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColumnDataSource, Span

from .. import palette
from ..views import page
from . import kit


@page("soft-dictionary/lookup-sharpness", handles={"query": "buttons", "beta": "slider"}, line=90)
def sharpness(cubes, printed_betas):
    ds = cubes["soft_lookup"]
    tokens = [str(t) for t in ds["query"].values]
    betas = ds["beta"].values
    weights = ColumnDataSource({"k": tokens, "w": np.zeros(len(tokens))}, name="weights")
    bars = kit.plot(
        width=460,
        height=340,
        x_range=tokens,
        y_range=(0, 1.05),
        title="the query's weight on each key",
        y_axis_label="weight",
    )
    bars.vbar("k", top="w", width=0.7, source=weights, color=palette.OBSERVED)
    bars.add_layout(
        Span(
            location=1 / len(tokens), dimension="width", line_color=palette.GREY, line_dash="dashed"
        )
    )
    mixed = ColumnDataSource({"v": [0.0, 0.0]}, name="mixed")  # the value, as the cube has it
    arrow = ColumnDataSource({"x": [0.0], "y": [0.0]}, name="arrow")
    values = kit.plot(
        width=340,
        height=340,
        x_range=(-2.5, 2.5),
        y_range=(-2.5, 2.5),
        match_aspect=True,
        title="the mixed 2-d value (violet)",
    )
    values.segment(0, 0, "x", "y", source=arrow, color=palette.STORED, line_width=3)
    pg = kit.Page()
    q = pg.handle("query", tokens, "sat", label="query")
    b = pg.handle("beta", betas, 1.0, label="sharpness β")
    at = {"query": q.ref(), "beta": b.ref()}
    pg.column(weights, "w", "soft_lookup", "weight", {**at, "key": tokens}, "key")
    pg.column(mixed, "v", "soft_lookup", "mixed", {**at, "value_dim": [1, 2]}, "value_dim")
    pg.text("top", "largest weight", "soft_lookup", "top_weight", at, fmt=".4f")
    pg.text(
        "entropy", "entropy of the weights", "soft_lookup", "entropy", at, fmt=".4f", unit="nats"
    )
    pg.js("const v = M.mixed.data.v; M.arrow.data = {x: [v[0]], y: [v[1]]};")
    printed = ", ".join(f"{x:g}" for x in printed_betas)
    pg.note = (
        "The note's widget, whose caption was lost: the hand-set keys, queries and values of "
        f"its five tokens (the printed sharpnesses are {printed})."
    )
    return pg.finish_layout(row(bars, values))
