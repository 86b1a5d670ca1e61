"""What every interactive page is made of: handles, the numbers a page shows, the page itself.

A page function (``@page`` in ``attnmem/interactive/<topic>.py``) draws its plots with Bokeh and
describes the rest to a `Page`:

- ``page.handle(name, values, ...)``: one handle of the caption, over grid values of a cube. Its
  kind is the declaration's: a ``slider``; a ``drag`` (a ring on a plot that the reader drags,
  snapping to the nearest value, with a slider beside it); ``buttons``; a ``click`` (on a glyph
  of a plot, or on a row of buttons); a ``hover`` (over the glyphs of a diagram, whose tooltips
  say what each part is).
- ``page.text(...)`` and ``page.column(...)``: a number printed under the plots, or a column of
  a plot's data source (bar heights, a curve), each declared as a selection of a cube:
  ``cube``, ``var``, ``sel`` (values, or handles: the handle's current value), an optional
  ``reduce`` over dims and, for a column, the dims ``along`` which it runs. The page embeds
  only the slices the handles reach (one table per number, indexed by the handles' positions)
  and looks them up as the handles move. A number the page computes itself (a cheap closed form
  of a few numbers of the cube) is declared ``computed=True``: the page's own JavaScript
  (``page.js``) sets it, and ``page.mutation`` names a change of that formula which the browser
  test must catch.

The declarations are written to ``results/pages/<module>.json`` (the page job's ``about``) and
to ``figures/interactive.json``; the browser tests read them, move each handle and compare
every number the page shows with the same selection read from the cube with xarray.
"""

from __future__ import annotations

import html
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from bokeh.document import Document
from bokeh.embed import components
from bokeh.layouts import column as bk_column
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    HoverTool,
    Legend,
    LogScale,
    PointDrawTool,
    RadioButtonGroup,
    Slider,
    TapTool,
)
from bokeh.plotting import figure as bk_figure

from .. import palette, shell, views

log = logging.getLogger("attnmem")

PT = {size: f"{size}pt" for size in palette.SIZES}


def plot(**kwargs):
    """A Bokeh plot in the project's look: no toolbar, the notes' type sizes, a light grid."""
    kwargs.setdefault("tools", "")
    kwargs.setdefault("toolbar_location", None)
    p = bk_figure(**kwargs)
    p.title.text_font_size = PT[palette.LARGE]
    for axis in (*p.xaxis, *p.yaxis):
        axis.axis_label_text_font_size = PT[palette.NORMAL]
        axis.axis_label_text_font_style = "normal"
        axis.major_label_text_font_size = PT[palette.NORMAL]
    p.grid.grid_line_alpha = 0.3
    p.outline_line_color = None
    p.background_fill_color = "white"
    return p


def number(value) -> float | int | str:
    """A coordinate value as JSON holds it."""
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, bytes):
        return value.decode()
    return value.item() if isinstance(value, np.generic) else value


@dataclass
class Handle:
    name: str
    values: list  # the values it takes, as the cube's coordinate holds them
    default: int  # the index it opens at
    label: str
    labels: list[str]  # what the reader sees for each value
    kind: str = ""
    plot: object = None  # drag, click, hover: the plot it lives on
    xs: list = field(default_factory=list)  # drag, click, hover: where each value sits
    ys: list = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # hover: what each item says
    renderer: object = None  # click, hover: the glyphs the pointer meets
    widget: object = None

    def ref(self) -> str:
        return f"${self.name}"


@dataclass
class Shown:
    name: str
    cube: str
    var: str
    sel: Mapping
    reduce: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    along: tuple[str, ...] = ()
    fmt: str = ".4g"
    label: str = ""
    unit: str = ""
    source: object = None  # a column's data source and column name
    col: str = ""
    computed: bool = False
    # handle name -> the values at which the number is the selection (elsewhere the page shows
    # something else under the same name: the hard lookup instead of a blend, say)
    when: Mapping[str, Sequence] = field(default_factory=dict)

    def holds(self, at: Mapping) -> bool:
        """Whether the handles' values ``at`` are where this declaration holds."""
        return all(at[h] in [number(v) for v in vs] for h, vs in self.when.items())

    @property
    def kind(self) -> str:
        return "column" if self.source is not None else "text"


