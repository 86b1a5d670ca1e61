# Shared helpers: config validation (before any job runs), experiment inputs, figure outputs.

import json
from pathlib import Path

from attnmem.config import ConfigError, check_config_once
from attnmem.figures import catalog
from attnmem.schema import load_manifest
from attnmem.shards import point_count, science_block, shards_of
from snakemake.logging import logger
from attnmem.sources import experiment_sources

BASE = Path(workflow.basedir)
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
        "results/config/valid.sha256",
    )
except ConfigError as err:
    raise WorkflowError(str(err)) from None


def config_snapshot(name):
    """results/config/<name>.json: the experiment's config block and the global seed, rewritten
    only when they change. It is the rule's input instead of a `params:` entry, so an edit of
    the block reruns the experiment by file time, and a run with nothing to do stays fast
    (Snakemake imports pandas, half a second, to compare any rule's params)."""
    path = Path("results/config") / f"{name}.json"
    snapshot = {
        "experiment": name,
        "seed": config["seed"],
        "block": science_block(config["experiments"][name]),
    }
    text = json.dumps(snapshot, indent=1, sort_keys=True) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(path)


PLUMBING = [
    str(BASE / "src/attnmem" / f)
    for f in ("grid.py", "cube.py", "spec.py", "shards.py")
]


def science(name):
    """Source files of an experiment's science, and the plumbing that turns it into a cube
    (grid expansion, per-point seeding, writing): editing any of them reruns the experiment.
    """
    return experiment_sources()[name] + PLUMBING


def figure_cubes(group):
    """The cubes a figure group reads."""
    names = sorted({c for f in catalog.groups()[group] for c in f.cubes})
    return [f"results/{n}.nc" for n in names]


def figure_code(group):
    """Source files of the functions that draw a group (and the shared style)."""
    modules = {f.draw.split(":")[0] for f in catalog.groups()[group]} | {"style"}
    return [str(BASE / "src/attnmem/figures" / f"{m}.py") for m in sorted(modules)]


def figure_outputs(group):
    """PNG (in the report, with its caption) and SVG of every figure of a group."""
    out = []
    for f in catalog.groups()[group]:
        doc = f.id.split("/")[0]
        caption = BASE / "workflow/report" / f"{f.id}.rst"
        out.append(report(f"figures/{f.id}.png", caption=str(caption), category=doc))
        out.append(f"figures/{f.id}.svg")
    return out


def all_figure_pngs():
    return [f"figures/{f.id}.png" for f in catalog.FIGURES]


def all_captions():
    return [str(BASE / "workflow/report" / f"{f.id}.rst") for f in catalog.FIGURES]
