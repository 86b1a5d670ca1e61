"""Views of the cubes (attnmem.views): figures and pages declared once, found by one text scan,
drawn by jobs whose grouping no grid changes, each job redrawing only what changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from attnmem import views
from attnmem.cli import imported_as_scanned

MANIFEST = json.loads((ROOT / "workflow/schemas/experiments.json").read_text())
TRAINED = sorted(n for n, spec in MANIFEST.items() if spec.get("own_process"))


def test_a_page_takes_its_twins_caption_cubes_and_settings(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "interactive").mkdir()
    (tmp_path / "figures/topic.py").write_text(
        '@figure("d/x-one", cubes=("c",), settings={"s": ("c", "beta")}, title="One")\n'
        'def one(cubes, s):\n    """The caption, once."""\n'
    )
    (tmp_path / "interactive/topic.py").write_text(
        '@page("d/x-one", handles={"beta": "slider"}, line=12, cubes=("e",))\n'
        "def one(cubes, s):\n    pass\n"
    )
    fig, pg = views.scan(tmp_path)
    assert (fig.kind, pg.kind) == ("figure", "page")
    assert pg.cubes == ("c", "e") and pg.settings == fig.settings and pg.title == "One"
    assert pg.handles == (("beta", "slider"),) and pg.line == 12
    assert pg.path == "figures/d/x-one.html" and fig.path == "figures/d/x-one.png"
    (tmp_path / "interactive/topic.py").write_text(
        '@page("d/x-two", handles={"beta": "slider"}, line=12)\ndef two(cubes):\n    pass\n'
    )
    views.scan.cache_clear()
    with pytest.raises(ValueError, match="has no figure of its id"):
        views.scan(tmp_path)
    with pytest.raises(ValueError, match="not among"):
        views._scan_text("m", '@page("d/x", handles={"b": "wiggle"}, line=3)\ndef f(c):', "page")
    with pytest.raises(ValueError, match="@figure in a module of interactive/"):
        views._scan_text("m", '@figure("d/x")\ndef f(c):', "page")


def test_every_page_has_a_twin_and_its_scan_equals_its_decorators():
    twins = views.by_id("figure")
    for module, found in views.groups("page").items():
        assert module in views.groups("figure"), f"interactive/{module}.py names no topic"
        functions = imported_as_scanned(module, "page")  # raises when they disagree
        assert [f.id for f in found] == list(functions)
        for view in found:
            assert view.title == twins[view.id].title
            assert set(twins[view.id].cubes) <= set(view.cubes)


def test_jobs_are_grouped_by_name_and_training_alone():
    """Consecutive modules by name, of nearly equal sizes; those that read a training cube in
    jobs of their own. Nothing but the code goes in: no grid can move a module."""
    for kind in views.KINDS:
        jobs = views.jobs(kind, TRAINED)
        modules = [m for ms in jobs.values() for m in ms]
        assert sorted(modules) == sorted(views.groups(kind)), kind
        early = [ms for name, ms in jobs.items() if "trained" not in name]
        flat = [m for ms in early for m in ms]
        assert flat == sorted(flat), "modules are packed in name order"
        for name, ms in jobs.items():
            reads = set(views.cubes_of(v for m in ms for v in views.groups(kind)[m]))
            assert bool(reads & set(TRAINED)) == ("trained" in name), name
        sizes = [sum(len(views.groups(kind)[m]) for m in ms) for ms in early]
        biggest = max(len(v) for v in views.groups(kind).values())
        assert max(sizes) - min(sizes) <= biggest, sizes


def _files_of(view) -> list[str]:
    if view.kind == "figure":
        return [view.path, f"figures/{view.id}.rst"]
    return [view.path]


@pytest.mark.pipeline
def test_widening_a_grid_redraws_exactly_the_views_that_read_it(pipeline, tmp_path):
    """A built project copied (mtimes and Snakemake's records kept), one cube's grid widened:
    the figure and page jobs that read it run, and they write again the files of the views
    that read that cube, and of no other view, though the same jobs hold other modules. Then a
    forced job (--forcerun) redraws every view it holds.

    Every view file is written beside its name and renamed onto it, so a file written again
    has a new inode. Its mtime cannot tell: Snakemake touches every output of a job that ran
    (dag.check_and_touch_output), drawn again or not; the mtimes show which jobs ran."""
    project = tmp_path / "project"
    project.mkdir()
    for part in ("workflow", "config", "src", "results", "figures", "logs", ".snakemake"):
        subprocess.run(["cp", "-a", str(pipeline / part), str(project / part)], check=True)
    targets = [v.path for v in views.scan()]
    every = [f for v in views.scan() for f in _files_of(v)]

    def mtimes():
        return {f: (project / f).stat().st_mtime_ns for f in every}

    def inodes():
        return {f: (project / f).stat().st_ino for f in every}

    exe = Path(sys.executable).with_name("snakemake")
    env = {**os.environ, "PYTHONPATH": str(project / "src")}  # the copy's own code

    def run(*args):
        cmd = [str(exe) if exe.exists() else "snakemake", *targets, "--cores", "2", *args]
        proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    assert "Nothing to be done" in run("-n")
    before, written = mtimes(), inodes()
    config_file = project / "config/config.yaml"
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config["experiments"]["soft_lookup"]["beta"].append(25)
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    run()
    after, rewritten = mtimes(), inodes()
    readers = [v for v in views.scan() if "soft_lookup" in v.cubes]
    assert readers
    assert {f for f in every if rewritten[f] != written[f]} == {
        f for v in readers for f in _files_of(v)
    }
    ran = []  # the views of the jobs that held a reader: touched by Snakemake
    for kind in views.KINDS:
        for modules in views.jobs(kind, TRAINED).values():
            if "soft_lookup" in modules:
                ran += [v for m in modules for v in views.groups(kind)[m]]
    assert {f for f in every if after[f] != before[f]} == {f for v in ran for f in _files_of(v)}
    jobs = {n: ms for n, ms in views.jobs("figure", TRAINED).items() if "soft_lookup" in ms}
    ((job, modules),) = jobs.items()
    assert len(modules) > 1, "the test needs a job that holds other modules too"
    assert "Nothing to be done" in run("-n")

    run("--forcerun", job)
    forced = inodes()
    held = [v for m in modules for v in views.groups("figure")[m]]
    assert {f for f in every if forced[f] != rewritten[f]} == {
        f for v in held for f in _files_of(v)
    }
    digests = json.loads(
        Path(project / "results/figure_checks/soft_lookup.digests.json").read_text()
    )
    assert sorted(digests) == sorted(v.id for v in views.groups("figure")["soft_lookup"])
