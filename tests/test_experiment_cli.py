"""`sdmac experiment`: every experiment of python/sdmac/experiments through the command
line (`--list`, `NAME --param KEY=VALUE --seed S --out DIR`), each run short; the
figures it prints against the JSON it writes, its plot, and the refusals of unknown
experiments and bad parameters. No figure is asserted against a constant.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

from helpers import run_sdmac
from sdmac import experiments
from sdmac.experiments import report


@pytest.fixture(autouse=True)
def _wide_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest-xdist sets COLUMNS=80, and the figure tables checked here row by row are
    # wider: the command inherits a width that holds them.
    monkeypatch.setenv("COLUMNS", "160")

#: Parameters that make each experiment's run short (well under a few seconds).
SHORT: Dict[str, List[str]] = {
    "deadlines": ["stations=2", "duration_s=0.1", "scheme=dcf"],
    "rate_adaptation": ["phase_ms=60", "tx_power_dbm=[20, 10]", "policy=adaptive"],
    "redundancy": ["packets=20", "mode=two_cancel", "loss=0.1"],
    "retransmission": ["packets=3", "burst_frames=2", "period_ms=20", "policy=beyond_burst"],
    "rtwlan": ["packets=5", "spacing_ms=20", "repliers=1"],
}

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def params_of(items: List[str]) -> List[str]:
    return [a for item in items for a in ("--param", item)]


def test_the_list_names_every_experiment_of_the_package() -> None:
    names = experiments.names()
    assert set(names) == set(SHORT), "a new experiment needs its short run in SHORT"
    p = run_sdmac("experiment", "--list")
    listed = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    assert listed == names
    # Helper modules are not experiments.
    for helper in ("report", "rtwlan_report", "deadlines_report", "rtwlan_params"):
        assert helper not in listed
    # Each line carries the module's first docstring line.
    for name in names:
        first = (experiments.load(name).__doc__ or "").strip().splitlines()[0]
        assert any(line.startswith(name) and first in line for line in p.stdout.splitlines()), name


@pytest.mark.parametrize("name", sorted(n for n in SHORT if n != "rtwlan"))
def test_each_experiment_runs_prints_its_figures_and_writes_json_and_a_plot(name: str, tmp_path: Path) -> None:
    p = run_sdmac("experiment", name, *params_of(SHORT[name]), "--seed", "3", "--out", tmp_path)
    doc = json.loads((tmp_path / f"{name}.json").read_text())
    assert doc["experiment"] == name and doc["seed"] == 3
    assert doc["params"] == experiments.load(name).check_params(
        dict(report_param(item) for item in SHORT[name])
    )
    (run,) = doc["runs"]
    plot = Path(run["plot"])
    assert plot == tmp_path / report.plot_name(name, 3)
    assert plot.read_bytes().startswith(PNG_MAGIC)
    printed = 0
    for key, value in run.items():
        if report.is_number(value):
            # One table row per figure: its name, its value as printed, its unit.
            row = rf"^\s*{re.escape(key)}\s+{re.escape(report.number(value))}\s+{re.escape(report.unit(key))}\s*$"
            assert re.search(row, p.stdout, re.M), (key, value, p.stdout)
            printed += 1
    assert printed >= 5, p.stdout
    assert f"JSON: {tmp_path / (name + '.json')}" in p.stdout


def report_param(item: str) -> Any:
    from sdmac.cli_experiment import parse_param

    return parse_param(item)


def test_rtwlan_takes_params_too(tmp_path: Path) -> None:
    p = run_sdmac("experiment", "rtwlan", *params_of(SHORT["rtwlan"]), "--out", tmp_path)
    assert "20 ms spacing, 1 replier, 5 packets, dcf" in p.stdout
    doc = json.loads((tmp_path / "rtwlan.json").read_text())
    (run,) = doc["runs"]
    assert run["params"] == {"spacing_ms": 20.0, "repliers": 1, "packets": 5, "mode": "dcf", "clock": "wall"}
    assert Path(run["plot"]).read_bytes().startswith(PNG_MAGIC)
    bad = run_sdmac("experiment", "rtwlan", "--param", "speed=3", check=False)
    assert bad.returncode != 0
    assert "rtwlan has no parameter speed (its parameters: spacing_ms, repliers, packets, mode, clock)" in bad.stderr


def test_an_unknown_experiment_is_refused_naming_the_experiments() -> None:
    p = run_sdmac("experiment", "rtwlam", check=False)
    assert p.returncode != 0
    assert "unknown experiment 'rtwlam'" in p.stderr
    assert ", ".join(experiments.names()) in p.stderr
    # Helper modules are not experiments either.
    p = run_sdmac("experiment", "rtwlan_report", check=False)
    assert p.returncode != 0 and "unknown experiment 'rtwlan_report'" in p.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["redundancy", "--param", "los=0.1"], "redundancy: unknown parameter(s) los (known: "),
        (["redundancy", "--param", "loss=2"], "redundancy: loss must be a share in [0, 1), not 2"),
        (["retransmission", "--param", "policy=eager"], "retransmission: policy must be one of mac_retries"),
        (["rate_adaptation", "--param", "tx_power_dbm=[]"], "tx_power_dbm must be a non-empty list"),
        (["deadlines", "--param", "stations=0"], "deadlines: stations"),
        (["redundancy", "--param", "loss"], "'loss' is not KEY=VALUE"),
        (["redundancy", "--param", "loss=0.1", "--param", "loss=0.2"], "loss is given twice"),
    ],
)
def test_bad_params_are_refused_before_anything_runs(args: List[str], words: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = run_sdmac("experiment", *args, "--out", out, check=False)
    assert p.returncode != 0
    assert words in p.stderr, p.stderr
    assert not out.exists(), "nothing is written for a refused run"


def test_an_experiments_help_lists_its_parameters_and_defaults() -> None:
    p = run_sdmac("experiment", "redundancy", "--help")
    text = " ".join(p.stdout.split())
    assert "--param KEY=VALUE" in text
    for key in experiments.load("redundancy").DEFAULTS:
        assert f"{key}=" in text, key
