"""Which parameters make a grid point slower or larger: a check of the cost declarations.

    python benchmarks/scaling.py [--factor 4] [--timeout 20] [--extremes [--values ...]] [NAME ...]

For every experiment (or those named), and every integer key of its block (a scalar parameter,
a list parameter or a grid key), runs one grid point of the default config (its last, as
benchmarks/costs.py does) at the default value and at ``factor`` times it, and prints the
ratios of its time and of its traced peak memory, beside what the declaration says (``work``,
``memory`` and their powers, attnmem.spec). A key whose growth multiplies the time or the
memory of a point and is not declared is a hole in the cost check (attnmem.costs); one that is
declared and changes nothing is a false alarm. Training experiments (own_process) are skipped:
their steps are declared and a probe would take minutes. A probe that raises (a value the
science refuses) or takes longer than ``timeout`` is reported as such. With ``--extremes``,
every real key without a declared maximum is set to 1e16 and to 1e308 instead (or to the
``--values`` given), and the NaN and infinite values of the outputs are counted against the
default's: a key that breaks the cube silently needs a maximum.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnmem.config import load_yaml  # noqa: E402
from attnmem.cube import run_points  # noqa: E402
from attnmem.experiments import registry  # noqa: E402
from attnmem.grid import expand_values  # noqa: E402
from attnmem.shards import science_block  # noqa: E402


class Slow(Exception):
    pass


def _alarm(signum, frame):
    raise Slow


def one_point(exp, block: dict, seed: int, timeout: float) -> tuple[float, float]:
    """Seconds and traced peak MB of the last grid point of ``block``."""
    one = {**block, **{k: [expand_values(block[k])[-1]] for k in exp.grid}}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        run_points(exp, one, seed)
        return time.perf_counter() - start, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        tracemalloc.stop()


def grown(value, factor: int):
    """The value with every integer in it multiplied by ``factor`` (a list: each item)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value * factor
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        return [v * factor for v in value]
    if isinstance(value, dict) and "first" in value and "count" not in value:
        return {**value, "last": value["first"] + (value["last"] - value["first"]) * factor}
    return None


def non_finite(exp, block: dict, seed: int, timeout: float) -> int:
    """How many values of the last grid point's outputs are NaN or infinite."""
    import numpy as np

    one = {**block, **{k: [expand_values(block[k])[-1]] for k in exp.grid}}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        ds = run_points(exp, one, seed)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return int(sum((~np.isfinite(ds[v].values)).sum() for v in ds.data_vars))


def _bounded(schema) -> bool:
    """Whether a key's schema (or its items') declares a maximum."""
    for node in (schema, schema.get("items") or {}):
        if "maximum" in node or "exclusiveMaximum" in node:
            return True
    return False


def extremes(names, timeout: float, values=(1e16, 1e308)) -> None:
    """For every real key (a scalar, a list parameter or a grid key), the outputs' NaN and
    infinite values at 1e16 and at 1e308 against the default: a key whose large values break
    the cube silently needs a declared maximum."""
    config = load_yaml(ROOT / "config/config.yaml")
    for name, exp in registry().items():
        if (names and name not in names) or exp.own_process:
            continue
        block = science_block(config["experiments"][name])
        try:
            base = non_finite(exp, block, config["seed"], timeout)
        except Exception as exc:  # noqa: BLE001
            print(f"{name}: the default point failed ({type(exc.__cause__ or exc).__name__})")
            continue
        for key in (*exp.grid, *exp.params):
            schema = exp.types[key].schema
            kind = schema.get("type") or schema.get("$ref", "")
            items = schema.get("items", {}).get("type") if kind == "array" else None
            real = kind == "number" or items == "number" or "number_grid" in kind
            real = real or "positive_grid" in kind
            if not real or _bounded(schema):
                continue
            shown = []
            for big in values:
                value = [big] if isinstance(block[key], list) else big
                try:
                    n = non_finite(exp, {**block, key: value}, config["seed"], timeout)
                    shown.append(f"{big:g}: {n - base:+d} non-finite")
                except Exception as exc:  # noqa: BLE001
                    cause = exc.__cause__ or exc
                    slow = isinstance(cause, Slow)
                    shown.append(f"{big:g}: {'slow' if slow else type(cause).__name__}")
            print(f"{name}.{key}: {'; '.join(shown)}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--factor", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument(
        "--extremes", action="store_true", help="probe the real keys at 1e16 and 1e308 instead"
    )
    parser.add_argument(
        "--values", type=float, nargs="+", default=[1e16, 1e308], help="with --extremes"
    )
    args = parser.parse_args()
    if args.extremes:
        extremes(args.names, args.timeout, args.values)
        return 0
    config = load_yaml(ROOT / "config/config.yaml")
    for name, exp in registry().items():
        if (args.names and name not in args.names) or exp.own_process:
            continue
        block = science_block(config["experiments"][name])
        try:
            base_s, base_mb = one_point(exp, block, config["seed"], args.timeout)
        except Exception as exc:  # noqa: BLE001 (reported, the next experiment goes on)
            print(f"{name}: the default point failed ({type(exc.__cause__ or exc).__name__})")
            continue
        for key in (*exp.grid, *exp.params):
            if key == "seed":
                continue
            value = grown(block[key], args.factor)
            if value is None:
                continue
            try:
                s, mb = one_point(exp, {**block, key: value}, config["seed"], args.timeout)
                shown = f"time x{s / max(base_s, 1e-4):.3g}, memory x{mb / max(base_mb, 1e-3):.3g}"
                power = math.log(max(s / max(base_s, 1e-4), 1e-9)) / math.log(args.factor)
                shown += f" (time ~ value^{power:.1f})"
            except Exception as exc:  # noqa: BLE001
                if isinstance(exc, Slow) or isinstance(exc.__cause__, Slow):
                    shown = f"over {args.timeout:g} s"
                else:
                    cause = exc.__cause__ or exc
                    shown = f"refused ({type(cause).__name__}: {str(cause)[:70]})"
            declared = exp.types[key]
            marks = [m for m in ("work", "memory") if getattr(declared, m)]
            print(
                f"{name}.{key} {'grid' if key in exp.grid else 'param'} "
                f"[{', '.join(marks) or 'undeclared'}]: {shown}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
