"""PyTorch for the trained experiments: deterministic, one thread, seeded from the grid point.

Imported only by the modules that train (torch costs a second or two to import), and only inside
their functions. A trained value then depends on the grid point's generator alone: the same seed
gives the same weights and losses on this machine at any ``--cores``. Across machines, float
rounding in BLAS kernels and torch versions may differ (README, "Training at toy scale").
"""

from __future__ import annotations

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
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(int(rng.integers(2**63 - 1)))
    return torch


def adam_cosine(torch, params, lr: float, steps: int):
    """torch's Adam at peak rate ``lr`` and its cosine schedule to zero over ``steps`` steps
    (``CosineAnnealingLR``, to be stepped once after each optimiser step). torch's own
    classes, not a copy: a copy saved about 1 s of each training job's start-up (torch.optim
    imports torch's compiler), under 5% of a rebuild, at the price of upkeep on every torch
    upgrade (README, "Training at toy scale")."""
    opt = torch.optim.Adam(params, lr=lr)
    return opt, torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
