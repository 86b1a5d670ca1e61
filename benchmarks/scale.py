"""Scale benchmark: one large grid on one and two cores, a 10% widening, and xyzpy's Harvester.

    pip install -e '.[bench]' && python benchmarks/scale.py [--only NAME] [--repeats 3]
    python benchmarks/scale.py --sharded [--base 500] [--size 500]

With no `shard:` setting anywhere (the default config's blocks, their grids widened to research
size), for random_key_memory (its seeds) and score_saturation (a value added to its list of key
widths), each build in a fresh temporary working directory through `snakemake`, so that the
repository's results/ are left alone:

- the grid from scratch at --cores 1 and --cores 2 (the speedup of one grid on two cores:
  target >= 1.6x);
- the grid widened by about 10% (20 more seeds; one more width of eleven) after its build at
  --cores 2, against that build (target <= 0.25x: the new points and a fixed start-up);
- the same widening through xyzpy's Harvester (`harvest_combos(..., missing_only=True)`, the
  peer that also computes only missing points), with the same function, the same per-point
  generators and 2 worker processes: timed as a whole process (Python, imports, the harvest:
  what a user waits for, as for our `snakemake` command) and, inside it, the harvest call
  alone. Target: ours not slower.

Each measurement is repeated (--repeats, interleaved) and the medians are reported, the ratios
taken repeat by repeat: this machine's speed drifts by a fifth or more within minutes.

`--sharded` runs the benchmark of an explicit shard setting instead (score_scale, seeds widened
10x and 100x in shards of --size seeds, against builds of the new points alone and xyzpy).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def default_block(name: str) -> dict:
    from attnmem.config import load_yaml

    return dict(load_yaml(ROOT / "config/config.yaml")["experiments"][name])


def cases() -> dict[str, tuple[dict, dict, str]]:
    """name -> (grid, the grid widened by about 10%, what the widening is)."""
    rkm = {**default_block("random_key_memory"), "seed": {"count": 200}}
    sat = {**default_block("score_saturation"), "seed": {"count": 1000}}
    widths = sorted([*sat["d_k"], 48])
    return {
        "random_key_memory": (rkm, {**rkm, "seed": {"count": 220}}, "seeds 200 -> 220"),
        "score_saturation": (sat, {**sat, "d_k": widths}, "d_k + [48] (11 -> 12 widths)"),
    }


def snakemake(workdir: Path, blocks: dict, cores: int) -> float:
    """Build the cubes of ``blocks`` (config overrides) in ``workdir``; the wall time."""
    workdir.mkdir(parents=True, exist_ok=True)
    override = workdir / "override.yaml"
    override.write_text(yaml.safe_dump({"experiments": blocks}))
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake"]
    cmd += ["--snakefile", str(ROOT / "workflow/Snakefile")]
    cmd += [f"results/{name}.nc" for name in blocks]
    cmd += ["--directory", str(workdir), "--cores", str(cores), "--quiet"]
    cmd += ["--configfile", str(ROOT / "config/config.yaml"), str(override)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- xyzpy


class Point:
    """One grid point of an experiment, as xyzpy's Runner calls it (picklable for its
    worker processes): the science with the point's own generator, as in our jobs."""

    def __init__(self, name: str, params: dict, global_seed: int):
        self.name, self.params, self.global_seed = name, params, global_seed

    def __call__(self, **point):
        import numpy as np

        from attnmem.experiments import experiment
        from attnmem.grid import point_rng

        exp = experiment(self.name)
        kwargs = {**point, **self.params}
        if exp.wants_rng:
            kwargs["rng"] = point_rng(self.global_seed, exp.name, point)
        values = exp.func(**kwargs)
        return tuple(np.asarray(values[o.name], dtype=float) for o in exp.outputs)


