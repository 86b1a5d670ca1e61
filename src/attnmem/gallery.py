"""figures/index.html: every figure with a title, its caption, the claims it supports, links to
the cubes it reads and to the function that draws it; a search box and the colour legend.

The page is one static file with a few lines of plain JavaScript (the search), so it opens from
disk. Titles, cubes and functions come from the figure catalog, the legend from the style."""

from __future__ import annotations

import csv
import html
import os
from collections.abc import Mapping
from pathlib import Path

from .figures import catalog, style

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1100px;color:#222}
header{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:1}
#search{font-size:16px;padding:.35em .5em;width:28em;max-width:95%}
#count{margin-left:.8em;color:#555}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.4em;font-size:14px}
.swatch{display:inline-block;width:2.2em;height:.9em;margin-right:.4em;vertical-align:middle;
  border-radius:2px}
figure{margin:2em 0;border-top:1px solid #ddd;padding-top:1em}
figure h3{margin:.2em 0} .fid{font-family:monospace;font-size:13px;color:#666}
img{max-width:100%;border:1px solid #eee}
figcaption{margin-top:.5em;line-height:1.4}
.links,.claims{font-size:13px;color:#444;margin:.3em 0} .links a,.claims a{margin-right:.6em}
.v-discrepant{color:#b03a2e} .v-reproduced{color:#1e7b45} .v-conditional{color:#9a6a00}
.v-not-checked{color:#777}
nav a{margin-right:1em}
"""

# Show the figures whose id, title and caption hold every word typed, and the sections that
# still have one; count what is shown.
_SEARCH = """
const box = document.getElementById('search');
const figures = [...document.querySelectorAll('figure')];
function filter() {
  const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
  let shown = 0;
  for (const f of figures) {
    const text = [f.id, f.querySelector('h3').textContent,
                  f.querySelector('figcaption').textContent].join(' ').toLowerCase();
    f.hidden = !words.every(w => text.includes(w));
    if (!f.hidden) shown++;
  }
  for (const s of document.querySelectorAll('section.doc'))
    s.hidden = !s.querySelector('figure:not([hidden])');
  document.getElementById('count').textContent =
    words.length ? `${shown} of ${figures.length} figures` : `${figures.length} figures`;
}
box.addEventListener('input', filter);
filter();
"""


def caption_text(rst: str) -> str:
    """The caption file's text as one paragraph (our captions are plain prose)."""
    return " ".join(line.strip() for line in rst.splitlines() if line.strip())


def _legend() -> str:
    items = "".join(
        f"<li><span class='swatch' style='background:{colour}'></span>"
        f"<b>{html.escape(name)}</b>&nbsp;{html.escape(meaning)}</li>"
        for colour, name, meaning in style.LEGEND
    )
    return f"<ul class='legend' aria-label='colour code'>{items}</ul>"


def _links(fig: catalog.Figure | None, results: Path, base: Path) -> str:
    """Links to the cubes a figure reads and to the function that draws it."""
    if fig is None:
        return ""
    esc = html.escape
    cubes = " ".join(
        f"<a href='{esc(os.path.relpath(results / f'{c}.nc', base))}'>{esc(c)}.nc</a>"
        for c in fig.cubes
    )
    source = catalog.FIGURES_DIR / f"{fig.module}.py"
    line = catalog.source_line(fig)
    drawn = (
        f"<a href='{esc(os.path.relpath(source, base))}' class='source'>"
        f"figures/{esc(fig.module)}.py</a> <code>{esc(fig.function)}</code> (line {line})"
    )
    return f"<p class='links'>Cubes: {cubes or '<em>none, a diagram</em>'} · Drawn by: {drawn}</p>"


def render(
    figures: list[dict], claims_csv: str | Path, out_path: str | Path, svg: bool = False
) -> str:
    """``figures``: dicts with id, png (path), caption (text). Links are relative to out_path;
    the cubes are taken to sit beside the claims table (results/); an image opens its SVG
    when ``svg`` (the figure jobs wrote them), else the PNG at full size."""
    with open(claims_csv, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    supported: dict[str, list[Mapping]] = {}
    for row in rows:
        for fig_id in filter(None, row["figure"].split(";")):
            supported.setdefault(fig_id, []).append(row)
    base = Path(out_path).parent
    results = Path(claims_csv).parent
    claims_href = os.path.relpath(Path(claims_csv).with_suffix(".html"), base)
    declared = catalog.by_id()
    docs = sorted({f["id"].split("/")[0] for f in figures})
    esc = html.escape
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Figures</title>",
        f"<style>{_CSS}</style><h1>Figures</h1>",
        f"<p>{len(figures)} figures of the notes, re-drawn from the cubes in results/. "
        f"<a href='{esc(claims_href)}'>The claims table</a>.</p>",
        "<header><input type='search' id='search' placeholder='Search ids, titles and captions'"
        " aria-label='search the figures'><span id='count'></span></header>",
        f"<h2>Colour code</h2>{_legend()}<nav>",
    ]
    parts += [f"<a href='#{esc(d)}'>{esc(d)}</a>" for d in docs] + ["</nav>"]
    current = None
    for fig in sorted(figures, key=lambda f: f["id"]):
        doc = fig["id"].split("/")[0]
        if doc != current:
            parts.append(
                ("</section>" if current else "") + f"<section class='doc' id='{esc(doc)}'>"
            )
            parts.append(f"<h2>{esc(doc)}</h2>")
            current = doc
        spec = declared.get(fig["id"])
        title = catalog.heading(spec.title if spec else "", fig["caption"])
        src = os.path.relpath(fig["png"], base)
        full = os.path.relpath(Path(fig["png"]).with_suffix(".svg"), base) if svg else src
        links = (
            " ".join(
                f"<a class='v-{esc(r['verdict'])}' href='{esc(claims_href)}#{esc(r['id'])}'"
                f" title='{esc(r['verdict'])}'>{esc(r['id'])}</a>"
                for r in supported.get(fig["id"], [])
            )
            or "<em>no claim names this figure</em>"
        )
        parts.append(
            f"<figure id='{esc(fig['id'])}'><h3>{esc(title)}</h3>"
            f"<div class='fid'>{esc(fig['id'])}</div>"
            f"<a href='{esc(full)}'><img src='{esc(src)}' alt='{esc(title)}' loading='lazy'></a>"
            f"<figcaption>{esc(fig['caption'])}</figcaption>"
            f"{_links(spec, results, base)}"
            f"<p class='claims'>Claims: {links}</p></figure>"
        )
    if current:
        parts.append("</section>")
    parts.append(f"<script>{_SEARCH}</script>")
    text = "\n".join(parts)
    Path(out_path).write_text(text, encoding="utf-8")
    return text
