"""The workflow checks the registry before any job: every entry that names something the
pipeline does not make (a cube, a variable, a dim, a grid value), a misspelled tolerance or a
duplicate id is refused at parse time with a line naming the entry and its file."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REGISTRY, ROOT

from attnmem import registry_lint
from attnmem.config import load_yaml
from attnmem.schema import load_manifest

CONFIG = load_yaml(ROOT / "config" / "config.yaml")
MANIFEST = load_manifest(ROOT / "workflow" / "schemas" / "experiments.json")
FILE = "config/claims/soft-dictionary/test.yaml"


def good(**changes) -> dict:
    """An entry the pipeline accepts (the weight of 'sat' on itself at beta = 1000)."""
    entry = {
        "id": "soft-dictionary/test/good",
        "line": 1,
        "tag": "derived",
        "claim": "a test entry of the pipeline check",
        "stated": {"value": "1"},
        "check": {"var": "top_weight", "sel": {"beta": 1000, "query": "sat"}},
        "evidence": "recomputed",
        "audit": "a test entry of the pipeline check",
    }
    return {**entry, **changes}


def problems(project: Path, *entries, config=CONFIG, other: list | None = None) -> list[str]:
    """Write the entries as one registry file of a project (its default cube soft_lookup),
    and ``other`` as a second file, then run the pipeline check."""
    path = project / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"defaults": {"cube": "soft_lookup"}, "claims": list(entries)}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    if other is not None:
        (path.parent / "other.yaml").write_text(yaml.safe_dump(other, sort_keys=False))
    return registry_lint.pipeline_problems(project / "config" / "claims", config, MANIFEST)


def named(found: list[str], entry_id: str, *words: str) -> bool:
    """Some problem names the entry, its file and every word."""
    return any(p.startswith(f"{entry_id} ({FILE})") and all(w in p for w in words) for p in found)


def test_the_registry_of_the_project_passes():
    assert registry_lint.pipeline_problems(REGISTRY, CONFIG, MANIFEST) == []


def test_the_registry_passes_on_the_wide_preset_too():
    """config/wide.yaml widens grids the registry reads: every selection must still find its
    values, and every list of stated values as many points (the claims table is built on it)."""
    wide = copy.deepcopy(CONFIG)
    for name, block in load_yaml(ROOT / "config" / "wide.yaml")["experiments"].items():
        wide["experiments"][name].update(block)
    assert registry_lint.pipeline_problems(REGISTRY, wide, MANIFEST) == []


def test_more_points_than_stated_values_is_named(tmp_path):
    """Three stated values against a selection that reads all of beta's values (a grid widened
    past what the note states) is named before any job, with both counts."""
    betas = len(CONFIG["experiments"]["soft_lookup"]["beta"])
    loose = good(
        stated={"value": ["1", "1", "1"]}, check={"var": "top_weight", "sel": {"query": "sat"}}
    )
    found = problems(tmp_path, loose)
    assert named(found, "soft-dictionary/test/good", "states 3 values", f"reads {betas}"), found
    picked = CONFIG["experiments"]["soft_lookup"]["beta"][:3]
    tight = good(
        stated={"value": ["1", "1", "1"]},
        check={"var": "top_weight", "sel": {"query": "sat", "beta": picked}},
    )
    assert problems(tmp_path, tight) == []


def test_a_good_entry_passes(tmp_path):
    assert problems(tmp_path, good()) == []


def test_an_unknown_cube_is_named(tmp_path):
    found = problems(tmp_path, good(check={"cube": "no_such_cube", "var": "top_weight"}))
    assert named(found, "soft-dictionary/test/good", "no experiment makes cube 'no_such_cube'")


def test_an_unknown_variable_is_named(tmp_path):
    found = problems(tmp_path, good(check={"var": "no_such_var", "sel": {"beta": 1}}))
    assert named(found, "soft-dictionary/test/good", "soft_lookup has no variable 'no_such_var'")


def test_a_dim_the_variable_does_not_have_is_named(tmp_path):
    check = {"var": "order_error", "sel": {"beta": 1, "query": "sat"}}
    assert named(problems(tmp_path, good(check=check)), "soft-dictionary/test/good", "'query'")


def test_a_selection_the_grid_no_longer_holds_is_named(tmp_path):
    assert problems(tmp_path, good()) == []
    config = copy.deepcopy(CONFIG)
    config["experiments"]["soft_lookup"]["beta"].remove(1000)
    found = problems(tmp_path, good(), config=config)
    assert named(found, "soft-dictionary/test/good", "beta = 1000", "grid in the config")


def test_a_value_off_the_fixed_coordinates_is_named(tmp_path):
    check = {"var": "top_weight", "sel": {"beta": 1, "query": "dog"}}
    found = problems(tmp_path, good(check=check))
    assert named(found, "soft-dictionary/test/good", "query = dog", "fixed coordinates")


def test_each_kind_of_dim_is_checked_against_its_own_values(tmp_path):
    """A grid key against the expanded grid, a dim listed by a config parameter against that
    parameter, a fixed dim against the manifest, a computed dim not at all."""
    manifest = {
        "toy": {
            "grid": ["beta", "seed"],
            "params": ["widths"],
            "outputs": {"y": ["width", "key", "step"]},
            "coords": {"width": {"param": "widths"}, "key": ["a", "b"], "step": None},
        }
    }
    config = {"experiments": {"toy": {"beta": [2, 1], "seed": {"count": 3}, "widths": [8, 16]}}}
    sel = {"beta": 2, "seed": [0, 2], "width": 16, "key": "b", "step": 99}
    entry = good(check={"cube": "toy", "var": "y", "sel": sel})
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump([entry]))
    root = tmp_path / "config" / "claims"
    assert registry_lint.pipeline_problems(root, config, manifest) == []
    sel = {"beta": 3, "seed": 3, "width": 32, "key": "c", "step": 99}
    path.write_text(yaml.safe_dump([good(check={"cube": "toy", "var": "y", "sel": sel})]))
    found = registry_lint.pipeline_problems(root, config, manifest)
    for words in (
        ["beta = 3", "the grid in the config"],
        ["seed = 3", "the grid in the config"],
        ["width = 32", "the config's widths"],
        ["key = c", "fixed coordinates"],
    ):
        assert named(found, "soft-dictionary/test/good", *words), (words, found)
    assert len(found) == 4, found


def test_a_nearby_number_is_found_as_the_judge_finds_it(tmp_path):
    check = {"var": "top_weight", "sel": {"beta": 1000.0 + 1e-12, "query": "sat"}}
    assert problems(tmp_path, good(check=check)) == []


@pytest.mark.parametrize(
    "tolerance, words",
    [
        ({"abss": 1e-9}, ["unknown tolerance key 'abss'"]),
        ({"abs": -1e-9}, ["tolerance abs must be a positive number"]),
        ({"quantile": 1.5}, ["tolerance quantile must be in (0, 1)"]),
        ("aprox", ["unknown tolerance 'aprox'"]),
    ],
)
def test_a_misspelled_or_negative_tolerance_is_named(tmp_path, tolerance, words):
    found = problems(tmp_path, good(tolerance=tolerance))
    assert named(found, "soft-dictionary/test/good", *words), found


def test_a_replicate_mean_needs_a_statistical_tolerance(tmp_path):
    check = {"cube": "score_scale", "var": "top_div", "sel": {"d_k": 4}}
    found = problems(tmp_path, good(check=check, tolerance={"se": 4}))
    assert named(found, "soft-dictionary/test/good", "read at every seed")
    assert named(found, "soft-dictionary/test/good", "needs every check 'over' replicates")


def test_a_duplicate_id_names_both_files(tmp_path):
    twin = {**good(), "check": {"cube": "soft_lookup", "var": "top_weight", "sel": {"beta": 1}}}
    found = problems(tmp_path, good(), other=[twin])
    assert found == [
        "duplicate claim id: soft-dictionary/test/good "
        f"(in config/claims/soft-dictionary/other.yaml, {FILE})"
    ]


def test_a_file_that_cannot_be_expanded_is_named(tmp_path):
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump([good()]))  # no defaults: the check names no cube
    found = registry_lint.pipeline_problems(tmp_path / "config" / "claims", CONFIG, MANIFEST)
    assert len(found) == 1 and f"{FILE}: soft-dictionary/test/good" in found[0], found
    assert "names no cube" in found[0]


def test_a_field_the_schema_does_not_know_is_named(tmp_path):
    found = problems(tmp_path, good(tolerence="approx"))
    assert named(found, "soft-dictionary/test/good", "'tolerence' was unexpected")


def test_the_check_is_skipped_until_something_it_reads_changes(tmp_path):
    root, stamp = tmp_path / "config" / "claims", tmp_path / ".snakemake" / "registry.sha256"
    problems(tmp_path, good())
    assert registry_lint.check_registry_once(root, CONFIG, MANIFEST, stamp) == []
    assert stamp.exists()
    key = stamp.read_text()
    assert registry_lint.check_registry_once(root, CONFIG, MANIFEST, stamp) == []
    problems(tmp_path, good(check={"cube": "no_such_cube", "var": "x"}))
    assert registry_lint.check_registry_once(root, CONFIG, MANIFEST, stamp)
    assert stamp.read_text() == key, "a registry with problems is never stamped"


def test_the_message_lists_twenty_problems_then_counts_the_rest():
    text = registry_lint.summary([f"problem {i}" for i in range(25)])
    assert text.splitlines()[-1] == "... and 5 more" and len(text.splitlines()) == 21


def test_snakemake_refuses_an_unknown_cube_before_any_job(tmp_path):
    """In a copy of the project, a registry entry naming a cube no experiment makes stops a
    dry run at parse time, with a message naming the entry and its file."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copytree(ROOT / "workflow", project / "workflow")
    shutil.copytree(ROOT / "config", project / "config")
    (project / "src").symlink_to(ROOT / "src")
    bad = project / FILE
    bad.write_text(
        yaml.safe_dump([good(id="soft-dictionary/test/ghost", check={"cube": "ghost", "var": "x"})])
    )
    exe = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run(
        [str(exe) if exe.exists() else "snakemake", "-n", "--cores", "1"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert f"soft-dictionary/test/ghost ({FILE}): no experiment makes cube 'ghost'" in out, out
    assert "the claims registry has 1 problem(s); no job was run" in out, out
    assert "Job stats" not in out and "jobid" not in out, out  # refused while the DAG is built
    assert not (project / ".snakemake" / "attnmem" / "registry.sha256").exists()


def test_an_id_naming_another_note_than_its_folder_is_named(tmp_path):
    """A registry file lives in its note's folder: an entry of config/claims/soft-dictionary/
    whose id names every-word would judge one note's sentence under another's name."""
    stray = good(id="every-word/test/stray")
    found = problems(tmp_path, stray)
    assert named(found, "every-word/test/stray", "names the note 'every-word'", "soft-dictionary")


def test_a_figure_no_module_declares_is_named(tmp_path):
    found = problems(tmp_path, good(figure="soft-dictionary/no-such-figure"))
    assert named(found, "soft-dictionary/test/good", "figure 'soft-dictionary/no-such-figure'")
    from attnmem import views

    real = views.figures()[0].id
    assert problems(tmp_path, good(figure=real)) == []


@pytest.mark.parametrize("value", ["0.0.73", "1,2.3.4", "--3", "12..5%"])
def test_a_stated_value_that_looks_like_a_number_but_is_none_is_named(tmp_path, value):
    """A misprint such as "0.0.73" would be compared as a label (and fail, or pass against a
    label) instead of stopping the run."""
    found = problems(tmp_path, good(stated={"value": value}))
    assert named(found, "soft-dictionary/test/good", f"stated value {value!r} looks like"), found


@pytest.mark.parametrize(
    "tolerance, words",
    [
        ({"abs": 1e9}, ["abs 1000000000.0 is wider than floating-point rounding"]),
        ({"rel": 0.1}, ["no rel tolerance"]),
    ],
)
def test_the_lints_tolerance_policy_runs_before_any_job(tmp_path, tolerance, words):
    """`tolerance: {abs: 1e9}` passes every value, and `rel` is no longer a rule: the
    pipeline's registry check refuses them, not only `python -m attnmem lint`."""
    found = problems(tmp_path, good(tolerance=tolerance))
    assert named(found, "soft-dictionary/test/good", *words), found


def test_a_mean_over_a_dim_that_is_not_a_replicate_is_named(tmp_path):
    """`over:` averages replicates: over a grid key such as beta it would mix different
    settings into one band (and the judge fails after every cube is built)."""
    check = {"var": "top_weight", "sel": {"query": "sat"}, "over": "beta"}
    found = problems(tmp_path, good(check=check, tolerance={"se": 4}))
    assert named(found, "soft-dictionary/test/good", "'over: beta'", "not a replicate dim"), found
    seeds = {"cube": "score_scale", "var": "top_div", "sel": {"d_k": 4}, "over": "seed"}
    found = problems(tmp_path, good(check=seeds, tolerance={"se": 4}))
    assert not any("replicate dim" in p for p in found), found
    # an extreme may run over a swept dim: the bound then holds at every value of it
    extreme = {"cube": "score_scale", "var": "top_div", "max": "d_k", "sel": {"seed": 0}}
    found = problems(tmp_path, good(check=extreme, stated={"value": "1", "relation": "<"}))
    assert not any("replicate dim" in p for p in found), found


def test_a_registry_file_that_is_not_yaml_is_named_with_line_and_column(tmp_path):
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    path.write_text("claims:\n- id: soft-dictionary/test/x\n  claim: [unclosed\n  line: 3\n")
    (found,) = registry_lint.pipeline_problems(tmp_path / "config/claims", CONFIG, MANIFEST)
    assert f"{path}, line 4, column" in found and "expected ',' or ']'" in found, found
