"""The TDMA, EDF, retransmission, rate adaptation and redundancy overlays on hwsim, in a QEMU VM (testbed/overlay_hwsim.sh): the overlay code
the emu tests run (crates/sdmac-overlay, through its overlay_run example), on three
mac80211_hwsim radios whose medium is sdmac-mediumd — a coordinator (hwsim:wlan0) and
two stations (hwsim:wlan1, hwsim:wlan2), each opened by name. TDMA runs on the TSF of
the beacons of a fourth radio (wlan3, alone in an IBSS): every interface fits it
from the beacons it hears (--time-base tsf). The retransmission overlay also runs
through the linux backend on the same radios (linux:wlan0, linux:wlan1).

Judged (behaviour only, never timing):
* no collisions: no two exchanges overlapped on air in a contention-free period, by
  the daemon's own truth records (read from its control socket, not from the
  overlay), and no confirmation failed, let alone through a collision;
* every slot's frame acknowledged: each station has a slot of its own, sent in it, and
  every frame it sent was acknowledged and received by the coordinator;
* the guard interval printed, positive, and the sum of the request-path jitter the
  run measured and the synchronisation error;
* the time base is the TSF: every interface (the coordinator's too) fitted at least
  the warm-up's beacons and kept hearing beacons during the run; the synchronisation
  error is positive, finite, the largest of the fits' and part of the guard; the fits
  found the offset of hwsim's TSF (the guest's CLOCK_REALTIME) from the local clock
  (CLOCK_MONOTONIC), which the guest's clocks give to within seconds, and agree on it
  with each other within their errors;
* EDF and the MAC's FIFO run on the same two stations, and every frame released is
  accounted for (met, late, dropped or unfinished); their miss ratios are printed,
  never judged (the VM's host lag decides them under TCG);
* the retransmission overlay (the MAC's back-to-back retries, then retries beyond a
  burst) from hwsim:wlan0 to hwsim:wlan1 over a link the daemon's configuration gives
  an error probability of 0.3 both ways: every frame accounted for (delivered, late,
  given up, deadline reached or dropped), the attempts on air by the daemon's truth
  records equal to the attempts the confirmations report, one truth record per
  request, and under that loss both policies retry. Which policy delivers more is
  printed, never judged: the emu experiment's relation (retrying beyond the burst
  wins) is about bursts of interference, and the daemon's configuration can only
  give a fixed loss, independent from one attempt to the next.

* the rate adaptation (Minstrel-like, the OFDM rates) and then a fixed series at
  54 Mb/s from hwsim:wlan0 to hwsim:wlan1 over a link the daemon's snr model puts at
  15 dB, where its error model (NIST) loses 54 Mb/s frames and lets low rates through:
  every packet accounted for (delivered, given up or dropped), per rate the attempts
  and successes add up to the run's, the adaptation used more than one rate, and the
  daemon's truth records count as many attempts on air as the confirmations. At 15 dB
  the fixed 54 Mb/s series is more than 7 dB below the SNR where that rate loses 10 %
  of its frames, so the adaptation delivering more is judged; by how much is not;
* seamless redundancy: hwsim:wlan0 -> hwsim:wlan2 on 2412 MHz and hwsim:wlan1 ->
  hwsim:wlan3 on 2437 MHz, the first channel's link at error probability 0.3, the
  second without loss; one channel, two, and two with cancelling: every packet
  accounted for (delivered or lost, acknowledged or not), no duplicate passed up,
  duplicates dropped with two channels, every copy either on air or cancelled, and
  with cancelling at least one queued copy cancelled (the lossy channel falls behind
  the other) with its airtime counted. Loss and latency are printed, never judged.

Overlaps of two frames that both started in contention periods (slot requests and
grants, which go by plain DCF) are reported by the run but not judged: TDMA makes no
promise there. The guard's size is printed, never judged (it is the VM's request path
under TCG).

Skipped, with the reason, where the VM test bed cannot run here or the daemon or the
example is not built (cargo build --release -p sdmac-mediumd -p sdmac-overlay
--example overlay_run).
"""

