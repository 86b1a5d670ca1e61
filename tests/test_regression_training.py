"""Trained linear self-attention on in-context regression: shapes, determinism, the form, and
the descent algorithms it is compared with (plain steps, GD++)."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import regression_training as rt

TINY = dict(steps=150, batch=64, lr=0.03, init=0.02, eval_prompts=512)


def _run(seed=0, d=3, m=8):
    return rt.icl_trained(d=d, m=m, seed=seed, rng=np.random.default_rng(seed), **TINY)


def test_training_is_deterministic_and_beats_predicting_zero():
    a, b = _run(), _run()
    assert a == b
    # A broken loop stays near the untrained model, whose error is that of predicting zero.
    assert a["loss_trained"] < 0.7
    assert a["gap_ls"] > 0.05  # one layer is not least squares at m = 8, d = 3


def test_best_step_of_one_descent_step_is_the_gaussian_optimum():
    rng = np.random.default_rng(1)
    n, m, d = 200_000, 8, 3
    w = rng.standard_normal((n, d))
    x = rng.standard_normal((n, m, d))
    x_q = rng.standard_normal((n, d))
    eta = rt.best_eta(x, np.einsum("nmd,nd->nm", x, w), x_q, (x_q * w).sum(-1), 1)
    assert eta == pytest.approx(m / (m + d + 1), rel=0.02)


def test_construction_form_of_the_hand_set_layer_and_a_perturbed_one():
    d = 3
    kq = np.diag([1.0] * d + [0.0])
    wv = np.zeros((d + 1, d + 1))
    wv[d, d] = -0.7
    gamma, resid = rt.construction_form(kq, wv)
    assert gamma == pytest.approx(0.7) and resid < 1e-12
    wv[d, 0] = 0.3  # a value that also reads x: no longer the construction
    assert rt.construction_form(kq, wv)[1] > 0.1


def test_descent_prediction_and_least_squares_agree_after_many_steps():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 20, 3))
    y = np.einsum("nmd,d->nm", x, [1.0, -2.0, 0.5])
    x_q = rng.standard_normal((5, 3))
    assert np.allclose(rt.gd_predict(x, y, x_q, 500, 0.5), rt.least_squares_predict(x, y, x_q))


def test_softmax_layer_reads_softmax_weights_of_the_example_tokens():
    """softmax_predict against the formula written out for one prompt: the query's weights are
    a softmax of its scores against the example tokens, and they sum to one (no 1/m)."""
    import torch

    gen = torch.Generator().manual_seed(0)
    d, m = 3, 5
    x, y = torch.randn(1, m, d, generator=gen), torch.randn(1, m, generator=gen)
    x_q = torch.randn(1, d, generator=gen)
    kq, wv = torch.randn(d + 1, d + 1, generator=gen), torch.randn(d + 1, d + 1, generator=gen)
    got = rt.softmax_predict(torch, [(kq, wv)], x, y, x_q)
    z = torch.cat([x[0], y[0, :, None]], -1)
    q = torch.cat([x_q[0], torch.zeros(1)])
    weights = torch.softmax(z @ (kq @ q), 0)
    assert torch.allclose(weights.sum(), torch.tensor(1.0))
    expected = -(q + weights @ (z @ wv.T))[d]
    assert torch.allclose(got[0], expected, atol=1e-6)


def test_softmax_comparison_is_deterministic_and_both_layers_learn():
    run = dict(d=3, m=8, seed=0, **TINY)
    a = rt.icl_softmax_trained(rng=np.random.default_rng(0), **run)
    b = rt.icl_softmax_trained(rng=np.random.default_rng(0), **run)
    assert a == b
    # a broken loop stays near predicting zero (error 1): both layers must do better
    assert a["loss_linear"] < 0.7 and a["loss_softmax"] < 0.9


def _prompts(n=6, m=10, d=3, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m, d))
    w = rng.standard_normal((n, d))
    x_q = rng.standard_normal((n, d))
    return x, np.einsum("nmd,nd->nm", x, w), x_q, (x_q * w).sum(-1)


def test_gdpp_without_maps_is_plain_descent_in_parameter_space():
    """The token-picture recursion (residuals and a query slot) against descent on theta."""
    x, y, x_q, _ = _prompts()
    got = rt.gdpp_predict(x, y, x_q, [0.4, 0.4, 0.4], [0.0, 0.0, 0.0])
    assert np.allclose(got, rt.gd_predict(x, y, x_q, 3, 0.4), rtol=1e-12, atol=1e-12)


def test_gdpp_is_what_hand_set_linear_self_attention_layers_compute():
    """GD++ written as numpy descent with input maps, against the torch layers of the trained
    model with the weights that encode it: scores x_i . x_j, values (-gamma x_i, -eta y_i)."""
    import torch

    x, y, x_q, _ = _prompts(m=7, d=3)
    d = x.shape[2]
    etas, gammas = [0.6, 1.3, 0.8], [0.3, -0.2, 0.0]
    layers = []
    for eta, gamma in zip(etas, gammas, strict=True):
        kq = torch.diag(torch.tensor([1.0] * d + [0.0], dtype=torch.float64))
        wv = torch.diag(torch.tensor([-gamma] * d + [-eta], dtype=torch.float64))
        layers.append((kq, wv))
    got = rt.lsa_predict(torch, layers, *(torch.from_numpy(a) for a in (x, y, x_q))).numpy()
    assert np.allclose(got, rt.gdpp_predict(x, y, x_q, etas, gammas), rtol=1e-10, atol=1e-12)


def test_best_gdpp_one_layer_is_the_best_step_and_maps_only_help():
    x, y, x_q, y_q = _prompts(n=400, m=8, d=3)
    etas, gammas = rt.best_gdpp(x, y, x_q, y_q, 1, curvature=True)
    assert etas[0] == pytest.approx(rt.best_eta(x, y, x_q, y_q, 1), rel=1e-12)
    assert gammas == [0.0]

    def error(fit):
        return np.mean((rt.gdpp_predict(x, y, x_q, *fit) - y_q) ** 2)

    plain, free = rt.best_eta(x, y, x_q, y_q, 2), rt.best_gdpp(x, y, x_q, y_q, 2, False)
    curved = rt.best_gdpp(x, y, x_q, y_q, 2, True)
    # each search contains the one before it, so its best error can only be lower
    assert error(curved) < error(free) <= error(([plain, plain], [0.0, 0.0])) + 1e-12


def test_depth_comparison_is_deterministic_and_learns():
    run = dict(d=3, m=8, layers=2, seed=0, **TINY)
    a = rt.icl_depth_trained(rng=np.random.default_rng(0), **run)
    b = rt.icl_depth_trained(rng=np.random.default_rng(0), **run)
    assert a == b
    assert a["loss_trained"] < 0.7  # an untrained stack predicts about zero (error 1)
    assert a["loss_gdpp"] < a["loss_gd_free"] <= a["loss_gd"] + 1e-9
