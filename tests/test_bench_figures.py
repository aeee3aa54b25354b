"""The benchmark's computations, on hand-made inputs: the aggregate goodput over the
window in which every pair sends and Jain's index (bench/aggregate.py), and the
system-call count from a real strace 6.1 `-c` table (bench/strace_table.py)."""
from __future__ import annotations

import pytest

from helpers import load_bench

agg = load_bench("aggregate")
strace = load_bench("strace_table")


def client(per_second_bytes, server=True):
    """An iperf3 -J client result with one-second intervals (bytes each); with
    `server`, the server's intervals as --get-server-output puts them."""
    ivs = [{"sum": {"start": float(i), "end": float(i + 1), "bytes": b, "bits_per_second": 8.0 * b, "omitted": False}} for i, b in enumerate(per_second_bytes)]
    total = sum(per_second_bytes)
    d = {"intervals": ivs, "end": {"sum_received": {"bytes": total, "bits_per_second": 8.0 * total / len(ivs)}}}
    if server:
        d["server_output_json"] = {"intervals": ivs}
    return d


def test_two_pairs_that_overlap_half_give_the_channels_rate_not_the_sum_of_averages() -> None:
    # A channel of 8 Mb/s (1e6 B/s). Pair A runs alone for 4 s, then shares with B for
    # 4 s; B then runs alone for 4 s. Each pair's average is 6 Mb/s: summed, 12 Mb/s, more
    # than the channel carries. Over the window where both send: 8 Mb/s, shared evenly.
    a = client([1_000_000] * 4 + [500_000] * 4)
    b = client([500_000] * 4 + [1_000_000] * 4)
    # Spans with no slack (the test is the whole span): A from 0 to 8, B from 4 to 12.
    r = agg.aggregate([a, b], [(0.0, 8.0), (4.0, 12.0)])
    assert r["window_s"] == pytest.approx(4.0)
    assert r["aggregate_mbps"] == pytest.approx(8.0)
    assert r["pair_mbps_window"] == pytest.approx([4.0, 4.0])
    assert r["jain_window"] == pytest.approx(1.0)
    assert r["slack_s"] == pytest.approx(0.0)


def test_slack_narrows_the_window_to_where_every_pair_surely_sends() -> None:
    # 10 s tests whose clients took 12 s from being let go to exiting (2 s of slack):
    # each surely sends from 2 s after it was let go to 10 s after, so two pairs let
    # go together share [2, 10]; intervals are placed 1 s in (half the slack).
    a = client([1_000_000] * 10)
    b = client([1_000_000] * 10)
    r = agg.aggregate([a, b], [(0.0, 12.0), (0.0, 12.0)])
    assert r["window_s"] == pytest.approx(8.0)
    assert r["slack_s"] == pytest.approx(2.0)
    assert r["aggregate_mbps"] == pytest.approx(16.0)


def test_no_common_window_and_missing_results_give_no_aggregate() -> None:
    a, b = client([1000] * 3), client([1000] * 3)
    assert agg.aggregate([a, b], [(0.0, 3.0), (5.0, 8.0)])["aggregate_mbps"] is None
    assert agg.aggregate([a, None], [(0.0, 3.0), (0.0, 3.0)])["aggregate_mbps"] is None
    assert agg.aggregate([a, b], [(0.0, 3.0), None])["aggregate_mbps"] is None
    assert agg.aggregate([], [])["aggregate_mbps"] is None


def test_the_servers_received_bytes_are_preferred_to_the_clients_sent_bytes() -> None:
    sent = client([2_000_000] * 4, server=False)
    sent["server_output_json"] = {"intervals": client([1_000_000] * 4)["intervals"]}
    r = agg.aggregate([sent], [(0.0, 4.0)])
    assert r["aggregate_mbps"] == pytest.approx(8.0)
    # Without the server's output the client's intervals are used.
    r = agg.aggregate([client([2_000_000] * 4, server=False)], [(0.0, 4.0)])
    assert r["aggregate_mbps"] == pytest.approx(16.0)


