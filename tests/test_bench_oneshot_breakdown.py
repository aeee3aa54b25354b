"""bench/oneshot_breakdown.py's pure parts: the summary it takes from the per-sample
CSV of `sdmac bench oneshot` and the table it builds from a saved result. No timing
is run or asserted."""

from __future__ import annotations

from helpers import load_bench

ob = load_bench("oneshot_breakdown")

COLS = ("Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con", "TSDMAC", "Tpath")


def _row(set_: str, k: float) -> dict:
    r = {"id": "1", "set": set_}
    r.update({c: repr(k) for c in COLS})
    return r


def test_summary_counts_acked_samples_with_every_plane_only():
    rows = [_row("A", float(i)) for i in range(1, 101)] + [_row("LD", 1000.0)]
    missing = _row("A", 5000.0)
    missing["Tca"] = ""
    s = ob.summarize(rows + [missing])
    assert s["samples"] == 102 and s["acked_with_planes"] == 100
    for key, _, _ in ob.PARTS:
        assert s["parts"][key] == {"median_us": 50.0, "p99_us": 99.0}


def test_table_side_by_side_with_ratios():
    emu = {k: {"median_us": 2.0, "p99_us": 4.0} for k, _, _ in ob.PARTS}
    emu["to_medium"] = {"median_us": 0.0, "p99_us": 0.0}
    hw = {k: {"median_us": 50.0, "p99_us": 100.0} for k, _, _ in ob.PARTS}
    lines = ob.build_table({"backends": {"emu": {"parts": emu}, "hwsim": {"parts": hw}}})
    assert len(lines) == 2 + len(ob.PARTS)
    api = lines[2].split("|")
    assert api[1].strip().startswith("API + hand-off") and [c.strip() for c in api[2:8]] == ["2.00", "4.00", "50.0", "100.0", "25×", "25×"]
    # A part that is zero on emu has no ratio.
    to_medium = [c.strip() for c in lines[3].split("|")[2:8]]
    assert to_medium == ["0.00", "0.00", "50.0", "100.0", "–", "–"]


def test_table_without_the_vm_run():
    emu = {k: {"median_us": 1.5, "p99_us": 3.0} for k, _, _ in ob.PARTS}
    lines = ob.build_table({"backends": {"emu": {"parts": emu}}})
    assert all(line.count("–") == 4 for line in lines[2:])


def test_table_adds_the_plane_rows_of_the_second_run():
    parts = {k: {"median_us": 1.0, "p99_us": 2.0} for k, _, _ in ob.PARTS}
    planes = {"parts": {k: {"median_us": 3.0, "p99_us": 6.0} for k, _ in ob.PLANE_PARTS}}
    res = {"backends": {"emu": {"parts": parts, "planes": planes}, "hwsim": {"parts": parts, "planes": planes}}}
    lines = ob.build_table(res)
    assert len(lines) == 2 + len(ob.PARTS) + len(ob.PLANE_PARTS)
    assert [c.strip() for c in lines[-1].split("|")[2:8]] == ["3.00", "6.00", "3.00", "6.00", "1.0×", "1.0×"]
