"""sdmac: a software-defined MAC for Wi-Fi.

The simulator and the PHY formulas live in Rust (the ``sdmac._core`` extension
module); this package re-exports them and adds the ``sdmac`` command line.

>>> import sdmac, json
>>> round(sdmac.airtime_us("802.11a", "54", 86), 1)
36.0
"""

from ._core import __version__, airtime_us, run_scenario, saturation, summary, version

__all__ = ["__version__", "airtime_us", "run_scenario", "saturation", "summary", "version"]
