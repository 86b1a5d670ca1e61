"""attnmem: re-derive the checkable results of five notes on transformers as memories.

All computation lives here. ``experiments`` holds the science (pure numpy/scipy functions),
``grid`` and ``cube`` turn a config block into a netCDF cube, ``claims`` judges the registry
against the cubes, ``figures`` draws the notes' figures from the cubes.
"""

__version__ = "0.1.0"
