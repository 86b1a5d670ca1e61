"""What a grid will cost before it runs: points, CPU time and memory, against the user's limits.

Each experiment's cost per grid point was measured on a build of the default config
(``benchmarks/costs.py`` writes workflow/schemas/costs.json from Snakemake's benchmark files
and the cubes). A grid is estimated as its points times that cost, scaled by the parameters
each point's work is proportional to (declared ``work=True``, such as training steps: the cost
file records the values it was measured at). Memory is the job's base, the cube's values
held a few times, and the peak a grid point holds at once (measured on one point, with
tracemalloc), scaled by the parameters declared ``memory=True`` (rows, tokens). One whose
estimate passes the
limits (``limits: {hours, memory_gb}`` in the config, defaults below) is refused before any job
runs, with the estimate, so that a typo like ``seed: {count: 100000000}`` ends in one readable
line, not in a ``MemoryError`` after hours. Counting never expands a grid (a range of 10^8
values costs nothing to count).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

DEFAULT_LIMITS = {"hours": 2.0, "memory_gb": 8.0}  # per experiment; raise them in the config
START_SECONDS = 1.0  # a job's start-up, not part of its per-point cost
IN_PROCESS_SECONDS = 2.5  # grids under this much work run in a thread of Snakemake
KEPT_COPIES = 3  # a cube's values are held about three times while they are stacked and written


def value_count(value) -> int:
    """How many values a grid entry has, without expanding it."""
    if isinstance(value, Mapping):
        if "count" in value:
            return max(int(value["count"]), 0)
        first, last, step = int(value["first"]), int(value["last"]), int(value.get("step", 1))
        return max((last - first) // step + 1, 0)
    return len(value)


def point_count(block: Mapping, keys) -> int:
    """Grid points of a block (the product of its grid keys' value counts)."""
    n = 1
    for key in keys:
        n *= value_count(block[key])
    return n


def load_costs(path: str | Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def work_scale(block: Mapping, work, cost: Mapping, grid=(), peak: bool = False) -> float:
    """How much more each point works (or holds) than when its cost was measured: the product,
    over the keys ``work`` (names, or name -> power), of the block's size over the measured one
    (1 where none was recorded). A key's size is its value to the declared power; a list
    parameter's, the sum over its items; a grid key's (``grid``), the mean over its values, or
    with ``peak`` (memory: the largest point) the largest."""
    powers = work if isinstance(work, Mapping) else dict.fromkeys(work, 1.0)
    scale = 1.0
    for key, power in powers.items():
        measured = (cost.get("at") or {}).get(key)
        if measured is not None and key in block:
            gridded = key in grid
            mine = _size(block[key], power, gridded, peak)
            then = _size(measured, power, gridded, peak)
            if then > 0:
                scale *= mine / then
    return scale


SAMPLED = 10_001  # a longer range is priced on this many evenly spaced values, never expanded


def _size(value, power: float = 1.0, gridded: bool = False, peak: bool = False) -> float:
    """A work or memory key's size (see ``work_scale``)."""
    if isinstance(value, Mapping):  # a range {first, last[, step]} (a seed count is no size)
        first, last = int(value.get("first", 0)), int(value.get("last", value.get("count", 1)))
        step, n = int(value.get("step", 1)), value_count(value)
        if n <= SAMPLED:
            items = [float(first + i * step) for i in range(n)]
        else:
            items = [first + (last - first) * i / (SAMPLED - 1) for i in range(SAMPLED)]
    elif isinstance(value, list):
        items = [float(v) for v in value]
    else:
        return float(value) ** power
    terms = [abs(v) ** power for v in items] or [0.0]
    if gridded:
        return max(terms) if peak else sum(terms) / len(terms)
    return max(terms) if peak else sum(terms)


def _shown(value) -> str:
    return f"{value:,}" if not isinstance(value, (list, Mapping)) else str(value)


def estimate(
    points: int, cost: Mapping, scale: float = 1.0, memory_scale: float = 1.0
) -> tuple[float, float]:
    """(CPU seconds, peak MB) of ``points`` grid points at a measured per-point ``cost``, each
    point working ``scale`` times as long as measured and holding ``memory_scale`` times the
    memory it held."""
    seconds = START_SECONDS + points * cost["seconds_per_point"] * scale
    mb = cost["base_mb"] + KEPT_COPIES * points * cost["bytes_per_point"] / 1e6
    return seconds, mb + cost.get("point_mb", 0.0) * memory_scale


def work_seconds(name: str, block: Mapping, manifest: Mapping, costs: Mapping) -> float | None:
    """Estimated CPU seconds of an experiment's grid points, start-up left out (None when its
    cost was never measured)."""
    if name not in costs or name not in manifest:
        return None
    points = point_count(block, manifest[name]["grid"])
    grid = manifest[name]["grid"]
    scale = work_scale(block, manifest[name].get("work", ()), costs[name], grid)
    return points * costs[name]["seconds_per_point"] * scale


def in_process(name: str, block: Mapping, manifest: Mapping, costs: Mapping) -> bool:
    """Whether an experiment's grid takes under IN_PROCESS_SECONDS of work: such a job runs in
    a thread of Snakemake itself, where Python, numpy and xarray are loaded once, instead of
    paying a second or more to start a script (START_SECONDS). These jobs run one at a time
    (the in_process resource), so the limit keeps their queue shorter than the script jobs'
    (measured on 2 cores: 2.5 s saved 18 job-seconds against 1 s). A grid widened past that
    runs as a script job again; an experiment never measured, or declared ``own_process`` (it
    sets process-wide state, as torch's generator), is a script job."""
    if manifest.get(name, {}).get("own_process", False):
        return False
    seconds = work_seconds(name, block, manifest, costs)
    return seconds is not None and seconds < IN_PROCESS_SECONDS


def over_limits(config: Mapping, manifest: Mapping, costs: Mapping, to_compute=None) -> list[str]:
    """One line per experiment whose estimate passes the limits (empty when all fit).

    ``to_compute(name, block)``: how many of the grid's points a job would compute, the others
    having been computed before (attnmem.points.to_compute); asked only about a grid whose
    whole estimate passes the limits. The time is then that of those points; the memory stays
    that of the whole cube, which the job assembles."""
    limits = {**DEFAULT_LIMITS, **(config.get("limits") or {})}
    problems = []
    for name, block in config["experiments"].items():
        if name not in manifest or name not in costs:
            continue
        grid = manifest[name]["grid"]
        points = point_count(block, grid)
        work = manifest[name].get("work", ())
        memory = manifest[name].get("memory", ())
        scale = work_scale(block, work, costs[name], grid)
        memory_scale = work_scale(block, memory, costs[name], grid, peak=True)
        seconds, mb = estimate(points, costs[name], scale, memory_scale)
        new = points
        if seconds > limits["hours"] * 3600 and to_compute is not None:
            new = to_compute(name, block)
            seconds = estimate(new, costs[name], scale, memory_scale)[0]
        if seconds > limits["hours"] * 3600 or mb > limits["memory_gb"] * 1024:
            at = costs[name].get("at") or {}
            measured = ", ".join(f"{k} = {_shown(at[k])}" for k in work if k in at)
            per_point = f"{costs[name]['seconds_per_point']:.3g} s per point" + (
                f" at {measured}, {scale:,.4g} times that here" if measured else ""
            )
            held = ", ".join(f"{k} = {_shown(at[k])}" for k in memory if k in at)
            if held and "point_mb" in costs[name]:
                per_point += (
                    f", {costs[name]['point_mb']:.3g} MB held by a point at {held}, "
                    f"{memory_scale:,.4g} times that here"
                )
            kept = f" ({new:,} of them not computed yet)" if new != points else ""
            problems.append(
                f"experiments.{name}: {points:,} grid points{kept} would take about "
                f"{_duration(seconds)} of CPU and {mb / 1024:,.1f} GB of memory (measured "
                f"{per_point}); the limits are "
                f"{limits['hours']:g} h and {limits['memory_gb']:g} GB per experiment: narrow "
                f"the grid, or raise limits.hours / limits.memory_gb in the config"
            )
    return problems


def _duration(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:,.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:,.1f} h"
    return f"{seconds / 86400:,.0f} days"
