"""The numbers a page embeds (attnmem.interactive.kit._table): one xarray selection over every
value of the page's handles must give, row for row, what selecting one combination of handle
values at a time gives (kit._table_by_point, the plain reading of a declaration), with NaN rows
where another declaration of the name holds. No browser or pipeline needed."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

pytest.importorskip("bokeh")

from attnmem.interactive.kit import Handle, Shown, _table, _table_by_point  # noqa: E402


def _cube() -> xr.Dataset:
    rng = np.random.default_rng(3)
    a, b, seed, t = [0.5, 0.9, 1.0], [1, 2, 4, 8], range(5), range(7)
    values = rng.standard_normal((len(a), len(b), len(seed), len(t)))
    coords = {"a": a, "b": b, "seed": list(seed), "t": list(t)}
    return xr.Dataset({"err": (("a", "b", "seed", "t"), values)}, coords=coords)


def _handle(name: str, values: list) -> Handle:
    return Handle(name, values, 0, name, [str(v) for v in values])


CASES = {
    # two handles on two dims, the seeds averaged, a column along t
    "column": (
        Shown("c", "x", "err", {"a": "$A", "b": "$B"}, {"mean": "seed"}, ("t",)),
        ["A", "B"],
    ),
    # handles in the other order than the cube's dims, a fixed selection besides
    "reordered": (
        Shown("r", "x", "err", {"b": "$B", "a": "$A", "t": 3}, {"max": "seed"}),
        ["B", "A"],
    ),
    # a handle that only says where the declaration holds, and a value of A the cube lacks
    # there (another declaration holds at A = 2.0)
    "when": (
        Shown(
            "w",
            "x",
            "err",
            {"a": "$A", "b": 4, "t": 0},
            {"mean": "seed"},
            when={"A": [0.5, 1.0], "B": [2, 8]},
        ),
        ["A", "B"],
    ),
}
HANDLES = {"A": [0.5, 0.9, 1.0], "B": [1, 2, 4, 8]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_selection_gives_each_combination(case):
    shown, names = CASES[case]
    values = dict(HANDLES)
    if case == "when":
        values["A"] = [0.5, 0.9, 1.0, 2.0]  # 2.0 is not in the cube: held by another declaration
    deps = [_handle(n, values[n]) for n in names]
    ds = _cube()
    got, size = _table(ds, shown, deps)
    want, want_size = _table_by_point(ds, shown, deps)
    assert size == want_size
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_a_value_missing_where_the_declaration_holds_is_an_error():
    shown = Shown("m", "x", "err", {"a": "$A", "b": 1, "t": 0}, {"mean": "seed"})
    deps = [_handle("A", [0.5, 0.75])]
    with pytest.raises(KeyError, match="not in cube"):
        _table(_cube(), shown, deps)
