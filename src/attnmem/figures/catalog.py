"""Every figure the pipeline draws: its id, the rule group that draws it, the cubes it reads and
the function that draws it. Kept free of matplotlib so that the Snakefile can import it cheaply.

A figure's id is ``<doc>/<section>-<slug>``; it is drawn to ``figures/<id>.png`` and ``.svg``
and captioned by ``workflow/report/<id>.rst``. Claims name the figures they support.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    id: str
    group: str
    cubes: tuple[str, ...]
    draw: str  # "module:function" inside attnmem.figures


FIGURES: tuple[Figure, ...] = (
    # memory-math prologue, chapters 1-2 (drawn in attention_algebra.py)
    Figure(
        "memory-math/prologue-two-lookups",
        "attention_algebra",
        (),
        "attention_algebra:two_lookups",
    ),
    Figure(
        "memory-math/ch1-two-readings",
        "attention_algebra",
        ("matrix_readings",),
        "attention_algebra:two_readings",
    ),
    Figure(
        "memory-math/ch2-four-readings",
        "attention_algebra",
        ("matrix_readings",),
        "attention_algebra:four_readings",
    ),
    Figure(
        "memory-math/ch2-outer-sum",
        "attention_algebra",
        ("matrix_readings",),
        "attention_algebra:outer_sum",
    ),
    Figure(
        "memory-math/ch2-singular-values",
        "attention_algebra",
        ("eckart_young",),
        "attention_algebra:singular_values",
    ),
    Figure(
        "soft-dictionary/lookup-sharpness",
        "soft_dictionary",
        ("soft_lookup",),
        "soft_lookup:sharpness",
    ),
    Figure(
        "soft-dictionary/self-attention-table",
        "soft_dictionary",
        ("soft_lookup",),
        "soft_lookup:table",
    ),
    Figure(
        "soft-dictionary/position-patch",
        "soft_dictionary",
        ("position_lookup",),
        "soft_lookup:position_patch",
    ),
    Figure("soft-dictionary/block-diagram", "soft_dictionary", (), "soft_lookup:block_diagram"),
    # in-context regression and induction: first-principles E3-E4, memory-math ch. 11
    Figure(
        "first-principles/E3-gradient-steps",
        "programs_icl",
        ("icl_stack_gd", "icl_worked_line"),
        "programs_icl:e3_gradient_steps",
    ),
    Figure(
        "first-principles/E4-induction",
        "programs_icl",
        ("induction_circuit",),
        "programs_icl:e4_induction",
    ),
    Figure(
        "memory-math/ch11-gradient-steps",
        "programs_icl",
        ("icl_stack_gd",),
        "programs_icl:ch11_gradient_steps",
    ),
    # every-word: the note's printed tables drawn from the cubes.
    Figure(
        "every-word/three-matrices-projections",
        "every_word",
        ("single_head",),
        "every_word:three_matrices",
    ),
    Figure(
        "every-word/score-square-shares", "every_word", ("single_head",), "every_word:score_square"
    ),
    Figure("every-word/cost-growth", "every_word", ("head_cost",), "every_word:cost_growth"),
    Figure(
        "every-word/sqrt-divide-scale",
        "every_word",
        ("score_scale", "pinned_width"),
        "every_word:sqrt_divide_scale",
    ),
    # capacity of a read: first-principles D5, memory-math ch. 6 and its reading list,
    # every-layer-a-store's two criteria (drawn in memories_capacity.py)
    Figure(
        "first-principles/D5-softmax-capacity",
        "memories_capacity",
        ("softmax_capacity", "softmax_interference_mc"),
        "memories_capacity:softmax_capacity_d5",
    ),
    Figure(
        "memory-math/ch6-capacity-over-d",
        "memories_capacity",
        ("softmax_capacity",),
        "memories_capacity:capacity_over_d",
    ),
    Figure(
        "memory-math/further-reading-hopfield-capacity",
        "memories_capacity",
        ("capacity_checks",),
        "memories_capacity:hopfield_capacity",
    ),
    Figure(
        "every-layer-a-store/one-head-two-criteria",
        "memories_capacity",
        ("capacity_checks",),
        "memories_capacity:two_criteria",
    ),
    # first-principles, opening to A2 (drawn in ruler_and_bag.py)
    Figure("first-principles/route-parts", "first_principles_A", (), "ruler_and_bag:route"),
    Figure(
        "first-principles/route-two-clocks", "first_principles_A", (), "ruler_and_bag:two_clocks"
    ),
    Figure(
        "first-principles/A1-ruler-costs",
        "first_principles_A",
        ("ruler_costs",),
        "ruler_and_bag:ruler_costs",
    ),
    Figure(
        "first-principles/A2-shuffle",
        "first_principles_A",
        ("bag_shuffle",),
        "ruler_and_bag:shuffle",
    ),
    # first-principles A3, A4 and A5 (drawn in windows_and_states.py)
    Figure(
        "first-principles/A3-window-staircase",
        "first_principles_A",
        ("window_staircase",),
        "windows_and_states:staircase",
    ),
    Figure(
        "first-principles/A4-table-vs-rule",
        "first_principles_A",
        ("window_staircase", "binding_hmm", "copy_rule"),
        "windows_and_states:table_vs_rule",
    ),
    Figure(
        "first-principles/A4-three-ways",
        "first_principles_A",
        ("model_comparison",),
        "windows_and_states:three_ways",
    ),
    Figure(
        "first-principles/A5-model-comparison",
        "first_principles_A",
        ("model_comparison",),
        "windows_and_states:comparison",
    ),
    # first-principles D1-D2 and memory-math chapter 5 (drawn in memories_writes.py)
    Figure(
        "first-principles/D1-store-weights",
        "memories_writes",
        ("linear_store_errors",),
        "memories_writes:store_weights",
    ),
    Figure(
        "first-principles/D2-rank-one-edit",
        "memories_writes",
        ("memory_edit_checks",),
        "memories_writes:rank_one_edit",
    ),
    Figure(
        "memory-math/ch5-mlp-lookup",
        "memories_writes",
        ("memory_edit_checks",),
        "memories_writes:mlp_lookup",
    ),
    Figure(
        "memory-math/ch5-score-leak",
        "memories_writes",
        ("score_interference", "score_capacity"),
        "memories_writes:score_leak",
    ),
    # first-principles C3-C5 (drawn in attention_block.py)
    Figure(
        "first-principles/C3-one-head-read",
        "attention_block",
        ("toylang_block",),
        "attention_block:one_head_read",
    ),
    Figure(
        "first-principles/C3-scale-freeze",
        "attention_block",
        ("score_saturation",),
        "attention_block:scale_freeze",
    ),
    Figure(
        "first-principles/C4-heads-add",
        "attention_block",
        ("head_algebra",),
        "attention_block:heads_add",
    ),
    Figure(
        "first-principles/C4-block-diagram",
        "attention_block",
        ("toylang_block",),
        "attention_block:block_diagram",
    ),
    Figure(
        "first-principles/C4-block-steps",
        "attention_block",
        ("toylang_block",),
        "attention_block:block_steps",
    ),
    Figure("first-principles/C4-decoder", "attention_block", (), "attention_block:decoder"),
    Figure(
        "first-principles/C5-cache", "attention_block", ("layer_cost",), "attention_block:cache"
    ),
    Figure(
        "first-principles/C5-steps-pairs",
        "attention_block",
        ("layer_cost",),
        "attention_block:steps_pairs",
    ),
    # first-principles Part B and memory-math chapter 3 (drawn in memories_recurrence.py)
    Figure(
        "first-principles/B1-future-states",
        "memories_recurrence",
        ("future_states",),
        "memories_recurrence:future_states",
    ),
    Figure(
        "first-principles/B2-gradient-through-time",
        "memories_recurrence",
        ("gradient_through_time",),
        "memories_recurrence:gradient_through_time",
    ),
    Figure(
        "first-principles/B3-random-key-memory",
        "memories_recurrence",
        ("random_key_memory",),
        "memories_recurrence:random_key_memory",
    ),
    Figure(
        "first-principles/B4-keep-every-pair",
        "memories_recurrence",
        ("random_key_memory",),
        "memories_recurrence:keep_every_pair",
    ),
    Figure(
        "first-principles/B4-soft-lookback",
        "memories_recurrence",
        (),
        "memories_recurrence:soft_lookback",
    ),
    Figure(
        "memory-math/ch3-recall-bars",
        "memories_recurrence",
        ("random_key_memory",),
        "memories_recurrence:recall_bars",
    ),
    # memory-math chapters 6-8 (drawn in attention_dictionary.py)
    Figure(
        "memory-math/ch6-circle-lookup",
        "attention_dictionary",
        ("soft_dictionary_circle",),
        "attention_dictionary:circle_lookup",
    ),
    Figure(
        "memory-math/ch6-temperature",
        "attention_dictionary",
        ("soft_dictionary_circle",),
        "attention_dictionary:temperature",
    ),
    Figure(
        "memory-math/ch6-rank-lift",
        "attention_dictionary",
        ("attention_matrix_views",),
        "attention_dictionary:rank_lift",
    ),
    Figure(
        "memory-math/ch7-gradient-flow",
        "attention_dictionary",
        ("attention_gradients",),
        "attention_dictionary:gradient_flow",
    ),
    Figure(
        "memory-math/ch7-key-training",
        "attention_dictionary",
        ("attention_gradients",),
        "attention_dictionary:key_training",
    ),
    Figure(
        "memory-math/ch8-block-bus", "attention_dictionary", (), "attention_dictionary:block_bus"
    ),
    # first-principles D3-D4 and memory-math ch. 4, 9, 10: fast weights and write rules
    Figure("first-principles/D3-two-memories", "memories_fast", (), "memories_fast:two_memories"),
    Figure(
        "first-principles/D3-two-readers",
        "memories_fast",
        ("fast_weight_algebra",),
        "memories_fast:two_readers",
    ),
    Figure(
        "first-principles/D3-gap-accuracy",
        "memories_fast",
        ("toylang_readers",),
        "memories_fast:gap_accuracy",
    ),
    Figure(
        "first-principles/D4-forget-then-write",
        "memories_fast",
        ("fast_memory_exact",),
        "memories_fast:forget_then_write",
    ),
    Figure(
        "first-principles/D4-four-ways",
        "memories_fast",
        ("write_rule_streams", "fast_memory_exact"),
        "memories_fast:four_ways",
    ),
    Figure(
        "first-principles/D4-error-by-age",
        "memories_fast",
        ("write_rule_streams", "fast_memory_exact"),
        "memories_fast:error_by_age",
    ),
    Figure(
        "first-principles/D4-gated-write",
        "memories_fast",
        ("toylang_readers",),
        "memories_fast:gated_write",
    ),
    Figure(
        "memory-math/ch4-careful-write",
        "memories_fast",
        ("write_rule_streams", "fast_memory_exact"),
        "memories_fast:careful_write",
    ),
    Figure(
        "memory-math/ch9-cache-vs-state",
        "memories_fast",
        ("write_rule_streams",),
        "memories_fast:cache_vs_state",
    ),
    Figure(
        "memory-math/ch9-cache-vs-weights",
        "memories_fast",
        ("fast_memory_exact",),
        "memories_fast:cache_vs_weights",
    ),
    Figure(
        "memory-math/ch10-error-by-age",
        "memories_fast",
        ("write_rule_streams", "fast_memory_exact"),
        "memories_fast:age_sweep",
    ),
    # first-principles C1 and C2 (drawn in attention_pointer.py)
    Figure(
        "first-principles/C1-circle-lookup",
        "attention_pointer",
        ("circle_lookup",),
        "attention_pointer:circle_lookup",
    ),
    Figure(
        "first-principles/C1-attention-matrix",
        "attention_pointer",
        ("circle_lookup",),
        "attention_pointer:attention_matrix",
    ),
    Figure(
        "first-principles/C1-toylang-pointer",
        "attention_pointer",
        ("latent_pointer",),
        "attention_pointer:toylang_pointer",
    ),
    Figure(
        "first-principles/C1-pointer-vs-window",
        "attention_pointer",
        ("latent_pointer",),
        "attention_pointer:pointer_vs_window",
    ),
    Figure(
        "first-principles/C2-equivariance-strips",
        "attention_pointer",
        ("set_equivariance",),
        "attention_pointer:equivariance_strips",
    ),
    Figure(
        "first-principles/C2-mask-positions",
        "attention_pointer",
        ("set_equivariance",),
        "attention_pointer:mask_positions",
    ),
    # first-principles E2: the hand-built two-layer program (drawn in programs_machine.py)
    Figure(
        "first-principles/E2-program-steps",
        "programs_machine",
        ("toylang_program",),
        "programs_machine:program_steps",
    ),
    Figure(
        "first-principles/E2-registers",
        "programs_machine",
        ("toylang_program",),
        "programs_machine:registers",
    ),
    Figure(
        "first-principles/E2-attention-maps",
        "programs_machine",
        ("toylang_program",),
        "programs_machine:attention_maps",
    ),
    Figure(
        "first-principles/E2-ablations",
        "programs_machine",
        ("program_ablation",),
        "programs_machine:ablations",
    ),
    # memory-math chapters 12-13: the unified view (drawn in programs_unified.py)
    Figure(
        "memory-math/ch12-corner",
        "programs_unified",
        ("unified_view", "fast_weight_algebra"),
        "programs_unified:corner",
    ),
    Figure(
        "memory-math/ch13-seven-layers",
        "programs_unified",
        ("unified_view",),
        "programs_unified:seven_layers",
    ),
)


def groups() -> dict[str, list[Figure]]:
    """Figures by the rule group that draws them."""
    out: dict[str, list[Figure]] = {}
    for fig in FIGURES:
        out.setdefault(fig.group, []).append(fig)
    return out


def by_id() -> dict[str, Figure]:
    return {f.id: f for f in FIGURES}
