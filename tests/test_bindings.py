"""The Python API of the extension module: airtime, progress callbacks, errors,
the GIL released while simulating, Ctrl-C."""

import json
import signal
import subprocess
import sys
import threading
import time

import pytest

import sdmac
from helpers import SCENARIOS, _child_setup


def test_airtime_reference_values():
    # 802.11a: 50 B payload in an 86 B MPDU at 54 Mb/s lasts 36 µs; an ACK (14 B) at 6 Mb/s 44 µs.
    assert sdmac.airtime_us("802.11a", "54", 86) == 36.0
    assert sdmac.airtime_us("802.11a", "6", 14) == 44.0
    # 802.11b long preamble: 192 µs + 8 bits per µs at 1 Mb/s.
    assert sdmac.airtime_us("802.11b", "1", 14) == 192.0 + 112.0
    assert sdmac.airtime_us("802.11b", "11", 14, short_preamble=True) < sdmac.airtime_us("802.11b", "11", 14)


@pytest.mark.parametrize("standard, rate", [("802.11z", "54"), ("802.11a", "55"), ("802.11a", "11")])
def test_airtime_errors(standard, rate):
    with pytest.raises(ValueError):
        sdmac.airtime_us(standard, rate, 100)


def _text(name="two_stations_cbr.toml"):
    return (SCENARIOS / name).read_text()


def test_run_scenario_returns_json():
    res = json.loads(sdmac.run_scenario(_text(), name="two.toml"))
    assert res["aggregate"]["throughput_mbps"] > 0
    assert res["stopped_early"] is False


def test_progress_callback_sees_the_run():
    seen = []
    res = json.loads(sdmac.run_scenario(_text(), progress=lambda s, t, e: seen.append((s, t, e)), progress_step_s=0.1))
    assert len(seen) >= 10
    sims = [s for s, _, _ in seen]
    assert sims == sorted(sims)
    assert all(t == pytest.approx(2.0) for _, t, _ in seen)
    assert seen[-1][2] <= res["events"]


def test_progress_returning_false_stops_early():
    calls = []

    def stop_after_three(sim_s, total_s, events):
        calls.append(sim_s)
        return len(calls) < 3

    res = json.loads(sdmac.run_scenario(_text(), progress=stop_after_three, progress_step_s=0.1))
    assert len(calls) == 3
    assert res["stopped_early"] is True


def test_progress_exception_propagates():
    class Boom(Exception):
        pass

    def boom(*_):
        raise Boom("from the callback")

    with pytest.raises(Boom, match="from the callback"):
        sdmac.run_scenario(_text(), progress=boom)


def test_scenario_error_is_value_error():
    with pytest.raises(ValueError, match=r"^my\.toml:\d+: "):
        sdmac.run_scenario('duration = 1.0\n[[station]]\nname = "a"\nposition = [1]\n', name="my.toml")


def test_pcap_error_is_os_error(tmp_path):
    with pytest.raises(OSError):
        sdmac.run_scenario(_text(), pcap=str(tmp_path / "missing" / "x.pcapng"))


def test_bad_arguments():
    with pytest.raises(ValueError):
        sdmac.run_scenario(_text(), progress_step_s=0)
    with pytest.raises(ValueError):
        sdmac.saturation(stations=[])
    with pytest.raises(ValueError):
        sdmac.saturation(duration=-1)
    with pytest.raises(ValueError, match="rate"):
        sdmac.saturation(rate="55", stations=[1], duration=0.1)


def test_saturation_api():
    res = json.loads(sdmac.saturation(stations=[1, 3], duration=0.2, seed=4))
    assert [r["stations"] for r in res["results"]] == [1, 3]
    assert res["params"]["seed"] == 4


def test_gil_released_while_simulating():
    """A Python thread keeps running while the simulator works (no callback)."""
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        start = time.monotonic()
        sdmac.saturation(stations=[20], duration=20.0)
        end = time.monotonic()
    finally:
        done.set()
        t.join()
    during = [x for x in ticks if start < x < end]
    assert end - start > 0.05, "the run was too short to tell"
    assert len(during) >= 5


def test_ctrl_c_stops_a_long_run():
    code = "import sdmac; print('go', flush=True); sdmac.saturation(stations=[50], duration=100000.0)"
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_child_setup
    )
    try:
        assert p.stdout.readline().strip() == "go"
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        # The run would last days: ending at all is what is judged (the timeout is
        # only a guard; TimeoutExpired fails the test).
        _, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert "KeyboardInterrupt" in err
    assert p.returncode != 0


def test_cli_ctrl_c_exits_130():
    from helpers import sdmac_cmd

    p = subprocess.Popen(
        sdmac_cmd("sim", "saturation", "--stations", "50", "--duration", "100000"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_child_setup,
    )
    try:
        # Its first progress line (plain, on a pipe) says the run is under way, so the
        # CLI's handler is in place; a signal during start-up would say nothing.
        first = p.stderr.readline()
        assert first.startswith("sdmac: n=50:"), first
        p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=120)
        err = first + rest
    finally:
        p.kill()
    assert p.returncode == 130
    assert "interrupted" in err
    assert "Traceback" not in err
