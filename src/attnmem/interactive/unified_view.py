"""Interactive page of memory-math chapter 13: seven layers, four questions (click a layer)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColumnDataSource, LabelSet

from .. import palette
from ..views import page
from . import kit

QUESTIONS = ("state", "write", "read", "forgets")


@page("memory-math/ch13-seven-layers", handles={"layer": "click"}, line=57)
def seven_layers(cubes):
    answers = kit.figure_constant("unified_view", "FOUR_ANSWERS")
    numbers = cubes["unified_view"]["layer_state_numbers"]
    layers = [str(x) for x in numbers["seven_layer"].values]
    n = numbers["context"].values.astype(float)
    card = kit.plot(width=420, height=300, x_range=(0, 10), y_range=(0, 5), name="card")
    card.axis.visible = False
    card.grid.visible = False
    rows = ColumnDataSource(
        {
            "q": list(QUESTIONS),
            "a": [""] * 4,
            "y": [3.8, 2.8, 1.8, 0.8],
            "x": [0.3] * 4,
            "xa": [3.2] * 4,
        },
        name="card_rows",
    )
    card.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="q",
            source=rows,
            text_font_style="bold",
            text_font_size=kit.PT[palette.NORMAL],
        )
    )
    card.add_layout(
        LabelSet(x="xa", y="y", text="a", source=rows, text_font_size=kit.PT[palette.NORMAL])
    )
    title = ColumnDataSource({"x": [0.3], "y": [4.5], "t": [""]}, name="card_title")
    card.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="t",
            source=title,
            text_color=palette.STORED,
            text_font_style="bold",
            text_font_size=kit.PT[palette.LARGE],
        )
    )
    sizes = kit.plot(
        width=460,
        height=300,
        x_axis_type="log",
        y_axis_type="log",
        x_axis_label="tokens n",
        y_axis_label="numbers kept (width 64)",
    )
    for name in layers:
        sizes.line(n, numbers.sel(seven_layer=name).values, color=palette.GREY, line_width=1)
    chosen = ColumnDataSource({"n": n, "v": np.zeros(len(n))}, name="chosen")
    sizes.line("n", "v", source=chosen, color=palette.STORED, line_width=3)
    pg = kit.Page()
    h = pg.handle("layer", layers, layers[0], label="layer", labels=layers)
    pg.column(
        chosen,
        "v",
        "unified_view",
        "layer_state_numbers",
        {"seven_layer": h.ref(), "context": numbers["context"].values},
        "context",
    )
    table = [list(answers[name]) for name in layers]
    pg.js(
        f"""
const A = {kit.json_literal(table)}, i = st.layer;
setColumn(M.card_rows, 'a', A[i]);
M.card_title.data = {{x: [0.3], y: [4.5], t: [V.layer[i]]}};
"""
    )
    pg.note = "Click a layer: the same four rows every time; right, the numbers it keeps."
    return pg.finish_layout(row(card, sizes))
