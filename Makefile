# wsx: `make run` starts the server on ./data/wsx.sqlite; `make test` runs every test.
# Both install what they need first (Debian packages, a Python virtual environment for the
# browser tests), so they work on a fresh Debian 12 machine with only the Swift toolchain.

SHELL := /bin/bash
.DEFAULT_GOAL := run

APT_PACKAGES := libsqlite3-dev libmagic-dev libvips-dev zlib1g-dev libbrotli-dev pkg-config chromium python3-venv fonts-noto-cjk fonts-noto-color-emoji nginx-light postgresql
VENV := .venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DATA_DIR ?= ./data
PORT ?= 8080
HOST ?= 127.0.0.1

.PHONY: run test deps venv build build-release build-tests swift-test swift-test-postgres browser-test screenshots dist fuzz bench bench-deps clean

## Install the Debian packages wsx builds and tests against (only the missing ones).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	  case " $$missing " in *" nginx-light "*) \
	    $(SUDO) systemctl disable --now nginx >/dev/null 2>&1 || true;; \
	  esac; \
	  case " $$missing " in *" postgresql "*) \
	    $(SUDO) systemctl disable --now postgresql >/dev/null 2>&1 || true;; \
	  esac; \
	fi

## Python tools for the browser tests, in a virtual environment (Debian's pip refuses system installs).
venv: deps $(VENV)/.installed
$(VENV)/.installed: Tests/browser/requirements.txt
	# Debian's python3 (installed by deps above), or whatever python3 is first on PATH.
	"$$(command -v /usr/bin/python3 || command -v python3)" -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r Tests/browser/requirements.txt
	touch $@

build: deps
	swift build

build-release: deps
	swift build -c release

build-tests: deps
	swift build --build-tests

## Start the server (release build) on an embedded SQLite database in $(DATA_DIR). Coins are sold
## through the built-in sandbox (no money moves), so the store can be tried, and anyone may sign
## up to try it; a real deployment runs with --payments portone or without the flag (payments
## off), and without --signup (by invitation).
run: build-release
	.build/release/wsx-web serve --host $(HOST) --port $(PORT) --data-dir $(DATA_DIR) --payments sandbox --signup open

## Every test: Swift unit, router and live-server tests (on SQLite, then again on PostgreSQL),
## then the browser tests.
test: swift-test swift-test-postgres browser-test

## At most 12 tests at once: hundreds of in-process servers starting together on two cores left
## the timed live tests (streams, idle timeouts, fetches) starved and failing.
swift-test: build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=12 swift test --skip-build

## The same suites with every in-process server on PostgreSQL (one throwaway cluster for the run,
## a database per server), but for those whose backend does not vary: the ones that choose it
## themselves (the store conformance suites and PostgreSQL's own, which the pass above already
## ran on both backends; SQLite's migrations and files) and the ones that run the built binary.
POSTGRES_PASS_SKIPS := wsx_webTests\.(Postgres[A-Za-z]*|[A-Za-z]*Conformance[A-Za-z]*|MigrateCommandPostgresTests|TeamCopyTests|[A-Za-z]*MigrationTests|GroupCommitTests|SchemaParityTests|TimestampsGRDBTests|ConnectionFloodTests|BinaryTests)/
swift-test-postgres: build-tests
	WSX_TEST_BACKEND=postgres SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=12 swift test --skip-build --skip '$(POSTGRES_PASS_SKIPS)'

browser-test: venv build
	WSX_BINARY=$(CURDIR)/.build/debug/wsx-web $(VENV)/bin/python -m pytest -q Tests/browser

## The main pages at 390 and 1280 px, in Korean and English, into docs/screenshots/ (README
## shows two). Look at them after a change to the screens.
screenshots: venv build
	$(VENV)/bin/python tools/screenshots.py --binary $(CURDIR)/.build/debug/wsx-web --out $(CURDIR)/docs/screenshots

## A release binary with the Swift standard library linked in, in dist/.
dist: deps
	swift build -c release --static-swift-stdlib
	mkdir -p dist && cp .build/release/wsx-web dist/wsx-web && strip dist/wsx-web
	@ls -lh dist/wsx-web

## Benchmarks (release build): writes bench/RESULTS.md. See bench/README.md.
BENCH_PACKAGES := wrk nginx-light libnginx-mod-nchan imagemagick libvips-tools curl linux-perf
bench-deps: deps
	@missing=""; for p in $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

bench: bench-deps build-release
	python3 bench/run.py $(SECTIONS)

## Fuzz the multipart parser and the message renderer with libFuzzer (coverage +
## AddressSanitizer), a million inputs each. The renderer has a per-input time limit: its
## pathological inputs (fuzz/corpus-text) must render in linear time, so one over a second fails.
FUZZ_RUNS ?= 1000000
fuzz: deps
	cd fuzz && swift build -c release --scratch-path $(CURDIR)/.build-fuzz \
	  -Xlinker "$$(ls $$(dirname $$(dirname $$(command -v swift)))/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)" \
	  -Xlinker -lstdc++
	mkdir -p fuzz/corpus-run fuzz/corpus-text-run
	$(CURDIR)/.build-fuzz/release/MultipartFuzz -runs=$(FUZZ_RUNS) -max_len=4096 -print_final_stats=1 fuzz/corpus-run fuzz/corpus
	$(CURDIR)/.build-fuzz/release/MessageTextFuzz -runs=$(FUZZ_RUNS) -max_len=20000 -timeout=1 -print_final_stats=1 \
	  fuzz/corpus-text-run fuzz/corpus-text

clean:
	rm -rf .build dist
