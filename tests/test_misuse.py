"""The misuse catalogue (issue 27): what a user can do wrong to a built project, and what the
pipeline must answer.

Each probe copies the built default project (``cp -a``, so the copy is up to date), makes one
edit (a config value, a registry entry, a figure setting, a damaged or deleted output, a
kill, a string meant to inject), runs what a user would run there (mostly ``snakemake -n``,
whose checks run while the workflow is parsed, before any job), and checks the answer: the
refusal names the key, entry, setting or cube; and nothing under results/ or figures/ changed
where nothing should. Probes that must rebuild or stop something say what must come out.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from conftest import changed, copy_built, project_env, snakemake_in, tree_state

pytestmark = pytest.mark.pipeline


@dataclass(frozen=True)
class Probe:
    edit: Callable[[Path], None]
    expect: tuple[str, ...]  # fragments of Snakemake's (or the command's) output
    command: tuple[str, ...] = ("-n",)  # snakemake's arguments in the copy
    refused: bool = True  # a nonzero exit
    unchanged: bool = True  # nothing under results/ or figures/ is written
    outcome: Callable[[Path, str], None] | None = field(default=None)  # more to check


# ----------------------------------------------------------------------------- edits


def config_edit(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def edit(project: Path) -> None:
        path = project / "config" / "config.yaml"
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        change(config)
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")

    return edit


def block(name: str, **values) -> Callable[[Path], None]:
    """Set keys of one experiment's block."""
    return config_edit(lambda c: c["experiments"][name].update(values))


def setting(module: str, **values) -> Callable[[Path], None]:
    """Set figure settings of one figure module (config ``figures:``)."""
    return config_edit(lambda c: c["figures"].setdefault(module, {}).update(values))


def text_edit(old: str, new: str, path: str = "config/config.yaml") -> Callable[[Path], None]:
    def edit(project: Path) -> None:
        file = project / path
        text = file.read_text(encoding="utf-8")
        assert old in text, f"{old!r} is not in {path}"
        file.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


REGISTRY_FILE = "config/claims/soft-dictionary/probe.yaml"


def entry(**changes) -> dict:
    """A registry entry the pipeline accepts (the weight of 'sat' on itself at beta = 1000)."""
    return {
        "id": "soft-dictionary/probe/entry",
        "line": 1,
        "tag": "derived",
        "claim": "a probe of the registry check",
        "stated": {"value": "1"},
        "check": {"var": "top_weight", "sel": {"beta": 1000, "query": "sat"}},
        "evidence": "recomputed",
        "audit": "a probe of the registry check",
        **changes,
    }


