# Shared helpers: config validation (before any job runs), experiment inputs, and the registry
# and figure-setting checks that run while the DAG is built.

import functools
import os
from pathlib import Path

from attnmem.claims import registry_files
from attnmem.config import ConfigError, check_config_once, run_record
from attnmem.figure_settings import FigureSettingsError, settings_record
from attnmem.figure_settings import check as check_figure_settings
from attnmem.figure_settings import settings_of
from attnmem import views
from attnmem.interactive import js_files
from attnmem.registry_lint import check_registry_once, summary
from attnmem.schema import load_manifest
from attnmem.costs import in_process, load_costs, over_limits, point_count, work_seconds
from attnmem.shards import shards_of, spec
from attnmem.points import to_compute, useful_workers
from attnmem import checksums, snapshots
from snakemake.logging import logger
from attnmem.sources import experiment_sources, science_files
from attnmem.scheduler_timers import coalesce_reevaluation_timers
from attnmem.interrupts import stop_threads_on_cancel
from attnmem.locks import stale_lock_message

# Snakemake's scheduler wakes itself by timers that multiply over a build (see the module)
coalesce_reevaluation_timers()
# Ctrl-C stops the experiments running in Snakemake's own threads too (see the module)
stop_threads_on_cancel()

# A lock left by a killed run: say so and how to remove it (a dry run would only say that
# another instance is running; see the module)
_locked = stale_lock_message()
if _locked:
    logger.warning(f"attnmem: {_locked}")

# SVG copies of the figures beside their PNGs (config `svg`, off by default: a second draw)
SVG = bool(config.get("svg", False))

BASE = Path(
    workflow.basedir
).parent  # the project folder (this Snakefile is in workflow/)
REGISTRY = BASE / "config/claims"
FIGURE_SETTINGS = "results/config/figures"
# What each experiment declares (grid keys, outputs), generated from the science by
# `python -m attnmem schema`; the science's own text must name the same experiments.
MANIFEST = load_manifest(BASE / "workflow/schemas/experiments.json")
if set(MANIFEST) != set(experiment_sources()):
    raise WorkflowError(
        "workflow/schemas/ is stale: the experiments declared in src/attnmem/experiments "
        "differ from its experiments.json; run `python -m attnmem schema`"
    )

try:
    check_config_once(
        config,
        BASE / "workflow/schemas/config.schema.yaml",
        ".snakemake/attnmem/config-valid.sha256",  # a cache; parsing writes no result
        files=workflow.configfiles,
    )
except ConfigError as err:
    raise WorkflowError(str(err)) from None

COSTS = load_costs(BASE / "workflow/schemas/costs.json")


def points_to_compute(name, block):
    """How many grid points of an experiment's block its job would compute: those that no
    job computed before with the same parameters, global seed and code (attnmem.points).
    """
    return to_compute(name, block, MANIFEST[name]["grid"], config["seed"])


_too_large = over_limits(config, MANIFEST, COSTS, points_to_compute)
if _too_large:
    raise WorkflowError(
        "a grid is larger than the limits, nothing was run:\n"
        + "\n".join(f"  - {p}" for p in _too_large)
    )

# Every grid value a figure or page picks (config `figures:`) is one the grids hold, every
# setting is one a view reads and every module is a view module: checked in every run, before any job
# (a run asked only for cubes too), naming the setting.
try:
    check_figure_settings(config, views.scan())
except FigureSettingsError as err:
    raise WorkflowError(str(err)) from None


# On a cluster, a large grid is cut into shard jobs (attnmem.shards.automatic); locally it is
# one job, whose worker processes use the cores Snakemake gives it. Snakemake counts cluster
# jobs (`--jobs`) in the `_nodes` resource only for a non-local executor, and a job running on
# a cluster node parses this workflow in remote mode: both must see the same shards.


def global_resource(name):
    """A global resource's value (``--cores`` is ``_cores``, ``--jobs`` ``_nodes``), or None:
    Snakemake 9.15 stores plain numbers, later 9.x ``Resource`` objects."""
    value = workflow.global_resources.get(name)
    return getattr(value, "value", value)


ON_CLUSTER = workflow.remote_exec or global_resource("_nodes") is not None
ANNOUNCE_SECONDS = 60  # grids of more measured work are announced before anything runs


