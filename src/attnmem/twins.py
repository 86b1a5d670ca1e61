"""Twin rows: registry entries that state the same fact, judged by one design.

Two entries are twins when they read the very same check (cube, variable, selection and
reduction), or when one names the other in ``same_as`` (the same quantity in two sections or two
notes, or a row that a cube computes by another route). Twins are grouped transitively. Within a
group the rows share one evidence class; rows that state the same value with the same relation
share the tolerance rule and the verdict; and a row is not left not-checked while its twin is
checked. A row whose statement really differs from its twins' says how in ``differs``, which
exempts it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from . import claims


def _check_key(c: Mapping) -> str:
    keys = ("cube", "var", "sel", "over", "max", "min", "argmax", "size")
    return json.dumps({k: c.get(k) for k in keys}, sort_keys=True, default=str)


def _same_as(e: Mapping) -> list[str]:
    named = e.get("same_as") or []
    return [named] if isinstance(named, str) else list(named)


def groups(entries: Iterable[Mapping]) -> list[list[Mapping]]:
    """The twin groups of two or more entries, each in registry order, ordered by their first
    entry's id."""
    entries = list(entries)
    by_id = {e["id"]: e for e in entries}
    parent = {i: i for i in by_id}

    def root(i: str) -> str:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: str, b: str) -> None:
        parent[root(a)] = root(b)

    first_with: dict[str, str] = {}
    for e in entries:
        for c in claims.checks_of(e):
            key = _check_key(c)
            if key in first_with:
                join(e["id"], first_with[key])
            else:
                first_with[key] = e["id"]
        for other in _same_as(e):
            if other in by_id:
                join(e["id"], other)
    members: dict[str, list[Mapping]] = {}
    for e in entries:
        members.setdefault(root(e["id"]), []).append(e)
    found = [g for g in members.values() if len(g) > 1]
    return sorted(found, key=lambda g: g[0]["id"])


def _design(e: Mapping) -> tuple[str, str]:
    from .registry_lint import expected, tolerance_kind

    return tolerance_kind(e), expected(e)


def _stated(e: Mapping) -> str:
    stated = e.get("stated") or {}
    return json.dumps([stated.get("value"), stated.get("relation", "=")], default=str)


def twin_rules(entries: Iterable[Mapping]) -> list[str]:
    """The lint of twin groups: one problem per row that departs from its group's design."""
    entries = list(entries)
    known = {e["id"] for e in entries}
    problems = [
        f"{e['id']}: same_as names no entry {other!r}"
        for e in entries
        for other in _same_as(e)
        if other not in known
    ]
    for group in groups(entries):
        bound = [e for e in group if not e.get("differs")]
        checked = [e for e in bound if claims.checks_of(e)]
        ids = ", ".join(e["id"] for e in group)
        classes = {e.get("evidence") for e in checked}
        if len(classes) > 1:
            named = "; ".join(f"{e['id']} {e.get('evidence')}" for e in checked)
            problems.append(
                f"{checked[0]['id']}: twins judged by different evidence ({named}); make them "
                "one design or say in differs how the statements differ"
            )
        if checked:
            for e in bound:
                if not claims.checks_of(e):
                    problems.append(
                        f"{e['id']}: not-checked while its twin {checked[0]['id']} is checked; "
                        "check it the same way, or say in differs why it cannot be"
                    )
        by_statement: dict[str, list[Mapping]] = {}
        for e in checked:
            by_statement.setdefault(_stated(e), []).append(e)
        for same in by_statement.values():
            designs = {_design(e) for e in same}
            if len(designs) > 1:
                named = "; ".join(f"{e['id']} {_design(e)}" for e in same)
                problems.append(
                    f"{same[0]['id']}: twins stating the same value under different tolerance "
                    f"rules or verdicts ({named}; group: {ids})"
                )
    return problems


def report(entries: Iterable[Mapping]) -> str:
    """The groups, one line each, for the test output and ``python -m attnmem twins``."""
    from .registry_lint import expected

    lines = []
    for group in groups(entries):
        lines.append(
            " | ".join(
                f"{e['id']} ({e.get('evidence') or '-'}, {expected(e)}"
                + (", differs" if e.get("differs") else "")
                + ")"
                for e in group
            )
        )
    return "\n".join(lines)
