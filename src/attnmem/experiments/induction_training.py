"""Induction heads trained at toy scale, and their phase change (first-principles E4,
memory-math ch. 11; Olsson et al.): an attention-only model of one or two layers trained on
sequences in which a random segment is repeated, measured as it trains.

A sequence has ``length`` tokens: a random prefix, then a segment of S random tokens (S drawn
per sequence between ``segment_min`` and length/2) written twice, so that the second copy sits a
varying distance after the first and no fixed position offset predicts it: only a head that
looks for the earlier occurrence of the current token and reads what followed it (an induction
head) can. Over training we record the in-context learning score (mean loss on the last
``window`` positions minus that on the first ``window``, Olsson et al.'s late-minus-early
difference), and per head the prefix-matching score (attention from a second-copy token to the
token after its earlier occurrence), the previous-token score and the copying score of its OV
circuit. One-layer models are the control: they cannot compose a previous-token head with a
content-addressed read.
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, integer, ints, seeds
from . import _transformer as tf
from ._torch import seeded_torch

MAX_LAYERS = 2  # the layer dim of the head scores (NaN rows for a one-layer model)


def padded(scores: np.ndarray) -> np.ndarray:
    """Per-head scores (layers, heads) padded with NaN rows to MAX_LAYERS layers."""
    out = np.full((MAX_LAYERS, scores.shape[1]), np.nan)
    out[: len(scores)] = scores
    return out


def repeated_sequences(rng, size: int, vocab: int, length: int, segment_min: int):
    """``size`` sequences of ``length`` tokens (a random prefix, then a random segment twice)
    and the segment length and start of each."""
    seg = rng.integers(segment_min, length // 2 + 1, size=size)
    start = np.array([rng.integers(length - 2 * s + 1) for s in seg])
    out = rng.integers(vocab, size=(size, length))
    for i, (s, a) in enumerate(zip(seg, start, strict=True)):
        out[i, a + s : a + 2 * s] = out[i, a : a + s]
    return out, seg, start


def head_scores(maps: np.ndarray, seg: np.ndarray, start: np.ndarray) -> dict:
    """Per layer and head, from attention maps (layers, B, heads, T, T) of the model's input
    positions (input t predicts token t+1): prefix matching, the mean weight a query holding a
    second-copy token puts on the token after its earlier occurrence; previous-token, the mean
    weight on the position just before the query."""
    T = maps.shape[-1]
    qs, ks, bs = [], [], []
    for b, (s, a) in enumerate(zip(seg, start, strict=True)):
        q = np.arange(a + s, min(a + 2 * s, T))  # inputs holding the second copy's tokens
        qs.append(q)
        ks.append(q - s + 1)
        bs.append(np.full(len(q), b))
    q, k, b = (np.concatenate(x) for x in (qs, ks, bs))
    prefix = maps[:, b, :, q, k].mean(axis=0)  # advanced indices first: (layers, heads)
    t = np.arange(1, T)
    prev = maps[:, :, :, t, t - 1].mean(axis=(1, 3))
    return {"prefix": prefix, "prev": prev}


def transition(steps: np.ndarray, curve: np.ndarray, final_window: int = 3) -> tuple:
    """Where a curve makes its fall from its highest value (the plateau before the drop; at
    step 0 the value of an untrained model is noise) to its end (mean of the last
    ``final_window``): the first step after the peak at which half the drop is made, and the
    steps taken from 10% to 90% of it. NaN steps when it does not fall."""
    peak = int(np.argmax(curve))
    end = curve[-final_window:].mean()
    drop = curve[peak] - end
    if not drop > 0:
        return float("nan"), float("nan"), float(drop)
    covered = (curve[peak] - curve[peak:]) / drop
    at = [steps[peak:][np.argmax(covered >= f)] for f in (0.1, 0.5, 0.9)]
    return float(at[1]), float(at[2] - at[0]), float(drop)


def _coords_steps(steps, eval_every, **_):
    return list(range(0, steps, eval_every)) + [steps]


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid={
        "layers": ints(
            min=1,
            max=MAX_LAYERS,
            ranges=False,
            doc="depth of the trained model: number of attention layers",
        ),
        "seed": seeds(),
    },
    params={
        "vocab": integer(min=4, doc="tokens of the random sequences"),
        "length": integer(min=8, doc="tokens per sequence"),
        "segment_min": integer(min=2, doc="shortest repeated segment"),
        **tf.training_params("sequences"),
        "window": integer(min=1, doc="positions at each end averaged by the ICL score"),
    },
    constraints=tf.TRAINING_RULES,
    outputs=(
        Output(
            "icl_score", "loss late in the context minus loss early (ICL score)", "nats", ("step",)
        ),
        Output(
            "second_copy_loss", "mean loss on second-copy tokens after the first", "nats", ("step",)
        ),
        Output(
            "prefix_matching",
            "attention on the token after the earlier occurrence",
            dims=("step", "layer_index", "head"),
        ),
        Output(
            "previous_token",
            "attention on the previous position",
            dims=("step", "layer_index", "head"),
        ),
        Output(
            "copying",
            "copying score of the OV circuit (eigenvalues)",
            dims=("step", "layer_index", "head"),
        ),
        Output("final_icl_score", "ICL score after training", "nats"),
        Output("uniform_nats", "loss of a uniform guess, ln vocab", "nats"),
        Output("top_prefix_matching", "largest prefix-matching score of a head after training"),
        Output("induction_accuracy", "second-copy tokens predicted right after training"),
        Output("icl_half_step", "first step with half the ICL drop made", "steps"),
        Output("icl_rise_steps", "steps from 10% to 90% of the ICL drop", "steps"),
        Output("icl_rise_fraction", "those steps over the training steps"),
        Output(
            "prefix_half_step", "first step with half the top head's prefix-matching rise", "steps"
        ),
        Output("half_step_gap", "|prefix_half_step - icl_half_step| over the training steps"),
        Output("n_parameters", "trained parameters", "parameters"),
    ),
    coords={
        "step": coord("training step at which the model is evaluated", _coords_steps),
        "layer_index": coord(
            "which layer of the model (0: nearest the input)", list(range(MAX_LAYERS))
        ),
        "head": coord(
            "which attention head of the layer (0 first)", lambda heads, **_: list(range(heads))
        ),
    },
    sections=(
        "first-principles E4 (line 1280) and memory-math ch. 11 (line 54): induction heads and "
        "their phase change, trained at toy scale (issue 13 item 2)",
    ),
)
def induction_training(
    layers,
    seed,
    rng,
    vocab,
    length,
    segment_min,
    d_model,
    heads,
    steps,
    batch,
    lr,
    eval_every,
    eval_size,
    window,
) -> dict:
    """Train one model from its seed and measure it every ``eval_every`` steps on a fixed
    held-out set of repeated sequences."""
    torch = seeded_torch(rng)
    params = tf.build(torch, vocab, length - 1, d_model, layers, heads)
    ev, seg, start = repeated_sequences(rng, eval_size, vocab, length, segment_min)
    ev_in, ev_out = ev[:, :-1], ev[:, 1:]
    # targets of the second copy after its first token: what induction can predict
    pick = np.zeros(ev_out.shape, dtype=bool)
    for b, (s, a) in enumerate(zip(seg, start, strict=True)):
        pick[b, a + s : a + 2 * s - 1] = True
    record = {k: [] for k in ("icl", "second", "prefix", "prev", "copy", "acc")}

    def on_eval(step):
        loss, pred, maps = tf.evaluate(torch, params, ev_in, ev_out)
        by_pos = loss.mean(axis=0)
        record["icl"].append(by_pos[-window:].mean() - by_pos[:window].mean())
        record["second"].append(loss[pick].mean())
        record["acc"].append((pred == ev_out)[pick].mean())
        sc = head_scores(maps, seg, start)
        record["prefix"].append(padded(sc["prefix"]))
        record["prev"].append(padded(sc["prev"]))
        record["copy"].append(padded(tf.copying_scores(params)))

    def batches(step):
        seqs, _, _ = repeated_sequences(rng, batch, vocab, length, segment_min)
        return seqs[:, :-1], seqs[:, 1:]

    tf.train(torch, params, batches, steps, lr, on_eval, eval_every)
    at = np.array(_coords_steps(steps, eval_every))
    icl = np.array(record["icl"])
    prefix = np.array(record["prefix"])
    top = np.nanargmax(prefix[-1])  # the head (layer, head) with the largest final score
    top_curve = -prefix.reshape(len(at), -1)[:, top]
    half, rise, _ = transition(at, icl)
    p_half, _, _ = transition(at, top_curve)
    return {
        "icl_score": icl,
        "second_copy_loss": np.array(record["second"]),
        "prefix_matching": prefix,
        "previous_token": np.array(record["prev"]),
        "copying": np.array(record["copy"]),
        "final_icl_score": float(icl[-1]),
        "uniform_nats": float(np.log(vocab)),
        "top_prefix_matching": float(np.nanmax(prefix[-1])),
        "induction_accuracy": float(record["acc"][-1]),
        "icl_half_step": half,
        "icl_rise_steps": rise,
        "icl_rise_fraction": rise / steps,
        "prefix_half_step": p_half,
        "half_step_gap": abs(p_half - half) / steps,
        "n_parameters": float(tf.n_parameters(params)),
    }
