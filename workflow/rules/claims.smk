# The claims table (registry judged against the cubes) and the figure gallery; both run where
# Snakemake runs (localrule), never in a cluster queue.

from attnmem.claims import cubes_named_in, registry_files
from attnmem.registry_lint import check_registry_once, summary

REGISTRY = BASE / "config/claims"


def checked_registry(wildcards):
    """The registry files, once the registry is found sound against the config and the
    experiment manifest: unknown cubes, variables, dims and grid values, misspelled
    tolerances, duplicate ids. An input function runs while the DAG is built, before any job,
    and only when the claims table is to be built (a run asked only for cubes is not refused).
    A hash of what the check read is kept under .snakemake/ (never results/), so an unchanged
    registry costs no YAML parse at the next start."""
    problems = check_registry_once(
        REGISTRY, config, MANIFEST, ".snakemake/attnmem/registry.sha256"
    )
    if problems:
        raise WorkflowError(
            f"the claims registry has {len(problems)} problem(s); no job was run:\n"
            + summary(problems)
        )
    return [here(p) for p in registry_files(REGISTRY)]


rule claims:
    input:
        cubes=[
            f"results/{name}.nc" for name in cubes_named_in(registry_files(REGISTRY))
        ],
        registry=checked_registry,
        code=here(BASE / "src/attnmem/claims.py"),
    output:
        "results/claims.csv",
        "results/claims.md",
        report("results/claims.html", caption="../report/claims.rst", category="claims"),
    log:
        "logs/claims.log",
    benchmark:
        "logs/benchmarks/claims.tsv"
    localrule: True
    conda:
        "../envs/attnmem.yaml"
    threads: 1
    resources:
        mem_mb=2048,
    script:
        "../scripts/judge_claims.py"


rule gallery:
    input:
        pngs=all_figure_pngs(),
        captions=all_captions(),
        claims="results/claims.csv",
        code=[
            here(BASE / "src/attnmem" / f)
            for f in ("gallery.py", "figures/catalog.py", "figures/style.py")
        ],
    output:
        "figures/index.html",
    log:
        "logs/gallery.log",
    benchmark:
        "logs/benchmarks/gallery.tsv"
    localrule: True
    conda:
        "../envs/attnmem.yaml"
    threads: 1
    resources:
        mem_mb=512,
    script:
        "../scripts/build_gallery.py"
