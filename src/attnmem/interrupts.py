"""Ctrl-C stops the experiments that run in Snakemake's own threads (applied by
workflow/rules/common.smk).

On Ctrl-C (or SIGTERM) Snakemake's scheduler cancels its executor, and the local executor's
``cancel`` waits for its thread pool: a `run:` job in a thread (an experiment cheaper than a
process start, attnmem.costs.in_process) cannot be killed, so Snakemake went on until it ended,
deaf to more signals. This patch first asks such jobs to stop (attnmem.jobs.request_stop): each
stops at its next grid point and fails, so Snakemake keeps the old cube (an ``update`` output)
and removes its lock; then the incomplete markers of the interrupted experiment jobs, whose
cubes are written atomically, are removed (``clear_atomic_markers``). Script jobs are
processes of their own and receive the terminal's Ctrl-C themselves.

Both are internals of Snakemake, so they are checked when the patch is installed, not when
Ctrl-C comes: a ``cancel`` that takes anything but ``(self)`` leaves Snakemake unpatched, and
incomplete markers kept in neither known layout (``persistence_layout``) leave them alone;
either with one warning.
"""

from __future__ import annotations

import inspect
import warnings

_warned: set[str] = set()  # one warning per reason and process


def _warn_once(why: str) -> None:
    if why not in _warned:
        _warned.add(why)
        warnings.warn(f"attnmem.interrupts: {why}", stacklevel=3)


def _params(obj, name: str) -> list[str] | None:
    """The parameter names of ``obj.name`` but ``self`` (so a class and its instances give
    the same), or None when it is missing or not callable."""
    member = getattr(obj, name, None)
    if not callable(member):
        return None
    names = list(inspect.signature(member).parameters)
    return names[1:] if names[:1] == ["self"] else names


def persistence_layout(persistence) -> str | None:
    """How ``persistence`` (a Snakemake persistence class or object) keeps incomplete markers:
    "keyed" (9.16 on: ``_unmark_incomplete(key)`` of ``_get_key(file)``), "folders" (up to
    9.15: ``_delete_record(folder, file)``), or None for a layout this module does not know."""
    keyed = (_params(persistence, n) for n in ("_unmark_incomplete", "_get_key"))
    if all(names is not None and len(names) == 1 for names in keyed):
        return "keyed"
    if len(_params(persistence, "_delete_record") or ()) == 2:
        return "folders"
    return None


def _persistence_class():
    """Snakemake's persistence class (its name changed in 9.16), or None."""
    from snakemake import persistence

    return getattr(persistence, "PersistenceBase", None) or getattr(
        persistence, "Persistence", None
    )


def stop_threads_on_cancel(executor_class=None, persistence_class=None) -> bool:
    """Wrap the local executor's ``cancel`` (or ``executor_class``'s) so that it first stops
    the in-thread jobs; False when this Snakemake has no such executor or its ``cancel`` no
    longer takes ``(self)`` (then nothing is changed, with one warning). A persistence class
    of unknown layout only keeps the markers (one warning)."""
    try:
        from snakemake.executors.local import Executor
    except ImportError:
        return False
    executor_class = executor_class or Executor
    cancel = getattr(executor_class, "cancel", None)
    if getattr(cancel, "_attnmem", False):
        return True
    if _params(executor_class, "cancel") != []:
        _warn_once(
            "Snakemake left unpatched: its local executor's cancel now takes "
            f"{_params(executor_class, 'cancel')} besides self; Ctrl-C waits for the "
            "experiments running in Snakemake's threads to end"
        )
        return False
    if persistence_layout(persistence_class or _persistence_class()) is None:
        _warn_once(
            "this Snakemake's incomplete markers are not known; an interrupted cube is "
            "recomputed by the next run"
        )

    def cancel_stopping_threads(self, *args, **kwargs):
        from .jobs import request_stop

        request_stop()
        try:
            return cancel(self, *args, **kwargs)
        finally:
            clear_atomic_markers(self)

    cancel_stopping_threads._attnmem = True
    executor_class.cancel = cancel_stopping_threads
    return True


def clear_atomic_markers(executor) -> int:
    """Remove the incomplete markers of the interrupted jobs whose outputs are all ``update``
    outputs (the cubes: written to a temporary file and renamed, so an interrupted job leaves
    the old cube whole, and a marker would only make the next run redo it). Other jobs keep
    theirs (a figure job stopped halfway may have left a partial PNG: the next run redraws
    it). Returns how many markers were removed; nothing is done with --keep-incomplete."""
    from snakemake.io import is_flagged

    workflow = getattr(executor, "workflow", None)
    persistence = getattr(workflow, "persistence", None)
    scheduler = getattr(workflow, "_scheduler", None) or getattr(workflow, "scheduler", None)
    unmark = _unmarker(persistence)
    if getattr(executor, "keepincomplete", False) or unmark is None:
        return 0
    removed = 0
    for job in list(getattr(scheduler, "running", ()) or ()):
        outputs = list(getattr(job, "output", ()))
        if outputs and all(is_flagged(f, "update") for f in outputs):
            removed += sum(bool(unmark(f)) for f in outputs)
    return removed


def _unmarker(persistence):
    """A function removing one output's incomplete marker through ``persistence``, in its
    ``persistence_layout``, or None (the markers then stay and the next run redoes the cubes;
    the warning was given when the patch was installed)."""
    layout = None if persistence is None else persistence_layout(persistence)
    if layout == "keyed":
        unmark, key = persistence._unmark_incomplete, persistence._get_key
        return lambda f: unmark(key(f)) is None  # it returns nothing: count the call
    folder = getattr(persistence, "_incomplete_path", None)
    if layout == "folders" and folder is not None:
        return lambda f: persistence._delete_record(folder, f)
    return None
