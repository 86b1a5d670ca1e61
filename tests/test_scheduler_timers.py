"""The workaround for Snakemake's multiplying re-evaluation timers (attnmem.scheduler_timers):
many requests while one timer is pending wake the scheduler once, and the next request after
that wake-up is honoured again, so the loop never loses its periodic wake-up; the patch goes
only onto a scheduler that still looks as it was written for (else one warning), can be
switched off, and wakes Snakemake's real scheduler in a real build."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest
from snakemake.scheduling.job_scheduler import JobScheduler

from attnmem import scheduler_timers
from attnmem.scheduler_timers import coalesce_reevaluation_timers, mismatch, reevaluate_once


def test_requests_while_a_timer_is_pending_wake_the_loop_once():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    for _ in range(20):  # a pass per finished job, as in a build
        reevaluate_once(scheduler, 0.02)
    assert scheduler._open_jobs.acquire(timeout=5)
    assert not scheduler._open_jobs.acquire(timeout=0.3), "more than one wake-up"
    reevaluate_once(scheduler, 0.02)  # the pass that woke asks again: it must be heard
    assert scheduler._open_jobs.acquire(timeout=5), "the wake-up chain broke"


def test_the_installed_snakemake_scheduler_is_the_one_the_patch_was_written_for():
    assert mismatch(JobScheduler) is None


class _NewSignature(JobScheduler):
    def _schedule_reevalutation(self, delay, reason=None):  # a Snakemake that changed it
        pass


class _NoOpenJobs(JobScheduler):
    def __init__(self, workflow):  # a Snakemake that wakes its loop by other means
        self.workflow = workflow


def _install_on(cls, monkeypatch):
    """What installing on ``cls`` does: (installed?, warning messages), warnings reset."""
    monkeypatch.setattr(scheduler_timers, "_warned", set())
    original = cls.__dict__.get("_schedule_reevalutation")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        installed = [coalesce_reevaluation_timers(cls) for _ in range(3)]  # read 3 times
    if installed[0]:
        monkeypatch.setattr(cls, "_schedule_reevalutation", original, raising=False)
    return installed[0], [str(w.message) for w in caught]


@pytest.mark.parametrize(
    ("cls", "reason"),
    [(_NewSignature, "now takes (self, delay, reason)"), (_NoOpenJobs, "_open_jobs")],
)
def test_a_changed_scheduler_is_left_unpatched_with_one_warning(cls, reason, monkeypatch):
    monkeypatch.delenv(scheduler_timers.OFF_SWITCH, raising=False)
    installed, messages = _install_on(cls, monkeypatch)
    assert not installed
    assert cls._schedule_reevalutation is not reevaluate_once
    assert len(messages) == 1 and reason in messages[0], messages


def test_the_off_switch_leaves_snakemake_unpatched_silently(monkeypatch):
    class Untouched(JobScheduler):
        _schedule_reevalutation = JobScheduler.__dict__["_schedule_reevalutation"]

    monkeypatch.setenv(scheduler_timers.OFF_SWITCH, "1")
    assert _install_on(Untouched, monkeypatch) == (False, [])
    assert Untouched._schedule_reevalutation is not reevaluate_once
    monkeypatch.delenv(scheduler_timers.OFF_SWITCH)
    assert _install_on(Untouched, monkeypatch) == (True, [])


SNAKEFILE = """
import json, threading
from snakemake.scheduling.job_scheduler import JobScheduler
from attnmem.scheduler_timers import coalesce_reevaluation_timers, reevaluate_once

INSTALLED = coalesce_reevaluation_timers()
CALLS = []
_patched = JobScheduler._schedule_reevalutation

def spy(self, delay):
    CALLS.append([type(self).__name__, type(self._open_jobs).__name__, delay])
    return _patched(self, delay)

JobScheduler._schedule_reevalutation = spy

rule all:
    input: expand("out/{i}.txt", i=range(4))
    run:
        record = {"installed": INSTALLED, "patched_is_ours": _patched is reevaluate_once,
                  "calls": CALLS}
        open("record.json", "w").write(json.dumps(record))

rule one:
    output: "out/{i}.txt"
    shell: "touch {output}"
"""


def test_the_patch_wakes_snakemakes_real_scheduler_in_a_build(tmp_path, monkeypatch):
    """Four instant jobs under a limit of one job a second: after each job the loop waits with
    nothing running, and only the re-evaluation timer (ours, on the real JobScheduler and its
    semaphore) can wake it, so the build ends only if the patch works."""
    monkeypatch.delenv(scheduler_timers.OFF_SWITCH, raising=False)
    (tmp_path / "Snakefile").write_text(textwrap.dedent(SNAKEFILE))
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe), "--cores", "1", "--max-jobs-per-timespan", "1/1s", "--quiet", "all"]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["installed"] and record["patched_is_ours"]
    assert record["calls"], "the scheduler never asked for a re-evaluation"
    assert {tuple(c) for c in record["calls"]} == {("JobScheduler", "Semaphore", 1)}
