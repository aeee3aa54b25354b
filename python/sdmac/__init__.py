"""sdmac: a software-defined MAC for Wi-Fi.

The simulator and the PHY formulas live in Rust (the ``sdmac._core`` extension
module); this package re-exports them and adds the ``sdmac`` command line.

``sdmac.open(name)`` opens any backend by name and returns its ``Interface`` (the
SDMAC primitives, see ``sdmac.emu``): ``"emu"`` (the SDMAC paper's testbed; the
interface is its station, the AP is its ``bssid``), ``"emu:SCENARIO.toml"`` or
``"emu:SCENARIO.toml#STATION"``, ``"hwsim:IFACE"``, ``"linux:IFACE"``. A backend
this build lacks raises ``BackendNotAvailable``; other failures ``OpenError``.
(``open`` is left out of ``__all__`` so that ``from sdmac import *`` keeps the
builtin ``open``.)

>>> import sdmac, json
>>> round(sdmac.airtime_us("802.11a", "54", 86), 1)
36.0
"""

# ``open as open``: re-exported, though left out of ``__all__`` (see above).
from ._core import (
    BackendNotAvailable,
    OpenError,
    __version__,
    airtime_us,
    open as open,
    run_scenario,
    saturation,
    summary,
    version,
)

__all__ = ["BackendNotAvailable", "OpenError", "__version__", "airtime_us", "run_scenario", "saturation", "summary", "version"]
