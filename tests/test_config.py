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


@pytest.mark.pipeline
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


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_are_refused(value):
    """NaN passes every minimum of a JSON schema (all comparisons are false): refuse it first."""
    config = broken(lambda c: c["experiments"]["score_scale"].update(threshold=value))
    with pytest.raises(ConfigError, match=r"experiments\.score_scale\.threshold: .* not a finite"):
        check_config(config, SCHEMA_PATH)


def test_a_key_written_twice_is_refused(tmp_path):
    """A second block for the same experiment (or a key repeated inside one) would silently
    replace the first; the config files are read for duplicates before anything runs."""
    from attnmem.config import check_config_once

    text = (ROOT / "config" / "config.yaml").read_text()
    text = text.replace("  score_scale:\n", "  score_scale:\n    rows: 10\n", 1)
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"key 'rows' is written twice"):
        check_config_once(DEFAULT, SCHEMA_PATH, tmp_path / "stamp", files=[path])
    assert not (tmp_path / "stamp").exists()


def test_a_global_seed_too_large_for_a_cube_is_refused():
    config = broken(lambda c: c.update(seed=2**64))
    with pytest.raises(ConfigError, match=r"seed: .*maximum"):
        check_config(config, SCHEMA_PATH)


def _over_limits(config):
    from attnmem.costs import load_costs, over_limits
    from attnmem.schema import load_manifest

    costs = load_costs(ROOT / "workflow" / "schemas" / "costs.json")
    return over_limits(config, load_manifest(), costs)


def test_a_huge_grid_is_refused_with_its_estimate_before_anything_runs():
    """A seed count or a range of 10^8 is counted without being expanded, and refused with how
    long and how much memory it would take; the default and wide presets pass."""
    assert _over_limits(DEFAULT) == []
    wide = copy.deepcopy(DEFAULT)
    for name, block in load_yaml(ROOT / "config" / "wide.yaml")["experiments"].items():
        wide["experiments"][name].update(block)
    assert _over_limits(wide) == []
    huge = broken(lambda c: c["experiments"]["score_scale"].update(seed={"count": 10**8}))
    (problem,) = _over_limits(huge)
    assert problem.startswith("experiments.score_scale: 1,000,000,000 grid points"), problem
    assert "GB of memory" in problem and "limits.hours" in problem
    ranged = broken(
        lambda c: c["experiments"]["recurrence_scan"].update(n={"first": 1, "last": 10**8})
    )
    assert _over_limits(ranged), "a range of 10^8 values passed"
    raised = copy.deepcopy(huge)
    raised["limits"] = {"hours": 1e9, "memory_gb": 1e9}
    assert _over_limits(raised) == [], "raising the limits explicitly must let it through"


def test_a_point_holding_too_much_memory_is_refused_on_its_size_parameters():
    """Rows of a million tokens (score_scale's rows and tokens are declared memory=True): each
    point would hold far more than the memory limit, refused before anything runs, while the
    grid itself stays small."""
    huge = broken(lambda c: c["experiments"]["score_scale"].update(tokens=10**6))
    (problem,) = _over_limits(huge)
    assert problem.startswith("experiments.score_scale: "), problem
    assert "held by a point at" in problem and "tokens = 4" in problem, problem
    gigabytes = float(problem.split(" GB of memory")[0].rsplit(" ", 1)[-1].replace(",", ""))
    assert gigabytes > 8, problem


def test_a_training_run_far_longer_than_measured_is_refused_on_its_steps():
    """The grid of induction_training stays small, but its cost per point grows with its
    training steps (declared work=True): a thousandfold `steps` is refused, saying so."""
    long_run = broken(lambda c: c["experiments"]["induction_training"].update(steps=1_500_000))
    (problem,) = _over_limits(long_run)
    assert problem.startswith("experiments.induction_training: 6 grid points"), problem
    assert "at steps = 1,500, 1,000 times that here" in problem, problem
    short = broken(lambda c: c["experiments"]["induction_training"].update(steps=15))
    assert _over_limits(short) == []


def test_a_list_of_model_widths_scales_the_cost_by_its_sum():
    """fact_capacity trains one model per width inside each point (``widths``, declared
    work=True): widening the list scales the estimate by the sum of the widths, with the steps."""
    from attnmem.costs import work_scale

    cost = {"at": {"widths": [2, 4, 8, 16], "steps": 1200}}
    wide = {"widths": [2, 4, 8, 16, 32, 64, 128], "steps": 4000}
    assert work_scale(wide, ("widths", "steps"), cost) == pytest.approx(254 / 30 * 4000 / 1200)
    huge = broken(lambda c: c["experiments"]["fact_capacity"].update(widths=list(range(1, 3001))))
    (problem,) = _over_limits(huge)
    assert "at widths = [2, 4, 8, 16]" in problem, problem


