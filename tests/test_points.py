"""The store of computed points (attnmem.points): widening a grid computes only its new points,
for every kind of widening, with no setting; the assembled cube is the one-loop cube bit for
bit; whatever a point's values depend on (the science, a parameter, the global seed, the
plumbing, a library) recomputes every point it affects; narrowing back computes nothing; and
the cores a job is given share its points, with the same cube."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import ROOT, snakemake

from attnmem import points
from attnmem.config import load_yaml
from attnmem.cube import run_points
from attnmem.experiments import experiment

CONFIG = load_yaml(ROOT / "config" / "config.yaml")
SEED = CONFIG["seed"]
SCORE = {"d_k": [4, 64], "seed": {"count": 10}, "rows": 50, "tokens": 4, "threshold": 0.99}


def bitwise(a: xr.Dataset, b: xr.Dataset) -> None:
    """Identical Datasets (values, coordinates, attributes) with the same bytes in every
    variable (NaNs included)."""
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        if a[name].dtype.kind in "fiu":  # text labels are compared by assert_identical
            assert a[name].values.tobytes() == b[name].values.tobytes(), name


def run(name, block, store, workers=1):
    """(cube, points computed) of ``block`` through the store ``store``."""
    ds, computed, _ = points.compute(experiment(name), block, SEED, store, workers)
    return ds, computed


def reference(name, block):
    return run_points(experiment(name), block, SEED)


@pytest.mark.parametrize(
    ("name", "narrow", "wide", "new"),
    [
        ("score_scale", SCORE, {**SCORE, "seed": {"count": 13}}, 2 * 3),  # seeds
        ("score_scale", SCORE, {**SCORE, "d_k": [4, 16, 64]}, 10),  # a value inside a list
        (  # a range, with outputs whose length grows with L (padded with NaN to the longest)
            "ruler_costs",
            {**CONFIG["experiments"]["ruler_costs"], "L": {"first": 0, "last": 12}},
            {**CONFIG["experiments"]["ruler_costs"], "L": {"first": 0, "last": 20}},
            5 * 8,
        ),
    ],
    ids=["seeds", "list", "range"],
)
def test_widening_computes_only_the_new_points(tmp_path, name, narrow, wide, new):
    """Each kind of widening computes exactly its new points (counted); the old points keep
    their values; the cube equals, bit for bit, the one-loop cube of the wide grid and a build
    of the wide grid from an empty store; narrowing and widening back compute nothing."""
    store = tmp_path / "points"
    before, computed = run(name, narrow, store)
    assert computed == int(np.prod([before.sizes[k] for k in experiment(name).grid]))
    after, computed = run(name, wide, store)
    assert computed == new
    bitwise(after, reference(name, wide))
    bitwise(after, run(name, wide, tmp_path / "empty")[0])
    old = after.sel({k: before[k].values for k in experiment(name).grid})
    for var in before.data_vars:  # the old points' values, to their own (shorter) lengths
        region = {d: slice(0, before.sizes[d]) for d in before[var].dims}
        bitwise(old[var].isel(region).to_dataset(), before[var].to_dataset())
    narrowed, computed = run(name, narrow, store)
    assert computed == 0
    bitwise(narrowed, before)
    assert run(name, wide, store)[1] == 0


@pytest.mark.parametrize(
    ("change", "recomputed"),
    [
        ("a parameter", lambda block, monkeypatch: {**block, "rows": 51}),
        ("the global seed", None),
        ("the science", lambda block, monkeypatch: _edit_code(monkeypatch, "science")),
        ("the plumbing", lambda block, monkeypatch: _edit_code(monkeypatch, "plumbing")),
        ("a library", lambda block, monkeypatch: _new_numpy(monkeypatch)),
        ("nothing", lambda block, monkeypatch: block),
    ],
    ids=["parameter", "global-seed", "science", "plumbing", "library", "nothing"],
)
def test_what_a_point_depends_on_recomputes_every_point(tmp_path, monkeypatch, change, recomputed):
    """A changed parameter, global seed, science module, plumbing module or library version
    is a new context: every point is computed again (and nothing when nothing changed)."""
    store = tmp_path / "points"
    exp = experiment("score_scale")
    first = points.compute(exp, SCORE, SEED, store)
    assert first[1] == first[2] == 20
    block, seed = SCORE, SEED
    if recomputed is None:
        seed = SEED + 1
    else:
        block = recomputed(SCORE, monkeypatch) or SCORE
    again = points.compute(exp, block, seed, store)[1]
    assert again == (0 if change == "nothing" else 20), change


def _edit_code(monkeypatch, which: str) -> None:
    """score_scale's code as if one of its science modules, or one plumbing module, were
    edited: the files its code hash reads, copied, with a comment appended to one."""
    import tempfile
    from pathlib import Path

    files = points.science_files("score_scale")
    labels = {points._inside_package(f): f for f in files}
    assert {"experiments/score_scale.py", "grid.py", "cube.py", "points.py", "jobs.py"} <= set(
        labels
    ), sorted(labels)
    copy = Path(tempfile.mkdtemp()) / "attnmem"
    copies = []
    for label, path in labels.items():
        target = copy / label
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        copies.append(str(target))
    assert points._inside_package(copies[0]) in labels
    edited = "experiments/score_scale.py" if which == "science" else "grid.py"
    with open(copy / edited, "a", encoding="utf-8") as fh:
        fh.write("# an edit\n")
    monkeypatch.setattr(points, "science_files", lambda name: copies)
    points.code_hash.cache_clear()
    monkeypatch.setattr(points, "code_hash", points.code_hash.__wrapped__)


def _new_numpy(monkeypatch) -> None:
    versions = {**points.library_versions("score_scale"), "numpy": "0.0-other"}
    monkeypatch.setattr(points, "library_versions", lambda name: versions)


def test_a_job_removes_the_points_of_code_that_can_no_longer_be_used(tmp_path, monkeypatch):
    """Points of other parameters stay (returning to them computes nothing); points of other
    code are removed when a job computes with the new code."""
    store = tmp_path / "points"
    exp = experiment("score_scale")
    points.compute(exp, SCORE, SEED, store)
    points.compute(exp, {**SCORE, "rows": 51}, SEED, store)
    assert points.compute(exp, SCORE, SEED, store)[1] == 0
    assert len(list((store / "score_scale").iterdir())) == 2
    _edit_code(monkeypatch, "science")
    assert points.compute(exp, SCORE, SEED, store)[1] == 20
    assert len(list((store / "score_scale").iterdir())) == 1


def test_worker_processes_give_the_cube_of_one(tmp_path):
    """Points spread over worker processes (in tasks dealt round-robin) give the cube of one
    loop, bit for bit: each point draws from its own generator."""
    block = {**CONFIG["experiments"]["random_key_memory"], "seed": {"count": 5}, "trials": 20}
    two, computed = run("random_key_memory", block, tmp_path / "two", workers=2)
    assert computed == 5
    bitwise(two, reference("random_key_memory", block))
    assert len(list((tmp_path / "two").glob("*/*/*.npz"))) == 5  # one chunk per task here


def test_counting_the_points_to_compute(tmp_path):
    """What the cost check and the announcement count: the grid's points that the store of
    their context lacks (all of them for an empty store or another context)."""
    keys = ("d_k", "seed")
    store = tmp_path / "points"
    assert points.to_compute("score_scale", SCORE, keys, SEED, store) == 20
    points.compute(experiment("score_scale"), SCORE, SEED, store)
    wide = {**SCORE, "d_k": [4, 16, 64], "seed": {"count": 12}}
    assert points.to_compute("score_scale", wide, keys, SEED, store) == 36 - 20
    assert points.to_compute("score_scale", SCORE, keys, SEED, store) == 0
    assert points.to_compute("score_scale", {**SCORE, "rows": 49}, keys, SEED, store) == 20
    huge = {**SCORE, "seed": {"count": 10**8}}  # counted without expanding the grid
    assert points.to_compute("score_scale", huge, keys, SEED, store) == 2 * 10**8 - 20


def test_the_cost_check_counts_only_the_points_to_compute():
    """A grid over the limits as a whole passes when most of it was computed before, and the
    refusal of one that does not says how many of its points are new."""
    from attnmem.costs import over_limits

    manifest = {"toy": {"grid": ["seed"]}}
    costs = {"toy": {"seconds_per_point": 1.0, "bytes_per_point": 8, "base_mb": 100}}
    config = {"experiments": {"toy": {"seed": {"count": 10_000}}}, "limits": {"hours": 1}}
    assert over_limits(config, manifest, costs)  # 10,000 CPU-seconds
    assert over_limits(config, manifest, costs, lambda name, block: 1_000) == []
    (line,) = over_limits(config, manifest, costs, lambda name, block: 5_000)
    assert line.startswith("experiments.toy: 10,000 grid points (5,000 of them not computed yet)")


def test_the_workers_a_grid_asks_for():
    assert points.useful_workers(None, 100) == 1  # never measured
    assert points.useful_workers(points.WORKER_SECONDS - 1, 100) == 1
    assert points.useful_workers(10 * points.WORKER_SECONDS, 100) == 10  # capped at --cores
    assert points.useful_workers(10 * points.WORKER_SECONDS, 3) == 3  # a worker per point


# ----------------------------------------------------------------------------- through Snakemake


def _build(workdir, blocks: dict, *extra, cores="2"):
    workdir.mkdir(parents=True, exist_ok=True)
    override = workdir / "override.yaml"
    override.write_text(yaml.safe_dump({"experiments": blocks}))
    targets = [f"results/{name}.nc" for name in blocks]
    return snakemake(
        *targets, "--directory", str(workdir), "--cores", cores, *extra,
        "--configfile", str(ROOT / "config/config.yaml"), str(override),
    )  # fmt: skip


def _computed(workdir, name) -> tuple[int, int] | None:
    """(points computed, points in the grid) as the job's log says, or None if it did not run."""
    log = workdir / "logs" / f"{name}.log"
    if not log.exists():
        return None
    found = re.findall(r"computed (\d+) of (\d+) grid points", log.read_text())
    return tuple(map(int, found[-1])) if found else None


