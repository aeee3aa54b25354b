"""The SDMAC API on the emulated medium (the ``emu`` backend).

>>> from sdmac.emu import Session
>>> with Session.paper() as s:
...     sta = s.interface("sta")
...     sta.data_req(1, b"hello", rates="54x1")
...     c = sta.data_con(timeout=1.0)

``Session.paper(...)`` builds the SDMAC paper's testbed (an AP "ap" beaconing on
channel 36, 802.11a, basic rates {6 Mb/s}, and a station "sta"); ``Session.from_scenario``
takes a TOML scenario as ``sdmac sim`` reads. Each ``Interface`` offers the primitives
``data_req``, ``data_con``, ``data_ind``, ``beacon_ind``, ``set``, ``get``, ``cancel``
and ``queue_len``. Blocking receives release the GIL. For asyncio, await
``data_con_async(iface)``, ``data_ind_async(iface)`` or ``beacon_ind_async(iface)``;
they wait on ``iface.fileno()``, an eventfd that becomes readable when something
arrives. Errors are subclasses of ``SdmacError``.

Both constructors take ``clock="wall"`` (the default: the medium is paced to
``CLOCK_MONOTONIC``) or ``clock="virtual"``: the medium's time then moves only when every
interface taken waits in ``data_con``/``data_ind``/``beacon_ind`` with a timeout or none
(``timeout=0`` polls and does not count as waiting), jumping straight to the next thing
to happen, so a run depends on its seed and inputs, never on how the host schedules
threads. Take every interface before any of them waits; drop one (``del``) to make it
take no part. ``iface.now()`` and every timestamp are then on that clock; the asyncio
helpers are refused (``Unsupported``: an event loop's wait is not one the clock sees),
and ``Session.stalls()`` lists the watchdog's reports of time standing still.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from ._core import (  # noqa: F401  (re-exported)
    BackendNotAvailable,
    Beacon,
    Closed,
    Confirmation,
    ConfirmationBacklog,
    Indication,
    Interface,
    InvalidId,
    InvalidRequest,
    InvalidValue,
    MalformedFrame,
    NoSuchPacket,
    OpenError,
    PacketOnAir,
    QueueFull,
    ReadOnly,
    SdmacError,
    Session,
    TooLong,
    UnknownAttribute,
    Unsupported,
    WrongScope,
)

__all__ = [
    "Session", "Interface", "Confirmation", "Indication", "Beacon",
    "SdmacError", "QueueFull", "ConfirmationBacklog", "TooLong", "MalformedFrame", "InvalidId",
    "InvalidRequest", "UnknownAttribute", "WrongScope", "ReadOnly", "InvalidValue", "NoSuchPacket",
    "PacketOnAir", "Closed", "Unsupported", "OpenError", "BackendNotAvailable",
    "data_con_async", "data_ind_async", "beacon_ind_async",
]


_T = TypeVar("_T")


def _wake(fut: asyncio.Future[None]) -> None:
    """The eventfd's reader callback: ends the wait on `fut` (once)."""
    if not fut.done():
        fut.set_result(None)


async def _wait_for(iface: Interface, poll: Callable[[], _T | None], timeout: float | None) -> _T | None:
    """Polls without blocking; between polls, waits for the interface's eventfd."""
    loop = asyncio.get_running_loop()
    fd = iface.fileno()
    deadline = None if timeout is None else loop.time() + timeout
    while True:
        got = poll()
        if got is not None:
            return got
        fut: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _wake, fut)
        try:
            # Re-check after arming: something may have arrived in between.
            got = poll()
            if got is not None:
                return got
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return None
            try:
                await asyncio.wait_for(fut, left)
            except asyncio.TimeoutError:
                return None
        finally:
            loop.remove_reader(fd)
            iface.clear_event()


async def data_con_async(iface: Interface, timeout: float | None = None) -> Confirmation | None:
    """The next confirmation, awaited without blocking the event loop."""
    return await _wait_for(iface, lambda: iface.data_con(timeout=0), timeout)


async def data_ind_async(iface: Interface, timeout: float | None = None) -> Indication | None:
    """The next received frame, awaited without blocking the event loop."""
    return await _wait_for(iface, lambda: iface.data_ind(timeout=0), timeout)


async def beacon_ind_async(iface: Interface, timeout: float | None = None) -> Beacon | None:
    """The next beacon, awaited without blocking the event loop."""
    return await _wait_for(iface, lambda: iface.beacon_ind(timeout=0), timeout)