def test_the_one_check_command_names_a_setting_and_an_entry_the_grid_lost(tmp_path, capsys):
    """`python -m attnmem check`: dropping beta = 1000 from soft_lookup's grid is reported for
    the registry entries that read it, before anything is computed."""
    from attnmem.cli import main

    text = (ROOT / "config" / "config.yaml").read_text()
    assert ", 100, 1000]" in text
    path = tmp_path / "config.yaml"
    path.write_text(text.replace(", 100, 1000]", ", 100]", 1))
    registry = str(ROOT / "config" / "claims")
    assert main(["--config", str(path), "check", "--registry", registry]) == 1
    out = capsys.readouterr().out
    assert "soft-dictionary/" in out and "1000" in out, out


RULES = {
    "ls_width off the widths": (
        lambda c: c["experiments"]["random_key_memory"].update(ls_width=33),
        "experiments.random_key_memory.ls_width: must be one of the widths",
    ),
    "width not divisible by a head count": (
        lambda c: c["experiments"]["attention_matrix_views"].update(width=100),
        "experiments.attention_matrix_views.width: the layer width must be divisible by every "
        "head count",
    ),
    "a head count that does not divide the width": (
        lambda c: c["experiments"]["attention_matrix_views"].update(head_counts=[1, 3]),
        "experiments.attention_matrix_views.width: ",
    ),
    "a trained width not divisible by its heads": (
        lambda c: c["experiments"]["toylang_training"].update(d_model=15),
        "experiments.toylang_training.d_model: d_model must be divisible by heads",
    ),
    "a list of widths one of which the heads do not divide": (
        lambda c: c["experiments"]["sequence_capacity"].update(d_models=[4, 5]),
        "experiments.sequence_capacity.d_models: every width in d_models",
    ),
    "a decayed store that never passes 1": (
        lambda c: c["experiments"]["fast_memory_exact"].update(age_dim=100),
        "experiments.fast_memory_exact.age_dim: the decayed store's error at gamma_check must "
        "pass 1",
    ),
    "a decayed store above 1 from the start": (
        lambda c: c["experiments"]["fast_memory_exact"].update(age_dim=1),
        "experiments.fast_memory_exact.age_dim: the decayed store's error at age 0",
    ),
    "a full memory too small for the linear read's loads": (
        lambda c: c["experiments"]["score_interference"].update(m_over_d=1),
        "experiments.score_interference.m_over_d: ",
    ),
    "shard.by naming no grid key": (
        lambda c: c["experiments"]["score_scale"].update(shard={"by": "seeds", "size": 50}),
        "experiments.score_scale.shard.by: 'seeds' is not a grid key of score_scale; "
        "allowed: d_k, seed",
    ),
}


@pytest.mark.parametrize("case", RULES, ids=list(RULES))
def test_a_constraint_between_keys_is_refused_naming_the_key(case):
    """Rules a schema cannot state (declared with `require` beside the experiment, written into
    the manifest) are checked with the config, before any job, naming the key and the rule."""
    edit, words = RULES[case]
    with pytest.raises(ConfigError) as err:
        check_config(broken(edit), SCHEMA_PATH)
    assert words in str(err.value), str(err.value)


def test_the_default_and_wide_configs_keep_every_constraint():
    from attnmem import constraints
    from attnmem.schema import load_manifest

    assert constraints.problems(DEFAULT, load_manifest()) == []
    wide = copy.deepcopy(DEFAULT)
    for name, block in load_yaml(ROOT / "config" / "wide.yaml")["experiments"].items():
        wide["experiments"][name].update(block)
    assert constraints.problems(wide, load_manifest()) == []


def test_the_decay_rules_accept_exactly_the_blocks_the_science_can_compute():
    """fast_memory_exact's two rules (written in the manifest's text) against the science they
    guard: over a small sweep, a block passes both rules iff decay_closed_forms finds both
    crossings rather than raising."""
    from attnmem import constraints
    from attnmem.experiments.fast_weights import decay_closed_forms
    from attnmem.schema import load_manifest

    declared = load_manifest()["fast_memory_exact"]
    base = DEFAULT["experiments"]["fast_memory_exact"]
    outcomes = set()
    for age_dim in (1, 2, 3, 5, 8, 13, 24, 40):
        for age_pairs in (2, 5, 24, 60):
            for gamma in (0.5, 0.9, 0.99, 1.0):
                block = dict(base, age_dim=age_dim, age_pairs=age_pairs, gamma_check=gamma)
                ok = not constraints.block_problems("fast_memory_exact", block, declared)
                try:
                    decay_closed_forms(age_dim, age_pairs, [gamma], gamma)
                    computes = True
                except ValueError:
                    computes = False
                assert ok == computes, (age_dim, age_pairs, gamma)
                outcomes.add(ok)
    assert outcomes == {True, False}


