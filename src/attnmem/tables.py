"""The claims table rendered: ``claims.csv`` (one row per registry entry, fixed columns),
``claims.md`` and ``claims.html`` (counts by document, verdict and evidence, a legend, the
errata of the notes, then every row), and ``errata.md``: every discrepant row grouped by note
and section with what holds instead, then every unresolved row with what would decide it."""

from __future__ import annotations

import csv
import html
import io
from collections import Counter
from pathlib import Path

from . import shell
from .claims import COLUMNS, DOCS, EVIDENCE, VERDICTS, Row


def write_csv(rows: list[Row], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row.as_dict())


def counts(rows: list[Row]) -> Counter:
    """Rows counted by (doc, verdict, evidence)."""
    return Counter(
        (r.entry["where"]["doc"], r.verdict, r.as_dict()["evidence"] or "none") for r in rows
    )


EVIDENCE_COLUMNS = (*EVIDENCE, "none")


def _count_lines(rows: list[Row]) -> list[tuple[str, str, dict]]:
    """One line per (doc, verdict) present, with its rows counted by evidence class."""
    c = counts(rows)
    lines = []
    for doc in DOCS:
        for verdict in (*VERDICTS, "error"):
            n = {ev: c[(doc, verdict, ev)] for ev in EVIDENCE_COLUMNS}
            if sum(n.values()):
                lines.append((doc, verdict, n))
    return lines


def _totals(rows: list[Row]) -> Counter:
    return Counter(r.verdict for r in rows)


VERDICT_MEANING = {
    "reproduced": "the statement as written holds, recomputed here by a test that could have "
    "failed",
    "conditional": "the statement does not by itself fix a computation (an unstated input, an "
    "ambiguous word, a toy scale for a trained result); it holds under the reading shown",
    "unresolved": "our test cannot decide (a statistical band that straddles the stated value "
    "or bound, or a toy-scale run that disagrees with a result about larger models); why says "
    "what would decide it",
    "discrepant": "as written it does not hold: the note is wrong here, and why says what holds "
    "instead (listed in the errata)",
    "not-checked": "nothing to compute (a citation, a definition, a road map); why says so",
}


def _legend_lines() -> list[tuple[str, str]]:
    return (
        [(v, VERDICT_MEANING[v]) for v in VERDICTS]
        + [(e, m) for e, m in EVIDENCE.items()]
        + [("none", "not checked, so no evidence")]
    )


def summary(rows: list[Row]) -> str:
    """One line: how many rows, and how many of each verdict."""
    t = _totals(rows)
    parts = ", ".join(f"{t[v]} {v}" for v in (*VERDICTS, "error") if t[v])
    return f"{len(rows)} results of the notes, each judged against the cubes: {parts}."


def md_text(text) -> str:
    """Registry text made inert in Markdown: HTML's <, > and & as entities (a Markdown viewer
    passes raw HTML through: <script>, <img onerror>), link and image brackets escaped (no
    [text](javascript:...)), one line."""
    text = html.escape(str(text).replace("\n", " "), quote=False)
    return text.replace("[", "\\[").replace("]", "\\]")


def render_markdown(rows: list[Row]) -> str:
    out = io.StringIO()
    out.write("# Claims table\n\n")
    out.write(summary(rows) + "\n\n")
    for word, meaning in _legend_lines():
        out.write(f"- **{word}**: {meaning}.\n")
    out.write("\nRows by document, verdict and evidence:\n\n")
    out.write("| doc | verdict | " + " | ".join(EVIDENCE_COLUMNS) + " | all |\n")
    out.write("| --- | --- |" + " ---: |" * (len(EVIDENCE_COLUMNS) + 1) + "\n")
    for d, v, n in _count_lines(rows):
        cells = " | ".join(str(n[e]) for e in EVIDENCE_COLUMNS)
        out.write(f"| {d} | {v} | {cells} | {sum(n.values())} |\n")
    out.write("\n| " + " | ".join(COLUMNS) + " |\n")
    out.write("|" + " --- |" * len(COLUMNS) + "\n")
    for row in rows:
        cells = [md_text(v).replace("|", "\\|") for v in row.as_dict().values()]
        out.write("| " + " | ".join(cells) + " |\n")
    return out.getvalue()


# Column widths of the results table, in percent of the page (it never scrolls sideways).
_WIDTHS = {
    "id": 9,
    "doc": 5,
    "section": 4,
    "line": 3,
    "tag": 4.5,
    "claim": 12,
    "stated": 4.5,
    "computed": 5,
    "difference": 5,
    "tolerance": 6,
    "verdict": 6.5,
    "evidence": 6,
    "reading": 10.5,
    "why": 10.5,
    "cube": 4.5,
    "figure": 4,
}

