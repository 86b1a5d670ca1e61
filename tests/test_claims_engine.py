"""The judge: printed tolerances, relations, replicate statistics, and that a check can fail."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from attnmem.claims import expand_entry, judge, parse_printed


@pytest.mark.parametrize(
    "text, number, half",
    [
        ("10.50", 10.5, 0.005),
        ("36,288", 36288, 0.5),
        ("40.0%", 0.4, 0.0005),
        ("2.4e11", 2.4e11, 0.05e11),
        ("-0.3", -0.3, 0.05),
        (7, 7, 0.5),
        (True, 1.0, 0.0),
    ],
)
def test_parse_printed(text, number, half):
    p = parse_printed(text)
    assert p.number == pytest.approx(number)
    assert p.half_unit == pytest.approx(half)


def test_labels_are_not_numbers():
    assert parse_printed("cat").label == "cat"


def cube():
    rng = np.random.default_rng(0)
    return {
        "c": xr.Dataset(
            {
                "x": ("k", np.array([1.004, 2.0, 3.5])),
                "mc": (("d", "seed"), 0.5 + 0.01 * rng.standard_normal((2, 400))),
            },
            coords={"k": ["a", "b", "c"], "d": [4, 16], "seed": np.arange(400)},
        )
    }


def entry(value, check, **extra):
    """An entry as a registry file writes it, expanded as the loader does."""
    return expand_entry(
        {
            "id": "every-word/x/y",
            "line": 1,
            "tag": "derived",
            "claim": "a test entry",
            "stated": {"value": value},
            "check": check,
            **extra,
        }
    )


def test_printed_tolerance_accepts_rounding_and_rejects_more():
    assert (
        judge(entry("1.00", {"cube": "c", "var": "x", "sel": {"k": "a"}}), cube()).verdict
        == "reproduced"
    )
    assert (
        judge(entry("1.000", {"cube": "c", "var": "x", "sel": {"k": "a"}}), cube()).verdict
        == "discrepant"
    )


def test_list_relation_interval_and_argmax():
    c = cube()
    assert judge(entry(["1.0", "2.0", "3.5"], {"cube": "c", "var": "x"}), c).verdict == "reproduced"
    assert judge(entry(["1.0", "2.0", "3.4"], {"cube": "c", "var": "x"}), c).verdict == "discrepant"
    gt = entry("3", {"cube": "c", "var": "x", "sel": {"k": "c"}})
    gt["stated"]["relation"] = ">"
    assert judge(gt, c).verdict == "reproduced"
    inside = entry(["1", "3"], {"cube": "c", "var": "x", "sel": {"k": "b"}})
    inside["stated"]["relation"] = "in"
    assert judge(inside, c).verdict == "reproduced"
    assert judge(entry("c", {"cube": "c", "var": "x", "argmax": "k"}), c).verdict == "reproduced"
    assert judge(entry("a", {"cube": "c", "var": "x", "argmax": "k"}), c).verdict == "discrepant"


def test_replicate_tolerance_uses_the_spread_of_one_replicate():
    c = cube()
    check = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    near = judge(entry("0.51", check, tolerance={"se": 4}), c)  # one sd off
    far = judge(entry("0.56", check, tolerance={"se": 4}), c)  # six sd off
    assert near.verdict == "reproduced" and "z=" in near.difference
    assert far.verdict == "discrepant"


def test_a_broken_check_is_an_error_not_a_verdict():
    row = judge(entry("1", {"cube": "c", "var": "nope"}), cube())
    assert row.verdict == "error" and "nope" in row.error


def test_mean_tolerance_for_an_exact_stated_value():
    c = cube()
    check = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    # our mean is 0.5 +- 0.0005; printed "0.50" allows 0.005 of rounding on top
    assert judge(entry("0.50", check, tolerance={"se_mean": 4}), c).verdict == "reproduced"
    # "0.510" is 0.01 off: far beyond 0.0005 + 4 * 0.0005 although within one replicate's sd
    assert judge(entry("0.510", check, tolerance={"se_mean": 4}), c).verdict == "discrepant"
    assert judge(entry("0.510", check, tolerance={"se": 4}), c).verdict == "reproduced"


def test_identity_tolerance_has_no_printed_rounding():
    from attnmem.claims import Reading, _bands, parse_printed, student_k

    stated = [parse_printed("0.5")]  # printed rounding: half a unit of 0.1
    reading = Reading([0.52], [0.01], 400)  # standard error of our mean: 0.0005
    (w_mean,), _ = _bands({"se_mean": 4}, stated, reading)
    (w_identity,), text = _bands({"se_identity": 4}, stated, reading)
    band = student_k(4, 400) * 0.0005  # 4 standard errors, Student-t at 399 degrees of freedom
    assert w_mean.width == pytest.approx(0.05 + band)
    assert w_identity.width == pytest.approx(band)
    assert "printed" not in text
    c = cube()
    check = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    assert judge(entry("0.5", check, tolerance={"se_identity": 4}), c).verdict == "reproduced"
    assert judge(entry("0.504", check, tolerance={"se_identity": 4}), c).verdict == "discrepant"


def test_student_band_widens_for_few_replicates():
    from attnmem.claims import student_k

    assert student_k(4, 10_000) == pytest.approx(4, abs=0.01)
    assert 6.5 < student_k(4, 10) < 7.5  # the SE itself is uncertain with 10 replicates
    with pytest.raises(ValueError):
        student_k(4, 1)


def test_registry_loads_a_single_file(tmp_path):
    from attnmem.claims import load_registry

    f = tmp_path / "x.yaml"
    f.write_text("- {id: a/b/c, line: 2}\n")
    assert [(e["id"], e["where"]) for e in load_registry(f)] == [
        ("a/b/c", {"doc": "a", "section": "b", "line": 2})
    ]


def test_a_var_list_joins_its_readings_in_order():
    c = cube()
    check = {"cube": "c", "var": ["x", "x"], "sel": {"k": ["a", "b"]}}
    row = judge(entry(["1.00", "2.0", "1.00", "2.0"], check), c)
    assert row.verdict == "reproduced" and row.computed == "1.004;2;1.004;2"


def test_a_pass_under_an_unstated_reading_is_conditional():
    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    plain = entry("1.00", check, evidence="recomputed")
    assert judge(plain, c).verdict == "reproduced"
    chosen = entry("1.00", check, evidence="recomputed", conditional_on="we picked key a")
    assert judge(chosen, c).verdict == "conditional"
    assert "[not stated in the note] we picked key a" in judge(chosen, c).as_dict()["reading"]
    assert judge(entry("1.00", check, evidence="fitted"), c).verdict == "conditional"
    assert judge(entry("9.00", check, evidence="fitted"), c).verdict == "discrepant"


def test_the_literal_reading_decides():
    """A statement that can be computed as written and fails is discrepant, whatever the
    reinterpretation gives; the table shows the literal comparison, the why what holds."""
    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    literal = {"check": {"cube": "c", "var": "x", "sel": {"k": "b"}}}
    row = judge(
        entry("1.00", check, evidence="recomputed", conditional_on="key a", literal=literal), c
    )
    assert row.verdict == "discrepant"  # the old rule made this pass conditional
    assert row.computed == "2" and row.stated == "1.00"
    why = row.as_dict()["why"]
    assert "it fails: 2 against 1.00" in why and "1.004 against 1.00" in why
    same = {"check": check}
    assert judge(entry("1.00", check, literal=same), c).verdict == "reproduced"
    chosen = entry("1.00", check, conditional_on="key a", literal=same)
    assert judge(chosen, c).verdict == "conditional"


def test_a_failed_bound_never_prints_differs_by_zero():
    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "b"}}  # 2
    literal = {"check": check, "stated": {"value": "2", "relation": "<"}}
    row = judge(entry("2", check, literal=literal), c)
    assert row.verdict == "discrepant"
    assert row.difference == "0 (not <)"
    assert "differs by 0" not in row.as_dict()["why"]


def test_a_trained_row_is_conditional_on_its_scale_and_never_refutes():
    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    assert judge(entry("1.00", check, evidence="trained"), c).verdict == "conditional"
    assert judge(entry("9.00", check, evidence="trained"), c).verdict == "unresolved"
    assert judge(entry("9.00", check, evidence="recomputed"), c).verdict == "discrepant"


def test_a_band_wider_than_the_statement_allows_is_unresolved():
    """Power: mc has sd 0.01; over 10 replicates 4 Student-t SE of the mean is about 0.02,
    wider than the 0.005 a printed 0.50 allows, so the test could not have failed at that
    precision; over 400 replicates (band 0.002) it can, and the row is reproduced."""
    c = cube()
    few = {"cube": "c", "var": "mc", "sel": {"d": 4, "seed": list(range(10))}, "over": "seed"}
    row = judge(entry("0.50", few, tolerance={"se_mean": 4}), c)
    assert row.verdict == "unresolved"
    assert "would decide" in row.as_dict()["why"]
    assert "[power]" in row.as_dict()["reading"]
    many = {**few, "sel": {"d": 4}}
    assert judge(entry("0.50", many, tolerance={"se_mean": 4}), c).verdict == "reproduced"
    # approx: a band that straddles the edge of the 10% rule is unresolved, not a pass
    mean = float(c["c"].mc.sel(d=4).mean())
    edge = entry(f"{mean / 1.1:.6f}", many, tolerance="approx")
    assert judge(edge, c).verdict == "unresolved"


def test_a_single_draw_near_the_edge_of_its_range_is_unresolved():
    c = cube()
    mc = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    x = np.sort(c["c"].mc.sel(d=4).values)
    at_edge = entry(f"{x[10]:.6f}", mc, tolerance={"quantile": 0.05})  # quantile 0.026
    assert judge(at_edge, c).verdict == "unresolved"
    far = entry(f"{x[0] - 0.01:.6f}", mc, tolerance={"quantile": 0.05})
    assert judge(far, c).verdict == "discrepant"
    # 20 replicates at level 0.1 cannot show even a draw below all of them outside: no power
    few = {**mc, "sel": {"d": 4, "seed": list(range(20))}}
    row = judge(entry("0.5", few, tolerance={"quantile": 0.1}), c)
    assert row.verdict == "unresolved" and "could not have failed" in row.as_dict()["why"]


def test_approximate_words_get_one_relative_rule():
    from attnmem.claims import APPROX_REL

    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "c"}}  # 3.5
    assert judge(entry("3.2", check, tolerance="approx"), c).verdict == "reproduced"
    assert judge(entry("3", check, tolerance="approx"), c).verdict == "discrepant"
    assert APPROX_REL == 0.10
    mc = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    assert judge(entry("0.46", mc, tolerance="approx"), c).verdict == "reproduced"
    assert judge(entry("0.44", mc, tolerance="approx"), c).verdict == "discrepant"


def test_a_single_draw_is_judged_by_its_quantile():
    c = cube()
    mc = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    inside = judge(entry("0.505", mc, tolerance={"quantile": 0.05}), c)
    assert inside.verdict == "reproduced" and "quantile" in inside.difference
    assert judge(entry("0.53", mc, tolerance={"quantile": 0.05}), c).verdict == "discrepant"
    few = {**mc, "sel": {"d": 4, "seed": list(range(10))}}
    assert judge(entry("0.5", few, tolerance={"quantile": 0.05}), c).verdict == "error"


def test_a_transform_perturbs_what_is_read():
    from attnmem.mutation import mutate_for

    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    e = entry("1.00", check)
    assert judge(e, c).verdict == "reproduced"
    assert judge(e, c, mutate_for(e)).verdict == "discrepant"
    bound = entry("0.5", check, stated={"value": "0.5", "relation": ">"})
    assert judge(bound, c, mutate_for(bound)).verdict == "discrepant"


def test_a_strict_bound_on_a_mean_must_clear_its_statistical_band():
    """mc's mean is 0.5 with a standard error of about 0.0005 (400 replicates): a bound 5 SE
    under it is cleared, one 1 SE under it sits inside the 4-SE band and is not shown."""
    c = cube()
    check = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}
    mean = float(c["c"].mc.sel(d=4).mean())
    se = float(c["c"].mc.sel(d=4).std(ddof=1)) / 20
    clear = entry(f"{mean - 5 * se:.6f}", check, tolerance={"se_mean": 4})
    clear["stated"]["relation"] = ">"
    close = entry(f"{mean - se:.6f}", check, tolerance={"se_mean": 4})
    close["stated"]["relation"] = ">"
    assert judge(clear, c).verdict == "reproduced"
    row = judge(close, c)
    assert row.verdict == "unresolved" and row.why().startswith("Unresolved")
    below = entry(f"{mean + se:.6f}", check, tolerance={"se_mean": 4})
    below["stated"]["relation"] = "<"
    assert judge(below, c).verdict == "unresolved"  # on the wrong side, within the band
    beyond = entry(f"{mean - 5 * se:.6f}", check, tolerance={"se_mean": 4})
    beyond["stated"]["relation"] = "<"
    assert judge(beyond, c).verdict == "discrepant"  # the whole band on the wrong side
    # a non-strict bound: the mean on its side holds (an equality satisfies it); just beyond
    # it, inside the band, is undecided
    reach = entry(f"{mean - se:.6f}", check, tolerance={"se_mean": 4})
    reach["stated"]["relation"] = ">="
    assert judge(reach, c).verdict == "reproduced"
    short = entry(f"{mean + se:.6f}", check, tolerance={"se_mean": 4})
    short["stated"]["relation"] = ">="
    assert judge(short, c).verdict == "unresolved"


def test_an_extreme_over_replicates_holds_a_bound_in_every_replicate():
    c = cube()
    x = c["c"].mc.sel(d=4)
    low, high = float(x.min()), float(x.max())
    every = entry(f"{low - 1e-3:.6f}", {"cube": "c", "var": "mc", "sel": {"d": 4}, "min": "seed"})
    every["stated"]["relation"] = ">"
    assert judge(every, c).verdict == "reproduced"
    one_short = entry(
        f"{low + 1e-3:.6f}", {"cube": "c", "var": "mc", "sel": {"d": 4}, "min": "seed"}
    )
    one_short["stated"]["relation"] = ">"  # every replicate but the lowest few clears it
    assert judge(one_short, c).verdict == "discrepant"
    under = entry(f"{high + 1e-3:.6f}", {"cube": "c", "var": "mc", "sel": {"d": 4}, "max": "seed"})
    under["stated"]["relation"] = "<"
    assert judge(under, c).verdict == "reproduced"


def test_errata_group_discrepant_rows_by_note_and_section_and_escape_text():
    from attnmem import tables

    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    wrong = entry("9.00", check, evidence="recomputed", why="What holds is 1.004 <b>.")
    right = entry("1.00", check, evidence="recomputed")
    right["id"] = "every-word/x/z"
    rows = [judge(wrong, c), judge(right, c)]
    text = tables.render_errata(rows)
    assert "## every-word, section x" in text
    assert "every-word/x/y (line 1)" in text and "every-word/x/z" not in text
    assert "&lt;b&gt;" in text and "<b>" not in text
    page = tables.render_html(rows)
    assert "<a href='#every-word/x/y'>" in page and "id='unresolved-list'" in page


def test_a_failing_check_under_an_open_reading_is_unresolved_not_discrepant():
    """The note leaves an input open and our chosen input fails: that refutes our reading,
    not the statement as written. A literal reading that fails still decides."""
    c = cube()
    check = {"cube": "c", "var": "x", "sel": {"k": "a"}}
    open_input = entry("9.00", check, evidence="recomputed", conditional_on="we picked key a")
    assert judge(open_input, c).verdict == "unresolved"
    literal = {"check": check}
    written = entry("9.00", check, evidence="recomputed", conditional_on="key a", literal=literal)
    assert judge(written, c).verdict == "discrepant"


def test_a_printed_draw_is_judged_over_the_values_its_digits_round_from():
    """A draw printed as 0.52 is any value in [0.515, 0.525]: it holds when that interval
    reaches into our distribution's central range, fails when it lies wholly beyond it, and
    is undecided near the edge (the quantiles' binomial bands over 400 replicates)."""
    c = cube()
    mc = {"cube": "c", "var": "mc", "sel": {"d": 4}, "over": "seed"}  # 0.5 +- 0.01
    row = judge(entry("0.52", mc, tolerance={"quantile": 0.05}), c)
    assert row.verdict == "reproduced" and row.difference == "quantile 0.943-0.993"
    # the same value printed to three digits lies in the upper tail: undecided, then beyond
    assert judge(entry("0.520", mc, tolerance={"quantile": 0.05}), c).verdict == "unresolved"
    assert judge(entry("0.522", mc, tolerance={"quantile": 0.05}), c).verdict == "discrepant"
