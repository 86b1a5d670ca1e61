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
limiter needs. A Snakemake without the method is left as it is.
"""

from __future__ import annotations

import threading

_METHOD = "_schedule_reevalutation"  # sic, Snakemake's spelling


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


def coalesce_reevaluation_timers() -> bool:
    """Install ``reevaluate_once`` as Snakemake's re-evaluation timer; False when this
    Snakemake has no such method (then nothing is changed)."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    if not callable(getattr(JobScheduler, _METHOD, None)):
        return False
    setattr(JobScheduler, _METHOD, reevaluate_once)
    return True
