"""The project stays lint clean: ruff on the code, snakefmt and snakemake --lint on the workflow."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, snakemake


def tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def test_ruff_is_clean():
    targets = ["src", "tests", "workflow/scripts", "benchmarks"]
    proc = subprocess.run(
        [tool("ruff"), "check", *targets], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rules_are_snakefmt_formatted():
    files = [
        "workflow/Snakefile",
        *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("workflow/rules/*.smk")),
    ]
    proc = subprocess.run(
        [tool("snakefmt"), "--check", *files], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakemake_lint_is_clean():
    proc = snakemake("--lint", check=False)
    assert "Congratulations" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
