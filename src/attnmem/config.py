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


class YamlError(ConfigError):
    """A YAML file that does not parse; the message names the file, line and column."""


def load_yaml(path: str | Path):
    """The parsed YAML file; one that does not parse raises ``YamlError`` naming the file and
    the line and column (counted from 1) where the parser stopped, with what it found there."""
    with open(path, encoding="utf-8") as fh:
        try:
            return yaml.load(fh, Loader=_Loader)  # noqa: S506 (a safe loader)
        except yaml.YAMLError as err:
            raise YamlError(yaml_message(path, err)) from None


def yaml_message(path: str | Path, err: yaml.YAMLError) -> str:
    """``<path>, line L, column C: <problem> (<context>, line L2, column C2)``: where a YAML
    parser stopped, in one line (PyYAML's own text spreads it over four)."""
    mark = getattr(err, "problem_mark", None)
    if mark is None:
        return f"{path}: not valid YAML ({' '.join(str(err).split())})"
    text = f"{path}, line {mark.line + 1}, column {mark.column + 1}: {err.problem}"
    context, start = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and start is not None:
        text += f" ({context} that starts at line {start.line + 1}, column {start.column + 1})"
    elif context:
        text += f" ({context})"
    return text


def check_yaml_once(path: str | Path, stamp: str | Path) -> None:
    """Raise ``YamlError`` (file, line, column) if ``path`` exists and is not valid YAML. The
    Snakefile runs it before Snakemake reads its config file, since Snakemake's own message
    for a file that does not parse names no line. A hash of a text found valid is kept in
    ``stamp`` (a cache outside results/), so an unchanged file is not parsed twice a run."""
    import hashlib

    path, stamp = Path(path), Path(stamp)
    if not path.exists():
        return
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == key:
        return
    load_yaml(path)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key + "\n", encoding="utf-8")


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

    validator = _Validator()(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    return [_message(e, schema) for e in errors]


def _Validator():  # noqa: N802 (a class)
    """JSON schema's validator with one change: an integer is an int, never a float with no
    fraction (JSON schema takes 1e9 written 1.0e9 as an integer, and the science would get a
    float where it counts, ``range(1e9)``)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool)
    )
    return jsonschema.validators.extend(base, type_checker=checker)


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
        or _rule_problems(config, schema_path)
    )
    if not problems:
        problems = _snakemake_problems(config, schema_path)
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise ConfigError(f"config is invalid, nothing was run:\n{lines}")


def _rule_problems(config: Mapping, schema_path: str | Path) -> list[str]:
    """The constraints between keys that the schema cannot state (attnmem.constraints), from
    the manifest beside the schema: a width divisible by every head count, a shard.by that
    names a grid key."""
    import json

    from .constraints import problems

    manifest_path = Path(schema_path).with_name("experiments.json")
    if not manifest_path.exists():
        return []
    return problems(config, json.loads(manifest_path.read_text(encoding="utf-8")))


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
    manifest = Path(schema_path).with_name("experiments.json")  # its rules are checked too
    texts += [manifest.read_text(encoding="utf-8")] if manifest.exists() else []
    texts += [Path(f).read_text(encoding="utf-8") for f in files]
    here = Path(__file__).parent  # and the code that checks: a new rule revalidates
    texts += [(here / f).read_text(encoding="utf-8") for f in ("config.py", "constraints.py")]
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
