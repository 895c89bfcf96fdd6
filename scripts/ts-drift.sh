#!/usr/bin/env bash
# The TypeScript twins of the IPC types (ui/src/generated/) must be exactly what ts-rs writes
# from the Rust types now: regenerates every exported type of the core and the shell into a
# temporary directory and compares the two directories, so a changed, missing or leftover file
# (a type renamed or removed) fails.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
export PATH="$HOME/.cargo/bin:$PATH"

fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
TS_RS_EXPORT_DIR="$fresh" cargo test -q --workspace --lib export_bindings >/dev/null
if ! diff -r "$fresh" ui/src/generated; then
  echo "ui/src/generated/ differs from the Rust types: run \`cargo test --workspace --lib export_bindings\`, delete what it no longer writes, and commit the result" >&2
  exit 1
fi
