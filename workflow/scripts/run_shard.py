"""Snakemake job: computes one shard of an experiment's grid (attnmem.cli.shard_job)."""

from attnmem.cli import shard_job

shard_job(snakemake)  # noqa: F821 (Snakemake injects the object)
