"""Measure each experiment's cost per grid point from a build, for the pipeline's cost check.

    python benchmarks/costs.py [--benchmarks logs/benchmarks] [--results results] [--logs logs]

Reads Snakemake's benchmark file of every experiment job (wall seconds ``s``, peak ``max_rss``
in MB) and its cube, divides by the grid points the job computed (its log says how many: points
computed by an earlier job are reused, attnmem.points; an experiment whose job computed none is
skipped: remove results/points/<name> and rebuild it to measure it), and writes
workflow/schemas/costs.json: ``{name: {seconds_per_point, bytes_per_point, base_mb}}``, with
a script job's start-up (START_SECONDS) left out; ``point_mb``: the peak memory one grid point
holds (its last, traced with tracemalloc: numpy's arrays are traced, torch's are not); and
``at``: the values of the parameters the cost or the memory per point is proportional to. For
a job run in Snakemake's own process, ``s`` has no start-up in it and ``max_rss`` is that whole
process's peak, so its ``base_mb`` is an overestimate (a safe one for the limit). The
Snakefile estimates any grid from these before it runs (attnmem.costs). Rerun after a build
when an experiment's science changes its speed much.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnmem.config import load_yaml  # noqa: E402
from attnmem.costs import START_SECONDS, point_count  # noqa: E402
from attnmem.cube import run_points  # noqa: E402
from attnmem.experiments import experiment  # noqa: E402
from attnmem.grid import expand_values  # noqa: E402
from attnmem.jobs import IN_PROCESS_MARK  # noqa: E402
from attnmem.schema import load_manifest  # noqa: E402
from attnmem.shards import science_block  # noqa: E402


def point_mb(name: str, block: dict, seed: int) -> float:
    """Peak MB traced while the last point of the grid (the largest values, as grids are
    written) is computed."""
    exp = experiment(name)
    block = science_block(block)
    one = {**block, **{k: [expand_values(block[k])[-1]] for k in exp.grid}}
    tracemalloc.start()
    try:
        run_points(exp, one, seed)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


OUT = ROOT / "workflow/schemas/costs.json"


def measured_at(declared: dict, block: dict) -> dict:
    """``{"at": ...}``: the values of the keys the cost or the memory per point grows with
    (declared ``work``/``memory``), as the block that was measured gives them."""
    scaled = [*declared.get("work", {}), *declared.get("memory", {})]
    return {"at": {key: block[key] for key in dict.fromkeys(scaled)}} if scaled else {}


def record_at() -> int:
    """Rewrite only the ``at`` values of costs.json from config/config.yaml, keeping every
    measured number: for declarations added since the last measurement, valid only while the
    experiment blocks of the config are those the costs were measured on."""
    config = load_yaml(ROOT / "config/config.yaml")
    manifest = load_manifest()
    costs = json.loads(OUT.read_text(encoding="utf-8"))
    for name, cost in costs.items():
        cost.pop("at", None)
        cost.update(measured_at(manifest[name], config["experiments"][name]))
    rows = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(costs.items())]
    OUT.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    print(f"rewrote the measured-at values of {OUT}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", default=str(ROOT / "logs/benchmarks"))
    parser.add_argument("--results", default=str(ROOT / "results"))
    parser.add_argument("--logs", default=str(ROOT / "logs"))
    parser.add_argument(
        "--record-at",
        action="store_true",
        help="only rewrite the values each cost was measured at (after a new declaration)",
    )
    args = parser.parse_args()
    if args.record_at:
        return record_at()
    config = load_yaml(ROOT / "config/config.yaml")
    manifest = load_manifest()
    out = {}
    for name in manifest:
        tsv = Path(args.benchmarks) / f"{name}.tsv"
        cube = Path(args.results) / f"{name}.nc"
        if not tsv.exists() or not cube.exists():
            print(f"{name}: no benchmark or cube, skipped", file=sys.stderr)
            continue
        with open(tsv) as fh:
            rec = next(csv.DictReader(fh, delimiter="\t"))
        block = config["experiments"][name]
        points = point_count(block, manifest[name]["grid"])
        log = Path(args.logs) / f"{name}.log"  # says whether the job ran in Snakemake's process
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        started = IN_PROCESS_MARK not in text
        computed = re.findall(r"computed (\d+) of (\d+) grid points", text)
        new = int(computed[-1][0]) if computed else points
        if new == 0:
            print(f"{name}: its job computed no point (all reused), skipped", file=sys.stderr)
            continue
        seconds = max(float(rec["s"]) - (START_SECONDS if started else 0.0), 0.01)
        out[name] = {
            "seconds_per_point": round(seconds / new, 6),
            "bytes_per_point": round(cube.stat().st_size / points),
            "base_mb": round(float(rec["max_rss"])),
        }
        out[name]["point_mb"] = round(point_mb(name, block, config["seed"]), 3)
        out[name].update(measured_at(manifest[name], block))
    rows = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(out.items())]
    OUT.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(out)} experiments)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
