"""The C ABI (libsdmac, crates/sdmac-c/include/sdmac.h): examples/c/oneshot.c is
compiled with cc against the shared and the static library that `make build`
leaves in target/release, and run on emu. Its report agrees with the same loop
through the Python API (examples/api/oneshot.py) on the same backend: counts sum
up, and the outcome ratios agree with the configured loss and with each other. On
the virtual clock (`--clock virtual`, sdmac_open_with) the two print exactly the same.

The hwsim backend is not in this build yet, so the C example runs on emu only;
on hwsim it fails with the clear message tested below."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT, _child_setup
from oneshot_runs import LOSSY, run_example, wilson

LIB = ROOT / "target" / "release"
INCLUDE = ROOT / "crates" / "sdmac-c" / "include"
SOURCE = ROOT / "examples" / "c" / "oneshot.c"
LINE = re.compile(r"^(acked|ack_timeout|sent|dropped|no_report): (\d+)$", re.M)
# What a Rust static library needs from the system (rustc --print native-static-libs).
STATIC_LIBS = ["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"]


@pytest.fixture(scope="module")
def cc() -> str:
    path = shutil.which("cc")
    if path is None:
        pytest.skip("no C compiler (cc) on this machine: `make deps` installs build-essential")
    return path


def _lib(name: str) -> Path:
    p = LIB / name
    if not p.exists():
        pytest.fail(f"{p} is missing: `make build` builds it (cargo build --release of the workspace, crate sdmac-c)")
    return p


@pytest.fixture(scope="module")
def shared_exe(cc: str, tmp_path_factory) -> Path:
    _lib("libsdmac.so")
    out = tmp_path_factory.mktemp("c") / "oneshot"
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(SOURCE), f"-L{LIB}", "-lsdmac",
                    f"-Wl,-rpath,{LIB}", "-o", str(out)], check=True, capture_output=True, text=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def static_exe(cc: str, tmp_path_factory) -> Path:
    lib = _lib("libsdmac.a")
    out = tmp_path_factory.mktemp("cs") / "oneshot"
    subprocess.run([cc, "-std=c11", "-Wall", f"-I{INCLUDE}", str(SOURCE), str(lib), *STATIC_LIBS, "-o", str(out)],
                   check=True, capture_output=True, text=True, timeout=300)
    return out


@pytest.fixture
def lossy(tmp_path: Path) -> Path:
    p = tmp_path / "lossy.toml"
    p.write_text(LOSSY)
    return p


def run_c(exe: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120, cwd=ROOT, preexec_fn=_child_setup)


def counts(out: str) -> dict:
    return {k: int(v) for k, v in LINE.findall(out)}


def test_the_header_compiles_as_cxx_too(tmp_path: Path):
    cxx = shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler (c++): `make deps` installs build-essential")
    src = tmp_path / "h.cc"
    src.write_text('#include "sdmac.h"\nint main() { return sdmac_strerror(SDMAC_OK) == nullptr; }\n')
    subprocess.run([cxx, "-Wall", "-Werror", f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "h.o")],
                   check=True, capture_output=True, text=True, timeout=120)


def test_c_example_on_emu_prints_what_the_python_example_prints(shared_exe: Path):
    c = run_c(shared_exe, "emu", "100")
    assert c.returncode == 0, c.stderr
    py = run_example("--backend", "emu", "--count", "100")
    assert py.returncode == 0, py.stderr
    # Everything but the latency figure and the acked / ACK-timeout split is the same,
    # line by line. The split can differ: on the wall clock a one-shot (one try) now
    # and then ends its backoff in the slot the AP's beacon starts in, and collides.
    varies = ("latency median", "acked:", "ack_timeout:")
    strip = lambda s: [line for line in s.splitlines() if not line.startswith(varies)]  # noqa: E731
    assert strip(c.stdout) == strip(py.stdout), (c.stdout, py.stdout)
    for out in (c.stdout, py.stdout):
        n = counts(out)
        assert (n["sent"], n["dropped"], n["no_report"]) == (0, 0, 0), out
        assert n["acked"] + n["ack_timeout"] == 100, out
        assert n["acked"] >= 95, f"a perfect link: at most a few beacon collisions\n{out}"
    assert re.search(r"^latency median \(t9 - t1\): [0-9.]+ us$", c.stdout, re.M), c.stdout


def test_c_and_python_on_the_virtual_clock_print_exactly_the_same(shared_exe: Path):
    # On the virtual clock the medium's time moves only while the interface waits, so
    # the same seed and the same calls give the same run: every line is equal, the
    # acked / ACK-timeout split and the latency included.
    c = run_c(shared_exe, "--clock", "virtual", "emu", "100")
    assert c.returncode == 0, c.stderr
    py = run_example("--clock", "virtual", "--backend", "emu", "--count", "100")
    assert py.returncode == 0, py.stderr
    assert c.stdout == py.stdout, (c.stdout, py.stdout)
    n = counts(c.stdout)
    assert (n["sent"], n["dropped"], n["no_report"]) == (0, 0, 0), c.stdout
    assert n["acked"] + n["ack_timeout"] == 100, c.stdout
    assert re.search(r"^latency median \(t9 - t1\): [0-9.]+ us$", c.stdout, re.M), c.stdout


def test_c_and_python_on_the_virtual_clock_agree_exactly_on_a_lossy_link(shared_exe: Path, lossy: Path):
    n = 200
    c = run_c(shared_exe, "--clock", "virtual", f"emu:{lossy}", str(n))
    py = run_example("--clock", "virtual", "--backend", f"emu:{lossy}", "--count", str(n))
    assert c.returncode == 0 and py.returncode == 0, c.stderr + py.stderr
    assert c.stdout == py.stdout, (c.stdout, py.stdout)
    k = counts(c.stdout)
    assert sum(k.values()) == n and k["sent"] == k["dropped"] == 0, k
    lo, hi = wilson(k["ack_timeout"], n)
    assert lo <= 0.3 <= hi, k  # DATA lost with probability 0.3, ACKs never


def test_the_virtual_clock_on_hwsim_is_refused_with_its_reason(shared_exe: Path):
    c = run_c(shared_exe, "--clock", "virtual", "hwsim:wlan9")
    assert c.returncode != 0 and c.stdout == ""
    assert c.stderr.strip() == ('error: open: opts->clock SDMAC_CLOCK_VIRTUAL: backend "hwsim:wlan9" runs on the '
                                "wall clock (the virtual clock is emu's only) (invalid argument)"), c.stderr



def test_python_refuses_the_same_clocks():
    import sdmac

    with pytest.raises(ValueError, match='clock "sundial": expected "wall" or "virtual"'):
        sdmac.open("emu", clock="sundial")
    with pytest.raises(ValueError, match="backend \"hwsim:wlan9\" runs on the wall clock"):
        sdmac.open("hwsim:wlan9", clock="virtual")
    iface = sdmac.open("emu", clock="virtual")
    assert iface.now() == 1_000_000_000  # medium time 0 is VIRTUAL_ORIGIN, 1 s


def test_static_library_links_and_runs(static_exe: Path):
    c = run_c(static_exe, "emu", "20")
    assert c.returncode == 0, c.stderr
    assert counts(c.stdout)["acked"] == 20


def test_c_and_python_agree_on_a_lossy_link(shared_exe: Path, lossy: Path):
    n = 400
    c = run_c(shared_exe, f"emu:{lossy}", str(n))
    py = run_example("--backend", f"emu:{lossy}", "--count", str(n))
    assert c.returncode == 0 and py.returncode == 0, c.stderr + py.stderr
    kc, kp = counts(c.stdout), counts(py.stdout)
    for k in (kc, kp):
        assert sum(k.values()) == n and k["sent"] == k["dropped"] == 0, k
        lo, hi = wilson(k["ack_timeout"], n)
        assert lo <= 0.3 <= hi, k  # DATA lost with probability 0.3, ACKs never
    # The two runs: one proportion, within a 99.9 % two-sample z bound.
    p1, p2 = kc["ack_timeout"] / n, kp["ack_timeout"] / n
    p = (p1 + p2) / 2
    assert abs(p1 - p2) <= 3.29 * math.sqrt(2 * p * (1 - p) / n), (kc, kp)


def test_c_example_on_hwsim_without_a_daemon_fails_cleanly(shared_exe: Path, tmp_path: Path, monkeypatch):
    sock = tmp_path / "none.sock"
    monkeypatch.setenv("SDMAC_MEDIUMD_SOCKET", str(sock))
    c = run_c(shared_exe, "hwsim:wlan9")
    assert c.returncode != 0
    err = c.stderr.strip()
    assert err.startswith(f'error: open: backend "hwsim:wlan9": no medium daemon answers on the control socket {sock} ('), err
    assert f"start sdmac-mediumd with -s {sock}" in err and "linux:wlan9 opens the same radio" in err, err
    assert err.endswith("(the backend could not be opened)"), err
    assert c.stdout == ""
