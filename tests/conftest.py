"""Shared set-up of the Python tests.

Every test here needs the Rust extension ``sdmac._core``; when it is not built
(``make build`` builds it into .venv) the whole suite is skipped with that reason.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import pytest

from helpers import ROOT, SCENARIOS

# A tree where `maturin develop` put the extension next to the sources, but the
# interpreter running pytest does not have the package installed.
if list((ROOT / "python" / "sdmac").glob("_core*.so")) and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

try:
    import sdmac._core  # noqa: F401

    CORE_ERROR: Optional[str] = None
except ImportError as e:  # pragma: no cover - depends on the build
    CORE_ERROR = f"the sdmac extension module is not built ({e}); run `make build` first"


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    if CORE_ERROR:
        skip = pytest.mark.skip(reason=CORE_ERROR)
        for item in items:
            item.add_marker(skip)


@pytest.fixture
def two_stations() -> Path:
    return SCENARIOS / "two_stations_cbr.toml"


@pytest.fixture
def two_channels() -> Path:
    return SCENARIOS / "two_channels.toml"
