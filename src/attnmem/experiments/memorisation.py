"""Bits stored per parameter by small trained models (issue 13 item 4; memory-math ch. 5, the
measured capacities it cites).

Two settings, each with data that hold ``data_bits_per_param`` bits per parameter, more than the
model can store, so that what is measured is the capacity, not the data:

- facts (``fact_capacity``): n fixed Gaussian keys in R^d_in, each with a value drawn uniformly
  from V classes, so every fact carries log2 V bits and nothing is shared between facts. A
  one-hidden-layer ReLU MLP of width h (d_in h + h + h V + V parameters) is trained on all of
  them with the cross-entropy (the setting of Allen-Zhu and Li's facts, much reduced).
- sequences (``sequence_capacity``): n sequences of T tokens drawn uniformly from V, memorised
  by a tiny causal transformer (``_transformer``) trained on next-token prediction (the setting
  of Morris et al., much reduced).

In both, the bits stored are the information in the predicted symbols (count times log2 V)
minus the model's remaining summed cross-entropy on them in bits: the length of the data coded
with the model, against the uniform code. It is kept in [0, count log2 V].
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Output, experiment, from_param, integer, ints, real, require, seeds
from ._torch import Adam, cosine_rates


def mlp_params(d_in: int, width: int, vocab: int) -> int:
    """Parameters of Linear(d_in, width) -> ReLU -> Linear(width, vocab), biases included."""
    return d_in * width + width + width * vocab + vocab


def fact_count(params: int, vocab: int, data_bits_per_param: float) -> int:
    """Facts needed for the data to hold ``data_bits_per_param`` bits per parameter."""
    return math.ceil(data_bits_per_param * params / math.log2(vocab))


def bits_stored(ce_nats_sum: float, n_draws: int, vocab: int) -> float:
    """Bits a model stores about ``n_draws`` symbols drawn uniformly from ``vocab`` (fact values,
    or predicted tokens): n log2 V minus their summed cross-entropy in bits, kept within
    [0, n log2 V] (a model worse than uniform stores nothing; none stores more than the data)."""
    total = n_draws * math.log2(vocab)
    return float(min(max(total - ce_nats_sum / math.log(2), 0.0), total))


def memorise(torch, width, d_in, vocab, n_facts, steps, lr):
    """Train one MLP on fresh random facts, full batch, Adam with a cosine schedule; returns
    the summed cross-entropy (nats) on the facts and the fraction answered correctly."""
    keys = torch.randn(n_facts, d_in)
    values = torch.randint(vocab, (n_facts,))
    model = torch.nn.Sequential(
        torch.nn.Linear(d_in, width), torch.nn.ReLU(), torch.nn.Linear(width, vocab)
    )
    opt = Adam(torch, model.parameters(), lr=lr)
    for rate in cosine_rates(lr, steps):
        opt.lr = rate
        loss = torch.nn.functional.cross_entropy(model(keys), values)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        logits = model(keys)
        ce = float(torch.nn.functional.cross_entropy(logits, values, reduction="sum"))
        acc = float((logits.argmax(-1) == values).double().mean())
    return ce, acc


def capacity_params(data: str) -> dict:
    """The parameters both capacity experiments declare: how much information the ``data``
    hold per parameter, and the full-batch Adam run that memorises them."""
    return {
        "data_bits_per_param": real(gt=0, doc=f"information in the {data} per parameter"),
        "steps": integer(min=1, doc="full-batch Adam steps", work=True),
        "lr": real(gt=0, doc="peak Adam learning rate (cosine schedule to zero)"),
    }


def capacity_outputs(size: str, model: str, data: str, stored: str, right: str) -> tuple:
    """The outputs of a capacity experiment, per model ``size`` (a coordinate), and the slope
    of bits stored against parameters over the sizes; ``stored`` names the bits in the data
    that a model can store."""
    return (
        Output("n_params", f"parameters of the {model}", "parameters", dims=(size,)),
        Output(f"n_{data}", f"random {data} to memorise", data, dims=(size,)),
        Output("bits", f"bits stored: {stored} minus remaining cross-entropy", "bits", (size,)),
        Output("bits_per_param", "bits stored per parameter", "bits", dims=(size,)),
        Output("stored_fraction", f"bits stored over {stored}", dims=(size,)),
        Output("accuracy", f"fraction of {right}", dims=(size,)),
        Output("slope", "least-squares slope of bits stored against parameters", "bits"),
    )


def capacity_result(data: str, n_params, n_data, bits, data_bits, accuracy) -> dict:
    """The outputs of capacity_outputs from per-size lists: parameters, data items (``n_`` +
    ``data``), bits stored, bits in the data a model can store, and accuracy."""
    n_params, bits = np.array(n_params, float), np.array(bits)
    return {
        "n_params": n_params,
        f"n_{data}": np.array(n_data, float),
        "bits": bits,
        "bits_per_param": bits / n_params,
        "stored_fraction": bits / np.array(data_bits),
        "accuracy": np.array(accuracy),
        "slope": float(np.polyfit(n_params, bits, 1)[0]),
    }


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid={"seed": seeds(doc="training replicates (facts and initialisation)")},
    params={
        "widths": ints(min=1, ranges=False, doc="hidden widths of the MLPs", work=True),
        "d_in": integer(min=1, doc="dimension of the random keys"),
        "vocab": integer(min=2, doc="classes a value is drawn from"),
        **capacity_params("facts"),
    },
    outputs=capacity_outputs("width", "MLP", "facts", "n log2 V", "facts answered correctly"),
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
    data_bits = n_facts * math.log2(vocab)
    return capacity_result("facts", n_params, n_facts, bits, data_bits, acc)


# ----------------------------------------------------------------------------- sequences


def sequence_count(params: int, vocab: int, length: int, data_bits_per_param: float) -> int:
    """Sequences needed for their predicted tokens (all but the first of each) to hold
    ``data_bits_per_param`` bits per parameter."""
    return math.ceil(data_bits_per_param * params / ((length - 1) * math.log2(vocab)))


def memorise_sequences(torch, params: dict, seqs: np.ndarray, steps: int, lr: float) -> dict:
    """Train the transformer ``params`` (``_transformer.build``) on next-token prediction over
    the sequences ``seqs`` (n, T), full batch, Adam with a cosine schedule. Returns the bits
    stored about the predicted tokens (every token after the first, n (T - 1) of them; see
    ``bits_stored``), their count, the summed cross-entropy on them (nats), the fraction
    predicted right (argmax) and the training loss of every step (mean nats per token)."""
    from . import _transformer as tf

    inputs, targets = torch.from_numpy(seqs[:, :-1]), torch.from_numpy(seqs[:, 1:])
    opt = Adam(torch, params.values(), lr=lr)
    losses = np.empty(steps)
    for step, rate in enumerate(cosine_rates(lr, steps)):
        opt.lr = rate
        loss = tf.token_losses(torch, params, inputs, targets).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[step] = loss.item()
    token_loss, predicted, _ = tf.evaluate(torch, params, seqs[:, :-1], seqs[:, 1:])
    ce = float(token_loss.astype(float).sum())
    return {
        "bits": bits_stored(ce, token_loss.size, params["embed"].shape[0]),
        "tokens": int(token_loss.size),
        "ce": ce,
        "accuracy": float((predicted == seqs[:, 1:]).mean()),
        "losses": losses,
    }


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid={"seed": seeds(doc="training replicates (sequences and initialisation)")},
    params={
        "d_models": ints(min=1, ranges=False, doc="residual widths of the models", work=True),
        "layers": integer(min=1, doc="layers of every model"),
        "heads": integer(min=1, doc="attention heads per layer (divides every width)"),
        "mlp_ratio": integer(min=0, doc="MLP hidden width over d_model (0: attention only)"),
        "vocab": integer(min=2, doc="tokens a sequence is drawn from"),
        "length": integer(min=2, doc="tokens per sequence (the first is not predicted)"),
        **capacity_params("sequences"),
    },
    constraints=(
        require(
            "all(d % heads == 0 for d in d_models)",
            "every width in d_models must be divisible by heads",
            "d_models",
            "heads",
        ),
    ),
    outputs=capacity_outputs(
        "d_model", "transformer", "sequences", "predicted tokens' bits", "predicted tokens right"
    ),
    coords={"d_model": from_param("d_models")},
    sections=("memory-math ch. 5 (line 26 char 1357, measured bits per parameter)",),
)
def sequence_capacity(
    seed: int,
    rng,
    d_models: list,
    layers: int,
    heads: int,
    mlp_ratio: int,
    vocab: int,
    length: int,
    data_bits_per_param: float,
    steps: int,
    lr: float,
) -> dict:
    """Per seed, causal transformers of every width trained to memorise their own uniform random
    token sequences; the slope of bits stored against parameters over the widths is the bits
    per parameter at capacity.

    Only the T - 1 tokens after the first of each sequence count: the first has no context
    and, uniform with no start token, nothing about it can be predicted (at most its counts in
    the sample, a few bits), so counting it would add bits no model can store."""
    from . import _transformer as tf
    from ._torch import seeded_torch

    torch = seeded_torch(rng)
    n_params, n_seqs, bits, data_bits, acc = [], [], [], [], []
    for d in d_models:
        if d % heads:
            raise ValueError(f"d_model {d} is not divisible by {heads} heads")
        model = tf.build(torch, vocab, length - 1, int(d), layers, heads, mlp_ratio * int(d))
        p = tf.n_parameters(model)
        n = sequence_count(p, vocab, length, data_bits_per_param)
        seqs = rng.integers(vocab, size=(n, length))
        out = memorise_sequences(torch, model, seqs, steps, lr)
        n_params.append(p)
        n_seqs.append(n)
        bits.append(out["bits"])
        data_bits.append(out["tokens"] * math.log2(vocab))
        acc.append(out["accuracy"])
    return capacity_result("sequences", n_params, n_seqs, bits, data_bits, acc)
