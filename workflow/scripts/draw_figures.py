"""Snakemake job: hands the rule's inputs, outputs and params to attnmem.cli.figures_job."""

from attnmem.cli import figures_job

figures_job(snakemake)  # noqa: F821 (Snakemake injects the object)
