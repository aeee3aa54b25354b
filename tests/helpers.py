"""Helpers of the Python tests: running the CLI, comparing JSON outputs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"

def load_bench(name: str) -> Any:
    """bench/NAME.py as a module (registered as bench_NAME, which dataclasses need)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


#: Fields that measure the wall clock and so differ from run to run.
WALL_FIELDS = ("wall_seconds", "events_per_second", "sim_seconds_per_wall_second")
_WALL_LINE = re.compile(rb'^\s*"(' + b"|".join(f.encode() for f in WALL_FIELDS) + rb')":.*\n', re.M)


def strip_wall_clock(data: bytes) -> bytes:
    """The JSON text without its wall-clock lines (the output is pretty-printed,
    one key per line), for byte-for-byte comparison of two runs."""
    return _WALL_LINE.sub(b"", data)


def _child_setup() -> None:
    # A test runner started in the background may have SIGINT ignored; the CLI
    # must see the default disposition so Python installs its handler.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def sdmac_cmd(*args: Any) -> List[str]:
    """The command line running the CLI with this interpreter."""
    return [sys.executable, "-m", "sdmac", *map(str, args)]


def run_sdmac(*args: Any, check: bool = True, timeout: float = 300, **kw: Any) -> subprocess.CompletedProcess:
    """Runs `sdmac ARGS...` and returns the completed process (text mode)."""
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", "")
    if str(ROOT / "python") in sys.path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env["PYTHONPATH"]) if p)
    p = subprocess.run(
        sdmac_cmd(*args), capture_output=True, text=True, timeout=timeout, env=env, preexec_fn=_child_setup, **kw
    )
    if check and p.returncode != 0:
        raise AssertionError(f"sdmac {' '.join(map(str, args))} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def load_json(path: Path) -> Dict[str, Any]:
    return json.loads(path.read_text())