from __future__ import annotations

import json
import math
import shutil

import pytest

from vmbed import TARGET, TESTBED, daemon_share, run

ROUNDS = 30
BEACONS = 8
PACKETS = 40
PER = 0.3
SNR = 15
RED_PER = 0.3
RUNNER = TARGET / "release" / "examples" / "overlay_run"


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not RUNNER.exists():
        pytest.skip(f"{RUNNER} is not built (cargo build --release -p sdmac-overlay --example overlay_run)")
    share = daemon_share(tmp_path_factory, "overlay-hwsim")
    shutil.copy2(RUNNER, share / "overlay_run")
    r = run(
        TESTBED / "overlay_hwsim.sh",
        args=[str(ROUNDS), str(PACKETS), str(PER), str(SNR), str(RED_PER)],
        timeout=1200,
        share=share,
    )
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    assert "OH PASS" in r.output, detail
    out = share / "out"
    rc = int((out / "tdma.rc").read_text().strip())
    text, err = (out / "tdma.out").read_text(), (out / "tdma.err").read_text()
    assert rc == 0, f"overlay_run: exit {rc}\n{text}\n{err}\n{detail}"
    return json.loads(text.strip().splitlines()[-1]), text, r.output, share


def test_the_time_base_is_the_tsf_of_the_beacons(guest):
    r, text, _, share = guest
    assert r["time_base"] == "tsf", r
    assert r["sync"]["beacons"] == BEACONS, r["sync"]
    names = ["hwsim:wlan0", "hwsim:wlan1", "hwsim:wlan2"]
    warm, end = r["sync"]["warm_up"], r["sync"]["end"]
    assert [w["name"] for w in warm] == names and [e["name"] for e in end] == names, r["sync"]
    for w, e in zip(warm, end):
        assert w["beacons"] >= BEACONS and w["in_fit"] == BEACONS, f"{w}\n{text}"
        # Beacons kept feeding the fit while the slots ran.
        assert e["beacons"] > w["beacons"], f"{w} {e}\n{text}"
        assert 0 < w["error_us"] < math.inf, w
    worst = max(w["error_us"] for w in warm)
    assert r["sync_error_us"] == worst, r
    assert r["guard_us"] == pytest.approx(r["request_path_jitter_us"] + worst), r
    for w in warm:
        assert f"{w['name']}: synchronisation error {w['error_us']:.1f} µs from {w['beacons']} beacons" in text, text
    assert "time base tsf: synchronisation error" in text, text


def test_the_fits_find_the_tsf_offset(guest):
    r, text, _, share = guest
    # hwsim's TSF is CLOCK_REALTIME (µs) plus the radio's offset (0 here); the local
    # clock is CLOCK_MONOTONIC, which /proc/uptime gives in the guest (no suspend).
    realtime_s, uptime_s = (float(v) for v in (share / "out" / "clocks").read_text().split())
    want_us = (realtime_s - uptime_s) * 1e6
    warm = r["sync"]["warm_up"]
    for w in warm:
        assert abs(w["tsf_minus_local_us"] - want_us) < 3e6, f"{w}, clocks {realtime_s} {uptime_s}"
    # One medium, one kernel clock: the interfaces' fits agree within their errors.
    for a in warm:
        for b in warm:
            gap = abs(a["tsf_minus_local_us"] - b["tsf_minus_local_us"])
            assert gap <= a["error_us"] + b["error_us"], f"{a}\n{b}"


def test_the_run_is_on_hwsim_with_two_stations(guest):
    r, text, _, _ = guest
    assert r["backend"] == "hwsim:wlan0,hwsim:wlan1,hwsim:wlan2", r
    assert [s["name"] for s in r["stations"]] == ["hwsim:wlan1", "hwsim:wlan2"], r
    assert sorted(s["slot"] for s in r["stations"]) == [0, 1], r
    assert r["plan"]["slots"] == 2 and r["plan"]["rounds"] == ROUNDS, r


