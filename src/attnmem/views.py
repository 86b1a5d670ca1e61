"""The views of the cubes, declared where they are drawn and found again without drawing anything.

A view is a static figure or an interactive page. A **figure** is a function of a figure module
(``attnmem/figures/<topic>.py``) decorated with ``@figure(id, title=..., cubes=...,
settings=...)``: its id is ``<doc>/<section>-<slug>`` (drawn to ``figures/<id>.png``, and
``.svg`` on request, with its caption in ``.rst``), its title is the short heading the gallery
shows (at most 70 characters), its docstring is its caption, ``cubes`` names the cubes it reads,
and ``settings`` names the grid values it picks from the config (``figures: <module>: <name>``),
each with the cube and dimension it selects (or a list of such pairs, when one value selects
from several cubes).

A **page** is a function of an interactive module (``attnmem/interactive/<topic>.py``, named
like the science and figure modules) decorated with ``@page(id, line=..., handles=...)``: the
same id as its static twin, whose caption, title, cubes and settings it shares (one declaration
per fact); ``cubes`` and ``settings`` name only what the page reads beyond its twin. ``line`` is
the note's line of the caption, and ``handles`` the caption's handles, name -> kind (slider,
buttons, drag, click or hover). It is built to ``figures/<id>.html``.

The module is a view's group. Views are drawn by a few Snakemake jobs (`jobs`) whose grouping
depends on the code alone, never on the grids: widening a grid reruns only the jobs whose cubes
changed, and such a job redraws only the views whose inputs changed (`input_digest`).

The Snakefile reads these declarations by scanning the modules' text (`scan`), because importing
them imports matplotlib or Bokeh, a second of every Snakemake start. A test checks the scan
against the imported decorators. This module imports nothing heavy, so the Snakefile can import
it.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).parent
KINDS = {"figure": "figures", "page": "interactive"}  # kind -> its package
NOT_VIEW_MODULES = ("__init__", "style", "kit")  # helpers beside the view modules
HANDLE_KINDS = ("slider", "buttons", "drag", "click", "hover")
SUFFIX = {"figure": ".png", "page": ".html"}


@dataclass(frozen=True)
class View:
    id: str
    module: str  # the view module, which is also the view's group (jobs)
    function: str
    cubes: tuple[str, ...] = ()
    # setting name -> the (cube, dim) pairs it selects
    settings: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    title: str = ""  # the gallery's heading; without one it takes the caption's first sentence
    kind: str = "figure"
    handles: tuple[tuple[str, str], ...] = ()  # a page's handles: (name, kind)
    line: int = 0  # a page's caption: its line in the note

    @property
    def doc(self) -> str:
        """The document key, the id's first part."""
        return self.id.split("/", 1)[0]

    @property
    def directory(self) -> Path:
        """The package of the view's module."""
        return PACKAGE_DIR / KINDS[self.kind]

    @property
    def path(self) -> str:
        """What the pipeline writes: ``figures/<id>.png`` or ``figures/<id>.html``."""
        return f"figures/{self.id}{SUFFIX[self.kind]}"


# A figure as the rest of the code has always called it.
Figure = View


def _declare(
    kind: str,
    module: str,
    function: str,
    id: str,
    cubes=(),
    settings=None,
    title="",
    handles=None,
    line=0,
) -> View:
    """One declaration, checked and normalised the same way for the decorators and the scan.
    A page's cubes and settings are only its own here; `scan` adds its twin's."""
    if not re.fullmatch(r"[a-z-]+/[\w.-]+", id):
        raise ValueError(f"view id {id!r} is not <doc>/<section>-<slug>")
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
            if kind == "figure" and cube not in cubes:
                raise ValueError(f"{id}: setting {name!r} selects from {cube!r}, not in its cubes")
        targets[str(name)] = tuple(tuple(p) for p in pairs)
    pairs = tuple((str(n), str(k)) for n, k in (handles or {}).items())
    if kind == "page":
        if title:
            raise ValueError(f"{id}: a page takes its title from its static twin")
        if not pairs:
            raise ValueError(f"{id}: a page declares its handles (name -> kind)")
        if not isinstance(line, int) or line < 1:
            raise ValueError(f"{id}: a page declares the note's line of its caption")
    wrong = [k for _, k in pairs if k not in HANDLE_KINDS]
    if wrong:
        raise ValueError(f"{id}: handle kinds {wrong} are not among {', '.join(HANDLE_KINDS)}")
    return View(id, module, function, tuple(cubes), targets, title, kind, pairs, int(line))


