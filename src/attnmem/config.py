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


def _allowed(schema: Mapping, schema_path) -> str:
    """What the schema allows at the failing place: the nearest description on the way down
    the schema path (following $ref), or a pointer to the schema file."""
    node, found = schema, None
    for step in schema_path:
        while isinstance(node, Mapping) and "$ref" in node:
            node = _resolve(schema, node["$ref"])
            found = node.get("description", found)
        if step == "$ref":
            continue
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, Mapping):
            found = node.get("description", found)
    return found or "see workflow/schemas/config.schema.yaml"


def _resolve(schema: Mapping, ref: str) -> Mapping:
    node = schema
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _message(err, schema: Mapping) -> str:
    where = _where(err.absolute_path)
    allowed = _allowed(schema, err.absolute_schema_path)
    if err.validator in ("oneOf", "anyOf") and err.context:
        # The alternative that got furthest into the value says most about what is wrong.
        deepest = max(err.context, key=lambda e: len(e.absolute_path))
        return f"{_where(deepest.absolute_path)}: {deepest.message}; allowed: {allowed}"
    if err.validator == "additionalProperties":
        keys = sorted(err.schema.get("properties", {}))
        unknown = ", ".join(map(repr, sorted(set(err.instance) - set(keys))))
        return f"{where}: unknown key(s) {unknown}; allowed keys: {', '.join(keys)}"
    if err.validator == "required":
        return f"{where}: {err.message}"
    return f"{where}: {err.message}; allowed: {allowed}"


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


def _non_finite(node, path=()) -> list[str]:
    """NaN and infinities (YAML's .nan, .inf): every bound of a JSON schema lets NaN through."""
    import math

    if isinstance(node, float) and not math.isfinite(node):
        return [f"{_where(path)}: {node} is not a finite number; allowed: finite numbers only"]
    items = (
        node.items()
        if isinstance(node, Mapping)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    return [p for key, value in items for p in _non_finite(value, (*path, key))]


def duplicate_keys(path: str | Path) -> list[str]:
    """Keys written twice in one mapping of a YAML file (YAML loaders keep the last silently:
    a second block for an experiment would replace the first without a word)."""
    with open(path, encoding="utf-8") as fh:
        root = yaml.compose(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key, value in node.value:
                if key.value in seen:
                    found.append(
                        f"{path}, line {key.start_mark.line + 1}: key {key.value!r} is written "
                        f"twice (first at line {seen[key.value]}); YAML would keep only the last"
                    )
                seen.setdefault(key.value, key.start_mark.line + 1)
                todo.append(value)
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
    return sorted(found)


def check_config(config: Mapping, schema_path: str | Path) -> None:
    """Raise ``ConfigError`` listing every problem if ``config`` does not match the schema.

    Our own reading comes first (one line per problem, naming the key and what is allowed);
    Snakemake's ``validate`` then has the last word, so the config is checked exactly as a
    Snakemake workflow checks its config, and anything it alone finds is reported too."""
    problems = (
        _non_finite(config)
        or config_errors(config, load_yaml(schema_path))
        or _empty_ranges(config)
    )
    if not problems:
        problems = _snakemake_problems(config, schema_path)
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise ConfigError(f"config is invalid, nothing was run:\n{lines}")


def _snakemake_problems(config: Mapping, schema_path: str | Path) -> list[str]:
    """What ``snakemake.utils.validate`` finds (without filling in defaults: ours has none)."""
    try:
        from snakemake.utils import validate
    except ImportError:  # the package alone (python -m attnmem) runs without Snakemake
        return []
    try:
        validate(dict(config), str(schema_path), set_default=False)
    except Exception as err:  # WorkflowError, whose text holds jsonschema's message
        return [" ".join(str(err).split())]
    return []


def run_record(config: Mapping, name: str) -> dict:
    """What an experiment's cube is computed from: its config block (without the ``shard``
    setting, which changes no value) and the global seed. Its snapshot (attnmem.snapshots),
    named by its hash, is the output that reruns the experiment when it changes."""
    from .shards import science_block

    return {
        "experiment": name,
        "seed": config["seed"],
        "block": science_block(config["experiments"][name]),
    }


def check_config_once(
    config: Mapping, schema_path: str | Path, stamp: str | Path, files=()
) -> None:
    """``check_config`` (and, for the config ``files`` it was read from, ``duplicate_keys``),
    skipped when this very config and these very files were already found valid against this
    very schema (a hash of all is kept in ``stamp``, a cache outside results/). Validation costs
    half a second that a run with nothing to do should not pay; any edit revalidates."""
    import hashlib
    import json

    texts = [Path(schema_path).read_text(encoding="utf-8")]
    texts += [Path(f).read_text(encoding="utf-8") for f in files]
    key = hashlib.sha256(
        "\0".join([json.dumps(config, sort_keys=True, default=str), *texts]).encode()
    ).hexdigest()
    stamp = Path(stamp)
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == key:
        return
    duplicates = [d for f in files for d in duplicate_keys(f)]
    if duplicates:
        lines = "\n".join(f"  - {d}" for d in duplicates)
        raise ConfigError(f"config is invalid, nothing was run:\n{lines}")
    check_config(config, schema_path)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key + "\n", encoding="utf-8")
