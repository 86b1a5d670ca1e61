"""Parameter grids: expansion of a config block, the product of its points, and seeding.

Every grid point gets its own ``numpy.random.Generator``, seeded from the global seed, the
experiment's name and the point's coordinates through a stable hash. A value therefore does not
depend on which other points are in the grid, in what order they run, or on how many cores.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping


def expand_values(value) -> list:
    """A grid entry as a list: a list stays, ``{first, last[, step]}`` and ``{count}`` expand."""
    if isinstance(value, Mapping):
        if "count" in value:
            return list(range(int(value["count"])))
        step = int(value.get("step", 1))
        return list(range(int(value["first"]), int(value["last"]) + 1, step))
    return list(value)


def expand_grid(block: Mapping, keys: tuple[str, ...]) -> dict[str, list]:
    """The grid of an experiment: its ``keys`` from the config block, each as a sorted list.

    Sorting (and dropping repeats) makes the cube's coordinates monotonic, so that widening
    a grid by adding values anywhere gives the same cube on the old points.
    """
    grid = {}
    for key in keys:
        values = [canonical(v) for v in expand_values(block[key])]
        grid[key] = sorted(set(values))
    return grid


def points(grid: Mapping[str, list]) -> Iterator[dict]:
    """Every combination of the grid's values, as dicts, in C order of the keys."""
    keys = list(grid)
    for combo in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, combo, strict=True))


def canonical(value):
    """A number in one spelling: 8.0 and 8 are the same grid value."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def point_key(experiment: str, point: Mapping) -> str:
    """A stable text form of (experiment, point), independent of key order."""
    items = {k: canonical(v) for k, v in sorted(point.items())}
    return json.dumps({"experiment": experiment, "point": items}, sort_keys=True)


def point_rng(global_seed: int, experiment: str, point: Mapping):
    """The generator for one grid point (sha256 of the point, never Python's ``hash``): a
    ``numpy.random.Generator`` (numpy is imported here, not at the top: the Snakefile imports
    this module to split grids into shards, and a run with nothing to do should stay light)."""
    import numpy as np

    digest = hashlib.sha256(point_key(experiment, point).encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([global_seed, *words])))


def block_hash(block: Mapping, global_seed: int) -> str:
    """Hash of a config block and the global seed, recorded in a cube's provenance."""
    text = json.dumps({"seed": global_seed, "block": block}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
