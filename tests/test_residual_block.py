"""Science of first-principles C3-C5: the head algebra, the scale, the hand-built ToyLang block
and the counted cost of a layer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmem.experiments import head_algebra as ha
from attnmem.experiments import layer_cost as lc
from attnmem.experiments import residual_block as rb
from attnmem.experiments import score_saturation as ss


def test_gauge_symmetry_holds_and_breaks():
    out = ha.gauge_gaps(
        np.random.default_rng(0),
        np.random.default_rng(1).standard_normal((5, 8)),
        ha.head_weights(np.random.default_rng(2), 8, 4, 4),
    )
    assert out["gauge_score_gap"] < 1e-12 and out["qknorm_orthogonal_gap"] < 1e-12
    assert out["bias_gauge_gap"] > 1e-3 and out["rope_gauge_gap"] > 1e-3


def test_factorisation_dimension():
    rank, entries = ha.factorisation_dims(np.random.default_rng(0), 6, 2)
    assert rank == 2 * (12 - 2) and entries - rank == 4


def test_gauge_orbit_fills_the_null_space():
    """The G directions are d_k^2 independent directions inside the Jacobian's null space; a
    wrong sign on the key side would leave the null space."""
    for d, d_k in ((6, 3), (8, 4)):
        rank, outside, image = ha.gauge_orbit(np.random.default_rng(0), d, d_k)
        assert rank == d_k**2 and outside == 0 and image < 1e-12


def test_cross_term_matches_mixed_difference():
    assert ha.cross_term_gap(np.random.default_rng(0), 8) < 1e-6


def test_jacobian_checks_are_independent():
    out = ha.jacobian_checks(np.random.default_rng(0))
    assert 0 < out["jacobian_trace_gap"] < 1e-8 and out["top_bound_slack"] >= 0


def test_rotation_and_heads_sum():
    pe = ha.sinusoidal(10, 8)
    assert np.allclose(ha.shift_rotation(4, 8) @ pe[3], pe[7], atol=1e-14)
    assert not np.allclose(ha.shift_rotation(3, 8) @ pe[3], pe[7], atol=1e-3)
    out = ha.heads_as_sum(np.random.default_rng(0), 5, 8, 2)
    assert out["sum_gap"] < 1e-12 and out["params_over_d2"] == 4


def test_layer_norm_worked_vector():
    assert np.allclose(ha.layer_norm(ha.LN_EXAMPLE), [1, -1, -3, 3] / np.sqrt(5))


def test_causal_model_and_cache():
    out = ha.causal_checks(np.random.default_rng(0), 6, 8, 4, 16)
    assert out["future_change"] == 0 and out["cached_decode_gap"] < 1e-12


def test_saturation_statistics_move_with_the_scale():
    out = ss.score_saturation(64, 0, 16, 2000, 20000, 64, np.random.default_rng(0))
    assert abs(out["score_var"] - 64) < 3 and abs(out["scaled_var"] - 1) < 0.05
    assert out["trace_raw"] < 0.3 < 0.8 < out["trace_scaled"] < out["trace_max"] == 0.9375
    assert math.isclose(ss.expected_top_gap(2), 2 / math.sqrt(math.pi), rel_tol=1e-9)
    assert out["entropy_raw_first_2dp"] == round(out["entropy_raw_first"], 2)


def test_hand_block_worked_example():
    out = rb.toylang_block(8, 0, 6.0, 10.0, np.random.default_rng(0))
    assert math.isclose(out["thanked_w_source"], math.exp(6) / (math.exp(6) + 7))
    assert math.isclose(out["then_w_source"], math.exp(6) / (math.exp(6) + 5))
    assert out["thanked_sub_copy"][6] == pytest.approx(2 / (math.exp(6) + 7))
    assert out["thanked_gate_obj"].max() == 0 and out["all_pairs_correct"] == 1
    assert out["keys_read_content"] == 0


def test_hand_block_fails_when_beta_too_small():
    """With beta below ln 2 the two copies of Y outweigh the one X: the block goes wrong."""
    out = rb.toylang_block(8, 0, 0.5, 10.0, np.random.default_rng(0))
    assert out["all_pairs_correct"] == 0


def test_counted_layer_matches_real_pass_and_formula():
    rng = np.random.default_rng(0)
    n, d, n_h, d_ff = 7, 8, 2, 32
    W = {k: rng.standard_normal((d, d)) for k in ("WQ", "WK", "WV", "WO")}
    W["W1"], W["W2"] = rng.standard_normal((d, d_ff)), rng.standard_normal((d_ff, d))
    X = rng.standard_normal((n, d))
    count = lc.Counter()
    out = lc.layer(X, W, n_h, count)
    # a plain implementation of the same layer
    heads = []
    for u in range(n_h):
        sl = slice(u * 4, (u + 1) * 4)
        s = (X @ W["WQ"][:, sl]) @ (X @ W["WK"][:, sl]).T / 2.0
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
        a = np.exp(s - s.max(1, keepdims=True))
        heads.append((a / a.sum(1, keepdims=True)) @ (X @ W["WV"][:, sl]))
    H = X + np.hstack(heads) @ W["WO"]
    assert np.allclose(out, np.maximum(H @ W["W1"], 0) @ W["W2"])
    parts, kv = lc.count_layer(n, d, n_h, d_ff)
    assert (
        parts
        == count.parts
        == {
            "projections": 4 * n * d * d,
            "scores": n * n * d,
            "weighted_sum": n * n * d,
            "mlp": 2 * n * d * d_ff,
        }
    )
    assert kv == 2 * n * d


def test_cache_crossover():
    out = lc.layer_cost(110, 512, 8, 6, 2048, 512)
    assert out["cache_equal_n"] == 12287 and out["cache_exceed_n"] == 12288
    assert out["equal_cost_n"] == 3072
