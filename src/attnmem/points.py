"""Computed grid points, kept by their content: a job computes only the points no job has
computed before, and assembles its cube from the kept ones.

Every grid point draws from its own generator (attnmem.grid), so a point's values depend only
on the point, the experiment's parameters (the block's keys that are not grid keys), the global
seed, the code (the science's modules and the plumbing: ``attnmem.sources.science_files``) and
the numerical libraries. Those, but the point, make a *context*; a job keeps its points under

    results/points/<experiment>/<context hash>/<chunk>.npz

(``context.json`` beside them says what the hash covers). A chunk holds some points of one
context: each point's grid coordinates and its outputs, unpadded shapes included. A job reads
the chunks of its context, computes the grid points none of them holds (in worker processes
when Snakemake gives it more than one thread), writes those as new chunks, and assembles the
cube from the chunks: widening a grid (more seeds, a value added to a list, a longer range)
computes only the new points, and narrowing it back computes nothing. A change to the
science, a parameter, the global seed, the plumbing or a library version is a new context,
where every point is computed again; a job removes its experiment's contexts of other code or
libraries, which can no longer be used.

Assembling from chunks gives the cube ``attnmem.cube.run_points`` computes in one loop, bit for
bit (the values are stored as computed, in float64; ragged outputs are padded with NaN to the
largest shape over the grid, as there). ``tests/test_points.py`` checks it.

Chunks are written atomically (a temporary file, then a rename) and named by the points they
hold: a killed job keeps the chunks it finished (a worker writes one every CHUNK_SECONDS), and
two jobs computing the same points write the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from .grid import expand_grid
from .logs import log, log_progress
from .sources import imported_libraries, installed_versions, science_files

STORE = Path("results/points")  # relative to the working directory of the jobs
CHUNK_SECONDS = 20.0  # a worker writes what it computed at least this often
PROGRESS_SECONDS = 5.0  # and logs its progress this often
TASKS_PER_WORKER = 4  # the new points are dealt into this many tasks per worker (balance)
EXACT_COUNT_POINTS = 10**6  # grids larger than this are not expanded to count stored points
WORKER_SECONDS = 15.0  # a script job asks for one thread (a worker process) per this much work


# ----------------------------------------------------------------------------- contexts


@lru_cache(maxsize=256)
def code_hash(name: str) -> str:
    """SHA-256 of the code an experiment's values depend on: its science's modules and the
    plumbing (attnmem.sources.science_files), each named by its path inside the package
    (``experiments/soft_lookup.py``), so that a copy of the project elsewhere has the same."""
    digest = hashlib.sha256()
    for label, path in sorted((_inside_package(p), p) for p in science_files(name)):
        digest.update(label.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


def _inside_package(path) -> str:
    parts = Path(path).parts
    if "attnmem" not in parts:
        return Path(path).name
    last = len(parts) - 1 - parts[::-1].index("attnmem")
    return "/".join(parts[last + 1 :])


@lru_cache(maxsize=256)
def library_versions(name: str) -> dict[str, str | None]:
    """The installed versions of the libraries an experiment's points may depend on (None
    where absent): numpy, which holds every value, and every library its science imports
    (attnmem.sources.imported_libraries), read from the packages' metadata without importing
    them."""
    return installed_versions(sorted({"numpy", *imported_libraries(name)}, key=str.lower))


def parameters(block: Mapping, grid_keys: Sequence[str]) -> dict:
    """The block's keys that are not grid keys (its parameters), without the ``shard``
    setting, which changes no value."""
    return {k: v for k, v in block.items() if k not in grid_keys and k != "shard"}


def context(name: str, block: Mapping, grid_keys: Sequence[str], global_seed: int) -> dict:
    """Everything but the grid point that a point's values depend on."""
    return {
        "experiment": name,
        "params": parameters(block, grid_keys),
        "seed": int(global_seed),
        "code": code_hash(name),
        "libraries": library_versions(name),
    }


