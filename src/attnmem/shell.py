"""The HTML shell the project's pages share: the claims table (``results/claims.html``), the
gallery (``figures/index.html``) and the interactive pages (``figures/<doc>/<id>.html``).

One stylesheet (each page's body names its kind: ``claims``, ``gallery`` or ``page``, and the
rules of one kind are scoped to it) and the link helpers, so that every page links to the
others the same way: by paths relative to the project folder, made relative to the page. Every
page is one static file that opens from disk; nothing here fetches anything."""

from __future__ import annotations

import html
import os
from pathlib import PurePosixPath

from . import palette

GALLERY = "figures/index.html"
CLAIMS = "results/claims.html"

# The palette's roles as CSS variables, so that the stylesheet below names them, not their values.
_ROLES = (
    ":root{"
    + ";".join(
        f"--{name.lower()}:{getattr(palette, name)}"
        for name in ("OBSERVED", "QUERY", "STORED", "RESULT", "LIMIT", "GREY")
    )
    + "}"
)

STYLE = (
    _ROLES
    + """
body{font-family:system-ui,sans-serif;color:#222}
a{color:var(--observed)}
.v-discrepant{color:#b03a2e} .v-reproduced{color:#1e7b45} .v-conditional{color:#9a6a00}
.v-not-checked{color:#777} .v-unresolved{color:#3559a8}
/* the claims table */
body.claims{margin:1em}
.claims table{border-collapse:collapse;font-size:12px}
.claims td,.claims th{border:1px solid #ccc;padding:2px 4px;vertical-align:top;text-align:left;
  overflow-wrap:break-word}
.claims td.id,.claims td.num,.claims td.cube,.claims td.figure{overflow-wrap:anywhere}
.claims th{background:#f3f3f3;position:sticky;top:0;overflow-wrap:normal;font-size:11px}
.claims #results{table-layout:fixed;width:100%}
.claims #results th{cursor:pointer;user-select:none}
.claims #results th:after{content:' \\2195';color:#999}
.claims tr.reproduced td.verdict{background:#d9f2dd}
.claims tr.conditional td.verdict{background:#fcefc7}
.claims tr.discrepant td.verdict{background:#f8d7d3}
.claims tr.unresolved td.verdict{background:#dce4f7}
.claims tr.not-checked td.verdict{background:#eee}
.claims tr.error td.verdict{background:#f5a3a3}
.claims td.num{font-family:ui-monospace,monospace}
.claims td.count{text-align:right;font-family:ui-monospace,monospace}
.claims td.cube span{border-bottom:1px dotted #888;cursor:help}
.claims #filter{margin:.5em 0 1em;font-size:14px} .claims #filter input{width:24em}
.claims dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:13px}
.claims dt{font-weight:bold}
.claims details.errata{margin:.5em 0;font-size:13px}
.claims details.errata summary{font-size:16px;cursor:pointer}
/* the gallery */
body.gallery{margin:1.5em}
.gallery>p,.gallery .legend{max-width:1100px}
.gallery header{position:sticky;top:0;background:#fff;padding:.4em 0;
  border-bottom:1px solid #ddd;z-index:1}
#search{font-size:16px;padding:.35em .5em;width:28em;max-width:95%}
#count{margin-left:.8em;color:#555}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.4em;font-size:14px}
.swatch{display:inline-block;width:2.2em;height:.9em;margin-right:.4em;vertical-align:middle;
  border-radius:2px}
/* figures side by side where the page is wide enough, each as wide as its PNG (--w, one
   pixel per CSS pixel) and narrower only where the page is narrower; a click opens it whole */
.gallery .figs{display:flex;flex-wrap:wrap;gap:1em 2.5em;align-items:flex-start}
.gallery figure{margin:1em 0;border-top:1px solid #ddd;padding-top:1em;min-width:0;
  flex:1 1 var(--w,600px);max-width:100%}
figure h3{margin:.2em 0} .fid{font-family:monospace;font-size:13px;color:#666}
.gallery img{max-width:100%;height:auto;border:1px solid #eee;display:block}
.gallery figure>a{cursor:zoom-in;display:inline-block;max-width:100%}
figcaption{margin-top:.5em;line-height:1.4;max-width:75em}
.links,.claims-of{font-size:13px;color:#444;margin:.3em 0}
.links a,.claims-of a{margin-right:.6em}
a.interactive{font-weight:bold;color:var(--query)}
nav a{margin-right:1em}
/* an interactive page */
body.page{margin:1.2em;max-width:980px}
.page .caption{line-height:1.4;margin:.4em 0 .8em}
.readouts{font-family:ui-monospace,monospace;font-size:14px;margin:.6em 0;
  display:flex;flex-wrap:wrap;gap:.2em 1.6em}
.readouts b{font-family:system-ui,sans-serif;font-weight:normal;color:var(--grey)}
.page .note{font-size:13px;color:#555}
"""
)


def head(title: str, kind: str) -> str:
    """The start of a page of ``kind`` (claims, gallery or page): doctype, charset, title, the
    stylesheet, and the body that scopes it."""
    return (
        "<!doctype html><html lang='en'><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style>"
        f"<body class='{html.escape(kind)}'>"
    )


def href(target: str, page: str) -> str:
    """The link from the page ``page`` to ``target``, both paths relative to the project folder
    (``figures/index.html``, ``results/claims.html#id``), escaped for an attribute."""
    path, _, anchor = str(target).partition("#")
    start = PurePosixPath(page).parent.as_posix() or "."
    rel = os.path.relpath(path, start).replace(os.sep, "/")
    return html.escape(rel + (f"#{anchor}" if anchor else ""))


def link(target: str, page: str, text: str, cls: str = "", title: str = "") -> str:
    """An ``<a>`` from ``page`` to ``target`` (paths as for `href`), with escaped text."""
    extra = f" class='{html.escape(cls)}'" if cls else ""
    extra += f" title='{html.escape(title)}'" if title else ""
    return f"<a href='{href(target, page)}'{extra}>{html.escape(text)}</a>"


def figure_link(view_id: str, page: str) -> str:
    """A link to a figure's entry in the gallery (where its PNG, caption and page are)."""
    return link(f"{GALLERY}#{view_id}", page, view_id)


def page_path(view_id: str) -> str:
    """Where an interactive page is written, relative to the project folder."""
    return f"figures/{view_id}.html"
