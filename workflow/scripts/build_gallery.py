"""Snakemake job: hands the rule's inputs, outputs and params to attnmem.cli.gallery_job."""

from attnmem.cli import gallery_job

gallery_job(snakemake)  # noqa: F821 (Snakemake injects the object)
