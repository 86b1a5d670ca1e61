# The figure modules (src/attnmem/figures/<module>.py) are drawn by a few jobs, each drawing
# several modules (views.jobs: grouped by name, the modules reading training cubes apart; no
# grid changes the grouping), so that matplotlib and xarray are imported a few times, not once
# per module. The figures, the cubes they read and the settings they pick are read from the
# modules' text (attnmem.views), without importing them.
# A job redraws only the figures whose inputs changed (the content of their cubes, their
# settings, their code: a digest per figure in results/figure_checks/<module>.digests.json);
# its outputs are `update` outputs, so Snakemake does not delete the others before it runs.
# Each figure's caption is its function's docstring, which the job writes beside the PNG for the
# report and the gallery. Figures are drawn where Snakemake runs (localrule), never sent to a
# cluster queue.

import os

from attnmem.cli import write_snapshot

FIGURE_CODE = os.path.relpath(BASE / "src/attnmem/figures")
# What every view job reads besides its modules: the declarations and the colour code
VIEW_CODE = [here(BASE / "src/attnmem" / f) for f in ("views.py", "palette.py")]


# The gallery (rules/claims.smk) reads every figure's PNG and caption, in scan order.
all_figure_pngs = views.figure_pngs
all_captions = views.figure_captions


# A module's settings as a file named by their hash: the input that redraws the module when
# they change (a `params:` entry would cost every start a pandas import). Parsing writes nothing.
rule figure_settings:
    output:
        f"{FIGURE_SETTINGS}/{{module}}.{{digest}}.json",
    log:
        "logs/figure_settings/{module}.{digest}.log",
    wildcard_constraints:
        module=r"[a-z_]+",
        digest=r"[0-9a-f]{16}",
    localrule: True
    run:
        module = wildcards.module
        write_snapshot(
            output[0], module, settings_record(settings_of(config, module)), log[0]
        )


for _job, _modules in view_jobs("figure").items():
    _figures = views_of("figure", _modules)

    rule:
        name:
            _job
        input:
            cubes=[f"results/{c}.nc" for c in views.cubes_of(_figures)],
            modules=[os.path.join(FIGURE_CODE, f"{m}.py") for m in _modules],
            code=[*VIEW_CODE, os.path.join(FIGURE_CODE, "style.py")],
            settings=settings_snapshots(*_modules),
        output:
            png=[
                update(
                    report(
                        f"figures/{f.id}.png",
                        caption=os.path.abspath(f"figures/{f.id}.rst"),
                        category=f.doc,
                    )
                )
                for f in _figures
            ],
            # vector copies, when the config asks for them (svg: true)
            svg=[update(f"figures/{f.id}.svg") for f in _figures if SVG],
            caption=[update(f"figures/{f.id}.rst") for f in _figures],
            # each module's readability problems (style.problems), read by the tests
            checks=[update(f"results/figure_checks/{m}.json") for m in _modules],
            # each figure's input digest: what the next run compares to redraw only the changed
            digests=[
                update(f"results/figure_checks/{m}.digests.json") for m in _modules
            ],
        log:
            f"logs/{_job}.log",
        benchmark:
            f"logs/benchmarks/{_job}.tsv"
        # the largest first (a figure takes about a second), so that a small one ends the build
        priority: len(_figures)
        localrule: True
        conda:
            "../envs/attnmem.yaml"
        threads: 1
        resources:
            mem_mb=2048,
        script:
            "../scripts/draw_figures.py"
