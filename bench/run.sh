#!/usr/bin/env bash
# All benchmarks, then the goals: engine speed and memory (bench/engine.py), the side-by-side
# comparison with ns-3 (bench/compare_ns3.py; skipped with a message without ns-3),
# the software overhead of the SDMAC API on emu (bench/api_overhead.py), where the
# time of a confirmed one-shot goes on emu and on hwsim (bench/oneshot_breakdown.py), and the
# medium daemon in the VM beside the kernel's own medium (bench/mediumd.py), under QEMU
# and in User-Mode Linux.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p bench/out
# A benchmark that misses a goal exits 1: the others still run, and this script fails
# at the end.
rc=0
python3 bench/engine.py --runs 5 --json bench/out/engine.json || rc=1
python3 bench/compare_ns3.py --stations 10,50 --duration 10 --seeds 1,2,3 --json bench/out/compare_ns3.json || rc=1
# Software overhead of the SDMAC API on emu (Rust and Python), beside its baselines.
.venv/bin/python bench/api_overhead.py --count 50000 --runs 3 --json bench/out/api_overhead.json
# A confirmed one-shot part by part, emu (host) beside hwsim:wlan0 (VM, sdmac-mediumd).
.venv/bin/python bench/oneshot_breakdown.py --json bench/out/oneshot-breakdown.json
# sdmac-mediumd against the kernel's own medium: N stations in iperf3 TCP pairs (VM).
python3 bench/mediumd.py --stations 2,10,40 --seconds 10 --epoll --json bench/out/mediumd.json || [ $? -eq 77 ]
# The same in User-Mode Linux (one CPU, costly system calls: the setting of the wmediumd
# figures in ../shared/notes/FACTS.md §7); builds the UML kernel on first use (~5 min).
# Side by side: running ahead (the default), each output sent by the daemon at its time
# (--no-run-ahead), and --coalesce-us 50.
python3 bench/mediumd.py --vm uml --stations 2,10,40,100 --seconds 10 --no-run-ahead --coalesce-us 50 --json bench/out/mediumd-uml.json || [ $? -eq 77 ]
# The medium daemon's goals (bench/mediumd_goals.py): figures that were once asserted
# in the functional tests, each printed beside its goal. A missed goal fails the run
# (after every benchmark above has run).
python3 bench/mediumd_goals.py --json bench/out/mediumd-goals.json || { r=$?; [ "$r" -eq 77 ] || rc=$r; }
exit "$rc"
