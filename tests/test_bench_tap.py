"""`sdmac bench tap`: the report's computations (medians, intervals, ratios, the
figures of a run) from synthetic inputs, and the generator's packet format and
receiver statistics through the real `sdmac-pktgen` over loopback. No rate is
asserted."""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Dict

import pytest

from helpers import ROOT, load_bench

bt = load_bench("tap").bt
PKTGEN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "sdmac-pktgen"
MEDIUMD = PKTGEN.parent / "sdmac-mediumd"


def test_median_odd_even_and_empty() -> None:
    assert bt.median([3.0, 1.0, 2.0]) == 2.0
    assert bt.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    with pytest.raises(bt.BenchError, match="no values"):
        bt.median([])


def test_median_interval_from_order_statistics() -> None:
    # Three runs: only (min, max), which covers the median with 1 - 2/8 = 75 %.
    assert bt.median_ci([5.0, 1.0, 3.0]) == (1.0, 5.0, 0.75)
    # Ten runs: (x_(2), x_(9)) covers it with 1 - 2 * 11/1024 = 97.9 %; (x_(3),
    # x_(8)) only 89.1 %, below 95 %.
    lo, hi, cov = bt.median_ci([float(x) for x in range(10, 0, -1)])
    assert (lo, hi) == (2.0, 9.0)
    assert math.isclose(cov, 1 - 2 * 11 / 1024)
    # One run: a point, no coverage.
    assert bt.median_ci([7.0]) == (7.0, 7.0, 0.0)


def test_ratio_of_medians_and_its_bounds() -> None:
    r = bt.ratio([20.0, 22.0, 18.0], [10.0, 11.0, 9.0])
    assert math.isclose(r["ratio"], 2.0)
    assert math.isclose(r["low"], 18.0 / 11.0)
    assert math.isclose(r["high"], 22.0 / 9.0)
    assert bt.ratio([1.0], [0.0])["ratio"] is None


def _write_run(out: Path, tcp_bps: float, pps: Dict[str, float], p50: float) -> None:
    out.mkdir(parents=True)
    (out / "s1.json").write_text(json.dumps({"end": {"sum_received": {"bits_per_second": tcp_bps}}}))
    for s, rate in pps.items():
        # 4 x rate sent over 2 s, `rate` packets/s received over a span of 1 s: the
        # figures are over the longer window, 2 s.
        (out / f"{s}_send.json").write_text(json.dumps({"sent": 4 * rate, "duration_s": 2.0}))
        recv = {"received": 2 * rate, "bytes": 2 * rate * 60, "span_s": 1.0, "delay_us": {"p50": p50, "p99": 2 * p50}}
        (out / f"{s}_recv.json").write_text(json.dumps(recv))


def test_figures_of_a_run_summary_goals_and_table(tmp_path: Path) -> None:
    runs: Dict[str, Any] = {"user-vm": [], "kernel-vm": []}
    for i, (u, k) in enumerate([(3000.0, 1000.0), (3300.0, 1100.0), (2700.0, 900.0)]):
        _write_run(tmp_path / f"u{i}", 20e6, {"s2": u, "s3": u, "s4": u}, 100.0)
        _write_run(tmp_path / f"k{i}", 10e6, {"s2": k, "s3": k, "s4": k}, 400.0)
        runs["user-vm"].append(bt.metrics_of_run(tmp_path / f"u{i}"))
        runs["kernel-vm"].append(bt.metrics_of_run(tmp_path / f"k{i}"))
    m = runs["user-vm"][0]
    assert m["s1_tcp_mbps"] == 20.0
    assert math.isclose(m["s2_loss"], 0.5)
    assert m["s4_rx_pps"] == 3000.0 and math.isclose(m["s3_udp_mbps"], 6000 * 60 * 8 / 2 / 1e6)
    assert m["s2_delay_p99_us"] == 200.0
    summary = bt.summarize(runs)
    assert summary["paths"]["kernel-vm"]["metrics"]["s4_rx_pps"]["median"] == 1000.0
    r = summary["ratios"]["user-vm"]
    assert math.isclose(r["s4_rx_pps"]["ratio"], 3.0)
    assert math.isclose(r["s2_delay_p50_us"]["ratio"], 0.25)
    assert math.isclose(r["s1_tcp_mbps"]["ratio"], 2.0)
    assert "user-host" not in summary["ratios"]
    g = bt.goals(summary)
    assert [x["met"] for x in g] == [True, True]
    assert bt.goal_line(g[0]).endswith("ratio 3.00 [2.45, 3.67], met")
    alone = bt.goals(bt.summarize({"user-vm": runs["user-vm"]}))
    assert [x["met"] for x in alone] == [None, None]
    assert bt.goal_line(alone[0]).endswith("not measured")
    text = bt.table(summary)
    assert "| 4. maximum packets/s, 60 B |" in text and "3.00 [" in text


