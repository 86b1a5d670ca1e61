"""Snakemake job: the figures of one figure module, drawn by attnmem.cli.figures_job from the
rule's inputs, outputs and the config Snakemake passes."""

from attnmem.cli import figures_job

figures_job(snakemake)  # noqa: F821 (Snakemake injects the object)
