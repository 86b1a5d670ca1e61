"""Interactive pages of memory-math's prologue and chapters 1-2: two prompts and where their
answers come from (click an example), a matrix times a vector read by rows and by columns (drag
the first coordinate), four readings of one product (click a tab), a product as a sum of outer
products (click the dots) and the singular terms of a pattern (click a bar)."""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, LabelSet

from .. import palette
from ..views import page
from . import kit


def _grid_plot(title, m, n, name, width=None):
    """A matrix as a grid of cells (teal positive, brown negative), its values printed."""
    rr, cc = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    src = ColumnDataSource(
        {
            "r": rr.ravel(),
            "c": cc.ravel(),
            "v": np.zeros(rr.size),
            "fill": ["white"] * rr.size,
            "text": [""] * rr.size,
            "edge": ["rgba(0,0,0,0)"] * rr.size,
        },
        name=name,
    )
    p = kit.plot(
        width=width or 60 * n + 40,
        height=60 * m + 60,
        title=title,
        x_range=(-0.5, n - 0.5),
        y_range=(m - 0.5, -0.5),
    )
    p.axis.visible = False
    p.grid.visible = False
    p.rect("c", "r", 0.95, 0.95, source=src, fill_color="fill", line_color="edge", line_width=3)
    p.add_layout(
        LabelSet(
            x="c",
            y="r",
            text="text",
            source=src,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    return p, src


# fill a grid's cells by sign and print its values (with the digits given)
_PAINT = f"""
function paint(src, digits, outlined, colour) {{
  const d = Object.assign({{}}, src.data), top = Math.max(...Array.from(d.v, Math.abs)) || 1;
  d.fill = Array.from(d.v, v => (v >= 0 ? '{palette.SIGN[2]}' : '{palette.SIGN[0]}'));
  d.text = Array.from(d.v, v => v.toFixed(digits));
  d.edge = Array.from(d.r, (r, k) => (outlined && outlined(r, d.c[k]) ? colour : "rgba(0,0,0,0)"));
  src.data = d;
}}
"""


@page("memory-math/prologue-two-lookups", handles={"example": "click"}, line=2)
def two_lookups(cubes):
    examples = kit.figure_constant("matrix_readings", "EXAMPLES")
    prompts = [e[0] for e in examples]
    reads = [list(e[1]) for e in examples]
    p = kit.plot(width=880, height=220, x_range=(-0.5, 10), y_range=(-1.2, 1.0))
    p.axis.visible = False
    p.grid.visible = False
    n = max(len(x.split()) for x in prompts)
    cells = ColumnDataSource(
        {"x": np.arange(n), "y": np.zeros(n), "tok": [""] * n, "fill": ["white"] * n}, name="tokens"
    )
    p.rect(
        "x",
        "y",
        0.9,
        0.6,
        source=cells,
        fill_color="fill",
        fill_alpha=0.35,
        line_color=palette.GREY,
    )
    p.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="tok",
            source=cells,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.NORMAL],
        )
    )
    box = ColumnDataSource({"x": [0.0], "y": [-0.8], "t": [""]}, name="weights")
    p.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="t",
            source=box,
            text_color=palette.STORED,
            text_font_size=kit.PT[palette.NORMAL],
        )
    )
    pg = kit.Page()
    pg.handle("example", [0, 1], 0, label="example", labels=["the capital", "the thanks"])
    pg.js(
        f"""
const P = {kit.json_literal(prompts)}, R = {kit.json_literal(reads)};
const E = {kit.json_literal([[e[2], e[3]] for e in examples])};
const i = st.example, toks = P[i].split(' '), n = M.tokens.data.x.length;
const d = Object.assign({{}}, M.tokens.data);
d.tok = Array.from(d.x, k => toks[k] || '');
d.fill = Array.from(d.x, k => (k === toks.length - 1 ? '{palette.QUERY}'
                       : R[i].includes(k) ? '{palette.OBSERVED}' : 'white'));
M.tokens.data = d;
const said = 'from the weights: ' + E[i][0] + '; answer: ' + E[i][1];
M.weights.data = {{x: [0], y: [-0.8], t: [said]}};
"""
    )
    pg.note = (
        "An illustration, not a measurement. Copper: where the next token is predicted; blue: "
        "what attention reads from the context (none for the capital, whose answer the weights "
        "hold)."
    )
    return pg.finish_layout(p)


