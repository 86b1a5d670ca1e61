"""From a config block to a netCDF cube: run the grid, label it, record provenance, write it.

Writing is atomic (a temporary file, then a rename), so an interrupted run leaves no cube.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import xarray as xr

from . import __version__
from .grid import block_hash, expand_grid, point_rng, points
from .spec import Experiment

log = logging.getLogger(__name__)


class ExperimentError(RuntimeError):
    """The science raised at one grid point; the message names the point."""


def run_experiment(exp: Experiment, block: Mapping, global_seed: int) -> xr.Dataset:
    """Call ``exp.func`` at every grid point and stack the results into a labelled Dataset,
    with the provenance of the whole block in its attributes."""
    ds = run_points(exp, block, global_seed)
    ds.attrs.update(provenance(exp, block, global_seed, expand_grid(block, exp.grid)))
    return ds


def gather(exp: Experiment, block: Mapping, global_seed: int, parts: list[xr.Dataset]):
    """Join the shards of a block (each the ``run_points`` of a part of its grid) into the cube
    ``run_experiment`` would have made in one piece: the same data, coordinates and attributes.
    Ragged outputs are padded with NaN to the largest shape over all shards, as in one run."""
    grid = expand_grid(block, exp.grid)
    ds = xr.combine_by_coords(
        [p.drop_attrs(deep=False) for p in parts],
        join="outer",
        fill_value=np.nan,
        combine_attrs="drop",
        data_vars="all",
        coords="different",
        compat="no_conflicts",
    )
    missing = [k for k, v in grid.items() if ds.sizes.get(k) != len(v)]
    if missing:
        raise ValueError(f"{exp.name}: the shards do not cover the grid along {missing}")
    ds = ds.sel({k: v for k, v in grid.items()})
    ds = ds[[out.name for out in exp.outputs]]
    for out in exp.outputs:
        ds[out.name].attrs = {"long_name": out.long_name, "units": out.units}
    ds.attrs.update(provenance(exp, block, global_seed, grid))
    return ds


def run_points(exp: Experiment, block: Mapping, global_seed: int) -> xr.Dataset:
    """The grid of ``block`` (or of a shard's part of it) computed point by point."""
    grid = expand_grid(block, exp.grid)
    params = {k: block[k] for k in exp.params}
    shape = tuple(len(v) for v in grid.values())
    n_points = int(np.prod(shape)) if shape else 1
    results: dict[str, list] = {out.name: [] for out in exp.outputs}
    start = last_report = time.monotonic()
    for i, point in enumerate(points(grid), start=1):
        kwargs = {**point, **params}
        if exp.wants_rng:
            kwargs["rng"] = point_rng(global_seed, exp.name, point)
        try:
            values = exp.func(**kwargs)
        except Exception as exc:
            raise ExperimentError(f"{exp.name} failed at grid point {point}: {exc!r}") from exc
        missing = {o.name for o in exp.outputs} - set(values)
        if missing:
            raise KeyError(f"{exp.name} at {point} returned no {sorted(missing)}")
        for out in exp.outputs:
            results[out.name].append(np.asarray(values[out.name], dtype=float))
        now = time.monotonic()
        if now - last_report > 5 or i == n_points:
            log.info("%s: %d/%d grid points, %.1f s", exp.name, i, n_points, now - start)
            last_report = now

    extra_coords = _extra_coords(exp, params)
    data_vars = {}
    for out in exp.outputs:
        stacked = _stack_padded(results[out.name], len(out.dims))
        array = stacked.reshape(shape + stacked.shape[1:])
        data_vars[out.name] = xr.Variable(
            tuple(grid) + out.dims, array, {"long_name": out.long_name, "units": out.units}
        )
    coords = {k: np.asarray(v) for k, v in grid.items()}
    for out in exp.outputs:
        for axis, dim in enumerate(out.dims):
            if dim in coords:
                continue
            size = data_vars[out.name].shape[len(grid) + axis]
            coords[dim] = np.asarray(extra_coords.get(dim, range(size)))
    return xr.Dataset(data_vars, coords=coords)


def _extra_coords(exp: Experiment, params: Mapping) -> dict:
    out = {}
    for dim, value in exp.coords.items():
        out[dim] = list(value(**params)) if callable(value) else list(value)
    return out


def _stack_padded(arrays: list[np.ndarray], ndim: int) -> np.ndarray:
    """Stack per-point arrays; where shapes differ (a sentence of length 10+L), pad with NaN."""
    for a in arrays:
        if a.ndim != ndim:
            raise ValueError(f"an output declared with {ndim} extra dims returned shape {a.shape}")
    if ndim == 0:
        return np.array(arrays, dtype=float)
    full = tuple(max(a.shape[k] for a in arrays) for k in range(ndim))
    out = np.full((len(arrays), *full), np.nan)
    for i, a in enumerate(arrays):
        out[(i, *tuple(slice(0, n) for n in a.shape))] = a
    return out


def provenance(exp: Experiment, block: Mapping, global_seed: int, grid: Mapping) -> dict:
    """Global attributes that say where a cube came from (netCDF attrs: strings and numbers)."""
    import netCDF4
    import scipy

    return {
        "experiment": exp.name,
        "sections": "; ".join(exp.sections),
        "grid": json.dumps(grid),
        "params": json.dumps({k: block[k] for k in exp.params}),
        "global_seed": int(global_seed),
        "config_hash": block_hash(block, global_seed),
        "attnmem_version": __version__,
        "git_commit": git_commit(),
        "library_versions": json.dumps(
            {
                "numpy": np.__version__,
                "scipy": scipy.__version__,
                "xarray": xr.__version__,
                "netCDF4": netCDF4.__version__,
            }
        ),
    }


def git_commit() -> str:
    """The commit of the working tree (with ``+dirty`` if it has changes), or ``unknown``."""
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def write_cube(ds: xr.Dataset, path: str | os.PathLike) -> None:
    """Write a cube atomically: to a temporary file beside it, then rename over the target.
    The previous cube stays in place until the new one is complete; temporary files left by
    a write that was killed are removed first; the cube gets the mode of any new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.stem}.*.nc.tmp"):  # left by a killed write
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".nc.tmp", dir=path.parent)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine="netcdf4")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a cube is readable like any output
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_cube(path: str | os.PathLike) -> xr.Dataset:
    """Load a cube fully into memory (and close the file)."""
    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()
