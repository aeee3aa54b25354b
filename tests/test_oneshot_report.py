"""Tests of sdmac.analysis.oneshot_report (Table V tables, CSV/JSON files, CCDF plots).

The module is pure Python, so these tests run even when the compiled extension
``sdmac._core`` is not built: the module is then loaded from its file, and the hook
below takes back the skip that conftest.py puts on every test in that case (only
for the tests of this file).
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from helpers import ROOT

MODULE_PATH = ROOT / "python" / "sdmac" / "analysis" / "oneshot_report.py"

# Registers this module as a plugin, for pytest_collection_modifyitems below.
pytest_plugins = [__name__]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """Runs after conftest.py's hook: drops its "extension not built" skip from the
    tests of this file, which do not need the extension."""
    here = Path(__file__).resolve()
    for item in items:
        if Path(item.path).resolve() == here:
            item.own_markers[:] = [m for m in item.own_markers if m.name != "skip"]


def _load_module() -> Any:
    try:
        from sdmac.analysis import oneshot_report

        return oneshot_report
    except ImportError:  # sdmac/__init__.py needs sdmac._core: load the file alone
        spec = importlib.util.spec_from_file_location("sdmac_oneshot_report_standalone", MODULE_PATH)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        return mod


report = _load_module()
COMPONENTS = ("Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con", "TSDMAC", "Tpath")


# --------------------------------------------------------------------------- inputs


def synthetic_samples(n: int = 600, seed: int = 7) -> Dict[str, List[Any]]:
    """Per-sample columns with A/LD/LA outcomes, a few other sets, NaN and None."""
    rng = np.random.default_rng(seed)
    sets = rng.choice(["A", "A", "A", "A", "LD", "LA", "X"], size=n)
    samples: Dict[str, List[Any]] = {
        # deliberately not in report order: write_csv must reorder
        "cause": [str(c) for c in rng.choice(["ok", "noack", "retry limit, cw=1023"], size=n)],
        "Tpath": [],
        "set": [str(s) for s in sets],
        "id": list(range(1000, 1000 + n)),
    }
    base = {"Tsw_req": 8.0, "Thw": 30.0, "Tca": 50.0, "Ttoa": 40.0, "Tsw_con": 9.0, "TSDMAC": 150.0, "Tpath": 300.0}
    for comp in COMPONENTS:
        col = (base[comp] + rng.exponential(base[comp] / 4.0, size=n)).tolist()
        samples[comp] = [float(v) for v in col]
    for i in range(n):
        if sets[i] == "LD":
            samples["Ttoa"][i] = float("nan")  # no ACK: no time on air of the ACK
        if i % 97 == 5:
            samples["Tca"][i] = None
    samples["attempts"] = [int(a) for a in rng.integers(1, 8, size=n)]
    samples["acked"] = [bool(s == "A") for s in sets]
    samples["weight"] = [float(w) for w in rng.random(size=n)]
    return samples


def component_stats(mean: float) -> Dict[str, Any]:
    return {
        "mean": mean,
        "sd": mean / 10.0,
        "min": mean * 0.5,
        "p99": mean * 1.5,
        "p99.9": mean * 1.75,
        "p99.99": None,
        "max": mean * 2.0,
        "ci95": [mean - 0.25, mean + 0.25],
    }


def synthetic_result() -> Dict[str, Any]:
    comps = {c: component_stats(10.0 * (k + 1) + 0.125) for k, c in enumerate(COMPONENTS)}
    comps["Tca"] = dict(comps["Tca"], ci95=[None, None])
    la = {c: component_stats(1000.0 + k) for k, c in enumerate(COMPONENTS)}
    return {
        "config": {"backend": "emu", "n": 200, "seed": 1},
        "sets": {
            "A": {"count": 123, "components": comps},
            "LD": {"count": 0, "components": {}},
            "LA": {"count": 7, "components": la},
        },
    }


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


# --------------------------------------------------------------------------- CSV


def test_csv_round_trip(tmp_path: Path) -> None:
    samples = synthetic_samples()
    path = tmp_path / "samples.csv"
    report.write_csv(samples, path)
    back = report.load_samples_csv(path)
    assert list(back) == ["id", "set", *COMPONENTS, "cause", "attempts", "acked", "weight"]
    assert set(back) == set(samples)
    for name, col in samples.items():
        assert len(back[name]) == len(col)
        bad = [(i, x, y) for i, (x, y) in enumerate(zip(col, back[name])) if not same(x, y)]
        assert not bad, f"column {name}: first differences {bad[:3]}"


def test_csv_header_and_rows(tmp_path: Path) -> None:
    samples = {"extra": ["a,b", "c"], "Tpath": [1.5, 2.25], "set": ["A", "LA"], "id": [1, 2], "Tsw_req": [0.1, None]}
    path = tmp_path / "s.csv"
    report.write_csv(samples, path)
    lines = path.read_text().splitlines()
    assert lines == ["id,set,Tsw_req,Tpath,extra", '1,A,0.1,1.5,"a,b"', "2,LA,,2.25,c"]
    assert report.load_samples_csv(path) == {
        "id": [1, 2],
        "set": ["A", "LA"],
        "Tsw_req": [0.1, None],
        "Tpath": [1.5, 2.25],
        "extra": ["a,b", "c"],
    }


def test_csv_empty_and_ragged(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    report.write_csv({"id": [], "set": [], "Tpath": []}, path)
    assert report.load_samples_csv(path) == {"id": [], "set": [], "Tpath": []}
    with pytest.raises(ValueError, match="differ in length"):
        report.write_csv({"id": [1, 2], "set": ["A"]}, tmp_path / "ragged.csv")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=20))
def test_csv_floats_exact(tmp_path_factory: pytest.TempPathFactory, values: List[float]) -> None:
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    samples = {"id": list(range(len(values))), "set": ["A"] * len(values), "Tsw_con": values}
    report.write_csv(samples, path)
    assert report.load_samples_csv(path)["Tsw_con"] == values


# --------------------------------------------------------------------------- JSON


def test_write_json(tmp_path: Path) -> None:
    result = synthetic_result()
    result["sets"]["A"]["components"]["Thw"]["sd"] = float("nan")
    path = tmp_path / "r.json"
    report.write_json(result, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "config": {')
    back = json.loads(text)
    assert list(back["sets"]) == ["A", "LD", "LA"]
    assert list(back["sets"]["A"]["components"]) == list(COMPONENTS)
    assert back["sets"]["A"]["components"]["Thw"]["sd"] is None
    assert back["sets"]["LA"] == result["sets"]["LA"]


# --------------------------------------------------------------------------- tables


def recorded(result: Dict[str, Any], width: int = 200) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    report.render_table(result, console)
    return console.export_text()


def test_render_table_contents() -> None:
    result = synthetic_result()
    text = recorded(result)
    assert "A — acked (n = 123)" in text
    assert "LA — DATA delivered, ACK lost (n = 7)" in text
    assert "95 % CI of mean" in text
    for stat in ("mean", "sd", "min", "p99", "p99.9", "p99.99", "max"):
        assert stat in text
    lines = text.splitlines()
    # rows in report order, once per table
    rows = [next(i for i, line in enumerate(lines) if f" {c} " in line) for c in COMPONENTS]
    assert rows == sorted(rows)
    for c in COMPONENTS:
        assert sum(f" {c} " in line for line in lines) == 2
    # Tsw_req of A: mean 10.125 -> "10.12" (half to even: 10.125 is exact), etc.
    tsw = next(line for line in lines if " Tsw_req " in line)
    for cell in ("10.12", "1.01", "5.06", "15.19", "17.72", "20.25", "[9.88, 10.38]"):
        assert cell in tsw, (cell, tsw)
    assert " - " in tsw  # p99.99 is null
    tca = next(line for line in lines if " Tca " in line)
    assert "30.12" in tca and "[" not in tca  # CI of nulls -> "-"
    la_tpath = [line for line in lines if " Tpath " in line][1]
    for cell in ("1006.00", "100.60", "503.00", "1509.00", "1760.50", "2012.00", "[1005.75, 1006.25]"):
        assert cell in la_tpath, (cell, la_tpath)


def test_render_table_skips_empty_sets() -> None:
    text = recorded(synthetic_result())
    assert "LD" not in text and "DATA lost" not in text
    result = synthetic_result()
    result["sets"]["LA"] = {"count": 0, "components": {}}
    text = recorded(result)
    assert "A — acked" in text and "LA" not in text
    result["sets"]["A"] = {"count": 0, "components": {}}
    assert "no transmission" in recorded(result)


def test_render_table_not_truncated_when_piped() -> None:
    # A narrow console that is not a terminal (a pipe): full numbers, no ellipsis.
    text = recorded(synthetic_result(), width=50)
    assert "…" not in text
    assert "[1005.75, 1006.25]" in text and "2012.00" in text and "A — acked (n = 123)" in text


# --------------------------------------------------------------------------- CCDF


def test_ccdf_points() -> None:
    px, py = report.ccdf_points([3.0, 2.0, 1.0, 2.0, float("nan")])
    assert px == [1.0, 1.0, 2.0, 3.0]
    assert py == [1.0, 0.75, 0.25, 0.25]
    assert report.ccdf_points([]) == ([], [])
    assert report.ccdf_points([5.0, 5.0]) == ([5.0, 5.0], [1.0, 1.0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=50))
def test_ccdf_points_properties(values: List[float]) -> None:
    px, py = report.ccdf_points(values)
    n = len(values)
    assert px[0] == min(values) and px[-1] == max(values)
    assert px == sorted(px)
    assert py[0] == 1.0 and all(a >= b for a, b in zip(py, py[1:])) and min(py) > 0
    for x, y in zip(px[1:-1], py[1:-1]):  # P(X > x) at each drop
        assert y == sum(v > x for v in values) / n


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_ccdf_png(tmp_path: Path) -> None:
    samples = synthetic_samples(n=3000, seed=11)
    path = tmp_path / "ccdf.png"
    report.plot_ccdf(samples, path)
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > 20_000


def test_plot_ccdf_skips_empty_sets(tmp_path: Path) -> None:
    samples = synthetic_samples(n=300, seed=3)
    keep = [i for i, s in enumerate(samples["set"]) if s != "LA"]
    samples = {k: [v[i] for i in keep] for k, v in samples.items()}
    path = tmp_path / "no_la.png"
    report.plot_ccdf(samples, path, components=("Ttoa", "Tpath"))  # Ttoa: NaN for all LD
    assert path.read_bytes()[:8] == PNG_MAGIC
    # No samples at all: still a figure.
    empty = tmp_path / "empty.png"
    report.plot_ccdf({"id": [], "set": [], "Tpath": []}, empty, components=("Tpath",))
    assert empty.read_bytes()[:8] == PNG_MAGIC


# --------------------------------------------------------------------------- independence


def test_module_needs_no_extension(tmp_path: Path) -> None:
    """The module loads and works with sdmac._core (and the sdmac package) unavailable."""
    code = f"""
import importlib.util, sys
sys.modules["sdmac"] = None
sys.modules["sdmac._core"] = None
spec = importlib.util.spec_from_file_location("oneshot_report", {str(MODULE_PATH)!r})
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
mod.write_csv({{"id": [1], "set": ["A"], "Tpath": [2.5]}}, {str(tmp_path / "x.csv")!r})
print(mod.load_samples_csv({str(tmp_path / "x.csv")!r}))
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "'Tpath': [2.5]" in p.stdout


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result_path, csv_path, png_path = tmp_path / "r.json", tmp_path / "s.csv", tmp_path / "c.png"
    report.write_json(synthetic_result(), result_path)
    report.write_csv(synthetic_samples(n=200), csv_path)
    with pytest.raises(SystemExit) as e:
        report.main([str(result_path), "--samples", str(csv_path), "--ccdf", str(png_path)])
    assert e.value.code == 0
    assert "A — acked (n = 123)" in capsys.readouterr().out
    assert png_path.read_bytes()[:8] == PNG_MAGIC
