"""The gallery in a real browser: headless Chromium opens a gallery of every declared figure (with
stand-in images, so no pipeline is needed) and a probe script types into the search box, letter
by letter, and records which figures stay visible; it also reads the colour legend and the links
under each figure. Chromium comes from Debian's packages, as for the claims page."""

from __future__ import annotations

from conftest import browser_probe

from attnmem import palette, views
from attnmem.cli import build_gallery

PROBE = """
<script>
window.addEventListener('load', () => {
  const box = document.getElementById('search');
  const visible = () => [...document.querySelectorAll('figure')].filter(f => !f.hidden)
      .map(f => f.id);
  const type = text => {  // clear the box, then one input event per letter, as typing does
    box.value = ''; box.dispatchEvent(new Event('input'));
    for (const ch of text) { box.value += ch; box.dispatchEvent(new Event('input')); }
  };
  const out = {all: visible()};
  type('capacity');
  out.capacity = visible();
  out.capacityText = out.capacity.map(id => document.getElementById(id).textContent
      .toLowerCase().includes('capacity'));
  out.count = document.getElementById('count').textContent;
  type('window staircase');
  out.twoWords = visible();
  type('no-such-figure');
  out.none = visible();
  out.sectionsShown = [...document.querySelectorAll('section.doc')].filter(s => !s.hidden).length;
  type('');
  out.cleared = visible().length;
  out.legend = [...document.querySelectorAll('.legend li')].map(li =>
      [getComputedStyle(li.querySelector('.swatch')).backgroundColor, li.textContent]);
  out.links = [...document.querySelectorAll('figure')].map(f =>
      [f.id, f.querySelector('h3').textContent,
       [...f.querySelectorAll('.links a')].map(a => a.getAttribute('href'))]);
  const pre = document.createElement('pre'); pre.id = 'probe';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>
"""


def _rgb(colour: str) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_gallery_search_legend_titles_and_links(tmp_path):
    figures_dir, results = tmp_path / "figures", tmp_path / "results"
    figures_dir.mkdir()
    results.mkdir()
    figures = views.figures()
    captions = {}
    for module in views.groups():
        captions.update({i: views.caption(fn) for i, fn in views.imported(module).items()})
    pngs, rsts = [], []
    for fig in figures:
        png = figures_dir / f"{fig.id}.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        png.write_bytes(b"")
        png.with_suffix(".rst").write_text(captions[fig.id] + "\n", encoding="utf-8")
        pngs.append(png)
        rsts.append(png.with_suffix(".rst"))
    claims = results / "claims.csv"
    claims.write_text("id,verdict,figure\nx/claim-1,reproduced,memory-math/ch6-capacity-over-d\n")
    page = figures_dir / "index.html"
    build_gallery([f.id for f in figures], pngs, rsts, claims, page)
    page.write_text(page.read_text(encoding="utf-8") + PROBE, encoding="utf-8")

    out = browser_probe(page, tmp_path)

    everything = len(figures)
    assert len(out["all"]) == everything
    assert "memory-math/ch6-capacity-over-d" in out["capacity"]
    assert 0 < len(out["capacity"]) < everything and all(out["capacityText"])
    assert out["count"] == f"{len(out['capacity'])} of {everything} figures"
    assert out["twoWords"] == ["first-principles/A3-window-staircase"]
    assert out["none"] == [] and out["sectionsShown"] == 0
    assert out["cleared"] == everything

    assert [swatch for swatch, _ in out["legend"]] == [_rgb(c) for c, _, _ in palette.LEGEND]
    legend = zip(palette.LEGEND, out["legend"], strict=True)
    assert all(meaning in text for (_, _, meaning), (_, text) in legend)

    by_id = views.by_id()
    for fig_id, title, hrefs in out["links"]:
        fig = by_id[fig_id]
        assert title == views.heading(fig.title, captions[fig_id]) and len(title) <= 70
        assert hrefs[: len(fig.cubes)] == [f"../results/{c}.nc" for c in fig.cubes], fig_id
        assert hrefs[-1].endswith(f"src/attnmem/figures/{fig.module}.py"), fig_id


