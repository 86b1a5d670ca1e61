"""Command line and Snakemake entry points: run an experiment, draw a figure group, judge the
claims, build the gallery. ``python -m attnmem --help`` lists the commands.

The rules call the ``*_job`` functions from tiny scripts (workflow/scripts/), which pass the
rule's inputs, outputs and params as Python objects, so no shell string is built from config.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from importlib import import_module
from pathlib import Path

log = logging.getLogger("attnmem")


def setup_logging(log_file: str | None = None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


# ----------------------------------------------------------------------------- actions


def run_experiment(name: str, block: Mapping, global_seed: int, out: str | Path) -> None:
    from .cube import run_experiment as run
    from .cube import write_cube
    from .experiments import experiment
    from .shards import science_block

    exp = experiment(name)
    block = science_block(block)
    log.info("running %s over %s", name, dict(block))
    ds = run(exp, block, global_seed)
    write_cube(ds, out)
    log.info("wrote %s (%s)", out, ", ".join(f"{k}={v}" for k, v in ds.sizes.items()))


def draw_figures(group: str, cube_paths: Mapping[str, str], out_dir: str | Path) -> list[Path]:
    """Draw every figure of ``group`` to ``out_dir/<id>.png`` and ``.svg``."""
    from .cube import read_cube
    from .figures import catalog, style

    style.apply()
    figures = catalog.groups()[group]
    cubes = {name: read_cube(path) for name, path in cube_paths.items()}
    written = []
    for fig in figures:
        module, func = fig.draw.split(":")
        draw = getattr(import_module(f"attnmem.figures.{module}"), func)
        path = Path(out_dir) / f"{fig.id}.png"
        style.save(draw({c: cubes[c] for c in fig.cubes}), path)
        log.info("drew %s", path)
        written.append(path)
    return written


def judge_claims(registry, cube_paths: Mapping[str, str], csv_path, md_path, html_path):
    """Judge the registry (a directory, or a list of its YAML files) and write the tables."""
    from . import claims
    from .cube import read_cube

    entries = claims.load_registry(registry)
    cubes = {name: read_cube(path) for name, path in cube_paths.items()}
    rows = claims.judge_all(entries, cubes)
    claims.write_tables(rows, csv_path, md_path, html_path)
    tally = claims.counts(rows)
    log.info("%d claims: %s", len(rows), dict(sorted(tally.items())))
    broken = [r for r in rows if r.verdict == "error"]
    for r in broken:
        log.error("claim %s could not be judged: %s", r.entry["id"], r.error)
    if broken:
        raise SystemExit(f"{len(broken)} claim(s) could not be judged; see the log")
    return rows


def lint_registry(registry) -> int:
    """Print every lint problem of the registry (schema and rules); 1 if there is any."""
    import jsonschema

    from . import claims, registry_lint
    from .config import load_yaml
    from .experiments import registry as experiments

    schema = load_yaml(Path(__file__).resolve().parents[2] / "workflow/schemas/claims.schema.yaml")
    files = [registry] if Path(registry).is_file() else claims.registry_files(registry)
    problems = []
    for path in files:
        try:
            jsonschema.validate(load_yaml(path) or [], schema)
        except jsonschema.ValidationError as exc:
            problems.append(f"{path}: {exc.message} at {list(exc.absolute_path)}")
    entries = claims.load_registry(files)
    problems += registry_lint.all_problems(entries, experiments())
    for line in problems:
        print(line)
    print(f"{len(problems)} problems in {len(entries)} entries")
    return 1 if problems else 0


def list_mutants(registry, results) -> int:
    """Print the checked rows whose verdict a wrong science leaves unchanged."""
    import xarray as xr

    from . import claims, mutation

    entries = claims.load_registry(registry)
    cubes = {n: xr.load_dataset(f"{results}/{n}.nc") for n in claims.cubes_of(entries)}
    found = mutation.survivors(entries, cubes)
    for entry, verdict in found:
        note = entry.get("mutation", "UNEXPLAINED")
        print(f"{entry['id']} [{verdict}]: {note}")
    unexplained = sum(1 for e, _ in found if "mutation" not in e)
    print(f"{len(found)} survivors, {unexplained} unexplained")
    return 1 if unexplained else 0


def build_gallery(pngs: Sequence[str], captions: Sequence[str], claims_csv, out_path) -> None:
    from .gallery import caption_text, render

    figures = []
    for png, cap in zip(pngs, captions, strict=True):
        fig_id = str(Path(cap).with_suffix("")).split("report/", 1)[1]
        figures.append({"id": fig_id, "png": png, "caption": caption_text(Path(cap).read_text())})
    render(figures, claims_csv, out_path)
    log.info("wrote %s with %d figures", out_path, len(figures))


# ----------------------------------------------------------------------------- Snakemake jobs


def experiment_job(smk) -> None:
    setup_logging(smk.log[0] if smk.log else None)
    snapshot = json.loads(Path(smk.input.config).read_text())
    with logged_failure():
        run_experiment(snapshot["experiment"], snapshot["block"], snapshot["seed"], smk.output[0])


@contextmanager
def logged_failure():
    """Put the traceback of a failing job (and the grid point it failed at) into the job's
    log file, which Snakemake points to, not only on the terminal."""
    try:
        yield
    except Exception:
        log.exception("the job failed")
        raise


def shard_job(smk) -> None:
    """One shard: the points of its sub-block, written as a partial cube."""
    setup_logging(smk.log[0] if smk.log else None)
    from .cube import run_points, write_cube
    from .experiments import experiment

    exp = experiment(smk.wildcards.experiment)
    log.info("running %s shard %s over %s", exp.name, smk.wildcards.shard, dict(smk.params.block))
    with logged_failure():
        write_cube(run_points(exp, smk.params.block, smk.params.seed), smk.output[0])


def gather_job(smk) -> None:
    """The shards of an experiment joined into its cube."""
    setup_logging(smk.log[0] if smk.log else None)
    from .cube import gather, read_cube, write_cube
    from .experiments import experiment

    exp = experiment(smk.params.experiment)
    parts = [read_cube(p) for p in smk.input.shards]
    ds = gather(exp, dict(smk.params.block), smk.params.seed, parts)
    write_cube(ds, smk.output[0])
    log.info("gathered %d shards into %s", len(parts), smk.output[0])


def figures_job(smk) -> None:
    setup_logging(smk.log[0] if smk.log else None)
    from .figures import catalog

    group = smk.rule.removeprefix("figures_")
    cube_paths = {Path(p).stem: p for p in smk.input.cubes}
    first = catalog.groups()[group][0]
    png = Path(next(p for p in smk.output if p.endswith(f"{first.id}.png")))
    out_dir = png.parents[len(Path(first.id).parts) - 1]
    draw_figures(group, cube_paths, out_dir)


def claims_job(smk) -> None:
    setup_logging(smk.log[0] if smk.log else None)
    cube_paths = {Path(p).stem: p for p in smk.input.cubes}
    judge_claims(list(smk.input.registry), cube_paths, *smk.output)


def gallery_job(smk) -> None:
    setup_logging(smk.log[0] if smk.log else None)
    build_gallery(smk.input.pngs, smk.input.captions, smk.input.claims, smk.output[0])


# ----------------------------------------------------------------------------- command line


def write_schema(check_only: bool = False) -> int:
    """Regenerate (or, with ``check_only``, compare) the files made from the declarations."""
    from . import schema

    if check_only:
        stale = schema.stale()
        for path in stale:
            print(f"stale: {path} (run `python -m attnmem schema`)")
        return 1 if stale else 0
    for path in schema.write():
        print(f"wrote {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from .config import check_config, load_yaml

    root = Path.cwd()
    summary = " ".join(__doc__.split("\n\n")[0].split())  # the whole first paragraph
    parser = argparse.ArgumentParser(prog="python -m attnmem", description=summary)
    parser.add_argument("--config", default=str(root / "config/config.yaml"))
    parser.add_argument("--schema", default=str(root / "workflow/schemas/config.schema.yaml"))
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run one experiment and write its cube")
    p_run.add_argument("name")
    p_run.add_argument(
        "--out",
        help="default: results/manual/<name>.nc (the pipeline's results/<name>.nc belongs to "
        "Snakemake: overwriting it by hand would leave Snakemake believing it current)",
    )
    p_fig = sub.add_parser("figure", help="draw one figure group from the cubes in results/")
    p_fig.add_argument("group")
    p_fig.add_argument("--results", default="results")
    p_fig.add_argument("--out-dir", default="figures")
    p_cl = sub.add_parser("claims", help="judge the registry against the cubes in results/")
    p_cl.add_argument("--registry", default="config/claims")
    p_cl.add_argument("--results", default="results")
    p_cl.add_argument("--out", help="where to write the tables (default: the --results folder)")
    p_li = sub.add_parser("lint", help="lint the claims registry (or one file of it)")
    p_li.add_argument("--registry", default="config/claims")
    p_mu = sub.add_parser(
        "mutants", help="list the checked rows a wrong science would still pass (survivors)"
    )
    p_mu.add_argument("--registry", default="config/claims")
    p_mu.add_argument("--results", default="results")
    sub.add_parser("list", help="list the experiments and figure groups")
    p_sc = sub.add_parser(
        "schema",
        help="regenerate workflow/schemas/config.schema.yaml and experiments.json from the "
        "@experiment declarations (after adding an experiment or changing its keys)",
    )
    p_sc.add_argument("--check", action="store_true", help="only say whether they are stale")
    args = parser.parse_args(argv)
    setup_logging()

    if args.command == "schema":
        return write_schema(check_only=args.check)

    if args.command == "list":
        from .experiments import registry
        from .figures import catalog

        for name, exp in registry().items():
            print(f"experiment {name}: grid {', '.join(exp.grid)}")
        for group, figs in catalog.groups().items():
            print(f"figure group {group}: {', '.join(f.id for f in figs)}")
        return 0
    if args.command == "lint":
        return lint_registry(args.registry)
    if args.command == "mutants":
        return list_mutants(args.registry, args.results)
    config = load_yaml(args.config)
    check_config(config, args.schema)
    if args.command == "run":
        out = args.out or f"results/manual/{args.name}.nc"
        run_experiment(args.name, config["experiments"][args.name], config["seed"], out)
    elif args.command == "figure":
        from .figures import catalog

        names = sorted({c for f in catalog.groups()[args.group] for c in f.cubes})
        draw_figures(args.group, {n: f"{args.results}/{n}.nc" for n in names}, args.out_dir)
    elif args.command == "claims":
        from . import claims

        entries = claims.load_registry(args.registry)
        names = claims.cubes_of(entries)
        res, out = Path(args.results), Path(args.out or args.results)
        out.mkdir(parents=True, exist_ok=True)
        judge_claims(
            args.registry,
            {n: str(res / f"{n}.nc") for n in names},
            out / "claims.csv",
            out / "claims.md",
            out / "claims.html",
        )
    return 0
