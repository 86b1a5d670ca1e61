"""Snakemake job: hands the rule's inputs, outputs and params to attnmem.cli.claims_job."""

from attnmem.cli import claims_job

claims_job(snakemake)  # noqa: F821 (Snakemake injects the object)
