"""One colour code and one look for every figure (the notes' roles, see DESIGN.md, Figures)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OBSERVED = "#2f6db5"  # blue: tokens, keys, what is observed
QUERY = "#b8692e"  # copper: the query, a hidden quantity, the true process
STORED = "#7a4fb0"  # violet: values, what is stored and returned, derived laws
RESULT = "#2e8b57"  # green: a result, a new state
LIMIT = "#c0392b"  # red: a limit or a cost
GREY = "#8c8c8c"  # context, other settings

CYCLE = (STORED, OBSERVED, QUERY, RESULT, LIMIT, GREY)

RC = {
    "figure.dpi": 110,
    "savefig.dpi": 130,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "svg.hashsalt": "attnmem",  # stable SVG ids, so a redraw of the same data is the same file
    "svg.fonttype": "none",
}


def apply() -> None:
    plt.rcParams.update(RC)
    plt.rcParams["axes.prop_cycle"] = matplotlib.cycler(color=list(CYCLE))


def save(fig, png_path: str | Path) -> None:
    """Write the figure as PNG and as SVG beside it, then close it.

    The layout and the tight bounding box are computed once, by one draw, and then frozen for
    both files: `bbox_inches="tight"` on each save would lay the figure out and draw it twice
    per file, which was most of a figure job's time."""
    png_path = Path(png_path)
    png_path.parent.mkdir(parents=True, exist_ok=True)
    fig.canvas.draw()
    bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    fig.set_layout_engine("none")
    fig.savefig(png_path, bbox_inches=bbox, metadata={"Software": None})
    fig.savefig(png_path.with_suffix(".svg"), bbox_inches=bbox, metadata={"Date": None})
    plt.close(fig)
