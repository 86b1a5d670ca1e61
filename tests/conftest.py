"""Shared fixtures: the repository's paths, the registry, and one run of the workflow."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # tests run against this checkout, installed or not

from attnmem import claims  # noqa: E402

REGISTRY = ROOT / "config" / "claims"


def snakemake(*args: str, cwd: Path = ROOT, check: bool = True) -> subprocess.CompletedProcess:
    """Run Snakemake (the one on PATH beside this Python) and capture its output."""
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake", "--snakefile", str(ROOT / "Snakefile"), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def entries() -> list[dict]:
    return claims.load_registry(REGISTRY)


@pytest.fixture(scope="session")
def pipeline(request) -> Path:
    """Build the default config once per session (Snakemake reuses what is up to date),
    showing Snakemake's step counts on the terminal while it runs: on a fresh clone the build
    takes minutes, and a silent test run looks hung."""
    import re
    import time

    capture = request.config.pluginmanager.getplugin("capturemanager")
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake", "--snakefile", str(ROOT / "Snakefile")]
    cmd += ["--cores", "2", "--quiet", "rules"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start, lines = time.monotonic(), []
    with subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        for line in proc.stdout:
            lines.append(line)
            step = re.search(r"(\d+) of (\d+) steps \((\d+%)\) done", line)
            if step:  # past pytest's capture, so that it shows while the build runs
                with capture.global_and_fixture_disabled():
                    sys.stdout.write(
                        f"\n[pipeline fixture] {step.group(1)}/{step.group(2)} Snakemake steps "
                        f"({step.group(3)}), {time.monotonic() - start:.0f} s"
                    )
                    sys.stdout.flush()
    if proc.returncode != 0:
        raise AssertionError("the pipeline build failed:\n" + "".join(lines[-80:]))
    return ROOT


@pytest.fixture(scope="session")
def claims_rows(pipeline) -> dict[str, dict]:
    with open(pipeline / "results" / "claims.csv", encoding="utf-8") as fh:
        return {row["id"]: row for row in csv.DictReader(fh)}
