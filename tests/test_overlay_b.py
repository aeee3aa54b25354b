"""The seamless-redundancy and rate-adaptation overlays through Python
(``redundancy_run``, ``rate_run``, ``RateAdapter``) on the emu backend.

Every assertion compares runs or counts (fewer lost, none duplicated, fewer copies
on air, more delivered); no rate or latency figure is asserted.
"""

from __future__ import annotations

import time
from typing import Iterator, Tuple

import pytest

emu = pytest.importorskip("sdmac.emu", reason="the sdmac extension module is not built")
from helpers import load_bench  # noqa: E402
from sdmac._core import RateAdapter, rate_run, redundancy_run  # noqa: E402
from sdmac.emu import Interface, Session  # noqa: E402

#: The benchmark's set-up (its channels, its moving station), shared with these tests.
bench = load_bench("overlay_b")
AP_ADDR = bench.AP_ADDR


Pair = Tuple[Interface, Interface]


@pytest.fixture
def channels() -> Iterator[Tuple[Pair, Pair]]:
    """Channel 36 losing 10 % and channel 40 losing 20 %: (ap, sta) on each."""
    a, b = bench.channels(0.10, 0.20)
    with a, b:
        yield (a.interface("ap"), a.interface("sta")), (b.interface("ap"), b.interface("sta"))


def test_two_channels_lose_less_and_never_deliver_twice(
    channels: Tuple[Pair, Pair],
) -> None:
    (ap_a, sta_a), (ap_b, sta_b) = channels
    kw = dict(rates="24x1", packets=200, spacing_us=400.0)
    one = redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, mode="one", **kw)
    two = redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, mode="two", **kw)
    assert one["lost"] > 0, one
    assert two["lost"] < one["lost"], (one, two)
    for r in (one, two):
        assert r["duplicates_delivered"] == 0, r
        assert r["delivered"] + r["lost"] == r["sent"] == 200
    assert one["copies"] == 200 and two["copies"] == 400
    assert two["duplicates_dropped"] > 0
    for r in (one, two):
        for key in ("latency_ns", "ack_latency_ns"):
            p = r[key]
            assert set(p) == {"p50", "p90", "p95", "p99", "max"}, p
            assert 0 < p["p50"] <= p["p90"] <= p["p95"] <= p["p99"] <= p["max"], (key, p)


def test_cancelling_puts_fewer_copies_on_air(channels: Tuple[Pair, Pair]) -> None:
    (ap_a, sta_a), (ap_b, sta_b) = channels
    # The second channel's link is only good for 6 Mb/s: its queue lags behind.
    sta_a.set("default_rates", "24x4")
    sta_b.set("default_rates", "6x4")
    kw = dict(packets=150, payload_len=1400, window=32)
    plain = redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, mode="two", **kw)
    cancel = redundancy_run(
        [sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, mode="two_cancel", **kw
    )
    assert plain["copies_cancelled"] == 0 and plain["copies_on_air"] == 300
    assert cancel["copies_cancelled"] > 0, cancel
    assert cancel["copies_on_air"] < plain["copies_on_air"]
    assert cancel["copies_on_air"] + cancel["copies_cancelled"] == 300
    assert cancel["airtime_saved_ns"] > 0
    assert cancel["duplicates_delivered"] == 0


def test_redundancy_refusals(channels: Tuple[Pair, Pair]) -> None:
    (ap_a, sta_a), (ap_b, sta_b) = channels
    with pytest.raises(ValueError, match="at least two interfaces"):
        redundancy_run([sta_a], [ap_a, ap_b], [AP_ADDR])
    with pytest.raises(ValueError, match="given twice"):
        redundancy_run([sta_a, sta_a], [ap_a, ap_b], [AP_ADDR] * 2)
    with pytest.raises(ValueError, match="invalid mode"):
        redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, mode="three")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window is 0"):
        redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, window=0)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="spacing_us must be a non-negative number of microseconds"):
            redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR] * 2, spacing_us=bad)
    with pytest.raises(ValueError, match="2 destinations given for 1|destinations"):
        redundancy_run([sta_a, sta_b], [ap_a, ap_b], [AP_ADDR])
    with Session.from_scenario(
        bench.channel(bench.FREQS_MHZ[0], 0.0, 1), interfaces=["ap", "sta"]
    ) as same:
        with pytest.raises(ValueError, match="both on channel 36"):
            redundancy_run(
                [sta_a, same.interface("sta")], [ap_a, ap_b], [AP_ADDR] * 2
            )


