"""The command line: help, version, argument errors."""

import pytest

from helpers import run_sdmac


@pytest.mark.parametrize(
    "args, expect",
    [
        (["--help"], "sim"),
        (["sim", "--help"], "saturation"),
        (["sim", "saturation", "--help"], "--stations"),
        (["sim", "examples/scenarios/two_stations_cbr.toml", "--help"], "--pcap"),
    ],
)
def test_help(args, expect):
    p = run_sdmac(*args)
    assert "Usage:" in p.stdout
    assert expect in p.stdout


def test_version():
    import sdmac

    p = run_sdmac("--version")
    assert sdmac.__version__ in p.stdout
    assert sdmac.version() == sdmac.__version__


def test_missing_scenario_file(tmp_path):
    p = run_sdmac("sim", tmp_path / "nope.toml", check=False)
    assert p.returncode != 0
    assert "nope.toml" in p.stderr


@pytest.mark.parametrize("stations", ["0", "1,x", ""])
def test_bad_station_list(stations):
    p = run_sdmac("sim", "saturation", "--stations", stations, "--duration", "0.1", check=False)
    assert p.returncode == 2
    assert "--stations" in p.stderr


def test_unknown_rate_is_a_clean_error():
    p = run_sdmac("sim", "saturation", "--rate", "55", "--stations", "1", "--duration", "0.1", check=False)
    assert p.returncode == 1
    assert "55" in p.stderr
    assert "Traceback" not in p.stderr
