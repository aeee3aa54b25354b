"""sdmac's extension of the medium daemon's control socket in the QEMU VM test bed
(testbed/control_truth.sh): two mac80211_hwsim radios in an IBSS through
sdmac-mediumd, the link A -> B given an error probability of 0.3 through the
control socket, pings A -> B (10 ms apart), and a subscriber (truth_watch, the example of
crates/sdmac-control) counting the truth records.

What it must show:
* `get` returns what `set` wrote (link error probability, EDCA, ACK timeout), and
  bad values are refused with their code (checked by the client itself);
* every frame the daemon answered appears exactly once: records + records lost ==
  the daemon's own count of statuses, no (transmitter, cookie) twice, none lost;
* a second subscriber that never reads holds nothing up: every ping is answered,
  the daemon answers every frame it took (statuses == frames), and the first
  subscriber still gets every record (its loss counting is tested without a kernel
  in crates/sdmac-mediumd/src/control_clients.rs);
* the share of attempts on A -> B that failed is the link's 0.3 within 5 binomial
  standard deviations (at least 0.05): each attempt's DATA is lost with 0.3 (the
  ACK link B -> A loses nothing), so failed attempts = attempts - acknowledged
  frames; every frame not acknowledged is LD (the DATA lost), none LA.

Skipped, with the reason, where the VM test bed cannot run or the binaries are not
built (cargo build --release -p sdmac-mediumd -p sdmac-control --examples)."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest

from vmbed import TARGET, TESTBED, daemon_share, run

WATCH = TARGET / "release" / "examples" / "truth_watch"
P = 0.3


@pytest.fixture(scope="module")
def share(tmp_path_factory) -> Path:
    if not WATCH.exists():
        pytest.skip(f"{WATCH} is not built (cargo build --release -p sdmac-control --examples)")
    d = daemon_share(tmp_path_factory, "truth")
    shutil.copy2(WATCH, d / "truth_watch")
    return d


def _count(pattern: str, text: str) -> int:
    m = re.search(pattern, text, re.M)
    assert m, f"no {pattern!r} in the output"
    return int(m.group(1))


def test_truth_stream_and_set_get_through_the_daemon(share: Path) -> None:
    r = run(
        TESTBED / "control_truth.sh",
        args=["/share/sdmac-mediumd", "/share/truth_watch", str(P), "1500"],
        timeout=420,
        share=share,
    )
    out = r.output
    detail = f"status {r.status}, {r.accel}\n--- output\n{out}"
    assert r.status == 0, detail
    for line in (
        "CHECK OK: get link returns the error probability set",
        "CHECK OK: get EDCA returns what set wrote",
        "CHECK OK: a CWmin that is no 2^k-1 is refused (out of range)",
        "CHECK OK: an unknown station is refused",
        "CHECK OK: get ACK timeout returns what set wrote (80000 ns)",
        "TRUTH OK: a second subscriber subscribed and reads no more",
        "TRUTH OK: the client read to the end",
        "TRUTH PASS",
    ):
        assert line in out, f"missing {line!r}\n{detail}"
    assert "CHECK FAIL" not in out, detail

    records = _count(r"^RECORDS (\d+)", out)
    lost = _count(r"^LOST (\d+)", out)
    statuses = _count(r"^TRUTH DAEMON frames \d+ statuses (\d+)", out)
    frames_in = _count(r"^TRUTH DAEMON frames (\d+)", out)
    assert statuses == frames_in, f"every frame taken is answered\n{detail}"
    sent = _count(r"^(\d+) packets transmitted", out)
    received = _count(r"packets transmitted, (\d+) (?:packets )?received", out)
    assert received >= 0.95 * sent, f"pings go through despite the stuck subscriber\n{detail}"
    assert _count(r"^DUPLICATES (\d+)", out) == 0, detail
    assert lost == 0, f"the subscriber read all along, nothing should be dropped\n{detail}"
    assert records == statuses, f"one record per status: {records} records, {statuses} statuses\n{detail}"

    m = re.search(r"^AB frames (\d+) attempts (\d+) acked (\d+) ld (\d+) la (\d+)", out, re.M)
    assert m, detail
    frames, attempts, acked, ld, la = map(int, m.groups())
    assert frames >= 1500, f"every echo request is a unicast frame A -> B\n{detail}"
    assert la == 0, f"the ACK link loses nothing: no LA\n{detail}"
    assert acked + ld == frames, detail
    failed = attempts - acked
    share_failed = failed / attempts
    sigma = math.sqrt(P * (1 - P) / attempts)
    tol = max(0.05, 5 * sigma)
    assert abs(share_failed - P) <= tol, f"failed attempts {failed}/{attempts} = {share_failed:.3f}, not {P} ± {tol:.3f}\n{detail}"
    if ld:
        assert f"AB_CAUSE link_error_prob {ld}" in out or "AB_CAUSE collision" in out, detail
