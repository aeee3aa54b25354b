"""Smoke tests of the VM test bed (testbed/): QEMU boots a Debian kernel, the
guest loads mac80211_hwsim and runs hostapd and wpa_supplicant on two radios in
two network namespaces, over hwsim's in-kernel medium (no medium daemon).

Skipped, with the reason, when the test bed cannot run here: no QEMU and no way
to install it, the image cannot be built (no apt, no root), or QEMU cannot start
a VM. SDMAC_VM_TESTS=0 skips them on purpose. Each test boots its own VM
(~3 s to the script under TCG on 2 cores; the first run also builds the image,
~10 s plus the kernel package download).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vmbed
from vmbed import TESTBED, require_vm
from vmbed import run as _run


@pytest.fixture(scope="module")
def vm_image() -> Path:
    return require_vm()


def test_status_output_and_share_come_back(vm_image: Path, tmp_path: Path) -> None:
    # QEMU exits 0 whatever the guest does: the status must come from the guest.
    script = (
        "#!/bin/sh\n"
        'echo "args: $1|$2"\n'
        "echo from-the-guest > /share/result.txt\n"
        "uname -r\n"
        "exit 7\n"
    )
    r = _run(script, args=["one", "two words"], timeout=90, share=tmp_path)
    assert r.status == 7, r.console
    assert "args: one|two words" in r.output
    assert (vm_image / "kver").read_text().strip() in r.output
    assert (tmp_path / "result.txt").read_text() == "from-the-guest\n"
    assert r.boot_seconds is not None and r.boot_seconds > 0


def test_a_boot_that_never_reaches_the_script_is_tried_again_then_reported(vm_image: Path, capsys) -> None:
    # The boot watchdog: no guest reaches its script 0.3 s after QEMU starts, so
    # each boot counts as stalled; the runner boots once more, then gives up
    # naming both boots (not "the script timed out", which would blame the script).
    with pytest.raises(vmbed.vm.VMTimeout, match=r"did not reach its script within 0\.3 s, 2 boots in a row"):
        _run("#!/bin/sh\nexit 0\n", timeout=90, boot_timeout=0.3)
    assert "booting again" in capsys.readouterr().err
    # With the default watchdog the same script runs, on the first boot.
    r = _run("#!/bin/sh\nexit 0\n", timeout=90)
    assert r.status == 0 and r.stalled_boots == [], r.console


def test_guest_helpers_pass_wait_and_fail(vm_image: Path) -> None:
    # /vmrun/lib.sh (testbed/guest_lib.sh), as the guest scripts use it.
    script = (
        "#!/bin/sh\n"
        "set -u\n"
        "PREFIX=LIB T=/tmp/lib\n"
        "mkdir -p $T && echo log-line > $T/a.log\n"
        ". /vmrun/lib.sh\n"
        "ok first\n"
        "( sleep 0.5; touch $T/flag ) &\n"
        "wait_for 5 test -e $T/flag && ok waited\n"
        "wait_for 1 false || fail gave up\n"
        "echo not reached\n"
    )
    r = _run(script, timeout=90)
    assert r.status == 1, r.console
    for line in ("LIB OK: first", "LIB OK: waited", "LIB FAIL: gave up", "---- /tmp/lib/a.log", "log-line", "---- dmesg"):
        assert line in r.output, (line, r.output)
    assert "not reached" not in r.output


def test_hwsim_ap_and_station_associate_and_ping(vm_image: Path) -> None:
    r = _run(TESTBED / "smoke.sh", args=["open", "wpa2"], timeout=120)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    for line in (
        "SMOKE OK: iw dev shows 2 wlan interfaces",
        "SMOKE OK: wlan0 (phy0) in netns ap, wlan1 (phy1) in netns sta",
        "SMOKE OK: open: hostapd AP 'sdmac-smoke' enabled on 2412 MHz",
        "SMOKE OK: open: station 02:00:00:00:01:00 associated",
        "SMOKE OK: open: ping across",
        "SMOKE OK: wpa2: station 02:00:00:00:01:00 associated",
        "SMOKE OK: wpa2: ping across",
        "SMOKE PASS",
    ):
        assert line in r.output, f"missing {line!r}\n{detail}"
    assert "SMOKE FAIL" not in r.output, detail
