"""`sdmac sweep` specs: parsing, the paths into a scenario, and every error naming
the file, the line and the key."""

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from helpers import ROOT, SCENARIOS, strip_wall_clock
from sdmac import _core
from sdmac.sweep import SpecError, load_spec
from sdmac.sweep import overrides, toml_text
from sdmac.sweep.figures import scenario_figures, select, unmatched
from sdmac.sweep.tasks import build_tasks, preflight

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HIDDEN = SCENARIOS / "hidden_terminal.toml"


def write_spec(tmp_path, text, name="spec.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


GOOD = f"""\
scenario = "{HIDDEN}"
seeds = 3
figures = ["aggregate.*"]

[grid]
"flow[*].rate_pps" = [200, 600]
"link[2].rx_power_dbm" = [-130, -60]

[fixed]
duration = 0.2
"""


def test_example_spec_parses():
    spec = load_spec(ROOT / "examples" / "sweeps" / "hidden_terminal.toml")
    assert spec.kind == "scenario"
    assert spec.scenario_path.resolve() == HIDDEN.resolve()
    assert spec.seeds == (1, 2, 3, 4, 5)
    assert len(spec.points()) == 4 * 2
    assert spec.confidence == 0.95


def test_points_seeds_and_tasks(tmp_path):
    spec = load_spec(write_spec(tmp_path, GOOD))
    # The first grid key varies slowest.
    assert spec.points() == [
        {"flow[*].rate_pps": 200, "link[2].rx_power_dbm": -130},
        {"flow[*].rate_pps": 200, "link[2].rx_power_dbm": -60},
        {"flow[*].rate_pps": 600, "link[2].rx_power_dbm": -130},
        {"flow[*].rate_pps": 600, "link[2].rx_power_dbm": -60},
    ]
    assert spec.seeds == (1, 2, 3)
    tasks = build_tasks(spec)
    assert [(t.point, t.seed) for t in tasks] == [(p, s) for p in range(4) for s in (1, 2, 3)]
    doc = tomllib.loads(tasks[5].text)  # point 1, seed 3
    assert doc["seed"] == 3 and doc["duration"] == 0.2
    assert [f["rate_pps"] for f in doc["flow"]] == [200, 200]
    assert doc["link"][2]["rx_power_dbm"] == -60
    assert doc["link"][0]["rx_power_dbm"] == -60  # untouched


def test_seed_list_and_nested_grid_keys(tmp_path):
    spec = load_spec(write_spec(tmp_path, f'scenario = "{HIDDEN}"\nseeds = [7, 3]\nconfidence = 0.9\n[grid]\nphy.rate = [6, 54]\n'))
    assert spec.seeds == (7, 3)
    assert spec.confidence == 0.9
    # An unquoted dotted key is a nested table in TOML; it names the same path.
    assert spec.grid == {"phy.rate": [6, 54]}
    assert tomllib.loads(spec.scenario_text(spec.points()[0]))["phy"]["rate"] == 6


def test_relative_scenario_path_is_from_the_spec_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "s.toml").write_text(HIDDEN.read_text())
    spec = load_spec(write_spec(tmp_path, 'scenario = "sub/s.toml"\nseeds = 1\n'))
    assert spec.scenario_path == tmp_path / "sub" / "s.toml"
    assert spec.points() == [{}]


