"""Snakemake job: joins an experiment's shards into its cube (attnmem.jobs.gather_job)."""

from attnmem.jobs import gather_job

gather_job(snakemake)  # noqa: F821 (Snakemake injects the object)
