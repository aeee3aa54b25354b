"""The overlay experiments (redundancy, rate_adaptation, retransmission) on emu: the
experiment contract, their refusals, and the relations issue 17 names (two channels
lose less than one at 10 % loss and more; retrying beyond a burst delivers more within
the deadline than the MAC's back-to-back retries). Small sizes; no figure is asserted
against a constant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

from sdmac import experiments
from sdmac.experiments import rate_adaptation, redundancy, retransmission
from sdmac.sweep.run import run_sweep
from sdmac.sweep.spec import load, parse

ROOT = Path(__file__).resolve().parents[1]


def numbers(figures: Dict[str, Any]) -> Dict[str, float]:
    return {k: v for k, v in figures.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


# ----------------------------------------------------------------------------- redundancy


def test_redundancy_two_channels_lose_less_than_one_at_ten_percent_and_more() -> None:
    for loss in (0.10, 0.20):
        one = redundancy.run({"loss": loss, "mode": "one", "packets": 150}, 3)
        two = redundancy.run({"loss": loss, "mode": "two", "packets": 150}, 3)
        assert one["lost"] > 0, one
        assert two["lost"] < one["lost"], (loss, one, two)
        assert two["loss_share"] < one["loss_share"]
        for r in (one, two):
            assert r["delivered"] + r["lost"] == r["sent"] == 150
            assert r["duplicates_delivered"] == 0
            assert (
                r["latency_p50_us"] <= r["latency_p90_us"] <= r["latency_p95_us"]
                <= r["latency_p99_us"] <= r["latency_max_us"]
            )
        assert one["copies_on_air"] == 150 and two["copies_on_air"] == 300


def test_redundancy_cancelling_counts_every_copy_and_the_airtime_saved() -> None:
    params = {"mode": "two_cancel", "loss": 0.05, "packets": 100, "payload_len": 1400, "rates_second": "6x1"}
    r = redundancy.run(params, 1)
    assert r["mode"] == "two_cancel"
    assert r["copies_on_air"] + r["copies_cancelled"] == r["copies"] == 200
    assert (r["copies_cancelled"] > 0) == (r["airtime_saved_ms"] > 0), r
    assert set(numbers(r)) >= {"loss_share", "latency_p99_us", "copies_cancelled", "airtime_saved_ms"}


@pytest.mark.parametrize(
    "params, match",
    [
        ({"los": 0.1}, "unknown parameter.*los"),
        ({"loss": 1.0}, "loss must be a share"),
        ({"loss_second": -0.1}, "loss_second must be a share"),
        ({"mode": "three"}, "mode must be one of one, two, two_cancel"),
        ({"packets": 0}, "packets must be an integer"),
        ({"spacing_us": "fast"}, "spacing_us must be a number"),
        ({"rates_second": 6}, "rates_second must be a rate series"),
    ],
)
def test_redundancy_refusals(params: Dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=f"redundancy: {match}"):
        redundancy.run(params, 1)


def test_redundancy_refuses_a_bad_seed_and_a_bad_rate_series() -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        redundancy.run({}, -1)
    with pytest.raises(ValueError):
        redundancy.run({"rates": "7x1", "packets": 5}, 1)


# ----------------------------------------------------------------------------- rate adaptation


def test_rate_adaptation_reports_each_phase() -> None:
    params = {"tx_power_dbm": [20.0, 10.0], "phase_ms": 150.0}
    a = rate_adaptation.run({**params, "policy": "adaptive"}, 2)
    f = rate_adaptation.run({**params, "policy": 24}, 2)
    for r in (a, f):
        assert r["delivered"] == r["phase0_delivered"] + r["phase1_delivered"], r
        assert 0 < r["delivered"] <= min(r["sent"], r["attempts"])
        assert "phase2_delivered" not in r
        assert len(r["best_rates"]) == 2
    assert f["policy"] == "24" and set(f["attempts_per_rate"]) == {"24"}
    assert f["best_rates"] == [None, None]
    assert all(b is not None for b in a["best_rates"]), a
    # Goodput is the delivered payload over the run: the same ordering as delivered.
    assert (a["goodput_mbps"] > f["goodput_mbps"]) == (a["delivered"] > f["delivered"])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"speed": 3}, "unknown parameter.*speed"),
        ({"policy": "7"}, "policy must be one of adaptive, 6"),
        ({"tx_power_dbm": []}, "tx_power_dbm must be a non-empty list"),
        ({"tx_power_dbm": [20, 99]}, "tx_power_dbm must be"),
        ({"tries": 16}, "tries must be an integer in 1 … 15"),
        ({"phase_ms": 1}, "phase_ms must be a number"),
    ],
)
def test_rate_adaptation_refusals(params: Dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=f"rate_adaptation: {match}"):
        rate_adaptation.run(params, 1)


# ----------------------------------------------------------------------------- retransmission


def test_retrying_beyond_the_burst_delivers_more_within_the_deadline() -> None:
    params = {"packets": 24, "burst_frames": 12}
    mac = retransmission.run({**params, "policy": "mac_retries"}, 5)
    beyond = retransmission.run({**params, "policy": "beyond_burst"}, 5)
    assert mac["bursts"] >= 3 and beyond["bursts"] >= 3
    assert mac["delivered"] < 24, "the bursts never hit the MAC's retries"
    assert beyond["delivered"] > mac["delivered"], (beyond, mac)
    # The MAC's policy is one request per packet; the measured burst is about what was set.
    assert mac["requests"] == 24 and beyond["requests"] >= 24
    assert mac["burst_ms"] < mac["set_burst_ms"]
    for r in (mac, beyond):
        assert sum(r[k] for k in ("delivered", "late", "gave_up", "deadline_reached", "dropped")) == 24
        assert len(r["fates"]) == 24 and r["delivered_from_due"] <= r["delivered"]


def test_retransmission_without_interference_delivers_every_packet_first_time() -> None:
    r = retransmission.run({"packets": 10, "burst_frames": 0, "policy": "fixed_spacing"}, 1)
    assert r["bursts"] == 0 and r["delivered"] == 10 and r["requests"] == 10


@pytest.mark.parametrize(
    "params, match",
    [
        ({"burst": 3}, "unknown parameter.*burst"),
        ({"policy": "eager"}, "policy must be one of mac_retries"),
        ({"burst_frames": 40}, "a burst of 40 frames takes .* not less than period_ms"),
        ({"deadline_ms": 0}, "deadline_ms must be a number"),
        ({"packets": 1.5}, "packets must be an integer"),
    ],
)
def test_retransmission_refusals(params: Dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=f"retransmission: {match}"):
        retransmission.run(params, 1)


def test_retransmission_refuses_a_deadline_too_close_before_sending() -> None:
    # The overlay refuses a deadline that not even the first request fits (24 Mb/s × 7 tries).
    with pytest.raises(ValueError, match="deadline"):
        retransmission.run({"packets": 1, "burst_frames": 0, "policy": "mac_retries", "deadline_ms": 0.2}, 1)


# ----------------------------------------------------------------------------- sweeps


@pytest.mark.parametrize("name", ["redundancy", "rate_adaptation", "retransmission"])
def test_shipped_specs_name_the_experiment_and_its_parameters(name: str) -> None:
    spec = load(ROOT / "examples" / "sweeps" / f"{name}.toml")
    module = experiments.load(name)
    assert spec.kind == "experiment" and spec.target == name
    for point in spec.points():
        module.check_params(spec.params(point))


def test_a_small_sweep_and_its_summary(tmp_path: Path) -> None:
    text = """
experiment = "redundancy"
seeds = 2
[grid]
loss = [0.2]
mode = ["one", "two"]
[fixed]
packets = 60
"""
    doc = run_sweep(parse(text, tmp_path / "s.toml"), jobs=1)
    assert not doc["failures"]
    md = redundancy.summary(doc)
    one, two = (p["figures"]["loss_share"]["mean"] for p in doc["points"])
    verdict = "yes" if two < one else "NO"
    assert f"two channels lose less than one: {verdict}" in md
    assert md.count("| 20% | 100 |") == 2
