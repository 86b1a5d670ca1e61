"""The colour code of the figures, checked against the roles first-principles assigns (lines
25-26): each role colour of ``attnmem.figures.style`` is classified into the nearest colour
family by hue, so a claim can read which family a role is drawn in.
"""

from __future__ import annotations

import colorsys

import numpy as np

from ..spec import Experiment, Output

ROLES = ("observed", "query", "stored", "result", "limit")
STYLE_NAMES = {
    "observed": "OBSERVED",
    "query": "QUERY",
    "stored": "STORED",
    "result": "RESULT",
    "limit": "LIMIT",
}
# Reference hues in degrees: the centre of each family on the colour wheel.
FAMILIES = {"red": 0.0, "copper": 25.0, "green": 140.0, "blue": 215.0, "violet": 270.0}


def hue_degrees(hex_colour: str) -> float:
    """Hue of a '#rrggbb' colour, in degrees."""
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    return 360.0 * colorsys.rgb_to_hsv(*rgb)[0]


def family_of(hue: float) -> np.ndarray:
    """One-hot of the family whose reference hue is nearest on the circle."""
    centres = np.array(list(FAMILIES.values()))
    distance = np.abs((hue - centres + 180.0) % 360.0 - 180.0)
    return (np.arange(len(centres)) == np.argmin(distance)).astype(float)


def colour_code() -> dict:
    """Hue of each role colour of the figure style and its nearest colour family."""
    from ..figures import style  # the constants the figures really use

    hues = np.array([hue_degrees(getattr(style, STYLE_NAMES[r])) for r in ROLES])
    return {"hue": hues, "in_family": np.stack([family_of(h) for h in hues])}


EXPERIMENTS = [
    Experiment(
        name="colour_code",
        func=colour_code,
        grid=(),
        outputs=(
            Output("hue", "hue of the role's colour in the figure style", "degrees", ("role",)),
            Output(
                "in_family",
                "1 for the colour family nearest the role's hue",
                "1",
                ("role", "family"),
            ),
        ),
        coords={"role": ROLES, "family": tuple(FAMILIES)},
        sections=("first-principles: How to read the notes, the colour code (lines 25-26)",),
    ),
]
