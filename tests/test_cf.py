"""The cubes follow the CF-1.8 conventions: the CF checker (compliance-checker, as
``compliance-checker --test=cf:1.8``) finds no error in a cube of any experiment, and only the
warnings listed below, each explained. Reading a cube back gives the Dataset as computed."""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import re
import warnings

import numpy as np
import pytest
import xarray as xr
from conftest import ROOT

from attnmem.config import load_yaml
from attnmem.cube import (
    UDUNITS_OF,
    UDUNITS_UNITS,
    is_flag,
    read_cube,
    run_experiment,
    write_cube,
)
from attnmem.experiments import registry

EXPERIMENTS = registry()

# (experiment, section, regular expression of the message): why the warning stays.
KNOWN_WARNINGS = [
    (
        "toylang_program",
        "§2.3 Naming Conventions",
        r"Variables are not case sensitive\. Duplicate variables named: bound_delta",
        "bound_delta and bound_Delta are the delta and Delta of the notes' bound; the claims "
        "registry reads them by these names",
    ),
]


@contextlib.contextmanager
def memoized_lookups():
    """compliance-checker 6.1 recomputes every dataset-wide lookup of ``cf.util`` (auxiliary
    coordinates, time and z variables, ...) for each variable it checks: quadratic in the
    number of variables, 65 s for all cubes. The file does not change during a check, so the
    lookups are cached for the open dataset, and the packaged standard-name table is parsed
    once; the report is unchanged (tested below)."""
    import compliance_checker.cf.util as cfutil

    cache: dict = {}

    def memo(fn):
        @functools.wraps(fn)
        def wrapper(nc, *args):
            try:
                key = (fn.__name__, id(nc), args)
                hash(key)
            except TypeError:
                return fn(nc, *args)
            if key not in cache:
                cache[key] = fn(nc, *args)
            return copy.copy(cache[key])  # callers may extend the lists they get

        return wrapper

    originals = {
        name: fn
        for name, fn in vars(cfutil).items()
        if inspect.isfunction(fn)
        and fn.__module__ == cfutil.__name__
        and name.startswith(("get_", "is_"))
        and list(inspect.signature(fn).parameters)[:1] == ["nc"]
    }
    for name, fn in originals.items():
        setattr(cfutil, name, memo(fn))
    table = cfutil.StandardNameTable
    cfutil.StandardNameTable = _packaged_table(table)
    try:
        yield cache.clear
    finally:
        for name, fn in originals.items():
            setattr(cfutil, name, fn)
        cfutil.StandardNameTable = table


@functools.cache
def _packaged_table(table):
    """``table`` (compliance-checker's StandardNameTable class) with the packaged table parsed
    once per process: every checker instance parses its 4 MB of XML again (twice per cube, 4 s
    over all cubes), and the checks only read it."""
    shared = functools.cache(table)

    def one_table(cached_location=None):
        return shared() if cached_location is None else table(cached_location)

    return one_table


def cf_report(path, fast: bool = True) -> list[tuple[str, str, str]]:
    """(level, section, message) for every check of ``cf:1.8`` the file fails: levels
    "error" and "warning" as the command line prints them, "info", and "crash" for a check
    that raised."""
    from compliance_checker.suite import CheckSuite

    with warnings.catch_warnings():  # loading every suite warns of a deprecated IOOS one
        warnings.simplefilter("ignore", DeprecationWarning)
        CheckSuite.load_all_available_checkers()
    suite = CheckSuite()
    with memoized_lookups() if fast else contextlib.nullcontext():
        ds = suite.load_dataset(str(path))
        try:
            ((groups, crashed),) = suite.run_all(ds, ["cf:1.8"]).values()
        finally:
            ds.close()
    out = [("crash", name, repr(exc)) for name, (exc, _tb) in crashed.items()]

    def walk(results):
        for r in results:
            if r.children:
                walk(r.children)
            elif r.value[0] != r.value[1]:
                level = {3: "error", 2: "warning"}.get(r.weight, "info")
                out.extend((level, r.name, msg) for msg in r.msgs)

    walk(groups)
    return out


def unexplained(name: str, report) -> list:
    """The errors, crashes and unlisted warnings of one cube's report."""
    listed = [(s, m) for e, s, m, _why in KNOWN_WARNINGS if e == name]

    def explained(section, msg):
        return any(s == section and re.fullmatch(m, msg) for s, m in listed)

    return [
        (level, section, msg)
        for level, section, msg in report
        if level in ("error", "crash") or (level == "warning" and not explained(section, msg))
    ]


