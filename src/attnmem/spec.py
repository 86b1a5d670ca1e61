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


# The largest integer a key takes unless its declaration says less: a cube holds numbers as
# float64, exact up to 2**53, and a count past it (N: 1e20, a vocabulary of 1e29) overflows the
# int64 arithmetic of the science before anything could price it.
INT_MAX = 2**53
# The largest magnitude a real key takes unless its declaration says less (or more: a budget
# counted in multiply-adds). The science's exponentials overflow far below 1e308 and its
# differences lose every digit near 1e16: a sharpness of 1e16 fills a cube with NaN silently.
# Keys whose science breaks sooner declare their own bound (benchmarks/scaling.py --extremes
# finds them).
REAL_MAX = 1e6


@dataclass(frozen=True)
class Param:
    """The type and bounds of one config key, as a JSON-schema fragment, and what it means.

    ``work`` and ``memory`` say how a grid point's cost grows with the key (the cost check,
    attnmem.costs, scales the measured cost per point by it): False when it does not, True
    when in proportion to the value, or a power (2: an n x n matrix). For a list parameter the
    value is the sum of its items' powers (a point trains one model per width); for a grid key,
    the mean over the grid's values (time) or the largest (memory)."""

    schema: Mapping
    # What the key is, in words a reader of the cube understands (the long_name of its
    # coordinate when it is a grid key, the description of the config key).
    doc: str = ""
    # How the work of every grid point grows with this value (training steps: True).
    work: bool | float = False
    # How the memory a grid point holds at once grows with this value (rows of random scores,
    # tokens of a sequence: True; a matrix of n x n scores: 2).
    memory: bool | float = False
    # UDUNITS units of the key's values ("1": a count or a pure number).
    units: str = "1"

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
    if kind == "integer" and max is None:
        max = INT_MAX
    if kind == "number" and max is None and lt is None:
        max = REAL_MAX
    if kind == "number" and min is None and gt is None:
        min = -REAL_MAX
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


def integer(
    min=None,
    max=None,
    doc: str = "",
    work: bool | float = False,
    memory: bool | float = False,
    units: str = "1",
) -> Param:
    """A scalar integer parameter, ``min <= value <= max`` (``max`` at most INT_MAX);
    ``work``: the cost of each grid point grows with it (True: in proportion; a number: as that
    power of it); ``memory``: so does the memory a point holds at once."""
    return Param(_number("integer", min, max), doc, work, memory, units)


def real(
    min=None,
    max=None,
    gt=None,
    lt=None,
    doc: str = "",
    work: bool | float = False,
    memory: bool | float = False,
    units: str = "1",
) -> Param:
    """A scalar real parameter with inclusive (min, max) or exclusive (gt, lt) bounds;
    ``work``/``memory`` as for ``integer`` (a step whose halving doubles a ladder: -1)."""
    return Param(_number("number", min, max, gt, lt), doc, work, memory, units)


def real_list(min=None, max=None, gt=None, lt=None, doc: str = "", units: str = "1") -> Param:
    """A scalar parameter that is a list of distinct reals (a sweep inside one grid point)."""
    item = _number("number", min, max, gt, lt)
    schema = {"type": "array", "minItems": 1, "uniqueItems": True, "items": item}
    return Param(schema, doc, units=units)


def int_list(
    min=1, max=None, doc: str = "", work: bool | float = False, memory: bool | float = False
) -> Param:
    """A scalar parameter that is a list of distinct integers (a sweep inside one grid point:
    head counts, context lengths); ``work``/``memory``: how a point's cost grows with them."""
    return Param(_array(_number("integer", min, max)), doc, work, memory)


SEED_GRID = "#/$defs/seed_grid"


def seeds(doc: str = "") -> Param:
    """A grid of replicate seeds: ``{count: n}`` or a list of seed indices."""
    return Param({"$ref": SEED_GRID}, doc)