def test_no_collisions_in_the_daemons_truth(guest):
    r, text, _, _ = guest
    t = r["truth"]
    assert t["source"].startswith("the medium daemon's truth records"), t
    # The daemon recorded at least every frame the stations sent in their slots.
    assert t["exchanges"] >= sum(s["sent"] for s in r["stations"]), r
    assert t["overlaps_in_slots"] == 0, f"exchanges overlapped in contention-free periods\n{text}"
    for s in r["stations"]:
        assert s["collisions"] == 0 and s["failed_by_collision"] == 0, f"{s}\n{text}"


def test_every_slots_frame_is_acked(guest):
    r, text, _, _ = guest
    for s in r["stations"]:
        assert s["sent"] > 0, f"{s['name']} sent nothing in its slot\n{text}"
        assert s["acked"] == s["sent"] and s["failed"] == 0 and s["failed_confirmations"] == 0, f"{s}\n{text}"
        assert s["received_by_coordinator"] == s["acked"], f"{s}\n{text}"
    assert r["coordinator"]["refused"] == 0, r


def test_the_guard_is_printed_and_positive(guest):
    r, text, _, _ = guest
    assert r["guard_us"] > 0, r
    assert r["guard_us"] == pytest.approx(r["request_path_jitter_us"] + r["sync_error_us"]), r
    assert r["request_path_jitter_us"] == max(j["spread_us"] for j in r["jitter"]), r
    assert f"guard {r['guard_us']:.1f} µs = request-path jitter" in text, text
    assert "TDMA round" in text and "synchronisation error" in text, text


def test_no_monitor_is_left_behind(guest):
    _, _, output, _ = guest
    tail = output.split("---- monitors left after the runs", 1)[1].strip().splitlines()
    assert tail[0] == "0", output


def test_edf_and_fifo_run_on_hwsim_and_account_for_every_frame(guest):
    share = guest[3]
    out = share / "out"
    rc, text = int((out / "edf.rc").read_text().strip()), (out / "edf.out").read_text()
    assert rc == 0, f"overlay_run edf: exit {rc}\n{text}\n{(out / 'edf.err').read_text()}"
    r = json.loads(text.strip().splitlines()[-1])
    assert r["backend"] == "hwsim:wlan0,hwsim:wlan1,hwsim:wlan2", r
    assert [x["scheduler"] for x in r["runs"]] == ["edf", "fifo"], r
    for run_ in r["runs"]:
        assert run_["finished"] > 0, run_
        assert {(f["station"], f["flow"]) for f in run_["flows"]} == {
            (s, f) for s in ("hwsim:wlan1", "hwsim:wlan2") for f in ("bulk", "urgent")
        }, run_
        for f in run_["flows"]:
            assert f["released"] > 0, f
            assert f["met"] + f["late"] + f["dropped"] + f["unfinished"] == f["released"], f


@pytest.fixture(scope="module")
def retx(guest):
    out = guest[3] / "out"
    rc, text = int((out / "retx.rc").read_text().strip()), (out / "retx.out").read_text()
    assert rc == 0, f"overlay_run retx: exit {rc}\n{text}\n{(out / 'retx.err').read_text()}"
    return json.loads(text.strip().splitlines()[-1]), text


def test_retx_runs_both_policies_over_the_lossy_link(retx):
    r, text = retx
    assert r["backend"] == "hwsim:wlan0,hwsim:wlan1", r
    assert r["loss"]["error_prob_forward"] == pytest.approx(PER), r["loss"]
    assert r["loss"]["error_prob_reverse"] == pytest.approx(PER), r["loss"]
    assert [p["policy"] for p in r["policies"]] == ["mac_retries", "beyond_burst"], r
    assert "relation: " in text, text