def select(ds, var: str, sel: Mapping, reduce: Mapping, along: Sequence[str] = ()) -> np.ndarray:
    """``ds[var]`` at ``sel`` (plain values), reduced (``{"mean": "seed"}``, or max, min, sum)
    and laid out ``along`` the dims left (C order): what a shown number is, read with xarray."""
    da = ds[var].sel({k: v for k, v in sel.items()})
    for how, dims in reduce.items():
        da = getattr(da, how)(dim=dims)
    left = [d for d in da.dims if d not in along]
    if left:
        raise ValueError(f"{var} at {dict(sel)} still runs along {left} (declare them along)")
    return np.asarray(da.transpose(*along).values, dtype=float).ravel()


class Page:
    """One interactive page, as its function describes it (see the module docstring)."""

    def __init__(self) -> None:
        self.handles: dict[str, Handle] = {}
        self.shown: list[Shown] = []
        self.code: list[str] = []
        self.mutations: list[tuple[str, str]] = []
        self.models: dict[str, object] = {}
        self.layout = None
        self.note = ""

    # --------------------------------------------------------------------- declarations

    def handle(
        self,
        name: str,
        values,
        default=None,
        label: str = "",
        labels: Sequence[str] | None = None,
        plot=None,
        xs=None,
        ys=None,
        texts: Sequence[str] | None = None,
        renderer=None,
    ) -> Handle:
        """A handle over ``values`` (opening at the value ``default``, or the first). A drag
        handle puts a ring on ``plot`` at (``xs[i]``, ``ys[i]``) for value i; a click or hover
        handle names the ``renderer`` whose glyph i selects value i (at xs, ys), and a hover
        handle's ``texts`` are its tooltips."""
        values = [number(v) for v in values]
        index = values.index(number(default)) if default is not None else 0
        shown = list(labels) if labels is not None else [_label(v) for v in values]
        h = Handle(name, values, index, label or name, shown, plot=plot, renderer=renderer)
        h.xs = [float(x) for x in xs] if xs is not None else []
        h.ys = [float(y) for y in ys] if ys is not None else []
        h.texts = list(texts or [])
        self.handles[name] = h
        return h

    def text(self, name: str, label: str, cube: str, var: str, sel: Mapping, **kw) -> Shown:
        """A number printed under the plots: ``cube[var]`` at ``sel``."""
        shown = Shown(name, cube, var, dict(sel), label=label, **kw)
        self.shown.append(shown)
        return shown

    def column(self, source, col: str, cube: str, var: str, sel: Mapping, along, **kw) -> Shown:
        """The column ``col`` of a plot's data source: ``cube[var]`` at ``sel``, running along
        the dims ``along``."""
        along = (along,) if isinstance(along, str) else tuple(along)
        if not source.name:
            raise ValueError(f"the data source of column {col} needs a name (the tests find it)")
        name = f"{source.name}.{col}"
        shown = Shown(name, cube, var, dict(sel), along=along, source=source, col=col, **kw)
        self.shown.append(shown)
        return shown

    def js(self, code: str) -> None:
        """JavaScript run after every move of a handle, after the embedded numbers are set. It
        sees ``st`` (handle name -> index), ``V`` (handle name -> its values), ``M`` (the named
        models: sources, glyphs, plots), ``put(name, value)`` (print a computed number) and
        ``fmt``."""
        self.code.append(code)

    def mutation(self, find: str, replace: str) -> None:
        """A wrong version of the page's own formula (``find`` -> ``replace`` in its HTML),
        which the browser test must see in the numbers."""
        self.mutations.append((find, replace))

    def finish_layout(self, layout) -> Page:
        """Set the plots the page shows above its widgets; returns the page."""
        self.layout = layout
        return self

    def name(self, model, name: str):
        """Give a model a name the page's code (``M``) and the tests find it by."""
        model.name = name
        self.models[name] = model
        return model

    # --------------------------------------------------------------------- building

    def _widgets(self, view: views.View) -> list:
        declared = dict(view.handles)
        if set(declared) != set(self.handles):
            raise ValueError(
                f"{view.id}: handles {sorted(self.handles)} != declared {sorted(declared)}"
            )
        out = []
        for name, h in self.handles.items():
            h.kind = declared[name]
            n = len(h.values)
            if h.kind in ("slider", "drag"):
                h.widget = Slider(
                    start=0,
                    end=max(n - 1, 1),
                    step=1,
                    value=h.default,
                    show_value=False,
                    title=h.label,
                    name=f"handle:{name}",
                    disabled=n < 2,
                    width=420,
                )
            elif h.kind in ("buttons", "click") and h.renderer is None:
                h.widget = RadioButtonGroup(
                    labels=h.labels, active=h.default, name=f"handle:{name}"
                )
            elif h.kind in ("click", "hover"):
                # the state of a glyph handle: a slider nobody sees
                h.widget = Slider(
                    start=0,
                    end=max(n - 1, 1),
                    step=1,
                    value=h.default,
                    visible=False,
                    name=f"handle:{name}",
                )
            else:
                raise ValueError(f"{view.id}: handle {name} of kind {h.kind} has nothing to move")
            on_plot = h.kind in ("drag", "hover") or (h.kind == "click" and h.renderer is not None)
            if on_plot and (h.plot is None or len(h.xs) != n):
                raise ValueError(f"{view.id}: handle {name} needs its plot and a place per value")
            out.append(h.widget)
        return out

    def _rings(self) -> None:
        """The drag rings: one glyph per drag handle, moved by the pointer and snapped to the
        nearest of the handle's places."""
        for name, h in self.handles.items():
            if h.kind == "drag":
                src = self.name(
                    ColumnDataSource({"x": [h.xs[h.default]], "y": [h.ys[h.default]]}),
                    f"ring:{name}",
                )
                ring = h.plot.scatter(
                    "x",
                    "y",
                    source=src,
                    size=16,
                    fill_color="white",
                    fill_alpha=0.6,
                    line_color=palette.QUERY,
                    line_width=3,
                    level="overlay",
                )
                tool = PointDrawTool(renderers=[ring], add=False, drag=True)
                h.plot.add_tools(tool)
                _legends_below(h.plot)
                h.plot.toolbar.active_drag = tool
                self.name(h.plot, h.plot.name or f"plot:{name}")
            elif h.kind == "click" and h.renderer is not None:
                tool = TapTool(renderers=[h.renderer])
                h.plot.add_tools(tool)
                self.name(h.plot, h.plot.name or f"plot:{name}")
                h.renderer.data_source.selected.js_on_change(
                    "indices",
                    CustomJS(
                        args={"w": h.widget, "s": h.renderer.data_source},
                        code="const i = s.selected.indices; if (i.length) w.value = i[0];",
                    ),
                )
            elif h.kind == "hover":
                tool = HoverTool(
                    renderers=[h.renderer],
                    tooltips="<div class='tip' style='max-width:320px'>@tip{safe}</div>",
                    callback=CustomJS(
                        args={"w": h.widget},
                        code="const i = cb_data.index.indices; if (i.length) w.value = i[0];",
                    ),
                )
                h.renderer.data_source.data["tip"] = h.texts
                h.plot.add_tools(tool)
                self.name(h.plot, h.plot.name or f"plot:{name}")

    def build(self, view: views.View, cubes: Mapping, page_file: str, js: Sequence[str]) -> dict:
        """The page's HTML (returned in ``html``) and its description (the rest)."""
        widgets = self._widgets(view)
        self._rings()
        tables = []
        for s in self.shown:
            refs = {v for v in s.sel.values() if isinstance(v, str)} | {f"${h}" for h in s.when}
            deps = [h for h in self.handles.values() if h.ref() in refs]
            if s.kind == "column":
                self.name(s.source, s.source.name)
            if s.computed:
                continue
            data, size = _table(cubes[s.cube], s, deps)
            tables.append(
                {
                    "name": s.name,
                    "kind": s.kind,
                    "deps": [h.name for h in deps],
                    "size": size,
                    "data": data.astype(np.float32 if data.size > 2000 else np.float64),
                    "fmt": s.fmt,
                    "col": s.col,
                    "source": s.source.name if s.source is not None else "",
                    "when": bool(s.when),
                }
            )
        handles = {name: h.widget for name, h in self.handles.items()}
        values = {name: h.values for name, h in self.handles.items()}
        labels = {name: h.labels for name, h in self.handles.items()}
        drag = {
            name: {
                "ring": self.models[f"ring:{name}"],
                "xs": h.xs,
                "ys": h.ys,
                "plot": h.plot,
                # distances on a log axis are taken between logarithms, as the eye sees them
                "logx": isinstance(h.plot.x_scale, LogScale),
                "logy": isinstance(h.plot.y_scale, LogScale),
            }
            for name, h in self.handles.items()
            if h.kind == "drag"
        }
        layout = bk_column(*([self.layout] if self.layout is not None else []), *widgets)
        # the models are collected from the layout and joined to a document only once every
        # callback is set: each callback set on a model of a document makes the document
        # collect its models again (about a tenth of a page's time)
        models = layout.references()
        names = [m.name for m in models if m.name]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(
                f"{view.id}: models named alike ({', '.join(twice)}): the page's "
                "code and the tests find them by name"
            )
        # and the sources no glyph draws (a column the tests check and the page fills)
        named = dict(sorted(({m.name: m for m in models if m.name} | self.models).items()))
        update = CustomJS(
            args={"WIDGETS": handles, "TABLES": tables, "V": values, "LABELS": labels, "M": named},
            code=_RUNTIME + "\n" + "\n".join(self.code) + "\nfinish();",
        )
        for h in self.handles.values():
            attr = "active" if isinstance(h.widget, RadioButtonGroup) else "value"
            h.widget.js_on_change(attr, update)
        for name, d in drag.items():
            d["ring"].js_on_change(
                "data",
                CustomJS(
                    args={
                        "w": handles[name],
                        "d": {k: v for k, v in d.items() if k != "plot"},
                        "p": d["plot"],
                    },
                    code=_SNAP,
                ),
            )
            handles[name].js_on_change(
                "value",
                CustomJS(args={"w": handles[name], "d": d}, code=_RING),
            )
        doc = Document()
        doc.add_root(layout)
        doc.js_on_event("document_ready", update)
        script, div = components(layout)
        html_text = _document(view, self, script, div, page_file, js)
        for find, _ in self.mutations:  # the test edits the page's text: the formula must be there
            if html_text.count(find) < 1:
                raise ValueError(
                    f"{view.id}: the mutation's {find!r} is not in the page's text "
                    "(Bokeh escapes <, > and & in the page's code)"
                )
        about = {
            "id": view.id,
            "line": view.line,
            "title": views.heading(view.title, views.caption_of(view)),
            "file": page_file,
            "handles": [_describe(h) for h in self.handles.values()],
            "shows": [_shown(s) for s in self.shown],
            "mutations": [{"find": f, "replace": r} for f, r in self.mutations],
        }
        return {"html": html_text, **about}


