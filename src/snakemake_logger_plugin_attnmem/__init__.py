"""attnmem's console as a Snakemake logger plugin (``--logger attnmem``; the default profile sets
it). Snakemake finds logger plugins as top-level packages named ``snakemake_logger_plugin_*``
(snakemake-interface-logger-plugins); the console itself is attnmem.console.

A dry run and ``--verbose`` print Snakemake's own text (Snakemake's filter and formatter), so
that a plan or a debugging session reads as Snakemake documents it."""

from __future__ import annotations

import sys
import threading

from snakemake_interface_logger_plugins.base import LogHandlerBase

__all__ = ["LogHandler"]


class LogHandler(LogHandlerBase):
    """Snakemake's records to attnmem's console (or to Snakemake's own text, see above)."""

    def __post_init__(self) -> None:
        settings = self.common_settings
        self.plain = bool(settings.dryrun or settings.verbose)
        self.console = None
        if self.plain:
            return
        from attnmem.console import Console, quiet_jobs

        quiet = {str(q) for q in (settings.quiet or ())}
        self.console = Console(quiet="all" in quiet)
        quiet_jobs()
        self._stop = threading.Event()
        # redraws the progress line (a job's grid points move between Snakemake's records)
        threading.Thread(target=self._ticker, daemon=True, name="attnmem-console").start()

    def _ticker(self) -> None:
        from attnmem.console import TICK

        while not self._stop.wait(TICK):
            self.console.tick()

    def emit(self, record) -> None:
        try:
            if self.console is None:
                stream = sys.stdout if self.common_settings.stdout else sys.stderr
                stream.write(self.format(record) + "\n")
                stream.flush()
            else:
                self.console.handle(record)
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        if self.console is not None:
            self._stop.set()
            self.console.close()
        super().close()

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return not self.plain  # Snakemake's own filter for its own text

    @property
    def has_formatter(self) -> bool:
        return not self.plain

    @property
    def needs_rulegraph(self) -> bool:
        return False
