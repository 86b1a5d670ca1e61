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
    # every-word: the note's printed tables drawn from the cubes.
    Figure(
        "every-word/three-matrices-projections",
        "every_word",
        ("single_head",),
        "every_word:three_matrices",
    ),
    Figure(
        "every-word/score-square-shares", "every_word", ("single_head",), "every_word:score_square"
    ),
    Figure("every-word/cost-growth", "every_word", ("head_cost",), "every_word:cost_growth"),
    Figure(
        "every-word/sqrt-divide-scale",
        "every_word",
        ("score_scale", "pinned_width"),
        "every_word:sqrt_divide_scale",
    ),
    # first-principles, opening to A2 (drawn in ruler_and_bag.py)
    Figure("first-principles/route-parts", "first_principles_A", (), "ruler_and_bag:route"),
    Figure(
        "first-principles/route-two-clocks", "first_principles_A", (), "ruler_and_bag:two_clocks"
    ),
    Figure(
        "first-principles/A1-ruler-costs",
        "first_principles_A",
        ("ruler_costs",),
        "ruler_and_bag:ruler_costs",
    ),
    Figure(
        "first-principles/A2-shuffle",
        "first_principles_A",
        ("bag_shuffle",),
        "ruler_and_bag:shuffle",
    ),
    # first-principles A3, A4 and A5 (drawn in windows_and_states.py)
    Figure(
        "first-principles/A3-window-staircase",
        "first_principles_A",
        ("window_staircase",),
        "windows_and_states:staircase",
    ),
    Figure(
        "first-principles/A4-table-vs-rule",
        "first_principles_A",
        ("window_staircase", "binding_hmm", "copy_rule"),
        "windows_and_states:table_vs_rule",
    ),
    Figure(
        "first-principles/A4-three-ways",
        "first_principles_A",
        ("model_comparison",),
        "windows_and_states:three_ways",
    ),
    Figure(
        "first-principles/A5-model-comparison",
        "first_principles_A",
        ("model_comparison",),
        "windows_and_states:comparison",
    ),
)


def groups() -> dict[str, list[Figure]]:
    """Figures by the rule group that draws them."""
    out: dict[str, list[Figure]] = {}
    for fig in FIGURES:
        out.setdefault(fig.group, []).append(fig)
    return out


def by_id() -> dict[str, Figure]:
    return {f.id: f for f in FIGURES}
