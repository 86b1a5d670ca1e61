"""Sharded grids: the shards of a grid are keyed by content, gathering them gives the cube of
one run bit for bit, and widening a grid computes only the new shards. No grid is cut without
a setting, but on a cluster, where a large grid is cut by its measured cost."""

from __future__ import annotations

import re

import pytest
import xarray as xr
import yaml
from conftest import ROOT, snakemake

from attnmem.shards import CLUSTER_SHARD_SECONDS, MAX_SHARDS, shards_of

BLOCK = {"d_k": [4, 16], "rows": 50, "tokens": 4, "threshold": 0.99}


def names(block, keys=("d_k", "seed")):
    return set(shards_of("score_scale", block, keys, 0))


def test_no_grid_is_cut_without_a_setting_but_an_explicit_setting_always_cuts():
    assert names({**BLOCK, "seed": {"count": 10**6}}) == {"all"}
    one = names({**BLOCK, "seed": {"count": 30}, "shard": {"by": "seed", "size": 50}})
    assert len(one) == 1 and one != {"all"}, "an explicit shard setting always shards"


def test_on_a_cluster_a_large_grid_is_cut_by_its_measured_cost():
    """Shards of about CLUSTER_SHARD_SECONDS of work, along the seeds (content-keyed: raising
    the seed count adds shards), else along the longest grid key; a cheap grid stays whole."""

    def cut(block, work, keys=("d_k", "seed")):
        return shards_of("score_scale", block, keys, 0, cluster_work=work)

    block = {**BLOCK, "seed": {"count": 1000}}
    assert cut(block, CLUSTER_SHARD_SECONDS) == {"all": block}
    parts = cut(block, 10 * CLUSTER_SHARD_SECONDS)
    assert len(parts) == 10 and all(p["d_k"] == [4, 16] for p in parts.values())
    assert sorted(len(p["seed"]) for p in parts.values()) == [100] * 10
    wider = cut({**block, "seed": {"count": 1100}}, 11 * CLUSTER_SHARD_SECONDS)
    assert set(parts) < set(wider), "a widened seed count renamed the old shards"
    lists = cut({**BLOCK, "d_k": list(range(1, 41))}, 4 * CLUSTER_SHARD_SECONDS, ("d_k",))
    assert [len(p["d_k"]) for p in lists.values()] == [10] * 4
    huge = cut({**block, "seed": {"count": 10**5}}, 10**5 * CLUSTER_SHARD_SECONDS)
    assert len(huge) == MAX_SHARDS


def test_raising_a_seed_count_adds_shards_and_keeps_the_others():
    small = names({**BLOCK, "seed": {"count": 30}, "shard": {"by": "seed", "size": 10}})
    large = names({**BLOCK, "seed": {"count": 45}, "shard": {"by": "seed", "size": 10}})
    assert len(small) == 3 and small < large
    assert sorted(n.split(".")[0] for n in large - small) == ["seed30-39", "seed40-44"]


def test_inserting_a_value_in_the_middle_of_a_list_adds_one_shard():
    shard = {"by": ["d_k"], "size": 1}
    before = names({**BLOCK, "d_k": [4, 64], "seed": {"count": 5}, "shard": shard})
    after = names({**BLOCK, "d_k": [4, 16, 64], "seed": {"count": 5}, "shard": shard})
    assert len(after - before) == 1 and before < after


def test_a_changed_parameter_renames_every_shard():
    shard = {"by": "seed", "size": 10}
    a = names({**BLOCK, "seed": {"count": 20}, "shard": shard})
    b = names({**BLOCK, "rows": 51, "seed": {"count": 20}, "shard": shard})
    assert not a & b


def test_shard_by_must_name_a_grid_key():
    with pytest.raises(ValueError, match="not grid keys"):
        names({**BLOCK, "seed": {"count": 20}, "shard": {"by": "rows", "size": 1}})


def _build(workdir, block, *extra):
    workdir.mkdir(parents=True, exist_ok=True)
    override = workdir / "override.yaml"
    override.write_text(yaml.safe_dump({"experiments": {"score_scale": block}}))
    return snakemake(
        "results/score_scale.nc",
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *extra,
        "--configfile",
        str(ROOT / "config/config.yaml"),
        str(override),
    )


@pytest.mark.pipeline
def test_shards_gather_to_the_unsharded_cube_and_widening_runs_only_new_shards(tmp_path):
    sharded, whole = tmp_path / "sharded", tmp_path / "whole"
    block = {**BLOCK, "seed": {"count": 30}, "shard": {"by": "seed", "size": 10}}
    _build(sharded, block)
    _build(whole, {k: v for k, v in block.items() if k != "shard"})  # one job, no gather
    assert len(list((sharded / "results/shards/score_scale").glob("*.nc"))) == 3
    assert not (whole / "results/shards").exists(), "the whole grid was sharded"
    a = xr.load_dataset(sharded / "results/score_scale.nc")
    b = xr.load_dataset(whole / "results/score_scale.nc")
    assert a.identical(b), "gathered shards differ from one run of the whole grid"

    wide = {**block, "seed": {"count": 45}}
    plan = _build(sharded, wide, "-n", "--quiet", "rules").stdout
    assert set(re.findall(r"^shard\s+(\d+)", plan, re.M)) == {"2"}, plan
    _build(sharded, wide)
    c = xr.load_dataset(sharded / "results/score_scale.nc")
    assert c.sizes["seed"] == 45
    assert c.sel(seed=a.seed).drop_attrs().identical(a.drop_attrs()), "old seeds changed"

    back = _build(sharded, block, "-n", "--quiet", "rules").stdout
    assert not re.findall(r"^shard\s", back, re.M), f"narrowing recomputes shards:\n{back}"
    assert re.findall(r"^score_scale_gather\s+1", back, re.M), back


def test_the_snakefile_reads_the_same_grid_keys_as_the_science():
    """The Snakefile cuts grids without importing the science: the keys it takes for grid
    dimensions (from the generated manifest) must be the experiments' declared grids."""
    from attnmem.config import load_yaml
    from attnmem.experiments import registry
    from attnmem.shards import grid_keys

    config = load_yaml(ROOT / "config/config.yaml")
    for name, exp in registry().items():
        assert grid_keys(name) == exp.grid, name
        assert set(exp.grid) <= set(config["experiments"][name]), name
