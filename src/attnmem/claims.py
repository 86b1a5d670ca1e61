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

import math
import re
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
VERDICTS = ("reproduced", "conditional", "unresolved", "discrepant", "not-checked")
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

# What one compared value (and so a whole check) comes to: it agrees, it does not, or our test
# cannot tell (a statistical band that straddles the stated value, bound or tolerance edge, or
# that is too wide for the test to have failed).
OK, UNDECIDED, FAIL = "ok", "undecided", "fail"


@dataclass
class Outcome:
    """One check judged: the printed cells and what the comparison came to (``status``)."""

    stated: str
    computed: str
    difference: str
    tolerance: str
    status: str
    long_name: str = ""
    note: str = ""  # the judge's sentence for the why (what would decide an undecided value)
    power: str = ""  # the smallest deviation a statistical check can detect, for the reading

    @property
    def ok(self) -> bool:
        return self.status == OK


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
    power: str = ""  # the judge's own item for the reading (Outcome.power)
    main: Outcome | None = None  # the entry's own check, when a literal reading decides

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
            "reading": "; ".join(reading_of(e) + ([self.power] if self.power else [])),
            "why": self.why(),
            "cube": ";".join(sorted({c["cube"] for c in all_checks(e)})),
            "figure": ";".join(figures_of(e)),
        }

    def why(self) -> str:
        if self.error is not None:
            return f"ERROR: {self.error}"
        text = f"{self.note} {self.entry.get('why', '')}".strip()
        lit, main = self.literal, self.main
        if lit is None:
            return text
        if lit.status == OK:
            note = f"As written (literal reading) it holds: {lit.computed} against {lit.stated}."
        else:
            said = "fails" if lit.status == FAIL else "cannot be decided"
            note = (
                f"As written (literal reading, shown in stated and computed) it {said}: "
                f"{lit.computed} against {lit.stated}, difference {lit.difference}."
            )
            if main is not None:
                held = {OK: "holds", UNDECIDED: "cannot be decided", FAIL: "fails too"}
                note += (
                    f" Under the reading, {main.computed} against {main.stated} "
                    f"({main.tolerance}): it {held[main.status]}."
                )
        return f"{text} {note}".strip()


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
# The quantile of a single printed draw among n replicates is itself estimated: it is decided
# only when its binomial band, this many standard errors either side, lies wholly inside or
# wholly outside the accepted central range.
QUANTILE_Z = 2.0


@dataclass
class Band:
    """How far a computed value may lie from a stated one: ``allowed`` is what the statement's
    own precision allows (half a printed unit, the approx rule's 10%, 0 for an exact identity),
    ``noise`` the statistical band of our estimate (k standard errors; 0 when computed once),
    and ``resolution`` the smallest deviation the test must be able to see for a pass to count
    (None where the band is the note's own sampling noise, a single printed run)."""

    allowed: float
    noise: float = 0.0
    resolution: float | None = None

    @property
    def width(self) -> float:
        return self.allowed + self.noise


