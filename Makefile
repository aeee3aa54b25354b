# sdmac: build, test and demo on a fresh Debian 12 machine.
#
#   make deps     system packages (apt, only what is missing) + Python virtualenv .venv
#   make build    the Rust workspace (release) + the Python package into .venv; the workspace
#                 includes the C library (target/release/libsdmac.so and libsdmac.a) and
#                 target/release/sdmac-probe, which `sdmac probe IFACE` runs
#   make test     cargo test + pytest (cargo test includes the fuzz_corpus tests: every fuzz
#                 target's committed seeds, fuzz/seeds, replayed on stable Rust through the
#                 target's own check, in seconds)
#   make lint     the gates make test runs first: lint-rust (cargo fmt --check, clippy and
#                 cargo doc with warnings denied; every crate warns on missing docs) and
#                 lint-py (ruff check on python/sdmac and tests/, mypy --strict on python/sdmac)
#   make fuzz     the fuzzing campaign: cargo fuzz on nightly (both installed here if
#                 missing), FUZZ_SECONDS (default 60) per target, or FUZZ_RUNS executions
#                 each; writes bench/results/fuzz.json and docs/fuzz.md
#   make demo     sdmac bench oneshot: the SDMAC paper's experiment on the emulated medium
#   make bench    bench/run.sh: every benchmark, and the goals (exits non-zero when one is missed)
#   make bench-mediumd   the medium-daemon benchmark alone (VM; N pairs, iperf3);
#                 WMEDIUMD=path[,path] runs those daemons (wmediumd) side by side
#   make bench-mediumd-uml   the same in User-Mode Linux, with and without --coalesce-us 50,
#                 and 10 media x 20 stations; WMEDIUMD=path[,path] as above
#   make bench-mininet-wifi   Mininet-WiFi's topologies on sdmac-mediumd beside its wmediumd fork
#                 (UML; needs SDMAC_MININET_WIFI=<Mininet-WiFi tree>, WMEDIUMD_FORK=<its wmediumd>)
#   make benchmarks-page   docs/benchmarks.md again from bench/results/*.json and bench/text/
#                 (bench/render_benchmarks.py; tests/test_benchmarks_page.py fails when it is stale)
#   make vmtest   the tests that boot a VM (testbed/: QEMU + Debian kernel + mac80211_hwsim)
#   make uml      the User-Mode Linux kernel of the second test bed (testbed/build_uml.sh;
#                 ~5 min the first time, then cached; make test builds it)
#   make clean    build products; `make distclean` also drops .venv and .stamps
#
# Needs Rust (cargo) from rustup; everything else is installed here.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:

# rustup installs into ~/.cargo/bin, which a non-login shell may lack.
export PATH := $(HOME)/.cargo/bin:$(PATH)

PYTHON ?= python3
VENV   := $(CURDIR)/.venv
VPY    := $(VENV)/bin/python
STAMPS := .stamps

APT_PACKAGES := python3-venv python3-dev tshark build-essential pkg-config iputils-ping iperf3 iproute2
PY_PACKAGES  := "maturin>=1.9,<2" "click>=8.1" "rich>=13" "numpy>=1.24" "matplotlib>=3.6" \
                "pytest>=7" "pytest-timeout>=2" "pytest-xdist>=3" "hypothesis>=6" "libconf>=2" \
                "ruff>=0.17,<0.18" "mypy>=2.4,<2.5" "ray>=2.40,<3"
# The Mininet-WiFi test and benchmark (testbed/mininet_wifi/): Debian's Mininet and the
# Python packages Mininet-WiFi imports, for Debian's python3. (Mininet-WiFi itself is
# not installed: the test runs it from the tree SDMAC_MININET_WIFI names.)
PYDIST := /usr/lib/python3/dist-packages
MNWIFI_APT := mnexec:mininet iwconfig:wireless-tools $(PYDIST)/requests:python3-requests $(PYDIST)/six.py:python3-six \
          $(PYDIST)/matplotlib:python3-matplotlib $(PYDIST)/numpy:python3-numpy \
          $(PYDIST)/bitstring.py:python3-bitstring $(PYDIST)/PIL:python3-pil
