"""Declarations that tie a science function to a cube: what it takes and what it returns.

An experiment is a pure function called once per grid point. It receives the point's
coordinates and the block's scalar parameters as keyword arguments (and ``rng`` if it asks for
one) and returns a dict of numbers or arrays, one entry per declared ``Output``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Output:
    """One variable of a cube: its name, meaning, units and the dims it adds to the grid."""

    name: str
    long_name: str
    units: str
    dims: tuple[str, ...] = ()


@dataclass(frozen=True)
class Experiment:
    """A named function of a parameter grid, and the sections of the notes it serves."""

    name: str
    func: Callable[..., Mapping[str, object]]
    grid: tuple[str, ...]
    outputs: tuple[Output, ...]
    sections: tuple[str, ...]
    params: tuple[str, ...] = ()
    # Coordinates of the extra (non-grid) dims: fixed values, or a function of the params.
    coords: Mapping[str, Sequence | Callable[..., Sequence]] = field(default_factory=dict)

    @property
    def wants_rng(self) -> bool:
        return "rng" in inspect.signature(self.func).parameters

    def output(self, name: str) -> Output:
        for out in self.outputs:
            if out.name == name:
                return out
        raise KeyError(f"experiment {self.name!r} has no output {name!r}")