_JS = """
function filterRows(){
  const text=document.getElementById('q').value.toLowerCase();
  const verdict=document.getElementById('v').value;
  const evidence=document.getElementById('e').value;
  let shown=0;
  for(const tr of document.querySelectorAll('#results tbody tr')){
    const ok=(!verdict||tr.className===verdict)&&(!evidence||tr.dataset.evidence===evidence)
      &&tr.textContent.toLowerCase().includes(text);
    tr.style.display=ok?'':'none'; shown+=ok;
  }
  document.getElementById('n').textContent=shown+' shown';
}
function sortBy(col){
  const body=document.querySelector('#results tbody');
  const rows=[...body.rows];
  const dir=body.dataset.col==String(col)&&body.dataset.dir==='1'?-1:1;
  const key=r=>r.cells[col].textContent.trim();
  const place=/^(\\d+)(?::(\\d+))?$/;  // line or line:char, compared as numbers
  rows.sort((a,b)=>{
    const x=key(a),y=key(b),px=place.exec(x),py=place.exec(y);
    if(px&&py) return dir*((+px[1]-py[1])||((+px[2]||0)-(+py[2]||0)));
    const nx=parseFloat(x),ny=parseFloat(y);
    const c=(!isNaN(nx)&&!isNaN(ny)&&String(nx)===x&&String(ny)===y)?nx-ny:x.localeCompare(y);
    return dir*c;
  });
  body.dataset.col=col; body.dataset.dir=dir;
  for(const r of rows) body.appendChild(r);
}
"""


NOTES_HOWTO = (
    "Each row's line opens the note at that result when the notes are on this machine: set "
    "notes: in config/config.yaml (document key -> path of the note's text, e.g. notes: "
    "{first-principles: ../notes/first-principles.txt}) and rerun snakemake; results/notes/ "
    "then holds each note with every result marked in its verdict's colour."
)


def render_html(rows: list[Row], notes_docs=()) -> str:
    """claims.html; ``notes_docs``: the notes whose page results/notes/<doc>.html exists, to
    which each of their rows' line links."""
    esc = html.escape
    notes_docs = set(notes_docs)
    howto = "" if notes_docs >= set(DOCS) else f"<p class='howto'>{esc(NOTES_HOWTO)}</p>"
    parts = [
        shell.head("Claims table", "claims"),
        f"<script>{_JS}</script><h1>Claims table</h1>",
        f"<p>{esc(summary(rows))} {shell.link(shell.GALLERY, shell.CLAIMS, 'Figures')}. "
        f"{shell.link('results/errata.md', shell.CLAIMS, 'Errata')}.</p>{howto}<dl>",
    ]
    parts += [f"<dt>{esc(w)}</dt><dd>{esc(m)}.</dd>" for w, m in _legend_lines()]
    parts.append("</dl>")
    parts += _errata_html(rows)
    parts.append("<h2>Counts</h2><table id='counts'><tr><th>doc</th><th>verdict</th>")
    parts += [f"<th>{e}</th>" for e in EVIDENCE_COLUMNS] + ["<th>all</th></tr>"]
    for d, v, n in _count_lines(rows):
        parts.append(f"<tr class='{v}'><td>{d}</td><td class='verdict'>{v}</td>")
        parts += [f"<td class='count'>{n[e]}</td>" for e in EVIDENCE_COLUMNS]
        parts.append(f"<td class='count'>{sum(n.values())}</td></tr>")
    verdicts = "".join(f"<option>{v}</option>" for v in (*VERDICTS, "error"))
    evidence = "".join(f"<option>{e}</option>" for e in EVIDENCE_COLUMNS)
    parts.append(
        "</table><h2>Every result</h2><div id='filter'>Filter: "
        "<input id='q' oninput='filterRows()' placeholder='text in any column'> "
        f"<select id='v' onchange='filterRows()'><option value=''>any verdict</option>{verdicts}"
        "</select> <select id='e' onchange='filterRows()'><option value=''>any evidence</option>"
        f"{evidence}</select> <span id='n'></span> (click a heading to sort)</div>"
        "<table id='results'><colgroup>"
    )
    parts += [f"<col style='width:{_WIDTHS[c]}%'>" for c in COLUMNS]
    parts.append("</colgroup><thead><tr>")
    parts += [f"<th onclick='sortBy({i})'>{c}</th>" for i, c in enumerate(COLUMNS)]
    parts.append("</tr></thead><tbody>")
    numeric = {"line", "stated", "computed", "difference", "tolerance"}
    for row in rows:
        d = row.as_dict()
        parts.append(
            f"<tr id='{esc(d['id'])}' class='{esc(row.verdict)}' "
            f"data-evidence='{esc(d['evidence'] or 'none')}'>"
        )
        for col in COLUMNS:
            value = esc(str(d[col]))
            if col in ("stated", "computed", "difference"):
                value = value.replace(";", "; ")
            if col == "line" and d["doc"] in notes_docs:
                value = f"<a href='notes/{esc(d['doc'])}.html#{esc(d['id'])}'>{value}</a>"
            if col == "cube" and d[col]:
                value = f"<span title='{esc(row.long_name)}'>{value}</span>"
            if col == "figure" and d[col]:
                value = " ".join(shell.figure_link(f, shell.CLAIMS) for f in d[col].split(";"))
            cls = "num" if col in numeric else col
            parts.append(f"<td class='{cls}'>{value}</td>")
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


