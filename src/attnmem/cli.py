"""Command line and Snakemake entry points: run an experiment, draw a figure group, judge the
claims, build the gallery. ``python -m attnmem --help`` lists the commands.

The experiment jobs are in attnmem.jobs (an input of every experiment rule). The rules call the
``*_job`` functions from tiny scripts (workflow/scripts/), which pass the rule's inputs, outputs
and params as Python objects, so no shell string is built from config.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from .jobs import run_experiment
from .logs import log, logged_failure, setup_logging

# ----------------------------------------------------------------------------- actions


def draw_figures(
    module: str,
    cube_paths: Mapping[str, str],
    settings: Mapping,
    pngs: Mapping[str, str | Path],
    svg: bool = False,
) -> dict[str, list[str]]:
    """Draw every figure of a figure module: figure ``id`` to ``pngs[id]``, with its caption
    (``.rst``, the function's docstring) and, if ``svg``, an SVG beside it. ``settings`` is the
    module's block of config ``figures``; each function gets the cubes and the settings it
    declares. Returns each figure's readability problems (attnmem.figures.style.problems;
    empty lists when every figure reads well)."""
    from . import views
    from .cube import read_cube
    from .figure_settings import coordinate_problems
    from .figures import style

    style.apply()
    figures = [f for f in views.groups()[module] if f.id in pngs]
    functions = imported_as_scanned(module, "figure")
    cubes = {name: read_cube(path) for name, path in cube_paths.items()}
    problems = coordinate_problems(figures, settings, cubes)
    if problems:
        raise SystemExit("figure settings the cubes do not hold:\n  " + "\n  ".join(problems))
    checks = {}
    # A closed figure is freed by the cyclic garbage collector, whose full passes also walk the
    # 130,000 objects alive before the first draw (most made by the imports: numpy, matplotlib,
    # xarray, scipy), a tenth of the drawing's time; they stay alive, so they sit out the passes.
    gc.freeze()
    try:
        for fig in figures:
            draw = functions[fig.id]
            path = Path(pngs[fig.id])
            chosen = {name: settings[name] for name in fig.settings}
            drawn = draw({c: cubes[c] for c in fig.cubes}, **chosen)
            checks[fig.id] = style.save(drawn, path, svg)
            _replace_text(path.with_suffix(".rst"), views.caption(draw) + "\n")
            log.info("drew %s", path)
    finally:
        gc.unfreeze()
    return checks


def _replace_text(path: Path, text: str) -> None:
    """Write a file beside its name and rename it onto it (a new file, never half of one)."""
    tmp = path.with_name("." + path.name)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def imported_as_scanned(module: str, kind: str) -> dict:
    """The functions of a view module by id, refused when the text scan (which the Snakefile
    planned the jobs from) disagrees with the imported decorators."""
    from . import views

    functions = views.imported(module, kind)
    scanned = {v.id: v for v in views.scan() if v.kind == kind and v.module == module}
    twins = views.by_id("figure")
    found = {
        i: views._with_twin(fn.view, twins[i]) if kind == "page" and i in twins else fn.view
        for i, fn in functions.items()
    }
    if scanned != found:
        raise RuntimeError(
            f"the text scan of {views.KINDS[kind]}/{module}.py disagrees with its decorators"
        )
    return functions


def judge_claims(
    registry,
    cube_paths: Mapping[str, str],
    csv_path,
    md_path,
    html_path,
    errata_path,
    notes_docs=(),
):
    """Judge the registry (a directory, or a list of its YAML files) and write the tables and
    the errata page; ``notes_docs``: the notes whose page (results/notes/) the table links."""
    from . import claims, tables
    from .cube import read_cube

    entries = claims.load_registry(registry)
    cubes = {name: read_cube(path) for name, path in cube_paths.items()}
    rows = claims.judge_all(entries, cubes)
    tables.write_tables(rows, csv_path, md_path, html_path, errata_path, notes_docs)
    log.info("%s", tables.summary(rows))
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
    from .config import ConfigError, load_yaml
    from .experiments import registry as experiments

    schema = load_yaml(Path(__file__).resolve().parents[2] / "workflow/schemas/claims.schema.yaml")
    files = [registry] if Path(registry).is_file() else claims.registry_files(registry)
    problems = []
    for path in files:
        try:
            jsonschema.validate(load_yaml(path) or [], schema)
        except jsonschema.ValidationError as exc:
            problems.append(f"{path}: {exc.message} at {list(exc.absolute_path)}")
        except ConfigError as exc:  # YAML that does not parse: its file, line and column
            problems.append(str(exc))
    if problems and any(" line " in p and "column" in p for p in problems):
        for line in problems:
            print(line)
        print(f"{len(problems)} problems; the registry does not load")
        return 1
    entries = claims.load_registry(files)
    problems += registry_lint.all_problems(entries, experiments())
    for line in problems:
        print(line)
    print(f"{len(problems)} problems in {len(entries)} entries")
    return 1 if problems else 0


def _overlaid(base: dict, overlay: dict) -> dict:
    """``overlay`` merged into ``base`` mapping by mapping, as Snakemake merges a
    ``--configfile`` over the Snakefile's config file."""
    out = dict(base)
    for key, value in overlay.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = _overlaid(out[key], value) if both else value
    return out