def _plan(workdir, blocks) -> dict[str, int]:
    """The jobs a dry run would run, by rule."""
    out = _build(workdir, blocks, "-n", "--quiet", "rules").stdout
    return {r: int(n) for r, n in re.findall(r"^(\w+)\s+(\d+)$", out, re.M) if r != "total"}


@pytest.mark.pipeline
def test_the_pipeline_widens_seeds_a_list_and_a_range_computing_only_new_points(tmp_path):
    """No shard setting: widening seeds and a list (score_scale, a script job) and a range
    (ruler_costs, run in Snakemake's own process) computes only the new points, the cubes
    equal a from-scratch build of the wide grids bit for bit, and narrowing back computes
    nothing. Nothing but these experiments and their config snapshots runs."""
    score = {**SCORE, "rows": 1000, "seed": {"count": 1700}}  # past 2.5 s of estimated work
    ruler = {**CONFIG["experiments"]["ruler_costs"], "L": {"first": 0, "last": 20}}
    narrow = {"score_scale": score, "ruler_costs": ruler}
    wide = {
        "score_scale": {**score, "d_k": [4, 16, 64], "seed": {"count": 1870}},
        "ruler_costs": {**ruler, "L": {"first": 0, "last": 30}},
    }
    built, scratch = tmp_path / "built", tmp_path / "scratch"
    _build(built, narrow)
    assert _computed(built, "score_scale") == (3400, 3400)
    assert _computed(built, "ruler_costs") == (5 * 21, 5 * 21)
    plan = _plan(built, wide)
    assert plan == {"score_scale": 1, "ruler_costs": 1, "config_snapshot": 2}, plan
    _build(built, wide)
    assert _computed(built, "score_scale") == (3 * 1870 - 3400, 3 * 1870)
    assert _computed(built, "ruler_costs") == (5 * 10, 5 * 31)
    _build(scratch, wide)
    for name in wide:
        a = xr.load_dataset(built / f"results/{name}.nc")
        b = xr.load_dataset(scratch / f"results/{name}.nc")
        bitwise(a, b)
    _build(built, narrow)
    assert _computed(built, "score_scale") == (0, 3400)
    assert _computed(built, "ruler_costs") == (0, 5 * 21)


