"""One colour code and one look for every figure (the notes' roles, see DESIGN.md, Figures),
and the checks that a drawn figure is readable: no text on text or under a plotted line, three
type sizes, no two series told apart by a red-green hue alone, no label at a line's end nearer
another line than its own, no framed panel with nothing drawn in it, and no heat map without
a colour bar or axis titles.

The colours and sizes are `attnmem.palette`'s (chosen to stay apart for readers with red-green
colour blindness), which the interactive pages read too.
"""

from __future__ import annotations

import itertools
import logging
import os
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import axis as maxis  # noqa: E402
from matplotlib import cbook  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402
from matplotlib.colors import to_hex, to_rgba, to_rgba_array  # noqa: E402
from matplotlib.text import Text  # noqa: E402

# The colour code and the type sizes are the palette's, shared with the interactive pages; the
# figure modules read them from here as style.QUERY, style.SMALL, ...
from ..palette import (  # noqa: E402, F401
    CYCLE,
    GREY,
    LARGE,
    LEGEND,
    LIMIT,
    NORMAL,
    OBSERVED,
    QUERY,
    RESULT,
    SIGN,
    SIZES,
    SMALL,
    STORED,
)

log = logging.getLogger("attnmem")

# A label set on plotted lines sits on this white box, so that no line runs through it.
LABEL_BOX = {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85}

# A legend that has to sit over a marker line gets a white frame (legends have none by default).
FRAMED = {"frameon": True, "framealpha": 0.9, "edgecolor": "none"}

RC = {
    "figure.dpi": 110,
    "savefig.dpi": 130,
    "font.size": NORMAL,
    "axes.titlesize": LARGE,
    "axes.labelsize": NORMAL,
    "figure.titlesize": LARGE,
    "legend.fontsize": SMALL,
    "legend.title_fontsize": SMALL,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "svg.hashsalt": "attnmem",  # stable SVG ids, so a redraw of the same data is the same file
    "svg.fonttype": "none",
}


def spread(values, gap: float) -> np.ndarray:
    """Label positions for ``values`` at least ``gap`` apart, in the values' order, each group
    of crowded labels centred on its values: for labels at the ends of lines that finish close
    together."""
    values = np.asarray(values, float)
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    groups: list[list[int]] = []  # runs of sorted indices laid out as one block
    for i in range(len(sorted_values)):
        groups.append([i])
        while len(groups) > 1:
            low, high = groups[-2], groups[-1]
            if _block(sorted_values, low, gap)[-1] + gap <= _block(sorted_values, high, gap)[0]:
                break
            groups[-2:] = [low + high]
    placed = np.concatenate([_block(sorted_values, g, gap) for g in groups]) if groups else values
    out = np.empty_like(values)
    out[order] = placed
    return out


def _block(values: np.ndarray, members: list[int], gap: float) -> np.ndarray:
    """Positions ``gap`` apart, centred on the mean of the members' values."""
    offsets = gap * (np.arange(len(members)) - (len(members) - 1) / 2)
    return values[members].mean() + offsets


def ring_label(ax, xy, text: str, dot_area: float, **kwargs) -> None:
    """Label a dot on a circle round the origin from outside: the text starts just beyond the
    dot (``dot_area`` in points squared, as scatter's ``s``), aligned away from the centre."""
    x, y = xy
    reach = np.sqrt(dot_area) / 2 + 3
    ax.annotate(
        text,
        (x, y),
        xytext=(reach * x, reach * y),
        textcoords="offset points",
        ha="left" if x > 0.3 else "right" if x < -0.3 else "center",
        va="bottom" if y > 0.3 else "top" if y < -0.3 else "center",
        fontsize=SMALL,
        **kwargs,
    )


def apply() -> None:
    plt.rcParams.update(RC)
    plt.rcParams["axes.prop_cycle"] = matplotlib.cycler(color=list(CYCLE))


def save(fig, png_path: str | Path, svg: bool = False) -> list[str]:
    """Write the figure as PNG (and, if ``svg``, as SVG beside it), then close it; return (and
    log) what makes it hard to read (``problems``).

    One Agg draw at the PNG's resolution lays the figure out, renders it and records the texts
    the readability check reads; the PNG is that render cut to what it drew (its ink) plus
    savefig's pad. Reading the box off the pixels spares a fourth pass over every artist's
    extent (the figure's tight box, about a tenth of a figure's time). Only when the ink meets
    the canvas's edge, or a text or an axes reaches past it (Agg drops the glyphs that cross
    the edge, so the ink alone cannot tell), is the figure drawn again, by savefig with its
    tight box. The layout is then frozen for the SVG, so that its own draw lays nothing out
    again. Each file is written beside its name and renamed onto it: a reader (or a crash)
    never meets half a PNG, and a file the job did not draw again keeps its inode."""
    final = Path(png_path)
    final.parent.mkdir(parents=True, exist_ok=True)
    png_path = final.with_name("." + final.name)  # written here, renamed at the end
    fig.set_dpi(plt.rcParams["savefig.dpi"])
    with _layouts_remembered():
        return _save(fig, final, png_path, svg)


