"""Snakemake job: the interactive pages of some interactive modules, built by
attnmem.cli.pages_job from the rule's inputs, outputs and the config Snakemake passes."""

from attnmem.cli import pages_job

pages_job(snakemake)  # noqa: F821 (Snakemake injects the object)
