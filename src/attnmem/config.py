"""Validation of config/config.yaml against its JSON schema, with messages a user can act on.

Snakefile calls ``check_config`` before any rule runs; a bad value stops the run with one line
per problem, each naming the key and what is allowed, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml


class ConfigError(ValueError):
    """The config does not match its schema."""


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: parse time matters


def load_yaml(path: str | Path):
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_Loader)  # noqa: S506 (a safe loader)


def _where(path) -> str:
    parts = []
    for p in path:
        parts.append(f"[{p}]" if isinstance(p, int) else (("." if parts else "") + str(p)))
    return "".join(parts) or "(top level)"


def _subschema(schema: Mapping, path) -> Mapping:
    node = schema
    for p in path:
        if isinstance(p, int):
            node = node.get("items", {})
        else:
            props = node.get("properties", {})
            node = props.get(p, {})
    return node


def _allowed(schema: Mapping) -> str:
    """A short phrase for what a schema node allows."""
    if "description" in schema:
        return schema["description"]
    kinds = schema.get("type", "any value")
    return f"a value of type {kinds}"


def _message(err, schema: Mapping) -> str:
    where = _where(err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        unknown = ", ".join(map(repr, extra))
        return f"{where}: unknown key(s) {unknown}; allowed keys: {', '.join(allowed)}"
    if err.validator == "required":
        return f"{where}: {err.message}"
    node = _subschema(schema, err.absolute_path)
    return f"{where}: {err.message}; allowed: {_allowed(node)}"


def config_errors(config: Mapping, schema: Mapping) -> list[str]:
    """Every way ``config`` breaks ``schema``, one readable line each (empty when valid)."""
    import jsonschema  # imported here: parsing the Snakefile should stay light

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    return [_message(e, schema) for e in errors]


def _empty_ranges(node, path=()) -> list[str]:
    """Ranges ``{first, last}`` with ``last < first`` (a schema cannot compare two keys)."""
    found = []
    if isinstance(node, Mapping):
        first, last = node.get("first"), node.get("last")
        if isinstance(first, int) and isinstance(last, int) and last < first:
            found.append(
                f"{_where(path)}: the range from {first} to {last} is empty; allowed: first <= last"
            )
        for key, value in node.items():
            found += _empty_ranges(value, (*path, key))
    return found


def check_config(config: Mapping, schema_path: str | Path) -> None:
    """Raise ``ConfigError`` listing every problem if ``config`` does not match the schema."""
    problems = config_errors(config, load_yaml(schema_path)) or _empty_ranges(config)
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise ConfigError(f"config is invalid, nothing was run:\n{lines}")