def test_a_missing_or_broken_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(bt.BenchError, match="s1.json: missing"):
        bt.metrics_of_run(tmp_path)
    (tmp_path / "s1.json").write_text("{")
    with pytest.raises(bt.BenchError, match="s1.json: not JSON"):
        bt.metrics_of_run(tmp_path)
    (tmp_path / "s1.json").write_text(json.dumps({"error": "unable to connect"}))
    with pytest.raises(bt.BenchError, match="unable to connect"):
        bt.metrics_of_run(tmp_path)


needs_pktgen = pytest.mark.skipif(not PKTGEN.exists(), reason=f"{PKTGEN} is not built: cargo build --release -p sdmac-tap")


@needs_pktgen
def test_pktgen_counts_every_packet_over_loopback() -> None:
    port = 20000 + os.getpid() % 20000
    recv = subprocess.Popen([str(PKTGEN), "recv", "--bind", f"127.0.0.1:{port}", "--run", "9", "--idle", "1", "--timeout", "30"],
                            stdout=subprocess.PIPE, text=True)
    assert recv.stdout is not None
    assert json.loads(recv.stdout.readline())["ready"] == f"127.0.0.1:{port}"
    send = subprocess.run([str(PKTGEN), "send", "--to", f"127.0.0.1:{port}", "--size", "100", "--pps", "2000", "--duration", "0.5", "--run", "9"],
                          capture_output=True, text=True, timeout=30)
    assert send.returncode == 0, send.stderr
    s = json.loads(send.stdout)
    out, _ = recv.communicate(timeout=30)
    r = json.loads(out.strip().splitlines()[-1])
    # Loopback loses nothing: every sequence number arrives once, each 100 bytes.
    assert s["send_errors"] == 0 and s["sent"] > 0
    assert r["received"] == s["sent"] and r["max_seq"] == s["sent"] - 1
    assert r["bytes"] == 100 * s["sent"] and r["duplicates"] == 0 and r["foreign"] == 0
    d = r["delay_us"]
    assert 0 <= d["p50"] <= d["p90"] <= d["p99"] <= d["p99_9"] <= d["max"]


@needs_pktgen
def test_pktgen_bad_arguments_are_named() -> None:
    for args, what in ((["send", "--to", "127.0.0.1:9", "--size", "10"], "--size 10"),
                       (["send", "--to", "127.0.0.1:9", "--pps", "0"], "--pps 0"),
                       (["send"], "--to"),
                       (["recv", "--bind", "nonsense"], "--bind"),
                       (["jump"], "usage")):
        p = subprocess.run([str(PKTGEN), *args], capture_output=True, text=True, timeout=10)
        assert p.returncode == 2 and what in p.stderr, (args, p.stderr)


