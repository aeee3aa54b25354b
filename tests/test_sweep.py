"""`sdmac sweep`: the same grid gives the same aggregates serially, on the process pool
and on Ray; failed runs are named and the rest still run; the CLI writes JSON and plots."""

import importlib.util
import json
import math
import os
import textwrap

import pytest

from helpers import SCENARIOS, load_json, run_sdmac
from sdmac.sweep import load_spec, run_sweep

HIDDEN = SCENARIOS / "hidden_terminal.toml"

SCENARIO_SPEC = f"""\
scenario = "{HIDDEN}"
seeds = 3
figures = ["aggregate.*", "stations.[AC].throughput_mbps"]

[grid]
"flow[*].rate_pps" = [300, 900]
"link[2].rx_power_dbm" = [-130, -60]

[fixed]
duration = 0.3
"""

TOY = '''\
"""A tiny experiment for the sweep's tests: figures from the parameters and the seed."""
import random


def run(params, seed):
    if params["x"] == 2 and seed == 3:
        raise RuntimeError("the toy fails at x = 2, seed 3")
    rng = random.Random(1000 * seed + params["x"])
    return {"value": 10 * params["x"] + params["k"] + rng.random(), "seed_seen": seed,
            "note": f"x = {params['x']}", "series": [seed, params["x"]]}
'''


@pytest.fixture(scope="module")
def toy_root(tmp_path_factory):
    """A directory holding the package sweeptoy with the experiment module sweeptoy.exp."""
    root = tmp_path_factory.mktemp("toy")
    (root / "sweeptoy").mkdir()
    (root / "sweeptoy" / "__init__.py").write_text("")
    (root / "sweeptoy" / "exp.py").write_text(TOY)
    return root


@pytest.fixture
def toy_spec(tmp_path, toy_root, monkeypatch):
    # Pool workers are spawned with this process's sys.path.
    monkeypatch.syspath_prepend(str(toy_root))
    p = tmp_path / "toy.toml"
    p.write_text('experiment = "sweeptoy.exp"\nseeds = [1, 2, 3]\n[grid]\nx = [1, 2, 3]\n[fixed]\nk = 0.5\n')
    return p


@pytest.fixture
def scenario_spec(tmp_path):
    p = tmp_path / "ht.toml"
    p.write_text(SCENARIO_SPEC)
    return p


def _without_execution(doc):
    return {k: v for k, v in doc.items() if k != "execution"}


def test_pool_gives_the_serial_aggregates(scenario_spec):
    spec = load_spec(scenario_spec)
    seen = []
    serial = run_sweep(spec, jobs=1, on_done=seen.append)
    pool = run_sweep(spec, jobs=2)
    assert serial["execution"]["executor"] == "serial"
    assert pool["execution"] == {**pool["execution"], "executor": "process pool", "jobs": 2, "runs": 12}
    assert len(seen) == 12
    assert _without_execution(pool) == _without_execution(serial)

    assert pool["failures"] == []
    assert [(r["point"], r["seed"]) for r in pool["runs"]] == [(p, s) for p in range(4) for s in (1, 2, 3)]
    assert "aggregate.collision_probability" in pool["figures"]
    assert "stations.A.throughput_mbps" in pool["figures"] and "stations.B.throughput_mbps" not in pool["figures"]
    assert not any(n.startswith("mediums.") for n in pool["figures"])
    # Each summary is that of its point's runs; the seeds differ, so the spread is real.
    for p in pool["points"]:
        values = [r["figures"]["aggregate.attempts"] for r in pool["runs"] if r["point"] == p["index"]]
        s = p["figures"]["aggregate.attempts"]
        assert s["n"] == 3
        assert s["mean"] == pytest.approx(math.fsum(values) / 3, rel=1e-15)
        assert (s["min"], s["max"]) == (min(values), max(values))
    hidden_busy = pool["points"][2]["figures"]["aggregate.collision_probability"]
    assert hidden_busy["sd"] > 0 and hidden_busy["ci_low"] < hidden_busy["mean"] < hidden_busy["ci_high"]
    # Hidden terminals collide far more than stations in range (the figures are real).
    in_range = pool["points"][3]["figures"]["aggregate.collision_probability"]
    assert hidden_busy["mean"] > 5 * in_range["mean"]


def test_a_failed_run_is_named_and_the_rest_still_run(toy_spec):
    doc = run_sweep(load_spec(toy_spec), jobs=2)
    assert [(f["point"], f["params"], f["seed"]) for f in doc["failures"]] == [(1, {"x": 2}, 3)]
    assert "RuntimeError: the toy fails at x = 2, seed 3" in doc["failures"][0]["error"]
    assert doc["figures"] == ["value", "seed_seen"]
    assert [p["runs"] for p in doc["points"]] == [3, 2, 3]
    assert doc["points"][1]["failed_seeds"] == [3]
    assert doc["points"][1]["figures"]["seed_seen"]["mean"] == 1.5
    assert doc["points"][2]["figures"]["seed_seen"]["mean"] == 2.0
    assert 30.5 < doc["points"][2]["figures"]["value"]["mean"] < 31.5
    run = doc["runs"][0]
    assert (run["params"], run["seed"], run["other"]) == ({"x": 1}, 1, {"note": "x = 1", "series": [1, 1]})


