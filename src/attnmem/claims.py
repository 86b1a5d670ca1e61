"""The claims registry: loading, judging each entry against the cubes, and the claims table.

A verdict is computed, never typed. It answers one question: does the statement, as written,
hold? ``reproduced`` when the value read from a cube agrees with the stated one within the
entry's tolerance and the pass rests on nothing the note does not state; ``conditional`` when it
agrees only under a reading the note does not state (the entry's ``conditional_on``, a
``literal`` check that fails, or inputs fitted to the printed values); ``discrepant`` when it
does not agree; ``not-checked`` when the entry has nothing to compute. Every checked row also
carries its class of ``evidence`` and the ``reading`` it rests on.
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
    "evidence",
    "reading",
    "why",
    "cube",
    "figure",
)
VERDICTS = ("reproduced", "conditional", "discrepant", "not-checked")
EVIDENCE = {
    "recomputed": "a number or fact the note prints, recomputed from the note's inputs by a "
    "computation that does not use the printed value",
    "formula": "the note's own formula evaluated at its inputs: arithmetic, not a test of the "
    "derivation",
    "property": "a general statement (identity, bound, ordering) tested by two different "
    "computations on data where agreement is not forced",
    "fitted": "inputs fitted or chosen to make the printed values come out: a consistency "
    "check, conditional at best",
    "trained": "a result about trained models, tested by training small models here",
}
# One rule for the note's words of approximation ("about", "roughly", "close to", "a sixth",
# "twice"): the computed value is within this fraction of the stated one (plus, for a Monte
# Carlo mean, its statistical band). Declared once, applied everywhere.
APPROX_REL = 0.10
TAGS = ("derived", "cited", "recalled")
DOCS = ("first-principles", "memory-math", "every-word", "soft-dictionary", "every-layer-a-store")


# ----------------------------------------------------------------------------- loading


class RegistryError(ValueError):
    """A registry file that cannot be read as entries; the message names the file and entry."""


FILE_KEYS = ("defaults", "claims")
DEFAULT_KEYS = ("cube", "sel")


def load_registry(root) -> list[dict]:
    """Every entry of the YAML files under ``root`` (a directory, one file, or a list of
    files), in file order, expanded as the judge reads it (``expand_entry``), with ``_file``."""
    if isinstance(root, (str, Path)) and Path(root).is_file():
        paths = [Path(root)]
    elif isinstance(root, (str, Path)):
        paths = sorted(Path(root).rglob("*.yaml"))
    else:
        paths = sorted(Path(p) for p in root)
    entries = []
    for path in paths:
        entries += file_entries(path, load_yaml(path))
    return entries


def file_entries(path, data) -> list[dict]:
    """The expanded entries of one registry file, given its parsed YAML."""
    defaults, raw = split_file(data, path)
    return [expand_entry(e, defaults, str(path)) for e in raw]


def read_registry_file(path) -> tuple[dict, list]:
    """A file's defaults and its entries as written."""
    return split_file(load_yaml(path), path)


def split_file(data, path) -> tuple[dict, list]:
    """Defaults and raw entries of a file's YAML: a list of entries, or a mapping
    ``{defaults: {cube, sel}, claims: [entries]}`` when a cube or selection recurs in the file."""
    if data is None or isinstance(data, list):
        return {}, data or []
    if not isinstance(data, Mapping) or not set(data) <= set(FILE_KEYS):
        raise RegistryError(
            f"{path}: a registry file is a list of entries or a mapping with "
            f"keys {', '.join(FILE_KEYS)}"
        )
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping) or not set(defaults) <= set(DEFAULT_KEYS):
        raise RegistryError(f"{path}: defaults may give only {', '.join(DEFAULT_KEYS)}")
    return dict(defaults), data.get("claims") or []


