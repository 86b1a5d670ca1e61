"""The trained experiments' Adam and cosine schedule (experiments/_torch.py) against torch's own
classes: the same weights bit for bit, step after step, or a trained cube would change."""

from __future__ import annotations

import numpy as np
import pytest

from attnmem.experiments import _transformer as tf
from attnmem.experiments._torch import Adam, cosine_rates

STEPS = 12


@pytest.fixture(scope="module")
def torch():
    """torch, imported when these tests run, not when pytest collects them (2.5 s in each
    worker, before the pipeline build can start)."""
    return pytest.importorskip("torch")


def _weights(torch):
    """A two-layer transformer with MLPs, and last a parameter the loss never uses."""
    torch.manual_seed(3)
    params = tf.build(torch, 6, 5, 4, 2, 2, mlp=4)
    return params, [*params.values(), torch.randn(5).requires_grad_()]


def _train(torch, optimiser: str, schedule: bool, eps: float = 1e-8):
    """Weights after STEPS full-batch steps of torch's Adam (and CosineAnnealingLR) or ours,
    and the learning rate each step used."""
    params, weights = _weights(torch)
    seqs = np.random.default_rng(3).integers(6, size=(8, 6))
    inputs, targets = torch.from_numpy(seqs[:, :-1]), torch.from_numpy(seqs[:, 1:])
    if optimiser == "torch":
        opt = torch.optim.Adam(weights, lr=0.05, eps=eps)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, STEPS) if schedule else None
    else:
        opt, rates = Adam(torch, weights, lr=0.05, eps=eps), cosine_rates(0.05, STEPS)
    used = []
    for step in range(STEPS):
        if optimiser == "ours" and schedule:
            opt.lr = rates[step]
        used.append(opt.param_groups[0]["lr"] if optimiser == "torch" else opt.lr)
        loss = tf.token_losses(torch, params, inputs, targets).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if optimiser == "torch" and schedule:
            sched.step()
    return [w.detach() for w in weights], used


@pytest.mark.parametrize("schedule", [False, True])
def test_adam_gives_torchs_weights_bit_for_bit(torch, schedule):
    theirs, their_rates = _train(torch, "torch", schedule)
    ours, our_rates = _train(torch, "ours", schedule)
    assert our_rates == their_rates  # exact floats: torch's recursive cosine form
    assert all(torch.equal(a, b) for a, b in zip(theirs, ours, strict=True))
    start = [w.detach() for w in _weights(torch)[1]]
    moved = [not torch.equal(a, b) for a, b in zip(ours, start, strict=True)]
    assert moved == [True] * (len(start) - 1) + [False]  # trained; the unused one left alone


def test_a_slightly_different_update_is_told_apart(torch):
    """The comparison can fail: an epsilon of 1e-7 instead of 1e-8 moves the weights."""
    theirs, _ = _train(torch, "torch", False)
    ours, _ = _train(torch, "ours", False, eps=1e-7)
    assert not all(torch.equal(a, b) for a, b in zip(theirs, ours, strict=True))


def test_training_sets_determinism_without_importing_the_compiler():
    """seeded_torch turns torch's deterministic algorithms on, and a training run with it
    imports neither torch._dynamo nor sympy (1.5 s of each training job's start-up), in a
    fresh interpreter since this one may have imported them already."""
    import subprocess
    import sys

    probe = """
import sys
import numpy as np
from attnmem.experiments import _transformer as tf
from attnmem.experiments._torch import seeded_torch
torch = seeded_torch(np.random.default_rng(0))
params = tf.build(torch, 8, 5, 4, 1, 2, mlp=8)
seqs = np.random.default_rng(0).integers(8, size=(4, 6))
tf.train(torch, params, lambda step: (seqs[:, :-1], seqs[:, 1:]), 2, 0.01)
print(torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(),
      sorted({"torch._dynamo", "sympy"} & set(sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == "True 1 []"
