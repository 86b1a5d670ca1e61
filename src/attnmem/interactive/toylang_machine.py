"""Interactive pages of first-principles E2, the hand-built two-layer program: its registers
after zero, one and two layers, its attention maps as the gap and the sharpness change, and
what each of its parts is worth as beta moves."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet, Span

from .. import palette
from ..experiments import toylang_machine as tm
from ..views import page
from . import kit

N = 48  # names of the program's vocabulary (config toylang_program.N, as the figure module)
MAP_GAPS = (0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 25, 30)  # the maps page's gaps (its size)
MACHINES = {
    "program": "the program",
    "no_position": "no position block",
    "no_layer1": "no layer 1",
    "one_layer_slots": "one layer, fixed slots",
    "one_layer_recency": "one layer, recency",
    "linear": "linear attention",
}


@page("first-principles/E2-registers", handles={"step": "drag"}, line=1139)
def registers(cubes, prompt_L, default_beta):
    ds = cubes["toylang_program"].sel(L=prompt_L, beta=default_beta, layout="clause")
    tokens = ds["token"].values
    n = int(np.isfinite(tokens).sum())
    vocab = tm.vocabulary(N)
    ids = tm.word_ids(N)
    words = [vocab[int(t)] for t in tokens[:n]]
    prev = [vocab[int(t)] for t in ds["prev_top"].values[:n]]
    out = [vocab[int(t)] for t in ds["out_top"].values[:n]]
    asked = [t for t in range(n) if int(tokens[t]) in (ids["then"], ids["thanked"])]
    regs = ColumnDataSource(
        {
            "pos": np.arange(n),
            "prev_w": np.zeros(n),
            "out_w": np.zeros(n),
            "tok": words,
            "prev": [""] * n,
            "out": [""] * n,
            "pa": np.zeros(n),
            "oa": np.zeros(n),
            # the columns' names, as the categorical x of each cell
            "TOK": ["TOK"] * n,
            "PREV": ["PREV"] * n,
            "OUT": ["OUT"] * n,
        },
        name="registers",
    )
    table = kit.plot(
        width=520,
        height=24 * n + 60,
        x_range=["TOK", "PREV", "OUT"],
        y_range=(n - 0.5, -0.5),
        title="registers of the residual stream",
    )
    table.yaxis.ticker = list(range(n))
    table.yaxis.major_label_overrides = {t: f"{t} {w}" for t, w in enumerate(words)}
    table.rect(
        x=["TOK"] * n,
        y=list(range(n)),
        width=0.95,
        height=0.9,
        fill_color=palette.OBSERVED,
        fill_alpha=0.3,
    )
    table.rect("PREV", "pos", 0.95, 0.9, source=regs, fill_color=palette.STORED, fill_alpha="pa")
    table.rect("OUT", "pos", 0.95, 0.9, source=regs, fill_color=palette.RESULT, fill_alpha="oa")
    for col, text in (("TOK", "tok"), ("PREV", "prev"), ("OUT", "out")):
        table.add_layout(
            LabelSet(
                x=col,
                y="pos",
                text=text,
                source=regs,
                text_align="center",
                text_baseline="middle",
                text_font_size=kit.PT[palette.SMALL],
            )
        )
    track = kit.plot(
        width=360,
        height=120,
        name="track",
        x_range=(-0.4, 2.4),
        y_range=(-1, 1),
        title="layers run",
    )
    track.yaxis.visible = False
    track.xaxis.ticker = [0, 1, 2]
    track.line([0, 2], [0, 0], color=palette.GREY, line_width=3)
    pg = kit.Page()
    pg.handle("step", [0, 1, 2], 0, label="after layers", plot=track, xs=[0, 1, 2], ys=[0, 0, 0])
    at = {"L": prompt_L, "beta": default_beta, "layout": "clause", "position": np.arange(n)}
    pg.column(regs, "prev_w", "toylang_program", "prev_weight", at, "position")
    pg.column(regs, "out_w", "toylang_program", "out_weight", at, "position")
    one = {"L": prompt_L, "beta": default_beta, "layout": "clause"}
    pg.text(
        "pY",
        f"p(second name) at '{words[asked[0]]}'",
        "toylang_program",
        "prob",
        {**one, "copy": "Y"},
        fmt=".3f",
    )
    pg.text(
        "pX",
        f"p(final name) at '{words[asked[1]]}'",
        "toylang_program",
        "prob",
        {**one, "copy": "X"},
        fmt=".3f",
    )
    pg.js(
        f"""
