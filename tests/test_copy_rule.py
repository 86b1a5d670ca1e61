"""Science of first-principles A3: one sentence identifies the copy rule."""

from __future__ import annotations

import numpy as np

from attnmem.experiments import copy_rule as cr
from attnmem.experiments import toylang as tl


def test_only_the_source_offset_survives_every_sentence():
    for n_names, gap in ((2, 0), (3, 2), (4, 1)):
        s = tl.enumerate_sentences(n_names, 2, gap)
        alive = cr.surviving_offsets(s, gap)
        assert alive.shape == (len(s), gap + 8)
        assert np.all(alive.sum(axis=1) == 1) and np.all(alive[:, -1])


def test_a_wrong_rule_survives_when_the_names_repeat():
    s = tl.enumerate_sentences(3, 2, 1)[:1].copy()
    s[0, 2] = s[0, 0]  # receiver equals giver: no longer a sentence, two offsets survive
    s[0, 7] = s[0, 0]
    assert cr.check_gap(s, 1)["n_survivors_max"] == 3


def test_experiment_mixes_enumeration_and_draws():
    out = cr.copy_rule(8, 6, 12, 2000, np.random.default_rng(0))
    assert out["all_gaps_ok"] == 1
    assert list(out["survivor"][[3, 5, 10]]) == [11, 13, 18]
    assert out["exhaustive"][0] == 1 and out["exhaustive"][5] == 0 and out["n_checked"][5] == 1
