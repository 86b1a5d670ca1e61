"""Figures of the notes, re-drawn from the cubes (see ``catalog`` for the list)."""
