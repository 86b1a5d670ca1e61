"""Unit tests of the arithmetic behind every-layer-a-store's recall answers (store_budgets)."""

import math

import numpy as np
import pytest

from attnmem.experiments import store_budgets as sb

SIZES = dict(window=128, blocks=16, block_size=128, pool=4, top_k=1024, recent=128, heavy_pool=128)


def test_context_reads_per_scheme():
    out = sb.context_reads(1_000_000, **SIZES)
    kept = dict(zip(sb.SCHEMES, out["kept"], strict=True))
    read = dict(zip(sb.SCHEMES, out["read"], strict=True))
    assert kept["pooled_select"] == 250_000 and read["block_select"] == 2048
    assert read["pooled_select"] == 1024 + 128
    assert kept["heavy_pool"] == math.ceil(1_000_000 / 128)
    fixed = dict(zip(sb.SCHEMES, out["fixed_size"], strict=True))
    assert fixed == {s: float(s in ("window", "recurrent")) for s in sb.SCHEMES}


def test_short_prompt_reads_no_more_than_it_has():
    out = sb.context_reads(100, **SIZES)
    read = dict(zip(sb.SCHEMES, out["read"], strict=True))
    # pooled selection also reads the newest tokens raw, so only the others are bounded by n
    assert all(read[s] <= 100 for s in sb.SCHEMES if s != "pooled_select")


def test_depth_stores_conserves_total_and_contracts():
    for mix in (0.0, 0.1, 0.25, 0.5):
        out = sb.depth_stores(mix)
        assert out["mixed_total"] == pytest.approx(out["old_total"])
        assert out["difference_ratio"] == pytest.approx(abs(1 - 2 * mix))
    assert sb.depth_stores(0.25)["depth_weights"] == pytest.approx([0.25, 0.75])


def test_tree_combination_equals_sequential_application():
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 7, 64, 100):
        a = np.exp(1j * rng.uniform(-np.pi, np.pi, n))
        b = rng.normal(size=n) + 1j * rng.normal(size=n)
        x0 = 0.3 - 0.7j
        x = x0
        for at, bt in zip(a, b, strict=True):  # apply the updates one by one
            x = at * x + bt
        ta, tb, rounds = sb.tree_combine(a, b)
        ra, rb = sb.running_combine(a, b)
        assert ta * x0 + tb == pytest.approx(x, abs=1e-9)
        assert ra * x0 + rb == pytest.approx(x, abs=1e-9)
        assert rounds == math.ceil(math.log2(n)) if n > 1 else rounds == 0


def test_composition_order_matters():
    # applying (2, 1) then (3, 0) is x -> 3(2x + 1) = 6x + 3, not 2(3x) + 1
    assert sb.compose((2.0, 1.0), (3.0, 0.0)) == (6.0, 3.0)


def test_top_k_weights_zero_outside_the_selection():
    scores = np.array([[0.5, 2.0, -1.0, 1.9]])
    w = sb.top_k_weights(scores, 2)
    assert w[0, 0] == 0 and w[0, 2] == 0
    assert w[0, 1] + w[0, 3] == pytest.approx(1.0)


def test_selector_gradient_is_zero_only_for_left_out_entries():
    out = sb.selector_miss(4, 64, 0, 50, np.random.default_rng(2))
    assert out["unselected_gradient"] == 0.0
    assert out["selected_gradient"] > 1e-3
    assert out["missed_weight"] == 0.0 and out["missed_weight_full_read"] > 0


def test_random_key_interference_matches_closed_form():
    rng = np.random.default_rng(3)
    out = sb.store_limits(d=64, m=33, shared=0.0, seed=0, trials=400, rng=rng)
    assert out["random_key_ratio"] == pytest.approx(out["random_key_closed_form"], rel=0.05)
    assert out["hebbian_ratio"] == pytest.approx(out["random_key_ratio"], rel=0.05)
    assert out["least_squares_error"] < 1e-9


def test_shared_direction_raises_interference():
    rng = np.random.default_rng(4)
    out = sb.store_limits(d=64, m=32, shared=0.3, seed=0, trials=50, rng=rng)
    assert out["hebbian_ratio"] > 1.5 * out["random_key_ratio"]
