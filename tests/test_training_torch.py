"""The trained experiments' torch set-up (experiments/_torch.py): one thread, deterministic
algorithms, seeded from the grid point, so the same seed trains the same weights bit for bit;
and torch's own Adam with its cosine schedule to zero."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from attnmem.experiments import _transformer as tf
from attnmem.experiments._torch import adam_cosine, seeded_torch


@pytest.fixture(scope="module")
def torch():
    """torch, imported when these tests run, not when pytest collects them."""
    return pytest.importorskip("torch")


def _trained(seed: int) -> list:
    """A small transformer's weights after a few steps, trained from ``seed``."""
    torch = seeded_torch(np.random.default_rng(seed))
    params = tf.build(torch, 8, 5, 4, 1, 2, mlp=8)
    seqs = np.random.default_rng(seed).integers(8, size=(4, 6))
    tf.train(torch, params, lambda step: (seqs[:, :-1], seqs[:, 1:]), 5, 0.05)
    return [p.detach().clone() for p in params.values()]


def test_the_same_seed_trains_the_same_weights_and_another_seed_does_not(torch):
    first, again, other = _trained(1), _trained(1), _trained(2)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))


def test_seeded_torch_runs_one_thread_with_deterministic_algorithms():
    """In a fresh interpreter: this one's torch may have been set already."""
    probe = (
        "import numpy as np; from attnmem.experiments._torch import seeded_torch; "
        "t = seeded_torch(np.random.default_rng(0)); "
        "print(t.are_deterministic_algorithms_enabled(), t.get_num_threads())"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "1"]


def test_adam_cosine_is_torchs_adam_with_a_cosine_decay_to_zero(torch):
    steps, lr = 8, 0.05
    weight = torch.nn.Parameter(torch.ones(3))
    opt, schedule = adam_cosine(torch, [weight], lr, steps)
    assert type(opt) is torch.optim.Adam
    rates = []
    for _ in range(steps):
        rates.append(opt.param_groups[0]["lr"])
        weight.grad = torch.ones(3)
        opt.step()
        schedule.step()
    expected = [lr * (1 + math.cos(math.pi * k / steps)) / 2 for k in range(steps)]
    assert rates == pytest.approx(expected, rel=1e-12)
    assert opt.param_groups[0]["lr"] == pytest.approx(0, abs=1e-15)  # at the end: zero