def _bands(tol, stated: list[Printed], reading: Reading) -> tuple[list[Band], str]:
    """The band of each value under the tolerance, and how to print the rule."""
    n = len(stated)
    if tol == "printed":
        return [Band(p.half_unit) for p in stated], "printed (half a unit of the last digit)"
    if tol == "exact":
        return [Band(1e-9 * max(1.0, abs(p.number or 0.0))) for p in stated], "exact"
    if tol == "approx":
        allowed = [APPROX_REL * abs(p.number or 0.0) for p in stated]
        text = f"approx (within {APPROX_REL:.0%} of the stated value"
        if reading.spread is None:
            return [Band(a) for a in allowed], text + ")"
        n_rep = reading.n_replicates
        k = student_k(APPROX_K, n_rep)
        bands = [
            Band(a, k * sd / math.sqrt(n_rep), a)
            for a, sd in zip(allowed, reading.spread, strict=True)
        ]
        return bands, text + f", plus {k:.3g} SE of our mean over {n_rep} replicates)"
    if "abs" in tol:
        return [Band(float(tol["abs"]))] * n, f"abs {tol['abs']}"
    if "rel" in tol:
        return [Band(float(tol["rel"]) * abs(p.number)) for p in stated], f"rel {tol['rel']}"
    if reading.spread is None:
        raise ValueError(
            "tolerances se, se_mean, se_identity, quantile need a check with 'over' (replicates)"
        )
    n_rep = reading.n_replicates
    if "se_mean" in tol or "se_identity" in tol:
        # The stated value is exact: our mean must agree within k standard errors of our own
        # mean, plus the printed rounding when the value is a printed number (se_mean) and
        # none when it is what an identity of the note implies (se_identity). For the pass to
        # count, the band of our mean must be narrower than the printed half unit (se_mean) or
        # than the approx rule's 10% of the value, of 1 for a stated 0 (se_identity).
        identity = "se_identity" in tol
        k = student_k(float(tol["se_identity" if identity else "se_mean"]), n_rep)
        bands = []
        for p, sd in zip(stated, reading.spread, strict=True):
            noise = k * sd / math.sqrt(n_rep)
            if identity:
                bands.append(Band(0.0, noise, APPROX_REL * (abs(p.number) or 1.0)))
            else:
                bands.append(Band(p.half_unit, noise, p.half_unit))
        shown = ";".join(f"±{b.width:.3g}" for b in bands)
        rounding = "" if identity else "printed + "
        return bands, f"{rounding}{k:.3g} SE of our mean over {n_rep} replicates ({shown})"
    # The stated value is itself one Monte Carlo run of the size of one replicate: it and our
    # mean differ by sd * sqrt(1 + 1/n). The band is mostly the note's own sampling noise.
    k = student_k(float(tol["se"]), n_rep)
    bands = [Band(0.0, k * sd * math.sqrt(1.0 + 1.0 / n_rep)) for sd in reading.spread]
    shown = ";".join(f"±{b.width:.3g}" for b in bands)
    return bands, f"{k:.3g} combined SE over {n_rep} replicates ({shown})"


def _bound_bands(relation: str, tol, stated: list[Printed], reading: Reading):
    """The bands of an inequality, and how to print the rule.

    A bound on a number computed once is the number itself: its printed digits give no slack
    (an exact or absolute tolerance still allows rounding on a non-strict bound). A bound on a
    Monte Carlo mean is judged against the statistical band of that mean (k standard errors of
    our mean, k the tolerance's own or 4, as a Student-t quantile): it holds when the whole
    band lies on its side (for a non-strict bound, which an equality satisfies, when the mean
    does), fails when the whole band lies beyond it, and is undecided in between."""
    n = len(stated)
    if reading.spread is None:
        if tol == "printed" or relation in (">", "<"):
            return [Band(0.0)] * n, f"computed {relation} stated"
        bands, _ = _bands(tol, stated, reading)
        return bands, f"computed {relation} stated"
    n_rep = reading.n_replicates
    keys = ("se", "se_mean", "se_identity")
    own = next((tol[k] for k in keys if isinstance(tol, dict) and k in tol), None)
    k = student_k(float(own) if own is not None else APPROX_K, n_rep)
    bands = [Band(0.0, k * sd / math.sqrt(n_rep)) for sd in reading.spread]
    shown = ";".join(f"±{b.noise:.3g}" for b in bands)
    return bands, (
        f"computed {relation} stated, decided when the band of our mean ({k:.3g} SE over "
        f"{n_rep} replicates: {shown}) lies wholly on one side"
    )


def _status(relation: str, computed, printed: Printed, band: Band) -> str:
    """What one comparison comes to: OK, UNDECIDED or FAIL (see Band and _bound_bands)."""
    if printed.label is not None or isinstance(computed, str):
        wanted = printed.label if printed.label is not None else printed.text
        return OK if str(computed) == wanted else FAIL
    c, s = float(computed), printed.number
    if math.isnan(c):
        return FAIL
    slack = 1e-12 * max(1.0, abs(s))
    if relation == "=":
        gap = abs(c - s)
        if gap > band.width + slack:
            return FAIL
        if band.noise == 0:
            return OK
        if band.resolution is not None and band.noise >= band.resolution:
            return UNDECIDED  # too wide to have failed: the test has no power here
        if band.allowed > 0 and gap > band.allowed - band.noise + slack:
            return UNDECIDED  # the band straddles the edge of what the statement allows
        return OK
    sign = {">": 1, ">=": 1, "<": -1, "<=": -1}.get(relation)
    if sign is None:
        raise ValueError(f"unknown relation {relation!r}")
    margin = sign * (c - s)  # positive on the stated side
    strict = relation in (">", "<")
    if band.noise == 0:
        if strict:
            return OK if margin > 0 else FAIL
        return OK if margin >= -(band.allowed + slack) else FAIL
    if margin - band.noise > 0 or (not strict and margin >= 0):
        return OK
    if margin + band.noise < 0:
        return FAIL
    return UNDECIDED


