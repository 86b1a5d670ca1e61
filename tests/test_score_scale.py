"""Science of every-word's scale measurement: the exact sampling shortcut and the statistics."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from attnmem.experiments import score_scale as ss
from attnmem.experiments.softmax import softmax


def test_shortcut_matches_direct_sampling_in_distribution():
    """Scores given the query are iid N(0, |q|^2): the shortcut and direct draws agree in the
    distribution of the spread, the biggest share and a single score (two-sample KS)."""
    rows = 20000
    for d_k in (1, 4, 16):
        direct = ss.direct_scores(np.random.default_rng(1), d_k, rows, 4)
        short = ss.shortcut_scores(np.random.default_rng(2), d_k, rows, 4)
        for read in (
            lambda s: s.max(axis=-1) - s.min(axis=-1),
            ss.top_share,
            lambda s: s[:, 0],
        ):
            assert stats.ks_2samp(read(direct), read(short)).pvalue > 1e-3


def test_top_share_is_the_biggest_softmax_share_bit_for_bit():
    """The closed form of the biggest share equals the softmax's own largest share exactly, over
    rows from nearly flat to saturated; and it is not the smallest share."""
    s = ss.shortcut_scores(np.random.default_rng(5), np.array([1, 64, 4096]), 5000, 4)
    shares = softmax(s, axis=-1)
    assert np.array_equal(ss.top_share(s), shares.max(axis=-1))
    assert not np.array_equal(ss.top_share(s), shares.min(axis=-1))


def test_shortcut_can_fail():
    """The same KS test tells the shortcut at the wrong width from direct sampling."""
    direct = ss.direct_scores(np.random.default_rng(1), 4, 20000, 4)
    wrong = ss.shortcut_scores(np.random.default_rng(2), 6, 20000, 4)
    spread = lambda s: s.max(axis=-1) - s.min(axis=-1)  # noqa: E731
    assert stats.ks_2samp(spread(direct), spread(wrong)).pvalue < 1e-6


def test_exact_expectations():
    assert math.isclose(ss.expected_range(2), 2 / math.sqrt(math.pi), rel_tol=1e-9)
    assert math.isclose(ss.mean_chi(1), math.sqrt(2 / math.pi), rel_tol=1e-12)
    out = ss.score_scale(4096, 0, 50000, 4, 0.99, np.random.default_rng(3))
    assert abs(out["spread_div"] - out["spread_expected_div"]) < 0.02
    assert out["raw_over_div_spread"] == 64.0 and out["pinned_div"] == 0.0


def test_normal_entries_and_not_uniform_give_spread_near_two():
    rng = np.random.default_rng(4)
    normal = ss.shortcut_scores(rng, 64, 20000, 4) / 8
    uniform = ss.uniform_scores(rng, 64, 20000, 4, -1.0, 1.0) / 8
    assert abs((normal.max(1) - normal.min(1)).mean() - 2.05) < 0.03
    assert (uniform.max(1) - uniform.min(1)).mean() < 0.8


def test_first_crossing_interpolates():
    w = np.array([8, 16, 24])
    assert ss.first_crossing(w, np.array([0.2, 0.4, 0.6])) == 20.0
    assert np.isnan(ss.first_crossing(w, np.array([0.1, 0.2, 0.3])))
    assert ss.first_crossing(w, np.array([0.7, 0.8, 0.9])) == 8.0


def test_a_wrong_entry_law_turns_the_scale_claims_red(monkeypatch):
    """Entries of half the standard deviation (a different law) fail the printed table."""
    from conftest import REGISTRY

    from attnmem import claims
    from attnmem.cube import run_experiment
    from attnmem.experiments import registry

    exp = registry()["score_scale"]
    block = {"d_k": [4, 16, 64, 256], "seed": {"count": 20}, "rows": 1000, "tokens": 4,
             "threshold": 0.99}  # fmt: skip
    entry = next(
        e
        for e in claims.load_registry(REGISTRY / "every-word")
        if e["id"] == "every-word/sqrt-divide/scale-64-undivided"
    )
    # Conditional: it passes on standard normal entries, a law the note does not state.
    assert claims.judge(entry, {"score_scale": run_experiment(exp, block, 0)}).verdict == (
        "conditional"
    )
    original = ss.shortcut_scores
    monkeypatch.setattr(ss, "shortcut_scores", lambda *a: 0.5 * original(*a))
    ds = run_experiment(exp, block, 0)
    # no longer a pass; and since the law is our reading, not the note's, a failure under it
    # refutes the reading: unresolved, not discrepant
    assert claims.judge(entry, {"score_scale": ds}).verdict == "unresolved"


def test_token_first_reading_is_the_last_axis_reading():
    """read_rows and top_share reduce over a token-first copy; for fewer than eight tokens that
    is numpy's own last-axis order, bit for bit, and within rounding for more."""
    rng = np.random.default_rng(6)
    for tokens in (2, 4, 7, 9):
        s = ss.shortcut_scores(rng, np.array([4, 256]), 300, tokens)
        spread = s.max(axis=-1) - s.min(axis=-1)
        top = 1.0 / np.sum(np.exp(s - s.max(axis=-1, keepdims=True)), axis=-1)
        got = ss.read_rows(s, 0.9)
        same = np.array_equal if tokens < 8 else lambda a, b: np.allclose(a, b, rtol=1e-14)
        assert same(ss.top_share(s), top)
        assert same(got["spread"], spread.mean(axis=-1)) and same(got["top"], top.mean(axis=-1))
        assert np.array_equal(got["pinned"], (top > 0.9).sum(axis=-1).astype(float))
