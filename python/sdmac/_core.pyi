"""Type stubs of the Rust extension module (crates/sdmac-py).

Every public name of ``sdmac._core`` is typed here, classes with all their methods
and properties; tests/test_core_stubs.py checks the two against each other.
"""

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypedDict

from typing_extensions import Self, TypeAlias

__version__: str

_PathLike: TypeAlias = str | os.PathLike[str]
#: ``progress(simulated_s, total_s, events)``; a falsy return other than ``None``
#: (e.g. ``False``) stops the run.
_ProgressCallback: TypeAlias = Callable[[float, float, int], object]
#: ``progress(done, total)`` of :func:`bench_oneshot`.
_CountCallback: TypeAlias = Callable[[int, int], object]
#: A rate series: ``"54x1,24x2"`` or ``[("54", 1), ("24", 2)]`` (rate, tries).
_Rates: TypeAlias = str | Sequence[tuple[str | float, int]]
#: A value :meth:`Interface.set` takes (a list or tuple is a rate series).
_SetValue: TypeAlias = bool | int | float | str | Sequence[tuple[str | float, int]]

_Summary = TypedDict(
    "_Summary",
    {
        "count": int,
        "mean": float,
        "sd": float,
        "min": float,
        "p99": float,
        "p99.9": float,
        "p99.99": float,
        "max": float,
        "ci95": tuple[float, float],
    },
)

# ------------------------------------------------------------------- functions

def version() -> str:
    """The version of the sdmac crates this module was built from."""

def run_scenario(
    text: str,
    name: str = "scenario",
    pcap: _PathLike | None = None,
    progress: _ProgressCallback | None = None,
    progress_step_s: float = 0.1,
    threads: bool = False,
) -> str:
    """Runs a TOML scenario and returns the results as JSON text; ValueError for a
    bad scenario (``name:line: ...``), OSError when the pcap cannot be written."""

def saturation(
    standard: str = "802.11a",
    rate: str = "54",
    payload: int = 1500,
    stations: Sequence[int] = (1, 2, 5, 10, 20, 50),
    duration: float = 10.0,
    seed: int = 1,
    progress: _ProgressCallback | None = None,
) -> str:
    """Sweeps the number of saturated stations; returns ``{"results": [...]}`` as JSON text."""

def airtime_us(standard: str, rate: str, length: int, short_preamble: bool = False) -> float:
    """Airtime (µs) of a PSDU of `length` bytes sent at `rate` on `standard`."""

def summary(samples: Sequence[float]) -> _Summary | None:
    """count, mean, sd, min, p99, p99.9, p99.99, max and ci95 of `samples`; None for none."""

def bench_oneshot(
    *,
    backend: str = "emu",
    dst: str | None = None,
    mode: str = "beacon",
    count: int = 500,
    payload: int = 50,
    rate: str = "54",
    ac: str = "BE",
    loss_data: float | None = None,
    loss_ack: float | None = None,
    snr_data: float | None = None,
    snr_ack: float | None = None,
    ack_preamble_share: float = 0.5,
    ack_timeout_us: float | None = None,
    basic_rates: Sequence[float] = (6.0,),
    beacon_interval_tu: int = 50,
    twait_ms: float = 20.0,
    gap_us: float = 250.0,
    distance_m: float = 10.0,
    seed: int = 1,
    device_wait: str = "spin",
    device_req_us: str = "0",
    device_con_us: str = "0",
    progress: _CountCallback | None = None,
) -> tuple[str, dict[str, list[Any]]]:
    """Confirmed one-shots on `backend`; returns ``(report_json, samples)``, the samples
    as columns (id, set, status, cause, attempts and each component in µs). `mode` is
    "beacon" or "back-to-back", `device_wait` "spin" or "park"."""

def open(name: str, *, clock: str = "wall") -> Interface:
    """Opens a backend by name ("emu", "emu:SCENARIO.toml[#STATION]", "hwsim:IFACE",
    "linux:IFACE") and returns its Interface; `clock` "virtual" runs an emu medium on
    the virtual clock (other backends refuse it with ValueError)."""

