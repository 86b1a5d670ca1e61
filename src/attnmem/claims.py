"""The claims registry: loading, judging each entry against the cubes, and the claims table.

A verdict is computed, never typed: ``reproduced`` when the value read from a cube agrees with
the stated one within the entry's tolerance, ``discrepant`` when it does not, ``not-checked``
when the entry has nothing to compute.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .config import load_yaml

COLUMNS = (
    "id",
    "doc",
    "section",
    "line",
    "tag",
    "claim",
    "stated",
    "computed",
    "difference",
    "tolerance",
    "verdict",
    "why",
    "cube",
    "figure",
)
VERDICTS = ("reproduced", "discrepant", "not-checked")
TAGS = ("derived", "cited", "recalled")
DOCS = ("first-principles", "memory-math", "every-word", "soft-dictionary", "every-layer-a-store")


# ----------------------------------------------------------------------------- loading


def load_registry(root) -> list[dict]:
    """Every entry of the YAML files under ``root`` (a directory, one file, or a list of
    files), in file order."""
    if isinstance(root, (str, Path)) and Path(root).is_file():
        paths = [Path(root)]
    elif isinstance(root, (str, Path)):
        paths = sorted(Path(root).rglob("*.yaml"))
    else:
        paths = sorted(Path(p) for p in root)
    entries = []
    for path in paths:
        for entry in load_yaml(path) or []:
            entries.append({**entry, "_file": str(path)})
    return entries


def registry_files(root: str | Path) -> list[str]:
    return sorted(str(p) for p in Path(root).rglob("*.yaml"))


def checks_of(entry: Mapping) -> list[dict]:
    """The entry's checks as a list (an entry may read one place or several)."""
    check = entry.get("check")
    if check is None:
        return []
    return list(check) if isinstance(check, list) else [check]


def cubes_named_in(files: Iterable[str | Path]) -> list[str]:
    """Names of the cubes the registry files read, found by a plain text scan (parsing the
    whole registry as YAML costs most of a second at every Snakemake start)."""
    names = set()
    for path in files:
        names.update(_CUBE.findall(Path(path).read_text(encoding="utf-8")))
    return sorted(names)


_CUBE = re.compile(r"\bcube:\s*([A-Za-z_]\w*)")


def cubes_of(entries: Iterable[Mapping]) -> list[str]:
    """Names of the cubes the entries read."""
    return sorted({c["cube"] for e in entries for c in checks_of(e)})


def figures_of(entry: Mapping) -> list[str]:
    fig = entry.get("figure")
    if fig is None:
        return []
    return [fig] if isinstance(fig, str) else list(fig)


# ----------------------------------------------------------------------------- stated values


@dataclass(frozen=True)
class Printed:
    """One stated value: its number (or label), and half a unit of its last printed digit."""

    text: str
    number: float | None
    half_unit: float
    label: str | None = None


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_printed(value) -> Printed:
    """Read a value as the note prints it: "10.50", "36,288", "40.0%", "2.4e11", true, 7."""
    if isinstance(value, bool):
        return Printed(str(value).lower(), float(value), 0.0)
    if isinstance(value, int):
        return Printed(str(value), float(value), 0.5)
    text = str(value).strip()
    raw = text.replace(",", "").replace("\u2212", "-").replace(" ", "")
    scale = 1.0
    if raw.endswith("%"):
        raw, scale = raw[:-1], 0.01
    if not _NUMBER.match(raw):
        return Printed(text, None, 0.0, label=text)
    mantissa, _, exponent = raw.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    half = 0.5 * 10.0 ** (-decimals) * 10.0 ** int(exponent or 0)
    return Printed(text, float(raw) * scale, half * scale)


def stated_values(entry: Mapping) -> list[Printed]:
    value = entry["stated"]["value"]
    items = value if isinstance(value, list) else [value]
    return [parse_printed(v) for v in items]


# ----------------------------------------------------------------------------- reading cubes


@dataclass
class Reading:
    """Values read from a cube for one check, with the replicate spread when there is one."""

    values: list  # floats or labels
    spread: list | None = None  # per value: standard deviation of one replicate
    n_replicates: int | None = None


def _select(da, sel: Mapping):
    for dim, want in (sel or {}).items():
        if dim not in da.dims and dim not in da.coords:
            raise KeyError(f"no coordinate {dim!r} in {da.name!r} (dims {list(da.dims)})")
        try:
            da = da.sel({dim: want})
        except KeyError:
            da = da.sel({dim: want}, method="nearest", tolerance=1e-9)
    return da