SIZE_PROBE = """
<script>
window.addEventListener('load', () => {
  const out = {viewport: document.documentElement.clientWidth,
               scroll: document.documentElement.scrollWidth, figures: {}};
  for (const f of document.querySelectorAll('figure')) {
    const img = f.querySelector('img');  // its picture, inside its border
    const link = img.closest('a');
    out.figures[f.id] = {width: img.clientWidth, top: f.getBoundingClientRect().top,
      interactive: [...f.querySelectorAll('.fid a.interactive')].map(a => a.getAttribute('href')),
      opens: link && link.getAttribute('href'), cursor: link && getComputedStyle(link).cursor};
  }
  const pre = document.createElement('pre'); pre.id = 'probe';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>
"""

# stand-in PNGs as wide as the gallery's narrowest, middling and widest figures
WIDTHS = (435, 700, 1100, 1518, 2087)


def _sized_gallery(tmp_path):
    """A gallery of five declared figures of one note, in gallery order, whose PNGs are blank
    pictures of WIDTHS, the first with an interactive page; returns the page and {figure id:
    PNG width}."""
    from PIL import Image

    figures_dir, results = tmp_path / "figures", tmp_path / "results"
    results.mkdir()
    ids = sorted(f.id for f in views.figures() if f.doc == "first-principles")[: len(WIDTHS)]
    pngs, rsts = [], []
    for fig_id, width in zip(ids, WIDTHS, strict=True):
        png = figures_dir / f"{fig_id}.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (width, 400), "white").save(png)
        png.with_suffix(".rst").write_text("A caption.\n", encoding="utf-8")
        pngs.append(png)
        rsts.append(png.with_suffix(".rst"))
    claims = results / "claims.csv"
    claims.write_text("id,verdict,figure\n")
    page = figures_dir / "index.html"
    handles = {"handles": [{"kind": "slider", "name": "L"}]}
    build_gallery(ids, pngs, rsts, claims, page, pages={ids[0]: handles})
    page.write_text(page.read_text(encoding="utf-8") + SIZE_PROBE, encoding="utf-8")
    return page, dict(zip(ids, WIDTHS, strict=True))


def test_gallery_shows_each_figure_at_a_readable_size(tmp_path):
    """In a real browser: on a screen wider than a PNG, the PNG shows at its own width (one
    pixel per CSS pixel, the type as drawn); at 1600 px the widest ones fill the page and their
    smallest type stays at 10 px or more (the old page's 1100 px column made it about 7);
    narrow figures share a row; nothing runs past a narrow window; a click opens the PNG whole,
    and the interactive link stays beside the figure that has a page."""
    from attnmem.figures import style

    page, widths = _sized_gallery(tmp_path)
    small_px = style.SMALL / 72 * style.RC["savefig.dpi"]  # the PNGs' smallest type
    first, *_ = widths
    for viewport in (2400, 1600, 800):
        out = browser_probe(page, tmp_path / str(viewport), width=viewport)
        shown = out["figures"]
        assert set(shown) == set(widths)
        assert out["scroll"] <= out["viewport"], f"the page runs past a {viewport} px window"
        for fig_id, width in widths.items():
            got = shown[fig_id]["width"]
            assert got <= width + 0.5, f"{fig_id} enlarged past its own width"
            if viewport >= 2400:
                assert abs(got - width) <= 0.5, f"{fig_id}: {got} px of {width}"
            if viewport == 1600:
                assert got >= min(width, 0.9 * out["viewport"]), f"{fig_id}: {got} of {width}"
                assert small_px * got / width >= 10, f"{fig_id}: its small type shrinks"
        for fig_id, link in shown.items():
            assert link["opens"].endswith(f"{fig_id}.png") and link["cursor"] == "zoom-in"
        narrow = [shown[i]["top"] for i, w in widths.items() if w <= 700]
        if viewport >= 1600:
            assert len(set(narrow)) == 1, "the narrow figures do not share a row"
        assert shown[first]["interactive"] == [f"{first}.html"]
        assert all(not f["interactive"] for i, f in shown.items() if i != first)
