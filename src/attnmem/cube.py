"""From a config block to a netCDF cube: run the grid, label it, record provenance, write it.

Writing is atomic (a temporary file, then a rename), so an interrupted run leaves no cube.
A cube on disk follows the CF-1.8 conventions, so generic netCDF tools and checkers read it;
``read_cube`` undoes the few storage choices CF forces (narrow integers, character arrays,
flag attributes) and gives back the Dataset as computed, which already carries UDUNITS units
and a description of every coordinate.
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import xarray as xr

from . import __version__, checksums
from .grid import block_hash, expand_grid, point_rng, points
from .sources import imported_libraries, installed_versions, science_files
from .spec import Experiment, from_param

log = logging.getLogger(__name__)


class ExperimentError(RuntimeError):
    """The science raised at one grid point; the message names the point."""


class Stopped(RuntimeError):
    """A run asked to stop (Snakemake cancelling its jobs: Ctrl-C) between two grid points."""


def run_experiment(
    exp: Experiment, block: Mapping, global_seed: int, should_stop: Callable[[], bool] | None = None
) -> xr.Dataset:
    """Call ``exp.func`` at every grid point and stack the results into a labelled Dataset,
    with the provenance of the whole block in its attributes (``should_stop``: see
    ``run_points``)."""
    ds = run_points(exp, block, global_seed, should_stop)
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
        ds[out.name].attrs = cf_attrs(out.long_name, out.units)
    _describe_coords(ds, exp)
    ds.attrs.update(provenance(exp, block, global_seed, grid))
    return ds


def compute_point(exp: Experiment, point: Mapping, params: Mapping, global_seed: int) -> Mapping:
    """The outputs of one grid point, with the point's own generator; a failure names the
    point, and a missing output is refused."""
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
    return values


def run_points(
    exp: Experiment, block: Mapping, global_seed: int, should_stop: Callable[[], bool] | None = None
) -> xr.Dataset:
    """The grid of ``block`` (or of a shard's part of it) computed point by point; ``Stopped``
    is raised before a point when ``should_stop()`` is true (a job in a thread of Snakemake,
    which can be stopped no other way)."""
    grid = expand_grid(block, exp.grid)
    params = {k: block[k] for k in exp.params}
    shape = tuple(len(v) for v in grid.values())
    n_points = int(np.prod(shape)) if shape else 1
    results: dict[str, list] = {out.name: [] for out in exp.outputs}
    start = last_report = time.monotonic()
    for i, point in enumerate(points(grid), start=1):
        if should_stop is not None and should_stop():
            raise Stopped(f"{exp.name}: stopped on request after {i - 1}/{n_points} grid points")
        values = compute_point(exp, point, params, global_seed)
        for out in exp.outputs:
            results[out.name].append(np.asarray(values[out.name], dtype=float))
        now = time.monotonic()
        if now - last_report > 5 or i == n_points:
            log.info("%s: %d/%d grid points, %.1f s", exp.name, i, n_points, now - start)
            last_report = now

    stacked = {out.name: _stack_padded(results[out.name], len(out.dims)) for out in exp.outputs}
    return labelled(exp, grid, params, stacked)


def labelled(exp: Experiment, grid: Mapping, params: Mapping, stacked: Mapping) -> xr.Dataset:
    """The Dataset of a grid from each output's values stacked over the grid's points in C
    order (``stacked[name]``: one row per point, ragged outputs padded with NaN), with the
    grid's coordinates, the extra dims' coordinates and every name and unit declared."""
    shape = tuple(len(v) for v in grid.values())
    extra_coords = _extra_coords(exp, params)
    data_vars = {}
    for out in exp.outputs:
        array = stacked[out.name].reshape(shape + stacked[out.name].shape[1:])
        data_vars[out.name] = xr.Variable(
            tuple(grid) + out.dims, array, cf_attrs(out.long_name, out.units)
        )
    coords = {k: np.asarray(v) for k, v in grid.items()}
    for out in exp.outputs:
        for axis, dim in enumerate(out.dims):
            if dim in coords:
                continue
            size = data_vars[out.name].shape[len(grid) + axis]
            coords[dim] = np.asarray(extra_coords.get(dim, range(size)))
    ds = xr.Dataset(data_vars, coords=coords)
    _describe_coords(ds, exp)
    return ds


def _describe_coords(ds: xr.Dataset, exp: Experiment) -> None:
    """Give every coordinate the ``long_name`` its declaration says and, when it is numeric,
    its declared ``units`` (text labels take none)."""
    for name in ds.coords:
        long_name, units = coord_description(exp, name)
        attrs = {"long_name": long_name}
        if ds[name].dtype.kind in "iuf":
            attrs["units"] = units
        ds[name].attrs = attrs


SEED_WORDS = "replicate index (seeds the random draws of each grid point)"


def coord_description(exp: Experiment, dim: str) -> tuple[str, str]:
    """What a coordinate is and its units, from the experiment's declaration: the ``doc`` and
    ``units`` of a grid key or of the list parameter an extra dim takes its values from, or the
    ``coord`` declared for an extra dim. An undeclared dim gets its bare name (the cube test
    refuses it)."""
    if dim in exp.grid:
        param = exp.types[dim]
        if param.schema.get("$ref") == "#/$defs/seed_grid":
            return param.doc or SEED_WORDS, "1"
        return param.doc or dim, param.units
    declared = exp.dims.get(dim)
    source = exp.coords.get(dim)
    if declared is not None:
        return declared.long_name, declared.units
    if isinstance(source, from_param) and source.param in exp.types:
        param = exp.types[source.param]
        return param.doc or dim, param.units
    return dim, "1"


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
    """Global attributes that say where a cube came from (netCDF attrs: strings and numbers);
    ``library_versions`` names every library the science imports and those that write the cube."""
    return {
        "experiment": exp.name,
        "sections": "; ".join(exp.sections),
        "grid": json.dumps(grid),
        "params": json.dumps({k: block[k] for k in exp.params}),
        "global_seed": int(global_seed),
        "config_hash": block_hash(block, global_seed),
        "attnmem_version": __version__,
        "git_commit": git_commit(science_files(exp.name)),
        "library_versions": json.dumps(cube_libraries(exp.name)),
    }


# The libraries that turn any science's values into a cube on disk (attnmem.cube itself).
WRITERS = ("numpy", "xarray", "netCDF4")


def cube_libraries(name: str) -> dict[str, str | None]:
    """The version of every library a cube's values or file depend on: those the experiment's
    science imports (attnmem.sources.imported_libraries: read from its modules' text, lazy
    imports included) and the writers."""
    return installed_versions(sorted({*WRITERS, *imported_libraries(name)}, key=str.lower))


def git_commit(paths=(), root: str | Path | None = None) -> str:
    """The commit of the working tree, with ``+dirty`` if ``paths`` (default: any tracked file)
    differ from it, or ``unknown``. A cube is marked dirty only when its own sources are."""
    root = root or Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--", *paths],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


CONVENTIONS = "CF-1.8"

# How a declared unit is stored: the UDUNITS unit of the quantity where the declared word is
# not one UDUNITS parses as meant. UDUNITS has no nat ("nat" parses as a nano-atmosphere), so a
# quantity in nats is stored in bits scaled by 1/ln 2, which UDUNITS converts to bits exactly.
UDUNITS_OF = {"nats": f"{1 / math.log(2)!r} bit", "MB": "Mbyte", "GB": "Gbyte"}
# Declared units that UDUNITS parses as meant, stored unchanged (tests/test_cf.py checks both
# tables against cf_units, so the cube on disk does not depend on that library).
UDUNITS_UNITS = frozenset({"1", "bits", "bytes", "degrees"})


def cf_attrs(long_name: str, units: str) -> dict:
    """The ``long_name`` and UDUNITS ``units`` of a declared output. Any other declared word
    (tokens, pairs, multiply-adds) is a count, a pure number: units "1", and the long_name says
    what is counted; a unit stored in another's terms (nats as bits) keeps its word in the
    long_name."""
    if units in UDUNITS_UNITS:
        return {"long_name": long_name, "units": units}
    if units in UDUNITS_OF:
        return {"long_name": f"{long_name}, in {units}", "units": UDUNITS_OF[units]}
    return {"long_name": f"{long_name}, counted in {units}", "units": "1"}


# How a declaration says an output is a 0/1 flag: "1 if ...", "1 where ...", "... (0/1)",
# "... (1 yes)" in a long_name with units "1". Such outputs get CF flag attributes.
_FLAG_PREFIXES = ("1 if ", "1 where ")
_FLAG_SUFFIXES = ("(0/1)", "(1 yes)")


def is_flag(long_name: str, units: str) -> bool:
    """Whether a declared output is a 0/1 flag, by the words of its declaration."""
    return units == "1" and (
        long_name.startswith(_FLAG_PREFIXES) or long_name.endswith(_FLAG_SUFFIXES)
    )


def cf_encoded(ds: xr.Dataset) -> tuple[xr.Dataset, dict]:
    """The Dataset as it is stored (CF-1.8 attributes) and the encoding to write it with.

    Values are untouched: integer coordinates are stored as int32 when they fit (CF-1.8 has no
    64-bit integers), text coordinates as character arrays with a length dim (the checkers
    cannot read netCDF-4 strings as coordinates), and coordinates carry no ``_FillValue``."""
    out = ds.copy(deep=False)
    encoding: dict[str, dict] = {}
    for var in out.variables.values():
        var.encoding = {}  # what a read left (a shard's int32, char dims) is decided anew here
        var.attrs = dict(var.attrs)
    for name in out.data_vars:
        attrs = out[name].attrs
        units, long_name = attrs.get("units"), attrs.get("long_name", "")
        if units is not None and is_flag(long_name, units):
            attrs.update(flag_values=np.array([0.0, 1.0]), flag_meanings="false true")
    for name in out.coords:
        values = out[name].values
        if values.dtype.kind in "US" or (
            values.dtype.kind == "O" and all(isinstance(v, str) for v in values.flat)
        ):
            encoding[name] = {"dtype": "S1", "char_dim_name": _free_dim(out, f"{name}_strlen")}
        elif values.dtype.kind in "iu":
            narrow = values.size == 0 or (
                np.iinfo(np.int32).min <= values.min() and values.max() <= np.iinfo(np.int32).max
            )
            encoding[name] = {"dtype": "int32" if narrow else values.dtype, "_FillValue": None}
        else:
            encoding[name] = {"_FillValue": None}
    out.attrs = {"Conventions": CONVENTIONS, **_title_history(out.attrs), **out.attrs}
    return out, encoding


def _free_dim(ds: xr.Dataset, name: str) -> str:
    while name in ds.dims or name in ds.variables:
        name += "_"
    return name


def _title_history(attrs: Mapping) -> dict:
    """CF's recommended ``title`` and ``history``, from the provenance (none on a shard)."""
    if "experiment" not in attrs:
        return {}
    return {
        "title": f"attnmem cube {attrs['experiment']}",
        "history": f"computed by attnmem {attrs.get('attnmem_version', __version__)} "
        f"from the config block with hash {attrs.get('config_hash', 'unknown')}",
    }


def write_cube(ds: xr.Dataset, path: str | os.PathLike) -> None:
    """Write a cube atomically: to a temporary file beside it, then rename over the target.
    The previous cube stays in place until the new one is complete; temporary files left by
    a write that was killed are removed first; the cube gets the mode of any new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.stem}.*.nc.tmp"):  # left by a killed write
        stale.unlink(missing_ok=True)
    stored, encoding = cf_encoded(ds)
    tmp = _new_file(path.parent, f".{path.stem}.", ".nc.tmp")
    try:
        stored.to_netcdf(tmp, engine="netcdf4", encoding=encoding)
        os.replace(tmp, path)
        checksums.record(path)  # what read_cube and the Snakefile check the cube against
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        full = _disk_full(path.parent, exc)
        if full:
            raise OSError(errno.ENOSPC, full) from exc
        raise


def _new_file(directory: Path, prefix: str, suffix: str) -> str:
    """A new, empty file of a name no other file has, with the mode any new file gets (0o666
    less the process's umask, applied by the kernel as it creates the file): a cube is readable
    like any other output. mkstemp would make it 0600, and reading the umask means setting it,
    for an instant, for every thread of the process (Snakemake's own, in a `run:` job)."""
    for _ in range(100):
        name = directory / f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return str(name)
    raise FileExistsError(f"no free temporary name in {directory}")


MIN_FREE_BYTES = 1 << 20  # below this, a failed write is put down to a full disk


def _disk_full(directory: Path, exc: BaseException) -> str | None:
    """A plain message when a write failed for want of space. netCDF reports a full disk as
    ``NetCDF: HDF error`` (no errno), so the free space left is what tells."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"no space left on {directory} (writing a cube: {exc})"
    if not isinstance(exc, (OSError, RuntimeError)):
        return None
    try:
        free = shutil.disk_usage(directory).free
    except OSError:
        return None
    if free < MIN_FREE_BYTES:
        return f"no space left on {directory} ({free:,} bytes free; the write failed: {exc})"
    return None


def read_cube(path: str | os.PathLike) -> xr.Dataset:
    """Load a cube fully into memory (and close the file), as it was computed: integer
    coordinates as int64, text coordinates as str, the declared units and long_names, and
    none of the attributes that only the stored form carries. A cube whose content differs
    from what its job wrote (attnmem.checksums), or that netCDF cannot read, raises
    ``DamagedCube`` naming the cube and how to rebuild it."""
    checksums.verify(path)
    try:
        with xr.open_dataset(path, engine="netcdf4") as ds:
            ds = ds.load()
    except FileNotFoundError:
        raise
    except (OSError, RuntimeError, ValueError) as exc:
        raise checksums.DamagedCube(
            f"{path} cannot be read as a cube ({exc}); {checksums.rebuild_hint(path)}"
        ) from exc
    return cf_decoded(ds)


def cf_decoded(ds: xr.Dataset) -> xr.Dataset:
    """Undo ``cf_encoded``'s storage choices on a Dataset read from a cube."""
    coords = {}
    for name in ds.coords:
        var = ds[name].variable
        if var.dtype.kind in "iu" and var.dtype != np.int64:
            var = var.astype(np.int64)
        elif var.dtype.kind == "O":
            var = var.astype(str)
        coords[name] = var
    data_vars = {name: ds[name].variable for name in ds.data_vars}
    ds = xr.Dataset(data_vars, coords=coords, attrs=ds.attrs)  # in the stored order
    for name in ds.data_vars:
        attrs = ds[name].attrs
        if "flag_meanings" in attrs:
            del attrs["flag_values"], attrs["flag_meanings"]
    if ds.attrs.get("Conventions") == CONVENTIONS:
        for key in ("Conventions", *_title_history(ds.attrs)):
            ds.attrs.pop(key, None)
    return ds
