"""Figures of the two-layer model trained on ToyLang (first-principles E2 against Part A)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..views import figure
from . import style


@figure(
    "first-principles/E2-trained-loss",
    title="A small transformer trained on ToyLang",
    cubes=("toylang_training",),
)
def trained_loss(cubes):
    """A two-layer transformer trained on ToyLang (N = 8, F = 6, gaps 0-6). Left: the mean loss
    per token at Part A's L = 3 over training, one line per seed, with the true-process floor.
    Middle: the loss at each position after training against the floor at that position.
    The floor is Part A's for a known L; the model, trained on a mix of gaps, cannot know where
    the fillers end, which is most of its excess (at the fillers and at then). Right: the share
    of the two copies predicted right at each gap; the shaded gaps are longer than any trained
    on (their position embeddings were never trained)."""
    ds = cubes["toylang_training"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6), layout="constrained")
    for i, seed in enumerate(ds["seed"].values):
        d = ds.sel(seed=seed)
        label = "trained (per seed)" if i == 0 else None
        axes[0].plot(d["step"], d["loss_curve"], color=style.STORED, lw=1.2, label=label)
        axes[1].plot(
            d["position"],
            d["position_loss"],
            color=style.STORED,
            marker="o",
            ms=3,
            lw=1,
            label=label,
        )
        for copy, ls in (("Y", "-"), ("X", "--")):
            axes[2].plot(
                d["gap"],
                d["copy_accuracy"].sel(copy=copy),
                color=style.STORED,
                ls=ls,
                lw=1,
                label=f"copy of {copy}" if i == 0 else None,
            )
    floor = float(ds["floor_nats"].isel(seed=0))
    axes[0].axhline(floor, color=style.QUERY, lw=1.5, label="true process (floor)")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("training step")
    axes[0].set_ylabel("loss per token at L = 3 (nats)")
    axes[0].legend(fontsize=style.SMALL)
    d0 = ds.isel(seed=0)
    axes[1].step(
        d0["position"], d0["position_floor"], where="mid", color=style.QUERY, label="floor"
    )
    axes[1].set_xlabel("position in the sentence (L = 3)")
    axes[1].set_ylabel("loss (nats)")
    axes[1].legend(fontsize=style.SMALL)
    trained = int(max(g for g in ds["gap"].values if g <= 6))
    axes[2].axvspan(trained + 0.5, float(ds["gap"].max()) + 0.5, color=style.GREY, alpha=0.15)
    axes[2].set_xlabel("gap L")
    axes[2].set_ylabel("copies right")
    axes[2].set_ylim(0, 1.05)
    axes[2].legend(fontsize=style.SMALL, loc="lower left")
    return fig


@figure(
    "first-principles/E2-trained-maps",
    title="Attention of the trained model beside the hand-built program",
    cubes=("toylang_training",),
)
def trained_maps(cubes):
    """Attention at L = 3 averaged over held-out sentences (rows: the position asking, which
    predicts the next token; columns: the position read). Top: the hand-built program at beta =
    12, layer 1 a previous-token band, layer 2 reading the name after gave (at then) and gave
    (at thanked). Below: the two heads of each layer of the first trained seed, with the weight
    on the previous position and on the program's layer-2 key in the titles."""
    ds = cubes["toylang_training"]
    d = ds.isel(seed=0)
    heads = ds.sizes["head"]
    gap = ds.sizes["query"] - 9
    labels = ["X", "gave", "Y", "a", "T"] + ["f"] * gap + ["then", "Y", "thanked", "X"]
    fig, axes = plt.subplots(1 + heads, 2, figsize=(8, 4 * (1 + heads)), layout="constrained")
    ticks = np.arange(len(labels))
    for layer in range(2):
        ax = axes[0, layer]
        shown = ax.imshow(d["built_attention"].isel(layer=layer), cmap="Purples", vmin=0, vmax=1)
        ax.set_title(f"built, layer {layer + 1}", fontsize=style.NORMAL)
        for h in range(heads):
            ax = axes[1 + h, layer]
            ax.imshow(
                d["trained_attention"].isel(layer=layer, head=h), cmap="Purples", vmin=0, vmax=1
            )
            prev = float(d["prev_score"].isel(layer=layer, head=h))
            tgt = d["target_score"].isel(layer=layer, head=h).values
            ax.set_title(
                f"trained, layer {layer + 1} head {h}: prev {prev:.2f}, "
                f"key Y {tgt[0]:.2f}, X {tgt[1]:.2f}",
                fontsize=style.SMALL,
            )
    for ax in axes.ravel():
        ax.set_xticks(ticks, labels, rotation=90, fontsize=style.SMALL)
        ax.set_yticks(ticks, labels, fontsize=style.SMALL)
    for ax in axes[-1]:
        ax.set_xlabel("position read (key)")
    for ax in axes[:, 0]:
        ax.set_ylabel("position asking (query)")
    fig.colorbar(shown, ax=axes, label="attention weight", shrink=0.5)
    return fig
