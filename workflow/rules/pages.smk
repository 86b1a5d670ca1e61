# The interactive pages (src/attnmem/interactive/<module>.py, one module per topic, named like
# the figure modules): standalone HTML built with Bokeh, each beside the PNG of its static twin
# (figures/<doc>/<section>-<slug>.html). A few jobs build them, grouped like the figures
# (views.jobs) and apart from the matplotlib jobs, so that those never import Bokeh; like them,
# a job rebuilds only the pages whose inputs changed. Bokeh's JavaScript is copied once into
# figures/_js/ (named by its version), and every page loads it from there: the pages open from
# disk with no network.

INTERACTIVE_CODE = os.path.relpath(BASE / "src/attnmem/interactive")


rule bokeh_js:
    output:
        BOKEH_JS,
    log:
        "logs/bokeh_js.log",
    localrule: True
    run:
        from attnmem.interactive import copy_js

        copy_js(output, log[0])


for _job, _modules in view_jobs("page").items():
    _pages = views_of("page", _modules)

    rule:
        name:
            _job
        input:
            cubes=[f"results/{c}.nc" for c in views.cubes_of(_pages)],
            modules=[os.path.join(INTERACTIVE_CODE, f"{m}.py") for m in _modules],
            code=[
                *VIEW_CODE,
                here(BASE / "src/attnmem/shell.py"),
                os.path.join(INTERACTIVE_CODE, "kit.py"),
            ],
            settings=settings_snapshots(*_modules),
            js=BOKEH_JS,
        output:
            html=[update(p.path) for p in _pages],
            # each module's pages described: handles, their ranges, the numbers shown
            about=[update(f"results/pages/{m}.json") for m in _modules],
            # each page's input digest (as for the figures)
            digests=[update(f"results/pages/{m}.digests.json") for m in _modules],
        log:
            f"logs/{_job}.log",
        benchmark:
            f"logs/benchmarks/{_job}.tsv"
        priority: len(_pages)
        localrule: True
        conda:
            "../envs/attnmem.yaml"
        threads: 1
        resources:
            mem_mb=2048,
        script:
            "../scripts/build_pages.py"
