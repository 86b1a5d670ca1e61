"""The window (n-gram) staircase: the growth of the table is counted on two languages."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import ngram as ng


def test_context_growth_is_counted_on_two_languages():
    assert ng.window_staircase(8, 6, 2, 12, 40000)["context_growth_enumerated"] == 6.0
    assert ng.window_staircase(3, 2, 4, 12, 40000)["context_growth_enumerated"] == 2.0
    assert np.isnan(ng.window_staircase(8, 6, 3, 12, 40000)["context_growth_enumerated"])
