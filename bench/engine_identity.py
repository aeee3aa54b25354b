#!/usr/bin/env python3
"""Same seed, same output: records what the simulator prints for a fixed set of runs,
or checks a build against such a record, byte for byte.

    python3 bench/engine_identity.py record DIR   # before a change
    python3 bench/engine_identity.py check DIR    # after it: exit 1 on any difference

The runs: every examples/scenarios/*.toml (the JSON report and the pcapng of every
frame on air), and the saturation scenario of bench/engine.py at n = 10, 50 and 300
stations with fixed seeds, both through `sdmac-sim saturation` (its JSON) and as a
scenario file (its full JSON report and pcapng). The wall-clock fields of the JSON
(`wall_seconds`, `events_per_second`, `sim_seconds_per_wall_second`) are removed before
comparing; everything else must be identical. Uses target/release/sdmac-sim: build it
first (`cargo build --release -p sdmac-sim`).
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.path.join(TARGET, "release", "sdmac-sim")
#: Fields that measure the machine, not the model.
WALL_FIELDS = {"wall_seconds", "events_per_second", "sim_seconds_per_wall_second"}
#: (stations, simulated seconds, seeds) of the saturation runs.
SATURATION = [(10, 5.0, (1, 2)), (50, 5.0, (1, 2)), (300, 1.0, (1,))]
#: The scenario of `sdmac-sim saturation` (crates/sdmac-sim/src/saturation.rs) as a file,
#: so that its full report and every frame on air can be compared too.
SATURATION_TOML = """name = "saturation n={n}"
duration = {d}
seed = {seed}

[phy]
standard = "802.11a"
rate = "54"

[[station]]
name = "ap"
position = [0, 0]

[[station]]
name = "sta"
position = [0, 0]
circle_radius_m = 1
count = {n}

[[flow]]
from = "sta"
to = "ap"
pattern = "saturated"
payload = 1500
"""


def strip(v):
    """`v` without the wall-clock fields, at any depth."""
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in WALL_FIELDS}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def run(args, pcap):
    """Runs sdmac-sim with `args`; returns (stripped JSON text, pcapng digest or None)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        extra = ["--pcap", os.path.join(d, "out.pcapng")] if pcap else []
        subprocess.run([BIN, *args, "--json", out, *extra], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            text = json.dumps(strip(json.load(f)), indent=1, sort_keys=True) + "\n"
        digest = None
        if pcap:
            with open(os.path.join(d, "out.pcapng"), "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        return text, digest


def outputs():
    """Yields (name, text) for every run's outputs."""
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "scenarios", "*.toml"))):
        name = os.path.basename(path)[:-5]
        text, digest = run([path], pcap=True)
        yield f"{name}.json", text
        yield f"{name}.pcapng.sha256", digest + "\n"
    for n, d, seeds in SATURATION:
        for seed in seeds:
            text, _ = run(["saturation", "--stations", str(n), "--duration", str(d), "--seed", str(seed)],
                          pcap=False)
            yield f"saturation-n{n}-s{seed}.json", text
            with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
                f.write(SATURATION_TOML.format(n=n, d=d, seed=seed))
            try:
                text, digest = run([f.name], pcap=True)
            finally:
                os.unlink(f.name)
            yield f"saturation-file-n{n}-s{seed}.json", text
            yield f"saturation-file-n{n}-s{seed}.pcapng.sha256", digest + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("record", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, d = sys.argv[1], sys.argv[2]
    if not os.path.exists(BIN):
        print(f"{BIN} is missing: run `cargo build --release -p sdmac-sim` first", file=sys.stderr)
        return 2
    os.makedirs(d, exist_ok=True)
    differ = []
    count = 0
    for name, text in outputs():
        count += 1
        path = os.path.join(d, name)
        if mode == "record":
            with open(path, "w") as f:
                f.write(text)
            continue
        if not os.path.exists(path):
            print(f"{name}: not in the record {d}", file=sys.stderr)
            differ.append(name)
            continue
        with open(path) as f:
            if f.read() != text:
                differ.append(name)
                print(f"{name}: DIFFERS from the record", file=sys.stderr)
    if mode == "record":
        print(f"recorded {count} outputs in {d}")
        return 0
    if differ:
        print(f"{len(differ)} of {count} outputs differ", file=sys.stderr)
        return 1
    print(f"all {count} outputs identical to the record in {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
