#!/bin/sh
# Regenerates docs/images/speedscope-demo.png: a demo session (three threads,
# ARM64 detail lanes) exported as Chrome JSON and opened in speedscope (npm)
# in headless Chromium, the way the export tests load it.
# Usage: docs/make-screenshots.sh BUILD_DIR   (BUILD_DIR holds cli/atf)
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: docs/make-screenshots.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sh "$root/tools/tests/viewers/install_viewers.sh" "$build/viewers"
"$build/cli/atf" demo --threads 3 --events 400 --detail-every 4 --seed 3 "$work/pid_4242" >/dev/null
"$build/cli/atf" export --format chrome-json "$work/pid_4242" -o "$work/demo-session.json"
node "$root/tools/tests/viewers/speedscope_load.mjs" "$build/viewers" "$work/demo-session.json" "$work/page.json" \
    "$root/docs/images/speedscope-demo.png"
echo "wrote docs/images/speedscope-demo.png ($(cat "$work/page.json" | tr -d '\n' | cut -c1-120)...)"
