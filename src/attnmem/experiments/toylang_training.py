"""ToyLang trained against built (issue 13 item 1): a small two-layer transformer trained on
sampled ToyLang sentences, measured against the true-process floor of Part A and against the
hand-built program of first-principles E2.

Each sentence is fed after a leading full stop (the start token), so input position t holds
the sentence's token t-1 and predicts token t: every position of the sentence, the first name
included, gets a loss comparable with the true process's cost there. Training cycles through the
gaps ``train_gaps``; accuracy on the two copies is measured on every gap of ``test_gaps``, some
longer than any trained on (their position embeddings were never trained). The attention maps at
``eval_gap`` are compared with the program's at sharpness ``beta`` on the same sentences, in the
program's coordinates (query p holds sentence token p and predicts token p+1), by two scores: the
weight on the previous position (layer 1) and, at the queries then and thanked, the weight on the
position the program's layer 2 reads (the name after gave for the second Y, gave itself for the
final X, whose PREV register holds the name before it).
"""

from __future__ import annotations

import numpy as np

from ..spec import Output, coord, experiment, from_param, integer, ints, real, seeds
from . import _transformer as tf
from . import toylang as tl
from . import toylang_machine as tm
from ._torch import seeded_torch

COPIES = ("Y", "X")
LAYERS = 2


