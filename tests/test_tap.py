"""`sdmac tap`: ordinary IP tools between two network namespaces over the emulated
802.11 medium (crates/sdmac-tap). Root-only: the tests create namespaces and TAP
devices, and check that none is left behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from helpers import ROOT, _child_setup, sdmac_cmd

TAP_BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "sdmac-tap"


def _missing() -> Optional[str]:
    if os.geteuid() != 0:
        return "needs root (network namespaces and TAP devices)"
    if not os.path.exists("/dev/net/tun"):
        return "needs /dev/net/tun (the TUN/TAP driver)"
    for tool in ("ip", "ping", "iperf3"):
        if shutil.which(tool) is None:
            return f"needs {tool} (make deps installs it)"
    if not TAP_BIN.exists():
        return f"sdmac-tap is not built ({TAP_BIN} is missing): run make build"
    return None


MISSING = _missing()
needs_root = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

SCENARIO = """
name = "tap pair"
duration = 1.0
seed = 3

[phy]
standard = "802.11a"
rate = 54

[[station]]
name = "a"
address = "02:00:00:00:0a:01"
position = [0, 0]

[[station]]
name = "b"
address = "02:00:00:00:0a:02"
position = [5, 0]
"""

LOSSY = SCENARIO + """
[[link]]
from = "a"
to = "b"
error_prob = 0.3
"""


# The data paths on a thread each (the default), or with the emulated medium on one
# thread (`--one-thread`): the tests that name `threads` run both ways.
THREADS = pytest.mark.parametrize("threads", [[], ["--one-thread"]], ids=["thread-per-station", "one-thread"])


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH", "")) if p)
    return env


def _namespaces() -> List[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _whole_json(path: Path) -> Optional[Dict[str, Any]]:
    """The JSON document in `path`; None while the file is missing or still being
    written."""
    try:
        doc: Dict[str, Any] = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return doc


class Tap:
    """A running `sdmac tap` and what it reported."""

    def __init__(self, tmp: Path, scenario: str, prefix: str, extra: List[str], env: Optional[Dict[str, str]] = None) -> None:
        self.prefix = prefix
        self.path = tmp / "scenario.toml"
        self.path.write_text(scenario)
        self.ready = tmp / "ready.json"
        self.json = tmp / "stats.json"
        self.stderr = tmp / "stderr.txt"
        cmd = sdmac_cmd("tap", self.path, "--prefix", prefix, "--ready-file", self.ready, "--json", self.json, *extra)
        self.proc = subprocess.Popen(cmd, env={**_env(), **(env or {})}, stderr=self.stderr.open("w"), preexec_fn=_child_setup)
        deadline = time.monotonic() + 30
        # The file is created, then written: it is ready once it holds a whole document.
        while (info := _whole_json(self.ready)) is None:
            if self.proc.poll() is not None:
                raise AssertionError(f"sdmac tap exited {self.proc.returncode}: {self.stderr.read_text()}")
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"sdmac tap not ready after 30 s: {self.stderr.read_text()}")
            time.sleep(0.05)
        self.info: Dict[str, Any] = info

    def ns(self, station: str) -> str:
        return self.prefix + station

    def ip(self, station: str) -> str:
        return next(s["ipv4"] for s in self.info["stations"] if s["name"] == station)

    def run(self, station: str, *cmd: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.ns(station), *cmd], capture_output=True, text=True, timeout=timeout)

    def stop(self, sig: int = signal.SIGINT) -> Dict[str, Any]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("sdmac tap did not stop within 30 s of the signal") from None
        assert self.proc.returncode == 0, f"sdmac tap exited {self.proc.returncode}: {self.stderr.read_text()}"
        stats: Dict[str, Any] = json.loads(self.json.read_text())
        return stats

    def station_stats(self, stats: Dict[str, Any], station: str) -> Dict[str, Any]:
        return next(s for s in stats["stations"] if s["station"] == station)


@pytest.fixture
def tap_factory(tmp_path: Path) -> Iterator[Any]:
    started: List[Tap] = []
    prefixes: List[str] = []

    def start(scenario: str = SCENARIO, extra: Optional[List[str]] = None, env: Optional[Dict[str, str]] = None) -> Tap:
        prefix = f"st{os.getpid() % 10000}{len(prefixes)}-"
        prefixes.append(prefix)
        d = tmp_path / str(len(prefixes))
        d.mkdir()
        t = Tap(d, scenario, prefix, extra or [], env)
        started.append(t)
        return t

    yield start
    for t in started:
        if t.proc.poll() is None:
            t.proc.send_signal(signal.SIGINT)
            try:
                t.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                t.proc.kill()
    left = [n for n in _namespaces() if any(n.startswith(p) for p in prefixes)]
    for n in left:
        subprocess.run(["ip", "netns", "del", n], check=False)
    assert not left, f"namespaces left behind: {left}"


def _iperf(tap: Tap, *client_args: str) -> Dict[str, Any]:
    server = subprocess.Popen(["ip", "netns", "exec", tap.ns("b"), "iperf3", "-s", "-1", "-p", "5301"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(50):
            if tap.run("b", "ss", "-ltn", "sport", "= :5301").stdout.count("5301"):
                break
            time.sleep(0.1)
        p = tap.run("a", "iperf3", "-c", tap.ip("b"), "-p", "5301", "--json", *client_args, timeout=90)
        assert p.returncode == 0, f"iperf3 {' '.join(client_args)} failed: {p.stdout[-2000:]} {p.stderr}"
        out: Dict[str, Any] = json.loads(p.stdout)
        return out
    finally:
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@needs_root
@THREADS
def test_ping_crosses_the_medium_and_everything_is_removed(tap_factory: Any, threads: List[str]) -> None:
    tap = tap_factory(extra=threads)
    assert {tap.ns("a"), tap.ns("b")} <= set(_namespaces())
    link = tap.run("a", "ip", "-j", "link", "show", "sdmac0")
    assert link.returncode == 0, link.stderr
    assert json.loads(link.stdout)[0]["address"] == "02:00:00:00:0a:01", "the TAP device has the station's address"
    p = tap.run("a", "ping", "-c", "5", "-i", "0.2", "-W", "2", tap.ip("b"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert " 0% packet loss" in p.stdout, p.stdout
    stats = tap.stop()
    a, b = tap.station_stats(stats, "a"), tap.station_stats(stats, "b")
    # Five echo requests (and an ARP reply) went a -> b as acknowledged unicast DATA.
    assert a["tx"]["acked"] >= 5 and b["tx"]["acked"] >= 5
    assert b["tap_tx"]["frames"] >= 5, b
    assert stats["cleanup_errors"] == []
    assert not [n for n in _namespaces() if n.startswith(tap.prefix)], "namespaces left after exit"
    ifaces = subprocess.run(["ip", "-j", "link"], capture_output=True, text=True, check=True).stdout
    assert "sdmac0" not in ifaces, "a TAP device was left in the root namespace"


@needs_root
@THREADS
def test_iperf3_udp_and_tcp_complete(tap_factory: Any, threads: List[str]) -> None:
    tap = tap_factory(extra=threads)
    udp = _iperf(tap, "-u", "-b", "20M", "-t", "2", "-l", "1200")
    got = udp["end"]["sum"]
    assert got["packets"] > 0 and got["lost_percent"] < 100, got
    tcp = _iperf(tap, "-t", "2")
    received = tcp["end"]["sum_received"]["bytes"]
    assert received > 100_000, f"TCP carried only {received} bytes"
    stats = tap.stop(signal.SIGTERM)
    a = tap.station_stats(stats, "a")
    assert a["tx"]["acked"] > 100, a


@needs_root
@THREADS
def test_tcp_over_a_lossy_link_shows_retries(tap_factory: Any, threads: List[str]) -> None:
    tap = tap_factory(LOSSY, threads)
    tcp = _iperf(tap, "-t", "2")
    assert tcp["end"]["sum_received"]["bytes"] > 10_000
    stats = tap.stop()
    a = tap.station_stats(stats, "a")
    # 30 % of a's frames to b are lost on air: the MAC retries them.
    assert a["tx"]["retries"] > 0, a
    assert a["tx"]["retries"] >= a["tx"]["acked"] // 10, a


@needs_root
def test_oversized_frames_from_the_tap_are_counted_and_dropped(tap_factory: Any) -> None:
    tap = tap_factory()
    # An MTU above what one MSDU carries, and a ping that fills it without fragments.
    assert tap.run("a", "ip", "link", "set", "sdmac0", "mtu", "3000").returncode == 0
    tap.run("a", "ping", "-c", "2", "-W", "1", "-M", "do", "-s", "2600", tap.ip("b"))
    ok = tap.run("a", "ping", "-c", "2", "-i", "0.2", "-W", "2", tap.ip("b"))
    assert ok.returncode == 0, "small frames still pass after oversized ones: " + ok.stdout
    stats = tap.stop()
    a = tap.station_stats(stats, "a")
    assert a["drops"].get("oversized", 0) >= 2, a


def _many(n: int, ap: bool) -> str:
    """A scenario of `n` stations around an AP (`ap`) or in an IBSS."""
    out = 'name = "many"\nduration = 1.0\nseed = 5\n[phy]\nstandard = "802.11a"\nrate = 54\n'
    if ap:
        out += '[[station]]\nname = "ap"\naddress = "02:00:00:00:0b:00"\nposition = [0, 0]\nap = true\n'
    for k in range(1, n + 1):
        out += f'[[station]]\nname = "s{k}"\naddress = "02:00:00:00:0b:{k:02x}"\nposition = [{k % 4}, {k // 4}]\n'
    return out


@needs_root
@pytest.mark.parametrize("ap", [True, False], ids=["ap", "ibss"])
@THREADS
def test_ten_stations_carry_traffic(tap_factory: Any, tmp_path: Path, ap: bool, threads: List[str]) -> None:
    pcap = tmp_path / "tap.pcapng"
    tap = tap_factory(_many(10, ap), ["--pcap", str(pcap), *threads])
    roles = {s["name"]: s for s in tap.info["stations"]}
    assert tap.info["mode"] == ("ap" if ap else "ibss")
    assert all(s["associated"] for s in roles.values()), roles
    # s1 -> s10: through the AP (relayed) or directly (IBSS); s10 -> the AP.
    p = tap.run("s1", "ping", "-c", "3", "-i", "0.2", "-W", "2", tap.ip("s10"))
    assert p.returncode == 0, p.stdout + p.stderr
    if ap:
        q = tap.run("s10", "ping", "-c", "3", "-i", "0.2", "-W", "2", tap.ip("ap"))
        assert q.returncode == 0, q.stdout + q.stderr
    stats = tap.stop()
    if ap:
        ap_stats = tap.station_stats(stats, "ap")
        assert ap_stats["relayed"] >= 6, ap_stats  # 3 requests and 3 replies
        # Every station authenticated and associated with real management frames:
        # the AP answered two frames (authentication, association) per station.
        assert ap_stats["management"]["sent"] >= 20, ap_stats["management"]
        for k in range(1, 11):
            m = tap.station_stats(stats, f"s{k}")["management"]
            assert m["state"].startswith("associated (AID "), m
    else:
        assert all(s["relayed"] == 0 and s["management"] is None for s in stats["stations"])
    assert stats["pcap"]["frames"] > 0
    if shutil.which("tshark") is None:
        return
    out = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-e", "wlan.fc.type_subtype"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kinds = {int(v, 0) for v in out.stdout.split()}
    assert len(out.stdout.split()) == stats["pcap"]["frames"], "tshark reads every frame"
    want = {0x20: "DATA", 0x1D: "ACK"}
    if ap:
        want.update({0x08: "beacon", 0x0B: "authentication", 0x00: "association request", 0x01: "association response"})
    missing = [name for k, name in want.items() if k not in kinds]
    assert not missing, f"the capture has no {missing} (subtypes {sorted(kinds)})"


@needs_root
@THREADS
def test_a_tap_device_removed_is_reported_and_the_rest_keep_running(tap_factory: Any, threads: List[str]) -> None:
    tap = tap_factory(_many(3, False), threads)
    assert tap.run("s3", "ip", "link", "del", "sdmac0").returncode == 0
    # Wait until the tap has noticed (it says so), however long that takes.
    deadline = time.monotonic() + 30
    while "keep running" not in tap.stderr.read_text():
        assert tap.proc.poll() is None and time.monotonic() < deadline, tap.stderr.read_text()
        time.sleep(0.05)
    p = tap.run("s1", "ping", "-c", "3", "-i", "0.2", "-W", "2", tap.ip("s2"))
    assert p.returncode == 0, "the other stations keep running: " + p.stdout
    stats = tap.stop()
    s3 = tap.station_stats(stats, "s3")
    assert s3["error"] and "TAP device failed" in s3["error"], s3
    assert tap.station_stats(stats, "s1")["error"] is None
    assert "s3" in tap.stderr.read_text() and "keep running" in tap.stderr.read_text()


@needs_root
@THREADS
def test_a_station_thread_that_panics_is_reported_and_everything_is_removed(tap_factory: Any, threads: List[str]) -> None:
    # The hidden fault injection: s2's path panics after 6 frames through it (on its
    # own thread, or in the one-thread loop, which ends that path alone).
    tap = tap_factory(_many(3, False), threads, env={"SDMAC_TAP_PANIC_AFTER": "s2:6"})
    made = [tap.ns(f"s{k}") for k in (1, 2, 3)]
    assert all(n in _namespaces() for n in made)
    tap.run("s1", "ping", "-c", "10", "-i", "0.1", "-W", "1", tap.ip("s2"))
    try:
        tap.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("sdmac tap kept running after a station thread panicked") from None
    err = tap.stderr.read_text()
    assert tap.proc.returncode != 0, err
    assert "injected fault" in err and "station s2: its thread panicked" in err, err
    stats: Dict[str, Any] = json.loads(tap.json.read_text())
    assert tap.station_stats(stats, "s2")["error"] == "crashed"
    for k in (1, 3):
        s = tap.station_stats(stats, f"s{k}")
        assert s["error"] is None and "tap_rx" in s, s
    assert tap.station_stats(stats, "s1")["tap_rx"]["frames"] > 0
    left = [n for n in made if n in _namespaces()]
    assert not left, f"namespaces left after the crash: {left}"
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    assert tap.prefix not in links


@needs_root
@THREADS
def test_realtime_puts_the_data_paths_under_sched_fifo(tap_factory: Any, threads: List[str]) -> None:
    tap = tap_factory(extra=["--realtime", "7", *threads])
    policies = {}
    # `sdmac tap` replaces itself with sdmac-tap: the process is sdmac-tap's.
    for task in Path(f"/proc/{tap.proc.pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        tid = int(task.name)
        policies[name] = (os.sched_getscheduler(tid), os.sched_getparam(tid).sched_priority)
    paths = {n: p for n, p in policies.items() if n in ("sdmac-tap-loop", "tap-a", "tap-b")}
    assert paths, f"no data-path thread among {sorted(policies)}"
    assert all(p == (os.SCHED_FIFO, 7) for p in paths.values()), paths
    # Everything else (the main thread, the medium's device thread) keeps the normal policy.
    others = {n: p for n, p in policies.items() if n not in paths}
    assert all(p[0] == os.SCHED_OTHER for p in others.values()), others
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "2", tap.ip("b"))
    assert p.returncode == 0, p.stdout + p.stderr
    tap.stop()


def _control(path: Path, request: bytes, reply_len: int) -> bytes:
    """One request on the control socket (sdmac-mediumd's protocol) and its reply."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
        c.settimeout(10)
        c.connect(str(path))
        c.sendall(request)
        out = b""
        while len(out) < reply_len:
            chunk = c.recv(reply_len - len(out))
            assert chunk, f"the control socket closed after {out!r}"
            out += chunk
        return out


@needs_root
@THREADS
def test_stations_added_moved_weakened_and_removed_at_run_time(tap_factory: Any, tmp_path: Path, threads: List[str]) -> None:
    import struct

    sock = tmp_path / "control.sock"
    tap = tap_factory(extra=["--control", str(sock), "--reserve", "2", *threads])
    r1 = next(s for s in tap.info["reserved"] if s["name"] == "r1")
    mac = bytes.fromhex(r1["address"].replace(":", ""))
    assert tap.ns("r1") not in _namespaces(), "a reserved station is down until added"
    # ADD (7): reply 8, the request echoed, the station id (i32), result 0.
    add = bytes([7]) + mac
    reply = _control(sock, add, 13)
    assert reply[:8] == bytes([8]) + add and reply[12] == 0, reply
    assert struct.unpack(">i", reply[8:12])[0] == r1["id"]
    assert tap.ns("r1") in _namespaces()
    _ready_names_become(tap, lambda names: "r1" in names)
    doc = _whole_json(tap.ready)
    assert doc and [x["name"] for x in doc["reserved"]] == ["r2"], doc
    assert _control(sock, add, 13)[12] == 2, "added twice: duplicate"
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "2", r1["ipv4"])
    assert p.returncode == 0, "the added station answers: " + p.stdout + p.stderr
    # POSITION (13) moves a station on the emulated medium while it runs: 100 km away
    # nothing r1 sends is heard; 2 m from the scenario's stations it is back in reach.
    far = bytes([13]) + mac + struct.pack(">fff", 100_000.0, 0.0, 0.0)
    assert _control(sock, far, 21)[20] == 0
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "1", r1["ipv4"])
    assert p.returncode != 0, "r1 is 100 km away: " + p.stdout
    near = bytes([13]) + mac + struct.pack(">fff", 2.0, 0.0, 0.0)
    assert _control(sock, near, 21)[20] == 0
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "2", r1["ipv4"])
    assert p.returncode == 0, "r1 moved back: " + p.stdout + p.stderr
    # TXPOWER (15) changes the link budget: at -50 dBm nothing r1 sends is heard.
    weak = bytes([15]) + mac + struct.pack(">i", -50)
    assert _control(sock, weak, 13)[12] == 0
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "1", r1["ipv4"])
    assert p.returncode != 0, "r1 is out of reach: " + p.stdout
    assert _control(sock, bytes([15]) + mac + struct.pack(">i", 20), 13)[12] == 0
    p = tap.run("a", "ping", "-c", "3", "-i", "0.2", "-W", "2", r1["ipv4"])
    assert p.returncode == 0, "back in reach: " + p.stdout
    # DEL_BY_MAC (3): the namespace goes; unknown addresses are "not found" (1).
    assert _control(sock, bytes([3]) + mac, 9)[8] == 0
    assert tap.ns("r1") not in _namespaces()
    assert _control(sock, bytes([3]) + mac, 9)[8] == 1
    assert _control(sock, add, 13)[12] == 2, "a station deleted is not added again"
    stats = tap.stop()
    s = tap.station_stats(stats, "r1")
    assert s["reserved"] and s["tap_tx"]["frames"] >= 3, s
    assert not any(x["station"] == "r2" for x in stats["stations"]), "r2 was never added"
    assert not sock.exists(), "the socket file is removed on exit"


