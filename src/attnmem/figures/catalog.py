"""The figures, declared where they are drawn, and found again without drawing anything.

A figure is a function of a figure module decorated with
``@figure(id, title=..., cubes=..., settings=...)``: its id is ``<doc>/<section>-<slug>`` (drawn
to ``figures/<id>.png``, ``.svg`` and ``.rst``), its title is the short heading the gallery shows
(at most 70 characters), its docstring is its caption, ``cubes`` names the cubes it reads, and
``settings`` names the grid
values it picks from config (``figures: <module>: <name>``), each with the cube and dimension it
selects (or a list of such pairs, when one value selects from several cubes). The module is the
figure's group: one Snakemake job draws a few modules' figures (figure_jobs).

The Snakefile reads these declarations by scanning the modules' text (`scan`), because importing
them imports matplotlib, a second of every Snakemake start. A test checks the scan against the
imported decorators. This module imports nothing heavy, so the Snakefile can import it.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

FIGURES_DIR = Path(__file__).parent
NOT_FIGURE_MODULES = ("__init__", "catalog", "style")


@dataclass(frozen=True)
class Figure:
    id: str
    module: str  # the figure module, which is also the figure's group (figure_jobs)
    function: str
    cubes: tuple[str, ...] = ()
    # setting name -> the (cube, dim) pairs it selects
    settings: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    title: str = ""  # the gallery's heading; without one it takes the caption's first sentence

    @property
    def doc(self) -> str:
        """The document key, the id's first part."""
        return self.id.split("/", 1)[0]


def _figure(module: str, function: str, id: str, cubes=(), settings=None, title="") -> Figure:
    """One declaration, checked and normalised the same way for the decorator and the scan."""
    if not re.fullmatch(r"[a-z-]+/[\w.-]+", id):
        raise ValueError(f"figure id {id!r} is not <doc>/<section>-<slug>")
    if not isinstance(title, str) or len(title) > 70 or "\n" in title:
        raise ValueError(f"{id}: the title must be one line of at most 70 characters")
    if isinstance(cubes, str):
        raise TypeError(f"{id}: cubes must be a tuple of cube names, not one string")
    targets = {}
    for name, target in (settings or {}).items():
        pairs = [target] if all(isinstance(x, str) for x in target) else list(target)
        if not pairs or any(len(p) != 2 or not all(isinstance(x, str) for x in p) for p in pairs):
            raise ValueError(f"{id}: setting {name!r} must name (cube, dim) pairs, not {target!r}")
        for cube, _ in pairs:
            if cube not in cubes:
                raise ValueError(f"{id}: setting {name!r} selects from {cube!r}, not in its cubes")
        targets[str(name)] = tuple(tuple(p) for p in pairs)
    return Figure(id, module, function, tuple(cubes), targets, title)


def figure(
    id: str, cubes: tuple[str, ...] = (), settings: Mapping | None = None, title: str = ""
) -> Callable:
    """Declare a drawing function as the figure ``id`` (see the module docstring). The function
    is called as ``fn(cubes, **settings)``, with the cubes it names and its settings' values."""

    def mark(fn):
        module = fn.__module__.rsplit(".", 1)[-1]
        fn.figure = _figure(module, fn.__name__, id, cubes, settings, title)
        return fn

    return mark


def caption(fn) -> str:
    """A figure function's caption: its docstring, dedented."""
    text = inspect.getdoc(fn)
    if not text:
        raise ValueError(f"figure function {fn.__name__} has no docstring, hence no caption")
    return text


def heading(title: str, caption_text: str) -> str:
    """The title a reader sees: the declared one, or else the caption's first sentence (cut at a
    word before 70 characters)."""
    if title:
        return title
    first = re.split(r"(?<=\.)\s", " ".join(caption_text.split()), maxsplit=1)[0].rstrip(".")
    return first if len(first) <= 70 else first[:67].rsplit(" ", 1)[0] + "..."


def source_line(fig: Figure, directory: Path = FIGURES_DIR) -> int:
    """The line of the figure module where the drawing function is defined."""
    text = (directory / f"{fig.module}.py").read_text(encoding="utf-8")
    found = re.search(rf"^def {re.escape(fig.function)}\(", text, re.MULTILINE)
    return text.count("\n", 0, found.start()) + 1 if found else 1


# ----------------------------------------------------------------------------- the text scan

_DECORATED = re.compile(r"^@figure\((.*?)\)\s*\ndef (\w+)\(", re.MULTILINE | re.DOTALL)


def _scan_text(module: str, text: str) -> list[Figure]:
    """The figures a module's text declares, in source order. The decorator's arguments must be
    literals (strings, tuples, dicts), which is what lets the text stand for the import."""
    out = []
    for args, function in _DECORATED.findall(text):
        call = ast.parse(f"figure({args})", mode="eval").body
        try:
            pos = [ast.literal_eval(a) for a in call.args]
            kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except ValueError as exc:
            raise ValueError(f"{module}.{function}: @figure takes literals only ({exc})") from None
        out.append(_figure(module, function, *pos, **kw))
    return out