def _save(fig, final: Path, png_path: Path, svg: bool) -> list[str]:
    """`save` once the layouts are remembered: draw, check, write."""
    _share_mathtext(fig.canvas.get_renderer())  # the renderer the draw below reuses
    with _recording_texts() as drawn:
        fig.canvas.draw()
    texts = list({id(t): t for t in drawn}.values())
    boxes = [_box(t, fig.canvas.get_renderer()) for t in texts]
    found = problems(fig, texts, boxes)
    for problem in found:
        log.warning("%s: %s", final.name, problem)
    pad = plt.rcParams["savefig.pad_inches"]
    fig.set_layout_engine(None)  # not "none": its placeholder engine makes savefig lay out again
    bbox = None
    if not (_within_canvas(fig, boxes) and _write_inked_png(fig, pad, png_path)):
        log.info("%s is blank or reaches past its canvas: drawn again by savefig", final.name)
        bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(pad)
        fig.savefig(png_path, bbox_inches=bbox, metadata={"Software": None})
    if svg:
        bbox = bbox or fig.get_tightbbox(fig.canvas.get_renderer()).padded(pad)
        fig.savefig(png_path.with_suffix(".svg"), bbox_inches=bbox, metadata={"Date": None})
        os.replace(png_path.with_suffix(".svg"), final.with_suffix(".svg"))
    os.replace(png_path, final)
    plt.close(fig)
    return found


# ----------------------------------------------------------------------------- remembered layouts

LAYOUT_CACHE_OFF = "ATTNMEM_NO_LAYOUT_CACHE"  # set to 1: no layout remembered (_layouts_remembered)


@contextmanager
def _layouts_remembered():
    """Compute each text's layout and each axis's ticks once per state while a figure is saved.

    A draw with the constrained layout asks matplotlib for the same ticks and text boxes many
    times over (each of the layout's two passes, each title and axis label placed, the render,
    the checks): drawing the 82 figures updated their 612 axes' ticks 9,137 times and laid out
    texts 43,820 times (3,015 distinct), a quarter of their CPU time. Here matplotlib's own
    functions run the first time and again whenever anything they read has changed (what
    _text_state and _axis_state hold); otherwise their last answer is given back. The figure
    drawn is the same to the pixel (tests/test_figure_layout.py draws figures both ways).
    These are private functions of matplotlib: pyproject.toml bounds its version to those the
    pixel test has passed on, and ``ATTNMEM_NO_LAYOUT_CACHE=1`` leaves matplotlib as it is."""
    layout_of = getattr(Text, "_get_layout", None)
    ticks_of = getattr(maxis.Axis, "_update_ticks", None)
    label_boxes_of = getattr(maxis.Axis, "_get_ticklabel_bboxes", None)
    if None in (layout_of, ticks_of, label_boxes_of) or os.environ.get(LAYOUT_CACHE_OFF):
        yield  # a matplotlib without them, or the cache switched off: drawn as matplotlib does
        return
    layouts = _LAYOUTS.setdefault(_text_settings(), {})
    if len(layouts) > 20_000:  # a long session's texts: start again rather than grow
        layouts.clear()
    ticks: dict[object, tuple] = {}  # axis -> (its state, its ticks to draw)
    boxes: dict[object, tuple] = {}  # axis -> (its state and those ticks, their labels' boxes)

    def text_layout(self, renderer, *args, **kwargs):
        if args or kwargs or self.get_wrap():  # a wrapped text depends on its place too
            return layout_of(self, renderer, *args, **kwargs)
        key = _text_state(self, renderer)
        if key not in layouts:
            layouts[key] = layout_of(self, renderer)
        return layouts[key]

    def update_ticks(self):
        state = _axis_state(self)
        last = ticks.get(self)
        if last is None or last[0] != state:
            last = ticks[self] = (state, ticks_of(self))
        return list(last[1])

    def label_boxes(self, drawn, renderer):
        state = (*_axis_state(self), renderer, *drawn)
        last = boxes.get(self)
        if last is None or last[0] != state:
            last = boxes[self] = (state, label_boxes_of(self, drawn, renderer))
        return list(last[1][0]), list(last[1][1])

    Text._get_layout = text_layout
    maxis.Axis._update_ticks = update_ticks
    maxis.Axis._get_ticklabel_bboxes = label_boxes
    try:
        yield
    finally:
        Text._get_layout = layout_of
        maxis.Axis._update_ticks = ticks_of
        maxis.Axis._get_ticklabel_bboxes = label_boxes_of


