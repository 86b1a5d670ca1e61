"""The interactive pages in a real browser: Debian's Chromium, driven by Playwright from PyPI
(never a downloaded browser), offline. One test per page: it opens the page from disk with every
request that is not file:, data: or blob: blocked, fails on any console error, moves each handle
to both ends and one inner value (a drag handle by dragging its ring with the mouse, a click or
hover handle with the pointer on its glyph, buttons by clicking them, a slider through its model)
and compares every number the page shows, printed or plotted, with the same selection read from
the cube with xarray. A page that computes a number itself names a wrong version of its formula,
and the test checks that the comparison turns red on it.

The tests skip, saying why, where Chromium or Playwright is missing; with ATTNMEM_REQUIRE_BROWSER
set (``.ci/run``) or in CI they fail instead."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from attnmem import views

PAGES = [v.id for v in views.pages()]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
LOCAL = ("file:", "data:", "blob:")


def _require(reason: str):
    if os.environ.get("ATTNMEM_REQUIRE_BROWSER") or os.environ.get("CI"):
        pytest.fail(f"{reason} (the browser tests are mandatory here; .ci/run installs chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    exe = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if exe is None:
        _require("no Chromium: `apt-get install chromium` enables the interactive-page tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _require("no Playwright: `pip install -e '.[test]'` enables the interactive-page tests")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=exe, args=FLAGS)
        # one context (one renderer's caches) for every page of this worker: Bokeh's 1.6 MB of
        # JavaScript is compiled once rather than for every page (a page opens in about half
        # the time); each test opens its own tab
        yield chromium.new_context(viewport={"width": 1280, "height": 900})
        chromium.close()


@pytest.fixture(scope="session")
def described(pipeline) -> dict[str, dict]:
    """Every page's description as its page job wrote it (results/pages/<module>.json)."""
    out = {}
    for path in (pipeline / "results" / "pages").glob("*.json"):
        if not path.name.endswith(".digests.json"):
            out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


_CUBES: dict[str, object] = {}


def cube(name: str):
    from attnmem.cube import read_cube

    if name not in _CUBES:
        _CUBES[name] = read_cube(ROOT / "results" / f"{name}.nc")
    return _CUBES[name]


def expected(shown: dict, state: dict) -> np.ndarray:
    """A shown number read from its cube with xarray at the handles' values ``state``."""
    sel = {
        dim: state[v[1:]] if isinstance(v, str) and v.startswith("$") else v
        for dim, v in shown["sel"].items()
    }
    da = cube(shown["cube"])[shown["var"]].sel(sel)
    for how, dims in shown["reduce"].items():
        da = getattr(da, how)(dim=dims)
    return np.asarray(da.transpose(*shown["along"]).values, dtype=float).ravel()


def parse(text: str, fmt: str = "") -> tuple[float, float]:
    """A printed number and half a unit of its last printed digit (for a ``.Ng`` format, of its
    N-th significant digit, which trailing zeros of a large number do not show)."""
    t = text.strip().replace(",", "")
    if t in ("—", ""):
        return math.nan, 0.0
    if t in ("∞", "-∞"):
        return (math.inf if t == "∞" else -math.inf), 0.0
    scale = 1.0
    if t.endswith("%"):
        t, scale = t[:-1], 0.01
    mantissa, _, exponent = t.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    half = 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0)) * scale
    digits = re.fullmatch(r"\.(\d+)g", fmt)
    if digits and float(t) != 0:
        places = math.floor(math.log10(abs(float(t)))) - int(digits.group(1)) + 1
        half = max(half, 0.5 * 10.0**places)
    return float(t) * scale, half


def _same(shown_value: float, truth: float, half: float) -> bool:
    if math.isnan(truth) or math.isnan(shown_value):
        return math.isnan(truth) and math.isnan(shown_value)
    if math.isinf(truth) or math.isinf(shown_value):
        return truth == shown_value
    return abs(shown_value - truth) <= half * (1 + 1e-9) + 1e-12 * abs(truth)


_READ = """(cols) => {
  const doc = Bokeh.documents[0], out = {text: {}, cols: {}, handles: {}, labels: {}};
  for (const el of document.querySelectorAll('[data-readout]'))
    out.text[el.dataset.readout] = el.textContent;
  for (const el of document.querySelectorAll('[data-handle]'))
    out.labels[el.dataset.handle] = el.textContent;
  for (const [name, source, col] of cols)
    out.cols[name] = Array.from(doc.get_model_by_name(source).data[col], Number);
  for (const m of doc.all_models) if (m.name && m.name.startsWith('handle:'))
    out.handles[m.name.slice(7)] = m.active !== undefined ? m.active : m.value;
  return out;
}"""

# The viewport point of data (x, y) on a named plot, scrolled into view first.
_PIXEL = """([plot, x, y]) => {
  const m = Bokeh.documents[0].get_model_by_name(plot), v = Bokeh.index.find_one(m);
  v.el.scrollIntoView({block: 'center'});
  const r = v.canvas_view.el.getBoundingClientRect();
  const sx = typeof x === 'string' ? m.x_range.synthetic(x) : x;
  const sy = typeof y === 'string' ? m.y_range.synthetic(y) : y;
  return [r.left + v.frame.x_scale.compute(sx), r.top + v.frame.y_scale.compute(sy)];
}"""


