# Desktop app targets. Included by the top-level Makefile. Every target installs what
# it needs (apt packages, tauri-driver, npm packages) when missing, asks nothing, and can run
# again safely.

DESKTOP_APP := target/debug/journalscope-app
FILE ?=

.PHONY: ui-deps ui-build ui-test app-build e2e run-app

ui-deps:
	scripts/desktop-deps.sh

ui-build: ui-deps
	cd ui && npm run build

# Vitest for view logic, svelte-check for types, and drift of the generated TypeScript (the
# shell's Rust tests run with the core's, in `core-test`).
ui-test: ui-deps
	cd ui && npm run check
	cd ui && npm test
	scripts/ts-drift.sh

app-build: ui-build
	cargo build -p journalscope-app

e2e:
	scripts/e2e.sh

# `make run-app` opens the iterate demo; `make run-app FILE=path` opens that journal.
run-app: app-build
	$(DESKTOP_APP) $(FILE)
