"""Pipeline test: every claim's computed verdict is the one its registry entry expects."""

from __future__ import annotations

import re

import pytest
from conftest import REGISTRY

from attnmem import claims
from attnmem.config import load_yaml
from attnmem.registry_lint import expected

ENTRIES = claims.load_registry(REGISTRY)


@pytest.mark.pipeline
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_verdict_is_expected(entry, claims_rows):
    row = claims_rows[entry["id"]]
    assert row["verdict"] == expected(entry), (
        f"{entry['id']}: stated {row['stated']}, computed {row['computed']}, "
        f"difference {row['difference']}, tolerance {row['tolerance']}; {row['why']}"
    )


@pytest.mark.pipeline
def test_table_has_one_row_per_entry_and_the_agreed_columns(claims_rows, pipeline):
    header = (pipeline / "results" / "claims.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",") == list(claims.COLUMNS)
    assert sorted(claims_rows) == sorted(e["id"] for e in ENTRIES)


@pytest.mark.pipeline
def test_rendered_tables_and_gallery_exist(pipeline):
    md = (pipeline / "results" / "claims.md").read_text(encoding="utf-8")
    assert "| doc | verdict | recomputed | formula | property | fitted | trained | none |" in md
    for word in (*claims.VERDICTS, *claims.EVIDENCE):
        assert f"- **{word}**: " in md, f"the table does not say what {word} means"
    html = (pipeline / "figures" / "index.html").read_text(encoding="utf-8")
    from attnmem import views

    vector = load_yaml(pipeline / "config" / "config.yaml").get("svg", False)
    for fig in views.figures():
        assert f"id='{fig.id}'" in html
        assert (pipeline / "figures" / f"{fig.id}.png").stat().st_size > 1000
        # the image opens its SVG when the config asks for SVGs, else the PNG at full size
        full = f"{fig.id}.svg" if vector else f"{fig.id}.png"
        assert f"<a href='{full}'><img src='{fig.id}.png'" in html
        assert (pipeline / "figures" / full).exists()


@pytest.mark.pipeline
def test_errata_list_every_discrepant_row_and_nothing_else(claims_rows, pipeline):
    """results/errata.md names each discrepant row once, under its note and section, with what
    holds instead; the unresolved rows follow in their own part; no other row appears."""
    text = (pipeline / "results" / "errata.md").read_text(encoding="utf-8")
    errata, _, unresolved = text.partition("## Unresolved")
    named = set(re.findall(r"^- \*\*(\S+) \(line ", errata, flags=re.M))
    pending = set(re.findall(r"^- \*\*(\S+) \(line ", unresolved, flags=re.M))
    rows = claims_rows.values()
    assert named == {r["id"] for r in rows if r["verdict"] == "discrepant"}
    assert pending == {r["id"] for r in rows if r["verdict"] == "unresolved"}
    for r in rows:
        if r["verdict"] == "discrepant":
            assert f"## {r['doc']}, section {r['section']}" in errata
    page = (pipeline / "results" / "claims.html").read_text(encoding="utf-8")
    assert page.index("id='discrepant-list'") < page.index("id='results'")
