"""A cube describes itself to a reader who never saw the code: every variable and coordinate
has a long_name that says what it is (not its own name again, not "a grid key of ..."), every
numeric one has UDUNITS units, no unit is hidden in another attribute, no two dims differ only
by a plural, and the provenance names every library the experiment's science imports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import xarray as xr

from attnmem.cube import coord_description
from attnmem.experiments import registry
from attnmem.sources import experiment_sources

EXPERIMENTS = registry()

# Words of a description that only restates where a coordinate sits, not what it is.
CIRCULAR = re.compile(r"grid key of experiment|index along|labels of an extra dim", re.I)
# A module-level or nested ``import x`` / ``from x import``: a third-party name when x is not
# the standard library (read here from the text, independently of attnmem.sources).
IMPORT = re.compile(r"^\s*(?:import\s+([A-Za-z_]\w*)|from\s+([A-Za-z_]\w*)[\w.]*\s+import\b)", re.M)


def circular(name: str, long_name: str) -> bool:
    """A description that is missing, repeats the variable's name, or says only where it is."""
    words = long_name.strip().lower()
    bare = {name.lower(), name.lower().replace("_", " ")}
    return not words or words in bare or bool(CIRCULAR.search(words))


def parses_in_udunits(units: str) -> bool:
    import cf_units

    try:
        cf_units.Unit(units)
    except ValueError:
        return False
    return True


def science_imports(name: str) -> set[str]:
    """Third-party top-level modules the experiment's source files import."""
    import sys

    found = set()
    for path in experiment_sources()[name]:
        for plain, source in IMPORT.findall(Path(path).read_text(encoding="utf-8")):
            found.add(plain or source)
    return found - set(sys.stdlib_module_names) - {"attnmem", "__future__"}


def cube_problems(path: Path, name: str) -> list[str]:
    """What a stranger opening the stored cube would trip over."""
    out = []
    with xr.open_dataset(path, engine="netcdf4") as ds:
        for var_name, var in ds.variables.items():
            if var_name.endswith("_strlen"):
                continue
            long_name = var.attrs.get("long_name", "")
            if circular(str(var_name), long_name):
                out.append(f"{var_name}: long_name {long_name!r}")
            if var.dtype.kind in "iuf" and "flag_values" not in var.attrs:
                units = var.attrs.get("units")
                if units is None or not parses_in_udunits(units):
                    out.append(f"{var_name}: units {units!r}")
            if "declared_units" in var.attrs:
                out.append(f"{var_name}: unit hidden in declared_units")
        plural = [d for d in ds.dims if f"{d}s" in ds.dims]
        out += [f"dims {d!r} and {d + 's'!r} side by side" for d in plural]
        versions = json.loads(ds.attrs.get("library_versions", "{}"))
        missing = sorted(science_imports(name) - set(versions))
        if missing:
            out.append(f"library_versions lacks {missing}")
    return out


@pytest.mark.pipeline
def test_every_built_cube_describes_itself(pipeline):
    problems = {}
    for name in sorted(EXPERIMENTS):
        found = cube_problems(pipeline / "results" / f"{name}.nc", name)
        if found:
            problems[name] = found
    assert not problems, "cubes a stranger cannot read:\n" + "\n".join(
        f"{name}: {'; '.join(found)}" for name, found in problems.items()
    )


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_coordinate_is_declared_with_what_it_is(name):
    """From the declaration alone (no build): each grid key and each extra dim of the outputs
    has a description that is not circular, and units that UDUNITS parses."""
    exp = EXPERIMENTS[name]
    dims = [*exp.grid, *dict.fromkeys(d for o in exp.outputs for d in o.dims)]
    bad = {}
    for dim in dims:
        long_name, units = coord_description(exp, dim)
        if circular(dim, long_name) or not parses_in_udunits(units):
            bad[dim] = (long_name, units)
    plural = [d for d in dims if f"{d}s" in dims]
    assert not bad and not plural, f"undescribed coordinates {bad}; colliding dims {plural}"


def test_the_test_refuses_what_it_should():
    assert circular("beta", "beta, a grid key of experiment toylang_program")
    assert circular("row", "index along row")
    assert circular("key", "key")
    assert circular("seven_layer", "seven layer")
    assert not circular("beta", "inverse temperature of the attention softmax")
    assert not parses_in_udunits("nats") and parses_in_udunits("1.4426950408889634 bit")
