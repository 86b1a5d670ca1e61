"""Splitting an experiment's grid into shards, keyed by their content.

A shard is the block of one experiment with some grid dimensions (``by``) restricted to a part
of their values. Every grid point draws from its own generator, so a shard computes exactly the
values the whole grid would, and gathering the shards gives the same cube bit for bit.

No grid needs a shard setting: a job computes only the points that were never computed
(attnmem.points) and spreads them over the cores it is given. Shards are what spreads one grid
over several cluster jobs: on a cluster (the SLURM profile), a grid whose measured cost
(attnmem.costs) passes CLUSTER_SHARD_SECONDS is cut automatically into shards of about that
much work, along its seeds (or its longest grid key); locally it stays one job.

A block may still say ``shard: {by: seed, size: 50}`` (``by`` a grid key or a list of them); it
then always runs as shard jobs and a gather, locally too. A shard is named by what it computes,
not by where it sits in a list: a seed count or a range is cut at multiples of ``size`` (seeds
0-199, 200-399, ..., however the seeds are written), any other list of values gives one shard
per value, and the name ends in a hash of the shard's sub-block and the global seed. Raising a
seed count or inserting a value in a list therefore adds shards and leaves the others in place;
and since a shard job, like any job, computes only the points no job has computed, a renamed
shard (an automatic cut moves when its grid widens) costs its new points only.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping

from .grid import canonical, expand_values

CLUSTER_SHARD_SECONDS = 240.0  # on a cluster, a grid is cut into shards of about this much work
MAX_SHARDS = 200  # however large the grid


def science_block(block: Mapping) -> dict:
    """The block without its ``shard`` setting: how a grid is cut changes no value."""
    return {k: v for k, v in block.items() if k != "shard"}


def spec(block: Mapping, grid_keys) -> dict | None:
    """The block's own shard setting ({by: [...], size, explicit}), or None."""
    setting = block.get("shard")
    if setting is None:
        return None
    by = setting["by"] if isinstance(setting["by"], list) else [setting["by"]]
    unknown = [d for d in by if d not in grid_keys]
    if unknown:
        raise ValueError(
            f"shard.by names {unknown}, not grid keys of this experiment {list(grid_keys)}"
        )
    return {"by": by, "size": int(setting["size"]), "explicit": True}


def automatic(block: Mapping, grid_keys, work: float) -> dict | None:
    """The cut of a grid of ``work`` CPU seconds into shards of about CLUSTER_SHARD_SECONDS
    (about MAX_SHARDS at most): along its seeds, or else its grid key with the most values, in
    blocks of consecutive values; None when the grid is cheaper than one shard."""
    from .costs import value_count

    if work <= CLUSTER_SHARD_SECONDS:
        return None
    counts = {k: value_count(block[k]) for k in grid_keys}
    for dim in sorted(counts, key=lambda k: (k != "seed", -counts[k])):
        n = counts[dim]
        if n < 2:
            continue
        size = max(1, int(CLUSTER_SHARD_SECONDS / (work / n)), -(-n // MAX_SHARDS))
        return {"by": [dim], "size": _round(size), "blocks": True}
    return None


def _round(size: int) -> int:
    """``size`` rounded down to 1, 2 or 5 times a power of ten (shards named seed0-19999)."""
    power = 10 ** (len(str(size)) - 1)
    return max(m * power for m in (1, 2, 5) if m * power <= size)


def _groups(dim: str, raw, values: list, size: int, blocks: bool = False) -> list[list]:
    """Values cut into content-keyed groups: seeds, and any range ({first, last}), by
    value // size; any other list one value per shard (or, for an automatic cut, ``blocks``,
    runs of ``size`` consecutive values)."""
    if dim == "seed" or isinstance(raw, Mapping):
        out: dict[int, list] = {}
        for v in values:
            out.setdefault(v // size, []).append(v)
        return [out[k] for k in sorted(out)]
    if blocks:
        return [values[i : i + size] for i in range(0, len(values), size)]
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
        groups = _groups(dim, block[dim], values, setting["size"], setting.get("blocks", False))
        per_dim.append([(dim, g) for g in groups])
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


def shards_of(
    experiment: str, block: Mapping, grid_keys, global_seed: int, cluster_work=None
) -> dict[str, dict]:
    """The shards of a grid, {name: sub-block}, or {"all": block} when it is not cut: the
    block's own shard setting, or else, on a cluster (``cluster_work``: the grid's estimated
    CPU seconds), the automatic cut."""
    setting = spec(block, grid_keys)
    if setting is None and cluster_work is not None:
        setting = automatic(block, grid_keys, cluster_work)
    return _split(experiment, science_block(block), grid_keys, global_seed, setting)


def grid_keys(name: str) -> tuple[str, ...]:
    """The grid keys of experiment ``name``, as declared (read from the committed manifest,
    workflow/schemas/experiments.json, so that the Snakefile need not import the science)."""
    from .schema import load_manifest

    return tuple(load_manifest()[name]["grid"])
