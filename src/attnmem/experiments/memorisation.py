"""Bits stored per parameter by small trained models (issue 13 item 4; memory-math ch. 5, the
measured capacities it cites).

Facts are random: n fixed Gaussian keys in R^d_in, each with a value drawn uniformly from V
classes, so every fact carries log2 V bits and nothing is shared between facts. A one-hidden-
layer ReLU MLP of width h (d_in h + h + h V + V parameters) is trained on all of them with the
cross-entropy, and the bits it stores are n log2 V minus its remaining cross-entropy on the
facts in bits (the length of the values coded with the model, against the uniform code), kept
in [0, n log2 V]. The data hold ``data_bits_per_param`` bits per parameter, more than the model
can store, so what is measured is the capacity, not the data.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, experiment, from_param, integer, ints, real, seeds


def mlp_params(d_in: int, width: int, vocab: int) -> int:
    """Parameters of Linear(d_in, width) -> ReLU -> Linear(width, vocab), biases included."""
    return d_in * width + width + width * vocab + vocab


def fact_count(params: int, vocab: int, data_bits_per_param: float) -> int:
    """Facts needed for the data to hold ``data_bits_per_param`` bits per parameter."""
    return math.ceil(data_bits_per_param * params / math.log2(vocab))


def bits_stored(ce_nats_sum: float, n_facts: int, vocab: int) -> float:
    """n log2 V minus the summed cross-entropy in bits, kept within [0, n log2 V]."""
    total = n_facts * math.log2(vocab)
    return float(min(max(total - ce_nats_sum / math.log(2), 0.0), total))


def memorise(torch, width, d_in, vocab, n_facts, steps, lr):
    """Train one MLP on fresh random facts, full batch, Adam with a cosine schedule; returns
    the summed cross-entropy (nats) on the facts and the fraction answered correctly."""
    keys = torch.randn(n_facts, d_in)
    values = torch.randint(vocab, (n_facts,))
    model = torch.nn.Sequential(
        torch.nn.Linear(d_in, width), torch.nn.ReLU(), torch.nn.Linear(width, vocab)
    )
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(keys), values)
        opt.zero_grad()
        loss.backward()
        opt.step()
        schedule.step()
    with torch.no_grad():
        logits = model(keys)
        ce = float(torch.nn.functional.cross_entropy(logits, values, reduction="sum"))
        acc = float((logits.argmax(-1) == values).double().mean())
    return ce, acc


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid={"seed": seeds(doc="training replicates (facts and initialisation)")},
    params={
        "widths": ints(min=1, ranges=False, doc="hidden widths of the MLPs", work=True),
        "d_in": integer(min=1, doc="dimension of the random keys"),
        "vocab": integer(min=2, doc="classes a value is drawn from"),
        "data_bits_per_param": real(gt=0, doc="information in the facts per parameter"),
        "steps": integer(min=1, doc="full-batch Adam steps", work=True),
        "lr": real(gt=0, doc="peak Adam learning rate (cosine schedule to zero)"),
    },
    outputs=(
        Output("n_params", "parameters of the MLP", "parameters", dims=("width",)),
        Output("n_facts", "random facts to memorise", "facts", dims=("width",)),
        Output("bits", "bits stored: n log2 V minus remaining cross-entropy", "bits", ("width",)),
        Output("bits_per_param", "bits stored per parameter", "bits", dims=("width",)),
        Output("stored_fraction", "bits stored over the bits in the facts", dims=("width",)),
        Output("accuracy", "fraction of facts answered correctly", dims=("width",)),
        Output("slope", "least-squares slope of bits stored against parameters", "bits"),
    ),
    coords={"width": from_param("widths")},
    sections=("memory-math ch. 5 (line 26 char 1357, measured bits per parameter)",),
)
def fact_capacity(
    seed: int,
    rng,
    widths: list,
    d_in: int,
    vocab: int,
    data_bits_per_param: float,
    steps: int,
    lr: float,
) -> dict:
    """Per seed, MLPs of every width trained on their own random facts; the slope of bits
    stored against parameters over the widths is the bits per parameter at capacity."""
    from ._torch import seeded_torch

    torch = seeded_torch(rng)
    n_params = np.array([mlp_params(d_in, w, vocab) for w in widths])
    n_facts = np.array([fact_count(p, vocab, data_bits_per_param) for p in n_params])
    bits, acc = [], []
    for w, n in zip(widths, n_facts, strict=True):
        ce, a = memorise(torch, int(w), d_in, vocab, int(n), steps, lr)
        bits.append(bits_stored(ce, int(n), vocab))
        acc.append(a)
    bits = np.array(bits)
    slope = float(np.polyfit(n_params.astype(float), bits, 1)[0])
    return {
        "n_params": n_params.astype(float),
        "n_facts": n_facts.astype(float),
        "bits": bits,
        "bits_per_param": bits / n_params,
        "stored_fraction": bits / (n_facts * math.log2(vocab)),
        "accuracy": np.array(acc),
        "slope": slope,
    }