# The text layouts of the figures saved so far in this process, by the settings they follow
# (_text_settings): a job's figures share many tick labels and axis titles.
_LAYOUTS: dict[str, dict[tuple, object]] = {}


def _text_settings() -> str:
    """The rcParams a text's size on the canvas follows besides its own properties: the fonts
    each family names, hinting, kerning, math fonts."""
    return repr(
        sorted(
            (k, v) for k, v in plt.rcParams.items() if k.startswith(("font.", "text.", "mathtext."))
        )
    )


_MATHTEXT: dict = {}  # a renderer's kind of math text parser -> the one parser all share


def _share_mathtext(renderer) -> None:
    """Give a renderer the math text parser of the figures saved before it: a parser keeps its
    last 50 expressions (keyed by text, font, dpi, hinting), and each figure's new renderer
    otherwise parses again the tick labels (10^k) that most log axes share, at about 8 ms each."""
    parser = getattr(renderer, "mathtext_parser", None)
    kind = getattr(parser, "_output_type", None)
    if kind is not None:
        renderer.mathtext_parser = _MATHTEXT.setdefault((type(parser), kind), parser)


def _text_state(text: Text, renderer) -> tuple:
    """Everything matplotlib's Text._get_layout reads but the rcParams: the string, its font,
    size, alignment, rotation, line spacing, math parsing, the kind of renderer and the dpi (a
    renderer measures a text by these alone, the same for every figure)."""
    font = text.get_fontproperties()
    return (
        text.get_text(),
        type(renderer),
        getattr(renderer, "dpi", None),
        text.figure.dpi,
        tuple(font.get_family()),
        font.get_style(),
        font.get_variant(),
        font.get_weight(),
        font.get_stretch(),
        font.get_size(),
        font.get_file(),
        font.get_math_fontfamily(),
        text.get_usetex(),
        text.get_parse_math(),
        text.get_rotation(),
        text.get_rotation_mode(),
        text.get_horizontalalignment(),
        text.get_verticalalignment(),
        text._multialignment,
        text._linespacing,
    )


def _axis_state(axis) -> tuple:
    """Everything an axis's ticks (where they are, what they say, which are drawn) and their
    labels' boxes follow from: the view and data limits, the axes' place on the canvas, the dpi,
    the scale, the locators and formatters, and the tick settings."""
    return (
        *axis.get_view_interval(),
        *axis.get_data_interval(),
        axis.get_minpos(),
        *axis.axes.bbox.bounds,
        axis.figure.dpi,
        repr(axis._major_tick_kw),
        repr(axis._minor_tick_kw),
        axis._scale,
        axis.major.locator,
        axis.minor.locator,
        axis.major.formatter,
        axis.minor.formatter,
        axis.__dict__.get("majorTicks"),
        axis.__dict__.get("minorTicks"),
    )


def _within_canvas(fig, boxes: list[np.ndarray]) -> bool:
    """Whether every drawn text (its corners, ``boxes``) and every axes lies on the canvas."""
    width, height = fig.canvas.get_width_height(physical=True)
    corners = [*boxes, *(np.asarray(ax.get_window_extent().get_points()) for ax in fig.axes)]
    if not corners:
        return True
    points = np.concatenate(corners)
    return bool(
        (points >= 0).all() and (points[:, 0] <= width).all() and (points[:, 1] <= height).all()
    )