def figure(
    id: str, cubes: tuple[str, ...] = (), settings: Mapping | None = None, title: str = ""
) -> Callable:
    """Declare a drawing function as the figure ``id`` (see the module docstring). The function
    is called as ``fn(cubes, **settings)``, with the cubes it names and its settings' values,
    and returns a matplotlib figure."""

    def mark(fn):
        module = fn.__module__.rsplit(".", 1)[-1]
        fn.figure = fn.view = _declare("figure", module, fn.__name__, id, cubes, settings, title)
        return fn

    return mark


def page(
    id: str,
    handles: Mapping[str, str],
    line: int,
    cubes: tuple[str, ...] = (),
    settings: Mapping | None = None,
) -> Callable:
    """Declare a function as the interactive page ``id``, the twin of the figure ``id`` (see the
    module docstring). The function is called as ``fn(cubes, **settings)`` with its twin's
    cubes and settings and its own, and returns an `attnmem.interactive.kit.Page`."""

    def mark(fn):
        module = fn.__module__.rsplit(".", 1)[-1]
        fn.view = _declare("page", module, fn.__name__, id, cubes, settings, "", handles, line)
        return fn

    return mark


def caption(fn) -> str:
    """A figure function's caption: its docstring, dedented."""
    text = inspect.getdoc(fn)
    if not text:
        raise ValueError(f"figure function {fn.__name__} has no docstring, hence no caption")
    return text


