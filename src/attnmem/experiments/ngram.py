"""Order-r window (n-gram) models: the size of their tables and what they pay.

A model that conditions on the last ``r`` tokens keeps one row per distinct window; over a
vocabulary of ``V`` words there can be ``V**r`` of them (soft-dictionary line 21).
"""

from __future__ import annotations

import math

from ..spec import Experiment, Output


def markov_table(vocab: int, context: int) -> dict:
    """log10 of the number of rows of a table over every window of ``context`` tokens."""
    return {
        "log10_rows": context * math.log10(vocab),
        "growth_per_token": float(vocab),
    }


EXPERIMENTS = [
    Experiment(
        name="markov_table",
        func=markov_table,
        grid=("vocab", "context"),
        outputs=(
            Output("log10_rows", "log10 of the rows of a table over every window", "1"),
            Output(
                "growth_per_token",
                "factor by which one more token of window multiplies the rows",
                "1",
            ),
        ),
        sections=("soft-dictionary: The Journal Wants an Autocomplete (line 21)",),
    ),
]