def expand_entry(raw: Mapping, defaults: Mapping | None = None, file: str | None = None) -> dict:
    """One entry as written in its file, made explicit for the judge: ``where`` holds the doc
    and section (the first two parts of the id) with the entry's ``line`` and ``char``; every
    check, the literal reading's too, becomes a list of single-variable checks with the file's
    defaults filled in (``expand_checks``). ``file`` is kept as ``_file``."""
    where = file or "a registry entry"
    ident = raw.get("id") if isinstance(raw, Mapping) else None
    parts = ident.split("/") if isinstance(ident, str) else []
    if len(parts) != 3 or not all(parts):
        raise RegistryError(f"{where}: entry {ident!r} needs an id <doc>/<section>/<slug>")
    name = f"{where}: {ident}"
    if "where" in raw:
        raise RegistryError(f"{name}: doc and section come from the id; write line (and char)")
    entry = {"id": ident, "where": {"doc": parts[0], "section": parts[1]}}
    entry["where"].update({k: raw[k] for k in ("line", "char") if k in raw})
    for key, value in raw.items():
        if key in ("id", "line", "char"):
            continue
        if key == "check":
            value = expand_checks(value, defaults or {}, name)
        elif key == "literal" and isinstance(value, Mapping) and "check" in value:
            value = {**value, "check": expand_checks(value["check"], defaults or {}, name)}
        entry[key] = value
    if file is not None:
        entry["_file"] = file
    return entry


def expand_checks(check, defaults: Mapping, name: str = "") -> list[dict]:
    """Checks as the judge reads them, in order. A check without ``cube`` reads the file's
    default cube; a check of the default cube starts from the default selection, its own
    ``sel`` keys winning key by key and a key set to null removing the default's (a ``size``
    check takes no selection); ``var: [a, b]`` reads a, then b, with the same cube and sel."""
    out = []
    for c in check if isinstance(check, list) else [check]:
        if not isinstance(c, Mapping):
            raise RegistryError(f"{name}: a check is a mapping, not {c!r}")
        cube = c.get("cube", defaults.get("cube"))
        if cube is None:
            raise RegistryError(f"{name}: a check names no cube and the file gives no default")
        c = {"cube": cube, **c}
        sel = c.pop("sel", None) or {}
        if not isinstance(sel, Mapping):
            raise RegistryError(f"{name}: sel maps dims to values, not {sel!r}")
        sel = dict(sel)
        if cube == defaults.get("cube") and "size" not in c:
            sel = {**(defaults.get("sel") or {}), **sel}
        sel = {k: v for k, v in sel.items() if v is not None}
        if sel:
            c["sel"] = sel
        variables = c.get("var")
        if isinstance(variables, list):
            if not variables:
                raise RegistryError(f"{name}: an empty var list reads nothing")
            out += [
                {**c, "var": v, **({"sel": dict(c["sel"])} if "sel" in c else {})}
                for v in variables
            ]
        else:
            out.append(c)
    return out


def registry_files(root: str | Path) -> list[str]:
    return sorted(str(p) for p in Path(root).rglob("*.yaml"))


def checks_of(entry: Mapping) -> list[dict]:
    """The entry's checks as a list (an entry may read one place or several)."""
    check = entry.get("check")
    if check is None:
        return []
    return list(check) if isinstance(check, list) else [check]


def all_checks(entry: Mapping) -> list[dict]:
    """The entry's checks and those of its literal reading, if it has one."""
    return checks_of(entry) + checks_of(entry.get("literal") or {})


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
    return sorted({c["cube"] for e in entries for c in all_checks(e)})


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
    samples: list | None = None  # per value: the replicates themselves (for quantiles)
    long_name: str = ""  # the variable's long_name, shown on hover in the HTML table


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
        return Reading([float(ds.sizes[check["size"]])], long_name=f"length of {check['size']}")
    if check["var"] not in ds:
        raise KeyError(f"cube {check['cube']!r} has no variable {check['var']!r}")
    da = _select(ds[check["var"]], check.get("sel", {}))
    long_name = f"{check['cube']}.{check['var']}: {da.attrs.get('long_name', '')}"
    for how, word in (("max", "largest"), ("min", "smallest")):
        if how in check:  # a bound that must hold in every replicate: read the nearest one
            da = getattr(da, how)(check[how])
            long_name += f" ({word} over {check[how]})"
    over = check.get("over")
    if "argmax" in check:
        dim = check["argmax"]
        labels = da[dim].values[da.argmax(dim=dim).values]
        labels = np.atleast_1d(labels)
        return Reading([_label(x) for x in labels.ravel()], long_name=long_name)
    if over:
        n = da.sizes[over]
        mean = da.mean(over).values.ravel()
        sd = da.std(over, ddof=1).values.ravel()
        reps = da.transpose(..., over).values.reshape(-1, n)
        return Reading([float(x) for x in mean], [float(s) for s in sd], n, list(reps), long_name)
    return Reading([float(x) for x in np.atleast_1d(da.values).ravel()], long_name=long_name)