def mismatches(tab, about: dict, first: bool = False) -> list[str]:
    """Move every handle of the open page to its ends, an inner value and where it opens; every
    shown number that differs from its cube, as one line each (with ``first``, stop at the
    first position that shows one: a broken formula needs only one to be seen)."""
    found = []
    handles = {h["name"]: h for h in about["handles"]}
    default = {name: h["default"] for name, h in handles.items()}
    cols = [
        [s["name"], s["name"].rsplit(".", 1)[0], s["name"].rsplit(".", 1)[1]]
        for s in about["shows"]
        if s["kind"] == "column"
    ]
    for name, h in handles.items():
        n = len(h["values"])
        for index in sorted({0, n // 2, n - 1, h["default"]}):  # both ends, inside, the opening
            at = dict(default, **{name: index})
            for other, i in at.items():
                if other != name:
                    _move(tab, handles[other], i)
            _move(tab, h, index)
            got = tab.evaluate(_READ, cols)
            where = f"{name} = {h['labels'][index]}"
            if got["handles"][name] != index:
                found.append(f"{where}: the handle stands at {got['handles'][name]}")
                continue
            if name in got["labels"] and got["labels"][name] != h["labels"][index]:
                found.append(f"{where}: the page says {got['labels'][name]!r}")
            state = {k: handles[k]["values"][i] for k, i in at.items()}
            for s in about["shows"]:
                if any(state[h] not in vs for h, vs in s.get("when", {}).items()):
                    continue  # another declaration of this number holds here
                truth = expected(s, state)
                if s["kind"] == "text":
                    value, half = parse(got["text"].get(s["name"], ""), s["fmt"])
                    if truth.size != 1 or not _same(value, float(truth[0]), half):
                        shown = got["text"].get(s["name"])
                        found.append(f"{where}: {s['name']} shows {shown!r}, the cube {truth}")
                else:
                    value = np.asarray(got["cols"][s["name"]], dtype=float)
                    if value.shape != truth.shape or not np.allclose(
                        value, truth, rtol=1e-6, atol=1e-9, equal_nan=True
                    ):
                        found.append(f"{where}: column {s['name']} {value} != cube {truth}")
            if first and found:
                return found
    return found


def _ready(tab) -> int:
    return int(tab.evaluate("+document.body.dataset.ready || 0"))


def _move(tab, h: dict, index: int) -> None:
    """Put a handle at a position the way a reader would, and wait for the page to follow."""
    name = h["name"]
    now = tab.evaluate(
        "(n) => { const w = Bokeh.documents[0].get_model_by_name('handle:' + n);"
        " return w.active !== undefined ? w.active : w.value; }",
        name,
    )
    if now == index and h["kind"] != "hover":
        return
    before = _ready(tab)
    if h["kind"] == "drag":
        for attempt in range(3):  # under load a slow press can read as a long press, not a drag
            _drag(tab, h, index)
            if attempt == 2 or _moved(tab, before, 3000):
                break
    elif h["kind"] in ("click", "hover") and "plot" in h:
        x, y = tab.evaluate(_PIXEL, [h["plot"], h["xs"][index], h["ys"][index]])
        if h["kind"] == "click":
            tab.wait_for_timeout(300)  # two quick taps on a plot read as a double tap
            tab.mouse.click(x, y)
        else:
            tab.mouse.move(x - 3, y - 3)
            tab.mouse.move(x, y, steps=2)
    elif h["kind"] in ("buttons", "click"):
        tab.get_by_role("button", name=h["labels"][index], exact=True).first.click()
    else:  # a slider: through its model, as dragging its knob sets it
        tab.evaluate(
            "([n, i]) => { Bokeh.documents[0].get_model_by_name('handle:' + n).value = i; }",
            [name, index],
        )
    if now != index:
        try:
            tab.wait_for_function(f"(+document.body.dataset.ready || 0) > {before}", timeout=15000)
        except Exception as exc:  # say which handle did not move, not only that time ran out
            raise AssertionError(f"{h['kind']} {name} -> {h['labels'][index]}: {exc}") from None


def _drag(tab, h: dict, index: int) -> None:
    """Drag a handle's ring with the mouse from where it is to the place of value ``index``."""
    start = tab.evaluate(
        "(n) => { const d = Bokeh.documents[0].get_model_by_name('ring:' + n).data;"
        " return [d.x[0], d.y[0]]; }",
        h["name"],
    )
    x0, y0 = tab.evaluate(_PIXEL, [h["plot"], *start])
    x1, y1 = tab.evaluate(_PIXEL, [h["plot"], h["xs"][index], h["ys"][index]])
    tab.mouse.move(x0, y0)
    tab.mouse.down()
    # a first step of a few pixels, still on the ring: the plot decides what a drag moves where
    # the drag starts, a step or two after the press
    step = max(abs(x1 - x0), abs(y1 - y0), 1.0)
    tab.mouse.move(x0 + 3 * (x1 - x0) / step, y0 + 3 * (y1 - y0) / step)
    tab.mouse.move(x1, y1, steps=8)
    tab.mouse.up()


def _moved(tab, before: int, timeout: int) -> bool:
    """Whether the page has followed a move within ``timeout`` ms."""
    try:
        tab.wait_for_function(f"(+document.body.dataset.ready || 0) > {before}", timeout=timeout)
    except Exception:
        return False
    return True


def open_page(browser, path: Path):
    """The page opened from disk in a new tab of the context ``browser``, with every non-local
    request refused; returns the tab, the refused requests and the console errors (both filled
    as the page runs)."""
    refused, errors = [], []

    def route(r):
        if r.request.url.startswith(LOCAL):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    tab = browser.new_page()
    tab.route("**/*", route)
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("request", lambda r: None if r.url.startswith(LOCAL) else refused.append(r.url))
    tab.goto(path.as_uri())
    tab.wait_for_function("+document.body.dataset.ready >= 1", timeout=15000)
    return tab, refused, errors


@pytest.mark.parametrize("page_id", PAGES)
def test_the_page_shows_the_cube_at_every_handle(browser, described, page_id):
    about = described[page_id]
    path = ROOT / views.by_id("page")[page_id].path
    tab, refused, errors = open_page(browser, path)
    try:
        found = mismatches(tab, about)
        if any(h["kind"] == "hover" for h in about["handles"]):
            found += _tooltips(tab, about)
    finally:
        tab.close()
    assert not refused, f"the page asked the network for {refused}"
    assert not errors, f"console errors: {errors}"
    assert not found, "\n".join(found)


def _tooltips(tab, about: dict) -> list[str]:
    """Each hover item's tooltip says what the figure module says of that item."""
    found = []
    for h in about["handles"]:
        if h["kind"] != "hover":
            continue
        for i, text in enumerate(h["texts"]):
            _move(tab, h, i)
            words = re.sub(r"<[^>]+>", " ", text).split()
            tab.wait_for_function(
                "(w) => [...document.querySelectorAll('*')].some(e => e.shadowRoot &&"
                " [...e.shadowRoot.querySelectorAll('.tip')].some(t =>"
                " t.offsetParent !== null && t.textContent.includes(w)))",
                arg=words[0],
                timeout=10000,
            )
            shown = tab.evaluate(
                "() => { for (const e of document.querySelectorAll('*')) if (e.shadowRoot)"
                " for (const t of e.shadowRoot.querySelectorAll('.tip'))"
                " if (t.offsetParent !== null) return t.textContent; return ''; }"
            )
            if "".join(shown.split()) != "".join(words):  # textContent drops the <br>s
                found.append(f"hover {h['labels'][i]}: the tooltip says {shown!r}")
    return found


@pytest.mark.parametrize("page_id", PAGES)
def test_a_wrong_formula_in_the_page_turns_its_test_red(browser, described, page_id, tmp_path):
    """Every formula the page computes itself, broken as the page says, shows wrong numbers."""
    about = described[page_id]
    if not about["mutations"]:
        pytest.skip("the page computes nothing itself: every number it shows is embedded")
    source = ROOT / views.by_id("page")[page_id].path
    text = source.read_text(encoding="utf-8")
    (tmp_path / "_js").symlink_to(ROOT / "figures" / "_js")
    for k, m in enumerate(about["mutations"]):
        assert m["find"] in text, f"the mutation {m['find']!r} is not in the page"
        mutant = tmp_path / "doc" / f"mutant-{k}.html"
        mutant.parent.mkdir(exist_ok=True)
        mutant.write_text(text.replace(m["find"], m["replace"]), encoding="utf-8")
        tab, _, _ = open_page(browser, mutant)
        try:
            found = mismatches(tab, about, first=True)
        finally:
            tab.close()
        assert found, f"breaking {m['find']!r} into {m['replace']!r} left every number right"


def test_the_list_of_pages_and_the_gallery_link_every_page(pipeline, described):
    listed = json.loads((pipeline / "figures" / "interactive.json").read_text())
    assert [p["id"] for p in listed] == sorted(PAGES)
    gallery = (pipeline / "figures" / "index.html").read_text(encoding="utf-8")
    for p in listed:
        view = views.by_id("page")[p["id"]]
        assert p["doc"] == view.doc and p["line"] == view.line
        assert (pipeline / "figures" / p["file"]).exists()
        assert [(h["name"], h["kind"]) for h in p["handles"]] == list(view.handles)
        for h in p["handles"]:  # the values it offers, and their range where they are numbers
            numeric = all(isinstance(v, (int, float)) for v in h["values"])
            assert h["values"] and ("range" in h) == (numeric and h["kind"] in ("slider", "drag"))
        assert f"<a class='interactive' href='{p['file']}'" in gallery, p["id"]
