"""Mutation test of the claims registry: a check must be able to fail.

For every checked row, the science behind its cube variable is replaced by a wrong one, and the
row is judged again; a row whose verdict does not change under the mutation "survives". The
mutation stands for a wrong result of the function that made the variable:

- a number compared for equality is scaled by 1.25 and shifted by 0.1 (a wrong constant, or a
  wrong formula where the right one gives 0, as for the gap of an identity);
- a number compared with a bound (<, <=, >, >=, in) is reflected to the wrong side of it;
- a label (an argmax, a word) becomes another label.

Replicates move with their mean, so a Monte Carlo row is mutated as a whole. A survivor is a row
whose tolerance is so wide that the wrong science would pass it too: it must be fixed (a
narrower band, more replicates) or explained in its entry's ``mutation`` field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from . import claims

SCALE = 1.25
SHIFT = 0.1


def _affine(x: float) -> float:
    return SCALE * x + SHIFT


def _label(x):
    return f"{x}*"


def mutate_for(entry: Mapping):
    """The wrong science for this entry: a function that perturbs a Reading."""
    stated = entry.get("stated", {})
    relation = stated.get("relation", "=")
    raw = stated.get("value")
    numbers = [
        p.number
        for p in (claims.parse_printed(v) for v in (raw if isinstance(raw, list) else [raw]))
    ]

    def push(s: float) -> float:
        return SHIFT * max(1.0, abs(s))

    if relation in (">", ">="):

        def op(x: float, s: float) -> float:
            return s - abs(x - s) - push(s)
    elif relation in ("<", "<="):

        def op(x: float, s: float) -> float:
            return s + abs(x - s) + push(s)
    elif relation == "in":
        lo, hi = numbers[0], numbers[1]

        def op(x: float, s: float) -> float:
            return hi + (hi - lo) + push(hi)
    else:

        def op(x: float, s: float) -> float:
            return _affine(x)

    def stated(i: int) -> float:
        """The stated number value i is compared with (0 for a label)."""
        return (numbers[min(i, len(numbers) - 1)] if numbers else None) or 0.0

    def transform(reading: claims.Reading) -> claims.Reading:
        values = [
            _label(v) if isinstance(v, str) else op(v, stated(i))
            for i, v in enumerate(reading.values)
        ]
        spread, samples = reading.spread, None
        if reading.samples is not None:
            samples = [[op(x, stated(i)) for x in reps] for i, reps in enumerate(reading.samples)]
            import numpy as np

            spread = [float(np.std(r, ddof=1)) for r in samples]
        return replace(reading, values=values, spread=spread, samples=samples)

    return transform


MUTABLE = ("reproduced", "conditional", "unresolved")


def mutable(entry: Mapping, verdict: str) -> bool:
    """Whether a wrong science must change this row's verdict: a passing row must go red, and
    an unresolved Monte Carlo row must be decided against (its band is then too wide to
    matter). A discrepant row is left out (a wrong science moves its value anywhere but onto
    the stated one), and so is an unresolved row that cannot refute by design: a trained one
    (a toy-scale run never refutes) or one under a reading the note leaves open."""
    if verdict == "unresolved":
        return entry.get("evidence") != "trained" and not entry.get("conditional_on")
    return verdict in MUTABLE


def survivors(entries, cubes: Mapping) -> list[tuple[dict, str]]:
    """Rows a wrong science should move (``mutable``) whose verdict the mutation leaves
    unchanged, with that verdict."""
    out = []
    for e in entries:
        if not claims.checks_of(e):
            continue
        before = claims.judge(e, cubes).verdict
        if not mutable(e, before):
            continue
        after = claims.judge(e, cubes, mutate_for(e)).verdict
        if before == after:
            out.append((e, before))
    return out
