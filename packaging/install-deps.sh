#!/bin/sh
# Installs what the project needs to build and test, from Debian 12's
# packages.  Run as root (or through sudo).  clang and libclang-rt-14-dev
# (libclang_rt.fuzzer, ASan/UBSan runtimes) build tests/fuzz (preset fuzz).
# Qt 6 builds cpcprof-gui; xvfb runs its screenshot tests; binutils (objdump,
# nm) disassembles for `cpcprof annotate --disassemble` and the Source page.
set -eu
if [ "$(id -u)" -ne 0 ]; then
    exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
packages="
    build-essential binutils cmake ninja-build pkg-config
    libgtest-dev libgmock-dev
    libpfm4-dev
    libunwind-dev libdw-dev libelf-dev
    libsqlite3-dev sqlite3
    zlib1g-dev protobuf-compiler golang-github-google-pprof-dev python3-jsonschema
    nlohmann-json3-dev
    chromium
    clang libclang-rt-14-dev clang-format clang-tidy
    qt6-base-dev qt6-svg-dev xvfb xauth
"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
