"""Readable figures: no text on text or under a plotted line, three type sizes, no two series
told apart by a red-green hue alone, and a palette that stays apart for red-green readers.

The layout checks are ``style.text_overlaps``, ``style.font_sizes`` and ``style.hue_only_pairs``,
together ``style.problems``. Here they run on small figures built to collide; every declared
figure is checked by the figure job that draws it, on the figure it saves, and the test reads
what each job found (results/figure_checks/<module>.json) rather than drawing all of them again.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb, to_rgba

from attnmem import views
from attnmem.figures import style

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- colour vision

# Machado, Oliveira & Fernandes (2009), severity 1.0: linear-RGB matrices that simulate full
# protanopia and deuteranopia (the two red-green dichromacies).
MACHADO = {
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
}
VISIONS = {"normal": np.eye(3), **MACHADO}

# CIE76 distance every pair must keep. A distance of 2.3 is a just-noticeable difference for two
# large patches side by side; lines and markers are thin and seen apart, so ask for about ten
# times that. 20 is also more than the closest pair of the two palettes designed for colour-blind
# readers keeps under the same simulation (Okabe-Ito and Paul Tol's "bright": 17 to 19).
MIN_DELTA_E = 20.0

ROLES = {
    name: colour
    for colour, name, _ in style.LEGEND  # the six roles of the colour code
}
BEFORE = {  # the palette of the first release: blue and violet merged for deuteranopes
    "blue": "#2f6db5",
    "copper": "#b8692e",
    "violet": "#7a4fb0",
    "green": "#2e8b57",
    "red": "#c0392b",
    "grey": "#8c8c8c",
}


def _linear(colour) -> np.ndarray:
    c = np.asarray(to_rgb(colour))
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a linear sRGB colour."""
    xyz_of_rgb = np.array(
        [
            [0.4124564, 0.3575761, 0.1804375],
            [0.2126729, 0.7151522, 0.0721750],
            [0.0193339, 0.1191920, 0.9503041],
        ]
    )
    t = xyz_of_rgb @ np.clip(linear_rgb, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pairs(colours: dict[str, str]) -> list[tuple[float, str, str, str]]:
    """(CIE76 distance, vision, colour, colour) of every pair under every vision, closest first."""
    out = []
    for vision, matrix in VISIONS.items():
        lab = {name: _lab(matrix @ _linear(c)) for name, c in colours.items()}
        for a, b in itertools.combinations(colours, 2):
            out.append((float(np.linalg.norm(lab[a] - lab[b])), vision, a, b))
    return sorted(out)


def test_the_simulation_is_the_published_one():
    """Each Machado matrix keeps white white (its rows sum to one), and a deuteranope sees pure
    red and pure green as far closer than a trichromat does."""
    for matrix in MACHADO.values():
        assert np.allclose(matrix.sum(1), 1.0, atol=1e-3)
    red_green = {"red": "#ff0000", "green": "#00ff00"}
    by_vision = {v: d for d, v, _, _ in closest_pairs(red_green)}
    assert by_vision["deuteranopia"] < by_vision["normal"] / 2


def test_every_pair_of_style_colours_stays_apart_for_red_green_readers():
    assert set(ROLES) == {"blue", "copper", "violet", "green", "red", "grey"}
    too_close = [p for p in closest_pairs(ROLES) if p[0] < MIN_DELTA_E]
    assert not too_close, "\n".join(f"{v}: {a}/{b} only {d:.1f} apart" for d, v, a, b in too_close)
    negative, zero, positive = style.SIGN
    sign = {"negative": negative, "zero": zero, "positive": positive}
    assert closest_pairs(sign)[0][0] >= MIN_DELTA_E


def test_the_first_palette_fails_the_same_check():
    distance, vision, a, b = closest_pairs(BEFORE)[0]
    assert distance < MIN_DELTA_E and vision == "deuteranopia" and {a, b} == {"blue", "violet"}


# ----------------------------------------------------------------------------- layout checks


def _lines(ax):
    x = np.linspace(0, 10, 50)
    for k in range(4):
        ax.plot(x, x + 0.3 * k, color=style.GREY)
    return x


def test_crowded_labels_at_line_ends_are_found_and_spread_apart():
    """A1 before the fix: labels at the ends of lines that finish close together."""
    style.apply()
    fig, ax = plt.subplots(figsize=(4, 3))
    _lines(ax)
    ends = [10 + 0.3 * k for k in range(4)]
    for k, y in enumerate(ends):
        ax.text(10.2, y, f"N={k}", va="center", fontsize=style.SMALL)
    found = style.text_overlaps(fig)
    assert "text 'N=0' overlaps text 'N=1'" in found
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(4, 3))
    _lines(ax)
    for k, y in enumerate(style.spread(ends, 0.06 * 10.9)):
        ax.text(10.2, y, f"N={k}", va="center", fontsize=style.SMALL)
    assert style.text_overlaps(fig) == []
    plt.close(fig)


