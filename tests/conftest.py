"""Shared fixtures: the repository's paths, the registry, and one run of the workflow."""

from __future__ import annotations

import csv
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # tests run against this checkout, installed or not

from attnmem import claims  # noqa: E402

REGISTRY = ROOT / "config" / "claims"


def snakemake(*args: str, cwd: Path = ROOT, check: bool = True) -> subprocess.CompletedProcess:
    """Run Snakemake (the one on PATH beside this Python) and capture its output."""
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [
        str(exe) if exe.exists() else "snakemake",
        "--snakefile",
        str(ROOT / "workflow/Snakefile"),
        *args,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def entries() -> list[dict]:
    return claims.load_registry(REGISTRY)


BUILD_LOCK = ROOT / ".snakemake" / "attnmem" / "pytest-build.lock"


def build_pipeline(say) -> None:
    """Build the default config in this checkout (Snakemake reuses what is up to date), passing
    each of Snakemake's step counts to ``say`` as a line of text: the console (attnmem.console,
    the default profile's logger plugin) writes them as JSON events to a file read here. One
    build at a time: pytest's workers (and the controller that builds before them, see below)
    take a file lock."""
    import fcntl
    import json
    import tempfile
    import time

    from attnmem.console import EVENTS_FILE

    exe = Path(sys.executable).with_name("snakemake")
    cmd = [
        str(exe) if exe.exists() else "snakemake",
        "--snakefile",
        str(ROOT / "workflow/Snakefile"),
        "--cores",
        "2",
    ]
    BUILD_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILD_LOCK, "w") as lock, tempfile.TemporaryDirectory() as tmp:
        fcntl.flock(lock, fcntl.LOCK_EX)
        events, output = Path(tmp) / "events.jsonl", Path(tmp) / "output.txt"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), EVENTS_FILE: str(events)}
        start, seen = time.monotonic(), 0
        with open(output, "w") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
            while True:
                running = proc.poll() is None
                # whole lines only (the last may be half written)
                lines = events.read_text().split("\n")[:-1] if events.exists() else []
                for line in lines[seen:]:
                    event = json.loads(line)
                    if event["event"] == "progress":
                        done, total = event["done"], event["total"]
                        say(
                            f"[pipeline] {done}/{total} Snakemake steps "
                            f"({100 * done // total}%), {time.monotonic() - start:.0f} s"
                        )
                seen = len(lines)
                if not running:
                    break
                time.sleep(0.5)
        if proc.returncode != 0:
            tail = output.read_text(errors="replace").splitlines()[-80:]
            raise AssertionError("the pipeline build failed:\n" + "\n".join(tail))


@pytest.fixture(scope="session")
def pipeline(request) -> Path:
    """The default config, built once per session, with Snakemake's step counts on the
    terminal while it runs (a fresh clone's build takes minutes; a silent run looks hung).
    Under pytest-xdist the controller has built it before the workers start (see
    pytest_xdist_node_collection_finished); a worker's run then finds nothing to do."""
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def say(text: str) -> None:
        with capture.global_and_fixture_disabled():  # past pytest's capture
            sys.stdout.write("\n" + text)
            sys.stdout.flush()

    build_pipeline(say)
    return ROOT


# Which tests use the built pipeline (a fixture argument naming it): a cheap text scan of the
# test functions' signatures, so that the controller builds only when a selected test needs it.
_SIGNATURE = re.compile(r"def (test_\w+)\(([^)]*)\)")
_PIPELINE_FIXTURES = re.compile(r"\b(pipeline|claims_rows)\b")


def _wants_pipeline(rootpath: Path, ids) -> bool:
    tests: dict[str, set[str]] = {}
    for nodeid in ids:
        path, *_, name = nodeid.split("::")
        tests.setdefault(path, set()).add(name.split("[")[0])
    for path, names in tests.items():
        text = (rootpath / path).read_text(encoding="utf-8")
        for name, args in _SIGNATURE.findall(text):
            if name in names and _PIPELINE_FIXTURES.search(args):
                return True
    return False


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """pytest-xdist (the README's `pytest` runs two workers): build the pipeline here, in the
    controller, which owns the terminal, before any test is handed to a worker, so that the
    step counts show (a worker's output does not). A failed build is reported by the tests."""
    config = node.config
    if getattr(config, "_attnmem_built", False):
        return
    if not _wants_pipeline(config.rootpath, ids):
        return
    config._attnmem_built = True
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    try:
        build_pipeline(reporter.write_line)
    except AssertionError:
        reporter.write_line("[pipeline] the build failed; the tests that need it say why")


