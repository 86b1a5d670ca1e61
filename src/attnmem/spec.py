"""Declarations that tie a science function to a cube: what it takes and what it returns.

An experiment is a pure function called once per grid point. It receives the point's
coordinates and the block's scalar parameters as keyword arguments (and ``rng`` if it asks for
one) and returns a dict of numbers or arrays, one entry per declared ``Output``.

It is declared once, beside the function, by the ``@experiment`` decorator: its grid keys and
parameters with their types and bounds, its outputs, the coordinates of their extra dims and
the sections of the notes it serves. Everything else is derived from that declaration: the
list of experiments (``attnmem.experiments.registry``), the config schema and the manifest the
Snakefile reads (``attnmem.schema``, written by ``python -m attnmem schema``).
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
    units: str = "1"
    dims: tuple[str, ...] = ()


@dataclass(frozen=True)
class Param:
    """The type and bounds of one config key, as a JSON-schema fragment, and what it means."""

    schema: Mapping
    doc: str = ""
    # The work of every grid point grows in proportion to this value (training steps): the
    # cost check (attnmem.costs) scales the measured cost per point by it.
    work: bool = False
    # The memory a grid point holds at once grows in proportion to this value (rows of random
    # scores, tokens of a sequence): the cost check scales the measured peak per point by it.
    memory: bool = False

    def described(self) -> dict:
        """The fragment with a description a user can act on: the meaning, then the bounds."""
        out = dict(self.schema)
        words = "; ".join(filter(None, (self.doc, _bounds_text(self.schema))))
        if words and "$ref" not in out:
            out["description"] = words
        elif self.doc:
            out["description"] = self.doc
        return out


def _number(kind: str, min=None, max=None, gt=None, lt=None, multiple_of=None) -> dict:
    out: dict = {"type": kind}
    for key, value in (
        ("minimum", min),
        ("maximum", max),
        ("exclusiveMinimum", gt),
        ("exclusiveMaximum", lt),
        ("multipleOf", multiple_of),
    ):
        if value is not None:
            out[key] = value
    return out


def integer(min=None, max=None, doc: str = "", work: bool = False, memory: bool = False) -> Param:
    """A scalar integer parameter, ``min <= value <= max``; ``work``: the cost of each grid
    point is proportional to it; ``memory``: so is the memory a point holds at once."""
    return Param(_number("integer", min, max), doc, work, memory)


def real(min=None, max=None, gt=None, lt=None, doc: str = "") -> Param:
    """A scalar real parameter with inclusive (min, max) or exclusive (gt, lt) bounds."""
    return Param(_number("number", min, max, gt, lt), doc)


def real_list(min=None, max=None, gt=None, lt=None, doc: str = "") -> Param:
    """A scalar parameter that is a list of distinct reals (a sweep inside one grid point)."""
    item = _number("number", min, max, gt, lt)
    return Param({"type": "array", "minItems": 1, "uniqueItems": True, "items": item}, doc)


def seeds(doc: str = "") -> Param:
    """A grid of replicate seeds: ``{count: n}`` or a list of seed indices."""
    return Param({"$ref": "#/$defs/seed_grid"}, doc)


def ints(
    min=1, max=None, multiple_of=None, ranges: bool = True, doc: str = "", work: bool = False
) -> Param:
    """Distinct integers >= ``min`` (a grid, or with ``ranges=False`` also a list parameter):
    a list, or (``ranges``) ``{first, last[, step]}``. ``work``, for a list parameter: the
    cost of each grid point is proportional to the sum of its values (model widths)."""
    plain = max is None and multiple_of is None
    if plain and ranges and min in (0, 1):
        return Param({"$ref": f"#/$defs/{'positive' if min else 'nonneg'}_int_grid"}, doc, work)
    if plain and not ranges and min == 2:
        return Param({"$ref": "#/$defs/names_grid"}, doc, work)
    if ranges:
        raise ValueError("an integer grid with bounds other than min 0 or 1 takes ranges=False")
    return Param(_array(_number("integer", min, max, multiple_of=multiple_of)), doc, work)


def reals(min=None, max=None, gt=None, lt=None, doc: str = "") -> Param:
    """A grid of distinct reals with the given bounds."""
    bounds = (min, max, gt, lt)
    if bounds == (None, None, 0, None):
        return Param({"$ref": "#/$defs/positive_grid"}, doc)
    if bounds == (0, None, None, None):
        return Param({"$ref": "#/$defs/nonneg_number_grid"}, doc)
    return Param(_array(_number("number", min, max, gt, lt)), doc)


def choices(*values, doc: str = "") -> Param:
    """A grid whose values are taken from ``values``."""
    return Param(_array({"enum": list(values)}), doc)


def _array(item: Mapping) -> dict:
    return {"type": "array", "minItems": 1, "uniqueItems": True, "items": dict(item)}


_BOUND_WORDS = {
    "minimum": ">=",
    "maximum": "<=",
    "exclusiveMinimum": ">",
    "exclusiveMaximum": "<",
}


def _bounds_text(schema: Mapping) -> str:
    """``an integer >= 1``, ``a number > 0 and < 1``, ``a list of ...``: the words of a fragment."""
    if "$ref" in schema:
        return ""
    if schema.get("type") == "array":
        return "a non-empty list of distinct values, each " + _bounds_text(schema["items"])
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    noun = {"integer": "an integer", "number": "a number"}.get(schema.get("type"), "a value")
    parts = [f"{word} {schema[key]}" for key, word in _BOUND_WORDS.items() if key in schema]
    if "multipleOf" in schema:
        parts.append(f"a multiple of {schema['multipleOf']}")
    return noun + (" " + " and ".join(parts) if parts else "")


@dataclass(frozen=True)
class from_param:  # noqa: N801 (used like a function in the declarations)
    """Coordinates of an extra dim that are the values of a list parameter: the manifest says
    which, so selections on that dim are checked against the config before any job runs."""

    param: str

    def __call__(self, **params) -> list:
        return list(params[self.param])


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
    # Type and bounds of every grid key and parameter (the config schema is made from these).
    types: Mapping[str, Param] = field(default_factory=dict)
    # Sets process-wide state (torch's global generator and thread count): its job always gets
    # a process of its own, never a thread of Snakemake's (attnmem.costs.in_process).
    own_process: bool = False

    @property
    def wants_rng(self) -> bool:
        return "rng" in inspect.signature(self.func).parameters

    @property
    def module(self) -> str:
        """The topic: the file stem of the module that declares the experiment."""
        return self.func.__module__.rsplit(".", 1)[-1]

    @property
    def work(self) -> tuple[str, ...]:
        """The parameters each grid point's cost is proportional to."""
        return tuple(k for k in self.params if self.types[k].work)

    @property
    def memory(self) -> tuple[str, ...]:
        """The parameters the memory of each grid point is proportional to (together)."""
        return tuple(k for k in self.params if self.types[k].memory)

    def output(self, name: str) -> Output:
        for out in self.outputs:
            if out.name == name:
                return out
        raise KeyError(f"experiment {self.name!r} has no output {name!r}")