# ------------------------------------------------------------------- errors

class SdmacError(Exception):
    """Base class of the errors of the SDMAC primitives."""

class QueueFull(SdmacError): ...
class ConfirmationBacklog(SdmacError): ...
class TooLong(SdmacError): ...
class MalformedFrame(SdmacError): ...
class InvalidId(SdmacError): ...
class InvalidRequest(SdmacError): ...
class UnknownAttribute(SdmacError): ...
class WrongScope(SdmacError): ...
class ReadOnly(SdmacError): ...
class InvalidValue(SdmacError): ...
class NoSuchPacket(SdmacError): ...
class PacketOnAir(SdmacError): ...
class Closed(SdmacError): ...
class Unsupported(SdmacError): ...
class OpenError(SdmacError): ...
class BackendNotAvailable(OpenError): ...

# ------------------------------------------------------------------- primitives

class Confirmation:
    """The confirmation of one ``data_req``."""

    @property
    def id(self) -> int:
        """The caller's id."""
    @property
    def status(self) -> str:
        """"acked", "ack_timeout", "sent", "no_report" or "dropped"."""
    @property
    def reason(self) -> str | None:
        """Why it was dropped ("cancelled", "duplicate_id", "refused", "closed"), else None."""
    @property
    def ac(self) -> Literal["BK", "BE", "VI", "VO"]: ...
    @property
    def attempts(self) -> int: ...
    @property
    def rates(self) -> list[tuple[str, int]]:
        """[(rate, attempts)] actually used."""
    @property
    def length(self) -> int:
        """MPDU length on air (bytes, with FCS)."""
    @property
    def set(self) -> str:
        """The outcome set from the truth on air: "A", "LD", "LA", "NOACK", "DROP"."""
    @property
    def cause(self) -> str | None:
        """Why the last attempt failed (truth on air), e.g. "link_error_prob", "none"."""
    @property
    def delivered(self) -> bool | None:
        """Did the destination receive the DATA frame (truth on air)?"""
    @property
    def timestamps(self) -> dict[str, int | None]:
        """t1 ... t9 (ns, CLOCK_MONOTONIC); None when not recorded."""
    @property
    def components(self) -> dict[str, float] | None:
        """Latency components (µs): Tsw_req, Thw, Tca, Ttoa, Tsw_con, TSDMAC, Tpath."""