def harvest(name: str, block: dict, data: str) -> float:
    """Harvest ``block``'s grid into ``data`` with missing_only=True on 2 workers; the seconds
    of the harvest call (this process's start and imports excluded)."""
    import xyzpy

    from attnmem.cube import _extra_coords
    from attnmem.experiments import experiment
    from attnmem.grid import expand_grid
    from attnmem.jobs import _one_blas_thread

    _one_blas_thread()
    exp = experiment(name)
    params = {k: block[k] for k in exp.params}
    runner = xyzpy.Runner(
        Point(name, params, 0),
        var_names=[o.name for o in exp.outputs],
        var_dims={o.name: list(o.dims) for o in exp.outputs if o.dims},
        var_coords=_extra_coords(exp, params),
    )
    harvester = xyzpy.Harvester(runner, data_name=data)
    combos = expand_grid(block, exp.grid)
    start = time.perf_counter()
    harvester.harvest_combos(combos, missing_only=True, parallel=True, num_workers=2, verbosity=0)
    return time.perf_counter() - start


class XyzpyWidening:
    """xyzpy harvests the grid once; each call then harvests its widening from a copy of that
    harvest, in a Python of its own: (whole-process seconds, seconds of the harvest call)."""

    def __init__(self, tmp: Path, name: str, narrow: dict, wide: dict):
        self.tmp, self.name, self.wide = tmp, name, wide
        self.base = tmp / f"{name}.base.h5"
        self._run(narrow, self.base)

    def _run(self, block, data) -> tuple[float, float]:
        cmd = [sys.executable, __file__, "--harvest", self.name, json.dumps(block), str(data)]
        start = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return time.perf_counter() - start, float(out.split()[-1])

    def __call__(self) -> tuple[float, float]:
        data = self.tmp / f"{self.name}.h5"
        shutil.copy(self.base, data)
        return self._run(self.wide, data)


# ----------------------------------------------------------------------------- benchmarks


