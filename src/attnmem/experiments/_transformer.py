"""A tiny causal transformer for the trained experiments: token and learned position embeddings,
one or two attention layers (optionally an MLP after each), no LayerNorm, a linear unembedding.

Small on purpose (a few thousand parameters) so that a seed trains in seconds on one CPU thread,
and plain so that its attention maps and OV circuits can be read head by head against the
hand-built programs. torch is passed in (``seeded_torch``) and never imported at module level.
"""

from __future__ import annotations

import math

import numpy as np

from ..spec import Param, integer, real, require
from ._torch import Adam


def build(torch, vocab: int, n_ctx: int, d_model: int, layers: int, heads: int, mlp: int = 0):
    """The model's parameters as a dict of leaf tensors, initialised from torch's global
    generator (seeded by the caller): normal with standard deviation 1/sqrt(fan-in)."""
    d_head = d_model // heads

    def init(*shape, fan_in):
        return (torch.randn(*shape) / math.sqrt(fan_in)).requires_grad_()

    p = {"embed": init(vocab, d_model, fan_in=1), "pos": init(n_ctx, d_model, fan_in=1)}
    for layer in range(layers):
        for w in ("q", "k", "v"):
            p[f"{w}{layer}"] = init(heads, d_model, d_head, fan_in=d_model)
        p[f"o{layer}"] = init(heads, d_head, d_model, fan_in=d_model)
        if mlp:
            p[f"mlp_in{layer}"] = init(d_model, mlp, fan_in=d_model)
            p[f"mlp_out{layer}"] = init(mlp, d_model, fan_in=mlp)
    p["unembed"] = init(d_model, vocab, fan_in=d_model)
    return p


def x_dtype(torch):
    return torch.get_default_dtype()


def n_layers(params: dict) -> int:
    return sum(1 for k in params if k.startswith("q"))


def forward(torch, params: dict, tokens, return_attention: bool = False):
    """Logits (B, T, vocab) of a batch of token ids (B, T); with ``return_attention`` also the
    attention weights of every layer, a list of (B, heads, T, T) tensors."""
    T = tokens.shape[1]
    # a one-hot product, not an index: its backward is a matmul, where the deterministic
    # index_put backward of an indexed embedding costs several times the rest of the step
    onehot = torch.nn.functional.one_hot(tokens, params["embed"].shape[0]).to(x_dtype(torch))
    x = onehot @ params["embed"] + params["pos"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    maps = []
    for layer in range(n_layers(params)):
        q = torch.einsum("btd,hde->bhte", x, params[f"q{layer}"])
        k = torch.einsum("btd,hde->bhte", x, params[f"k{layer}"])
        v = torch.einsum("btd,hde->bhte", x, params[f"v{layer}"])
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        a = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        maps.append(a)
        x = x + torch.einsum("bhte,hed->btd", a @ v, params[f"o{layer}"])
        if f"mlp_in{layer}" in params:
            x = x + torch.relu(x @ params[f"mlp_in{layer}"]) @ params[f"mlp_out{layer}"]
    logits = x @ params["unembed"]
    return (logits, maps) if return_attention else logits


def token_losses(torch, params: dict, inputs, targets):
    """Cross-entropy (nats) of every target token, shape (B, T)."""
    logits = forward(torch, params, inputs)
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")


def train(torch, params: dict, batches, steps: int, lr: float, on_eval=None, eval_every: int = 0):
    """Adam on the mean token loss for ``steps`` steps; ``batches(step)`` gives (inputs,
    targets) as int64 numpy arrays. ``on_eval(step)`` is called at step 0, every
    ``eval_every`` steps and after the last. Returns the training loss of each step."""
    opt = Adam(torch, params.values(), lr=lr)
    losses = np.empty(steps)
    for step in range(steps):
        if on_eval is not None and eval_every and step % eval_every == 0:
            on_eval(step)
        inputs, targets = batches(step)
        loss = token_losses(torch, params, torch.from_numpy(inputs), torch.from_numpy(targets))
        loss = loss.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[step] = loss.item()
    if on_eval is not None:
        on_eval(steps)
    return losses


def evaluate(torch, params: dict, inputs: np.ndarray, targets: np.ndarray):
    """Token losses (B, T), argmax predictions (B, T) and attention maps (layers, B, heads,
    T, T) as numpy arrays, without gradients."""
    with torch.no_grad():
        x = torch.from_numpy(inputs)
        logits, maps = forward(torch, params, x, return_attention=True)
        logp = torch.log_softmax(logits, dim=-1)
        loss = -logp.gather(-1, torch.from_numpy(targets).unsqueeze(-1)).squeeze(-1)
        return loss.numpy(), logits.argmax(-1).numpy(), np.stack([a.numpy() for a in maps])


def copying_scores(params: dict) -> np.ndarray:
    """Per layer and head, Olsson et al.'s copying score of the head's OV circuit read from the
    token embedding to the logits, M = E W_V W_O U (vocab x vocab): the sum of M's eigenvalues
    over the sum of their moduli (1: the head raises the logit of the token it attends to;
    -1: lowers it). Shape (layers, heads)."""
    embed = params["embed"].detach().numpy()
    unembed = params["unembed"].detach().numpy()
    out = []
    for layer in range(n_layers(params)):
        wv = params[f"v{layer}"].detach().numpy()
        wo = params[f"o{layer}"].detach().numpy()
        row = []
        for h in range(wv.shape[0]):
            eig = np.linalg.eigvals(embed @ wv[h] @ wo[h] @ unembed)
            row.append(float(eig.real.sum() / np.abs(eig).sum()))
        out.append(row)
    return np.array(out)


def n_parameters(params: dict) -> int:
    return int(sum(v.numel() for v in params.values()))


# The width a head takes is d_model / heads: a remainder would silently drop columns.
TRAINING_RULES = (
    require(
        "d_model % heads == 0",
        "d_model must be divisible by heads (each head is d_model / heads wide)",
        "d_model",
        "heads",
    ),
)


def training_params(example: str, where: str = "") -> dict[str, Param]:
    """The parameters every transformer trained here declares (width, heads, the Adam run and
    its measurements), ``example`` naming what a batch holds (sequences, sentences) and
    ``where`` where the held-out ones are measured."""
    return {
        "d_model": integer(min=2, doc="width of the residual stream"),
        "heads": integer(min=1, doc="heads per layer"),
        "steps": integer(min=1, doc="training steps", work=True),
        "batch": integer(min=1, doc=f"{example} per step"),
        "lr": real(gt=0, doc="Adam learning rate"),
        "eval_every": integer(min=1, doc="steps between two measurements"),
        "eval_size": integer(min=1, doc=f"held-out {example} measured{where}"),
    }
