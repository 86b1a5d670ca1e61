"""Scale-out benchmark: a Monte Carlo grid widened 10x and 100x through the sharded pipeline.

    pip install -e '.[bench]' && python benchmarks/scale.py [--base 500] [--size 500]

Experiment: score_scale (10 key widths, 1,000 score rows per point), the seed count widened from
--base to 10x and 100x, cut into shards of --size seeds. Each build runs in a fresh temporary
working directory through `snakemake`, so the repository's results/ are left alone. Reported:

- the 10x grid from scratch at --cores 1 and --cores 2 (speedup; target >= 1.8),
- each widening (base -> 10x, 10x -> 100x) against a build of just its new points (target
  <= 1.2: the old shards are not recomputed),
- the same widenings through xyzpy's Harvester (`harvest_combos(..., missing_only=True)`, the
  peer that also computes only missing points), with the same function and the same per-point
  generators, on 2 worker processes: its time over ours.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

D_K = [4, 16, 64, 96, 128, 160, 192, 256, 1024, 4096]
PARAMS = {"rows": 1000, "tokens": 4, "threshold": 0.99}


def block(seeds, size: int) -> dict:
    return {"d_k": D_K, "seed": seeds, **PARAMS, "shard": {"by": "seed", "size": size}}


def build(workdir: Path, seeds, size: int, cores: int) -> float:
    """Build results/score_scale.nc for this seed grid in workdir; the wall time."""
    workdir.mkdir(parents=True, exist_ok=True)
    override = workdir / "override.yaml"
    override.write_text(yaml.safe_dump({"experiments": {"score_scale": block(seeds, size)}}))
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [
        str(exe) if exe.exists() else "snakemake",
        "--snakefile",
        str(ROOT / "workflow/Snakefile"),
    ]
    cmd += ["results/score_scale.nc", "--directory", str(workdir), "--cores", str(cores)]
    cmd += ["--quiet", "--configfile", str(ROOT / "config/config.yaml"), str(override)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def xyzpy_widening(tmp: Path, base: int, steps: list[int]) -> list[float]:
    """Harvest the base grid, then each widening with missing_only=True; the widening times."""
    import xyzpy

    from attnmem.experiments import experiment
    from attnmem.grid import point_rng

    exp = experiment("score_scale")
    names = [o.name for o in exp.outputs]

    def point(d_k, seed):
        values = exp.func(
            d_k=d_k, seed=seed, rng=point_rng(0, exp.name, {"d_k": d_k, "seed": seed}), **PARAMS
        )
        return tuple(float(values[n]) for n in names)

    runner = xyzpy.Runner(point, var_names=names)
    harvester = xyzpy.Harvester(runner, data_name=str(tmp / "xyzpy.h5"))
    settings = {"parallel": True, "num_workers": 2, "verbosity": 0}
    harvester.harvest_combos({"d_k": D_K, "seed": range(base)}, **settings)
    times = []
    for n in steps:
        start = time.perf_counter()
        harvester.harvest_combos({"d_k": D_K, "seed": range(n)}, missing_only=True, **settings)
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=int, default=500, help="seeds before widening")
    parser.add_argument("--size", type=int, default=500, help="seeds per shard")
    parser.add_argument("--no-xyzpy", action="store_true", help="skip the xyzpy comparison")
    args = parser.parse_args()
    base, x10, x100 = args.base, 10 * args.base, 100 * args.base
    tmp = Path(tempfile.mkdtemp(prefix="attnmem-scale-"))
    try:
        one = build(tmp / "c1", {"count": x10}, args.size, 1)
        two = build(tmp / "c2", {"count": x10}, args.size, 2)
        build(tmp / "w", {"count": base}, args.size, 2)
        widen10 = build(tmp / "w", {"count": x10}, args.size, 2)
        widen100 = build(tmp / "w", {"count": x100}, args.size, 2)
        new10 = build(tmp / "n10", list(range(base, x10)), args.size, 2)
        new100 = build(tmp / "n100", list(range(x10, x100)), args.size, 2)
        xyz = None if args.no_xyzpy else xyzpy_widening(tmp, base, [x10, x100])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [
        ("10x grid from scratch, --cores 1", f"{one:.1f} s", ""),
        ("10x grid from scratch, --cores 2", f"{two:.1f} s", f"speedup {one / two:.2f}x"),
        (
            f"widen {base} -> {x10} seeds",
            f"{widen10:.1f} s",
            f"{widen10 / new10:.2f}x the new points ({new10:.1f} s)",
        ),
        (
            f"widen {x10} -> {x100} seeds",
            f"{widen100:.1f} s",
            f"{widen100 / new100:.2f}x the new points ({new100:.1f} s)",
        ),
    ]
    if xyz:
        rows.append(
            (
                f"xyzpy Harvester, widen {base} -> {x10}",
                f"{xyz[0]:.1f} s",
                f"{xyz[0] / widen10:.2f}x ours",
            )
        )
        rows.append(
            (
                f"xyzpy Harvester, widen {x10} -> {x100}",
                f"{xyz[1]:.1f} s",
                f"{xyz[1] / widen100:.2f}x ours",
            )
        )
    print(
        f"# Scale benchmark: score_scale, {len(D_K)} widths, shards of {args.size} seeds, 2 cores\n"
    )
    print("| run | time | ratio |")
    print("| --- | ---: | --- |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
