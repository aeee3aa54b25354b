"""The deadline experiment (sdmac.experiments.deadlines) on emu: its figures, its
refusals, and EDF against DCF under saturating contention.

The runs happen on the wall clock; the tests check relations and counts, never a
figure's value.
"""

from __future__ import annotations

import os
import types
from typing import Any

import pytest

from sdmac.experiments import deadlines, deadlines_report, load

#: Long frames at 6 Mb/s, so that the host's wake-up delays are small against the airtime.
LONG = {"payload": 2000, "rate": "6"}


def test_the_experiment_is_found_by_name() -> None:
    assert load("deadlines") is deadlines


@pytest.mark.parametrize("scheme", deadlines.SCHEMES)
def test_every_scheme_gives_its_figures(scheme: str) -> None:
    p = {"stations": 2, "period_ms": 20.0, "duration_s": 0.2, "scheme": scheme, "guard_us": 1000.0}
    r = deadlines.run(p, seed=3)
    released = r["released"]
    assert released == 2 * 10
    assert 0.0 <= r["miss_ratio"] <= 1.0 and 0.0 <= r["delivered_share"] <= 1.0
    assert r["met"] + r["late"] <= released
    assert r["miss_ratio"] == pytest.approx((released - r["met"]) / released)
    assert r["met"] > 0
    assert 0.0 < r["offered_airtime_share"] < 1.0
    assert r["params"]["scheme"] == scheme
    assert r["sent"] <= released and r["not_acked"] == released - r["met"] - r["late"]
    assert r["latency_p50_us"] <= r["latency_p95_us"] <= r["latency_p99_us"] <= r["latency_max_us"]
    if scheme != "tdma":
        assert r["met"] + r["late"] + r["dropped"] + r["unfinished"] <= released
    else:
        slot = 2 * 1000.0 + deadlines.exchange_us(r["params"]) + r["params"]["slack_us"]
        assert r["tdma_slot_us"] == pytest.approx(slot)
        assert "guard 1000.0 µs" in r["notes"][0]
        assert r["collisions"] == 0 and 0 <= r["outside_slot"] <= r["sent"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"stations": 0}, "stations must be an integer in 1"),
        ({"stations": 2.5}, "stations must be an integer"),
        ({"period_ms": "fast"}, "period_ms must be a number"),
        ({"period_ms": 10.0, "deadline_ms": 12.0}, "deadline_ms = 12.0 is outside"),
        ({"deadline_ms": 0.05}, "shorter than one exchange"),
        ({"scheme": "csma"}, "scheme must be one of dcf, tdma, edf"),
        ({"rate": "7"}, "rate '7'"),
        ({"standard": "802.11b"}, "standard must be one of"),
        ({"payload": 5000}, "payload must be an integer in 1"),
        ({"duration_s": 0.005, "period_ms": 10.0}, "shorter than one period"),
        ({"mac_tries": 0}, "mac_tries must be an integer in 1"),
        ({"edf_in_mac": 5}, "edf_in_mac must be an integer in 1"),
        ({"slots": 3}, "unknown parameter"),
        ({"deadlines": "late"}, "deadlines must be one of uniform, slot"),
        ({"rt_priority": 95}, "rt_priority must be an integer in 0"),
        ({"mix": "triple"}, "mix must be one of single, urgent\\+bulk"),
        ({"mix": "urgent+bulk", "deadlines": "slot"}, "needs deadlines = 'uniform'"),
        ({"mix": "urgent+bulk", "urgent_deadline_ms": 0.05}, "shorter than one exchange of the urgent frame"),
        ({"mix": "urgent+bulk", "urgent_deadline_ms": 30.0}, "urgent_deadline_ms = 30.0 is outside"),
        ({"mix": "urgent+bulk", "bulk_burst": 0}, "bulk_burst must be an integer in 1"),
    ],
)
def test_bad_parameters_are_refused_by_name(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deadlines.run(params, seed=1)


def test_bad_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        deadlines.run({}, seed=-1)


class _NoSession(types.SimpleNamespace):
    """Stands in for sdmac._core with everything but a session: opening one fails."""


def test_a_schedule_that_cannot_fit_is_refused_before_anything_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    real = deadlines._core

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a session was opened for a schedule that cannot fit")

    session = types.SimpleNamespace(from_scenario=refuse)
    stand_in = _NoSession(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    stand_in.Session = session
    monkeypatch.setattr(deadlines, "_core", stand_in)
    # 50 slots of 2·1000 µs + one exchange do not fit a round of 105 ms.
    too_many = {"stations": 50, "period_ms": 105.0, "guard_us": 1000.0, "scheme": "tdma", **LONG}
    with pytest.raises(ValueError, match=r"tdma: the load does not fit the schedule: 50 slots .* more than the round"):
        deadlines.run(too_many, seed=1)
    # The slots fit the round, but the last one ends after the deadline.
    late = {"stations": 5, "period_ms": 40.0, "deadline_ms": 10.0, "guard_us": 1000.0, "scheme": "tdma", **LONG}
    with pytest.raises(ValueError, match="after the deadline of 10.00 ms"):
        deadlines.run(late, seed=1)
    # The slots fit, but the contention period left cannot hold a request and its grant.
    tight = {"stations": 5, "period_ms": 26.5, "guard_us": 1000.0, "scheme": "tdma", **LONG}
    with pytest.raises(ValueError, match="contention period .* cannot hold a request and its grant"):
        deadlines.run(tight, seed=1)
    # The same schedules are refused the same way by the layout alone.
    with pytest.raises(ValueError, match="does not fit the schedule"):
        deadlines.tdma_layout(deadlines.check_params(too_many))


def test_edf_misses_no_more_than_dcf_under_saturating_contention() -> None:
    # Five stations release 2000-byte frames at 6 Mb/s together every 14 ms, due 14 ms
    # later: one try each already takes about the whole period, so DCF's FIFO queues
    # grow and its frames go late, while EDF drops the hopeless ones and sends fresh ones;
    # 50 periods, so that DCF's backlog has grown well past a period.
    p = {"stations": 5, "period_ms": 14.0, "duration_s": 0.7, **LONG}
    dcf = deadlines.run({**p, "scheme": "dcf"}, seed=1)
    edf = deadlines.run({**p, "scheme": "edf"}, seed=1)
    print(f"miss ratio: dcf {dcf['miss_ratio']:.3f}, edf {edf['miss_ratio']:.3f}")
    assert dcf["released"] == edf["released"]
    assert dcf["late"] > 0, "the setting must make DCF miss deadlines"
    assert edf["miss_ratio"] <= dcf["miss_ratio"]


def test_the_report_table_gives_each_point_its_ci_or_its_refusal() -> None:
    miss = {"n": 3, "mean": 0.25, "ci_low": -0.1, "ci_high": 0.6}
    doc = {
        "confidence": 0.9,
        "seeds": [1, 2, 3],
        "fixed": {},
        "points": [
            {"index": 0, "params": {"stations": 2, "scheme": "dcf"}, "runs": 3, "figures": {"miss_ratio": miss}},
            {"index": 1, "params": {"stations": 50, "scheme": "tdma"}, "runs": 0, "figures": {}},
        ],
        "failures": [{"point": 1, "seed": s, "error": "ValueError: deadlines: tdma: the load does not fit (at x.py:1)"}
                     for s in (1, 2, 3)],
    }
    lines = deadlines_report.table(doc).splitlines()
    assert "90 % CI" in lines[0]
    assert "| 2 | dcf | 3 | 0.250 [0.000, 0.600] |" in lines[2]
    assert lines[3].startswith("| 50 | tdma | 0 | – |") and lines[3].endswith("tdma: the load does not fit |")


def test_the_mixed_report_table_gives_each_class_its_ci() -> None:
    def fig(mean: float) -> dict[str, Any]:
        return {"n": 5, "mean": mean, "ci_low": mean - 0.1, "ci_high": mean + 0.1}

    figures = {"miss_ratio": fig(0.3), "miss_ratio_urgent": fig(0.8), "miss_ratio_bulk": fig(0.2),
               "latency_p50_urgent_us": fig(3200.0), "latency_p99_urgent_us": fig(6500.0),
               "latency_p50_bulk_us": fig(4100.0), "latency_p99_bulk_us": fig(9000.0)}
    doc = {"confidence": 0.95, "seeds": [1], "fixed": {},
           "points": [{"index": 0, "params": {"stations": 5, "scheme": "dcf"}, "runs": 5, "figures": figures}]}
    lines = deadlines_report.table(doc).splitlines()
    assert "urgent miss ratio [95 % CI]" in lines[0] and "bulk miss ratio" in lines[0]
    assert lines[2].startswith("| 5 | dcf | 5 | 0.800 [0.700, 0.900] | 0.200 [0.100, 0.300] | 0.300 [0.200, 0.400] | 3.2 / 6.5 | 4.1 / 9.0 |")


def test_the_mixed_example_sweep_is_valid_and_its_urgent_frames_fit_their_deadline() -> None:
    from pathlib import Path

    from sdmac.sweep import load_spec

    spec = load_spec(Path(__file__).resolve().parent.parent / "examples" / "sweeps" / "deadlines_mixed.toml")
    seen = set()
    for point in spec.points():
        p = deadlines.check_params(spec.params(point))
        assert p["mix"] == "urgent+bulk"
        urgent = deadlines.exchange_us({**p, "payload": p["urgent_payload"]}, backoff=False)
        assert p["stations"] * urgent <= p["urgent_deadline_ms"] * 1000.0
        assert deadlines.offered_share(p) < 0.5
        seen.add((p["stations"], p["scheme"]))
        if p["scheme"] == "tdma":
            deadlines.tdma_layout(p)  # TDMA's slots fit every point (it would raise)
    assert seen == {(n, s) for n in (2, 5, 10, 20) for s in ("dcf", "edf", "tdma")}


def test_the_example_sweep_fits_tdma_for_small_n_and_not_for_50() -> None:
    from pathlib import Path

    from sdmac.sweep import load_spec

    spec = load_spec(Path(__file__).resolve().parent.parent / "examples" / "sweeps" / "deadlines.toml")
    assert spec.target == "deadlines"
    fits = {}
    for point in spec.points():
        if point["scheme"] != "tdma":
            continue
        p = deadlines.check_params(spec.params(point))
        try:
            deadlines._plan(p, deadlines.tdma_layout(p), 0)
            fits[point["stations"]] = True
        except ValueError:
            fits[point["stations"]] = False
    assert fits == {2: True, 5: True, 10: True, 20: True, 50: False}


def _realtime_allowed() -> bool:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except PermissionError:
        return False
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return True


@pytest.mark.skipif(not _realtime_allowed(), reason="needs SCHED_FIFO (root or CAP_SYS_NICE) for on-time wake-ups")
def test_tdma_beats_dcf_where_the_schedule_fits() -> None:
    # Five stations release together every 10 ms, station i due when its TDMA slot ends
    # ((i + 1) slots of 2·100 + 318 + 50 µs, less a guard): the schedule fits the period.
    # Under DCF the stations contend and an early-due station often waits behind others;
    # TDMA sends each in its own slot. (EDF cannot help here: each station has one flow,
    # so it has nothing to reorder; see docs/experiments.md.) Relations only.
    p = {"stations": 5, "period_ms": 10.0, "duration_s": 0.5, "deadlines": "slot", "guard_us": 100.0,
         "slack_us": 50.0, "rt_priority": 10}
    r = {s: deadlines.run({**p, "scheme": s}, seed=2) for s in ("dcf", "tdma")}
    print({s: round(x["miss_ratio"], 3) for s, x in r.items()})
    assert r["dcf"]["released"] == r["tdma"]["released"] == 5 * 50
    assert r["dcf"]["miss_ratio"] > 0, "the setting must make DCF miss deadlines"
    assert r["tdma"]["miss_ratio"] < r["dcf"]["miss_ratio"]
    # No TDMA frame overlapped another on air (the medium's truth), and none left its
    # window: on emu the stations hand frames over early as timed requests, which the
    # device puts on the medium at the window's opening however late its thread wakes.
    assert r["tdma"]["outside_slot"] == 0
    assert r["tdma"]["collisions"] == 0


def test_edf_meets_more_urgent_deadlines_than_dcf_with_urgent_and_bulk_flows() -> None:
    # Five stations each release, every 20 ms, a burst of three 500-byte bulk frames
    # (due in 20 ms) and one 64-byte urgent frame (due in 3 ms), together. Under DCF the
    # urgent frame waits in the MAC's FIFO behind its station's burst while five stations
    # share the channel (about 5 · (3 · 283 + 135) µs ≈ 4.9 ms of exchanges before the
    # last urgent frame); EDF sends it first. Same seed, relations only. SCHED_FIFO
    # where the host allows it, for on-time wake-ups; the reordering needs no precise
    # timing.
    p = {"stations": 5, "mix": "urgent+bulk", "period_ms": 20.0, "duration_s": 0.4, "urgent_deadline_ms": 3.0,
         "rt_priority": 10 if _realtime_allowed() else 0}
    r = {s: deadlines.run({**p, "scheme": s}, seed=4) for s in ("dcf", "edf")}
    print({s: (round(x["miss_ratio_urgent"], 3), round(x["miss_ratio_bulk"], 3)) for s, x in r.items()})
    for x in r.values():
        assert x["released_urgent"] == 5 * 20 and x["released_bulk"] == 3 * x["released_urgent"]
        assert x["released_urgent"] + x["released_bulk"] == x["released"]
        assert x["met_urgent"] + x["met_bulk"] == x["met"]
    assert r["dcf"]["miss_ratio_urgent"] > 0, "the setting must make DCF miss urgent deadlines"
    assert r["edf"]["miss_ratio_urgent"] < r["dcf"]["miss_ratio_urgent"]


@pytest.mark.skipif(not _realtime_allowed(), reason="needs SCHED_FIFO (root or CAP_SYS_NICE) for on-time wake-ups")
def test_tdma_carries_urgent_and_bulk_flows_in_each_slot() -> None:
    # Each station's slot holds its period's burst of three bulk frames and its urgent
    # frame; in the slot it sends earliest deadline first. No frame collides or leaves its
    # slot; a station whose slot ends after the urgent deadline cannot meet it.
    p = {"stations": 3, "mix": "urgent+bulk", "period_ms": 20.0, "duration_s": 0.2, "urgent_deadline_ms": 3.0,
         "scheme": "tdma", "rt_priority": 10}
    r = deadlines.run(p, seed=4)
    print({k: r[k] for k in ("miss_ratio_urgent", "miss_ratio_bulk", "sent", "outside_slot", "collisions")})
    assert r["released_urgent"] == 3 * 10 and r["released_bulk"] == 3 * r["released_urgent"]
    assert r["collisions"] == 0 and r["outside_slot"] == 0
    assert r["sent"] > 0
    # Station i's window opens i slots and a guard after the release: a station whose
    # window opens after 3 ms misses every urgent frame (the urgent frame goes first in the
    # slot, so the others can meet it).
    q = deadlines.check_params(p)
    slot = deadlines.slot_us(q)
    late = sum(1 for i in range(3) if i * slot + q["guard_us"] > 3000.0)
    assert late >= 1, f"the setting must put a slot past the urgent deadline (slot {slot:.0f} µs)"
    assert r["miss_ratio_urgent"] >= late / 3 - 1e-9