@pytest.fixture
def far_station() -> Iterator[Interface]:
    """A station 40 m from its AP: 48 and 54 Mb/s fail at its SNR, 36 does not."""
    with bench.far_station() as s:
        yield s.interface("sta")


def test_rate_run_beats_the_top_and_bottom_fixed_rates() -> None:
    runs = {}
    for fixed in (None, "54x8", "6x8"):
        with bench.far_station() as s:
            runs[fixed] = rate_run(
                s.interface("sta"),
                AP_ADDR,
                fixed=fixed,
                duration_ms=400.0,
                payload_len=2000,
                update_ms=20.0,
            )
    adaptive = runs[None]
    best = adaptive["phases"][0]["best"]
    assert best not in (None, "54", "6"), adaptive
    assert adaptive["delivered"] > runs["54x8"]["delivered"], runs
    assert adaptive["delivered"] > runs["6x8"]["delivered"], runs
    assert runs["6x8"]["phases"][0]["best"] is None


def test_rate_run_follows_a_lower_tx_power(far_station: Interface) -> None:
    r = rate_run(
        far_station,
        AP_ADDR,
        duration_ms=800.0,
        payload_len=2000,
        update_ms=20.0,
        steps=[(400.0, 10.0)],
    )
    first, second = (p["best"] for p in r["phases"])
    assert first is not None and second is not None
    assert float(second) < float(first), r["phases"]
    assert far_station.get("tx_power") == 10.0


def test_rate_run_refusals(far_station: Interface) -> None:
    with pytest.raises(ValueError, match="not inside the run"):
        rate_run(far_station, AP_ADDR, duration_ms=100.0, steps=[(200.0, 5.0)])
    with pytest.raises(ValueError, match="sample share"):
        rate_run(far_station, AP_ADDR, sample_share=1.5)
    with pytest.raises(ValueError, match="invalid fixed"):
        rate_run(far_station, AP_ADDR, fixed="7x1")
    with pytest.raises(ValueError, match="update_ms must be a non-negative number of milliseconds"):
        rate_run(far_station, AP_ADDR, update_ms=-5.0)
    with pytest.raises(ValueError, match=r"steps\[1\] offset must be a non-negative number of milliseconds"):
        rate_run(far_station, AP_ADDR, steps=[(100.0, 10.0), (float("nan"), 5.0)])
    with pytest.raises(ValueError, match="not a rate of"):
        RateAdapter(rates=["11"])


def test_rate_adapter_in_a_callers_loop(far_station: Interface) -> None:
    adapter = RateAdapter(update_ms=10.0, seed=3)
    assert adapter.decision(AP_ADDR) is None
    for k in range(300):
        # The interface's clock is CLOCK_MONOTONIC, as is time.monotonic_ns().
        series = adapter.series(AP_ADDR, time.monotonic_ns())
        far_station.data_req(k, b"x" * 1000, dst=AP_ADDR, rates=series)
        c = far_station.data_con(timeout=30.0)  # a guard: returns on the confirmation
        assert c is not None and c.id == k
        adapter.confirm(AP_ADDR, c)
    d = adapter.decision(AP_ADDR)
    assert d is not None and d["packets"] == 300
    assert d["best_throughput"] not in ("54", "48"), d
    assert 0 < d["samples"] < 300
    assert [s["rate"] for s in d["table"]][0] == "6"
