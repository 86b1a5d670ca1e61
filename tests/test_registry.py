"""Registry lint: the claims registry is well formed and points at things the pipeline makes."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from conftest import REGISTRY, ROOT

from attnmem import claims, registry_lint
from attnmem.config import load_yaml
from attnmem.experiments import registry
from attnmem.figures import catalog

SCHEMA = load_yaml(ROOT / "workflow" / "schemas" / "claims.schema.yaml")
FILES = claims.registry_files(REGISTRY)
EXPERIMENTS = registry()


@pytest.mark.parametrize(
    "path", FILES, ids=[Path(f).relative_to(REGISTRY).as_posix() for f in FILES]
)
def test_file_matches_schema_and_lives_under_its_doc(path):
    data = load_yaml(path)
    jsonschema.validate(data, SCHEMA)
    doc = Path(path).relative_to(REGISTRY).parts[0]
    for entry in data:
        assert entry["where"]["doc"] == doc, f"{entry['id']} is filed under {doc}"
        assert entry["id"].split("/")[0] == doc, f"{entry['id']} should start with {doc}/"


def test_ids_are_unique(entries):
    problems = registry_lint.ids_unique(entries)
    assert not problems, "\n".join(problems)


def test_every_check_reads_a_declared_output(entries):
    problems = registry_lint.outputs_known(entries, EXPERIMENTS)
    assert not problems, "\n".join(problems)


def test_verdicts_evidence_readings_and_reasons_follow_the_rules(entries):
    """Every checked row has an evidence class; conditional rows name their unstated reading;
    a why that blames the note never sits beside reproduced or not-checked."""
    problems = [p for p in registry_lint.verdict_rules(entries) if "no audit" not in p]
    assert not problems, "\n".join(problems)


def test_every_row_carries_its_second_reading(entries):
    problems = [p for p in registry_lint.verdict_rules(entries) if "no audit" in p]
    assert not problems, f"{len(problems)} rows without an audit:\n" + "\n".join(problems)


def test_one_tolerance_policy(entries):
    problems = registry_lint.tolerance_rules(entries)
    assert not problems, "\n".join(problems)


def test_entries_on_long_lines_carry_a_character_offset(entries):
    problems = registry_lint.where_rules(entries)
    assert not problems, "\n".join(problems)


def test_the_lint_catches_what_it_should():
    """The lint itself can fail: one bad entry per rule."""
    base = {
        "where": {"doc": "memory-math", "section": "ch3", "line": 5},
        "tag": "derived",
        "claim": "a test entry for the lint",
        "audit": "a test entry for the lint",
    }
    check = {"cube": "x", "var": "y"}
    bad = [
        {**base, "id": "m/a/no-evidence", "stated": {"value": "1"}, "check": check},
        {
            **base,
            "id": "m/a/blame",
            "why": "The note is wrong here.",
            "evidence": "formula",
            "stated": {"value": "1"},
            "check": check,
        },
        {
            **base,
            "id": "m/a/fitted-pass",
            "evidence": "fitted",
            "stated": {"value": "1"},
            "check": check,
            "expect": "reproduced",
        },
        {
            **base,
            "id": "m/a/bare-conditional",
            "evidence": "recomputed",
            "why": "a reason",
            "stated": {"value": "1"},
            "check": check,
            "expect": "conditional",
        },
        {
            **base,
            "id": "m/a/wide-abs",
            "evidence": "recomputed",
            "stated": {"value": "1"},
            "check": check,
            "tolerance": {"abs": 0.05},
        },
        {
            **base,
            "id": "m/a/se-without-over",
            "evidence": "recomputed",
            "stated": {"value": "1"},
            "check": check,
            "tolerance": {"se": 4},
        },
    ]
    problems = registry_lint.verdict_rules(bad) + registry_lint.tolerance_rules(bad)
    for e in bad:
        assert any(p.startswith(e["id"] + ":") for p in problems), e["id"]
    assert registry_lint.where_rules(bad), "a memory-math row on line 5 needs where.char"
    assert "m/a/no-evidence" in " ".join(registry_lint.verdict_rules([{**bad[0]}]))
    assert not registry_lint.verdict_rules([{**base, "id": "m/a/ok", "why": "A definition."}])


def test_every_named_figure_exists_and_every_figure_has_a_caption(entries):
    ids = set(catalog.by_id())
    named = {f for e in entries for f in claims.figures_of(e)}
    assert named <= ids, f"claims name unknown figures: {sorted(named - ids)}"
    for fig in catalog.FIGURES:
        caption = ROOT / "workflow" / "report" / f"{fig.id}.rst"
        assert caption.exists(), f"no caption {caption}"
        assert len(caption.read_text().split()) >= 15, f"caption of {fig.id} is too short"
        for cube in fig.cubes:
            assert cube in EXPERIMENTS, f"{fig.id} reads unknown cube {cube}"


def test_every_figure_supports_a_claim(entries):
    named = {f for e in entries for f in claims.figures_of(e)}
    orphans = [f.id for f in catalog.FIGURES if f.id not in named]
    assert not orphans, f"figures no claim names: {orphans}"


def test_text_scan_of_cube_names_matches_the_parsed_registry(entries):
    assert claims.cubes_named_in(FILES) == claims.cubes_of(entries)