NO_RAY = importlib.util.find_spec("ray") is None
NO_RAY_REASON = "ray is not installed (make deps installs it)"


@pytest.mark.skipif(NO_RAY, reason=NO_RAY_REASON)
def test_ray_gives_the_pool_aggregates(tmp_path, scenario_spec):
    # `--ray local --jobs 2` is ray.init(num_cpus=2, include_dashboard=False) in the CLI.
    out = tmp_path / "ray"
    run_sdmac("sweep", scenario_spec, "--out", out, "--ray", "local", "--jobs", "2", "--no-plots", "-q")
    on_ray = load_json(out / "sweep.json")
    assert on_ray["execution"]["executor"] == "ray"
    assert on_ray["execution"]["address"] == "local"
    assert on_ray["failures"] == []
    pool = run_sweep(load_spec(scenario_spec), jobs=2)
    assert _without_execution(on_ray) == json.loads(json.dumps(_without_execution(pool)))


@pytest.mark.skipif(NO_RAY, reason=NO_RAY_REASON)
def test_unreachable_ray_cluster_is_a_clear_error(tmp_path, scenario_spec):
    p = run_sdmac("sweep", scenario_spec, "--out", tmp_path / "o", "--ray", "127.0.0.1:1", "-q", check=False, timeout=60)
    assert p.returncode == 1
    assert "cannot connect to the Ray cluster at 127.0.0.1:1" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_cli_writes_json_and_plots(tmp_path, scenario_spec, monkeypatch):
    # Three figures, three plots (each takes a fraction of a second to draw).
    # Wide enough that the table's headers are not folded (pytest-xdist sets COLUMNS=80).
    monkeypatch.setenv("COLUMNS", "160")
    scenario_spec.write_text(SCENARIO_SPEC.replace('"aggregate.*"', '"aggregate.collision_probability", "aggregate.acked"'))
    out = tmp_path / "out"
    p = run_sdmac("sweep", scenario_spec, "--out", out, "--jobs", "2")
    doc = load_json(out / "sweep.json")
    assert doc["execution"]["executor"] == "process pool"
    assert len(doc["points"]) == 4 and len(doc["runs"]) == 12
    in_process = run_sweep(load_spec(scenario_spec), jobs=1)
    assert doc["points"] == json.loads(json.dumps(in_process["points"]))
    plots = sorted(f.name for f in (out / "plots").iterdir())
    assert plots == ["aggregate.acked.png", "aggregate.collision_probability.png", "stations.A.throughput_mbps.png",
                     "stations.C.throughput_mbps.png"]
    assert all((out / "plots" / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in plots)
    assert "flow[*].rate_pps" in p.stdout and "900" in p.stdout
    assert "aggregate.acked" in p.stdout
    # Progress goes to stderr, a plain line when it is not a terminal.
    assert "ht.toml: 4 points × 3 seeds: 12/12 runs" in p.stderr, p.stderr


def test_cli_failures_make_the_exit_status_non_zero(tmp_path, toy_spec, toy_root, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(toy_root), os.environ.get("PYTHONPATH")])))
    out = tmp_path / "out"
    p = run_sdmac("sweep", toy_spec, "--out", out, "-j", "2", "--no-plots", check=False)
    assert p.returncode == 1, p.stderr
    assert "1 of 9 runs failed" in p.stderr
    assert "grid point 1 (x = 2), seed 3: RuntimeError: the toy fails" in p.stderr
    assert "Traceback" not in p.stderr
    doc = load_json(out / "sweep.json")
    assert len(doc["failures"]) == 1 and doc["points"][0]["runs"] == 3
    assert not (out / "plots").exists()


def test_cli_bad_spec_and_unmatched_figures(tmp_path, scenario_spec):
    bad = tmp_path / "bad.toml"
    bad.write_text(SCENARIO_SPEC.replace("flow[*]", "flow[9]"))
    p = run_sdmac("sweep", bad, "--out", tmp_path / "o1", check=False)
    assert p.returncode == 1
    assert f'{bad}:6: grid."flow[9].rate_pps": flow[9]: index 9 is out of range' in p.stderr, p.stderr
    assert "Traceback" not in p.stderr

    none = tmp_path / "none.toml"
    none.write_text(SCENARIO_SPEC.replace('figures = ["aggregate.*", ', 'figures = ["nope.*", ').replace("seeds = 3", "seeds = 1"))
    p = run_sdmac("sweep", none, "--out", tmp_path / "o2", "-j", "1", "-q", check=False)
    assert p.returncode == 1
    assert f"{none}:3: figures: 'nope.*' matched no figure of any run" in p.stderr, p.stderr
    assert textwrap.dedent(p.stdout) == ""