def test_omitted_intervals_are_left_out_and_partial_intervals_count_in_part() -> None:
    c = client([1_000_000] * 4)
    c["server_output_json"]["intervals"][0]["sum"]["omitted"] = True
    assert [s for s, _, _ in agg.intervals_of(c)] == [1.0, 2.0, 3.0]
    assert agg.bytes_in([(0.0, 1.0, 1000)], 10.0, 10.5, 20.0) == pytest.approx(500.0)
    assert agg.bytes_in([(0.0, 1.0, 1000)], 10.0, 11.0, 20.0) == 0.0


def test_jain_index() -> None:
    assert agg.jain([5.0, 5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert agg.jain([4.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert agg.jain([1.0, 3.0]) == pytest.approx(16 / 20)
    assert agg.jain([0.0, 0.0]) == 0.0 and agg.jain([]) == 0.0


# strace 6.1 -c -f on a daemon's busy loop (the format of the guest's strace; the
# errors column is blank where a call never failed).
STRACE_61 = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 41.02    0.390342          79      4886           sendmsg
 33.61    0.319842          65      4886      4886 recvmsg
 12.40    0.118003          24      4887           clock_gettime
  8.51    0.080995          33      2443           epoll_wait
  4.46    0.042468          17      2443           timerfd_settime
------ ----------- ----------- --------- --------- ----------------
100.00    0.951650          49     19545      4886 total
"""


def test_strace_count_is_the_calls_column_not_usecs_per_call() -> None:
    t = strace.parse(STRACE_61)
    assert t is not None
    assert t["total"] == 19545
    assert t["sendmsg"] == 4886 and t["recvmsg"] == 4886 and t["clock_gettime"] == 4887
    assert strace.total(STRACE_61) == 19545
    assert sum(v for k, v in t.items() if k != "total") == t["total"]


def test_strace_without_a_table_gives_none() -> None:
    assert strace.total("") is None
    assert strace.total("strace: Process 42 attached\n") is None
    # A table cut off before its total line.
    assert strace.total(STRACE_61.rsplit("100.00", 1)[0]) is None


goals = load_bench("goals")
side = load_bench("side_by_side")


def test_goals_compare_with_numbers_and_with_other_rows() -> None:
    rows = [{"label": "a", "x": 1.0, "y": 10.0}, {"label": "b", "x": 2.0}]
    G = goals.Goal
    res, ok = goals.check([G("a", "x", "<", 2.0), G("a", "x", "<", ("b", "x", 0.8))], rows)
    assert [r["met"] for r in res] == [True, True] and ok
    assert res[1]["bound"] == pytest.approx(1.6) and "0.8 x b x" in res[1]["goal"]
    res, ok = goals.check([G("a", "y", ">=", 11), G("a", "missing", ">", 0), G("c", "x", ">", 0)], rows)
    assert [r["met"] for r in res] == [False, False, False] and not ok
    assert any("MISSED" in line for line in goals.lines(res))


def test_side_by_side_gives_each_daemons_figure_and_its_ratio_to_sdmac_mediumd() -> None:
    rows = [
        {"label": "kernel", "stations": 2, "mbps": 300.0},
        {"label": "sdmac-mediumd", "stations": 2, "mbps": 20.0, "cpu_us_per_frame": 10.0, "pairs": 1},
        {"label": "wmediumd-bc", "stations": 2, "mbps": 5.0, "cpu_us_per_frame": 50.0, "pairs": 1},
        {"label": "wmediumd-rf", "stations": 2, "status": "timeout", "pairs": 1, "clients_done": 0},
    ]
    t = side.table(rows, 2)
    mb = next(x for x in t if x.startswith("aggregate Mb/s"))
    assert "20.0" in mb and "5.0" in mb and "x0.25" in mb
    cpu = next(x for x in t if x.startswith("daemon CPU µs per frame"))
    assert "x5.00" in cpu
    assert any("wmediumd-rf: timeout" in x for x in t)
    assert side.table(rows, 10) == [] and side.table(rows[:2], 2) == []
    assert side.ratio(1.0, 0) is None and side.ratio(None, 2.0) is None
