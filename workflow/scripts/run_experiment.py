"""Snakemake job: hands the rule's inputs, outputs and params to attnmem.jobs.experiment_job."""

from attnmem.jobs import experiment_job

experiment_job(snakemake)  # noqa: F821 (Snakemake injects the object)
