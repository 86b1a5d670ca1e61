# One rule per experiment, named after it: run the grid of its config block into a cube.
# The science is in src/attnmem/experiments/; adding an experiment there (with its config block
# and schema entry) adds its rule here, so this file does not grow with the project. On a
# cluster, experiment jobs travel in groups (group-components in the SLURM profile).

for _name in config["experiments"]:

    rule:
        name:
            _name
        input:
            config=config_snapshot(_name),
            science=science(_name),
        output:
            f"results/{_name}.nc",
        log:
            f"logs/{_name}.log",
        benchmark:
            f"logs/benchmarks/{_name}.tsv"
        group:
            "experiments"
        conda:
            "../../environment.yml"
        threads: 1
        resources:
            mem_mb=2048,
        script:
            "../scripts/run_experiment.py"
