"""Snakemake job: joins an experiment's shards into its cube (attnmem.cli.gather_job)."""

from attnmem.cli import gather_job

gather_job(snakemake)  # noqa: F821 (Snakemake injects the object)
