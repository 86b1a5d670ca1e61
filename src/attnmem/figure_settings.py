"""The figures' settings checked against the grids, before any job runs.

A figure setting (config ``figures: <module>: <name>``) is a grid value, or a list of grid values,
that a figure picks out of a cube: the sharpness a note prints, the gap a drag handle opens at.
Each figure (and each interactive page, which reads the config block of its topic like its
static twin) declares, beside its function, which cube and dimension each of its settings selects
(`attnmem.views`). A value the grid does not hold would make the figure job fail with a
bare KeyError after the cubes are built; `problems` finds it from the config alone, naming the
setting, so that the Snakefile can refuse to start.

A setting must select at least one grid dimension (a key of the cube's config block), where it is
checked before the run. The same value may also select a coordinate the science computes from
scalar parameters (``model_comparison``'s gap L runs to ``L_max``): the config cannot tell what
that coordinate holds, so `coordinate_problems` checks it against the cube when the figure job
starts. Picks of computed coordinates alone stay constants of their figure module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .grid import canonical, expand_grid


class FigureSettingsError(ValueError):
    """The config's figure settings do not fit the figures or the grids."""


def _values(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _shown(values: list) -> str:
    text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
    return text if len(values) <= 12 else f"{len(values)} values from {values[0]} to {values[-1]}"


def problems(config: Mapping, figures: Iterable) -> list[str]:
    """Every problem of ``config["figures"]`` against the declarations of ``figures``
    (`attnmem.views.View`: each setting's (cube, dim) pairs) and the expanded grids
    of ``config["experiments"]``, one line each, naming the setting; empty if they fit."""
    from .views import module_settings

    declared = module_settings(figures)
    given = config.get("figures") or {}
    experiments = config.get("experiments") or {}
    out = []
    for module in sorted(set(given) - set(declared)):
        out.append(f"figures.{module}: no figure module {module!r} declares settings")
    for module, names in sorted(declared.items()):
        block = given.get(module) or {}
        for name in sorted(set(block) - set(names)):
            out.append(f"figures.{module}.{name}: no figure of {module} selects with it")
        for name, targets in sorted(names.items()):
            where = f"figures.{module}.{name}"
            if name not in block:
                out.append(f"{where} is missing (a figure of {module} reads it)")
                continue
            values = _values(block[name])
            unknown = sorted({cube for cube, _ in targets} - set(experiments))
            if unknown:
                out.append(f"{where} selects from {', '.join(unknown)}, which have no config block")
                continue
            known = {(c, d): held_values(c, d, experiments) for c, d in targets}
            gridded = [(c, d) for c, d in targets if known[(c, d)] is not None]
            if not gridded:
                shown = ", ".join(f"{d} of {c}" for c, d in targets)
                out.append(
                    f"{where} selects {shown}, which is neither a grid key nor a list parameter "
                    "of its config block: a value of a coordinate the science computes cannot be "
                    "checked before the run (keep it a constant of the figure module, or make "
                    "the dimension a grid key)"
                )
                continue
            for cube, dim in gridded:
                grid = known[(cube, dim)]
                missing = [v for v in values if canonical(v) not in grid]
                if missing:
                    out.append(
                        f"{where} = {block[name]!r} selects {dim} = {_shown(missing)} of {cube}, "
                        f"which the config experiments.{cube} does not hold "
                        f"(it holds {_shown(grid)})"
                    )
    return out


def held_values(cube: str, dim: str, experiments: Mapping) -> list | None:
    """The values the config says ``dim`` of ``cube`` will hold: its expanded grid, or the list
    parameter its coordinates are declared from (``from_param``); None when the science
    computes them some other way (or the cube is unknown)."""
    from .schema import load_manifest

    declared = load_manifest().get(cube)
    if declared is None or cube not in experiments:
        return None
    if dim in declared["grid"]:
        return expand_grid(experiments[cube], (dim,))[dim]
    source = declared["coords"].get(dim)
    if isinstance(source, dict) and source.get("param") in experiments[cube]:
        return sorted({canonical(v) for v in experiments[cube][source["param"]]})
    return None


def check(config: Mapping, figures: Iterable) -> None:
    """Raise `FigureSettingsError` listing every problem `problems` finds."""
    found = problems(config, figures)
    if found:
        raise FigureSettingsError(
            "figure settings in config/config.yaml do not fit the grids:\n  " + "\n  ".join(found)
        )


def coordinate_problems(figures: Iterable, settings: Mapping, cubes: Mapping) -> list[str]:
    """Every setting value that a figure selects from a coordinate its cube does not hold,
    checked against the cubes themselves (``cubes``: name -> Dataset) when the job starts."""
    out = []
    for fig in figures:
        for name, targets in fig.settings.items():
            values = _values(settings[name])
            for cube, dim in targets:
                if cube not in cubes:
                    continue
                if dim not in cubes[cube].coords:
                    out.append(
                        f"{fig.id}: setting {name} selects {dim!r}, not a dimension of {cube}"
                    )
                    continue
                held = {canonical(v) for v in cubes[cube][dim].values.tolist()}
                missing = [v for v in values if canonical(v) not in held]
                if missing:
                    out.append(
                        f"{fig.id}: setting {name} = {settings[name]!r} selects {dim} = "
                        f"{_shown(missing)} of {cube}, which the cube does not hold "
                        f"(it holds {_shown(sorted(held))})"
                    )
    return out


def settings_record(settings: Mapping) -> dict:
    """A module's settings as its snapshot holds them (attnmem.snapshots, the file whose
    name reruns the module's figure job when a setting changes): lists, not tuples."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}


def settings_of(config: Mapping, module: str) -> dict:
    """The settings of one figure module, lists as tuples (what the drawing functions get)."""
    block = (config.get("figures") or {}).get(module) or {}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in block.items()}
