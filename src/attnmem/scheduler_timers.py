"""One re-evaluation timer at a time in Snakemake's job scheduler (a workaround, applied by
workflow/rules/common.smk).

Snakemake's scheduler loop (9.x, ``JobScheduler.schedule``) ends every pass by starting a
``threading.Timer`` that wakes the loop again after the rate limiter's window (1 s by default),
so that jobs the limiter held back get another chance. A pass woken by anything else (a job
that finished) starts one more timer, and each timer's pass starts the next: the chains add up.
Measured on the default rebuild without training (2 cores, 2026-12-02, two pairs of runs):
4,200-4,900 scheduler passes and 50-52 CPU-seconds in Snakemake's process (which also runs the
in-process experiments, whose threads share its interpreter) without this patch; 162-164
passes and 39 CPU-seconds with it, and the rebuild 13-15 s shorter. Being non-daemon threads,
the last timers also held the process open for up to a second after a build. (Upstream:
snakemake/snakemake#3744, the loop rerun before the window has passed.)

With this patch a pass asks for a timer only when none is pending, and the timer is a daemon:
the loop still wakes at least once per window while it is waiting, which is all the rate
limiter needs.

The method is private (and misspelled), so the patch is applied only to a Snakemake whose
scheduler still looks as it did when the patch was written (``mismatch``): the method takes
``(self, delay)`` and the scheduler's ``__init__`` creates the ``_open_jobs`` semaphore the
timer releases. Otherwise Snakemake is left as it is, with one warning saying why.
``ATTNMEM_NO_SCHEDULER_PATCH=1`` leaves it as it is without a word.
"""

from __future__ import annotations

import inspect
import os
import threading
import warnings

_METHOD = "_schedule_reevalutation"  # sic, Snakemake's spelling
OFF_SWITCH = "ATTNMEM_NO_SCHEDULER_PATCH"
_warned: set[str] = set()  # one warning per reason and process, however often it is asked


def reevaluate_once(scheduler, delay: float) -> None:
    """Wake ``scheduler``'s loop (release its ``_open_jobs``) after ``delay`` seconds, unless a
    wake-up is already pending: that one comes sooner."""
    if getattr(scheduler, "_attnmem_timer_pending", False):
        return

    def fire():
        scheduler._attnmem_timer_pending = False  # before the release: the pass it wakes may ask
        scheduler._open_jobs.release()

    scheduler._attnmem_timer_pending = True
    timer = threading.Timer(delay, fire)
    timer.daemon = True
    timer.start()


def mismatch(scheduler_class) -> str | None:
    """Why ``reevaluate_once`` cannot stand in for ``scheduler_class``'s re-evaluation timer,
    or None when it can: the method exists with parameters ``(self, delay)``, and ``__init__``
    creates ``self._open_jobs`` (read from its source: the class has no instance to ask)."""
    method = getattr(scheduler_class, _METHOD, None)
    if not callable(method):
        return f"JobScheduler.{_METHOD} no longer exists"
    names = list(inspect.signature(method).parameters)
    if names != ["self", "delay"]:
        return f"JobScheduler.{_METHOD} now takes ({', '.join(names)}), not (self, delay)"
    try:
        init = inspect.getsource(scheduler_class.__init__)
    except (OSError, TypeError):
        return "the source of JobScheduler.__init__ cannot be read"
    if "self._open_jobs = " not in init:
        return "JobScheduler.__init__ no longer creates self._open_jobs"
    return None


def coalesce_reevaluation_timers(scheduler_class=None) -> bool:
    """Install ``reevaluate_once`` as the re-evaluation timer of ``scheduler_class`` (default:
    Snakemake's ``JobScheduler``). False, changing nothing, when the off switch is set, when
    Snakemake has no such scheduler, or on a ``mismatch`` (then with one warning)."""
    if os.environ.get(OFF_SWITCH, "") not in ("", "0"):
        return False
    if scheduler_class is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler as scheduler_class
        except ImportError:
            return False
    if getattr(scheduler_class, _METHOD, None) is reevaluate_once:
        return True  # installed already (the Snakefile is read more than once)
    why = mismatch(scheduler_class)
    if why is not None:
        if why not in _warned:
            _warned.add(why)
            warnings.warn(
                f"attnmem.scheduler_timers: Snakemake left unpatched: {why}. Builds still "
                f"work, with Snakemake's own timers (slower); set {OFF_SWITCH}=1 to silence this.",
                stacklevel=2,
            )
        return False
    setattr(scheduler_class, _METHOD, reevaluate_once)
    return True
