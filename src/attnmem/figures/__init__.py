"""Figures of the notes, re-drawn from the cubes: one module per topic, named after the science
module it mainly draws (``experiments/<topic>.py``), one ``@figure`` function per figure, its
docstring the caption (see ``attnmem.views``)."""
