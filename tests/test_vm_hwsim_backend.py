"""`hwsim:IFACE` opened by name (crates/sdmac-open) on mac80211_hwsim radios whose
medium is sdmac-mediumd, in a QEMU VM (testbed/hwsim_backend.sh): the unchanged
examples (examples/c/oneshot.c built against libsdmac, examples/api/oneshot.py), and
testbed/hwsim_backend_check.py, which subscribes to the daemon's truth stream itself
and sets each confirmation against the daemon's record of the same frame.

Judged (behaviour only, never timing):
* perfect link: every one-shot (54 Mb/s, one try) acknowledged after exactly one
  attempt, truth A for each, and each confirmation's truth and on-air times (t_start,
  t5) those of the daemon's record of its frame;
* link error probability 0.3 (set through the control socket, A -> AP only): the
  share not acknowledged within a 99.9 % binomial interval of 0.3, each after one
  attempt, every one not acknowledged LD (cause link_error_prob), every acknowledged
  one A, frame by frame as the daemon's records say;
* set/get through the daemon: per-queue EDCA and the ACK timeout read back what was
  set, a CWmin that is no 2^k - 1 is refused as an invalid value, the attributes
  nl80211 carries are the linux backend's, the others "not supported";
* the daemon killed half way: every request is still confirmed (from the kernel's
  echo, which falls back to its in-kernel medium), none after the kill carries
  truth, and `stats` says `truth_available: false`.

Skipped, with the reason, where the VM test bed cannot run here, there is no C
compiler, libsdmac or the daemon is not built (`make build`), or Python cannot run in
the guest (the Python parts).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from test_vm_linux_open import _c_example_into, _counts, _python_into
from vmbed import TESTBED, daemon_share, run

COUNT = 1000
P = 0.3
KILL_COUNT, KILL_AT = 300, 150


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    share = daemon_share(tmp_path_factory, "hwsim-backend")
    _c_example_into(share)
    no_python = _python_into(share)
    if not no_python:
        shutil.copy2(TESTBED / "hwsim_backend_check.py", share / "check.py")
        shutil.copy2(TESTBED / "truth_stream.py", share / "truth_stream.py")
        shutil.copy2(TESTBED / "hwsim_backend_attrs.py", share / "attrs.py")
    r = run(TESTBED / "hwsim_backend.sh", args=[str(COUNT), str(P)], timeout=900, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    assert "HB PASS" in r.output, detail
    return share, detail, no_python


def _part(share: Path, part: str) -> tuple[int, str, str]:
    out = share / "out"
    return int((out / f"{part}.rc").read_text().strip()), (out / f"{part}.out").read_text(), (out / f"{part}.err").read_text()


def _check(guest, part: str) -> dict:
    share, detail, no_python = guest
    if no_python:
        pytest.skip(f"Python cannot run in the guest: {no_python}")
    rc, out, err = _part(share, part)
    assert rc == 0, f"{part}: exit {rc}\n{out}\n{err}\n{detail}"
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("part", ["c", "py"])
def test_examples_on_a_perfect_link_are_all_acked(guest, part):
    share, detail, no_python = guest
    if part == "py" and no_python:
        pytest.skip(f"Python cannot run in the guest: {no_python}")
    rc, out, err = _part(share, part)
    assert rc == 0, f"{part}: exit {rc}\n{out}\n{err}\n{detail}"
    assert "backend: hwsim:wlan0" in out, out
    assert _counts(out) == {"acked": COUNT, "ack_timeout": 0, "sent": 0, "dropped": 0, "no_report": 0}, f"{out}\n{err}"


def test_perfect_link_truth_is_A_frame_by_frame(guest):
    r = _check(guest, "perfect")
    assert r["count"] == COUNT and r["ids_in_order"], r
    assert r["status"] == {"acked": COUNT}, r
    assert r["attempts"] == {"1": COUNT}, r
    assert r["set"] == {"A": COUNT} and r["cause"] == {"none": COUNT} and r["no_truth"] == 0, r
    assert r["records"] == COUNT and r["mismatch"] == 0, r
    assert r["stats"]["truth_available"] is True and r["stats"]["truth_joined"] == COUNT, r


def test_lossy_link_truth_is_LD_frame_by_frame(guest):
    r = _check(guest, "lossy")
    assert r["count"] == COUNT and r["ids_in_order"], r
    assert r["attempts"] == {"1": COUNT}, r
    acked, lost = r["status"].get("acked", 0), r["status"].get("ack_timeout", 0)
    assert acked + lost == COUNT, r
    # 99.9 % interval (Wilson) of the share not acknowledged.
    z, n, k = 3.29, COUNT, lost
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert c - h <= P <= c + h, f"{k}/{n} not acknowledged: {P} not within [{c - h:.3f}, {c + h:.3f}]\n{r}"
    assert r["set"] == {"A": acked, "LD": lost}, r
    assert r["cause"] == {"none": acked, "link_error_prob": lost} and r["no_truth"] == 0, r
    assert r["records"] == COUNT and r["mismatch"] == 0, r


def test_daemon_killed_confirmations_go_on_without_truth(guest):
    r = _check(guest, "kill")
    assert r["count"] == KILL_COUNT and r["ids_in_order"], r
    assert r["truth_after_kill"] == 0, r
    assert r["stats"]["truth_available"] is False, r
    # Before the kill the daemon's truth came.
    assert r["stats"]["truth_joined"] >= 1, r
    # Statuses from the kernel's echo (frames the daemon held when it died end
    # no_report); nothing is dropped by the backend.
    assert set(r["status"]) <= {"acked", "ack_timeout", "no_report"}, r


def test_edca_and_ack_timeout_go_through_the_daemon(guest):
    a = _check(guest, "attrs")
    # The engine's EDCA defaults (non-AP) before anything is set.
    assert (a["aifsn BE"], a["cw_min BE"], a["cw_max BE"]) == ("3", "15", "1023"), a
    assert (a["aifsn VO"], a["cw_min VO"], a["cw_max VO"]) == ("2", "3", "7"), a
    for k in ("set aifsn VI 5", "set cw_min VI 31", "set cw_max VI 255", "set txop_limit VI 1504", "set ack_timeout 80"):
        assert a[k] == "ok", (k, a)
    assert (a["aifsn VI after"], a["cw_min VI after"], a["cw_max VI after"], a["txop_limit VI after"]) == ("5", "31", "255", "1504.0"), a
    assert a["set cw_min VI 20"].startswith("InvalidValue"), a
    assert a["ack_timeout after"] == "80.0", a
    assert float(a["tx_power"]) > 0 and a["frequency"] == "2412", a
    assert a["retry_limit"].startswith("Unsupported"), a
    assert a["truth_available"] == "True", a
