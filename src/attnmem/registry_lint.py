"""Lint of the claims registry: the rules a row must follow before its verdict means anything.

Each function takes the parsed entries and returns a list of problems, one line each, naming
the entry. The test suite asserts every list is empty; ``python -m attnmem lint`` prints them.
``pipeline_problems`` is the part the workflow runs before any job: what would make the claims
rule fail or judge the wrong thing (unknown cubes, variables, dims and grid values, misspelled
tolerances, duplicate ids), checked against the config and the experiment manifest.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import claims, twins

STATISTICAL = {"se", "se_mean", "se_identity", "quantile"}
TOLERANCE_WORDS = ("printed", "exact", "approx")
TOLERANCE_KEYS = ("abs", "rel", "se", "se_mean", "se_identity", "quantile")
SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "claims.schema.yaml"
# Words in a `why` that say the note is wrong or inexact: such a row is discrepant or
# conditional, never reproduced or not-checked.
FAULT_WORDS = re.compile(
    r"\b(wrong|incorrect|mistaken|mistake|typo|misprint|inexact|inconsisten\w*|"
    r"does not hold|doesn't hold|do not hold|is off by|error of the note|contradict\w*)\b",
    re.IGNORECASE,
)
# The widest absolute tolerance that is still floating-point rounding; a wider band on a
# nonzero stated value is a re-encoded approximation (use `approx`) or a statistical band.
FLOAT_ABS = 1e-6
LONG_LINE = 2000  # a source line longer than this needs a character offset (char)
# The source lines longer than LONG_LINE, with their lengths in characters (line: length), so
# that the lint needs no copy of the notes: memory-math keeps whole chapters on one line.
LONG_LINES = {
    "memory-math": {
        1: 4145,
        3: 2888,
        4: 2639,
        5: 9409,
        13: 2028,
        15: 2912,
        26: 3529,
        33: 3127,
        39: 2896,
        42: 2196,
        44: 3001,
        46: 4547,
        50: 5110,
        54: 5365,
        56: 6043,
        58: 8075,
        68: 31626,
    },
}


def tolerance_kind(entry: Mapping) -> str:
    tol = entry.get("tolerance", "printed")
    return tol if isinstance(tol, str) else next(iter(tol))


def expected(entry: Mapping) -> str:
    if "expect" in entry:
        return entry["expect"]
    return "reproduced" if claims.checks_of(entry) else "not-checked"


# The words of an unresolved row's why that say what would decide it.
DECIDES = re.compile(r"\bdecid\w*", re.IGNORECASE)


def verdict_rules(entries: Iterable[Mapping]) -> list[str]:
    """Verdicts, evidence classes, readings and reasons agree with DESIGN.md: five verdict
    words; conditional only on an unstated reading, fitted inputs or a toy scale (a literal
    reading decides by itself: failing, it makes the row discrepant); a trained row never
    discrepant; an unresolved row says what would decide it; a why that blames the note only
    beside discrepant."""
    problems = []
    for e in entries:
        i = e["id"]
        checked = bool(claims.checks_of(e))
        expect = expected(e)
        evidence = e.get("evidence")
        why = e.get("why", "")
        if expect not in claims.VERDICTS:
            problems.append(f"{i}: expect {expect!r} is not one of {', '.join(claims.VERDICTS)}")
        if checked and "stated" not in e:
            problems.append(f"{i}: a check needs a stated value to compare with")
        if checked and not evidence:
            problems.append(f"{i}: a checked row needs an evidence class")
        if not checked:
            for key in ("evidence", "conditional_on", "literal", "tolerance", "mutation"):
                if key in e:
                    problems.append(f"{i}: '{key}' on a row with nothing to check")
            if expect != "not-checked":
                problems.append(f"{i}: expects {expect} but has nothing to check")
        elif expect == "not-checked":
            problems.append(f"{i}: has a check but expects not-checked")
        if expect != "reproduced" and not why:
            problems.append(f"{i}: expect {expect} needs a why")
        rests = bool(e.get("conditional_on")) or evidence in ("fitted", "trained")
        if expect == "conditional" and not rests:
            problems.append(
                f"{i}: conditional needs the unstated reading (conditional_on), fitted inputs "
                "or a trained toy scale; a literal reading decides by itself (failing, the row "
                "is discrepant)"
            )
        if expect == "reproduced" and rests:
            problems.append(
                f"{i}: a pass on an unstated reading, fitted inputs or a toy-scale training run "
                "is conditional"
            )
        if evidence == "trained" and expect == "discrepant":
            problems.append(
                f"{i}: a toy-scale training run cannot refute a result about larger models: a "
                "disagreement is unresolved"
            )
        if expect == "discrepant" and e.get("conditional_on") and not e.get("literal"):
            problems.append(
                f"{i}: a check under a reading the note leaves open fails only that reading: "
                "unresolved, unless a literal reading (the statement as written) fails"
            )
        if expect == "unresolved" and not DECIDES.search(why):
            problems.append(f"{i}: an unresolved row's why says what would decide it")
        if expect == "discrepant" and why.lstrip().lower().startswith("unresolved"):
            problems.append(f"{i}: a why that starts 'Unresolved' belongs to an unresolved row")
        if expect != "discrepant" and FAULT_WORDS.search(why):
            problems.append(
                f"{i}: the why says the note is at fault ({FAULT_WORDS.search(why).group(0)!r}) "
                f"but the row expects {expect}; as written false is discrepant"
            )
        if not e.get("audit"):
            problems.append(f"{i}: no audit (the second reader's finding)")
    return problems


def tolerance_rules(entries: Iterable[Mapping]) -> list[str]:
    """One policy: printed digits, the approx rule, floating-point abs, or a statistical band."""
    problems = []
    for e in entries:
        checks = claims.checks_of(e)
        if not checks:
            continue
        i = _label(e)
        kind = tolerance_kind(e)
        if kind == "rel":
            problems.append(f"{i}: no rel tolerance; approximate words use 'approx'")
        problems += [f"{i}: {p}" for p in _monte_carlo(e)]
        if kind == "abs" and float(e["tolerance"]["abs"]) > FLOAT_ABS:
            problems.append(
                f"{i}: abs {e['tolerance']['abs']} is wider than floating-point rounding; use "
                "printed, approx or a statistical band"
            )
    return problems


def _monte_carlo(e: Mapping) -> list[str]:
    """A statistical tolerance reads replicates, and a mean over replicates is judged by one."""
    kind = tolerance_kind(e)
    over = [bool(c.get("over")) for c in claims.checks_of(e)]
    out = []
    if kind in STATISTICAL and not all(over):
        out.append(f"tolerance {kind} needs every check 'over' replicates")
    relation = (e.get("stated") or {}).get("relation", "=")
    if any(over) and relation == "=" and kind not in STATISTICAL | {"approx", "abs", "exact"}:
        out.append("a mean over replicates needs a statistical tolerance")
    if any(over) and relation == "=" and kind in ("abs", "exact") and _nonzero(e):
        out.append(
            f"tolerance {kind} on a mean over replicates asks every run to give the stated "
            "value; a value the note printed from one run is judged by its quantile (a single "
            "draw) or a statistical band (exact or abs only for a floating-point identity, 0)"
        )
    for c in claims.checks_of(e):
        # the largest replicate bounds from above, the smallest from below: any other pairing
        # would pass when one replicate does, not when every one does
        wanted = {"max": ("<", "<="), "min": (">", ">=")}
        for how, relations in wanted.items():
            if how in c and relation not in relations:
                out.append(
                    f"'{how}: {c[how]}' reads a bound in every replicate only with "
                    f"relation {' or '.join(relations)}, not {relation!r}"
                )
        if c.get("over") and ("max" in c or "min" in c):
            out.append("a check takes a mean ('over') or an extreme ('max', 'min'), not both")
    return out


def _nonzero(e: Mapping) -> bool:
    """Whether any stated value is a number other than 0 (or a label)."""
    raw = (e.get("stated") or {}).get("value")
    values = [claims.parse_printed(v) for v in (raw if isinstance(raw, list) else [raw])]
    return any(p.number is None or p.number != 0 for p in values)


def where_rules(entries: Iterable[Mapping], long_lines: Mapping = LONG_LINES) -> list[str]:
    """Every entry on a very long source line carries a character offset into it."""
    problems = []
    for e in entries:
        w = e["where"]
        n = long_lines.get(w["doc"], {}).get(w["line"])
        if n and "char" not in w:
            problems.append(f"{e['id']}: line {w['line']} has {n} characters; give its char")
        if n and w.get("char", 0) > n:
            problems.append(f"{e['id']}: char {w['char']} is past the line's {n} characters")
    return problems


def _label(e: Mapping) -> str:
    """The entry as a problem names it: its id, and its file when it was loaded from one."""
    return f"{e['id']} ({e['_file']})" if e.get("_file") else e["id"]


def ids_unique(entries: Iterable[Mapping]) -> list[str]:
    files: dict[str, list[str]] = {}
    for e in entries:
        files.setdefault(e["id"], []).append(e.get("_file") or "?")
    return [f"duplicate claim id: {i} (in {', '.join(f)})" for i, f in files.items() if len(f) > 1]


def declared(experiments: Mapping) -> dict:
    """Experiments as the manifest describes them ({name: {grid, outputs, coords, ...}}); the
    declarations themselves (``attnmem.experiments.registry()``) are converted."""
    if all(isinstance(x, Mapping) and "outputs" in x for x in experiments.values()):
        return dict(experiments)
    from .schema import manifest

    return manifest(experiments)


def outputs_known(entries: Iterable[Mapping], experiments: Mapping) -> list[str]:
    """Every check (and literal check) names a cube, variable and dims the pipeline makes."""
    return check_problems(entries, declared(experiments))


def check_problems(
    entries: Iterable[Mapping], manifest: Mapping, grids: Mapping | None = None
) -> list[str]:
    """Every check (and literal check) names a cube the pipeline makes, one of its variables
    and dims of that variable; a check of a cube with seeds selects them or judges over them.
    With ``grids`` (``expanded_grids``: cube -> dim -> its values), each selected value must
    also be one the cube has (a dim computed from parameters is not checked)."""
    problems = []
    for e in entries:
        who = _label(e)
        for c in claims.all_checks(e):
            problems += [f"{who}: {p}" for p in _check(c, manifest, grids)]
    return problems


def _check(c: Mapping, manifest: Mapping, grids: Mapping | None) -> list[str]:
    cube = c["cube"]
    exp = manifest.get(cube)
    if exp is None:
        return [f"no experiment makes cube {cube!r}"]
    outputs = exp["outputs"]
    sel = c.get("sel") or {}
    dims = set(exp["grid"]) | {d for o in outputs.values() for d in o}
    if "var" in c:
        if c["var"] not in outputs:
            return [f"{cube} has no variable {c['var']!r}"]
        dims = set(exp["grid"]) | set(outputs[c["var"]])
    out = []
    read = f"{cube}.{c['var']}" if "var" in c else cube
    named = [c.get(k) for k in ("over", "max", "min", "argmax", "size")]
    for key in [*sel, *filter(None, named)]:
        if key not in dims:
            out.append(f"{read} has no dim {key!r}")
    replicates = exp.get("replicates")
    # a mean with its standard error is only meaningful over replicates; an extreme (max, min)
    # may also run over a swept dim: the statement then holds at every value of it
    for how in ("over",):
        dim = c.get(how)
        if dim and replicates is not None and dim in dims and dim not in replicates:
            out.append(
                f"{read}: '{how}: {dim}' reads {dim} as replicates, but {dim} is not a "
                f"replicate dim of {cube} (its replicates: {', '.join(replicates) or 'none'}); "
                "select its values instead"
            )
    reduced = {c.get(k) for k in ("over", "max", "min")}
    if "var" in c and "seed" in exp["grid"] and "seed" not in reduced and "seed" not in sel:
        out.append(
            f"{cube}.{c['var']} is read at every seed; select the seeds "
            "(sel: {seed: [...]}) or judge over them, so that more seeds change nothing"
        )
    if grids is None:
        return out
    for key, want in sel.items():
        known = grids.get(cube, {}).get(key)
        if known is None or key not in dims:
            continue
        values, source = known
        missing = [w for w in (want if isinstance(want, list) else [want]) if not _has(values, w)]
        if missing:
            shown = ", ".join(map(str, values[:12])) + (", ..." if len(values) > 12 else "")
            out.append(
                f"{cube} has no {key} = {', '.join(map(str, missing))} ({source} gives "
                f"{key} in [{shown}])"
            )
    return out


def count_problems(entries: Iterable[Mapping], manifest: Mapping, grids: Mapping) -> list[str]:
    """A check must not read more values than the entry states: a list of n stated values
    against a selection that a wider grid (config/wide.yaml) makes longer would fail only
    after every cube is built. Counted where every dim the check keeps is a
    grid dim (the others' lengths are computed by the science)."""
    problems = []
    for e in entries:
        stated = (e.get("stated") or {}).get("value")
        checks = claims.checks_of(e)
        if not isinstance(stated, list) or len(stated) < 2 or len(checks) != 1:
            continue
        c = checks[0]
        if "var" not in c:
            continue
        if c.get("argmax") or c.get("size") or c["cube"] not in manifest:
            continue
        exp, sel = manifest[c["cube"]], c.get("sel") or {}
        reduced = {c.get(k) for k in ("over", "max", "min")}
        kept = [d for d in [*exp["grid"], *exp["outputs"].get(c["var"], [])] if d not in reduced]
        count = 1
        for dim in kept:
            if dim in sel:
                count *= len(sel[dim]) if isinstance(sel[dim], list) else 1
            elif dim in exp["grid"] and dim in grids.get(c["cube"], {}):
                count *= len(grids[c["cube"]][dim][0])
            else:
                count = None  # a dim whose length the config does not say
                break
        if count is not None and count > len(stated):  # fewer: a range, or values per point
            problems.append(
                f"{_label(e)}: states {len(stated)} values but reads {count} from "
                f"{c['cube']}.{c['var']} on this config's grids; select the points it states"
            )
    return problems


def _has(values: list, want) -> bool:
    """Whether a selection finds ``want`` among ``values`` as the judge's does: an equal value,
    or a number within 1e-9 of one."""
    for v in values:
        if _number(v) and _number(want):
            if abs(v - want) <= 1e-9:
                return True
        elif type(v) is type(want) and v == want:
            return True
    return False


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def tolerance_problems(entries: Iterable[Mapping]) -> list[str]:
    """Every tolerance (the entry's and its literal reading's) is a word or one key the judge
    knows, with a positive finite number (a quantile level below 1)."""
    problems = []
    for e in entries:
        lit = e.get("literal") if isinstance(e.get("literal"), Mapping) else {}
        for tol in [e.get("tolerance"), lit.get("tolerance")]:
            p = _tolerance(tol)
            if p:
                problems.append(f"{_label(e)}: {p}")
    return problems


def _tolerance(tol) -> str | None:
    if tol is None or tol in TOLERANCE_WORDS:
        return None
    if isinstance(tol, str):
        return f"unknown tolerance {tol!r} (one of {', '.join(TOLERANCE_WORDS)}, or a mapping)"
    if not isinstance(tol, Mapping) or len(tol) != 1:
        return f"a tolerance is a word or a mapping with one key, not {tol!r}"
    ((key, value),) = tol.items()
    if key not in TOLERANCE_KEYS:
        return f"unknown tolerance key {key!r} (one of {', '.join(TOLERANCE_KEYS)})"
    if (
        not _number(value)
        or not math.isfinite(value)
        or value <= 0
        or (key == "quantile" and value >= 1)
    ):
        bound = "in (0, 1)" if key == "quantile" else "a positive number"
        return f"tolerance {key} must be {bound}, not {value!r}"
    return None


def file_rules(entries: Iterable[Mapping], registry_root) -> list[str]:
    """An entry lives in its note's folder: the doc of its id is the folder of its file
    (config/claims/<doc>/<part>.yaml), so that a copied entry cannot judge one note's
    sentence under another's name."""
    root = Path(registry_root).resolve()
    base = root.parents[1]  # the project folder: a shown path is relative to it
    problems = []
    for e in entries:
        if not e.get("_file"):
            continue
        path = Path(e["_file"])
        path = path if path.is_absolute() else base / path
        try:
            folder = path.resolve().relative_to(root).parts[0]
        except (ValueError, IndexError):
            continue
        if folder != e["where"]["doc"]:
            problems.append(
                f"{_label(e)}: the id names the note {e['where']['doc']!r} but the entry is in "
                f"the folder of {folder!r}; move it to config/claims/{e['where']['doc']}/ or "
                "correct its id"
            )
    return problems


def figure_rules(entries: Iterable[Mapping], figure_ids) -> list[str]:
    """Every figure an entry names is a figure the catalog declares (an id the gallery links)."""
    known = set(figure_ids)
    return [
        f"{_label(e)}: figure {f!r} is no figure of the catalog (src/attnmem/figures)"
        for e in entries
        for f in claims.figures_of(e)
        if f not in known
    ]


# A stated value that looks like a number (digits, separators, a sign, a percent, an exponent)
# but does not parse as one: a typo such as "0.0.73" would otherwise be compared as a label.
_NUMERIC_LOOKING = re.compile(r"^[\s+\-\u2212]*[\d.,]+(?:[eE][+\-]?\d+)?\s*%?$")


def stated_rules(entries: Iterable[Mapping]) -> list[str]:
    """Every stated value that looks like a number parses as one."""
    problems = []
    for e in entries:
        raw = (e.get("stated") or {}).get("value") if isinstance(e.get("stated"), Mapping) else None
        for value in raw if isinstance(raw, list) else [raw]:
            if not isinstance(value, str) or not _NUMERIC_LOOKING.match(value.strip()):
                continue
            if claims.parse_printed(value).number is None:
                problems.append(
                    f"{_label(e)}: stated value {value!r} looks like a number but is not one "
                    "(a misprint in the registry?)"
                )
    return problems


def monte_carlo_rules(entries: Iterable[Mapping]) -> list[str]:
    """The statistical half of ``tolerance_rules``, for the pipeline."""
    return [f"{_label(e)}: {p}" for e in entries if claims.checks_of(e) for p in _monte_carlo(e)]


def expanded_grids(config: Mapping, manifest: Mapping, cubes: Iterable[str]) -> dict:
    """For each named cube, the values of each dim a selection can be checked against, with
    where they come from: a grid key's values as the config expands them, a dim whose values
    are a list parameter of the config block, or a fixed list of the manifest. Dims computed
    from parameters some other way (null in the manifest) are left out."""
    from .grid import canonical, expand_grid, expand_values

    blocks = config.get("experiments") or {}
    out = {}
    for cube in cubes:
        if cube not in manifest or cube not in blocks:
            continue
        exp, block = manifest[cube], blocks[cube]
        keys = tuple(k for k in exp["grid"] if k in block)
        known = {k: (v, "the grid in the config") for k, v in expand_grid(block, keys).items()}
        for dim, values in (exp.get("coords") or {}).items():
            if isinstance(values, list):
                known[dim] = (values, "the experiment's fixed coordinates")
            elif isinstance(values, Mapping) and values.get("param") in block:
                param = values["param"]
                listed = [canonical(v) for v in expand_values(block[param])]
                known[dim] = (listed, f"the config's {param}")
        out[cube] = known
    return out


def schema_problems(documents: Mapping, schema=SCHEMA, show=str) -> list[str]:
    """Where registry files (path -> parsed YAML) depart from the schema
    (workflow/schemas/claims.schema.yaml: unknown or misspelled fields, wrong types), one line
    per entry, naming it and ``show(path)``."""
    import jsonschema

    from .config import load_yaml

    validator = jsonschema.Draft202012Validator(load_yaml(schema))
    problems = []
    for path, data in documents.items():
        items = data.get("claims") or [] if isinstance(data, Mapping) else data or []
        named = set()
        for err in validator.iter_errors(data if data is not None else []):
            best = jsonschema.exceptions.best_match([err])  # the deepest cause of a oneOf
            at = list(best.absolute_path)
            at = at[1:] if at[:1] == ["claims"] else at
            index = at[0] if at and isinstance(at[0], int) and at[0] < len(items) else None
            if index in named:
                continue
            named.add(index)
            item = items[index] if index is not None else None
            who = item.get("id") if isinstance(item, Mapping) else None
            label = f"{who} ({show(path)})" if who else show(path)
            place = "/".join(map(str, best.absolute_path)) or "the top"
            problems.append(f"{label}: {best.message} at {place}")
    return problems


def pipeline_problems(registry_root, config: Mapping, manifest: Mapping) -> list[str]:
    """What the workflow checks before any job, one line per problem naming the entry and its
    file: the files load and follow the schema; ids are unique and name the note of their
    folder; every check reads a cube the pipeline makes, one of its variables, dims of that
    variable and values its grid (as the config expands it) or fixed coordinates hold, and
    averages (``over``) only over replicate dims; tolerances are spelled
    right, positive and follow the one policy (``tolerance_rules``: no ``rel``, ``abs`` only
    for rounding, statistical bands over replicates); stated values that look like numbers
    parse; every figure named is one the catalog declares."""
    from .config import load_yaml

    base = Path(registry_root).resolve().parents[1]
    shown = {}
    for path in claims.registry_files(registry_root):
        try:
            shown[path] = Path(path).resolve().relative_to(base).as_posix()
        except ValueError:
            shown[path] = path
    try:
        documents = {path: load_yaml(path) for path in shown}
        entries = [e for p, data in documents.items() for e in claims.file_entries(shown[p], data)]
    except Exception as exc:  # a file that does not parse or expand: nothing else is reliable
        return [f"{type(exc).__name__}: {exc}"]
    from .views import figures

    cubes = {c.get("cube") for e in entries for c in claims.all_checks(e)}
    grids = expanded_grids(config, manifest, cubes)
    figure_ids = [f.id for f in figures()]
    problems = ids_unique(entries)
    for e in entries:
        try:
            found = [
                *file_rules([e], registry_root),
                *check_problems([e], manifest, grids),
                *tolerance_problems([e]),
                *tolerance_rules([e]),
                *stated_rules([e]),
                *figure_rules([e], figure_ids),
                *count_problems([e], manifest, grids),
            ]
        except Exception as exc:  # a malformed entry; the schema says how
            found = [f"{_label(e)}: cannot be checked ({type(exc).__name__}: {exc})"]
        problems += found
    named = {p.split(": ", 1)[0] for p in problems}
    for line in schema_problems(documents, show=lambda path: shown[path]):
        if line.split(": ", 1)[0] not in named:
            problems.append(line)
    return problems


def registry_stamp_key(registry_root, config: Mapping, manifest: Mapping) -> str:
    """A hash of everything ``pipeline_problems`` reads: the registry files' text, the config,
    the manifest, the schema and the code that checks them."""
    h = hashlib.sha256()
    for path in claims.registry_files(registry_root):
        name = Path(path).relative_to(registry_root).as_posix()
        h.update(name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    h.update(json.dumps(config, sort_keys=True, default=str).encode() + b"\0")
    h.update(json.dumps(manifest, sort_keys=True, default=str).encode() + b"\0")
    for path in (SCHEMA, Path(__file__), Path(claims.__file__)):
        h.update(path.read_bytes())
    from .views import figures  # the figures an entry may name

    h.update("\0".join(f.id for f in figures()).encode())
    return h.hexdigest()


def check_registry_once(registry_root, config: Mapping, manifest: Mapping, stamp) -> list[str]:
    """``pipeline_problems``, skipped when the same registry, config and manifest were already
    found clean (their hash kept in ``stamp``, under .snakemake/: parsing writes no result).
    Loading the registry costs about half a second a run with nothing to do should not pay."""
    key = registry_stamp_key(registry_root, config, manifest)
    stamp = Path(stamp)
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == key:
        return []
    problems = pipeline_problems(registry_root, config, manifest)
    if not problems:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key + "\n", encoding="utf-8")
    return problems


def summary(problems: list[str], limit: int = 20) -> str:
    """The problems as one message: at most ``limit`` lines, then how many more."""
    lines = problems[:limit]
    if len(problems) > limit:
        lines.append(f"... and {len(problems) - limit} more")
    return "\n".join(lines)


def all_problems(entries: list[Mapping], experiments: Mapping) -> list[str]:
    return [
        *ids_unique(entries),
        *outputs_known(entries, experiments),
        *verdict_rules(entries),
        *tolerance_rules(entries),
        *where_rules(entries),
        *stated_rules(entries),
        *twins.twin_rules(entries),
    ]