def ink_box(pixels: np.ndarray, background: np.ndarray) -> tuple[int, int, int, int] | None:
    """The rows and columns (top, bottom, left, right; ends exclusive) of an RGBA image that
    hold a pixel other than ``background``; None when every pixel is background. On a
    transparent background any pixel with some opacity is ink."""
    if background[3] == 255:
        packed = np.ascontiguousarray(pixels).view(np.uint32)[..., 0]
        ink = packed != np.frombuffer(background.tobytes(), np.uint32)[0]
    else:
        ink = pixels[..., 3] != 0
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not len(rows):
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _write_inked_png(fig, pad: float, path: Path) -> bool:
    """Write the canvas's last render cut to its ink plus ``pad`` inches of the figure's
    background on every side. False, writing nothing, when the ink reaches an edge of the
    canvas (then only a new draw can show what lies beyond) or there is none."""
    from PIL import Image

    dpi = fig.dpi
    pixels = np.asarray(fig.canvas.buffer_rgba())
    height, width = pixels.shape[:2]
    background = np.round(np.array(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    box = ink_box(pixels, background)
    if box is None:
        return False
    top, bottom, left, right = box
    if top == 0 or left == 0 or bottom == height or right == width:
        return False
    margin = int(round(pad * dpi))
    opaque = background[3] == 255 and bool((pixels[top:bottom, left:right, 3] == 255).all())
    mode = "RGB" if opaque else "RGBA"  # a figure's white ground: RGB is smaller, faster to write
    # Pillow cuts, drops the alpha and frames in C, five times faster than numpy's strided copy
    canvas = Image.frombuffer("RGBA", (width, height), pixels, "raw", "RGBA", 0, 1)
    ink = canvas.crop((left, top, right, bottom)).convert(mode)
    ground = tuple(int(c) for c in background[: len(mode)])
    out = Image.new(mode, (ink.width + 2 * margin, ink.height + 2 * margin), ground)
    out.paste(ink, (margin, margin))
    # zlib level 3: a third faster to write than Pillow's default 6, files 5% larger
    out.save(path, format="png", dpi=(dpi, dpi), compress_level=3)
    return True


# ----------------------------------------------------------------------------- readability checks

TOUCH_PX = 1.0  # boxes may touch: an overlap must be deeper than this (pixels at figure dpi)


@contextmanager
def _recording_texts():
    """Collect the texts a draw actually draws (tick labels outside the view are not drawn)."""
    drawn: list[Text] = []
    original = Text.draw

    def draw(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)

    Text.draw = draw
    try:
        yield drawn
    finally:
        Text.draw = original


def _name(text: Text) -> str:
    words = " / ".join(line.strip() for line in text.get_text().splitlines() if line.strip())
    return repr(words if len(words) <= 40 else words[:37] + "...")


def _colour_name(colour) -> str:
    hexed = to_hex(colour)
    return next((name for c, name, _ in LEGEND if c == hexed), hexed)


def _box(text: Text, renderer) -> np.ndarray:
    """The four corners of a text's box in display pixels, turned with the text (of an
    annotation, the text alone, not its arrow)."""
    ext = Text.get_window_extent(text, renderer)
    angle = text.get_rotation()
    corners = [[ext.x0, ext.y0], [ext.x1, ext.y0], [ext.x1, ext.y1], [ext.x0, ext.y1]]
    if min(angle % 90, 90 - angle % 90) < 1e-6:
        return np.array(corners)
    text.set_rotation(0)  # the unturned size; the turned box shares its centre with ext
    flat = Text.get_window_extent(text, renderer)
    text.set_rotation(angle)
    t = np.deg2rad(angle)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [flat.width / 2, flat.height / 2]
    return np.array([(ext.x0 + ext.x1) / 2, (ext.y0 + ext.y1) / 2]) + half @ turn.T


def _depth(a: np.ndarray, b: np.ndarray) -> float:
    """How far two convex boxes overlap (their smallest overlap over the separating axes;
    negative when they are apart)."""
    depth = np.inf
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]]) / np.hypot(*edge)
            pa, pb = a @ normal, b @ normal
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
    return depth


