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