def test_pktgen_foreign_packets_are_counted_apart(tmp_path: Path) -> None:
    if not PKTGEN.exists():
        pytest.skip(f"{PKTGEN} is not built")
    import socket

    port = 20000 + (os.getpid() + 7) % 20000
    recv = subprocess.Popen([str(PKTGEN), "recv", "--bind", f"127.0.0.1:{port}", "--run", "3", "--idle", "0.5", "--timeout", "10"],
                            stdout=subprocess.PIPE, text=True)
    assert recv.stdout is not None
    recv.stdout.readline()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        stamp = b"SDPG" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + time.monotonic_ns().to_bytes(8, "little")
        s.sendto(stamp, ("127.0.0.1", port))  # ours: run 3, seq 0
        s.sendto(b"hello", ("127.0.0.1", port))  # too short
        s.sendto(b"XXXX" + bytes(20), ("127.0.0.1", port))  # wrong magic
        s.sendto(stamp[:4] + (4).to_bytes(4, "little") + stamp[8:], ("127.0.0.1", port))  # another run
    out, _ = recv.communicate(timeout=20)
    r = json.loads(out.strip().splitlines()[-1])
    assert (r["received"], r["foreign"]) == (1, 3)


def test_sdmac_tap_over_hwsim_has_its_own_ratio_column(tmp_path: Path) -> None:
    runs: Dict[str, Any] = {"user-vm": [], "hwsim-vm": [], "kernel-vm": []}
    for i, (u, h, k) in enumerate([(3000.0, 1500.0, 1000.0), (3300.0, 1650.0, 1100.0), (2700.0, 1350.0, 900.0)]):
        for path, rate in (("user-vm", u), ("hwsim-vm", h), ("kernel-vm", k)):
            d = tmp_path / f"{path}{i}"
            _write_run(d, 10e6, {"s2": rate, "s3": rate, "s4": rate}, 100.0)
            runs[path].append(bt.metrics_of_run(d))
    summary = bt.summarize(runs)
    assert math.isclose(summary["ratios"]["hwsim-vm"]["s4_rx_pps"]["ratio"], 1.5)
    assert math.isclose(summary["ratios"]["user-vm"]["s4_rx_pps"]["ratio"], 3.0)
    head, rule, *rows = bt.table(summary).splitlines()
    assert head == "| Scenario | user-vm | hwsim-vm | kernel-vm | user-vm / kernel-vm | hwsim-vm / kernel-vm |"
    assert rule.count("---") == 6
    s4 = next(r for r in rows if r.startswith("| 4. maximum packets/s"))
    assert s4.rstrip(" |").split(" | ")[-2:] == ["3.00 [2.45, 3.67]", "1.50 [1.23, 1.83]"]


def test_the_unbound_pair_has_its_own_ratio_and_goals(tmp_path: Path) -> None:
    runs: Dict[str, Any] = {"user-vm": [], "kernel-vm": [], "user-vm-unbound": [], "kernel-vm-unbound": []}
    only = ["s2", "s4"]
    for i, scale in enumerate([1.0, 1.1, 0.9]):
        for path, rate, p50 in (("user-vm", 3000.0, 100.0), ("kernel-vm", 1000.0, 400.0),
                                ("user-vm-unbound", 15000.0, 500.0), ("kernel-vm-unbound", 10000.0, 400.0)):
            d = tmp_path / f"{path}{i}"
            _write_run(d, 1e6, {s: rate * scale for s in only}, p50)
            (d / "s1.json").unlink()
            runs[path].append(bt.metrics_of_run(d, only))
    assert "s1_tcp_mbps" not in runs["user-vm"][0] and "s3_udp_mbps" not in runs["user-vm"][0]
    summary = bt.summarize(runs)
    assert math.isclose(summary["ratios"]["user-vm-unbound"]["s4_rx_pps"]["ratio"], 1.5)
    assert math.isclose(summary["ratios"]["user-vm"]["s4_rx_pps"]["ratio"], 3.0)
    g = bt.goals(summary)
    assert [x["goal"].endswith(", unbound PHY") for x in g] == [False, False, True, True]
    assert [x["met"] for x in g] == [True, True, False, False]
    head, rule, *rows = bt.table(summary).splitlines()
    assert head.endswith("| user-vm / kernel-vm | user-vm-unbound / kernel-vm-unbound |")
    # Only the scenarios that ran have rows.
    assert [r.split(" | ")[0] for r in rows] == [
        "| 2. one-way delay at 50,000 pps of 60 B, median",
        "| 2. one-way delay at 50,000 pps of 60 B, 99th percentile",
        "| 2. packets/s received of 50,000 offered",
        "| 4. maximum packets/s, 60 B",
    ]


