#!/usr/bin/env bash
# Builds the release .deb into target/release/bundle/deb/: the UI, the release command line
# with its manual pages and shell completions (generated from its own argument definitions),
# then the app through Tauri's bundler, which puts all of them into one package.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
"$here/scripts/desktop-deps.sh"

(cd ui && npm run build)
cargo build --release --locked -p journalscope --bin journalscope

# The paths below are the ones src-tauri/tauri.conf.json maps into the package.
out=target/release/package
rm -rf "$out"
mkdir -p "$out/man1" "$out/completions"
target/release/journalscope manpages "$out/man1"
gzip -9n "$out"/man1/*.1
target/release/journalscope completions bash >"$out/completions/journalscope.bash"
target/release/journalscope completions zsh >"$out/completions/_journalscope"
target/release/journalscope completions fish >"$out/completions/journalscope.fish"

# A package left from another version would make the install pick the wrong file.
rm -f target/release/bundle/deb/*.deb
(cd src-tauri && ../ui/node_modules/.bin/tauri build --ci --bundles deb)
ls target/release/bundle/deb/*.deb
