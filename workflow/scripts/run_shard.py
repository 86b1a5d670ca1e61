"""Snakemake job: computes one shard of an experiment's grid (attnmem.jobs.shard_job)."""

from attnmem.jobs import shard_job

shard_job(snakemake)  # noqa: F821 (Snakemake injects the object)