def _label(x) -> str:
    if isinstance(x, bytes):
        x = x.decode()
    if hasattr(x, "item"):
        x = x.item()
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return str(x)


def read_all(checks: list[Mapping], cubes: Mapping, transform=None) -> Reading:
    """Several checks read as one list of values (with replicates when all have them);
    ``transform`` (a function of a Reading) perturbs what is read, for the mutation test, so
    that value i still lines up with stated value i."""
    readings = [read_check(c, cubes) for c in checks]
    values = [v for r in readings for v in r.values]
    spread = samples = None
    if all(r.spread is not None for r in readings):
        spread = [s for r in readings for s in r.spread]
        samples = [s for r in readings for s in r.samples]
    names = "; ".join(dict.fromkeys(r.long_name for r in readings))
    merged = Reading(values, spread, readings[0].n_replicates, samples, names)
    return transform(merged) if transform is not None else merged


# ----------------------------------------------------------------------------- judging


@dataclass
class Outcome:
    """One check judged: the printed cells and whether every value agrees."""

    stated: str
    computed: str
    difference: str
    tolerance: str
    ok: bool
    long_name: str = ""
    note: str = ""  # what the table's why must add (a bound the noise leaves unresolved)


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
    literal: Outcome | None = None  # the statement as written, when the entry reads it apart
    long_name: str = ""
    note: str = ""  # the judge's own sentence for the why (Outcome.note)

    def as_dict(self) -> dict:
        e = self.entry
        w = e["where"]
        return {
            "id": e["id"],
            "doc": w["doc"],
            "section": w["section"],
            "line": f"{w['line']}:{w['char']}" if "char" in w else w["line"],
            "tag": e["tag"],
            "claim": e["claim"],
            "stated": self.stated,
            "computed": self.computed,
            "difference": self.difference,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "evidence": e.get("evidence", "") if checks_of(e) else "",
            "reading": "; ".join(reading_of(e)),
            "why": self.why(),
            "cube": ";".join(sorted({c["cube"] for c in all_checks(e)})),
            "figure": ";".join(figures_of(e)),
        }

    def why(self) -> str:
        if self.error is not None:
            return f"ERROR: {self.error}"
        text = f"{self.note} {self.entry.get('why', '')}".strip()
        if self.literal is not None:
            lit = self.literal
            note = (
                f"As written (literal reading) the check gives {lit.computed} against "
                f"{lit.stated} ({'agrees' if lit.ok else 'differs by ' + lit.difference})."
            )
            text = f"{text} {note}".strip()
        return text


def reading_of(entry: Mapping) -> list[str]:
    """Every assumption or choice the verdict rests on; the unstated one is marked."""
    items = list(entry.get("reading", []))
    if entry.get("conditional_on"):
        items.insert(0, f"[not stated in the note] {entry['conditional_on']}")
    return items


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
    # scipy.special, not scipy.stats (a second more to import in the claims job); here, not at
    # the top: the Snakefile imports this module to parse
    from scipy import special

    if n_rep < 2:
        raise ValueError("a standard error needs at least two replicates")
    # the t quantile above which lies the normal tail beyond k (stats.t.isf(stats.norm.sf(k)))
    return float(special.stdtrit(n_rep - 1, special.ndtr(k)))


APPROX_K = 4.0  # the statistical band added to the approximation band for a Monte Carlo mean


