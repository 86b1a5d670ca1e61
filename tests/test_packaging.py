"""environment.yml (conda) and pyproject.toml (pip) list the same dependencies."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

from attnmem.config import load_yaml


def _norm(req: str) -> str:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req).groups()
    return f"{name.lower().replace('_', '-')}{spec.replace(' ', '')}"


def test_conda_and_pip_dependencies_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip = {_norm(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    conda = load_yaml(ROOT / "environment.yml")["dependencies"]
    pip_section = [r for d in conda if isinstance(d, dict) for r in d["pip"] if r[0] != "-"]
    conda = [r for r in conda if isinstance(r, str) and not r.startswith(("python", "pip"))]
    conda = {_norm(r) for r in conda + pip_section}
    assert pip == conda, f"only in pyproject: {pip - conda}; only in environment.yml: {conda - pip}"


def test_the_rules_environment_installs_this_project():
    """workflow/envs/attnmem.yaml (every rule's `conda:`) installs the checkout itself, whose
    pyproject.toml brings the dependencies: a conda job imports the same attnmem."""
    env_file = ROOT / "workflow" / "envs" / "attnmem.yaml"
    deps = load_yaml(env_file)["dependencies"]
    pip = next(d["pip"] for d in deps if isinstance(d, dict))
    (editable,) = [p for p in pip if p.startswith("-e ")]
    assert (env_file.parent / editable[3:]).resolve() == ROOT
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        for target in re.findall(r'conda:\s*\n\s*"([^"]+)"', smk.read_text()):
            assert (smk.parent / target).resolve() == env_file, f"{smk.name}: {target}"