def test_the_one_thread_paths_have_their_ratios_goals_and_arguments(tmp_path: Path) -> None:
    runs: Dict[str, Any] = {p: [] for p in ("user-vm-one", "kernel-vm", "user-vm-unbound-one", "kernel-vm-unbound")}
    only = ["s2", "s4"]
    for i, scale in enumerate([1.0, 1.2, 0.8]):
        for path, rate, p50 in (("user-vm-one", 2500.0, 300.0), ("kernel-vm", 1000.0, 400.0),
                                ("user-vm-unbound-one", 21000.0, 300.0), ("kernel-vm-unbound", 10000.0, 400.0)):
            d = tmp_path / f"{path}{i}"
            _write_run(d, 1e6, {s: rate * scale for s in only}, p50)
            (d / "s1.json").unlink()
            runs[path].append(bt.metrics_of_run(d, only))
    summary = bt.summarize(runs)
    assert math.isclose(summary["ratios"]["user-vm-one"]["s4_rx_pps"]["ratio"], 2.5)
    assert math.isclose(summary["ratios"]["user-vm-unbound-one"]["s4_rx_pps"]["ratio"], 2.1)
    g = {x["goal"]: x for x in bt.goals(summary)}
    assert g["user-space packets/s at 60 B >= 2x the kernel path's (--one-thread)"]["met"] is True
    assert g["user-space packets/s at 60 B >= 2x the kernel path's, unbound PHY (--one-thread)"]["met"] is True
    assert g["user-space one-way delay (median) < the kernel path's, unbound PHY (--one-thread)"]["met"] is True
    # Without user-vm, its goals are there, unmeasured.
    assert g["user-space packets/s at 60 B >= 2x the kernel path's"]["met"] is None
    assert "user-vm-unbound-one / kernel-vm-unbound" in bt.table(summary).splitlines()[0]
    args = bt.script_args("user-vm-unbound-one", 3, ["s4"], None)
    assert args[0] == "PATH_KIND=user" and args[-1] == "TAPMODE=one"
    assert "TAPMODE=one" not in bt.script_args("user-vm-unbound-syscalls", 3, ["s4"], None)


def test_a_goal_met_by_its_median_only_says_so() -> None:
    runs = {"user-vm": [{"s4_rx_pps": x} for x in (1.0, 2.2, 3.0)],
            "kernel-vm": [{"s4_rx_pps": x} for x in (0.9, 1.0, 1.1)]}
    g = bt.goals(bt.summarize(runs))[0]
    assert g["met"] and g["met_at_low"] is False
    assert bt.goal_line(g).endswith("ratio 2.20 [0.91, 3.33], met (not by the whole interval)")


def test_script_arguments_and_bad_choices_named() -> None:
    assert bt.script_args("kernel-vm-unbound", 4, ["s2", "s4"], "s4") == [
        "PATH_KIND=kernel", "SECONDS=4", "ONLY=s2,s4", "PERF=s4"]
    assert bt.script_args("user-vm-unbound", 3, ["s5"], None, 500) == ["PATH_KIND=user", "SECONDS=3", "ONLY=s5", "S5_PPS=500"]
    with pytest.raises(bt.BenchError, match="s5_pps 0"):
        bt.script_args("user-vm", 4, ["s5"], None, 0)
    assert bt.script_args("user-vm-unbound-syscalls", 3, ["s4"], None)[-1] == "TAPIO=syscalls"
    assert bt.script_args("hwsim-vm", 3, ["s1"], None)[0] == "PATH_KIND=hwsim"
    with pytest.raises(bt.BenchError, match="path 'kernel-host'"):
        bt.script_args("kernel-host", 4, ["s4"], None)
    with pytest.raises(bt.BenchError, match="scenarios 's4,s9'"):
        bt.script_args("user-vm", 4, ["s4", "s9"], None)
    with pytest.raises(bt.BenchError, match="perf 's2'"):
        bt.script_args("user-vm", 4, ["s4"], "s2")


