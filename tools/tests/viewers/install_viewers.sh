#!/bin/sh
# Installs the viewers the export tests load traces into, with npm, into DIR:
# speedscope (its web app, dist/release/index.html) and playwright-core (to
# drive Debian's chromium). Pinned versions; nothing is done when they are
# there already. Fails (exit 1) when npm is missing: ci/lib.sh's
# atf_install_viewers installs npm, chromium and protobuf-compiler.
# Usage: install_viewers.sh DIR
set -eu
dir="${1:?usage: install_viewers.sh DIR}"
speedscope=1.25.0
playwright=1.65.1
have() { [ -f "$dir/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json"; }
if have speedscope "$speedscope" && have playwright-core "$playwright" &&
   [ -f "$dir/node_modules/speedscope/dist/release/index.html" ]; then
    exit 0
fi
command -v npm >/dev/null || { echo "install_viewers: npm is missing (ci/lib.sh: atf_install_viewers)" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || printf '{"name":"atf-viewers","private":true}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "speedscope@$speedscope" "playwright-core@$playwright"
have speedscope "$speedscope" && have playwright-core "$playwright" ||
    { echo "install_viewers: npm did not install speedscope $speedscope and playwright-core $playwright" >&2; exit 1; }
