"""Science of first-principles A4 (reconstructed): the pair mixture."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import pair_mixture as pm
from attnmem.experiments import toylang as tl


@pytest.mark.parametrize("n_names,n_fillers,gap", [(3, 2, 0), (4, 2, 2), (8, 1, 10), (8, 6, 2)])
def test_fitted_mixture_pays_the_closed_form(n_names, n_fillers, gap):
    out = pm.pair_mixture(n_names, n_fillers, gap, 10_000)
    assert out["enumerated"] == 1
    assert out["copy_nats_enumerated"] == pytest.approx(out["copy_nats"], abs=1e-12)
    assert out["cost_X_enumerated"] == pytest.approx(np.log((10 + gap) / 2), abs=1e-12)
    assert out["n_bags_fitted"] == n_names * (n_names - 1) / 2
    assert out["role_gap"] < 1e-12
    assert (out["prefix_X_min"], out["prefix_X_max"]) == (1, 1)
    assert (out["prefix_Y_min"], out["prefix_Y_max"]) == (2, 2)


def test_cost_does_not_depend_on_the_fillers():
    costs = [pm.pair_mixture(4, f, 3, 50_000)["copy_nats_enumerated"] for f in (1, 2, 6)]
    assert np.allclose(costs, costs[0])


def test_mixture_is_order_blind_and_sums_to_one():
    s = tl.enumerate_sentences(3, 2, 1)
    model = pm.fit_pair_mixture(s, 3, tl.vocab_size(3, 2))
    shuffled = np.array([np.random.default_rng(k).permutation(s[5]) for k in range(5)])
    lp = pm.mixture_logprob(model, np.vstack([s[5], shuffled]))
    assert np.allclose(lp, lp[0])
    law = pm.predictive(model, s, tl.copy_positions(1)["X"])
    assert np.allclose(law.sum(axis=1), 1)
