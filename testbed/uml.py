#!/usr/bin/env python3
"""The User-Mode Linux test bed: the same guest scripts as testbed/run.py (QEMU), in a
UML kernel with the wireless stack and mac80211_hwsim built in (testbed/build_uml.sh).

UML runs the guest kernel as a host process, on the host's root file system (read-only
over hostfs), so boot takes about a second and the guest's network stack runs at host
speed; a guest system call, though, costs tens of microseconds. That is the setting in
which ../shared/notes/FACTS.md §7 measured wmediumd, so a medium daemon measured here
can be set beside those figures. One CPU; hwsim starts with no radio (scripts create
theirs, e.g. `sdmac-mediumctl new-radios N`).

Same interface as run.py for what the benchmark uses: availability(), build_image(),
run(script, args, timeout, share) -> VMResult; GUEST_SHARE is where the share is in the
guest (/mnt/share; the control directory, $VMRUN, is /mnt/vmrun).

    python3 testbed/uml.py [--share DIR] SCRIPT [ARGS...]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence, Union

HERE = Path(__file__).resolve().parent
BUILD_SH = HERE / "build_uml.sh"
INIT = HERE / "uml_init"
TESTBED_NAME = "uml"
GUEST_SHARE = "/mnt/share"
GUEST_VMRUN = "/mnt/vmrun"
MEM_MB_DEFAULT = 1536


def _qemu_module():
    """testbed/run.py, for its result and error types and the guest helpers."""
    spec = importlib.util.spec_from_file_location("sdmac_testbed_run", HERE / "run.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("sdmac_testbed_run", mod)
    spec.loader.exec_module(mod)
    return sys.modules["sdmac_testbed_run"]


_run = _qemu_module()
VMResult, VMError, VMUnavailable, VMTimeout = _run.VMResult, _run.VMError, _run.VMUnavailable, _run.VMTimeout


def availability() -> Optional[str]:
    """None if a UML guest can be built and run here, else why not."""
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        return "User-Mode Linux needs an x86-64 Linux host"
    if not BUILD_SH.exists() or not INIT.exists():
        return f"{BUILD_SH} or {INIT} is missing"
    if not Path("/usr/src/linux-source-6.1.tar.xz").exists() and os.geteuid() != 0 and not _cached():
        return "no /usr/src/linux-source-6.1.tar.xz and not root to install linux-source-6.1"
    return None


def _cached() -> Optional[Path]:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sdmac"
    out = Path(os.environ.get("SDMAC_VM_OUT", cache))
    found = sorted(out.glob("uml-*/linux"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def build_image(quiet: bool = True) -> Path:
    """The directory holding the UML `linux` binary; builds it when needed (~7 min
    the first time). SDMAC_UML=PATH uses that binary as it is."""
    if os.environ.get("SDMAC_UML"):
        p = Path(os.environ["SDMAC_UML"])
        if not os.access(p, os.X_OK):
            raise VMUnavailable(f"SDMAC_UML={p} is not an executable")
        return p.parent
    p = subprocess.run(["bash", str(BUILD_SH)], stdout=subprocess.PIPE, stderr=subprocess.PIPE if quiet else None, text=True)
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()
        raise VMUnavailable(f"the UML kernel cannot be built: {err[-1] if err else p.returncode}", "\n".join(err[-25:]))
    d = Path(p.stdout.strip().splitlines()[-1])
    if not (d / "linux").exists():
        raise VMUnavailable(f"no linux binary in {d}")
    return d


def run(
    script: Union[str, Path],
    args: Sequence[str] = (),
    timeout: float = 120.0,
    share: Optional[Union[str, Path]] = None,
    stream=None,
    keep: bool = False,
) -> VMResult:
    """Boots UML, runs `script` (a path) with `args` as root in the guest, returns a
    VMResult. The guest has 1 CPU and SDMAC_VM_MEM MB of memory (default 1536)."""
    path = Path(script)
    if not path.is_file():
        raise FileNotFoundError(f"no such script: {script}")
    text = path.read_text()
    d = build_image()
    share_path = Path(share).resolve() if share is not None else None
    if share_path is not None and not share_path.is_dir():
        raise FileNotFoundError(f"share: not a directory: {share}")
    mem = os.environ.get("SDMAC_VM_MEM", str(MEM_MB_DEFAULT))
    ctrl = Path(tempfile.mkdtemp(prefix="sdmac-uml-"))
    # UML keeps the guest's memory in a file under TMPDIR: give it its own.
    memdir = Path(tempfile.mkdtemp(prefix="sdmac-uml-mem-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        (ctrl / "script").write_text(text)
        shutil.copy(_run.GUEST_LIB, ctrl / "lib.sh")
        (ctrl / "cmd").write_text(
            "# written by testbed/uml.py\n"
            f"export VMRUN={GUEST_VMRUN}" + (f" SHARE={GUEST_SHARE}" if share_path else "") + "\n"
            f"exec /bin/sh {GUEST_VMRUN}/script {' '.join(shlex.quote(a) for a in args)}\n"
        )
        cmd = [
            str(d / "linux"),
            f"mem={mem}M",
            "root=/dev/root",
            "rootfstype=hostfs",
            "rootflags=/",
            "ro",
            f"init={INIT}",
            "con=null",
            "con0=fd:0,fd:1",
            "mac80211_hwsim.radios=0",
            f"sdmac.vmrun={ctrl}",
        ]
        if share_path:
            cmd.append(f"sdmac.share={share_path}")
        env = dict(os.environ, TMPDIR=str(memdir))
        console: List[str] = []
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)

        reader = _run.read_console(proc, console, stream)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if proc.poll() is None:
                # UML is a process group (a host process per guest process): end them all.
                try:
                    os.killpg(proc.pid, 9)
                except ProcessLookupError:
                    pass
                proc.wait()
        wall = time.monotonic() - t0
        reader.join(timeout=5)
        log = "".join(console)
        output = (ctrl / "output").read_text(errors="replace") if (ctrl / "output").exists() else ""
        if timed_out:
            raise VMTimeout(f"the UML guest did not finish within {timeout:g} s; script output so far:\n{output}", log)
        status_file = ctrl / "status"
        if not status_file.exists():
            raise VMError("the UML guest reported no exit status (kernel panic or init failure?)", log)
        boot = None
        try:
            boot = float((ctrl / "boot_seconds").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
        return VMResult(status=int(status_file.read_text().strip()), output=output, console=log, accel="uml", boot_seconds=boot, wall_seconds=wall, files=sorted(p.name for p in ctrl.iterdir()))
    finally:
        shutil.rmtree(memdir, ignore_errors=True)
        if keep:
            print(f"uml.py: control directory kept: {ctrl}", file=sys.stderr)
        else:
            shutil.rmtree(ctrl, ignore_errors=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--share", help="host directory mounted writable at /mnt/share ($SHARE)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep", action="store_true", help="keep the control directory")
    ap.add_argument("script")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args(argv)
    why = availability()
    if why:
        print(f"uml.py: unavailable: {why}", file=sys.stderr)
        return 77
    r = run(a.script, a.args, timeout=a.timeout, share=a.share, stream=sys.stdout, keep=a.keep)
    print(f"uml.py: status {r.status}, boot {r.boot_seconds} s, wall {r.wall_seconds:.1f} s", file=sys.stderr)
    return r.status


if __name__ == "__main__":
    sys.exit(main())
