"""Registry lint: the claims registry is well formed and points at things the pipeline makes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from conftest import REGISTRY, ROOT

from attnmem import claims
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
    dupes = [i for i, n in Counter(e["id"] for e in entries).items() if n > 1]
    assert not dupes, f"duplicate claim ids: {dupes}"


def test_every_check_reads_a_declared_output(entries):
    problems = []
    for e in entries:
        for c in claims.checks_of(e):
            exp = EXPERIMENTS.get(c["cube"])
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
            tol = e.get("tolerance", "printed")
            uses_se = isinstance(tol, dict) and bool({"se", "se_mean", "se_identity"} & set(tol))
            # A mean over replicates compared with a printed number needs a statistical band;
            # a strict bound (< or >), an exact value or a floating-point equality ({abs}, every
            # replicate equal to rounding) does not.
            strict = e.get("stated", {}).get("relation", "=") in ("<", ">")
            exactish = tol == "exact" or (isinstance(tol, dict) and "abs" in tol)
            if c.get("over") and not (uses_se or strict or exactish):
                problems.append(f"{e['id']}: a check 'over' replicates needs tolerance se/se_mean")
    assert not problems, "\n".join(problems)


def test_verdict_words_and_reasons(entries):
    problems = []
    for e in entries:
        has_check = bool(claims.checks_of(e))
        expect = e.get("expect", "reproduced" if has_check else "not-checked")
        if expect in ("discrepant", "not-checked") and not e.get("why"):
            problems.append(f"{e['id']}: expect {expect} needs a why")
        if expect == "not-checked" and has_check:
            problems.append(f"{e['id']}: has a check but expects not-checked")
        if expect != "not-checked" and not has_check:
            problems.append(f"{e['id']}: expects {expect} but has nothing to check")
        if has_check and "stated" not in e:
            problems.append(f"{e['id']}: a check needs a stated value to compare with")
        tol = e.get("tolerance")
        uses_se = isinstance(tol, dict) and bool({"se", "se_mean", "se_identity"} & set(tol))
        if uses_se and not all(c.get("over") for c in claims.checks_of(e)):
            problems.append(f"{e['id']}: tolerance se needs checks with 'over'")
    assert not problems, "\n".join(problems)


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