class Indication:
    """A received frame."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> Literal["data", "management"]: ...
    @property
    def src(self) -> str: ...
    @property
    def dst(self) -> str: ...
    @property
    def ac(self) -> Literal["BK", "BE", "VI", "VO"]: ...
    @property
    def frame(self) -> bytes:
        """The whole frame (MAC header onwards, no FCS)."""
    @property
    def payload(self) -> bytes:
        """The payload (after the header and LLC/SNAP)."""
    @property
    def signal_dbm(self) -> float: ...
    @property
    def snr_db(self) -> float: ...
    @property
    def rate(self) -> str: ...
    @property
    def t_start(self) -> int: ...
    @property
    def t_end(self) -> int: ...
    @property
    def t_published(self) -> int: ...
    @property
    def t_returned(self) -> int: ...

class Beacon:
    """A beacon heard."""

    @property
    def bssid(self) -> str: ...
    @property
    def seq(self) -> int:
        """Counts beacons heard on this interface, from 1."""
    @property
    def t_start(self) -> int: ...
    @property
    def t_end(self) -> int: ...
    @property
    def t_published(self) -> int: ...
    @property
    def signal_dbm(self) -> float: ...

class Interface:
    """One interface: the SDMAC primitives, on any backend. Use it from one thread at a time."""

    @property
    def name(self) -> str: ...
    @property
    def address(self) -> str: ...
    def now(self) -> int:
        """The time now on the backend's clock (ns): CLOCK_MONOTONIC, or emu's virtual time."""
    def data_req(
        self,
        id: int,
        payload: bytes | None = None,
        *,
        frame: bytes | None = None,
        ac: str = "BE",
        dst: str | None = None,
        rates: _Rates | None = None,
        no_ack: bool = False,
        timestamps: bool = True,
        t1: int | None = None,
        not_before: int | None = None,
        not_after: int | None = None,
    ) -> None:
        """DATA_req: queue one packet (`payload`, or a whole MPDU as `frame`). `t1`: the
        caller's timestamp on the backend's clock (as `now()`); taken here when None.

        `not_before` / `not_after`: time.monotonic_ns() times before which it is not
        handed to channel access / after which it is dropped unsent ("late").
        """
    def data_con(self, timeout: float | None = None) -> Confirmation | None:
        """DATA_con: the next confirmation; None on timeout (0 = do not wait, None = forever)."""
    def data_ind(self, timeout: float | None = None) -> Indication | None:
        """DATA_ind: the next received frame, or None on timeout."""
    def beacon_ind(self, timeout: float | None = None) -> Beacon | None:
        """beacon_ind: the next beacon heard, or None on timeout."""
    def set(self, name: str, value: _SetValue, *, ac: str | None = None, id: int | None = None) -> None:
        """DATA_set: an attribute of the adapter, of a queue (`ac=`) or of a packet (`id=`)."""
    def get(self, name: str, *, ac: str | None = None, id: int | None = None) -> Any:
        """DATA_get: an int, float, bool, str (addresses, rate series, text) or dict."""
    def cancel(self, id: int) -> bool:
        """Cancels a packet still queued: True if it was, False if on air or done."""
    def queue_len(self, ac: str = "BE") -> int: ...
    def unconfirmed(self) -> int: ...
    @property
    def timed_sends(self) -> bool:
        """Whether data_req takes not_before / not_after on this backend."""
    def fileno(self) -> int:
        """An eventfd that becomes readable when something arrives (for asyncio)."""
    def clear_event(self) -> None: ...

class Session:
    """An emulated medium with interfaces, on the wall clock or (``clock="virtual"``) on
    a virtual clock that moves only when every interface taken waits in a receiving
    primitive."""

    @staticmethod
    def paper(
        *,
        loss_data: float | None = None,
        loss_ack: float | None = None,
        snr_data: float | None = None,
        snr_ack: float | None = None,
        ack_preamble_share: float = 0.5,
        ack_timeout_us: float | None = None,
        basic_rates: Sequence[float] = (6.0,),
        beacon_interval_tu: int = 50,
        distance_m: float = 10.0,
        seed: int = 1,
        device_wait: str = "park",
        device_req_us: str = "0",
        device_con_us: str = "0",
        clock: str = "wall",
    ) -> Session:
        """The SDMAC paper's testbed: an AP "ap" and a station "sta"."""
    @staticmethod
    def from_scenario(
        text: str,
        interfaces: Sequence[str],
        *,
        name: str = "scenario",
        device_wait: str = "park",
        seed: int = 1,
        clock: str = "wall",
    ) -> Session:
        """A session on a TOML scenario's first medium, one interface per station named."""
    @property
    def clock(self) -> str:
        """The clock driving the medium: "wall" or "virtual"."""
    def now(self) -> int:
        """The time now on the session's clock (ns)."""
    def take_no_part(self, name: str) -> None:
        """On the virtual clock: time no longer waits for interface `name`."""
    def stalls(self) -> list[str]:
        """The watchdog's reports of virtual time standing still (which interfaces)."""
    def names(self) -> list[str]: ...
    def interface(self, name: str) -> Interface:
        """Takes the interface `name` (each can be taken once)."""
    def close(self) -> None:
        """Stops the device: requests still queued are confirmed as dropped ("closed")."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc: object, tb: object) -> Literal[False]: ...

# ------------------------------------------- overlays: retransmission, TDMA and EDF

def retransmit(
    iface: Interface,
    payload: bytes,
    *,
    dst: str,
    deadline_us: float,
    policy: str = "mac_retries",
    rates: _Rates | None = None,
    requests: int = 3,
    spacing_us: float | None = None,
    burst_us: float | None = None,
    standard: str = "802.11a",
    ac: str = "BE",
    first_id: int = 1,
) -> dict[str, Any]:
    """Sends one packet under a software retransmission policy; returns its record."""

class TdmaPlan:
    """A checked TDMA plan: slots and a contention period per round, with its guard."""

    def __init__(
        self,
        *,
        slots: int,
        slot_us: float,
        round_us: float,
        contention_us: float,
        jitter_us: float,
        epoch_ns: int,
        payload: int = 200,
        rate: str = "24",
        sync_error_us: float = 0.0,
        standard: str = "802.11a",
    ) -> None: ...
    @staticmethod
    def exchange_for_us(payload: int, rate: str = "24", standard: str = "802.11a") -> float:
        """Time (µs) one data exchange of `payload` bytes at `rate` is given in a slot."""
    @property
    def slots(self) -> int: ...
    @property
    def round_us(self) -> float: ...
    @property
    def slot_us(self) -> float: ...
    @property
    def guard_us(self) -> float: ...
    @property
    def exchange_us(self) -> float: ...
    @property
    def frames_per_slot(self) -> int: ...
    @property
    def epoch_ns(self) -> int: ...
    def round_start_ns(self, k: int) -> int: ...
    def slot_window_ns(self, k: int, s: int) -> tuple[int, int]: ...

class TsfSync:
    """TSF synchronisation from beacons (least-squares offset and drift)."""

    def __init__(self, window: int = 8) -> None: ...
    def observe(self, tsf_us: int, local_ns: int) -> None:
        """Adds one beacon: its TSF (µs) and the local time its frame started (ns)."""
    @property
    def samples(self) -> int: ...
    @property
    def error_us(self) -> float | None: ...
    def to_local_ns(self, tsf_ns: int) -> int | None: ...

def tdma_measure_jitter(
    iface: Interface, dst: str, *, rate: str = "24", probes: int = 30, gap_us: float = 1000.0
) -> dict[str, Any]:
    """Measures the request path's jitter (t_start - t1 over a probe burst)."""