@lru_cache(maxsize=4)
def scan(directory: Path = FIGURES_DIR) -> tuple[Figure, ...]:
    """Every figure of every figure module, read from the modules' text, by module name."""
    out: list[Figure] = []
    for path in sorted(directory.glob("*.py")):
        if path.stem not in NOT_FIGURE_MODULES:
            out += _scan_text(path.stem, path.read_text(encoding="utf-8"))
    seen: set[str] = set()
    for fig in out:
        if fig.id in seen:
            raise ValueError(f"figure {fig.id!r} is declared twice")
        seen.add(fig.id)
    return tuple(out)


def groups() -> dict[str, list[Figure]]:
    """Figures by module (the group one Snakemake job draws)."""
    return {module: list(figs) for module, figs in _groups(FIGURES_DIR).items()}


@lru_cache(maxsize=4)
def _groups(directory: Path) -> dict[str, tuple[Figure, ...]]:
    """Grouped once per scan: the Snakefile asks for the groups some thousand times a start."""
    out: dict[str, list[Figure]] = {}
    for fig in scan(directory):
        out.setdefault(fig.module, []).append(fig)
    return {module: tuple(figs) for module, figs in out.items()}


JOB_FIGURES = 20  # about this many figures per figure job (a job's start costs ~2 s)


def figure_jobs(
    stage_of: Callable[[str], int], names: tuple[str, ...], size: int = JOB_FIGURES
) -> dict[str, list[str]]:
    """The figure modules packed into Snakemake jobs, job name -> modules.

    Each job pays about two seconds to start (Python, matplotlib, xarray, mathtext's parser)
    before it draws, so modules share jobs. A job waits for every cube its modules read, so
    modules share one only when their cubes come at the same stage of a build: ``stage_of``
    ranks a cube (say 0 for cubes built in Snakemake's own process, 1 for script experiments,
    2 for training), and a module's stage is its latest cube's; ``names[stage]`` names the
    stage's jobs. A stage's modules, in name order, are dealt into ceil(figures / size) jobs of
    nearly equal figure counts (largest module first to the lightest job)."""
    staged: dict[int, list[str]] = {}
    for module, figures in groups().items():
        stage = max((stage_of(c) for c in cubes_of(figures)), default=0)
        staged.setdefault(stage, []).append(module)
    jobs: dict[str, list[str]] = {}
    for stage, modules in sorted(staged.items()):
        count = {m: len(groups()[m]) for m in modules}
        n = -(-sum(count.values()) // size)
        bins: list[list[str]] = [[] for _ in range(n)]
        for module in sorted(modules, key=lambda m: (-count[m], m)):
            min(bins, key=lambda b: (sum(count[m] for m in b), len(b))).append(module)
        for i, members in enumerate(bins, 1):
            jobs[f"{names[stage]}_{i}" if n > 1 else names[stage]] = sorted(members)
    return jobs


def cubes_of(figures) -> list[str]:
    """The cubes some figures read, sorted, each once."""
    return sorted({c for f in figures for c in f.cubes})


def figure_pngs() -> list[str]:
    """Every figure's PNG as the pipeline draws it, in catalog order."""
    return [f"figures/{f.id}.png" for f in scan()]


def figure_captions() -> list[str]:
    """Every figure's caption file (written beside its PNG by the figure job), in catalog
    order."""
    return [f"figures/{f.id}.rst" for f in scan()]


def module_of(source_file: str | Path) -> str:
    """The figure module whose source file this is (Python names a module by its file)."""
    module = Path(source_file).stem
    if module not in groups():
        raise ValueError(f"{source_file} is not a figure module")
    return module


def by_id() -> dict[str, Figure]:
    return {f.id: f for f in scan()}


def module_settings(figures) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """module -> setting name -> every (cube, dim) the module's figures select with it."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for fig in figures:
        named = out.setdefault(fig.module, {})
        for name, pairs in fig.settings.items():
            named.setdefault(name, [])
            named[name] += [p for p in pairs if p not in named[name]]
    return out


def __getattr__(name: str):
    """``FIGURES``: every figure, derived from the scan (kept for the code that lists them)."""
    if name == "FIGURES":
        return scan()
    raise AttributeError(name)


# ----------------------------------------------------------------------------- the import


def imported(module: str) -> dict[str, Callable]:
    """The drawing functions of one figure module, imported (this imports matplotlib), by id."""
    from importlib import import_module

    mod = import_module(f"{__package__}.{module}")
    found = [fn for fn in vars(mod).values() if isinstance(getattr(fn, "figure", None), Figure)]
    return {fn.figure.id: fn for fn in found if fn.figure.module == module}
