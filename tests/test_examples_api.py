"""Runs every example of the Python API (examples/api/*.py, found by glob, so a new
example is run too) with this interpreter: each must exit 0 within its time limit
and print the text its docstring announces on a line ``Expect: <text>`` (a literal
substring of the output).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, _child_setup

EXAMPLES = sorted((ROOT / "examples" / "api").glob("*.py"))
TIMEOUT_S = 30  # each finishes in well under 3 s; this only bounds a hang on a loaded machine
_EXPECT = re.compile(r"^Expect:\s*(.+?)\s*$", re.M)


def _expected(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(), filename=str(path)))
    assert doc, f"{path.name}: no module docstring saying what it shows"
    m = _EXPECT.search(doc)
    assert m, f"{path.name}: the docstring has no 'Expect: <text>' line"
    return m.group(1)


def _env() -> dict:
    env = dict(os.environ)
    if str(ROOT / "python") in sys.path:  # conftest put an in-tree build first
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH", "")) if p)
    return env


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"data_req_con.py", "multi_shot.py", "raw_frame.py", "data_ind.py", "beacon_ind.py", "set_get.py",
            "cancel_queue.py", "asyncio_con.py"} <= names, names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path: Path):
    expect = _expected(path)
    p = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=ROOT,
        env=_env(),
        preexec_fn=_child_setup,
    )
    assert p.returncode == 0, f"{path.name} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    assert expect in p.stdout, f"{path.name}: {expect!r} not in its output:\n{p.stdout}"
    assert len(p.stdout.strip().splitlines()) >= 2, "an example prints a few readable lines"