def default_benchmark(only, xyz: bool, repeats: int) -> list[tuple[str, str, str]]:
    """Each measurement ``repeats`` times, interleaved (a build on one core, one on two, the
    widening of the latter, xyzpy's widening), so that a drift of the machine's speed hits all
    alike; medians of the times and of the ratios taken repeat by repeat."""
    from statistics import median

    rows = []
    for name, (narrow, wide, what) in cases().items():
        if only and name != only:
            continue
        tmp = Path(tempfile.mkdtemp(prefix="attnmem-scale-"))
        one, two, widen, peer = [], [], [], []
        try:
            xyzpy = XyzpyWidening(tmp, name, narrow, wide) if xyz else None
            for r in range(repeats):
                one.append(snakemake(tmp / f"one{r}", {name: narrow}, 1))
                two.append(snakemake(tmp / f"two{r}", {name: narrow}, 2))
                widen.append(snakemake(tmp / f"two{r}", {name: wide}, 2))
                if xyzpy:
                    peer.append(xyzpy())
                for run in ("one", "two"):
                    shutil.rmtree(tmp / f"{run}{r}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        speedup = median(a / b for a, b in zip(one, two, strict=True))
        cost = median(a / b for a, b in zip(widen, two, strict=True))
        rows += [
            (f"{name}: grid from scratch, --cores 1", f"{median(one):.1f} s", ""),
            (
                f"{name}: grid from scratch, --cores 2",
                f"{median(two):.1f} s",
                f"speedup {speedup:.2f}x (target >= 1.6x)",
            ),
            (
                f"{name}: widen {what}, --cores 2",
                f"{median(widen):.1f} s",
                f"{cost:.2f}x the build (target <= 0.25x)",
            ),
        ]
        if peer:
            whole = median(p[0] for p in peer)
            harvest_only = median(p[1] for p in peer)
            ratio = median(p[0] / w for p, w in zip(peer, widen, strict=True))
            alone = median(p[1] / w for p, w in zip(peer, widen, strict=True))
            rows.append(
                (
                    f"{name}: xyzpy Harvester, the same widening",
                    f"{whole:.1f} s ({harvest_only:.1f} s harvesting)",
                    f"{ratio:.2f}x ours ({alone:.2f}x for the harvest alone)",
                )
            )
    return rows


D_K = [4, 16, 64, 96, 128, 160, 192, 256, 1024, 4096]
PARAMS = {"rows": 1000, "tokens": 4, "threshold": 0.99}


def sharded_block(seeds, size: int) -> dict:
    return {"d_k": D_K, "seed": seeds, **PARAMS, "shard": {"by": "seed", "size": size}}


def sharded_benchmark(base: int, size: int, xyz: bool) -> list[tuple[str, str, str]]:
    """An explicit shard setting: score_scale's seeds widened 10x and 100x."""
    x10, x100 = 10 * base, 100 * base
    tmp = Path(tempfile.mkdtemp(prefix="attnmem-scale-"))

    def build(workdir, seeds, cores=2):
        return snakemake(workdir, {"score_scale": sharded_block(seeds, size)}, cores)

    try:
        one = build(tmp / "c1", {"count": x10}, 1)
        two = build(tmp / "c2", {"count": x10})
        build(tmp / "w", {"count": base})
        widen10 = build(tmp / "w", {"count": x10})
        widen100 = build(tmp / "w", {"count": x100})
        new10 = build(tmp / "n10", list(range(base, x10)))
        new100 = build(tmp / "n100", list(range(x10, x100)))
        peer = []
        if xyz:
            blocks = [{**sharded_block({"count": n}, size)} for n in (base, x10, x100)]
            for b in blocks:
                b.pop("shard")
            data = tmp / "xyzpy"
            data.mkdir()
            peer = [XyzpyWidening(data, "score_scale", blocks[0], b)()[0] for b in blocks[1:]]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [
        ("10x grid from scratch, --cores 1", f"{one:.1f} s", ""),
        ("10x grid from scratch, --cores 2", f"{two:.1f} s", f"speedup {one / two:.2f}x"),
    ]
    widenings = [(f"{base} -> {x10}", widen10, new10), (f"{x10} -> {x100}", widen100, new100)]
    for label, ours, alone in widenings:
        ratio = f"{ours / alone:.2f}x the new points alone ({alone:.1f} s)"
        rows.append((f"widen {label} seeds", f"{ours:.1f} s", ratio))
    for (label, ours, _), theirs in zip(widenings, peer, strict=False):
        ratio = f"{theirs / ours:.2f}x ours"
        rows.append((f"xyzpy Harvester, widen {label}", f"{theirs:.1f} s", ratio))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="one experiment of the default benchmark")
    parser.add_argument("--no-xyzpy", action="store_true", help="skip the xyzpy comparison")
    parser.add_argument("--repeats", type=int, default=3, help="measurements of each kind")
    parser.add_argument("--sharded", action="store_true", help="the explicit shard benchmark")
    parser.add_argument("--base", type=int, default=500, help="--sharded: seeds before widening")
    parser.add_argument("--size", type=int, default=500, help="--sharded: seeds per shard")
    parser.add_argument("--harvest", nargs=3, help=argparse.SUPPRESS)  # NAME BLOCK DATA
    args = parser.parse_args()
    if args.harvest:
        name, block, data = args.harvest
        print(f"{harvest(name, json.loads(block), data):.3f}")
        return 0
    if args.sharded:
        title = f"score_scale, {len(D_K)} widths, shards of {args.size} seeds, 2 cores"
        rows = sharded_benchmark(args.base, args.size, not args.no_xyzpy)
    else:
        title = f"no shard setting, one grid at a time, medians of {args.repeats} repeats"
        rows = default_benchmark(args.only, not args.no_xyzpy, args.repeats)
    print(f"# Scale benchmark: {title}\n")
    print("| run | time | ratio |")
    print("| --- | ---: | --- |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