def read_check(check: Mapping, cubes: Mapping) -> Reading:
    """The number(s) a check points at, in the order of the variable's remaining dims."""
    import numpy as np  # here, not at the top: the Snakefile imports this module to parse

    ds = cubes[check["cube"]]
    if "size" in check:
        return Reading([float(ds.sizes[check["size"]])])
    if check["var"] not in ds:
        raise KeyError(f"cube {check['cube']!r} has no variable {check['var']!r}")
    da = _select(ds[check["var"]], check.get("sel", {}))
    over = check.get("over")
    if "argmax" in check:
        dim = check["argmax"]
        labels = da[dim].values[da.argmax(dim=dim).values]
        labels = np.atleast_1d(labels)
        return Reading([_label(x) for x in labels.ravel()])
    if over:
        n = da.sizes[over]
        mean = da.mean(over).values.ravel()
        sd = da.std(over, ddof=1).values.ravel()
        return Reading([float(x) for x in mean], [float(s) for s in sd], n)
    return Reading([float(x) for x in np.atleast_1d(da.values).ravel()])


def _label(x) -> str:
    if isinstance(x, bytes):
        x = x.decode()
    if hasattr(x, "item"):
        x = x.item()
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return str(x)


# ----------------------------------------------------------------------------- judging


@dataclass
class Row:
    """One row of the claims table."""

    entry: Mapping
    stated: str
    computed: str
    difference: str
    tolerance: str
    verdict: str
    error: str | None = None

    def as_dict(self) -> dict:
        e = self.entry
        w = e["where"]
        return {
            "id": e["id"],
            "doc": w["doc"],
            "section": w["section"],
            "line": w["line"],
            "tag": e["tag"],
            "claim": e["claim"],
            "stated": self.stated,
            "computed": self.computed,
            "difference": self.difference,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "why": e.get("why", "") if self.error is None else f"ERROR: {self.error}",
            "cube": ";".join(sorted({c["cube"] for c in checks_of(e)})),
            "figure": ";".join(figures_of(e)),
        }


def _fmt(x) -> str:
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"


def student_k(k: float, n_rep: int) -> float:
    """The band, in our standard errors, with the false-alarm rate of k normal standard errors
    when the standard error is itself estimated from ``n_rep`` replicates (Student t with
    n_rep - 1 degrees of freedom): 4 stays 4.1 at 200 replicates but becomes 6.9 at 10."""
    from scipy import stats  # here, not at the top: the Snakefile imports this module to parse

    if n_rep < 2:
        raise ValueError("a standard error needs at least two replicates")
    return float(stats.t.isf(stats.norm.sf(k), df=n_rep - 1))


def _tolerances(entry: Mapping, stated: list[Printed], reading: Reading) -> tuple[list, str]:
    """Allowed |computed - stated| per value, and how to print the rule."""
    tol = entry.get("tolerance", "printed")
    n = len(stated)
    if tol == "printed":
        return [p.half_unit for p in stated], "printed (half a unit of the last digit)"
    if tol == "exact":
        return [1e-9 * max(1.0, abs(p.number or 0.0)) for p in stated], "exact"
    if "abs" in tol:
        return [float(tol["abs"])] * n, f"abs {tol['abs']}"
    if "rel" in tol:
        return [float(tol["rel"]) * abs(p.number) for p in stated], f"rel {tol['rel']}"
    if reading.spread is None:
        raise ValueError(
            "tolerances se, se_mean, se_identity need a check with 'over' (replicates)"
        )
    n_rep = reading.n_replicates
    if "se_mean" in tol or "se_identity" in tol:
        # The stated value is exact: our mean must agree within k standard errors of our own
        # mean, plus the printed rounding when the value is a printed number (se_mean) and
        # none when it is what an identity of the note implies (se_identity).
        identity = "se_identity" in tol
        k = student_k(float(tol["se_identity" if identity else "se_mean"]), n_rep)
        widths = [
            (0.0 if identity else p.half_unit) + k * sd / math.sqrt(n_rep)
            for p, sd in zip(stated, reading.spread, strict=True)
        ]
        bands = ";".join(f"±{w:.3g}" for w in widths)
        rounding = "" if identity else "printed + "
        return widths, f"{rounding}{k:.3g} SE of our mean over {n_rep} replicates ({bands})"
    # The stated value is itself one Monte Carlo run of the size of one replicate: it and our
    # mean differ by sd * sqrt(1 + 1/n).
    k = student_k(float(tol["se"]), n_rep)
    combined = [sd * math.sqrt(1.0 + 1.0 / n_rep) for sd in reading.spread]
    bands = ";".join(f"±{k * c:.3g}" for c in combined)
    return [k * c for c in combined], f"{k:.3g} combined SE over {n_rep} replicates ({bands})"