def announce(name, block, work, shards, workers):
    """Say what a large grid will compute before anything runs: its points, those not
    computed yet (only those are computed), their estimated CPU time, and the shards or cores
    it spreads over. Only when the block is new or the cube missing (else the job has nothing
    to do for this config), so that a run with nothing to do reads no computed points.
    """
    if (work or 0) < ANNOUNCE_SECONDS and shards == 1:
        return
    if Path(config_snapshot(name)).exists() and Path(f"results/{name}.nc").exists():
        return
    total = point_count(block, MANIFEST[name]["grid"])
    new = points_to_compute(name, block)
    cores = min(workers, global_resource("_cores") or workers)
    spread = f"in {shards} shard jobs" if shards > 1 else f"on up to {cores} cores"
    logger.info(
        f"{name}: {total:,} grid points, {new:,} to compute ({total - new:,} computed "
        f"before), about {(work or 0) * new / max(total, 1):,.0f} CPU-seconds, {spread}"
    )


def config_snapshot(name):
    """results/config/<name>.<hash>.json, named by the hash of the experiment's config block
    and the global seed: the input that reruns an experiment when its block changes. Parsing
    writes nothing; the `config_snapshot` job writes the file (and removes the snapshots of
    the experiment's other hashes), so an edited block names a file that does not exist yet,
    whatever ran or was parsed in between, and returning to an old block reruns too. No
    `params:` entry, so a run with nothing to do stays fast (Snakemake imports pandas, half a
    second, to compare params)."""
    return str(snapshots.path("results/config", name, run_record(config, name)))


def here(path):
    """A path of the project relative to the working directory: a copy of a built project in
    another folder names the same inputs, so Snakemake reruns nothing there."""
    return os.path.relpath(path)


def science(name):
    """Source files of an experiment's science, and the plumbing that turns it into a cube
    (grid expansion, per-point seeding, writing): editing any of them reruns the experiment.
    """
    return [here(p) for p in science_files(name)]


def checked_registry(wildcards):
    """The registry files, once the registry is found sound against the config and the
    experiment manifest: unknown cubes, variables, dims and grid values, misspelled
    tolerances, duplicate ids. An input function runs while the DAG is built, before any job,
    and only when the claims table is to be built (a run asked only for cubes is not refused).
    A hash of what the check read is kept under .snakemake/ (never results/), so an unchanged
    registry costs no YAML parse at the next start."""
    problems = check_registry_once(
        REGISTRY, config, MANIFEST, ".snakemake/attnmem/registry.sha256"
    )
    if problems:
        raise WorkflowError(
            f"the claims registry has {len(problems)} problem(s); no job was run:\n"
            + summary(problems)
        )
    return [here(p) for p in registry_files(REGISTRY)]


# The training experiments (declared own_process: their cubes come last in a build). The
# figures and pages that read them are drawn by jobs of their own (views.jobs), so that the
# others need not wait for training; nothing in the grouping depends on a grid.
TRAINED = sorted(name for name, spec in MANIFEST.items() if spec.get("own_process"))


@functools.cache  # the views do not change while the workflow is parsed
def view_jobs(kind):
    """The jobs that draw the views of one kind (figure or page), job name -> modules
    (views.jobs): a job's start costs about 2 s, so modules share a few jobs, grouped by name,
    and widening a grid moves no module to another job."""
    return views.jobs(kind, TRAINED)


def views_of(kind, modules):
    """The views of some modules, in scan order."""
    return [v for m in modules for v in views.groups(kind)[m]]


def all_pages():
    """Every interactive page, in scan order."""
    return [v.path for v in views.pages()]


def all_page_lists():
    """Each interactive module's description of its pages (handles, ranges, what they show)."""
    return [f"results/pages/{m}.json" for m in views.groups("page")]


# Bokeh's JavaScript, copied once into figures/_js/ (rules/pages.smk) and named by its version
BOKEH_JS = [f"figures/_js/{name}" for name in js_files()]


def figures_waiting(cube):
    """How many figures the largest figure job reading ``cube`` draws. In-process experiments
    run one at a time; those feeding the largest figure jobs go first, so that these jobs can
    start as soon as a core is free and the build does not end on one long figure job.
    """
    sizes = [
        len(views_of("figure", modules))
        for modules in view_jobs("figure").values()
        if cube in views.cubes_of(views_of("figure", modules))
    ]
    return max(sizes, default=0)


def settings_snapshots(*modules):
    """The files naming view modules' settings by their hash (the settings were checked
    against the grids when the workflow was parsed, above): a changed setting names a file that
    does not exist yet, which redraws the module."""
    return [
        str(snapshots.path(FIGURE_SETTINGS, m, settings_record(settings_of(config, m))))
        for m in modules
    ]