def experiment(
    *,
    outputs: Sequence[Output],
    sections: Sequence[str],
    grid: Mapping[str, Param] | None = None,
    params: Mapping[str, Param] | None = None,
    coords: Mapping[str, Sequence | Callable[..., Sequence]] | None = None,
    name: str | None = None,
    own_process: bool = False,
):
    """Declare the decorated function an experiment (named after it unless ``name`` is given:
    the same function may serve a second experiment with another grid). ``own_process``: the
    function sets process-wide state (it trains with torch), so its job never shares a process.
    The function is returned unchanged, with the declaration appended to its ``experiments``
    attribute."""
    grid, params = dict(grid or {}), dict(params or {})

    def declare(func):
        exp = Experiment(
            name=name or func.__name__,
            func=func,
            grid=tuple(grid),
            params=tuple(params),
            outputs=tuple(outputs),
            sections=tuple(sections),
            coords=dict(coords or {}),
            types={**grid, **params},
            own_process=own_process,
        )
        _check_signature(exp)
        func.experiments = (*getattr(func, "experiments", ()), exp)
        return func

    return declare


def _check_signature(exp: Experiment) -> None:
    """The declared keys are the function's arguments: every argument without a default is
    declared (or is ``rng``), and nothing is declared that the function does not take."""
    signature = inspect.signature(exp.func).parameters
    declared = set(exp.grid) | set(exp.params)
    required = {
        k for k, p in signature.items() if p.default is inspect.Parameter.empty and k != "rng"
    }
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.values())
    required -= {k for k, p in signature.items() if p.kind is inspect.Parameter.VAR_KEYWORD}
    unknown = set() if takes_any else declared - set(signature)
    missing = required - declared
    if unknown or missing:
        raise TypeError(
            f"experiment {exp.name!r}: declared keys {sorted(unknown)} are not arguments of "
            f"{exp.func.__name__}; its arguments {sorted(missing)} are not declared"
        )
    outputs = [o.name for o in exp.outputs]
    if len(set(outputs)) != len(outputs):
        raise ValueError(f"experiment {exp.name!r} declares an output twice")