@pytest.mark.skipif(not MEDIUMD.exists(), reason=f"{MEDIUMD} is not built: cargo build --release -p sdmac-mediumd")
def test_the_kernel_path_daemon_takes_the_user_path_phy_table(tmp_path: Path) -> None:
    """The [phy] table the kernel path's daemon gets is the user path's, and the
    daemon accepts it: with --phy first and a configuration that does not exist
    after it, the configuration is what it refuses."""
    phy = bt.unbound_phy()
    assert phy.startswith("[phy]\n") and phy in bt.UNBOUND_SCENARIO and "[[station]]" not in phy
    f = tmp_path / "phy.toml"
    f.write_text(phy)
    p = subprocess.run([str(MEDIUMD), "--phy", str(f), "-c", str(tmp_path / "none.cfg")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--phy" not in p.stderr and "none.cfg" in p.stderr, p.stderr
    f.write_text(phy.replace("difs_us = 3", "difs_us = 2.5"))
    p = subprocess.run([str(MEDIUMD), "--phy", str(f), "-c", str(tmp_path / "none.cfg")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "phy.difs_us" in p.stderr, p.stderr


def test_perf_breakdown_groups_each_sample_by_its_innermost_known_frame() -> None:
    folded = "\n".join([
        "swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle_call;native_safe_halt 50",
        # A lock helper is its caller's: mac80211's transmit path.
        "sdmac-pktgen;entry_SYSCALL_64;__sys_sendto;udp_sendmsg;ip_finish_output2;__dev_queue_xmit;ieee80211_subif_start_xmit;_raw_spin_unlock_irqrestore 7",
        "sdmac-pktgen;entry_SYSCALL_64;__sys_sendto;udp_sendmsg;ip_make_skb;memcpy 3",
        "sdmac-mediumd;[libc.so.6];netlink_recvmsg;skb_copy_datagram_iter 4",
        "sdmac-mediumd;sdmac_mediumd::status_retry::StatusRetries::refused 9",
        "sdmac-pktgen;main;sdmac_pktgen::stamp 2",
        "tap-b;syscall;tctx_task_work;handle_tw_list 5",
        "tap-a;sdmac_tap::convert::to_80211 1",
        "ksoftirqd/0;run_ksoftirqd;tun_net_xmit;memcpy 2",
        "kworker/0:1;worker_thread;some_kernel_work 1",
    ]) + "\n"
    assert bt.perf_breakdown(folded) == {
        "idle": 50,
        "the daemon's own code": 9,
        "mac80211 and cfg80211": 7,
        "hwsim and netlink to the daemon": 4,
        "io_uring": 5,
        "UDP/IP stack and sockets": 3,
        "the generator's own code": 2,
        "TUN device": 2,
        "sdmac-tap's own code": 1,
        "other": 1,
    }
    with pytest.raises(bt.BenchError, match="line 2: not `stack COUNT`"):
        bt.perf_breakdown("a;b 1\nbroken line\n")


def test_perf_stat_counts_are_read_by_event() -> None:
    text = "# started on Sat Nov 28\n\n4321,,context-switches,6000000000,100.00,,\n6012.5,msec,task-clock,6012500000,100.00,2.004,CPUs utilized\n<not supported>,,raw_syscalls:sys_enter,0,100.00,,\n"
    assert bt.perf_stat_counts(text) == {"context-switches": 4321.0, "task-clock": 6012.5}
