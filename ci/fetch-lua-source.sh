#!/bin/sh
# fetch-lua-source.sh DEST: Lua 5.4's source (Debian's source package, a real
# program no one in this project wrote) unpacked under DEST, fetched once:
# prints the source directory (the one holding src/lua.c). Adds a deb-src
# entry for the archive the system's deb entries use when there is none.
# Exits non-zero, saying why, when the source cannot be had. Used by the
# real_program and rec_life_lua tests and bench/trace-real, through
# ci/lua_build.py (the same DEST in the build tree).
set -eu
dest=${1:?usage: fetch-lua-source.sh DEST}
mkdir -p "$dest"
# Tests that run side by side share DEST: one fetches, the others wait for it.
if [ -z "${ATF_LUA_FETCH_LOCKED:-}" ] && command -v flock >/dev/null; then
    ATF_LUA_FETCH_LOCKED=1 exec flock "$dest/.lock" "$0" "$@"
fi
found() { for d in "$dest"/lua5.4-*/; do [ -f "$d/src/lua.c" ] && { printf '%s\n' "${d%/}"; return 0; }; done; return 1; }
found && exit 0
if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    as_root=""
    [ "$(id -u)" -eq 0 ] || as_root="sudo -n"
    src=$(grep -rhs -A3 '^Types: deb$' /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs: *//p' | head -1)
    suite=$(grep -rhs '^Suites:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}')
    if [ -z "$src" ]; then
        set -- $(grep -hs '^deb ' /etc/apt/sources.list | head -1)
        src=${2:-}; suite=${3:-}
    fi
    [ -n "$src" ] && [ -n "$suite" ] || { echo "fetch-lua-source: no deb entry to derive a deb-src entry from" >&2; exit 1; }
    echo "fetch-lua-source: adding deb-src $src $suite main" >&2
    printf 'deb-src %s %s main\n' "$src" "$suite" | $as_root tee /etc/apt/sources.list.d/atf-deb-src.list >/dev/null
    $as_root apt-get update -qq >&2
fi
(cd "$dest" && apt-get source -qq lua5.4 >&2) || { echo "fetch-lua-source: apt-get source lua5.4 failed" >&2; exit 1; }
found || { echo "fetch-lua-source: no lua5.4-*/src/lua.c under $dest after apt-get source" >&2; exit 1; }
