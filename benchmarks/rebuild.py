"""Time a full rebuild, the same rebuild with the training topic's cubes kept, and a no-op
rerun of the default config, and report per-rule costs.

    python benchmarks/rebuild.py [--cores 2] [--workdir DIR] [--repeats 3]

The build runs in a fresh working directory (a temporary one unless --workdir is given), so the
repository's own results/ are left alone; the computed points a forced job would reuse
(results/points, attnmem.points) are removed before each forced build. The training topic (the
experiments that train with torch, found by their modules' use of `seeded_torch`) has its own
budget, so the second run forces every rule but those. Per-rule wall time and peak memory come
from the `benchmark:` files Snakemake writes for every rule (logs/benchmarks/*.tsv). Budgets
(DESIGN.md): full rebuild under 5 minutes on 2 cores, under 75 s without training, no-op rerun
under 3 s, every job under 2 GiB.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def base_command(workdir: Path) -> list[str]:
    """Snakemake (the one beside this Python) on the default config, building in ``workdir``."""
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake"]
    cmd += ["--snakefile", str(ROOT / "workflow/Snakefile")]
    return cmd + ["--configfile", str(ROOT / "config/config.yaml"), "--directory", str(workdir)]


def snakemake(workdir: Path, cores: int, *extra: str) -> float:
    cmd = base_command(workdir) + ["--cores", str(cores), "--quiet", "all", *extra]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def training_rules() -> set[str]:
    """The experiments of the training topic: those whose module trains with seeded torch."""
    manifest = json.loads((ROOT / "workflow/schemas/experiments.json").read_text())
    science = ROOT / "src/attnmem/experiments"
    return {
        name
        for name, spec in manifest.items()
        if "seeded_torch" in (science / f"{spec['module']}.py").read_text()
    }


def all_rules(workdir: Path) -> list[str]:
    cmd = [*base_command(workdir), "--list-rules"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line[:1].strip()]


def rule_costs(workdir: Path) -> list[tuple[str, float, float]]:
    rows = []
    for tsv in sorted((workdir / "logs" / "benchmarks").glob("*.tsv")):
        with open(tsv) as fh:
            rec = next(csv.DictReader(fh, delimiter="\t"))
        rss = float(rec["max_rss"]) if rec["max_rss"] not in ("", "NA", "-") else float("nan")
        rows.append((tsv.stem, float(rec["s"]), rss))
    return sorted(rows, key=lambda r: -r[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="attnmem-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    points = workdir / "results" / "points"  # computed points a forced job would reuse
    shutil.rmtree(points, ignore_errors=True)
    full = snakemake(workdir, args.cores, "--forceall")
    costs = rule_costs(workdir)
    training = training_rules()
    # config_snapshot is left out too: a rewritten snapshot would rerun the training as well
    kept = training | {"all", "config_snapshot"}
    others = [r for r in all_rules(workdir) if r not in kept]
    for name in others:  # a rebuild, not an assembly of the points computed above
        shutil.rmtree(points / name, ignore_errors=True)
    # a forced figure or page job draws only the views whose inputs changed (views.jobs); a
    # rebuild from scratch has no record of them, so that each job draws every view
    for digests in (workdir / "results").glob("*/*.digests.json"):
        digests.unlink()
    aside = snakemake(workdir, args.cores, "--forcerun", *others)
    noop = [snakemake(workdir, args.cores) for _ in range(args.repeats)]
    trained = sum(s for name, s, _ in costs if name in training)
    lines = [
        f"# Rebuild benchmark ({args.cores} cores, workdir {workdir})",
        "",
        f"- full rebuild: {full:.1f} s (budget 300 s)",
        f"- full rebuild with the training cubes kept ({', '.join(sorted(training))}: "
        f"{trained:.0f} s of jobs): {aside:.1f} s (budget 75 s)",
        f"- no-op rerun: {min(noop):.2f} s best, {max(noop):.2f} s worst of {len(noop)} "
        "(budget 3 s)",
        f"- sum of rule wall times: {sum(c[1] for c in costs):.1f} s over {len(costs)} jobs",
        "",
        "| rule | wall s | peak RSS MiB |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {name} | {s:.2f} | {rss:.0f} |" for name, s, rss in costs]
    report = "\n".join(lines)
    print(report)
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "rebuild.md").write_text(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
