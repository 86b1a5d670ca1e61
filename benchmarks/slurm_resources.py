"""Set the SLURM profile's per-rule runtime and memory from measured benchmark files.

    python benchmarks/slurm_resources.py [--benchmarks logs/benchmarks]

Reads Snakemake's `benchmark:` files of a build (wall seconds `s`, peak `max_rss` in MB) and
rewrites the `set-resources:` block of workflow/profiles/slurm/config.yaml: every experiment
rule (and the shard rule, over all its shards) gets runtime = 3x its measured time rounded up
to whole minutes (at least 2) and mem_mb = 2x its peak rounded up to 256 MB (at least 512).
Local rules (figures, claims, gallery) never reach the cluster and are left out.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "workflow/profiles/slurm/config.yaml"
BEGIN, END = "# set-resources: begin (benchmarks/slurm_resources.py)", "# set-resources: end"
LOCAL = re.compile(r"^(figures_.*|claims|gallery|.*_gather)$")


def measured(directory: Path) -> dict[str, tuple[float, float]]:
    """Rule name -> (largest wall seconds, largest peak MB) over its benchmark files."""
    out: dict[str, tuple[float, float]] = {}
    for tsv in sorted(directory.rglob("*.tsv")):
        rel = tsv.relative_to(directory)
        rule = "shard" if rel.parts[0] == "shards" else tsv.stem
        if LOCAL.match(rule):
            continue
        with open(tsv) as fh:
            rec = next(csv.DictReader(fh, delimiter="\t"))
        rss = float(rec["max_rss"]) if rec["max_rss"] not in ("", "NA", "-") else 0.0
        s0, m0 = out.get(rule, (0.0, 0.0))
        out[rule] = (max(s0, float(rec["s"])), max(m0, rss))
    return out


def block(costs: dict[str, tuple[float, float]]) -> str:
    lines = [BEGIN, "set-resources:"]
    for rule, (seconds, mb) in sorted(costs.items()):
        runtime = max(2, math.ceil(3 * seconds / 60))
        mem = max(512, 256 * math.ceil(2 * mb / 256))
        lines.append(f"  {rule}: {{runtime: {runtime}, mem_mb: {mem}}}")
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", type=Path, default=ROOT / "logs/benchmarks")
    args = parser.parse_args()
    costs = measured(args.benchmarks)
    if not costs:
        print(f"no benchmark files under {args.benchmarks}: build first", file=sys.stderr)
        return 1
    text = PROFILE.read_text(encoding="utf-8")
    new = block(costs)
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + new + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n" + new + "\n"
    PROFILE.write_text(text, encoding="utf-8")
    print(f"{len(costs)} rules written to {PROFILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