def test_a_rule_may_use_only_plain_expressions():
    """A rule is evaluated from the manifest's text: attributes, imports and calls of anything
    but a few builtins are refused (a declaration's bug, said at once)."""
    from attnmem.constraints import RuleError, block_problems

    for text in ("width.__class__", "__import__('os')", "open('x')"):
        declared = {"grid": [], "constraints": [{"check": text, "says": "x", "keys": ["width"]}]}
        with pytest.raises(RuleError):
            block_problems("toy", {"width": 4}, declared)


OVERFLOWS = {
    "N: 1e20 as an integer": (
        lambda c: c["experiments"]["random_key_memory"].update(N=10**20),
        "experiments.random_key_memory.N: 100000000000000000000 is greater than the maximum",
    ),
    "a vocabulary of 1e29": (
        lambda c: c["experiments"]["induction_training"].update(vocab=10**29),
        "experiments.induction_training.vocab: ",
    ),
    "a grid value of 1e20": (
        lambda c: c["experiments"]["bag_costs"].update(N=[2, 10**20]),
        "experiments.bag_costs.N[1]: ",
    ),
    "a range ending at 1e20": (
        lambda c: c["experiments"]["bag_costs"].update(L={"first": 0, "last": 10**20}),
        "experiments.bag_costs.L",
    ),
    "a seed count of 1e20": (
        lambda c: c["experiments"]["score_scale"].update(seed={"count": 10**20}),
        "experiments.score_scale.seed",
    ),
    "an integer written as a float (1.0e9)": (
        lambda c: c["experiments"]["attention_gradients"].update(train_steps=1e9),
        "experiments.attention_gradients.train_steps: 1000000000.0 is not of type 'integer'",
    ),
}


@pytest.mark.parametrize("case", OVERFLOWS, ids=list(OVERFLOWS))
def test_an_integer_past_the_declared_bounds_is_refused(case):
    """Every integer key is bounded by 2**53 (exact in a float64 cube) unless declared tighter:
    a count that would overflow the science's int64 arithmetic is refused by the schema."""
    edit, words = OVERFLOWS[case]
    with pytest.raises(ConfigError) as err:
        check_config(broken(edit), SCHEMA_PATH)
    assert words in str(err.value), str(err.value)


PRICED = {
    "training steps of the key walk": (
        "attention_gradients",
        {"train_steps": 10**9},
        "at train_steps = 40, 2.5e+07 times that here",
    ),
    "tokens of the fast-weight programs": (
        "fast_weight_algebra",
        {"tokens": 10**6},
        "8.333e+04 times that here",
    ),
    "draws of the attention matrices": (
        "attention_matrix_views",
        {"draws": 10**8},
        "5e+05 times that here",
    ),
    "steps of backpropagation through time": (
        "gradient_through_time",
        {"steps": 10**9},
        "1.562e+07 times that here",
    ),
    "a list of sizes (n x n matrices)": (
        "attention_matrix_views",
        {"n": [10, 1_000_000]},
        "1e+10 times that here",
    ),
}


@pytest.mark.parametrize("case", PRICED, ids=list(PRICED))
def test_a_cost_that_grows_with_a_parameter_is_priced_before_anything_runs(case):
    """Cost that comes from a parameter, not from grid points: a point's time and memory grow
    with the keys declared `work` and `memory` (to a power: an n x n matrix holds n^2), so such
    a block is refused with its estimate though its grid stays small."""
    name, change, words = PRICED[case]
    config = broken(lambda c: c["experiments"][name].update(change))
    (problem,) = _over_limits(config)
    assert problem.startswith(f"experiments.{name}: "), problem
    assert words in problem and "limits.hours" in problem, problem


def test_every_key_declared_to_scale_a_point_has_the_value_it_was_measured_at():
    """A declared `work` or `memory` key scales the measured cost by its value over the value
    measured (costs.json `at`); without that value it would scale nothing."""
    from attnmem.costs import load_costs
    from attnmem.schema import load_manifest

    costs = load_costs(ROOT / "workflow" / "schemas" / "costs.json")
    missing = [
        f"{name}.{key}"
        for name, declared in load_manifest().items()
        if name in costs
        for key in (*declared["work"], *declared["memory"])
        if key not in (costs[name].get("at") or {})
    ]
    assert not missing, f"run `python benchmarks/costs.py` (or --record-at): {missing}"


