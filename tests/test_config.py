"""A bad config stops the run at once, names the key and what is allowed, and writes nothing."""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import ROOT, snakemake

from attnmem.config import ConfigError, check_config, config_errors, load_yaml

SCHEMA_PATH = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = load_yaml(SCHEMA_PATH)
DEFAULT = load_yaml(ROOT / "config" / "config.yaml")


def broken(edit) -> dict:
    config = copy.deepcopy(DEFAULT)
    edit(config)
    return config


def test_default_config_is_valid():
    assert config_errors(DEFAULT, SCHEMA) == []


def test_committed_schema_and_manifest_are_generated_from_the_declarations():
    """workflow/schemas/config.schema.yaml and experiments.json are what `python -m attnmem
    schema` makes from the @experiment declarations: nobody edits them by hand."""
    from attnmem import schema

    assert schema.stale() == [], "run `python -m attnmem schema` and commit the result"


def test_schema_has_a_block_for_every_experiment():
    from attnmem.experiments import registry

    blocks = SCHEMA["properties"]["experiments"]["properties"]
    assert sorted(blocks) == sorted(registry())
    assert sorted(SCHEMA["properties"]["experiments"]["required"]) == sorted(registry())
    for name, exp in registry().items():
        assert sorted(set(blocks[name]["properties"]) - {"shard"}) == sorted(
            exp.grid + exp.params
        ), name
        assert blocks[name]["properties"]["shard"] == {"$ref": "#/$defs/shard"}, name


def test_a_declaration_must_match_its_function():
    """Declaring a key the function does not take, or leaving one of its arguments out, is
    refused when the module is imported, naming both."""
    from attnmem.spec import Output, experiment, integer

    def science(a, b, rng):
        return {"x": a + b}

    with pytest.raises(TypeError, match=r"\['c'\].*\['b'\]"):
        experiment(
            params={"a": integer(), "c": integer()}, outputs=(Output("x", "x"),), sections=()
        )(science)
    declared = experiment(
        grid={"a": integer()}, params={"b": integer()}, outputs=(Output("x", "x"),), sections=()
    )(science)
    assert declared is science and science.experiments[0].grid == ("a",)


def test_the_snakefile_finds_the_declared_experiments_without_importing_them():
    """sources.py scans the modules' text for @experiment; the scan must agree with the
    imported declarations (name and module), or the Snakefile would miss an experiment."""
    from attnmem.experiments import registry
    from attnmem.sources import experiment_modules

    assert experiment_modules() == {n: e.module for n, e in registry().items()}


def test_bounds_in_messages_come_from_the_declaration():
    config = broken(lambda c: c["experiments"]["score_scale"].update(threshold=1.5))
    (problem,) = config_errors(config, SCHEMA)
    assert "experiments.score_scale.threshold" in problem
    assert "a number > 0 and < 1" in problem, problem


CASES = {
    "negative value": (
        lambda c: c["experiments"]["markov_table"].update(vocab=[-3, 5]),
        ["experiments.markov_table.vocab", "-3"],
    ),
    "empty grid": (
        lambda c: c["experiments"]["soft_lookup"].update(beta=[]),
        ["experiments.soft_lookup.beta", "non-empty"],
    ),
    "empty range": (
        lambda c: c["experiments"]["markov_table"].update(context={"first": 5, "last": 2}),
        ["experiments.markov_table.context", "empty"],
    ),
    "misspelt key": (
        lambda c: c["experiments"]["soft_lookup"].update(betta=[1]),
        ["experiments.soft_lookup", "'betta'", "allowed keys: beta"],
    ),
    "string for a number": (
        lambda c: c["experiments"]["soft_lookup"].update(beta=["one"]),
        ["experiments.soft_lookup.beta[0]", "'one'"],
    ),
    "unknown experiment": (
        lambda c: c["experiments"].update(no_such_thing={"x": [1]}),
        ["experiments", "'no_such_thing'", "allowed keys:"],
    ),
    "missing block": (
        lambda c: c["experiments"].pop("markov_table"),
        ["experiments", "'markov_table' is a required property"],
    ),
    "bad seed": (lambda c: c.update(seed="abc"), ["seed", "'abc'"]),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_value_is_named(case):
    edit, fragments = CASES[case]
    with pytest.raises(ConfigError) as err:
        check_config(broken(edit), SCHEMA_PATH)
    text = str(err.value)
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"


def test_snakemake_refuses_a_bad_config_and_writes_nothing(tmp_path):
    bad = broken(lambda c: c["experiments"]["soft_lookup"].update(beta=[-1]))
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    proc = snakemake(
        "--cores",
        "1",
        "--configfile",
        str(tmp_path / "bad.yaml"),
        "--directory",
        str(tmp_path),
        check=False,
    )
    assert proc.returncode != 0
    assert "experiments.soft_lookup.beta[0]" in proc.stdout + proc.stderr
    written = {p.name for p in tmp_path.iterdir()} - {"bad.yaml", ".snakemake"}
    assert not written, f"a refused run wrote {written}"
    assert not (tmp_path / "results").exists()