# The VM test bed (testbed/): what each needs on the host -> its Debian package.
# (testbed/build.sh installs the same when missing; the kernel it fetches itself.)
VM_APT := qemu-system-x86_64:qemu-system-x86 /bin/busybox:busybox-static iw:iw \
          hostapd:hostapd wpa_supplicant:wpasupplicant iperf3:iperf3 tcpdump:tcpdump \
          ethtool:ethtool kmod:kmod /lib/firmware/regulatory.db:wireless-regdb \
          $(MNWIFI_APT)

CARGO_FLAGS ?= --release
# sdmac-py is the Python extension: maturin builds it (linked for the interpreter
# in .venv) and pytest tests it, so plain cargo leaves it out.
CARGO_WS := --workspace --exclude sdmac-py

.PHONY: all deps build lint lint-rust lint-py test fuzz demo bench benchmarks-page bench-mediumd bench-mediumd-uml bench-mininet-wifi vmtest uml clean distclean check-cargo

all: build

# ---------------------------------------------------------------- dependencies

check-cargo:
	@if ! command -v cargo >/dev/null 2>&1; then \
	  echo "error: cargo not found (PATH=$$PATH)." >&2; \
	  echo "       sdmac needs a Rust toolchain: install it with rustup (https://rustup.rs)," >&2; \
	  echo "       then open a new shell or run: source \"\$$HOME/.cargo/env\"" >&2; \
	  exit 1; \
	fi

$(STAMPS):
	@mkdir -p $@