def _clip(p0: np.ndarray, p1: np.ndarray, lo, hi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Liang-Barsky: which segments p0->p1 cross the rectangle [lo, hi], and their parts in it."""
    d = p1 - p0
    t0, t1 = np.zeros(len(d)), np.ones(len(d))
    keep = np.isfinite(p0).all(1) & np.isfinite(p1).all(1)
    for k in range(2):
        for p, q in ((-d[:, k], p0[:, k] - lo[k]), (d[:, k], hi[k] - p0[:, k])):
            with np.errstate(divide="ignore", invalid="ignore"):
                r = q / p
            keep &= ~((p == 0) & (q < 0))
            t0 = np.where(p < 0, np.maximum(t0, r), t0)
            t1 = np.where(p > 0, np.minimum(t1, r), t1)
    keep &= t0 <= t1
    return keep, p0 + t0[:, None] * d, p0 + t1[:, None] * d


def _marks(ax) -> list[tuple[str, np.ndarray, float, np.ndarray]]:
    """The plotted lines of an axes: (name, segment starts, ends, marker half-size, marker
    points), in display pixels, clipped to the axes (grid lines and legend keys are not
    plotted lines)."""
    box = ax.get_window_extent()
    lo, hi = np.array([box.x0, box.y0]), np.array([box.x1, box.y1])
    out = []
    for line in ax.lines:
        if not line.get_visible():
            continue
        x, y = np.asarray(line.get_xydata(), float).T  # converted: categories as numbers
        points = line.get_transform().transform(np.column_stack([x, y]))
        style = line.get_drawstyle()
        if style not in (None, "default"):
            x, y = cbook.STEP_LOOKUP_MAP[style](x, y)
        path = line.get_transform().transform(np.column_stack([x, y]))
        drawn = line.get_linestyle() not in ("None", " ", "") and line.get_linewidth() > 0
        label = line.get_label()
        name = repr(label) if not label.startswith("_") else f"a {_colour_name(line.get_color())}"
        starts, ends = (path[:-1], path[1:]) if drawn else (np.empty((0, 2)),) * 2
        if line.get_clip_on() and len(starts):
            keep, starts, ends = _clip(starts, ends, lo, hi)
            starts, ends = starts[keep], ends[keep]
        has_marker = line.get_marker() not in (None, "None", " ", "", ",")
        half = line.get_markersize() / 2 * ax.figure.dpi / 72 if has_marker else 0.0
        inside = (points >= lo).all(1) & (points <= hi).all(1) & np.isfinite(points).all(1)
        out.append((f"line {name}", starts, ends, half, points[inside] if has_marker else None))
    for coll in ax.collections:
        if not isinstance(coll, LineCollection) or not coll.get_visible():
            continue
        segs = [coll.get_transform().transform(s) for s in coll.get_segments() if len(s) > 1]
        if not segs:
            continue
        starts = np.concatenate([s[:-1] for s in segs])
        ends = np.concatenate([s[1:] for s in segs])
        keep, starts, ends = _clip(starts, ends, lo, hi)
        label = coll.get_label()
        name = repr(label) if label and not label.startswith("_") else "lines"
        out.append((f"line {name}", starts[keep], ends[keep], 0.0, None))
    for coll in ax.collections:  # scatter dots, each of its own size
        if not isinstance(coll, PathCollection) or not coll.get_visible():
            continue
        offsets = np.ma.filled(np.ma.asarray(coll.get_offsets(), float), np.nan)
        points = coll.get_offset_transform().transform(offsets)
        sizes = np.sqrt(np.asarray(coll.get_sizes(), float)) / 2 * ax.figure.dpi / 72
        if not len(points) or not len(sizes):
            continue
        half = np.resize(sizes, len(points))
        inside = (points >= lo).all(1) & (points <= hi).all(1) & np.isfinite(points).all(1)
        empty = np.empty((0, 2))
        out.append(("a dot", empty, empty, half[inside], points[inside]))
    return out


def _crossed(box: np.ndarray, starts, ends, half, points) -> bool:
    """Whether segments or markers enter a text's box by more than TOUCH_PX."""
    centre = box.mean(0)
    edge = box[1] - box[0]
    cos, sin = edge / np.hypot(*edge)
    to_local = np.array([[cos, sin], [-sin, cos]])
    w = np.hypot(*(box[1] - box[0])) / 2 - TOUCH_PX
    h = np.hypot(*(box[3] - box[0])) / 2 - TOUCH_PX
    if w <= 0 or h <= 0:
        return False
    if len(starts):
        a, b = (starts - centre) @ to_local.T, (ends - centre) @ to_local.T
        if _clip(a, b, (-w, -h), (w, h))[0].any():
            return True
    if points is not None and len(points):
        local = np.abs((points - centre) @ to_local.T)
        if ((local[:, 0] < w + half) & (local[:, 1] < h + half)).any():
            return True
    return False


def _on_opaque_box(fig) -> set[int]:
    """The texts drawn on an opaque box (their own, or a legend's frame), which hides the
    lines under them."""
    out = set()
    artists = _artists(fig)
    for text in (a for a in artists if isinstance(a, Text)):
        patch = text.get_bbox_patch()
        if patch is not None and to_rgba(patch.get_facecolor())[3] > 0.5:
            out.add(id(text))
    for legend in (a for a in artists if a.__class__.__name__ == "Legend"):
        frame = legend.get_frame()
        if legend.get_frame_on() and to_rgba(frame.get_facecolor())[3] > 0.5:
            out.update(id(t) for t in _artists(legend) if isinstance(t, Text))
    return out


def _artists(root) -> list:
    """An artist and all it holds, as matplotlib's findobj lists them, without findobj's
    joining of lists level by level (quadratic in an axes' thousands of tick parts)."""
    out, stack = [], [root]
    while stack:
        artist = stack.pop()
        out.append(artist)
        stack.extend(reversed(artist.get_children()))
    return out


def problems(fig, drawn: list[Text] | None = None, boxes=None) -> list[str]:
    """Everything that makes a figure hard to read, one sentence each: text collisions,
    red-against-green series, type sizes off the scale, line-end labels beside the wrong line,
    empty panels, heat maps without a scale or axis titles. Empty for a readable figure.
    ``drawn``, ``boxes``: see text_overlaps."""
    found = text_overlaps(fig, drawn, boxes) + hue_only_pairs(fig)
    found += misplaced_end_labels(fig) + empty_axes(fig) + bare_heat_maps(fig)
    off = [size for size in font_sizes(fig) if size not in SIZES]
    if off:
        found.append(f"font sizes {off} are not among the style's {list(SIZES)}")
    return found


def text_overlaps(fig, drawn: list[Text] | None = None, boxes=None) -> list[str]:
    """Every collision in a figure, one sentence each: two texts whose boxes overlap (tick,
    axis and colour-bar labels, titles, legends, annotations), or a text crossed by a plotted
    line or marker of an axes. ``drawn``: the texts the figure's last draw drew (recorded by
    _recording_texts); without them, the figure is drawn once here (layout included).
    ``boxes``: the corners of each of the distinct ``drawn`` texts (_box), if known already."""
    if drawn is None:
        with _recording_texts() as drawn:
            fig.draw_without_rendering()
    texts = list({id(t): t for t in drawn}.values())
    if boxes is None:
        boxes = [_box(t, fig.canvas.get_renderer()) for t in texts]
    lows = np.array([b.min(0) for b in boxes]).reshape(-1, 2)
    highs = np.array([b.max(0) for b in boxes]).reshape(-1, 2)
    found = []
    # pairs whose bounds overlap, all at once; the exact (turned-box) test only for those
    both = np.minimum(highs[:, None], highs[None]) - np.maximum(lows[:, None], lows[None])
    close = np.triu((both > TOUCH_PX).all(-1), k=1)
    for i, j in zip(*np.nonzero(close), strict=True):
        if _depth(boxes[i], boxes[j]) > TOUCH_PX:
            found.append(f"text {_name(texts[i])} overlaps text {_name(texts[j])}")
    masked = _on_opaque_box(fig)
    for ax in fig.axes:
        for name, starts, ends, half, points in _marks(ax):
            lo, hi = _extent(starts, ends, half, points)
            near = _near(lows, highs, lo - 2 * TOUCH_PX, hi + 2 * TOUCH_PX)
            for i in np.flatnonzero(near):
                if id(texts[i]) not in masked and _crossed(boxes[i], starts, ends, half, points):
                    found.append(f"text {_name(texts[i])} is under {name}")
    return list(dict.fromkeys(found))


def _extent(starts, ends, half, points) -> tuple[np.ndarray, np.ndarray]:
    """The axis-aligned bounds of a plotted line's segments and markers."""
    parts = [starts, ends]
    if points is not None and len(points):
        reach = np.reshape(half, (-1, 1)) if np.ndim(half) else half
        parts += [points - reach, points + reach]
    every = np.concatenate([np.empty((0, 2)), *(p for p in parts if len(p))])
    every = every[np.isfinite(every).all(1)]
    if not len(every):  # nothing drawn: bounds that meet no box
        return np.full(2, np.inf), np.full(2, -np.inf)
    return every.min(0), every.max(0)


def _near(lows: np.ndarray, highs: np.ndarray, lo, hi) -> np.ndarray:
    """Which of the boxes [lows, highs] overlap [lo, hi] by more than TOUCH_PX both ways."""
    return ((np.minimum(highs, hi) - np.maximum(lows, lo)) > TOUCH_PX).all(1)


def font_sizes(fig) -> list[float]:
    """The distinct sizes of a figure's visible texts."""
    texts = [a for a in _artists(fig) if isinstance(a, Text) and a.get_visible() and a.get_text()]
    return sorted({float(t.get_fontsize()) for t in texts})


def hue_only_pairs(fig) -> list[str]:
    """Pairs of named series in one axes, red against green, drawn with the same line style
    and marker: told apart by a red-green hue only."""
    found = []
    for ax in fig.axes:
        named = [line for line in ax.lines if not line.get_label().startswith("_")]
        for a, b in itertools.combinations(named, 2):
            hues = {_colour_name(a.get_color()), _colour_name(b.get_color())}
            same = (a.get_linestyle(), a.get_marker()) == (b.get_linestyle(), b.get_marker())
            if hues == {"red", "green"} and same:
                found.append(f"{a.get_label()!r} and {b.get_label()!r} differ by red/green only")
    return list(dict.fromkeys(found))


# ----------------------------------------------------------------------------- what a panel shows

END_REACH_PX = 40.0  # a text starting this far right of a line's last point labels that end


def _line_ends(ax) -> list[tuple[object, np.ndarray]]:
    """The drawn lines of an axes (a line style, two finite points or more, not vertical) with
    the display position of their rightmost finite point."""
    out = []
    for line in ax.lines:
        if not line.get_visible() or line.get_linestyle() in ("None", " ", ""):
            continue
        x, y = np.asarray(line.get_xydata(), float).T
        finite = np.isfinite(x) & np.isfinite(y)
        if finite.sum() < 2:
            continue
        points = line.get_transform().transform(np.column_stack([x[finite], y[finite]]))
        if np.ptp(points[:, 0]) < 1:  # a vertical line (a marked value) has no end to label
            continue
        out.append((line, points[np.argmax(points[:, 0])]))
    return out


def _line_name(line) -> str:
    label = line.get_label()
    colour = f"{_colour_name(line.get_color())} line"
    return f"the {colour} {label!r}" if not label.startswith("_") else f"a {colour}"


def _own_line(text: Text, labels: list[Text], lines: list) -> object | None:
    """The line a line-end label names: the one line of its colour, or the one whose legend
    label it spells, or else, among the labels and lines of its colour, the one of the same
    rank in drawing order (code that labels a series draws its line and its label together)."""
    colour = to_hex(text.get_color())
    same = [line for line in lines if to_hex(line.get_color()) == colour]
    if len(same) == 1:
        return same[0]
    spelled = [line for line in lines if line.get_label().strip() == text.get_text().strip()]
    if len(spelled) == 1:
        return spelled[0]
    peers = [t for t in labels if to_hex(t.get_color()) == colour]
    if same and len(peers) == len(same):
        return same[peers.index(text)]
    return None


def misplaced_end_labels(fig) -> list[str]:
    """Labels set just past the ends of two or more lines (within END_REACH_PX of their last
    points) that sit nearer another line's end than their own line's, vertically: a reader
    pairs a label with the nearest line. A label joined to its point by an arrow is exempt."""
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        ends = _line_ends(ax)
        if len(ends) < 2:
            continue
        labels, reach = [], {}
        for text in ax.texts:
            if not text.get_visible() or not text.get_text().strip():
                continue
            if getattr(text, "arrow_patch", None) is not None:
                continue
            box = Text.get_window_extent(text, renderer)
            near = [
                (line, end) for line, end in ends if -TOUCH_PX <= box.x0 - end[0] <= END_REACH_PX
            ]
            if len(near) >= 2:
                labels.append(text)
                reach[id(text)] = (box, near)
        for text in labels:
            box, near = reach[id(text)]
            lines = [line for line, _ in near]
            own = _own_line(text, labels, lines)
            if own is None:
                continue
            centre = (box.y0 + box.y1) / 2
            gaps = {id(line): abs(end[1] - centre) for line, end in near}
            nearest = min(near, key=lambda e: gaps[id(e[0])])[0]
            if nearest is not own and gaps[id(own)] - gaps[id(nearest)] > TOUCH_PX:
                found.append(
                    f"end label {_name(text)} is nearer {_line_name(nearest)} than its own "
                    f"line ({_line_name(own)})"
                )
    return list(dict.fromkeys(found))


def _draws(artist, box) -> bool:
    """Whether an artist of an axes puts ink inside the axes's box ``box`` (display pixels):
    a bar of zero height, a line with no finite point or an empty collection draws nothing; a
    line is ink along its length (a flat one too), a marker at its point."""
    if not artist.get_visible():
        return False
    try:
        ext = artist.get_window_extent()
    except (AttributeError, TypeError, ValueError, NotImplementedError):
        return True
    points = ext.get_points()
    if not np.isfinite(points).all() or (abs(points) > 1e7).any():
        return True  # a line across the whole view (axhline) reports an odd extent
    if ext.x1 < box.x0 or ext.x0 > box.x1 or ext.y1 < box.y0 or ext.y0 > box.y1:
        return False
    wide, tall = ext.width >= 0.5, ext.height >= 0.5
    if hasattr(artist, "get_xydata"):  # a Line2D
        marker = artist.get_marker() not in (None, "None", " ", "", ",")
        stroke = artist.get_linestyle() not in ("None", " ", "") and artist.get_linewidth() > 0
        return bool((stroke and (wide or tall)) or (marker and len(artist.get_xydata())))
    if hasattr(artist, "get_edgecolor") and hasattr(artist, "get_linewidth"):  # a patch
        edge = np.atleast_2d(to_rgba_array(artist.get_edgecolor()))
        stroked = np.max(artist.get_linewidth()) > 0 and (edge[:, 3] > 0).any()
        return bool((wide and tall) or (stroked and (wide or tall)))
    return bool(wide or tall)


def _panel(ax, k: int) -> str:
    """A panel's name in a sentence: its title (lines joined), else its place among the axes."""
    for loc in ("center", "left", "right"):
        if ax.get_title(loc).strip():
            return _name(ax.title if loc == "center" else getattr(ax, f"_{loc}_title"))
    return repr(f"axes {k + 1}")


def empty_axes(fig) -> list[str]:
    """Framed axes (with their axis lines and ticks on) in which nothing is drawn: no line,
    patch, collection, image or text that leaves ink inside them. A panel of bars that are all
    zero is one: it looks like a panel left blank."""
    found = []
    colour_bars = {id(a) for a in fig.axes if hasattr(a, "_colorbar")}
    for k, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison or id(ax) in colour_bars:
            continue
        box = ax.get_window_extent()
        artists = [*ax.lines, *ax.patches, *ax.collections, *ax.images, *ax.texts, *ax.tables]
        if not any(_draws(a, box) for a in artists):
            found.append(f"panel {_panel(ax, k)} has nothing drawn in it")
    return found


def _heat_maps(ax) -> list:
    """The images and colour meshes of an axes."""
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage

    return [
        a
        for a in (*ax.images, *ax.collections)
        if isinstance(a, (AxesImage, QuadMesh)) and a.get_visible()
    ]


def _scale_of(mappable) -> tuple:
    norm = mappable.norm
    return (mappable.get_cmap().name, type(norm).__name__, norm.vmin, norm.vmax)


def _cells_printed(ax, image) -> bool:
    """Whether every cell of a heat map carries a text (its value printed on it), which makes
    a colour bar redundant."""
    shape = np.shape(image.get_array())[:2]
    cells = int(np.prod(shape)) if len(shape) == 2 else 0
    if not cells:
        return False
    box = image.get_window_extent()
    inside = 0
    for text in ax.texts:
        if text.get_visible() and text.get_text().strip():
            x, y = text.get_transform().transform(text.get_position())
            inside += box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1
    return inside >= cells


def _titled(ax, fig, which: str) -> bool:
    """Whether an axes's x (or y) axis has a title: its own, that of an axes below it in its
    column (to its left in its row) of the figure, or the figure's shared one (supxlabel,
    supylabel)."""
    sup = getattr(fig, f"_sup{which}label", None)
    if sup is not None and sup.get_text().strip():
        return True
    own = ax.get_position()
    for other in fig.axes:
        if not other.get_visible() or not other.axison:
            continue
        pos = other.get_position()
        same = (  # below it in its column, or to its left in its row, where a shared title is
            min(own.x1, pos.x1) > max(own.x0, pos.x0) and pos.y0 <= own.y0
            if which == "x"
            else min(own.y1, pos.y1) > max(own.y0, pos.y0) and pos.x0 <= own.x0
        )
        label = other.get_xlabel() if which == "x" else other.get_ylabel()
        if same and label.strip():
            return True
    return False


def _ticked(ax, which: str) -> bool:
    """Whether an axis of an axes shows tick labels (what its rows or columns are)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    return any(t.get_visible() and t.get_text().strip() for t in axis.get_ticklabels())


def bare_heat_maps(fig) -> list[str]:
    """Heat maps (images, colour meshes) a reader cannot read: without a colour bar for their
    colour scale (any colour bar of the figure with the same map and limits; none is needed
    where every cell prints its value), or without a title on an axis that has tick labels (its own
    or one shared by its row or column of panels): ticks say where a row or column is, the
    title what they are. A matrix drawn without ticks reads as a matrix and needs no title."""
    found = []
    bars = [a._colorbar.mappable for a in fig.axes if hasattr(a, "_colorbar")]
    scales = {_scale_of(m) for m in bars}
    for k, ax in enumerate(fig.axes):
        maps = _heat_maps(ax)
        if not maps or hasattr(ax, "_colorbar"):
            continue
        title = _panel(ax, k)
        for image in maps:
            if _scale_of(image) not in scales and not _cells_printed(ax, image):
                found.append(f"heat map {title} has no colour bar")
                break
        if ax.axison:
            missing = [w for w in ("x", "y") if _ticked(ax, w) and not _titled(ax, fig, w)]
            if missing:
                found.append(f"heat map {title} has no {' or '.join(missing)} axis title")
    return found
