#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target of tests/fuzz for a bounded time over its
# checked-in seed corpus, under ASan + UBSan (the fuzz preset), and fails
# on the first crash, sanitizer report, leak, timeout or out-of-memory.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]     (default 60)
#
# Builds the fuzz preset first (clang).  New inputs the fuzzer finds go to
# a scratch corpus under build/fuzz/corpus/TARGET (not the checked-in
# one); a crashing input is saved as build/fuzz/artifacts/TARGET/crash-*
# and printed.  See tests/fuzz/README.md for longer runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
case $seconds in
'' | *[!0-9]*)
    echo "fuzz: SECONDS_PER_TARGET must be a whole number, not '$seconds'" >&2
    exit 2
    ;;
esac

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2

status=0
for target in fuzz_profile fuzz_eventspec fuzz_eh_frame; do
    name=${target#fuzz_}
    seeds=tests/fuzz/corpus/$name
    scratch=build/fuzz/corpus/$name
    artifacts=build/fuzz/artifacts/$name
    mkdir -p "$scratch" "$artifacts"
    echo "fuzz: $target for ${seconds}s (seeds: $seeds)"
    # -timeout: one input taking longer is a finding (the readers must stay
    # linear in the input); -rss_limit_mb: so is memory beyond 2 GB.
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "build/fuzz/tests/fuzz/$target" "$scratch" "$seeds" \
        -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        >"build/fuzz/$target.log" 2>&1; then
        echo "fuzz: $target FAILED; the end of its log (build/fuzz/$target.log):" >&2
        tail -n 40 "build/fuzz/$target.log" >&2
        ls -l "$artifacts" >&2
        status=1
    else
        grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' \
            "build/fuzz/$target.log" | sed "s/^/fuzz: $target /"
    fi
done
exit $status
