#!/usr/bin/env bash
# Runs the desktop end-to-end tests: builds the UI, the app and the tail_server example (the
# live tests stream from it), starts Xvfb, and runs the fantoccini tests, which start and stop
# tauri-driver themselves. Bounded by `timeout -k`.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
"$here/scripts/desktop-deps.sh" --e2e
export PATH="$HOME/.cargo/bin:$PATH"

(cd ui && npm run build)
# The whole workspace with its examples resolves features as `cargo test --workspace` does, so
# the app, the command line and tail_server reuse the tests' build of every dependency.
cargo build --workspace --bins --examples

mkdir -p target/e2e-screenshots
# shellcheck source=scripts/xvfb.sh
. "$here/scripts/xvfb.sh"
start_xvfb "${E2E_DISPLAY:-:97}"
trap stop_xvfb EXIT

# src-tauri/tests/e2e/ is the end-to-end test binary, a module a suite.
timeout -k 20 "${E2E_TIMEOUT:-1800}" \
  cargo test --no-fail-fast --workspace --test e2e -- --ignored --test-threads=1 --nocapture