@page("memory-math/ch1-two-readings", handles={"x1": "drag"}, line=6)
def two_readings(cubes):
    ds = cubes["matrix_readings"].isel(seed=0)
    xs = ds["x1_value"].values
    y = ds["sweep_y"].values
    rows_ = ds["row"].values
    cols = ds["column"].values
    sweep = kit.plot(
        width=420,
        height=320,
        name="sweep",
        x_axis_label="first coordinate x1",
        y_axis_label="output y_i",
    )
    for i, colour in zip(rows_, (palette.STORED, palette.QUERY, palette.RESULT), strict=True):
        sweep.line(xs, y[:, i], color=colour, legend_label=f"y{i + 1}")
    outputs = ColumnDataSource(
        {"i": [f"y{i + 1}" for i in rows_], "y": np.zeros(len(rows_))}, name="outputs"
    )
    by_rows = kit.plot(
        width=300,
        height=320,
        x_range=list(outputs.data["i"]),
        title="by rows: each output a dot product",
    )
    by_rows.vbar("i", top="y", width=0.6, source=outputs, color=palette.STORED)
    rr, cc = np.meshgrid(rows_, cols, indexing="ij")
    parts = ColumnDataSource(
        {
            "r": rr.ravel(),
            "c": cc.ravel(),
            "v": np.zeros(rr.size),
            "fill": ["white"] * rr.size,
            "text": [""] * rr.size,
            "edge": ["rgba(0,0,0,0)"] * rr.size,
        },
        name="parts",
    )
    by_cols = kit.plot(
        width=360,
        height=320,
        x_range=(-0.5, len(cols) - 0.5),
        y_range=(len(rows_) - 0.5, -0.5),
        title="by columns: x_j times column j (column 1 moves)",
    )
    by_cols.axis.visible = False
    by_cols.rect(
        "c", "r", 0.95, 0.95, source=parts, fill_color="fill", line_color="edge", line_width=3
    )
    by_cols.add_layout(
        LabelSet(
            x="c",
            y="r",
            text="text",
            source=parts,
            text_align="center",
            text_baseline="middle",
            text_font_size=kit.PT[palette.SMALL],
        )
    )
    pg = kit.Page()
    h = pg.handle("x1", xs, float(ds["x"].values[0]), label="x1", plot=sweep, xs=xs, ys=y[:, 0])
    at = {"seed": 0, "x1_value": h.ref()}
    pg.column(outputs, "y", "matrix_readings", "sweep_y", {**at, "row": rows_}, "row")
    pg.column(
        parts,
        "v",
        "matrix_readings",
        "sweep_parts",
        {**at, "row": rows_, "column": cols},
        ("row", "column"),
    )
    for i in rows_:
        pg.text(f"y{i + 1}", f"y{i + 1}", "matrix_readings", "sweep_y", {**at, "row": i}, fmt="g")
    pg.js(_PAINT + f"paint(M.parts, 1, (r, c) => c === 0, '{palette.QUERY}');")
    pg.note = "Drag the ring along y1: the rows reading moves every output, the columns one term."
    return pg.finish_layout(column(sweep, row(by_rows, by_cols)))


READINGS = (
    "row of A against column of B",
    "row 1 of A weights the rows of B",
    "column 1 of B weights the columns of A",
    "column 1 of A times row 1 of B",
)


@page("memory-math/ch2-four-readings", handles={"reading": "click"}, line=8)
def four_readings(cubes):
    ds = cubes["matrix_readings"].isel(seed=0)
    m, r = ds.sizes["i"], ds.sizes["k"]
    n = ds.sizes["j"]
    pa, a = _grid_plot("A (3 x 4)", m, r, "A")
    pb, b = _grid_plot("B (4 x 3)", r, n, "B")
    pc, c = _grid_plot("C = AB", m, n, "C")
    pg = kit.Page()
    pg.handle("reading", range(4), 0, label="reading", labels=list(READINGS))
    at = {"seed": 0}
    pg.column(
        a, "v", "matrix_readings", "a", {**at, "i": ds["i"].values, "k": ds["k"].values}, ("i", "k")
    )
    pg.column(
        b, "v", "matrix_readings", "b", {**at, "k": ds["k"].values, "j": ds["j"].values}, ("k", "j")
    )
    pg.column(
        c, "v", "matrix_readings", "c", {**at, "i": ds["i"].values, "j": ds["j"].values}, ("i", "j")
    )
    for name in ("entry", "row", "column", "outer"):
        pg.text(name, f"{name} reading's gap to AB", "matrix_readings", f"{name}_gap", at, fmt="g")
    # which cells each reading multiplies (A, B) and produces (C): all, or row/column 0
    pg.js(
        _PAINT
        + f"""
const all = () => true, r0 = r => r === 0, c0 = (r, c) => c === 0;
const PICK = [[r0, c0, (r, c) => r === 0 && c === 0], [r0, all, r0], [all, c0, c0],
              [c0, r0, all]][st.reading];
paint(M.A, 0, PICK[0], '{palette.OBSERVED}');
paint(M.B, 0, PICK[1], '{palette.QUERY}');
paint(M.C, 0, PICK[2], '{palette.RESULT}');
"""
    )
    pg.note = "Click a reading: outlined, what one step multiplies (A, B) and what it produces (C)."
    return pg.finish_layout(row(pa, pb, pc))