def tdma_coordinator(iface: Interface, plan: TdmaPlan, end_ns: int) -> dict[str, Any]:
    """Runs the TDMA coordinator until `end_ns`: grants slots, counts frames."""

def tdma_station(
    iface: Interface,
    plan: TdmaPlan,
    coordinator: str,
    payload: bytes,
    end_ns: int,
    *,
    join_rounds: int = 20,
) -> dict[str, Any]:
    """Joins the TDMA schedule and sends `payload` in its slot until `end_ns`."""

def edf_run(
    iface: Interface,
    flows: Sequence[dict[str, Any]],
    *,
    dst: str,
    start_ns: int,
    end_ns: int,
    standard: str = "802.11a",
    tries_per_request: int = 1,
    max_attempts: int = 7,
    in_mac: int = 1,
    fifo: bool = False,
    mac_tries: int = 7,
) -> dict[str, Any]:
    """Runs periodic flows with deadlines under EDF (or the MAC's FIFO with fifo=True):
    per-flow counts, and `frames`, one record per frame released."""

def tdma_periodic(
    iface: Interface,
    *,
    dst: str,
    deadline_us: float,
    end_ns: int,
    plan: TdmaPlan | None = None,
    slot: int | None = None,
    epoch_ns: int = 0,
    round_us: float = 0.0,
    open_us: float = 0.0,
    close_us: float = 0.0,
    exchange_us: float = 0.0,
    period_us: float | None = None,
    first_ns: int | None = None,
    heard_from: str | None = None,
    flows: Sequence[Mapping[str, Any]] | None = None,
    tag_at: int = 4,
    tag: int = 1,
    payload: bytes = b"",
    number_at: int | None = None,
    rate: str = "24",
    tries: int = 1,
    no_ack: bool = False,
    lead_us: float = 0.0,
    ac: str = "BE",
) -> dict[str, Any]:
    """Runs a TDMA station for a whole run on the backend's clock (periodic releases,
    several periodic flows sent earliest deadline first, or replies to frames heard) and
    returns one record per frame and the counts."""


