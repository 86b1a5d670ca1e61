"""The notes beside the table: a note's text with every judged result marked and linked
(attnmem.notes), on a short note written here, on the real notes where they are on this machine,
and through Snakemake with `notes:` set in a copy of the built project."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, snakemake

from attnmem import notes

NOTE = "First line, with no result.\nThe cost is 4.5 nats. Then more words.\nA short line.\n"
ROWS = [
    {"id": "every-word/a/cost", "doc": "every-word", "line": "2:13", "verdict": "discrepant",
     "figure": "every-word/a-fig", "cube": "head_cost"},
    {"id": "every-word/a/short", "doc": "every-word", "line": "3", "verdict": "reproduced",
     "figure": "", "cube": ""},
    {"id": "every-word/a/<b>", "doc": "every-word", "line": "3", "verdict": "unresolved",
     "figure": "", "cube": ""},
]  # fmt: skip


def test_a_short_note_is_marked_row_by_row():
    page = notes.render("every-word", NOTE, ROWS)
    # an offset marks its sentence only, in the row's colour, with links to row, figure, cube
    assert "The cost is <a id='every-word/a/cost'></a>" in page
    assert "<span class='claim discrepant'>4.5 nats.</span>" in page
    assert "href='../claims.html#every-word/a/cost'" in page
    assert "href='../../figures/index.html#every-word/a-fig'" in page
    assert "href='../head_cost.nc'" in page
    # a whole line with two rows takes the colour a reader must see first
    assert "<span class='claim unresolved'>A short line.</span>" in page
    assert "id='L1'" in page and "id='every-word/a/short'" in page
    assert "every-word/a/&lt;b&gt;" in page and "a/<b>" not in page  # text is escaped


def test_a_line_past_the_end_of_the_file_is_named():
    page = notes.render("every-word", "one line\n", ROWS)
    assert "lie past the end of this file" in page


SEEDS = ROOT.parent / "shared" / "seeds"
FILES = {
    "first-principles": "000_df3d735b4a1f4f75.txt",
    "memory-math": "001_d2cef7350a902f11.txt",
    "every-word": "002_ad31d34738f1abb3.txt",
    "soft-dictionary": "003_013f61fc7b8b2e60.txt",
    "every-layer-a-store": "004_2acf091a1308971f.txt",
}


@pytest.mark.pipeline
@pytest.mark.parametrize("doc", FILES)
def test_every_row_of_a_real_note_has_its_mark(doc, pipeline):
    path = SEEDS / FILES[doc]
    if not path.exists():
        pytest.skip(f"the notes are not on this machine ({SEEDS})")
    rows = notes.read_rows(pipeline / "results" / "claims.csv", doc)
    page = notes.render(doc, path.read_text(encoding="utf-8"), rows)
    assert "past the end of this file" not in page
    missing = [r["id"] for r in rows if f"id='{r['id']}'" not in page]
    assert not missing, f"{len(missing)} rows without a mark: {missing[:5]}"


@pytest.mark.pipeline
def test_setting_notes_writes_the_page_and_links_the_table(pipeline, tmp_path):
    """A copy of the built project with `notes:` naming a note written here: the next run
    writes results/notes/<doc>.html and claims.html links the rows' lines to it; without
    `notes:` claims.html says how to set it."""
    table = (pipeline / "results" / "claims.html").read_text(encoding="utf-8")
    assert "set notes: in config/config.yaml" in table
    project = tmp_path / "project"
    subprocess.run(["cp", "-a", str(pipeline), str(project)], check=True)
    shutil.rmtree(project / ".snakemake" / "locks", ignore_errors=True)
    with open(pipeline / "results" / "claims.csv", newline="", encoding="utf-8") as fh:
        lines = [
            int(r["line"].split(":")[0]) for r in csv.DictReader(fh) if r["doc"] == "every-word"
        ]
    Path(project / "every-word.txt").write_text("words\n" * max(lines), encoding="utf-8")
    config = project / "config" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "\nnotes:\n  every-word: every-word.txt\n",
        encoding="utf-8",
    )
    snakemake("--cores", "2", "--snakefile", str(project / "workflow/Snakefile"), cwd=project)
    page = (project / "results" / "notes" / "every-word.html").read_text(encoding="utf-8")
    assert "class='claim " in page
    linked = (project / "results" / "claims.html").read_text(encoding="utf-8")
    assert "href='notes/every-word.html#every-word/" in linked
    assert "href='notes/first-principles.html" not in linked
