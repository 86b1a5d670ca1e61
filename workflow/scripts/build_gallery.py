"""Snakemake job: figures/index.html, built by attnmem.cli.gallery_job from the rule's inputs."""

from attnmem.cli import gallery_job

gallery_job(snakemake)  # noqa: F821 (Snakemake injects the object)
