"""Host side of the Mininet-WiFi test bed: finds Mininet-WiFi's source tree and the UML
kernel this needs, runs one topology of scenario.py in a UML guest under a given
medium daemon, and returns what it measured. Used by tests/test_vm_mininet_wifi.py
and bench/mininet_wifi.py.

Mininet-WiFi is not part of this repository: its source tree's path comes from
SDMAC_MININET_WIFI (e.g. a `git archive` export of
https://github.com/intrig-unicamp/mininet-wifi); it runs from there with PYTHONPATH,
on Debian's Mininet (package `mininet`) and the Python packages it imports.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The Mininet-WiFi commit the test and the benchmark were written against.
PINNED_COMMIT = "eaa5accbddee4f43d5743fabf6748ef5d4d75608"
ENV_TREE = "SDMAC_MININET_WIFI"
ENV_FORK = "WMEDIUMD_FORK"
# What Mininet-WiFi imports, by Debian package (`make deps` installs them: MNWIFI_APT).
DEBIAN_PACKAGES = ["mininet", "wireless-tools", "python3-requests", "python3-six", "python3-matplotlib",
                   "python3-numpy", "python3-bitstring", "python3-pil"]
GUEST_PYTHON = "/usr/bin/python3"


class Unavailable(Exception):
    """The test bed cannot run here; the message says why and how to provide it."""


def mininet_wifi_tree() -> Path:
    """The Mininet-WiFi source tree named by SDMAC_MININET_WIFI; Unavailable if unset or
    not a Mininet-WiFi tree. Warns on stderr when it is a git checkout of another commit."""
    how = (f"set {ENV_TREE} to a Mininet-WiFi source tree, e.g. "
           f"`git clone https://github.com/intrig-unicamp/mininet-wifi && "
           f"git -C mininet-wifi checkout {PINNED_COMMIT[:8]}` "
           f"then {ENV_TREE}=$PWD/mininet-wifi (no `make install` needed)")
    val = os.environ.get(ENV_TREE)
    if not val:
        raise Unavailable(f"{ENV_TREE} is not set: {how}")
    tree = Path(val)
    if not (tree / "mn_wifi" / "net.py").is_file():
        raise Unavailable(f"{ENV_TREE}={val} has no mn_wifi/net.py: {how}")
    commit = tree_commit(tree)
    if commit is None:
        print(f"mininet-wifi: cannot tell the commit of {tree} (no .git); the test was written "
              f"against {PINNED_COMMIT}", file=sys.stderr)
    elif commit != PINNED_COMMIT:
        print(f"mininet-wifi: warning: {tree} is at {commit}; the test was written against "
              f"{PINNED_COMMIT}", file=sys.stderr)
    return tree


def tree_commit(tree: Path) -> Optional[str]:
    if not (tree / ".git").exists():
        return None
    p = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def host_ready() -> None:
    """Unavailable unless Debian's Python can import Mininet (and mnexec is there)."""
    if not os.access(GUEST_PYTHON, os.X_OK):
        raise Unavailable(f"no {GUEST_PYTHON} (Debian's Python, which Debian's Mininet is installed for)")
    p = subprocess.run([GUEST_PYTHON, "-c", "import mininet.net, requests, six, matplotlib, numpy, bitstring"],
                       capture_output=True, text=True)
    tools = {t: any((Path(d) / t).exists() for d in ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/sbin"))
             for t in ("mnexec", "iwconfig")}
    if p.returncode != 0 or not all(tools.values()):
        why = p.stderr.strip().splitlines()[-1] if p.returncode != 0 else \
            "no " + ", ".join(t for t, ok in tools.items() if not ok)
        raise Unavailable("Mininet or a tool or Python package Mininet-WiFi uses is missing: "
                          f"apt-get install {' '.join(DEBIAN_PACKAGES)} ({why})")


def load_uml():
    spec = importlib.util.spec_from_file_location("sdmac_testbed_uml_mnwifi", ROOT / "testbed" / "uml.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    why = mod.availability()
    if why:
        raise Unavailable(f"UML test bed unavailable: {why}")
    return mod


def uml_kernel() -> Path:
    """The test bed's UML kernel (testbed/build_uml.sh: it has mesh, debugfs and veth;
    ~7 min the first time, then cached)."""
    if os.environ.get("SDMAC_UML_MNWIFI"):
        return Path(os.environ["SDMAC_UML_MNWIFI"])
    p = subprocess.run(["bash", str(HERE.parent / "build_uml.sh")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()
        raise Unavailable(f"the UML kernel for Mininet-WiFi cannot be built: {err[-1] if err else p.returncode}")
    return Path(p.stdout.strip().splitlines()[-1]) / "linux"


GUEST_TMPFS = ("/tmp", "/run", "/var", "/mnt", "/root", "/dev", "/proc", "/sys")


def guest_hidden(path: Path) -> Optional[str]:
    """The guest's tmpfs (testbed/uml_init) that hides `path`, if any: the guest sees
    the host's root except there."""
    p = str(Path(path).resolve())
    for d in GUEST_TMPFS:
        if p == d or p.startswith(d + "/"):
            return d
    return None


@dataclass
class Run:
    daemon: str
    scenario: str
    status: int
    records: List[Dict[str, Any]] = field(default_factory=list)
    output: str = ""

    def of(self, kind: str, **match) -> List[Dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == kind and all(r.get(k) == v for k, v in match.items())]

    def ping(self, phase: str, src: str, dst: str) -> Optional[Dict[str, Any]]:
        found = self.of("ping", phase=phase, src=src, dst=dst)
        return found[-1] if found else None

    def tail(self, n: int = 6000) -> str:
        return self.output[-n:]


def parse(output: str) -> List[Dict[str, Any]]:
    recs = []
    for line in output.splitlines():
        # Mininet-WiFi's own messages may leave a line unfinished before ours.
        at = line.find("MNWIFI {")
        if at >= 0:
            try:
                recs.append(json.loads(line[at + len("MNWIFI "):]))
            except ValueError:
                pass
    return recs


def run_scenario(uml, daemon: Path, tree: Path, scenario: str, options: Sequence[str] = (),
                 timeout: float = 600.0, kernel: Optional[Path] = None) -> Run:
    """Boots the UML guest and runs scenario.py SCENARIO with `daemon` as wmediumd."""
    kernel = kernel or uml_kernel()
    for what, path in (("this directory", HERE), ("the Mininet-WiFi tree", tree)):
        hidden = guest_hidden(path)
        if hidden:
            raise Unavailable(f"{what} {path} is under {hidden}, which the UML guest covers with its own tmpfs")
    old = os.environ.get("SDMAC_UML")
    os.environ["SDMAC_UML"] = str(kernel)
    # The daemon goes to the guest in the share (a copy: others may rebuild the binary
    # while the guest runs; the guest's /tmp is its own).
    share = Path(tempfile.mkdtemp(prefix="sdmac-mnwifi-share-"))
    try:
        shutil.copy2(daemon, share / "daemon")
        guest_daemon = f"{uml.GUEST_SHARE}/daemon"
        r = uml.run(HERE / "guest.sh", args=[str(HERE), guest_daemon, str(tree), scenario, *options],
                    timeout=timeout, share=share)
    finally:
        shutil.rmtree(share, ignore_errors=True)
        if old is None:
            os.environ.pop("SDMAC_UML", None)
        else:
            os.environ["SDMAC_UML"] = old
    return Run(daemon=str(daemon), scenario=scenario, status=r.status, records=parse(r.output), output=r.output)
