"""Every figure the pipeline draws: its id, the rule group that draws it, the cubes it reads and
the function that draws it. Kept free of matplotlib so that the Snakefile can import it cheaply.

A figure's id is ``<doc>/<section>-<slug>``; it is drawn to ``figures/<id>.png`` and ``.svg``
and captioned by ``workflow/report/<id>.rst``. Claims name the figures they support.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    id: str
    group: str
    cubes: tuple[str, ...]
    draw: str  # "module:function" inside attnmem.figures


FIGURES: tuple[Figure, ...] = (
    Figure(
        "soft-dictionary/lookup-sharpness",
        "soft_dictionary",
        ("soft_lookup",),
        "soft_lookup:sharpness",
    ),
    Figure(
        "soft-dictionary/self-attention-table",
        "soft_dictionary",
        ("soft_lookup",),
        "soft_lookup:table",
    ),
    Figure(
        "soft-dictionary/position-patch",
        "soft_dictionary",
        ("position_lookup",),
        "soft_lookup:position_patch",
    ),
    Figure("soft-dictionary/block-diagram", "soft_dictionary", (), "soft_lookup:block_diagram"),
)


def groups() -> dict[str, list[Figure]]:
    """Figures by the rule group that draws them."""
    out: dict[str, list[Figure]] = {}
    for fig in FIGURES:
        out.setdefault(fig.group, []).append(fig)
    return out


def by_id() -> dict[str, Figure]:
    return {f.id: f for f in FIGURES}