def check_all(config_path, registry, overlays=()) -> int:
    """Everything the pipeline checks before a job, and more, without computing anything: the
    generated schema and manifest are current; the config files have no key written twice, fit
    the schema and stay within the cost limits; every figure setting is a value the config's
    grids hold; every registry entry reads a cube, variable and grid value the config will
    produce; and the registry's own rules (``lint``). ``overlays`` are files merged over the
    config as Snakemake's ``--configfile`` merges them (Snakemake's own message for one that
    does not parse names no line; this one does). Prints each problem; 1 if any."""
    from . import schema, views
    from .config import ConfigError, check_config, duplicate_keys, load_yaml
    from .costs import load_costs, over_limits
    from .figure_settings import problems as figure_problems
    from .points import to_compute
    from .registry_lint import pipeline_problems

    found = [f"stale: {p} (run `python -m attnmem schema`)" for p in schema.stale()]
    try:
        config = load_yaml(config_path)
        found += duplicate_keys(config_path)
        for overlay in overlays:
            config = _overlaid(config, load_yaml(overlay) or {})
            found += duplicate_keys(overlay)
        check_config(config, schema.CONFIG_SCHEMA)
    except ConfigError as err:  # a YAML error names its file, line and column
        found += str(err).splitlines()[1:] or [str(err)]
    else:
        manifest = schema.load_manifest()
        costs = load_costs(schema.SCHEMA_DIR / "costs.json")

        def new_points(name, block):  # those the store in ./results/points lacks
            return to_compute(name, block, manifest[name]["grid"], config["seed"])

        found += over_limits(config, manifest, costs, new_points)
        found += figure_problems(config, views.scan())
        found += pipeline_problems(registry, config, manifest)
    for line in found:
        print(line)
    print(f"check: {len(found)} problem(s) in the declarations, config, figures and registry")
    return max(lint_registry(registry), 1 if found else 0)


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


def build_gallery(
    ids: Sequence[str],
    pngs: Sequence[str],
    captions: Sequence[str],
    claims_csv,
    out_path,
    svg: bool = False,
    pages: Mapping[str, Mapping] | None = None,
    pages_json=None,
) -> None:
    """figures/index.html from the figures ``ids`` (in the order of their PNG and caption
    files): each figure, its caption as the figure job wrote it, and its claims; each image
    links to its SVG when ``svg`` (the figure jobs wrote one), else to the PNG itself. With
    ``pages`` (figure id -> its page's description), each figure that has one links to it, and
    ``pages_json`` lists them (figures/interactive.json)."""
    from .gallery import caption_text, page_list, render

    figures = [
        {"id": fig_id, "png": png, "caption": caption_text(Path(cap).read_text(encoding="utf-8"))}
        for fig_id, png, cap in zip(ids, pngs, captions, strict=True)
    ]
    render(figures, claims_csv, out_path, svg, pages)
    if pages_json:
        page_list(pages or {}, pages_json)
    log.info("wrote %s with %d figures, %d pages", out_path, len(figures), len(pages or {}))


# ----------------------------------------------------------------------------- Snakemake jobs


def write_snapshot(path: str | Path, key: str, payload: Mapping, log_file=None) -> None:
    """A config snapshot (attnmem.snapshots), saying in ``log_file`` what it replaced."""
    from .snapshots import write

    removed = write(path, key, payload)
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        gone = f"; removed {', '.join(removed)}" if removed else ""
        Path(log_file).write_text(f"wrote {path}{gone}\n", encoding="utf-8")


