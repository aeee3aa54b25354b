"""`sdmac probe IFACE` (python/sdmac/cli_probe.py) without a wireless kernel: the
errors of the real binary for an unknown interface and for lo, and the table and
--json output of a report (a stand-in binary, SDMAC_PROBE, prints a fixed one).
The probe against real radios is tests/test_vm_probe.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import ROOT, run_sdmac

PROBE = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "sdmac-probe"

REPORT = {
    "interface": "wlan9",
    "phy": "phy9",
    "monitor": "sdmon0",
    "freq_mhz": 2412,
    "absent": "02:5d:ac:0b:ad:01",
    "peer": None,
    "entries": [
        {"key": "injection", "title": "injection (echoed)", "verdict": "works", "sent": "QoS Data to 02:5d:ac:0b:ad:01", "got": "echo: TX flags 0x0001 (F_TX_FAIL)", "echo": None},
        {"key": "tx_status_ack", "title": "TX status: ACK (--peer)", "verdict": "not tried", "sent": "", "got": "no --peer given", "echo": None},
        {"key": "coverage_class", "title": "nl80211 coverage class", "verdict": "not supported", "sent": "coverage class 1", "got": "refused: EOPNOTSUPP", "echo": None},
    ],
    "matrix": {},
    "cleanup": {"ok": True},
}


def _need_binary() -> None:
    if not PROBE.exists():
        pytest.skip(f"{PROBE} is not built (make build)")


@pytest.mark.parametrize(
    "iface, message",
    [
        ("nosuch0", "nosuch0: no network interface or wiphy has this name"),
        ("lo", "lo: not a wireless interface"),
    ],
)
def test_errors_name_the_interface(iface: str, message: str, monkeypatch) -> None:
    _need_binary()
    monkeypatch.setenv("SDMAC_PROBE", str(PROBE))
    p = run_sdmac("probe", iface, check=False)
    assert p.returncode == 1, p.stderr
    assert message in p.stderr and "Traceback" not in p.stderr, p.stderr


@pytest.fixture
def fake_probe(tmp_path: Path, monkeypatch) -> Path:
    out = tmp_path / "report.json"
    out.write_text(json.dumps(REPORT))
    args = tmp_path / "args"
    b = tmp_path / "sdmac-probe"
    b.write_text(f"#!/bin/sh\necho \"$@\" >{args}\ncat {out}\n")
    b.chmod(0o755)
    monkeypatch.setenv("SDMAC_PROBE", str(b))
    return args


def test_table(fake_probe: Path) -> None:
    p = run_sdmac("probe", "wlan9", "--peer", "02:00:00:00:01:00", "--channel", "2437")
    assert fake_probe.read_text().split() == ["wlan9", "--peer", "02:00:00:00:01:00", "--channel", "2437"]
    for text in ("sdmac probe wlan9 (phy9), 2412 MHz", "injection (echoed)", "works", "not tried", "not supported", "EOPNOTSUPP", "cleanup: sdmon0 removed"):
        assert text in p.stdout, p.stdout


def test_json(fake_probe: Path) -> None:
    p = run_sdmac("probe", "wlan9", "--json")
    assert json.loads(p.stdout) == REPORT
