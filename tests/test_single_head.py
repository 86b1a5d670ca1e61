"""Science of every-word: the four-token head, its counting twin, its refusals, its cost."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import head_cost as hc
from attnmem.experiments import single_head as sh


def test_pencil_values_of_token_2():
    w = sh.attend(sh.make_head(), sh.X)
    assert w.q[1].tolist() == [0.0, 3.0, 0.5, 0.0]
    assert w.k[1].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert w.k[0].tolist() == [0.0, 1.0, 0.25, 0.5]
    assert w.raw[1].tolist() == [3.125, 0.0, 0.75, 0.0]
    assert w.scaled[1, 0] == 1.5625
    assert np.round(w.shares[1], 4).tolist() == [0.58, 0.1216, 0.1769, 0.1216]


def test_counting_head_agrees_with_numpy_head():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 3))
    mats = [rng.standard_normal((2, 3)) for _ in range(3)]
    for scale in (True, False):
        head = sh.make_head(*mats, scale=scale)
        a, b = sh.attend(head, x), sh.attend_counting(head, x)
        for name in ("q", "k", "v", "raw", "scaled", "shares", "out"):
            assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-12), name


def test_counted_cost_equals_formula():
    for n, d, dk in ((4, 4, 4), (7, 3, 2), (9, 5, 6)):
        head = sh.make_head(*[np.ones((dk, d))] * 3)
        cost = sh.attend_counting(head, np.ones((n, d))).cost
        assert (cost.project, cost.score, cost.mix) == hc.formula(n, d, dk)
        assert cost.adds == 3 * n * dk * (d - 1)


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match=r"Wv has 3 numbers.*needs 4"):
        sh.Head(2, 2, (1.0,) * 4, (1.0,) * 4, (1.0,) * 3)
    head = sh.make_head()
    bad = [sh.X[0], sh.X[1][:2], sh.X[2], sh.X[3]]
    for attend in (sh.attend, sh.attend_counting):
        with pytest.raises(ValueError, match=r"token 2 of 4 has 2 numbers.*reads 4"):
            attend(head, bad)


def test_experiment_outputs_at_a_point():
    out = sh.single_head(scale=0, wq_3_1=0.5)
    assert round(out["shares"][1, 1], 4) == 0.0372
    assert round(out["row2_powers"][0], 6) == 22.759895
    assert out["rows_2_4_identical"] == 1.0 and out["rows_2_4_identical_with_positions"] == 0.0
    assert out["naive_800_nan"] == 1.0 and out["softmax_800_finite"] == 1.0
    assert out["line_bytes"] == 66 and out["token_bytes"].tolist() == [6, 1, 38, 1]
    assert out["key_bias_share_change"] < 1e-12 < out["query_bias_share_change"]
    ex1 = sh.single_head(scale=1, wq_3_1=2.5)
    assert ex1["raw"][1, [0, 2]].tolist() == [3.625, 3.75]
    assert int(np.argmax(ex1["shares"][1])) == 2


def test_cost_table_and_crossover():
    row = hc.head_cost(n=32, D=4, d_k=4, wide_D=4000, count_budget=1e6)
    assert (row["project"], row["pairs"], row["total"]) == (1536, 8192, 9728)
    assert row["counted"] == 1.0 and row["formula_agrees"] == 1.0
    assert round(row["x_half"], 2) == 3.45 and round(100 * row["pair_share"], 1) == 84.2
    assert row["crossover"] == 7 and row["crossover_wide"] == 6001
    big = hc.head_cost(n=4096, D=4, d_k=4, wide_D=4000, count_budget=1e6)
    assert big["counted"] == 0.0 and np.isnan(big["formula_gap"])


def _verdicts(cube_name, ds):
    from conftest import REGISTRY

    from attnmem import claims

    entries = [
        e
        for e in claims.load_registry(REGISTRY / "every-word")
        if any(c["cube"] == cube_name for c in claims.checks_of(e))
    ]
    return {e["id"]: claims.judge(e, {cube_name: ds}).verdict for e in entries}


def test_changing_one_typed_weight_turns_the_head_claims_red(monkeypatch):
    from attnmem.cube import run_experiment
    from attnmem.experiments import registry

    exp = registry()["single_head"]
    block = {"scale": [0, 1], "wq_3_1": [0.5, 2.5]}
    before = _verdicts("single_head", run_experiment(exp, block, 0))
    wq = sh.WQ.copy()
    wq[1, 0] = 3.1  # 3.0 in the note (line 69)
    monkeypatch.setattr(sh, "WQ", wq)
    after = _verdicts("single_head", run_experiment(exp, block, 0))
    flipped = [i for i in before if before[i] == "reproduced" and after[i] == "discrepant"]
    assert "every-word/score-square/shares-row-2" in flipped
    assert "every-word/sqrt-divide/noscale-row-2" in flipped
    assert len(flipped) >= 10


def test_shift_invariance_through_the_unshifted_softmax():
    out = sh.single_head(scale=1, wq_3_1=0.5)
    assert out["shift_gap_naive"] < 1e-12
    assert out["shift_cancels_gap"] < 1e-12
    assert out["shift_gap_naive"] >= 0.0
