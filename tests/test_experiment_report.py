"""The experiments' shared report helpers (python/sdmac/experiments/report.py): the
verdict lines of a sweep summary, the `python -m sdmac.experiments.NAME sweep.json`
entry, and the figures of one run by unit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from helpers import ROOT
from sdmac.experiments import report


def fig(mean: float, low: float, high: float) -> Dict[str, Any]:
    return {"mean": mean, "ci_low": low, "ci_high": high, "ci_half_width": (high - low) / 2}


@pytest.mark.parametrize(
    "a, b, higher, verdict, apart",
    [
        (fig(10, 9, 11), fig(5, 4, 6), True, "yes", "disjoint"),
        (fig(10, 5, 15), fig(8, 4, 12), True, "yes", "overlapping"),
        (fig(5, 4, 6), fig(10, 9, 11), True, "NO", "overlapping"),
        (fig(5, 4, 6), fig(10, 9, 11), False, "yes", "disjoint"),
        (fig(10, 9, 11), fig(5, 4, 6), False, "NO", "overlapping"),
    ],
)
def test_comparison_says_which_wins_and_whether_the_intervals_part(
    a: Dict[str, Any], b: Dict[str, Any], higher: bool, verdict: str, apart: str
) -> None:
    line = report.comparison("a beats b", a, b, higher_is_better=higher, fmt=".1f", against=" (b)")
    assert line == f"- a beats b: {verdict} ({a['mean']:.1f} against {b['mean']:.1f} (b); intervals {apart})"


def test_ci_and_header() -> None:
    assert report.ci(fig(0.1234, 0.1, 0.15), scale=1e3) == "123 ± 25"
    sweep = {"seeds": [1, 2, 3], "confidence": 0.95, "fixed": {"packets": 60}}
    assert report.sweep_header(sweep, per="policy") == (
        "3 seeds per policy, mean ± half-width of the 95% confidence interval; fixed: packets = 60"
    )


@pytest.mark.parametrize("module", ["redundancy", "retransmission", "rate_adaptation"])
def test_each_overlay_experiment_prints_its_summary_from_the_command_line(module: str, tmp_path: Path) -> None:
    name = f"sdmac.experiments.{module}"
    cmd = [sys.executable, "-m", name]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and f"usage: python -m {name} DIR/sweep.json" in p.stderr
    p = subprocess.run([*cmd, str(tmp_path / "none.json")], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 1 and "cannot read" in p.stderr and "none.json" in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    p = subprocess.run([*cmd, str(bad)], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 1 and "is not JSON" in p.stderr


def test_main_prints_the_summary_of_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"points": [1, 2]}))
    assert report.main(lambda doc: f"{len(doc['points'])} points\n", "m", [str(path)]) == 0
    assert capsys.readouterr().out == "2 points\n"


def test_units_and_numbers_of_a_run() -> None:
    assert [report.unit(k) for k in ("latency_p95_us", "burst_ms", "wall_s", "goodput_mbps",
                                      "loss_share", "miss_ratio", "copies")] == [
        "µs", "ms", "s", "Mb/s", "share", "share", "count"]
    assert report.number(0.1234567) == "0.123457" and report.number(12) == "12" and report.number(None) == "–"


def test_plot_run_draws_a_png_and_refuses_a_run_without_figures(tmp_path: Path) -> None:
    path = tmp_path / "p" / "run.png"
    report.plot_run("t", {"latency_p50_us": 10.0, "copies": 3, "mode": "one", "flag": True}, path)
    assert path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="no figures to plot"):
        report.plot_run("t", {"mode": "one"}, tmp_path / "q.png")