def with_start(sentences: np.ndarray, n_names: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (the full stop, then the sentence without its last token) and targets (the
    sentence)."""
    start = np.full((len(sentences), 1), tl.token_ids(n_names)["."], dtype=np.int64)
    return np.hstack([start, sentences[:, :-1]]), sentences


def program_targets(gap: int) -> dict:
    """Per copy: the query position (the token before the copy), the key the program's layer 2
    reads there and the position of the copied name's source."""
    return {
        "Y": (gap + 5, 2, 2),  # then -> the name after gave
        "X": (gap + 7, 1, 0),  # thanked -> gave (its PREV holds X)
    }


def map_scores(maps: np.ndarray, gap: int) -> dict:
    """Scores of attention maps (..., query, key) in sentence coordinates: the mean weight on the
    previous position, and per copy the weight on the program's key and on the source name."""
    p = np.arange(1, maps.shape[-1])
    out = {"prev": maps[..., p, p - 1].mean(axis=-1)}
    t = program_targets(gap)
    out["target"] = np.stack([maps[..., t[c][0], t[c][1]] for c in COPIES])
    out["source"] = np.stack([maps[..., t[c][0], t[c][2]] for c in COPIES])
    return out


def _steps(steps, eval_every, **_):
    return list(range(0, steps, eval_every)) + [steps]


def _positions(eval_gap, **_):
    return list(range(tl.length(eval_gap)))


def _map_positions(eval_gap, **_):
    return list(range(tl.length(eval_gap) - 1))


@experiment(
    own_process=True,  # trains with torch (its generator is process-wide)
    grid={"seed": seeds()},
    params={
        "N": integer(min=2, doc="names"),
        "F": integer(min=1, doc="filler words"),
        "train_gaps": ints(min=0, ranges=False, doc="gaps L trained on, in turn"),
        "test_gaps": ints(min=0, ranges=False, doc="gaps L the copies are tested on"),
        "eval_gap": integer(min=0, doc="gap of the loss curve and the attention maps"),
        "mlp": integer(min=0, doc="hidden units of an MLP after each layer (0: none)"),
        **tf.training_params("sentences", " at each gap"),
        "beta": real(gt=0, doc="sharpness of the hand-built program compared with"),
    },
    constraints=tf.TRAINING_RULES,
    outputs=(
        Output("loss_curve", "mean loss per token at eval_gap", "nats", ("step",)),
        Output("floor_nats", "true-process cost per token at eval_gap (the floor)", "nats"),
        Output("position_loss", "loss at each position after training", "nats", ("position",)),
        Output("position_floor", "true-process cost at each position", "nats", ("position",)),
        Output("excess_nats", "sentence loss above the floor after training", "nats"),
        Output("copy_accuracy", "copies predicted right (argmax)", dims=("gap", "copy")),
        Output("copy_loss", "mean loss on the copied name", "nats", ("gap", "copy")),
        Output(
            "trained_attention",
            "trained attention at eval_gap (sentence coordinates)",
            dims=("layer", "head", "query", "key"),
        ),
        Output(
            "built_attention",
            "the program's attention at eval_gap",
            dims=("layer", "query", "key"),
        ),
        Output("prev_score", "trained weight on the previous position", dims=("layer", "head")),
        Output(
            "built_prev_score", "the program's weight on the previous position", dims=("layer",)
        ),
        Output(
            "target_score",
            "trained weight on the key the program's layer 2 reads",
            dims=("copy", "layer", "head"),
        ),
        Output(
            "source_score",
            "trained weight on the copied name's source",
            dims=("copy", "layer", "head"),
        ),
        Output("built_target_score", "the program's layer-2 weight on its key", dims=("copy",)),
        Output("layer1_prev_score", "layer 1: largest previous-position weight of a head"),
        Output(
            "layer2_target_score",
            "layer 2: largest weight of a head on the program's key",
            dims=("copy",),
        ),
        Output("n_parameters", "trained parameters", "parameters"),
    ),
    coords={
        "step": coord("training step at which the model is evaluated", _steps),
        "position": coord("position in the sentence (0 first)", _positions),
        "gap": from_param("test_gaps"),
        "copy": coord("which name is copied: Y at 'thanked' or X at the end", COPIES),
        "layer": coord("which layer of the model (0: nearest the input)", list(range(LAYERS))),
        "head": coord(
            "which attention head of the layer (0 first)", lambda heads, **_: list(range(heads))
        ),
        "query": coord("query position of the sentence (0 first)", _map_positions),
        "key": coord("key position of the sentence (0 first)", _map_positions),
    },
    sections=(
        "first-principles E2 (lines 1103-1216) against Part A's floor (lines 16-18, 96-117): "
        "the two-layer program learnt by training at toy scale (issue 13 item 1)",
    ),
)
def toylang_training(
    seed,
    rng,
    N,
    F,
    train_gaps,
    test_gaps,
    eval_gap,
    d_model,
    heads,
    mlp,
    steps,
    batch,
    lr,
    eval_every,
    eval_size,
    beta,
) -> dict:
    """Train one two-layer model from its seed on sentences of the gaps ``train_gaps`` in turn
    and measure it against the floor and the program."""
    torch = seeded_torch(rng)
    n_ctx = tl.length(max([*train_gaps, *test_gaps, eval_gap]))
    params = tf.build(torch, tl.vocab_size(N, F), n_ctx, d_model, LAYERS, heads, mlp)
    held = {g: with_start(tl.sample_sentences(rng, N, F, g, eval_size), N) for g in test_gaps}
    ev_in, ev_out = with_start(tl.sample_sentences(rng, N, F, eval_gap, eval_size), N)
    curve = []

    def on_eval(step):
        curve.append(tf.evaluate(torch, params, ev_in, ev_out)[0].mean())

    def batches(step):
        gap = train_gaps[step % len(train_gaps)]
        return with_start(tl.sample_sentences(rng, N, F, gap, batch), N)

    tf.train(torch, params, batches, steps, lr, on_eval, eval_every)
    accuracy = np.empty((len(test_gaps), 2))
    copy_loss = np.empty((len(test_gaps), 2))
    for i, g in enumerate(test_gaps):
        loss, pred, _ = tf.evaluate(torch, params, *held[g])
        pos = tl.copy_positions(g)
        for j, c in enumerate(COPIES):
            accuracy[i, j] = (pred[:, pos[c]] == held[g][1][:, pos[c]]).mean()
            copy_loss[i, j] = loss[:, pos[c]].mean()
    loss, _, maps = tf.evaluate(torch, params, ev_in, ev_out)
    trained = maps.mean(axis=1)[:, :, 1:, 1:]  # (layer, head, query, key), start token dropped
    run = tm.run_program(ev_out, N, beta)
    n = trained.shape[-1]
    built = np.stack([run["a1"].mean(axis=0), run["a2"].mean(axis=0)])[:, :n, :n]
    ts, bs = map_scores(trained, eval_gap), map_scores(built, eval_gap)
    floor = tl.true_position_costs(N, F, eval_gap)
    position_loss = loss.mean(axis=0)
    return {
        "loss_curve": np.array(curve),
        "floor_nats": float(floor.mean()),
        "position_loss": position_loss,
        "position_floor": floor,
        "excess_nats": float((position_loss - floor).sum()),
        "copy_accuracy": accuracy,
        "copy_loss": copy_loss,
        "trained_attention": trained,
        "built_attention": built,
        "prev_score": ts["prev"],
        "built_prev_score": bs["prev"],
        "target_score": ts["target"],
        "source_score": ts["source"],
        "built_target_score": bs["target"][:, 1],
        "layer1_prev_score": float(ts["prev"][0].max()),
        "layer2_target_score": ts["target"][:, 1].max(axis=-1),
        "n_parameters": float(tf.n_parameters(params)),
    }
