"""What the tests of the one-shot examples share: a lossy emulated link, the Python
example's runner, and a binomial interval."""

from __future__ import annotations

import math
import os
import subprocess
import sys

from helpers import ROOT, _child_setup

EXAMPLE = ROOT / "examples" / "api" / "oneshot.py"

#: An AP and two stations; station a's DATA frames to the AP are lost with
#: probability 0.3 (its ACKs come through), station b's link is clean.
LOSSY = """
name = "lossy"
duration = 1.0
[phy]
standard = "802.11a"
rate = 54
[[station]]
name = "ap"
address = "02:00:00:00:00:01"
position = [0, 0]
ap = true
[[station]]
name = "a"
address = "02:00:00:00:00:0a"
position = [3, 0]
[[station]]
name = "b"
address = "02:00:00:00:00:0b"
position = [0, 3]
[[link]]
from = "a"
to = "ap"
error_prob = 0.3
symmetric = false
"""


def wilson(k: int, n: int, z: float = 3.29):
    """A wide (99.9 %) Wilson interval of k/n."""
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def _env() -> dict:
    env = dict(os.environ)
    if str(ROOT / "python") in sys.path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH", "")) if p)
    return env


def run_example(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=_env(), preexec_fn=_child_setup)
