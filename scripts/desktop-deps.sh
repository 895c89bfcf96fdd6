#!/usr/bin/env bash
# Installs what building and testing the desktop app needs on Debian/Ubuntu, without asking:
# the WebKitGTK toolchain, Xvfb and WebKitWebDriver for end-to-end tests, ImageMagick for
# screenshots, tauri-driver, and the UI's npm packages. Idempotent: each step checks first.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
want=(build-essential pkg-config libssl-dev libxdo-dev libwebkit2gtk-4.1-dev
  libayatana-appindicator3-dev librsvg2-dev webkit2gtk-driver xvfb xauth
  fonts-dejavu-core imagemagick)

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "desktop-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

if [ "${1:-}" = "--e2e" ] && ! command -v tauri-driver >/dev/null 2>&1; then
  echo "desktop-deps: installing tauri-driver"
  cargo install tauri-driver --locked </dev/null
fi

if [ ! -d "$here/ui/node_modules" ] || [ "$here/ui/package-lock.json" -nt "$here/ui/node_modules/.package-lock.json" ]; then
  echo "desktop-deps: npm ci"
  (cd "$here/ui" && npm ci --no-audit --no-fund </dev/null)
fi
