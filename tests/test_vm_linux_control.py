"""The control half of sdmac's linux backend (crates/sdmac-linux) against the real
kernel: in a QEMU VM (testbed/), two mac80211_hwsim radios. The example
`radio_control` opens wlan0, creates an active monitor interface, sets its channel,
TX power, coverage class and fixed bitrates through nl80211, lowers its
capabilities; the guest script (testbed/linux_control.sh) reads the values back with
`iw`, and checks that closing, a failure right after creation and SIGKILL leave no
monitor behind, and that an unknown interface, lo, a veth, a process without
capabilities and a channel change while another interface is up each fail with a
message naming the interface (and the capability).

Skipped, with the reason, when the VM test bed cannot run here or the example has
not been built (`cargo build --release -p sdmac-linux --examples`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from vmbed import TARGET, TESTBED, require_vm, run

EXAMPLE = TARGET / "release" / "examples" / "radio_control"


@pytest.fixture(scope="module")
def share(tmp_path_factory) -> Path:
    if os.environ.get("SDMAC_VM_TESTS", "1") == "0":
        pytest.skip("VM tests disabled (SDMAC_VM_TESTS=0)")
    if not EXAMPLE.exists():
        pytest.skip(f"{EXAMPLE} is not built (cargo build --release -p sdmac-linux --examples)")
    require_vm()
    d = tmp_path_factory.mktemp("linux_control")
    shutil.copy2(EXAMPLE, d / "radio_control")  # a copy: others may rebuild it meanwhile
    return d


def _json(output: str, prefix: str) -> dict:
    for line in output.splitlines():
        if line.startswith(prefix):
            return json.loads(line[len(prefix):])
    raise AssertionError(f"no {prefix!r} line in\n{output}")


def test_monitor_settings_errors_and_cleanup(share: Path) -> None:
    r = run(TESTBED / "linux_control.sh", timeout=240, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    for line in (
        "LC OK: iw: sdmon0 is a monitor on 2437 MHz / 20 MHz no HT, txpower 15 dBm, address 02:00:00:00:00:00 (the radio's)",
        "LC OK: coverage class: hwsim refuses it (EOPNOTSUPP), reported as not supported, iw phy still says 0",
        "LC OK: fixed bitrates 1 and 54 Mb/s acknowledged by the kernel",
        "LC OK: after open: no effective capability, CAP_NET_ADMIN alone permitted",
        "LC OK: closed: sdmon0 removed (CAP_NET_ADMIN raised again for it)",
        "LC OK: unknown interface: radio_control: nosuch0: no network interface or wiphy has this name",
        "LC OK: loopback: radio_control: lo: not a wireless interface",
        "LC OK: veth: radio_control: lcva: not a wireless interface",
        "LC OK: no capabilities: radio_control: phy1: opening a radio needs CAP_NET_ADMIN and CAP_NET_RAW, which this process lacks: run as root, or: sudo setcap cap_net_admin,cap_net_raw+ep",
        "LC OK: failure after creation: radio_control: fault injection: failing after sdmon0 was created",
        "LC OK: channel while another interface is up: radio_control: channel: refused while other interfaces of phy1 are up (wlan1)",
        "LC OK: 5180 MHz HT20 read back; 11 Mb/s on 5 GHz refused before the kernel is asked",
        "LC OK: SIGKILL: the kernel removed sdmon0 with its owner's socket",
        "LC PASS",
    ):
        assert line in r.output, f"missing {line!r}\n{detail}"

    # What the example reported while the monitor was up: the radio's capabilities
    # from GET_WIPHY, and each get answered from the kernel (or as not supported).
    ready = _json(r.output, "LC JSON READY ")
    radio, mon, get, sets = ready["radio"], ready["monitor"], ready["get"], ready["set"]
    assert radio["phy"] == "phy0" and radio["supports_monitor"] and radio["active_monitor"], radio
    assert [i["name"] for i in radio["interfaces"]] == ["wlan0"], radio
    band0 = next(b for b in radio["bands"] if b["band"] == 0)
    assert 2437 in band0["freqs"] and band0["rates_100kbps"][:4] == [10, 20, 55, 110] and band0["ht"], band0
    assert mon["active"] and mon["name"] == "sdmon0" and mon["mac"] == radio["address"], mon
    assert get["channel"]["ok"] == {"freq_mhz": 2437, "width": "20-noht", "width_mhz": 20, "center_freq1": 2437}, get
    assert get["tx_power_mbm"]["ok"] == 1500, get
    assert get["coverage_class"]["ok"] == 0, get
    assert get["bitrates"]["not_supported"], get
    assert sets["coverage_class"]["not_supported"] and sets["bitrates"]["ok"] == [10, 540], sets
    assert ready["caps"]["after_drop"] == {"effective": "0" * 16, "permitted": "0000000000001000", "inheritable": "0" * 16}
    closed = _json(r.output, "LC JSON CLOSED ")
    assert closed["closed"] == "sdmon0", closed
