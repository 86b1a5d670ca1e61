# Re-derives the checkable results of five notes on transformers as associative memories.
# `snakemake --cores all` builds every cube (results/*.nc), every figure (figures/) and the
# claims table (results/claims.*). See README.md and DESIGN.md.

from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/claims.smk"


rule all:
    default_target: True
    input:
        "results/claims.csv",
        "figures/index.html",
        # every cube, also those no claim or figure reads yet
        [f"results/{name}.nc" for name in config["experiments"]],
    localrule: True
