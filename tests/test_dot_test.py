"""`.test/` runs on its own (the Snakemake catalog's convention): its config is complete, the
default one with a few marked lines changed, and `snakemake --directory .test` plans and builds
the whole pipeline with it, claims table and gallery included."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import ROOT, snakemake

DEFAULT, TEST = ROOT / "config/config.yaml", ROOT / ".test/config/config.yaml"


def _body(path) -> list[str]:
    """A config's lines from its first key on (its header comment says what the file is)."""
    lines = path.read_text().splitlines()
    return lines[next(i for i, line in enumerate(lines) if line and line[0] != "#") :]


def test_the_test_config_is_the_default_but_for_its_marked_lines():
    default, test = _body(DEFAULT), _body(TEST)
    assert len(default) == len(test), "the test config must keep every line of the default"
    changed = [(a, b) for a, b in zip(default, test, strict=True) if a != b]
    assert changed, "the test config changes nothing"
    unmarked = [(a, b) for a, b in changed if "# TEST:" not in b]
    assert not unmarked, f"lines changed without a `# TEST:` mark: {unmarked}"


def _workdir(tmp_path):
    """A copy of .test/ to run in (Snakemake writes its results and state beside the config)."""
    work = tmp_path / "dot-test"
    shutil.copytree(ROOT / ".test/config", work / "config")
    return work


def test_dot_test_plans_the_whole_build_on_its_own(tmp_path):
    plan = snakemake("-n", "--directory", str(_workdir(tmp_path)))
    stats = plan.stdout.split("Job stats:", 1)[-1].split("total", 1)[0]
    planned = {line.split()[0] for line in stats.splitlines() if line.strip()}
    assert {"claims", "gallery", "score_scale", "all"} <= planned, plan.stdout[-2000:]


@pytest.mark.pipeline
def test_dot_test_builds_the_claims_table_and_gallery(pipeline, tmp_path):
    """A real build in a copy of .test/. The grid points the default build computed are given
    to it (results/points, attnmem.points: kept by their parameters, seed and code), so only
    the points of the blocks .test changes are computed; figures, claims and gallery are
    built anew."""
    work = _workdir(tmp_path)
    points = pipeline / "results/points"
    if points.exists():
        (work / "results").mkdir()
        subprocess.run(["cp", "-a", str(points), str(work / "results")], check=True)
    snakemake("--directory", str(work), "--cores", "2")
    claims = (work / "results/claims.csv").read_text().splitlines()
    assert len(claims) > 1000 and claims[0].startswith("id,")
    assert "<img" in (work / "figures/index.html").read_text()
    import xarray as xr

    with xr.open_dataset(work / "results/score_scale.nc") as cube:
        assert cube.sizes["seed"] == 20  # the test block, not the default's 200
