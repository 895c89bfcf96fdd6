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
cargo build -p journalscope-app
cargo build -p journalscope --bin journalscope
cargo build -p journalscope --example tail_server

mkdir -p target/e2e-screenshots
display="${E2E_DISPLAY:-:97}"
xvfb_pid=""
if [ -z "${DISPLAY:-}" ] || [ -n "${E2E_DISPLAY:-}" ]; then
  Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY="$display"
  # A loaded machine can take seconds to open the display; an app started before it dies.
  for _ in $(seq 1 100); do
    [ -S "/tmp/.X11-unix/X${display#:}" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { echo "e2e: Xvfb $display did not start" >&2; exit 1; }
    sleep 0.1
  done
fi
cleanup() {
  if [ -n "$xvfb_pid" ]; then
    kill -TERM "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

# Every src-tauri/tests/e2e_*.rs is an end-to-end test binary.
suites=()
for f in src-tauri/tests/e2e_*.rs; do
  suites+=(--test "$(basename "$f" .rs)")
done
timeout -k 20 "${E2E_TIMEOUT:-1800}" \
  cargo test --no-fail-fast -p journalscope-app "${suites[@]}" -- --ignored --test-threads=1 --nocapture
