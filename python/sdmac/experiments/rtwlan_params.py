"""The RT-WLAN experiment's fixed parameters: the frame, the PHY timing, the limits
of a run, the loop's constants and the scenario every run uses.
"""

from __future__ import annotations

from collections.abc import Callable

STANDARD = "802.11b"
#: The data rate (Mb/s) of every frame, as the scenario format and rate series name it.
RATE = "2"
#: Octets on air of every request and reply (PSDU, FCS included), as in RT-WLAN.
FRAME_OCTETS = 74
#: Non-QoS data header (24) + LLC/SNAP (8) + FCS (4): the frame around the payload.
MAC_OVERHEAD = 24 + 8 + 4
PAYLOAD_OCTETS = FRAME_OCTETS - MAC_OVERHEAD
#: aSIFSTime and aSlotTime of the DSSS PHY (IEEE 802.11-2016 Clause 15, PHY characteristics).
SIFS_US = 10.0
SLOT_US = 20.0
BROADCAST = "ff:ff:ff:ff:ff:ff"
SPACINGS_MS = (20.0, 5.0, 3.0, 1.5)
DEFAULT_PACKETS = 1000
MAX_PACKETS = 100_000
MODES = ("dcf", "policy", "tdma")
#: The clocks emu can run the medium on: the wall clock, or virtual time (tdma mode only).
CLOCKS = ("wall", "virtual")
HOSTS = ("host1", "host2")
#: Wall-clock margin before the first request, so the device has settled.
LEAD_IN_S = 0.05
#: After the last request: how long to wait for outstanding confirmations and replies.
DRAIN_IDLE_S = 0.25
DRAIN_MAX_S = 30.0
#: Policy mode: at most this many copies of each reply (the policy's attempts).
POLICY_MAX_COPIES = 3
#: Probes of the API's request path (``tdma_measure_jitter``), one every PROBE_GAP_US.
JITTER_PROBES = 50
PROBE_GAP_US = 1500.0
#: The quantile of the measured paths that the guard covers. A busy host stalls now and
#: then for milliseconds; a guard covering the worst stall would fit no round, so the
#: rarer stalls are counted instead (see the module doc).
GUARD_QUANTILE = 0.9
#: A rehearsal of the loop's timed sends: broadcasts, one every min(spacing, REHEARSAL_GAP_MS).
REHEARSAL_PROBES = 60
REHEARSAL_GAP_MS = 5.0
#: Synchronisation error on emu: every station reads the medium's clock (CLOCK_MONOTONIC).
SYNC_ERROR_US = 0.0
#: Reply ids: the sequence number in the low bits, the copy above them.
_COPY_SHIFT = 20
#: Quantities of each send, in report order: (figure name, label, planes).
SEND_QUANTITIES = (
    ("tqueued", "Tqueued", "t3−t1"),
    ("to_card", "to card", "t4−t3"),
    ("onair", "on air Tev_tx", "t5−t4"),
    ("send", "total send", "t9−t1"),
)

_SCENARIO = """
name = "RT-WLAN experiment"
duration = 1.0
seed = {seed}
[phy]
standard = "{standard}"
rate = {rate}
basic_rates = [1, 2]
short_preamble = false
[[station]]
name = "originator"
address = "02:00:00:00:00:01"
position = [0, 0]
[[station]]
name = "host1"
address = "02:00:00:00:00:02"
position = [3, 0]
[[station]]
name = "host2"
address = "02:00:00:00:00:03"
position = [0, 3]
"""

ProgressFn = Callable[[int, int], object]
