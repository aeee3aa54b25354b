"""Shared set-up of the Python tests.

Every test here needs the Rust extension ``sdmac._core``; when it is not built
(``make build`` builds it into .venv) the whole suite is skipped with that reason,
except the files of ``NO_BUILD_FILES``, which read only the repository's files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Generator, List, Optional

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


#: Under `make test` (SDMAC_TEST_SEED set) Hypothesis draws the same examples on every
#: run, as the Rust property tests do from their seed: a gate's result is reproducible.
if os.environ.get("SDMAC_TEST_SEED"):
    from hypothesis import settings

    settings.register_profile("seeded", derandomize=True)
    settings.load_profile("seeded")


#: Under `make test` (SDMAC_STRICT_SKIPS=1) a test skipped because a build product is
#: missing fails instead: `make build` builds every binary and example the tests run,
#: so such a skip means the build lost one, and the suite would pass having tested less.
STRICT_SKIPS = os.environ.get("SDMAC_STRICT_SKIPS") == "1"
NOT_BUILT = ("is not built", "not built (")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if not (STRICT_SKIPS and report.skipped and isinstance(report.longrepr, tuple)):
        return
    reason = str(report.longrepr[2])
    if CORE_ERROR is None and any(s in reason for s in NOT_BUILT):
        report.outcome = "failed"
        report.longrepr = f"{reason}\n(SDMAC_STRICT_SKIPS=1: make build builds it, so its absence is a failure here)"


#: Test files that boot VMs or User-Mode Linux: minutes each, where the others take
#: seconds. They run first, so that with two workers (make test) the short files fill
#: the end instead of one long file running alone.
SLOW_FILES = ("test_vm_", "test_uml_", "test_bench_mediumd")
#: Test files that read only the repository's files (no extension, no binary): they run
#: without `make build` too.
NO_BUILD_FILES = ("test_benchmarks_page.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.path.name.startswith(SLOW_FILES))  # stable
    if CORE_ERROR:
        skip = pytest.mark.skip(reason=CORE_ERROR)
        for item in items:
            if item.path.name not in NO_BUILD_FILES:
                item.add_marker(skip)


@pytest.fixture
def two_stations() -> Path:
    return SCENARIOS / "two_stations_cbr.toml"


@pytest.fixture
def two_channels() -> Path:
    return SCENARIOS / "two_channels.toml"
