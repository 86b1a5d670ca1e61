"""Splitting an experiment's grid into shards, keyed by their content.

A shard is the block of one experiment with some grid dimensions (``by``) restricted to a part
of their values. Every grid point draws from its own generator, so a shard computes exactly the
values the whole grid would, and gathering the shards gives the same cube bit for bit.

A shard is named by what it computes, not by where it sits in a list: a seed count or a range
is cut at multiples of ``size`` (seeds 0-199, 200-399, ..., however the seeds are written), any
other list of values gives one shard per value, and the name ends in a hash of the shard's
sub-block and the global seed.
Raising a seed count or inserting a value in the middle of a list therefore adds shards and
leaves the names, and so the files, of the others unchanged: Snakemake computes only the new
ones, and narrowing a grid back finds the old shards still there.

A block may say ``shard: {by: seed, size: 50}`` (``by`` a grid key or a list of them); it then
always runs as shard jobs and a gather, even while its grid fits in one shard, so that every
later widening reuses what was computed. Without it, an experiment with a ``seed`` dimension
shards by seed in blocks of ``DEFAULT_SIZE`` once its grid is larger than one block; while it
fits in one it runs as one job (no gather to pay for small grids), and the first widening past
the block size computes that first block once more.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping

from .grid import canonical, expand_values

DEFAULT_SIZE = 200  # seeds per shard: above every seed count of the default config


def science_block(block: Mapping) -> dict:
    """The block without its ``shard`` setting: how a grid is cut changes no value."""
    return {k: v for k, v in block.items() if k != "shard"}


def spec(block: Mapping, grid_keys) -> dict | None:
    """The block's shard setting ({by: [...], size}), the default, or None (no sharding)."""
    setting = block.get("shard")
    if setting is None:
        return {"by": ["seed"], "size": DEFAULT_SIZE} if "seed" in grid_keys else None
    by = setting["by"] if isinstance(setting["by"], list) else [setting["by"]]
    unknown = [d for d in by if d not in grid_keys]
    if unknown:
        raise ValueError(
            f"shard.by names {unknown}, not grid keys of this experiment {list(grid_keys)}"
        )
    return {"by": by, "size": int(setting["size"]), "explicit": True}


def _groups(dim: str, raw, values: list, size: int) -> list[list]:
    """Values cut into content-keyed groups: seeds, and any range ({first, last}), by
    value // size; any other list one value per shard."""
    if dim == "seed" or isinstance(raw, Mapping):
        out: dict[int, list] = {}
        for v in values:
            out.setdefault(v // size, []).append(v)
        return [out[k] for k in sorted(out)]
    return [[v] for v in values]


def _label(dim: str, values: list) -> str:
    if len(values) == 1:
        return f"{dim}{values[0]}"
    return f"{dim}{values[0]}-{values[-1]}"


def _split(experiment, block, grid_keys, global_seed, setting) -> dict[str, dict]:
    """{name: sub-block}; one entry named ``all`` when the grid is not cut."""
    if setting is None:
        return {"all": dict(block)}
    per_dim = []
    for dim in setting["by"]:
        values = sorted({canonical(v) for v in expand_values(block[dim])})
        per_dim.append([(dim, g) for g in _groups(dim, block[dim], values, setting["size"])])
    if all(len(groups) == 1 for groups in per_dim) and not setting.get("explicit"):
        return {"all": dict(block)}
    shards = {}
    for combo in itertools.product(*per_dim):
        sub = dict(block)
        for dim, values in combo:
            sub[dim] = values
        text = json.dumps(
            {"experiment": experiment, "seed": global_seed, "block": sub}, sort_keys=True
        )
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        name = "_".join(_label(dim, values) for dim, values in combo) + f".{digest}"
        shards[name] = sub
    return shards


def shards_of(experiment: str, block: Mapping, grid_keys, global_seed: int) -> dict[str, dict]:
    """``split`` with the block's own shard setting (or the default)."""
    return _split(experiment, science_block(block), grid_keys, global_seed, spec(block, grid_keys))


def grid_keys(name: str) -> tuple[str, ...]:
    """The grid keys of experiment ``name``, as declared (read from the committed manifest,
    workflow/schemas/experiments.json, so that the Snakefile need not import the science)."""
    from .schema import load_manifest

    return tuple(load_manifest()[name]["grid"])
