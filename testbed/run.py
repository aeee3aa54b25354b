#!/usr/bin/env python3
"""Run a shell script inside the sdmac VM test bed and return its exit status.

    python3 testbed/run.py [--timeout S] [--share DIR] [-v] SCRIPT [ARGS...]
    python3 testbed/run.py --shell [--share DIR]      (interactive, for debugging)

boots the image of testbed/build.sh (built on first use, cached after) with
QEMU, runs SCRIPT with ARGS as root in the guest, prints its output and exits
with its exit status. Inside the guest:

  /vmrun   the run's control directory (virtio-9p, read-write): the script, its
           output and status; it is the working directory of the script
  /share   DIR of --share (virtio-9p, read-write), e.g. build outputs to run
           and a place for results that outlive the run

Exit codes besides the script's own: 124 the timeout expired, 125 the VM failed
(no status came back: kernel panic, init failure), 77 the test bed is not
available here (no QEMU, no image). From Python (tests):

    from run import run_in_vm, VMUnavailable
    status, output = run_in_vm("iw dev", timeout=60)

Environment: SDMAC_VM_ACCEL=kvm|tcg forces the accelerator (default: KVM only
when /dev/kvm is usable and kvm_intel or kvm_amd is loaded; a PVM-backed
/dev/kvm cannot boot a stock kernel), SDMAC_VM_MEM (MiB, default 768),
SDMAC_VM_SMP (default 2), SDMAC_VM_QEMU_ARGS (more QEMU options), SDMAC_VM_IMAGE (an image directory to use as it is,
without build.sh), SDMAC_VM_BOOT_TIMEOUT (s from QEMU's start to the script's, default
60: a guest slower than that is killed and booted once more, with a note on stderr), and
build.sh's variables.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

TESTBED = Path(__file__).resolve().parent
GUEST_LIB = TESTBED / "guest_lib.sh"
BUILD_SH = TESTBED / "build.sh"
MARK_START = "SDMAC-VM: script start"
BOOT_TIMEOUT = 60.0  # s from QEMU start to the script start before booting again
BOOT_RETRIES = 1


class VMError(RuntimeError):
    """The VM did not run the script to the end (the console log says why)."""

    def __init__(self, message: str, console: str = "") -> None:
        super().__init__(message)
        self.console = console
        # A long log (a kernel oops) is kept whole in a file; the message shows its end.
        self.console_file: Optional[Path] = None
        if len(console.splitlines()) > 25:
            fd, name = tempfile.mkstemp(prefix="sdmac-vm-console-", suffix=".log")
            with os.fdopen(fd, "w") as f:
                f.write(console)
            self.console_file = Path(name)

    def __str__(self) -> str:
        msg = super().__str__()
        if self.console:
            tail = "\n".join(self.console.splitlines()[-25:])
            msg += f"\n--- last lines of the VM console / build log ---\n{tail}"
            if self.console_file:
                msg += f"\n--- the whole log: {self.console_file} ---"
        return msg


class VMUnavailable(VMError):
    """The test bed cannot run here: no QEMU, no kernel, the image cannot be built."""


class VMTimeout(VMError):
    """The timeout expired before the guest reported the script's status."""


@dataclass
class VMResult:
    status: int
    output: str
    console: str = ""
    accel: str = ""
    boot_seconds: Optional[float] = None  # guest uptime when the script started
    host_boot_seconds: Optional[float] = None  # QEMU start -> script start, host clock
    wall_seconds: float = 0.0  # QEMU start -> QEMU exit
    files: List[str] = field(default_factory=list)
    stalled_boots: List[str] = field(default_factory=list)  # consoles of boots that never reached the script


# ---------------------------------------------------------------- environment


