#!/bin/sh
# Installs the real Web Tracing Framework, npm's tracing-framework (pinned),
# into DIR: the library the WTF interop test writes real traces with and
# reads ours with (DIR/node_modules/tracing-framework, with its bin/dump.js).
# Nothing is done when that version is there already. Install scripts and
# optional dependencies are left out: the only optional one, microtime, is a
# native clock module (without it the library's timebase is process.hrtime),
# and ws's install script only tries to build an optional native speed-up.
# Fails (exit 1) when npm is missing: ci/lib.sh's atf_install installs node
# and npm from Debian.
# Usage: install_wtf.sh DIR
set -eu
dir="${1:?usage: install_wtf.sh DIR}"
version=2015.7.15-1
pkg="$dir/node_modules/tracing-framework"
have() {
    [ -f "$pkg/package.json" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json" &&
        [ -f "$pkg/build-out/wtf_node_js_compiled.js" ] && [ -f "$pkg/bin/dump.js" ]
}
have && exit 0
command -v npm >/dev/null || { echo "install_wtf: npm is missing (ci/lib.sh: atf_install)" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || printf '{"name":"atf-wtf-interop","private":true}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --ignore-scripts --omit=optional \
    "tracing-framework@$version"
have || { echo "install_wtf: npm did not install tracing-framework $version" >&2; exit 1; }
