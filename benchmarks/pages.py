"""Measure the interactive pages' budgets (DESIGN.md): each page's size without the shared
JavaScript (budget 100 KB), the wall time of building every page on 2 cores (budget 20 s) and
of their browser tests on 2 workers (budget 60 s).

    python benchmarks/pages.py [--repeats 3]

Run it in a built project (`snakemake --cores 2`): it forces the page jobs, which rewrite every
page (a forced page job builds all of its pages), and runs tests/test_pages.py. Snakemake's
start (about 2 s, paid by any run) is measured separately with a dry run and reported beside
the build. The report goes to benchmarks/out/pages.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnmem import views  # noqa: E402
from attnmem.interactive import js_files  # noqa: E402


def _snakemake(*args: str) -> float:
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake", "--cores", "2", "--quiet", "all", *args]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    manifest = json.loads((ROOT / "workflow/schemas/experiments.json").read_text())
    trained = [c for c, spec in manifest.items() if spec.get("own_process")]
    jobs = list(views.jobs("page", trained))
    pages = [v.path for v in views.pages()]
    sizes = {p: (ROOT / p).stat().st_size for p in pages}
    shared = sum((ROOT / "figures/_js" / f).stat().st_size for f in js_files())
    start_up, build, job_s, job_cpu = [], [], [], []
    for _ in range(args.repeats):
        start_up.append(_snakemake("-n", *pages))
        build.append(_snakemake("--forcerun", *jobs, "--", *pages))
        for job in jobs:
            with open(ROOT / "logs/benchmarks" / f"{job}.tsv") as fh:
                row = next(csv.DictReader(fh, delimiter="\t"))
            job_s.append(float(row["s"]))
            job_cpu.append(float(row["cpu_time"]))
    tests, outcomes = [], []
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider"]
    for _ in range(args.repeats):
        start = time.perf_counter()
        proc = subprocess.run(
            [*command, "tests/test_pages.py"], cwd=ROOT, capture_output=True, text=True
        )
        tests.append(time.perf_counter() - start)
        lines = proc.stdout.strip().splitlines()
        outcomes.append(lines[-1] if lines else "?")
    largest = max(sizes, key=sizes.get)
    lines = [
        f"# Interactive pages ({len(pages)} pages in {len(jobs)} jobs, 2 cores)",
        "",
        f"- page size without the shared JavaScript: largest {sizes[largest] / 1024:.1f} KB "
        f"({largest}), median {statistics.median(sizes.values()) / 1024:.1f} KB (budget 100 KB); "
        f"the shared JavaScript in figures/_js/: {shared / 1024:.0f} KB, loaded once",
        f"- building every page (forced page jobs, 2 cores): {min(build):.1f}-{max(build):.1f} s "
        f"of wall time over {args.repeats} runs, of which Snakemake's start (a dry run) "
        f"{min(start_up):.1f}-{max(start_up):.1f} s (budget 20 s); the page jobs took "
        f"{min(job_s):.1f}-{max(job_s):.1f} s each, {min(job_cpu):.1f}-{max(job_cpu):.1f} "
        "CPU-s each",
        f"- the browser tests (tests/test_pages.py, 2 workers, the pipeline built): "
        f"{min(tests):.1f}-{max(tests):.1f} s (budget 60 s); {'; '.join(outcomes)}",
        f"- load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
        "(the machine is shared: times grow with it)",
        "",
        "| page | KB |",
        "| --- | ---: |",
    ]
    lines += [f"| {p} | {s / 1024:.1f} |" for p, s in sorted(sizes.items(), key=lambda x: -x[1])]
    report = "\n".join(lines)
    print(report)
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "pages.md").write_text(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
