"""The notes beside the table: a note's text with every registry row's place marked.

The project ships no text of the notes. A reader who has them points the config's ``notes:``
at their files (document key -> path); the pipeline then writes ``results/notes/<doc>.html``:
the note line by line, each line anchored (``#L<line>``), and each result the registry judges
marked in its verdict's colour, with links to its row of ``claims.html``, its figure and its
cube. A row that gives a character offset (a note that keeps a chapter on one line) marks the
text from that offset to the end of its sentence; a row on a short line marks the line.
``claims.html`` links each row's ``line`` to its mark.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

# The verdict whose colour a line with several rows takes: the one a reader must see first.
SEVERITY = ("discrepant", "unresolved", "error", "conditional", "reproduced", "not-checked")
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
LONGEST_MARK = 600  # characters a mark may run to when no sentence ends sooner

CSS = """
body{font-family:system-ui,sans-serif;margin:1em auto;max-width:60em;color:#222;line-height:1.5}
p.line{margin:.2em 0;white-space:pre-wrap;overflow-wrap:anywhere}
p.line a.n{color:#999;font:11px ui-monospace,monospace;text-decoration:none;margin-right:.6em}
span.claim{border-bottom:2px solid;padding:0 1px}
span.reproduced{background:#e6f6e9;border-color:#3b8f4c}
span.conditional{background:#fdf4d8;border-color:#b8860b}
span.unresolved{background:#e4eaf9;border-color:#4a63b5}
span.discrepant{background:#fbe2de;border-color:#c0392b}
span.not-checked{background:#f1f1f1;border-color:#999}
span.error{background:#f5a3a3;border-color:#900}
sup.row{font-size:10px;white-space:nowrap} sup.row a{text-decoration:none;margin-left:2px}
:target{outline:2px solid #555}
"""


def read_rows(claims_csv: str | Path, doc: str) -> list[dict]:
    """The claims table's rows of one document, as written by the claims job."""
    with open(claims_csv, newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["doc"] == doc]


def place(row: Mapping) -> tuple[int, int | None]:
    """A row's line and its 1-based character offset in it (None for a whole line)."""
    line, _, char = str(row["line"]).partition(":")
    return int(line), (int(char) if char else None)


def _badge(row: Mapping, claims_href: str, figures_href: str, cubes_href: str) -> str:
    """The small links after a mark: the row in the table, its figure(s), its cube(s)."""
    esc = html.escape
    rid = row["id"]
    links = [
        f"<a href='{esc(claims_href)}#{esc(rid)}' title='{esc(rid)}: {esc(row['verdict'])}'>"
        f"{esc(row['verdict'])}</a>"
    ]
    for fig in filter(None, row.get("figure", "").split(";")):
        links.append(f"<a href='{esc(figures_href)}#{esc(fig)}' title='figure {esc(fig)}'>fig</a>")
    for cube in filter(None, row.get("cube", "").split(";")):
        links.append(f"<a href='{esc(cubes_href)}{esc(cube)}.nc' title='cube {esc(cube)}'>nc</a>")
    return f"<sup class='row'>[{' '.join(links)}]</sup>"


def _worst(rows: Iterable[Mapping]) -> str:
    verdicts = [r["verdict"] for r in rows]
    return min(verdicts, key=lambda v: SEVERITY.index(v) if v in SEVERITY else len(SEVERITY))


def _marked_line(text: str, rows: list[Mapping], links: tuple[str, str, str]) -> str:
    """One line of the note with its rows marked (text escaped, marks inserted)."""
    esc = html.escape
    whole = [r for r in rows if place(r)[1] is None]
    inline = sorted((r for r in rows if place(r)[1] is not None), key=lambda r: place(r)[1])
    starts = sorted({min(max(place(r)[1] - 1, 0), len(text)) for r in inline})
    out, pos = [], 0
    for i, start in enumerate(starts):
        at = [r for r in inline if min(max(place(r)[1] - 1, 0), len(text)) == start]
        limit = starts[i + 1] if i + 1 < len(starts) else len(text)
        found = SENTENCE_END.search(text, start + 1, limit)
        end = found.end() if found else min(limit, start + LONGEST_MARK)
        out.append(esc(text[pos:start]))
        ids = "".join(f"<a id='{esc(r['id'])}'></a>" for r in at)
        out.append(
            f"{ids}<span class='claim {esc(_worst(at))}'>{esc(text[start:end])}</span>"
            + "".join(_badge(r, *links) for r in at)
        )
        pos = end
    out.append(esc(text[pos:]))
    body = "".join(out)
    if whole:
        ids = "".join(f"<a id='{esc(r['id'])}'></a>" for r in whole)
        body = f"{ids}<span class='claim {esc(_worst(whole))}'>{body}</span>" + "".join(
            _badge(r, *links) for r in whole
        )
    return body


def render(
    doc: str,
    text: str,
    rows: list[Mapping],
    claims_href: str = "../claims.html",
    figures_href: str = "../../figures/index.html",
    cubes_href: str = "../",
) -> str:
    """The note page: every line anchored, every row's place marked and linked."""
    esc = html.escape
    by_line: dict[int, list[Mapping]] = {}
    for row in rows:
        by_line.setdefault(place(row)[0], []).append(row)
    links = (claims_href, figures_href, cubes_href)
    lines = text.splitlines()
    missing = sorted(n for n in by_line if n > len(lines))
    parts = [
        f"<!doctype html><meta charset='utf-8'><title>{esc(doc)}: the note beside the "
        f"claims</title><style>{CSS}</style>",
        f"<h1>{esc(doc)}</h1><p>The note as the config's <code>notes:</code> gives it, each "
        f"result of the <a href='{esc(claims_href)}'>claims table</a> marked in its verdict's "
        f"colour ({len(rows)} rows; the links after a mark open its row, figure and cube).</p>",
    ]
    if missing:
        parts.append(
            f"<p><b>{len(missing)} registry line(s) lie past the end of this file "
            f"({', '.join(map(str, missing[:10]))}): is it the right note?</b></p>"
        )
    for n, line in enumerate(lines, 1):
        body = _marked_line(line, by_line[n], links) if n in by_line else esc(line)
        parts.append(f"<p class='line' id='L{n}'><a class='n' href='#L{n}'>{n}</a>{body}</p>")
    return "\n".join(parts) + "\n"


def write_page(doc: str, note_path: str | Path, claims_csv: str | Path, out: str | Path) -> None:
    """results/notes/<doc>.html from the note's file and the claims table."""
    text = Path(note_path).read_text(encoding="utf-8")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(render(doc, text, read_rows(claims_csv, doc)), encoding="utf-8")


def configured(config: Mapping) -> dict[str, str]:
    """The config's ``notes:`` mapping (document key -> file path), empty by default."""
    return dict(config.get("notes") or {})
