"""`linux:IFACE` opened by name (crates/sdmac-open) on mac80211_hwsim radios in a
QEMU VM (testbed/linux_open.sh), by the unchanged examples: the C example
examples/c/oneshot.c built against libsdmac, and examples/api/oneshot.py through
the Python package. Radio 1 is an open hostapd AP on hwsim's in-kernel medium;
the examples open `linux:wlan0` (radio 0) with SDMAC_LINUX_BSSID naming the AP.

Judged: every one-shot (one try each, to a present address, on the in-kernel
medium) is acknowledged; the backend's monitor interface existed while the program
ran and is gone once it exited; a wrong interface name fails cleanly (non-zero
exit, a message naming the interface, no monitor left).

Python runs in the guest from a copy of the host's interpreter (the guest has the
host's libc): the interpreter, libpython and the standard library (without its
tests and site-packages) go into the share, with the sdmac package and its built
extension. Where the host's interpreter is not laid out that way, the Python part
is skipped with the reason.

Skipped, with the reason, when the VM test bed cannot run here, there is no C
compiler, or libsdmac is not built (`make build`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vmbed import ROOT, TARGET, TESTBED, require_vm, run

LIB = TARGET / "release"
INCLUDE = ROOT / "crates" / "sdmac-c" / "include"
C_SOURCE = ROOT / "examples" / "c" / "oneshot.c"
PY_EXAMPLE = ROOT / "examples" / "api" / "oneshot.py"
COUNT = 100
AP = "02:00:00:00:01:00"
STDLIB_SKIP = ("site-packages", "test", "idlelib", "tkinter", "ensurepip", "lib2to3", "turtledemo")


def _c_example_into(share: Path, host_rpath: bool = False) -> None:
    """examples/c/oneshot.c built into SHARE/oneshot against libsdmac, as a C user builds
    it, with libsdmac.so copied beside it (the guest finds it on LD_LIBRARY_PATH); with
    `host_rpath` it also runs on the host (rpath to target/release). Skips the test where
    there is no C compiler or no library."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc) on this machine: `make deps` installs build-essential")
    so = LIB / "libsdmac.so"
    if not so.exists():
        pytest.skip(f"{so} is not built (`make build`)")
    shutil.copy2(so, share / "libsdmac.so")
    link = [f"-L{LIB}", "-lsdmac", f"-Wl,-rpath,{LIB}"] if host_rpath else [f"-L{share}", "-lsdmac"]
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(C_SOURCE), *link,
                    "-o", str(share / "oneshot")], check=True, capture_output=True, text=True, timeout=120)


