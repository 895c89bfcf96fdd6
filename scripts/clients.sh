#!/usr/bin/env bash
# Installs the pinned agent clients the real-client suite runs (from npm, into a cache kept
# between runs) and prints where they are. An install that is already there is used as it is.
#
#   scripts/clients.sh            install what is missing, print KEY=path lines
#
# The cache is $JOURNALSCOPE_CLIENTS, by default ~/.cache/journalscope/clients.
set -euo pipefail

cache="${JOURNALSCOPE_CLIENTS:-$HOME/.cache/journalscope/clients}"
mkdir -p "$cache"

# Each client: a key the suite reads, the npm package and its pinned version.
clients=(
  "CLAUDE_CODE @anthropic-ai/claude-code 2.1.332"
  "CLAUDE_CODE_OLD @anthropic-ai/claude-code 2.1.220"
  "CODEX @openai/codex 0.171.0"
)

install_one() {
  local package="$1" version="$2" dir="$3"
  local tmp="$dir.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # Scripts stay off: Claude Code's would fetch nothing we need, and its install step is run
  # by hand below so that a failure says so.
  npm install --prefix "$tmp" --no-audit --no-fund --ignore-scripts --loglevel=error \
    "$package@$version" >&2
  case "$package" in
    @anthropic-ai/claude-code)
      # The package's bin is a placeholder until install.cjs puts the platform's binary
      # (from the optional dependency installed beside it) in its place.
      (cd "$tmp/node_modules/@anthropic-ai/claude-code" && node install.cjs >&2)
      ;;
  esac
  mv "$tmp" "$dir"
}

binary_of() {
  local package="$1" dir="$2"
  case "$package" in
    @anthropic-ai/claude-code) echo "$dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe" ;;
    @openai/codex) echo "$dir/node_modules/@openai/codex/bin/codex.js" ;;
  esac
}

for entry in "${clients[@]}"; do
  read -r key package version <<<"$entry"
  dir="$cache/${package//\//+}@$version"
  bin="$(binary_of "$package" "$dir")"
  if [ ! -x "$bin" ] && [ ! -f "$bin" ]; then
    rm -rf "$dir"
    echo "clients: installing $package@$version into $dir" >&2
    install_one "$package" "$version" "$dir"
  fi
  if ! out="$(timeout 60 "$bin" --version </dev/null 2>&1)"; then
    echo "clients: $package@$version does not start: $out" >&2
    exit 1
  fi
  echo "$key=$bin"
done
