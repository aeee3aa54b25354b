"""docs/fuzz.md is what bench/render_fuzz.py writes from bench/results/fuzz.json, and
bench/fuzz_report.py reads libFuzzer's output as `make fuzz` logs it."""
from __future__ import annotations

from helpers import ROOT, load_bench


def test_fuzz_page_is_current() -> None:
    render = load_bench("render_fuzz")
    page = (ROOT / "docs" / "fuzz.md").read_text(encoding="utf-8")
    assert page == render.render(), "docs/fuzz.md is stale: run python3 bench/render_fuzz.py"


def test_fuzz_page_covers_every_target() -> None:
    render = load_bench("render_fuzz")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    joined = makefile.replace("\\\n", " ")
    line = next(x for x in joined.splitlines() if x.startswith("FUZZ_TARGETS ?="))
    targets = line.split("?=")[1].split()
    assert sorted(targets) == sorted(render.WHAT), "every make fuzz target is described"
    cargo = (ROOT / "fuzz" / "Cargo.toml").read_text(encoding="utf-8")
    for t in targets:
        assert f'name = "{t}"' in cargo, t


LOG = """\
fuzz: wmconfig for 1000 runs or 30 s
INFO: Seed: 1
#2\tINITED cov: 10 ft: 11 corp: 1/3b exec/s: 0 rss: 30Mb
#512\tpulse  cov: 40 ft: 60 corp: 9/2Kb lim: 8 exec/s: 256 rss: 31Mb
Done 1000 runs in 2 second(s)
stat::number_of_executed_units: 1000
stat::average_exec_per_sec:     500
stat::new_units_added:          8
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              31
fuzz: wmconfig ended after 2.4 s, exit 0
fuzz: hwsim_msg for 1000 runs or 30 s
#300\tNEW    cov: 5 ft: 5 corp: 4/100b exec/s: 0 rss: 30Mb
==42== ERROR: libFuzzer: deadly signal
Test unit written to fuzz/artifacts/hwsim_msg/crash-abc
stat::number_of_executed_units: 301
stat::average_exec_per_sec:     150
fuzz: hwsim_msg ended after 2.0 s, exit 77
fuzz: failed: hwsim_msg (inputs in fuzz/artifacts/)
"""


def test_report_reads_final_stats_and_crashes() -> None:
    report = load_bench("fuzz_report")
    rep = report.report([LOG.splitlines(keepends=True)])
    w, h = rep["targets"]
    assert (w["target"], w["goal_runs"], w["limit_seconds"]) == ("wmconfig", 1000, 30)
    assert (w["executions"], w["exec_per_s"], w["seconds"], w["reached_goal"]) == (1000, 500, 2.4, True)
    assert (w["corpus_units"], w["corpus_bytes"], w["cov"], w["crashes"]) == (9, 2048, 40, 0)
    assert (h["executions"], h["reached_goal"], h["crashes"], h["exit"]) == (301, False, 1, 77)
    assert h["artifacts"] == ["fuzz/artifacts/hwsim_msg/crash-abc"]
    assert rep["failed_targets"] == ["hwsim_msg"] and rep["total_crashes"] == 1
    # a later log replaces a target of an earlier one
    again = LOG.split("fuzz: hwsim_msg")[0].replace("1000 runs", "2000 runs")
    rep2 = report.report([LOG.splitlines(keepends=True), again.splitlines(keepends=True)])
    assert [t["target"] for t in rep2["targets"]] == ["hwsim_msg", "wmconfig"]
    assert rep2["targets"][1]["goal_runs"] == 2000
    assert [(t["target"], t["goal_runs"]) for t in rep2["earlier_runs"]] == [("wmconfig", 1000)]


def test_report_records_the_sanitizer_each_target_ran_under() -> None:
    report = load_bench("fuzz_report")
    named = LOG.replace("for 1000 runs or 30 s\n", "for 1000 runs or 30 s (sanitizer none)\n", 1)
    w, h = report.report([named.splitlines(keepends=True)])["targets"]
    # a log line without it is from before the sanitizer was named: AddressSanitizer
    assert (w["sanitizer"], h["sanitizer"]) == ("none", "address")
    assert (w["goal_runs"], w["limit_seconds"]) == (1000, 30)
    render = load_bench("render_fuzz")
    page = render.render({"machine": {}, "targets": [w, h], "total_executions": 1301})
    assert "| `wmconfig` |" in page and "| none | 1,000 |" in page
