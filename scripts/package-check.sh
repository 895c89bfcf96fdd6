#!/usr/bin/env bash
# Builds the .deb, installs it on this machine with apt, checks what it put where, runs the
# installed command line and window on the bundled demo, and removes the package again, also
# when a check fails. Needs root or passwordless sudo: CI runs it on a throwaway machine.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
export PATH="$HOME/.cargo/bin:$PATH"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo -n"

fail() {
  echo "package-check: FAILED: $*" >&2
  exit 1
}

# What the checks look at the installed files with: man, the desktop entry validator (whose
# trigger also writes the MIME cache "Open with" reads) and bash's completion loader.
tools=(man-db desktop-file-utils bash-completion)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

scripts/package.sh
deb="$(ls target/release/bundle/deb/*.deb)"
version="$(awk '/^\[workspace.package\]/{w=1} w && /^version/{gsub(/"/,"",$3); print $3; exit}' Cargo.toml)"
commit="$(git rev-parse --short=12 HEAD)"
[ -n "$version" ] || fail "no version in Cargo.toml's [workspace.package]"

remove() {
  if dpkg-query -W -f='${Status}' journalscope 2>/dev/null | grep -q "install ok installed"; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -qq journalscope </dev/null >/dev/null
  fi
}
remove
trap remove EXIT
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$here/$deb" </dev/null

echo "package-check: what the package installed"
listed="$(dpkg -L journalscope)"
for path in \
  /usr/bin/journalscope \
  /usr/bin/journalscope-app \
  /usr/share/applications/Journalscope.desktop \
  /usr/share/icons/hicolor/32x32/apps/journalscope-app.png \
  /usr/share/icons/hicolor/64x64/apps/journalscope-app.png \
  /usr/share/icons/hicolor/128x128/apps/journalscope-app.png \
  /usr/share/icons/hicolor/256x256/apps/journalscope-app.png \
  /usr/share/icons/hicolor/512x512/apps/journalscope-app.png \
  /usr/share/mime/packages/journalscope.xml \
  /usr/share/man/man1/journalscope.1.gz \
  /usr/share/man/man1/journalscope-import.1.gz \
  /usr/share/man/man1/journalscope-project.1.gz \
  /usr/share/bash-completion/completions/journalscope \
  /usr/share/zsh/vendor-completions/_journalscope \
  /usr/share/fish/vendor_completions.d/journalscope.fish; do
  grep -qx "$path" <<<"$listed" || fail "dpkg -L journalscope does not list $path"
  [ -s "$path" ] || fail "$path is missing or empty"
done
[ "$(dpkg-query -W -f='${Version}' journalscope)" = "$version" ] ||
  fail "the package's version is not Cargo.toml's $version"
dpkg-query -W -f='${Depends}' journalscope | grep -q "libwebkit2gtk-4.1-0" ||
  fail "the package does not depend on the webkit2gtk runtime"

echo "package-check: the command line on PATH, its manual and completions"
[ "$(command -v journalscope)" = /usr/bin/journalscope ] || fail "journalscope on PATH is $(command -v journalscope)"
expected="journalscope $version (commit $commit)"
[ "$(journalscope --version)" = "$expected" ] || fail "--version says '$(journalscope --version)', not '$expected'"
MANPAGER=cat MANWIDTH=100 man journalscope 2>/dev/null | grep -q "journalscope - Inspect agent journals" ||
  fail "man journalscope does not show the manual"
man -w journalscope-import >/dev/null || fail "man journalscope-import finds no page"
completed="$(bash -c 'source /usr/share/bash-completion/completions/journalscope &&
  COMP_WORDS=(journalscope im) COMP_CWORD=1 && _journalscope journalscope im journalscope && echo "${COMPREPLY[*]}"')"
grep -qw import <<<"$completed" || fail "bash completes 'journalscope im' to '$completed', not import"
head -1 /usr/share/zsh/vendor-completions/_journalscope | grep -q "^#compdef journalscope" ||
  fail "the zsh completion does not declare journalscope"
grep -q "^complete -c journalscope" /usr/share/fish/vendor_completions.d/journalscope.fish ||
  fail "the fish completion does not complete journalscope"

echo "package-check: the desktop entry and the journal MIME type"
desktop-file-validate /usr/share/applications/Journalscope.desktop || fail "the desktop entry is not valid"
grep -q "^Exec=journalscope-app %f$" /usr/share/applications/Journalscope.desktop ||
  fail "the desktop entry does not pass the opened file to the app"
grep -q "^\*\.jsonl:application/x-ndjson\|:application/x-ndjson:\*\.jsonl" /usr/share/mime/globs2 ||
  fail "the shared MIME database does not map *.jsonl to application/x-ndjson"
grep -q "^application/x-ndjson=.*Journalscope.desktop" /usr/share/applications/mimeinfo.cache ||
  fail "the desktop's MIME cache does not offer Journalscope for application/x-ndjson"

echo "package-check: the installed command line on the demo journal"
work="$(mktemp -d)"
trap 'remove; rm -rf "$work"' EXIT
cp demo/iterate-demo.jsonl "$work/"
export JOURNALSCOPE_CACHE_DIR="$work/cache"
journalscope import "$work/iterate-demo.jsonl" --db "$work/demo.db" --json >"$work/import.json"
grep -q '"dialect": "iterate"' "$work/import.json" || fail "the installed import did not read the demo as iterate"
grep -q '"events": 30' "$work/import.json" || fail "the installed import did not store the demo's 30 events"
journalscope project "$work/demo.db" --at 20 >"$work/project.txt"
grep -q "published through @8" "$work/project.txt" || fail "the installed project does not show the demo's projection at @20"
target/release/journalscope project "$work/demo.db" --at 20 | cmp -s - "$work/project.txt" ||
  fail "the installed project prints something else than the build it came from"

echo "package-check: the installed window, started from its desktop entry"
# shellcheck source=scripts/xvfb.sh
. "$here/scripts/xvfb.sh"
start_xvfb "${E2E_DISPLAY:-:98}" || fail "no display for the installed window"
trap 'remove; rm -rf "$work"; stop_xvfb' EXIT
timeout -k 20 600 cargo test --workspace --test installed_app -- --ignored --nocapture

echo "package-check: removing the package"
remove
[ ! -e /usr/bin/journalscope ] || fail "removing the package left /usr/bin/journalscope"
echo "package-check: ok ($deb)"
