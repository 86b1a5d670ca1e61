"""Lint of the claims registry: the rules a row must follow before its verdict means anything.

Each function takes the parsed entries and returns a list of problems, one line each, naming
the entry. The test suite asserts every list is empty; ``python -m attnmem lint`` prints them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from . import claims

STATISTICAL = {"se", "se_mean", "se_identity", "quantile"}
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
LONG_LINE = 2000  # a source line longer than this needs a character offset (where.char)
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


def verdict_rules(entries: Iterable[Mapping]) -> list[str]:
    """Verdicts, evidence classes, readings and reasons agree with DESIGN.md."""
    problems = []
    for e in entries:
        i = e["id"]
        checked = bool(claims.checks_of(e))
        expect = expected(e)
        evidence = e.get("evidence")
        why = e.get("why", "")
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
        if expect in ("discrepant", "not-checked", "conditional") and not why:
            problems.append(f"{i}: expect {expect} needs a why")
        rests = bool(e.get("conditional_on") or e.get("literal")) or evidence == "fitted"
        if expect == "conditional" and not rests:
            problems.append(
                f"{i}: conditional needs the unstated reading (conditional_on or literal) or "
                "fitted inputs"
            )
        if expect == "reproduced" and rests and not e.get("literal"):
            problems.append(f"{i}: a pass on an unstated reading or fitted inputs is conditional")
        if expect in ("reproduced", "not-checked") and FAULT_WORDS.search(why):
            problems.append(
                f"{i}: the why says the note is at fault ({FAULT_WORDS.search(why).group(0)!r}) "
                f"but the row expects {expect}"
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
        i = e["id"]
        kind = tolerance_kind(e)
        over = [bool(c.get("over")) for c in checks]
        if kind == "rel":
            problems.append(f"{i}: no rel tolerance; approximate words use 'approx'")
        if kind in STATISTICAL and not all(over):
            problems.append(f"{i}: tolerance {kind} needs every check 'over' replicates")
        relation = e["stated"].get("relation", "=")
        if any(over) and relation == "=" and kind not in STATISTICAL | {"approx", "abs", "exact"}:
            problems.append(f"{i}: a mean over replicates needs a statistical tolerance")
        if kind == "abs" and float(e["tolerance"]["abs"]) > FLOAT_ABS:
            problems.append(
                f"{i}: abs {e['tolerance']['abs']} is wider than floating-point rounding; use "
                "printed, approx or a statistical band"
            )
    return problems


def where_rules(entries: Iterable[Mapping], long_lines: Mapping = LONG_LINES) -> list[str]:
    """Every entry on a very long source line carries a character offset into it."""
    problems = []
    for e in entries:
        w = e["where"]
        n = long_lines.get(w["doc"], {}).get(w["line"])
        if n and "char" not in w:
            problems.append(f"{e['id']}: line {w['line']} has {n} characters; give where.char")
        if n and w.get("char", 0) > n:
            problems.append(f"{e['id']}: where.char {w['char']} is past the line's {n} characters")
    return problems


def ids_unique(entries: Iterable[Mapping]) -> list[str]:
    dupes = [i for i, n in Counter(e["id"] for e in entries).items() if n > 1]
    return [f"duplicate claim id: {i}" for i in dupes]


def outputs_known(entries: Iterable[Mapping], experiments: Mapping) -> list[str]:
    """Every check (and literal check) names a cube, variable and dims the pipeline makes."""
    problems = []
    for e in entries:
        for c in claims.all_checks(e):
            exp = experiments.get(c["cube"])
            if exp is None:
                problems.append(f"{e['id']}: no experiment makes cube {c['cube']!r}")
                continue
            dims = set(exp.grid) | {d for o in exp.outputs for d in o.dims}
            if "var" in c:
                try:
                    out = exp.output(c["var"])
                except KeyError:
                    problems.append(f"{e['id']}: {c['cube']} has no variable {c['var']!r}")
                    continue
                dims = set(exp.grid) | set(out.dims)
            for key in [*c.get("sel", {}), *filter(None, [c.get("over"), c.get("argmax")])]:
                if key not in dims:
                    problems.append(f"{e['id']}: {c['cube']}.{c.get('var')} has no dim {key!r}")
            if (
                "var" in c
                and "seed" in exp.grid
                and not c.get("over")
                and "seed" not in c.get("sel", {})
            ):
                problems.append(
                    f"{e['id']}: {c['cube']}.{c['var']} is read at every seed; select the seeds "
                    "(sel: {seed: [...]}) or judge over them, so that more seeds change nothing"
                )
    return problems


def all_problems(entries: list[Mapping], experiments: Mapping) -> list[str]:
    return [
        *ids_unique(entries),
        *outputs_known(entries, experiments),
        *verdict_rules(entries),
        *tolerance_rules(entries),
        *where_rules(entries),
    ]
