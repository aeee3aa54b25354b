"""Opening a backend by name (``sdmac.open``, ``sdmac bench oneshot --backend``,
``examples/api/oneshot.py --backend``): emu and emu:SCENARIO.toml run; a backend
this build lacks fails with a clear message, a non-zero exit and no traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import run_sdmac
from oneshot_runs import LOSSY, run_example, wilson

sdmac = pytest.importorskip("sdmac", reason="the sdmac extension module is not built")
from sdmac.emu import BackendNotAvailable, Interface, OpenError, Session  # noqa: E402

LINE = re.compile(r"^(acked|ack_timeout|sent|dropped): (\d+)$", re.M)


@pytest.fixture
def lossy(tmp_path: Path) -> Path:
    p = tmp_path / "lossy.toml"
    p.write_text(LOSSY)
    return p


def test_open_emu_returns_the_same_interface_type():
    i = sdmac.open("emu")
    with Session.paper() as s:
        assert type(i) is type(s.interface("sta")) is Interface
    assert (i.name, i.address, i.get("bssid"), i.get("channel")) == ("emu", "02:00:00:00:00:02", "02:00:00:00:00:01", 36)
    i.data_req(1, b"x" * 50, dst=i.get("bssid"), rates="54x1")
    c = i.data_con(timeout=5.0)
    assert (c.id, c.status, c.set, c.attempts, c.components["Ttoa"]) == (1, "acked", "A", 1, 96.0)


def test_open_scenario_station(lossy: Path):
    assert sdmac.open(f"emu:{lossy}").address == "02:00:00:00:00:0a"
    assert sdmac.open(f"emu:{lossy}#b").address == "02:00:00:00:00:0b"
    with pytest.raises(OpenError, match=r'no station "ghost" \(stations: ap, a, b\)'):
        sdmac.open(f"emu:{lossy}#ghost")
    with pytest.raises(OpenError, match="nope.toml"):
        sdmac.open(f"emu:{lossy.parent / 'nope.toml'}")


def test_open_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("SDMAC_MEDIUMD_SOCKET", str(tmp_path / "none.sock"))
    with pytest.raises(OpenError, match=r'backend "hwsim:wlan9": no medium daemon answers on the control socket .*none\.sock') as e:
        sdmac.open("hwsim:wlan9")
    assert not isinstance(e.value, BackendNotAvailable) and "linux:wlan9" in str(e.value)
    with pytest.raises(OpenError, match=r'backend name "wifi": unknown kind'):
        sdmac.open("wifi")
    with pytest.raises(OpenError, match="missing interface"):
        sdmac.open("linux:")
    assert issubclass(BackendNotAvailable, OpenError) and issubclass(OpenError, sdmac.emu.SdmacError)


def test_cli_hwsim_without_a_daemon_fails_cleanly(tmp_path, monkeypatch):
    monkeypatch.setenv("SDMAC_MEDIUMD_SOCKET", str(tmp_path / "none.sock"))
    argv = ("bench", "oneshot", "--backend", "hwsim:wlan9", "--count", "5")
    p = run_sdmac(*argv, check=False, timeout=60)
    assert p.returncode != 0
    assert "no medium daemon answers" in p.stderr and "hwsim:wlan9" in p.stderr and "linux:wlan9" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr + p.stdout


@pytest.mark.parametrize("name,why", [("linux:sdmacnone9", "no network interface or wiphy has this name"), ("linux:lo", "not a wireless interface")])
def test_cli_linux_backend_names_the_interface_it_cannot_open(name, why):
    p = run_sdmac("bench", "oneshot", "--backend", name, "--count", "5", "-q", check=False, timeout=60)
    assert p.returncode != 0
    assert name in p.stderr and why in p.stderr, p.stderr
    assert "Traceback" not in p.stderr + p.stdout


def test_cli_refuses_testbed_options_with_another_backend(lossy: Path):
    p = run_sdmac("bench", "oneshot", "--backend", f"emu:{lossy}", "--loss-data", "0.3", "--count", "5", check=False, timeout=60)
    assert p.returncode == 2 and "--loss-data: only for --backend emu" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_cli_bad_backend_name():
    p = run_sdmac("bench", "oneshot", "--backend", "emu:", "--count", "5", check=False, timeout=60)
    assert p.returncode != 0 and 'backend name "emu:": empty scenario path' in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_cli_oneshot_on_a_scenario(lossy: Path, tmp_path: Path):
    out = tmp_path / "r.json"
    run_sdmac("bench", "oneshot", "--backend", f"emu:{lossy}", "--mode", "back-to-back", "--count", "600",
              "--json", out, "-q", timeout=120)
    r = json.loads(out.read_text())
    cfg = r["config"]
    assert cfg["backend"] == f"emu:{lossy}" and cfg["dst"] == "02:00:00:00:00:01" and cfg["channel"] == 36
    assert "loss_data" not in cfg  # the testbed options belong to plain emu
    n = sum(s["count"] for s in r["sets"].values())
    ld, la = r["sets"]["LD"]["count"], r["sets"]["LA"]["count"]
    assert n == 600 and la == 0 and r["sets"]["A"]["count"] + ld == 600
    lo, hi = wilson(ld, n)
    assert lo <= 0.3 <= hi, (ld, n)


def test_example_runs_on_backends(lossy: Path):
    p = run_example("--backend", f"emu:{lossy}", "--count", "400")
    assert p.returncode == 0, p.stderr
    counts = {k: int(v) for k, v in LINE.findall(p.stdout)}
    assert sum(counts.values()) == 400 and counts["sent"] == counts["dropped"] == 0, counts
    lo, hi = wilson(counts["ack_timeout"], 400)
    assert lo <= 0.3 <= hi, counts
    p = run_example("--backend", f"emu:{lossy}#b", "--count", "50")
    assert p.returncode == 0 and "acked: 50" in p.stdout, p.stdout + p.stderr


def test_example_hwsim_without_a_daemon_fails_cleanly(tmp_path, monkeypatch):
    monkeypatch.setenv("SDMAC_MEDIUMD_SOCKET", str(tmp_path / "none.sock"))
    p = run_example("--backend", "hwsim:wlan9")
    assert p.returncode != 0
    assert 'backend "hwsim:wlan9": no medium daemon answers on the control socket' in p.stderr
    assert "Traceback" not in p.stderr
