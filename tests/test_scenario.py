"""`sdmac sim SCENARIO`: output contract, overrides, determinism, errors."""

import json

import pytest

from helpers import load_json, run_sdmac, strip_wall_clock


def test_contract_keys(tmp_path, two_stations):
    out = tmp_path / "out.json"
    p = run_sdmac("sim", two_stations, "--json", out)
    data = load_json(out)
    assert data["aggregate"]["throughput_mbps"] > 0
    names = [s["name"] for s in data["stations"]]
    assert names == ["ap", "sta1", "sta2"]
    for s in data["stations"]:
        for key in ("name", "address", "throughput_mbps", "sent", "lost", "collisions"):
            assert key in s, key
        assert set(s["delay_us"]) >= {"p50", "p99", "p99.9", "max"}
    by_name = {s["name"]: s for s in data["stations"]}
    assert by_name["sta1"]["address"] == "02:00:00:00:01:01"
    assert by_name["sta1"]["sent"] > 0
    assert by_name["sta1"]["delay_us"]["p50"] <= by_name["sta1"]["delay_us"]["max"]
    (m,) = data["mediums"]
    assert 0 < m["utilization"] <= 1
    assert set(m["utilization_per_ac"]) == {"BK", "BE", "VI", "VO"}
    for key in ("events", "wall_seconds", "events_per_second", "sim_seconds_per_wall_second"):
        assert data[key] > 0, key
    # The tables went to stdout.
    for word in ("sta1", "02:00:00:00:01:01", "aggregate", "BE", "events per second", "simulated s per wall s"):
        assert word in p.stdout, word


def test_offered_load_is_respected(tmp_path, two_stations):
    out = tmp_path / "out.json"
    run_sdmac("sim", two_stations, "--json", out, "--quiet")
    data = load_json(out)
    measured_s = data["duration_s"] - data["warmup_s"]
    by_name = {s["name"]: s for s in data["stations"]}
    # sta1: CBR, one 1000 B frame per ms; sta2: Poisson, 500 frames/s of 500 B.
    assert by_name["sta1"]["sent"] == pytest.approx(1000 * measured_s, rel=0.02)
    assert by_name["sta2"]["sent"] == pytest.approx(500 * measured_s, rel=0.1)
    assert by_name["sta1"]["throughput_mbps"] == pytest.approx(8.0, rel=0.02)
    mediums = data["mediums"][0]["utilization_per_ac"]
    assert mediums["VI"] > 0 and mediums["BE"] > 0


def _run(tmp_path, scenario, name, *extra):
    out = tmp_path / name
    run_sdmac("sim", scenario, "--json", out, "--quiet", *extra)
    return out.read_bytes()


def test_same_seed_same_json(tmp_path, two_stations):
    a = _run(tmp_path, two_stations, "a.json")
    b = _run(tmp_path, two_stations, "b.json")
    assert strip_wall_clock(a) == strip_wall_clock(b)


def test_seed_override(tmp_path, two_stations):
    a = _run(tmp_path, two_stations, "a.json")
    b = _run(tmp_path, two_stations, "b.json", "--seed", "2")
    assert json.loads(a)["seed"] == 1
    assert json.loads(b)["seed"] == 2
    assert strip_wall_clock(a) != strip_wall_clock(b)
    c = _run(tmp_path, two_stations, "c.json", "--seed", "2")
    assert strip_wall_clock(b) == strip_wall_clock(c)


def test_duration_override(tmp_path, two_stations):
    d = json.loads(_run(tmp_path, two_stations, "d.json", "--duration", "0.5"))
    assert d["duration_s"] == 0.5
    full = json.loads(_run(tmp_path, two_stations, "f.json"))
    assert d["aggregate"]["sent"] < full["aggregate"]["sent"]


def test_threads_same_results(tmp_path, two_channels):
    a = _run(tmp_path, two_channels, "a.json")
    b = _run(tmp_path, two_channels, "b.json", "--threads")
    assert strip_wall_clock(a) == strip_wall_clock(b)
    assert [m["id"] for m in json.loads(a)["mediums"]] == ["ch36", "ch149"]


BAD_POSITION = """\
name = "bad"
duration = 1.0

[[station]]
name = "a"
position = [1]
"""

BAD_SYNTAX = """\
name = "bad"
duration = 1.0
[phy
rate = 54
"""


@pytest.mark.parametrize(
    "text, line, words",
    [
        (BAD_POSITION, 4, ["position"]),
        (BAD_SYNTAX, 3, []),
        ('name = "x"\nduration = 1.0\nbogus = 3\n[[station]]\nname = "a"\n', 3, ["bogus"]),
        # Numbers must be finite and within their physical range (ranges.rs).
        ('duration = 1.0\n[phy]\nrate = 54\ntx_power_dbm = nan\n[[station]]\nname = "a"\n', 4, ["phy.tx_power_dbm", "not a finite number"]),
        ('duration = 1.0\n[phy]\nnoise_floor_dbm = -inf\n[[station]]\nname = "a"\n', 3, ["phy.noise_floor_dbm"]),
        ('duration = 1.0\n[phy]\nrx_sensitivity_dbm = inf\n[[station]]\nname = "a"\n', 3, ["phy.rx_sensitivity_dbm"]),
        ('duration = 1.0\n[propagation]\nmodel = "log_distance"\nexponent = nan\n[[station]]\nname = "a"\n', 4, ["propagation.exponent"]),
        ('duration = 1.0\n[[station]]\nname = "a"\n[[station]]\nname = "b"\n[[link]]\nfrom = "a"\nto = "b"\nsnr_db = nan\n', 9, ["link[0].snr_db"]),
        ('duration = 1.0\n[phy]\ntx_power_dbm = 500\n[[station]]\nname = "a"\n', 3, ["phy.tx_power_dbm", "out of range"]),
    ],
)
@pytest.mark.parametrize("extra", [[], ["--seed", "5"], ["--seed", "5", "--duration", "2"]])
def test_malformed_scenario(tmp_path, text, line, words, extra):
    f = tmp_path / "broken.toml"
    f.write_text(text)
    p = run_sdmac("sim", f, *extra, check=False)
    assert p.returncode == 1, p.stderr
    # The message names the file and the line (also when an override added a line).
    assert f"{f}:{line}:" in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr
    assert "Traceback" not in p.stderr


def test_unwritable_pcap_is_a_clean_error(tmp_path, two_stations):
    p = run_sdmac("sim", two_stations, "--pcap", tmp_path / "no" / "such" / "dir.pcapng", check=False)
    assert p.returncode == 1
    assert "dir.pcapng" in p.stderr
    assert "Traceback" not in p.stderr