def changed_views(kind: str, smk) -> tuple[dict, dict]:
    """Which views of a job to draw, by module, and each view's input digest.

    A job holds several modules, and Snakemake reruns it when any of its inputs changed. Each
    view's inputs (the content of the cubes it reads, the values of its settings, its module's
    code and the shared code the rule names) are hashed into one digest (``views.input_digest``),
    kept beside its module's output in the ``digests`` file; a view is drawn again when its
    digest changed or one of its files is missing. When nothing changed for any view of the job,
    Snakemake ran it for a reason the digests do not see (``--forcerun``, a touched input, its
    script edited): then every view is drawn."""
    from . import views
    from .figure_settings import settings_of

    cube_digests = {Path(p).stem: views.file_digest(p) for p in smk.input.cubes}
    shared = hashlib.sha256(b"".join(Path(p).read_bytes() for p in smk.input.code)).hexdigest()
    wanted, stale = {}, {}
    for source, digests_file in zip(smk.input.modules, smk.output.digests, strict=True):
        module = views.module_of(source, kind)
        if Path(digests_file).name.split(".")[0] != module:
            raise RuntimeError(f"output {digests_file} is not the digest file of {module}")
        code = hashlib.sha256(Path(source).read_bytes() + shared.encode()).hexdigest()
        settings = settings_of(smk.config, module)
        old = _read_json(digests_file)
        wanted[module] = {
            v.id: views.input_digest(v, cube_digests, settings, code)
            for v in views.groups(kind)[module]
        }
        stale[module] = [
            i
            for i, digest in wanted[module].items()
            if old.get(i) != digest or not all(Path(f).exists() for f in _files_of(kind, i, smk))
        ]
    if not any(stale.values()):
        log.info("no view's inputs changed: Snakemake forced the job; drawing every view")
        stale = {m: list(ids) for m, ids in wanted.items()}
    return stale, wanted


def _files_of(kind: str, view_id: str, smk) -> list[str]:
    """The files the job writes for one view (those of its outputs that name the id)."""
    ends = {"figure": (".png", ".svg", ".rst"), "page": (".html",)}[kind]
    return [str(f) for f in smk.output if any(str(f) == f"figures/{view_id}{e}" for e in ends)]