def _overall(statuses: list[str]) -> str:
    if FAIL in statuses:
        return FAIL
    return UNDECIDED if UNDECIDED in statuses else OK


def quantile_of(value: float, samples) -> float:
    """Where ``value`` falls among ``samples``: the mid-rank empirical distribution function."""
    import numpy as np

    s = np.asarray(samples, dtype=float)
    return float((np.sum(s < value) + 0.5 * np.sum(s == value)) / s.size)


def _judge_draw(stated: list[Printed], reading: Reading, level: float) -> Outcome:
    """A single printed draw of a random quantity, judged by its quantile among our replicates
    (over the values its printed digits round from): it holds when it reaches into the central
    1 - level of our distribution, fails when it lies wholly in a tail beyond it, and is
    undecided when the quantiles' own binomial bands (QUANTILE_Z standard errors over our
    replicates) cross the edge of that range."""
    if reading.samples is None:
        raise ValueError("tolerance quantile needs a check with 'over' (replicates)")
    n_rep = reading.n_replicates
    if n_rep * level / 2 < 1:
        raise ValueError(
            f"a two-sided level {level} needs at least {math.ceil(2 / level)} replicates"
        )
    import numpy as np

    lo, hi = level / 2, 1 - level / 2

    def band(q: float) -> float:  # the quantile's binomial band, floored for q at 0 or 1
        return QUANTILE_Z * math.sqrt(max(q * (1 - q), 0.5 / n_rep) / n_rep)

    # power: with too few replicates even a draw beyond all of them is not shown outside
    powerless = band(0.0) >= lo
    # The printed draw is any value its digits round from: its quantiles at both ends. It
    # fails when that whole interval lies in one tail beyond the accepted range, holds when
    # it reaches into the range (each end's binomial band counted against it), and is
    # undecided in between.
    spans = [
        (quantile_of(p.number - p.half_unit, s), quantile_of(p.number + p.half_unit, s))
        for p, s in zip(stated, reading.samples, strict=True)
    ]
    statuses = []
    for q_lo, q_hi in spans:
        if q_hi + band(q_hi) < lo or q_lo - band(q_lo) > hi:
            statuses.append(FAIL)
        elif q_hi - band(q_hi) >= lo and q_lo + band(q_lo) <= hi and not powerless:
            statuses.append(OK)
        else:
            statuses.append(UNDECIDED)
    status = _overall(statuses)
    note = ""
    if status == UNDECIDED and powerless:
        need = math.ceil(QUANTILE_Z * math.sqrt(0.5) / lo) + 1
        note = (
            f"Unresolved: with {n_rep} replicates even a draw beyond all of ours would not be "
            f"shown outside [{lo:g}, {hi:g}], so the test could not have failed; at least "
            f"{need} replicates would decide."
        )
    elif status == UNDECIDED:
        note = (
            f"Unresolved: the stated draw's quantile among our {n_rep} replicates (over the "
            f"values its printed digits round from) is too close to the edge of [{lo:g}, "
            f"{hi:g}] to tell; more replicates would decide."
        )
    medians = [float(np.median(s)) for s in reading.samples]
    return Outcome(
        ";".join(p.text for p in stated),
        ";".join(f"median {_fmt(m)}" for m in medians),
        ";".join(f"quantile {a:.3f}" if a == b else f"quantile {a:.3f}-{b:.3f}" for a, b in spans),
        f"quantile in [{lo:g}, {hi:g}] of {n_rep} replicates",
        status,
        reading.long_name,
        note,
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
        bands, tol_text = _bands(tol, stated, reading)
    else:
        bands, tol_text = _bound_bands(relation, tol, stated, reading)
    statuses = [_status(relation, c, p, b) for c, p, b in zip(values, stated, bands, strict=True)]
    diffs = [
        _difference(relation, c, p, st, reading, i, tol)
        for i, (c, p, st) in enumerate(zip(values, stated, statuses, strict=True))
    ]
    return Outcome(
        ";".join(p.text for p in stated),
        ";".join(_fmt(v) for v in values),
        ";".join(diffs),
        tol_text,
        _overall(statuses),
        reading.long_name,
        _undecided_note(relation, statuses, bands, reading),
        _power(relation, bands, reading),
    )


def _difference(relation, c, p: Printed, status, reading: Reading, i: int, tol) -> str:
    """The difference cell of one value: computed minus stated (with its z score against our
    statistical band), and for a bound that fails, which side it is on (never a bare 0)."""
    if p.number is None or isinstance(c, str):
        wanted = p.label if p.label is not None else p.text
        return "" if str(c) == wanted else "differs"
    d = float(c) - p.number
    text = _fmt(d)
    if relation != "=" and status == FAIL:
        text += f" (not {relation})"
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
    return text


def _undecided_note(relation: str, statuses: list[str], bands: list[Band], reading) -> str:
    """The why's sentence for values our sample cannot decide, saying what would decide them."""
    idle = [i for i, s in enumerate(statuses) if s == UNDECIDED]
    if not idle or FAIL in statuses:
        return ""
    which = "" if len(statuses) == 1 else f" (value {', '.join(str(i + 1) for i in idle)})"
    n_rep = reading.n_replicates
    if relation != "=":
        return (
            f"Unresolved{which}: the statistical band of our mean over {n_rep} replicates "
            f"straddles the bound; more replicates would decide."
        )
    weak = [bands[i] for i in idle if bands[i].resolution and bands[i].noise >= bands[i].resolution]
    if weak:
        factor = max((b.noise / b.resolution) ** 2 for b in weak)
        return (
            f"Unresolved{which}: the band of our mean over {n_rep} replicates is wider than "
            f"the deviation the statement's precision allows, so the test could not have "
            f"failed; about {math.ceil(factor * 1.2 * n_rep)} replicates would decide."
        )
    return (
        f"Unresolved{which}: the band of our mean over {n_rep} replicates straddles the edge "
        f"of what the statement allows; more replicates would decide."
    )


def _power(relation: str, bands: list[Band], reading: Reading) -> str:
    """The reading's item for a statistical equality: the smallest deviation it can detect."""
    if relation != "=" or reading.spread is None or not any(b.noise for b in bands):
        return ""
    widths = ";".join(f"{b.width:.3g}" for b in bands)
    return (
        f"[power] this check detects a deviation from the stated value larger than {widths} "
        f"({reading.n_replicates} replicates)"
    )


def _judge_interval(stated: list[Printed], values: list, long_name: str) -> Outcome:
    if len(stated) != 2 or len(values) != 1:
        raise ValueError("relation 'in' takes two stated bounds and one computed value")
    lo, hi = stated[0].number, stated[1].number
    c = float(values[0])
    ok = lo <= c <= hi
    diff = "" if ok else _fmt(c - (lo if c < lo else hi)) + " (outside)"
    return Outcome(
        f"[{stated[0].text}, {stated[1].text}]",
        _fmt(c),
        diff,
        "computed in [lo, hi]",
        OK if ok else FAIL,
        long_name,
    )


def verdict_of(entry: Mapping, out: Outcome, literal: Outcome | None) -> str:
    """The verdict rule (DESIGN.md, Verdicts). The literal reading decides: where the entry
    computes the statement as written and it fails, the row is discrepant whatever its own
    check gives. A value our test cannot decide makes the row unresolved. A trained row never
    refutes (a toy-scale run that disagrees is unresolved) and passes only conditionally on
    its scale; nor does a check under a reading the note leaves open (``conditional_on``: it
    fails only that reading). Inputs fitted to the printed values or an unstated reading make
    a pass conditional."""
    trained = entry.get("evidence") == "trained"
    if literal is not None and literal.status != OK:
        return "discrepant" if literal.status == FAIL and not trained else "unresolved"
    if out.status != OK:
        # a check under a reading the note leaves open (conditional_on) fails only that
        # reading: it cannot show the statement false as written
        refutes = not trained and not entry.get("conditional_on")
        return "discrepant" if out.status == FAIL and refutes else "unresolved"
    if trained or entry.get("conditional_on") or entry.get("evidence") == "fitted":
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
        # the columns show the statement as written when it does not hold as written
        shown = literal if literal is not None and literal.status != OK else out
        return Row(
            entry,
            shown.stated,
            shown.computed,
            shown.difference,
            shown.tolerance,
            verdict_of(entry, out, literal),
            literal=literal,
            long_name=out.long_name,
            # a literal reading that does not hold speaks for the row; the main check's own
            # sentence (about the reading) would read as the verdict's
            note=(out.note if literal is None or literal.status == OK else literal.note),
            power=out.power,
            main=out,
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