# ------------------------------------------- overlays: redundancy and rate adaptation

class _Percentiles(TypedDict):
    p50: int
    p90: int
    p95: int
    p99: int
    max: int

class _RedundancyReport(TypedDict):
    mode: str
    sent: int
    delivered: int
    lost: int
    duplicates_dropped: int
    duplicates_delivered: int
    latency_ns: _Percentiles
    ack_latency_ns: _Percentiles
    copies: int
    copies_on_air: int
    attempts_on_air: int
    copies_cancelled: int
    cancel_too_late: int
    airtime_saved_ns: int
    acked: int
    unacked: int

class _RatePhase(TypedDict):
    start_ns: int
    delivered: int
    attempts: int
    best: str | None

class _RateRun(TypedDict):
    sent: int
    delivered: int
    attempts: int
    attempts_per_rate: dict[str, int]
    phases: list[_RatePhase]

class _RateStat(TypedDict):
    rate: str
    prob: float | None
    throughput_bps: float
    attempts: int
    successes: int

class _RateDecision(TypedDict):
    best_throughput: str
    second_throughput: str
    best_probability: str
    packets: int
    samples: int
    table: list[_RateStat]

def redundancy_run(
    tx: Sequence[Interface],
    rx: Sequence[Interface],
    dst: Sequence[str],
    *,
    mode: Literal["one", "two", "two_cancel"] = "two_cancel",
    rates: str | None = None,
    ac: str = "BE",
    standard: str = "802.11a",
    packets: int = 200,
    payload_len: int = 100,
    spacing_us: float = 0.0,
    window: int = 16,
    stall_ms: int = 2000,
) -> _RedundancyReport:
    """Seamless redundancy: each packet on every interface of `tx` (one per channel) to
    `dst[k]`, received on `rx`; copies still queued are cancelled once one is acked
    ("two_cancel"). Refusals (fewer than two interfaces, a channel twice) are ValueError."""

def rate_run(
    iface: Interface,
    dst: str,
    *,
    fixed: str | None = None,
    standard: str = "802.11a",
    rates: Sequence[str] | None = None,
    duration_ms: float = 300.0,
    payload_len: int = 1000,
    window: int = 64,
    backlog_ms: float = 40.0,
    steps: Sequence[tuple[float, float]] = (),
    sample_share: float = 0.1,
    ewma_weight: float = 0.25,
    update_ms: float = 50.0,
    tries: tuple[int, int, int, int] = (2, 2, 2, 2),
    seed: int = 1,
) -> _RateRun:
    """A saturated queue to `dst` for `duration_ms` under the Minstrel-like adaptation
    (or the series `fixed`); `steps` [(ms, dBm)] set `tx_power` during the run."""

class RateAdapter:
    """Minstrel-like rate adaptation for a caller's own send loop."""

    def __init__(
        self,
        *,
        standard: str = "802.11a",
        rates: Sequence[str] | None = None,
        sample_share: float = 0.1,
        ewma_weight: float = 0.25,
        update_ms: float = 50.0,
        tries: tuple[int, int, int, int] = (2, 2, 2, 2),
        seed: int = 1,
    ) -> None: ...
    def series(self, dst: str, now_ns: int) -> str:
        """The rate series ("36x2,24x2,6x2") for the next packet to `dst`."""
    def confirm(self, dst: str, confirmation: Confirmation) -> None:
        """Counts the attempts of a confirmation of a packet sent to `dst`."""
    def decision(self, dst: str) -> _RateDecision | None:
        """What it has learnt for `dst` (None before its first packet)."""
