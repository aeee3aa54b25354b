#!/usr/bin/env bash
# All benchmarks: engine speed and memory (bench/engine.py), the side-by-side
# comparison with ns-3 (bench/compare_ns3.py; skipped with a message without ns-3),
# and the software overhead of the SDMAC API on emu (bench/api_overhead.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p bench/out
python3 bench/engine.py --runs 5 --json bench/out/engine.json
python3 bench/compare_ns3.py --stations 10,50 --duration 10 --seeds 1,2,3 --json bench/out/compare_ns3.json
# Software overhead of the SDMAC API on emu (Rust and Python), beside its baselines.
.venv/bin/python bench/api_overhead.py --count 50000 --runs 3 --json bench/out/api_overhead.json