def ints(
    min=1,
    max=None,
    multiple_of=None,
    ranges: bool = True,
    doc: str = "",
    work: bool | float = False,
    memory: bool | float = False,
    units: str = "1",
) -> Param:
    """Distinct integers >= ``min`` (a grid, or with ``ranges=False`` also a list parameter):
    a list, or (``ranges``) ``{first, last[, step]}``. ``work``/``memory``: how a grid
    point's time and memory grow with the value (see Param; for a list parameter, with the
    sum of its values: model widths)."""
    plain = max is None and multiple_of is None
    if plain and ranges and min in (0, 1):
        kind = f"{'positive' if min else 'nonneg'}_int_grid"
        return Param({"$ref": f"#/$defs/{kind}"}, doc, work, memory, units)
    if plain and not ranges and min == 2:
        return Param({"$ref": "#/$defs/names_grid"}, doc, work, memory, units)
    if ranges:
        raise ValueError("an integer grid with bounds other than min 0 or 1 takes ranges=False")
    item = _number("integer", min, max, multiple_of=multiple_of)
    return Param(_array(item), doc, work, memory, units)


def reals(min=None, max=None, gt=None, lt=None, doc: str = "", units: str = "1") -> Param:
    """A grid of distinct reals with the given bounds."""
    bounds = (min, max, gt, lt)
    if bounds == (None, None, 0, None):
        return Param({"$ref": "#/$defs/positive_grid"}, doc, units=units)
    if bounds == (0, None, None, None):
        return Param({"$ref": "#/$defs/nonneg_number_grid"}, doc, units=units)
    return Param(_array(_number("number", min, max, gt, lt)), doc, units=units)


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
    shown = {INT_MAX: "2**53", REAL_MAX: "1e6", -REAL_MAX: "-1e6"}
    parts = [
        f"{word} {shown.get(schema[key], schema[key])}"
        for key, word in _BOUND_WORDS.items()
        if key in schema
    ]
    if "multipleOf" in schema:
        parts.append(f"a multiple of {schema['multipleOf']}")
    return noun + (" " + " and ".join(parts) if parts else "")


@dataclass(frozen=True)
class Rule:
    """A constraint between keys of a block that a schema cannot state (a width divisible by
    every head count, a width that must be one of the widths the block makes): ``check`` is a
    Python expression over the block's keys (a grid key stands for the list of its values; a
    few builtins: all, any, len, min, max, range, sum, abs, int), ``says`` the rule in words for
    the user, ``keys`` the keys it names (the first is the one a refusal names). It is written
    into the manifest and checked before any job runs (attnmem.constraints)."""

    check: str
    says: str
    keys: tuple[str, ...]

    def record(self) -> dict:
        return {"check": self.check, "says": self.says, "keys": list(self.keys)}


def require(check: str, says: str, *keys: str) -> Rule:
    """A cross-field constraint of a block (see Rule), naming the keys it relates (the first
    is the one a refusal names)."""
    if not keys:
        raise ValueError(f"rule {check!r} names no key")
    return Rule(check, says, tuple(keys))


@dataclass(frozen=True)
class from_param:  # noqa: N801 (used like a function in the declarations)
    """Coordinates of an extra dim that are the values of a list parameter: the manifest says
    which, so selections on that dim are checked against the config before any job runs."""

    param: str

    def __call__(self, **params) -> list:
        return list(params[self.param])


@dataclass(frozen=True)
class Coord:
    """What an extra dim of the outputs is (``long_name``, the coordinate's description in the
    cube), its UDUNITS ``units`` ("1": a count, an index or a pure number; ignored for text
    labels) and its ``values``: fixed, a function of the params, ``from_param``, or None for
    0, 1, ... along the dim."""

    long_name: str
    values: Sequence | Callable[..., Sequence] | None = None
    units: str = "1"


