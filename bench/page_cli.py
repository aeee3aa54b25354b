"""The command line shared by the scripts that generate a docs page from result files
(bench/render_benchmarks.py, bench/render_fuzz.py): write the page, print it, or check
that the committed page is what the script writes."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def page_main(argv: list[str] | None, description: str, render: Callable[[], str],
              page: Path, root: Path, command: str) -> int:
    """Runs the generator's command line: `--stdout` prints the page, `--check` exits 1
    (naming `command`) when `page` differs from what `render` returns, otherwise the
    page is written."""
    ap = argparse.ArgumentParser(description=description)
    g = ap.add_mutually_exclusive_group()
    name = page.relative_to(root).as_posix()
    g.add_argument("--check", action="store_true", help=f"exit 1 if {name} is stale")
    g.add_argument("--stdout", action="store_true", help="print the page instead of writing it")
    a = ap.parse_args(argv)
    text = render()
    if a.stdout:
        sys.stdout.write(text)
        return 0
    if a.check:
        current = page.read_text(encoding="utf-8") if page.exists() else ""
        if current != text:
            print(f"{name} is stale: run `{command}`", file=sys.stderr)
            return 1
        return 0
    page.write_text(text, encoding="utf-8")
    print(f"wrote {name}")
    return 0