def test_a_grid_key_is_priced_by_the_mean_of_its_values_and_memory_by_the_largest():
    from attnmem.costs import work_scale

    cost = {"at": {"n": [10]}}
    block = {"n": [10, 30]}
    assert work_scale(block, {"n": 2.0}, cost, grid=("n",)) == pytest.approx((100 + 900) / 2 / 100)
    assert work_scale(block, {"n": 2.0}, cost, grid=("n",), peak=True) == pytest.approx(9.0)
    ranged = {"n": {"first": 1, "last": 10**9}}
    assert work_scale(ranged, {"n": 1.0}, {"at": {"n": [1]}}, grid=("n",)) > 1e8  # not expanded


FLOATS = {
    "beta: 1e308": (
        lambda c: c["experiments"]["soft_lookup"].update(beta=[1, 1e308]),
        "experiments.soft_lookup.beta[1]: 1e+308 is greater than the maximum",
    ),
    "a sharpness of 1e16": (
        lambda c: c["experiments"]["attention_gradients"].update(beta=1e16),
        "experiments.attention_gradients.beta: 1e+16 is greater than the maximum",
    ),
    "a sharpness past where the circle's weights turn NaN": (
        lambda c: c["experiments"]["soft_dictionary_circle"].update(beta=[0, 3000]),
        "experiments.soft_dictionary_circle.beta[1]: 3000 is greater than the maximum of 1000",
    ),
    "a negative entry of -1e16": (
        lambda c: c["experiments"]["single_head"].update(wq_3_1=[-1e16]),
        "experiments.single_head.wq_3_1[0]: -1e+16 is less than the minimum of -300",
    ),
}


@pytest.mark.parametrize("case", FLOATS, ids=list(FLOATS))
def test_a_real_that_would_break_a_cube_is_refused_by_its_declared_bound(case):
    """Every real key is bounded by 1e6 in magnitude unless declared otherwise, and keys whose
    science turns NaN sooner (found by benchmarks/scaling.py --extremes) declare their own."""
    edit, words = FLOATS[case]
    with pytest.raises(ConfigError) as err:
        check_config(broken(edit), SCHEMA_PATH)
    assert words in str(err.value), str(err.value)


def test_a_config_that_is_not_yaml_is_named_with_its_line_and_column(tmp_path, capsys):
    """Snakemake's own message for a config that does not parse names no line; ours (the
    Snakefile's check before Snakemake reads the file, and `python -m attnmem check`) names the
    file, the line and the column."""
    from attnmem.cli import main
    from attnmem.config import YamlError, load_yaml

    path = tmp_path / "config.yaml"
    path.write_text("seed: 1\nexperiments:\n  soft_lookup: {beta: [1, 2}\n")
    with pytest.raises(YamlError, match=rf"{path}, line 3, column \d+: "):
        load_yaml(path)
    registry = str(ROOT / "config" / "claims")
    assert main(["--config", str(path), "check", "--registry", registry]) == 1
    assert f"{path}, line 3, column" in capsys.readouterr().out


def test_an_overlay_config_is_checked_merged_and_named_with_its_line(tmp_path, capsys):
    """Snakemake reads a `--configfile` before the Snakefile runs, and says only that it is not
    valid YAML; `python -m attnmem check --configfile FILE` merges the file over the config as
    Snakemake does and names the line of a YAML error or the key a merged value breaks."""
    from attnmem.cli import main

    registry = str(ROOT / "config" / "claims")
    broken_file = tmp_path / "wider.yaml"
    broken_file.write_text("experiments:\n  score_scale:\n    d_k: [1, 2\n    seed: 3\n")
    assert main(["check", "--registry", registry, "--configfile", str(broken_file)]) == 1
    assert f"{broken_file}, line 4, column" in capsys.readouterr().out
    partial = tmp_path / "partial.yaml"  # one key of one block: valid only merged
    partial.write_text("experiments:\n  score_interference:\n    m_over_d: 3\n")
    assert main(["check", "--registry", registry, "--configfile", str(partial)]) == 0
    partial.write_text("experiments:\n  score_interference:\n    m_over_d: 1\n")
    assert main(["check", "--registry", registry, "--configfile", str(partial)]) == 1
    assert "experiments.score_interference.m_over_d" in capsys.readouterr().out
