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
    conda = {_norm(r) for r in conda if isinstance(r, str) and not r.startswith(("python", "pip"))}
    assert pip == conda, f"only in pyproject: {pip - conda}; only in environment.yml: {conda - pip}"