def _agrees(relation: str, computed, printed: Printed, tol: float) -> bool:
    if printed.label is not None or isinstance(computed, str):
        return str(computed) == (printed.label if printed.label is not None else printed.text)
    c, s = float(computed), printed.number
    slack = tol + 1e-12 * max(1.0, abs(s))
    if math.isnan(c):
        return False
    if relation == "=":
        return abs(c - s) <= slack
    if relation == ">":
        return c > s
    if relation == ">=":
        return c >= s - slack
    if relation == "<":
        return c < s
    if relation == "<=":
        return c <= s + slack
    raise ValueError(f"unknown relation {relation!r}")


def judge(entry: Mapping, cubes: Mapping) -> Row:
    """The verdict of one entry against the loaded cubes."""
    checks = checks_of(entry)
    stated_text = ""
    if "stated" in entry:
        stated_text = ";".join(p.text for p in stated_values(entry))
    if not checks:
        return Row(entry, stated_text, "", "", "", "not-checked")
    try:
        readings = [read_check(c, cubes) for c in checks]
        values = [v for r in readings for v in r.values]
        spread = None
        if all(r.spread is not None for r in readings):
            spread = [s for r in readings for s in r.spread]
        merged = Reading(values, spread, readings[0].n_replicates)
        relation = entry["stated"].get("relation", "=")
        stated = stated_values(entry)
        if relation == "in":
            return _judge_interval(entry, stated, values)
        if len(stated) != len(values):
            raise ValueError(f"{len(stated)} stated values but the check reads {len(values)}")
        tols, tol_text = _tolerances(entry, stated, merged)
        ok = [_agrees(relation, c, p, t) for c, p, t in zip(values, stated, tols, strict=True)]
        diffs = []
        for i, (c, p) in enumerate(zip(values, stated, strict=True)):
            if p.number is None or isinstance(c, str):
                wanted = p.label if p.label is not None else p.text
                diffs.append("" if str(c) == wanted else "differs")
                continue
            d = float(c) - p.number
            text = _fmt(d)
            if merged.spread is not None:
                tol = entry.get("tolerance", {})
                of_mean = isinstance(tol, dict) and ("se_mean" in tol or "se_identity" in tol)
                combined = merged.spread[i] * math.sqrt(
                    1 / merged.n_replicates if of_mean else 1 + 1 / merged.n_replicates
                )
                if combined > 0:
                    text += f" (z={d / combined:+.2f})"
                else:
                    text += " (no spread)" if d == 0 else " (z=inf, no spread)"
            diffs.append(text)
        if relation != "=":
            tol_text = f"computed {relation} stated"
        verdict = "reproduced" if all(ok) else "discrepant"
        return Row(
            entry,
            stated_text,
            ";".join(_fmt(v) for v in values),
            ";".join(diffs),
            tol_text,
            verdict,
        )
    except Exception as exc:  # a broken check is shown in the table, and fails its test
        return Row(entry, stated_text, "", "", "", "error", error=f"{type(exc).__name__}: {exc}")


def _judge_interval(entry: Mapping, stated: list[Printed], values: list) -> Row:
    if len(stated) != 2 or len(values) != 1:
        raise ValueError("relation 'in' takes two stated bounds and one computed value")
    lo, hi = stated[0].number, stated[1].number
    c = float(values[0])
    verdict = "reproduced" if lo <= c <= hi else "discrepant"
    diff = "" if verdict == "reproduced" else _fmt(c - (lo if c < lo else hi))
    return Row(
        entry,
        f"[{stated[0].text}, {stated[1].text}]",
        _fmt(c),
        diff,
        "computed in [lo, hi]",
        verdict,
    )


def judge_all(entries: Iterable[Mapping], cubes: Mapping) -> list[Row]:
    """Every entry judged, in reading order: by document, then line in the note."""

    def order(e: Mapping):
        w = e["where"]
        return (DOCS.index(w["doc"]) if w["doc"] in DOCS else len(DOCS), w["line"])

    return [judge(e, cubes) for e in sorted(entries, key=order)]


# ----------------------------------------------------------------------------- rendering


def write_csv(rows: list[Row], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row.as_dict())


def counts(rows: list[Row]) -> Counter:
    """Verdicts counted by (doc, tag, verdict)."""
    return Counter((r.entry["where"]["doc"], r.entry["tag"], r.verdict) for r in rows)


