"""Experiments cheaper than a process start run in a thread of Snakemake itself (a `run:` job,
attnmem.costs.in_process). Which ones do, and that their cubes equal those of a separate
process holding BLAS to one thread, as a script job does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr
from conftest import ROOT

from attnmem.config import load_yaml
from attnmem.costs import IN_PROCESS_SECONDS, in_process, load_costs
from attnmem.schema import load_manifest

DEFAULT = load_yaml(ROOT / "config" / "config.yaml")
MANIFEST = load_manifest(ROOT / "workflow/schemas/experiments.json")
COSTS = load_costs(ROOT / "workflow/schemas/costs.json")
THREADED = sorted(
    name for name, block in DEFAULT["experiments"].items()
    if in_process(name, block, MANIFEST, COSTS)
)  # fmt: skip


def test_a_cheap_grid_runs_in_process_until_it_is_widened_past_a_start_up():
    cost = {"toy": {"seconds_per_point": 0.01}}
    manifest = {"toy": {"grid": ["seed"]}}
    assert in_process("toy", {"seed": {"count": 10}}, manifest, cost)  # 0.1 s of work
    widened = int(IN_PROCESS_SECONDS / 0.01) + 1
    assert not in_process("toy", {"seed": {"count": widened}}, manifest, cost)
    assert not in_process("never_measured", {"seed": {"count": 1}}, manifest, cost)


def test_most_default_experiments_run_in_process_and_the_long_ones_do_not():
    assert len(THREADED) >= 40, THREADED
    assert "induction_training" not in THREADED and "score_saturation" not in THREADED


def _run_apart(names: list[str], out: Path, blas_threads: int) -> None:
    """The experiments ``names`` run in one fresh Python, BLAS held to ``blas_threads``."""
    program = (
        "import json, sys\n"
        "from attnmem.jobs import run_experiment\n"
        "from attnmem.config import load_yaml\n"
        "config = load_yaml(sys.argv[1])\n"
        "for name in json.loads(sys.argv[2]):\n"
        "    run_experiment(name, config['experiments'][name], config['seed'],\n"
        "                   f'{sys.argv[3]}/{name}.nc')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = str(blas_threads)
    out.mkdir()
    config = str(ROOT / "config" / "config.yaml")
    subprocess.run(
        [sys.executable, "-c", program, config, json.dumps(names), str(out)],
        check=True, capture_output=True, env=env,
    )  # fmt: skip


# The in-process experiments whose cubes change when BLAS may use two threads (every one of the
# 66 run with OPENBLAS_NUM_THREADS=2 on this 2-core machine, 2026-12-02): the ones on which an
# in-process job that failed to hold BLAS to one thread would show.
BLAS_SENSITIVE = ["capacity_checks", "pointer_gradient"]


@pytest.mark.pipeline
def test_in_process_cubes_equal_those_of_a_separate_process(pipeline, tmp_path):
    """The pipeline's in-process cubes of the BLAS-sensitive experiments equal the same
    experiments run in a fresh Python with one BLAS thread (what Snakemake gives a script job),
    and differ from a run with two: the comparison can fail."""
    assert set(BLAS_SENSITIVE) <= set(THREADED), "a sample experiment no longer runs in-process"
    _run_apart(BLAS_SENSITIVE, tmp_path / "one", 1)
    _run_apart(BLAS_SENSITIVE, tmp_path / "two", 2)
    differs = []
    for name in BLAS_SENSITIVE:
        with (
            xr.open_dataset(pipeline / "results" / f"{name}.nc") as ours,
            xr.open_dataset(tmp_path / "one" / f"{name}.nc") as one,
            xr.open_dataset(tmp_path / "two" / f"{name}.nc") as two,
        ):
            xr.testing.assert_identical(ours.drop_attrs(), one.drop_attrs())
            if not ours.drop_attrs().identical(two.drop_attrs()):
                differs.append(name)
    assert differs, "two BLAS threads change no sample cube: the sample cannot show a failure"


def test_training_never_shares_a_process():
    """torch's generator is process-wide: every experiment whose module trains is declared
    own_process, and training refuses to start outside a main thread."""
    import threading

    import numpy as np

    from attnmem.experiments import registry
    from attnmem.experiments._torch import seeded_torch

    science = ROOT / "src/attnmem/experiments"
    for name, exp in registry().items():
        if "seeded_torch(" in (science / f"{exp.module}.py").read_text(encoding="utf-8"):
            assert exp.own_process, f"{name} trains with torch but may run in a thread"
    errors = []

    def train():
        try:
            seeded_torch(np.random.default_rng(0))
        except RuntimeError as err:
            errors.append(str(err))

    worker = threading.Thread(target=train)
    worker.start()
    worker.join()
    assert errors and "main thread" in errors[0]


def test_in_process_jobs_run_one_at_a_time(tmp_path, monkeypatch):
    """Two in-process jobs started together never compute at the same time (HDF5, which
    writes the cubes, is not thread-safe: two at once crashed Snakemake), and each job's log
    holds its own records only."""
    import threading
    import time

    from attnmem import jobs

    inside, overlaps = [], []

    def fake_run(name, block, seed, out, *store, **_):
        inside.append(name)
        if len(inside) > 1:
            overlaps.append(tuple(inside))
        jobs.log.info("computing %s", name)
        time.sleep(0.2)
        inside.remove(name)

    monkeypatch.setattr(jobs, "run_experiment", fake_run)
    threads = []
    for name in ("first", "second"):
        snapshot = tmp_path / f"{name}.json"
        snapshot.write_text(json.dumps({"experiment": name, "block": {}, "seed": 0}))
        args = (str(snapshot), str(tmp_path / f"{name}.nc"), str(tmp_path / f"{name}.log"))
        threads.append(threading.Thread(target=jobs.experiment_in_thread, args=args))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not overlaps, overlaps
    for name, other in (("first", "second"), ("second", "first")):
        text = (tmp_path / f"{name}.log").read_text()
        assert f"computing {name}" in text and f"computing {other}" not in text


def test_blas_loaded_after_the_limit_runs_one_thread_too():
    """scipy brings its own OpenBLAS, loaded at the first import of scipy.optimize, possibly
    after the first in-process job set the limit: it must run one thread as well (with two, an
    SLSQP result moved in its ninth digit and a cube differed from a script job's)."""
    program = (
        "import numpy\n"
        "from attnmem.jobs import _one_blas_thread\n"
        "_one_blas_thread()\n"
        "import scipy.optimize\n"
        "from threadpoolctl import threadpool_info\n"
        "print(sorted({i['num_threads'] for i in threadpool_info()}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env["PYTHONPATH"] = str(ROOT / "src")
    out = subprocess.run(
        [sys.executable, "-c", program], check=True, capture_output=True, text=True, env=env
    ).stdout
    assert out.strip() == "[1]", out