@page("memory-math/ch2-outer-sum", handles={"terms": "click"}, line=9)
def outer_sum(cubes):
    ds = cubes["matrix_readings"].isel(seed=0)
    terms = ds["terms"].values
    m, n = ds.sizes["i"], ds.sizes["j"]
    dots = kit.plot(
        width=300,
        height=140,
        name="dots_plot",
        x_range=(0.5, len(terms) + 0.5),
        y_range=(-1, 1),
        title="terms added (click a dot)",
    )
    dots.axis.visible = False
    dots.grid.visible = False
    dsrc = ColumnDataSource(
        {"x": terms, "y": np.zeros(len(terms)), "a": np.ones(len(terms))}, name="dots"
    )
    glyph = dots.scatter(
        "x",
        "y",
        source=dsrc,
        size=22,
        color=palette.QUERY,
        alpha="a",
        selection_alpha="a",
        nonselection_alpha="a",
    )
    ps, partial = _grid_plot("the sum of the first m outer products", m, n, "partial", 300)
    pc, c = _grid_plot("AB", m, n, "product", 300)
    pg = kit.Page()
    h = pg.handle(
        "terms",
        terms,
        1,
        label="terms m",
        plot=dots,
        xs=terms,
        ys=np.zeros(len(terms)),
        renderer=glyph,
    )
    idx = {"i": ds["i"].values, "j": ds["j"].values}
    pg.column(
        partial,
        "v",
        "matrix_readings",
        "partial_sum",
        {"seed": 0, "terms": h.ref(), **idx},
        ("i", "j"),
    )
    pg.column(c, "v", "matrix_readings", "c", {"seed": 0, **idx}, ("i", "j"))
    pg.text(
        "residual",
        "distance to AB",
        "matrix_readings",
        "partial_residual",
        {"seed": 0, "terms": h.ref()},
        fmt=".4g",
    )
    pg.text(
        "rank",
        "rank (Gaussian factors)",
        "matrix_readings",
        "partial_rank_gaussian",
        {"seed": 0, "terms": h.ref()},
        fmt="d",
    )
    pg.js(
        _PAINT + "paint(M.partial, 0); paint(M.product, 0);"
        " setColumn(M.dots, 'a', Array.from(M.dots.data.x, (x, k) => (k <= st.terms ? 1 : 0.25)));"
    )
    return pg.finish_layout(column(dots, row(ps, pc)))


@page("memory-math/ch2-singular-values", handles={"kept": "click"}, line=12)
def singular_values(cubes):
    ds = cubes["eckart_young"].isel(seed=0)
    k = ds["k"].values
    sv = ds["pattern_sv"].values
    n = ds.sizes["i"]
    bars = kit.plot(
        width=380,
        height=320,
        name="bars",
        y_axis_type="log",
        y_range=(float(sv.min()) / 3, float(sv.max()) * 3),
        x_axis_label="singular term",
        y_axis_label="singular value (log scale)",
    )
    bsrc = ColumnDataSource(
        {"k": k, "sv": sv, "bottom": np.full(len(k), float(sv.min()) / 3)}, name="singular"
    )
    glyph = bars.vbar(
        "k",
        top="sv",
        bottom="bottom",
        width=0.7,
        source=bsrc,
        color=palette.STORED,
        nonselection_alpha=0.25,
        selection_alpha=1.0,
    )
    pp, pattern = _grid_plot("the pattern", n, n, "pattern", 300)
    pt, kept = _grid_plot("rebuilt from the first k terms", n, n, "kept", 300)
    pg = kit.Page()
    h = pg.handle(
        "kept",
        k,
        3,
        label="terms kept k",
        plot=bars,
        xs=k,
        ys=np.sqrt(sv * sv.min() / 3),
        renderer=glyph,
    )
    ij = {"i": ds["i"].values, "j": ds["j"].values}
    pg.column(pattern, "v", "eckart_young", "pattern", {"seed": 0, **ij}, ("i", "j"))
    pg.column(
        kept,
        "v",
        "eckart_young",
        "pattern_truncated",
        {"seed": 0, "kept": h.ref(), **ij},
        ("i", "j"),
    )
    pg.text(
        "energy",
        "share of the energy kept",
        "eckart_young",
        "pattern_energy_kept",
        {"seed": 0, "kept": h.ref()},
        fmt=".5f",
    )
    pg.text(
        "random",
        "a random matrix keeps",
        "eckart_young",
        "random_energy_kept",
        {"seed": 0, "kept": h.ref()},
        fmt=".5f",
    )
    pg.js(
        _PAINT + "paint(M.pattern, 2); paint(M.kept, 2);"
        " setColumn(M.singular, 'a',"
        " Array.from(M.singular.data.k, (x, i) => (i <= st.kept ? 1 : 0.25)));"
    )
    pg.note = "Click a bar to keep that many singular terms."
    return pg.finish_layout(row(bars, column(pp, pt)))
