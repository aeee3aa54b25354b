"""bench/mediumd.py end to end at its smallest (one pair, 3 s): both media run, and its
figures hold together — both media serve the pair, TCP through sdmac-mediumd stays
under the 54 Mb/s rate on air, and the daemon's counters add up. How fast, how late
and how many system calls are figures, checked against their goals by
bench/mediumd_goals.py (`make bench`), not here."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import load_bench
from vmbed import DAEMON, require_vm


def test_one_pair_against_the_kernel_medium(tmp_path: Path) -> None:
    require_vm()
    if not DAEMON.exists():
        import pytest

        pytest.skip(f"{DAEMON} is not built")
    bench = load_bench("mediumd")
    out = tmp_path / "rows.json"
    rc = bench.main(["--stations", "2", "--seconds", "3", "--sdmac", str(DAEMON), "--json", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    # The result file says what it ran on and when.
    assert {"cores", "cpu_model", "kernel", "date_utc"} <= set(doc["machine"]), doc["machine"]
    rows = {("kernel" if r["medium"] == "kernel" else "sdmac"): r for r in doc["rows"]}
    k, s = rows["kernel"], rows["sdmac"]
    assert k["status"] == s["status"] == "ok"
    assert k["served"] == s["served"] == 1 == s["pairs"]
    assert s["d_tx_failed"] == 0
    # 54 Mb/s on air: TCP goodput cannot reach it, on any machine.
    assert 0 < s["mbps"] < 54.0, s
    assert k["mbps"] > 0, k
    # The daemon's own statistics over the run: time on air within time busy.
    assert 0 < s["utilization"] <= s["backlog"] <= 1.0 + 1e-6, s
    # System calls, rounds and CPU are counted at all.
    assert s["syscalls_per_frame"] > 0 and s["rounds_per_frame"] > 0, s
    assert 0 < s["cpu_us_per_frame"] and 0 < s["rss_kb"] < 64 * 1024, s
    # How late statuses and deliveries left: counted every second, in order.
    assert 0 <= s["late_p50_us"] <= s["late_p99_us"] <= s["late_max_us"], s


def test_medians_take_each_figure_from_the_runs_that_have_it() -> None:
    bench = load_bench("mediumd")
    # The first run had no all-pairs-sending window; the other two did.
    runs = [{"label": "x", "mbps": 10.0}, {"label": "x", "mbps": 30.0, "backlog_steady": 0.8}, {"label": "x", "mbps": 20.0, "backlog_steady": 0.6}]
    m = bench.median_row(runs)
    assert m["mbps"] == 20.0 and m["label"] == "x"
    assert m["backlog_steady"] == 0.7
    assert (m["runs"], m["steady_runs"]) == (3, 2)
    # A run that timed out is counted, not taken into the medians; with no run done,
    # the row is the failed one, kept.
    runs.append({"label": "x", "status": "timeout", "mbps": None})
    m = bench.median_row(runs)
    assert m["mbps"] == 20.0 and (m["runs"], m["runs_failed"]) == (4, 1)
    m = bench.median_row([{"label": "x", "status": "timeout", "mbps": None, "pairs": 5}])
    assert m["status"] == "timeout" and m["runs_failed"] == 1
