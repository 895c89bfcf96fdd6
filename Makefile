# Journalscope: `make run` opens the app on the demo journal, `make test` runs every suite.
# Both install what is missing first (Debian packages, tauri-driver, npm packages), so they
# work on a fresh Debian 12 machine with no standard input.

SHELL := /bin/bash
CARGO ?= cargo
FILE ?=

# A clean clone on CI builds everything once: incremental caches would only add gigabytes to
# its disk. Every debug build below selects the whole workspace with its tests, so the core,
# the app, the examples and every test share one build of each dependency.
ifeq ($(CI),true)
export CARGO_INCREMENTAL := 0
endif

.PHONY: run test lint core-test clients bench system-deps fuzz package package-check

# Desktop targets (ui-deps, ui-build, ui-test, app-build, e2e, run-app) live beside the app.
-include mk/desktop.mk

run: run-app

test: system-deps lint core-test clients ui-test e2e package-check

# The release .deb (app, command line, manual pages, completions) in target/release/bundle/deb/.
package:
	scripts/package.sh

# Builds the package, installs it with apt, checks the installed command line and window, and
# removes it again. Needs root or passwordless sudo, as on CI.
package-check:
	scripts/package-check.sh

# The Rust core builds without any webview library; clippy also checks the desktop crate, which
# needs them, so system packages come first.
lint: system-deps ui-build
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# The core's tests and the shell's Rust tests (IPC shapes, recent files, the window's security
# policy as configured); the end-to-end tests are ignored here and run under `e2e`.
core-test:
	$(CARGO) test --workspace

# The real agent clients (pinned releases from npm, installed into a cache kept between runs)
# run offline against a scripted provider: every request it received is what Journalscope
# exports for the transcript line that records it.
clients:
	scripts/clients.sh >/dev/null
	$(CARGO) test --workspace --test real_clients -- --ignored --test-threads=2

bench:
	$(CARGO) run --release --package journalscope -- bench --events 1000000

# What Tauri needs on Debian, what the end-to-end tests drive the window with, and the UI's
# npm packages: installed when missing, never asked about.
system-deps:
	scripts/desktop-deps.sh --e2e

# Fuzzing (not part of `test`): each cargo-fuzz target of fuzz/ runs FUZZ_SECONDS, seeded with
# the test fixtures; a crash stops the run and leaves its input in fuzz/artifacts/<target>/.
# Nightly and cargo-fuzz are installed when missing. The targets are safe Rust, so they look
# for panics, overflows (debug assertions are on) and stack exhaustion without AddressSanitizer.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := line_reader sse_frames iterate_reducer agui_reducer agentskit_reducer record_json record_tree

fuzz:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	$(CARGO) +nightly fuzz build --sanitizer none
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p $(CURDIR)/fuzz/corpus/$$target || exit 1; \
		echo "fuzz: $$target for $(FUZZ_SECONDS) s"; \
		$(CARGO) +nightly fuzz run --sanitizer none $$target $(CURDIR)/fuzz/corpus/$$target $(CURDIR)/tests/fixtures \
			-- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=4096 || exit 1; \
	done
