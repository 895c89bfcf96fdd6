#!/usr/bin/env bash
# Builds the release .deb into target/release/bundle/deb/: the UI, then the release command line
# and app in one build, the command line's manual pages and shell completions (generated from its
# own argument definitions), and Tauri's bundler, which puts all of them into one package.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
"$here/scripts/desktop-deps.sh"

(cd ui && npm run build)
# One build for the command line and the app: built apart, their features resolved differently
# and every shared dependency was compiled twice.
cargo build --release --locked --workspace --bins

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
(cd src-tauri && ../ui/node_modules/.bin/tauri bundle --ci --bundles deb)
ls target/release/bundle/deb/*.deb
