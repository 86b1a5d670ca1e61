# The claims table (registry judged against the cubes) and the figure gallery (with the list of
# interactive pages); both run where Snakemake runs (localrule), never in a cluster queue.

from attnmem.claims import cubes_named_in


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
        "results/errata.md",
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
        about=all_page_lists(),
        claims="results/claims.csv",
        code=[
            here(BASE / "src/attnmem" / f)
            for f in ("gallery.py", "views.py", "palette.py", "shell.py")
        ],
    output:
        index="figures/index.html",
        # every interactive page: figure id, note line, file, handles and their ranges
        pages="figures/interactive.json",
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
    params:
        svg=SVG,  # link each figure to its SVG (a change rebuilds the page)
    script:
        "../scripts/build_gallery.py"