def test_a_label_crossed_by_a_curve_is_found_unless_it_sits_on_a_white_box():
    """ch6-capacity-over-d before the fix: capacities printed where other curves pass."""
    style.apply()
    for box, expected in ((None, ["text '483' is under line 'ReLU'"]), (style.LABEL_BOX, [])):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.plot([0, 10], [0, 10], color=style.QUERY, label="ReLU")
        ax.text(5, 5, "483", ha="center", va="center", fontsize=style.SMALL, bbox=box)
        assert style.text_overlaps(fig) == expected
        plt.close(fig)


def test_a_legend_over_lines_is_found_unless_it_moves_or_has_a_frame():
    """A3-window-staircase before the fix: a frameless legend over the other gaps' lines."""
    style.apply()
    for where, expected in (({}, 1), ({"bbox_to_anchor": (1.02, 1)}, 0), (style.FRAMED, 0)):
        fig, ax = plt.subplots(figsize=(4, 3))
        for r in range(1, 10):
            ax.axvline(r, color=style.GREY, lw=0.7)
        ax.plot([0, 10], [0, 0], color=style.STORED, label="final X (L = 3)")
        ax.legend(loc="upper left", **where)
        found = style.text_overlaps(fig)
        assert len(found) == expected, found
        assert all("'final X (L = 3)' is under line a grey" in f for f in found)
        plt.close(fig)


def test_turned_tick_labels_that_do_not_touch_pass():
    style.apply()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot(range(6), range(6))
    ax.set_xticks(range(6), [f"token {i}" for i in range(6)], rotation=45, ha="right")
    assert style.text_overlaps(fig) == []
    plt.close(fig)


def test_red_against_green_alone_is_found():
    style.apply()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color=style.LIMIT, label="raw")
    ax.plot([0, 1], [1, 0], color=style.RESULT, label="divided")
    assert style.hue_only_pairs(fig) == ["'raw' and 'divided' differ by red/green only"]
    ax.lines[1].set_linestyle("--")
    assert style.hue_only_pairs(fig) == []
    plt.close(fig)


def test_spread_keeps_order_and_leaves_lonely_labels_alone():
    placed = style.spread([62.0, 59.0, 57.5, 57.0, 56.5, 30.0], 2.0)
    assert placed[-1] == 30.0
    assert list(np.argsort(placed)) == list(np.argsort([62.0, 59.0, 57.5, 57.0, 56.5, 30.0]))
    assert np.min(np.diff(np.sort(placed))) >= 2.0 - 1e-9
    assert np.isclose(placed[:5].mean(), np.mean([62.0, 59.0, 57.5, 57.0, 56.5]))


def test_a_line_end_label_beside_another_line_is_found():
    """A1 before the fix: labels spread so far from the line ends that one sits beside another
    line; the same lines with their labels at their own ends pass."""
    style.apply()
    for shift, expected in (
        (0.9, ["end label 'N=1' is nearer a grey line than its own line"]),
        (0, []),
    ):
        fig, ax = plt.subplots(figsize=(4, 3))
        x = np.arange(11.0)
        for k in range(3):
            ax.plot(x, x + 3 * k, color=style.GREY)
            ax.text(
                10.3,
                10 + 3 * k + (shift * 3 if k == 1 else 0),
                f"N={k}",
                va="center",
                color=style.GREY,
                fontsize=style.SMALL,
            )
        fig.draw_without_rendering()
        found = style.misplaced_end_labels(fig)
        assert [f.split(" (")[0] for f in found] == expected, found
        assert set(found) <= set(style.problems(fig))
        plt.close(fig)


