# One rule per figure module (src/attnmem/figures/<module>.py): its figures are drawn by one job,
# so matplotlib is imported once per module. The figures, the cubes they read and the settings
# they pick are read from the modules' text (attnmem.figures.catalog), without importing them.
# Each figure's caption is its function's docstring, which the job writes beside the PNG for the
# report and the gallery. Figures are drawn where Snakemake runs (localrule), never sent to a
# cluster queue.

import os

from attnmem.cli import write_snapshot

FIGURE_CODE = os.path.relpath(BASE / "src/attnmem/figures")


# The gallery (rules/claims.smk) reads every figure's PNG and caption, in catalog order.
all_figure_pngs = catalog.figure_pngs
all_captions = catalog.figure_captions


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


for _module, _figures in catalog.groups().items():

    rule:
        name:
            f"figures_{_module}"
        input:
            cubes=[f"results/{c}.nc" for c in catalog.cubes_of(_figures)],
            module=os.path.join(FIGURE_CODE, f"{_module}.py"),
            code=[os.path.join(FIGURE_CODE, f) for f in ("catalog.py", "style.py")],
            settings=checked_settings(_module),
        output:
            png=[
                report(
                    f"figures/{f.id}.png",
                    caption=os.path.abspath(f"figures/{f.id}.rst"),
                    category=f.doc,
                )
                for f in _figures
            ],
            svg=[f"figures/{f.id}.svg" for f in _figures],
            caption=[f"figures/{f.id}.rst" for f in _figures],
            # each figure's readability problems (style.problems), read by the tests
            checks=f"results/figure_checks/{_module}.json",
        log:
            f"logs/figures_{_module}.log",
        benchmark:
            f"logs/benchmarks/figures_{_module}.tsv"
        localrule: True
        conda:
            "../envs/attnmem.yaml"
        threads: 1
        resources:
            mem_mb=2048,
        script:
            "../scripts/draw_figures.py"
