"""Failures a user meets: unreadable cubes, leftovers of a killed write, plumbing edits that
rerun nothing, and a crash whose log does not say where it happened."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest
import xarray as xr
from conftest import ROOT, snakemake

from attnmem.cli import logged_failure, setup_logging
from attnmem.cube import ExperimentError, run_points, write_cube
from attnmem.spec import Experiment, Output


def test_a_cube_is_readable_like_any_output_file(tmp_path):
    old = os.umask(0o022)
    try:
        write_cube(xr.Dataset({"x": ("i", np.arange(3.0))}), tmp_path / "c.nc")
    finally:
        os.umask(old)
    assert (tmp_path / "c.nc").stat().st_mode & 0o777 == 0o644


def test_a_killed_write_leaves_nothing_behind_the_next_write(tmp_path):
    stale = tmp_path / ".c.k3j2h1.nc.tmp"
    stale.write_bytes(b"\0" * 1000)  # what a kill during to_netcdf leaves
    write_cube(xr.Dataset({"x": ("i", np.arange(3.0))}), tmp_path / "c.nc")
    assert not stale.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["c.nc"]


def _fails_at_three(n):
    if n == 3:
        raise ValueError("no inverse")
    return {"y": float(n)}


def test_a_crash_names_its_grid_point_and_its_traceback_reaches_the_log(tmp_path):
    exp = Experiment(
        name="fragile",
        func=_fails_at_three,
        grid=("n",),
        outputs=(Output("y", "the point", "1"),),
        sections=("none",),
    )
    log_file = tmp_path / "fragile.log"
    setup_logging(str(log_file))
    point = r"fragile failed at grid point \{'n': 3\}"
    with pytest.raises(ExperimentError, match=point), logged_failure():
        run_points(exp, {"n": [1, 2, 3, 4]}, 0)
    logging.shutdown()
    text = log_file.read_text()
    assert "Traceback" in text and "{'n': 3}" in text and "no inverse" in text


@pytest.mark.pipeline
def test_editing_the_plumbing_reruns_the_experiments(tmp_path):
    config = ["--configfile", str(ROOT / "config/config.yaml")]
    snakemake("results/soft_lookup.nc", "--directory", str(tmp_path), "--cores", "1", *config)
    cube = tmp_path / "results/soft_lookup.nc"
    os.utime(cube, (0, 0))  # as if grid.py and cube.py had been edited after the cube was made
    plan = snakemake("results/soft_lookup.nc", "--directory", str(tmp_path), "-n", *config).stdout
    assert "src/attnmem/cube.py" in plan and "src/attnmem/grid.py" in plan, plan


def test_the_help_says_its_whole_first_sentence_and_run_writes_beside_the_pipeline(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    help_text = subprocess.run(
        [sys.executable, "-m", "attnmem", "--help"], capture_output=True, text=True, env=env
    ).stdout
    assert "judge the claims, build the gallery." in " ".join(help_text.split())
    subprocess.run(
        [sys.executable, "-m", "attnmem", "--config", str(ROOT / "config/config.yaml"),
         "--schema", str(ROOT / "workflow/schemas/config.schema.yaml"), "run", "soft_lookup"],
        cwd=tmp_path, check=True, capture_output=True, env=env,
    )  # fmt: skip
    assert (tmp_path / "results/manual/soft_lookup.nc").exists()
    assert not (tmp_path / "results/soft_lookup.nc").exists()