def _legends_below(p) -> None:
    """Move a plot's legends under it: a legend inside the frame takes the pointer's events,
    and a ring dropped under it could not be picked up again."""
    legends = [r for r in p.center if isinstance(r, Legend)]
    p.center = [r for r in p.center if not isinstance(r, Legend)]
    for legend in legends:
        legend.orientation = "horizontal"
        legend.location = "center"
        p.add_layout(legend, "below")


def _label(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _table(ds, s: Shown, deps: Sequence[Handle]) -> tuple[np.ndarray, int]:
    """Every value a shown number takes, one row per combination of its handles' values (C
    order over ``deps``), flattened, and the row's length: rows where another declaration of
    the name holds (``s.when``) are NaN. One xarray selection with each bound dimension at all
    its handle's values (the same numbers as ``select`` at each combination, one call instead
    of one per combination); a handle that binds two dimensions is selected point by point."""
    bound = {k: v[1:] for k, v in s.sel.items() if isinstance(v, str) and v.startswith("$")}
    bound = {k: h for k, h in bound.items() if h in {d.name for d in deps}}
    shape = [len(h.values) for h in deps]
    if len(set(bound.values())) < len(bound):  # one handle on two dimensions: a diagonal
        return _table_by_point(ds, s, deps)
    by_name = {h.name: h for h in deps}
    da = ds[s.var].sel({k: v for k, v in s.sel.items() if k not in bound})
    missing = {}  # values a handle takes where another declaration holds: none in this cube
    for k, h in bound.items():
        held = set(np.asarray(da[k].values).tolist())
        missing[h] = {v for v in by_name[h].values if v not in held}
    da = da.reindex({k: by_name[h].values for k, h in bound.items()})  # missing: NaN
    for how, dims in s.reduce.items():
        da = getattr(da, how)(dim=dims)
    left = [d for d in da.dims if d not in s.along and d not in bound]
    if left:
        raise ValueError(f"{s.var} at {dict(s.sel)} still runs along {left} (declare them along)")
    names = {k: f"handle {h}" for k, h in bound.items()}  # dims named after their handles
    da = da.rename(names)
    for h in deps:  # a handle that only says where the declaration holds: the same numbers
        if f"handle {h.name}" not in da.dims:
            da = da.expand_dims({f"handle {h.name}": len(h.values)})
    # a copy: the rows of other declarations are blanked below, never the cube's own numbers
    values = np.array(
        da.transpose(*[f"handle {h.name}" for h in deps], *s.along).values, dtype=float
    )
    size = int(np.prod([da.sizes[d] for d in s.along], dtype=int))
    rows = values.reshape(int(np.prod(shape, dtype=int)), size)
    for i, index in enumerate(np.ndindex(*shape)):
        at = {h.name: h.values[j] for h, j in zip(deps, index, strict=True)}
        if not s.holds(at):
            rows[i] = np.nan  # another declaration of the name holds there
        elif any(at[h] in missing[h] for h in missing):
            raise KeyError(f"{s.var}: {_bind(s.sel, at)} is not in cube {s.cube}")
    return rows.ravel(), size


def _table_by_point(ds, s: Shown, deps: Sequence[Handle]) -> tuple[np.ndarray, int]:
    """``_table`` one combination of handle values at a time (``select`` at each)."""
    rows, size = [], 0
    for index in np.ndindex(*[len(h.values) for h in deps]) if deps else [()]:
        at = {h.name: h.values[i] for h, i in zip(deps, index, strict=True)}
        if s.holds(at):
            rows.append(select(ds, s.var, _bind(s.sel, at), s.reduce, s.along))
            size = len(rows[-1])
        else:
            rows.append(None)  # another declaration of the name holds there
    rows = [np.full(size, np.nan) if r is None else r for r in rows]
    return (np.concatenate(rows) if rows else np.zeros(0)), size


def _bind(sel: Mapping, at: Mapping) -> dict:
    """A selection with each handle reference replaced by the handle's value in ``at``."""
    return {
        k: at[v[1:]] if isinstance(v, str) and v.startswith("$") and v[1:] in at else v
        for k, v in sel.items()
    }


def _plain(value):
    """A selection's value as JSON holds it (a list stays a list)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [number(v) for v in np.asarray(value).tolist()]
    return number(value)


def json_literal(value) -> str:
    """A value written into a page's JavaScript as a literal."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _describe(h: Handle) -> dict:
    out = {
        "name": h.name,
        "kind": h.kind,
        "label": h.label,
        "values": h.values,
        "labels": h.labels,
        "default": h.default,
    }
    numeric = all(isinstance(v, (int, float)) for v in h.values)
    if numeric and h.kind in ("slider", "drag"):
        out["range"] = [min(h.values), max(h.values)]
    if h.plot is not None and h.xs:
        out |= {"plot": h.plot.name, "xs": h.xs, "ys": h.ys}
    if h.kind == "hover":
        out["texts"] = h.texts
    return out


def _shown(s: Shown) -> dict:
    return {
        "name": s.name,
        "kind": s.kind,
        "cube": s.cube,
        "var": s.var,
        "sel": {k: _plain(v) for k, v in s.sel.items()},
        "reduce": {k: list(v) if not isinstance(v, str) else v for k, v in s.reduce.items()},
        "along": list(s.along),
        "fmt": s.fmt,
        "label": s.label,
        "computed": s.computed,
        "when": {h: [_plain(v) for v in vs] for h, vs in s.when.items()},
    }


# The page's runtime, run on every move: read each handle's position, look every embedded number
# up in its table, set the texts and the columns, then the page's own code; `finish` marks the
# page as ready for the tests (data-ready on the body, counting updates).
_RUNTIME = r"""
const st = {};
for (const [n, w] of Object.entries(WIDGETS)) st[n] = (w.active !== undefined ? w.active : w.value);
function fmt(x, f) {
  if (x === null || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const m = /^\.(\d+)([fge%])$/.exec(f);
  if (f === 'd') return String(Math.round(x));
  if (!m) return String(x);
  const d = +m[1];
  if (m[2] === 'f') return x.toFixed(d);
  if (m[2] === 'e') return x.toExponential(d);
  if (m[2] === '%') return (100 * x).toFixed(d) + '%';
  return String(Number(x.toPrecision(Math.max(d, 1))));
}
function put(name, value, f) {
  const el = document.getElementById('r-' + name);
  if (el) { el.textContent = typeof value === 'string' ? value : fmt(value, f || el.dataset.fmt);
            el.dataset.value = String(value); }
}
function setColumn(src, col, values) {
  const data = Object.assign({}, src.data);
  data[col] = Array.from(values);
  src.data = data;
}
for (const t of TABLES) {
  let at = 0;
  for (const n of t.deps) at = at * V[n].length + st[n];
  const row = t.data.slice(at * t.size, (at + 1) * t.size);
  if (t.when && row.every(Number.isNaN)) continue;  // another declaration holds here
  if (t.kind === 'text') put(t.name, row[0], t.fmt);
  else setColumn(M[t.source], t.col, row);
}
for (const [n, i] of Object.entries(st)) {
  const el = document.getElementById('h-' + n);
  if (el) el.textContent = LABELS[n][i];
}
function finish() {
  document.body.dataset.ready = String((+document.body.dataset.ready || 0) + 1);
}
"""

# A ring let go: snap it to the nearest place of its handle (distances in screen units of the
# plot's ranges), and move the handle there.
_SNAP = r"""
const fx = v => (d.logx ? Math.log(Math.max(v, 1e-300)) : v);
const fy = v => (d.logy ? Math.log(Math.max(v, 1e-300)) : v);
const x = fx(d.ring.data.x[0]), y = fy(d.ring.data.y[0]);
const sx = Math.abs(fx(p.x_range.end) - fx(p.x_range.start)) || 1;
const sy = Math.abs(fy(p.y_range.end) - fy(p.y_range.start)) || 1;
let best = 0, dist = Infinity;
for (let i = 0; i < d.xs.length; i++) {
  const e = ((x - fx(d.xs[i])) / sx) ** 2 + ((y - fy(d.ys[i])) / sy) ** 2;
  if (e < dist) { dist = e; best = i; }
}
if (w.value !== best) w.value = best;
else if (d.ring.data.x[0] !== d.xs[best] || d.ring.data.y[0] !== d.ys[best])
  d.ring.data = {x: [d.xs[best]], y: [d.ys[best]]};
"""

# The handle moved (by its slider or its ring): put the ring on its place.
_RING = r"""
const i = w.value;
if (d.ring.data.x[0] !== d.xs[i] || d.ring.data.y[0] !== d.ys[i])
  d.ring.data = {x: [d.xs[i]], y: [d.ys[i]]};
"""


def _document(view: views.View, page: Page, script: str, div: str, page_file: str, js) -> str:
    """The page in the project's shell: title, caption (the twin's), links, the plots and
    widgets, the numbers shown, and Bokeh's JavaScript from figures/_js/."""
    esc = html.escape
    caption = " ".join(views.caption_of(view).split())
    title = views.heading(view.title, caption)
    png = f"figures/{view.id}.png"
    scripts = "".join(f"<script src='{shell.href(str(p), page_file)}'></script>" for p in js)
    readouts = []
    for name, h in page.handles.items():
        if h.kind != "hover":
            readouts.append(
                f"<span><b>{esc(h.label)}</b> <output id='h-{esc(name)}' "
                f"data-handle='{esc(name)}'>{esc(h.labels[h.default])}</output></span>"
            )
    seen = set()
    for s in page.shown:
        if s.kind == "text" and s.name not in seen:
            seen.add(s.name)
            unit = f" {esc(s.unit)}" if s.unit else ""
            readouts.append(
                f"<span><b>{esc(s.label)}</b> <output id='r-{esc(s.name)}' "
                f"data-readout='{esc(s.name)}' data-fmt='{esc(s.fmt)}'></output>{unit}</span>"
            )
    where = f"{view.doc}, line {view.line}"
    return (
        shell.head(title, "page")
        + scripts
        + f"<h1>{esc(title)}</h1><p class='caption'>{esc(caption)}</p>"
        + f"<p class='note'>{esc(where)} · "
        + shell.link(png, page_file, "static figure")
        + " · "
        + shell.link(f"{shell.GALLERY}#{view.id}", page_file, "gallery")
        + (f" · {esc(page.note)}" if page.note else "")
        + "</p>"
        + div
        + f"<div class='readouts'>{''.join(readouts)}</div>"
        + script
        + "</body></html>\n"
    )


def build_pages(
    module: str, cube_paths: Mapping[str, str], settings: Mapping, htmls: Mapping[str, str], js
) -> dict[str, dict]:
    """Build the pages ``htmls`` (id -> file) of one interactive module from the cubes; return
    each page's description (what the gallery lists and the tests read)."""
    from ..cli import imported_as_scanned
    from ..cube import read_cube

    functions = imported_as_scanned(module, "page")
    declared = {v.id: v for v in views.groups("page")[module]}
    wanted = [declared[i] for i in htmls]
    cubes = {c: read_cube(cube_paths[c]) for c in views.cubes_of(wanted)}
    out = {}
    for view in wanted:
        chosen = {name: settings[name] for name in view.settings}
        page = functions[view.id]({c: cubes[c] for c in view.cubes}, **chosen)
        path = Path(htmls[view.id])
        about = page.build(view, cubes, str(path), js)
        text = about.pop("html")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".html.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        about["bytes"] = len(text.encode())
        out[view.id] = about
        log.info("built %s (%.0f KB)", path, len(text) / 1024)
    return out


def figure_constant(module: str, name: str):
    """A literal constant of a figure module (its text: the words a diagram shows), read
    without importing the module (which imports matplotlib)."""
    import ast

    path = views.PACKAGE_DIR / "figures" / f"{module}.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError(f"figures/{module}.py has no literal constant {name}")


ROLE = {
    "grey": palette.GREY,
    "query": palette.QUERY,
    "stored": palette.STORED,
    "observed": palette.OBSERVED,
    "result": palette.RESULT,
    "limit": palette.LIMIT,
}