def _slow(item) -> bool:
    return bool(item.get_closest_marker("pipeline") or item.get_closest_marker("cluster"))


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, the slow tests (those that run Snakemake, marked ``pipeline`` or
    ``cluster``) go first in every worker's share, the cluster round trip (mostly waiting) at
    the very start: a worker that ends on a 10-second test while the other has finished holds
    the whole run. worksteal hands the workers consecutive shares of this list (the first
    len // workers items to the first, and so on), so the slow tests are dealt to the shares'
    starts in turn; stealing then balances the short tests at the end."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    slow = sorted(filter(_slow, items), key=lambda i: not i.get_closest_marker("cluster"))
    if workers < 2 or not slow:
        return
    rest = iter([i for i in items if not _slow(i)])
    ordered, left = [], len(items)
    for k in range(workers):
        share = left // (workers - k)
        dealt = slow[k::workers]
        ordered += dealt + list(itertools.islice(rest, max(share - len(dealt), 0)))
        left -= share
    ordered += list(rest)
    if sorted(map(id, ordered)) == sorted(map(id, items)):  # a permutation, or leave it
        items[:] = ordered


@pytest.fixture(scope="session")
def claims_rows(pipeline) -> dict[str, dict]:
    with open(pipeline / "results" / "claims.csv", encoding="utf-8") as fh:
        return {row["id"]: row for row in csv.DictReader(fh)}


def browser_probe(page: Path, tmp_path: Path, width: int = 1400) -> dict:
    """Open ``page`` in Debian's headless Chromium ``width`` px wide, let its scripts run, and
    return the JSON its probe script wrote into ``<pre id="probe">`` (Chromium dumps the DOM). Skips
    with a message when there is no Chromium, and fails in CI or with ATTNMEM_REQUIRE_BROWSER,
    where ``.ci/run`` installs it."""
    import html
    import json
    import re
    import shutil

    exe = next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )
    if exe is None:
        if os.environ.get("CI") or os.environ.get("ATTNMEM_REQUIRE_BROWSER"):
            pytest.fail("CI must install Debian's chromium (see .ci/run)")
        pytest.skip("no Chromium: `apt-get install chromium` enables the browser test")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    flags += [f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},900"]
    flags += ["--virtual-time-budget=20000", "--dump-dom"]
    proc = subprocess.run([exe, *flags, page.as_uri()], capture_output=True, text=True, timeout=120)
    found = re.search(r"<pre id=\"probe\">(.*?)</pre>", proc.stdout, re.S)
    assert found, f"the probe did not run:\n{proc.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


# ----------------------------------------------------------------------------- built copies

# What a copy of the built project holds: the workflow, config and science it builds with, its
# outputs and Snakemake's records of them (cp -a keeps the times, so the copy is up to date).
PROJECT_PARTS = ("workflow", "config", "src", "results", "figures", "logs", ".snakemake")


@pytest.fixture(scope="session")
def built_template(pipeline, tmp_path_factory) -> Path:
    """One copy of the built default project per session (per xdist worker), from which each
    test copies its own (``copy_built``): copying the checkout's build once keeps the tests
    off it while they edit, damage and kill."""
    template = tmp_path_factory.mktemp("built") / "project"
    template.mkdir()
    parts = [str(pipeline / p) for p in PROJECT_PARTS if (pipeline / p).exists()]
    subprocess.run(["cp", "-a", *parts, str(template)], check=True)
    for leftover in ("locks", "incomplete"):  # a worker's own run may be going on in the checkout
        for path in (template / ".snakemake" / leftover).glob("*"):
            path.unlink()
    return template


def copy_built(template: Path, dest: Path) -> Path:
    """A copy of the built project at ``dest`` (``cp -a``: same bytes, same times)."""
    subprocess.run(["cp", "-a", str(template), str(dest)], check=True)
    return dest


def project_env(project: Path) -> dict:
    """The environment that runs a project's own science (its src/ before the installed one)."""
    return {**os.environ, "PYTHONPATH": str(project / "src")}


def snakemake_in(project: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Snakemake run in a project folder as a user runs it there: its own workflow/Snakefile
    (found by Snakemake), its own default profile and science."""
    exe = Path(sys.executable).with_name("snakemake")
    cmd = [str(exe) if exe.exists() else "snakemake", *args]
    return subprocess.run(
        cmd, cwd=project, capture_output=True, text=True, env=project_env(project), timeout=timeout
    )


def tree_state(project: Path, parts=("results", "figures")) -> dict[str, tuple[int, int]]:
    """Every file under ``parts`` with its size and modification time: a write changes them."""
    state = {}
    for part in parts:
        for path in sorted((project / part).rglob("*")):
            if path.is_file():
                st = path.stat()
                state[str(path.relative_to(project))] = (st.st_size, st.st_mtime_ns)
    return state


def changed(before: dict, after: dict) -> list[str]:
    """The files added, removed or rewritten between two ``tree_state``s."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