const step = st.step, d = Object.assign({{}}, M.registers.data);
const PREV = {kit.json_literal(prev)}, OUT = {kit.json_literal(out)};
const ASKED = {kit.json_literal(asked)};
d.prev = Array.from(d.pos, (t, k) => (step >= 1 ? PREV[k] + ' ' + d.prev_w[k].toFixed(2) : ''));
d.pa = Array.from(d.prev_w, w => (step >= 1 ? 0.08 + 0.5 * w : 0));
d.out = Array.from(d.pos, (t, k) =>
  (step >= 2 && ASKED.includes(k) ? OUT[k] + ' ' + d.out_w[k].toFixed(2) : ''));
d.oa = Array.from(d.out_w, (w, k) => (step >= 2 && ASKED.includes(k) ? 0.08 + 0.5 * w : 0));
M.registers.data = d;
"""
    )
    pg.note = "Drag the ring through 0, 1 and 2 layers (β = 12, the clause-first prompt)."
    return pg.finish_layout(column(track, table))


@page(
    "first-principles/E2-attention-maps",
    handles={"L": "drag", "beta": "buttons"},
    line=1141,
)
def attention_maps(cubes, map_L, map_betas):
    ds = cubes["toylang_program"]
    slots = [str(s) for s in ds["slot_q"].values]
    k = len(slots)
    rr, cc = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    maps, plots = {}, []
    for layer in (1, 2):
        src = ColumnDataSource(
            {"r": rr.ravel(), "c": cc.ravel(), "w": np.zeros(rr.size), "text": [""] * rr.size},
            name=f"layer{layer}",
        )
        p = kit.plot(
            width=380,
            height=380,
            x_range=(-0.5, k - 0.5),
            y_range=(k - 0.5, -0.5),
            title=f"layer {layer}",
            x_axis_label="position looked at",
            y_axis_label="position asking",
        )
        p.rect(
            "c",
            "r",
            0.95,
            0.95,
            source=src,
            fill_color=palette.STORED,
            fill_alpha="w",
            line_color=None,
        )
        p.add_layout(
            LabelSet(
                x="c",
                y="r",
                text="text",
                source=src,
                text_align="center",
                text_baseline="middle",
                text_font_size="7pt",
            )
        )
        for axis in (p.xaxis, p.yaxis):
            axis.ticker = list(range(k))
            axis.major_label_overrides = dict(enumerate(slots))
        p.xaxis.major_label_orientation = 1.2
        maps[layer] = src
        plots.append(p)
    for r in (slots.index("then"), slots.index("thanked")):
        plots[1].rect(
            x=(k - 1) / 2,
            y=r,
            width=k,
            height=1,
            fill_color=None,
            line_color=palette.QUERY,
            line_width=2,
        )
    gaps = [g for g in MAP_GAPS if g in ds["L"].values]
    side = kit.plot(
        width=420,
        height=380,
        name="probability",
        y_range=(0, 1.05),
        x_axis_label="gap L (fillers)",
        y_axis_label="probability of the answer",
    )
    for beta, colour in zip(
        map_betas, (palette.RESULT, palette.STORED, palette.LIMIT), strict=True
    ):
        d = ds.sel(beta=beta, layout="plain")
        side.line(
            d["L"].values,
            d["prob"].sel(copy="Y").values,
            color=colour,
            legend_label=f"β = {beta:g}, second Y",
        )
        side.line(
            d["L"].values,
            d["prob"].sel(copy="X").values,
            color=colour,
            line_dash="dashed",
            legend_label=f"β = {beta:g}, final X",
        )
    ring_y = ds["prob"].sel(beta=map_betas[0], layout="plain", copy="Y").sel(L=gaps).values
    pg = kit.Page()
    g = pg.handle("L", gaps, map_L, label="gap L", plot=side, xs=gaps, ys=ring_y)
    b = pg.handle(
        "beta", list(map_betas), map_betas[0], label="β", labels=[f"β = {x:g}" for x in map_betas]
    )
    for layer, src in maps.items():
        pg.column(
            src,
            "w",
            "toylang_program",
            "attention_slots",
            {"beta": b.ref(), "L": g.ref(), "layer": layer, "slot_q": slots, "slot_k": slots},
            ("slot_q", "slot_k"),
        )
    at = {"beta": b.ref(), "L": g.ref(), "layout": "plain"}
    pg.text("pY", "p(Ben) after 'then'", "toylang_program", "prob", {**at, "copy": "Y"}, fmt=".3f")
    pg.text(
        "pX", "p(Ann) after 'thanked'", "toylang_program", "prob", {**at, "copy": "X"}, fmt=".3f"
    )
    pg.js(
        """
