"""figures/index.html: every figure with its caption and the ids of the claims it supports."""

from __future__ import annotations

import csv
import html
import os
from collections.abc import Mapping
from pathlib import Path

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1100px;color:#222}
figure{margin:2em 0;border-top:1px solid #ddd;padding-top:1em}
img{max-width:100%;border:1px solid #eee}
figcaption{margin-top:.5em;line-height:1.4}
.claims{font-size:13px;color:#444} .claims a{margin-right:.6em}
.v-discrepant{color:#b03a2e} .v-reproduced{color:#1e7b45} .v-conditional{color:#9a6a00}
.v-not-checked{color:#777}
nav a{margin-right:1em}
"""


def caption_text(rst: str) -> str:
    """The caption file's text as one paragraph (our captions are plain prose)."""
    return " ".join(line.strip() for line in rst.splitlines() if line.strip())


def render(figures: list[dict], claims_csv: str | Path, out_path: str | Path) -> str:
    """``figures``: dicts with id, png (path), caption (text). Links are relative to out_path."""
    with open(claims_csv, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    supported: dict[str, list[Mapping]] = {}
    for row in rows:
        for fig_id in filter(None, row["figure"].split(";")):
            supported.setdefault(fig_id, []).append(row)
    base = Path(out_path).parent
    claims_href = os.path.relpath(Path(claims_csv).with_suffix(".html"), base)
    docs = sorted({f["id"].split("/")[0] for f in figures})
    esc = html.escape
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Figures</title>",
        f"<style>{_CSS}</style><h1>Figures</h1>",
        f"<p>{len(figures)} figures of the notes, re-drawn from the cubes in results/. "
        f"<a href='{esc(claims_href)}'>The claims table</a>.</p><nav>",
    ]
    parts += [f"<a href='#{esc(d)}'>{esc(d)}</a>" for d in docs] + ["</nav>"]
    current = None
    for fig in sorted(figures, key=lambda f: f["id"]):
        doc = fig["id"].split("/")[0]
        if doc != current:
            parts.append(f"<h2 id='{esc(doc)}'>{esc(doc)}</h2>")
            current = doc
        src = os.path.relpath(fig["png"], base)
        svg = os.path.relpath(Path(fig["png"]).with_suffix(".svg"), base)
        links = (
            " ".join(
                f"<a class='v-{esc(r['verdict'])}' href='{esc(claims_href)}#{esc(r['id'])}'"
                f" title='{esc(r['verdict'])}'>{esc(r['id'])}</a>"
                for r in supported.get(fig["id"], [])
            )
            or "<em>no claim names this figure</em>"
        )
        parts.append(
            f"<figure id='{esc(fig['id'])}'><h3>{esc(fig['id'])}</h3>"
            f"<a href='{esc(svg)}'><img src='{esc(src)}' alt='{esc(fig['id'])}'></a>"
            f"<figcaption>{esc(fig['caption'])}</figcaption>"
            f"<p class='claims'>Claims: {links}</p></figure>"
        )
    text = "\n".join(parts)
    Path(out_path).write_text(text, encoding="utf-8")
    return text
