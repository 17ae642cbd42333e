#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what the project needs from Debian 12's packages.  Run as root
# (or through sudo).
#
#   sh packaging/install-deps.sh          building and running the tools
#                                         (cpcprof, cputrack, cpustat,
#                                         libcpc): compiler, CMake, the
#                                         libraries, binutils (objdump, nm)
#                                         for `cpcprof annotate --disassemble`
#   sh packaging/install-deps.sh --gui    the same, and Qt 6 for cpcprof-gui
#                                         (and for building the Debian
#                                         packages, cpcprof-gui among them)
#   sh packaging/install-deps.sh --tests  all of the above, and what the test
#                                         suite and CI need besides:
#                                         GoogleTest, protobuf and pprof
#                                         (export checks), Chromium (HTML
#                                         flame graphs), clang and its
#                                         runtimes (tests/fuzz), clang-format
#                                         and clang-tidy (.ci/lint), Xvfb
#                                         (screenshots), and the programs
#                                         nobody here wrote that
#                                         tests/record profiles (Go, Rust,
#                                         node, openssl, python3, xz),
#                                         strace, and curl and unzip (the
#                                         GitLab recipe of docs/ci.md,
#                                         tests/diff/test_ci_recipe.cpp),
#                                         and debuginfod (a server of its
#                                         own for the symbol lookups'
#                                         tests)
set -eu
if [ "$(id -u)" -ne 0 ]; then
    exec sudo "$0" "$@"
fi
gui=no
tests=no
for arg in "$@"; do
    case "$arg" in
    --gui) gui=yes ;;
    --tests) gui=yes tests=yes ;;
    *)
        echo "install-deps.sh: unknown option '$arg' (--gui adds Qt 6 for cpcprof-gui;" \
            "--tests adds that and the test suite's packages)" >&2
        exit 2
        ;;
    esac
done
export DEBIAN_FRONTEND=noninteractive
packages="
    build-essential binutils cmake ninja-build pkg-config
    libpfm4-dev
    libdw-dev libelf-dev libdebuginfod-dev
    libunwind-dev
    libsqlite3-dev sqlite3
    zlib1g-dev
    nlohmann-json3-dev
"
if [ "$gui" = yes ]; then
    packages="$packages
    qt6-base-dev qt6-svg-dev
"
fi
if [ "$tests" = yes ]; then
    packages="$packages
    libgtest-dev libgmock-dev
    protobuf-compiler golang-github-google-pprof-dev python3-jsonschema
    chromium
    clang libclang-rt-14-dev clang-format clang-tidy
    xvfb xauth
    golang-go rustc nodejs openssl python3 strace xz-utils
    curl unzip debuginfod
"
fi
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
