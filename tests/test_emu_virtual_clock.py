"""emu's virtual clock from Python (``Session(..., clock="virtual")``) and the two
experiments that use it: RT-WLAN's TDMA mode and the deadline experiment.

On the virtual clock the medium's time moves only when every interface taken waits in
a receiving primitive, so no host stall reaches the air and a run depends only on its
seed: the tests assert exact counts (zero drops, zero misses) and identical results of
two runs. The one figure that measures the host, ``wall_s``, is left out of the
comparison."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sdmac import _core
from sdmac.experiments import deadlines, rtwlan


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    strip = lambda r: json.dumps({k: v for k, v in r.items() if k != "wall_s"}, sort_keys=True)  # noqa: E731
    assert strip(a) == strip(b)


def test_a_wait_returns_at_exactly_its_deadline_on_the_medium_s_clock() -> None:
    with _core.Session.paper(clock="virtual") as s:
        assert s.clock == "virtual"
        sta = s.interface("sta")
        s.take_no_part("ap")  # never taken: takes no part anyway
        t0 = sta.now()
        assert t0 == s.now()
        assert sta.data_con(timeout=0.003) is None
        assert sta.now() == t0 + 3_000_000
        with pytest.raises(_core.Unsupported, match="virtual clock"):
            sta.fileno()
        with pytest.raises(ValueError, match='no interface "nobody"'):
            s.take_no_part("nobody")
        assert s.stalls() == []


def test_a_bad_clock_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match='clock "sundial"'):
        _core.Session.paper(clock="sundial")
    with pytest.raises(ValueError, match="clock = virtual runs mode tdma only"):
        rtwlan.check_params({"mode": "dcf", "clock": "virtual"})
    with pytest.raises(ValueError, match="clock must be one of wall, virtual"):
        deadlines.check_params({"clock": "lunar"})
    with pytest.raises(ValueError, match="rt_priority > 0 has no use on the virtual clock"):
        deadlines.check_params({"clock": "virtual", "rt_priority": 10})


@pytest.mark.parametrize("repliers", [1, 2])
def test_rtwlan_tdma_on_the_virtual_clock_drops_nothing_where_the_slots_fit(repliers: int) -> None:
    runs = {}
    for spacing in (20, 5, 3, 1.5):
        p = {"spacing_ms": spacing, "repliers": repliers, "packets": 40, "mode": "tdma", "clock": "virtual"}
        r = rtwlan.run(p, seed=1)
        runs[spacing] = r
        if r.get("refused"):
            # Refused before sending, with the plan's arithmetic.
            assert r["tdma_fits"] == 0 and r["plan"]["needed_us"] > r["plan"]["round_us"], r["refused"]
            continue
        hosts = [f"host{k}" for k in range(1, repliers + 1)]
        assert r["tdma_fits"] == 1 and r["tdma_collisions"] == 0
        assert r["request_drop_share"] == 0.0, (spacing, r)
        for h in hosts:
            assert r[f"{h}_drop_share"] == 0.0, (spacing, h, r)
            assert r[f"{h}_reply_outside_slot"] == 0 and r[f"{h}_reply_stalls"] == 0
        assert r["request_outside_slot"] == 0 and r["request_stalls"] == 0
        # The synchronisation error is 0 on emu and the virtual clock has no jitter.
        assert r["timing"]["api_jitter_us"] == 0.0
    # 20 ms always fits; 1.5 ms never does (even without a guard: see the plan test).
    assert not runs[20].get("refused") and runs[1.5].get("refused")
    # The same seed gives the same run.
    again = rtwlan.run({"spacing_ms": 5, "repliers": repliers, "packets": 40, "mode": "tdma",
                        "clock": "virtual"}, seed=1)
    _same(runs[5], again)


@pytest.mark.parametrize("n", [2, 5])
def test_deadlines_on_the_virtual_clock_tdma_misses_nothing_and_runs_repeat(n: int) -> None:
    p = {"stations": n, "period_ms": 10.0, "duration_s": 0.2, "deadlines": "slot", "guard_us": 100.0,
         "slack_us": 50.0, "clock": "virtual"}
    tdma = deadlines.run({**p, "scheme": "tdma"}, seed=2)
    assert tdma["released"] == n * 20
    assert tdma["miss_ratio"] == 0.0 and tdma["met"] == tdma["released"]
    assert tdma["collisions"] == 0 and tdma["outside_slot"] == 0 and tdma["expired"] == 0
    assert tdma["host_lag_max_us"] == 0.0
    _same(tdma, deadlines.run({**p, "scheme": "tdma"}, seed=2))
    edf = deadlines.run({**p, "scheme": "edf"}, seed=2)
    dcf = deadlines.run({**p, "scheme": "dcf"}, seed=2)
    assert edf["released"] == dcf["released"] == n * 20
    assert tdma["miss_ratio"] <= edf["miss_ratio"] and tdma["miss_ratio"] <= dcf["miss_ratio"]
    _same(edf, deadlines.run({**p, "scheme": "edf"}, seed=2))
