"""The science, one module per topic. Every module of this package is a topic; a function
decorated with ``@experiment`` (attnmem.spec) in it is an experiment the pipeline can run."""

from __future__ import annotations

import pkgutil
from importlib import import_module

from ..spec import Experiment


def topics() -> list[str]:
    """The modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def declared(module) -> list[Experiment]:
    """The experiments a module declares, in the order of its functions."""
    out = []
    for value in vars(module).values():
        if callable(value) and getattr(value, "__module__", None) == module.__name__:
            out.extend(getattr(value, "experiments", ()))
    return out


def registry() -> dict[str, Experiment]:
    """Every experiment by name."""
    out: dict[str, Experiment] = {}
    for topic in topics():
        for exp in declared(import_module(f"{__name__}.{topic}")):
            if exp.name in out:
                raise ValueError(f"experiment {exp.name!r} is defined twice")
            out[exp.name] = exp
    return out


def experiment(name: str) -> Experiment:
    """One experiment, importing only the module that declares it (a job should not pay for
    importing every topic's science). Falls back to the full registry."""
    from ..sources import experiment_modules

    module = experiment_modules().get(name)
    if module is not None:
        for exp in declared(import_module(f"{__name__}.{module}")):
            if exp.name == name:
                return exp
    return registry()[name]