@pytest.mark.pipeline
def test_a_large_grid_asks_for_every_core_and_is_announced_with_its_new_points(tmp_path):
    """A dry run: a grid of minutes of measured work is one job asking for every core given
    (Snakemake caps its threads at --cores), with no shard setting, announced before anything
    runs with the points it will compute."""
    big = {"score_scale": {**CONFIG["experiments"]["score_scale"], "seed": {"count": 50_000}}}
    run = _build(tmp_path, big, "-n", cores="2")
    text = run.stdout + run.stderr
    assert re.search(r"threads: 2\b", text), text[-3000:]
    assert "score_scale: 500,000 grid points, 500,000 to compute (0 computed before)" in text
    assert "on up to 2 cores" in text and not re.search(r"^(rule|localrule) shard", text, re.M)
    assert not re.search(r"threads: \d", _build(tmp_path, big, "-n", cores="1").stdout)


@pytest.mark.pipeline
def test_editing_the_science_recomputes_every_point(tmp_path):
    """A project copy: build, append a comment to the science module, rebuild: Snakemake reruns
    the experiment (an updated input) and the job computes every point again, its store
    context being new (the old one is removed); a second run has nothing to do."""
    from pathlib import Path

    project = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("workflow", "config", "src"):
        shutil.copytree(ROOT / part, project / part, ignore=skip)
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake", "results/soft_lookup.nc", "--cores", "1"]
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    subprocess.run(cmd, cwd=project, env=env, check=True, capture_output=True)
    computed, total = _computed(project, "soft_lookup")
    assert computed == total > 0
    with open(project / "src/attnmem/experiments/soft_lookup.py", "a", encoding="utf-8") as fh:
        fh.write("# an edit\n")
    subprocess.run(cmd, cwd=project, env=env, check=True, capture_output=True)
    assert _computed(project, "soft_lookup") == (total, total)
    assert len(list((project / "results/points/soft_lookup").iterdir())) == 1
    again = subprocess.run([*cmd, "-n"], cwd=project, env=env, capture_output=True, text=True)
    assert "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.pipeline
