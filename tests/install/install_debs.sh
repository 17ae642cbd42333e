#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the Debian packages (packaging/build-debs.sh), installs them with
# dpkg into a scratch root (dpkg --root, its own database), and from outside
# the trees: compiles cpc(3CPC) Example 1 with pkg-config against the
# installed header and runs it, records the demo with the installed cpcprof
# and reports it, opens that recording in the packaged cpcprof-gui
# (offscreen), runs `cputrack -c cpu-clock true`, finds man pages; then
# removes the packages with dpkg -r and checks that nothing of them is left.
#
#   install_debs.sh SOURCE_DIR DEB_BUILD_DIR DEMO_EXE CC SANITIZED(0|1)
# Exit 77: skipped (the reason is printed).
set -eu
src=$1 debbuild=$2 demo=$3 cc=$4 sanitized=$5

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "dpkg --root needs root (CI is root)"
[ "$sanitized" = 0 ] || skip "the packages are built plainly; this ASan build's demo and compiler flags do not apply"
for tool in dpkg dpkg-deb dpkg-shlibdeps cpack pkg-config; do
    command -v $tool >/dev/null || skip "$tool is not installed"
done

work=$(mktemp -d /tmp/cpcprof-debs.XXXXXX)
trap 'rm -rf "$work"' EXIT
debs=$work/debs
CPCPROF_DEB_BUILD_DIR=$debbuild sh "$src/packaging/build-debs.sh" "$debs" >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log"; fail "build-debs.sh"; }
for p in libcpc1 libcpc-dev cpcprof cpcprof-gui; do
    ls "$debs/${p}"_*.deb >/dev/null 2>&1 || fail "no $p package"
done
# The viewer is in its own package: cpcprof does not pull in Qt.
dpkg-deb -c "$debs"/cpcprof_*.deb | grep -q cpcprof-gui && fail "cpcprof holds the viewer"
guideps=$(dpkg-deb -f "$debs"/cpcprof-gui_*.deb Depends)
case $guideps in *libqt6widgets6*) ;; *) fail "cpcprof-gui depends on: $guideps" ;; esac
# libcpc1 loads libpfm4 itself (dlopen): a dependency named by hand.
libdeps=$(dpkg-deb -f "$debs"/libcpc1_*.deb Depends)
case $libdeps in *libpfm4*) ;; *) fail "libcpc1 depends on: $libdeps" ;; esac
# The debuginfod client is loaded with dlopen: recommended by hand.
for p in cpcprof cpcprof-gui; do
    rec=$(dpkg-deb -f "$debs"/${p}_*.deb Recommends)
    case $rec in *libdebuginfod1*) ;; *) fail "$p recommends: $rec" ;; esac