def registry(*entries: dict, text: str | None = None) -> Callable[[Path], None]:
    """Add a registry file (its default cube soft_lookup) holding ``entries`` (or ``text``)."""

    def edit(project: Path) -> None:
        path = project / REGISTRY_FILE
        data = {"defaults": {"cube": "soft_lookup"}, "claims": list(entries)}
        path.write_text(text or yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    return edit


def damage(cube: str, how: str) -> Callable[[Path], None]:
    def edit(project: Path) -> None:
        path = project / "results" / f"{cube}.nc"
        if how == "truncated":
            path.write_bytes(path.read_bytes()[:4096])
        elif how == "garbage":
            path.write_bytes(os.urandom(path.stat().st_size))
        else:  # another valid cube in its place
            path.write_bytes((project / "results" / f"{how}.nc").read_bytes())

    return edit


def delete(*paths: str) -> Callable[[Path], None]:
    def edit(project: Path) -> None:
        for path in paths:
            (project / path).unlink()

    return edit


def first_figure() -> tuple[str, str]:
    """The id and module of the first figure of the scan."""
    from attnmem import views

    fig = views.figures()[0]
    return fig.id, fig.module


FIGURE, MODULE = first_figure()


def planned(*paths: str) -> Callable[[Path, str], None]:
    """The dry run plans a job because these files are missing (item 1: every promised file is
    a target, so a deleted one is made again)."""

    def check(project: Path, out: str) -> None:
        reasons = [line for line in out.splitlines() if "Missing output files" in line]
        for path in paths:
            assert any(path in r for r in reasons), f"{path} is not rebuilt:\n{out[-3000:]}"

    return check


def setting_values() -> dict:
    from conftest import ROOT

    from attnmem.config import load_yaml

    return load_yaml(ROOT / "config" / "config.yaml")["figures"]


SETTINGS = setting_values()


# ----------------------------------------------------------------------------- the catalogue

PROBES: dict[str, Probe] = {
    # --- configs: refused while the workflow is parsed, naming the key
    "config: a negative grid value": Probe(
        block("soft_lookup", beta=[-1, 1]), ("experiments.soft_lookup.beta[0]", "-1")
    ),
    "config: a misspelt key": Probe(
        block("soft_lookup", betta=[1]), ("experiments.soft_lookup", "'betta'", "allowed keys")
    ),
    "config: NaN": Probe(
        text_edit("threshold: 0.99", "threshold: .nan"),
        ("experiments.score_scale.threshold", "not a finite number"),
    ),
    "config: a block written twice": Probe(
        text_edit("  score_scale:\n", "  score_scale:\n    rows: 10\n"),
        ("key 'rows' is written twice",),
    ),
    "config: YAML that does not parse": Probe(
        text_edit("seed: 20261129", "seed: [20261129"),
        ("config/config.yaml, line", "column", "nothing was run"),
    ),
    "config: an unknown experiment": Probe(
        config_edit(lambda c: c["experiments"].update(no_such_thing={"x": [1]})),
        ("'no_such_thing'", "allowed keys"),
    ),
    "config: a missing block": Probe(
        config_edit(lambda c: c["experiments"].pop("markov_table")),
        ("'markov_table' is a required property",),
    ),
    "config: an empty range": Probe(
        block("markov_table", context={"first": 5, "last": 2}),
        ("experiments.markov_table.context", "empty"),
    ),
    "config: a seed too large for a cube": Probe(
        config_edit(lambda c: c.update(seed=2**64)), ("seed: ", "maximum")
    ),
    "config: a limit of zero hours": Probe(
        config_edit(lambda c: c.update(limits={"hours": 0})), ("limits.hours",)
    ),
    "bounds: N of 1e20": Probe(
        block("random_key_memory", N=10**20),
        ("experiments.random_key_memory.N: 100000000000000000000 is greater than the maximum",),
    ),
    "bounds: a vocabulary of 1e29": Probe(
        block("induction_training", vocab=10**29), ("experiments.induction_training.vocab",)
    ),
    "bounds: an integer written as a float": Probe(
        block("attention_gradients", train_steps=1e9),
        ("experiments.attention_gradients.train_steps", "is not of type 'integer'"),
    ),
    "bounds: beta of 1e308": Probe(
        block("soft_lookup", beta=[1, 1e308]),
        ("experiments.soft_lookup.beta[1]: 1e+308 is greater than the maximum",),
    ),
    "bounds: a sharpness of 1e16": Probe(
        block("attention_gradients", beta=1e16),
        ("experiments.attention_gradients.beta: 1e+16 is greater than the maximum",),
    ),
    "bounds: a sharpness where the circle's weights turn NaN": Probe(
        block("soft_dictionary_circle", beta=[0, 3000]),
        ("experiments.soft_dictionary_circle.beta[1]: 3000 is greater than the maximum of 1000",),
    ),
    "cost: a seed count of 1e8": Probe(
        block("score_scale", seed={"count": 10**8}),
        ("experiments.score_scale: 1,000,000,000 grid points", "limits.hours"),
    ),
    "cost: training steps of 1e9": Probe(
        block("attention_gradients", train_steps=10**9),
        ("experiments.attention_gradients: 4 grid points", "at train_steps = 40"),
    ),
    "cost: a million tokens": Probe(
        block("fast_weight_algebra", tokens=10**6),
        ("experiments.fast_weight_algebra: 60 grid points", "tokens = 12"),
    ),
    "cost: 1e8 draws": Probe(
        block("attention_matrix_views", draws=10**8),
        ("experiments.attention_matrix_views: 1 grid points", "draws = 200"),
    ),
    "cost: 1e9 steps through time": Probe(
        block("gradient_through_time", steps=10**9),
        ("experiments.gradient_through_time: 270 grid points", "steps = 64"),
    ),
    "cost: a list of sizes up to a million": Probe(
        block("attention_matrix_views", n=[10, 1_000_000]),
        ("experiments.attention_matrix_views: 2 grid points", "n = [10]"),
    ),
    "rule: ls_width off the widths": Probe(
        block("random_key_memory", ls_width=33),
        ("experiments.random_key_memory.ls_width: must be one of the widths", "ls_width = 33"),
    ),
    "rule: a width no head count divides": Probe(
        block("attention_matrix_views", width=100),
        ("experiments.attention_matrix_views.width", "divisible by every head count"),
    ),
    "rule: shard.by naming no grid key": Probe(
        block("score_scale", shard={"by": "seeds", "size": 50}),
        ("experiments.score_scale.shard.by: 'seeds' is not a grid key of score_scale",),
    ),
    "rule: a trained width its heads do not divide": Probe(
        block("toylang_training", d_model=15),
        ("experiments.toylang_training.d_model: d_model must be divisible by heads",),
    ),
    "rule: an enumeration of more than 10^7 sentences": Probe(
        block("bag_enumeration", L=[0, 1, 2, 3, 12]),
        ("experiments.bag_enumeration.L: the enumerated language",),
    ),
    # --- figure settings: refused in every run, a full `snakemake --cores 2` included
    "settings: a value the grid no longer holds": Probe(
        block("soft_lookup", beta=[0.0001, 0.1, 8, 1000]),
        (
            "figures.soft_lookup.printed_betas = [0.1, 1.0, 8.0] selects beta = 1 of "
            "soft_lookup, which the config experiments.soft_lookup does not hold",
        ),
        command=("--cores", "2"),
    ),
    "settings: a misspelt setting": Probe(
        setting(MODULE, no_such_setting=1),
        (f"figures.{MODULE}.no_such_setting: no figure of {MODULE} selects with it",),
        command=("--cores", "2"),
    ),
    "settings: an unknown figure module": Probe(
        setting("no_such_module", beta=1),
        ("figures.no_such_module: no figure module 'no_such_module' declares settings",),
        command=("--cores", "2"),
    ),
    "settings: a setting removed": Probe(
        config_edit(lambda c: c["figures"][MODULE].pop(next(iter(SETTINGS[MODULE])))),
        (f"figures.{MODULE}.{next(iter(SETTINGS[MODULE]))} is missing",),
        command=("--cores", "2"),
    ),
    # --- registry entries: refused before any job, naming the entry and its file
    "registry: an unknown cube": Probe(
        registry(entry(check={"cube": "ghost", "var": "x"})),
        (f"soft-dictionary/probe/entry ({REGISTRY_FILE}): no experiment makes cube 'ghost'",),
    ),
    "registry: an unknown variable": Probe(
        registry(entry(check={"var": "no_such_var", "sel": {"beta": 1}})),
        ("soft_lookup has no variable 'no_such_var'",),
    ),
    "registry: a value the grid does not hold": Probe(
        registry(entry(check={"var": "top_weight", "sel": {"beta": 7777, "query": "sat"}})),
        ("soft_lookup has no beta = 7777",),
    ),
    "registry: an id naming another note than its folder": Probe(
        registry(entry(id="every-word/probe/entry")),
        ("every-word/probe/entry", "names the note 'every-word'", "soft-dictionary"),
    ),
    "registry: a figure that does not exist": Probe(
        registry(entry(figure="soft-dictionary/no-such-figure")),
        ("figure 'soft-dictionary/no-such-figure' is no figure of the catalog",),
    ),
    "registry: a malformed stated value": Probe(
        registry(entry(stated={"value": "0.0.73"})),
        ("stated value '0.0.73' looks like a number but is not one",),
    ),
    "registry: an absolute tolerance of 1e9": Probe(
        registry(entry(tolerance={"abs": 1e9})), ("is wider than floating-point rounding",)
    ),
    "registry: a rel tolerance": Probe(
        registry(entry(tolerance={"rel": 0.1})), ("no rel tolerance",)
    ),
    "registry: a misspelt tolerance": Probe(
        registry(entry(tolerance="aprox")), ("unknown tolerance 'aprox'",)
    ),
    "registry: a mean over a key that is not a replicate": Probe(
        registry(
            entry(check={"var": "top_weight", "sel": {"query": "sat"}, "over": "beta"}),
        ),
        ("'over: beta'", "not a replicate dim of soft_lookup"),
    ),
    "registry: a duplicate id": Probe(
        registry(entry(), entry()), ("duplicate claim id: soft-dictionary/probe/entry",)
    ),
    "registry: YAML that does not parse": Probe(
        registry(text="claims:\n- id: soft-dictionary/probe/x\n  claim: [unclosed\n  line: 3\n"),
        (f"{REGISTRY_FILE}, line 4, column", "did not find expected"),
    ),
    # --- damaged outputs: a cube is named with the rule that rebuilds it
    "damaged: a truncated cube": Probe(
        damage("soft_lookup", "truncated"),
        ("results/soft_lookup.nc is damaged", "rule soft_lookup rebuilds it"),
    ),
    "damaged: garbage in a cube": Probe(
        damage("soft_lookup", "garbage"),
        ("results/soft_lookup.nc is damaged", "delete results/soft_lookup.nc"),
    ),
    "damaged: another valid cube in its place": Probe(
        damage("soft_lookup", "position_lookup"),
        ("results/soft_lookup.nc is damaged", "its checksum differs"),
    ),
    # --- deleted outputs: every promised file is made again
    "deleted: a figure": Probe(
        delete(f"figures/{FIGURE}.png"),
        (),
        refused=False,
        outcome=planned(f"figures/{FIGURE}.png"),
    ),
    "deleted: a caption": Probe(
        delete(f"figures/{FIGURE}.rst"),
        (),
        refused=False,
        outcome=planned(f"figures/{FIGURE}.rst"),
    ),
    "deleted: a figure check": Probe(
        delete(f"results/figure_checks/{MODULE}.json"),
        (),
        refused=False,
        outcome=planned(f"results/figure_checks/{MODULE}.json"),
    ),
    "deleted: the claims page and table": Probe(
        delete("results/claims.html", "results/claims.md"),
        (),
        refused=False,
        outcome=planned("results/claims.html", "results/claims.md"),
    ),
    "deleted: the errata": Probe(
        delete("results/errata.md"), (), refused=False, outcome=planned("results/errata.md")
    ),
    "deleted: a cube": Probe(
        delete("results/soft_lookup.nc"),
        (),
        refused=False,
        outcome=planned("results/soft_lookup.nc"),
    ),
    # --- injection: strings meant for a shell or a browser stay inert
    "injection: a shell command as an experiment name": Probe(
        config_edit(lambda c: c["experiments"].update({"x; touch pwned": {"x": [1]}})),
        ("'x; touch pwned'", "allowed keys"),
        outcome=lambda project, out: _not_run(project),
    ),
    "injection: a shell command as a figure setting": Probe(
        setting(MODULE, **{next(iter(SETTINGS[MODULE])): "$(touch pwned)"}),
        (f"figures.{MODULE}.",),
        command=("--cores", "2"),
        outcome=lambda project, out: _not_run(project),
    ),
}


def _not_run(project: Path) -> None:
    assert not (project / "pwned").exists() and not Path("pwned").exists()


@pytest.mark.parametrize("name", PROBES, ids=list(PROBES))
def test_probe(built_template, tmp_path, name):
    probe = PROBES[name]
    project = copy_built(built_template, tmp_path / "project")
    probe.edit(project)
    before = tree_state(project)  # after the user's own edit: the command must add nothing
    proc = snakemake_in(project, *probe.command)
    out = proc.stdout + proc.stderr
    if probe.refused:
        assert proc.returncode != 0, f"not refused:\n{out[-3000:]}"
        assert "jobid" not in out and "Job stats" not in out, f"jobs were planned:\n{out[-3000:]}"
    else:
        assert proc.returncode == 0, out[-3000:]
    for fragment in probe.expect:
        assert fragment in out, f"{fragment!r} not in:\n{out[-3000:]}"
    if probe.unchanged:
        assert changed(before, tree_state(project)) == []
    if probe.outcome is not None:
        probe.outcome(project, out)


def test_the_catalogue_is_large_and_every_probe_can_fail():
    """At least 40 probes over configs, settings, registry entries, damaged and deleted outputs,
    injection and (below) kills; every refusal names something."""
    kinds = {name.split(":")[0] for name in PROBES}
    assert len(PROBES) + len(KILLS) >= 40, len(PROBES)
    assert {
        "config",
        "bounds",
        "cost",
        "rule",
        "settings",
        "registry",
        "damaged",
        "deleted",
    } <= kinds
    assert all(p.expect or p.outcome for p in PROBES.values())


# ----------------------------------------------------------------------------- kills


def _start(project: Path, *args: str) -> subprocess.Popen:
    """Snakemake in its own process group (as a terminal runs it: Ctrl-C reaches the group)."""
    exe = Path(sys.executable).with_name("snakemake")
    with open(project / "snakemake.out", "w") as out:  # a file: a pipe nobody reads fills up
        return subprocess.Popen(
            [str(exe) if exe.exists() else "snakemake", *args],
            cwd=project,
            env=project_env(project),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _output(project: Path) -> str:
    return (project / "snakemake.out").read_text(encoding="utf-8", errors="replace")[-3000:]


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _locks(project: Path) -> list[Path]:
    return list((project / ".snakemake" / "locks").glob("*"))


def kill_then_dry_run(project: Path) -> None:
    """kill -9 of a running build leaves its lock: the next dry run says that no other
    Snakemake runs here and how to unlock, instead of claiming another instance runs."""
    proc = _start(project, "--cores", "1", "--forcerun", "claims", "results/claims.csv")
    _wait_for(lambda: bool(_locks(project)), 120, "the lock")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert _locks(project), "the kill left no lock to test"
    dry = snakemake_in(project, "-n")
    out = dry.stdout + dry.stderr
    assert "no other Snakemake runs in it" in out and "snakemake --unlock" in out, out[-3000:]
    unlock = snakemake_in(project, "--unlock")
    assert unlock.returncode == 0 and not _locks(project), unlock.stdout + unlock.stderr


def kill_during_a_cube_write(project: Path) -> None:
    """kill -9 while an experiment reruns leaves the old cube readable and intact (it is
    replaced in one rename), and the rerun after unlocking gives the same values."""
    from attnmem import checksums
    from attnmem.cube import read_cube

    cube = project / "results" / "soft_lookup.nc"
    old = read_cube(cube)
    proc = _start(
        project, "--cores", "1", "--forcerun", "soft_lookup", str(cube.relative_to(project))
    )
    _wait_for(lambda: bool(_locks(project)), 120, "the lock")
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert checksums.damaged(cube) is None
    assert snakemake_in(project, "--unlock").returncode == 0
    rerun = snakemake_in(
        project, "--cores", "1", "--forcerun", "soft_lookup", "results/soft_lookup.nc"
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert read_cube(cube).equals(old)


def _long_soft_lookup(project: Path, seconds_per_point: float) -> Path:
    """soft_lookup widened by 10,000 sharpness values (about 90 s of work), its measured cost
    set so that it runs in Snakemake's own thread (tiny) or as a script job (its true cost)."""
    import json

    costs_file = project / "workflow" / "schemas" / "costs.json"
    costs = json.loads(costs_file.read_text(encoding="utf-8"))
    costs["soft_lookup"]["seconds_per_point"] = seconds_per_point
    costs_file.write_text(json.dumps(costs), encoding="utf-8")
    config_edit(
        lambda c: c["experiments"]["soft_lookup"]["beta"].extend(
            round(2000 + 0.01 * k, 2) for k in range(10_000)
        )
    )(project)
    return project / "results" / "soft_lookup.nc"


def ctrl_c(project: Path, seconds_per_point: float, started: str) -> None:
    """Ctrl-C (SIGINT to Snakemake's process group, as a terminal sends it) while a long
    experiment runs stops the run within seconds, leaving no lock, no incomplete marker and
    the old cube as it was."""
    cube = _long_soft_lookup(project, seconds_per_point)
    old = cube.read_bytes()
    log = project / "logs" / "soft_lookup.log"
    log.unlink(missing_ok=True)
    proc = _start(project, "--cores", "1", "results/soft_lookup.nc")
    try:
        _wait_for(lambda: log.exists() and started in log.read_text(encoding="utf-8"), 300, started)
    except AssertionError:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError(f"the job did not start:\n{_output(project)}") from None
    time.sleep(2)
    assert proc.poll() is None, "the job ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    start = time.monotonic()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("Snakemake was still running 30 s after Ctrl-C") from None
    assert time.monotonic() - start < 30
    out = _output(project)
    assert not _locks(project), f"a lock was left:\n{out[-3000:]}"
    incomplete = list((project / ".snakemake" / "incomplete").rglob("*"))
    assert not [p for p in incomplete if p.is_file()], f"an incomplete marker was left: {out}"
    assert cube.read_bytes() == old, "the old cube changed"


def ctrl_c_in_a_thread(project: Path) -> None:
    from attnmem.jobs import IN_PROCESS_MARK

    ctrl_c(project, 1e-6, IN_PROCESS_MARK)


def ctrl_c_in_a_script(project: Path) -> None:
    ctrl_c(project, 0.01, "running soft_lookup over")


KILLS = {
    "kill: a dry run after kill -9 says how to unlock": kill_then_dry_run,
    "kill: kill -9 during a cube's rerun keeps the cube": kill_during_a_cube_write,
    "kill: Ctrl-C stops an experiment in Snakemake's own thread": ctrl_c_in_a_thread,
    "kill: Ctrl-C stops an experiment run as a script": ctrl_c_in_a_script,
}


@pytest.mark.parametrize("name", KILLS, ids=list(KILLS))
def test_kill(built_template, tmp_path, name):
    project = copy_built(built_template, tmp_path / "project")
    KILLS[name](project)


def test_every_promised_file_is_made_again_when_deleted(built_template, tmp_path):
    """Item 1 of the issue: a deleted figure, caption, figure check, claims page, claims table
    or errata page is rebuilt by a plain `snakemake --cores 2` (each is a target of rule all;
    Snakemake re-creates a missing file only for a target or for a consumer that must run)."""
    from attnmem import views

    project = copy_built(built_template, tmp_path / "project")
    groups = views.groups("figure")
    module = min(groups, key=lambda m: len(groups[m]))  # the cheapest
    figs = groups[module]
    gone = [
        f"figures/{figs[0].id}.png",
        f"figures/{figs[-1].id}.rst",
        f"results/figure_checks/{module}.json",
        "results/claims.html",
        "results/claims.md",
        "results/errata.md",
    ]
    for path in gone:
        (project / path).unlink()
    proc = snakemake_in(project, "--cores", "2")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert [p for p in gone if not (project / p).exists()] == []
    again = snakemake_in(project, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr


def test_registry_text_meant_for_a_browser_is_escaped_in_every_rendering(built_template, tmp_path):
    """Injection: `<script>` and `<img onerror>` in an entry's claim and why reach claims.md,
    claims.html and errata.md as text, never as markup; no cube or figure is touched."""
    project = copy_built(built_template, tmp_path / "project")
    attack = "<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))"
    wrong = entry(
        claim=f"injected {attack}",
        why=f"what holds: {attack}",
        stated={"value": "0.5"},
        expect="discrepant",
    )
    registry(wrong)(project)
    before = tree_state(project)
    proc = snakemake_in(project, "--cores", "2", "results/claims.md", "results/errata.md")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    touched = changed(before, tree_state(project))
    assert touched and all(
        p.startswith("results/claims.") or p == "results/errata.md" for p in touched
    )
    for page in ("claims.md", "claims.html", "errata.md"):
        text = (project / "results" / page).read_text(encoding="utf-8")
        assert "injected" in text, page
        assert "<script>alert" not in text and "<img src=x" not in text, page
        assert "&lt;script&gt;" in text, page
    md = (project / "results" / "claims.md").read_text(encoding="utf-8")
    assert "\\[x\\](javascript:" in md and not re.search(r"(?<!\\)\]\(javascript:", md)