def test_a_line_end_label_is_paired_by_colour_before_order():
    """A copper label set at the level of a grey line's end is out of place though its rank
    among all labels is its own line's."""
    style.apply()
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.arange(11.0)
    ax.plot(x, x, color=style.GREY)
    ax.plot(x, x + 6, color=style.QUERY, label="N = 8")
    ax.plot(x, x + 12, color=style.GREY)
    ax.text(10.3, 10, "N=4", color=style.GREY, va="center", fontsize=style.SMALL)
    ax.text(10.3, 21.5, "N=8", color=style.QUERY, va="center", fontsize=style.SMALL)
    ax.text(10.3, 22.5, "N=16", color=style.GREY, va="center", fontsize=style.SMALL)
    fig.draw_without_rendering()
    found = style.misplaced_end_labels(fig)
    assert len(found) == 1 and found[0].startswith("end label 'N=8' is nearer a grey line"), found
    plt.close(fig)


def test_a_label_beside_a_vertical_marker_line_is_not_a_line_end_label():
    """one-head-two-criteria: a grey label to the right of a dotted vertical line that marks a
    value, where two curves also end, names the vertical line, not a curve's end."""
    style.apply()
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.arange(11.0)
    ax.plot(x, 1 - x / 20, "o-", color=style.OBSERVED, label="outer product")
    ax.plot(x, 1 - x / 30, "o-", color=style.STORED, label="least squares")
    ax.axvline(10, color=style.GREY, ls=":")
    ax.text(10.1, 0.7, "n=1161", color=style.GREY, fontsize=style.SMALL)
    fig.draw_without_rendering()
    assert style.misplaced_end_labels(fig) == []
    plt.close(fig)


def test_a_panel_with_nothing_drawn_is_found():
    """C4-block-diagram before the fix: a panel of bars that are all zero looks blank; an axes
    turned off (a spacer) is not a panel, and one dot on the baseline is ink."""
    style.apply()
    fig, axes = plt.subplots(1, 3, figsize=(6, 2))
    axes[0].bar(["a", "b"], [0.4, 0.7])
    axes[1].bar(["a", "b"], [0.0, 0.0])
    axes[1].set_ylim(-0.1, 1)  # the flat bars lie inside the panel: no area, no ink
    axes[1].set_title("gate", fontsize=style.SMALL)
    axes[2].axis("off")
    fig.draw_without_rendering()
    assert style.empty_axes(fig) == ["panel 'gate' has nothing drawn in it"]
    axes[1].plot(["a", "b"], [0.0, 0.0], "o", clip_on=False)
    fig.draw_without_rendering()
    assert style.empty_axes(fig) == []
    plt.close(fig)


def test_a_heat_map_without_colour_bar_or_axis_titles_is_found():
    """E2-trained-maps before the fix: images with tick labels only. A colour bar of the same
    map and limits (shared by the panels) and axis titles on the panels' column and row
    clear it; so does a value printed on every cell in place of the colour bar."""
    style.apply()
    data = np.arange(9.0).reshape(3, 3) / 8
    fig, axes = plt.subplots(1, 2, figsize=(5, 2.5))
    for ax in axes:
        ax.imshow(data, cmap="Purples", vmin=0, vmax=1)
    axes[1].pcolormesh(data, cmap="Purples", vmin=0, vmax=1)
    axes[0].set_title("built", fontsize=style.SMALL)
    found = style.bare_heat_maps(fig)
    assert "heat map 'built' has no colour bar" in found
    assert "heat map 'built' has no x or y axis title" in found
    assert len(found) == 4, found
    for ax in axes:
        ax.set_xlabel("position read")
    axes[0].set_ylabel("position asking")
    fig.colorbar(axes[0].images[0], ax=axes, label="weight")
    assert style.bare_heat_maps(fig) == []
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(3, 3))
    ax.imshow(data, cmap="Purples", vmin=0, vmax=1)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    assert style.bare_heat_maps(fig) == ["heat map 'axes 1' has no colour bar"]
    for (i, j), v in np.ndenumerate(data):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=style.SMALL)
    assert style.bare_heat_maps(fig) == []
    plt.close(fig)


