# One rule per experiment, named after it: run the grid of its config block into a cube.
# The science is in src/attnmem/experiments/; declaring an experiment there (and giving it a
# config block) adds its rule here, so this file does not grow with the project. On a
# cluster, experiment jobs travel in groups (group-components in the SLURM profile).
#
# Every job computes only the grid points that no job computed before (attnmem.points: the
# computed points are kept in results/points/, keyed by the point, the block's parameters, the
# global seed and the code), then assembles the cube: widening a grid costs its new points.
# A script job gets a thread per worker its grid can use (attnmem.points.useful_workers) and
# spreads the points over that many processes. On a cluster a grid larger than a few minutes
# of measured work is cut into shard jobs instead (attnmem.shards.automatic), and a gather job
# joins them into the same cube; a block's own `shard:` setting cuts it anywhere.
# An experiment whose grid costs less than a job's start-up (attnmem.costs.in_process; most of
# them) is a `run:` job that the laptop profile's force-use-threads runs in a thread of
# Snakemake itself, where numpy and xarray are already loaded: about 50 jobs of a default build
# would otherwise each spend most of their second starting a Python. On a cluster these stay
# local (localrule) and run the same way, with no queue wait.
# A cube is an `update` output: Snakemake keeps the old cube while its job reruns (the job
# replaces it in one rename when the new one is complete) and restores it if the job fails.

SHARDS = {}  # experiment -> {shard name: sub-block}
AUTO_SHARDED = set()  # cut by attnmem.shards.automatic: one cluster job per shard

for _name, _block in config["experiments"].items():
    _keys = MANIFEST[_name]["grid"]
    _work = work_seconds(_name, _block, MANIFEST, COSTS)
    _parts = shards_of(
        _name, _block, _keys, config["seed"], _work if ON_CLUSTER and _work else None
    )
    _workers = 1 if ON_CLUSTER else useful_workers(_work, point_count(_block, _keys))
    announce(_name, _block, _work, len(_parts), _workers)
    if list(_parts) == ["all"] and in_process(_name, _block, MANIFEST, COSTS):

        rule:
            name:
                _name
            input:
                config=config_snapshot(_name),
                science=science(_name),
            output:
                update(f"results/{_name}.nc"),
            log:
                f"logs/{_name}.log",
            benchmark:
                f"logs/benchmarks/{_name}.tsv"
            # first: they queue one at a time on one core while script jobs take the other,
            # and the figure jobs wait for them (those of the largest figure jobs first)
            priority: 1000 + figures_waiting(_name)
            localrule: True
            threads: 1
            resources:
                mem_mb=2048,
                in_process=1,  # one at a time (the default profile allows 1; jobs.py locks too)
            run:
                from attnmem.jobs import experiment_in_thread

                experiment_in_thread(input.config, output[0], log[0])

    elif list(_parts) == ["all"]:

        rule:
            name:
                _name
            input:
                config=config_snapshot(_name),
                science=science(_name),
            output:
                update(f"results/{_name}.nc"),
            log:
                f"logs/{_name}.log",
            benchmark:
                f"logs/benchmarks/{_name}.tsv"
            # longest first (its measured seconds), so that short jobs fill the gaps at the end
            priority: round(work_seconds(_name, _block, MANIFEST, COSTS) or 0)
            group:
                "experiments"
            conda:
                "../envs/attnmem.yaml"
            threads: _workers  # worker processes (capped at --cores by Snakemake)
            resources:
                mem_mb=2048,
            script:
                "../scripts/run_experiment.py"

    else:
        SHARDS[_name] = _parts
        if not spec(_block, _keys):
            AUTO_SHARDED.add(_name)

        rule:
            name:
                f"{_name}_gather"
            input:
                config=config_snapshot(_name),
                shards=[f"results/shards/{_name}/{s}.nc" for s in _parts],
            output:
                update(f"results/{_name}.nc"),
            log:
                f"logs/{_name}.log",
            benchmark:
                f"logs/benchmarks/{_name}.tsv"
            localrule: True
            conda:
                "../envs/attnmem.yaml"
            threads: 1
            resources:
                mem_mb=2048,
            script:
                "../scripts/gather_shards.py"


rule shard:
    input:
        science=lambda wc: science(wc.experiment),
    output:
        "results/shards/{experiment}/{shard}.nc",
    log:
        "logs/shards/{experiment}/{shard}.log",
    benchmark:
        "logs/benchmarks/shards/{experiment}/{shard}.tsv"
    wildcard_constraints:
        experiment=r"[A-Za-z_]\w*",
        shard=r"[^/]+",
    # a block's own shards travel in groups like experiments; automatic ones hold minutes of
    # work each and go to the cluster one by one, side by side
    group:
        lambda wc: None if wc.experiment in AUTO_SHARDED else "experiments"
    conda:
        "../envs/attnmem.yaml"
    threads: 1
    resources:
        mem_mb=2048,
    params:
        block=lambda wc: SHARDS[wc.experiment][wc.shard],
        seed=config["seed"],
    script:
        "../scripts/run_shard.py"


# An experiment's config block as a file named by its hash (see config_snapshot in common.smk):
# written by this job, never by parsing, so an edit reruns the experiment whatever was parsed.
rule config_snapshot:
    output:
        "results/config/{experiment}.{digest}.json",
    log:
        "logs/config/{experiment}.{digest}.log",
    wildcard_constraints:
        # the configured experiments only (results/config/ holds other snapshots too)
        experiment="|".join(config["experiments"]),
        digest=r"[0-9a-f]{16}",
    localrule: True
    run:
        from attnmem.cli import write_snapshot

        name = wildcards.experiment
        write_snapshot(output[0], name, run_record(config, name), log[0])


# A cube that is not what its job wrote (truncated, overwritten, replaced by another cube: its
# size, time and checksum differ from the record write_cube keeps beside it, attnmem.checksums)
# stops the run before any job, naming the cube and the rule that rebuilds it; an intact
# build costs one stat per cube.
_damaged = checksums.damaged_cubes(
    {
        f"results/{_name}.nc": (
            f"rule {_name}_gather" if _name in SHARDS else f"rule {_name}"
        )
        for _name in config["experiments"]
    },
    ".snakemake/attnmem/cubes-verified.json",
)
if _damaged:
    raise WorkflowError(
        "a cube is damaged, nothing was run:\n"
        + "\n".join(f"  - {d}" for d in _damaged)
    )