for (const src of [M.layer1, M.layer2]) {
  const d = Object.assign({}, src.data);
  d.text = Array.from(d.w, w => (w >= 0.15 ? w.toFixed(2).replace(/^0/, '') : ''));
  src.data = d;
}
"""
    )
    pg.note = (
        "'Ann gave Ben a pen', L fillers (averaged into one row, summed into one column), 'then "
        "Ben thanked Ann .'. Drag the ring along the gap; the buttons set β."
    )
    return pg.finish_layout(column(row(*plots), side))


@page("first-principles/E2-ablations", handles={"beta": "drag"}, line=1215)
def ablations(cubes, ablation_betas, default_beta):
    ds = cubes["program_ablation"]
    betas = ds["beta"].values
    machines = [str(m) for m in ds["machine"].values]
    labels = [MACHINES[m] for m in machines]
    program = ds["right"].sel(machine="program", layout="plain").sum("copy").values
    line = kit.plot(
        width=420,
        height=360,
        name="program",
        y_range=(0, 210),
        x_axis_label="sharpness β",
        y_axis_label="copies right (of 200)",
    )
    for m, colour in zip(
        machines,
        [
            palette.STORED,
            palette.QUERY,
            palette.OBSERVED,
            palette.GREY,
            palette.GREY,
            palette.RESULT,
        ],
        strict=True,
    ):
        y = ds["right"].sel(machine=m, layout="plain").sum("copy").values
        line.line(betas, y, color=colour, legend_label=MACHINES[m])
    src = ColumnDataSource(
        {"y": labels, "plain": np.zeros(len(labels)), "clause": np.zeros(len(labels))}, name="bars"
    )
    bars = kit.plot(
        width=520,
        height=360,
        y_range=list(reversed(labels)),
        x_range=(0, 210),
        x_axis_label="copies right (of 200)",
        title="at the chosen β",
    )
    bars.hbar(
        y="y",
        right="plain",
        height=0.35,
        source=src,
        color=palette.GREY,
        legend_label="plain ToyLang",
    )
    bars.hbar(
        y="y",
        right="clause",
        height=0.2,
        source=src,
        fill_color="white",
        line_color=palette.QUERY,
        hatch_pattern="/",
        hatch_color=palette.QUERY,
        legend_label="clause in front",
    )
    bars.add_layout(
        Span(location=200, dimension="height", line_color=palette.GREY, line_dash="dotted")
    )
    bars.legend.location = "bottom_right"
    pg = kit.Page()
    b = pg.handle("beta", betas, default_beta, label="β", plot=line, xs=betas, ys=program)
    at = {"beta": b.ref(), "machine": machines}
    pg.column(
        src,
        "plain",
        "program_ablation",
        "right",
        {**at, "layout": "plain"},
        "machine",
        reduce={"sum": "copy"},
    )
    pg.column(
        src,
        "clause",
        "program_ablation",
        "right",
        {**at, "layout": "clause_independent"},
        "machine",
        reduce={"sum": "copy"},
    )
    pg.text(
        "program",
        "the program, plain",
        "program_ablation",
        "right",
        {"beta": b.ref(), "machine": "program", "layout": "plain"},
        reduce={"sum": "copy"},
        fmt="d",
    )
    pg.text(
        "clause",
        "the program, clause in front",
        "program_ablation",
        "right",
        {"beta": b.ref(), "machine": "program", "layout": "clause_independent"},
        reduce={"sum": "copy"},
        fmt="d",
    )
    pg.note = "Drag the ring along the program's curve (60 sentences of L = 20, 48 names)."
    return pg.finish_layout(row(line, bars))
