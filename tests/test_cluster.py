"""The SLURM path, on a real cluster: the same reduced build through `snakemake --profile
workflow/profiles/slurm` and through a local run gives identical cubes, bit for bit.

The cluster is a real single-node SLURM with accounting, started by
``workflow/cluster/slurm-local.sh start`` (as root, on Debian). ``.ci/run`` starts it and sets
ATTNMEM_REQUIRE_SLURM=1, which makes this test mandatory; elsewhere it is skipped when no
cluster answers, with a message saying how to start one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import xarray as xr
from conftest import ROOT, snakemake

# Two cheap experiments that stay local (in Snakemake's process), the reduced Monte Carlo one,
# and two that the reduced config widens past IN_PROCESS_SECONDS of measured work, which makes
# them script jobs that go to the cluster as one group. If a re-measured costs.json makes them
# cheap again, widen them further in .test/config/config.yaml (sent_to_the_cluster).
TARGETS = ["soft_lookup", "bag_costs", "score_scale", "binding_hmm", "write_rule_streams"]
ACCOUNT = "attnmem"  # the account slurm-local.sh creates


def sent_to_the_cluster() -> list[str]:
    """The targets that run as cluster jobs under the reduced config: the others are cheaper
    than a process start and run in Snakemake's own process (attnmem.costs.in_process)."""
    from attnmem.config import load_yaml
    from attnmem.costs import in_process, load_costs
    from attnmem.schema import load_manifest

    blocks = load_yaml(ROOT / "config/config.yaml")["experiments"]
    for name, block in (load_yaml(ROOT / ".test/config/config.yaml")["experiments"]).items():
        blocks[name] = {**blocks[name], **block}
    manifest = load_manifest(ROOT / "workflow/schemas/experiments.json")
    costs = load_costs(ROOT / "workflow/schemas/costs.json")
    return [n for n in TARGETS if not in_process(n, blocks[n], manifest, costs)]


def cluster_up() -> bool:
    if not shutil.which("scontrol"):
        return False
    return subprocess.run(["scontrol", "ping"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def cluster():
    if not cluster_up():
        if os.environ.get("ATTNMEM_REQUIRE_SLURM"):
            pytest.fail("ATTNMEM_REQUIRE_SLURM is set but no SLURM controller answers")
        pytest.skip(
            "no SLURM cluster: `sudo workflow/cluster/slurm-local.sh start` starts a local one"
        )


@pytest.mark.cluster
def test_slurm_profile_builds_the_same_cubes_as_a_local_run(cluster, tmp_path, monkeypatch):
    if not shutil.which("sbatch"):
        pytest.fail("scontrol answers but sbatch is missing")
    local, remote = tmp_path / "local", tmp_path / "slurm"
    config = [
        "--configfile",
        str(ROOT / "config/config.yaml"),
        str(ROOT / ".test/config/config.yaml"),
    ]
    targets = [f"results/{n}.nc" for n in TARGETS]
    snakemake(*targets, "--directory", str(local), "--cores", "2", *config)
    monkeypatch.setenv("ATTNMEM_SLURM_ACCOUNT", ACCOUNT)
    run = snakemake(
        *targets,
        "--directory",
        str(remote),
        "--profile",
        str(ROOT / "workflow/profiles/slurm"),
        "--workflow-profile",
        "none",
        *config,
    )
    output = run.stdout + run.stderr
    jobids = set(re.findall(r"SLURM jobid (\d+)", output))
    assert jobids, f"nothing was submitted to SLURM:\n{output[-3000:]}"
    states = subprocess.run(
        ["sacct", "-n", "-X", "-P", "-o", "JobID,State", "-j", ",".join(sorted(jobids))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert states and all(s.endswith("|COMPLETED") for s in states), states
    # The experiments sent to the cluster travel as one group: fewer cluster jobs than cubes.
    remote_cubes = sent_to_the_cluster()
    assert len(remote_cubes) >= 2, f"too few targets go to the cluster: {remote_cubes}"
    assert len(jobids) < len(remote_cubes), f"{len(jobids)} cluster jobs for {remote_cubes}"
    for name in TARGETS:
        a = xr.load_dataset(local / "results" / f"{name}.nc")
        b = xr.load_dataset(remote / "results" / f"{name}.nc")
        assert a.identical(b), f"{name}: the cluster cube differs from the local one"