@pytest.mark.pipeline
def test_every_cube_passes_the_cf_checker(pipeline):
    problems, seen = {}, set()
    for name in sorted(EXPERIMENTS):
        report = cf_report(pipeline / "results" / f"{name}.nc")
        bad = unexplained(name, report)
        if bad:
            problems[name] = bad
        seen |= {(name, s) for level, s, _m in report if level == "warning"}
    assert not problems, f"CF-1.8 errors or unlisted warnings: {problems}"
    stale = [(e, s) for e, s, _m, _why in KNOWN_WARNINGS if (e, s) not in seen]
    assert not stale, f"listed warnings no cube gives any more (remove them): {stale}"


@pytest.mark.pipeline
def test_flags_hold_only_zero_and_one(pipeline):
    """An output declared as a 0/1 flag is stored with flag_values 0, 1: its values are."""
    wrong = []
    for name in sorted(EXPERIMENTS):
        with xr.open_dataset(pipeline / "results" / f"{name}.nc") as ds:
            for var in ds.data_vars.values():
                if "flag_values" in var.attrs:
                    values = var.values[~np.isnan(var.values)]
                    if not set(np.unique(values)) <= {0.0, 1.0}:
                        wrong.append(f"{name}.{var.name}")
    assert not wrong, f"declared as flags but not 0/1: {wrong}"


def test_the_units_table_is_what_udunits_parses():
    """Declared units kept as they are parse in UDUNITS; those stored as another UDUNITS unit
    (nats as scaled bits, MB as Mbyte) convert to it as meant; every other declared word is a
    count UDUNITS does not parse (stored as "1", the long_name says what is counted)."""
    import math

    import cf_units

    def parses(unit):
        try:
            cf_units.Unit(unit)
        except ValueError:
            return False
        return True

    declared = {out.units for exp in EXPERIMENTS.values() for out in exp.outputs}
    assert all(parses(u) for u in UDUNITS_UNITS | set(UDUNITS_OF.values()))
    assert math.isclose(cf_units.Unit(UDUNITS_OF["nats"]).convert(math.log(2), "bit"), 1.0)
    assert math.isclose(cf_units.Unit(UDUNITS_OF["GB"]).convert(1, "Mbyte"), 1000.0)
    counts = declared - UDUNITS_UNITS - set(UDUNITS_OF)
    assert [u for u in sorted(counts) if parses(u)] == []


def test_a_cube_round_trips_and_passes_the_checker(tmp_path):
    """Text and integer coordinates, units words and a flag: stored as CF wants, read back
    as computed (same values, dtypes, coordinates and attributes)."""
    config = load_yaml(ROOT / "config" / "config.yaml")
    exp = EXPERIMENTS["bag_costs"]
    ds = run_experiment(exp, config["experiments"]["bag_costs"], config["seed"])
    assert any(is_flag(o.long_name, o.units) for o in exp.outputs)
    assert {o.units for o in exp.outputs} - UDUNITS_UNITS
    path = tmp_path / "bag_costs.nc"
    write_cube(ds, path)
    assert [r for r in cf_report(path) if r[0] != "info"] == []
    back = read_cube(path)
    xr.testing.assert_identical(back, ds)
    assert list(back.variables) == list(ds.variables)
    assert {k: v.dtype for k, v in back.variables.items()} == {
        k: v.dtype for k, v in ds.variables.items()
    }
    with xr.open_dataset(path) as stored:
        assert stored.attrs["Conventions"] == "CF-1.8"
        assert all("_FillValue" not in c.encoding for c in stored.coords.values())
        assert all("long_name" in c.attrs for c in stored.coords.values())


def test_integers_beyond_int32_stay_exact(tmp_path):
    ds = xr.Dataset(
        {"x": ("seed", [1.0, 2.0], {"long_name": "x", "units": "nats"})},
        coords={"seed": ("seed", np.array([0, 2**40]), {"long_name": "seed", "units": "1"})},
    )
    write_cube(ds, tmp_path / "big.nc")
    xr.testing.assert_identical(read_cube(tmp_path / "big.nc"), ds)
    assert read_cube(tmp_path / "big.nc").seed.dtype == np.int64


def test_the_cached_checker_reports_what_the_plain_one_does(tmp_path):
    """On a cube that breaks many rules (netCDF-4 strings, int64, unknown units, fill values
    on coordinates), the cached lookups change nothing in the report."""
    ds = run_experiment(EXPERIMENTS["printed_text"], _block("printed_text"), 1)
    path = tmp_path / "plain.nc"
    ds.to_netcdf(path, engine="netcdf4")
    plain = cf_report(path, fast=False)
    assert any(level == "error" for level, _s, _m in plain)
    assert cf_report(path) == plain


def _block(name):
    return load_yaml(ROOT / "config" / "config.yaml")["experiments"][name]