@pytest.mark.parametrize(
    "text, line, words",
    [
        (GOOD.replace("seeds = 3", "seeds = 3\nbogus = 1"), 3, ["bogus", "unknown key"]),
        (GOOD.replace("seeds = 3", "seeds = 0"), 2, ["seeds", "at least 1"]),
        (GOOD.replace("seeds = 3", "seeds = [1, 2, 1]"), 2, ["seeds", "seed 1 is listed twice"]),
        (GOOD.replace("seeds = 3", "seeds = true"), 2, ["seeds"]),
        (GOOD.replace("seeds = 3", "seeds = [-1]"), 2, ["seeds", "-1 is not a seed"]),
        (GOOD.replace("seeds = 3", "seeds = 3\nconfidence = 1.5"), 3, ["confidence", "between 0 and 1"]),
        (GOOD.replace('["aggregate.*"]', "[]"), 3, ["figures", "non-empty list"]),
        (GOOD.replace("[200, 600]", "[]"), 6, ['grid."flow[*].rate_pps"', "non-empty list"]),
        (GOOD.replace("[200, 600]", "200"), 6, ['grid."flow[*].rate_pps"', "non-empty list"]),
        (GOOD.replace("[200, 600]", "[200, 200]"), 6, ['grid."flow[*].rate_pps"', "listed twice"]),
        (GOOD.replace("flow[*]", "flow[5]"), 6, ['grid."flow[5].rate_pps"', "index 5 is out of range", "0 to 1"]),
        (GOOD.replace("link[2]", "link[Z]"), 7, ['grid."link[Z].rx_power_dbm"', "no element named 'Z'"]),
        (GOOD.replace("flow[*].rate_pps", "flow.rate_pps"), 6, ["array of tables", "flow[0]"]),
        (GOOD.replace("flow[*].rate_pps", "flow[*].rate pps"), 6, ["is not a path"]),
        (GOOD.replace("flow[*].rate_pps", "phy"), 6, ["grid.phy", "is a table"]),
        (GOOD.replace("flow[*].rate_pps", "seed"), 6, ["grid.seed", "seeds = ..."]),
        (GOOD.replace("duration = 0.2", '"flow[*].rate_pps" = 5'), 10, ['fixed."flow[*].rate_pps"', "also a grid key"]),
        (GOOD.replace("[200, 600]", "[1979-05-27]"), 6, ['grid."flow[*].rate_pps"', "date value", "not supported"]),
        (GOOD.replace("[grid]", "[grid"), 5, ["not valid TOML"]),
    ],
)
def test_spec_errors_name_file_line_and_key(tmp_path, text, line, words):
    p = write_spec(tmp_path, text)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}: "), msg
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize(
    "text, words",
    [
        ("seeds = 1\n", ["scenario", "experiment", "neither"]),
        (f'scenario = "{HIDDEN}"\nexperiment = "x"\nseeds = 1\n', ["both"]),
        (f'scenario = "{HIDDEN}"\n', ["seeds: missing"]),
        ('scenario = "no/such.toml"\nseeds = 1\n', ["scenario", "cannot read the scenario", "no/such.toml"]),
        ('experiment = "no_such_experiment"\nseeds = 1\n', ["experiment", "unknown experiment 'no_such_experiment'"]),
        ('experiment = "no_such_pkg.mod"\nseeds = 1\n', ["experiment", "cannot import"]),
    ],
)
def test_spec_errors_without_a_line(tmp_path, text, words):
    p = write_spec(tmp_path, text)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    msg = str(e.value)
    assert msg.startswith(str(p)), msg
    for w in words:
        assert w in msg, msg


