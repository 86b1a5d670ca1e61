# One rule per figure group (see attnmem.figures.catalog): a group is drawn by one job, so
# matplotlib is imported once per group rather than once per figure. Figures are drawn where
# Snakemake runs (localrule), never sent to a cluster queue.

for _group in catalog.groups():

    rule:
        name:
            f"figures_{_group}"
        input:
            cubes=figure_cubes(_group),
            code=figure_code(_group),
        output:
            figure_outputs(_group),
        log:
            f"logs/figures_{_group}.log",
        benchmark:
            f"logs/benchmarks/figures_{_group}.tsv"
        localrule: True
        conda:
            "../../environment.yml"
        threads: 1
        resources:
            mem_mb=2048,
        script:
            "../scripts/draw_figures.py"