def test_on_a_cluster_a_large_grid_spreads_over_shard_jobs_with_the_same_cube(tmp_path):
    """What a cluster's Snakemake plans and runs (the remote mode its jobs parse the workflow
    in), in a project copy whose shards hold a hundredth of a second of estimated work: the
    grid is cut into shard jobs with no setting, gathered into the cube of a local build (bit
    for bit); widening its seeds adds one shard job, which computes only the new points."""
    from pathlib import Path

    project = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("workflow", "config", "src"):
        shutil.copytree(ROOT / part, project / part, ignore=skip)
    shards = project / "src/attnmem/shards.py"
    text = shards.read_text()
    assert "\nCLUSTER_SHARD_SECONDS = 240.0" in text
    shards.write_text(
        text.replace("\nCLUSTER_SHARD_SECONDS = 240.0", "\nCLUSTER_SHARD_SECONDS = 0.01")
    )
    # about 0.015 s estimated (the cost of a point priced by its d_k), so shards of 500 seeds
    block = {**SCORE, "d_k": [4, 8], "rows": 1000, "seed": {"count": 1000}}
    exe = Path(sys.executable).with_name("snakemake")
    env = {**os.environ, "PYTHONPATH": str(project / "src")}

    def remote(block, *extra):
        (project / "override.yaml").write_text(
            yaml.safe_dump({"experiments": {"score_scale": block}})
        )
        cmd = [str(exe) if exe.exists() else "snakemake", "results/score_scale.nc", "--cores", "2"]
        cmd += ["--configfile", "config/config.yaml", "override.yaml", "--mode", "remote", *extra]
        return subprocess.run(cmd, cwd=project, env=env, check=True, capture_output=True, text=True)

    remote(block)
    assert len(list((project / "results/shards/score_scale").glob("seed*.nc"))) == 2
    _build(tmp_path / "local", {"score_scale": block})
    assert not (tmp_path / "local/results/shards").exists()
    cluster = xr.load_dataset(project / "results/score_scale.nc")
    local = xr.load_dataset(tmp_path / "local/results/score_scale.nc")
    bitwise(cluster.drop_attrs(), local.drop_attrs())

    wide = {**block, "seed": {"count": 1100}}
    (project / "results/score_scale.nc").unlink()  # remote mode reruns nothing for a new config
    remote(wide)
    assert len(list((project / "results/shards/score_scale").glob("seed*.nc"))) == 3
    logs = sorted((project / "logs/shards/score_scale").glob("seed1000-*.log"))
    assert len(logs) == 1 and "computed 200 of 200 grid points" in logs[0].read_text()


def test_a_script_job_spreads_its_points_over_its_threads(tmp_path, monkeypatch):
    """The script job's entry point (attnmem.jobs.experiment_job) runs as many worker processes
    as Snakemake gives it threads, and writes the cube of one core; a grid of no keys (one
    point) is kept and reused like any other."""
    import json
    from types import SimpleNamespace

    from attnmem.cube import read_cube
    from attnmem.jobs import _THREAD_VARIABLES, experiment_job

    monkeypatch.chdir(tmp_path)
    for variable in _THREAD_VARIABLES:  # the job sets them to 1; restored after the test
        monkeypatch.setenv(variable, os.environ.get(variable, ""))
    block = {**CONFIG["experiments"]["random_key_memory"], "seed": {"count": 4}, "trials": 20}
    for name, blk, threads in (("random_key_memory", block, 2), ("unified_view", None, 2)):
        blk = blk or CONFIG["experiments"][name]
        snapshot = tmp_path / f"{name}.json"
        snapshot.write_text(json.dumps({"experiment": name, "block": blk, "seed": SEED}))
        for attempt in ("first", "again"):
            smk = SimpleNamespace(
                input=SimpleNamespace(config=str(snapshot)),
                output=[str(tmp_path / f"{name}.nc")],
                log=[str(tmp_path / f"{name}.{attempt}.log")],
                threads=threads,
            )
            experiment_job(smk)
        first = (tmp_path / f"{name}.first.log").read_text()
        workers = 2 if name == "random_key_memory" else 1  # at most one per point
        assert f", {workers} worker{'s' if workers > 1 else ''}\n" in first, first
        assert re.search(
            r"computed 0 of \d+ grid points", (tmp_path / f"{name}.again.log").read_text()
        )
        cube = read_cube(tmp_path / f"{name}.nc")
        bitwise(cube.drop_attrs(), reference(name, blk).drop_attrs())
