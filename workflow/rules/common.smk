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
from attnmem.shards import shards_of
from attnmem import snapshots
from snakemake.logging import logger
from attnmem.sources import experiment_sources, science_files
from attnmem.scheduler_timers import coalesce_reevaluation_timers

# Snakemake's scheduler wakes itself by timers that multiply over a build (see the module)
coalesce_reevaluation_timers()

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
_too_large = over_limits(config, MANIFEST, COSTS)
if _too_large:
    raise WorkflowError(
        "a grid is larger than the limits, nothing was run:\n"
        + "\n".join(f"  - {p}" for p in _too_large)
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


@functools.cache  # the catalog does not change while the workflow is parsed
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


def checked_settings(*modules):
    """The input naming view modules' settings snapshots, once every grid value a figure or a
    page picks (config `figures:`) is found in the grids. An input function runs while the DAG
    is built, before any job, and only when a view is to be drawn: a narrowed grid stops such
    a run there, naming the setting, and a run asked only for cubes is not refused."""

    def settings(wildcards):
        try:
            check_figure_settings(config, views.scan())
        except FigureSettingsError as err:
            raise WorkflowError(str(err)) from None
        return [
            str(
                snapshots.path(
                    FIGURE_SETTINGS, m, settings_record(settings_of(config, m))
                )
            )
            for m in modules
        ]

    return settings