def _count_lines(rows: list[Row]) -> list[tuple[str, str, dict]]:
    c = counts(rows)
    keys = sorted({(d, t) for d, t, _ in c}, key=lambda k: (DOCS.index(k[0]), TAGS.index(k[1])))
    return [(d, t, {v: c[(d, t, v)] for v in (*VERDICTS, "error")}) for d, t in keys]


def render_markdown(rows: list[Row]) -> str:
    out = io.StringIO()
    out.write("# Claims table\n\n")
    out.write(f"{len(rows)} results of the notes, each judged against the cubes.\n\n")
    out.write("| doc | tag | reproduced | discrepant | not-checked | error |\n")
    out.write("| --- | --- | ---: | ---: | ---: | ---: |\n")
    for d, t, n in _count_lines(rows):
        out.write(
            f"| {d} | {t} | {n['reproduced']} | {n['discrepant']} | {n['not-checked']} |"
            f" {n['error']} |\n"
        )
    out.write("\n| " + " | ".join(COLUMNS) + " |\n")
    out.write("|" + " --- |" * len(COLUMNS) + "\n")
    for row in rows:
        cells = [str(v).replace("|", "\\|").replace("\n", " ") for v in row.as_dict().values()]
        out.write("| " + " | ".join(cells) + " |\n")
    return out.getvalue()


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#f3f3f3;position:sticky;top:0}
tr.reproduced td.verdict{background:#d9f2dd} tr.discrepant td.verdict{background:#f8d7d3}
tr.not-checked td.verdict{background:#eee} tr.error td.verdict{background:#f5a3a3}
td.num{font-family:ui-monospace,monospace;max-width:13em;overflow-wrap:anywhere}
td.claim,td.why{min-width:20em;max-width:34em}
td.id{min-width:15em;max-width:18em;overflow-wrap:anywhere}
td.count{text-align:right;font-family:ui-monospace,monospace}
#filter{margin:.5em 0 1em;font-size:14px} #filter input{width:24em}
"""

_JS = """
function filterRows(){
  const text=document.getElementById('q').value.toLowerCase();
  const verdict=document.getElementById('v').value;
  let shown=0;
  for(const tr of document.querySelectorAll('#results tr[id]')){
    const ok=(!verdict||tr.className===verdict)&&tr.textContent.toLowerCase().includes(text);
    tr.style.display=ok?'':'none'; shown+=ok;
  }
  document.getElementById('n').textContent=shown+' shown';
}
"""


def render_html(rows: list[Row]) -> str:
    esc = html.escape
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Claims table</title>",
        f"<style>{_CSS}</style><script>{_JS}</script><h1>Claims table</h1>",
        f"<p>{len(rows)} results of the notes, each judged against the cubes. "
        "<a href='../figures/index.html'>Figures</a>.</p>",
        "<table><tr><th>doc</th><th>tag</th>",
    ]
    parts += [f"<th>{v}</th>" for v in (*VERDICTS, "error")] + ["</tr>"]
    for d, t, n in _count_lines(rows):
        parts.append(f"<tr><td>{d}</td><td>{t}</td>")
        parts += [f"<td class='count'>{n[v]}</td>" for v in (*VERDICTS, "error")]
        parts.append("</tr>")
    options = "".join(f"<option>{v}</option>" for v in (*VERDICTS, "error"))
    parts.append(
        "</table><h2>Every result</h2><div id='filter'>Filter: "
        "<input id='q' oninput='filterRows()' placeholder='text in any column'> "
        f"<select id='v' onchange='filterRows()'><option value=''>any verdict</option>{options}"
        "</select> <span id='n'></span></div><table id='results'><tr>"
    )
    parts += [f"<th>{c}</th>" for c in COLUMNS] + ["</tr>"]
    numeric = {"line", "stated", "computed", "difference", "tolerance"}
    for row in rows:
        d = row.as_dict()
        parts.append(f"<tr id='{esc(d['id'])}' class='{esc(row.verdict)}'>")
        for col in COLUMNS:
            value = esc(str(d[col]))
            if col in ("stated", "computed", "difference"):
                value = value.replace(";", "; ")
            if col == "figure" and d[col]:
                value = " ".join(
                    f"<a href='../figures/index.html#{esc(f)}'>{esc(f)}</a>"
                    for f in d[col].split(";")
                )
            cls = "num" if col in numeric else col
            parts.append(f"<td class='{cls}'>{value}</td>")
        parts.append("</tr>")
    parts.append("</table>")
    return "\n".join(parts)


def write_tables(rows: list[Row], csv_path, md_path, html_path) -> None:
    write_csv(rows, csv_path)
    Path(md_path).write_text(render_markdown(rows), encoding="utf-8")
    Path(html_path).write_text(render_html(rows), encoding="utf-8")