# ----------------------------------------------------------------------------- every figure


def test_problems_gathers_every_check_and_a_job_writes_them_for_each_figure(tmp_path):
    """What the figure jobs record: a collision and a size off the type scale are both found
    by style.problems, and save() returns them for the figure it wrote."""
    style.apply()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.text(0.5, 0.5, "one label", fontsize=style.NORMAL)
    ax.text(0.5, 0.5, "another label", fontsize=13)
    found = style.save(fig, tmp_path / "crowded.png")
    assert (tmp_path / "crowded.png").exists() and not (tmp_path / "crowded.svg").exists()
    assert any("overlaps text" in p for p in found), found
    assert "font sizes [13.0] are not among the style's [8, 10, 11]" in found


def _labelled_figure():
    style.apply()
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    ax.plot([0, 1, 2], [0, 1, 4], color=style.STORED, label="stored")
    ax.set_xlabel("memories $m$")
    ax.set_title("a title")
    ax.legend()
    return fig


def _ink(image: np.ndarray) -> tuple[int, int, int, int]:
    """The ink box of a PNG read by plt.imread (floats, RGB or RGBA, white ground)."""
    rgba = np.round(image * 255).astype(np.uint8)
    if rgba.shape[-1] == 3:
        rgba = np.concatenate([rgba, np.full(rgba.shape[:2] + (1,), 255, np.uint8)], axis=-1)
    return style.ink_box(rgba, np.array([255, 255, 255, 255], np.uint8))


def _pad_pixels() -> int:
    return round(plt.rcParams["savefig.pad_inches"] * plt.rcParams["savefig.dpi"])


def test_save_cuts_the_png_to_its_ink_and_writes_an_svg_on_request(tmp_path):
    """The PNG is the checked draw cut to what it drew plus savefig's pad, all white: its ink
    spans what savefig(bbox_inches="tight") shows (to a pixel of rounding), the same bytes each
    time; svg=True adds the vector copy."""
    style.save(_labelled_figure(), tmp_path / "cut.png", svg=True)
    style.save(_labelled_figure(), tmp_path / "again.png")
    _labelled_figure().savefig(tmp_path / "framed.png", bbox_inches="tight")
    cut = plt.imread(tmp_path / "cut.png")
    framed = plt.imread(tmp_path / "framed.png")
    top, bottom, left, right = _ink(cut)
    pad = _pad_pixels()
    assert (top, left) == (pad, pad), "the pad is white and the ink starts right after it"
    assert (cut.shape[0] - bottom, cut.shape[1] - right) == (pad, pad)
    f_top, f_bottom, f_left, f_right = _ink(framed)
    assert abs((bottom - top) - (f_bottom - f_top)) <= 1
    assert abs((right - left) - (f_right - f_left)) <= 1
    assert (tmp_path / "cut.png").read_bytes() == (tmp_path / "again.png").read_bytes()
    assert (tmp_path / "cut.svg").read_text().lstrip().startswith("<?xml")
    assert not (tmp_path / "again.svg").exists()


def test_save_draws_again_what_lies_beyond_the_canvas(tmp_path):
    """A text placed past the canvas's right edge is cut off in the draw (Agg drops its glyphs
    that cross the edge, so the ink stops short of it); the saved PNG still shows all of it,
    as savefig's tight box does, because save sees the text's box leave the canvas and draws
    the figure again."""

    def beyond():
        fig = _labelled_figure()
        fig.text(0.97, 0.5, "a note past the edge", fontsize=style.SMALL)
        return fig

    style.save(beyond(), tmp_path / "beyond.png")
    beyond().savefig(tmp_path / "framed.png", bbox_inches="tight")
    cut, framed = plt.imread(tmp_path / "beyond.png"), plt.imread(tmp_path / "framed.png")
    assert abs(cut.shape[1] - framed.shape[1]) <= 2
    assert cut.shape[1] > 3 * plt.rcParams["savefig.dpi"], "the text widens the picture"


