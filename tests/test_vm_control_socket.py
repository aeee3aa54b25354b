"""sdmac-mediumd's control socket in the QEMU VM (testbed/control_socket.sh), with the
kernel's mac80211_hwsim and a live daemon: mode 0660, a second daemon refused while
the first lives, a client of another uid kept out by the mode and refused by its
credentials (logged) while root is still served, the file removed at exit, a stale
socket replaced, a regular file left intact.

Skipped, with the reason, when the VM test bed cannot run here or the daemon has not
been built. The same rules are tested on the host without hwsim in
crates/sdmac-mediumd/tests/control_socket.rs."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmbed import TESTBED, daemon_share, run


@pytest.fixture(scope="module")
def share(tmp_path_factory) -> Path:
    return daemon_share(tmp_path_factory, "ctlsock")


def test_control_socket_is_locked_down(share: Path) -> None:
    r = run(
        TESTBED / "control_socket.sh",
        args=["/share/sdmac-mediumd", "/share/sdmac-mediumctl"],
        timeout=240,
        share=share,
    )
    detail = f"status {r.status}, {r.accel}\n--- output\n{r.output}"
    assert r.status == 0, detail
    for line in (
        "CTLSOCK OK: the socket is created with mode 660",
        "CTLSOCK OK: root is served",
        "CTLSOCK OK: a second daemon on the same path is refused (exit 2) while the first lives and answers",
        "CTLSOCK OK: a client of uid 1000 is kept out by the mode",
        "CTLSOCK OK: a client of uid 1000 is refused by its credentials and logged; root is still served",
        "CTLSOCK OK: the socket file is removed at exit",
        "CTLSOCK OK: a stale socket is replaced",
        "CTLSOCK OK: a regular file at the path is refused (exit 2) and left intact",
        "CTLSOCK PASS",
    ):
        assert line in r.output, f"missing {line!r}\n{detail}"
