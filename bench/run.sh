#!/usr/bin/env bash
# All benchmarks of the engine: speed and memory (bench/engine.py), then the side-by-side
# comparison with ns-3 (bench/compare_ns3.py; skipped with a message without ns-3).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p bench/out
python3 bench/engine.py --runs 5 --json bench/out/engine.json
python3 bench/compare_ns3.py --stations 10,50 --duration 10 --seeds 1,2,3 --json bench/out/compare_ns3.json
