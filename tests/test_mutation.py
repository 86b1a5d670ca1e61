"""Mutation test: every checked row that passes must go red when the science behind it is wrong.

The wrong science is the one of ``attnmem.mutation``: the variable the row reads scaled by 1.25
and shifted by 0.1 (a wrong constant, or a wrong formula where the right one gives 0), reflected
across the bound for an inequality, another label for a label. A row that still passes is a
survivor; each one is explained in its entry's ``mutation`` field, or the test fails.
"""

from __future__ import annotations

import pytest
import xarray as xr
from conftest import REGISTRY

from attnmem import claims, mutation


@pytest.mark.pipeline
def test_every_passing_row_goes_red_under_a_wrong_science(pipeline, capsys):
    entries = claims.load_registry(REGISTRY)
    names = claims.cubes_of(entries)
    cubes = {n: xr.load_dataset(pipeline / "results" / f"{n}.nc") for n in names}
    passing = [
        e
        for e in entries
        if claims.checks_of(e) and mutation.mutable(e, claims.judge(e, cubes).verdict)
    ]
    found = mutation.survivors(passing, cubes)
    unexplained = [e["id"] for e, _ in found if "mutation" not in e]
    with capsys.disabled():
        print(
            f"\nmutation test: {len(passing)} passing or unresolved checked rows, "
            f"{len(found)} survive a wrong science ({len(found) - len(unexplained)} explained, "
            f"{len(unexplained)} unexplained)"
        )
    assert not unexplained, "rows a wrong science still passes:\n" + "\n".join(unexplained)


@pytest.mark.pipeline
def test_an_explained_survivor_really_survives(pipeline):
    """A `mutation` note on a row that the mutation kills is stale: remove it."""
    entries = [e for e in claims.load_registry(REGISTRY) if "mutation" in e]
    names = claims.cubes_of(entries)
    cubes = {n: xr.load_dataset(pipeline / "results" / f"{n}.nc") for n in names}
    survivors = {e["id"] for e, _ in mutation.survivors(entries, cubes)}
    stale = [e["id"] for e in entries if e["id"] not in survivors]
    assert not stale, f"mutation notes on rows the mutation kills: {stale}"


def test_the_mutation_kills_a_right_answer_and_spares_a_vacuous_band():
    c = {"c": xr.Dataset({"x": ("k", [1.0, 0.0])}, coords={"k": ["a", "b"]})}
    base = {
        "id": "every-word/x/y",
        "line": 1,
        "tag": "derived",
        "claim": "a test entry",
        "evidence": "recomputed",
    }
    exact = {
        **base,
        "stated": {"value": "1.00"},
        "check": {"cube": "c", "var": "x", "sel": {"k": "a"}},
    }
    gap = {
        **base,
        "stated": {"value": "0"},
        "tolerance": {"abs": 1e-12},
        "check": {"cube": "c", "var": "x", "sel": {"k": "b"}},
    }
    wide = {**exact, "id": "every-word/x/wide", "tolerance": {"abs": 10}}  # nothing leaves it
    bound = {
        **base,
        "id": "every-word/x/bound",
        "stated": {"value": "1", "relation": "<"},
        "check": {"cube": "c", "var": "x", "sel": {"k": "b"}},
    }
    entries = [claims.expand_entry(e) for e in (exact, gap, wide, bound)]
    found = {e["id"] for e, _ in mutation.survivors(entries, c)}
    assert found == {"every-word/x/wide"}