def _tolerances(tol, stated: list[Printed], reading: Reading) -> tuple[list, str]:
    """Allowed |computed - stated| per value, and how to print the rule."""
    n = len(stated)
    if tol == "printed":
        return [p.half_unit for p in stated], "printed (half a unit of the last digit)"
    if tol == "exact":
        return [1e-9 * max(1.0, abs(p.number or 0.0)) for p in stated], "exact"
    if tol == "approx":
        widths = [APPROX_REL * abs(p.number or 0.0) for p in stated]
        text = f"approx (within {APPROX_REL:.0%} of the stated value"
        if reading.spread is not None:
            n_rep = reading.n_replicates
            k = student_k(APPROX_K, n_rep)
            widths = [
                w + k * sd / math.sqrt(n_rep) for w, sd in zip(widths, reading.spread, strict=True)
            ]
            text += f", plus {k:.3g} SE of our mean over {n_rep} replicates"
        return widths, text + ")"
    if "abs" in tol:
        return [float(tol["abs"])] * n, f"abs {tol['abs']}"
    if "rel" in tol:
        return [float(tol["rel"]) * abs(p.number) for p in stated], f"rel {tol['rel']}"
    if reading.spread is None:
        raise ValueError(
            "tolerances se, se_mean, se_identity, quantile need a check with 'over' (replicates)"
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


def _bound_margins(relation: str, tol, stated: list[Printed], reading: Reading):
    """The margins of an inequality, and how to print the rule.

    A bound on a number computed once is the number itself: its printed digits give no slack
    (an exact or absolute tolerance still allows rounding). A bound on a Monte Carlo mean is
    judged against the statistical band of that mean (k standard errors of our mean, k the
    tolerance's own or 4, as a Student-t quantile): a strict inequality holds only when the
    whole band lies on its side, so that noise cannot pass it; a non-strict one (which an
    equality satisfies, and which a mean can therefore only refute) holds unless the band lies
    wholly on the wrong side."""
    n = len(stated)
    if reading.spread is None:
        if tol == "printed":
            return [0.0] * n, f"computed {relation} stated"
        tols, _ = _tolerances(tol, stated, reading)
        strict = relation in (">", "<")
        return ([0.0] * n if strict else tols), f"computed {relation} stated"
    n_rep = reading.n_replicates
    keys = ("se", "se_mean", "se_identity")
    own = next((tol[k] for k in keys if isinstance(tol, dict) and k in tol), None)
    k = student_k(float(own) if own is not None else APPROX_K, n_rep)
    bands = [k * sd / math.sqrt(n_rep) for sd in reading.spread]
    side = "clear of" if relation in (">", "<") else "not wholly beyond"
    shown = ";".join(f"±{b:.3g}" for b in bands)
    return bands, (
        f"computed {relation} stated, our mean {side} the bound by {k:.3g} SE over "
        f"{n_rep} replicates ({shown})"
    )


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
        return c - tol > s
    if relation == ">=":
        return c >= s - slack
    if relation == "<":
        return c + tol < s
    if relation == "<=":
        return c <= s + slack
    raise ValueError(f"unknown relation {relation!r}")


def quantile_of(value: float, samples) -> float:
    """Where ``value`` falls among ``samples``: the mid-rank empirical distribution function."""
    import numpy as np

    s = np.asarray(samples, dtype=float)
    return float((np.sum(s < value) + 0.5 * np.sum(s == value)) / s.size)


def _judge_draw(stated: list[Printed], reading: Reading, level: float) -> Outcome:
    """A single printed draw of a random quantity, judged by its quantile among our replicates:
    it holds when the quantile lies inside the central 1 - level of our distribution."""
    if reading.samples is None:
        raise ValueError("tolerance quantile needs a check with 'over' (replicates)")
    n_rep = reading.n_replicates
    if n_rep * level / 2 < 1:
        raise ValueError(
            f"a two-sided level {level} needs at least {math.ceil(2 / level)} replicates"
        )
    qs = [quantile_of(p.number, s) for p, s in zip(stated, reading.samples, strict=True)]
    ok = all(level / 2 <= q <= 1 - level / 2 for q in qs)
    import numpy as np

    medians = [float(np.median(s)) for s in reading.samples]
    return Outcome(
        ";".join(p.text for p in stated),
        ";".join(f"median {_fmt(m)}" for m in medians),
        ";".join(f"quantile {q:.3f}" for q in qs),
        f"quantile in [{level / 2:g}, {1 - level / 2:g}] of {n_rep} replicates",
        ok,
        reading.long_name,
    )


def judge_check(
    checks: list[Mapping], stated_block: Mapping, tol, cubes: Mapping, transform=None
) -> Outcome:
    """Read the checks and compare them with the stated value(s) under one tolerance."""
    reading = read_all(checks, cubes, transform)
    values = reading.values
    relation = stated_block.get("relation", "=")
    raw = stated_block["value"]
    stated = [parse_printed(v) for v in (raw if isinstance(raw, list) else [raw])]
    if relation == "in":
        return _judge_interval(stated, values, reading.long_name)
    if len(stated) != len(values):
        raise ValueError(f"{len(stated)} stated values but the check reads {len(values)}")
    if isinstance(tol, dict) and "quantile" in tol:
        return _judge_draw(stated, reading, float(tol["quantile"]))
    if relation == "=":
        tols, tol_text = _tolerances(tol, stated, reading)
    else:
        tols, tol_text = _bound_margins(relation, tol, stated, reading)
    ok = [_agrees(relation, c, p, t) for c, p, t in zip(values, stated, tols, strict=True)]
    diffs = []
    for i, (c, p) in enumerate(zip(values, stated, strict=True)):
        if p.number is None or isinstance(c, str):
            wanted = p.label if p.label is not None else p.text
            diffs.append("" if str(c) == wanted else "differs")
            continue
        d = float(c) - p.number
        text = _fmt(d)
        if reading.spread is not None:
            of_mean = (
                relation != "="
                or tol == "approx"
                or (isinstance(tol, dict) and ("se_mean" in tol or "se_identity" in tol))
            )
            combined = reading.spread[i] * math.sqrt(
                1 / reading.n_replicates if of_mean else 1 + 1 / reading.n_replicates
            )
            if combined > 0:
                text += f" (z={d / combined:+.2f})"
            else:
                text += " (no spread)" if d == 0 else " (z=inf, no spread)"
        diffs.append(text)
    return Outcome(
        ";".join(p.text for p in stated),
        ";".join(_fmt(v) for v in values),
        ";".join(diffs),
        tol_text,
        all(ok),
        reading.long_name,
        _unresolved(relation, values, stated, ok, reading),
    )


def _unresolved(relation: str, values, stated: list[Printed], ok: list[bool], reading) -> str:
    """The sentence for a strict bound whose mean lies on the stated side but inside its
    statistical band: not shown to hold, not shown to fail, at this replicate count."""
    if relation not in (">", "<") or reading.spread is None:
        return ""
    sign = 1 if relation == ">" else -1
    idle = [
        i
        for i, (c, p, good) in enumerate(zip(values, stated, ok, strict=True))
        if not good and sign * (float(c) - p.number) > 0
    ]
    if not idle:
        return ""
    which = "" if len(values) == 1 else f" (value {', '.join(str(i + 1) for i in idle)})"
    return (
        f"Unresolved{which}: our mean is on the stated side of the bound but within its "
        f"statistical band over {reading.n_replicates} replicates; more replicates would decide."
    )


def _judge_interval(stated: list[Printed], values: list, long_name: str) -> Outcome:
    if len(stated) != 2 or len(values) != 1:
        raise ValueError("relation 'in' takes two stated bounds and one computed value")
    lo, hi = stated[0].number, stated[1].number
    c = float(values[0])
    ok = lo <= c <= hi
    diff = "" if ok else _fmt(c - (lo if c < lo else hi))
    return Outcome(
        f"[{stated[0].text}, {stated[1].text}]",
        _fmt(c),
        diff,
        "computed in [lo, hi]",
        ok,
        long_name,
    )


def verdict_of(entry: Mapping, ok: bool, literal: Outcome | None) -> str:
    """The verdict rule: a pass is ``reproduced`` only when it rests on nothing the note does
    not state; inputs fitted to the printed values make a pass ``conditional`` at best."""
    if not ok:
        return "discrepant"
    if literal is not None:
        return "reproduced" if literal.ok and entry.get("evidence") != "fitted" else "conditional"
    if entry.get("conditional_on") or entry.get("evidence") == "fitted":
        return "conditional"
    return "reproduced"


def judge(entry: Mapping, cubes: Mapping, transform=None) -> Row:
    """The verdict of one entry against the loaded cubes (``transform``: see read_all)."""
    checks = checks_of(entry)
    stated_text = ""
    if "stated" in entry:
        stated_text = ";".join(p.text for p in stated_values(entry))
    if not checks:
        return Row(entry, stated_text, "", "", "", "not-checked")
    try:
        tol = entry.get("tolerance", "printed")
        out = judge_check(checks, entry["stated"], tol, cubes, transform)
        literal = None
        if "literal" in entry:
            lit = entry["literal"]
            stated = lit.get("stated", entry["stated"])
            literal = judge_check(
                checks_of(lit), stated, lit.get("tolerance", tol), cubes, transform
            )
        return Row(
            entry,
            out.stated,
            out.computed,
            out.difference,
            out.tolerance,
            verdict_of(entry, out.ok, literal),
            literal=literal,
            long_name=out.long_name,
            note=out.note,
        )
    except Exception as exc:  # a broken check is shown in the table, and fails its test
        return Row(entry, stated_text, "", "", "", "error", error=f"{type(exc).__name__}: {exc}")


def judge_all(entries: Iterable[Mapping], cubes: Mapping) -> list[Row]:
    """Every entry judged, in reading order: by document, then line in the note."""

    def order(e: Mapping):
        w = e["where"]
        return (
            DOCS.index(w["doc"]) if w["doc"] in DOCS else len(DOCS),
            w["line"],
            w.get("char", 0),
        )

    return [judge(e, cubes) for e in sorted(entries, key=order)]


# ----------------------------------------------------------------------------- rendering


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
    "reproduced": "the statement as written holds, recomputed here",
    "conditional": "it holds only under a reading the note does not state (see reading and why)",
    "discrepant": "as written it does not hold; why says what does",
    "not-checked": "nothing to compute (a citation, a definition, a road map); why says so",
}