# System packages: skipped entirely when every tool they provide is present.
$(STAMPS)/apt: Makefile | $(STAMPS)
	@missing=""; \
	$(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	$(PYTHON) -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
	  >/dev/null 2>&1 || missing="$$missing python3-dev"; \
	command -v tshark >/dev/null 2>&1 || missing="$$missing tshark"; \
	{ command -v cc && command -v c++ && command -v make; } >/dev/null 2>&1 || missing="$$missing build-essential"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	for pair in ping:iputils-ping iperf3:iperf3 ip:iproute2; do PATH="$$PATH:/usr/sbin:/sbin" command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	for pair in $(VM_APT); do \
	  f=$${pair%%:*}; p=$${pair#*:}; \
	  case "$$f" in /*) [ -e "$$f" ] ;; *) PATH="$$PATH:/usr/sbin:/sbin" command -v "$$f" >/dev/null 2>&1 ;; esac \
	    || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "deps: system packages present ($(APT_PACKAGES))"; \
	else \
	  sudo=""; \
	  if [ "$$(id -u)" -ne 0 ]; then \
	    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	    else echo "error: need root (or sudo) to install:$$missing" >&2; exit 1; fi; \
	  fi; \
	  echo "deps: installing$$missing"; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $$sudo debconf-set-selections; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@touch $@

# pyvenv.cfg is a plain file written when the venv is made, so deleting .venv
# makes it again (and re-runs the pip step below).
$(VENV)/pyvenv.cfg: | $(STAMPS)/apt
	$(PYTHON) -m venv $(VENV)

$(STAMPS)/venv: $(VENV)/pyvenv.cfg python/pyproject.toml Makefile
	$(VPY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(VPY) -m pip install -q --disable-pip-version-check --prefer-binary $(PY_PACKAGES)
	@touch $@

deps: check-cargo $(STAMPS)/venv

# ---------------------------------------------------------------- build

# The examples too: the VM tests run several of them (linux_drive, radio_control,
# truth_watch) from target/release/examples.
build: deps
	cargo build $(CARGO_FLAGS) $(CARGO_WS) --lib --bins --examples
	cd python && VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin develop $(CARGO_FLAGS) --quiet

# The UML test bed: a kernel built from Debian's linux-source-6.1 (installed here).
uml: deps
	bash testbed/build_uml.sh >/dev/null

# The Python gates: ruff (python/pyproject.toml; tests/ruff.toml for the tests) and mypy
# --strict on the package and the API examples, typed against python/sdmac/_core.pyi.
# Neither needs the build.
lint-py: deps
	$(VENV)/bin/ruff check python/sdmac tests examples/api
	$(VENV)/bin/mypy --config-file python/pyproject.toml python/sdmac examples/api

# The test binaries are built with the test-ci profile (Cargo.toml: release without LTO
# and debug info), which cuts their build from ~14 to ~3.5 min here; the binaries the
# Python tests run are `make build`'s release ones.
TEST_PROFILE ?= test-ci
# No Python test may hold up the suite: one still running after this many seconds
# fails with its stack (the VM tests time their guests out well before).
PYTEST_TIMEOUT ?= 900
# The Python tests run in two processes, a test file each at a time (a file's VM
# fixtures stay in one process): most of their time is QEMU emulating a CPU, one core
# each, so two at once take ~9 instead of ~15 min here. PYTEST_WORKERS=0 runs them in
# one process.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = $(if $(filter-out 0 1,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadfile,)

# Property tests draw their cases from a fixed seed under make test, so that a result is
# reproducible and a gate never fails on a case no one can replay; a property test that
# fails names its case and the seed. TEST_SEED= (empty) draws fresh cases every run,
# which is what to do while changing a parser.
TEST_SEED ?= 1

test: build uml lint
	$(if $(TEST_SEED),PROPTEST_RNG_SEED=$(TEST_SEED)) cargo test --profile $(TEST_PROFILE) $(CARGO_WS)
	$(if $(TEST_SEED),SDMAC_TEST_SEED=$(TEST_SEED)) SDMAC_STRICT_SKIPS=1 $(VENV)/bin/pytest -q -rs --durations=15 --timeout=$(PYTEST_TIMEOUT) $(PYTEST_PARALLEL) tests/

lint: lint-rust lint-py

# The Rust gates, over every crate (the extension's build script asks for the venv's
# Python; nothing is linked here).
lint-rust: check-cargo deps
	cargo fmt --all --check
	PYO3_PYTHON=$(VPY) cargo clippy --workspace --all-targets -- -D warnings
	PYO3_PYTHON=$(VPY) RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

# cargo-fuzz needs nightly Rust (libFuzzer, sanitizer flags): both are installed when
# missing. All targets live in one cargo-fuzz workspace, fuzz/. Each runs from its
# committed seeds (fuzz/seeds/T, read only) and its growing corpus (fuzz/corpus/T,
# ignored by git); crashes land in fuzz/artifacts/T. Time mode (the default):
# FUZZ_SECONDS (60) per target. Run-count mode: FUZZ_RUNS=N runs each target for N
# executions (libFuzzer -runs=), capped at FUZZ_SECONDS when that is given too.
# FUZZ_SANITIZER (address) picks cargo-fuzz's sanitizer: `none` runs about ten times
# faster (debug assertions and overflow checks stay on; panics are still caught).
# FUZZ_TARGETS picks targets. A target that fails does not stop the others. The output
# goes to FUZZ_LOG; at the end bench/fuzz_report.py turns it into bench/results/fuzz.json
# (from libFuzzer's final stats) and bench/render_fuzz.py into docs/fuzz.md, then the run
# fails if a target did, naming them. Not part of make test.
FUZZ_SECONDS ?=
FUZZ_RUNS ?=
FUZZ_SANITIZER ?= address
FUZZ_TARGETS ?= hwsim_msg nl80211_msg wmconfig control_decoder \
                ieee80211_parse radiotap_parse pcapng_read
FUZZ_LOG ?= bench/out/fuzz.log
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)$(if $(FUZZ_SECONDS), -max_total_time=$(FUZZ_SECONDS)),-max_total_time=$(or $(FUZZ_SECONDS),60))
FUZZ_WHAT = $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs$(if $(FUZZ_SECONDS), or $(FUZZ_SECONDS) s),$(or $(FUZZ_SECONDS),60) s)

fuzz: check-cargo
	@rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
	@cargo +nightly fuzz --version >/dev/null 2>&1 || cargo +nightly install cargo-fuzz --locked
	@mkdir -p "$$(dirname $(FUZZ_LOG))"; : > $(FUZZ_LOG); failed=""; \
	for t in $(FUZZ_TARGETS); do \
	  echo "fuzz: $$t for $(FUZZ_WHAT) (sanitizer $(FUZZ_SANITIZER))" | tee -a $(FUZZ_LOG); \
	  mkdir -p "fuzz/corpus/$$t"; start=$$EPOCHREALTIME; rc=0; \
	  cargo +nightly fuzz run --sanitizer $(FUZZ_SANITIZER) "$$t" "fuzz/corpus/$$t" "fuzz/seeds/$$t" -- \
	    $(FUZZ_LIMIT) -print_final_stats=1 2>&1 | tee -a $(FUZZ_LOG) || rc=$$?; \
	  took=$$(awk "BEGIN { printf \"%.1f\", $$EPOCHREALTIME - $$start }"); \
	  echo "fuzz: $$t ended after $$took s, exit $$rc" | tee -a $(FUZZ_LOG); \
	  [ $$rc -eq 0 ] || failed="$$failed $$t"; \
	done; \
	[ -z "$$failed" ] || echo "fuzz: failed:$$failed (inputs in fuzz/artifacts/)" | tee -a $(FUZZ_LOG) >&2; \
	python3 bench/fuzz_report.py $(FUZZ_LOG) --command "make fuzz$(if $(FUZZ_RUNS), FUZZ_RUNS=$(FUZZ_RUNS))$(if $(FUZZ_SECONDS), FUZZ_SECONDS=$(FUZZ_SECONDS)) FUZZ_SANITIZER=$(FUZZ_SANITIZER)"; \
	python3 bench/render_fuzz.py; \
	[ -z "$$failed" ]

demo: build
	mkdir -p bench/out
	$(VENV)/bin/sdmac bench oneshot --json bench/out/oneshot.json --csv bench/out/oneshot.csv --plot bench/out/oneshot-ccdf.png

bench: build
	@if [ -f bench/run.sh ]; then bash bench/run.sh; else echo "bench: no bench/run.sh yet"; fi

# WMEDIUMD=path[,path] (or --daemon in bench/mediumd.py): other medium daemons, run
# side by side with ratios; with them, a second pass counts every daemon's system
# calls with strace -c (which slows them, so its goodput is not the figure).
WMEDIUMD ?=

bench-mediumd: build
	mkdir -p bench/out
	WMEDIUMD="$(WMEDIUMD)" python3 bench/mediumd.py --stations 2,10,40 --seconds 10 --epoll --json bench/out/mediumd.json
	if [ -n "$(WMEDIUMD)" ]; then WMEDIUMD="$(WMEDIUMD)" python3 bench/mediumd.py --stations 2,10 --seconds 5 --no-kernel --strace --json bench/out/mediumd-strace.json; fi

bench-mediumd-uml: build uml
	mkdir -p bench/out
	WMEDIUMD="$(WMEDIUMD)" python3 bench/mediumd.py --vm uml --stations 2,10,40,100 --seconds 10 --no-run-ahead --coalesce-us 50 --json bench/out/mediumd-uml.json
	if [ -n "$(WMEDIUMD)" ]; then WMEDIUMD="$(WMEDIUMD)" python3 bench/mediumd.py --vm uml --stations 2,10 --seconds 5 --no-kernel --strace --json bench/out/mediumd-uml-strace.json; fi
	python3 bench/mediumd.py --vm uml --stations 200 --channels 10 --seconds 20 --no-kernel --no-run-ahead --coalesce-us 50 --json bench/out/mediumd-uml-10x20.json

bench-mininet-wifi: build
	mkdir -p bench/out
	python3 bench/mininet_wifi.py --json bench/out/mininet-wifi.json

# No benchmark runs: the page is rendered from the kept result files.
benchmarks-page:
	python3 bench/render_benchmarks.py

vmtest: build
	bash testbed/build.sh >/dev/null
	$(VENV)/bin/pytest -q -rs tests/test_vm_*.py

clean:
	-cargo clean
	rm -rf python/sdmac/_core*.so python/build python/*.egg-info
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(STAMPS) testbed/out