def _read_json(path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _outputs_by_id(kind: str, modules: list[str], listed) -> dict[str, dict[str, str]]:
    """module -> view id -> its file among ``listed`` (the rule lists them in scan order)."""
    from . import views

    suffix = views.SUFFIX[kind]
    files = iter(listed)
    out: dict[str, dict[str, str]] = {}
    for module in modules:
        for view in views.groups(kind)[module]:
            path = next(files)
            if str(path) != f"figures/{view.id}{suffix}":
                raise RuntimeError(f"output {path} is not the file of {kind} {view.id}")
            out.setdefault(module, {})[view.id] = path
    return out


def figures_job(smk) -> None:
    """The figures of some figure modules (their source files are the rule's ``modules``
    input, their PNGs the ``png`` output in the same order), with each module's settings from
    the config Snakemake passes; only the figures whose inputs changed are drawn
    (`changed_views`)."""
    setup_logging(smk.log[0] if smk.log else None)
    from . import views
    from .figure_settings import settings_of

    stale, wanted = changed_views("figure", smk)
    modules = list(stale)
    pngs = _outputs_by_id("figure", modules, smk.output.png)
    cube_paths = {Path(p).stem: p for p in smk.input.cubes}
    for module, checks_file, digests_file in zip(
        modules, smk.output.checks, smk.output.digests, strict=True
    ):
        if Path(checks_file).stem != module:
            raise RuntimeError(f"output {checks_file} does not hold the checks of {module}")
        # what tests/test_figure_layout.py reads, so that it need not draw every figure again
        checks = {i: c for i, c in _read_json(checks_file).items() if i in wanted[module]}
        if stale[module]:
            drawn = [v for v in views.groups()[module] if v.id in stale[module]]
            cubes = {c: cube_paths[c] for c in views.cubes_of(drawn)}
            settings = settings_of(smk.config, module)
            chosen = {i: pngs[module][i] for i in stale[module]}
            with logged_failure():
                checks |= draw_figures(module, cubes, settings, chosen, bool(smk.output.svg))
        checks = {i: checks[i] for i in wanted[module]}
        Path(checks_file).write_text(json.dumps(checks, indent=1) + "\n", encoding="utf-8")
        Path(digests_file).write_text(json.dumps(wanted[module], indent=1) + "\n")
        log.info("%s: drew %d of %d figures", module, len(stale[module]), len(wanted[module]))


def pages_job(smk) -> None:
    """The interactive pages of some interactive modules, like `figures_job`: only those whose
    inputs changed are built; each module's pages are described (handles, their ranges, the
    numbers each page shows) in its ``about`` output, read by the gallery and the tests."""
    setup_logging(smk.log[0] if smk.log else None)
    from .figure_settings import settings_of
    from .interactive import kit

    stale, wanted = changed_views("page", smk)
    modules = list(stale)
    htmls = _outputs_by_id("page", modules, smk.output.html)
    cube_paths = {Path(p).stem: p for p in smk.input.cubes}
    for module, about_file, digests_file in zip(
        modules, smk.output.about, smk.output.digests, strict=True
    ):
        about = {i: a for i, a in _read_json(about_file).items() if i in wanted[module]}
        if stale[module]:
            chosen = {i: htmls[module][i] for i in stale[module]}
            settings = settings_of(smk.config, module)
            with logged_failure():
                about |= kit.build_pages(module, cube_paths, settings, chosen, smk.input.js)
        about = {i: about[i] for i in wanted[module]}
        Path(about_file).write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")
        Path(digests_file).write_text(json.dumps(wanted[module], indent=1) + "\n")
        log.info("%s: built %d of %d pages", module, len(stale[module]), len(wanted[module]))


def claims_job(smk) -> None:
    setup_logging(smk.log[0] if smk.log else None)
    cube_paths = {Path(p).stem: p for p in smk.input.cubes}
    notes = json.loads(Path(smk.input.notes).read_text(encoding="utf-8"))["docs"]
    judge_claims(list(smk.input.registry), cube_paths, *smk.output, notes_docs=notes)


def gallery_job(smk) -> None:
    """The gallery and the list of pages; its PNG and caption inputs list every figure in scan
    order, its ``about`` input describes the pages (one file per interactive module)."""
    setup_logging(smk.log[0] if smk.log else None)
    from . import views

    ids = [f.id for f in views.figures()]
    about = {}
    for path in smk.input.about:
        about.update(_read_json(path))
    build_gallery(
        ids,
        smk.input.pngs,
        smk.input.captions,
        smk.input.claims,
        smk.output.index,
        smk.params.svg,
        pages=about,
        pages_json=smk.output.pages,
    )


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
    p_fig = sub.add_parser(
        "figure", help="draw the figures of one figure module from the cubes in results/"
    )
    p_fig.add_argument("module")
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
    p_tw = sub.add_parser(
        "twins", help="list the twin groups of the registry (rows stating the same fact)"
    )
    p_tw.add_argument("--registry", default="config/claims")
    sub.add_parser("list", help="list the experiments and the figures of each figure module")
    p_sc = sub.add_parser(
        "schema",
        help="regenerate workflow/schemas/config.schema.yaml and experiments.json from the "
        "@experiment declarations (after adding an experiment or changing its keys)",
    )
    p_sc.add_argument("--check", action="store_true", help="only say whether they are stale")
    p_ck = sub.add_parser(
        "check",
        help="check declarations, config, figure settings and registry before computing anything",
    )
    p_ck.add_argument("--registry", default="config/claims")
    p_ck.add_argument(
        "--configfile",
        nargs="+",
        default=[],
        help="files merged over --config, as snakemake --configfile merges them",
    )
    args = parser.parse_args(argv)
    setup_logging()

    if args.command == "schema":
        return write_schema(check_only=args.check)
    if args.command == "check":
        return check_all(args.config, args.registry, args.configfile)

    if args.command == "list":
        from . import views
        from .experiments import registry

        for name, exp in registry().items():
            print(f"experiment {name}: grid {', '.join(exp.grid)}")
        for view in views.listing():  # the generated list of views: figures, then pages
            handles = ", ".join(f"{k} {n}" for n, k in view.get("handles", []))
            print(
                f"{view['kind']} {view['id']}: {view['file']}"
                + (f" ({handles})" if handles else "")
            )
        return 0
    if args.command == "lint":
        return lint_registry(args.registry)
    if args.command == "mutants":
        return list_mutants(args.registry, args.results)
    if args.command == "twins":
        from . import claims, twins

        entries = claims.load_registry(args.registry)
        print(twins.report(entries))
        problems = twins.twin_rules(entries)
        print("\n".join(problems) or f"{len(twins.groups(entries))} groups, each one design")
        return 1 if problems else 0
    config = load_yaml(args.config)
    check_config(config, args.schema)
    if args.command == "run":
        known = config["experiments"]
        if args.name not in known:
            from difflib import get_close_matches

            near = get_close_matches(args.name, known, n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise SystemExit(
                f"no experiment {args.name!r} in {args.config}{hint}; "
                "`python -m attnmem list` lists them"
            )
        out = args.out or f"results/manual/{args.name}.nc"
        run_experiment(args.name, config["experiments"][args.name], config["seed"], out)
    elif args.command == "figure":
        from . import views
        from .figure_settings import check, settings_of

        check(config, views.scan())
        figures = views.groups()[args.module]
        names = sorted({c for f in figures for c in f.cubes})
        draw_figures(
            args.module,
            {n: f"{args.results}/{n}.nc" for n in names},
            settings_of(config, args.module),
            {f.id: Path(args.out_dir) / f"{f.id}.png" for f in figures},
        )
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
            out / "errata.md",
        )
    return 0
