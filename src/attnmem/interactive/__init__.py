"""Interactive pages of the notes' figures, built from the cubes: one module per topic, named
like the science and figure modules, one ``@page`` function per page, declared with the id of
its static twin (``attnmem.views``). The pages are standalone HTML built with Bokeh
(``kit``); they load Bokeh's JavaScript from ``figures/_js/``, which `copy_js` fills once.

This module imports nothing heavy (no Bokeh): the Snakefile imports it."""

from __future__ import annotations

import importlib.util
import shutil
from importlib.metadata import version
from pathlib import Path

# Bokeh's bundles a page needs: the core and the widgets (sliders, buttons).
BUNDLES = ("bokeh", "bokeh-widgets")


def js_files() -> list[str]:
    """The JavaScript files of figures/_js/, named by Bokeh's version (a new Bokeh writes new
    files, and the pages built with it name them)."""
    return [f"{name}-{version('bokeh')}.min.js" for name in BUNDLES]


def _static_js() -> Path:
    spec = importlib.util.find_spec("bokeh")
    return Path(next(iter(spec.submodule_search_locations))) / "server/static/js"


def copy_js(outputs, log_file=None) -> None:
    """Copy Bokeh's bundles from the installed package to ``outputs`` (js_files' names)."""
    source = _static_js()
    for bundle, out in zip(BUNDLES, outputs, strict=True):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / f"{bundle}.min.js", out)
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        Path(log_file).write_text(f"copied {', '.join(map(str, outputs))} from {source}\n")