def caption_of(view: View) -> str:
    """A view's caption read from its module's text, without importing it (a page's is its
    twin's): the docstring of the figure function, dedented as `caption` does."""
    twin = by_id("figure")[view.id] if view.kind == "page" else view
    tree = ast.parse((twin.directory / f"{twin.module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == twin.function:
            text = ast.get_docstring(node)
            if text:
                return text
    raise ValueError(f"figure function {twin.function} has no docstring, hence no caption")


def heading(title: str, caption_text: str) -> str:
    """The title a reader sees: the declared one, or else the caption's first sentence (cut at a
    word before 70 characters)."""
    if title:
        return title
    first = re.split(r"(?<=\.)\s", " ".join(caption_text.split()), maxsplit=1)[0].rstrip(".")
    return first if len(first) <= 70 else first[:67].rsplit(" ", 1)[0] + "..."


def source_line(view: View) -> int:
    """The line of the view's module where its function is defined."""
    text = (view.directory / f"{view.module}.py").read_text(encoding="utf-8")
    found = re.search(rf"^def {re.escape(view.function)}\(", text, re.MULTILINE)
    return text.count("\n", 0, found.start()) + 1 if found else 1


# ----------------------------------------------------------------------------- the text scan

_DECORATED = re.compile(r"^@(figure|page)\((.*?)\)\s*\ndef (\w+)\(", re.MULTILINE | re.DOTALL)


def _scan_text(module: str, text: str, kind: str = "figure") -> list[View]:
    """The views a module's text declares, in source order (``kind``: what its package holds).
    The decorator's arguments must be literals (strings, numbers, tuples, dicts), which is what
    lets the text stand for the import."""
    out = []
    for word, args, function in _DECORATED.findall(text):
        if word != kind:
            raise ValueError(f"{module}.{function}: @{word} in a module of {KINDS[kind]}/")
        call = ast.parse(f"view({args})", mode="eval").body
        try:
            pos = [ast.literal_eval(a) for a in call.args]
            kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except ValueError as exc:
            raise ValueError(f"{module}.{function}: @{word} takes literals only ({exc})") from None
        if word == "page":  # the decorator's positional order: id, handles, line
            kw.update(zip(("handles", "line"), pos[1:], strict=False))
            pos = pos[:1]
        out.append(_declare(word, module, function, *pos, **kw))
    return out


def _with_twin(page_view: View, twin: View) -> View:
    """A page with its twin's title, cubes and settings added to its own."""
    cubes = twin.cubes + tuple(c for c in page_view.cubes if c not in twin.cubes)
    settings = {**twin.settings, **page_view.settings}
    for name, pairs in settings.items():
        for cube, _ in pairs:
            if cube not in cubes:
                raise ValueError(f"{page_view.id}: setting {name!r} selects from {cube!r}")
    return replace(page_view, cubes=cubes, settings=settings, title=twin.title)


@lru_cache(maxsize=4)
def scan(root: Path = PACKAGE_DIR) -> tuple[View, ...]:
    """Every view of every view module, read from the modules' text: the figures by module
    name, then the pages; each page joined to the figure of the same id (its twin)."""
    found: dict[str, list[View]] = {}
    for kind, package in KINDS.items():
        found[kind] = []
        for path in sorted((root / package).glob("*.py")):
            if path.stem not in NOT_VIEW_MODULES:
                found[kind] += _scan_text(path.stem, path.read_text(encoding="utf-8"), kind)
    for kind, views in found.items():
        seen: set[str] = set()
        for view in views:
            if view.id in seen:
                raise ValueError(f"{kind} {view.id!r} is declared twice")
            seen.add(view.id)
    twins = {f.id: f for f in found["figure"]}
    pages = []
    for p in found["page"]:
        if p.id not in twins:
            raise ValueError(f"page {p.id!r} ({p.module}.{p.function}) has no figure of its id")
        if p.module != twins[p.id].module:
            raise ValueError(
                f"page {p.id!r} is in interactive/{p.module}.py, its twin in "
                f"figures/{twins[p.id].module}.py: one topic, one name"
            )
        pages.append(_with_twin(p, twins[p.id]))
    return tuple(found["figure"]) + tuple(pages)


def figures() -> tuple[View, ...]:
    """Every static figure, by module name."""
    return tuple(v for v in scan() if v.kind == "figure")


def pages() -> tuple[View, ...]:
    """Every interactive page, by module name."""
    return tuple(v for v in scan() if v.kind == "page")


def groups(kind: str = "figure") -> dict[str, list[View]]:
    """Views of one kind by module (a view's group)."""
    return {module: list(views) for module, views in _groups(PACKAGE_DIR, kind).items()}


@lru_cache(maxsize=8)
def _groups(root: Path, kind: str) -> dict[str, tuple[View, ...]]:
    """Grouped once per scan: the Snakefile asks for the groups some thousand times a start."""
    out: dict[str, list[View]] = {}
    for view in scan(root):
        if view.kind == kind:
            out.setdefault(view.module, []).append(view)
    return {module: tuple(views) for module, views in out.items()}


def by_id(kind: str = "figure") -> dict[str, View]:
    return {v.id: v for v in scan() if v.kind == kind}


def cubes_of(views: Iterable[View]) -> list[str]:
    """The cubes some views read, sorted, each once."""
    return sorted({c for v in views for c in v.cubes})


def module_settings(views: Iterable[View]) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """module -> setting name -> every (cube, dim) the module's views select with it. A page
    reads the config block of its module (``figures: <topic>:``) like its twin."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for view in views:
        named = out.setdefault(view.module, {})
        for name, pairs in view.settings.items():
            named.setdefault(name, [])
            named[name] += [p for p in pairs if p not in named[name]]
    return out


def module_of(source_file: str | Path, kind: str = "figure") -> str:
    """The view module whose source file this is (Python names a module by its file)."""
    module = Path(source_file).stem
    if module not in groups(kind):
        raise ValueError(f"{source_file} is not a module of {KINDS[kind]}/")
    return module


def listing() -> list[dict]:
    """The generated list of views: one record per figure and page, in scan order."""
    return [
        {
            "id": v.id,
            "kind": v.kind,
            "file": v.path,
            "module": f"{KINDS[v.kind]}/{v.module}.py",
            "function": v.function,
            "cubes": list(v.cubes),
            "settings": {n: [list(p) for p in pairs] for n, pairs in v.settings.items()},
            "title": v.title,
            **({"line": v.line, "handles": [list(h) for h in v.handles]} if v.handles else {}),
        }
        for v in scan()
    ]


# ----------------------------------------------------------------------------- the jobs

JOB_VIEWS = {"figure": 20, "page": 30}  # about this many views per job (a start costs ~2 s)
JOB_NAMES = {"figure": "figures", "page": "pages"}


def jobs(kind: str, trained: Iterable[str] = (), size: int | None = None) -> dict[str, list[str]]:
    """The view modules of one kind packed into Snakemake jobs, job name -> modules.

    Each job pays about two seconds to start (Python, matplotlib or Bokeh, xarray) before it
    draws, so modules share jobs. The grouping depends on the code alone, never on the grids
    or what they cost: a module reading a cube of ``trained`` (the training experiments,
    declared ``own_process``: the last cubes of a build) goes to the ``<kind>s_trained`` jobs,
    so that the others need not wait for training; the rest, in name order, is cut into
    ceil(views / size) runs of consecutive modules with nearly equal view counts
    (``<kind>s_1``, ``<kind>s_2``, ...). Widening a grid moves no module to another job."""
    size = size or JOB_VIEWS[kind]
    trained = set(trained)
    count = {m: len(vs) for m, vs in groups(kind).items()}
    late = sorted(m for m, vs in groups(kind).items() if trained & set(cubes_of(vs)))
    early = sorted(m for m in count if m not in late)
    out: dict[str, list[str]] = {}
    base = JOB_NAMES[kind]
    for name, modules in ((base, early), (f"{base}_trained", late)):
        runs = _consecutive(modules, count, -(-sum(count[m] for m in modules) // size))
        for i, members in enumerate(runs, 1):
            out[f"{name}_{i}" if len(runs) > 1 or name == base else name] = members
    return out


def _consecutive(modules: list[str], count: Mapping[str, int], n: int) -> list[list[str]]:
    """``modules`` cut in order into at most ``n`` runs of nearly equal view counts: a module
    goes to the run in which the middle of its views falls."""
    total = sum(count[m] for m in modules)
    runs: dict[int, list[str]] = {}
    before = 0
    for module in modules:
        run = min(n - 1, int((before + count[module] / 2) * n / total))
        runs.setdefault(run, []).append(module)
        before += count[module]
    return [runs[i] for i in sorted(runs)]


def figure_pngs() -> list[str]:
    """Every figure's PNG as the pipeline draws it, in scan order."""
    return [v.path for v in figures()]


def figure_captions() -> list[str]:
    """Every figure's caption file (written beside its PNG by the figure job), in scan order."""
    return [f"figures/{v.id}.rst" for v in figures()]


# ----------------------------------------------------------------------------- what changed


def file_digest(path: str | Path) -> str:
    """The sha256 of a file's bytes (a cube's bytes are its content: the same numbers and
    provenance give the same file)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def input_digest(
    view: View, cube_digests: Mapping[str, str], settings: Mapping, code_digest: str
) -> str:
    """What a view is drawn from, as one hash: the content of the cubes it reads, the values of
    the settings it picks and the code that draws it (its module and the shared plumbing,
    ``code_digest``). A job that holds several modules redraws only the views whose digest
    changed (or whose files are missing)."""
    parts = [view.kind, view.id, code_digest]
    parts += [f"{c}={cube_digests[c]}" for c in view.cubes]
    parts += [f"{n}={settings[n]!r}" for n in sorted(view.settings)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


# ----------------------------------------------------------------------------- the import


def imported(module: str, kind: str = "figure") -> dict[str, Callable]:
    """The functions of one view module, imported (this imports matplotlib or Bokeh), by id."""
    from importlib import import_module

    mod = import_module(f"{__package__}.{KINDS[kind]}.{module}")
    found = [fn for fn in vars(mod).values() if isinstance(getattr(fn, "view", None), View)]
    return {fn.view.id: fn for fn in found if fn.view.module == module and fn.view.kind == kind}