def _ipv4_in(tap: Tap, station: str) -> str:
    """The IPv4 address of `station`'s TAP device, as its namespace shows it."""
    out = tap.run(station, "ip", "-j", "-4", "addr", "show", "sdmac0")
    assert out.returncode == 0, out.stderr
    addr: str = json.loads(out.stdout)[0]["addr_info"][0]["local"]
    return addr


def _ready_names_become(tap: Tap, ok: Any) -> List[str]:
    """The names of the stations up in the ready file, once `ok` holds for them (it is
    written again after each add or delete)."""
    deadline = time.monotonic() + 10
    while True:
        doc = _whole_json(tap.ready)
        names = [s["name"] for s in doc["stations"]] if doc else []
        if doc and ok(names):
            return names
        assert time.monotonic() < deadline, f"the ready file still says {names}"
        time.sleep(0.05)


def _add(sock: Path, mac: bytes) -> tuple:
    """ADD (7): the result byte and the station id of the reply."""
    import struct

    reply = _control(sock, bytes([7]) + mac, 13)
    assert reply[:8] == bytes([8, 7]) + mac, reply
    return reply[12], struct.unpack(">i", reply[8:12])[0]


@needs_root
@pytest.mark.parametrize("ap", [False, True], ids=["ibss", "ap"])
@THREADS
def test_a_station_beyond_the_pool_is_added_reached_and_removed(tap_factory: Any, tmp_path: Path, ap: bool, threads: List[str]) -> None:
    # No reserved pool: the station is put on the running medium when it is asked
    # for, and the others' data paths (and the AP's management) learn it then.
    sock = tmp_path / "control.sock"
    pcap = tmp_path / "grow.pcapng"
    scenario = _many(2, ap)
    size = 4 if ap else 3  # the scenario's stations and one more
    tap = tap_factory(scenario, ["--control", str(sock), "--max-stations", str(size), "--pcap", str(pcap), *threads])
    mac = bytes([2, 0x5D, 0xAC, 0x11, 0, 7])
    result, sid = _add(sock, mac)
    assert result == 0, f"add beyond the pool refused: {tap.stderr.read_text()}"
    assert sid == size - 1, "the new station's id follows the scenario's"
    assert tap.ns("n1") in _namespaces()
    # The ready file is written again with the station added.
    added = _ready_names_become(tap, lambda names: "n1" in names)
    assert set(added) == ({"ap"} if ap else set()) | {"s1", "s2", "n1"}, added
    link = tap.run("n1", "ip", "-j", "link", "show", "sdmac0")
    assert json.loads(link.stdout)[0]["address"] == "02:5d:ac:11:00:07"
    new_ip = _ipv4_in(tap, "n1")
    # From an existing station to the new one and back (in an AP's BSS once the new
    # station has associated: until then the AP drops its frames; ping retries).
    deadline = time.monotonic() + 20
    while True:
        p = tap.run("s1", "ping", "-c", "3", "-i", "0.2", "-W", "2", new_ip)
        if p.returncode == 0 or time.monotonic() > deadline:
            break
    assert p.returncode == 0, "s1 reaches the new station: " + p.stdout + p.stderr + tap.stderr.read_text()
    q = tap.run("n1", "ping", "-c", "3", "-i", "0.2", "-W", "2", tap.ip("s2"))
    assert q.returncode == 0, "the new station reaches s2: " + q.stdout + q.stderr
    assert _add(sock, mac)[0] == 2, "added twice: duplicate"
    # Beyond --max-stations: refused (wrong mode, id -1), and the reason is named.
    assert _add(sock, bytes([2, 0x5D, 0xAC, 0x11, 0, 8])) == (3, -1)
    assert f"--max-stations {size} reached" in tap.stderr.read_text()
    assert tap.ns("n2") not in _namespaces()
    # DEL_BY_MAC (3): its namespace goes, and s1 no longer reaches it.
    assert _control(sock, bytes([3]) + mac, 9)[8] == 0
    assert tap.ns("n1") not in _namespaces()
    _ready_names_become(tap, lambda names: "n1" not in names)
    stats = tap.stop()
    n1 = tap.station_stats(stats, "n1")
    assert n1["tap_tx"]["frames"] >= 3 and n1["tx"]["acked"] >= 3, n1
    assert not n1["reserved"]
    if ap:
        assert n1["management"]["state"].startswith("associated (AID 3)"), n1["management"]
        if shutil.which("tshark") is not None:
            # The new station's own authentication and association are in the capture.
            out = subprocess.run(
                ["tshark", "-r", str(pcap), "-T", "fields", "-e", "wlan.fc.type_subtype", "-Y", "wlan.ta == 02:5d:ac:11:00:07"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert out.returncode == 0, out.stderr
            kinds = {int(v, 0) for v in out.stdout.split()}
            assert {0x0B, 0x00} <= kinds, f"authentication and association request from the new station: {sorted(kinds)}"
    else:
        assert n1["management"] is None


@needs_root
def test_a_stale_namespace_is_refused_by_name(tap_factory: Any, tmp_path: Path) -> None:
    prefix = f"stale{os.getpid() % 10000}-"
    subprocess.run(["ip", "netns", "add", prefix + "a"], check=True)
    try:
        path = tmp_path / "s.toml"
        path.write_text(SCENARIO)
        p = subprocess.run(sdmac_cmd("tap", path, "--prefix", prefix, "--duration", "1"), capture_output=True, text=True, env=_env(), timeout=60)
        assert p.returncode != 0
        assert f"namespace {prefix}a exists already" in p.stderr, p.stderr
        assert prefix + "b" not in _namespaces(), "nothing made by the failed run is left"
    finally:
        subprocess.run(["ip", "netns", "del", prefix + "a"], check=False)


@pytest.mark.skipif(MISSING is not None and "not built" in (MISSING or ""), reason=MISSING or "")
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux) to drop root")
def test_not_root_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    cmd = [str(TAP_BIN), str(path)]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    assert "must run as root" in p.stderr and "CAP_NET_ADMIN" in p.stderr, p.stderr


@pytest.mark.skipif(not TAP_BIN.exists(), reason=f"sdmac-tap is not built ({TAP_BIN} is missing)")
def test_bad_scenario_is_named(tmp_path: Path) -> None:
    path = tmp_path / "one.toml"
    path.write_text(SCENARIO.split("[[station]]")[0] + '[[station]]\nname = "a"\nposition = [0, 0]\n')
    p = subprocess.run([str(TAP_BIN), str(path)], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    assert "one.toml" in p.stderr and "traffic needs two" in p.stderr, p.stderr


@pytest.mark.skipif(not TAP_BIN.exists(), reason=f"sdmac-tap is not built ({TAP_BIN} is missing)")
def test_bad_thread_options_are_named(tmp_path: Path) -> None:
    scen = tmp_path / "s.toml"
    scen.write_text(SCENARIO)
    for extra, want in (
        (["--realtime", "0"], "--realtime 0: a SCHED_FIFO priority is within 1..=99"),
        (["--realtime", "x"], '--realtime "x": not a number'),
        (["--one-thread", "--tap-io", "uring"], "--one-thread serves every TAP device from one poll"),
    ):
        p = subprocess.run([str(TAP_BIN), str(scen), *extra], capture_output=True, text=True, timeout=30)
        assert p.returncode != 0 and want in p.stderr, (extra, p.stderr)


def test_a_bad_station_bound_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    for v, want in (("1", "must be within 2..=2007"), ("3000", "must be within 2..=2007"), ("x", "not a number")):
        p = subprocess.run([str(TAP_BIN), str(path), "--max-stations", v], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert "--max-stations" in p.stderr and want in p.stderr, p.stderr
    if os.geteuid() == 0 and MISSING is None:
        # Two scenario stations and a pool of two do not fit in three.
        p = subprocess.run([str(TAP_BIN), str(path), "--control", str(tmp_path / "c.sock"), "--reserve", "2", "--max-stations", "3"], capture_output=True, text=True, timeout=60)
        assert p.returncode != 0
        assert "--max-stations 3: the scenario has 2 stations and --reserve 2 more" in p.stderr, p.stderr


def test_the_cli_passes_the_radio_options_through() -> None:
    from sdmac.cli_tap import tap_command

    cmd = tap_command("s.toml", backend="hwsim:wlan0,hwsim:wlan1", radio_rates="54x1", freq=2412)
    assert cmd[1] == "s.toml"
    tail = cmd[2:]
    assert tail == ["--backend", "hwsim:wlan0,hwsim:wlan1", "--radio-rates", "54x1", "--freq", "2412"], cmd
    assert "--backend" not in tap_command("s.toml")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-x", "-q"]))
