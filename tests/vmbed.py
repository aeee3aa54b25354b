"""The VM test bed (testbed/run.py) for pytest: loading the runner, skipping with a
clear reason where it cannot run, and a share holding the medium daemon's binaries."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTBED = ROOT / "testbed"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
DAEMON = TARGET / "release" / "sdmac-mediumd"
CTL = TARGET / "release" / "sdmac-mediumctl"


def _load_runner():
    spec = importlib.util.spec_from_file_location("sdmac_testbed_run", TESTBED / "run.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up by name
    spec.loader.exec_module(mod)
    return mod


vm = _load_runner()


def require_vm() -> Path:
    """The image directory; skips the test, with the reason, where the VM cannot run
    (or SDMAC_VM_TESTS=0)."""
    if os.environ.get("SDMAC_VM_TESTS", "1") == "0":
        pytest.skip("VM tests disabled (SDMAC_VM_TESTS=0)")
    why = vm.availability()
    if why:
        pytest.skip(f"VM test bed unavailable: {why}")
    try:
        return vm.build_image()
    except vm.VMUnavailable as e:
        pytest.skip(f"VM test bed unavailable: {e.args[0]}")


def daemon_share(tmp_path_factory: Any, name: str) -> Path:
    """A share with copies of sdmac-mediumd and sdmac-mediumctl (copies: others may
    rebuild the binaries while a VM runs); skips where they are not built."""
    if os.environ.get("SDMAC_VM_TESTS", "1") == "0":
        pytest.skip("VM tests disabled (SDMAC_VM_TESTS=0)")
    if not DAEMON.exists() or not CTL.exists():
        pytest.skip(f"{DAEMON} is not built (cargo build --release -p sdmac-mediumd)")
    require_vm()
    d = tmp_path_factory.mktemp(name)
    shutil.copy2(DAEMON, d / "sdmac-mediumd")
    shutil.copy2(CTL, d / "sdmac-mediumctl")
    return d


def run(script: Any, **kw: Any):
    """vm.run, skipping the test if the VM turns out unavailable."""
    try:
        return vm.run(script, **kw)
    except vm.VMUnavailable as e:
        pytest.skip(f"VM test bed unavailable: {e.args[0]}")
