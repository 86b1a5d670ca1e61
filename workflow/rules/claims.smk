# The claims table (registry judged against the cubes) and the figure gallery; both run where
# Snakemake runs (localrule), never in a cluster queue.

from attnmem.claims import cubes_named_in, registry_files
from attnmem.registry_lint import check_registry_once, summary

REGISTRY = BASE / "config/claims"

# The registry is checked before any job, against the config and the experiment manifest:
# unknown cubes, variables, dims and grid values, misspelled tolerances, duplicate ids. A hash of
# what the check read is kept under .snakemake/ (never results/), so an unchanged registry costs
# no YAML parse at the next start.
REGISTRY_PROBLEMS = check_registry_once(
    REGISTRY, config, MANIFEST, ".snakemake/attnmem/registry.sha256"
)
if REGISTRY_PROBLEMS:
    raise WorkflowError(
        f"the claims registry has {len(REGISTRY_PROBLEMS)} problem(s); no job was run:\n"
        + summary(REGISTRY_PROBLEMS)
    )


rule claims:
    input:
        cubes=[
            f"results/{name}.nc" for name in cubes_named_in(registry_files(REGISTRY))
        ],
        registry=[here(p) for p in registry_files(REGISTRY)],
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
