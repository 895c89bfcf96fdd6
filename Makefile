# Journalscope: `make run` opens the app on the demo journal, `make test` runs every suite.
# Both install what is missing first (Debian packages, tauri-driver, npm packages), so they
# work on a fresh Debian 12 machine with no standard input.

SHELL := /bin/bash
CARGO ?= cargo
FILE ?=

.PHONY: run test lint core-test bench system-deps

# Desktop targets (ui-deps, ui-build, ui-test, app-build, e2e, run-app) live beside the app.
-include mk/desktop.mk

run: run-app

test: system-deps lint core-test ui-test e2e

# The Rust core builds without any webview library; clippy also checks the desktop crate, which
# needs them, so system packages come first.
lint: system-deps ui-build
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

core-test:
	$(CARGO) test --package journalscope

bench:
	$(CARGO) run --release --package journalscope -- bench --events 1000000

# What Tauri needs on Debian, plus what the end-to-end tests drive the window with.
SYSTEM_PACKAGES := build-essential pkg-config curl file libssl-dev libxdo-dev \
	libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev \
	webkit2gtk-driver xvfb xauth fonts-dejavu-core imagemagick
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

system-deps:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing </dev/null; \
	fi
	@command -v tauri-driver >/dev/null || [ -x "$$HOME/.cargo/bin/tauri-driver" ] || \
		$(CARGO) install tauri-driver --locked