done
# Dependencies computed by dpkg-shlibdeps: cpcprof needs libc6 and libcpc1.
deps=$(dpkg-deb -f "$debs"/cpcprof_*.deb Depends)
case $deps in *libcpc1*libc6*|*libc6*libcpc1*) ;; *) fail "cpcprof depends on: $deps" ;; esac

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
# The scratch root has no libc6 (--force-depends) and no shell for the
# maintainer scripts (ldconfig, run outside it: --force-script-chrootless).
dpkg --root="$root" --force-depends --force-script-chrootless -i "$debs"/*.deb >"$work/dpkg.log" 2>&1 ||
    { cat "$work/dpkg.log"; fail "dpkg -i"; }
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
lib=$root/usr/lib/$ma
for f in usr/bin/cpcprof usr/bin/cputrack usr/sbin/cpustat "usr/lib/$ma/cpcprof/libcpcprof-agent.so" \
         "usr/lib/$ma/libcpc.so.1" "usr/lib/$ma/libpctx.so.1" "usr/lib/$ma/libcpc.so" \
         "usr/lib/$ma/pkgconfig/libcpc.pc" usr/include/libcpc.h usr/share/man/man1/cputrack.1.gz usr/share/man/man1/cpcprof-record.1.gz \
         usr/share/man/man3/cpc_open.3cpc.gz usr/share/man/man8/cpustat.8.gz \
         usr/bin/cpcprof-gui usr/share/man/man1/cpcprof-gui.1.gz usr/share/applications/cpcprof-gui.desktop \
         usr/share/icons/hicolor/scalable/apps/cpcprof-gui.svg usr/share/mime/packages/cpcprof.xml \
         usr/share/metainfo/io.github.cpcprof.cpcprof_gui.metainfo.xml; do
    [ -e "$root/$f" ] || fail "/$f not installed by the packages"
done

run=$work/run
mkdir "$run"
cd "$run"
export LD_LIBRARY_PATH="$lib"
unset CPCPROF_AGENT

# Example 1: pkg-config's paths, moved into the scratch root.
flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --cflags --libs libcpc) ||
    fail "pkg-config libcpc"
case $flags in *"-L$lib"*) ;; *) fail "pkg-config gives $flags" ;; esac
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -o example1 "$src/tests/examples/example1.c" $flags -I"$root/usr/include" ||
    fail "example1 does not compile"
ldd ./example1 | grep -q "libcpc.so.1 => $lib/" || fail "example1 not linked to the packaged libcpc"
./example1 >example1.out 2>&1 || { cat example1.out; fail "example1 exits $?"; }

# The packaged cpcprof finds the packaged agent, records and reports the demo.
"$root/usr/bin/cpcprof" record -o env.cpcprof -- /usr/bin/env >env.out 2>env.err || { cat env.err; fail "record env"; }
grep -q "^LD_PRELOAD=$lib/cpcprof/libcpcprof-agent.so" env.out ||
    fail "the target's LD_PRELOAD is not the packaged agent: $(grep LD_PRELOAD env.out)"
"$root/usr/bin/cpcprof" record -o demo.cpcprof -- "$demo" 1 >record.out 2>record.err ||
    { cat record.err; fail "cpcprof record on the demo"; }
"$root/usr/bin/cpcprof" report demo.cpcprof >report.txt 2>report.err || { cat report.err; fail "cpcprof report"; }
for fn in matrix_multiply walk_list checksum; do
    grep -q " $fn " report.txt || { cat report.txt; fail "$fn not in the report"; }
done

# The packaged viewer opens the recording, draws its flame graph (offscreen)
# and quits, printing its timings (CPCPROF_GUI_BENCH, cpcprof-gui(1)).
QT_QPA_PLATFORM=offscreen CPCPROF_GUI_BENCH=1 timeout 120 "$root/usr/bin/cpcprof-gui" demo.cpcprof \
    >gui.out 2>gui.err || { cat gui.err; fail "cpcprof-gui on the demo's recording"; }
grep -q '"first_paint_ms"' gui.out || { cat gui.out gui.err; fail "cpcprof-gui drew no flame graph"; }
grep -q '"frames_drawn":0[,}]' gui.out && fail "cpcprof-gui drew an empty flame graph"

"$root/usr/bin/cputrack" -c cpu-clock true >cputrack.out 2>&1 || { cat cputrack.out; fail "cputrack"; }
grep -Eq "exit +[0-9]+" cputrack.out || { cat cputrack.out; fail "cputrack printed no count at exit"; }

if command -v man >/dev/null; then
    for name in cpcprof-record cpcprof cputrack cpcprof-gui; do
        page=$(MANPATH="$root/usr/share/man" man -w $name 2>/dev/null) || fail "man -w $name finds no page"
        case $page in "$root"/*) ;; *) fail "man -w $name gives $page" ;; esac
    done
else
    echo "note: man is not installed; man -w not checked (the pages' files were)"
fi

# Removed: nothing of them is left but the directories dpkg keeps.
dpkg --root="$root" --force-depends --force-script-chrootless -r cpcprof-gui cpcprof libcpc-dev libcpc1 >"$work/remove.log" 2>&1 ||
    { cat "$work/remove.log"; fail "dpkg -r"; }
left=""
[ ! -d "$root/usr" ] || left=$(find "$root/usr" ! -type d)
[ -z "$left" ] || fail "left after dpkg -r: $left"
if dpkg --root="$root" -l 2>/dev/null | grep -E '^ii +(libcpc1|libcpc-dev|cpcprof|cpcprof-gui) '; then
    fail "still installed after dpkg -r"
fi
echo "packages: $(cd "$debs" && echo ./*.deb)"
echo "PASS"