def test_ink_box_reads_the_drawn_rows_and_columns():
    """Ink is every pixel other than the ground; on a transparent ground, every pixel with
    some opacity; a blank picture has none."""
    white = np.array([255, 255, 255, 255], np.uint8)
    img = np.full((6, 8, 4), 255, np.uint8)
    img[2, 3] = [0, 0, 0, 255]
    img[4, 5] = [254, 255, 255, 255]
    assert style.ink_box(img, white) == (2, 5, 3, 6)
    assert style.ink_box(np.full((6, 8, 4), 255, np.uint8), white) is None
    clear = np.zeros((6, 8, 4), np.uint8)
    clear[1, 1] = [255, 255, 255, 1]
    assert style.ink_box(clear, np.array([255, 255, 255, 0], np.uint8)) == (1, 2, 1, 2)


@pytest.mark.pipeline
def test_every_figure_is_readable(pipeline):
    """No figure of the catalog has a text collision, a size off the type scale or two series
    told apart by red against green only, as its figure job found when it saved it."""
    found = []
    for module, figures in views.groups().items():
        path = pipeline / "results" / "figure_checks" / f"{module}.json"
        checks = json.loads(path.read_text(encoding="utf-8"))
        assert sorted(checks) == sorted(f.id for f in figures), f"{path} misses figures"
        found += [f"{fig_id}: {p}" for fig_id, ps in checks.items() for p in ps]
    assert not found, f"{len(found)} layout problem(s):\n" + "\n".join(found)


def _busy_figure():
    """A figure with what makes layouts differ: log axes over many decades (math tick labels,
    minor ticks), tick labels turned 90 and 30 degrees whose words also stand unturned on the
    other axis, a heat map with a colour bar, a legend, a framed annotation whose words the
    suptitle repeats at another size, two-line titles and a shared axis, laid out by the
    constrained layout at the PNG's dpi."""
    style.apply()
    fig, axes = plt.subplots(2, 2, figsize=(6, 4.5), layout="constrained")
    fig.set_dpi(plt.rcParams["savefig.dpi"])
    axes[0, 1].sharey(axes[0, 0])
    m = np.logspace(0, 7, 50)
    for k, ax in enumerate(axes[0]):
        ax.loglog(m, m ** (0.5 + k / 4), color=style.STORED, label="memories $m^{1/2}$")
        ax.set_title(f"panel {k}\nof two", fontsize=style.NORMAL)
    axes[0, 0].legend()
    axes[0, 1].annotate(  # aligned as the suptitle is
        "capacity",
        (1e3, 1e4),
        xytext=(10, -20),
        textcoords="offset points",
        ha="center",
        va="top",
        bbox=style.LABEL_BOX,
    )
    fig.suptitle("capacity")
    words = ["Ann", "gave", "Ben", "a", "pen"]
    image = axes[1, 0].imshow(np.arange(25.0).reshape(5, 5), cmap="Purples")
    axes[1, 0].set_xticks(range(5), words, rotation=90, fontsize=style.SMALL)
    axes[1, 0].set_yticks(range(5), words, fontsize=style.SMALL)
    fig.colorbar(image, ax=axes[1, 0], label="weight")
    axes[1, 1].bar(words, [3, 1, 4, 1, 5], color=style.RESULT)
    axes[1, 1].tick_params(axis="x", labelrotation=30, labelsize=style.SMALL)
    axes[1, 1].set_xlabel("word read")
    return fig


def _counted(monkeypatch, owner, name: str, counts: dict) -> None:
    """Count the calls of ``owner.name`` in ``counts[name]`` until monkeypatch undoes it."""
    original = getattr(owner, name)

    def call(*args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, call)