def test_retx_accounts_for_every_frame(retx):
    r, text = retx
    for p in r["policies"]:
        assert p["frames"] == PACKETS, f"{p}\n{text}"
        fates = p["delivered"] + p["late"] + p["gave_up"] + p["deadline_reached"] + p["dropped"]
        assert fates == p["frames"], f"{p}\n{text}"
        assert p["delivered"] > 0, f"{p}\n{text}"
        assert p["attempts"] >= p["requests"] >= p["frames"], f"{p}\n{text}"


def test_retx_attempts_on_air_match_the_confirmations(retx):
    r, text = retx
    assert r["truth"]["source"].startswith("the medium daemon's truth records"), r["truth"]
    assert r["truth"]["unassigned_frames"] == 0, f"{r['truth']}\n{text}"
    for p in r["policies"]:
        t = p["truth"]
        assert t["frames"] == p["requests"], f"{p}\n{text}"
        assert t["attempts"] == p["attempts"], f"{p}\n{text}"


def test_retx_both_policies_retry_under_loss(retx):
    r, text = retx
    for p in r["policies"]:
        assert p["retried_packets"] > 0 and p["attempts"] > p["frames"], f"{p}\n{text}"
    # beyond_burst retries with requests of its own, the MAC's retries within one.
    bb = next(p for p in r["policies"] if p["policy"] == "beyond_burst")
    mr = next(p for p in r["policies"] if p["policy"] == "mac_retries")
    assert bb["requests"] > bb["frames"], f"{bb}\n{text}"
    assert mr["requests"] == mr["frames"], f"{mr}\n{text}"


def part(guest, name):
    out = guest[3] / "out"
    rc, text = int((out / f"{name}.rc").read_text().strip()), (out / f"{name}.out").read_text()
    assert rc == 0, f"overlay_run {name}: exit {rc}\n{text}\n{(out / f'{name}.err').read_text()}"
    return json.loads(text.strip().splitlines()[-1]), text


@pytest.fixture(scope="module")
def rate(guest):
    return part(guest, "rate")


def test_rate_runs_the_adaptation_and_the_fixed_series_on_hwsim(rate):
    r, text = rate
    assert r["backend"] == "hwsim:wlan0,hwsim:wlan1", r
    assert r["link"]["snr_db"] == pytest.approx(SNR), r["link"]
    assert [x["policy"] for x in r["runs"]] == ["minstrel", "fixed_top"], r
    assert r["params"]["fixed_rate"] == "54", r["params"]
    assert "relation: the adaptation delivered" in text, text


def test_rate_accounts_for_every_packet(rate):
    r, text = rate
    for x in r["runs"]:
        assert x["sent"] == PACKETS * 5, f"{x}\n{text}"
        assert x["delivered"] + x["gave_up"] + x["dropped"] == x["sent"], f"{x}\n{text}"
        assert sum(p["attempts"] for p in x["per_rate"]) == x["attempts"], f"{x}\n{text}"
        assert sum(p["successes"] for p in x["per_rate"]) == x["delivered"], f"{x}\n{text}"
        assert x["attempts"] >= x["sent"], f"{x}\n{text}"
        # The receiver got what was acknowledged (and perhaps frames whose ACK was lost).
        assert x["received_by_receiver"] >= x["delivered"], f"{x}\n{text}"


def test_rate_adaptation_uses_more_than_one_rate(rate):
    r, text = rate
    m = next(x for x in r["runs"] if x["policy"] == "minstrel")
    assert m["rates_used"] > 1, f"{m}\n{text}"
    assert sum(1 for p in m["per_rate"] if p["attempts"] > 0) == m["rates_used"], m
    f = next(x for x in r["runs"] if x["policy"] == "fixed_top")
    assert [p["rate"] for p in f["per_rate"] if p["attempts"] > 0] == ["54"], f
    # 54 Mb/s at 15 dB is far below its working SNR (see the module's docstring).
    assert m["delivered"] > f["delivered"], f"{m}\n{f}\n{text}"


