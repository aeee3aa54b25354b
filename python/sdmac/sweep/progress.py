"""Progress of a sweep on stderr: a bar on a terminal, a line at most every 2 s
otherwise; each failed run is reported as it comes, naming its grid point and seed."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .spec import point_label

PLAIN_EVERY_S = 2.0


class SweepProgress:
    """Counts finished runs; call it with each run's record."""

    def __init__(self, total: int, points: list[dict[str, Any]], label: str, quiet: bool, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.total = total
        self.points = points
        self.label = label
        self.mode = "off" if quiet else ("bar" if self.console.is_terminal else "plain")
        self.done = 0
        self.failed = 0
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._start = self._last = 0.0

    def __enter__(self) -> SweepProgress:
        self._start = self._last = time.monotonic()
        if self.mode == "bar":
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[failed]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(escape(self.label), total=self.total, failed="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __call__(self, record: dict[str, Any]) -> None:
        self.done += 1
        now = time.monotonic()
        if record["error"] is not None:
            self.failed += 1
            where = point_label(self.points[record["point"]])
            # Failures are shown even when quiet: they make the exit status non-zero.
            self.console.print(
                f"sdmac sweep: run failed at grid point {record['point']} ({escape(where)}), seed {record['seed']}: "
                f"{escape(str(record['error']))}",
                style="red" if self.console.is_terminal else None,
            )
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, failed=f"{self.failed} failed" if self.failed else "")
        elif self.mode == "plain" and (now - self._last >= PLAIN_EVERY_S or self.done == self.total):
            self._last = now
            failed = f", {self.failed} failed" if self.failed else ""
            self.console.print(f"sdmac sweep: {escape(self.label)}: {self.done}/{self.total} runs{failed} ({now - self._start:.0f} s)")
