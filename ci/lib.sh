# Shared helpers for the ci/ scripts (sourced, not run).
# shellcheck shell=bash

ATF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ATF_ROOT

# Debian/Ubuntu packages every build and test needs.
# (clang's sanitizer and libFuzzer runtime, libclang-rt-N-dev, is added by
# atf_install for the clang version installed.)
# protobuf-compiler and chromium are the consumers the export tests load
# traces into (protoc --decode_raw, speedscope in headless Chromium); nodejs
# stands for node and npm (see atf_install): the export tests install
# speedscope with npm, a format's interop test the other implementation it
# reads against (npm's tracing-framework).
# uftrace and dpkg-dev: the real_program test (uftrace report's counts; apt-get source lua5.4).
ATF_BASE_PACKAGES=(build-essential cmake pkg-config libcmocka-dev libjansson-dev clang
                   python3 python3-hypothesis python3-pytest protobuf-compiler chromium nodejs
                   uftrace dpkg-dev)

log() { printf '\n==> %s\n' "$*"; }

# atf_install PKG...: installs the packages that are missing (apt-get, as
# root or through sudo). Safe to run again: it installs nothing when all are there.
# With clang among them, also the runtime of that clang (libclang-rt-N-dev).
# nodejs (or chromium, whose tests need them too) means node and npm: Debian's
# nodejs and npm, unless some node and npm are on PATH already (a NodeSource
# nodejs carries its own npm and conflicts with Debian's).
atf_install() {
    local p pkgs=() node=0
    for p in "$@"; do
        case "$p" in
            nodejs) node=1 ;;
            chromium) node=1; pkgs+=("$p") ;;
            *) pkgs+=("$p") ;;
        esac
    done
    [ ${#pkgs[@]} -eq 0 ] || atf_install_list "${pkgs[@]}"
    for p in "${pkgs[@]}"; do
        if [ "$p" = clang ] && command -v clang >/dev/null; then
            atf_install_list --optional "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
        fi
    done
    if [ $node -eq 1 ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
        atf_install_list nodejs npm
    fi
}

# atf_install_list [--optional] PKG...: a package the archive does not have
# stops the script (it would fail later, less clearly), unless --optional.
atf_install_list() {
    local optional=0
    [ "${1:-}" = --optional ] && { optional=1; shift; }
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "ci: need root or sudo to install: ${missing[*]}" >&2; return 1; }
        sudo=(sudo)
    fi
    log "installing ${missing[*]}"
    # Some images (e.g. Debian 12's libclang-rt split) name clang's runtime
    # differently: that one is --optional, and the build reports the rest.
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    local ok=() q
    for q in "${missing[@]}"; do
        if apt-cache show "$q" >/dev/null 2>&1; then
            ok+=("$q")
        elif [ $optional -eq 1 ]; then
            echo "ci: package $q not available, skipped" >&2
        else
            echo "ci: package $q is not in the apt archive (run on Debian 12, or install it by hand)" >&2
            return 1
        fi
    done
    [ ${#ok[@]} -eq 0 ] || "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${ok[@]}"
}

# Debian's interpreter has python3-hypothesis; another python3 first on PATH may not.
ATF_PYTHON=/usr/bin/python3
export ATF_PYTHON

# atf_build DIR [cmake args...]: configures and builds into DIR.
atf_build() {
    local dir="$1"; shift
    mkdir -p "$dir"
    cmake -S "$ATF_ROOT" -B "$dir" -DATF_PYTHON="$ATF_PYTHON" "$@" >"$dir/configure.log" 2>&1 \
        || { cat "$dir/configure.log"; return 1; }
    cmake --build "$dir" -j"$(nproc)"
}
