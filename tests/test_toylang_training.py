"""The ToyLang-training code on tiny settings: alignment with the program, gradients,
determinism, learning."""

import numpy as np

from attnmem.experiments import _transformer as tf
from attnmem.experiments import toylang as tl
from attnmem.experiments import toylang_training as tt
from attnmem.experiments._torch import seeded_torch

TINY = dict(
    N=4,
    F=2,
    train_gaps=[0, 1],
    test_gaps=[1, 3],
    eval_gap=1,
    d_model=8,
    heads=1,
    mlp=0,
    steps=60,
    batch=16,
    lr=0.02,
    eval_every=30,
    eval_size=16,
    beta=12.0,
)


def test_program_scores_match_the_program():
    """The scores read the built program's maps as the program is described: layer 1 on the
    previous position, layer 2 on the name after gave (at then) and on gave (at thanked)."""
    out = tt.toylang_training(seed=0, rng=np.random.default_rng(0), **TINY)
    assert out["built_prev_score"][0] > 0.99
    assert np.all(out["built_target_score"] > 0.99)


def test_gradients_match_finite_differences():
    torch = seeded_torch(np.random.default_rng(1))
    torch.set_default_dtype(torch.float64)
    try:
        p = tf.build(torch, 6, 5, 4, 2, 2, mlp=3)
        x = torch.from_numpy(np.random.default_rng(2).integers(6, size=(3, 5)))
        loss = tf.token_losses(torch, p, x, x).mean()
        loss.backward()
        w = p["k1"]
        eps = 1e-6
        with torch.no_grad():
            w[0, 1, 0] += eps
            up = tf.token_losses(torch, p, x, x).mean().item()
            w[0, 1, 0] -= 2 * eps
            down = tf.token_losses(torch, p, x, x).mean().item()
        assert abs((up - down) / (2 * eps) - w.grad[0, 1, 0].item()) < 1e-6
    finally:
        torch.set_default_dtype(torch.float32)


def test_deterministic_and_learns():
    a = tt.toylang_training(seed=0, rng=np.random.default_rng(5), **TINY)
    b = tt.toylang_training(seed=0, rng=np.random.default_rng(5), **TINY)
    assert np.array_equal(a["loss_curve"], b["loss_curve"])
    assert a["loss_curve"][-1] < 0.6 * a["loss_curve"][0]
    assert a["position_loss"].shape == (tl.length(1),)
