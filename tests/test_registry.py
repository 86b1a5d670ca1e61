"""Registry lint: the claims registry is well formed and points at things the pipeline makes."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from conftest import REGISTRY, ROOT

from attnmem import claims, registry_lint, twins, views
from attnmem.config import load_yaml
from attnmem.experiments import registry

SCHEMA = load_yaml(ROOT / "workflow" / "schemas" / "claims.schema.yaml")
FILES = claims.registry_files(REGISTRY)
EXPERIMENTS = registry()


@pytest.mark.parametrize(
    "path", FILES, ids=[Path(f).relative_to(REGISTRY).as_posix() for f in FILES]
)
def test_file_matches_schema_and_lives_under_its_doc(path):
    jsonschema.validate(load_yaml(path), SCHEMA)
    doc = Path(path).relative_to(REGISTRY).parts[0]
    for entry in claims.read_registry_file(path)[1]:
        assert entry["id"].split("/")[0] == doc, f"{entry['id']} should start with {doc}/"
        assert doc in claims.DOCS, f"{doc} is not one of the notes"


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
        "line": 5,
        "tag": "derived",
        "claim": "a test entry for the lint",
        "audit": "a test entry for the lint",
    }
    check = {"cube": "x", "var": "y"}
    raw = [
        {**base, "id": "memory-math/ch3/no-evidence", "stated": {"value": "1"}, "check": check},
        {
            **base,
            "id": "memory-math/ch3/blame",
            "why": "The note is wrong here.",
            "evidence": "formula",
            "stated": {"value": "1"},
            "check": check,
        },
        {
            **base,
            "id": "memory-math/ch3/fitted-pass",
            "evidence": "fitted",
            "stated": {"value": "1"},
            "check": check,
            "expect": "reproduced",
        },
        {
            **base,
            "id": "memory-math/ch3/bare-conditional",
            "evidence": "recomputed",
            "why": "a reason",
            "stated": {"value": "1"},
            "check": check,
            "expect": "conditional",
        },
        {
            **base,
            "id": "memory-math/ch3/wide-abs",
            "evidence": "recomputed",
            "stated": {"value": "1"},
            "check": check,
            "tolerance": {"abs": 0.05},
        },
        {
            **base,
            "id": "memory-math/ch3/se-without-over",
            "evidence": "recomputed",
            "stated": {"value": "1"},
            "check": check,
            "tolerance": {"se": 4},
        },
        {
            **base,
            "id": "memory-math/ch3/largest-above",  # passes when one replicate does
            "evidence": "trained",
            "stated": {"value": "0", "relation": ">"},
            "check": {**check, "max": "seed"},
        },
    ]
    raw += [
        {  # the literal reading decides: a failing one makes the row discrepant, not amber
            **base,
            "id": "memory-math/ch3/literal-conditional",
            "evidence": "recomputed",
            "why": "Holds under our reading only.",
            "stated": {"value": "1"},
            "check": check,
            "literal": {"check": check},
            "expect": "conditional",
        },
        {  # a toy-scale run cannot refute a result about larger models
            **base,
            "id": "memory-math/ch3/trained-refutes",
            "evidence": "trained",
            "why": "Our small model disagrees.",
            "stated": {"value": "1"},
            "check": check,
            "conditional_on": "toy scale",
            "expect": "discrepant",
        },
        {
            **base,
            "id": "memory-math/ch3/unresolved-silent",
            "evidence": "recomputed",
            "why": "The band is wide.",
            "stated": {"value": "1"},
            "check": check,
            "expect": "unresolved",
        },
        {  # a check under an open reading refutes only that reading
            **base,
            "id": "memory-math/ch3/open-reading-refutes",
            "evidence": "recomputed",
            "why": "Under our width the value is 1.2.",
            "stated": {"value": "1"},
            "check": check,
            "conditional_on": "a width of 8",
            "expect": "discrepant",
        },
        {  # power: "every one of our runs" where the note printed one run
            **base,
            "id": "memory-math/ch3/every-run",
            "evidence": "recomputed",
            "stated": {"value": "100%"},
            "check": {**check, "over": "seed"},
            "tolerance": "exact",
        },
    ]
    bad = [claims.expand_entry(e) for e in raw]
    problems = registry_lint.verdict_rules(bad) + registry_lint.tolerance_rules(bad)
    for e in bad:
        assert any(p.startswith(e["id"] + ":") for p in problems), e["id"]
    assert registry_lint.where_rules(bad), "a memory-math row on line 5 needs its char"
    assert "no-evidence" in " ".join(registry_lint.verdict_rules([bad[0]]))
    ok = claims.expand_entry({**base, "id": "memory-math/ch3/ok", "why": "A definition."})
    assert not registry_lint.verdict_rules([ok])


def test_doc_and_section_come_from_the_id_and_line_and_char_from_the_entry():
    e = claims.expand_entry({"id": "memory-math/ch6/x", "line": 26, "char": 2714, "tag": "t"})
    assert e["where"] == {"doc": "memory-math", "section": "ch6", "line": 26, "char": 2714}
    assert "line" not in e and "char" not in e
    with pytest.raises(claims.RegistryError, match="needs an id"):
        claims.expand_entry({"id": "memory-math/x", "line": 1})


def test_a_var_list_reads_each_variable_in_turn_with_the_same_cube_and_selection():
    check = {"cube": "c", "var": ["a", "b", "c"], "sel": {"d": 4}, "over": "seed"}
    assert claims.expand_checks(check, {}) == [
        {"cube": "c", "var": v, "sel": {"d": 4}, "over": "seed"} for v in "abc"
    ]
    with pytest.raises(claims.RegistryError, match="empty var list"):
        claims.expand_checks({"cube": "c", "var": []}, {})


def test_checks_inherit_the_file_defaults_key_by_key():
    defaults = {"cube": "c", "sel": {"beta": 4, "angle": 90}}
    expand = claims.expand_checks
    assert expand({"var": "x"}, defaults) == [
        {"cube": "c", "var": "x", "sel": {"beta": 4, "angle": 90}}
    ]
    own = expand({"var": "x", "sel": {"beta": 8, "key": "k1"}}, defaults)
    assert own == [{"cube": "c", "var": "x", "sel": {"beta": 8, "angle": 90, "key": "k1"}}]
    dropped = expand({"var": "x", "sel": {"angle": None}}, defaults)  # null drops a default key
    assert dropped == [{"cube": "c", "var": "x", "sel": {"beta": 4}}]
    other = expand({"cube": "d", "var": "x"}, defaults)  # another cube: no default selection
    assert other == [{"cube": "d", "var": "x"}]
    assert expand({"size": "angle"}, defaults) == [{"cube": "c", "size": "angle"}]
    with pytest.raises(claims.RegistryError, match="names no cube"):
        expand({"var": "x"}, {})


def test_a_file_with_defaults_loads_like_the_same_checks_written_out(tmp_path):
    short = tmp_path / "short.yaml"
    short.write_text(
        "# header\n\ndefaults: {cube: c, sel: {d: 4}}\nclaims:\n"
        "- id: every-word/x/a\n  line: 3\n  tag: derived\n  claim: a test of defaults\n"
        "  check: {var: [y, z]}\n"
        "  literal: {check: {var: y, sel: {d: 16}}}\n"
    )
    long = tmp_path / "long.yaml"
    long.write_text(
        "- id: every-word/x/a\n  line: 3\n  tag: derived\n  claim: a test of defaults\n"
        "  check:\n    - {cube: c, var: y, sel: {d: 4}}\n    - {cube: c, var: z, sel: {d: 4}}\n"
        "  literal: {check: {cube: c, var: y, sel: {d: 16}}}\n"
    )
    a, b = claims.load_registry(short), claims.load_registry(long)
    assert [{**e, "_file": ""} for e in a] == [{**e, "_file": ""} for e in b]
    assert a[0]["where"] == {"doc": "every-word", "section": "x", "line": 3}
    assert claims.cubes_named_in([short]) == ["c"], "a cube named only in the defaults"
    jsonschema.validate(load_yaml(short), SCHEMA)
    bad = tmp_path / "bad.yaml"
    bad.write_text("defaults: {cube: c, var: y}\nclaims: []\n")
    with pytest.raises(claims.RegistryError, match="defaults may give only"):
        claims.load_registry(bad)


def test_every_named_figure_exists_and_reads_known_cubes(entries):
    ids = set(views.by_id())
    named = {f for e in entries for f in claims.figures_of(e)}
    assert named <= ids, f"claims name unknown figures: {sorted(named - ids)}"
    for fig in views.figures():  # captions are the functions' docstrings: tests/test_figures.py
        for cube in fig.cubes:
            assert cube in EXPERIMENTS, f"{fig.id} reads unknown cube {cube}"


def test_every_figure_supports_a_claim(entries):
    named = {f for e in entries for f in claims.figures_of(e)}
    orphans = [f.id for f in views.figures() if f.id not in named]
    assert not orphans, f"figures no claim names: {orphans}"


def test_text_scan_of_cube_names_matches_the_parsed_registry(entries):
    assert claims.cubes_named_in(FILES) == claims.cubes_of(entries)


def test_twins_are_one_design():
    """Rows reading the same check, or linked by same_as, share evidence, tolerance rule and
    verdict unless one says in differs how its statement differs; none is not-checked while
    its twin is checked; a same_as names a real row."""
    base = {"line": 5, "char": 1, "tag": "derived", "claim": "a test entry", "audit": "a test"}
    check = {"cube": "x", "var": "y", "sel": {"d": 8}}
    one = {**base, "id": "memory-math/ch3/one", "stated": {"value": "1.0"}, "check": check}
    raw = [
        {**one, "evidence": "recomputed"},
        {**one, "id": "memory-math/ch3/two", "evidence": "formula", "tolerance": "approx"},
        {
            **base,
            "id": "memory-math/ch4/echo",
            "why": "Cannot fail.",
            "same_as": "memory-math/ch3/one",
        },
        {
            **base,
            "id": "memory-math/ch4/ghost",
            "why": "A twin.",
            "same_as": "memory-math/ch9/none",
        },
    ]
    entries = [claims.expand_entry(e) for e in raw]
    problems = twins.twin_rules(entries)
    text = "\n".join(problems)
    assert "different evidence" in text and "different tolerance rules" in text
    assert any(p.startswith("memory-math/ch4/echo:") and "not-checked" in p for p in problems)
    assert any(p.startswith("memory-math/ch4/ghost:") for p in problems)
    assert [len(g) for g in twins.groups(entries)] == [3]
    fixed = [
        entries[0],
        {**entries[1], "differs": "the second statement is a rounded figure reading"},
        {**entries[2], "differs": "the chapter only names the quantity, with no value"},
    ]
    assert not twins.twin_rules(fixed)


def test_twin_groups_of_the_registry(entries, capsys):
    """Lists the twin groups (the script over the registry the referee asked for) and holds
    the registry to one design per group."""
    with capsys.disabled():
        report = twins.report(entries)
        print(f"\n{len(twins.groups(entries))} twin groups:\n{report}")
    problems = twins.twin_rules(entries)
    assert not problems, "\n".join(problems)