def _legend_lines() -> list[tuple[str, str]]:
    return (
        [(v, VERDICT_MEANING[v]) for v in VERDICTS]
        + [(e, m) for e, m in EVIDENCE.items()]
        + [("none", "not checked, so no evidence")]
    )


def _summary(rows: list[Row]) -> str:
    t = _totals(rows)
    parts = ", ".join(f"{t[v]} {v}" for v in (*VERDICTS, "error") if t[v])
    return f"{len(rows)} results of the notes, each judged against the cubes: {parts}."


def render_markdown(rows: list[Row]) -> str:
    out = io.StringIO()
    out.write("# Claims table\n\n")
    out.write(_summary(rows) + "\n\n")
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
        cells = [str(v).replace("|", "\\|").replace("\n", " ") for v in row.as_dict().values()]
        out.write("| " + " | ".join(cells) + " |\n")
    return out.getvalue()


_CSS = """
body{font-family:system-ui,sans-serif;margin:1em;color:#222}
table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 4px;vertical-align:top;text-align:left;
  overflow-wrap:break-word}
td.id,td.num,td.cube,td.figure{overflow-wrap:anywhere}
th{background:#f3f3f3;position:sticky;top:0;overflow-wrap:normal;font-size:11px}
#results{table-layout:fixed;width:100%}
#results th{cursor:pointer;user-select:none} #results th:after{content:' \\2195';color:#999}
tr.reproduced td.verdict{background:#d9f2dd} tr.conditional td.verdict{background:#fcefc7}
tr.discrepant td.verdict{background:#f8d7d3}
tr.not-checked td.verdict{background:#eee} tr.error td.verdict{background:#f5a3a3}
td.num{font-family:ui-monospace,monospace}
td.count{text-align:right;font-family:ui-monospace,monospace}
td.cube span{border-bottom:1px dotted #888;cursor:help}
#filter{margin:.5em 0 1em;font-size:14px} #filter input{width:24em}
dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:13px}
dt{font-weight:bold}
"""

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
  rows.sort((a,b)=>{
    const x=key(a),y=key(b),nx=parseFloat(x),ny=parseFloat(y);
    const c=(!isNaN(nx)&&!isNaN(ny)&&String(nx)===x&&String(ny)===y)?nx-ny:x.localeCompare(y);
    return dir*c;
  });
  body.dataset.col=col; body.dataset.dir=dir;
  for(const r of rows) body.appendChild(r);
}
"""


def render_html(rows: list[Row]) -> str:
    esc = html.escape
    parts = [
        "<!doctype html><meta charset='utf-8'><title>Claims table</title>",
        f"<style>{_CSS}</style><script>{_JS}</script><h1>Claims table</h1>",
        f"<p>{esc(_summary(rows))} <a href='../figures/index.html'>Figures</a>.</p><dl>",
    ]
    parts += [f"<dt>{esc(w)}</dt><dd>{esc(m)}.</dd>" for w, m in _legend_lines()]
    parts.append("</dl><table id='counts'><tr><th>doc</th><th>verdict</th>")
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
            if col == "cube" and d[col]:
                value = f"<span title='{esc(row.long_name)}'>{value}</span>"
            if col == "figure" and d[col]:
                value = " ".join(
                    f"<a href='../figures/index.html#{esc(f)}'>{esc(f)}</a>"
                    for f in d[col].split(";")
                )
            cls = "num" if col in numeric else col
            parts.append(f"<td class='{cls}'>{value}</td>")
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


def write_tables(rows: list[Row], csv_path, md_path, html_path) -> None:
    write_csv(rows, csv_path)
    Path(md_path).write_text(render_markdown(rows), encoding="utf-8")
    Path(html_path).write_text(render_html(rows), encoding="utf-8")