def test_rate_attempts_on_air_match_the_confirmations(rate):
    r, text = rate
    assert r["truth"]["source"].startswith("the medium daemon's truth records"), r["truth"]
    assert r["truth"]["unassigned_frames"] == 0, f"{r['truth']}\n{text}"
    for x in r["runs"]:
        t = x["truth"]
        assert t["attempts"] == x["attempts"], f"{x}\n{text}"
        # A multi-rate series may go to the kernel as one frame per entry.
        assert t["frames"] >= x["sent"], f"{x}\n{text}"


@pytest.fixture(scope="module")
def red(guest):
    return part(guest, "redundancy")


def test_redundancy_runs_on_two_channels(red):
    r, text = red
    assert [c["freq_mhz"] for c in r["channels"]] == [2412, 2437], r["channels"]
    assert r["error_prob"] == [pytest.approx(RED_PER), pytest.approx(0.0)], r
    assert [m["mode"] for m in r["modes"]] == ["one", "two", "two_cancel"], r


def test_redundancy_accounts_for_every_packet(red):
    r, text = red
    for m in r["modes"]:
        assert m["sent"] == PACKETS * 2, f"{m}\n{text}"
        assert m["delivered"] + m["lost"] == m["sent"], f"{m}\n{text}"
        assert m["acked"] + m["unacked"] == m["sent"], f"{m}\n{text}"
        assert m["duplicates_delivered"] == 0, f"{m}\n{text}"
        assert m["copies_on_air"] + m["copies_cancelled"] == m["copies"], f"{m}\n{text}"
        copies = 1 if m["mode"] == "one" else 2
        assert m["copies"] == copies * m["sent"], f"{m}\n{text}"


def test_redundancy_drops_duplicates(red):
    r, text = red
    one, two, _ = r["modes"]
    assert one["duplicates_dropped"] == 0, f"{one}\n{text}"
    # The second channel has no loss: the copies from both channels reach the receiver.
    assert two["duplicates_dropped"] > 0, f"{two}\n{text}"
    assert two["duplicates_dropped"] + two["delivered"] <= two["copies_on_air"], f"{two}\n{text}"


def test_redundancy_cancels_queued_copies_under_loss(red):
    r, text = red
    _, two, cancel = r["modes"]
    assert two["copies_cancelled"] == 0 and two["airtime_saved_ns"] == 0, f"{two}\n{text}"
    assert cancel["copies_cancelled"] > 0, f"{cancel}\n{text}"
    assert cancel["airtime_saved_ns"] > 0, f"{cancel}\n{text}"
    assert cancel["copies_on_air"] < cancel["copies"], f"{cancel}\n{text}"


def test_retx_runs_through_the_linux_backend_on_the_same_radios(guest):
    # The overlay unchanged on the linux backend (nl80211 + a monitor; the kernel's
    # TX status confirms, so no truth is read from the daemon): every frame accounted
    # for, and the loss retried.
    out = guest[3] / "out"
    rc, text = int((out / "retx_linux.rc").read_text().strip()), (out / "retx_linux.out").read_text()
    assert rc == 0, f"overlay_run retx (linux): exit {rc}\n{text}\n{(out / 'retx_linux.err').read_text()}"
    r = json.loads(text.strip().splitlines()[-1])
    assert r["backend"] == "linux:wlan0,linux:wlan1", r
    for p in r["policies"]:
        fates = p["delivered"] + p["late"] + p["gave_up"] + p["deadline_reached"] + p["dropped"]
        assert p["frames"] == PACKETS and fates == p["frames"], f"{p}\n{text}"
        assert p["delivered"] > 0 and p["attempts"] > p["frames"], f"{p}\n{text}"
        assert p["attempts"] >= p["requests"] >= p["frames"], f"{p}\n{text}"
