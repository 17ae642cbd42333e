#!/bin/sh
# SPDX-License-Identifier: MIT
# `cmake --install` into a temporary prefix, then from a directory outside
# the source and build trees: the installed cpcprof records the bundled demo
# with the installed agent (found relative to itself) and reports it; cpc(3CPC)
# Example 1 compiles against the installed header with pkg-config and runs.
#
#   install_prefix.sh BUILD_DIR SOURCE_DIR DEMO_EXE CC SANITIZED(0|1)
# Exit 77: skipped (the reason is printed).
set -eu
build=$1 src=$2 demo=$3 cc=$4 sanitized=$5

fail() { echo "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/cpcprof-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

# The files, under the GNU directories of this configuration.
# shellcheck disable=SC2016 # the .pc file's own ${prefix}
libdir=$(sed -n 's/^libdir=\${prefix}\///p' "$prefix"/lib*/pkgconfig/libcpc.pc 2>/dev/null | head -1)
[ -n "$libdir" ] || fail "no libcpc.pc with a libdir under $prefix"
for f in "$libdir/libcpc.so.1" "$libdir/libpctx.so.1" "$libdir/libcpc.so" "$libdir/libpctx.so" \
         include/libcpc.h include/libpctx.h \
         "$libdir/pkgconfig/libcpc.pc" "$libdir/pkgconfig/libpctx.pc" \
         bin/cpcprof bin/cputrack sbin/cpustat "$libdir/cpcprof/libcpcprof-agent.so" \
         share/man/man1/cputrack.1 share/man/man8/cpustat.8 share/man/man3/cpc_open.3cpc \
         share/man/man3/pctx_capture.3cpc; do
    [ -e "$prefix/$f" ] || fail "$f not installed"
done
for f in "$src"/packaging/man/*; do
    n=$(basename "$f")
    s=$(echo "$n" | sed 's/^.*\.\([0-9]\)[a-z]*$/\1/')
    [ -e "$prefix/share/man/man$s/$n" ] || fail "man page $n not in share/man/man$s"
done

# A page for cpcprof and for every subcommand its --help lists.
cmds=$(LD_LIBRARY_PATH="$prefix/$libdir" "$prefix/bin/cpcprof" --help 2>&1 |
       sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ -n "$cmds" ] || fail "cpcprof --help lists no commands"
for c in cpcprof $(echo "$cmds" | sed 's/^/cpcprof-/'); do
    [ -e "$prefix/share/man/man1/$c.1" ] || fail "no man page $c(1)"
done

# SONAMEs, and only the API exported (the names the version scripts list).
for lib in cpc pctx; do
    so=$prefix/$libdir/lib$lib.so.1
    readelf -d "$so" | grep -q "SONAME.*\[lib$lib\.so\.1\]" || fail "lib$lib.so.1 has no SONAME lib$lib.so.1"
    map=$src/libcpc/lib$lib.map
    nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$work/exported"
    while read -r sym; do
        case $sym in
        SUNW*) continue ;; # version nodes
        esac
        # Every exported name matches a global pattern of the map.
        ok=0
        for pat in $(sed -n '/global:/,/local:\|}/p' "$map" | sed 's,/\*.*\*/,,' |
                     tr -d ' \t;' | grep -v '^global:$\|^local:\|^}\|^$'); do
            # shellcheck disable=SC2254
            case $sym in $pat) ok=1; break ;; esac
        done
        [ $ok = 1 ] || fail "lib$lib.so.1 exports $sym, which lib$lib.map does not list"
    done < "$work/exported"
    api=cpc_open
    [ $lib = pctx ] && api=pctx_create
    grep -qx "$api" "$work/exported" || fail "lib$lib.so.1 does not export $api"
done

# No build-tree path in what the installed programs use (debug info aside):
# the agent's lookup and the run paths.
for f in bin/cpcprof bin/cputrack sbin/cpustat "$libdir/cpcprof/libcpcprof-agent.so" \
         "$libdir/libcpc.so.1" "$libdir/libpctx.so.1"; do
    if readelf -p .rodata -d "$prefix/$f" 2>/dev/null | grep -qF "$build"; then
        fail "$f names the build tree $build"
    fi
done

if [ "$sanitized" = 1 ]; then
    echo "SKIP (after checking the installed files): libcpc and the agent are built with ASan" \
         "here, and a plain program cannot load them (ASan's runtime must come first)"
    exit 77
fi

outside=$work/run
mkdir "$outside"
cd "$outside"
export LD_LIBRARY_PATH="$prefix/$libdir"
unset CPCPROF_AGENT

# Example 1 against the installed header and library, through pkg-config.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs libcpc) || fail "pkg-config --cflags --libs libcpc"
case $flags in *"$prefix"*) ;; *) fail "pkg-config gives $flags, not the installed prefix $prefix" ;; esac
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -o example1 "$src/tests/examples/example1.c" $flags || fail "example1 does not compile"
ldd ./example1 | grep -q "libcpc.so.1 => $prefix/" || fail "example1 not linked to the installed libcpc: $(ldd ./example1)"
./example1 >example1.out 2>&1 || { cat example1.out; fail "example1 exits $?"; }
[ -s example1.out ] || fail "example1 printed nothing"
echo "example1: $(head -3 example1.out)"

# The installed cpcprof preloads the installed agent.
"$prefix/bin/cpcprof" record -o env.cpcprof -- /usr/bin/env >env.out 2>env.err || { cat env.err; fail "cpcprof record env"; }
grep -q "^LD_PRELOAD=$prefix/$libdir/cpcprof/libcpcprof-agent.so" env.out ||
    fail "the target's LD_PRELOAD is not the installed agent: $(grep LD_PRELOAD env.out)"

# Record the demo and report it: its hot functions are the demo's own.
"$prefix/bin/cpcprof" record -o demo.cpcprof -- "$demo" 1 >record.out 2>record.err ||
    { cat record.err; fail "cpcprof record on the demo"; }
"$prefix/bin/cpcprof" report demo.cpcprof >report.txt 2>report.err || { cat report.err; fail "cpcprof report"; }
for fn in matrix_multiply walk_list checksum; do
    grep -q " $fn " report.txt || { cat report.txt; fail "$fn not in the report"; }
done
samples=$(sed -n 's/^# samples: \([0-9]*\) kept.*/\1/p' report.txt)
[ "${samples:-0}" -gt 0 ] || { cat report.txt; fail "no samples kept"; }
echo "installed cpcprof: $samples samples of the demo; report: $(grep -c . report.txt) lines"
echo "PASS"
