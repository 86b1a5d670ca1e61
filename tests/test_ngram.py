"""The window (n-gram) staircase: the growth of the table is counted on two languages."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import ngram as ng


def test_context_growth_is_counted_on_two_languages():
    assert ng.window_staircase(8, 6, 2, 12, 40000)["context_growth_enumerated"] == 6.0
    assert ng.window_staircase(3, 2, 4, 12, 40000)["context_growth_enumerated"] == 2.0
    assert np.isnan(ng.window_staircase(8, 6, 3, 12, 40000)["context_growth_enumerated"])


def test_clue_distance_counts_words_back_from_the_blank():
    # the word just before the blank is one back; dashes and commas are not words
    assert ng.clue_distance("a clue \u2014 then, the ___.", "then") == 2
    assert ng.clue_distance("clue one two ____", "clue") == 3
    assert ng.words_of("it\u2019s out \u2014 to be __.") == ["it\u2019s", "out", "to", "be", "__"]
    # the Journal's entry: the settling word is the 7th of 25 words, the blank the 25th
    assert len(ng.words_of(ng.JOURNAL_ENTRY)) == 25
    assert ng.clue_distance() == 18
    assert ng.markov_table(20000, 20)["clue_distance"] == 18.0


def test_unique_rows_is_numpys_unique_of_the_row_keys():
    """fit_window's tables: the same keys, in the same order, and the same counts as
    np.unique over the rows' byte keys, for token rows of every width and for rows outside
    the token range (which take numpy's own path)."""
    rng = np.random.default_rng(12)
    for width in (1, 2, 7, 8, 9, 13, 17):
        for low, high in ((-1, 3), (-1, 255), (-300, 300)):
            rows = rng.integers(low, high, size=(3000, width))
            rows[1000:1500] = rows[:500]  # repeated rows
            keys, counts = ng.unique_rows(rows)
            want_keys, want_counts = np.unique(ng.row_keys(rows), return_counts=True)
            assert np.array_equal(keys, want_keys) and np.array_equal(counts, want_counts)