def coord(long_name: str, values=None, units: str = "1") -> Coord:
    """Declare an extra dim: what it is, its coordinates (see Coord) and their units."""
    return Coord(long_name, values, units)


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
    # What each extra dim is (``coord``): its long_name and units in the cube.
    dims: Mapping[str, Coord] = field(default_factory=dict)
    # Type and bounds of every grid key and parameter (the config schema is made from these).
    types: Mapping[str, Param] = field(default_factory=dict)
    # Sets process-wide state (torch's global generator and thread count): its job always gets
    # a process of its own, never a thread of Snakemake's (attnmem.costs.in_process).
    own_process: bool = False
    # Constraints between keys that a schema cannot state, checked before any job (Rule).
    constraints: tuple[Rule, ...] = ()
    # Extra dims of the outputs whose entries are independent replicates (draws of the same
    # random quantity): with the grid keys declared `seeds`, the dims a claim may average over
    # (`over`) or take the extreme of (`max`, `min`).
    replicate_dims: tuple[str, ...] = ()

    @property
    def wants_rng(self) -> bool:
        return "rng" in inspect.signature(self.func).parameters

    @property
    def module(self) -> str:
        """The topic: the file stem of the module that declares the experiment."""
        return self.func.__module__.rsplit(".", 1)[-1]

    @property
    def work(self) -> dict[str, float]:
        """The keys each grid point's time grows with, and the power of each (Param.work)."""
        return {
            k: float(self.types[k].work) for k in (*self.grid, *self.params) if self.types[k].work
        }

    @property
    def memory(self) -> dict[str, float]:
        """The keys the memory of each grid point grows with (together), with their powers."""
        return {
            k: float(self.types[k].memory)
            for k in (*self.grid, *self.params)
            if self.types[k].memory
        }

    @property
    def replicates(self) -> tuple[str, ...]:
        """The dims whose entries are replicates: the grid keys declared `seeds`, and the
        declared replicate dims of the outputs."""
        seeded = tuple(k for k in self.grid if self.types[k].schema.get("$ref") == SEED_GRID)
        return (*seeded, *self.replicate_dims)

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
    coords: Mapping[str, Coord | from_param | Sequence | Callable[..., Sequence]] | None = None,
    name: str | None = None,
    own_process: bool = False,
    constraints: Sequence[Rule] = (),
    replicates: Sequence[str] = (),
):
    """Declare the decorated function an experiment (named after it unless ``name`` is given:
    the same function may serve a second experiment with another grid). ``own_process``: the
    function sets process-wide state (it trains with torch), so its job never shares a process.
    ``constraints``: rules between keys (``require``), checked before any job; ``replicates``:
    extra dims of the outputs that index independent draws. ``coords``: each extra dim of the
    outputs, declared with ``coord`` (what it is, its values and units; a ``from_param`` dim is
    described by its parameter). The function is returned unchanged, with the declaration
    appended to its ``experiments`` attribute."""
    grid, params = dict(grid or {}), dict(params or {})
    described = {k: v for k, v in (coords or {}).items() if isinstance(v, Coord)}
    values = {k: v.values if k in described else v for k, v in (coords or {}).items()}

    def declare(func):
        exp = Experiment(
            name=name or func.__name__,
            func=func,
            grid=tuple(grid),
            params=tuple(params),
            outputs=tuple(outputs),
            sections=tuple(sections),
            coords={k: v for k, v in values.items() if v is not None},
            dims=described,
            types={**grid, **params},
            own_process=own_process,
            constraints=tuple(constraints),
            replicate_dims=tuple(replicates),
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
    dims = {d for o in exp.outputs for d in o.dims}
    stray = [d for d in exp.replicate_dims if d not in dims]
    if stray:
        raise ValueError(f"experiment {exp.name!r}: replicate dims {stray} are no output's dims")
    for rule in exp.constraints:
        unknown = [k for k in rule.keys if k not in declared]
        if unknown:
            raise ValueError(f"experiment {exp.name!r}: rule {rule.check!r} names {unknown}")