def _grouped(rows: list[Row], verdict: str) -> list[tuple[str, str, list[Row]]]:
    """The rows of one verdict grouped by note and section, in reading order."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        if row.verdict == verdict:
            w = row.entry["where"]
            groups.setdefault((w["doc"], w["section"]), []).append(row)
    return [(doc, section, rs) for (doc, section), rs in groups.items()]


ERRATA_INTRO = (
    "Every result the claims table finds false as written ({n} discrepant rows), grouped by "
    "note and section, with what holds instead: a reader of a note can correct it in one pass."
)
UNRESOLVED_INTRO = (
    "Results our tests cannot decide ({n} unresolved rows), with what would decide them. "
    "They are not errata."
)


def _errata_items(row: Row) -> tuple[str, list[tuple[str, str]]]:
    """One erratum: its heading and its labelled lines (all text, escaped by the renderer)."""
    d = row.as_dict()
    heading = f"{d['id']} (line {d['line']})"
    items = [("result", d["claim"]), ("stated", d["stated"]), ("computed", d["computed"])]
    if d["difference"]:
        items.append(("difference", d["difference"]))
    items.append(("what holds" if row.verdict == "discrepant" else "what would decide", d["why"]))
    return heading, items


def render_errata(rows: list[Row]) -> str:
    """errata.md: the discrepant rows by note and section, then the unresolved ones."""

    md = md_text
    out = io.StringIO()
    out.write("# Errata of the notes\n\n")
    for verdict, title, intro in (
        ("discrepant", None, ERRATA_INTRO),
        ("unresolved", "Unresolved: what our tests cannot decide", UNRESOLVED_INTRO),
    ):
        groups = _grouped(rows, verdict)
        if title:
            out.write(f"## {title}\n\n")
        out.write(intro.format(n=sum(len(g[2]) for g in groups)) + "\n\n")
        for doc, section, rs in groups:
            out.write(f"{'###' if title else '##'} {md(doc)}, section {md(section)}\n\n")
            for row in rs:
                heading, items = _errata_items(row)
                out.write(f"- **{md(heading)}**\n")
                out.writelines(f"  - {label}: {md(text)}\n" for label, text in items)
            out.write("\n")
    return out.getvalue()


def _errata_html(rows: list[Row]) -> list[str]:
    """The errata as the top section of claims.html, each row linked to its table row."""
    esc = html.escape
    parts = []
    for verdict, title, intro in (
        ("discrepant", "Errata of the notes", ERRATA_INTRO),
        ("unresolved", "Unresolved", UNRESOLVED_INTRO),
    ):
        groups = _grouped(rows, verdict)
        n = sum(len(g[2]) for g in groups)
        opened = " open" if verdict == "discrepant" else ""
        parts.append(
            f"<details id='{verdict}-list' class='errata'{opened}>"
            f"<summary>{esc(title)} ({n})</summary><p>{esc(intro.format(n=n))}</p>"
        )
        for doc, section, rs in groups:
            parts.append(f"<h3>{esc(doc)}, section {esc(section)}</h3><ul>")
            for row in rs:
                heading, items = _errata_items(row)
                rid = esc(row.entry["id"])
                lines = "".join(f"<br><i>{esc(k)}</i>: {esc(str(v))}" for k, v in items)
                parts.append(f"<li><a href='#{rid}'>{esc(heading)}</a>{lines}</li>")
            parts.append("</ul>")
        parts.append("</details>")
    return parts


def write_tables(rows: list[Row], csv_path, md_path, html_path, errata_path, notes_docs=()) -> None:
    write_csv(rows, csv_path)
    Path(md_path).write_text(render_markdown(rows), encoding="utf-8")
    Path(html_path).write_text(render_html(rows, notes_docs), encoding="utf-8")
    Path(errata_path).write_text(render_errata(rows), encoding="utf-8")