def build_image(quiet: bool = True) -> Path:
    """The image directory (vmlinux, initramfs.cpio); builds it when needed.
    SDMAC_VM_IMAGE=DIR uses DIR as it is (no build.sh)."""
    if os.environ.get("SDMAC_VM_IMAGE"):
        img = Path(os.environ["SDMAC_VM_IMAGE"])
        for f in ("vmlinux", "initramfs.cpio"):
            if not (img / f).exists():
                raise VMUnavailable(f"SDMAC_VM_IMAGE={img} has no {f}")
        return img
    if not BUILD_SH.exists():
        raise VMUnavailable(f"{BUILD_SH} is missing")
    bash = shutil.which("bash") or "/bin/bash"
    try:
        p = subprocess.run(
            [bash, str(BUILD_SH)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if quiet else None,
            text=True,
        )
    except OSError as e:
        raise VMUnavailable(f"cannot run {BUILD_SH}: {e}")
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()
        why = next((l for l in reversed(err) if "error" in l), err[-1] if err else f"exit {p.returncode}")
        raise VMUnavailable(f"the VM image cannot be built: {why}", "\n".join(err[-25:]))
    img = Path(p.stdout.strip().splitlines()[-1])
    for f in ("vmlinux", "initramfs.cpio"):
        if not (img / f).exists():
            raise VMUnavailable(f"the VM image has no {f}: {img}")
    return img


def find_qemu() -> str:
    q = shutil.which("qemu-system-x86_64")
    if not q:
        raise VMUnavailable("qemu-system-x86_64 not found (Debian package qemu-system-x86)")
    return q


def kvm_usable() -> Tuple[bool, str]:
    """KVM only with a real kvm_intel/kvm_amd: a PVM-backed /dev/kvm cannot boot a stock kernel."""
    forced = os.environ.get("SDMAC_VM_ACCEL", "").strip().lower()
    if forced in ("kvm", "tcg"):
        return forced == "kvm", f"SDMAC_VM_ACCEL={forced}"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "no usable /dev/kvm"
    mods = [m for m in ("kvm_intel", "kvm_amd") if Path("/sys/module", m).exists()]
    if not mods:
        other = "kvm_pvm" if Path("/sys/module/kvm_pvm").exists() else "neither kvm_intel nor kvm_amd"
        return False, f"/dev/kvm is backed by {other}"
    return True, mods[0]


def availability() -> Optional[str]:
    """None if the test bed can run here, else the reason it cannot (no side effects)."""
    if sys.platform != "linux":
        return "the VM test bed runs on Linux hosts only"
    try:
        find_qemu()
    except VMUnavailable as e:
        # build.sh would install it, if it may use apt.
        if os.environ.get("SDMAC_VM_NO_APT") == "1" or not shutil.which("apt-get"):
            return str(e)
    return None


# ---------------------------------------------------------------------- run


def _qemu_cmd(qemu: str, img: Path, ctrl: Path, share: Optional[Path], kvm: bool, extra_append: str) -> List[str]:
    mem = os.environ.get("SDMAC_VM_MEM", "768")
    smp = os.environ.get("SDMAC_VM_SMP", "2")
    append = [
        "console=ttyS0",
        "quiet",
        "loglevel=4",
        "panic=-1",  # a panic reboots, and -no-reboot turns that into an exit
        "oops=panic",
        "mitigations=off",
        "i8042.noaux",
        "i8042.nokbd",
        "i8042.nopnp",
        "no_timer_check",
        "tsc=reliable",
        "random.trust_cpu=on",
        "net.ifnames=0",
    ]
    if share is not None:
        append.append("sdmac.share=1")
    if extra_append:
        append.append(extra_append)
    cmd = [qemu, "-nodefaults", "-no-user-config", "-no-reboot", "-nographic", "-serial", "stdio"]
    cmd += ["-accel", "kvm" if kvm else "tcg,thread=multi"]
    if kvm:
        cmd += ["-cpu", "host"]
    cmd += ["-m", mem, "-smp", smp]
    cmd += ["-kernel", str(img / "vmlinux"), "-initrd", str(img / "initramfs.cpio")]
    cmd += ["-append", " ".join(append)]
    cmd += ["-device", "virtio-rng-pci"]
    cmd += ["-virtfs", f"local,path={ctrl},mount_tag=vmrun,security_model=none,id=vmrun"]
    if share is not None:
        cmd += ["-virtfs", f"local,path={share},mount_tag=share,security_model=none,id=share"]
    cmd += shlex.split(os.environ.get("SDMAC_VM_QEMU_ARGS", ""))
    return cmd


def read_console(proc: subprocess.Popen, console: List[str], stream=None, on_line=None) -> threading.Thread:
    """Starts a thread that reads the guest's console (`proc`'s stdout) line by line
    into `console`, copies it to `stream` (live) and hands each line to `on_line`."""

    def pump() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").replace("\r", "")
            if on_line is not None:
                on_line(line)
            console.append(line)
            if stream is not None:
                stream.write(line)
                stream.flush()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    return reader


def _last_line(log: str) -> str:
    lines = log.strip().splitlines()
    return lines[-1] if lines else ""


def _boot_and_wait(cmd: List[str], timeout: float, boot_timeout: float, stream):
    """Starts QEMU and waits for it to exit, at most `timeout` s. Returns (proc,
    console lines, [host seconds to the script's start], t0, timed_out, stalled):
    stalled when the script had not started `boot_timeout` s after QEMU did (QEMU
    is killed then)."""
    console: List[str] = []
    seen_start: List[float] = []
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def on_line(line: str) -> None:
        if not seen_start and MARK_START in line:
            seen_start.append(time.monotonic() - t0)

    reader = read_console(proc, console, stream, on_line)
    timed_out = stalled = False
    try:
        deadline = t0 + timeout
        boot_deadline = t0 + min(boot_timeout, timeout)
        while True:
            now = time.monotonic()
            if not seen_start and now >= boot_deadline:
                stalled = True
                break
            if now >= deadline:
                timed_out = True
                break
            try:
                proc.wait(timeout=min(0.2, deadline - now))
                break
            except subprocess.TimeoutExpired:
                pass
        if stalled or timed_out:
            proc.kill()
        proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    reader.join(timeout=5)
    return proc, console, seen_start, t0, timed_out, stalled


def run(
    script: Union[str, Path],
    args: Sequence[str] = (),
    timeout: float = 120.0,
    share: Optional[Union[str, Path]] = None,
    stream=None,
    keep: bool = False,
    extra_append: str = "",
    boot_timeout: Optional[float] = None,
) -> VMResult:
    """Boot the VM, run `script` (a path, or the script's text if it is a str
    with a newline) with `args`, return a VMResult. Raises VMUnavailable,
    VMTimeout or VMError; `stream` (a text file) gets the live console.
    A guest that has not started the script `boot_timeout` seconds after QEMU
    started (default $SDMAC_VM_BOOT_TIMEOUT or 60) is booted again, once."""
    if boot_timeout is None:
        boot_timeout = float(os.environ.get("SDMAC_VM_BOOT_TIMEOUT", BOOT_TIMEOUT))
    if isinstance(script, Path) or "\n" not in script:
        path = Path(script)
        if not path.is_file():
            raise FileNotFoundError(f"no such script: {script}")
        text = path.read_text()
    else:
        text = script
    img = build_image()
    qemu = find_qemu()
    kvm, why = kvm_usable()
    share_path = Path(share).resolve() if share is not None else None
    if share_path is not None and not share_path.is_dir():
        raise FileNotFoundError(f"--share: not a directory: {share}")

    ctrl = Path(tempfile.mkdtemp(prefix="sdmac-vm-"))
    try:
        (ctrl / "script").write_text(text)
        os.chmod(ctrl / "script", 0o755)
        # The helpers every guest script may source (ok, fail, dump, wait_for).
        shutil.copy(GUEST_LIB, ctrl / "lib.sh")
        runner = "exec /vmrun/script" if text.startswith("#!") else "exec /bin/sh /vmrun/script"
        (ctrl / "cmd").write_text(
            "# written by testbed/run.py\n"
            "export VMRUN=/vmrun" + (" SHARE=/share" if share_path else "") + "\n"
            f"{runner} {' '.join(shlex.quote(a) for a in args)}\n"
        )
        cmd = _qemu_cmd(qemu, img, ctrl, share_path, kvm, extra_append)
        stalls: List[str] = []
        while True:
            proc, console, seen_start, t0, timed_out, stalled = _boot_and_wait(cmd, timeout, boot_timeout, stream)
            if not stalled:
                break
            stalls.append("".join(console))
            for name in ("output", "status", "status.tmp", "boot_seconds"):
                (ctrl / name).unlink(missing_ok=True)
            if len(stalls) > BOOT_RETRIES:
                accel = f"{'kvm' if kvm else 'tcg'} ({why})"
                raise VMTimeout(
                    f"the guest did not reach its script within {min(boot_timeout, timeout):g} s,"
                    f" {len(stalls)} boots in a row ({accel})",
                    stalls[-1],
                )
            # A boot that stalls before the script (seen once in hundreds under TCG on a
            # loaded host: nothing after the BIOS, not one kernel warning) is the test
            # bed's fault, not the script's: boot again, and say so.
            print(
                f"run.py: the guest did not reach its script within {min(boot_timeout, timeout):g} s;"
                f" booting again (the stalled console's last line: {_last_line(stalls[-1])!r})",
                file=sys.stderr,
            )
        wall = time.monotonic() - t0
        log = "".join(console)
        accel = f"{'kvm' if kvm else 'tcg'} ({why})"
        status_file = ctrl / "status"
        output = (ctrl / "output").read_text(errors="replace") if (ctrl / "output").exists() else ""
        if timed_out:
            raise VMTimeout(f"the VM did not finish within {timeout:g} s ({accel}); script output so far:\n{output}", log)
        if not status_file.exists():
            guest_ran = any(m in log for m in ("SeaBIOS", "Booting", "SDMAC-VM", "Linux version", "] "))
            if proc.returncode != 0 and not guest_ran:
                # QEMU itself gave up: no such accelerator, KVM that cannot run this
                # guest (a PVM /dev/kvm fails an MSR assertion), a bad option.
                last = log.strip().splitlines()[-1] if log.strip() else f"exit {proc.returncode}"
                raise VMUnavailable(f"QEMU could not start the VM with {accel}: {last}", log)
            if proc.returncode != 0:
                raise VMError(f"QEMU failed (exit {proc.returncode}): {' '.join(map(shlex.quote, cmd))}", log)
            raise VMError("the guest reported no exit status (kernel panic or init failure?)", log)
        try:
            status = int(status_file.read_text().strip())
        except ValueError:
            raise VMError(f"bad status file: {status_file.read_text()!r}", log)
        boot = None
        if (ctrl / "boot_seconds").exists():
            try:
                boot = float((ctrl / "boot_seconds").read_text().split()[0])
            except (ValueError, IndexError):
                pass
        return VMResult(
            status=status,
            output=output,
            console=log,
            accel=accel,
            boot_seconds=boot,
            host_boot_seconds=seen_start[0] if seen_start else None,
            wall_seconds=wall,
            files=sorted(p.name for p in ctrl.iterdir()),
            stalled_boots=stalls,
        )
    finally:
        if keep:
            print(f"run.py: control directory kept: {ctrl}", file=sys.stderr)
        else:
            shutil.rmtree(ctrl, ignore_errors=True)


def shell(share: Optional[Union[str, Path]] = None) -> int:
    """An interactive root shell in the VM on this terminal (Ctrl-A X quits QEMU)."""
    img = build_image()
    qemu = find_qemu()
    kvm, _ = kvm_usable()
    share_path = Path(share).resolve() if share is not None else None
    ctrl = Path(tempfile.mkdtemp(prefix="sdmac-vm-"))
    try:
        cmd = _qemu_cmd(qemu, img, ctrl, share_path, kvm, "sdmac.shell=1")
        cmd[cmd.index("stdio")] = "mon:stdio"
        return subprocess.call(cmd)
    finally:
        shutil.rmtree(ctrl, ignore_errors=True)


def run_in_vm(
    script_text: str,
    timeout: float = 120.0,
    args: Sequence[str] = (),
    share: Optional[Union[str, Path]] = None,
) -> Tuple[int, str]:
    """Run the shell script text in a fresh VM: (exit status, output).
    Raises VMUnavailable (skip), VMTimeout or VMError (fail)."""
    if "\n" not in script_text:
        script_text += "\n"
    r = run(script_text, args=args, timeout=timeout, share=share)
    return r.status, r.output


# ---------------------------------------------------------------------- CLI


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="testbed/run.py",
        description="Run a shell script as root in the sdmac VM test bed (QEMU + Debian kernel + mac80211_hwsim).",
        epilog="Exit status: the script's; 124 timeout, 125 VM failure, 77 test bed unavailable.",
    )
    ap.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds for boot + script (default 300)")
    ap.add_argument("--share", metavar="DIR", help="host directory mounted read-write on /share in the guest")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the VM console live on stderr")
    ap.add_argument("--keep", action="store_true", help="keep the control directory (script, output, status)")
    ap.add_argument("--append", default="", metavar="ARGS", help="extra kernel command line (e.g. loglevel=7)")
    ap.add_argument("--shell", action="store_true", help="no script: an interactive shell in the VM (Ctrl-A X quits)")
    ap.add_argument("script", nargs="?", metavar="SCRIPT", help="shell script to run in the guest (#! line honoured, else sh)")
    ap.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments of the script")
    a = ap.parse_args(argv)
    if a.shell:
        try:
            return shell(a.share)
        except VMUnavailable as e:
            print(f"run.py: test bed unavailable: {e}", file=sys.stderr)
            return 77
    if not a.script:
        ap.error("SCRIPT is required (or --shell)")
    try:
        r = run(
            Path(a.script),
            args=a.args,
            timeout=a.timeout,
            share=a.share,
            stream=sys.stderr if a.verbose else None,
            keep=a.keep,
            extra_append=a.append,
        )
    except VMUnavailable as e:
        print(f"run.py: test bed unavailable: {e}", file=sys.stderr)
        return 77
    except VMTimeout as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 124
    except VMError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 125
    except FileNotFoundError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    if not a.verbose:
        sys.stdout.write(r.output)
        sys.stdout.flush()
    boot = f"{r.boot_seconds:.1f}" if r.boot_seconds is not None else "?"
    hboot = f"{r.host_boot_seconds:.1f}" if r.host_boot_seconds is not None else "?"
    print(
        f"run.py: status {r.status}; {r.accel}; script started {hboot} s after QEMU "
        f"(guest uptime {boot} s); VM ran {r.wall_seconds:.1f} s",
        file=sys.stderr,
    )
    return r.status


if __name__ == "__main__":
    sys.exit(main())
