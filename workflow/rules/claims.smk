# The claims table (registry judged against the cubes) and the figure gallery (with the list of
# interactive pages); both run where Snakemake runs (localrule), never in a cluster queue.

from attnmem.claims import cubes_named_in
from attnmem.cli import write_snapshot
from attnmem.notes import configured as configured_notes

# The notes on this machine (config `notes:`, empty by default): document key -> its file.
NOTES = {
    doc: path if os.path.isabs(path) else here(BASE / path)
    for doc, path in configured_notes(config).items()
}
# Which notes the claims table links to, as a file named by their hash (attnmem.snapshots):
# setting `notes:` rebuilds the table with its line links.
NOTES_SNAPSHOT = str(
    snapshots.path("results/config/notes", "docs", {"docs": sorted(NOTES)})
)


rule claims:
    input:
        cubes=[
            f"results/{name}.nc" for name in cubes_named_in(registry_files(REGISTRY))
        ],
        registry=checked_registry,
        code=[here(BASE / "src/attnmem" / f) for f in ("claims.py", "tables.py")],
        notes=NOTES_SNAPSHOT,
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


rule notes_snapshot:
    output:
        "results/config/notes/docs.{digest}.json",
    log:
        "logs/notes_snapshot.{digest}.log",
    wildcard_constraints:
        digest=r"[0-9a-f]{16}",
    localrule: True
    run:
        write_snapshot(output[0], "docs", {"docs": sorted(NOTES)}, log[0])


rule note_page:
    input:
        note=lambda wildcards: NOTES[wildcards.doc],
        claims="results/claims.csv",
        code=here(BASE / "src/attnmem/notes.py"),
    output:
        "results/notes/{doc}.html",
    log:
        "logs/notes/{doc}.log",
    wildcard_constraints:
        doc=r"[a-z-]+",
    localrule: True
    run:
        from attnmem.notes import write_page

        write_page(wildcards.doc, input.note, input.claims, output[0])