def test_remembered_layouts_draw_the_same_pixels(monkeypatch):
    """save() lets matplotlib lay out each text and update each axis's ticks once per state
    (style._layouts_remembered): the render is matplotlib's own to the pixel, while most of
    the layouts and tick updates the draw asks for are given back rather than computed."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    asked, computed = {}, {}
    plain, remembered = _busy_figure(), _busy_figure()
    with monkeypatch.context() as patch:
        for owner, name in ((Text, "_get_layout"), (Axis, "_update_ticks")):
            _counted(patch, owner, name, asked)
        plain.canvas.draw()
    with monkeypatch.context() as patch:
        for owner, name in ((Text, "_get_layout"), (Axis, "_update_ticks")):
            _counted(patch, owner, name, computed)
        with style._layouts_remembered():
            remembered.canvas.draw()
    same = np.asarray(plain.canvas.buffer_rgba()) == np.asarray(remembered.canvas.buffer_rgba())
    assert same.all(), f"{int((~same.all(-1)).sum())} pixels differ"
    assert computed["_get_layout"] < asked["_get_layout"] / 3, (computed, asked)
    assert computed["_update_ticks"] < asked["_update_ticks"] / 2, (computed, asked)
    plt.close(plain)
    plt.close(remembered)


def test_the_layout_cache_has_an_off_switch(monkeypatch):
    """ATTNMEM_NO_LAYOUT_CACHE=1 leaves matplotlib's functions as they are while a figure is
    saved (the way out should a matplotlib release change what they read)."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    original = (Text._get_layout, Axis._update_ticks, Axis._get_ticklabel_bboxes)
    with style._layouts_remembered():
        assert Text._get_layout is not original[0]  # on by default
    monkeypatch.setenv(style.LAYOUT_CACHE_OFF, "1")
    with style._layouts_remembered():
        assert (Text._get_layout, Axis._update_ticks, Axis._get_ticklabel_bboxes) == original
    assert (Text._get_layout, Axis._update_ticks, Axis._get_ticklabel_bboxes) == original


@pytest.mark.parametrize("ground", ["white", "none"])
def test_the_png_is_the_render_cut_to_its_ink_in_the_pad(tmp_path, ground):
    """The PNG save() writes holds the canvas's own pixels, cut to its ink, in a frame of the
    figure's ground savefig's pad wide: RGB on a white ground, RGBA on a transparent one."""
    from PIL import Image

    fig = _labelled_figure()
    fig.set_facecolor(ground)
    fig.set_dpi(plt.rcParams["savefig.dpi"])
    fig.canvas.draw()
    assert style._write_inked_png(fig, plt.rcParams["savefig.pad_inches"], tmp_path / "x.png")
    pixels = np.asarray(fig.canvas.buffer_rgba())
    background = np.round(np.array(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    top, bottom, left, right = style.ink_box(pixels, background)
    pad = _pad_pixels()
    expected = np.empty((bottom - top + 2 * pad, right - left + 2 * pad, 4), np.uint8)
    expected[:] = background
    expected[pad:-pad, pad:-pad] = pixels[top:bottom, left:right]
    written = np.asarray(Image.open(tmp_path / "x.png"))
    assert written.shape[-1] == (3 if ground == "white" else 4)
    assert np.array_equal(written, expected[..., : written.shape[-1]])
    plt.close(fig)


def test_a_remembered_layout_serves_only_under_the_same_text_settings():
    """Layouts are remembered across the figures a process saves, by the rcParams that size a
    text (style._text_settings): a label laid out in the style's sans-serif font is laid out
    anew when the family names another font."""

    def labelled():
        fig = plt.figure(figsize=(2, 1), dpi=plt.rcParams["savefig.dpi"])
        fig.text(0.5, 0.4, "a few words", fontsize=style.LARGE, ha="center")
        return fig

    style.apply()
    with style._layouts_remembered():
        labelled().canvas.draw()
    with plt.rc_context({"font.sans-serif": ["DejaVu Serif"]}):
        plain, remembered = labelled(), labelled()
        plain.canvas.draw()
        with style._layouts_remembered():
            remembered.canvas.draw()
    same = np.asarray(plain.canvas.buffer_rgba()) == np.asarray(remembered.canvas.buffer_rgba())
    assert same.all(), f"{int((~same.all(-1)).sum())} pixels differ"
    plt.close("all")
