"""Type stubs of the Rust extension module."""

import os
from typing import Callable, Optional, Sequence, Union

__version__: str

#: ``progress(simulated_s, total_s, events)``; return ``False`` to stop the run.
ProgressCallback = Callable[[float, float, int], Optional[bool]]

def version() -> str: ...
def run_scenario(
    text: str,
    name: str = "scenario",
    pcap: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Optional[ProgressCallback] = None,
    progress_step_s: float = 0.1,
    threads: bool = False,
) -> str: ...
def saturation(
    standard: str = "802.11a",
    rate: str = "54",
    payload: int = 1500,
    stations: Sequence[int] = (1, 2, 5, 10, 20, 50),
    duration: float = 10.0,
    seed: int = 1,
    progress: Optional[ProgressCallback] = None,
) -> str: ...
def airtime_us(standard: str, rate: str, length: int, short_preamble: bool = False) -> float: ...

class SdmacError(Exception): ...
class OpenError(SdmacError): ...
class BackendNotAvailable(OpenError): ...

def open(name: str) -> "Interface":
    """Opens a backend by name ("emu", "emu:SCENARIO.toml[#STATION]", "hwsim:IFACE",
    "linux:IFACE") and returns its Interface."""
    ...

class Interface: ...