def test_an_experiment_that_cannot_be_imported(tmp_path, monkeypatch):
    (tmp_path / "brokenexp").mkdir()
    (tmp_path / "brokenexp" / "__init__.py").write_text("")
    (tmp_path / "brokenexp" / "bad.py").write_text("def run(params, seed)\n")
    (tmp_path / "brokenexp" / "norun.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for mod, words in (("bad", ["cannot import", "SyntaxError"]), ("norun", ["has no run(params, seed) function"])):
        p = write_spec(tmp_path, f'experiment = "brokenexp.{mod}"\nseeds = 1\n')
        with pytest.raises(SpecError) as e:
            load_spec(p)
        assert str(e.value).startswith(f"{p}:1: experiment: "), str(e.value)
        for w in words:
            assert w in str(e.value)


def test_preflight_names_the_point_the_simulator_refuses(tmp_path):
    spec = load_spec(write_spec(tmp_path, GOOD.replace("[-130, -60]", "[-60, 500]")))
    with pytest.raises(SpecError) as e:
        preflight(spec)
    msg = str(e.value)
    assert str(tmp_path / "spec.toml") in msg
    assert "link[2].rx_power_dbm = 500 is refused" in msg, msg
    assert "out of range" in msg, msg


def test_preflight_passes_a_good_grid(tmp_path):
    preflight(load_spec(write_spec(tmp_path, GOOD)))


# --------------------------------------------------------------------------- paths


def _doc():
    return tomllib.loads(HIDDEN.read_text())


def test_override_paths():
    doc = _doc()
    overrides.apply(doc, "phy.rate", 24)
    overrides.apply(doc, "flow[*].payload", 100)
    overrides.apply(doc, "flow[1].rate_pps", 7)
    overrides.apply(doc, "station[B].position", [1, 2])
    overrides.apply(doc, "station[B].position[0]", 5)
    overrides.apply(doc, "propagation.exponent", 2.5)  # a table the file lacks
    assert doc["phy"]["rate"] == 24
    assert [f["payload"] for f in doc["flow"]] == [100, 100]
    assert [f["rate_pps"] for f in doc["flow"]] == [600, 7]
    assert doc["station"][1] == {"name": "B", "position": [5, 2]}
    assert doc["propagation"] == {"exponent": 2.5}
    assert doc["station"][0] == {"name": "A"}


@pytest.mark.parametrize(
    "path, words",
    [
        ("flow[2].payload", ["flow[2]", "index 2 is out of range"]),
        ("station[Q].position", ["no element named 'Q'", "A, B, C"]),
        ("phy.rate.x", ["phy.rate", "not a table"]),
        ("phy[0].rate", ["phy[0]", "not an array"]),
        ("station[A]", ["is a table"]),
        ("nothing[0].x", ["no 'nothing'"]),
        ("a..b", ["is not a path"]),
        ("flow[].x", ["empty selector"]),
    ],
)
def test_override_errors(path, words):
    with pytest.raises(overrides.OverrideError) as e:
        overrides.apply(_doc(), path, 1)
    for w in words:
        assert w in str(e.value), str(e.value)


# --------------------------------------------------------------------------- TOML text


@pytest.mark.parametrize("name", ["two_stations_cbr.toml", "hidden_terminal.toml", "two_channels.toml"])
def test_toml_text_round_trip_runs_the_same(name):
    text = (SCENARIOS / name).read_text()
    doc = tomllib.loads(text)
    again = toml_text.dumps(doc)
    assert tomllib.loads(again) == doc
    short = {**doc, "duration": 0.3}
    a = _core.run_scenario(toml_text.dumps(short), name=name)
    b = _core.run_scenario(toml_text.dumps(tomllib.loads(toml_text.dumps(short))), name=name)
    assert strip_wall_clock(a.encode()) == strip_wall_clock(b.encode())


def test_toml_text_values():
    doc = {"a": 1, "b": 0.1, "c": 'q"\\\n', "d": [1, [2, 3]], "e": {"f": True, "g h": 1e-07}, "t": [{"x": 1}, {"x": 2, "y": {"z": "é"}}]}
    assert tomllib.loads(toml_text.dumps(doc)) == doc
    with pytest.raises(TypeError):
        toml_text.dumps({"when": object()})


# --------------------------------------------------------------------------- figures


def test_scenario_figures_are_named_numbers_without_wall_clock():
    text = toml_text.dumps({**tomllib.loads((SCENARIOS / "two_channels.toml").read_text()), "duration": 0.2})
    res = json.loads(_core.run_scenario(text))
    figs = scenario_figures(res)
    assert figs["aggregate.throughput_mbps"] == res["aggregate"]["throughput_mbps"]
    assert figs["stations.ap36.received"] == res["stations"][0]["received"]
    assert figs["mediums.ch149.utilization"] == res["mediums"][1]["utilization"]
    assert figs["aggregate.delay_us.p99.9"] == res["aggregate"]["delay_us"]["p99.9"]
    for k in figs:
        assert not k.startswith(("wall_seconds", "events_per_second", "sim_seconds", "seed")), k
        assert isinstance(figs[k], (int, float)) and not isinstance(figs[k], bool)
    assert not any(k.endswith(".address") for k in figs)


def test_figure_selection():
    names = ["aggregate.sent", "aggregate.delay_us.p99", "stations.a.sent"]
    assert select(names, None) == names
    assert select(names, ["aggregate.*"]) == names[:2]
    assert select(names, ["*.sent"]) == ["aggregate.sent", "stations.a.sent"]
    assert unmatched(names, ["*.sent", "nope"]) == ["nope"]


def test_spec_where_for_messages(tmp_path):
    spec = load_spec(write_spec(tmp_path, GOOD))
    assert spec.where(None, "figures") == f"{tmp_path / 'spec.toml'}:3: figures"
    assert Path(spec.path).name == "spec.toml"


_keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
_tables = st.recursive(
    st.dictionaries(_keys, _values, max_size=4),
    lambda inner: st.dictionaries(_keys, st.one_of(_values, inner, st.lists(inner, min_size=1, max_size=2)), max_size=4),
    max_leaves=10,
)


@given(_tables)
def test_toml_text_reads_back_as_written(doc):
    assert tomllib.loads(toml_text.dumps(doc)) == doc
