"""What a benchmark ran on, for its result file: cores, CPU model, kernel, load and
the date (UTC). The machines these run on are often shared: the load averages at
the start and the end say how busy it was."""
from __future__ import annotations

import datetime
import os
import platform
from typing import Any, Dict


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe() -> Dict[str, Any]:
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {
        "cores": os.cpu_count(),
        "cpu_model": cpu_model(),
        "kernel": platform.release(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_1_5_15": load,
    }
