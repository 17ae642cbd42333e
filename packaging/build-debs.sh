#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the Debian packages libcpc1, libcpc-dev, cpcprof and cpcprof-gui from this tree
# into OUTDIR (default: build/deb/packages), configured for /usr in a build
# directory of their own (build/deb), without the tests.
#
#   sh packaging/build-debs.sh [OUTDIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CPCPROF_DEB_BUILD_DIR:-$src/build/deb}
out=${1:-$build/packages}
command -v dpkg-shlibdeps >/dev/null || { echo "build-debs.sh: dpkg-shlibdeps missing (apt-get install dpkg-dev)" >&2; exit 1; }
# cpcprof-gui is one of the packages.
dpkg-query -W -f='${Status}' qt6-base-dev 2>/dev/null | grep -q "ok installed" ||
    { echo "build-debs.sh: Qt 6 missing for cpcprof-gui (sh packaging/install-deps.sh --gui)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
launcher=""
if command -v ccache >/dev/null; then
    launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX=/usr -DCPCPROF_BUILD_TESTS=OFF -DCPCPROF_DEBIAN_FILES=ON $launcher
cmake --build "$build" -j"${CPCPROF_JOBS:-2}"
rm -f "$build"/cpack/*.deb
(cd "$build" && cpack -G DEB)
mv "$build"/cpack/*.deb "$out"/
ls "$out"/*.deb