def _python_into(share: Path) -> str | None:
    """Copies an interpreter and the sdmac package into the share; returns why not, or None."""
    try:
        import sdmac  # noqa: PLC0415
    except ImportError as e:
        return f"the sdmac package does not import on the host ({e}): `make build`"
    base = Path(sys.base_prefix)
    ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    exe, lib, std = base / "bin" / ver, base / "lib" / f"lib{ver}.so.1.0", base / "lib" / ver
    for p in (exe, lib, std / "os.py"):
        if not p.exists():
            return f"the host's interpreter has no {p} to copy into the guest"
    if ver != "python3.11":
        return f"the guest script runs python3.11; the host has {ver}"
    py = share / "py"
    (py / "bin").mkdir(parents=True)
    (py / "lib").mkdir()
    shutil.copy2(exe, py / "bin" / ver)
    shutil.copy2(lib, py / "lib" / lib.name)
    conf = [d.name for d in std.iterdir() if d.name.startswith("config-")]
    shutil.copytree(std, py / "lib" / ver, ignore=lambda d, names: [n for n in names if d == str(std) and (n in STDLIB_SKIP or n in conf)])
    pkg = share / "pkg" / "sdmac"
    shutil.copytree(Path(sdmac.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    core = Path(sdmac._core.__file__)
    if not (pkg / core.name).exists():
        shutil.copy2(core, pkg / core.name)
    shutil.copy2(PY_EXAMPLE, share / "oneshot.py")
    shutil.copy2(TESTBED / "linux_open_attrs.py", share / "attrs.py")
    return None


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    require_vm()
    share = tmp_path_factory.mktemp("linux-open")
    _c_example_into(share)
    no_python = _python_into(share)
    r = run(TESTBED / "linux_open.sh", args=[str(COUNT)], timeout=600, share=share)
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    assert "LO PASS" in r.output, detail
    return share, detail, no_python


def _part(share: Path, part: str) -> tuple[int, str, str, dict[str, int]]:
    out = share / "out"
    rc = int((out / f"{part}.rc").read_text().strip())
    mon = dict((k, int(v)) for k, v in (line.split() for line in (out / f"{part}.mon").read_text().splitlines()))
    return rc, (out / f"{part}.out").read_text(), (out / f"{part}.err").read_text(), mon


def _counts(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"^(acked|ack_timeout|sent|dropped|no_report): (\d+)$", text, re.M)}


def _skip_python(no_python: str | None) -> None:
    if no_python:
        pytest.skip(f"Python cannot run in the guest: {no_python}")


@pytest.mark.parametrize("part", ["c", "py"])
def test_oneshots_through_linux_backend_are_acked(guest, part):
    share, detail, no_python = guest
    if part == "py":
        _skip_python(no_python)
    rc, out, err, mon = _part(share, part)
    assert rc == 0, f"{part}: exit {rc}\n{out}\n{err}\n{detail}"
    assert "backend: linux:wlan0" in out, out
    assert f"to {AP}" in out, out
    counts = _counts(out)
    assert counts == {"acked": COUNT, "ack_timeout": 0, "sent": 0, "dropped": 0, "no_report": 0}, f"{out}\n{err}"
    # The backend's monitor existed while it ran, and is gone after.
    assert mon["during"] == 1, f"{mon}\n{detail}"
    assert mon["after"] == 0, f"{mon}\n{detail}"
    # The kernel announced the backend's monitor and its deletion (ip monitor link);
    # where the iw poll caught it running, it was a monitor.
    links = (share / "out" / f"{part}.links").read_text()
    assert re.search(r"^\d+: sdmon\d+", links, re.M) and re.search(r"^Deleted .*sdmon\d+", links, re.M), links
    iw = share / "out" / f"{part}.iw"
    if iw.exists():
        assert "type monitor" in iw.read_text() and "sdmon" in iw.read_text(), iw.read_text()


@pytest.mark.parametrize("part", ["c-wrong", "py-wrong"])
def test_a_wrong_interface_fails_cleanly(guest, part):
    share, detail, no_python = guest
    if part == "py-wrong":
        _skip_python(no_python)
    rc, out, err, mon = _part(share, part)
    assert rc != 0, f"{part}: exit 0\n{out}\n{err}"
    assert "wlan9" in err and "no network interface or wiphy has this name" in err, err
    assert "Traceback" not in err + out, err
    assert mon == {"during": 0, "after": 0}, mon


def test_attributes_map_onto_nl80211(guest):
    """What the monitor reports through the API; what nl80211 does not carry is the
    typed "not supported by this backend" error."""
    share, detail, no_python = guest
    _skip_python(no_python)
    rc, out, err, mon = _part(share, "attrs")
    assert rc == 0, f"attrs: exit {rc}\n{out}\n{err}"
    a = json.loads(out.strip().splitlines()[-1])
    assert a["address"] == "02:00:00:00:00:00", a  # radio 0's address (active monitor)
    assert a["bssid"] == AP, a
    assert (a["frequency"], a["channel"]) == ("2412", "1"), a
    assert float(a["tx_power"]) > 0, a
    assert a["set tx_power"] == "ok" and a["set default_rates"] == "ok", a
    # an HT rate: not one of the band's legacy bitrates, which the mask holds
    assert a["set default_rates mcs0"].startswith("InvalidValue") and "6.5 Mb/s is not a bitrate" in a["set default_rates mcs0"], a
    for k in ("retry_limit", "aifsn", "set ack_timeout"):
        assert a[k].startswith("Unsupported: not supported by this backend"), (k, a)
    assert mon == {"during": 1, "after": 0}, mon
