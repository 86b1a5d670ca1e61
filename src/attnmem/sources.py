"""Which source files each experiment's science lives in, read as text.

The Snakefile gives every experiment rule its science's source files as inputs, so that editing
the science reruns the experiment. It finds them by scanning the modules' text instead of
importing them: importing the science (numpy, scipy) would cost a second of every Snakemake
start, including a run with nothing to do. A test checks the scan against the imported modules.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from pathlib import Path

EXPERIMENTS_DIR = Path(__file__).parent / "experiments"
# The plumbing that turns any science into a cube (grid expansion, per-point seeding, writing,
# declarations, sharding, the store of computed points, running as a job): editing it reruns
# every experiment, and recomputes its points (attnmem.points).
PLUMBING = tuple(
    Path(__file__).parent / f
    for f in ("grid.py", "cube.py", "spec.py", "shards.py", "points.py", "jobs.py")
)

_DECLARED = re.compile(r"^@experiment\((.*?)^def (\w+)\(", re.MULTILINE | re.DOTALL)
_NAME = re.compile(r"""^    name\s*=\s*["']([A-Za-z_]\w*)["']""", re.MULTILINE)
_FROM_SIBLING = re.compile(r"^from \.(\w+)[\w.]* import", re.MULTILINE)
_SIBLINGS = re.compile(r"^from \. import ([\w ,]+)", re.MULTILINE)


def _module_facts(text: str) -> tuple[list[str], set[str]]:
    """Experiment names declared in a module (``@experiment(...)`` before ``def name(``, or its
    ``name="..."`` argument) and the sibling modules it imports relatively (``from .x import
    ...``, ``from . import x as y``)."""
    names = []
    for args, func in _DECLARED.findall(text):
        for decorator in args.split("\n@experiment("):  # stacked: one function, two names
            named = _NAME.findall(decorator)
            names.append(named[0] if named else func)
    siblings = set(_FROM_SIBLING.findall(text))
    for group in _SIBLINGS.findall(text):
        siblings.update(part.split()[0] for part in group.split(",") if part.strip())
    return names, siblings


@lru_cache(maxsize=4)
def experiment_modules(directory: Path = EXPERIMENTS_DIR) -> dict[str, str]:
    """Experiment name -> the module (file stem) that declares it."""
    out: dict[str, str] = {}
    for path in sorted(directory.glob("*.py")):
        for name in _module_facts(path.read_text(encoding="utf-8"))[0]:
            if name in out:
                raise ValueError(f"experiment {name!r} is declared twice")
            out[name] = path.stem
    return out


@lru_cache(maxsize=4)
def experiment_sources(directory: Path = EXPERIMENTS_DIR) -> dict[str, list[str]]:
    """Experiment name -> sorted source files: its module and every experiments module that
    module imports, directly or through others."""
    facts = {p.stem: _module_facts(p.read_text(encoding="utf-8")) for p in directory.glob("*.py")}
    out = {}
    for module, (names, _) in sorted(facts.items()):
        seen, todo = {module}, [module]
        while todo:
            for dep in facts[todo.pop()][1]:
                if dep in facts and dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        files = sorted(str(directory / f"{m}.py") for m in seen)
        for name in names:
            if name in out:
                raise ValueError(f"experiment {name!r} is declared twice")
            out[name] = files
    return out


def science_files(name: str) -> list[str]:
    """Every file a cube's values depend on: its science's modules and the plumbing."""
    return experiment_sources().get(name, []) + [str(p) for p in PLUMBING]


@lru_cache(maxsize=256)
def imported_libraries(name: str) -> tuple[str, ...]:
    """The third-party libraries (top-level import names) an experiment's science imports: every
    ``import x`` and ``from x import ...`` of its modules, inside functions too (torch is
    imported lazily), less the standard library and the package itself. Read from the modules'
    text, so that a new import is named without a list kept by hand."""
    found: set[str] = set()
    for path in experiment_sources().get(name, []):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    own = {"attnmem", "__future__"}
    return tuple(sorted(found - own - set(sys.stdlib_module_names), key=str.lower))


def installed_versions(modules) -> dict[str, str | None]:
    """The installed version of each library (by import name; None where absent), read from
    the packages' metadata without importing them."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    out: dict[str, str | None] = {}
    for module in modules:
        try:
            out[module] = version(module)
        except PackageNotFoundError:
            dists = packages_distributions().get(module, [])
            out[module] = version(dists[0]) if dists else None
    return out
