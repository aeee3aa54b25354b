"""`sdmac sim saturation`: the output contract, Bianchi at n = 1, determinism."""

import json

import pytest

from helpers import load_json, run_sdmac, strip_wall_clock

# 802.11a, 54 Mb/s, 1500 B payload, basic access, one station: every frame takes
# DIFS 34 + mean backoff 7.5 x 9 + DATA 248 + SIFS 16 + ACK 28 (24 Mb/s) = 393.5 µs
# and carries 1500 B: 12000 bit / 393.5 µs.
BIANCHI_N1_MBPS = 12000 / 393.5  # 30.4956...


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sat") / "sat.json"
    p = run_sdmac("sim", "saturation", "--stations", "1,2", "--duration", "1", "--json", out)
    return out, p


def test_contract_keys(sweep):
    out, p = sweep
    data = load_json(out)
    assert [r["stations"] for r in data["results"]] == [1, 2]
    for r in data["results"]:
        for key in ("stations", "throughput_mbps", "collision_probability", "events", "wall_seconds"):
            assert key in r, key
        assert r["events"] > 0
        assert 0.0 <= r["collision_probability"] <= 1.0
    assert data["results"][0]["collision_probability"] == 0.0
    assert data["results"][1]["collision_probability"] > 0.0


def test_one_station_matches_bianchi(sweep):
    out, _ = sweep
    n1 = load_json(out)["results"][0]
    assert n1["throughput_mbps"] == pytest.approx(BIANCHI_N1_MBPS, rel=0.01)


def test_table_printed_per_n(sweep):
    _, p = sweep
    lines = p.stdout.splitlines()
    assert "saturation" in lines[0] and "802.11a" in lines[0]
    rows = [line.split() for line in lines if line.strip() and line.split()[0].isdigit()]
    assert [r[0] for r in rows] == ["1", "2"]
    # Stdout is not a terminal here: progress goes to stderr as plain lines, or not at all.
    assert "━" not in p.stderr


def _sweep(tmp_path, name, seed):
    out = tmp_path / name
    run_sdmac("sim", "saturation", "--stations", "2,5", "--duration", "0.5", "--seed", seed, "--json", out, "--quiet")
    return out.read_bytes()


def test_same_seed_same_json(tmp_path):
    a = _sweep(tmp_path, "a.json", 7)
    b = _sweep(tmp_path, "b.json", 7)
    assert strip_wall_clock(a) == strip_wall_clock(b)
    assert b"wall_seconds" not in strip_wall_clock(a)
    assert json.loads(a)["params"]["seed"] == 7


def test_different_seed_different_json(tmp_path):
    a = _sweep(tmp_path, "a.json", 7)
    c = _sweep(tmp_path, "c.json", 8)
    assert strip_wall_clock(a) != strip_wall_clock(c)
    ra, rc = json.loads(a)["results"], json.loads(c)["results"]
    assert any(x["throughput_mbps"] != y["throughput_mbps"] for x, y in zip(ra, rc))


def test_quiet_prints_nothing(tmp_path):
    p = run_sdmac("sim", "saturation", "--stations", "1", "--duration", "0.2", "--quiet")
    assert p.stdout == ""
    assert p.stderr == ""
