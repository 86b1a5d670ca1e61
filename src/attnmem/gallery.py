"""figures/index.html: every figure with a title, its caption, the claims it supports, links to
the cubes it reads, to the function that draws it and, where the figure has one, to its
interactive page; a search box and the colour legend. And figures/interactive.json, the list of
pages: each page's figure id, note and line, file and handles (name, kind, range or values).

The gallery is one static file with a few lines of plain JavaScript (the search), so it opens
from disk. Titles, cubes and functions come from the views (`attnmem.views`), the legend from
the palette, the stylesheet and links from the shell (`attnmem.shell`)."""

from __future__ import annotations

import csv
import html
import json
import os
from collections.abc import Mapping
from pathlib import Path

from . import palette, shell, views

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


def png_size(path: str | Path) -> tuple[int, int] | None:
    """A PNG's width and height in pixels, read from its header; None when the file is not a
    PNG (a stand-in, a figure not drawn yet)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _sized(size: tuple[int, int] | None) -> tuple[str, str]:
    """The figure's style (its image's width, the figure's width in the grid of figures) and the
    image's size attributes: the browser shows a PNG at its own width, one pixel per CSS pixel
    (its type then reads at the size it was drawn), narrower only where the page is."""
    if size is None:
        return "", ""
    width, height = size
    return f" style='--w:{width}px'", f" width='{width}' height='{height}'"


def caption_text(rst: str) -> str:
    """The caption file's text as one paragraph (our captions are plain prose)."""
    return " ".join(line.strip() for line in rst.splitlines() if line.strip())


def _legend() -> str:
    items = "".join(
        f"<li><span class='swatch' style='background:{colour}'></span>"
        f"<b>{html.escape(name)}</b>&nbsp;{html.escape(meaning)}</li>"
        for colour, name, meaning in palette.LEGEND
    )
    return f"<ul class='legend' aria-label='colour code'>{items}</ul>"


def _source(view: views.View, base: Path) -> str:
    """A link to the function that draws a view, with its line."""
    esc = html.escape
    source = view.directory / f"{view.module}.py"
    return (
        f"<a href='{esc(os.path.relpath(source, base))}' class='source'>"
        f"{views.KINDS[view.kind]}/{esc(view.module)}.py</a> <code>{esc(view.function)}</code> "
        f"(line {views.source_line(view)})"
    )


def _links(fig: views.View | None, results: Path, base: Path, page: views.View | None) -> str:
    """Links to the cubes a figure reads, to the function that draws it and to the one that
    builds its page."""
    if fig is None:
        return ""
    esc = html.escape
    cubes = " ".join(
        f"<a href='{esc(os.path.relpath(results / f'{c}.nc', base))}'>{esc(c)}.nc</a>"
        for c in fig.cubes
    )
    built = f" · Page built by: {_source(page, base)}" if page else ""
    return (
        f"<p class='links'>Cubes: {cubes or '<em>none, a diagram</em>'} · "
        f"Drawn by: {_source(fig, base)}{built}</p>"
    )


def render(
    figures: list[dict],
    claims_csv: str | Path,
    out_path: str | Path,
    svg: bool = False,
    pages: Mapping[str, Mapping] | None = None,
) -> str:
    """``figures``: dicts with id, png (path), caption (text); ``pages``: figure id -> the
    description of its interactive page (the page jobs' ``about``: file, handles, ...), linked
    beside the PNG as "interactive". Links are relative to out_path; the cubes are taken to sit
    beside the claims table (results/); an image opens its SVG when ``svg`` (the figure jobs
    wrote them), else the PNG at full size."""
    pages = pages or {}
    with open(claims_csv, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    supported: dict[str, list[Mapping]] = {}
    for row in rows:
        for fig_id in filter(None, row["figure"].split(";")):
            supported.setdefault(fig_id, []).append(row)
    base = Path(out_path).parent
    results = Path(claims_csv).parent
    claims_href = os.path.relpath(Path(claims_csv).with_suffix(".html"), base)
    declared = views.by_id("figure")
    builders = views.by_id("page")
    docs = sorted({f["id"].split("/")[0] for f in figures})
    esc = html.escape
    count = f" ({len(pages)} of them also as interactive pages)" if pages else ""
    parts = [
        shell.head("Figures", "gallery"),
        "<h1>Figures</h1>",
        f"<p>{len(figures)} figures of the notes, re-drawn from the cubes in results/{count}. "
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
                ("</div></section>" if current else "") + f"<section class='doc' id='{esc(doc)}'>"
            )
            parts.append(f"<h2>{esc(doc)}</h2><div class='figs'>")
            current = doc
        spec = declared.get(fig["id"])
        title = views.heading(spec.title if spec else "", fig["caption"])
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
        interactive = ""
        if fig["id"] in pages:
            page_href = os.path.relpath(Path(fig["png"]).with_suffix(".html"), base)
            handles = ", ".join(f"{h['kind']} {h['name']}" for h in pages[fig["id"]]["handles"])
            interactive = (
                f" <a class='interactive' href='{esc(page_href)}' title='{esc(handles)}'>"
                "interactive</a>"
            )
        box, size = _sized(png_size(fig["png"]))
        parts.append(
            f"<figure id='{esc(fig['id'])}'{box}><h3>{esc(title)}</h3>"
            f"<div class='fid'>{esc(fig['id'])}{interactive}</div>"
            f"<a href='{esc(full)}'><img src='{esc(src)}' alt='{esc(title)}'{size}"
            " title='open at full size' loading='lazy'></a>"
            f"<figcaption>{esc(fig['caption'])}</figcaption>"
            f"{_links(spec, results, base, builders.get(fig['id']) if interactive else None)}"
            f"<p class='claims-of'>Claims: {links}</p></figure>"
        )
    if current:
        parts.append("</div></section>")
    parts.append(f"<script>{_SEARCH}</script>")
    text = "\n".join(parts)
    Path(out_path).write_text(text, encoding="utf-8")
    return text


def page_list(pages: Mapping[str, Mapping], out_path: str | Path) -> list[dict]:
    """figures/interactive.json: one record per page, by figure id: id, doc, the note's line of
    the caption, the file (relative to the list), the handles (name, kind, and the range or the
    values the page offers) and the numbers it shows (each a cube, variable and selection)."""
    out = []
    for fig_id in sorted(pages):
        about = pages[fig_id]
        out.append(
            {
                "id": fig_id,
                "doc": fig_id.split("/")[0],
                "line": about["line"],
                "file": f"{fig_id}.html",
                "title": about.get("title", ""),
                "handles": about["handles"],
                "shows": about.get("shows", []),
            }
        )
    Path(out_path).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out
