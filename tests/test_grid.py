"""Grids and seeding: a value depends only on its own grid point, never on the rest of the grid,
the order of the jobs or the number of cores."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import ROOT, snakemake

from attnmem.config import load_yaml
from attnmem.cube import read_cube, run_experiment
from attnmem.experiments import registry
from attnmem.grid import expand_grid, expand_values, point_rng

DEFAULT = load_yaml(ROOT / "config" / "config.yaml")
EXPERIMENTS = registry()


def test_expand_values_forms():
    assert expand_values([3, 1]) == [3, 1]
    assert expand_values({"first": 2, "last": 5}) == [2, 3, 4, 5]
    assert expand_values({"first": 0, "last": 6, "step": 3}) == [0, 3, 6]
    assert expand_values({"count": 3}) == [0, 1, 2]
    assert expand_grid({"d": [8.0, 2, 8]}, ("d",)) == {"d": [2, 8]}


def test_point_rng_is_stable_and_distinct():
    a = point_rng(7, "exp", {"d": 4, "seed": 0}).standard_normal(3)
    b = point_rng(7, "exp", {"seed": 0, "d": 4.0}).standard_normal(3)
    c = point_rng(7, "exp", {"d": 4, "seed": 1}).standard_normal(3)
    d = point_rng(8, "exp", {"d": 4, "seed": 0}).standard_normal(3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c) and not np.array_equal(a, d)


SHORT_STEPS = 10  # training steps in these tests: the properties hold at any length


def small_block(name: str, keep: int) -> dict:
    """The default block with every grid cut to its first ``keep`` values, and a training run
    (a ``steps`` parameter) cut to a few steps, evaluated at its end."""
    exp = EXPERIMENTS[name]
    block = copy.deepcopy(DEFAULT["experiments"][name])
    for key in exp.grid:
        values = expand_values(block[key])
        block[key] = values[:keep] if key != "seed" else values[: max(keep, 2)]
    if "steps" in exp.params:
        block["steps"] = min(block["steps"], SHORT_STEPS)
        if "eval_every" in exp.params:
            block["eval_every"] = min(block["eval_every"], block["steps"])
    return block


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_widening_a_grid_keeps_old_values(name):
    narrow = run_experiment(EXPERIMENTS[name], small_block(name, 1), DEFAULT["seed"])
    wide = run_experiment(EXPERIMENTS[name], small_block(name, 2), DEFAULT["seed"])
    # Every coordinate of the narrow cube, grid and extra dims alike (an extra dim such as a
    # sentence position grows when a wider grid holds longer sentences; old values stay).
    common = wide.sel({dim: narrow[dim].values for dim in narrow.dims})
    xr.testing.assert_identical(narrow.drop_attrs(), common.drop_attrs())


# Cores change only which jobs run side by side (every job is one thread): a sample of seeded
# experiments from different topics shows it as well as all 71, at a tenth of the test's time.
CORES_SAMPLE = sorted(
    {e.module: n for n, e in sorted(EXPERIMENTS.items()) if e.wants_rng}.values()
)[:7]  # six that run in Snakemake's process and one that trains (icl_trained) in its own


@pytest.mark.pipeline
def keep_the_figure_values(config: dict, narrowed) -> dict:
    """The narrowed blocks with the grid values the figure settings pick added back (figure
    settings are checked in every run, one that asks only for cubes too)."""
    from attnmem.figures import catalog
    from attnmem.grid import canonical, expand_values

    for module, names in catalog.module_settings(catalog.scan()).items():
        for name, targets in names.items():
            value = config["figures"][module][name]
            for cube, dim in targets:
                block = config["experiments"][cube]
                if cube not in narrowed or not isinstance(block.get(dim), list):
                    continue
                held = {canonical(v) for v in expand_values(block[dim])}
                for v in value if isinstance(value, list) else [value]:
                    if canonical(v) not in held:
                        block[dim].append(v)
                        held.add(canonical(v))
    return config


def test_one_and_two_cores_give_identical_cubes(tmp_path):
    config = copy.deepcopy(DEFAULT)
    for name in CORES_SAMPLE:
        config["experiments"][name] = small_block(name, 2)
    keep_the_figure_values(config, CORES_SAMPLE)
    targets = [f"results/{name}.nc" for name in CORES_SAMPLE]
    runs = {}
    for cores in ("1", "2"):
        work = tmp_path / f"cores{cores}"
        work.mkdir()
        (work / "config.yaml").write_text(yaml.safe_dump(config))
        snakemake(
            "--cores",
            cores,
            "--configfile",
            str(work / "config.yaml"),
            "--directory",
            str(work),
            *targets,
        )
        runs[cores] = {n: read_cube(work / f"results/{n}.nc") for n in CORES_SAMPLE}
    for name in CORES_SAMPLE:
        xr.testing.assert_identical(runs["1"][name].drop_attrs(), runs["2"][name].drop_attrs())


def test_static_sources_name_every_experiment_and_its_module():
    import inspect

    from attnmem.sources import experiment_sources

    static = experiment_sources()
    assert sorted(static) == sorted(EXPERIMENTS)
    for name, exp in EXPERIMENTS.items():
        module_file = inspect.getsourcefile(exp.func)
        assert module_file in static[name], name
        # every experiments module the defining module uses is an input too
        module = inspect.getmodule(exp.func)
        for value in vars(module).values():
            owner = value if inspect.ismodule(value) else inspect.getmodule(value)
            if owner is not None and owner.__name__.startswith("attnmem.experiments."):
                assert inspect.getsourcefile(owner) in static[name], (name, owner.__name__)


def test_one_experiment_is_found_without_importing_the_others():
    from attnmem.experiments import experiment

    for name, exp in EXPERIMENTS.items():
        assert experiment(name) is exp, name
    with pytest.raises(KeyError):
        experiment("no_such_experiment")
