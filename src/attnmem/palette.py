"""The colour code and the type sizes of every view, static or interactive (DESIGN.md, Figures).

One colour per role, as in the notes: blue for what is observed (tokens, keys), copper for the
query or a hidden quantity, violet for what is stored and returned (values, derived laws), green
for a result, red for a limit or a cost, grey for context. The colours keep those meanings but
are chosen so that every pair stays apart for readers with red-green colour blindness: under
simulated protanopia and deuteranopia the pairs differ mainly in lightness (dark violet against
light blue, dark red against lighter green and copper); tests/test_figure_layout.py checks the
distances.

This module imports no plotting library: the matplotlib side (`attnmem.figures.style`), the
Bokeh pages (`attnmem.interactive.kit`) and the HTML shell (`attnmem.shell`) read it alike.
"""

from __future__ import annotations

OBSERVED = "#1f8fd0"  # blue: tokens, keys, what is observed
QUERY = "#e07a1f"  # copper: the query, a hidden quantity, the true process
STORED = "#5b2bb5"  # violet: values, what is stored and returned, derived laws
RESULT = "#3f9a5a"  # green: a result, a new state
LIMIT = "#b0170f"  # red: a limit or a cost
GREY = "#636363"  # context, other settings
INK = "#000000"  # text, and a line that plays none of the roles (a least-squares fit)

CYCLE = (STORED, OBSERVED, QUERY, RESULT, LIMIT, GREY)

# The colour code as the gallery's legend shows it: colour, its name, what it marks.
LEGEND = (
    (OBSERVED, "blue", "what is observed: tokens, keys"),
    (QUERY, "copper", "the query, a hidden quantity, the true process"),
    (STORED, "violet", "what is stored and returned: values, derived laws"),
    (RESULT, "green", "a result, a new state"),
    (LIMIT, "red", "a limit or a cost"),
    (GREY, "grey", "context, other settings"),
)

# Three type sizes, in points: notes, legends and dense labels; tick and axis labels; titles.
SMALL, NORMAL, LARGE = 8, 10, 11
SIZES = (SMALL, NORMAL, LARGE)

# A sign in a matrix (negative, zero, positive): brown and teal of ColorBrewer's BrBG, apart
# for every reader and light enough to read black digits on.
SIGN = ("#bf812d", "#ffffff", "#35978f")
