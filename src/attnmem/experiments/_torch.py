"""PyTorch for the trained experiments: deterministic, one thread, seeded from the grid point.

Imported only by the modules that train (torch costs a second or two to import), and only inside
their functions. A trained value then depends on the grid point's generator alone: the same seed
gives the same weights and losses on this machine at any ``--cores``. Across machines, float
rounding in BLAS kernels and torch versions may differ (README, "Training at toy scale").
"""

from __future__ import annotations

import math
import threading


def seeded_torch(rng):
    """The ``torch`` module, set to one thread and deterministic algorithms, with its global
    generator seeded from ``rng`` (the grid point's numpy generator)."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError(
            "training sets torch's process-wide generator: it must run in the main thread of "
            "a process of its own (declare the experiment with own_process=True)"
        )
    import torch

    torch.set_num_threads(1)
    # What torch.use_deterministic_algorithms(True) does for eager code, without the import of
    # torch._inductor's config it also makes (for compiled code, unused here): that import
    # pulls in torch._dynamo and sympy, 1.5 s of a training process's start-up.
    switch = getattr(torch._C, "_set_deterministic_algorithms", None)
    if switch is None:  # a torch without the private switch: the public call
        torch.use_deterministic_algorithms(True)
    else:
        switch(True, warn_only=False)
    torch.manual_seed(int(rng.integers(2**63 - 1)))
    return torch


class Adam:
    """torch.optim.Adam's default update (no weight decay, no AMSGrad, its one-tensor-at-a-time
    path, which torch takes on CPU), written out with the same tensor operations in the same
    order, so the weights come out bit for bit the same (tests/test_adam.py). Why not torch's
    class: constructing it imports torch._dynamo and sympy, about 800 modules and 1.5 s of each
    training job's start-up. ``lr`` may be changed between steps (see ``cosine_rates``)."""

    def __init__(self, torch, params, lr: float, betas=(0.9, 0.999), eps: float = 1e-8):
        self.torch = torch
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.state: dict[int, tuple] = {}  # per parameter: steps taken, first and second moments

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        torch, b1, b2 = self.torch, self.beta1, self.beta2
        with torch.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:  # torch skips a parameter without a gradient, moments too
                    continue
                taken, m, v = self.state.get(i) or (0, torch.zeros_like(p), torch.zeros_like(p))
                taken += 1
                self.state[i] = (taken, m, v)
                g = p.grad
                m.lerp_(g, 1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                step = float(taken)  # torch keeps the count in a float tensor and reads .item()
                step_size = self.lr / (1 - b1**step)
                denom = (v.sqrt() / (1 - b2**step) ** 0.5).add_(self.eps)
                p.addcdiv_(m, denom, value=-step_size)


def cosine_rates(lr: float, steps: int) -> list[float]:
    """The learning rate of each of ``steps`` steps under torch's CosineAnnealingLR(T_max=steps)
    stepped once per step: its recursive form (each rate from the last, as torch computes it),
    not the closed form, since the two differ in the last bits."""
    rates = [lr]
    for epoch in range(1, steps):
        ratio = (1 + math.cos(math.pi * epoch / steps)) / (
            1 + math.cos(math.pi * (epoch - 1) / steps)
        )
        rates.append(ratio * rates[-1])
    return rates