def context_dir(root: str | Path, ctx: Mapping) -> Path:
    """``<root>/<experiment>/<16 hex digits of the context's hash>``."""
    text = json.dumps(ctx, sort_keys=True, default=str)
    return Path(root) / ctx["experiment"] / hashlib.sha256(text.encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------- chunks


def chunk_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.npz")) if directory.is_dir() else []


def _column(values: list):
    """One grid key's coordinates of some points as an array (numbers or text)."""
    import numpy as np

    return np.asarray(values)


def write_chunk(directory: Path, exp, grid_keys, points: list[dict], values: list) -> Path:
    """Write computed points (their coordinates and each output as returned, in float64) as one
    chunk file, atomically, named by the points it holds."""
    import numpy as np

    from .cube import _stack_padded

    arrays = {f"coord:{k}": _column([p[k] for p in points]) for k in grid_keys}
    for out in exp.outputs:
        got = [np.asarray(v[out.name], dtype=float) for v in values]
        arrays[f"data:{out.name}"] = _stack_padded(got, len(out.dims))
        if out.dims:
            shapes = np.array([a.shape for a in got], dtype=np.int64)
            arrays[f"shape:{out.name}"] = shapes.reshape(len(got), len(out.dims))
    key = hashlib.sha256(
        json.dumps([[p[k] for k in grid_keys] for p in points], default=str).encode()
    ).hexdigest()[:16]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{len(points)}p-{key}.npz"
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".npz.tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # readable like any output (mkstemp makes 0600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _locate(grid: Mapping[str, list], columns: Mapping):
    """Where each point of a chunk sits in ``grid``: (flat index into the grid, for the points
    of the chunk that are in it; their positions in the chunk)."""
    import numpy as np

    n = len(next(iter(columns.values()))) if columns else 1
    inside = np.ones(n, dtype=bool)
    flat = np.zeros(n, dtype=np.int64)
    for key, values in grid.items():
        axis = np.asarray(values)
        column = columns[key]
        if axis.dtype.kind in "US" and column.dtype.kind not in "US":
            inside[:] = False  # text coordinates against numbers: no point matches
            continue
        if column.dtype.kind in "US" and axis.dtype.kind not in "US":
            inside[:] = False
            continue
        pos = np.searchsorted(axis, column)
        found = pos < len(axis)
        found[found] = axis[pos[found]] == column[found]
        inside &= found
        flat = flat * len(axis) + np.where(found, pos, 0)
    where = np.nonzero(inside)[0]
    return flat[where], where


def stored(directory: Path, grid: Mapping[str, list]):
    """The chunks of a context that hold points of ``grid``: a list of (path, flat grid
    indices, positions in the chunk), and a flat boolean mask of the grid's stored points."""
    import numpy as np

    size = 1
    for values in grid.values():
        size *= len(values)
    mask = np.zeros(size, dtype=bool)
    found = []
    for path in chunk_files(directory):
        with np.load(path, allow_pickle=False) as z:
            columns = {k: z[f"coord:{k}"] for k in grid}
        flat, where = _locate(grid, columns)
        if len(flat):
            found.append((path, flat, where))
            mask[flat] = True
    return found, mask


def assemble(exp, grid: Mapping[str, list], params: Mapping, directory: Path):
    """The Dataset of ``grid`` from the chunks of its context (every point must be there), as
    attnmem.cube.run_points would compute it."""
    import numpy as np

    from .cube import labelled

    sources, mask = stored(directory, grid)
    if not mask.all():
        raise RuntimeError(
            f"{exp.name}: {int((~mask).sum())} grid points are missing from {directory}"
        )
    size = len(mask)
    loaded = []
    for path, flat, where in sources:
        with np.load(path, allow_pickle=False) as z:
            loaded.append((flat, {k: z[k][where] for k in z.files if not k.startswith("coord:")}))
    arrays = {}
    for out in exp.outputs:
        full: tuple[int, ...] = ()
        if out.dims:
            full = tuple(
                np.max([part[f"shape:{out.name}"].max(axis=0) for _, part in loaded], axis=0)
            )
        array = np.full((size, *full), np.nan)
        for flat, part in loaded:
            data = part[f"data:{out.name}"]
            region = tuple(slice(0, min(a, b)) for a, b in zip(data.shape[1:], full, strict=True))
            array[(flat, *region)] = data[(slice(None), *region)]
        arrays[out.name] = array
    return labelled(exp, grid, params, arrays)


# ----------------------------------------------------------------------------- computing


def useful_workers(work: float | None, points: int) -> int:
    """How many worker processes a grid of ``work`` estimated CPU seconds can use: one per
    WORKER_SECONDS, at most one per point (Snakemake caps a job's threads at its cores). A
    job asking for two threads waits for two free cores, which costs a full build more than
    a few seconds of work gains from the second one."""
    if not work:
        return 1
    return max(1, min(points, int(work // WORKER_SECONDS)))


def _compute(
    name: str,
    points: list[dict],
    params: Mapping,
    global_seed: int,
    directory: Path,
    should_stop=None,
    report: bool = False,
):
    """Compute ``points`` in this process, writing a chunk at least every CHUNK_SECONDS and at
    the end (with ``report``, logging the progress every PROGRESS_SECONDS); the number of
    points computed. When ``should_stop()`` turns true before a point, the points done are
    kept and ``Stopped`` is raised."""
    from .cube import Stopped, compute_point
    from .experiments import experiment

    exp = experiment(name)
    grid_keys = exp.grid
    done, values, last = [], [], time.monotonic()
    start = reported = last
    for i, point in enumerate(points):
        if should_stop is not None and should_stop():
            if done:
                write_chunk(directory, exp, grid_keys, done, values)
            raise Stopped(f"{exp.name}: stopped on request after {i}/{len(points)} grid points")
        result = compute_point(exp, point, params, global_seed)
        done.append(point)
        values.append(result)
        now = time.monotonic()
        if report and now - reported > PROGRESS_SECONDS:  # the console shows a long job's progress
            log_progress(exp.name, i + 1, len(points), now - start)
            reported = now
        if now - last > CHUNK_SECONDS:
            write_chunk(directory, exp, grid_keys, done, values)
            done, values, last = [], [], time.monotonic()
    if done:
        write_chunk(directory, exp, grid_keys, done, values)
    return len(points)


def _missing_points(grid: Mapping[str, list], mask) -> list[dict]:
    import numpy as np

    keys = list(grid)
    if not keys:  # a grid of no keys has one point
        return [] if mask.all() else [{}]
    index = np.unravel_index(np.nonzero(~mask)[0], tuple(len(v) for v in grid.values()))
    columns = [[grid[k][i] for i in index[d]] for d, k in enumerate(keys)]
    return [dict(zip(keys, combo, strict=True)) for combo in zip(*columns, strict=True)]


def compute(
    exp,
    block: Mapping,
    global_seed: int,
    root: str | Path = STORE,
    workers: int = 1,
    should_stop=None,
):
    """The Dataset of ``block``'s grid (no provenance: see attnmem.cube.provenance): the points
    the store lacks are computed (by up to ``workers`` processes) and kept, then the cube is
    assembled from the store. Returns (dataset, points computed, points in the grid).
    ``should_stop`` (one process only) is asked before each point: the points done are kept
    and ``attnmem.cube.Stopped`` is raised."""
    grid = expand_grid(block, exp.grid)
    params = {k: block[k] for k in exp.params}
    ctx = context(exp.name, block, exp.grid, global_seed)
    directory = context_dir(root, ctx)
    _, mask = stored(directory, grid)
    todo = _missing_points(grid, mask)
    start = time.monotonic()
    if todo:
        _prune(directory, ctx)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "context.json").write_text(
            json.dumps(ctx, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8"
        )
        workers = max(1, min(int(workers), len(todo)))
        log.info(
            "%s: %d of %d grid points to compute (%d kept from earlier runs), %d worker%s",
            exp.name, len(todo), len(mask), len(mask) - len(todo), workers,
            "s" if workers > 1 else "",
        )  # fmt: skip
        if workers == 1 or should_stop is not None:
            _compute(exp.name, todo, params, global_seed, directory, should_stop, True)
        else:
            _in_workers(exp.name, todo, params, global_seed, directory, workers)
    log.info(
        "%s: computed %d of %d grid points in %.1f s",
        exp.name, len(todo), len(mask), time.monotonic() - start,
    )  # fmt: skip
    return assemble(exp, grid, params, directory), len(todo), len(mask)


def _in_workers(name, todo, params, global_seed, directory, workers: int) -> None:
    """The points ``todo`` dealt round-robin into tasks (neighbouring points often cost alike:
    dealing spreads the costly ones) and computed by ``workers`` forked processes, which
    inherit the loaded science and the one-thread BLAS limit."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    n_tasks = min(len(todo), workers * TASKS_PER_WORKER)
    tasks = [todo[i::n_tasks] for i in range(n_tasks)]
    done, start = 0, time.monotonic()
    last = start
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [
            pool.submit(_compute, name, task, params, global_seed, directory) for task in tasks
        ]
        for future in as_completed(futures):
            done += future.result()
            now = time.monotonic()
            if now - last > 5 or done == len(todo):
                log.info("%s: %d/%d new grid points, %.1f s", name, done, len(todo), now - start)
                last = now


def _prune(directory: Path, ctx: Mapping) -> None:
    """Remove the experiment's contexts computed by other code or libraries than this one (no
    job of this installation can use them); contexts of other parameters or seeds stay."""
    import shutil

    for other in directory.parent.glob("*/context.json"):
        if other.parent == directory:
            continue
        try:
            theirs = json.loads(other.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if (theirs.get("code"), theirs.get("libraries")) != (ctx["code"], ctx["libraries"]):
            shutil.rmtree(other.parent, ignore_errors=True)


# ----------------------------------------------------------------------------- counting


def to_compute(
    name: str, block: Mapping, grid_keys: Sequence[str], global_seed: int, root=STORE
) -> int:
    """How many grid points of ``block`` a job would compute: those the store lacks. For the
    cost check and the announcement of large grids, before any job runs. A grid of more than
    EXACT_COUNT_POINTS points is not expanded: every point kept for its context is counted
    as one of its own (a lower bound on what is left to compute)."""
    import numpy as np

    from .costs import point_count

    total = point_count(block, grid_keys)
    directory = context_dir(root, context(name, block, grid_keys, global_seed))
    files = chunk_files(directory)
    if not files:
        return total
    if total > EXACT_COUNT_POINTS:
        kept = 0
        for path in files:
            with np.load(path, allow_pickle=False) as z:
                kept += len(z[f"coord:{grid_keys[0]}"]) if grid_keys else 1
        return max(total - kept, 0)
    _, mask = stored(directory, expand_grid(block, grid_keys))
    return int((~mask).sum())
