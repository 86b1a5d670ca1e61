"""Constraints between the keys of a config block, checked before any job runs.

A schema states each key's type and bounds alone; a rule that ties two keys together (a layer
width divisible by every head count, a width that must be one of the widths the block makes)
is declared beside the experiment with ``require`` (attnmem.spec.Rule) and written into the
manifest as text, so that the Snakefile checks it at parse time without importing the science.
A rule is a Python expression over the block's keys, evaluated here on a whitelist of syntax
(arithmetic, comparisons, boolean operators, comprehensions, a few builtins): no attribute, no
subscript of anything but a name's value, no call of anything else. The ``shard`` setting is
checked here too: ``shard.by`` must name grid keys of the experiment.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from .grid import expand_values

_BUILTINS = {
    "all": all,
    "any": any,
    "len": len,
    "min": min,
    "max": max,
    "range": range,
    "sum": sum,
    "abs": abs,
    "int": int,
    "set": set,
    "sorted": sorted,
}
_ALLOWED = (
    ast.Expression,
    ast.BoolOp,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.ListComp,
    ast.GeneratorExp,
    ast.SetComp,
    ast.comprehension,
    ast.Call,
    ast.IfExp,
    ast.Subscript,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
)
# Grid values above this many are not expanded to check a rule (a range of 10^8 values is
# counted, never listed; the cost check refuses such a grid anyway).
MAX_VALUES = 100_000


class RuleError(ValueError):
    """A rule whose text uses syntax outside the whitelist (a declaration's bug)."""


def _compiled(text: str):
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise RuleError(f"rule {text!r}: {type(node).__name__} is not allowed in a rule")
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _BUILTINS
        ):
            raise RuleError(f"rule {text!r}: only {', '.join(_BUILTINS)} may be called")
    return compile(tree, "<rule>", "eval")


def values_of(block: Mapping, grid_keys) -> dict:
    """The block's keys as a rule sees them: a grid key as the list of its values, any other
    key as written (a list parameter as its list)."""
    out = {}
    for key, value in block.items():
        if key in grid_keys:
            if isinstance(value, Mapping) and _count(value) > MAX_VALUES:
                continue
            out[key] = expand_values(value)
        else:
            out[key] = value
    return out


def _count(value: Mapping) -> int:
    from .costs import value_count

    return value_count(value)


def block_problems(name: str, block: Mapping, declared: Mapping) -> list[str]:
    """Every rule of experiment ``name`` (its manifest entry ``declared``) that ``block``
    breaks, and a ``shard.by`` that names no grid key, one line each naming the key."""
    grid = declared.get("grid", [])
    out = []
    shard = block.get("shard")
    if isinstance(shard, Mapping) and "by" in shard:
        by = shard["by"] if isinstance(shard["by"], list) else [shard["by"]]
        unknown = [k for k in by if k not in grid]
        if unknown:
            out.append(
                f"experiments.{name}.shard.by: {', '.join(map(repr, unknown))} is not a grid key "
                f"of {name}; allowed: {', '.join(grid) or 'none (it has no grid)'}"
            )
    names = values_of(block, grid)
    for rule in declared.get("constraints", []):
        if not all(k in names for k in rule["keys"]):
            continue  # a missing key is the schema's to name; a range too long to list
        try:
            # the names are globals: a comprehension's scope sees globals, not eval's locals
            scope = {**names, "__builtins__": _BUILTINS}
            holds = eval(_compiled(rule["check"]), scope)  # noqa: S307 (whitelisted syntax)
        except RuleError:
            raise
        except Exception as exc:  # a value the rule cannot compute with: say so
            holds, why = False, f" ({type(exc).__name__}: {exc})"
        else:
            why = ""
        if not holds:
            shown = ", ".join(f"{k} = {_shown(block[k])}" for k in rule["keys"])
            out.append(f"experiments.{name}.{rule['keys'][0]}: {rule['says']} (here {shown}){why}")
    return out


def _shown(value) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def problems(config: Mapping, manifest: Mapping) -> list[str]:
    """Every block of ``config["experiments"]`` checked against its experiment's rules."""
    out = []
    for name, block in (config.get("experiments") or {}).items():
        if name in manifest and isinstance(block, Mapping):
            out += block_problems(name, block, manifest[name])
    return out
